"""Regularised least squares with rank-one updates (jitted).

State of a linear bandit after ``t`` pulls, for features ``X`` (K, d) and regulariser
``lam``: ``V = lam I + sum_a N_a x_a x_a^T``, ``b = sum_s r_s x_{a_s}`` and
``theta_hat = V^{-1} b``. We keep the cached products ``P = X V^{-1}`` (so that
``mu_hat = P b`` and ``x_a^T V^{-1} y = P_a . y``), the variances
``diag_a = x_a^T V^{-1} x_a`` and ``log det V - d log lam``. A pull updates all of them in
``O(Kd)`` by Sherman–Morrison; every ``refresh`` pulls they and ``V^{-1}`` are recomputed
exactly from the counts to stop rounding drift (``V^{-1}`` is only valid after a refresh).

``stats`` holds ``[t, log det ratio, pulls since refresh, ready]``; ``ready = 0`` while
``V`` is singular (``lam = 0`` before every arm was pulled), when only counts and ``b``
are accumulated.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from bandits._core.jit import inner
from design.linalg import cholesky_lower, inverse_from_factor, lower_inverse, mv_into

T, LOGDET, SINCE, READY = 0, 1, 2, 3


class LsqState(NamedTuple):
    """The arrays of the least-squares state (one value at the numba boundary)."""

    Vinv: np.ndarray
    """``V^{-1}`` (d, d), valid after a refresh."""
    P: np.ndarray
    """``X V^{-1}`` (K, d)."""
    diag: np.ndarray
    """``x_a^T V^{-1} x_a`` (K,)."""
    bvec: np.ndarray
    """``b = sum_s r_s x_{a_s}`` (d,)."""
    counts: np.ndarray
    """Pulls per arm (K,), int64."""
    stats: np.ndarray
    """``[t, log det ratio, pulls since refresh, ready]`` (slots T, LOGDET, SINCE, READY)."""
    scratch: np.ndarray
    """(3, d, d) work matrices of :func:`gram_inverse` (``V``, its Cholesky factor ``L``,
    ``L^{-1}``): no kernel allocates, so a first call compiles no allocator (issue 16)."""


def new_state(X: np.ndarray, lam: float) -> LsqState:
    """Fresh arrays for features ``X`` and regulariser ``lam`` (no pull yet)."""
    K, d = X.shape
    st = LsqState(np.zeros((d, d)), np.zeros((K, d)), np.zeros(K), np.zeros(d),
                  np.zeros(K, dtype=np.int64), np.zeros(4), np.zeros((3, d, d)))
    if lam > 0:
        st.Vinv[:] = np.eye(d) / lam
        st.P[:] = X / lam
        st.diag[:] = np.einsum("ij,ij->i", X, X) / lam
        st.stats[READY] = 1.0
    return st


@inner
def gram_inverse(X, counts, lam, Vinv, scratch) -> bool:
    """``V = lam I + sum_a N_a x_a x_a^T`` from the counts: ``V``, its Cholesky factor
    ``L`` and ``L^{-1}`` into ``scratch[0..2]`` (overwritten) and
    ``V^{-1} = L^{-T} L^{-1}`` into ``Vinv``. Returns False (``Vinv`` untouched) when ``V``
    is singular. Shared by :func:`refresh` and LinGame's count geometry ``W``
    (``lam = 0``)."""
    K, d = X.shape
    V, L, Linv = scratch[0], scratch[1], scratch[2]
    for i in range(d):
        for j in range(d):
            V[i, j] = 0.0
            L[i, j] = 0.0
        V[i, i] = lam
    for a in range(K):
        n = counts[a]
        if n > 0:
            for i in range(d):
                xi = n * X[a, i]
                for j in range(d):
                    V[i, j] += xi * X[a, j]
    if not cholesky_lower(V, L, 0.0):  # explicit: an omitted default is another specialisation
        return False
    lower_inverse(L, Linv)
    # plain loops, no `@` and no array assignment: each would compile seconds of numba
    # glue on the first call (issue 16)
    inverse_from_factor(Linv, Vinv)
    return True


@njit(cache=True, inline="always")
def refresh_inner(X, lam, st) -> bool:
    """Recompute ``V^{-1}``, ``P``, ``diag`` and the log-det ratio of the state ``st``
    exactly from the counts.

    Returns False (and leaves ``ready = 0``) when ``V`` is singular.
    """
    Vinv, P, diag, counts, stats = st.Vinv, st.P, st.diag, st.counts, st.stats
    K, d = X.shape
    if not gram_inverse(X, counts, lam, Vinv, st.scratch):
        stats[READY] = 0.0
        return False
    for a in range(K):  # P_a = V^{-1} x_a (V^{-1} is symmetric), a loop (issue 16)
        mv_into(Vinv, X[a], P[a])
    for a in range(K):
        s = 0.0
        for i in range(d):
            s += P[a, i] * X[a, i]
        diag[a] = s
    logdet = 0.0
    for i in range(d):
        logdet += 2.0 * np.log(st.scratch[1, i, i])
    stats[LOGDET] = logdet - d * np.log(lam) if lam > 0 else logdet
    stats[SINCE] = 0.0
    stats[READY] = 1.0
    return True


@njit(cache=True, inline="always")
def update_inner(X, lam, st, k, reward, refresh_every) -> bool:
    """Record reward ``reward`` of arm ``k``: Sherman–Morrison update in ``O(Kd)``.
    Returns True when the exact refresh is due (``refresh_every`` updates since the last):
    the caller calls :func:`refresh_inner` next (the loops have one call site of each
    kernel, and this kernel does not link the refresh's code: issue 16).

    ``V' = V + x x^T`` with ``x = x_k``; ``u = V^{-1} x`` is row ``k`` of ``P = X V^{-1}``,
    so with ``c = 1 / (1 + x^T V^{-1} x)``: ``P' = P - c (P x) u^T``,
    ``diag'_a = diag_a - c (x_a^T u)^2`` and ``log det V' = log det V + log(1 + x^T V^{-1} x)``.
    ``V^{-1}`` itself is only rebuilt by :func:`refresh` (every ``refresh_every`` pulls), which
    saves the ``O(d^2)`` update when ``d`` is large (71 features on the drug instance).
    """
    P, diag, bvec, counts, stats = st.P, st.diag, st.bvec, st.counts, st.stats
    K, d = X.shape
    for i in range(d):
        bvec[i] += reward * X[k, i]
    counts[k] += 1
    stats[T] += 1.0
    if stats[READY] == 0.0:
        return False
    # u = P[k]: update every other row first, so that row k is still V^{-1} x_k
    c = 1.0 / (1.0 + diag[k])
    stats[LOGDET] += np.log1p(diag[k])
    for r in range(K):
        if r == k:
            continue
        g = 0.0
        for i in range(d):
            g += P[r, i] * X[k, i]
        diag[r] -= c * g * g
        cg = c * g
        for i in range(d):
            P[r, i] -= cg * P[k, i]
    g = 0.0
    for i in range(d):
        g += P[k, i] * X[k, i]
    diag[k] -= c * g * g
    scale = 1.0 - c * g
    for i in range(d):
        P[k, i] *= scale
    stats[SINCE] += 1.0
    return stats[SINCE] >= refresh_every


@inner
def estimated_means(P, bvec, mu) -> None:
    """``mu_hat = X V^{-1} b = P b``."""
    K, d = P.shape
    for a in range(K):
        s = 0.0
        for i in range(d):
            s += P[a, i] * bvec[i]
        mu[a] = s


# ----------------------------------------------------------------------------------------
# Python entries (the ask/tell policies' and the tests' calls)
# ----------------------------------------------------------------------------------------
# The simulation loops call the *_inner kernels, compiled without numba's Python wrapper
# (bandits._core.jit.inner): a run's first call does not compile the wrappers of its
# namedtuple states; these entries compile them on the first Python call.


@njit(cache=True)
def refresh(X, lam, st):
    """Python entry of :func:`refresh_inner` (compiled on the first Python call)."""
    return refresh_inner(X, lam, st)


@njit(cache=True)
def update(X, lam, st, k, reward, refresh_every) -> None:
    """Python entry of :func:`update_inner`, followed by the exact refresh when it is due
    (what the simulation loops do; compiled on the first Python call)."""
    if update_inner(X, lam, st, k, reward, refresh_every):
        refresh_inner(X, lam, st)
