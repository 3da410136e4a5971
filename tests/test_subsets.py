"""Top-K subset bandits: DART (Agarwal, Aggarwal, Quinn & Umrawal) and its baselines.

Fast tests (seconds); the orderings of Figs. 1-3 are in test_subsets_slow.py.
"""

import math
from itertools import combinations

import numpy as np
import pytest

from bandits.subsets import (
    SubsetEnv,
    checkpoints,
    dart,
    dart_anytime,
    dart_lambda_auto,
    dart_lambda_printed,
    dart_test_epochs,
    lemma3_expected_difference,
    lemma3_mean_formula,
    plot_regret,
    regret_curves,
    reward_table,
    run_subset,
)
from bandits.subsets import _kernels as _k

ALGOS = ["dart", "dart-anytime", "csar", "lints", "lints-unscaled", "ucb"]


# ------------------------------------------------------------------ environments
def test_reward_tables():
    K = 4
    s = np.arange(K + 1)
    assert np.allclose(reward_table("mean", K), s / K)
    # quadratic: x^T A x, A upper triangular with entries 2/(K(K+1)) (DART Sec. 7.3)
    A = np.triu(np.full((K, K), 2.0 / (K * (K + 1))))
    for c in range(K + 1):
        x = np.r_[np.ones(c), np.zeros(K - c)]
        assert reward_table("quadratic", K)[c] == pytest.approx(x @ A @ x)
    assert reward_table("quadratic", K)[-1] == pytest.approx(1.0)
    assert np.array_equal(reward_table("max", K), (s > 0).astype(float))
    assert np.allclose(reward_table(lambda x: x.mean() ** 2, K), (s / K) ** 2)


@pytest.mark.parametrize("f, match", [
    (lambda x: 2 * x.sum(), r"\[0, 1\]"),
    (lambda x: x.sum() - 1.0, r"\[0, 1\]"),
    (lambda x: float("nan"), r"\[0, 1\]"),
    (lambda x: x[0], "symmetric"),
    ("median", "reward must be one of"),
    (42, "reward must be one of"),
])
def test_bad_reward_functions(f, match):
    with pytest.raises(ValueError, match=match):
        SubsetEnv.bernoulli(6, 3, f, seed=0)


@pytest.mark.parametrize("kwargs, match", [
    ({"N": 5, "K": 5, "seed": 0}, "K must be smaller"),
    ({"N": 5, "K": 7, "seed": 0}, "K must be smaller"),
    ({"N": 5, "K": 0, "seed": 0}, "K must be"),
    ({"N": 5, "K": 2, "seed": 0, "rho": 1.5}, "rho"),
    ({"K": 2, "means": [0.1, 1.2, 0.3]}, "means"),
    ({"K": 2, "means": [0.1, np.nan, 0.3]}, "means"),
    ({"K": 3, "means": [0.1, 0.3, 0.2]}, "K must be smaller"),
    ({"N": 5, "K": 2}, "seed"),
])
def test_bad_environment(kwargs, match):
    with pytest.raises(ValueError, match=match):
        SubsetEnv.bernoulli(**kwargs)


def test_horizon_shorter_than_arms_and_bad_arguments():
    env = SubsetEnv.bernoulli(10, 3, "mean", seed=0)
    for algo in ALGOS:
        with pytest.raises(ValueError, match="T must be at least"):
            run_subset(algo, env, 9)
    with pytest.raises(ValueError, match="T must be a positive integer"):
        dart(env, 0)
    with pytest.raises(ValueError, match="lam"):
        dart(env, 100, lam=-1)
    with pytest.raises(ValueError, match="lam"):
        dart(env, 100, lam="big")
    with pytest.raises(ValueError, match="seed"):
        dart(env, 100, seed=-3)
    with pytest.raises(ValueError, match="algorithm must be one of"):
        run_subset("cmab-sm", env, 100)
    with pytest.raises(ValueError, match="bad option"):
        run_subset("csar", env, 100, lam=0.1)
    with pytest.raises(ValueError, match="C\\(N, K\\)"):
        run_subset("ucb", SubsetEnv.bernoulli(45, 8, "mean", seed=0), 1000)


