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
    cholesky_lower,
    inverse_spd,
    linear_pair_terms,
    linear_rank2_update,
    lower_inverse,
    mv,
    pair_terms,
    rank2_core,
    rank2_inverse_update,
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
def _d_rows(X: np.ndarray, Minv: np.ndarray, counts: np.ndarray, slot: np.ndarray,
            cand: np.ndarray, H: np.ndarray, om: np.ndarray) -> int:
    """Exact ``om_a = x_a^T M^{-1} x_a`` and the rows ``H[s, a] = x_a^T M^{-1} x_c`` of the
    support candidates ``c = cand[s]`` (``slot[c] = s``, -1 off the support). Returns the
    number of rows."""
    K, d = X.shape
    Z = X @ Minv
    rowwise_dot(Z, X, om)
    S = 0
    for a in range(K):
        slot[a] = -1
        if counts[a] > 0:
            slot[a] = S
            cand[S] = a
            S += 1
    if S > 0:
        H[:S] = (Z @ X[cand[:S]].T).T
    return S


@njit(cache=True)
def exchange_d(X: np.ndarray, counts: np.ndarray, cap: np.ndarray, Mfix: np.ndarray,
               max_steps: int, refresh: int, costs: np.ndarray, budget: float
               ) -> tuple[int, bool]:
    """Fedorov's best-pair exchange for D with the matrix of ``d(x_r, x_a)`` kept up to date.

    ``H[s, a] = x_a^T M^{-1} x_r`` for the support candidates ``r`` (at most ``n`` rows) and
    the variances ``om`` give every exchange ratio ``(1 + om_a)(1 - om_r) + H[r, a]^2`` in
    ``O(1)``; after the exchange ``r -> a`` the Woodbury formula updates them in
    ``O(n K)`` (``h'_{x y} = h_{x y} - [h_{x a}, h_{x r}] S [h_{y a}, h_{y r}]^T``, ``S``
    the 2x2 core) plus ``O(K d)`` when ``a`` is new to the support (its row) and ``O(d^2)``
    for ``M^{-1}`` (Cook & Nachtsheim 1980 keep the same matrix). The best pair is the
    same as the plain Fedorov exchange's, at ``O(n K)`` instead of ``O(n K d + K d^2)`` per
    step; candidates with ``om_a - min_r om_r`` below the best ratio found are skipped
    (``h^2 <= om_a om_r`` bounds the ratio by ``1 + om_a - om_r``). Exact refresh every
    ``refresh`` exchanges and before convergence is declared.
    """
    K, d = X.shape
    Minv = np.empty((d, d))
    if not inverse_spd(_info(X, counts.astype(np.float64)) + Mfix, Minv):
        return 0, False
    n_rows = 0
    for a in range(K):
        if counts[a] > 0:
            n_rows += 1
    cap_rows = min(K, n_rows + max_steps) if n_rows + max_steps < K else K
    n_max = 0
    for a in range(K):
        n_max += counts[a]
    cap_rows = min(cap_rows, n_max + 1)
    H = np.empty((cap_rows, K))
    slot = np.empty(K, dtype=np.int64)
    cand = np.empty(cap_rows, dtype=np.int64)
    om = np.empty(K)
    S = _d_rows(X, Minv, counts, slot, cand, H, om)
    spent = 0.0
    for a in range(K):
        spent += costs[a] * counts[a]
    ha = np.empty(K)
    hr = np.empty(K)
    n_ex = 0
    since = 0
    while n_ex < max_steps:
        om_min = np.inf
        for s in range(S):
            if om[cand[s]] < om_min:
                om_min = om[cand[s]]
        best = 1e-10
        add = -1
        rem = -1
        for s in range(S):
            r = cand[s]
            omr = om[r]
            row = H[s]
            for a in range(K):
                oma = om[a]
                if oma - omr <= best or counts[a] >= cap[a] or a == r:
                    continue
                h = row[a]
                score = oma - omr - oma * omr + h * h
                if score > best and spent - costs[r] + costs[a] <= budget:
                    best = score
                    add = a
                    rem = r
        if add < 0:
            if since == 0:
                break
            if not inverse_spd(_info(X, counts.astype(np.float64)) + Mfix, Minv):
                return n_ex, False
            S = _d_rows(X, Minv, counts, slot, cand, H, om)
            since = 0
            continue
        # the two rows before the change
        hr[:] = H[slot[rem]]
        if slot[add] >= 0:
            ha[:] = H[slot[add]]
        else:
            ua = mv(Minv, X[add])
            for a in range(K):
                t = 0.0
                for c in range(d):
                    t += X[a, c] * ua[c]
                ha[a] = t
        s11, s12, s22 = rank2_core(ha[add], hr[rem], ha[rem], 1.0, 1.0)
        for a in range(K):
            x1 = ha[a]
            x2 = hr[a]
            om[a] -= s11 * x1 * x1 + 2.0 * s12 * x1 * x2 + s22 * x2 * x2
        for s in range(S):
            y = cand[s]
            c1 = s11 * ha[y] + s12 * hr[y]
            c2 = s12 * ha[y] + s22 * hr[y]
            row = H[s]
            for a in range(K):
                row[a] -= c1 * ha[a] + c2 * hr[a]
        ua = mv(Minv, X[add])
        ur = mv(Minv, X[rem])
        rank2_inverse_update(Minv, ua, ur, s11, s12, s22)
        counts[add] += 1
        counts[rem] -= 1
        spent += costs[add] - costs[rem]
        if slot[add] < 0:
            c1 = s11 * ha[add] + s12 * hr[add]
            c2 = s12 * ha[add] + s22 * hr[add]
            for a in range(K):
                H[S, a] = ha[a] - c1 * ha[a] - c2 * hr[a]
            slot[add] = S
            cand[S] = add
            S += 1
        if counts[rem] == 0:  # move the last row into the freed slot
            s = slot[rem]
            S -= 1
            if s != S:
                H[s] = H[S]
                cand[s] = cand[S]
                slot[cand[s]] = s
            slot[rem] = -1
        n_ex += 1
        since += 1
        if since >= refresh:
            if not inverse_spd(_info(X, counts.astype(np.float64)) + Mfix, Minv):
                return n_ex, False
            S = _d_rows(X, Minv, counts, slot, cand, H, om)
            since = 0
            spent = 0.0
            for a in range(K):
                spent += costs[a] * counts[a]
    return n_ex, True


@njit(cache=True)
def exchange_starts(X: np.ndarray, XN: np.ndarray, L: np.ndarray, starts: np.ndarray,
                    cap: np.ndarray, Mfix: np.ndarray, MfixN: np.ndarray, crit: int,
                    max_steps: int, refresh: int, costs: np.ndarray, budget: float,
                    n_top: int, exchanges: np.ndarray, values: np.ndarray) -> None:
    """:func:`exchange` from every row of ``starts`` (in place): ``exchanges[s]`` the
    exchanges made, ``values[s]`` the final criterion (:func:`_phi`; ``inf`` when the start
    or the run became singular)."""
    for s in range(starts.shape[0]):
        c = starts[s]
        if crit == CRIT_D:
            n_ex, ok = exchange_d(X, c, cap, Mfix, max_steps, refresh, costs, budget)
        else:
            n_ex, ok = exchange(X, XN, L, c, cap, Mfix, MfixN, crit, max_steps, refresh,
                                costs, budget, n_top)
        exchanges[s] = n_ex
        values[s] = _phi(X, XN, L, c, Mfix, MfixN, crit) if ok else np.inf
