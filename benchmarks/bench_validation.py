"""The arm validator ``design._validation.as_arms``: one pass over ``X`` against three.

The previous version scanned ``X`` three times per call: the finiteness check of
``as_real_array``, its own second finiteness check, and the Gram matrix of the rank test.
Now the Gram matrix also settles finiteness (issue 16). Both run side by side in this
process on the same arrays (CPU seconds, best of ``--repeats``), and the ratio new / old
is printed. Usage: ``python benchmarks/bench_validation.py [--sizes 1e6 1e7] [--d 20]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from design._validation import _rank, as_arms
from rounding._validation import as_real_array


def as_arms_three_passes(X: np.ndarray, name: str = "X") -> np.ndarray:
    """The validator as it was: finiteness twice, then the rank test (its own Gram)."""
    arr = as_real_array(X, name)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf")
    if _rank(arr) < arr.shape[1]:
        raise ValueError(f"{name} is rank-deficient")
    return np.ascontiguousarray(arr)


def best_cpu(fn, X: np.ndarray, repeats: int) -> float:
    best = np.inf
    for _ in range(repeats):
        t0 = time.process_time()
        fn(X)
        best = min(best, time.process_time() - t0)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[1e6, 1e7])
    parser.add_argument("--d", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"{'K':>10} {'d':>4} {'three passes s':>15} {'one pass s':>11} {'new/old':>8}")
    for k in args.sizes:
        X = np.random.default_rng(0).normal(size=(int(k), args.d))
        old = best_cpu(as_arms_three_passes, X, args.repeats)
        new = best_cpu(as_arms, X, args.repeats)
        print(f"{int(k):>10} {args.d:>4} {old:>15.3f} {new:>11.3f} {new / old:>8.2f}",
              flush=True)
        del X


if __name__ == "__main__":
    main()
