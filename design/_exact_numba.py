"""Jitted kernels of the exact-design exchange algorithm (:mod:`design.exact`).

State: the *unnormalised* information matrix ``M = M_fixed + sum_a n_a x_a x_a^T`` of the
runs, its inverse ``Minv``, the variances ``om_a = x_a^T M^{-1} x_a`` of every candidate and,
for the linear criteria ``tr(L M^{-1})``, ``g_a = x_a^T M^{-1} L M^{-1} x_a``; for Ds the
same for the nuisance block (``Ninv``, ``nu``). An exchange "remove one run at ``r``, add
one at ``a``" is the rank-two change ``M + x_a x_a^T - x_r x_r^T``, evaluated from
``d(x_a, x_r) = x_a^T M^{-1} x_r`` and applied by the Woodbury formula (``O(K d)``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from design._criteria_numba import _info
from design._linalg import (
    cholesky_lower,
    inner,
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

CRIT_LINEAR = 1  # the criteria of exchange (D has its own kernel, fedorov_d)
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
        k = np.int64(-1)  # not the literal -1: one specialisation of woodbury_pair
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
        # Sherman-Morrison for M + x_k x_k^T; the column X M^{-1} x_k by BLAS gemv
        u = mv(Minv, X[k])
        cst = 1.0 / (1.0 + om[k])
        t = X @ u
        for a in range(K):
            om[a] -= cst * t[a] * t[a]
        for r in range(d):
            for c in range(d):
                Minv[r, c] -= cst * u[r] * u[c]
    return True


@njit(cache=True)
def _top(vals: np.ndarray, mask: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` largest entries of ``vals`` where ``mask``, by insertion into a
    sorted buffer: ``O(K)`` for small ``k``."""
    idx = np.empty(k, dtype=np.int64)
    key = np.empty(k)
    n = 0
    for a in range(vals.shape[0]):
        if not mask[a]:
            continue
        v = vals[a]
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
def _scan(X: np.ndarray, XN: np.ndarray, L: np.ndarray, crit: int, Minv: np.ndarray,
          Ninv: np.ndarray, om: np.ndarray, g: np.ndarray, nu: np.ndarray, phi: float,
          rows: np.ndarray, cols: np.ndarray, costs: np.ndarray, spent: float,
          budget: float, full: bool) -> tuple[int, int, float]:
    """Best exchange "one run from ``r`` in ``rows`` to ``a`` in ``cols``" within the
    budget: ``(add, rem, gain)``, ``add = -1`` if none gains more than ``1e-10``.

    Gains (relative), from Fedorov's ratio ``(1 + om_a)(1 - om_r) + h_ar^2`` (``h_ar =
    x_a^T M^{-1} x_r``): Ds the ratio over the nuisance one, minus 1; linear
    ``(g_a - g_r - om_r g_a + 2 h_ar b_ar - om_a g_r) / ratio / phi`` (the rank-two Woodbury
    decrease of ``tr(L M^{-1})``, ``b_ar = x_a^T M^{-1} L M^{-1} x_r``). ``full``: the
    ``h`` (and ``b``, nuisance ``h``) of all candidates at once by one matrix product
    (BLAS); else one dot product per pair.
    """
    d = X.shape[1]
    m = XN.shape[1]
    S = rows.shape[0]
    U = np.empty((S, d))
    for k in range(S):
        U[k] = mv(Minv, X[rows[k]])
    V = np.empty((S if crit == CRIT_LINEAR else 0, d))
    for k in range(V.shape[0]):
        V[k] = mv(Minv, mv(L, U[k]))
    UN = np.empty((S if crit == CRIT_DS else 0, m))
    for k in range(UN.shape[0]):
        UN[k] = mv(Ninv, XN[rows[k]])
    Hm = np.empty((0, 0))
    Bm = np.empty((0, 0))
    HNm = np.empty((0, 0))
    if full:
        Hm = X @ U.T
        if crit == CRIT_LINEAR:
            Bm = X @ V.T
        if crit == CRIT_DS and m > 0:
            HNm = XN @ UN.T
    best = 1e-10
    add = -1
    rem = -1
    for ka in range(cols.shape[0]):
        a = cols[ka]
        oma = om[a]
        for k in range(S):
            r = rows[k]
            if a == r or spent - costs[r] + costs[a] > budget:
                continue
            omr = om[r]
            if full:
                h = Hm[a, k]
            else:
                h = 0.0
                for c in range(d):
                    h += X[a, c] * U[k, c]
            ratio = (1.0 + oma) * (1.0 - omr) + h * h
            if ratio <= 1e-10:
                continue
            if crit == CRIT_DS:
                rn = 1.0
                if m > 0:
                    if full:
                        hn = HNm[a, k]
                    else:
                        hn = 0.0
                        for c in range(m):
                            hn += XN[a, c] * UN[k, c]
                    rn = (1.0 + nu[a]) * (1.0 - nu[r]) + hn * hn
                if rn <= 1e-12:
                    continue
                gain = ratio / rn - 1.0
            else:
                if full:
                    b = Bm[a, k]
                else:
                    b = 0.0
                    for c in range(d):
                        b += X[a, c] * V[k, c]
                gain = ((g[a] - g[r]) - (omr * g[a] - 2.0 * h * b + oma * g[r])) / ratio / phi
            if gain > best:
                best = gain
                add = a
                rem = r
    return add, rem, best


