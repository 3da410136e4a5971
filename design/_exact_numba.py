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

from design._criteria_numba import _info, variance_state
from design._linalg import (
    cholesky_lower,
    inverse_spd,
    linear_pair_terms,
    linear_rank2_update,
    lower_inverse,
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
def _phi(X: np.ndarray, XN: np.ndarray, L: np.ndarray, counts: np.ndarray, Mfix: np.ndarray,
         MfixN: np.ndarray, crit: int) -> float:
    """The criterion to minimise of the unnormalised ``M`` (for ranking starts of the same
    ``n``): ``-log det M`` (D), ``tr(L M^{-1})`` (linear), ``-log det M + log det M_NN``
    (Ds); ``inf`` when ``M`` is not PD."""
    w = counts.astype(np.float64)
    d = X.shape[1]
    C = np.zeros((d, d))
    if not cholesky_lower(_info(X, w) + Mfix, C):
        return np.inf
    if crit == CRIT_LINEAR:
        Ci = np.empty((d, d))
        lower_inverse(C, Ci)
        return trace_product(L, Ci.T @ Ci)
    val = 0.0
    for r in range(d):
        val -= 2.0 * np.log(C[r, r])
    m = XN.shape[1]
    if crit == CRIT_DS and m > 0:
        CN = np.zeros((m, m))
        if not cholesky_lower(_info(XN, w) + MfixN, CN):
            return np.inf
        for r in range(m):
            val += 2.0 * np.log(CN[r, r])
    return val


@njit(cache=True)
def _best_pair(X: np.ndarray, XN: np.ndarray, L: np.ndarray, counts: np.ndarray,
               cap: np.ndarray, crit: int, Minv: np.ndarray, om: np.ndarray, g: np.ndarray,
               Ninv: np.ndarray, nu: np.ndarray, phi: float, costs: np.ndarray,
               spent: float, budget: float, n_top: int, thr: float
               ) -> tuple[int, int, float]:
    """Best exchange "one run from ``r`` to ``a``" (``r`` with a run, ``a`` below its cap,
    within the budget): ``(add, rem, improvement)``, ``add = -1`` if none improves by more
    than ``thr``. The improvement is relative: ``det`` ratio minus 1 for D and Ds, the
    decrease of ``tr(L M^{-1})`` over ``phi`` for the linear criteria.

    D (Fedorov's best pair, exactly): the ratio is ``1 + om_a - om_r - om_a om_r + h_ar^2``
    and ``h_ar^2 <= om_a om_r`` (Cauchy-Schwarz) bounds it by ``1 + om_a - om_r``, so only
    candidates with ``om_a > om_r + best`` are evaluated (usually a handful): the search
    returns the best of all ``(r, a)`` pairs at a fraction of the ``O(n K d)`` cost.
    Linear and Ds (no such bound): ``n_top > 0`` restricts ``a`` to the ``n_top`` allowed
    candidates with the largest directional derivative (the KL exchange of Harman & Filova's
    ``od_KL``), ``n_top = 0`` evaluates them all.
    """
    K, d = X.shape
    m = XN.shape[1]
    # support points and their u_r = M^{-1} x_r (and the criterion's extra vectors)
    S = 0
    for a in range(K):
        if counts[a] > 0:
            S += 1
    sup = np.empty(S, dtype=np.int64)
    S = 0
    for a in range(K):
        if counts[a] > 0:
            sup[S] = a
            S += 1
    U = np.empty((S, d))
    for k in range(S):
        U[k] = mv(Minv, X[sup[k]])
    V = np.empty((0, d))
    if crit == CRIT_LINEAR:
        V = np.empty((S, d))
        for k in range(S):
            V[k] = mv(Minv, mv(L, U[k]))  # b_ar = x_a^T V_r
    UN = np.empty((0, m))
    if crit == CRIT_DS and m > 0:
        UN = np.empty((S, m))
        for k in range(S):
            UN[k] = mv(Ninv, XN[sup[k]])
    # candidate list
    allowed = np.empty(K, dtype=np.int64)
    n_all = 0
    om_min = np.inf
    for k in range(S):
        if om[sup[k]] < om_min:
            om_min = om[sup[k]]
    for a in range(K):
        if counts[a] >= cap[a]:
            continue
        if crit == CRIT_D and om[a] - om_min <= thr:
            continue  # no pair with this a can improve (bound above)
        allowed[n_all] = a
        n_all += 1
    cand = allowed[:n_all]
    if crit != CRIT_D and 0 < n_top < n_all:
        score = np.empty(n_all)
        for k in range(n_all):
            a = cand[k]
            score[k] = -(g[a] if crit == CRIT_LINEAR else om[a] - nu[a])
        cand = cand[np.argsort(score)[:n_top]]
    best = thr
    add = -1
    rem = -1
    if crit == CRIT_D:
        # visit candidates from the largest variance: the best pair is found early and the
        # bound then prunes most of the rest
        order = np.argsort(-om[cand])
        cand = cand[order]
    for ka in range(cand.shape[0]):
        a = cand[ka]
        if crit == CRIT_D and om[a] - om_min <= best:
            break  # sorted: no later candidate can beat best
        for k in range(S):
            r = sup[k]
            if r == a:
                continue
            if spent - costs[r] + costs[a] > budget:
                continue
            if crit == CRIT_D and om[a] - om[r] <= best:
                continue
            h = 0.0
            for c in range(d):
                h += X[a, c] * U[k, c]
            ratio = (1.0 + om[a]) * (1.0 - om[r]) + h * h
            if ratio <= 1e-10:
                continue
            if crit == CRIT_D:
                score_ar = ratio - 1.0
            elif crit == CRIT_DS:
                rn = 1.0
                if m > 0:
                    hn = 0.0
                    for c in range(m):
                        hn += XN[a, c] * UN[k, c]
                    rn = (1.0 + nu[a]) * (1.0 - nu[r]) + hn * hn
                if rn <= 1e-12:
                    continue
                score_ar = ratio / rn - 1.0
            else:
                b = 0.0
                for c in range(d):
                    b += X[a, c] * V[k, c]
                num = (g[a] - g[r]) - (om[r] * g[a] - 2.0 * h * b + om[a] * g[r])
                score_ar = num / ratio / phi
            if score_ar > best:
                best = score_ar
                add = a
                rem = r
    return add, rem, best


@njit(cache=True)
def exchange(X: np.ndarray, XN: np.ndarray, L: np.ndarray, counts: np.ndarray,
             cap: np.ndarray, Mfix: np.ndarray, MfixN: np.ndarray, crit: int,
             max_steps: int, refresh: int, costs: np.ndarray, budget: float, n_top: int
             ) -> tuple[int, bool]:
    """Best-pair exchange (Fedorov 1972) on the counts, in place, with rank-two updates.

    Each step makes the exchange "one run from ``r`` to ``a``" that improves the criterion
    most over all pairs (:func:`_best_pair`: exact for D by a variance bound; for the
    linear criteria and Ds first among the ``n_top`` candidates with the largest directional
    derivative, the KL exchange, then, when none of those improves, over all candidates).
    The exchange ratios (Fedorov's ``(1 + om_a)(1 - om_r) + om_ar^2`` for D, the ratio of
    the full and nuisance ones for Ds, the rank-two Woodbury decrease
    ``(g_a - g_r - om_r g_a + 2 om_ar b_ar - om_a g_r) / ratio`` of ``tr(L M^{-1})``) need
    ``M^{-1}``, the variances ``om`` (and ``g``, ``nu``) of every candidate, which are
    updated by the Woodbury formula in ``O(K d)`` per exchange with an exact refresh every
    ``refresh`` exchanges and before convergence is declared. An exchange is made when it
    improves by a relative ``1e-10``; with costs only budget-feasible exchanges are
    considered. Returns ``(exchanges, ok)``; ``ok`` is False if the state became singular.
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
        return 0, False
    n_ex = 0
    since = 0
    spent = 0.0
    for a in range(K):
        spent += costs[a] * counts[a]
    while n_ex < max_steps:
        add, rem, best = _best_pair(X, XN, L, counts, cap, crit, Minv, om, g, Ninv, nu, phi,
                                    costs, spent, budget, n_top, 1e-10)
        if add < 0 and crit != CRIT_D and n_top > 0:
            add, rem, best = _best_pair(X, XN, L, counts, cap, crit, Minv, om, g, Ninv, nu,
                                        phi, costs, spent, budget, 0, 1e-10)
        if add < 0:
            if since == 0:
                break  # converged on an exact state
            phi = _refresh(X, XN, L, counts, Mfix, MfixN, crit, Minv, om, g, Ninv, nu)
            if phi < 0.0:
                return n_ex, False
            since = 0
            continue
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
        if since >= refresh:
            phi = _refresh(X, XN, L, counts, Mfix, MfixN, crit, Minv, om, g, Ninv, nu)
            if phi < 0.0:
                return n_ex, False
            since = 0
    return n_ex, True


@njit(cache=True)
def _top(vals: np.ndarray, mask: np.ndarray, k: int, largest: bool) -> np.ndarray:
    """Indices of the ``k`` entries of ``vals`` (where ``mask``) that are largest (or
    smallest), by insertion into a sorted buffer: ``O(K)`` for small ``k``."""
    K = vals.shape[0]
    sgn = 1.0 if largest else -1.0
    idx = np.empty(k, dtype=np.int64)
    key = np.empty(k)
    n = 0
    for a in range(K):
        if not mask[a]:
            continue
        v = sgn * vals[a]
        if n == k and v <= key[n - 1]:
            continue
        j = n if n < k else k - 1
        while j > 0 and key[j - 1] < v:
            key[j] = key[j - 1]
            idx[j] = idx[j - 1]
            j -= 1
        key[j] = v
        idx[j] = a
        if n < k:
            n += 1
    return idx[:n]


@njit(cache=True)
def _d_scan(X: np.ndarray, Minv: np.ndarray, om: np.ndarray, counts: np.ndarray,
            cap: np.ndarray, rows: np.ndarray, cols: np.ndarray, costs: np.ndarray,
            spent: float, budget: float, full: bool) -> tuple[int, int, float]:
    """Best D-exchange (``det`` ratio minus 1, above ``1e-10``) from a run at a candidate of
    ``rows`` to one of ``cols``: ``(add, rem, gain)``, ``add = -1`` if none. ``full``: the
    ``d(x_r, x_a)`` are formed as one matrix product (BLAS) for all pairs; else one dot
    product per pair (few pairs)."""
    d = X.shape[1]
    U = np.empty((rows.shape[0], d))
    for k in range(rows.shape[0]):
        U[k] = mv(Minv, X[rows[k]])
    Hm = np.empty((0, 0))
    if full:
        Hm = X @ U.T  # all candidates: no copy of X[cols]
    best = 1e-10
    add = -1
    rem = -1
    for ka in range(cols.shape[0]):
        a = cols[ka]
        oma = om[a]
        for k in range(rows.shape[0]):
            r = rows[k]
            omr = om[r]
            if a == r or oma - omr <= best:  # h^2 <= om_a om_r: gain <= om_a - om_r
                continue
            if full:
                h = Hm[a, k]
            else:
                h = 0.0
                for c in range(d):
                    h += X[a, c] * U[k, c]
            gain = oma - omr - oma * omr + h * h
            if gain > best and spent - costs[r] + costs[a] <= budget:
                best = gain
                add = a
                rem = r
    return add, rem, best


@njit(cache=True)
def exchange_d(X: np.ndarray, counts: np.ndarray, cap: np.ndarray, Mfix: np.ndarray,
               max_steps: int, refresh: int, costs: np.ndarray, budget: float,
               k_rows: int, l_cols: int) -> tuple[int, bool]:
    """KL exchange for D (Harman & Filova's ``od_KL``) ending on a full Fedorov check.

    A step evaluates the exchanges from the ``k_rows`` support candidates with the smallest
    variance ``om_r = x_r^T M^{-1} x_r`` to the ``l_cols`` allowed candidates with the
    largest (Fedorov's ratio ``(1 + om_a)(1 - om_r) + d(x_a, x_r)^2``, ``O(k l d)``) and
    makes the best improving one, updating ``M^{-1}`` and every variance by the rank-two
    Woodbury formula (``O(K d)``). When none of them improves, every (support, candidate)
    pair is checked at once (one BLAS product, the plain Fedorov step), and the best
    improving pair, if any, is made. So the result is a local optimum for all single
    exchanges, as Fedorov's (same neighbourhood, same ``1e-10`` threshold), at ``O(K d)``
    per step instead of ``O(n K d + K d^2)``. Exact refresh every ``refresh`` exchanges and
    before convergence is declared. Returns ``(exchanges, ok)``.
    """
    K, d = X.shape
    Minv = np.empty((d, d))
    om = np.empty(K)
    w = counts.astype(np.float64)
    if not variance_state(X, w, Mfix, Minv, om):
        return 0, False
    spent = 0.0
    for a in range(K):
        spent += costs[a] * counts[a]
    n_ex = 0
    since = 0
    while n_ex < max_steps:
        on = counts > 0
        free = counts < cap
        rows = _top(om, on, k_rows, False)
        cols = _top(om, free, l_cols, True)
        add, rem, _ = _d_scan(X, Minv, om, counts, cap, rows, cols, costs, spent, budget,
                              False)
        if add < 0:
            if since > 0:  # never declare convergence on an updated state
                w = counts.astype(np.float64)
                if not variance_state(X, w, Mfix, Minv, om):
                    return n_ex, False
                since = 0
                continue
            add, rem, _ = _d_scan(X, Minv, om, counts, cap, np.flatnonzero(on),
                                  np.flatnonzero(free), costs, spent, budget, True)
            if add < 0:
                break
        woodbury_pair(X, Minv, om, add, rem, 1.0, 1.0)
        counts[add] += 1
        counts[rem] -= 1
        spent = 0.0
        for a in range(K):
            spent += costs[a] * counts[a]
        n_ex += 1
        since += 1
        if since >= refresh:
            w = counts.astype(np.float64)
            if not variance_state(X, w, Mfix, Minv, om):
                return n_ex, False
            since = 0
    return n_ex, True


@njit(cache=True)
def exchange_starts(X: np.ndarray, XN: np.ndarray, L: np.ndarray, starts: np.ndarray,
                    cap: np.ndarray, Mfix: np.ndarray, MfixN: np.ndarray, crit: int,
                    max_steps: int, refresh: int, costs: np.ndarray, budget: float,
                    n_top: int, k_rows: int, exchanges: np.ndarray, values: np.ndarray
                    ) -> None:
    """:func:`exchange` from every row of ``starts`` (in place): ``exchanges[s]`` the
    exchanges made, ``values[s]`` the final criterion (:func:`_phi`; ``inf`` when the start
    or the run became singular)."""
    for s in range(starts.shape[0]):
        c = starts[s]
        if crit == CRIT_D:
            n_ex, ok = exchange_d(X, c, cap, Mfix, max_steps, refresh, costs, budget,
                                  k_rows, n_top)
        else:
            n_ex, ok = exchange(X, XN, L, c, cap, Mfix, MfixN, crit, max_steps, refresh,
                                costs, budget, n_top)
        exchanges[s] = n_ex
        values[s] = _phi(X, XN, L, c, Mfix, MfixN, crit) if ok else np.inf
