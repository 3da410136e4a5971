"""Cost of the well-conditioned basis (issue 12), side by side in one process.

``direct``: the solver run on the arms ``X`` themselves and the variances from a Cholesky
factor of ``X^T W X`` (the code path before the basis change, still correct for
well-conditioned arms). ``basis``: the public API, which computes ``X = Q R`` once per call,
solves on ``Q`` and certifies with a rounding-error bound. Random Gaussian arms (condition
number ~1), where both are accurate: the ratio is the price of the robustness.

Usage: ``python benchmarks/bench_basis.py [--quick]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from design import _minimax_solver as sol
from design import g_optimal, gd, xy_optimal
from design._validation import as_arms
from design.minimax import _xy_targets


def g_direct(X: np.ndarray, tol: float = 1e-6) -> float:
    Xa = as_arms(X)
    w, _, _, _ = gd._solve_fw(Xa, tol, 200_000)
    S = w > 0
    return float(gd._variances_fast(Xa, Xa[S], w[S]).max())


def xy_direct(X: np.ndarray, tol: float = 1e-4) -> float:
    Xa = as_arms(X)
    targets = _xy_targets(Xa, None, None)
    w, cert, _, _ = sol.solve_ipm(Xa, targets, tol, 2000)
    targets.scan(sol.factor(Xa, w), targets.count, (1.0 - tol) * cert.value)
    return cert.gap


def best_of(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes only")
    args = ap.parse_args()
    cases = [("G", 10_000, 10), ("G", 100_000, 50), ("XY", 100, 8), ("XY", 200, 10)]
    if args.quick:
        cases = [c for c in cases if c[1] <= 10_000]
    print(f"{'crit':<4} {'K':>7} {'d':>3} {'direct s':>9} {'basis s':>9} {'ratio':>6}")
    for crit, K, d in cases:
        X = np.random.default_rng(K + d).standard_normal((K, d))
        direct, api = (g_direct, g_optimal) if crit == "G" else (xy_direct, xy_optimal)
        direct(X)
        api(X)  # compile / warm up
        t_direct = best_of(lambda X=X, f=direct: f(X), 5)
        t_basis = best_of(lambda X=X, f=api: f(X), 5)
        print(f"{crit:<4} {K:>7} {d:>3} {t_direct:>9.4f} {t_basis:>9.4f} "
              f"{t_basis / t_direct:>5.2f}x")


if __name__ == "__main__":
    main()
