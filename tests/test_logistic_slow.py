"""Slow statistical checks of the logistic module (``make test-slow``)."""

from __future__ import annotations

import numpy as np
import pytest

from bandits.logistic import run_homer, run_warmup, sphere, warmup_xi2
from bandits.logistic.experiments import table1

pytestmark = pytest.mark.slow


def test_table1_ordering_and_growth() -> None:
    res = table1(reps=5)
    for S in (2.0, 4.0, 8.0):
        o, w, n = (res[m][S].mean() for m in ("oracle", "war", "naive"))
        assert o <= w <= n
    # naive grows like 1/mu'(S); WAR and oracle grow much more slowly
    assert res["war"][8.0].mean() / res["war"][2.0].mean() < 0.2 * (
        res["naive"][8.0].mean() / res["naive"][2.0].mean())
    # Mason et al. (2022) Table 1, WAR: 6,536 +- 238 / 19,701 +- 805 / 122,405 +- 30,816
    # (5 repetitions); ours 6,772 / 18,403 / 113,118 (seeds 0-4). With the relaxed pessimistic
    # variance (lower bounds dropped) S = 2 was 8,349, above 1.15 x 6,536.
    for S, pub, tol in ((2.0, 6536, 0.15), (4.0, 19701, 0.15), (8.0, 122405, 0.4)):
        assert abs(res["war"][S].mean() / pub - 1.0) <= tol, (S, res["war"][S].mean())


@pytest.mark.parametrize("method", ["naive", "war"])
def test_warmup_delta_valid_frequency(method: str) -> None:
    fails = 0
    for seed in range(20):
        inst = sphere(3, 20, 4.0, seed=seed)
        r = run_warmup(method, inst, seed=seed)
        assert warmup_xi2(inst.X, r.counts, inst.theta) <= 1.0 / r.gamma * (1 + 1e-9)
        fails += np.max(np.abs(inst.X @ (r.theta_hat - inst.theta))) > 1.0
    assert fails <= 2  # delta = 0.05


def test_homer_never_eliminates_best_arm() -> None:
    for seed in range(10):
        inst = sphere(3, 10, 3.0, seed=seed)
        res = run_homer(inst, 10**7, seed=seed)
        assert not res.extra["best_eliminated"], seed


def _two_sample_ok(a, b, alpha: float = 1e-3) -> bool:
    """Kolmogorov-Smirnov for continuous samples, chi-square on the table of values for
    discrete ones (fixed seeds: the outcome is deterministic)."""
    from scipy.stats import chi2_contingency, ks_2samp

    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    values = np.union1d(a, b)
    if values.size <= 12:
        table = np.array([[np.sum(a == v) for v in values], [np.sum(b == v) for v in values]])
        return values.size == 1 or chi2_contingency(table).pvalue > alpha
    return ks_2samp(a, b).pvalue > alpha


def test_homer_sufficient_simulation_has_the_per_sample_law() -> None:
    """Issue 18: HOMER's default simulation (one Binomial per arm and design) against the
    per-sample reference, 80 seeds each on an instance where the number of phases and the
    regret vary: two-sample tests on (samples, recommendation, stop reason, phases,
    pulls of every arm, final regret, last estimate)."""
    inst = sphere(2, 6, 3.0, seed=0)
    runs = {m: [run_homer(inst, 2_000_000, seed=s, simulation=m) for s in range(80)]
            for m in ("sufficient", "per-sample")}
    a, b = runs["sufficient"], runs["per-sample"]

    def col(rs, f):
        return [f(r) for r in rs]

    checks = {"samples": lambda r: r.samples, "recommendation": lambda r: r.recommendation[0],
              "commit": lambda r: r.stopped_by == "commit",
              "phases": lambda r: len(r.extra["phases"]),
              "regret": lambda r: r.extra["final_regret"]}
    for arm in range(inst.K):
        checks[f"counts[{arm}]"] = lambda r, arm=arm: r.counts[arm]
    for name, f in checks.items():
        assert _two_sample_ok(col(a, f), col(b, f)), name
    assert len(set(col(a, checks["phases"]))) > 1  # the test is not about a constant


def test_war_sufficient_simulation_has_the_per_sample_law() -> None:
    """WAR alone: probing is sequential in both modes; the plan's MLE drawn from per-arm
    Binomials has the per-sample law (40 seeds each, KS on each coordinate of theta_hat,
    and the recommendation)."""
    from bandits import run
    from bandits.registry import _example_logistic

    inst = _example_logistic()
    runs = {m: [run("war", inst, seed=s, simulation=m) for s in range(40)]
            for m in ("sufficient", "per-sample")}
    a, b = runs["sufficient"], runs["per-sample"]
    assert all(r.stopped_by == "warm-up" for r in a + b)
    for i in range(inst.X.shape[1]):
        assert _two_sample_ok([r.extra["theta_hat"][i] for r in a],
                              [r.extra["theta_hat"][i] for r in b])
    assert _two_sample_ok([r.samples for r in a], [r.samples for r in b])
    assert _two_sample_ok([r.recommendation[0] for r in a], [r.recommendation[0] for r in b])


def test_homer_policy_replays_the_per_sample_simulation_through_phases() -> None:
    """The ask/tell HOMER fed bandits.reward_oracle (batches of 1,000, told in reverse
    order) replays the per-sample simulation through the ends of phases 1 and 2."""
    from bandits import reward_oracle
    from bandits.logistic import HomerPolicy
    from bandits.registry import _example_logistic

    inst = _example_logistic()
    T = 700_000  # phases 1 and 2 end at about 152,000 and 670,000 pulls
    for seed in (0, 1):
        res = run_homer(inst, T, seed=seed, simulation="per-sample")
        pol = HomerPolicy(inst.X, S=inst.S, seed=seed, T=T)
        draw = reward_oracle(inst, seed)
        while not pol.done:
            arms = pol.ask(1000)
            rewards = [draw(a) for a in arms]
            pol.tell(arms[::-1], rewards[::-1])
        assert pol.stopped_by == res.stopped_by
        assert np.array_equal(pol.counts, res.counts)
        assert np.array_equal(pol.recommendation, res.recommendation)
        assert pol.k >= 3