@pytest.mark.parametrize("reward", ["mean", "quadratic", "max"])
@pytest.mark.parametrize("rho", [0.0, 0.6, 1.0])
def test_expected_reward_matches_monte_carlo(reward, rho):
    env = SubsetEnv.bernoulli(K=3, reward=reward, means=[0.2, 0.9, 0.5, 0.7], rho=rho)
    from bandits._core.rng import make_state
    st = make_state(0, 1)
    a = np.array([0, 2, 3])
    n = 100_000
    draws = np.array([_k.draw_joint(a, 3, env.means, env.table, 0, rho, 0.0, st)
                      for _ in range(n)])
    assert draws.mean() == pytest.approx(env.expected_reward(a), abs=5 * draws.std() / n**0.5)


def test_correlation_model_covariance():
    """Cov(X_i, X_j) = rho^2 (min(p_i, p_j) - p_i p_j) (documented model)."""
    p, rho = np.array([0.3, 0.6, 0.5]), 0.7
    env = SubsetEnv.bernoulli(K=2, reward=lambda x: x[0] * x[1], means=p, rho=rho)
    # E[X1 X2] = table[2] * P(both) = expected reward of {0, 1}
    both = env.expected_reward(np.array([0, 1]))
    assert both - p[0] * p[1] == pytest.approx(rho**2 * (min(p) - p[0] * p[1]))


@pytest.mark.parametrize("reward", ["mean", "quadratic", "max"])
@pytest.mark.parametrize("rho", [0.0, 0.5])
def test_optimal_subset_is_top_K(reward, rho):
    env = SubsetEnv.bernoulli(7, 3, reward, seed=4, rho=rho)
    best, val = env.best_by_enumeration()
    assert np.array_equal(best, env.optimal)
    assert val == pytest.approx(env.mu_star)


# ------------------------------------------------------------------ Lemma 3
@pytest.mark.parametrize("N, K, accepted", [(6, 2, ()), (8, 3, ()), (8, 4, (5,)),
                                            (9, 4, (0, 7))])
def test_lemma3_identity_by_enumeration(N, K, accepted):
    """E[Z_ij] = (|N_e| - K_e)/(|N_e| - 1) * Delta_ij / K for the mean reward (App. B)."""
    env = SubsetEnv.bernoulli(N, K, "mean", seed=N + K)
    und = [a for a in range(N) if a not in accepted]
    ke = K - len(accepted)
    for i, j in combinations(und, 2):
        exact = lemma3_expected_difference(env, i, j, und, accepted)
        assert exact == pytest.approx(
            lemma3_mean_formula(env.means, K, i, j, len(und), ke), abs=1e-14)


@pytest.mark.parametrize("reward", ["quadratic", "max"])
def test_lemma3_sign_for_nonlinear_rewards(reward):
    """Assumption 2: the better arm has the larger expected credited reward."""
    env = SubsetEnv.bernoulli(7, 3, reward, seed=1)
    for i, j in combinations(range(7), 2):
        z = lemma3_expected_difference(env, i, j)
        assert np.sign(z) == np.sign(env.means[i] - env.means[j])


# ------------------------------------------------------------------ DART mechanics
def test_lambda_arithmetic_documented():
    # printed lambda > 1 at the paper's settings (N = 45, T = 1e6): 1.089, 1.541, 2.179
    for K, lam in [(2, 1.089), (4, 1.541), (8, 2.179)]:
        assert dart_lambda_printed(45, K, 10**6) == pytest.approx(lam, abs=1e-3)
    assert np.array_equal(dart_test_epochs(45, 10**6, 5), [564, 2256, 9023, 36091, 144361])
    assert [dart_lambda_auto(45, K, 10**6) for K in (2, 4, 8)] == [1 / 8, 1 / 8, 1 / 16]


@pytest.mark.parametrize("N, K", [(7, 3), (10, 4), (9, 2), (13, 5)])
def test_one_update_per_undecided_arm_per_epoch(N, K):
    """n_i = e for undecided arms; decided arms freeze at their decision epoch; wrap-around
    repeats in the last group are not updated (N not a multiple of K)."""
    env = SubsetEnv.bernoulli(N, K, "mean", seed=3)
    T = 40_000
    tests = set(dart_test_epochs(N, T, 10).astype(int).tolist())
    # lam="auto" commits right after a test, i.e. at an epoch boundary: n_i = e exactly
    res = dart(env, T, seed=5)
    i = res.info
    assert res.stopped_by in ("lambda", "all-decided")
    und = i["status"] == 0
    assert np.all(i["counts"][~und] == i["decided_at"][~und])
    assert np.all(i["counts"][und] == i["epochs"])
    assert set(i["decided_at"][~und].tolist()) <= tests
    # lam=0 explores until the horizon cuts an epoch: its played groups got one more update
    res = dart(env, T, seed=5, lam=0.0)
    i = res.info
    assert res.stopped_by == "horizon"
    und = i["status"] == 0
    assert np.all(i["counts"][~und] == i["decided_at"][~und])
    extra = i["counts"][und] - i["epochs"]
    assert set(extra.tolist()) <= {0, 1}