@njit(cache=True)
def exchange(X: np.ndarray, XN: np.ndarray, L: np.ndarray, counts: np.ndarray,
             cap: np.ndarray, Mfix: np.ndarray, MfixN: np.ndarray, crit: int,
             max_steps: int, refresh: int, costs: np.ndarray, budget: float, n_top: int
             ) -> tuple[int, bool]:
    """KL exchange (Harman & Filova's ``od_KL``) ending on a full Fedorov check, in place.

    A step evaluates the exchanges from every support candidate to the ``n_top`` allowed
    candidates (below their cap) with the largest directional derivative ``g_a`` (linear,
    ``crit = CRIT_LINEAR``) or ``om_a - nu_a`` (Ds, ``CRIT_DS``; D has :func:`fedorov_d`)
    (:func:`_scan`, ``O(n n_top d)``) and makes the best improving one, updating ``M^{-1}``
    and every ``om`` (``g``, ``nu``) by the rank-two Woodbury formula in ``O(K d)``. When
    none of them improves, all (support, candidate) pairs are evaluated at once (one BLAS
    product: the plain Fedorov step) and the best improving pair, if any, is made. The
    result is a local optimum for every single exchange, as Fedorov's (same neighbourhood,
    same ``1e-10`` threshold), at ``O(K d)`` per step instead of ``O(n K d + K d^2)``. With
    costs only budget-feasible exchanges are considered (the spent total is recomputed from
    the counts: no drift). Exact refresh every ``refresh`` exchanges and before convergence
    is declared. Returns ``(exchanges, ok)``; ``ok`` is False if the state became singular.
    """
    K, d = X.shape
    m = XN.shape[1]
    Minv = np.empty((d, d))
    Ninv = np.empty((m, m))
    om = np.empty(K)
    g = np.zeros(K)
    nu = np.zeros(K)
    sc = np.empty(K)
    phi = _refresh(X, XN, L, counts, Mfix, MfixN, crit, Minv, om, g, Ninv, nu)
    if phi < 0.0:
        return 0, False
    n_ex = 0
    since = 0
    while n_ex < max_steps:
        spent = 0.0
        for a in range(K):
            spent += costs[a] * counts[a]
            sc[a] = g[a] if crit == CRIT_LINEAR else om[a] - nu[a]
        rows = np.flatnonzero(counts > 0)
        free = counts < cap
        add, rem, best = _scan(X, XN, L, crit, Minv, Ninv, om, g, nu, phi, rows,
                               _top(sc, free, n_top), costs, spent, budget, np.bool_(False))
        if add < 0:
            if since > 0:  # never declare convergence on an updated state
                phi = _refresh(X, XN, L, counts, Mfix, MfixN, crit, Minv, om, g, Ninv, nu)
                if phi < 0.0:
                    return n_ex, False
                since = 0
                continue
            add, rem, best = _scan(X, XN, L, crit, Minv, Ninv, om, g, nu, phi, rows,
                                   np.flatnonzero(free), costs, spent, budget, np.bool_(True))
            if add < 0:
                break
        if crit == CRIT_LINEAR:
            phi -= best * phi
            _linear_pair_update(X, L, Minv, om, g, add, rem)
        else:  # Ds
            woodbury_pair(X, Minv, om, add, rem, 1.0, 1.0)
            if m > 0:
                woodbury_pair(XN, Ninv, nu, add, rem, 1.0, 1.0)
        counts[add] += 1
        counts[rem] -= 1
        n_ex += 1
        since += 1
        if since >= refresh:
            phi = _refresh(X, XN, L, counts, Mfix, MfixN, crit, Minv, om, g, Ninv, nu)
            if phi < 0.0:
                return n_ex, False
            since = 0
    return n_ex, True


