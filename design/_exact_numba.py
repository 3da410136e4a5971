"""Exchange algorithms of the exact designs (:mod:`design.exact`): jitted steps between
exact states recomputed by LAPACK.

State: the *unnormalised* information matrix ``M = M_fixed + sum_a n_a x_a x_a^T`` of the
runs, its inverse ``Minv``, the variances ``om_a = x_a^T M^{-1} x_a`` of every candidate and,
for the linear criteria ``tr(L M^{-1})``, ``g_a = x_a^T M^{-1} L M^{-1} x_a``; for Ds the
same for the nuisance block (``Ninv``, ``nu``); for D the cross-variances ``H[a, j] =
x_a^T M^{-1} x_{sup_j}`` with the support points. An exchange "remove one run at ``r``, add
one at ``a``" is the rank-two change ``M + x_a x_a^T - x_r x_r^T``, evaluated from
``d(x_a, x_r) = x_a^T M^{-1} x_r`` and applied by the Woodbury formula (``O(K d)``).

Compile time (issue 16): the exact states are computed here in Python with LAPACK and BLAS
(for a stack of starts at once), at the start and every ``refresh`` exchanges, and only
the ``O(K d)`` steps in between are jitted: one kernel per criterion family
(:func:`fedorov_d_steps` for D, :func:`kl_linear_steps` for A/I, :func:`kl_ds_steps` for
Ds), each with a ``greedy`` mode that builds the D-greedy starts with its own update, so a
call compiles one kernel. They are loops over preallocated arrays (no BLAS glue, no slice
assignment, no allocating helpers); the products ``X u`` of the D steps read the
transposed candidates ``XT`` (``d x K``, C-contiguous) row by row (axpy form: vectorised
without reassociating a sum). The full check of all pairs that ends an A/I/Ds exchange is
a BLAS product here (once per start).

Ties: symmetric candidate sets (grids) have exactly tied exchanges and variances; the
kernels break ties (within :data:`TIE`, :data:`GREEDY_TIE`) towards the smallest index, so
a design does not depend on the rounding of the state (the BLAS library, the basis).
"""

from __future__ import annotations

import numpy as np
from numba import njit
from scipy.linalg.lapack import dpotrf, dpotri

from design._jit import inner
from design._linalg import (
    linear_pair_terms,
    linear_rank2_update,
    pair_terms,
    rank2_core,
    rank2_inverse_update,
    rank2_variance_update,
)
from design._status import CONVERGED, MAX_ITER, REFRESH

TIE = 1e-11
"""Gains of the D exchange within ``TIE`` (relative to ``1 + gain``) of the best are ties,
broken towards the smallest (candidate, support point): symmetric candidate sets (grids)
have exact ties, which rounding would otherwise break (a design would then depend on the
BLAS library and the basis)."""
GREEDY_TIE = 1e-6
"""Variances of the D-greedy steps within ``GREEDY_TIE`` relative of the largest are ties,
broken towards the smallest index: the greedy starts from a tiny ridge, so its variances
carry relative errors of about ``1e-8`` (``1 / ridge`` times ``eps``)."""
CRIT_LINEAR = 1  # the criteria of exchange (D has its own kernel, fedorov_d_steps)
CRIT_DS = 2


# ----------------------------------------------------------------------------------------
# exact states (Python, LAPACK)
# ----------------------------------------------------------------------------------------


