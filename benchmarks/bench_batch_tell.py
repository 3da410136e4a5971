"""Cost of one large batch through the ask/tell protocol: ``ask(n)`` then ``tell`` of all
``n`` rewards, per reward, as ``n`` grows (G-static on Soare's instance, d = 5: its batch
is exactly the next ``n`` pulls of the allocation, so all the cost is the protocol's and
the step's).

A flat per-reward cost means the batch costs O(n). Before stop 17, ``tell`` searched the
outstanding asks for every told arm and recounted them for every reward, O(n^2): measured
on the shared 2-core machine (CPU seconds), ``tell`` of 2,000 / 8,000 / 32,000 rewards took
0.04 / 0.34 / 4.54 s (a day of 10^5 A/B results would take about 45 s, and so would every
later ``load_policy``, which replays the log); now 0.02 / 0.08 / 0.32 s.

Usage: ``python benchmarks/bench_batch_tell.py``.
"""

from __future__ import annotations

import time

import numpy as np

from bandits import policy
from bandits.instances import soare


def batch_cost(n: int) -> tuple[float, float]:
    """CPU seconds of ``ask(n)`` and of the ``tell`` of its ``n`` rewards."""
    inst = soare(d=5)
    pol = policy("g-static", inst.X, sigma=1.0)
    t0 = time.process_time()
    arms = pol.ask(n)
    t1 = time.process_time()
    noise = np.random.default_rng(0).standard_normal(len(arms))
    pol.tell(arms, (inst.X[arms] @ inst.theta + noise).tolist())
    t2 = time.process_time()
    assert pol.samples == n
    return t1 - t0, t2 - t1


def main() -> None:
    batch_cost(100)  # compile / load the kernels
    print(f"{'n':>8} {'ask s':>8} {'tell s':>8} {'tell us/reward':>15}")
    for n in (2_000, 8_000, 32_000, 128_000):
        ask, tell = batch_cost(n)
        print(f"{n:>8,} {ask:>8.2f} {tell:>8.2f} {tell / n * 1e6:>15.1f}")


if __name__ == "__main__":
    main()
