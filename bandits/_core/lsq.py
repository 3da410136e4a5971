"""Regularised least squares with rank-one updates (jitted).

State of a linear bandit after ``t`` pulls, for features ``X`` (K, d) and regulariser
``lam``: ``V = lam I + sum_a N_a x_a x_a^T``, ``b = sum_s r_s x_{a_s}`` and
``theta_hat = V^{-1} b``. We keep the cached products ``P = X V^{-1}`` (so that
``mu_hat = P b`` and ``x_a^T V^{-1} y = P_a . y``), the variances
``diag_a = x_a^T V^{-1} x_a`` and ``log det V - d log lam``. A pull updates all of them in
``O(Kd)`` by Sherman–Morrison (jitted, :func:`update_inner`); every ``refresh`` pulls they
and ``V^{-1}`` are recomputed exactly from the counts to stop rounding drift
(:func:`refresh`, numpy/LAPACK, between calls of the jitted loops; ``V^{-1}`` is only valid
after a refresh).

``stats`` holds ``[t, log det ratio, pulls since refresh, ready]``; ``ready = 0`` while
``V`` is singular (``lam = 0`` before every arm was pulled), when only counts and ``b``
are accumulated.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit
from scipy.linalg.lapack import dpotrf, dpotri

from bandits._core.jit import inner
from design.linalg import blas_threads

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


def new_state(X: np.ndarray, lam: float) -> LsqState:
    """Fresh arrays for features ``X`` and regulariser ``lam`` (no pull yet)."""
    K, d = X.shape
    st = LsqState(np.zeros((d, d)), np.zeros((K, d)), np.zeros(K), np.zeros(d),
                  np.zeros(K, dtype=np.int64), np.zeros(4))
    if lam > 0:
        st.Vinv[:] = np.eye(d) / lam
        st.P[:] = X / lam
        st.diag[:] = np.einsum("ij,ij->i", X, X) / lam
        st.stats[READY] = 1.0
    return st


def refresh(X: np.ndarray, lam: float, st: LsqState) -> bool:
    """Recompute ``V^{-1}``, ``P``, ``diag`` and the log-det ratio of the state ``st``
    exactly from the counts (numpy/LAPACK: ``V`` by one product, its Cholesky factor
    ``L`` by ``dpotrf``, ``V^{-1}`` by ``dpotri``, ``P = X V^{-1}``).

    Called every ``refresh_every`` updates and once after the initial round, between
    calls of the jitted loops (they return when it is due): a kernel would cost every
    user seconds of compilation on the first call for work done once per thousand pulls
    (issue 16). Returns False (and leaves ``ready = 0``) when ``V`` is singular.

    BLAS runs on one thread here (:func:`design.linalg.blas_threads`, as in the design
    layer): resuming a 994-reward lab screen (K = 500, d = 28, 160 refreshes with its
    look-ahead asks) took 1.79 s of CPU and 6.7 s of wall time with OpenBLAS's default two
    threads on the loaded 2-core machine, 0.2 s and 0.8 s with one.
    """
    d = X.shape[1]
    with blas_threads(1):  # small products: threads cost more than they save (below)
        V = (X.T * st.counts) @ X
        V.flat[::d + 1] += lam
        L, info = dpotrf(V, lower=1, clean=1)  # info > 0: a pivot <= 0 or NaN
        if info != 0:
            st.stats[READY] = 0.0
            return False
        Vinv, info = dpotri(L, lower=1)  # the lower triangle (the upper one is L's: zeros)
        if info != 0:  # pragma: no cover - L is a valid factor
            st.stats[READY] = 0.0
            return False
        Vinv += np.tril(Vinv, -1).T
        st.Vinv[:] = Vinv
        np.matmul(X, Vinv, out=st.P)
        np.einsum("ij,ij->i", st.P, X, out=st.diag)
    logdet = 2.0 * float(np.log(L.diagonal()).sum())
    st.stats[LOGDET] = logdet - d * np.log(lam) if lam > 0 else logdet
    st.stats[SINCE] = 0.0
    st.stats[READY] = 1.0
    return True


@njit(cache=True, inline="always")
def update_inner(X, lam, st, k, reward, refresh_every) -> bool:
    """Record reward ``reward`` of arm ``k``: Sherman–Morrison update in ``O(Kd)``.
    Returns True when the exact refresh is due (``refresh_every`` updates since the last):
    the caller calls :func:`refresh` next (the jitted loops return to Python for it, so
    they do not compile the refresh's factorisation: issue 16).

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
def ellipsoid_multiplier(t: float, delta: float, d: float, L2: float, lam: float,
                         bias: float) -> float:
    """Réda et al.'s (2021, Eq. 2) confidence multiplier of regularised least squares,
    ``C(t) = sqrt(2 log(1/delta) + d log(1 + (t+1) L^2 / (lam d))) + bias`` with ``bias =
    sqrt(lam) S / sigma``: with probability ``1 - delta``, at every t, ``||theta_hat -
    theta||_V <= sigma C(t)`` (Abbasi-Yadkori et al. 2011, Thm. 2, with ``log det V /
    det(lam I) <= d log(1 + (t+1) L^2 / (lam d))`` for ``||x|| <= L``). The GIFA family's
    theoretical threshold and LinGame's theoretical GLR threshold."""
    return np.sqrt(2.0 * np.log(1.0 / delta) + d * np.log(1.0 + (t + 1.0) * L2 / (lam * d))) \
        + bias


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
# The simulation loops inline update_inner; update_step is its entry for Python callers
# (compiled on the first Python call), the same source.


@njit(cache=True)
def update_step(X, lam, st, k, reward, refresh_every) -> bool:
    """Python entry of :func:`update_inner` (returns whether the refresh is due)."""
    return update_inner(X, lam, st, k, reward, refresh_every)


def update(X: np.ndarray, lam: float, st: LsqState, k: int, reward: float,
           refresh_every: int) -> None:
    """Record reward ``reward`` of arm ``k`` (:func:`update_inner`), followed by the exact
    :func:`refresh` when it is due (what the simulation loops do)."""
    if update_step(X, lam, st, k, reward, refresh_every):
        refresh(X, lam, st)
