"""Jitted kernels of the static allocations (G-static, XY-static, XY-oracle): the step
kernel :func:`static_decide` and the simulation loop that drives it; the least-squares
state on the decision directions is shared with the phased family
(:mod:`bandits._core.targets`)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from bandits._core.env import pull
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
    argmax_all,
    beta,
    check_stop,
    greedy_choice,
    initial_step,
    observe,
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
    ints, Ainv, theta = st.ints, st.Ainv, st.theta
    X, Y = cfg.X, cfg.Y
    if ints[T_INIT] >= 0:
        a = initial_step(st, X, Y, cfg.init_arms, ints[T_PULLS], cfg.max_samples)
        if a != -2:
            return a
    t = ints[T_PULLS]
    b = beta(t, cfg.c, cfg.log_const, cfg.fixed)
    th = cfg.theta_true if cfg.stop_kind == STOP_ORACLE else theta
    if check_stop(cfg.Z, Ainv, th, b) >= 0:
        ints[T_STATUS] = STATUS_RULE
        return -1
    if t >= cfg.max_samples:
        ints[T_STATUS] = STATUS_BUDGET
        return -1
    if cfg.rule == RULE_GREEDY:
        return greedy_choice(X, Y, ints[T_M], Ainv, st.vals, rng, st.g, st.scores)
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


