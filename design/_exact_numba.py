"""Jitted kernels of the exact-design exchange algorithm (:mod:`design.exact`).

State: the *unnormalised* information matrix ``M = M_fixed + sum_a n_a x_a x_a^T`` of the
runs, its inverse ``Minv``, the variances ``om_a = x_a^T M^{-1} x_a`` of every candidate and,
for the linear criteria ``tr(L M^{-1})``, ``g_a = x_a^T M^{-1} L M^{-1} x_a``; for Ds the
same for the nuisance block (``Ninv``, ``nu``). An exchange "remove one run at ``r``, add
one at ``a``" is the rank-two change ``M + x_a x_a^T - x_r x_r^T``, evaluated for every
``a`` at once in ``O(K d)`` and applied by the Woodbury formula.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from design._criteria_numba import _info
from design._linalg import (
    inverse_spd,
    linear_pair_terms,
    linear_rank2_update,
    mv,
    pair_terms,
    rank2_core,
    rowwise_dot,
    trace_product,
    woodbury_pair,
)

CRIT_D = 0
CRIT_LINEAR = 1
CRIT_DS = 2


@njit(cache=True)
def full_state(X: np.ndarray, XN: np.ndarray, L: np.ndarray, counts: np.ndarray,
               Mfix: np.ndarray, MfixN: np.ndarray, crit: int, Minv: np.ndarray,
               om: np.ndarray, g: np.ndarray, Ninv: np.ndarray, nu: np.ndarray) -> bool:
    """Recompute the whole state from the counts; False if ``M`` is not PD."""
    w = counts.astype(np.float64)
    if not inverse_spd(_info(X, w) + Mfix, Minv):
        return False
    Z = X @ Minv
    rowwise_dot(Z, X, om)
    if crit == CRIT_LINEAR:
        rowwise_dot(Z @ L, Z, g)
    if crit == CRIT_DS and XN.shape[1] > 0:
        if not inverse_spd(_info(XN, w) + MfixN, Ninv):
            return False
        rowwise_dot(XN @ Ninv, XN, nu)
    return True


@njit(cache=True)
def _refresh(X: np.ndarray, XN: np.ndarray, L: np.ndarray, counts: np.ndarray,
             Mfix: np.ndarray, MfixN: np.ndarray, crit: int, Minv: np.ndarray,
             om: np.ndarray, g: np.ndarray, Ninv: np.ndarray, nu: np.ndarray) -> float:
    """:func:`full_state`, then ``phi = tr(L M^{-1})`` for the linear criteria (0 for the
    others); -1 if ``M`` is not PD."""
    if not full_state(X, XN, L, counts, Mfix, MfixN, crit, Minv, om, g, Ninv, nu):
        return -1.0
    return trace_product(L, Minv) if crit == CRIT_LINEAR else 0.0


@njit(cache=True)
def _linear_pair_update(X: np.ndarray, L: np.ndarray, Minv: np.ndarray, om: np.ndarray,
                        g: np.ndarray, add: int, rem: int) -> None:
    """``M <- M + x_add x_add^T - x_rem x_rem^T``: update ``Minv``, ``om`` and ``g``.

    Woodbury with ``U = [x_add, x_rem]``, ``C = diag(1, -1)``, ``S = (C^{-1} + U^T M^{-1}
    U)^{-1}``: ``om'_x = om_x - h^T S h`` and ``g'_x = g_x - 2 q^T S h + h^T S B S h`` with
    ``h = V^T x``, ``q = (M^{-1} L V)^T x``, ``V = M^{-1} U``, ``B = V^T L V``.
    """
    ua, ur, oa, orr, oar = pair_terms(X, Minv, add, rem)
    Lua, Lur, b11, b22, b12 = linear_pair_terms(L, ua, ur)
    s11, s12, s22 = rank2_core(oa, orr, oar, 1.0, 1.0)
    linear_rank2_update(X, Minv, ua, ur, Lua, Lur, b11, b22, b12, s11, s12, s22, g, om, True)


@njit(cache=True)
def greedy_fill(X: np.ndarray, M0: np.ndarray, counts: np.ndarray, cap: np.ndarray,
                n_add: int, costs: np.ndarray, budget: float) -> bool:
    """Add ``n_add`` runs one at a time, each at ``argmax_a x_a^T M^{-1} x_a`` among the
    candidates below their cap (sequential D-greedy, Wynn 1970), from ``M0`` (which the
    caller makes PD with a small ridge). With costs, a candidate is allowed only if the
    runs left can still be paid at the cheapest cost: ``spent + c_a + (left - 1) c_min <=
    budget`` (``budget = inf``: no constraint). Returns False if no candidate is left."""
    K, d = X.shape
    Minv = np.empty((d, d))
    if not inverse_spd(M0.copy(), Minv):
        return False
    om = np.empty(K)
    rowwise_dot(X @ Minv, X, om)
    cmin = np.inf
    for a in range(K):
        if cap[a] > 0 and costs[a] < cmin:
            cmin = costs[a]
    spent = 0.0
    for a in range(K):
        spent += costs[a] * counts[a]
    for t in range(n_add):
        best = -1.0
        k = -1
        reserve = (n_add - t - 1) * cmin
        for a in range(K):
            if spent + costs[a] + reserve > budget:
                continue
            if counts[a] < cap[a] and om[a] > best:
                best = om[a]
                k = a
        if k < 0:
            return False
        counts[k] += 1
        spent += costs[k]
        woodbury_pair(X, Minv, om, k, k, 1.0, 0.0)
    return True


@njit(cache=True)
def exchange(X: np.ndarray, XN: np.ndarray, L: np.ndarray, counts: np.ndarray,
             cap: np.ndarray, Mfix: np.ndarray, MfixN: np.ndarray, crit: int,
             max_passes: int, refresh: int, costs: np.ndarray, budget: float
             ) -> tuple[int, int, bool]:
    """Modified Fedorov exchange (Cook & Nachtsheim 1980) on the counts, in place.

    A pass visits every candidate ``r`` with a run; for it, the best ``a`` (below its cap)
    for the exchange "one run from ``r`` to ``a``" is found over all candidates at once:

    * D: ``det`` ratio ``(1 + om_a)(1 - om_r) + om_ar^2`` (Fedorov 1972);
    * Ds: the full ratio over the nuisance ratio;
    * linear ``tr(L M^{-1})``: decrease ``(a - c) / ((1 + om_a)(1 - om_r) + om_ar^2)`` with
      ``a = g_a - g_r``, ``c = om_r g_a - 2 om_ar b_ar + om_a g_r`` (as in
      :func:`design._criteria_numba.linear_exchange` at step 1).

    With costs, only exchanges that keep ``sum_a c_a n_a <= budget`` are considered (the
    spent total is recomputed from the counts after every exchange, so no drift; a feasible
    start stays feasible). The exchange is made when it improves the criterion by a
    relative ``1e-10``. Stops after
    a pass without exchange. Returns ``(exchanges, passes, ok)``; ``ok`` is False if the
    state became singular.
    """
    K, d = X.shape
    m = XN.shape[1]
    Minv = np.empty((d, d))
    Ninv = np.empty((m, m))
    om = np.empty(K)
    g = np.zeros(K)
    nu = np.zeros(K)
    phi = _refresh(X, XN, L, counts, Mfix, MfixN, crit, Minv, om, g, Ninv, nu)
    if phi < 0.0:
        return 0, 0, False
    hN = np.zeros(K)
    b = np.zeros(K)
    n_ex = 0
    since = 0
    passes = 0
    spent = 0.0
    for a in range(K):
        spent += costs[a] * counts[a]
    while passes < max_passes:
        passes += 1
        changed = False
        for rem in range(K):
            if counts[rem] == 0:
                continue
            u = mv(Minv, X[rem])
            h = mv(X, u)  # om_{a, rem} for every a
            if crit == CRIT_LINEAR:
                b = mv(X, mv(Minv, mv(L, u)))  # b_{a, rem}
            if crit == CRIT_DS and m > 0:
                hN = mv(XN, mv(Ninv, XN[rem]))
            best = 0.0
            add = -1
            for a in range(K):
                if a == rem or counts[a] >= cap[a]:
                    continue
                if spent - costs[rem] + costs[a] > budget:
                    continue
                ratio = (1.0 + om[a]) * (1.0 - om[rem]) + h[a] * h[a]
                if crit == CRIT_D:
                    score = ratio - 1.0
                elif crit == CRIT_DS:
                    rn = 1.0
                    if m > 0:
                        rn = (1.0 + nu[a]) * (1.0 - nu[rem]) + hN[a] * hN[a]
                    if rn <= 1e-12:
                        continue
                    score = ratio / rn - 1.0
                else:
                    if ratio <= 1e-10:
                        continue
                    num = (g[a] - g[rem]) - (om[rem] * g[a] - 2.0 * h[a] * b[a] + om[a] * g[rem])
                    score = num / ratio / phi
                if ratio > 1e-10 and score > best:
                    best = score
                    add = a
            if add >= 0 and best > 1e-10:
                if crit == CRIT_LINEAR:
                    phi -= best * phi
                    _linear_pair_update(X, L, Minv, om, g, add, rem)
                else:
                    woodbury_pair(X, Minv, om, add, rem, 1.0, 1.0)
                    if crit == CRIT_DS and m > 0:
                        woodbury_pair(XN, Ninv, nu, add, rem, 1.0, 1.0)
                counts[add] += 1
                counts[rem] -= 1
                spent = 0.0
                for a in range(K):
                    spent += costs[a] * counts[a]
                n_ex += 1
                since += 1
                changed = True
                if since >= refresh:
                    phi = _refresh(X, XN, L, counts, Mfix, MfixN, crit, Minv, om, g, Ninv, nu)
                    if phi < 0.0:
                        return n_ex, passes, False
                    since = 0
        if not changed:
            break
        # exact refresh at the end of every pass with exchanges
        phi = _refresh(X, XN, L, counts, Mfix, MfixN, crit, Minv, om, g, Ninv, nu)
        if phi < 0.0:
            return n_ex, passes, False
        since = 0
    return n_ex, passes, True

