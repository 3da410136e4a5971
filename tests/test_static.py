"""Fast tests of bandits.static (G-static, XY-static, XY-oracle)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numba import njit

from bandits import run
from bandits._core import rng as _rng
from bandits._core.blocks import greedy_arms
from bandits.gifa import simulated_rewards
from bandits.instances import Instance, random_gaussian, soare
from bandits.static import (
    StaticPolicy,
    confidence_constants,
    pair_targets,
    recommend,
    run_static,
    static_design,
)
from bandits.static import _kernels as S
from rounding import efficient_round
from rounding.tracking import track_ratio

EASY = soare(d=3, omega=0.3)


def test_xu_table1_oracle_total():
    """Xu et al. (2018) Table 1: XY-oracle used 2,742,457 samples at d = 5 (split
    13,646 / 2,728,606 / 68 / 68 / 68 / 1) with log(6 n^2 K / (pi^2 delta))."""
    res = run_static("xy-oracle", soare(d=5), method="rounding", confidence="xu",
                     max_samples=10**8)
    assert res.stopped_by == "rule" and res.correct
    assert abs(res.samples - 2_742_457) / 2_742_457 < 1e-3
    assert abs(res.counts[1] - 2_728_606) / 2_728_606 < 1e-3
    assert res.counts[5] <= 2 and np.all(np.abs(res.counts[2:5] - 68) <= 2)


def test_confidence_constants():
    c, lc, fixed = confidence_constants("soare", sigma=1.0, delta=0.05, K=6)
    assert math.isclose(c, 2 * math.sqrt(2)) and not fixed
    assert math.isclose(lc, math.log(6 * 36 / (math.pi**2 * 0.05)))
    _, lc_xu, _ = confidence_constants("xu", sigma=1.0, delta=0.05, K=6)
    assert math.isclose(lc - lc_xu, math.log(6))
    assert confidence_constants(3.0, sigma=1.0, delta=0.05, K=6) == (3.0, 0.0, True)
    assert math.isclose(S.beta(100, c, lc, False),
                        c * math.sqrt(math.log(6 * 100**2 * 36 / (math.pi**2 * 0.05))))


def test_refresh_in_place_is_the_exact_inverse():
    """The exact refresh (in place: ``A``, ``L`` and ``L^{-1}`` share ``Ainv``'s storage)
    gives ``A^{-1}``, ``theta = A^{-1} b`` and ``vals`` of ``A = sum_a N_a x_a x_a^T``
    (against numpy, relative 1e-10, d = 1..7, whatever ``Ainv`` held before), leaves the
    statistics untouched, and refuses a singular ``A`` (pivot test)."""
    rng = np.random.default_rng(16)
    for d in range(1, 8):
        K = d + 3
        X = rng.normal(size=(K, d))
        Y = rng.normal(size=(4, d))
        counts = rng.integers(1, 9, K)
        sums = rng.normal(size=K) * counts
        A = (X.T * counts) @ X
        Ainv, vals, theta = np.full((d, d), np.nan), np.zeros(4), np.zeros(d)
        before = (counts.copy(), sums.copy())
        assert S.refresh(X, Y, 4, counts, sums, Ainv, vals, theta, np.full(d, np.nan))
        inv = np.linalg.inv(A)
        np.testing.assert_allclose(Ainv, inv, rtol=1e-10, atol=1e-12 * np.abs(inv).max())
        assert np.array_equal(Ainv, Ainv.T)
        np.testing.assert_allclose(theta, inv @ (X.T @ sums), rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(vals, np.einsum("ij,jk,ik->i", Y, inv, Y), rtol=1e-10)
        assert np.array_equal(counts, before[0]) and np.array_equal(sums, before[1])
    X = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0]])  # rank 2
    Ainv = np.zeros((3, 3))
    assert not S.refresh(X, X, 0, np.ones(3, dtype=np.int64), np.zeros(3), Ainv,
                         np.zeros(1), np.zeros(3), np.zeros(3))


def test_greedy_step_matches_sherman_morrison():
    """The greedy rule's predicted criterion (Sherman–Morrison) is the exact criterion
    after the update, and the criterion never increases."""
    X = soare(d=4, omega=0.05).X
    Y = pair_targets(X)
    K, d = X.shape
    counts, sums = np.ones(K, dtype=np.int64), np.zeros(K)
    Ainv, vals, theta = np.zeros((d, d)), np.zeros(Y.shape[0]), np.zeros(d)
    assert S.refresh(X, Y, Y.shape[0], counts, sums, Ainv, vals, theta, np.empty(d))
    rng = _rng.make_state(3, 0)
    g, scores = np.zeros(d), np.zeros(K)
    lev = np.einsum("ij,jk,ik->i", X, Ainv, X)
    prev = vals.max()
    for _ in range(300):
        a = _greedy_choice(X, Y, Y.shape[0], Ainv, vals, lev, rng, g, scores)
        predicted = scores[a]
        assert predicted == pytest.approx(scores.min(), rel=1e-8)
        S.observe(X, Y, Y.shape[0], Ainv, vals, lev, theta, counts, sums, a, 0.0, g)
        A = (X.T * counts) @ X
        exact = np.max(np.einsum("ij,jk,ik->i", Y, np.linalg.inv(A), Y))
        assert exact == pytest.approx(predicted, rel=1e-9)
        assert exact <= prev * (1 + 1e-12)
        prev = exact


def _all_target_scores(X, Y, Ainv, vals, lev):
    """``max_j (vals_j - (x_a^T A^{-1} y_j)^2 / (1 + lev_a))`` over every target, each term
    in the kernel's floating-point order (left-to-right sums, no fused multiply-add)."""
    K, d = X.shape
    out = np.full(K, -np.inf)
    for j in range(Y.shape[0]):
        h = [0.0] * d
        for i in range(d):
            s = 0.0
            for k in range(d):
                s += float(Ainv[i, k]) * float(Y[j, k])
            h[i] = s
        for a in range(K):
            c = 0.0
            for i in range(d):
                c += float(X[a, i]) * h[i]
            out[a] = max(out[a], float(vals[j]) - c * c / (1.0 + float(lev[a])))
    return out


@pytest.mark.parametrize("inst", [soare(d=4, omega=0.05), random_gaussian(9, 3, seed=4)],
                         ids=["soare4", "random9x3"])
def test_greedy_scores_skip_only_targets_that_cannot_be_the_maximum(inst):
    """The greedy rule scores an arm on the targets whose ``vals_j`` exceeds a partial
    maximum only; its scores are the maximum over every target of the same floating-point
    terms, bit for bit, along a greedy trajectory (states where several targets are near
    the maximum) and at random count vectors; the leverages kept by the rank-one update
    agree with ``x_a^T A^{-1} x_a`` recomputed."""
    X = np.ascontiguousarray(inst.X)
    Y = pair_targets(X)
    K, d = X.shape
    M = Y.shape[0]
    rng = np.random.default_rng(18)
    g, scores = np.zeros(d), np.zeros(K)
    checked = 0
    for start in range(4):
        counts = np.ones(K, dtype=np.int64) if start == 0 else rng.integers(1, 50, K)
        sums, theta = np.zeros(K), np.zeros(d)
        Ainv, vals, lev = np.zeros((d, d)), np.zeros(M), np.zeros(K)
        assert S.refresh(X, Y, M, counts, sums, Ainv, vals, theta, g)
        S.leverages(X, Ainv, lev)
        tie_rng = _rng.make_state(start, 0)
        for _ in range(60):
            a = _greedy_choice(X, Y, M, Ainv, vals, lev, tie_rng, g, scores)
            assert np.array_equal(scores, _all_target_scores(X, Y, Ainv, vals, lev))
            assert scores[a] <= scores.min() * (1 + 1e-9)
            S.observe(X, Y, M, Ainv, vals, lev, theta, counts, sums, a, 0.0, g)
            checked += 1
        exact = np.einsum("ij,jk,ik->i", X, np.linalg.inv((X.T * counts) @ X), X)
        np.testing.assert_allclose(lev, exact, rtol=1e-10)
    assert checked == 240


@njit
def _greedy_choice(X, Y, M, Ainv, vals, lev, rng, g, scores):
    """:func:`bandits._core.targets.greedy_choice` (an inner kernel) from Python."""
    return S.greedy_choice(X, Y, M, Ainv, vals, lev, rng, g, scores)


@njit
def _greedy_arms(st, alloc, rng, out):
    """:func:`greedy_arms` (inlined into the block kernel) from jitted code, as there."""
    return greedy_arms(st, alloc, rng, out)


@pytest.mark.parametrize("inst, algorithm", [
    (soare(d=5, omega=0.05), "xy-static"),
    (soare(d=2, omega=0.05), "g-static"),
    (random_gaussian(12, 4, seed=3), "xy-static"),
], ids=["soare5-xy", "soare2-g", "random12x4-xy"])
def test_block_generator_makes_the_step_kernels_arms(inst, algorithm):
    """The block simulation's greedy arms (:func:`bandits._core.blocks.greedy_arms`: one
    inlined loop) are the step kernel's, pull for pull, for the same tie-breaking seed:
    against the ask/tell policy (which calls the step kernel), with an exact refresh every
    7 pulls so that many refreshes fall inside the comparison, on instances with ties at
    most pulls (Soare's) and with several targets near the maximum (a random one)."""
    n = 2500
    pol = StaticPolicy(algorithm, inst.X, theta=inst.theta, sigma=1.0, seed=11,
                       refresh_every=7, method="greedy")
    asked = []
    while len(asked) < inst.X.shape[0] + n:
        arm = pol.ask()
        pol.tell(arm, 0.0)  # the greedy rule never reads a reward
        asked.append(arm)
    cfg = pol._cfg
    st = S.target_state(*cfg.X.shape, cfg.Y.shape[0])
    alloc = S.BlockAlloc(cfg.X, cfg.Y, None, 7, S.NO_LENGTH_RULE, 0.0, False, 10**9,
                         cfg.init_arms)
    # the state after the initial pulls (what block_steps makes before its blocks)
    np.add.at(st.counts, cfg.init_arms, 1)
    st.ints[S.T_PULLS], st.ints[S.T_INIT] = cfg.init_arms.shape[0], -1
    assert S.refresh(cfg.X, cfg.Y, st.ints[S.T_M], st.counts, st.sums, st.Ainv, st.vals,
                     st.theta, st.g)
    S.leverages(cfg.X, st.Ainv, st.lev)
    out = np.empty(n, dtype=np.int64)
    tie_rng = _rng.make_state(11, 0)
    assert _greedy_arms(st, alloc, tie_rng, out[:1000]) == -1
    assert _greedy_arms(st, alloc, tie_rng, out[1000:]) == -1  # resumes where it stopped
    assert np.array_equal(out, asked[inst.X.shape[0]:])
    assert np.array_equal(st.counts, pol.counts)
    assert np.array_equal(st.vals, pol._state.vals) and np.array_equal(st.lev, pol._state.lev)
    # the budget ends the generation at the pull that reaches it
    short = np.empty(50, dtype=np.int64)
    alloc = alloc._replace(t_max=int(st.ints[S.T_PULLS]) + 20)
    assert _greedy_arms(st, alloc, tie_rng, short) == S.STATUS_BUDGET
    assert st.ints[S.T_PULLS] == alloc.t_max


def test_rounding_order_prefixes_are_efficient_roundings():
    res = run_static("g-static", EASY, method="rounding", seed=2)
    w = res.extra["design"]
    np.testing.assert_array_equal(res.counts, efficient_round(w, res.samples))
    res = run_static("xy-static", soare(d=4, omega=0.2), method="rounding", seed=2)
    np.testing.assert_array_equal(res.counts, efficient_round(res.extra["design"],
                                                              res.samples))


def test_ratio_counts_at_is_the_ratio_rule_sequence():
    """The closed form of the ratio rule's counts (the block simulation's and XY-oracle's
    jumps) equals the counts of :func:`rounding.tracking.track_ratio` pulled one at a time
    from zero counts, after every pull from the support size on: random designs, designs
    with equal weights (ties between keys, lowest index first) and arms off the support."""
    rng = np.random.default_rng(18)
    designs = [np.full(4, 0.25), np.array([0.0, 3.0, 0.0, 3.0, 1.0]) / 7.0,
               np.array([0.5, 0.25, 0.25])]
    for _ in range(12):
        w = rng.dirichlet(np.full(int(rng.integers(2, 9)), 0.7))
        w[rng.integers(w.shape[0])] = 0.0
        designs.append(w / w.sum())
    for w in designs:
        cnt = np.zeros(w.shape[0], dtype=np.int64)
        out = np.zeros_like(cnt)
        p = int(np.count_nonzero(w))
        for t in range(1, 2500):
            cnt[track_ratio(cnt, w)] += 1
            if t >= p:
                S.ratio_counts_at(w, t, out)
                assert np.array_equal(out, cnt), (w, t)
    w = designs[1]  # far out: a prefix of the merged keys, within one of t w_a
    S.ratio_counts_at(w, 10**12 + 3, out[:5])
    assert out[:5].sum() == 10**12 + 3 and np.all(np.abs(out[:5] - (10**12 + 3) * w) <= 1)


def test_static_designs_known_values():
    X = soare(d=4).X
    wg = static_design("g", X)
    A = (X.T * wg) @ X
    assert np.max(np.einsum("ij,jk,ik->i", X, np.linalg.inv(A), X)) == pytest.approx(4, rel=1e-5)
    wxy = static_design("xy", X)
    Y = pair_targets(X)
    A = (X.T * wxy) @ X
    assert np.max(np.einsum("ij,jk,ik->i", Y, np.linalg.inv(A), Y)) == pytest.approx(8, rel=1e-5)
    wo = static_design("oracle", X, theta=soare(d=4).theta)
    assert wo[1] > 0.99  # the oracle pulls e_2


@pytest.mark.parametrize("algo", ["g-static", "xy-static", "xy-oracle"])
@pytest.mark.parametrize("method", ["greedy", "rounding"])
def test_runs_are_correct_and_deterministic(algo, method):
    r1 = run(algo, EASY, seed=4, method=method)
    r2 = run(algo, EASY, seed=4, method=method)
    assert r1.stopped_by == "rule" and r1.correct
    assert r1.samples == r2.samples and np.array_equal(r1.counts, r2.counts)
    assert r1.counts.sum() == r1.samples
    r3 = run(algo, EASY, seed=5, method=method)
    if algo != "xy-oracle":  # the oracle's stopping time is deterministic
        assert r3.samples != r1.samples


@pytest.mark.parametrize("algo, method", [("xy-static", "greedy"), ("g-static", "rounding"),
                                          ("xy-oracle", "rounding"), ("g-static", "greedy")])
def test_policy_reproduces_simulation(algo, method):
    inst = soare(d=3, omega=0.3)
    sim = run_static(algo, inst, seed=7, method=method, refresh_every=50,
                     simulation="per-sample")
    draw = simulated_rewards(inst, 7)
    pol = StaticPolicy(algo, inst.X, theta=inst.theta, sigma=1.0, seed=7, method=method,
                       refresh_every=50)
    while not pol.done:
        a = pol.ask()
        pol.tell(a, draw(a))
    assert pol.samples == sim.samples
    np.testing.assert_array_equal(pol.counts, sim.counts)
    assert pol.recommendation[0] == sim.recommendation[0]
    assert pol.stopped_by == "rule"


def test_budget_is_reported():
    res = run("xy-static", soare(d=5), max_samples=500)
    assert res.stopped_by == "budget" and res.samples == 500
    pol = StaticPolicy("xy-static", soare(d=5).X, max_samples=40)
    draw = simulated_rewards(soare(d=5), 0)
    while not pol.done:
        a = pol.ask()
        pol.tell(a, draw(a))
    assert pol.stopped_by == "budget" and pol.samples == 40
    with pytest.raises(RuntimeError):
        pol.ask()


def test_transductive_static():
    X = np.eye(3)
    Z = np.array([[1.0, 1.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 1.0], [0.5, 0.5, 0.5]])
    inst = Instance(name="transductive", X=X, theta=np.array([1.0, 0.6, 0.0]), Z=Z)
    for algo in ("g-static", "xy-static", "xy-oracle"):
        res = run(algo, inst, seed=1)
        assert res.stopped_by == "rule" and res.recommendation[0] == 0 and res.correct


def test_fixed_multiplier_stops_earlier():
    a = run("xy-static", EASY, seed=1, confidence="soare")
    b = run("xy-static", EASY, seed=1, confidence=2.0)
    assert b.samples < a.samples


@pytest.mark.parametrize("kw, match", [
    (dict(method="fedorov"), "method"), (dict(init="none"), "init"),
    (dict(confidence="lucb"), "confidence"), (dict(confidence=-1.0), "confidence"),
    (dict(delta=1.5), "delta"), (dict(max_samples=0), "max_samples"),
    (dict(seed=-3), "seed"), (dict(c=0.0), "c"), (dict(refresh_every=0), "refresh_every"),
    (dict(sigma=-1.0), "sigma"),
])
def test_bad_options(kw, match):
    with pytest.raises(ValueError, match=match):
        run("xy-static", EASY, **kw)


def test_bad_instances():
    with pytest.raises(ValueError, match="X"):
        StaticPolicy("xy-static", np.array([[1.0, 0.0], [2.0, 0.0]]))
    with pytest.raises(ValueError, match="theta"):
        StaticPolicy("xy-oracle", np.eye(2))
    with pytest.raises(ValueError, match="Z"):
        StaticPolicy("xy-static", np.eye(2), Z=np.ones((3, 3)))
    with pytest.raises(ValueError, match="algorithm"):
        StaticPolicy("xy", np.eye(2))
    with pytest.raises(ValueError, match="epsilon"):
        run("xy-static", EASY, epsilon=0.1)
    with pytest.raises(ValueError, match="unknown algorithm"):
        run("xy-statics", EASY)
    pol = StaticPolicy("xy-static", np.eye(2))
    with pytest.raises(ValueError, match="ask"):
        pol.tell(0, 1.0)
    a = pol.ask()
    with pytest.raises(ValueError, match="arm"):
        pol.tell(1 - a, 1.0)
    with pytest.raises(ValueError, match="reward"):
        pol.tell(a, float("nan"))


@pytest.mark.parametrize("algo", ["g-static", "xy-static", "xy-oracle"])
def test_default_allocation_is_the_rounding_rule(algo):
    """The default allocation is the relaxation + efficient rounding (Soare et al. §4.2-4.3,
    the route Lemmas 5-7 cover), in the simulation and the ask/tell policy alike."""
    inst = soare(d=3, omega=0.2)
    res = run(algo, inst, seed=3)
    assert res.extra["method"] == "rounding"
    assert res.samples == run(algo, inst, seed=3, method="rounding").samples
    pol = StaticPolicy(algo, inst.X, theta=inst.theta, sigma=1.0, seed=3)
    ref = StaticPolicy(algo, inst.X, theta=inst.theta, sigma=1.0, seed=3, method="rounding")
    assert [pol.ask() for _ in range(5)] == [ref.ask() for _ in range(5)]


def test_ratio_plan_memo_returns_fresh_copies():
    """The memoised relaxed design is the one a fresh solve gives, and a caller that writes
    into what it got cannot change the next run's design."""
    from bandits.static import _RATIO_PLANS, _ratio_plan, static_design

    inst = soare(d=4, omega=0.3)
    _RATIO_PLANS.clear()
    w, first = _ratio_plan("xy", inst.X, None, None)
    fresh = static_design("xy", inst.X)
    fresh = np.where(fresh > 1e-12 * fresh.max(), fresh, 0.0)
    assert np.array_equal(w, fresh / fresh.sum())
    w[:] = 0.0
    first[:] = -1
    w2, first2 = _ratio_plan("xy", inst.X, None, None)
    assert np.array_equal(w2, fresh / fresh.sum()) and np.all(first2 >= 0)
    assert len(_RATIO_PLANS) == 1
    _ratio_plan("xy", inst.X * 2.0, None, None)  # other arms: another entry
    assert len(_RATIO_PLANS) == 2


def test_bounded_memo_drops_the_oldest_entry():
    from bandits._core.memo import BoundedMemo, array_key

    memo = BoundedMemo(2)
    memo.remember("a", 1)
    memo.remember("b", 2)
    memo.remember("a", 3)  # a known key: replaced, nothing dropped
    memo.remember("c", 4)
    assert dict(memo) == {"b": 2, "c": 4}
    x = np.arange(6.0)
    assert array_key(x) != array_key(x.reshape(2, 3)) != array_key(x.astype(np.float32))


def test_saved_state_records_the_allocation_rule(tmp_path):
    """A saved static policy records its rule, default or not, so that its replay does not
    depend on the default of the version that loads it."""
    import json

    from bandits import load_policy, policy

    inst = soare(d=3, omega=0.2)
    for kw in ({}, {"method": "greedy"}):
        pol = policy("xy-static", inst.X, sigma=1.0, seed=2, **kw)
        for _ in range(7):
            pol.tell(pol.ask(), 0.5)
        pol.save(tmp_path / "s.json")
        doc = json.loads((tmp_path / "s.json").read_text())
        assert doc["arguments"]["method"] == kw.get("method", "rounding")
        back = load_policy(tmp_path / "s.json")
        assert back.ask() == pol.ask()


def test_state_saved_before_the_rule_was_recorded_gets_a_hint(tmp_path):
    """A G/XY-static state without a recorded rule (saved when the greedy rule was the
    default) fails its replay with a message that says how to mend it, and the mended
    file replays."""
    import json

    from bandits import load_policy, policy

    inst = soare(d=3, omega=0.2)
    pol = policy("xy-static", inst.X, sigma=1.0, seed=2, method="greedy")
    for _ in range(9):
        pol.tell(pol.ask(), 0.5)
    pol.save(tmp_path / "s.json")
    doc = json.loads((tmp_path / "s.json").read_text())
    del doc["arguments"]["method"]  # as an older version wrote it
    (tmp_path / "old.json").write_text(json.dumps(doc))
    with pytest.raises(ValueError, match='add "method": "greedy"'):
        load_policy(tmp_path / "old.json")
    doc["arguments"]["method"] = "greedy"
    (tmp_path / "old.json").write_text(json.dumps(doc))
    assert load_policy(tmp_path / "old.json").ask() == pol.ask()


def test_recommend_after_blocks_is_argmax_all():
    """run_static's recommendation after the block simulation (argmax_active, every target
    active) is argmax_all's, ties (first index) and values of -inf included."""
    rng = np.random.default_rng(5)
    for _ in range(200):
        Z = rng.integers(-2, 3, size=(int(rng.integers(1, 8)), 3)).astype(float)
        th = rng.integers(-2, 3, size=3).astype(float)
        if rng.random() < 0.2:
            th[0] = -np.inf
        with np.errstate(invalid="ignore"):
            expected = int(S.argmax_all(Z, th))
        assert recommend(Z, th, True) == expected
        assert recommend(Z, th, False) == expected
