"""Small jitted linear-algebra kernels shared by the solvers and the bandit estimators."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def cholesky_lower(M: np.ndarray, L: np.ndarray) -> bool:
    """Write the lower Cholesky factor of the symmetric matrix ``M`` into ``L``.

    Returns False, instead of raising inside jitted code, when ``M`` is not numerically
    positive definite (a pivot <= 1e-300).
    """
    d = M.shape[0]
    for j in range(d):
        s = M[j, j]
        for k in range(j):
            s -= L[j, k] * L[j, k]
        if not s > 1e-300:
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
def lower_inverse(L: np.ndarray) -> np.ndarray:
    """Inverse of a lower-triangular matrix by forward substitution."""
    d = L.shape[0]
    Linv = np.zeros((d, d))
    for j in range(d):
        Linv[j, j] = 1.0 / L[j, j]
        for i in range(j + 1, d):
            s = 0.0
            for k in range(j, i):
                s -= L[i, k] * Linv[k, j]
            Linv[i, j] = s / L[i, i]
    return Linv