def _transposed(X: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(X.T)


def inverse_counts(X: np.ndarray, counts: np.ndarray, M0: np.ndarray) -> np.ndarray | None:
    """``(M0 + sum_a n_a x_a x_a^T)^{-1}`` (C-contiguous, exactly symmetric) by LAPACK's
    Cholesky; None if not numerically PD (a pivot ``L_jj^2 <= 1e-300``)."""
    sup = np.flatnonzero(counts)
    Xs = X[sup]
    C, info = dpotrf((Xs.T * counts[sup]) @ Xs + M0, lower=1, clean=1)
    dg = C.diagonal()
    if info != 0 or not (dg * dg > 1e-300).all():
        return None
    Ci, info = dpotri(C, lower=1)
    if info != 0:  # pragma: no cover - C has a positive diagonal
        return None
    # dpotri wrote the lower triangle; the strict upper one is C's (zeros): mirror it
    Minv = Ci + Ci.T
    Minv.flat[:: Minv.shape[0] + 1] *= 0.5
    return Minv


def _variances(X: np.ndarray, Minv: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``Z = X M^{-1}`` and the variances ``om_a = z_a . x_a``."""
    Z = X @ Minv
    return Z, np.einsum("ij,ij->i", Z, X)


# ----------------------------------------------------------------------------------------
# sequential D-greedy (the starts)
# ----------------------------------------------------------------------------------------


# ----------------------------------------------------------------------------------------
# D: Fedorov's exchange with the cross-variances kept updated
# ----------------------------------------------------------------------------------------


@inner(inline="always")
def _greedy_pick(om: np.ndarray, counts: np.ndarray, cap: np.ndarray, costs: np.ndarray,
                 budget: float, priced: bool, left: int) -> int:
    """The next run of the sequential D-greedy design (Wynn 1970): ``argmax_a om_a`` among
    the candidates below their cap whose cost leaves the ``left - 1`` runs still to add
    payable at the cheapest cost (``spent + c_a + (left - 1) c_min <= budget``); -1 if
    none."""
    K = om.shape[0]
    spent = 0.0
    reserve = 0.0
    if priced:
        cmin = np.inf
        for a in range(K):
            spent += costs[a] * counts[a]
            if cap[a] > 0 and costs[a] < cmin:
                cmin = costs[a]
        if left > 1:
            reserve = (left - 1) * cmin
    best = -1.0
    k = -1
    for a in range(K):  # ties (within GREEDY_TIE relative) to the smallest index
        if counts[a] < cap[a] and om[a] > best + GREEDY_TIE * abs(best) \
                and spent + costs[a] + reserve <= budget:
            best = om[a]
            k = a
    return k


@njit(cache=True)
def fedorov_d_steps(X: np.ndarray, XT: np.ndarray, C: np.ndarray, cap: np.ndarray,
                    costs: np.ndarray, budget: float, Minv: np.ndarray, om: np.ndarray,
                    H: np.ndarray, sup: np.ndarray, S: np.ndarray, n_ex: np.ndarray,
                    logdet: np.ndarray, status: np.ndarray, max_steps: int, refresh: int,
                    greedy: bool) -> None:
    """Fedorov's exchange steps for D (every step the best pair "one run from a support
    point ``r`` to a candidate ``a``" over all pairs, Fedorov 1972) from exact states, for
    every design ``i`` of the stack whose ``status[i]`` is ``REFRESH`` (the others are left
    alone), in place, at ``O(K S + K d)`` per exchange (``S`` support points) instead of
    ``O(K S d + K d^2)``.

    The state of design ``i`` (counts ``C[i]``) is ``Minv[i] = M^{-1}``, the variances
    ``om[i]`` and the cross-variances ``H[i, a, j] = x_a^T M^{-1} x_r`` of every candidate
    with every support point ``r = sup[i, j]``, ``j < S[i]``: the determinant ratio of a
    pair is ``(1 + om_a)(1 - om_r) + H[a, j]^2`` (``O(1)``), bounded by ``1 + om_a - om_r``
    (``H^2 <= om_a om_r``): a candidate with ``om_a - min_r om_r`` below the best gain so
    far is skipped in ``O(1)`` (the candidate of largest variance is scanned first, so the
    best gain is large early), the others scan their row of ``H`` in memory order; ties
    (within ``TIE``) go to the smallest (candidate, support point). The exchange ``M + x_a
    x_a^T - x_r x_r^T`` updates ``om`` and ``H`` by the rank-two Woodbury formula (one
    row-major pass over ``H``): ``x^T M'^{-1} y = x^T M^{-1} y - h_x^T S h_y`` with ``h_x =
    (x^T M^{-1} x_a, x^T M^{-1} x_r)``, the column of ``a`` costing one ``O(K d)`` product
    (over ``XT``). With costs only exchanges within the budget are made (the spent total
    from the counts every step: no drift). ``logdet[i]`` (``log det M`` of the state given)
    is carried along: plus ``log`` of each exchange's determinant ratio.

    Sets ``status[i]``: ``CONVERGED`` when no exchange gains more than ``1e-10`` (the plain
    Fedorov threshold) on the current state, ``REFRESH`` again after ``refresh`` exchanges
    (the caller recomputes the state), ``MAX_ITER`` when ``n_ex[i]`` (the exchanges of
    design ``i``, accumulated) reaches ``max_steps``; ``S[i]`` follows the support.

    ``greedy``: the sequential D-greedy design instead (Wynn 1970; ``H`` unused): each of
    ``max_steps`` steps adds one run at ``argmax_a om_a`` among the candidates below their
    cap whose cost leaves the runs still to add payable at the cheapest cost (``spent + c_a
    + (left - 1) c_min <= budget``), by the same update with no run removed (Sherman-
    Morrison); ``status[i]`` is ``MAX_ITER`` when all were added, ``CONVERGED`` when no
    candidate was left.
    """
    K, d = X.shape
    n_max = H.shape[2]
    colA = np.empty(K)
    ua = np.empty(d)
    ur = np.empty(d)
    rowA = np.empty(n_max)
    rowR = np.empty(n_max)
    omr_s = np.empty(n_max)
    priced = budget < np.inf
    for i in range(C.shape[0]):
        if status[i] != REFRESH:
            continue
        counts = C[i]
        Mi = Minv[i]
        omi = om[i]
        Hi = H[i]
        supi = sup[i]
        Si = S[i]
        status[i] = MAX_ITER
        since = 0
        while n_ex[i] < max_steps:
            if since >= refresh:
                status[i] = REFRESH
                break
            add = -1
            jrem = -1
            if greedy:
                best = 0.0
                add = _greedy_pick(omi, counts, cap, costs, budget, priced,
                                   max_steps - n_ex[i])
                rem = add  # nothing removed: the rank-one update below (s12 = s22 = 0)
            else:
                spent = 0.0
                if priced:
                    for a in range(K):
                        spent += costs[a] * counts[a]
                omr_min = np.inf
                for j in range(Si):
                    v = omi[supi[j]]
                    omr_s[j] = v
                    if v < omr_min:
                        omr_min = v
                best = 1e-10  # the largest gain seen
                gsel = best  # the gain of the chosen pair
                a0 = -1  # first the candidate of largest variance: a large gain early prunes
                for a in range(K):
                    if counts[a] < cap[a] and (a0 < 0 or omi[a] > omi[a0]):
                        a0 = a
                for ia in range(-1, K):
                    a = a0 if ia < 0 else ia
                    if a < 0 or counts[a] >= cap[a] or (ia >= 0 and a == a0):
                        continue
                    oma = omi[a]
                    tie = TIE * (1.0 + best) if add >= 0 else 0.0
                    if oma - omr_min <= best - tie:
                        continue  # no pair of a can reach best (gain <= om_a - om_r)
                    for j in range(Si):
                        h = Hi[a, j]
                        gain = (1.0 + oma) * (1.0 - omr_s[j]) + h * h - 1.0
                        if gain <= best - tie:
                            continue
                        r = supi[j]
                        if r == a or (priced and spent - costs[r] + costs[a] > budget):
                            continue
                        # a larger gain, or a tie (within TIE: rounding) broken towards the
                        # smallest (candidate, support point): the same design whatever the
                        # rounding of the state
                        if gain > best + tie or a < add or (a == add and r < supi[jrem]):
                            if gain > best:
                                best = gain
                            gsel = gain
                            add = a
                            jrem = j
                            tie = TIE * (1.0 + best)
                rem = supi[jrem] if add >= 0 else -1
            if add < 0:
                status[i] = CONVERGED
                break
            for r in range(d):
                sa = 0.0
                sr = 0.0
                for c in range(d):
                    sa += Mi[r, c] * X[add, c]
                    sr += Mi[r, c] * X[rem, c]
                ua[r] = sa
                ur[r] = sr
            for b in range(K):  # colA = X ua, axpy over the rows of XT (d >= 1)
                colA[b] = XT[0, b] * ua[0]
            for c in range(1, d):
                uc = ua[c]
                for b in range(K):
                    colA[b] += XT[c, b] * uc
            oa = omi[add]
            if greedy:
                s11 = 1.0 / (1.0 + oa)
                s12 = 0.0
                s22 = 0.0
            else:
                orr = omi[rem]
                oar = colA[rem]
                s11, s12, s22 = rank2_core(oa, orr, oar, 1.0, 1.0)
                for j in range(Si):  # the S-weighted rows of add and rem
                    ra = Hi[add, j]
                    rr = Hi[rem, j]
                    rowA[j] = s11 * ra + s12 * rr
                    rowR[j] = s12 * ra + s22 * rr
                pa = s11 * oa + s12 * oar  # the same for the new column of add
                qa = s12 * oa + s22 * oar
            new_col = not greedy and counts[add] == 0
            drop = not greedy and counts[rem] == 1  # rem leaves: the last column moves in
            last = Si if new_col else Si - 1
            # one pass over the rows of H (row-major): update, new column, column move
            for b in range(K):
                ca = colA[b]
                cr = 0.0 if greedy else Hi[b, jrem]
                omi[b] -= ca * (s11 * ca + s12 * cr) + cr * (s12 * ca + s22 * cr)
                if greedy:
                    continue
                for j in range(Si):
                    Hi[b, j] -= ca * rowA[j] + cr * rowR[j]
                if new_col:
                    Hi[b, Si] = ca - (ca * pa + cr * qa)
                if drop:
                    Hi[b, jrem] = Hi[b, last]
            rank2_inverse_update(Mi, ua, ur, s11, s12, s22)
            counts[add] += 1
            n_ex[i] += 1
            since += 1
            if greedy:
                continue
            logdet[i] += np.log1p(gsel)
            counts[rem] -= 1
            if new_col:
                supi[Si] = add
                Si += 1
            if drop:
                supi[jrem] = supi[last]
                Si -= 1
        S[i] = Si


def _inverse_stack(M: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(M_i^{-1}, diag L_i, ok_i)`` for a stack of symmetric matrices (``L_i`` their
    Cholesky factors); ``ok_i`` False when ``M_i`` is not numerically PD (a pivot ``L_jj^2
    <= 1e-300``) or is exactly singular for LU (a singular integer matrix, a design on a
    grid, can pass the Cholesky with a pivot at rounding level): its inverse is then the
    identity's."""
    B, d, _ = M.shape
    try:
        L = np.linalg.cholesky(M)
        ok = np.ones(B, dtype=bool)
    except np.linalg.LinAlgError:  # one is not PD: factor them one by one
        L = np.empty_like(M)
        ok = np.empty(B, dtype=bool)
        for i in range(B):
            L[i], info = dpotrf(M[i], lower=1, clean=1)
            ok[i] = info == 0
    dg = np.diagonal(L, axis1=1, axis2=2).copy()
    ok &= (dg * dg > 1e-300).all(axis=1)
    if not ok.all():
        M = M.copy()
        M[~ok] = np.eye(d)
    try:
        Minv = np.linalg.inv(M)
    except np.linalg.LinAlgError:  # an exact zero pivot in LU: one by one
        Minv = np.empty_like(M)
        for i in range(B):
            try:
                Minv[i] = np.linalg.inv(M[i])
            except np.linalg.LinAlgError:
                Minv[i] = np.eye(d)
                ok[i] = False
    return Minv, dg, ok


def _d_base(X: np.ndarray, C: np.ndarray, Mfix: np.ndarray, n_max: int):
    """The exact states of :func:`fedorov_d_steps` for the rows of ``C`` (LAPACK and BLAS on
    the stack) but their cross-variances (:func:`_d_cross`): ``(Minv, Z, om, sup, S, logdet,
    ok)``, ``Z = X M^{-1}`` per design (``(B, K, d)``); ``ok[i]`` False if ``M_i`` is not
    numerically PD (a Cholesky pivot ``L_jj^2 <= 1e-300``) or numerically singular: a
    support point has ``n_r om_r <= 1`` (``M >= n_r x_r x_r^T``), so ``n_r om_r > 1 +
    1e-6`` means ``M^{-1}`` is wrong beyond that (a start on a nearly singular design, whose
    exchanges would follow noise)."""
    B, K = C.shape
    totals = C.sum(axis=1)
    if (totals == totals[0]).all() and totals[0] <= 4 * K:  # the runs' rows: O(B n d^2)
        # instead of O(B K d^2), for n up to 4 K (beyond, the counts' form is cheaper and
        # the runs' rows would take n d floats: 800 MB for n = 1e7, d = 10)
        runs = np.repeat(np.tile(np.arange(K), B), C.ravel()).reshape(B, int(totals[0]))
        R = X[runs]
        M = np.matmul(R.transpose(0, 2, 1), R) + Mfix
    else:
        M = np.matmul((C[:, :, None] * X).transpose(0, 2, 1), X) + Mfix
    Minv, dg, ok = _inverse_stack(M)
    Z = np.matmul(X, Minv)  # (B, K, d)
    om = np.einsum("bkj,kj->bk", Z, X)
    ok &= (C * om <= 1.0 + 1e-6).all(axis=1)
    S = np.count_nonzero(C, axis=1)
    sup = np.argsort(C == 0, axis=1, kind="stable")[:, :n_max]  # the support first, in order
    with np.errstate(divide="ignore", invalid="ignore"):
        logdet = 2.0 * np.log(dg).sum(axis=1)
    return Minv, Z, om, sup, S, logdet, ok


def _d_cross(X: np.ndarray, Z: np.ndarray, sup: np.ndarray, S: np.ndarray, n_max: int
             ) -> np.ndarray:
    """The cross-variances ``H[i, a, j] = x_a^T M_i^{-1} x_{sup[i, j]}`` (``j < S[i]``;
    columns up to ``n_max``: room for the support to grow) from ``Z = X M^{-1}``."""
    B, K, _ = Z.shape
    s_max = int(S.max())
    H = np.empty((B, K, n_max))
    H[:, :, :s_max] = np.matmul(Z, X[sup[:, :s_max]].transpose(0, 2, 1))
    return H


NO_GAIN = 0.5e-10
""":func:`_no_gain`'s threshold: half the exchange's (``1e-10``), far above the rounding of
the gains on the basis ``Q``, so a design it passes is one the steps would end on."""


def _no_gain(X: np.ndarray, C: np.ndarray, cap: np.ndarray, Z: np.ndarray, om: np.ndarray,
             sup: np.ndarray, S: np.ndarray, tally: list[int]) -> np.ndarray:
    """For each design ``i`` of a fresh exact state (:func:`_d_base`), whether no exchange
    gains more than :data:`NO_GAIN`: then :func:`fedorov_d_steps` (threshold ``1e-10``)
    would end on it at once, so its cross-variances need not be formed. The gain of a pair
    is at most ``om_a - om_r`` (``H^2 <= om_a om_r``); only the candidates above ``min_r
    om_r + NO_GAIN`` (on the 5-level grids 40-60% of them at the end designs of the reduced
    phase) get their row of ``H`` (``O(S d)`` each) and their gains. Budgets are ignored
    (a pair refused by the budget only makes this answer False: the steps then run as
    before; their ``H`` is then formed in full by :func:`_d_cross`, as without the test,
    for the same rounding). ``tally``: designs passed and failed so far in the call
    (updated); it stops testing when more failed than passed (then it mostly costs: at ``N
    = p`` on the 5-level grids most end designs of the reduced phase still gain)."""
    done = np.zeros(C.shape[0], dtype=bool)
    free = C < cap
    for i in range(C.shape[0]):
        if tally[1] > tally[0]:
            break
        s = sup[i, :S[i]]
        omr = om[i, s]
        rows = np.flatnonzero(free[i] & (om[i] > float(omr.min()) + NO_GAIN))
        h = Z[i, rows] @ X[s].T
        # gain + 1 = (1 + om_a)(1 - om_r) + h^2
        g = np.multiply.outer(1.0 + om[i, rows], 1.0 - omr)
        g += h * h
        done[i] = rows.size == 0 or float(g.max()) <= 1.0 + NO_GAIN
        tally[0 if done[i] else 1] += 1
    return done


def fedorov_d_starts(X: np.ndarray, starts: np.ndarray, cap: np.ndarray, Mfix: np.ndarray,
                     max_steps: int, refresh: int, costs: np.ndarray, budget: float,
                     n_ex: np.ndarray, logdet: np.ndarray, XT: np.ndarray | None = None,
                     verify: bool = False, resume: bool = False, check: bool = False
                     ) -> None:
    """Fedorov's exchange for D from every row of ``starts`` (counts, in place):
    :func:`fedorov_d_steps` between exact states recomputed here (at the start and every
    ``refresh`` exchanges; a batch of starts at a time). ``n_ex[i]`` the exchanges of start
    ``i``, ``logdet[i] = log det M`` of its end design (``-inf`` if ``M`` is not PD or the
    state became singular): of the last exact state (Cholesky), plus the log of each
    exchange's determinant ratio since (their drift is at rounding level: ``logdet`` ranks
    the starts, the kept design is valued from its counts).

    Without ``verify`` a run ends where the updated state shows no gain (its drift since
    the last refresh is at rounding level): for the starts that are only compared; the
    caller verifies the design it keeps with :func:`fedorov_d`. With ``verify`` a run never
    ends on an updated state: when the steps find no gain after an exchange, the state is
    recomputed and the exchange continues if it then finds one, so every returned design is
    a local optimum checked on an exactly recomputed state (no single exchange improves it
    by more than ``1e-10``).

    ``resume``: ``n_ex`` holds the exchanges already made on each start (an earlier phase,
    e.g. on a subset of the candidates), counted against ``max_steps``; else it is reset.

    ``check``: for starts likely to be local optima already (the end designs of an earlier
    phase, the design to verify), each exact state is first tested by :func:`_no_gain`,
    and the designs it passes end there (what the steps would do) without their
    cross-variances ``H``, the largest part of a state (``K S`` against ``K d``): the same
    designs, exchanges and ``logdet``."""
    B, K = starts.shape
    XT = _transposed(X) if XT is None else XT
    n_max = min(K, int(starts.sum(axis=1).max()) + 1)
    chunk = max(1, min(B, 400_000 // (K * (n_max + X.shape[1]))))  # stacks of <= 3 MB
    if not resume:
        n_ex[:] = 0
    logdet[:] = -np.inf
    tally = [0, 0]  # designs passed by _no_gain, and not: it stops when most fail
    for lo in range(0, B, chunk):
        todo = np.arange(lo, min(B, lo + chunk))
        while todo.size:
            C = starts[todo]
            Minv, Z, om, sup, S, ld, ok = _d_base(X, C, Mfix, n_max)
            done = np.zeros_like(ok)
            if check and tally[0] >= tally[1]:
                done = ok & _no_gain(X, C, cap, Z, om, sup, S, tally)
            logdet[todo[done]] = ld[done]  # at a local optimum: ended here, as in the steps
            logdet[todo[~ok]] = -np.inf
            keep = ok & ~done
            if not keep.all():  # copies: not on the common path without check
                todo, C, Minv, Z, om, sup, S, ld = (v[keep] for v in (todo, C, Minv, Z, om,
                                                                       sup, S, ld))
                if not todo.size:
                    break
            H = _d_cross(X, Z, sup, S, n_max)
            sup = np.ascontiguousarray(sup)
            ne = n_ex[todo]
            st = np.full(todo.size, REFRESH, dtype=np.int64)
            fedorov_d_steps(X, XT, C, cap, costs, float(budget), Minv, om, H, sup, S, ne, ld,
                            st, int(max_steps), int(refresh), False)
            again = (st == REFRESH) | (verify & (st == CONVERGED) & (ne > n_ex[todo]))
            starts[todo] = C
            n_ex[todo] = ne
            logdet[todo] = ld
            todo = todo[again]


def fedorov_d(X: np.ndarray, counts: np.ndarray, cap: np.ndarray, Mfix: np.ndarray,
              max_steps: int, refresh: int, costs: np.ndarray, budget: float,
              XT: np.ndarray | None = None) -> tuple[int, bool]:
    """Fedorov's exchange for D from ``counts`` (in place), verified
    (:func:`fedorov_d_starts` with ``verify`` on one start): the returned design is a local
    optimum checked on an exactly recomputed state. Returns ``(exchanges, ok)``; ``ok`` is
    False if ``M`` is (or became) singular."""
    C = counts[None, :].copy()
    n_ex = np.zeros(1, dtype=np.int64)
    logdet = np.empty(1)
    fedorov_d_starts(X, C, cap, Mfix, max_steps, refresh, costs, budget, n_ex, logdet, XT,
                     True, check=True)
    counts[:] = C[0]
    return int(n_ex[0]), bool(np.isfinite(logdet[0]))


# ----------------------------------------------------------------------------------------
# A, I, Ds: the KL exchange
# ----------------------------------------------------------------------------------------


@inner(inline="always")
def _support_and_top(counts: np.ndarray, cap: np.ndarray, score: np.ndarray,
                     rows: np.ndarray, cols: np.ndarray, key: np.ndarray) -> tuple[int, int]:
    """The support (``rows[:S]``, increasing) and the ``cols.size`` allowed candidates (below
    their cap) of largest ``score`` (``cols[:nc]``, decreasing; by insertion into a sorted
    buffer, ``O(K)`` for a small buffer): ``(S, nc)``."""
    n_cap = cols.shape[0]
    S = 0
    nc = 0
    for a in range(counts.shape[0]):
        if counts[a] > 0:
            rows[S] = a
            S += 1
        if counts[a] >= cap[a]:
            continue
        v = score[a]  # ties (within TIE) keep the index order
        if nc == n_cap and v <= key[nc - 1] + TIE * abs(key[nc - 1]):
            continue
        j = nc if nc < n_cap else n_cap - 1
        while j > 0 and key[j - 1] + TIE * abs(key[j - 1]) < v:
            key[j] = key[j - 1]
            cols[j] = cols[j - 1]
            j -= 1
        key[j] = v
        cols[j] = a
        if nc < n_cap:
            nc += 1
    return S, nc


@inner(inline="always")
def _better(gain: float, best: float, a: int, r: int, add: int, rem: int) -> bool:
    """Whether the exchange ``(a, r)`` of ``gain`` replaces ``(add, rem)`` of ``best``: a
    larger gain (beyond ``TIE`` relative to ``1 + best``; any gain above the threshold
    ``best`` when there is none yet), or a tie broken towards the smaller ``(a, r)``."""
    if add < 0:
        return gain > best
    tie = TIE * (1.0 + abs(best))
    return gain > best + tie or (gain >= best - tie and (a < add or (a == add and r < rem)))


@njit(cache=True)
def kl_linear_steps(X: np.ndarray, L: np.ndarray, counts: np.ndarray, cap: np.ndarray,
                 Minv: np.ndarray, om: np.ndarray, g: np.ndarray, phi: float,
                 costs: np.ndarray, budget: float, n_top: int, max_steps: int, refresh: int,
                 greedy: bool) -> tuple[int, int, float]:
    """KL exchange steps (Harman & Filova's ``od_KL``) for ``tr(L M^{-1})`` (A, I) from an
    exact state, in place.

    A step evaluates the exchanges from every support point ``r`` to the ``n_top`` allowed
    candidates ``a`` (below their cap) with the largest directional derivative ``g_a``,
    within the budget, in ``O(n n_top d)``, and makes the best one if it gains more than
    ``1e-10`` (relative), updating ``M^{-1}``, every ``om`` and ``g`` by the rank-two
    Woodbury formula in ``O(K d)``. The gain, from Fedorov's ratio ``(1 + om_a)(1 - om_r) +
    h_ar^2`` (``h_ar = x_a^T M^{-1} x_r``), is ``(g_a - g_r - om_r g_a + 2 h_ar b_ar - om_a
    g_r) / ratio / phi`` (the rank-two Woodbury decrease of ``tr(L M^{-1})``, ``b_ar =
    x_a^T M^{-1} L M^{-1} x_r``).

    Returns ``(status, exchanges, phi)``: ``CONVERGED`` when none of those exchanges gains
    (the caller then refreshes the state, or checks every pair on an exact one),
    ``REFRESH`` after ``refresh`` exchanges, ``MAX_ITER`` after ``max_steps``; ``phi`` the
    updated ``tr(L M^{-1})``. ``greedy``: the sequential D-greedy steps of
    :func:`fedorov_d_steps` instead (``max_steps`` runs added at the largest ``om_a``, the
    same arithmetic; ``CONVERGED`` if no candidate was left).
    """
    K, d = X.shape
    n_sup = 0  # the support never has more points than runs
    for a in range(K):
        n_sup += counts[a]
    n_sup = min(n_sup, K)
    rows = np.empty(n_sup, dtype=np.int64)
    cols = np.empty(min(n_top, K), dtype=np.int64)
    key = np.empty(cols.shape[0])
    U = np.empty((n_sup, d))
    V = np.empty((n_sup, d))
    lu = np.empty(d)
    priced = budget < np.inf
    n_ex = 0
    while n_ex < max_steps:
        best = 0.0
        if greedy:
            add = _greedy_pick(om, counts, cap, costs, budget, priced, max_steps - n_ex)
            rem = add
        else:
            S, nc = _support_and_top(counts, cap, g, rows, cols, key)
            spent = 0.0
            if priced:
                for a in range(K):
                    spent += costs[a] * counts[a]
            for k in range(S):  # u_r = M^{-1} x_r, v_r = M^{-1} L u_r
                r = rows[k]
                for i in range(d):
                    s = 0.0
                    for c in range(d):
                        s += Minv[i, c] * X[r, c]
                    U[k, i] = s
                for i in range(d):
                    s = 0.0
                    for c in range(d):
                        s += L[i, c] * U[k, c]
                    lu[i] = s
                for i in range(d):
                    s = 0.0
                    for c in range(d):
                        s += Minv[i, c] * lu[c]
                    V[k, i] = s
            best = 1e-10
            add = -1
            rem = -1
            for ka in range(nc):
                a = cols[ka]
                oma = om[a]
                for k in range(S):
                    r = rows[k]
                    if a == r or spent - costs[r] + costs[a] > budget:
                        continue
                    omr = om[r]
                    h = 0.0
                    b = 0.0
                    for c in range(d):
                        h += X[a, c] * U[k, c]
                        b += X[a, c] * V[k, c]
                    ratio = (1.0 + oma) * (1.0 - omr) + h * h
                    if ratio <= 1e-10:
                        continue
                    gain = ((g[a] - g[r]) - (omr * g[a] - 2.0 * h * b + oma * g[r])) \
                        / ratio / phi
                    if _better(gain, best, a, r, add, rem):
                        best = gain
                        add = a
                        rem = r
        if add < 0:
            return CONVERGED, n_ex, phi
        ui, uj, oa, orr, oar = pair_terms(X, Minv, add, rem)
        if greedy:  # Sherman-Morrison with the state's variance, as fedorov_d_steps
            s11 = 1.0 / (1.0 + om[add])
            s12 = 0.0
            s22 = 0.0
        else:
            s11, s12, s22 = rank2_core(oa, orr, oar, 1.0, 1.0)
            phi -= best * phi
        Lui, Luj, b11, b22, b12 = linear_pair_terms(L, ui, uj)
        linear_rank2_update(X, Minv, ui, uj, Lui, Luj, b11, b22, b12, s11, s12, s22, g, om,
                            True)
        counts[add] += 1
        if not greedy:
            counts[rem] -= 1
        n_ex += 1
        if n_ex >= refresh:
            return REFRESH, n_ex, phi
    return MAX_ITER, n_ex, phi


@njit(cache=True)
def kl_ds_steps(X: np.ndarray, XN: np.ndarray, counts: np.ndarray, cap: np.ndarray,
             Minv: np.ndarray, om: np.ndarray, Ninv: np.ndarray, nu: np.ndarray,
             costs: np.ndarray, budget: float, n_top: int, max_steps: int, refresh: int,
             greedy: bool) -> tuple[int, int]:
    """KL exchange steps for Ds from an exact state (``M^{-1}``, ``om``; the nuisance
    block's ``N^{-1}`` and ``nu``), in place: as :func:`kl_linear_steps`, with the candidates
    of largest ``om_a - nu_a`` and the gain ``ratio / ratio_N - 1`` (Fedorov's ratio over
    the nuisance block's), both inverses updated. Returns ``(status, exchanges)``;
    ``greedy`` as in :func:`kl_linear_steps`."""
    K, d = X.shape
    m = XN.shape[1]
    n_sup = 0
    for a in range(K):
        n_sup += counts[a]
    n_sup = min(n_sup, K)
    rows = np.empty(n_sup, dtype=np.int64)
    cols = np.empty(min(n_top, K), dtype=np.int64)
    key = np.empty(cols.shape[0])
    sc = np.empty(K)
    U = np.empty((n_sup, d))
    UN = np.empty((n_sup, m))
    priced = budget < np.inf
    n_ex = 0
    while n_ex < max_steps:
        if greedy:
            add = _greedy_pick(om, counts, cap, costs, budget, priced, max_steps - n_ex)
            rem = add
        else:
            for a in range(K):
                sc[a] = om[a] - nu[a]
            S, nc = _support_and_top(counts, cap, sc, rows, cols, key)
            spent = 0.0
            if priced:
                for a in range(K):
                    spent += costs[a] * counts[a]
            for k in range(S):  # u_r = M^{-1} x_r and the nuisance one
                r = rows[k]
                for i in range(d):
                    s = 0.0
                    for c in range(d):
                        s += Minv[i, c] * X[r, c]
                    U[k, i] = s
                for i in range(m):
                    s = 0.0
                    for c in range(m):
                        s += Ninv[i, c] * XN[r, c]
                    UN[k, i] = s
            best = 1e-10
            add = -1
            rem = -1
            for ka in range(nc):
                a = cols[ka]
                oma = om[a]
                for k in range(S):
                    r = rows[k]
                    if a == r or spent - costs[r] + costs[a] > budget:
                        continue
                    h = 0.0
                    for c in range(d):
                        h += X[a, c] * U[k, c]
                    ratio = (1.0 + oma) * (1.0 - om[r]) + h * h
                    if ratio <= 1e-10:
                        continue
                    hn = 0.0
                    for c in range(m):
                        hn += XN[a, c] * UN[k, c]
                    rn = (1.0 + nu[a]) * (1.0 - nu[r]) + hn * hn if m > 0 else 1.0
                    if rn <= 1e-12:
                        continue
                    gain = ratio / rn - 1.0
                    if _better(gain, best, a, r, add, rem):
                        best = gain
                        add = a
                        rem = r
        if add < 0:
            return CONVERGED, n_ex
        ui, uj, oa, orr, oar = pair_terms(X, Minv, add, rem)
        if greedy:  # Sherman-Morrison with the state's variance, as fedorov_d_steps
            s11 = 1.0 / (1.0 + om[add])
            s12 = 0.0
            s22 = 0.0
        else:
            s11, s12, s22 = rank2_core(oa, orr, oar, 1.0, 1.0)
        rank2_variance_update(X, om, ui, uj, s11, s12, s22)
        rank2_inverse_update(Minv, ui, uj, s11, s12, s22)
        counts[add] += 1
        if not greedy:
            counts[rem] -= 1
            if m > 0:
                ni, nj, na, nr, nar = pair_terms(XN, Ninv, add, rem)
                t11, t12, t22 = rank2_core(na, nr, nar, 1.0, 1.0)
                rank2_variance_update(XN, nu, ni, nj, t11, t12, t22)
                rank2_inverse_update(Ninv, ni, nj, t11, t12, t22)
        n_ex += 1
        if n_ex >= refresh:
            return REFRESH, n_ex
    return MAX_ITER, n_ex


def _linear_state(X: np.ndarray, XN: np.ndarray, L: np.ndarray, counts: np.ndarray,
                  Mfix: np.ndarray, MfixN: np.ndarray, crit: int
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                             float] | None:
    """The exact state of :func:`kl_linear_steps` / :func:`kl_ds_steps` from the counts:
    ``(Minv, om, g, Ninv, nu, phi)`` (``g`` zero for Ds, ``Ninv``, ``nu`` empty/zero for
    the linear criteria, ``phi = tr(L M^{-1})`` for them, 0 for Ds); None if ``M`` (or the
    nuisance block) is not PD."""
    K, m = XN.shape
    Minv = inverse_counts(X, counts, Mfix)
    if Minv is None:
        return None
    Z, om = _variances(X, Minv)
    g = np.zeros(K)
    nu = np.zeros(K)
    Ninv = np.empty((m, m))
    phi = 0.0
    if crit == CRIT_LINEAR:
        g = np.einsum("ij,ij->i", Z @ L, Z)
        phi = float(np.einsum("ij,ji->", L, Minv))
        if not phi > 0.0:
            return None
    elif m > 0:
        Ninv = inverse_counts(XN, counts, MfixN)
        if Ninv is None:
            return None
        nu = _variances(XN, Ninv)[1]
    return Minv, om, g, Ninv, nu, phi


def _full_scan(X: np.ndarray, XN: np.ndarray, L: np.ndarray, counts: np.ndarray,
               cap: np.ndarray, crit: int, state: tuple, costs: np.ndarray, budget: float
               ) -> tuple[int, int]:
    """The best exchange over **all** (support point, allowed candidate) pairs within the
    budget, by the gains of :func:`kl_linear_steps` / :func:`kl_ds_steps` (BLAS products
    for the ``h_ar`` and ``b_ar`` of every pair): ``(add, rem)``, ``add = -1`` if none
    gains more than ``1e-10``. Ties (within ``TIE``) go to the first pair in (candidate,
    support point) order, as in the steps."""
    Minv, om, g, Ninv, nu, phi = state
    rows = np.flatnonzero(counts > 0)
    cols = np.flatnonzero(counts < cap)
    if rows.size == 0 or cols.size == 0:
        return -1, -1
    U = X[rows] @ Minv
    Xc = X[cols]
    Hm = Xc @ U.T
    oma = om[cols][:, None]
    omr = om[rows][None, :]
    ratio = (1.0 + oma) * (1.0 - omr) + Hm * Hm
    bad = (cols[:, None] == rows[None, :]) | (ratio <= 1e-10)
    if budget < np.inf:
        spent = float(costs @ counts)
        bad |= spent - costs[rows][None, :] + costs[cols][:, None] > budget
    with np.errstate(divide="ignore", invalid="ignore"):
        if crit == CRIT_LINEAR:
            Bm = Xc @ (U @ L @ Minv).T
            ga = g[cols][:, None]
            gr = g[rows][None, :]
            gain = ((ga - gr) - (omr * ga - 2.0 * Hm * Bm + oma * gr)) / ratio / phi
        else:
            rn = 1.0
            if XN.shape[1] > 0:
                HN = XN[cols] @ (XN[rows] @ Ninv).T
                rn = (1.0 + nu[cols][:, None]) * (1.0 - nu[rows][None, :]) + HN * HN
                bad |= rn <= 1e-12
            gain = ratio / rn - 1.0
    gain[bad] = -np.inf
    top = float(gain.max())
    if not top > 1e-10:
        return -1, -1
    # ties (within TIE) to the first pair in (candidate, support point) order, as in the steps
    i = int(np.flatnonzero(gain >= top - TIE * (1.0 + abs(top)))[0])
    return int(cols[i // rows.size]), int(rows[i % rows.size])


def exchange(X: np.ndarray, XN: np.ndarray, L: np.ndarray, counts: np.ndarray,
             cap: np.ndarray, Mfix: np.ndarray, MfixN: np.ndarray, crit: int,
             max_steps: int, refresh: int, costs: np.ndarray, budget: float, n_top: int
             ) -> tuple[int, bool]:
    """KL exchange (Harman & Filova's ``od_KL``) ending on a full Fedorov check, in place.

    :func:`kl_linear_steps` (A, I) or :func:`kl_ds_steps` between exact states (recomputed
    from the counts at the start, every ``refresh`` exchanges and whenever the steps find
    no gain after an exchange: never declare convergence on an updated state). When the
    steps find no gain on an exact state, all (support, candidate) pairs are evaluated at
    once (:func:`_full_scan`, the plain Fedorov step) and the best improving pair, if any,
    is made. The result is a local
    optimum for every single exchange, as Fedorov's (same neighbourhood, same ``1e-10``
    threshold), at ``O(K d)`` per step instead of ``O(n K d + K d^2)``. With costs only
    budget-feasible exchanges are considered (the spent total is recomputed from the
    counts: no drift). Returns ``(exchanges, ok)``; ``ok`` is False if the state became
    singular."""
    n_ex = 0
    budget = float(budget)
    while True:
        st = _linear_state(X, XN, L, counts, Mfix, MfixN, crit)
        if st is None:
            return n_ex, False
        Minv, om, g, Ninv, nu, phi = st
        left = int(max_steps) - n_ex
        if crit == CRIT_LINEAR:
            status, k, _ = kl_linear_steps(X, L, counts, cap, Minv, om, g, phi, costs, budget,
                                        n_top, left, int(refresh), False)
        else:
            status, k = kl_ds_steps(X, XN, counts, cap, Minv, om, Ninv, nu, costs, budget,
                                 n_top, left, int(refresh), False)
        n_ex += k
        if status == REFRESH or (status == CONVERGED and k > 0):
            continue
        if status == MAX_ITER or n_ex >= max_steps:
            return n_ex, True
        add, rem = _full_scan(X, XN, L, counts, cap, crit, st, costs, budget)
        if add < 0:
            return n_ex, True
        counts[add] += 1
        counts[rem] -= 1
        n_ex += 1


def greedy_fill(X: np.ndarray, M0: np.ndarray, counts: np.ndarray, cap: np.ndarray,
                n_add: int, costs: np.ndarray, budget: float, XT: np.ndarray | None = None,
                kind: str = "d") -> bool:
    """Add ``n_add`` runs one at a time, each at ``argmax_a x_a^T M^{-1} x_a`` among the
    candidates below their cap (sequential D-greedy, Wynn 1970), from ``M0`` (which the
    caller makes PD with a small ridge; ``counts`` are the runs already in it), in place.
    With costs, a candidate is allowed only if the runs left can still be paid at the
    cheapest cost: ``spent + c_a + (left - 1) c_min <= budget`` (``budget = inf``: no
    constraint). :func:`greedy_fills` of one design. Returns False if no candidate is left
    (or ``M0`` is not PD)."""
    C = counts[None, :].copy()
    ok = greedy_fills(X, M0[None], C, cap, int(counts.sum()) + int(n_add), costs, budget,
                      XT, kind)
    counts[:] = C[0]
    return bool(ok[0])


def _greedy_d(X: np.ndarray, XT: np.ndarray, M0: np.ndarray, C: np.ndarray, cap: np.ndarray,
              n: int, costs: np.ndarray, budget: float, have: np.ndarray) -> np.ndarray:
    """The D-greedy fills of :func:`greedy_fills` by the greedy mode of
    :func:`fedorov_d_steps` (one call for the stack): rows of ``C`` on the rows of ``X``,
    ``have[i]`` the runs design ``i`` already has (on any candidate), filled up to ``n``."""
    B, K = C.shape
    Minv, _, pd = _inverse_stack(M0)
    om = np.einsum("bkj,kj->bk", np.matmul(X, Minv), X)
    st = np.full(B, REFRESH, dtype=np.int64)
    fedorov_d_steps(X, XT, C, cap, costs, budget, Minv, om, np.empty((B, K, 0)),
                    np.empty((B, 0), np.int64), np.zeros(B, np.int64),
                    np.ascontiguousarray(have, dtype=np.int64), np.zeros(B), st, int(n),
                    int(n) + 1, True)
    return (st == MAX_ITER) & pd


def greedy_fills(X: np.ndarray, M0: np.ndarray, C: np.ndarray, cap: np.ndarray, n: int,
                 costs: np.ndarray, budget: float, XT: np.ndarray | None = None,
                 kind: str = "d", rows: np.ndarray | None = None) -> np.ndarray:
    """:func:`greedy_fill` of every row of ``C`` (counts, in place) up to ``n`` runs each,
    from ``M0[i]`` (``(B, d, d)``, PD, the information of the runs ``C[i]`` included): the
    inverses by LAPACK on the stack, then the Sherman-Morrison steps by the ``greedy`` mode
    of the exchange kernel of the criterion being run (``kind``: ``"d"``
    :func:`fedorov_d_steps`, one call for the stack; ``"linear"`` :func:`kl_linear_steps`,
    ``"ds"`` :func:`kl_ds_steps`, one call per design; the same arithmetic, so that a call
    compiles one kernel). Returns which rows were filled (False: no candidate left, or
    ``M0[i]`` not PD).

    ``rows`` (D only): the runs are added only on these candidates (``M0`` still holds the
    information of every run of ``C``, on any candidate)."""
    B, K = C.shape
    d = X.shape[1]
    budget = float(budget)
    if rows is not None and kind == "d":
        if budget < np.inf:
            raise ValueError("greedy_fills: rows is for designs without a budget")
        Cr = np.ascontiguousarray(C[:, rows])
        Xr = np.ascontiguousarray(X[rows])
        ok = _greedy_d(Xr, np.ascontiguousarray(Xr.T), M0, Cr, cap[rows], n,
                       costs[rows], budget, C.sum(axis=1))
        C[:, rows] = Cr
        return ok
    if kind == "d":
        return _greedy_d(X, _transposed(X) if XT is None else XT, M0, C, cap, n, costs,
                         budget, C.sum(axis=1))
    Minv, _, pd = _inverse_stack(M0)
    om = np.einsum("bkj,kj->bk", np.matmul(X, Minv), X)
    ok = np.zeros(B, dtype=bool)
    for i in np.flatnonzero(pd):
        c = C[i]
        left = int(n) - int(c.sum())
        if kind == "linear":
            status = kl_linear_steps(X, np.zeros((d, d)), c, cap, Minv[i], om[i], np.zeros(K),
                                     1.0, costs, budget, 1, left, left + 1, True)[0]
        else:
            status = kl_ds_steps(X, np.empty((K, 0)), c, cap, Minv[i], om[i],
                                 np.empty((0, 0)), np.zeros(K), costs, budget, 1, left,
                                 left + 1, True)[0]
        ok[i] = status == MAX_ITER and pd[i]
    return ok
