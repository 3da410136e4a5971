"""Jitted kernels of the G/D-optimal design solver.

Small, allocation-free numba functions over plain arrays; the validated Python API is in
:mod:`design.gd`. Notation: rows ``X[a]`` are arms, ``w`` the design weights,
``M(w) = sum_a w_a x_a x_a^T`` the information matrix, ``omega_a = x_a^T M(w)^{-1} x_a``
the variance function. Kiefer & Wolfowitz (1960): ``min_w max_a omega_a = d``.

First-call compile time (issue 16): the Python side calls only the two loops of
:func:`wolfe_atwood` and :func:`batch_exchange`; the exact refresh (:func:`exact_state`) and
the steps are inlined into the loop that runs them (one call site each), and the initial
support of Algorithm 4 is numpy (:func:`design._gd_batch.kumar_yildirim_support`, the same
floating-point arithmetic as the loops it replaced).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from design._jit import inner
from design._linalg import (
    cholesky_lower,
    info_matrix,
    inverse_from_factor,
    lower_inverse,
    mv_into,
    rank1_update,
    rank2_core,
    rank2_inverse_update,
    rank2_variance_update,
)
from design._status import CONVERGED, MAX_ITER, SINGULAR, STALLED  # noqa: F401  (outcome codes)


@inner(inline="always")
def exact_state(X: np.ndarray, w: np.ndarray, Minv: np.ndarray, omega: np.ndarray) -> bool:
    """Recompute ``M(w)^{-1}`` (Cholesky) and every variance from scratch.

    Returns False when ``M(w)`` is not numerically positive definite. Only the loops call
    it (on entry and at every refresh), so it is compiled without numba's Python wrapper.
    """
    d = X.shape[1]
    M = np.empty((d, d))
    info_matrix(X, w, M)
    L = np.empty((d, d))  # cholesky_lower writes every entry
    if not cholesky_lower(M, L, 0.0):  # pivot_rtol as a float: one specialisation
        return False
    Linv = np.empty((d, d))
    lower_inverse(L, Linv)
    inverse_from_factor(Linv, Minv)
    # the variances omega_a = ||Linv x_a||^2 (Linv lower triangular), a plain loop
    for a in range(X.shape[0]):
        s = 0.0
        for i in range(d):
            t = 0.0
            for p in range(i + 1):
                t += Linv[i, p] * X[a, p]
            s += t * t
        omega[a] = s
    return True


@inner(inline="always")
def rank_one_step(
    X: np.ndarray,
    w: np.ndarray,
    Minv: np.ndarray,
    omega: np.ndarray,
    k: int,
    tau: float,
    u: np.ndarray,
) -> None:
    """Apply ``w <- (1 - tau) w + tau e_k`` and update ``M^{-1}`` and all variances in O(Kd).

    ``(1 - tau) M + tau x_k x_k^T = (1 - tau)(M + s x_k x_k^T)`` with ``s = tau / (1 - tau)``:
    the Sherman–Morrison update :func:`design._linalg.rank1_update` with ``u = M^{-1} x_k``
    (``M'^{-1} = M^{-1} - c u u^T``, ``omega'_a = omega_a - c (x_a^T u)^2``,
    ``c = s / (1 + s omega_k)``), followed by a rescaling by ``1/(1 - tau)``. Plain loops
    (an in-place array expression such as ``omega *= scale`` compiles a ufunc loop of its
    own) and one call site (:func:`_away_loop`), where it is inlined.
    """
    K, d = X.shape
    uk = u[0]
    mv_into(Minv, X[k], uk)
    rank1_update(X, Minv, omega, uk, tau / (1.0 - tau), omega[k])
    scale = 1.0 / (1.0 - tau)
    shrink = 1.0 - tau
    for a in range(K):
        omega[a] *= scale
        w[a] *= shrink
    for r in range(d):
        for c in range(d):
            Minv[r, c] *= scale
    w[k] += tau


@njit(cache=True, inline="always")
def exchange_step(
    X: np.ndarray,
    w: np.ndarray,
    Minv: np.ndarray,
    omega: np.ndarray,
    i: int,
    j: int,
    u: np.ndarray,
) -> bool:
    """Move weight from arm ``j`` to arm ``i`` with the exact D-optimal line search.

    Vertex-exchange step (Böhning 1986; the exchange of Harman, Filová & Richtárik 2020):
    ``M(alpha) = M + alpha (x_i x_i^T - x_j x_j^T)`` has
    ``det M(alpha) / det M = 1 + alpha (omega_i - omega_j)
    - alpha^2 (omega_i omega_j - omega_ij^2)``
    with ``omega_ij = x_i^T M^{-1} x_j``, maximised at
    ``alpha* = (omega_i - omega_j) / (2 (omega_i omega_j - omega_ij^2))``, clipped to
    ``alpha <= w_j`` (which drops ``j``). ``M^{-1}`` and the variances follow by the
    rank-two Woodbury update of :mod:`design._linalg` (:func:`~design._linalg.rank2_core`,
    :func:`~design._linalg.rank2_variance_update`, :func:`~design._linalg.
    rank2_inverse_update`); ``u`` is ``(2, d)`` work space. Returns True when ``j`` was
    dropped.
    """
    d = X.shape[1]
    ui = u[0]
    uj = u[1]
    mv_into(Minv, X[i], ui)
    mv_into(Minv, X[j], uj)
    om_i = omega[i]
    om_j = omega[j]
    om_ij = 0.0
    for r in range(d):
        om_ij += X[i, r] * uj[r]
    alpha = _exchange_alpha(om_i, om_j, om_ij, w[j])
    dropped = alpha >= w[j]
    s11, s12, s22 = rank2_core(om_i, om_j, om_ij, alpha, alpha)
    rank2_variance_update(X, omega, ui, uj, s11, s12, s22)
    rank2_inverse_update(Minv, ui, uj, s11, s12, s22)
    w[i] += alpha
    if dropped:
        w[j] = 0.0
    else:
        w[j] -= alpha
    return dropped


@njit(cache=True, inline="always")
def _exchange_alpha(om_i: float, om_j: float, om_ij: float, w_j: float) -> float:
    """The exact log-det line search of a vertex exchange from ``j`` to ``i``:
    ``min(w_j, (omega_i - omega_j) / (2 (omega_i omega_j - omega_ij^2)))``."""
    den = 2.0 * (om_i * om_j - om_ij * om_ij)
    alpha = w_j
    if den > 0.0:
        cut = (om_i - om_j) / den
        if cut < alpha:  # min(alpha, cut) without the builtin's glue
            alpha = cut
    return alpha


def wolfe_atwood(
    X: np.ndarray,
    w: np.ndarray,
    Minv: np.ndarray,
    omega: np.ndarray,
    tol: float,
    max_iter: int,
    refresh: int,
    pairwise: bool,
) -> tuple[int, int]:
    """Wolfe–Atwood (Fedorov–Wynn with away and drop steps) for the D/G-optimal design.

    Each iteration compares the toward candidate ``i = argmax_a omega_a`` (gain
    ``eps+ = omega_i / d - 1``) with the away candidate ``j = argmin_{w_a > 0} omega_a``
    (gain ``eps- = 1 - omega_j / d``) and moves along the better one with the exact
    log-det line search ``tau = (omega - d) / (d (omega - 1))`` (Atwood 1973; Todd 2016,
    Alg. 5 as in Mason et al. 2022, Algorithm 5). An away step is clipped at
    ``tau = -w_j / (1 - w_j)``, which removes arm ``j`` (drop step). With ``pairwise``, the
    step is instead the vertex exchange from ``j`` to ``i`` (:func:`exchange_step`).
    ``M^{-1}`` and all variances are updated by rank-one formulas and recomputed exactly
    every ``refresh`` iterations and before convergence is declared.

    Stops when ``max_a omega_a <= d (1 + tol)`` (G-efficiency ``>= 1 / (1 + tol)``).
    ``w`` is updated in place; ``Minv`` and ``omega`` are outputs (computed exactly from
    ``w`` on entry by :func:`exact_state`, their contents on entry are not read). Returns
    ``(status, iterations)``; ``SINGULAR`` with 0 iterations means that ``M(w)`` is singular
    on entry.

    The two variants are two kernels (:func:`_exchange_loop`, :func:`_away_loop`), so that
    a call compiles only the one it runs (issue 16: the solvers use the exchange, the
    2-approximate design of :func:`design.gd.two_approx_g_design` the away steps).
    """
    loop = _exchange_loop if pairwise else _away_loop
    return loop(X, w, Minv, omega, tol, max_iter, refresh)


@njit(cache=True, inline="always")
def _extremes(w: np.ndarray, omega: np.ndarray) -> tuple[int, float, int, float]:
    """``(i, omega_i, j, omega_j)``: ``i = argmax_a omega_a``, ``j = argmin_{w_a > 0}
    omega_a`` (``j = -1`` without support), first index on ties."""
    # int64 from the start: a literal 0 / -1 would compile literal specialisations of
    # the step kernels (issue 16)
    i = np.int64(0)
    om_max = -1.0
    j = np.int64(-1)
    om_min = np.inf
    for a in range(omega.shape[0]):
        if omega[a] > om_max:
            om_max = omega[a]
            i = a
        if w[a] > 0.0 and omega[a] < om_min:
            om_min = omega[a]
            j = a
    return i, om_max, j, om_min


@njit(cache=True)
def _exchange_loop(X, w, Minv, omega, tol, max_iter, refresh) -> tuple[int, int]:
    """:func:`wolfe_atwood` with vertex exchanges. Since ``sum_a w_a omega_a = d``, an arm
    of the support has ``omega_j <= d < omega_i`` whenever the tolerance is not met, so
    ``j != i``; should rounding drift say otherwise, the state is recomputed exactly, and
    ``STALLED`` is returned if it still does."""
    d = X.shape[1]
    u = np.empty((2, d))  # the 2-d allocator exact_state compiles anyway
    since_refresh = refresh  # the exact state on entry
    it = 0
    while True:
        if since_refresh >= refresh:  # the one call site of the exact refresh
            if not exact_state(X, w, Minv, omega):
                return SINGULAR, it
            since_refresh = 0
        i, om_max, j, om_min = _extremes(w, omega)
        if om_max <= d * (1.0 + tol) or j < 0 or j == i:
            if since_refresh == 0:
                return (CONVERGED if om_max <= d * (1.0 + tol) else STALLED), it
            since_refresh = refresh  # confirm on the exact state
            continue
        if it >= max_iter:
            return MAX_ITER, it
        exchange_step(X, w, Minv, omega, i, j, u)
        it += 1
        since_refresh += 1


@njit(cache=True)
def _away_loop(X, w, Minv, omega, tol, max_iter, refresh) -> tuple[int, int]:
    """:func:`wolfe_atwood` with toward, away and drop steps (rank one)."""
    d = X.shape[1]
    u = np.empty((2, d))  # the 2-d allocator exact_state compiles anyway
    since_refresh = refresh  # the exact state on entry
    it = 0
    while True:
        if since_refresh >= refresh:  # the one call site of the exact refresh
            if not exact_state(X, w, Minv, omega):
                return SINGULAR, it
            since_refresh = 0
        i, om_max, j, om_min = _extremes(w, omega)
        if om_max <= d * (1.0 + tol):
            if since_refresh == 0:
                return CONVERGED, it
            since_refresh = refresh  # confirm on the exact state
            continue
        if it >= max_iter:
            return MAX_ITER, it
        eps_plus = om_max / d - 1.0
        eps_minus = 1.0 - om_min / d
        toward = True
        tau = 0.0
        if eps_minus > eps_plus and j >= 0 and w[j] < 1.0:
            # away step on j; its exact line search, clipped into a drop step
            tau_drop = -w[j] / (1.0 - w[j])
            if om_min > 1.0:
                tau = (om_min - d) / (d * (om_min - 1.0))
                if tau_drop > tau:  # max(tau, tau_drop) without the builtin's glue
                    tau = tau_drop
            else:
                tau = tau_drop
            if 1.0 + tau / (1.0 - tau) * om_min > 1e-8:  # M(w) stays invertible
                toward = False
        k = i
        drop = False
        if toward:
            tau = (om_max - d) / (d * (om_max - 1.0))
        else:
            k = j
            drop = tau <= -w[j] / (1.0 - w[j])
        rank_one_step(X, w, Minv, omega, k, tau, u)  # one call site: inlined
        if not toward and (drop or w[j] < 1e-15):
            w[j] = 0.0
        it += 1
        since_refresh += 1


@njit(cache=True)
def batch_exchange(
    X: np.ndarray,
    w: np.ndarray,
    Minv: np.ndarray,
    gain: np.ndarray,
    lose: np.ndarray,
    u: np.ndarray,
) -> int:
    """A batch of vertex exchanges between prescribed pairs, ``O(d^2)`` each (REX style).

    For ``t = 0, 1, ...`` moves weight from arm ``lose[t]`` to arm ``gain[t]`` with the
    exact log-det line search of :func:`exchange_step` (Böhning 1986), computing
    ``omega_i``, ``omega_j`` and ``omega_ij`` from the current ``M^{-1}`` (Harman, Filová &
    Richtárik 2020, the randomised exchange algorithm REX: exchanges between the support and
    the arms of largest variance, without updating the variances of the other arms). Each
    step increases ``log det M`` (or leaves it unchanged), so the batch is monotone; only
    ``M^{-1}`` is updated (Woodbury, rank two) and the caller recomputes the variances
    afterwards. ``u`` is ``(2, d)`` work space (the two Woodbury vectors). Returns the
    number of exchanges that moved weight.
    """
    d = X.shape[1]
    ui = u[0]
    uj = u[1]
    moved = 0
    for t in range(gain.size):
        i = gain[t]
        j = lose[t]
        if i == j or w[j] <= 0.0:
            continue
        for r in range(d):
            ui[r] = 0.0
            uj[r] = 0.0
        # M^{-1} is symmetric: accumulate its rows scaled by x (contiguous, vectorised)
        for c in range(d):
            xi = X[i, c]
            xj = X[j, c]
            for r in range(d):
                m = Minv[c, r]
                ui[r] += m * xi
                uj[r] += m * xj
        om_i = 0.0
        om_j = 0.0
        om_ij = 0.0
        for r in range(d):
            om_i += X[i, r] * ui[r]
            om_j += X[j, r] * uj[r]
            om_ij += X[i, r] * uj[r]
        if om_i <= om_j:
            continue
        alpha = _exchange_alpha(om_i, om_j, om_ij, w[j])
        if alpha <= 0.0:
            continue
        dropped = alpha >= w[j]
        s11, s12, s22 = rank2_core(om_i, om_j, om_ij, alpha, alpha)
        rank2_inverse_update(Minv, ui, uj, s11, s12, s22)
        w[i] += alpha
        if dropped:
            w[j] = 0.0
        else:
            w[j] -= alpha
        moved += 1
    return moved
