"""Jitted kernels of the phased algorithms: XY-adaptive's step kernel
(:func:`adaptive_decide`) and the phase loop that drives it against the environment, RAGE's
block pulls, and the elimination rules (Soare et al. 2014 Eq. 11/16). The least-squares
state on the decision directions is shared with the static family
(:mod:`bandits._core.targets`)."""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from bandits._core import rng as _rng
from bandits._core.blocks import (  # noqa: F401  (re-exported for bandits.phased)
    BLOCKS_END,
    INIT_STOP,
    BlockAlloc,
    BlockTest,
    check_stop_active,
    run_blocks,
)
from bandits._core.env import ENV_GAUSSIAN, pull, pull_sum
from bandits._core.targets import (  # noqa: F401  (re-exported for bandits.phased)
    STATUS_BUDGET,
    STATUS_RULE,
    STATUS_SINGULAR,
    T_BEST,
    T_INIT,
    T_M,
    T_PULLS,
    T_STATUS,
    argmax_active,
    beta,
    greedy_choice,
    initial_arrays,
    initial_step,
    max_val,
    observe_arrays,
    observe_target,
    quad,
    reset_target,
    target_state,
)

#: How a phase of XY-adaptive ended (``TargetState.ints[T_STATUS]``).
PHASE_END, PHASE_STOP, PHASE_BUDGET, PHASE_SINGULAR = 10, 11, 12, 13


class AdaptiveConfig(NamedTuple):
    """One phase of XY-adaptive: arms ``X``, the phase's targets ``Y`` (first ``T_M`` rows),
    the decision set ``Z``, the initial arms, the phase-length target and minimum, the
    length rule (Eq. 18, or ``fig3``: divided by ``t``), the in-phase stopping rule
    (``stop_in``, multiplier ``beta(n) = c sqrt(log_const + 2 log n)`` with ``n`` global
    when ``log_global``), the exact-refresh period and the global budget."""

    X: np.ndarray
    Y: np.ndarray
    Z: np.ndarray
    init_arms: np.ndarray
    target: float
    min_len: int
    fig3: bool
    stop_in: bool
    c: float
    log_const: float
    fixed: bool
    log_global: bool
    refresh_every: int
    max_samples: int


@njit(cache=True, inline="always")
def adaptive_decide(st, cfg, active, t0, rng) -> int:
    """The step kernel of XY-adaptive (Soare et al. 2014, Fig. 3) within a phase: the arm
    to pull next, or -1 with ``ints[T_STATUS]`` = PHASE_END (the length rule holds),
    PHASE_STOP (the in-phase stopping rule found ``ints[T_BEST]``), PHASE_BUDGET or
    PHASE_SINGULAR (the initial pulls do not span R^d). ``t0``: pulls before the phase.

    Order: the initial arms (budget first), then the stopping rule on the active targets
    (Eq. 11 / 16) -> the length rule (at least ``min_len`` pulls and
    ``max_j y_j^T A_t^{-1} y_j <= target``, or that divided by ``t`` with ``fig3``) -> the
    budget -> the greedy rule on the phase's targets.
    """
    return adaptive_arrays(st.ints, st.counts, st.sums, st.Ainv, st.vals, st.lev, st.theta,
                           st.g, st.scores, cfg, active, t0, rng)


@njit(cache=True, inline="always")
def adaptive_arrays(ints, counts, sums, Ainv, vals, lev, theta, g, scores, cfg, active, t0,
                    rng) -> int:
    """:func:`adaptive_decide` on the state's arrays (the phase loop unpacks the state
    once; the ask/tell policy goes through :func:`adaptive_decide`)."""
    t = ints[T_PULLS]
    if ints[T_INIT] >= 0:
        a = initial_arrays(ints, counts, sums, Ainv, vals, lev, theta, g, cfg.X, cfg.Y,
                           cfg.init_arms, t0 + t, cfg.max_samples)
        if a >= 0:
            return a
        if a == -1:
            ints[T_STATUS] = PHASE_SINGULAR if ints[T_STATUS] == STATUS_SINGULAR \
                else PHASE_BUDGET
            return -1
    u = max_val(vals, ints[T_M])
    if cfg.stop_in:
        b = beta(t0 + t if cfg.log_global else t, cfg.c, cfg.log_const, cfg.fixed)
        s = check_stop_active(cfg.Z, active, Ainv, theta, b)
        if s >= 0:
            ints[T_BEST] = s
            ints[T_STATUS] = PHASE_STOP
            return -1
    crit = u / t if cfg.fig3 else u
    if t >= cfg.min_len and crit <= cfg.target:
        ints[T_STATUS] = PHASE_END
        return -1
    if t0 + t >= cfg.max_samples:
        ints[T_STATUS] = PHASE_BUDGET
        return -1
    return greedy_choice(cfg.X, cfg.Y, ints[T_M], Ainv, vals, lev, rng, g, scores)


