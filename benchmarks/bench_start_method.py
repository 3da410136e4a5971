"""Start methods of the replicate worker pool side by side, in one process.

``replicate(..., n_jobs=2)`` of a short job (20 fast runs of m-LinGapE on reda-classic) with
the pool started by ``forkserver`` (the default where available), ``spawn`` and ``fork``
(the old default, unsafe in a multi-threaded process: timed for comparison only).  The
difference is the per-pool start-up cost (imports and loading numba's cached code in every
worker); reported as seconds per call and the ratio to ``forkserver``.

Usage: ``python benchmarks/bench_start_method.py [--repeats N]``.
"""

from __future__ import annotations

import argparse
import time
import warnings

import bandits.replicate as rep
from bandits import replicate
from bandits.instances import get_instance


def one(method: str) -> float:
    rep.START_METHOD = method
    t0 = time.perf_counter()
    replicate("m-lingape", get_instance("reda-classic"), 20, n_jobs=2, progress=False)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    n = ap.parse_args().repeats
    methods = ("forkserver", "spawn", "fork")
    best = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # fork in a threaded process
        for m in methods:
            one(m)  # first pool of each method: fork server start, numba cache load
            best[m] = min(one(m) for _ in range(n))
    for m in methods:
        print(f"{m:<11} {best[m]:7.3f} s per replicate(n_jobs=2)   "
              f"ratio to forkserver {best[m] / best['forkserver']:5.2f}")


if __name__ == "__main__":
    main()