def test_partition_groups_wrap_around():
    """Group l holds positions K(l-1)..K l - 1 mod |N_e|; the last group has K distinct arms
    and its wrapped positions are repeats (Algorithm 2)."""
    n, K = 7, 3
    L = -(-n // K)
    groups = [[(K * ell + j) % n for j in range(K)] for ell in range(L)]
    assert groups == [[0, 1, 2], [3, 4, 5], [6, 0, 1]]
    updated = [p for ell in range(L) for p in range(K * ell, K * ell + K) if p < n]
    assert sorted(updated) == list(range(n))


@pytest.mark.parametrize("reward", ["mean", "quadratic", "max"])
def test_accept_reject_never_removes_a_top_arm_with_large_gaps(reward):
    means = np.array([0.95, 0.9, 0.92, 0.05, 0.1, 0.02, 0.08, 0.04, 0.06])
    env = SubsetEnv.bernoulli(K=3, reward=reward, means=means)
    top = set(env.optimal.tolist())
    for seed in range(6):
        res = dart(env, 200_000, seed=seed)
        rejected = set(np.flatnonzero(res.info["status"] == 2).tolist())
        accepted = set(np.flatnonzero(res.info["status"] == 1).tolist())
        assert not (rejected & top)
        assert accepted <= top
        assert res.correct


def test_top_k_of_is_the_stable_top_k():
    """The commit's selection (``_top_k_of``, without a work array) writes the ``k`` largest
    values of ``idx[:n]`` in the order of a stable descending sort (ties: lowest position
    first), on draws with many ties."""
    from numba import njit

    @njit
    def shim(idx, n, values, k, out, offset):
        _k._top_k_of(idx, n, values, k, out, offset)

    rng = np.random.default_rng(5)
    for _ in range(300):
        N = int(rng.integers(1, 12))
        values = rng.integers(0, 4, N).astype(float)  # ties everywhere
        idx = rng.permutation(N).astype(np.int64)
        n = int(rng.integers(1, N + 1))
        k = int(rng.integers(1, n + 1))
        out = np.full(k + 2, -1, dtype=np.int64)
        shim(idx, n, values, k, out, np.int64(2))
        order = np.argsort(-values[idx[:n]], kind="stable")[:k]
        assert out[2:].tolist() == idx[:n][order].tolist() and out[:2].tolist() == [-1, -1]


def test_determinism_per_seed():
    env = SubsetEnv.bernoulli(12, 3, "max", seed=2, rho=0.3)
    for algo in ALGOS:
        a = run_subset(algo, env, 3000, seed=7)
        b = run_subset(algo, env, 3000, seed=7)
        c = run_subset(algo, env, 3000, seed=8)
        assert np.array_equal(a.regret, b.regret) and np.array_equal(a.chosen, b.chosen)
        assert not np.array_equal(a.regret, c.regret)


def test_budget_and_horizon_reporting():
    env = SubsetEnv.bernoulli(20, 4, "mean", seed=1)
    short = dart(env, 500, seed=0)               # not even one test: exploring at the end
    assert short.stopped_by == "horizon" and short.explore_steps == 500
    assert short.info["tests"] == 0
    literal = dart(env, 10**5, seed=0, lam="printed")  # lambda > 1: stops after one epoch
    assert literal.stopped_by == "lambda" and literal.info["epochs"] == 1
    assert literal.explore_steps == 5
    auto = dart(SubsetEnv.bernoulli(K=2, reward="mean", means=[0.9, 0.8, 0.1, 0.2]), 10**5)
    assert auto.stopped_by == "all-decided" and auto.correct
    assert dart_anytime(env, 3000).info["restarts"][:4] == [1, 2, 4, 8]
    assert run_subset("lints", env, 200).stopped_by == "horizon"


def test_regret_curve_is_cumulative_pseudo_regret():
    env = SubsetEnv.bernoulli(K=2, reward="mean", means=[0.9, 0.8, 0.1, 0.2, 0.5])
    res = dart(env, 1000, seed=0, n_points=1000)
    assert np.array_equal(res.times, np.arange(1, 1001))
    inst = np.diff(np.r_[0.0, res.regret])
    assert np.all(inst >= -1e-12) and np.all(inst <= env.mu_star + 1e-12)
    assert np.array_equal(checkpoints(10, 3), [4, 7, 10])


def test_lower_bound_instance():
    """DART App. A: regret >= (sigma/8) sqrt(NKT) for eps = (sigma/2) sqrt(NK/T)."""
    N, K, T = 10, 2, 20_000
    for seed in range(3):
        env = SubsetEnv.lower_bound(N, K, T, seed=seed)
        assert env.info["epsilon"] == pytest.approx(
            0.5 * env.sigma * math.sqrt(N * K / T))
        res = dart(env, T, seed=seed)
        assert res.final_regret > env.info["bound"]
    with pytest.raises(ValueError, match="K <= N/2"):
        SubsetEnv.lower_bound(5, 3, 100)


def test_baselines_find_easy_optimum():
    env = SubsetEnv.bernoulli(K=2, reward="mean", means=[0.9, 0.85, 0.1, 0.2, 0.15, 0.3])
    for algo in ALGOS:
        res = run_subset(algo, env, 50_000, seed=1)
        assert res.correct, algo
        uniform = np.mean([env.mu_star - env.expected_reward(np.array(a))
                           for a in combinations(range(6), 2)])
        assert res.final_regret < 0.5 * 50_000 * uniform, algo


def test_regret_curves_csv_and_plot(tmp_path):
    rc = regret_curves(["dart", ("csar-x", "csar", {})],
                       lambda s: SubsetEnv.bernoulli(8, 2, "mean", seed=s), 2000, runs=2,
                       n_points=20)
    assert rc.curves["dart"].shape == (2, 20)
    path = rc.to_csv(tmp_path / "c.csv")
    back = type(rc).from_csv(path)
    assert np.allclose(back.curves["dart"][0], rc.curves["dart"].mean(axis=0), rtol=1e-5)
    ax = plot_regret({"K=2": rc}, tmp_path / "c.png")
    assert (tmp_path / "c.png").stat().st_size > 1000
    np.testing.assert_allclose(ax.lines[0].get_ydata(), rc.curves["dart"].mean(axis=0))
    assert ax.get_title() == "K=2: 2 runs"
    with pytest.raises(ValueError, match="runs"):
        regret_curves(["dart"], rc and SubsetEnv.bernoulli(8, 2, seed=0), 100, runs=0)


def test_cli_subset(tmp_path, capsys):
    from bandits.cli import main

    out = tmp_path / "r.csv"
    assert main(["subset", "dart", "csar", "--N", "8", "--K", "2", "--T", "2000", "--runs",
                 "2", "--out", str(out), "-p", "n_points=10"]) == 0
    assert "dart" in capsys.readouterr().out and out.exists()
    assert main(["subset", "dart", "--N", "8", "--K", "8", "--T", "2000"]) == 2
    assert main(["subset", "dart", "--N", "8", "--K", "2", "--T", "5"]) == 2


def test_cli_subset_means_and_N_must_agree(capsys):
    """--N 8 with three --means used to run silently on 3 arms; a bad mean named no flag."""
    from bandits.cli import main

    assert main(["subset", "dart", "--N", "8", "--K", "2", "--T", "500", "--runs", "1",
                 "--means", "0.9,0.8,0.3"]) == 2
    assert "--N 8 but --means gives 3" in capsys.readouterr().err
    assert main(["subset", "dart", "--K", "2", "--T", "500", "--runs", "1",
                 "--means", "0.9,abc,0.3"]) == 2
    assert "--means must be comma-separated numbers" in capsys.readouterr().err
    assert main(["subset", "dart", "--N", "3", "--K", "2", "--T", "500", "--runs", "1",
                 "--means", "0.9,0.8,0.3", "--json"]) == 0
    assert main(["subset", "dart", "--K", "2", "--T", "500", "--runs", "1",
                 "--means", "0.9,0.8,0.3", "--json"]) == 0


@pytest.mark.parametrize("name", ["dart", "dart-anytime", "csar", "lints", "lints-unscaled",
                                  "ucb"])
@pytest.mark.parametrize("T", [7, 60, 3000, 40000])
def test_subset_policy_replays_the_simulation_at_every_horizon(name, T):
    # the ask/tell policy and the simulation share the step kernel: same subsets played,
    # same plays per arm, same committed subset and stop reason, for horizons that cut an
    # epoch / a phase, end the exploration early, or let it finish
    import bandits
    from bandits.registry import policy_for

    env = SubsetEnv.bernoulli(N=7, K=3 if name != "ucb" else 2, seed=1)
    res = bandits.run(name, env, max_samples=T, seed=4)
    pol = policy_for(name, env, seed=4, max_samples=T)
    draw = bandits.reward_oracle(env, 4)
    while not pol.done:
        subset = pol.ask()
        pol.tell(subset, draw(subset) if pol.exploring else 0.0)
    assert pol.stopped_by == res.stopped_by
    assert np.array_equal(pol.recommendation, res.recommendation)
    assert np.array_equal(pol.counts, res.counts)


def test_dart_csar_and_ucb_derive_their_sample_sizes_from_one_confidence_rule():
    # One rule n(r) = c v log L / r^2 (bandits.subsets.confidence): DART's test epochs,
    # CSAR's repetitions per phase and improved UCB's samples per round all come from it,
    # for every constant c (issue 17). DART as printed (c = 32, L = NT) tests level 1 after
    # ceil(32 ln(45e6)) = 564 epochs at N = 45, T = 1e6; matched (c = 2, L = 2NT) after 37.
    from bandits.subsets import DART_PRINTED, MATCHED, ConfidenceRule
    from bandits.subsets.algorithms import csar_designs
    from bandits.subsets.policy import CsarPolicy, DartPolicy, UcbPolicy

    assert math.ceil(DART_PRINTED.dart_epochs(45, 10**6, 1.0)) == 564
    assert math.ceil(MATCHED.dart_epochs(45, 10**6, 1.0)) == math.ceil(2 * math.log(9e7)) == 37
    N, K, T = 12, 2, 10**5
    d = csar_designs(K)
    b, q = d.size[1, K]  # Hadamard design for k = 2 open slots (12 >= 4 undecided arms)
    v = 0.25 * K * K * max(float(np.sum(d.coef[1, K, i, :q] ** 2)) for i in range(b))
    for rule in (MATCHED, DART_PRINTED, ConfidenceRule(8.0, 2.0), ConfidenceRule(0.5, 1.0)):
        dart_pol = DartPolicy(N, K, T, c=rule.c, union=rule.union)
        assert dart_pol._st.floats[_k.F_THRESHOLD] == pytest.approx(
            rule.dart_epochs(N, T, 1.0), rel=1e-12)
        assert dart_test_epochs(N, T, 3, rule.c, rule.union).tolist() == [
            math.ceil(rule.dart_epochs(N, T, 0.5**k)) for k in range(3)]
        csar_pol = CsarPolicy(N, K, T, c=rule.c)
        assert csar_pol._st.ints[_k.C_REPS] == rule.csar_repetitions(v, N, T, 0.5)
        assert csar_pol._st.ints[_k.C_REPS] == math.ceil(rule.c * v * math.log(2 * N * T) / 0.25)
        ucb_pol = UcbPolicy(N, K, T, c=rule.c)
        assert ucb_pol._st.ints[_k.U_NEED] == rule.ucb_samples(T, 1.0)
    # the defaults: DART as printed, CSAR and UCB at c = 2 (the matched constant)
    assert DartPolicy(N, K, T)._st.floats[_k.F_THRESHOLD] == pytest.approx(
        DART_PRINTED.dart_epochs(N, T, 1.0))
    assert CsarPolicy(N, K, T)._st.ints[_k.C_REPS] == MATCHED.csar_repetitions(v, N, T, 0.5)
    assert UcbPolicy(N, K, T)._st.ints[_k.U_NEED] == MATCHED.ucb_samples(T, 1.0)
    with pytest.raises(ValueError, match="c must be"):
        dart(SubsetEnv.bernoulli(N, K, seed=0), T, c=0.0)
    with pytest.raises(ValueError, match="union must be"):
        DartPolicy(N, K, T, union=-1.0)


@pytest.mark.parametrize("reward", ["mean", "quadratic", "max"])
def test_tied_means_every_optimal_subset_counts_as_correct(reward):
    """Three arms tie for the two places: every subset of them has the optimal joint reward,
    so a run that commits to one is correct, not only the lowest-index one (env.optimal)."""
    env = SubsetEnv.bernoulli(K=2, reward=reward, means=[0.5, 0.5, 0.5, 0.2, 0.2, 0.2])
    for a in combinations(range(env.N), env.K):
        assert env.is_optimal(a) == (env.expected_reward(a) == env.mu_star)
    res = dart(env, 2000, seed=0)
    assert res.chosen.tolist() == [0, 2] and res.correct
    with pytest.raises(ValueError, match="action"):
        env.is_optimal([0, 0])
