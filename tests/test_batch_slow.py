"""The delta guarantee at every batch size (issue 14): error rate <= delta by a binomial
bound, for every algorithm with batches, at batch sizes 1, 10 and 100, with results told
in a random order a batch later (delayed feedback)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binom

from bandits.instances import soare
from bandits.registry import REGISTRY, policy_for

BATCHED = [n for n, e in REGISTRY.items() if e.family in ("gifa", "game", "static", "phased")]
RUNS, DELTA = 30, 0.1
#: Largest error count consistent with an error rate <= DELTA (one-sided, level 1e-3).
MAX_ERRORS = int(binom.ppf(1 - 1e-3, RUNS, DELTA))


def _run(name: str, n: int, seed: int, inst) -> bool:
    pol = policy_for(name, inst, delta=DELTA, seed=seed, max_samples=10**6)
    rng = np.random.default_rng(1000 + seed)
    means = np.asarray(inst.means, dtype=float)
    late: list[int] = []
    while not pol.done:
        arms = pol.ask(n)
        if late:  # the previous batch's results arrive now, shuffled
            order = rng.permutation(len(late))
            told = [late[i] for i in order]
            pol.tell(told, [means[a] + inst.sigma * rng.standard_normal() for a in told])
        late = arms
        if not arms and not pol.done:
            continue
    assert pol.stopped_by == "rule"
    return int(pol.recommendation[0]) == int(np.argmax(means))


@pytest.mark.slow
@pytest.mark.parametrize("name", BATCHED)
@pytest.mark.parametrize("n", [1, 10, 100])
def test_error_rate_at_most_delta_at_every_batch_size(name: str, n: int) -> None:
    inst = soare(d=3, omega=0.5)
    errors = sum(not _run(name, n, seed, inst) for seed in range(RUNS))
    assert errors <= MAX_ERRORS, f"{errors} errors in {RUNS} runs (bound {MAX_ERRORS})"