@njit(cache=True)
def _d_full_state(X: np.ndarray, counts: np.ndarray, Mfix: np.ndarray, Minv: np.ndarray,
                  om: np.ndarray, H: np.ndarray, sup: np.ndarray, pos: np.ndarray) -> int:
    """Recompute ``M^{-1}``, every variance ``om_a`` and the cross-variances ``H[a, j] =
    x_a^T M^{-1} x_{sup_j}`` with the support points (one BLAS product) from the counts;
    returns the support size, -1 if ``M`` is not PD or numerically singular: a support
    point has ``n_r om_r <= 1`` (``M >= n_r x_r x_r^T``), so ``n_r om_r > 1 + 1e-6`` means
    ``M^{-1}`` is wrong beyond that (a start on a nearly singular design, whose exchanges
    would follow noise)."""
    if not inverse_spd(_info(X, counts.astype(np.float64)) + Mfix, Minv):
        return -1
    Z = X @ Minv
    rowwise_dot(Z, X, om)
    S = 0
    for a in range(X.shape[0]):
        pos[a] = -1
        if counts[a] > 0:
            if counts[a] * om[a] > 1.0 + 1e-6:
                return -1
            sup[S] = a
            pos[a] = S
            S += 1
    XSt = np.empty((X.shape[1], S))  # C-contiguous: the same product as X @ Minv
    for j in range(S):
        XSt[:, j] = X[sup[j]]
    HS = Z @ XSt
    for a in range(X.shape[0]):
        for j in range(S):
            H[a, j] = HS[a, j]
    return S


@njit(cache=True)
def fedorov_d(X: np.ndarray, counts: np.ndarray, cap: np.ndarray, Mfix: np.ndarray,
              max_steps: int, refresh: int, costs: np.ndarray, budget: float
              ) -> tuple[int, bool]:
    """:func:`_fedorov_d_run` with ``verify``: the returned design is a local optimum checked
    on an exactly recomputed state (the exchange continues if the check finds a gain)."""
    return _fedorov_d_run(X, counts, cap, Mfix, max_steps, refresh, costs, budget,
                          counts.shape[0] >= 0)


