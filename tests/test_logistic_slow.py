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
