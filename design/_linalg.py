"""Small jitted linear-algebra kernels shared by the solvers and the bandit estimators.

Compile time (issue 16): these kernels are written as plain loops over preallocated
arrays. An array assignment such as ``M[:, :] = A @ B`` makes numba compile its
shape-mismatch error message (string formatting, about 2.5 s of CPU in a fresh process)
and ``@`` its BLAS glue (about 0.5 s); :func:`inverse_from_factor` does the work of the
first without either. Integer arguments are passed as
``int64`` values, never as literals (a literal such as ``0`` makes numba compile a second
specialisation of the callee). Only jitted code calls them, so they are compiled without
numba's Python and C wrappers (:func:`design._jit.inner`).
"""

from __future__ import annotations

import numpy as np

from design._jit import inner


@inner
def cholesky_lower(M: np.ndarray, L: np.ndarray, pivot_rtol: float = 0.0) -> bool:
    """Write the lower Cholesky factor of the symmetric matrix ``M`` into ``L``.

    Returns False, instead of raising inside jitted code, when ``M`` is not numerically
    positive definite: a pivot ``<= pivot_rtol * |M_jj|`` (or ``<= 1e-300`` when
    ``pivot_rtol`` is 0). Jitted callers pass ``pivot_rtol`` explicitly (an omitted
    argument is another type: numba would compile a second specialisation).
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


@inner
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


@inner(inline="always")
def info_matrix(X: np.ndarray, w: np.ndarray, M: np.ndarray) -> None:
    """``M = sum_a w_a x_a x_a^T`` (only arms with ``w_a != 0`` are visited; lower triangle
    accumulated, then mirrored)."""
    K, d = X.shape
    for i in range(d):
        for j in range(d):
            M[i, j] = 0.0
    for a in range(K):
        wa = w[a]
        if wa != 0.0:
            for i in range(d):
                xi = wa * X[a, i]
                for j in range(i + 1):
                    M[i, j] += xi * X[a, j]
    for i in range(d):
        for j in range(i):
            M[j, i] = M[i, j]


@inner
def inverse_from_factor(Linv: np.ndarray, Minv: np.ndarray) -> None:
    """``Minv = Linv^T Linv`` for the lower-triangular ``Linv = L^{-1}`` (so ``Minv = M^{-1}``
    when ``M = L L^T``): ``Minv_ij = sum_{k >= max(i, j)} Linv_ki Linv_kj``."""
    d = Linv.shape[0]
    for i in range(d):
        for j in range(i + 1):
            s = 0.0
            for k in range(i, d):
                s += Linv[k, i] * Linv[k, j]
            Minv[i, j] = s
            Minv[j, i] = s


@inner
def mv_into(A: np.ndarray, x: np.ndarray, out: np.ndarray) -> None:
    """``out = A @ x`` as a plain loop (see :func:`mv`), into a preallocated vector."""
    n, m = A.shape
    for r in range(n):
        s = 0.0
        for c in range(m):
            s += A[r, c] * x[c]
        out[r] = s


@inner
def mv(A: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``A @ x`` as a plain loop: small matrix-vector products inside the kernels must not
    go through a multithreaded BLAS call (its thread wake-ups dominate, 20-40x slower on a
    loaded machine)."""
    out = np.empty(A.shape[0])
    mv_into(A, x, out)
    return out


@inner(inline="always")
def inverse_spd(M: np.ndarray, Minv: np.ndarray) -> bool:
    """``Minv = M^{-1}`` through the Cholesky factor; False if ``M`` is not PD."""
    d = M.shape[0]
    if d == 0:
        return True
    L = np.empty((d, d))  # cholesky_lower writes every entry (np.zeros: one more kernel)
    if not cholesky_lower(M, L, 0.0):  # pivot_rtol always a float: one specialisation
        return False
    Linv = np.empty((d, d))
    lower_inverse(L, Linv)
    inverse_from_factor(Linv, Minv)
    return True


@inner
def rowwise_dot(A: np.ndarray, B: np.ndarray, out: np.ndarray) -> None:
    """``out[a] = sum_r A[a, r] B[a, r]`` (e.g. the variances ``x_a^T M^{-1} x_a`` from
    ``A = X M^{-1}``, ``B = X``)."""
    K, d = A.shape
    for a in range(K):
        s = 0.0
        for r in range(d):
            s += A[a, r] * B[a, r]
        out[a] = s


