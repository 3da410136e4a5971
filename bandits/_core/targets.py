"""Least squares on decision directions: the jitted kernels the static and phased
identification algorithms share (Soare et al. 2014; Fiez et al. 2019).

State of one estimation run (all preallocated, updated in place):

* ``counts`` (K,) int64 and ``sums`` (K,) float64 -- pulls and reward sums per arm: the
  sufficient statistics (no pull is stored);
* ``Ainv`` (d, d) -- ``A^{-1}``, ``A = sum_a counts_a x_a x_a^T``, kept by Sherman–Morrison
  rank-one updates and recomputed exactly from ``counts`` every ``refresh_every`` pulls;
* ``theta`` (d,) -- the least-squares estimate ``A^{-1} sum_a sums_a x_a`` (recursive
  least-squares update, exact refresh with ``Ainv``);
* ``vals`` (M,) -- ``y_j^T A^{-1} y_j`` for the design targets ``Y`` (rows, pre-scaled by
  ``sqrt(c_j)`` for weighted criteria), kept by the same rank-one updates;
* ``lev`` (K,) -- the leverages ``x_a^T A^{-1} x_a``, kept by the same rank-one updates
  (the greedy rule's denominators).

The greedy incremental rule (Soare et al. 2014, Eq. 22/26) uses the Sherman–Morrison form
``y^T (A + x x^T)^{-1} y = y^T A^{-1} y - (y^T A^{-1} x)^2 / (1 + x^T A^{-1} x)`` and
evaluates it only on the targets that can be the maximum (:func:`greedy_scores`): cost
``O(M + J (d^2 + K d))`` per pull for ``J`` such targets (the update: ``O(d^2 + (M + K)
d)``), instead of ``O(K (d^2 + M d))`` for every arm and target.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from bandits._core import rng as _rng
from bandits._core.jit import inner

#: How a run ended (``TargetState.ints[T_STATUS]``).
STATUS_RULE, STATUS_BUDGET, STATUS_SINGULAR = 0, 1, 2
TIE_RTOL = 1e-9


@njit(cache=True)
def beta(t: int, c: float, log_const: float, fixed: bool) -> float:
    """Confidence multiplier ``c sqrt(log_const + 2 log t)`` (``= c sqrt(log(c' t^2 K^e /
    delta))`` with ``log_const = log(c' K^e / delta)``), or ``c`` itself when ``fixed``."""
    if fixed:
        return c
    return c * math.sqrt(log_const + 2.0 * math.log(1 if 1 > t else t))


@njit(cache=True)
def refresh(X, Y, M, counts, sums, Ainv, vals, theta, b) -> bool:
    """Exact ``A^{-1}``, ``theta`` and ``vals[:M]`` from the sufficient statistics, by the
    Cholesky factor ``A = L L^T``: ``A^{-1} = L^{-T} L^{-1}`` (plain loops: no LAPACK
    glue to compile, issue 16). Returns False if ``A`` is (numerically) singular: a pivot
    ``L_jj^2 <= 1e-12 max_i A_ii`` (the smallest eigenvalue is at most every pivot, the
    largest at least the largest diagonal entry).

    In place, with no allocation (first-call compile time: no array constructor to
    compile): ``A`` and then ``L`` in the lower triangle of ``Ainv``, ``L^{-1}`` below its
    diagonal transposed into the upper triangle (its diagonal is ``1 / L_jj``), then
    ``A^{-1}`` row by row over them; ``b = sum_a sums_a x_a`` (d): work."""
    K, d = X.shape
    for i in range(d):
        b[i] = 0.0
        for j in range(i + 1):
            Ainv[i, j] = 0.0
    for a in range(K):
        if counts[a] > 0:
            for i in range(d):
                b[i] += sums[a] * X[a, i]
                for j in range(i + 1):
                    Ainv[i, j] += counts[a] * X[a, i] * X[a, j]
    amax = 0.0
    for i in range(d):
        if Ainv[i, i] > amax:
            amax = Ainv[i, i]
    for j in range(d):  # the lower triangle becomes L
        s = Ainv[j, j]
        for k in range(j):
            s -= Ainv[j, k] * Ainv[j, k]
        if not s > 1e-12 * amax:
            return False
        Ainv[j, j] = math.sqrt(s)
        for i in range(j + 1, d):
            s = Ainv[i, j]
            for k in range(j):
                s -= Ainv[i, k] * Ainv[j, k]
            Ainv[i, j] = s / Ainv[j, j]
    for j in range(d):  # (L^{-1})_ij, i > j, into Ainv[j, i] (forward substitution)
        for i in range(j + 1, d):
            s = 0.0
            s -= Ainv[i, j] * (1.0 / Ainv[j, j])
            for k in range(j + 1, i):
                s -= Ainv[i, k] * Ainv[j, k]
            Ainv[j, i] = s / Ainv[i, i]
    for i in range(d):  # A^{-1} = L^{-T} L^{-1}, row i over rows >= i of L^{-1}
        for j in range(i + 1):
            s = 0.0
            s += (1.0 / Ainv[i, i]) * (Ainv[j, i] if j < i else 1.0 / Ainv[i, i])
            for k in range(i + 1, d):
                s += Ainv[i, k] * Ainv[j, k]
            Ainv[i, j] = s
            Ainv[j, i] = s
    for i in range(d):
        s = 0.0
        for j in range(d):
            s += Ainv[i, j] * b[j]
        theta[i] = s
    for m in range(M):
        vals[m] = quad(Ainv, Y[m])
    return True


@njit(cache=True)
def leverages(X, Ainv, lev) -> None:
    """Exact ``lev[a] = x_a^T A^{-1} x_a`` from ``A^{-1}`` (with :func:`refresh`)."""
    for a in range(X.shape[0]):
        lev[a] = quad(Ainv, X[a])


@njit(cache=True)
def quad(Ainv, y) -> float:
    """``y^T Ainv y``."""
    d = y.shape[0]
    s = 0.0
    for i in range(d):
        t = 0.0
        for j in range(d):
            t += Ainv[i, j] * y[j]
        s += y[i] * t
    return s


@njit(cache=True, error_model="numpy")
def observe(X, Y, M, Ainv, vals, lev, theta, counts, sums, arm, r, g) -> None:
    """Rank-one (Sherman–Morrison) update after the reward ``r`` of ``arm``: with ``g =
    A^{-1} x``, ``A^{-1} -= g g^T / (1 + x^T g)``, ``vals_j -= (y_j^T g)^2 / (1 + x^T g)``,
    ``lev_a -= (x_a^T g)^2 / (1 + x^T g)`` and the recursive least-squares ``theta``."""
    K, d = X.shape
    x = X[arm]
    for i in range(d):
        s = 0.0
        for j in range(d):
            s += Ainv[i, j] * x[j]
        g[i] = s
    den = 1.0
    resid = r
    for i in range(d):
        den += x[i] * g[i]
        resid -= x[i] * theta[i]
    for i in range(d):
        theta[i] += g[i] * resid / den
    for m in range(M):
        s = 0.0
        for i in range(d):
            s += Y[m, i] * g[i]
        vals[m] -= s * s / den
    for a in range(K):
        s = 0.0
        for i in range(d):
            s += X[a, i] * g[i]
        lev[a] -= s * s / den
    for i in range(d):
        for j in range(d):
            Ainv[i, j] -= g[i] * g[j] / den
    counts[arm] += 1
    sums[arm] += r


@njit(cache=True, inline="always", error_model="numpy")
def greedy_scores(X, Y, M, Ainv, vals, lev, h, scores) -> None:
    """``scores[a] = max_{j < M} y_j^T (A + x_a x_a^T)^{-1} y_j = max_j (vals_j - (x_a^T
    A^{-1} y_j)^2 / (1 + lev_a))`` (Sherman–Morrison), evaluated only where it can matter.

    Each term is at most ``vals_j`` (a non-negative amount is subtracted, also in floating
    point), so a target with ``vals_j <= scores[a]`` (a partial maximum) cannot raise arm
    ``a``'s maximum: every arm is first scored on ``j0 = argmax_j vals_j``, then only the
    targets with ``vals_j`` above the smallest of those scores are visited, each for the
    arms whose partial maximum is below ``vals_j``. The result is the maximum over all
    ``j`` of the same floating-point terms, exactly (not a bound). Near the greedy
    design's optimum only the few targets the design equalises pass (about 1-7 per pull
    on Soare's and random instances: benchmarks/bench_static.py), so a pull costs ``O(M +
    J (d^2 + K d))`` instead of ``O(K (d^2 + M d))``. ``h`` (d): work."""
    K, d = X.shape
    j0 = 0  # argmax_j vals_j (M = 0: every score is -inf)
    for m in range(1, M):
        if vals[m] > vals[j0]:
            j0 = m
    for i in range(d):  # h = A^{-1} y_j0
        s = 0.0
        for k in range(d):
            s += Ainv[i, k] * Y[j0, k]
        h[i] = s
    tau = np.inf
    for a in range(K):
        c = 0.0
        for i in range(d):
            c += X[a, i] * h[i]
        v = vals[j0] - c * c / (1.0 + lev[a]) if M > 0 else -np.inf
        scores[a] = v
        if v < tau:
            tau = v
    for m in range(M):
        if m == j0 or vals[m] <= tau:
            continue
        for i in range(d):  # h = A^{-1} y_m
            s = 0.0
            for k in range(d):
                s += Ainv[i, k] * Y[m, k]
            h[i] = s
        for a in range(K):
            if scores[a] >= vals[m]:
                continue
            c = 0.0
            for i in range(d):
                c += X[a, i] * h[i]
            v = vals[m] - c * c / (1.0 + lev[a])
            if v > scores[a]:
                scores[a] = v


@inner(error_model="numpy")
def greedy_choice(X, Y, M, Ainv, vals, lev, rng, g, scores) -> int:
    """Greedy incremental rule ``argmin_a max_j y_j^T (A + x_a x_a^T)^{-1} y_j`` with
    uniformly random tie-breaking among arms within a relative ``1e-9`` of the minimum
    (Xu et al. 2018 note that first-index tie-breaking breaks greedy XY-static): one draw
    ``integer(rng, n)`` for the ``n``-th tied arm in index order, ``n >= 2`` (reservoir
    sampling). ``g`` (d): work."""
    K = X.shape[0]
    greedy_scores(X, Y, M, Ainv, vals, lev, g, scores)
    lo = np.inf
    for a in range(K):
        if scores[a] < lo:
            lo = scores[a]
    tol = TIE_RTOL * abs(lo)
    chosen = -1
    n_ties = 0
    for a in range(K):
        if scores[a] <= lo + tol:
            n_ties += 1
            if n_ties == 1 or _rng.integer(rng, n_ties) == 0:
                chosen = a
    return chosen


@njit(cache=True)
def check_stop(Z, Ainv, th, b) -> int:
    """Soare et al. (2014) Eq. 11 with ``th`` (estimate or, for the oracle, the true
    parameter): returns ``z* = argmax_z z^T th`` if ``b ||z* - z||_{A^{-1}} <= (z* - z)^T th``
    for every ``z``, else -1."""
    KZ, d = Z.shape
    best = argmax_all(Z, th)
    y = np.empty(d)
    for z in range(KZ):
        if z == best:
            continue
        gap = 0.0
        for i in range(d):
            y[i] = Z[best, i] - Z[z, i]
            gap += y[i] * th[i]
        w2 = quad(Ainv, y)
        if b * math.sqrt(max(w2, 0.0)) > gap:
            return -1
    return best


@njit(cache=True)
def argmax_active(Z, th, active) -> int:
    """``argmax_{z active} z^T th`` (first index on ties)."""
    KZ, d = Z.shape
    best = -1
    best_v = -np.inf
    for z in range(KZ):
        if not active[z]:
            continue
        v = 0.0
        for i in range(d):
            v += Z[z, i] * th[i]
        if v > best_v:
            best_v = v
            best = z
    return best


@njit(cache=True)
def argmax_all(Z, th) -> int:
    """``argmax_z z^T th`` (first index on ties)."""
    KZ, d = Z.shape
    best = 0
    best_v = -np.inf
    for z in range(KZ):
        v = 0.0
        for i in range(d):
            v += Z[z, i] * th[i]
        if v > best_v:
            best_v = v
            best = z
    return best


@njit(cache=True, inline="always")
def max_val(vals, M) -> float:
    """``max_{j < M} vals[j]``."""
    m = -np.inf
    for j in range(M):
        if vals[j] > m:
            m = vals[j]
    return m


class TargetState(NamedTuple):
    """Least squares on the decision directions ``Y`` (one value at the numba boundary).

    ``counts``/``sums`` per arm, ``Ainv`` (``A^{-1}``, ``A = sum_a N_a x_a x_a^T``),
    ``vals[j] = y_j^T A^{-1} y_j``, ``theta`` (OLS), work vectors ``g`` (d) and ``scores``
    (K), the leverages ``lev[a] = x_a^T A^{-1} x_a``, and ``ints`` with named slots
    :data:`T_PULLS` (pulls so far), :data:`T_SINCE`
    (since the last exact refresh), :data:`T_INIT` (initial arms pulled), :data:`T_STATUS`
    (:data:`RUNNING` or a ``STATUS_*`` / ``PHASE_*`` code), :data:`T_BEST` (the target found
    by a stopping rule) and :data:`T_M` (active rows of ``Y``).
    """

    counts: np.ndarray
    sums: np.ndarray
    Ainv: np.ndarray
    vals: np.ndarray
    theta: np.ndarray
    g: np.ndarray
    scores: np.ndarray
    lev: np.ndarray
    ints: np.ndarray


T_PULLS, T_SINCE, T_INIT, T_STATUS, T_BEST, T_M = range(6)
RUNNING = -1


def target_state(K: int, d: int, M: int) -> TargetState:
    """Fresh arrays for K arms in dimension d and up to M target directions."""
    ints = np.zeros(6, dtype=np.int64)
    ints[T_STATUS] = RUNNING
    ints[T_M] = M
    return TargetState(np.zeros(K, dtype=np.int64), np.zeros(K), np.zeros((d, d)),
                       np.zeros(max(M, 1)), np.zeros(d), np.zeros(d), np.zeros(K), np.zeros(K),
                       ints)


@njit(cache=True, inline="always")
def observe_target(st, X, Y, arm, r, refresh_every) -> bool:
    """Take the reward ``r`` of ``arm``: during the initial pulls only the statistics (an
    exact refresh after the last one; False if ``A`` is singular then), afterwards the
    rank-one update, with an exact refresh every ``refresh_every`` pulls."""
    return observe_arrays(st.ints, st.counts, st.sums, st.Ainv, st.vals, st.lev, st.theta,
                          st.g, X, Y, arm, r, refresh_every)


@njit(cache=True, inline="always")
def observe_arrays(ints, counts, sums, Ainv, vals, lev, theta, g, X, Y, arm, r,
                   refresh_every) -> bool:
    """:func:`observe_target` on the state's arrays (a loop unpacks the state once). The
    block simulation's generator of greedy arms (:func:`bandits._core.blocks.greedy_arms`)
    makes the same calls after the initial pulls (:func:`observe`, then :func:`refresh` and
    :func:`leverages` when ``T_SINCE`` reaches ``refresh_every``)."""
    M = ints[T_M]
    ints[T_PULLS] += 1
    if ints[T_INIT] >= 0:  # initial pulls (T_INIT = -1 once they are done)
        counts[arm] += 1
        sums[arm] += r
    else:
        observe(X, Y, M, Ainv, vals, lev, theta, counts, sums, arm, r, g)
        ints[T_SINCE] += 1
        if ints[T_SINCE] >= refresh_every:
            refresh(X, Y, M, counts, sums, Ainv, vals, theta, g)
            leverages(X, Ainv, lev)
            ints[T_SINCE] = 0
    return True


@njit(cache=True, inline="always")
def initial_step(st, X, Y, init_arms, t_budget, max_samples) -> int:
    """During the initial pulls: the next initial arm (>= 0); -1 with ``T_STATUS`` set when
    the budget ends the run first (``t_budget >= max_samples``) or when ``A`` is singular
    after them; -2 when they are done (``A^{-1}``, ``theta`` and ``vals`` then exact)."""
    return initial_arrays(st.ints, st.counts, st.sums, st.Ainv, st.vals, st.lev, st.theta,
                          st.g, X, Y, init_arms, t_budget, max_samples)


@njit(cache=True, inline="always")
def initial_arrays(ints, counts, sums, Ainv, vals, lev, theta, g, X, Y, init_arms, t_budget,
                   max_samples) -> int:
    """:func:`initial_step` on the state's arrays."""
    k = ints[T_INIT]
    if k < init_arms.shape[0]:
        if t_budget >= max_samples:
            ints[T_STATUS] = STATUS_BUDGET
            return -1
        ints[T_INIT] = k + 1
        return init_arms[k]
    ints[T_INIT] = -1
    ints[T_SINCE] = 0
    if not refresh(X, Y, ints[T_M], counts, sums, Ainv, vals, theta, g):
        ints[T_STATUS] = STATUS_SINGULAR
        return -1
    leverages(X, Ainv, lev)
    return -2


def reset_target(st: TargetState, M: int) -> None:
    """Fresh statistics (no pull yet) on the first ``M`` rows of the targets, as at the
    start of a run or of a phase (XY-adaptive restarts its estimate every phase). Python:
    its callers are (no kernel to compile for it)."""
    st.counts[:] = 0
    st.sums[:] = 0.0
    st.ints[T_PULLS] = 0
    st.ints[T_SINCE] = 0
    st.ints[T_INIT] = 0
    st.ints[T_STATUS] = RUNNING
    st.ints[T_BEST] = -1
    st.ints[T_M] = M
