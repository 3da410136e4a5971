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

from design._criteria_numba import _info, _inverse_spd, mv, woodbury_pair

CRIT_D = 0
CRIT_LINEAR = 1
CRIT_DS = 2


@njit(cache=True)
def full_state(X: np.ndarray, XN: np.ndarray, L: np.ndarray, counts: np.ndarray,
               Mfix: np.ndarray, MfixN: np.ndarray, crit: int, Minv: np.ndarray,
               om: np.ndarray, g: np.ndarray, Ninv: np.ndarray, nu: np.ndarray) -> bool:
    """Recompute the whole state from the counts; False if ``M`` is not PD."""
    K, d = X.shape
    w = counts.astype(np.float64)
    M = _info(X, w) + Mfix
    if not _inverse_spd(M, Minv):
        return False
    Z = X @ Minv
    for a in range(K):
        s = 0.0
        for r in range(d):
            s += Z[a, r] * X[a, r]
        om[a] = s
    if crit == CRIT_LINEAR:
        ZL = Z @ L
        for a in range(K):
            s = 0.0
            for r in range(d):
                s += ZL[a, r] * Z[a, r]
            g[a] = s
    if crit == CRIT_DS and XN.shape[1] > 0:
        MN = _info(XN, w) + MfixN
        if not _inverse_spd(MN, Ninv):
            return False
        ZN = XN @ Ninv
        for a in range(K):
            s = 0.0
            for r in range(XN.shape[1]):
                s += ZN[a, r] * XN[a, r]
            nu[a] = s
    return True


@njit(cache=True)
def _linear_pair_update(X: np.ndarray, L: np.ndarray, Minv: np.ndarray, om: np.ndarray,
                        g: np.ndarray, add: int, rem: int) -> None:
    """``M <- M + x_add x_add^T - x_rem x_rem^T``: update ``Minv``, ``om`` and ``g``.

    Woodbury with ``U = [x_add, x_rem]``, ``C = diag(1, -1)``, ``S = (C^{-1} + U^T M^{-1}
    U)^{-1}``: ``om'_x = om_x - h^T S h`` and ``g'_x = g_x - 2 q^T S h + h^T S B S h`` with
    ``h = V^T x``, ``q = (M^{-1} L V)^T x``, ``V = M^{-1} U``, ``B = V^T L V``.
    """
    K, d = X.shape
    ua = mv(Minv, X[add])
    ur = mv(Minv, X[rem])
    oa = 0.0
    orr = 0.0
    oar = 0.0
    for r in range(d):
        oa += X[add, r] * ua[r]
        orr += X[rem, r] * ur[r]
        oar += X[add, r] * ur[r]
    Lua = mv(L, ua)
    Lur = mv(L, ur)
    b11 = 0.0
    b22 = 0.0
    b12 = 0.0
    for r in range(d):
        b11 += ua[r] * Lua[r]
        b22 += ur[r] * Lur[r]
        b12 += ua[r] * Lur[r]
    p11 = 1.0 + oa
    p22 = -1.0 + orr
    p12 = oar
    det = p11 * p22 - p12 * p12
    s11 = p22 / det
    s22 = p11 / det
    s12 = -p12 / det
    qa = mv(Minv, Lua)
    qr = mv(Minv, Lur)
    t11a = s11 * b11 + s12 * b12
    t12a = s11 * b12 + s12 * b22
    t21a = s12 * b11 + s22 * b12
    t22a = s12 * b12 + s22 * b22
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
            h1 += xr * ua[r]
            h2 += xr * ur[r]
            q1 += xr * qa[r]
            q2 += xr * qr[r]
        sh1 = s11 * h1 + s12 * h2
        sh2 = s12 * h1 + s22 * h2
        om[x] -= h1 * sh1 + h2 * sh2
        g[x] += -2.0 * (q1 * sh1 + q2 * sh2) + T11 * h1 * h1 + 2.0 * T12 * h1 * h2 + T22 * h2 * h2
    for r in range(d):
        for c in range(d):
            Minv[r, c] -= (s11 * ua[r] * ua[c] + s12 * (ua[r] * ur[c] + ur[r] * ua[c])
                           + s22 * ur[r] * ur[c])