@njit(cache=True)
def adaptive_phase(st, cfg, env, active, t0, rng_pol, rng_env) -> int:
    """One phase of XY-adaptive against the environment: the step kernel
    (:func:`adaptive_arrays`, :func:`bandits._core.targets.observe_arrays`) as the ask/tell
    :class:`bandits.phased.AdaptivePolicy` drives it, on fresh statistics (reset by the
    caller); the state and environment are unpacked once, before the loop. Returns the
    PHASE_* code; ``ints[T_PULLS]`` pulls were made."""
    ints, counts, sums, Ainv, vals, theta, g, scores = (st.ints, st.counts, st.sums, st.Ainv,
                                                        st.vals, st.theta, st.g, st.scores)
    lev = st.lev
    X, Y, refresh_every = cfg.X, cfg.Y, cfg.refresh_every
    gaussian, means, sigma = env.kind == ENV_GAUSSIAN, env.means, env.sigma
    while True:
        a = adaptive_arrays(ints, counts, sums, Ainv, vals, lev, theta, g, scores, cfg,
                            active, t0, rng_pol)
        if a < 0:
            return ints[T_STATUS]
        r = means[a] + sigma * _rng.normal(rng_env) if gaussian else pull(env, a, rng_env)
        observe_arrays(ints, counts, sums, Ainv, vals, lev, theta, g, X, Y, a, r,
                       refresh_every)


@njit(cache=True)
def block_phase(alloc, env, rng_env, t0, max_samples, pcounts, psums, per_sample) -> int:
    """Pull ``alloc[a]`` times each arm ``a`` (arm 0's block first, then arm 1, ...), adding
    the rewards to ``psums`` and the pulls to ``pcounts`` (not reset).  Stops at the budget
    (``t0`` pulls before the phase).  Returns the number of pulls made.

    ``per_sample=False`` draws each arm's sum of ``n_a`` rewards at once
    (:func:`bandits._core.env.pull_sum`: ``N(n_a mu_a, n_a sigma^2)``, or a reward table's
    multinomial row counts): Fiez et al.'s RAGE and the budget cut only read the sums and
    counts, so this is exact in distribution."""
    t = 0
    for a in range(alloc.shape[0]):
        n = min(alloc[a], max(max_samples - t0 - t, 0))
        if not per_sample:
            psums[a] += pull_sum(env, a, n, rng_env)
        else:
            for _ in range(n):
                psums[a] += pull(env, a, rng_env)
        pcounts[a] += n
        t += n
        if n < alloc[a]:
            return t
    return t


@njit(cache=True)
def confidence_discard(Z, active, candidates, Ainv, theta, b, keep) -> None:
    """Soare et al. (2014) Eq. 16: ``keep[z] = False`` for every candidate ``z`` dominated by
    some active ``z'``: ``b ||z' - z||_{A^{-1}} < (z' - z)^T theta`` (strict)."""
    KZ, d = Z.shape
    for z in range(KZ):
        keep[z] = candidates[z]
        if not candidates[z]:
            continue
        for zp in range(KZ):
            if zp == z or not active[zp]:
                continue
            gap = 0.0
            for i in range(d):
                gap += (Z[zp, i] - Z[z, i]) * theta[i]
            if gap <= 0.0:
                continue
            w2 = 0.0  # quad(Ainv, z' - z), its operations in its order (no work array)
            for i in range(d):
                t = 0.0
                for j in range(d):
                    t += Ainv[i, j] * (Z[zp, j] - Z[z, j])
                w2 += (Z[zp, i] - Z[z, i]) * t
            if b * math.sqrt(0.0 if 0.0 > w2 else w2) < gap:
                keep[z] = False
                break
