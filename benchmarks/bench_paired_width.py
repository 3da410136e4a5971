"""Paired confidence widths ``||x_i - x_j||_{V^-1}``: the difference-vector form used by
the GIFA kernels (``y . (P_i - P_j)``, issue 12) against the expanded form it replaced
(``diag_i + diag_j - 2 P_i . x_j``, which cancels on nearly parallel arms), side by side in
one process over all pairs.  Reported: nanoseconds per pair and the ratio (about 2: three
floating-point operations per coordinate instead of one; the price of a correct width).

Usage: ``python benchmarks/bench_paired_width.py``.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from bandits.gifa import _kernels as G


@njit(cache=True)
def _all_pairs_new(X, P, diag, mu, out) -> float:
    K = X.shape[0]
    s = 0.0
    for i in range(K):
        for j in range(K):
            s += G.gap_index(i, j, X, P, diag, mu, 1.0, True)
    out[0] = s
    return s


@njit(cache=True)
def _all_pairs_expanded(X, P, diag, mu, out) -> float:
    K, d = X.shape
    s = 0.0
    for i in range(K):
        for j in range(K):
            g = 0.0
            for r in range(d):
                g += P[i, r] * X[j, r]
            v = diag[i] + diag[j] - 2.0 * g
            s += mu[i] - mu[j] + (np.sqrt(v) if v > 0.0 else 0.0)
    out[0] = s
    return s


def main() -> None:
    rng = np.random.default_rng(0)
    for K, d in [(10, 5), (100, 20), (300, 71)]:
        X = rng.standard_normal((K, d))
        V = np.eye(d) + X.T @ (X * rng.integers(1, 50, K)[:, None])
        P = X @ np.linalg.inv(V)
        diag = np.einsum("ij,ij->i", P, X)
        mu, out = np.zeros(K), np.zeros(1)
        times = {}
        for name, f in [("difference", _all_pairs_new), ("expanded", _all_pairs_expanded)]:
            f(X, P, diag, mu, out)  # compile
            reps = max(5, 2_000_000 // (K * K * d))
            best = np.inf
            for _ in range(3):  # best of three: the machine is shared
                t0 = time.perf_counter()
                for _ in range(reps):
                    f(X, P, diag, mu, out)
                best = min(best, time.perf_counter() - t0)
            times[name] = best / (reps * K * K) * 1e9
        print(f"K={K:4d} d={d:3d}: difference {times['difference']:7.1f} ns/pair, "
              f"expanded {times['expanded']:7.1f} ns/pair, "
              f"ratio {times['difference'] / times['expanded']:.2f}")


if __name__ == "__main__":
    main()