@njit(cache=True)
def greedy_fill(X: np.ndarray, M0: np.ndarray, counts: np.ndarray, cap: np.ndarray,
                n_add: int) -> bool:
    """Add ``n_add`` runs one at a time, each at ``argmax_a x_a^T M^{-1} x_a`` among the
    candidates below their cap (sequential D-greedy, Wynn 1970), from ``M0`` (which the
    caller makes PD with a small ridge). Returns False if no candidate is left."""
    K, d = X.shape
    Minv = np.empty((d, d))
    if not _inverse_spd(M0.copy(), Minv):
        return False
    om = np.empty(K)
    Z = X @ Minv
    for a in range(K):
        s = 0.0
        for r in range(d):
            s += Z[a, r] * X[a, r]
        om[a] = s
    for _ in range(n_add):
        best = -1.0
        k = -1
        for a in range(K):
            if counts[a] < cap[a] and om[a] > best:
                best = om[a]
                k = a
        if k < 0:
            return False
        counts[k] += 1
        woodbury_pair(X, Minv, om, k, k, 1.0, 0.0)
    return True


@njit(cache=True)
def exchange(X: np.ndarray, XN: np.ndarray, L: np.ndarray, counts: np.ndarray,
             cap: np.ndarray, Mfix: np.ndarray, MfixN: np.ndarray, crit: int,
             max_passes: int, refresh: int) -> tuple[int, int, bool]:
    """Modified Fedorov exchange (Cook & Nachtsheim 1980) on the counts, in place.

    A pass visits every candidate ``r`` with a run; for it, the best ``a`` (below its cap)
    for the exchange "one run from ``r`` to ``a``" is found over all candidates at once:

    * D: ``det`` ratio ``(1 + om_a)(1 - om_r) + om_ar^2`` (Fedorov 1972);
    * Ds: the full ratio over the nuisance ratio;
    * linear ``tr(L M^{-1})``: decrease ``(a - c) / ((1 + om_a)(1 - om_r) + om_ar^2)`` with
      ``a = g_a - g_r``, ``c = om_r g_a - 2 om_ar b_ar + om_a g_r`` (as in
      :func:`design._criteria_numba.linear_exchange` at step 1).

    The exchange is made when it improves the criterion by a relative ``1e-10``. Stops after
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
    if not full_state(X, XN, L, counts, Mfix, MfixN, crit, Minv, om, g, Ninv, nu):
        return 0, 0, False
    phi = 0.0
    if crit == CRIT_LINEAR:
        for r in range(d):
            for c in range(d):
                phi += L[r, c] * Minv[c, r]
    hN = np.zeros(K)
    b = np.zeros(K)
    n_ex = 0
    since = 0
    passes = 0
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
                n_ex += 1
                since += 1
                changed = True
                if since >= refresh:
                    if not full_state(X, XN, L, counts, Mfix, MfixN, crit, Minv, om, g,
                                      Ninv, nu):
                        return n_ex, passes, False
                    if crit == CRIT_LINEAR:
                        phi = 0.0
                        for r in range(d):
                            for c in range(d):
                                phi += L[r, c] * Minv[c, r]
                    since = 0
        if not changed:
            break
        # exact refresh at the end of every pass with exchanges
        if not full_state(X, XN, L, counts, Mfix, MfixN, crit, Minv, om, g, Ninv, nu):
            return n_ex, passes, False
        if crit == CRIT_LINEAR:
            phi = 0.0
            for r in range(d):
                for c in range(d):
                    phi += L[r, c] * Minv[c, r]
        since = 0
    return n_ex, passes, True

