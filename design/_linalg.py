"""Small jitted linear-algebra kernels shared by the solvers and the bandit estimators."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def cholesky_lower(M: np.ndarray, L: np.ndarray, pivot_rtol: float = 0.0) -> bool:
    """Write the lower Cholesky factor of the symmetric matrix ``M`` into ``L``.

    Returns False, instead of raising inside jitted code, when ``M`` is not numerically
    positive definite: a pivot ``<= pivot_rtol * |M_jj|`` (or ``<= 1e-300`` when
    ``pivot_rtol`` is 0).
    """
    d = M.shape[0]
    for j in range(d):
        s = M[j, j]
        for k in range(j):
            s -= L[j, k] * L[j, k]
        floor = pivot_rtol * abs(M[j, j]) if pivot_rtol > 0.0 else 1e-300
        if not s > floor or not s > 0.0:
            return False
        L[j, j] = np.sqrt(s)
        for i in range(j + 1, d):
            s = M[i, j]
            for k in range(j):
                s -= L[i, k] * L[j, k]
            L[i, j] = s / L[j, j]
        for i in range(j):
            L[i, j] = 0.0
    return True


@njit(cache=True)
def lower_inverse(L: np.ndarray, Linv: np.ndarray) -> None:
    """Write the inverse of the lower-triangular ``L`` into ``Linv`` (forward substitution)."""
    d = L.shape[0]
    for j in range(d):
        for i in range(j):
            Linv[i, j] = 0.0
        Linv[j, j] = 1.0 / L[j, j]
        for i in range(j + 1, d):
            s = 0.0
            for k in range(j, i):
                s -= L[i, k] * Linv[k, j]
            Linv[i, j] = s / L[i, i]
