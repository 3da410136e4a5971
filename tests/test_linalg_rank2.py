"""The shared rank-one/two Woodbury kernels of design/_linalg.py against a direct inverse."""

import numpy as np
import pytest
from numba import njit

from design._linalg import (
    linear_pair_terms,
    linear_rank2_update,
    pair_terms,
    rank2_core,
    woodbury_pair,
)

# the helpers are inner kernels (no Python wrapper): the tests call them from jitted shims


@njit
def _woodbury_pair(X, Minv, om, i, j, alpha, beta):
    woodbury_pair(X, Minv, om, i, j, alpha, beta)


@njit
def _linear_rank2_step(X, Minv, L, g, om, i, j, alpha):
    ui, uj, oi, oj, oij = pair_terms(X, Minv, i, j)
    Lui, Luj, bii, bjj, bij = linear_pair_terms(L, ui, uj)
    s11, s12, s22 = rank2_core(oi, oj, oij, alpha, alpha)
    linear_rank2_update(X, Minv, ui, uj, Lui, Luj, bii, bjj, bij, s11, s12, s22, g, om, True)


def _state(X: np.ndarray, M: np.ndarray, L: np.ndarray):
    Minv = np.linalg.inv(M)
    om = np.einsum("ar,rc,ac->a", X, Minv, X)
    Z = X @ Minv
    g = np.einsum("ar,rc,ac->a", Z, L, Z)
    return Minv, om, g


@pytest.mark.parametrize("alpha,beta", [(0.3, 0.2), (0.5, 0.0), (0.0, 0.1), (1.0, 1.0)])
def test_woodbury_pair_matches_direct_inverse(alpha: float, beta: float) -> None:
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 5))
    M = X.T @ X / 40 + np.eye(5)
    Minv, om, _ = _state(X, M, np.eye(5))
    i, j = 3, 17
    _woodbury_pair(X, Minv, om, i, j, alpha, beta)
    M2 = M + alpha * np.outer(X[i], X[i]) - beta * np.outer(X[j], X[j])
    Minv2, om2, _ = _state(X, M2, np.eye(5))
    np.testing.assert_allclose(Minv, Minv2, rtol=1e-11, atol=1e-13)
    np.testing.assert_allclose(om, om2, rtol=1e-11)


def test_linear_rank2_update_matches_direct_recomputation() -> None:
    rng = np.random.default_rng(1)
    X = rng.standard_normal((30, 4))
    B = rng.standard_normal((4, 4))
    L = B @ B.T
    M = X.T @ X / 30 + 0.5 * np.eye(4)
    Minv, om, g = _state(X, M, L)
    i, j, alpha = 2, 9, 0.2
    _linear_rank2_step(X, Minv, L, g, om, i, j, alpha)
    M2 = M + alpha * (np.outer(X[i], X[i]) - np.outer(X[j], X[j]))
    Minv2, om2, g2 = _state(X, M2, L)
    np.testing.assert_allclose(Minv, Minv2, rtol=1e-11, atol=1e-13)
    np.testing.assert_allclose(om, om2, rtol=1e-11)
    np.testing.assert_allclose(g, g2, rtol=1e-10)
