"""Jitted kernels of the A-, I- (linear) and Ds-optimal design solvers.

Small numba functions over plain arrays; the validated Python API is in
:mod:`design.criteria`. Notation: rows ``X[a]`` are arms, ``w`` the weights,
``A = sum_a w_a x_a x_a^T``, ``omega_a = x_a^T A^{-1} x_a``.

Both solvers are vertex-exchange methods (Böhning 1986; the exchange step of REX, Harman,
Filová & Richtárik 2020): move weight ``alpha`` from the support arm ``j`` with the smallest
directional derivative to the arm ``i`` with the largest, with the *exact* line search, and
update ``A^{-1}`` and every directional derivative by the Woodbury formula for the rank-two
change ``A + alpha (x_i x_i^T - x_j x_j^T)`` in ``O(K d)``.

Helpers that only kernels call are compiled without numba's Python wrapper
(:func:`design._jit.inner`; first-call compile time, issue 16). The solvers the Python side
calls (:func:`linear_solve`, :func:`ds_solve`) are Python: they recompute the exact state
(``A^{-1}`` and every derivative) with LAPACK every ``refresh`` steps and run the exchange
steps in between in the jitted :func:`linear_steps` / :func:`ds_steps`.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from scipy.linalg.lapack import dpotrf, dpotri

from design._jit import inner
from design._linalg import (
    info_matrix,
    linear_pair_terms,
    linear_rank2_update,
    pair_terms,
    rank2_core,
    rank2_inverse_update,
    rank2_variance_update,
)
from design._status import CONVERGED, MAX_ITER, REFRESH, SINGULAR, STALLED  # noqa: F401

# STALLED (design._status, one definition for every kernel) here: no exchange along the
# chosen pair improves the criterion.


@inner
def _info(X: np.ndarray, w: np.ndarray) -> np.ndarray:
    M = np.empty((X.shape[1], X.shape[1]))
    info_matrix(X, w, M)  # the shared helper of design._linalg (one implementation)
    return M


@njit(cache=True, inline="always")
def _quad_roots(qa: float, qb: float, qc: float, out: np.ndarray) -> int:
    """Real roots of ``qa t^2 + qb t + qc = 0`` (linear if ``qa`` is ~0) into ``out``."""
    scale = abs(qa) + abs(qb) + abs(qc)
    if scale == 0.0:
        return 0
    if abs(qa) <= 1e-14 * scale:
        if qb == 0.0:
            return 0
        out[0] = -qc / qb
        return 1
    disc = qb * qb - 4.0 * qa * qc
    if disc < 0.0:
        return 0
    sq = np.sqrt(disc)
    # numerically stable pair of roots
    q = -0.5 * (qb + sq) if qb >= 0.0 else -0.5 * (qb - sq)
    n = 0
    if q != 0.0:
        out[n] = qc / q
        n += 1
    out[n] = q / qa
    n += 1
    return n


# ----------------------------------------------------------------------------------------
# linear criteria: phi(w) = tr(L A(w)^{-1})  (A-optimal: L = I; I-optimal: L a moment matrix)
# ----------------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def linear_exchange(X: np.ndarray, L: np.ndarray, w: np.ndarray, Ainv: np.ndarray,
                    g: np.ndarray, i: int, j: int, phi: float, amax: float) -> float:
    """Exchange step ``j -> i`` for ``phi = tr(L A^{-1})`` with the exact line search.

    With ``u = A^{-1} x``, ``omega_i, omega_j, omega_ij``, ``b_ij = u_i^T L u_j`` and the
    rank-two Woodbury formula, the decrease of ``phi`` along ``alpha`` is
    ``f(alpha) = (a alpha - c alpha^2) / (1 + e alpha - D alpha^2)`` with
    ``a = g_i - g_j``, ``e = omega_i - omega_j``, ``D = omega_i omega_j - omega_ij^2``,
    ``c = omega_j g_i - 2 omega_ij b_ij + omega_i g_j``; ``f' = 0`` is the quadratic
    ``(a D - c e) alpha^2 - 2 c alpha + a = 0``. The best of its roots in ``(0, amax]`` and
    ``amax`` (``w_j``: a drop step, or the room left under ``i``'s cap) is taken, subject
    to ``1 + e alpha - D alpha^2 > 0`` (``A`` stays
    PD). Updates ``w``, ``A^{-1}`` and all ``g`` in ``O(K d + d^2)``; returns the new phi,
    or -1 when no step along this pair improves phi (nothing is changed then).
    """
    ui, uj, om_i, om_j, om_ij = pair_terms(X, Ainv, i, j)
    Lui, Luj, b_ii, b_jj, b_ij = linear_pair_terms(L, ui, uj)
    a = b_ii - b_jj
    e = om_i - om_j
    D = om_i * om_j - om_ij * om_ij
    c = om_j * b_ii - 2.0 * om_ij * b_ij + om_i * b_jj
    cand = np.empty(3)
    n = _quad_roots(a * D - c * e, -2.0 * c, a, cand)
    cand[n] = amax
    n += 1
    best = 0.0
    alpha = 0.0
    for k in range(n):
        t = cand[k]
        if not (t > 0.0) or t > amax:
            continue
        den = 1.0 + e * t - D * t * t
        if den <= 1e-10:
            continue
        f = (a * t - c * t * t) / den
        if f > best:
            best = f
            alpha = t
    if alpha <= 0.0:
        return -1.0
    # S = (C^{-1} + U^T A^{-1} U)^{-1}, C = diag(alpha, -alpha)
    s11, s12, s22 = rank2_core(om_i, om_j, om_ij, alpha, alpha)
    linear_rank2_update(X, Ainv, ui, uj, Lui, Luj, b_ii, b_jj, b_ij, s11, s12, s22, g, g,
                        False)
    w[i] += alpha
    if alpha >= w[j]:
        w[j] = 0.0
    else:
        w[j] -= alpha
    return phi - best


@njit(cache=True, inline="always")
def _select(score: np.ndarray, w: np.ndarray, cap: np.ndarray) -> tuple[int, int]:
    """``i = argmax score`` over arms below their cap, ``j = argmin score`` over the support."""
    K = score.shape[0]
    # int64 from the start: a literal -1 made numba compile pair_terms a second time for
    # Literal[int](-1) arguments (issue 16)
    i = np.int64(-1)
    smax = -np.inf
    j = np.int64(-1)
    smin = np.inf
    for a in range(K):
        if score[a] > smax and w[a] < cap[a]:
            smax = score[a]
            i = a
        if w[a] > 0.0 and score[a] < smin:
            smin = score[a]
            j = a
    return i, j


@njit(cache=True)
def linear_steps(X: np.ndarray, L: np.ndarray, w: np.ndarray, Ainv: np.ndarray,
                 g: np.ndarray, phi: float, cap: np.ndarray, kkt: bool, tol: float,
                 max_iter: int, refresh: int) -> tuple[int, int]:
    """Exchange steps of :func:`linear_solve` from an exact state (``Ainv``, ``g``, ``phi``
    of ``w``), until the caller must refresh it: returns ``(REFRESH, steps)`` after
    ``refresh`` steps, or when the stop rule holds or no exchange improves on an updated
    (not exact) state; ``CONVERGED`` / ``STALLED`` when that happens on the exact state,
    ``MAX_ITER`` after ``max_iter`` steps. ``w``, ``Ainv`` and ``g`` are updated in place.
    """
    it = 0
    while True:
        i, j = _select(g, w, cap)
        if i < 0 or j < 0:
            return STALLED, it
        thr = g[j] if kkt else phi
        if g[i] <= thr * (1.0 + tol) or j == i:
            return (CONVERGED if it == 0 else REFRESH), it
        if it >= max_iter:
            return MAX_ITER, it
        amax = min(w[j], cap[i] - w[i])
        new_phi = linear_exchange(X, L, w, Ainv, g, i, j, phi, amax)
        if new_phi < 0.0:
            # no improving exchange along this pair: refresh once, else stop honestly
            return (STALLED if it == 0 else REFRESH), it
        if w[i] > cap[i]:
            w[i] = cap[i]
        phi = new_phi
        it += 1
        if it >= refresh:
            return REFRESH, it


def inverse_info(X: np.ndarray, w: np.ndarray, M0: np.ndarray) -> np.ndarray | None:
    """``(M0 + sum_a w_a x_a x_a^T)^{-1}`` (C-contiguous, exactly symmetric) by LAPACK's
    Cholesky (``dpotrf``, ``dpotri``); None if not numerically PD (a pivot
    ``L_jj^2 <= 1e-300``, the rule of :func:`design._linalg.cholesky_lower`)."""
    d = X.shape[1]
    if d == 0:
        return np.empty((0, 0))
    C, info = dpotrf((X.T * w) @ X + M0, lower=1, clean=1)
    dg = C.diagonal()
    if info != 0 or not (dg * dg > 1e-300).all():
        return None
    Ci, info = dpotri(C, lower=1)  # the lower triangle of the inverse (C's upper one: 0)
    if info != 0:  # pragma: no cover - C has a positive diagonal
        return None
    Ci += np.tril(Ci, -1).T
    return np.ascontiguousarray(Ci)


def linear_solve(X: np.ndarray, L: np.ndarray, w: np.ndarray, M0: np.ndarray,
                 cap: np.ndarray, kkt: bool, tol: float, max_iter: int, refresh: int
                 ) -> tuple[int, int]:
    """Vertex-exchange solver of ``min_w tr(L A(w)^{-1})`` from the PD start ``w``.

    ``A(w) = M0 + sum_a w_a x_a x_a^T``; ``w`` on the simplex with ``w_a <= cap_a``.
    Unconstrained (``kkt=False``, ``M0 = 0``, no cap below 1), optimality is the
    equivalence theorem ``max_a g_a <= phi`` with ``g_a = x_a^T A^{-1} L A^{-1} x_a``, and
    the stop rule is ``max_a g_a <= phi (1 + tol)``. With caps or ``M0`` (``kkt=True``) the
    stop rule is the KKT condition ``max_{w_a < cap_a} g_a <= (1 + tol) min_{w_a > 0} g_a``
    (the certificate is computed by the caller). Exchanges move weight from the support arm
    with the smallest ``g`` to the arm below its cap with the largest, at most up to the cap
    (:func:`linear_steps`, jitted); the exact state (``A^{-1}``, every ``g_a``,
    ``phi = tr(L A^{-1})``) is recomputed here with LAPACK every ``refresh`` steps and
    before convergence or a stall is declared: BLAS-3 work once per ``refresh`` steps, and
    as jitted code it cost about 1 s of CPU to compile on a user's first call (issue 16).
    Returns ``(status, iterations)``; ``w`` is updated in place.
    """
    from design._gd_batch import blas_threads

    it = 0
    with blas_threads(1):  # small products, many refreshes: BLAS threads only cost
        while True:
            Ainv = inverse_info(X, w, M0)
            if Ainv is None:
                return SINGULAR, it
            Z = X @ Ainv  # rows z_a = A^{-1} x_a
            g = np.einsum("ij,ij->i", Z @ L, Z)
            phi = float(np.einsum("ij,ji->", L, Ainv))
            if phi <= 0.0:
                return SINGULAR, it
            status, steps = linear_steps(X, L, w, Ainv, g, phi, cap, bool(kkt), tol,
                                         max_iter - it, refresh)
            it += steps
            if status != REFRESH:
                return status, it


# ----------------------------------------------------------------------------------------
# Ds-optimal: maximise log det A - log det A_NN (N: the nuisance coordinates)
# ----------------------------------------------------------------------------------------


@njit(cache=True)
def ds_steps(X: np.ndarray, XN: np.ndarray, w: np.ndarray, Minv: np.ndarray,
             om: np.ndarray, Ninv: np.ndarray, nu: np.ndarray, cap: np.ndarray, kkt: bool,
             s: int, tol: float, max_iter: int, refresh: int) -> tuple[int, int]:
    """Exchange steps of :func:`ds_solve` from an exact state (``Minv``, ``om`` and the
    nuisance ``Ninv``, ``nu`` of ``w``), until the caller must refresh it; the return
    codes of :func:`linear_steps`. ``w``, the inverses and variances are updated in place.
    """
    K = X.shape[0]
    m = XN.shape[1]
    dv = np.empty(K)
    cand = np.empty(3)
    it = 0
    while True:
        for a in range(K):
            dv[a] = om[a] - nu[a]
        i, j = _select(dv, w, cap)
        if i < 0 or j < 0:
            return STALLED, it
        thr = dv[j] if kkt else s
        if dv[i] <= thr * (1.0 + tol) or j == i:
            return (CONVERGED if it == 0 else REFRESH), it
        if it >= max_iter:
            return MAX_ITER, it
        amax = min(w[j], cap[i] - w[i])
        ui, uj, fi, fj, fij = pair_terms(X, Minv, i, j)
        e1 = fi - fj
        D1 = fi * fj - fij * fij
        e2 = 0.0
        D2 = 0.0
        vi, vj, ni, nj, nij = pair_terms(XN, Ninv, i, j)
        if m > 0:
            e2 = ni - nj
            D2 = ni * nj - nij * nij
        n = _quad_roots(e1 * D2 - D1 * e2, -2.0 * (D1 - D2), e1 - e2, cand)
        cand[n] = amax
        n += 1
        best = 0.0
        alpha = 0.0
        for k in range(n):
            t = cand[k]
            if not (t > 0.0) or t > amax:
                continue
            q1 = 1.0 + e1 * t - D1 * t * t
            q2 = 1.0 + e2 * t - D2 * t * t
            if q1 <= 1e-10 or q2 <= 1e-10:
                continue
            # log(q1 / q2) through the difference q1 - q2 (no cancellation near the optimum)
            f = np.log1p(((e1 - e2) * t - (D1 - D2) * t * t) / q2)
            if f > best:
                best = f
                alpha = t
        if alpha <= 0.0:
            # no improving exchange along this pair: refresh once, else stop honestly
            return (STALLED if it == 0 else REFRESH), it
        # the rank-two Woodbury update M + alpha (x_i x_i^T - x_j x_j^T) of both inverses
        # and variances, from the pair terms above (the state has not changed since)
        s11, s12, s22 = rank2_core(fi, fj, fij, alpha, alpha)
        rank2_variance_update(X, om, ui, uj, s11, s12, s22)
        rank2_inverse_update(Minv, ui, uj, s11, s12, s22)
        if m > 0:
            s11, s12, s22 = rank2_core(ni, nj, nij, alpha, alpha)
            rank2_variance_update(XN, nu, vi, vj, s11, s12, s22)
            rank2_inverse_update(Ninv, vi, vj, s11, s12, s22)
        w[i] = min(w[i] + alpha, cap[i])
        if alpha >= w[j]:
            w[j] = 0.0
        else:
            w[j] -= alpha
        it += 1
        if it >= refresh:
            return REFRESH, it


def _variances(X: np.ndarray, w: np.ndarray, M0: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray] | None:
    """Exact ``M^{-1}``, ``M = M0 + sum_a w_a x_a x_a^T``, and the variances
    ``om_a = x_a^T M^{-1} x_a`` (``d = 0`` allowed: zeros); None if not numerically PD."""
    Minv = inverse_info(X, w, M0)
    if Minv is None:
        return None
    return Minv, np.einsum("ij,ij->i", X @ Minv, X)


def ds_solve(X: np.ndarray, XN: np.ndarray, w: np.ndarray, M0: np.ndarray, M0N: np.ndarray,
             cap: np.ndarray, kkt: bool, s: int, tol: float, max_iter: int, refresh: int
             ) -> tuple[int, int]:
    """Vertex-exchange solver of the Ds-optimal design from the PD start ``w``.

    ``XN`` holds the nuisance columns of ``X`` (none: the D-optimal design), ``M0``/``M0N``
    the information already there, ``cap`` the weight caps. The directional derivative is
    ``d_a = omega_a - nu_a`` (full minus nuisance variance; ``max_a d_a = s`` at the
    unconstrained optimum). For the exchange ``j -> i`` both determinant ratios are
    quadratics, ``q(alpha) = 1 + e alpha - D alpha^2``, so ``log q_full - log q_nuis`` has its
    stationary points at the roots of
    ``(e - e') - 2 (D - D') alpha + (e D' - D e') alpha^2``. Stops when
    ``max_a d_a <= s (1 + tol)`` (``kkt``: ``max_{w_a < cap_a} d_a <= (1 + tol)
    min_{w_a > 0} d_a``) on an exact refresh. The steps are jitted (:func:`ds_steps`),
    the exact refresh of both inverses and variances every ``refresh`` steps is LAPACK
    (as :func:`linear_solve`). Returns ``(status, iterations)``.
    """
    from design._gd_batch import blas_threads

    it = 0
    with blas_threads(1):  # as linear_solve
        while True:
            full = _variances(X, w, M0)
            nuis = _variances(XN, w, M0N)
            if full is None or nuis is None:
                return SINGULAR, it
            status, steps = ds_steps(X, XN, w, full[0], full[1], nuis[0], nuis[1], cap,
                                     bool(kkt), int(s), tol, max_iter - it, refresh)
            it += steps
            if status != REFRESH:
                return status, it
