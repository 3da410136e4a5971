"""Jitted kernels of the static and phased identification algorithms.

State of one estimation run (all preallocated, updated in place):

* ``counts`` (K,) int64 and ``sums`` (K,) float64 -- pulls and reward sums per arm: the
  sufficient statistics (no pull is stored);
* ``Ainv`` (d, d) -- ``A^{-1}``, ``A = sum_a counts_a x_a x_a^T``, kept by Sherman–Morrison
  rank-one updates and recomputed exactly from ``counts`` every ``refresh_every`` pulls;
* ``theta`` (d,) -- the least-squares estimate ``A^{-1} sum_a sums_a x_a`` (recursive
  least-squares update, exact refresh with ``Ainv``);
* ``vals`` (M,) -- ``y_j^T A^{-1} y_j`` for the design targets ``Y`` (rows, pre-scaled by
  ``sqrt(c_j)`` for weighted criteria), kept by the same rank-one updates.

The greedy incremental rule (Soare et al. 2014, Eq. 22/26) uses the Sherman–Morrison form
``y^T (A + x x^T)^{-1} y = y^T A^{-1} y - (y^T A^{-1} x)^2 / (1 + x^T A^{-1} x)``: cost
``O(K (d^2 + M d))`` per pull.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from bandits._core import rng as _rng
from bandits._core.env import pull, pull_arrays
from rounding.tracking import track_ratio

RULE_GREEDY, RULE_RATIO = 0, 1
STOP_EMPIRICAL, STOP_ORACLE = 0, 1
STATUS_RULE, STATUS_BUDGET, STATUS_SINGULAR = 0, 1, 2
TIE_RTOL = 1e-9


@njit(cache=True)
def beta(t: int, c: float, log_const: float, fixed: bool) -> float:
    """Confidence multiplier ``c sqrt(log_const + 2 log t)`` (``= c sqrt(log(c' t^2 K^e /
    delta))`` with ``log_const = log(c' K^e / delta)``), or ``c`` itself when ``fixed``."""
    if fixed:
        return c
    return c * math.sqrt(log_const + 2.0 * math.log(max(t, 1)))


@njit(cache=True)
def refresh(X, Y, M, counts, sums, Ainv, vals, theta) -> bool:
    """Exact ``A^{-1}``, ``theta`` and ``vals[:M]`` from the sufficient statistics.
    Returns False if ``A`` is (numerically) singular."""
    K, d = X.shape
    A = np.zeros((d, d))
    b = np.zeros(d)
    for a in range(K):
        if counts[a] > 0:
            for i in range(d):
                b[i] += sums[a] * X[a, i]
                for j in range(d):
                    A[i, j] += counts[a] * X[a, i] * X[a, j]
    ev, V = np.linalg.eigh(A)
    if ev[0] <= 1e-12 * max(ev[d - 1], 1e-300):
        return False
    for i in range(d):
        for j in range(d):
            s = 0.0
            for k in range(d):
                s += V[i, k] * V[j, k] / ev[k]
            Ainv[i, j] = s
    for i in range(d):
        s = 0.0
        for j in range(d):
            s += Ainv[i, j] * b[j]
        theta[i] = s
    for m in range(M):
        vals[m] = quad(Ainv, Y[m])
    return True


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


@njit(cache=True)
def observe(X, Y, M, Ainv, vals, theta, counts, sums, arm, r, g) -> None:
    """Rank-one (Sherman–Morrison) update after the reward ``r`` of ``arm``."""
    d = X.shape[1]
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
    for i in range(d):
        for j in range(d):
            Ainv[i, j] -= g[i] * g[j] / den
    counts[arm] += 1
    sums[arm] += r


@njit(cache=True)
def greedy_scores(X, Y, M, Ainv, vals, g, scores) -> None:
    """``scores[a] = max_{j < M} y_j^T (A + x_a x_a^T)^{-1} y_j`` (Sherman–Morrison)."""
    K, d = X.shape
    for a in range(K):
        x = X[a]
        den = 1.0
        for i in range(d):
            s = 0.0
            for j in range(d):
                s += Ainv[i, j] * x[j]
            g[i] = s
            den += x[i] * s
        best = -np.inf
        for m in range(M):
            s = 0.0
            for i in range(d):
                s += Y[m, i] * g[i]
            v = vals[m] - s * s / den
            if v > best:
                best = v
        scores[a] = best


@njit(cache=True)
def greedy_choice(X, Y, M, Ainv, vals, rng, g, scores) -> int:
    """Greedy incremental rule ``argmin_a max_j y_j^T (A + x_a x_a^T)^{-1} y_j`` with
    uniformly random tie-breaking among arms within a relative ``1e-9`` of the minimum
    (Xu et al. 2018 note that first-index tie-breaking breaks greedy XY-static)."""
    K = X.shape[0]
    greedy_scores(X, Y, M, Ainv, vals, g, scores)
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


class TargetState(NamedTuple):
    """Least squares on the decision directions ``Y`` (one value at the numba boundary).

    ``counts``/``sums`` per arm, ``Ainv`` (``A^{-1}``, ``A = sum_a N_a x_a x_a^T``),
    ``vals[j] = y_j^T A^{-1} y_j``, ``theta`` (OLS), work vectors ``g`` (d) and ``scores``
    (K), and ``ints`` with named slots :data:`T_PULLS` (pulls so far), :data:`T_SINCE`
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
    ints: np.ndarray


T_PULLS, T_SINCE, T_INIT, T_STATUS, T_BEST, T_M = range(6)
RUNNING = -1


def target_state(K: int, d: int, M: int) -> TargetState:
    """Fresh arrays for K arms in dimension d and up to M target directions."""
    ints = np.zeros(6, dtype=np.int64)
    ints[T_STATUS] = RUNNING
    ints[T_M] = M
    return TargetState(np.zeros(K, dtype=np.int64), np.zeros(K), np.zeros((d, d)),
                       np.zeros(max(M, 1)), np.zeros(d), np.zeros(d), np.zeros(K), ints)


class StaticConfig(NamedTuple):
    """A static allocation: arms ``X``, decision set ``Z``, targets ``Y``, the rule
    (RULE_GREEDY on ``Y`` or RULE_RATIO tracking ``w``), the initial arms, the stopping test
    (STOP_EMPIRICAL, or STOP_ORACLE with ``theta_true``), the multiplier
    ``beta(n) = c sqrt(log_const + 2 log n)`` (``c`` when ``fixed``), the exact-refresh
    period and the budget."""

    X: np.ndarray
    Z: np.ndarray
    Y: np.ndarray
    rule: int
    w: np.ndarray
    init_arms: np.ndarray
    stop_kind: int
    theta_true: np.ndarray
    c: float
    log_const: float
    fixed: bool
    refresh_every: int
    max_samples: int


@njit(cache=True)
def observe_target(st, X, Y, arm, r, refresh_every) -> bool:
    """Take the reward ``r`` of ``arm``: during the initial pulls only the statistics (an
    exact refresh after the last one; False if ``A`` is singular then), afterwards the
    rank-one update, with an exact refresh every ``refresh_every`` pulls."""
    ints = st.ints
    M = ints[T_M]
    ints[T_PULLS] += 1
    if ints[T_INIT] >= 0:  # initial pulls (T_INIT = -1 once they are done)
        st.counts[arm] += 1
        st.sums[arm] += r
        return True
    observe(X, Y, M, st.Ainv, st.vals, st.theta, st.counts, st.sums, arm, r, st.g)
    ints[T_SINCE] += 1
    if ints[T_SINCE] >= refresh_every:
        refresh(X, Y, M, st.counts, st.sums, st.Ainv, st.vals, st.theta)
        ints[T_SINCE] = 0
    return True


@njit(cache=True)
def initial_step(st, X, Y, init_arms, t_budget, max_samples) -> int:
    """During the initial pulls: the next initial arm (>= 0); -1 with ``T_STATUS`` set when
    the budget ends the run first (``t_budget >= max_samples``) or when ``A`` is singular
    after them; -2 when they are done (``A^{-1}``, ``theta`` and ``vals`` then exact)."""
    ints = st.ints
    k = ints[T_INIT]
    if k < init_arms.shape[0]:
        if t_budget >= max_samples:
            ints[T_STATUS] = STATUS_BUDGET
            return -1
        ints[T_INIT] = k + 1
        return init_arms[k]
    ints[T_INIT] = -1
    ints[T_SINCE] = 0
    if not refresh(X, Y, ints[T_M], st.counts, st.sums, st.Ainv, st.vals, st.theta):
        ints[T_STATUS] = STATUS_SINGULAR
        return -1
    return -2


@njit(cache=True)
def static_decide(st, cfg, rng) -> int:
    """The step kernel of the static allocations: the arm to pull next, or -1 when the run
    is over (``ints[T_STATUS]``: STATUS_RULE, STATUS_BUDGET or STATUS_SINGULAR).

    Order: initial arms (budget first), then stop test -> budget test -> the rule
    (Soare et al. Eq. 22/26 greedy on ``Y``, or ``argmin N_a / w_a``)."""
    ints = st.ints
    if ints[T_INIT] >= 0:
        a = initial_step(st, cfg.X, cfg.Y, cfg.init_arms, ints[T_PULLS], cfg.max_samples)
        if a != -2:
            return a
    t = ints[T_PULLS]
    b = beta(t, cfg.c, cfg.log_const, cfg.fixed)
    th = cfg.theta_true if cfg.stop_kind == STOP_ORACLE else st.theta
    if check_stop(cfg.Z, st.Ainv, th, b) >= 0:
        ints[T_STATUS] = STATUS_RULE
        return -1
    if t >= cfg.max_samples:
        ints[T_STATUS] = STATUS_BUDGET
        return -1
    if cfg.rule == RULE_GREEDY:
        return greedy_choice(cfg.X, cfg.Y, ints[T_M], st.Ainv, st.vals, rng, st.g, st.scores)
    return track_ratio(st.counts, cfg.w)


@njit(cache=True)
def simulate_static(st, cfg, env, rng_pol, rng_env) -> int:
    """One run of a static allocation: the step kernel (:func:`static_decide`,
    :func:`observe_target`) against the environment, as the ask/tell front-end
    :class:`bandits.static.StaticPolicy` drives it. Returns a STATUS_* code; the
    recommendation is ``argmax_z z^T theta``."""
    while True:
        a = static_decide(st, cfg, rng_pol)
        if a < 0:
            return st.ints[T_STATUS]
        observe_target(st, cfg.X, cfg.Y, a, pull(env, a, rng_env), cfg.refresh_every)


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


@njit(cache=True)
def max_val(vals, M) -> float:
    """``max_{j < M} vals[j]``."""
    m = -np.inf
    for j in range(M):
        if vals[j] > m:
            m = vals[j]
    return m


@njit(cache=True)
def adaptive_phase(X, Y, M, init_arms, target, min_len, fig3, env_kind, means, env_sigma,
                   table, rng_pol, rng_env, t0, max_samples, refresh_every, pcounts, psums,
                   Ainv, vals, theta, g, scores, out, Z, active, stop_in, c, log_const, fixed,
                   log_global) -> float:
    """One phase of XY-adaptive (Soare et al. 2014, Fig. 3): fresh statistics, ``init_arms``
    pulled first, then the greedy rule on the active directions ``Y[:M]`` until the phase
    length rule holds:

    * Eq. 18 (default): ``max_j y_j^T A_t^{-1} y_j <= target`` (``rho^j(lambda_t)/t``);
    * ``fig3``: the printed figure, ``max_j y_j^T A_t^{-1} y_j / t <= target``;

    and at least ``min_len`` pulls.  ``t0`` is the global sample count before the phase.
    With ``stop_in``, the empirical stopping rule restricted to the active targets (Eq. 11
    / Eq. 16: one active target dominates all other active ones) is checked before every
    pull, with ``beta(t0 + t)`` (``log_global``) or ``beta(t)``.
    ``out[0]`` = pulls in the phase, ``out[1]`` = 1 if the budget ended it, ``out[2]`` =
    the target found by the in-phase stopping rule (-1 if none).  Returns the final
    ``max_j y_j^T A^{-1} y_j`` (``-1`` if A is singular after the init pulls).
    """
    pcounts[:] = 0
    psums[:] = 0.0
    t = 0
    out[1] = 0
    out[2] = -1
    for k in range(init_arms.shape[0]):
        if t0 + t >= max_samples:
            out[0] = t
            out[1] = 1
            return np.inf
        a = init_arms[k]
        r = pull_arrays(env_kind, means, env_sigma, table, a, rng_env)
        pcounts[a] += 1
        psums[a] += r
        t += 1
    if not refresh(X, Y, M, pcounts, psums, Ainv, vals, theta):
        out[0] = t
        return -1.0
    since = 0
    while True:
        u = max_val(vals, M)
        if stop_in:
            b = beta(t0 + t if log_global else t, c, log_const, fixed)
            s = check_stop_active(Z, active, Ainv, theta, b)
            if s >= 0:
                out[0] = t
                out[2] = s
                return u
        crit = u / t if fig3 else u
        if t >= min_len and crit <= target:
            out[0] = t
            return u
        if t0 + t >= max_samples:
            out[0] = t
            out[1] = 1
            return u
        a = greedy_choice(X, Y, M, Ainv, vals, rng_pol, g, scores)
        r = pull_arrays(env_kind, means, env_sigma, table, a, rng_env)
        observe(X, Y, M, Ainv, vals, theta, pcounts, psums, a, r, g)
        t += 1
        since += 1
        if since >= refresh_every:
            refresh(X, Y, M, pcounts, psums, Ainv, vals, theta)
            since = 0


@njit(cache=True)
def block_phase(alloc, env_kind, means, env_sigma, table, rng_env, t0, max_samples,
                pcounts, psums) -> int:
    """Pull ``alloc[a]`` times each arm ``a`` (arm 0's block first, then arm 1, ...), adding
    the rewards to ``psums`` and the pulls to ``pcounts`` (not reset).  Stops at the budget.
    Returns the number of pulls made."""
    t = 0
    for a in range(alloc.shape[0]):
        for _ in range(alloc[a]):
            if t0 + t >= max_samples:
                return t
            psums[a] += pull_arrays(env_kind, means, env_sigma, table, a, rng_env)
            pcounts[a] += 1
            t += 1
    return t


@njit(cache=True)
def confidence_discard(Z, active, candidates, Ainv, theta, b, keep) -> None:
    """Soare et al. (2014) Eq. 16: ``keep[z] = False`` for every candidate ``z`` dominated by
    some active ``z'``: ``b ||z' - z||_{A^{-1}} < (z' - z)^T theta`` (strict)."""
    KZ, d = Z.shape
    y = np.empty(d)
    for z in range(KZ):
        keep[z] = candidates[z]
        if not candidates[z]:
            continue
        for zp in range(KZ):
            if zp == z or not active[zp]:
                continue
            gap = 0.0
            for i in range(d):
                y[i] = Z[zp, i] - Z[z, i]
                gap += y[i] * theta[i]
            if gap <= 0.0:
                continue
            if b * math.sqrt(max(quad(Ainv, y), 0.0)) < gap:
                keep[z] = False
                break


@njit(cache=True)
def check_stop_active(Z, active, Ainv, th, b) -> int:
    """Eq. 11 restricted to the active targets: the active ``z^ = argmax z^T th`` if
    ``b ||z^ - z||_{A^{-1}} <= (z^ - z)^T th`` for every active ``z``, else -1."""
    KZ, d = Z.shape
    best = argmax_active(Z, th, active)
    y = np.empty(d)
    for z in range(KZ):
        if z == best or not active[z]:
            continue
        gap = 0.0
        for i in range(d):
            y[i] = Z[best, i] - Z[z, i]
            gap += y[i] * th[i]
        if b * math.sqrt(max(quad(Ainv, y), 0.0)) > gap:
            return -1
    return best
