"""Jitted kernels of the weighted minimax (XY / transductive / H-optimal) design solver.

The validated Python API is :mod:`design.minimax`; the working-set driver and the default
primal-dual method (numpy/LAPACK) are in :mod:`design._minimax_solver`; here: the
log-barrier kernel (``method="barrier"``) and the factor of the reference solvers. Notation
used throughout:

* ``X`` (k, d): measurement rows (arms), ``lam`` (k,) positive weights, **not** normalised:
  the barrier solver works on the homogeneous form of the problem (see below);
* ``Y`` (m, d): targets, already multiplied by ``sqrt(c_j)``, so that the criterion is
  ``v_j(lam) = y_j^T A(lam)^{-1} y_j`` with ``A(lam) = sum_a lam_a x_a x_a^T``;
* ``z_ja = y_j^T A^{-1} x_a`` and ``G_ab = x_a^T A^{-1} x_b``, so that
  ``d v_j / d lam_a = -z_ja^2`` and ``d^2 v_j / d lam_a d lam_b = 2 z_ja z_jb G_ab``.

Homogeneous form. ``v_j(s lam) = v_j(lam) / s``, hence
``min_{lam in simplex} max_j v_j(lam) = min { sum_a lam_a : lam >= 0, v_j(lam) <= 1 for all j }``
(a linear objective with convex constraints) and a feasible ``lam`` of this problem is the
design ``lam / sum(lam)`` with criterion value ``max_j v_j(lam) * sum(lam)``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from design._jit import inner
from design._linalg import (
    cholesky_lower,
    info_matrix,
    lower_inverse,
)
from design._status import CENTRED, CONVERGED, MAX_ITER, SINGULAR, STALLED  # noqa: F401  (outcome codes)

# ----------------------------------------------------------------------------------------
# small dense linear algebra (allocation-free where it matters)
# ----------------------------------------------------------------------------------------


#: a Cholesky pivot counts as non-positive below ``PIVOT_RTOL * A_jj`` (numerically singular)
PIVOT_RTOL = 1e-14

# Compile time (issue 16). A kernel that calls an ordinary ``@njit`` function links the
# callee's compiled module into its own, and LLVM optimises and emits the callee's code
# again inside every caller (a three-line kernel calling ``inverse_factor`` compiles in
# 0.20 s of CPU, without the call in 0.05 s), on top of the callee's own compilation; and
# each loop costs about 25 ms. So the kernels here are few and share their helpers: the
# ``design._linalg`` Cholesky is inlined at numba's IR level into ``_spd_factor`` and
# into ``inverse_factor`` (the barrier kernel's, and the reference solvers'), the same
# Python functions under an inlining dispatcher (one implementation). The default
# primal-dual method is not here: it is numpy/LAPACK
# (:func:`design._minimax_solver.primal_dual`; as a kernel it cost 2.5-3 s of CPU to
# compile on the first XY/H design of a process).
_cholesky = njit(inline="always", error_model="numpy")(cholesky_lower.py_func)
_info_matrix = njit(inline="always", error_model="numpy")(info_matrix.py_func)
_lower_inverse = njit(inline="always", error_model="numpy")(lower_inverse.py_func)


@njit(cache=True, error_model="numpy")
def inverse_factor(X: np.ndarray, lam: np.ndarray, Linv: np.ndarray) -> bool:
    """``Linv`` with ``A(lam)^{-1} = Linv^T Linv``; False if ``A(lam)`` is singular
    (a Cholesky pivot ``<= PIVOT_RTOL A_jj``). Jitted callers only; Python uses
    :func:`design._minimax_solver.factor`, the same test with LAPACK."""
    d = X.shape[1]
    A = np.empty((d, d))
    L = np.empty((d, d))
    _info_matrix(X, lam, A)
    if not _cholesky(A, L, PIVOT_RTOL):
        return False
    _lower_inverse(L, Linv)
    return True


@njit(cache=True, inline="always", error_model="numpy")
def target_values(Y: np.ndarray, Linv: np.ndarray, v: np.ndarray) -> None:
    """``v_j = ||Linv y_j||^2 = y_j^T A^{-1} y_j`` for every row of ``Y`` (a plain loop: a
    BLAS product is compiled glue, issue 16)."""
    m, d = Y.shape
    for j in range(m):
        s = 0.0
        for i in range(d):
            t = 0.0
            for p in range(i + 1):  # Linv is lower triangular
                t += Linv[i, p] * Y[j, p]
            s += t * t
        v[j] = s


# ----------------------------------------------------------------------------------------
# log-barrier Newton method on the homogeneous restricted problem
# ----------------------------------------------------------------------------------------


@njit(cache=True, error_model="numpy")
def _values_at(X: np.ndarray, Y: np.ndarray, lam: np.ndarray, v: np.ndarray) -> bool:
    """``v_j = y_j^T A(lam)^{-1} y_j``; False if ``A(lam)`` is singular (jitted callers)."""
    d = X.shape[1]
    Linv = np.empty((d, d))
    if not inverse_factor(X, lam, Linv):
        return False
    target_values(Y, Linv, v)
    return True


@njit(cache=True, error_model="numpy")
def _barrier(lam: np.ndarray, v: np.ndarray, tau: float) -> float:
    f = 0.0
    for a in range(lam.shape[0]):
        f += tau * lam[a] - np.log(lam[a])
    for j in range(v.shape[0]):
        f -= np.log(1.0 - v[j])
    return f


@njit(cache=True, inline="always", error_model="numpy")
def restricted_certificate(lam: np.ndarray, v: np.ndarray, Z: np.ndarray, u: np.ndarray
                           ) -> tuple[float, float]:
    """Value and Cauchy–Schwarz lower bound of the restricted problem.

    ``value = sum(lam) * max_j v_j`` (the criterion at the normalised design) and, with the
    target measure ``mu = u / sum(u)``,
    ``lb = (sum_j mu_j v_j)^2 / max_a sum_j mu_j z_ja^2`` (scale-free in ``lam``).
    """
    m, k = Z.shape
    su = 0.0
    for j in range(m):
        su += u[j]
    tr = 0.0
    vmax = 0.0
    for j in range(m):
        tr += u[j] * v[j]
        if v[j] > vmax:
            vmax = v[j]
    gmax = 0.0
    for a in range(k):
        g = 0.0
        for j in range(m):
            g += u[j] * Z[j, a] * Z[j, a]
        if g > gmax:
            gmax = g
    sl = 0.0
    for a in range(k):
        sl += lam[a]
    value = vmax * sl
    if su <= 0.0 or gmax <= 0.0:
        return value, 0.0
    tr /= su
    gmax /= su
    return value, tr * tr / gmax


@njit(cache=True, error_model="numpy")
def barrier_newton(X: np.ndarray, Y: np.ndarray, lam: np.ndarray, tau: float, tol: float,
                   max_iter: int, u: np.ndarray, growth: float
                   ) -> tuple[int, int, float, float, float]:
    """Log-barrier Newton method for ``min sum(lam) s.t. v_j(lam) <= 1, lam > 0``.

    Minimises ``F(lam) = tau sum(lam) - sum_j log(1 - v_j(lam)) - sum_a log lam_a`` by damped
    Newton steps (backtracking Armijo search that keeps ``lam`` strictly feasible) and
    multiplies ``tau`` by ``growth`` whenever the Newton decrement says the point is
    centred. Gradient and Hessian (``s_j = 1 - v_j``, ``q_ja = z_ja^2``)::

        grad_a = tau - sum_j q_ja / s_j - 1 / lam_a
        H_ab   = 2 G_ab sum_j z_ja z_jb / s_j + sum_j q_ja q_jb / s_j^2 + delta_ab / lam_a^2

    On the central path the multipliers of the constraints are ``u_j = 1 / (tau s_j)``;
    ``mu = u / sum(u)`` is the target measure of the certificate, which is checked after
    every step: the kernel stops (CONVERGED) as soon as the restricted relative gap is
    ``<= tol``. These multipliers are accurate only if the iterate is centred in *every*
    direction; with many more active targets than support arms (e.g. Soare's instance)
    the Newton decrement is small while the stationarity residual is not, and the bound
    stalls near 1e-3. The kernel therefore also stops (CENTRED) at a centred point with
    ``(m + k) / tau <= tol sum(lam) / (1 + tol)`` (the classical barrier bound), leaving
    the certificate to the caller (an LP for ``mu``). ``tau <= 0`` on entry means: pick
    it by least-squares centring.

    ``lam`` (strictly feasible on entry) is updated in place and ``u`` receives ``mu``.
    Returns ``(status, iterations, tau, value, lower_bound)``.
    """
    k, d = X.shape
    m = Y.shape[0]
    XT = np.ascontiguousarray(X.T)
    Linv = np.empty((d, d))
    v = np.empty(m)
    vt = np.empty(m)
    lam_t = np.empty(k)
    ones = np.ones(k)
    sol1 = np.empty(k)
    solg = np.empty(k)
    Lh = np.empty((k, k))
    value = np.inf
    lb = 0.0
    it = 0
    if not inverse_factor(X, lam, Linv):
        return SINGULAR, 0, tau, value, lb
    status = MAX_ITER
    while True:
        Ainv = np.dot(Linv.T, Linv)
        W = np.dot(Y, Ainv)  # rows A^{-1} y_j
        for j in range(m):
            s = 0.0
            for i in range(d):
                s += W[j, i] * Y[j, i]
            v[j] = s
        Z = np.dot(W, XT)  # z_ja
        P = np.dot(X, Ainv)
        G = np.dot(P, XT)
        r = np.empty(m)
        stalled = False
        for j in range(m):
            if not v[j] < 1.0:  # rounding-level tolerances: a slack reached 0
                stalled = True
                break
            r[j] = 1.0 / (1.0 - v[j])
        if stalled:
            status = STALLED
            break
        Zr = np.empty((m, k))
        Qr = np.empty((m, k))
        g0 = np.zeros(k)
        for j in range(m):
            sr = np.sqrt(r[j])
            for a in range(k):
                z = Z[j, a]
                Zr[j, a] = z * sr
                q = z * z * r[j]
                Qr[j, a] = q
                g0[a] -= q
        for a in range(k):
            g0[a] -= 1.0 / lam[a]
        # certificate with the current multipliers u_j = 1 / (tau s_j) (up to scale)
        for j in range(m):
            u[j] = r[j]
        value, lb = restricted_certificate(lam, v, Z, u)
        if lb > 0.0 and value <= lb * (1.0 + tol):
            status = CONVERGED
            break
        if it >= max_iter:
            status = MAX_ITER
            break
        C = np.dot(Zr.T, Zr)
        D = np.dot(Qr.T, Qr)
        H = np.empty((k, k))
        for a in range(k):
            for b in range(k):
                H[a, b] = 2.0 * G[a, b] * C[a, b] + D[a, b]
            H[a, a] += 1.0 / (lam[a] * lam[a])
        if not _spd_factor(H, Lh, np.empty((k, k)), np.int64(12)):
            status = SINGULAR
            break
        _chol_solve(Lh, ones, sol1)
        _chol_solve(Lh, g0, solg)
        h1g = 0.0
        h11 = 0.0
        hgg = 0.0
        for a in range(k):
            h11 += sol1[a]
            h1g += solg[a]
            hgg += g0[a] * solg[a]
        if tau <= 0.0:
            tau = -h1g / h11 if h11 > 0.0 else 1.0
            if not tau > 0.0:
                s = 0.0
                for a in range(k):
                    s += lam[a]
                tau = (m + k) / s
        # Newton decrement^2 of F at the current tau: (tau 1 + g0)^T H^{-1} (tau 1 + g0)
        dec2 = tau * tau * h11 + 2.0 * tau * h1g + hgg
        if dec2 < 0.25:
            # centred: the barrier bound sum(lam) - opt <= (m + k) / tau holds (nearly)
            sl = 0.0
            for a in range(k):
                sl += lam[a]
            if (m + k) / tau <= tol / (1.0 + tol) * sl:
                status = CENTRED
                break
            while dec2 < 0.25:
                tau *= growth
                dec2 = tau * tau * h11 + 2.0 * tau * h1g + hgg
        step = np.empty(k)
        for a in range(k):
            step[a] = -(tau * sol1[a] + solg[a])
        # largest step keeping lam > 0
        amax = 1.0
        for a in range(k):
            if step[a] < 0.0:
                t = -0.99 * lam[a] / step[a]
                if t < amax:
                    amax = t
        f0 = _barrier(lam, v, tau)
        alpha = amax
        ok = False
        for _ in range(60):
            for a in range(k):
                lam_t[a] = lam[a] + alpha * step[a]
            if _values_at(X, Y, lam_t, vt):
                feas = True
                for j in range(m):
                    if not vt[j] < 1.0:
                        feas = False
                        break
                if feas and _barrier(lam_t, vt, tau) <= f0 - 0.25 * alpha * dec2:
                    ok = True
                    break
            alpha *= 0.5
        it += 1
        if not ok:
            status = STALLED
            break
        for a in range(k):
            lam[a] = lam_t[a]
        if not inverse_factor(X, lam, Linv):
            status = SINGULAR
            break
    # normalise the multipliers into the target measure mu
    su = 0.0
    for j in range(m):
        su += u[j]
    if su > 0.0:
        for j in range(m):
            u[j] /= su
    return status, it, tau, value, lb


# ----------------------------------------------------------------------------------------
# Newton-system helpers of the barrier kernel
# ----------------------------------------------------------------------------------------


@njit(cache=True, inline="always", error_model="numpy")
def _chol_solve(L: np.ndarray, b: np.ndarray, x: np.ndarray) -> None:
    """Solve ``L L^T x = b`` with a lower Cholesky factor."""
    n = L.shape[0]
    for i in range(n):
        s = b[i]
        for p in range(i):
            s -= L[i, p] * x[p]
        x[i] = s / L[i, i]
    for i in range(n - 1, -1, -1):
        s = x[i]
        for p in range(i + 1, n):
            s -= L[p, i] * x[p]
        x[i] = s / L[i, i]


@inner(error_model="numpy")
def _spd_factor(M: np.ndarray, L: np.ndarray, W: np.ndarray, retries: int) -> bool:
    """Lower Cholesky factor ``L`` of the symmetric ``M`` (its lower triangle is read);
    False if a pivot is ``<= PIVOT_RTOL M_jj`` (not numerically positive definite).

    With ``retries > 0`` (Newton matrices) a failure is retried on ``M + shift I``, built in
    ``W``, with ``shift = 1e-14 max_a M_aa`` multiplied by 100 after each attempt (the
    rule of :func:`design._minimax_solver._newton_factor`).
    """
    n = M.shape[0]
    F = M
    shift = 0.0
    for attempt in range(retries + 1):
        if attempt == 1:
            for a in range(n):
                if M[a, a] > shift:
                    shift = M[a, a]
                for b in range(a + 1):
                    W[a, b] = M[a, b]
            shift *= 1e-14
            F = W
        elif attempt > 1:
            shift *= 100.0
        if attempt > 0:
            for a in range(n):
                W[a, a] = M[a, a] + shift
        if _cholesky(F, L, PIVOT_RTOL):
            return True
    return False
