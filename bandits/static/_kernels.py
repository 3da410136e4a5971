"""Jitted kernels of the static allocations (G-static, XY-static, XY-oracle): the step
kernel :func:`static_decide` and the simulation loop that drives it; the least-squares
state on the decision directions is shared with the phased family
(:mod:`bandits._core.targets`)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from bandits._core import rng as _rng
from bandits._core.blocks import (  # noqa: F401  (re-exported for bandits.static)
    INIT_STOP,
    NO_LENGTH_RULE,
    BlockAlloc,
    BlockTest,
    ratio_counts_at,
    run_blocks,
)
from bandits._core.env import ENV_GAUSSIAN, pull, pull_sum  # noqa: F401
from bandits._core.targets import (  # noqa: F401  (re-exported for the static module)
    RUNNING,
    STATUS_BUDGET,
    STATUS_RULE,
    STATUS_SINGULAR,
    T_BEST,
    T_INIT,
    T_M,
    T_PULLS,
    T_SINCE,
    T_STATUS,
    TargetState,
    argmax_active,
    argmax_all,
    beta,
    check_stop,
    greedy_choice,
    initial_arrays,
    initial_step,
    leverages,
    observe,
    observe_arrays,
    observe_target,
    quad,
    refresh,
    target_state,
)
from rounding.tracking import track_ratio

RULE_GREEDY, RULE_RATIO = 0, 1
STOP_EMPIRICAL, STOP_ORACLE = 0, 1


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


@njit(cache=True, inline="always")
def static_decide(st, cfg, rng) -> int:
    """The step kernel of the static allocations: the arm to pull next, or -1 when the run
    is over (``ints[T_STATUS]``: STATUS_RULE, STATUS_BUDGET or STATUS_SINGULAR).

    Order: initial arms (budget first), then stop test -> budget test -> the rule
    (Soare et al. Eq. 22/26 greedy on ``Y``, or ``argmin N_a / w_a``)."""
    th = cfg.theta_true if cfg.stop_kind == STOP_ORACLE else st.theta
    return decide_arrays(st.ints, st.counts, st.sums, st.Ainv, st.vals, st.lev, st.theta,
                         st.g, st.scores, cfg.X, cfg.Y, cfg.Z, cfg.rule, cfg.w, cfg.init_arms,
                         th, cfg.c, cfg.log_const, cfg.fixed, cfg.max_samples, rng)


@njit(cache=True, inline="always")
def decide_arrays(ints, counts, sums, Ainv, vals, lev, theta, g, scores, X, Y, Z, rule, w,
                  init_arms, th_stop, c, log_const, fixed, max_samples, rng) -> int:
    """:func:`static_decide` on the unpacked state and configuration (``th_stop``: the
    estimate ``theta``, or the true parameter for the oracle's stopping test). The loop
    unpacks the bundles once; the ask/tell policy goes through :func:`static_decide`."""
    if ints[T_INIT] >= 0:
        a = initial_arrays(ints, counts, sums, Ainv, vals, lev, theta, g, X, Y, init_arms,
                           ints[T_PULLS], max_samples)
        if a != -2:
            return a
    t = ints[T_PULLS]
    b = beta(t, c, log_const, fixed)
    if check_stop(Z, Ainv, th_stop, b) >= 0:
        ints[T_STATUS] = STATUS_RULE
        return -1
    if t >= max_samples:
        ints[T_STATUS] = STATUS_BUDGET
        return -1
    return static_rule(ints, counts, Ainv, vals, lev, g, scores, X, Y, rule, w, rng)


@njit(cache=True, inline="always")
def static_rule(ints, counts, Ainv, vals, lev, g, scores, X, Y, rule, w, rng) -> int:
    """The allocation rule: Soare et al.'s greedy rule on ``Y`` (Eq. 22/26, reading
    ``A^{-1}``, ``vals`` and ``lev``) or ``argmin N_a / w_a``. It never reads the rewards: the
    step kernel (:func:`decide_arrays`) and the block simulation (:func:`simulate_blocks`)
    call it."""
    if rule == RULE_GREEDY:
        return greedy_choice(X, Y, ints[T_M], Ainv, vals, lev, rng, g, scores)
    return track_ratio(counts, w)


@njit(cache=True)
def simulate_static(st, cfg, env, rng_pol, rng_env, draw) -> int:
    """One run of a static allocation: the step kernel (:func:`decide_arrays`,
    :func:`observe_arrays`) against the environment, as the ask/tell front-end
    :class:`bandits.static.StaticPolicy` drives it (the bundles are unpacked once, before
    the loop). Returns a STATUS_* code; the recommendation is ``argmax_z z^T theta``.

    ``draw=False`` (XY-oracle's fast simulation, Gaussian rewards): the allocation and the
    oracle's stopping test read only the counts, so no reward is drawn during the run
    (``theta`` stays 0); the caller then draws each arm's sum at once and refreshes
    ``theta`` (:func:`bandits.static.draw_sums`). With the ratio rule the loop returns
    RUNNING after the first pull that follows the initial ones, and the caller continues
    with :func:`bandits.static.ratio_oracle_jump` (Python over the compiled kernels
    ``refresh`` and ``check_stop``: no kernel to compile for it)."""
    ints, counts, sums, Ainv, vals, theta, g, scores = (st.ints, st.counts, st.sums, st.Ainv,
                                                        st.vals, st.theta, st.g, st.scores)
    lev = st.lev
    X, Y, Z, rule, w, init_arms = cfg.X, cfg.Y, cfg.Z, cfg.rule, cfg.w, cfg.init_arms
    th = cfg.theta_true if cfg.stop_kind == STOP_ORACLE else theta
    c, log_const, fixed, max_samples = cfg.c, cfg.log_const, cfg.fixed, cfg.max_samples
    refresh_every = cfg.refresh_every
    gaussian = env.kind == ENV_GAUSSIAN
    means, sigma = env.means, env.sigma
    while True:
        a = decide_arrays(ints, counts, sums, Ainv, vals, lev, theta, g, scores, X, Y, Z, rule,
                          w, init_arms, th, c, log_const, fixed, max_samples, rng_pol)
        if a < 0:
            return ints[T_STATUS]
        if not draw:
            r = 0.0
        elif gaussian:
            r = means[a] + sigma * _rng.normal(rng_env)
        else:
            r = pull(env, a, rng_env)
        observe_arrays(ints, counts, sums, Ainv, vals, lev, theta, g, X, Y, a, r,
                       refresh_every)
        if not draw and rule == RULE_RATIO and ints[T_INIT] < 0:
            return RUNNING  # the caller continues with ratio_oracle_jump