@inner(inline="always")
def trace_product(L: np.ndarray, Minv: np.ndarray) -> float:
    """``tr(L M^{-1})`` for symmetric ``L`` and ``M^{-1}``."""
    d = L.shape[0]
    phi = 0.0
    for r in range(d):
        for c in range(d):
            phi += L[r, c] * Minv[c, r]
    return phi


@inner(inline="always")
def pair_terms(X: np.ndarray, Minv: np.ndarray, i: int, j: int
               ) -> tuple[np.ndarray, np.ndarray, float, float, float]:
    """``u_i = M^{-1} x_i``, ``u_j``, and ``omega_i, omega_j, omega_ij`` (the entries of
    ``U^T M^{-1} U`` for ``U = [x_i, x_j]``)."""
    d = X.shape[1]
    ui = mv(Minv, X[i])
    uj = mv(Minv, X[j])
    om_i = 0.0
    om_j = 0.0
    om_ij = 0.0
    for r in range(d):
        om_i += X[i, r] * ui[r]
        om_j += X[j, r] * uj[r]
        om_ij += X[i, r] * uj[r]
    return ui, uj, om_i, om_j, om_ij


@inner(inline="always")
def rank2_core(om_i: float, om_j: float, om_ij: float, alpha: float, beta: float
               ) -> tuple[float, float, float]:
    """The 2x2 Woodbury core ``S = (C^{-1} + U^T M^{-1} U)^{-1}`` of the change
    ``M + U C U^T``, ``U = [x_i, x_j]``, ``C = diag(alpha, -beta)`` (``alpha, beta > 0``):
    returns ``(s11, s12, s22)``; then ``(M + U C U^T)^{-1} = M^{-1} - V S V^T`` with
    ``V = M^{-1} U``."""
    p11 = 1.0 / alpha + om_i
    p22 = -1.0 / beta + om_j
    p12 = om_ij
    det = p11 * p22 - p12 * p12
    return p22 / det, -p12 / det, p11 / det


@inner(inline="always")
def rank2_inverse_update(Minv: np.ndarray, ui: np.ndarray, uj: np.ndarray, s11: float,
                         s12: float, s22: float) -> None:
    """``M^{-1} <- M^{-1} - V S V^T``, ``V = [u_i, u_j]``, ``S = [[s11, s12], [s12, s22]]``."""
    d = Minv.shape[0]
    for r in range(d):
        a1 = s11 * ui[r] + s12 * uj[r]
        a2 = s12 * ui[r] + s22 * uj[r]
        for c in range(d):
            Minv[r, c] -= a1 * ui[c] + a2 * uj[c]


@inner
def rank2_variance_update(X: np.ndarray, om: np.ndarray, ui: np.ndarray, uj: np.ndarray,
                          s11: float, s12: float, s22: float) -> None:
    """``om_a <- om_a - h_a^T S h_a``, ``h_a = (x_a^T u_i, x_a^T u_j)``: the variances
    ``x_a^T M^{-1} x_a`` after the rank-two change, for every row of ``X``."""
    K, d = X.shape
    for a in range(K):
        gi = 0.0
        gj = 0.0
        for r in range(d):
            gi += X[a, r] * ui[r]
            gj += X[a, r] * uj[r]
        om[a] -= s11 * gi * gi + 2.0 * s12 * gi * gj + s22 * gj * gj


@inner
def rank1_update(X: np.ndarray, Minv: np.ndarray, om: np.ndarray, u: np.ndarray, s: float,
                 om_k: float) -> None:
    """Sherman–Morrison for ``M + s x x^T`` with ``u = M^{-1} x``, ``om_k = x^T u``:
    update ``M^{-1}`` and the variances ``om`` of every row of ``X``."""
    K, d = X.shape
    cst = s / (1.0 + s * om_k)
    for a in range(K):
        t = 0.0
        for r in range(d):
            t += X[a, r] * u[r]
        om[a] -= cst * t * t
    for r in range(d):
        for c in range(d):
            Minv[r, c] -= cst * u[r] * u[c]


