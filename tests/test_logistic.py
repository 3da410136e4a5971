"""Logistic bandits: MLE, warm-ups (naive / WAR / oracle), HOMER (Mason, Jun & Jain 2022)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from bandits import run
from bandits._core import rng as _rng
from bandits.logistic import (
    HomerPolicy,
    LogisticInstance,
    WarPolicy,
    circle30,
    gamma,
    mle,
    mle_exists,
    mu,
    mudot,
    naive_warmup,
    oracle_warmup,
    run_eps_greedy,
    run_homer,
    run_warmup,
    sphere,
    war_warmup,
    warmup_xi2,
)
from bandits.logistic.warmup import two_approx_g_design


def easy_instance() -> LogisticInstance:
    """d = 2, 4 arms with large gaps (best arm 0)."""
    ang = np.array([0.0, 1.2, 2.4, 3.6])
    X = np.column_stack([np.cos(ang), np.sin(ang)])
    return LogisticInstance(X=X, theta=np.array([2.0, 0.0]), name="easy")


# ---------------------------------------------------------------------------- basics

def test_gamma_value() -> None:
    lg = np.log(6 * 22 / 0.05)
    assert gamma(3, 20, 0.05) == pytest.approx(6.1 ** 2 * lg)
    assert gamma(1000, 20, 0.05) == pytest.approx(1000 + lg)


@pytest.mark.parametrize("S, published", [(2.0, 8377), (4.0, 49794), (8.0, 2623477)])
def test_naive_warmup_count_formula(S: float, published: float) -> None:
    inst = sphere(3, 20, S, seed=1)
    res = naive_warmup(inst.X, S)
    closed = 3 * gamma(3, 20, 0.05) / mudot(S)
    assert res.total_continuous == pytest.approx(closed, rel=1e-5)
    assert res.total_continuous == pytest.approx(published, rel=1e-3)  # Table 1, to 0.1%
    assert res.total >= res.total_continuous


def test_mle_recovers_theta_large_sample() -> None:
    rng = np.random.default_rng(3)
    inst = sphere(4, 30, 2.0, seed=3)
    n = np.full(30, 200_000)
    s = rng.binomial(n, inst.means)
    fit = mle(inst.X, n, s)
    assert fit.exists and fit.method == "mle"
    assert np.linalg.norm(fit.theta - inst.theta) < 0.05


def test_mle_separable_outcomes() -> None:
    X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])
    n = np.array([10, 10, 10])
    s = np.array([10, 5, 0])  # separated along e_1
    assert not mle_exists(X, n, s)
    with pytest.raises(ValueError, match="does not exist"):
        mle(X, n, s, on_separable="raise")
    assert np.all(np.isnan(mle(X, n, s, on_separable="nan").theta))
    fb = mle(X, n, s)
    assert not fb.exists and fb.method == "fallback-appF" and np.all(np.isfinite(fb.theta))
    # arms with data not spanning R^2: no fallback possible
    with pytest.raises(ValueError, match="span"):
        mle(X, [10, 0, 0], [4, 0, 0])


def test_newton_mle_reaches_the_score_equations() -> None:
    """The numpy Newton (``newton_mle``) ends at a zero of the score ``X^T (s - n mu(X
    theta))``: the Newton step left, computed in float64 at the estimate, is at the
    rounding level (about 1e-7 relative in the worst conditioned draws, 1e-12 typically),
    and ``tol = 1e-16`` never ends in ``MLE_MAX_ITER`` (the decrement floor: an accepted
    step that does not raise the computed log-likelihood ends the iteration)."""
    from bandits.logistic.core import MLE_CONVERGED, newton_mle

    rng = np.random.default_rng(1)
    steps = []
    for _ in range(150):
        K, d = int(rng.integers(3, 60)), int(rng.integers(1, 7))
        X = rng.standard_normal((K, d)) / np.sqrt(d)
        n = rng.integers(0, 200, K).astype(float)
        s = rng.binomial(n.astype(int), mu(X @ (rng.standard_normal(d) * rng.uniform(0, 4))))
        s = s.astype(float)
        if not mle_exists(X, n, s):
            continue
        th = np.zeros(d)
        status, _ = newton_mle(X, n, s, th, 1e-16, 100, 200.0)
        assert status == MLE_CONVERGED
        z = X @ th
        g = X.T @ (s - n * mu(z))
        H = (X.T * (n * mudot(z))) @ X
        steps.append(np.max(np.abs(np.linalg.solve(H, g))) / max(1.0, np.max(np.abs(th))))
    assert len(steps) > 100
    assert max(steps) <= 1e-6 and np.median(steps) <= 1e-11


def test_newton_mle_statuses() -> None:
    """Separable data diverge (``|x^T theta|`` beyond ``z_max``), arms with data that do
    not span R^d give a singular Hessian."""
    from bandits.logistic.core import MLE_DIVERGED, MLE_SINGULAR, newton_mle

    X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])
    th = np.zeros(2)
    assert newton_mle(X, np.array([10.0, 10, 10]), np.array([10.0, 5, 0]), th, 1e-16, 200,
                      30.0)[0] == MLE_DIVERGED
    assert newton_mle(X, np.array([10.0, 0, 0]), np.array([4.0, 0, 0]), np.zeros(2), 1e-16,
                      100, 200.0)[0] == MLE_SINGULAR


def test_mle_appendix_f_one_dimension() -> None:
    for s, p in [(20, 19.5 / 20), (0, 0.5 / 20)]:
        fit = mle([[1.0]], [20], [s])
        assert fit.theta[0] == pytest.approx(np.log(p / (1 - p)), abs=1e-7)


# --------------------------------------------------------------------------- warm-ups

@pytest.mark.parametrize("method", ["naive", "oracle", "war"])
def test_warmup_condition_holds(method: str) -> None:
    inst = sphere(3, 20, 4.0, seed=2)
    res = run_warmup(method, inst, seed=0)
    xi2 = warmup_xi2(inst.X, res.counts, inst.theta)
    assert xi2 <= 1.0 / res.gamma * (1 + 1e-9)
    assert res.theta_hat is not None
    # delta-valid estimate on this draw: |x^T (theta_hat - theta*)| <= 1
    assert np.max(np.abs(inst.X @ (res.theta_hat - inst.theta))) <= 1.0


def test_war_between_oracle_and_naive_and_reports_parameters() -> None:
    inst = sphere(3, 20, 8.0, seed=0)
    w = war_warmup(inst.X, 8.0, inst.theta, seed=0)
    o = oracle_warmup(inst.X, inst.theta)
    n = naive_warmup(inst.X, 8.0)
    assert o.total_continuous <= w.total_continuous < n.total_continuous
    assert (w.info["L"], w.info["U"], w.info["r"]) == (1.0, 2.0, 2.0)
    assert w.probe_samples > 0
    # pessimistic variances never exceed the true ones on this (good) event
    assert np.all(w.surrogate <= inst.variances * (1 + 1e-9))


def test_pessimistic_bound_uses_the_lower_bounds_of_the_confidence_set() -> None:
    # C = {||theta|| <= 2, |theta_1| >= 1, |theta_1 + theta_2| / sqrt 2 <= 1.5}: by hand,
    # max |theta_2| over C is sqrt(3) (theta = (-1, sqrt 3): |(-1 + 1.732)/sqrt 2| = 0.52 <=
    # 1.5, on the sphere), and max |theta_2| without |theta_1| >= 1 is S = 2.
    from bandits.logistic.warmup import _ConfidenceSet

    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0] / np.sqrt(2.0)])
    cs = _ConfidenceSet(X, 2.0)
    cs.update(0, 1.0, np.inf)
    cs.update(2, 0.0, 1.5)
    assert cs.max_abs(X[1]) == pytest.approx(np.sqrt(3.0), rel=1e-5)
    assert cs.max_abs(X[1], exact=False) == pytest.approx(2.0, rel=1e-6)
    # with |theta_2| >= 1.5 too: max |theta_1| = sqrt(4 - 2.25), reached only with opposite
    # signs (|1.32 + 1.5| / sqrt 2 = 2.0 > 1.5 excludes equal signs): two sign patterns
    cs.update(1, 1.5, np.inf)
    assert cs.max_abs(X[0]) == pytest.approx(np.sqrt(1.75), rel=1e-5)
    assert cs.max_abs(X[0], exact=False) == pytest.approx(2.0, rel=1e-6)


def test_war_planning_at_s2_uses_the_lower_bounds() -> None:
    # Mason et al. Table 1, S = 2: WAR 6,536 vs naive 8,377 (ratio 0.78). Without the lower
    # bounds |x_i^T theta| >= L_i the pessimistic variances stay at mu'(S) and WAR equals
    # naive (8,339 here); with them (the paper's C_m) this repetition plans 5,755.
    from bandits.logistic.warmup import relaxed_plan

    inst = sphere(3, 20, 2.0, seed=3)
    w = war_warmup(inst.X, 2.0, inst.theta, seed=3)
    naive = naive_warmup(inst.X, 2.0).total_continuous
    assert w.total_continuous < 0.75 * naive
    assert relaxed_plan(inst.X, 2.0, w).total_continuous > 0.99 * naive
    assert np.all(w.surrogate <= inst.variances * (1 + 1e-9))  # still delta-valid here


def test_war_deterministic_per_seed() -> None:
    inst = sphere(3, 20, 4.0, seed=5)
    a = war_warmup(inst.X, 4.0, inst.theta, seed=7)
    b = war_warmup(inst.X, 4.0, inst.theta, seed=7)
    assert a.probe_samples == b.probe_samples
    assert np.array_equal(a.counts, b.counts)


def test_two_approx_g_design() -> None:
    X = sphere(5, 40, 1.0, seed=0).X
    w = two_approx_g_design(X)
    M = (X * w[:, None]).T @ X
    om = np.einsum("ij,jk,ik->i", X, np.linalg.inv(M), X)
    assert om.max() <= 2 * 5 * (1 + 1e-9)
    assert w.sum() == pytest.approx(1.0)


# ------------------------------------------------------------------------------ HOMER

@pytest.mark.parametrize("seed", [0, 1])
def test_homer_keeps_best_arm_on_easy_instance(seed: int) -> None:
    inst = easy_instance()
    res = run_homer(inst, 12_000_000, seed=seed)
    assert not res.extra["best_eliminated"]
    assert res.stopped_by == "commit" and res.correct
    assert res.samples == 12_000_000 and res.counts.sum() == 12_000_000
    reg = res.extra["regret"]
    assert np.all(np.diff(reg) >= -1e-9)
    assert reg[-1] == pytest.approx(res.extra["final_regret"])


def test_homer_deterministic_and_runner() -> None:
    inst = easy_instance()
    a = run_homer(inst, 500_000, seed=3)
    b = run("homer", inst, seed=3, T=500_000)
    assert np.array_equal(a.counts, b.counts)
    assert np.array_equal(a.extra["regret"], b.extra["regret"])
    w = run("war", sphere(3, 20, 4.0, seed=1), seed=2)
    assert w.algorithm == "war" and w.samples > 0


def test_homer_policy_ask_tell() -> None:
    inst = easy_instance()
    pol = HomerPolicy(inst.X, S=2.0)
    rng = np.random.default_rng(0)
    n0 = int(naive_warmup(inst.X, 2.0).counts.sum())
    for _ in range(n0 + 5):
        arm = pol.ask()
        pol.tell(arm, int(rng.random() < inst.means[arm]))
    assert pol.phase == "phase 1" and pol.theta_hat is not None
    with pytest.raises(ValueError):
        pol.tell(0, 1)


def _drive_war_like_simulation(pol: WarPolicy | HomerPolicy, war: WarPolicy,
                               inst: LogisticInstance, seed: int) -> list[int]:
    """Ask/tell ``pol`` (whose WAR warm-up is ``war``) until ``war`` is done, feeding the
    outcomes ``run_warmup(..., simulation="per-sample")`` draws for ``seed``: one
    ``uniform < p_a`` per pull of stream 1, in the ask/tell order (probing, then the plan
    in ``interleaved_order``), i.e. :meth:`LogisticInstance.reward_oracle`. Returns the
    arms asked while probing."""
    draw = inst.reward_oracle(seed)
    asked = []
    while war.phase == "probing":
        a = pol.ask()
        asked.append(a)
        pol.tell(a, draw(a))
    while not war.done:
        a = pol.ask()
        pol.tell(a, draw(a))
    return asked


@pytest.mark.parametrize(("S", "inst_seed", "seed"), [(4.0, 1, 3), (2.0, 0, 0)])
def test_war_policy_replays_simulation(S: float, inst_seed: int, seed: int) -> None:
    inst = sphere(3, 20, S, seed=inst_seed)
    sim = run_warmup("war", inst, seed=seed, simulation="per-sample")
    pol = WarPolicy(inst.X, S, seed=seed)
    assert pol.phase == "probing" and pol.allocation is None and pol.recommendation is None
    asked = _drive_war_like_simulation(pol, pol, inst, seed)
    # probing decisions: arms asked in blocks (one block per probed arm), block lengths
    # = the simulation's probe counts; same accept/reject sets, bounds and stages
    blocks = [(a, sum(1 for _ in g)) for a, g in itertools.groupby(asked)]
    assert sorted(a for a, _ in blocks) == sorted(np.flatnonzero(sim.info["probe_counts"]))
    assert all(n == sim.info["probe_counts"][a] for a, n in blocks)
    res = pol.result
    assert res is not None and pol.done and pol.stopped_by == "warm-up"
    for key in ("stages", "probe_counts", "accepted", "rejected", "lower", "upper",
                "max_abs_pes"):
        assert np.array_equal(res.info[key], sim.info[key]), key
    assert pol.stages == sim.info["stages"]
    # planning: same allocation, same total counts, same MLE and recommendation
    assert np.array_equal(pol.allocation, sim.counts)
    assert np.array_equal(res.counts, sim.counts) and res.g == sim.g
    assert np.array_equal(pol.counts, sim.info["probe_counts"] + sim.counts)
    assert pol.samples == sim.probe_samples + sim.total == len(asked) + sim.total
    assert np.array_equal(res.theta_hat, sim.theta_hat)
    assert res.info["mle_exists"] == sim.info["mle_exists"]
    assert pol.recommendation == int(np.argmax(inst.X @ sim.theta_hat))
    with pytest.raises(RuntimeError):
        pol.ask()


def test_war_policy_protocol_errors() -> None:
    inst = easy_instance()
    pol = WarPolicy(inst.X, 2.0)
    with pytest.raises(ValueError, match="without a pending"):
        pol.tell(0, 1)
    arm = pol.ask()
    assert pol.ask() == arm  # idempotent until told
    with pytest.raises(ValueError, match="was asked"):
        pol.tell((arm + 1) % 4, 1)
    for bad_arm in (True, float(arm)):
        with pytest.raises(ValueError, match="arm"):
            pol.tell(bad_arm, 1)
    for bad in (0.5, 2, -1, float("nan"), "1", None):
        with pytest.raises(ValueError, match="0 or 1"):
            pol.tell(arm, bad)
    pol.tell(arm, 1.0)  # 0/1 as float (or bool) accepted
    assert pol.samples == 1
    with pytest.raises(ValueError):
        WarPolicy(inst.X, 2.0, L=2.0, U=1.0)
    with pytest.raises(ValueError):
        WarPolicy(inst.X, 2.0, r=1.0)


def test_homer_policy_war_warmup() -> None:
    inst = easy_instance()
    sim = run_warmup("war", inst, seed=0, simulation="per-sample")
    pol = HomerPolicy(inst.X, S=2.0, warmup="war", seed=0)
    assert pol.war is not None
    _drive_war_like_simulation(pol, pol.war, inst, 0)
    # the warm-up is run_warmup's (same outcomes): HOMER planned phase 1 from its MLE
    assert pol.phase == "phase 1"
    assert np.array_equal(pol.theta_hat, sim.theta_hat)
    assert pol.war.samples == sim.probe_samples + sim.total
    rng = np.random.default_rng(0)
    for _ in range(5):  # phase 1 pulls go through HOMER's own queue
        arm = pol.ask()
        assert pol.active[arm]
        pol.tell(arm, int(rng.random() < inst.means[arm]))
    assert pol.war.samples == sim.probe_samples + sim.total
    with pytest.raises(ValueError, match="0 or 1"):
        pol.tell(pol.ask(), 0.5)
    with pytest.raises(ValueError):
        HomerPolicy(inst.X, S=2.0, warmup="oracle")


def test_eps_greedy_baseline() -> None:
    inst = sphere(3, 20, 2.0, seed=1)
    a = run_eps_greedy(inst, 200_000, seed=1)
    b = run_eps_greedy(inst, 200_000, seed=1)
    assert np.array_equal(a.extra["regret"], b.extra["regret"])
    assert a.extra["final_regret"] < 0.05 * 200_000


# ----------------------------------------------------------------------- Appendix G

def test_figure3_h_much_smaller_than_g(tmp_path) -> None:
    from bandits.logistic.experiments import figure3, plot_figure3

    f = figure3()
    assert f["g_star"] == pytest.approx(21.10, abs=0.01)
    assert f["h_star"] == pytest.approx(0.389, abs=0.001)
    assert f["h_star"] < f["g_star"] / 20
    axes = plot_figure3(tmp_path / "f3.png", f)
    assert axes.shape == (2, 2) and (tmp_path / "f3.png").stat().st_size > 1000
    np.testing.assert_allclose(axes[1, 1].collections[0].get_segments()[3][1, 1],
                               f["lambda_H"][3])  # the stems are the H weights


# ------------------------------------------------------------------------ bad input

def test_bad_input() -> None:
    X = circle30().X
    with pytest.raises(ValueError, match="NaN"):
        LogisticInstance(X=X, theta=[np.nan, 0.0])
    with pytest.raises(ValueError, match="S"):
        sphere(3, 20, 0.0)
    with pytest.raises(ValueError, match="S"):
        naive_warmup(X, -1.0)
    with pytest.raises(ValueError, match="unit ball"):
        naive_warmup(2 * X, 1.0)
    with pytest.raises(ValueError, match="unit ball"):
        mle(2 * X, np.ones(30), np.zeros(30))
    with pytest.raises(ValueError, match="theta"):
        oracle_warmup(X, [1.0, np.inf])
    with pytest.raises(ValueError, match="delta"):
        naive_warmup(X, 1.0, delta=1.5)
    with pytest.raises(ValueError, match="successes"):
        mle(X[:2], [1, 1], [2, 0])
    with pytest.raises(ValueError, match="exceeds S"):
        LogisticInstance(X=X, theta=[3.0, 0.0], S=1.0)


@pytest.mark.parametrize("S", [40.0, 800.0])
def test_a_warmup_no_experiment_can_run_is_refused_naming_s(S: float) -> None:
    """``mu'(S) ~ e^-S``: at S = 40 the naive plan is ~1e20 pulls, beyond int64 counts (the
    cast gave negative counts and a total of 0); at S = 800 every ``mu'`` underflows to 0 and
    the G-design had no informative arm. Both refused naming S, in the warm-up and in HOMER;
    S = 30 (~5e15 pulls) is still planned and its counts add up to the continuous total."""
    X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    with pytest.raises(ValueError, match=r"^S \(the variances are mu'\(\|\|x\|\| S\)\)"):
        naive_warmup(X, S)
    inst = LogisticInstance(X=X, theta=[2.0, 0.0], S=S)
    for name in ("homer", "war"):
        with pytest.raises(ValueError, match="coded"):
            run(name, inst, seed=0, max_samples=100_000)
    plan = naive_warmup(X, 30.0)
    assert np.all(plan.counts > 0)
    assert plan.total >= plan.total_continuous > 1e15
    with pytest.raises(ValueError, match=r"^theta .*underflow to 0 in float64 for 2 of 4 arms"):
        oracle_warmup(X, [900.0, 0.0])


def test_mu_mudot_stable() -> None:
    z = np.array([-800.0, 0.0, 800.0])
    assert np.all(np.isfinite(mu(z))) and mu(0.0) == 0.5
    assert mudot(0.0) == 0.25 and mudot(800.0) == 0.0


def test_homer_policy_reports_samples_and_counts():
    from bandits.logistic import HomerPolicy, sphere

    inst = sphere(3, 8, 2.0, seed=4)
    pol = HomerPolicy(inst.X, S=2.0)
    rng = np.random.default_rng(0)
    p = 1 / (1 + np.exp(-inst.X @ inst.theta))
    for _ in range(500):
        arm = pol.ask()
        pol.tell(arm, int(rng.random() < p[arm]))
    assert pol.samples == 500 and pol.counts.sum() == 500
    assert not pol.done and not pol.committed
    assert 0 <= pol.recommendation < 8


# ---- issue 18: the sufficient-statistic simulation equals the per-sample one in law ----


def test_binomial_draw_of_a_design_has_the_per_sample_law() -> None:
    """``design_draw`` (one Binomial per arm, Devroye's splitting) against ``design_play``
    (one Bernoulli per pull): the successes of each arm of a design, 3,000 designs each,
    two-sample chi-square on the counts (alpha 1e-3 per arm; fixed streams)."""
    from scipy.stats import chi2_contingency

    from bandits.logistic import _kernels as kern
    from bandits.logistic.warmup import interleaved_order

    alloc = np.array([1000, 37, 300, 5, 0], dtype=np.int64)
    p = np.array([0.3, 0.9, 0.02, 0.5, 0.5])
    order = interleaved_order(alloc)
    fast, slow = _rng.make_state(1, 3), _rng.make_state(2, 1)
    draws = {"fast": [], "slow": []}
    for _ in range(3000):
        a, b = kern.new_design_stats(5), kern.new_design_stats(5)
        kern.design_draw(alloc, p, fast, a)
        kern.design_play(order, p, slow, b)
        assert np.array_equal(a.n, alloc) and np.array_equal(b.n, alloc)
        draws["fast"].append(a.s.copy())
        draws["slow"].append(b.s.copy())
    f, s = np.array(draws["fast"]), np.array(draws["slow"])
    assert np.all(f[:, 4] == 0) and np.all(s[:, 4] == 0)
    for arm in range(4):
        table = np.array([np.bincount(f[:, arm], minlength=alloc[arm] + 1),
                          np.bincount(s[:, arm], minlength=alloc[arm] + 1)])
        table = table[:, table.sum(axis=0) >= 10]  # pool no cell: drop the empty tails
        if table.shape[1] > 1:
            assert chi2_contingency(table).pvalue > 1e-3, arm
        assert abs(f[:, arm].mean() - alloc[arm] * p[arm]) < 5 * np.sqrt(
            alloc[arm] * p[arm] * (1 - p[arm]) / 3000) + 1e-12


def test_binomial_split_extremes() -> None:
    from bandits.logistic import _kernels as kern

    st = _rng.make_state(0, 3)
    assert kern.binomial_split(10**9, 0.0, st) == 0
    assert kern.binomial_split(10**9, 1.0, st) == 10**9
    assert kern.binomial_split(0, 0.5, st) == 0
    k = kern.binomial_split(10**9, 0.25, st)  # O(log n) draws, sd = 13,693
    assert abs(k - 2.5e8) < 7 * 13_693


def test_naive_warmup_estimate_has_the_same_law_in_both_simulations() -> None:
    """HOMER's warm-up MLE (it uses only per-arm pulls and successes) as run_warmup draws
    it in each mode: 300 seeds per mode, two-sample Kolmogorov-Smirnov on each coordinate
    (alpha 1e-3); the design is solved once (run_warmup would solve it per seed)."""
    from scipy.stats import ks_2samp

    from bandits.logistic import _kernels as kern
    from bandits.logistic.warmup import interleaved_order

    inst = easy_instance()
    plan = naive_warmup(inst.X, inst.S)
    order = interleaved_order(plan.counts)
    th: dict[str, list] = {"sufficient": [], "per-sample": []}
    for seed in range(300):
        a, b = kern.new_design_stats(4), kern.new_design_stats(4)
        kern.design_draw(plan.counts, inst.means, _rng.make_state(seed, 2), a)
        kern.design_play(order, inst.means, _rng.make_state(seed, 1), b)
        th["sufficient"].append(mle(inst.X, a.n, a.s).theta)
        th["per-sample"].append(mle(inst.X, b.n, b.s).theta)
    ref = run_warmup("naive", inst, seed=7, simulation="per-sample").theta_hat
    assert np.array_equal(ref, th["per-sample"][7])  # what run_warmup draws, per mode
    ref = run_warmup("naive", inst, seed=7).theta_hat
    assert np.array_equal(ref, th["sufficient"][7])
    f, s = np.array(th["sufficient"]), np.array(th["per-sample"])
    for i in range(inst.X.shape[1]):
        assert ks_2samp(f[:, i], s[:, i]).pvalue > 1e-3


def test_horizon_cut_counts_the_pulls_asked_first() -> None:
    """A horizon inside a design keeps the first pulls of interleaved_order (as the
    ask/tell policy asks them), counted without listing them."""
    from bandits.logistic.warmup import interleaved_order, prefix_counts

    rng = np.random.default_rng(0)
    for _ in range(200):
        c = rng.integers(0, 30, size=int(rng.integers(1, 6)))
        n = int(c.sum())
        if n == 0:
            continue
        use = int(rng.integers(0, n + 1))
        ref = np.bincount(interleaved_order(c)[:use], minlength=c.shape[0])
        assert np.array_equal(prefix_counts(c, use), ref)


def test_homer_simulation_option_and_policy_replay_through_a_phase() -> None:
    """``simulation`` is checked; the per-sample run is what HomerPolicy replays (fed
    bandits.reward_oracle in batches of 500) through the end of phase 1."""
    from bandits import reward_oracle

    inst = easy_instance()
    with pytest.raises(ValueError, match="simulation"):
        run_homer(inst, 1000, simulation="fast")
    T = 160_000  # the warm-up and phase 1 (~152,000 pulls) end before T
    res = run_homer(inst, T, seed=5, simulation="per-sample")
    assert res.extra["phases"][0].get("survivors") is not None
    pol = HomerPolicy(inst.X, S=inst.S, seed=5, T=T)
    draw = reward_oracle(inst, 5)
    while not pol.done:
        arms = pol.ask(500)
        pol.tell(arms, [draw(a) for a in arms])
    assert pol.stopped_by == res.stopped_by and pol.samples == T
    assert np.array_equal(pol.counts, res.counts)
    assert np.array_equal(pol.recommendation, res.recommendation)
    assert pol.k == 2  # phase 1 ended, phase 2 planned
