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