@njit(cache=True)
def fedorov_d_starts(X: np.ndarray, starts: np.ndarray, cap: np.ndarray, Mfix: np.ndarray,
                     max_steps: int, refresh: int, costs: np.ndarray, budget: float,
                     n_ex: np.ndarray, logdet: np.ndarray) -> None:
    """Fedorov's exchange (:func:`_fedorov_d_run`, without the final check on a recomputed
    state) from every row of ``starts`` (counts, in place), in one call: ``n_ex[i]`` the
    exchanges of start ``i``, ``logdet[i] = log det M`` of its end design, recomputed from
    its counts (``-inf`` if ``M`` is not PD or the state became singular). The caller
    verifies the design it keeps with :func:`fedorov_d` (one exact state for the winner
    instead of one per start)."""
    K, d = X.shape
    L = np.empty((d, d))
    for i in range(starts.shape[0]):
        c = starts[i]
        n, ok = _fedorov_d_run(X, c, cap, Mfix, max_steps, refresh, costs, budget,
                               starts.shape[0] < 0)
        n_ex[i] = n
        logdet[i] = -np.inf
        if ok and cholesky_lower(_info(X, c.astype(np.float64)) + Mfix, L, 0.0):
            s = 0.0
            for j in range(d):
                s += np.log(L[j, j])
            logdet[i] = 2.0 * s


