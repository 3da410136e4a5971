"""Cost of taking the next arm of a long phase, side by side in one process.

RAGE's ask/tell policy issues the pulls of a phase one by one; its phases reach millions of
pulls.  ``list.pop(0)`` (the queue before issue 12) moves the whole remaining list on every
ask; :class:`bandits._core.protocol.ArmQueue` advances a read position in one int64 array.
Reported: microseconds per ask at phase lengths 1e4 .. 4.4e6 and the ratio.

Usage: ``python benchmarks/bench_ask_queue.py``.
"""

from __future__ import annotations

import time

import numpy as np

from bandits._core.protocol import ArmQueue

ASKS = 2000


def per_ask_list(n: int) -> float:
    queue = [a for a in range(4) for _ in range(n // 4)]
    t0 = time.perf_counter()
    for _ in range(ASKS):
        queue.pop(0)
    return (time.perf_counter() - t0) / ASKS


def per_ask_array(n: int) -> float:
    queue = ArmQueue.repeated(np.full(4, n // 4))
    t0 = time.perf_counter()
    for _ in range(ASKS):
        queue.popleft()
    return (time.perf_counter() - t0) / ASKS


def main() -> None:
    print(f"{'phase length':>12} {'list.pop(0) us':>15} {'ArmQueue us':>12} {'ratio':>8}")
    for n in (10**4, 10**5, 10**6, 4_400_000):
        a, b = per_ask_list(n), per_ask_array(n)
        print(f"{n:>12,} {a * 1e6:>15.2f} {b * 1e6:>12.3f} {a / b:>8.0f}")


if __name__ == "__main__":
    main()
