"""Statistical checks of DART at the paper's scale (N = 45, T = 1e6); minutes.

Run with ``pytest -m slow tests/test_subsets_slow.py``.  The full orderings of Figs. 1-3
are produced by ``oed reproduce dart-figure1`` (2, 3); the ones asserted here are those our
25-run reproduction confirmed (see docs/subsets.md for the ones that do not hold).
"""

import numpy as np
import pytest

from bandits.subsets import SubsetEnv, dart, regret_curves

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("N, K, T", [(20, 4, 200_000), (45, 2, 10**6), (45, 8, 10**6)])
def test_lower_bound_appendix_A(N, K, T):
    """DART App. A, Eq. 46: R >= (sigma/8) sqrt(NKT) with eps = (sigma/2) sqrt(NK/T)."""
    for seed in range(5):
        env = SubsetEnv.lower_bound(N, K, T, seed=seed)
        assert dart(env, T, seed=seed).final_regret > env.info["bound"]


@pytest.mark.parametrize("reward", ["mean", "quadratic", "max"])
def test_dart_identifies_top_subset_at_paper_scale(reward):
    ok = [dart(SubsetEnv.bernoulli(45, 2, reward, seed=s), 10**6, seed=s).correct
          for s in range(10)]
    assert np.mean(ok) >= 0.8


def test_dart_commits_and_regret_flattens_mean_K2():
    rc = regret_curves(["dart"], lambda s: SubsetEnv.bernoulli(45, 2, "mean", seed=s),
                       10**6, runs=5)
    d = rc.curves["dart"].mean(axis=0)
    # lam="auto" commits after the Delta = 1/8 test (epoch 36,091, ~830k steps without
    # eliminations): the last 10% of the horizon adds < 5% of the regret
    k = int(0.9 * d.size)
    assert d[-1] - d[k] < 0.05 * d[-1]
    assert set(rc.stopped_by["dart"]) <= {"lambda", "all-decided"}


def test_claims_that_hold_in_our_reproduction_mean_K2():
    """Fig. 1 (K = 2): LinTS (unscaled) < DART and LinTS < CSAR hold (25-run reproduction);
    DART < CSAR, DART < UCB, DART < LinTS (scaled) do not (docs/subsets.md)."""
    rc = regret_curves(["dart", "csar", "lints", "lints-unscaled"],
                       lambda s: SubsetEnv.bernoulli(45, 2, "mean", seed=s), 10**6, runs=2)
    f = {k: v["mean"] for k, v in rc.summary().items()}
    assert f["lints-unscaled"] < f["dart"]
    assert f["lints"] < f["csar"]
