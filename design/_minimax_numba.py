"""Jitted kernels of the weighted minimax (XY / transductive / H-optimal) design solver.

The validated Python API is :mod:`design.minimax`; the working-set driver is
:mod:`design._minimax_solver`. Notation used throughout:

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
# ``design._linalg`` Cholesky is inlined at numba's IR level into ``_spd_factor`` (the one
# Cholesky of ``primal_dual``) and into ``inverse_factor`` (the barrier kernel's, and the
# reference solvers'), the same Python functions under an inlining dispatcher (one
# implementation). Not into ``primal_dual`` itself: numba copies the caller's IR per
# inlined call, and a dozen inlined helpers took it from 1.9 s to 6.7 s.
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


@njit(cache=True, error_model="numpy")
def forward_rows(L: np.ndarray, Y: np.ndarray, T: np.ndarray) -> None:
    """``T_j = L^{-1} y_j`` for every row of ``Y`` (forward substitution, ``L`` lower
    triangular), so that ``y_i^T A^{-1} y_j = T_i . T_j`` when ``A = L L^T``."""
    m, d = Y.shape
    for j in range(m):
        for i in range(d):
            t = Y[j, i]
            for p in range(i):
                t -= L[i, p] * T[j, p]
            T[j, i] = t / L[i, i]


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
# full passes over implicit pairwise-difference targets  y = x_i - x_j  (i < j)
# ----------------------------------------------------------------------------------------


@njit(cache=True, inline="always", error_model="numpy")
def _heap_push(hv: np.ndarray, hi: np.ndarray, hj: np.ndarray, n: int, cap: int,
               val: float, i: int, j: int) -> int:
    """Keep the ``cap`` largest values in a binary min-heap; returns the new size."""
    if n < cap:
        pos = n
        n += 1
    else:
        if val <= hv[0]:
            return n
        # replace the root and sift down
        pos = 0
        while True:
            c = 2 * pos + 1
            if c >= n:
                break
            if c + 1 < n and hv[c + 1] < hv[c]:
                c += 1
            if hv[c] >= val:
                break
            hv[pos] = hv[c]
            hi[pos] = hi[c]
            hj[pos] = hj[c]
            pos = c
        hv[pos] = val
        hi[pos] = i
        hj[pos] = j
        return n
    # sift up
    while pos > 0:
        par = (pos - 1) // 2
        if hv[par] <= val:
            break
        hv[pos] = hv[par]
        hi[pos] = hi[par]
        hj[pos] = hj[par]
        pos = par
    hv[pos] = val
    hi[pos] = i
    hj[pos] = j
    return n


@njit(cache=True, error_model="numpy")
def pair_scan(P: np.ndarray, scale: float, cap: int, keep_above: float
              ) -> tuple[float, int, int, np.ndarray, np.ndarray, np.ndarray, int]:
    """Values ``scale * ||P_i - P_j||^2`` of all pairs ``i < j`` without materialising them.

    With ``P = X Linv^T`` this is ``scale * (x_i - x_j)^T A^{-1} (x_i - x_j)``: O(K^2 d) time,
    O(K d + cap) memory. Returns the maximum with its pair, and the ``cap`` largest values
    above ``keep_above`` (unsorted) as ``(vals, I, J, n)``.
    """
    K, d = P.shape
    hv = np.empty(cap)
    hi = np.empty(cap, dtype=np.int64)
    hj = np.empty(cap, dtype=np.int64)
    n = np.int64(0)  # not a literal: _heap_push would be compiled twice (issue 16)
    vmax = -1.0
    imax = 0
    jmax = 1
    for i in range(K):
        for j in range(i + 1, K):
            s = 0.0
            for p in range(d):
                t = P[i, p] - P[j, p]
                s += t * t
            s *= scale
            if s > vmax:
                vmax = s
                imax = i
                jmax = j
            if s > keep_above and cap > 0:
                n = _heap_push(hv, hi, hj, n, cap, s, i, j)
    return vmax, imax, jmax, hv, hi, hj, n


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
# primal-dual interior-point method (Mehrotra predictor-corrector)
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
    ``W``, with ``shift = 1e-14 max_a M_aa`` multiplied by 100 after each attempt. The one
    Cholesky of the interior-point kernels: information matrices (``retries = 0``) and
    Newton matrices share its compiled code (issue 16).
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


@inner(error_model="numpy")
def _pd_direction(Lh: np.ndarray, Q: np.ndarray, lam: np.ndarray, s: np.ndarray,
                  u: np.ndarray, nu: np.ndarray, cl: np.ndarray, cs: np.ndarray,
                  rhs: np.ndarray, dl: np.ndarray, ds: np.ndarray, du: np.ndarray,
                  dn: np.ndarray, frac: float) -> tuple[float, float]:
    """One Newton direction of :func:`primal_dual` and its largest steps.

    With the centring terms ``cl_a`` (pairs ``nu_a lam_a``) and ``cs_j`` (pairs
    ``u_j s_j``) -- zero for the predictor, ``sigma - dlam_aff dnu_aff`` for the corrector --
    solves ``M dlam = -1 + cl / lam + Q^T (cs / s)`` (``M = Lh Lh^T``), then
    ``ds = Q dlam``, ``du = (cs - u s - u ds) / s``, ``dnu = (cl - nu lam - nu dlam) / lam``,
    and returns the primal and dual step lengths ``min(1, frac * distance to the
    boundary)``. One kernel for both directions, called at one site: compiled once, without
    numba's wrappers (``inner``: fourteen arguments, 0.29 s instead of 0.47 s; issue 16).
    """
    m, k = Q.shape
    for a in range(k):
        rhs[a] = -1.0 + cl[a] / lam[a]
    for j in range(m):
        t = cs[j] / s[j]
        for a in range(k):
            rhs[a] += Q[j, a] * t
    _chol_solve(Lh, rhs, dl)
    ap = 1.0
    ad = 1.0
    for j in range(m):
        t = 0.0
        for a in range(k):
            t += Q[j, a] * dl[a]
        ds[j] = t
        du[j] = (cs[j] - u[j] * s[j] - u[j] * t) / s[j]
        if t < 0.0:
            r = -frac * s[j] / t
            if r < ap:
                ap = r
        if du[j] < 0.0:
            r = -frac * u[j] / du[j]
            if r < ad:
                ad = r
    for a in range(k):
        dn[a] = (cl[a] - nu[a] * lam[a] - nu[a] * dl[a]) / lam[a]
        if dl[a] < 0.0:
            r = -frac * lam[a] / dl[a]
            if r < ap:
                ap = r
        if dn[a] < 0.0:
            r = -frac * nu[a] / dn[a]
            if r < ad:
                ad = r
    return ap, ad


@njit(cache=True, error_model="numpy")
def primal_dual(X: np.ndarray, Y: np.ndarray, lam: np.ndarray, u: np.ndarray,
                nu: np.ndarray, tol: float, max_iter: int, gamma: float = 1e-3
                ) -> tuple[int, int, float, float]:
    """Primal-dual interior-point method for ``min sum(lam) s.t. v_j(lam) <= 1, lam >= 0``.

    Perturbed KKT system (``s_j = 1 - v_j(lam) > 0`` kept exactly, duals ``u, nu > 0``)::

        1 - sum_j u_j q_j - nu = 0,   u_j s_j = sigma,   nu_a lam_a = sigma,

    with ``q_ja = z_ja^2 = -d v_j / d lam_a``. Eliminating ``du, dnu`` leaves the
    ``k x k`` system ``M dlam = -1 + sum_j q_j sigma'_j / s_j + sigma'_a / lam_a``,
    ``M = 2 G o (Z^T diag(u) Z) + Q^T diag(u / s) Q + diag(nu / lam)``; Mehrotra's
    predictor-corrector chooses ``sigma``. Primal steps keep ``lam > 0`` and the *exact*
    ``s > 0`` (backtracking), dual steps use the fraction-to-boundary rule.

    Unlike the pure barrier, the multipliers ``u`` are iterated, so that the stationarity
    residual is driven to zero and ``mu = u / sum(u)`` gives a tight Cauchy–Schwarz
    certificate even when many more targets than arms are active. Stops when the restricted
    certificate has relative gap ``<= tol``. ``lam`` (strictly feasible), ``u`` (> 0) and
    ``nu`` (> 0) are updated in place. Returns ``(status, iterations, value, lb)``.
    """
    k, d = X.shape
    m = Y.shape[0]
    A = np.empty((d, d))
    L = np.empty((d, d))
    Lt = np.empty((d, d))
    T = np.empty((m, d))
    Tt = np.empty((m, d))
    R = np.empty((k, d))
    RT = np.empty((d, k))
    Bw = np.empty((d, d))
    pb = np.empty(d)
    Q = np.empty((m, k))
    Z = np.empty((m, k))
    s = np.empty(m)
    lam_t = np.empty(k)
    H = np.empty((k, k))
    H2 = np.empty((k, k))
    Lh = np.empty((k, k))
    rhs = np.empty(k)
    # directions: row 0 the predictor's (affine), row 1 the corrector's
    DL = np.empty((2, k))
    DS = np.empty((2, m))
    DU = np.empty((2, m))
    DN = np.empty((2, k))
    dl_aff, ds_aff, du_aff, dn_aff = DL[0], DS[0], DU[0], DN[0]
    dl, du, dn = DL[1], DU[1], DN[1]
    cl = np.empty(k)
    cs = np.empty(m)
    value = np.inf
    lb = 0.0
    it = 0
    floor = 0.0
    status = MAX_ITER
    no_retry = np.int64(0)  # not literals: one specialisation of _spd_factor (issue 16)
    newton_retries = np.int64(12)
    info_matrix(X, lam, A)
    if not _spd_factor(A, L, A, no_retry):
        return SINGULAR, 0, value, lb
    forward_rows(L, Y, T)
    # Everything is computed in the basis whitened by the Cholesky factor ``A = L L^T``
    # (no inverse is formed): with ``t_j = L^{-1} y_j`` and ``r_a = L^{-1} x_a``,
    # ``v_j = |t_j|^2``, ``z_ja = t_j . r_a``, ``G_ab = r_a . r_b`` and, with
    # ``Bw = sum_j u_j t_j t_j^T``, ``C_ab = sum_j u_j z_ja z_jb = r_a^T Bw r_b`` (rank <= d:
    # ``O(m d^2 + k^2 d)`` instead of ``O(m k^2)``). Compile time (issue 16): every loop
    # costs about 25 ms of CPU to compile, so the passes are fused, and no BLAS product
    # is used (its glue is compiled code).
    while True:
        forward_rows(L, X, R)
        for a in range(k):
            for i in range(d):
                RT[i, a] = R[a, i]
        for i in range(d):
            for i2 in range(d):
                Bw[i, i2] = 0.0
        # one pass over the targets: v_j, s_j = 1 - v_j, z_ja (axpy form: the inner loop
        # runs over arms, vectorised), q_ja = z_ja^2, Bw, the complementarity, the terms
        # of the certificate, and the predictor's zero centring terms
        stalled = False
        comp = 0.0
        su = 0.0
        tr = 0.0
        vmax = 0.0
        for j in range(m):
            vj = 0.0
            for i in range(d):
                vj += T[j, i] * T[j, i]
            s[j] = 1.0 - vj
            # near the rounding level the recomputed slacks (or weights) can reach 0
            # although the line search kept them positive: stop (the caller certifies
            # the last iterate) instead of dividing by zero
            if not s[j] > 0.0 or not u[j] > 0.0:
                stalled = True
            comp += u[j] * s[j]
            su += u[j]
            tr += u[j] * vj
            if vj > vmax:
                vmax = vj
            cs[j] = 0.0
            for a in range(k):
                Z[j, a] = 0.0
            for i in range(d):
                tji = T[j, i]
                for a in range(k):
                    Z[j, a] += tji * RT[i, a]
                t = u[j] * tji
                for i2 in range(d):
                    Bw[i, i2] += t * T[j, i2]
            for a in range(k):
                Q[j, a] = Z[j, a] * Z[j, a]
        sl = 0.0
        for a in range(k):
            if not lam[a] > 0.0 or not nu[a] > 0.0:
                stalled = True
            comp += nu[a] * lam[a]
            sl += lam[a]
            cl[a] = 0.0
        if stalled:
            status = STALLED
            break
        # Newton matrix, lower triangle (all the Cholesky reads):
        # H = 2 G o C + D + diag(nu / lam), D = Q^T diag(u / s) Q (below); on the way
        # g_a = sum_j u_j z_ja^2 = C_aa, the denominator of the certificate
        gmax = 0.0
        for a in range(k):
            for i in range(d):
                t = 0.0
                for i2 in range(d):
                    t += Bw[i, i2] * R[a, i2]
                pb[i] = t
            for b in range(a + 1):
                g = 0.0
                c = 0.0
                for i in range(d):
                    g += R[a, i] * R[b, i]
                    c += pb[i] * R[b, i]
                H[a, b] = 2.0 * g * c
                if b == a and c > gmax:
                    gmax = c
            H[a, a] += nu[a] / lam[a]
        # certificate of the restricted problem (restricted_certificate): value
        # sum(lam) max_j v_j, bound (sum_j mu_j v_j)^2 / max_a sum_j mu_j z_ja^2, mu = u/sum(u)
        value = vmax * sl
        lb = (tr / su) * (tr / su) / (gmax / su) if su > 0.0 and gmax > 0.0 else 0.0
        if lb > 0.0 and value <= lb * (1.0 + tol):
            status = CONVERGED
            break
        if it >= max_iter:
            status = MAX_ITER
            break
        for j in range(m):
            wj = u[j] / s[j]
            for a in range(k):
                t = wj * Q[j, a]
                for b in range(a + 1):
                    H[a, b] += t * Q[j, b]
        if not _spd_factor(H, Lh, H2, newton_retries):
            status = SINGULAR
            break
        if not comp > 0.0:
            status = STALLED
            break
        mu_c = comp / (m + k)
        # predictor (phase 0: sigma = 0, no centring terms), then the corrector (phase 1:
        # Mehrotra's sigma and second-order terms)
        frac = 1.0
        ap = 1.0
        ad = 1.0
        for phase in range(2):
            ap, ad = _pd_direction(Lh, Q, lam, s, u, nu, cl, cs, rhs, DL[phase], DS[phase],
                                   DU[phase], DN[phase], frac)
            if phase == 1:
                break
            comp_aff = 0.0
            for j in range(m):
                comp_aff += (u[j] + ad * du_aff[j]) * (s[j] + ap * ds_aff[j])
            for a in range(k):
                comp_aff += (nu[a] + ad * dn_aff[a]) * (lam[a] + ap * dl_aff[a])
            ratio = comp_aff / comp
            sigma = ratio * ratio * ratio * mu_c
            if sigma < floor * mu_c:
                # after a short step (curvature of v), favour centring
                sigma = floor * mu_c
            for a in range(k):
                cl[a] = sigma - dl_aff[a] * dn_aff[a]
            for j in range(m):
                cs[j] = sigma - ds_aff[j] * du_aff[j]
            frac = 0.995
        # exact feasibility of the primal step (v is convex: s may fall below its
        # linearisation), and stay in the wide neighbourhood
        # min_i (dual_i slack_i) >= gamma * average
        ok = False
        for _ in range(60):
            for a in range(k):
                lam_t[a] = lam[a] + ap * dl[a]
            info_matrix(X, lam_t, A)
            if _spd_factor(A, Lt, A, no_retry):
                forward_rows(Lt, Y, Tt)  # v_j at the trial point: |Tt_j|^2
                ok = True
                pmin = np.inf
                psum = 0.0
                for j in range(m):
                    vt = 0.0
                    for i in range(d):
                        vt += Tt[j, i] * Tt[j, i]
                    st = 1.0 - vt
                    if not st > 0.0:
                        ok = False
                        break
                    p = (u[j] + ad * du[j]) * st
                    psum += p
                    if p < pmin:
                        pmin = p
                if ok:
                    for a in range(k):
                        p = (nu[a] + ad * dn[a]) * lam_t[a]
                        psum += p
                        if p < pmin:
                            pmin = p
                    ok = pmin >= gamma * psum / (m + k)
                    if ok:
                        break
            ap *= 0.5
            ad *= 0.5
        it += 1
        if not ok:
            status = STALLED
            break
        floor = 0.0 if ap > 0.2 else (0.1 if ap > 0.05 else 0.5)
        for a in range(k):
            lam[a] = lam_t[a]
            nu[a] += ad * dn[a]
        for j in range(m):
            u[j] += ad * du[j]
        L, Lt = Lt, L  # the factor and whitened targets at the accepted point
        T, Tt = Tt, T
    return status, it, value, lb