@inner
def _fedorov_d_run(X: np.ndarray, counts: np.ndarray, cap: np.ndarray, Mfix: np.ndarray,
                   max_steps: int, refresh: int, costs: np.ndarray, budget: float,
                   verify: bool) -> tuple[int, bool]:
    """Fedorov's exchange for D (every step the best pair "one run from a support point
    ``r`` to a candidate ``a``" over all pairs, Fedorov 1972), in place, at ``O(K S + K d)``
    per exchange (``S`` support points) instead of ``O(K S d + K d^2)``.

    The state is ``M^{-1}``, the variances ``om_a = x_a^T M^{-1} x_a`` and the
    cross-variances ``H[a, j] = x_a^T M^{-1} x_r`` of every candidate with every support
    point ``r = sup_j``: the determinant ratio of a pair is ``(1 + om_a)(1 - om_r) + H[a,
    j]^2`` (``O(1)``), bounded by ``1 + om_a - om_r`` (``H^2 <= om_a om_r``): a candidate
    with ``om_a - min_r om_r`` below the best gain so far is skipped in ``O(1)`` (the
    candidate of largest variance is scanned first, so the best gain is large early), the
    others scan their row of ``H`` in memory order (with a budget: the support sorted by
    ``om_r``, cut at the first ``r`` whose bound cannot beat the best gain). The exchange
    ``M + x_a x_a^T - x_r x_r^T`` updates ``om`` and ``H`` by the rank-two Woodbury formula
    (one row-major pass over ``H``): ``x^T M'^{-1} y = x^T M^{-1} y - h_x^T S h_y`` with
    ``h_x = (x^T M^{-1} x_a, x^T M^{-1} x_r)``, the column of ``a`` costing one ``O(K d)``
    product (BLAS gemv). Exact refresh every ``refresh`` exchanges and before convergence is
    declared; the result is a design that no single exchange improves by more than
    ``1e-10`` (the plain Fedorov threshold). Without ``verify`` the run ends where the
    updated state shows no gain (its drift since the last refresh is at rounding level):
    for the starts that are only compared. With costs only exchanges within the budget are
    made (the spent total from the counts every step: no drift). Returns
    ``(exchanges, ok)``; ``ok`` is False if ``M`` became singular.
    """
    K, d = X.shape
    n_max = min(K, int(counts.sum()) + 1)
    Minv = np.empty((d, d))
    om = np.empty(K)
    H = np.empty((K, n_max))
    sup = np.empty(n_max, dtype=np.int64)
    pos = np.empty(K, dtype=np.int64)
    colA = np.empty(K)
    rowA = np.empty(n_max)
    rowR = np.empty(n_max)
    omr_s = np.empty(n_max)
    order = np.empty(n_max, dtype=np.int64)
    S = _d_full_state(X, counts, Mfix, Minv, om, H, sup, pos)
    if S < 0:
        return 0, False
    n_ex = 0
    since = 0
    priced = budget < np.inf
    while n_ex < max_steps:
        spent = 0.0
        if priced:
            for a in range(K):
                spent += costs[a] * counts[a]
        for j in range(S):  # the support by increasing om_r (insertion sort: S is small)
            v = om[sup[j]]
            omr_s[j] = v
            t = j
            while t > 0 and omr_s[order[t - 1]] > v:
                order[t] = order[t - 1]
                t -= 1
            order[t] = j
        best = 1e-10
        add = -1
        jrem = -1
        a0 = -1  # first the candidate of largest variance: a large gain early prunes the scan
        for a in range(K):
            if counts[a] < cap[a] and (a0 < 0 or om[a] > om[a0]):
                a0 = a
        omr_min = omr_s[order[0]] if S > 0 else np.inf
        for i in range(-1, K):
            a = a0 if i < 0 else i
            if a < 0 or counts[a] >= cap[a]:
                continue
            oma = om[a]
            if oma - omr_min <= best:
                continue  # no pair of a can beat best (gain <= om_a - om_r)
            if priced:  # budget: the support by increasing om_r, cut at the bound
                for t in range(S):
                    j = order[t]
                    omr = omr_s[j]
                    if oma - omr <= best:
                        break
                    r = sup[j]
                    if r == a or spent - costs[r] + costs[a] > budget:
                        continue
                    h = H[a, j]
                    gain = (1.0 + oma) * (1.0 - omr) + h * h - 1.0
                    if gain > best:
                        best = gain
                        add = a
                        jrem = j
                continue
            # no budget: the row of H in memory order (the pair (a, a) has gain 0)
            ja = -1
            ga = best
            for j in range(S):
                h = H[a, j]
                gain = (1.0 + oma) * (1.0 - omr_s[j]) + h * h - 1.0
                if gain > ga:
                    ga = gain
                    ja = j
            if ja >= 0 and sup[ja] != a:
                best = ga
                add = a
                jrem = ja
        if add < 0:
            if verify and since > 0:  # never declare convergence on an updated state
                S = _d_full_state(X, counts, Mfix, Minv, om, H, sup, pos)
                if S < 0:
                    return n_ex, False
                since = 0
                continue
            break
        rem = sup[jrem]
        ua = mv(Minv, X[add])
        ur = mv(Minv, X[rem])
        colA[:] = X @ ua  # BLAS gemv: the dot products vectorised, no serial add chain
        oa = om[add]
        orr = om[rem]
        oar = colA[rem]
        s11, s12, s22 = rank2_core(oa, orr, oar, 1.0, 1.0)
        for j in range(S):  # the S-weighted rows of add and rem
            ra = H[add, j]
            rr = H[rem, j]
            rowA[j] = s11 * ra + s12 * rr
            rowR[j] = s12 * ra + s22 * rr
        pa = s11 * oa + s12 * oar  # the same for the new column of add
        qa = s12 * oa + s22 * oar
        new_col = pos[add] < 0
        drop = counts[rem] == 1  # rem leaves the support: the last column takes its place
        last = S if new_col else S - 1
        # one pass over the rows of H (row-major): update, new column, column move
        for b in range(K):
            ca = colA[b]
            cr = H[b, jrem]
            om[b] -= ca * (s11 * ca + s12 * cr) + cr * (s12 * ca + s22 * cr)
            for j in range(S):
                H[b, j] -= ca * rowA[j] + cr * rowR[j]
            if new_col:
                H[b, S] = ca - (ca * pa + cr * qa)
            if drop:
                H[b, jrem] = H[b, last]
        for r in range(d):
            a1 = s11 * ua[r] + s12 * ur[r]
            a2 = s12 * ua[r] + s22 * ur[r]
            for c in range(d):
                Minv[r, c] -= a1 * ua[c] + a2 * ur[c]
        counts[add] += 1
        counts[rem] -= 1
        if new_col:
            sup[S] = add
            pos[add] = S
            S += 1
        if drop:
            sup[jrem] = sup[last]
            pos[sup[jrem]] = jrem
            pos[rem] = -1
            S -= 1
        n_ex += 1
        since += 1
        if since >= refresh:
            S = _d_full_state(X, counts, Mfix, Minv, om, H, sup, pos)
            if S < 0:
                return n_ex, False
            since = 0
    return n_ex, True