@inner
def woodbury_pair(X: np.ndarray, Minv: np.ndarray, om: np.ndarray, i: int, j: int,
                  alpha: float, beta: float) -> None:
    """``M <- M + alpha x_i x_i^T - beta x_j x_j^T``: update ``M^{-1}`` and all variances.

    Rank-two Woodbury; ``beta = 0`` (or ``alpha = 0``) is a Sherman–Morrison update.
    The caller guarantees the updated matrix is PD. ``O(K d + d^2)``.
    """
    d = X.shape[1]
    if d == 0:
        return
    ui, uj, om_i, om_j, om_ij = pair_terms(X, Minv, i, j)
    if beta == 0.0:
        rank1_update(X, Minv, om, ui, alpha, om_i)
        return
    if alpha == 0.0:
        rank1_update(X, Minv, om, uj, -beta, om_j)
        return
    s11, s12, s22 = rank2_core(om_i, om_j, om_ij, alpha, beta)
    rank2_variance_update(X, om, ui, uj, s11, s12, s22)
    rank2_inverse_update(Minv, ui, uj, s11, s12, s22)


@inner(inline="always")
def linear_rank2_update(X: np.ndarray, Minv: np.ndarray, ui: np.ndarray, uj: np.ndarray,
                        Lui: np.ndarray, Luj: np.ndarray, b_ii: float, b_jj: float,
                        b_ij: float, s11: float, s12: float, s22: float, g: np.ndarray,
                        om: np.ndarray, with_variances: bool) -> None:
    """The rank-two change for the linear criteria ``tr(L M^{-1})``: update
    ``g_x = x^T M^{-1} L M^{-1} x`` (and, with ``with_variances``, ``om_x``) for every row,
    then ``M^{-1}``.

    With ``V = [u_i, u_j]``, ``h_x = V^T x``, ``q_x = (M^{-1} L V)^T x`` and
    ``B = V^T L V = [[b_ii, b_ij], [b_ij, b_jj]]``: ``g'_x = g_x - 2 q_x^T S h_x +
    h_x^T S B S h_x`` and ``om'_x = om_x - h_x^T S h_x``.
    """
    K, d = X.shape
    qi = mv(Minv, Lui)
    qj = mv(Minv, Luj)
    # T = S B S
    t11a = s11 * b_ii + s12 * b_ij
    t12a = s11 * b_ij + s12 * b_jj
    t21a = s12 * b_ii + s22 * b_ij
    t22a = s12 * b_ij + s22 * b_jj
    T11 = t11a * s11 + t12a * s12
    T12 = t11a * s12 + t12a * s22
    T22 = t21a * s12 + t22a * s22
    for x in range(K):
        h1 = 0.0
        h2 = 0.0
        q1 = 0.0
        q2 = 0.0
        for r in range(d):
            xr = X[x, r]
            h1 += xr * ui[r]
            h2 += xr * uj[r]
            q1 += xr * qi[r]
            q2 += xr * qj[r]
        sh1 = s11 * h1 + s12 * h2
        sh2 = s12 * h1 + s22 * h2
        if with_variances:
            om[x] -= h1 * sh1 + h2 * sh2
        g[x] += -2.0 * (q1 * sh1 + q2 * sh2) + T11 * h1 * h1 + 2.0 * T12 * h1 * h2 + T22 * h2 * h2
    rank2_inverse_update(Minv, ui, uj, s11, s12, s22)


@inner(inline="always")
def linear_pair_terms(L: np.ndarray, ui: np.ndarray, uj: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray, float, float, float]:
    """``L u_i``, ``L u_j`` and ``b_ii = u_i^T L u_i``, ``b_jj``, ``b_ij = u_i^T L u_j``."""
    d = L.shape[0]
    Lui = mv(L, ui)
    Luj = mv(L, uj)
    b_ii = 0.0
    b_jj = 0.0
    b_ij = 0.0
    for r in range(d):
        b_ii += ui[r] * Lui[r]
        b_jj += uj[r] * Luj[r]
        b_ij += ui[r] * Luj[r]
    return Lui, Luj, b_ii, b_jj, b_ij
