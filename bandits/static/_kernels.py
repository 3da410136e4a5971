"""Jitted kernels of the static allocations (G-static, XY-static, XY-oracle): the step
kernel :func:`static_decide` and the simulation loop that drives it; the least-squares
state on the decision directions is shared with the phased family
(:mod:`bandits._core.targets`)."""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from bandits._core import rng as _rng
from bandits._core.env import ENV_GAUSSIAN, pull
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
    initial_arrays,
    initial_step,
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
    return decide_arrays(st.ints, st.counts, st.sums, st.Ainv, st.vals, st.theta, st.g,
                         st.scores, cfg.X, cfg.Y, cfg.Z, cfg.rule, cfg.w, cfg.init_arms, th,
                         cfg.c, cfg.log_const, cfg.fixed, cfg.max_samples, rng)


@njit(cache=True, inline="always")
def decide_arrays(ints, counts, sums, Ainv, vals, theta, g, scores, X, Y, Z, rule, w,
                  init_arms, th_stop, c, log_const, fixed, max_samples, rng) -> int:
    """:func:`static_decide` on the unpacked state and configuration (``th_stop``: the
    estimate ``theta``, or the true parameter for the oracle's stopping test). The loop
    unpacks the bundles once; the ask/tell policy goes through :func:`static_decide`."""
    if ints[T_INIT] >= 0:
        a = initial_arrays(ints, counts, sums, Ainv, vals, theta, X, Y, init_arms,
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
    if rule == RULE_GREEDY:
        return greedy_choice(X, Y, ints[T_M], Ainv, vals, rng, g, scores)
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
    ``theta`` (:func:`draw_sums`). With the ratio rule the loop returns RUNNING after the
    first pull that follows the initial ones, and the caller continues with
    :func:`ratio_oracle_jump` (a separate kernel: compiled only when it is used)."""
    ints, counts, sums, Ainv, vals, theta, g, scores = (st.ints, st.counts, st.sums, st.Ainv,
                                                        st.vals, st.theta, st.g, st.scores)
    X, Y, Z, rule, w, init_arms = cfg.X, cfg.Y, cfg.Z, cfg.rule, cfg.w, cfg.init_arms
    th = cfg.theta_true if cfg.stop_kind == STOP_ORACLE else theta
    c, log_const, fixed, max_samples = cfg.c, cfg.log_const, cfg.fixed, cfg.max_samples
    refresh_every = cfg.refresh_every
    gaussian = env.kind == ENV_GAUSSIAN
    means, sigma = env.means, env.sigma
    while True:
        a = decide_arrays(ints, counts, sums, Ainv, vals, theta, g, scores, X, Y, Z, rule, w,
                          init_arms, th, c, log_const, fixed, max_samples, rng_pol)
        if a < 0:
            return ints[T_STATUS]
        if not draw:
            r = 0.0
        elif gaussian:
            r = means[a] + sigma * _rng.normal(rng_env)
        else:
            r = pull(env, a, rng_env)
        observe_arrays(ints, counts, sums, Ainv, vals, theta, g, X, Y, a, r, refresh_every)
        if not draw and rule == RULE_RATIO and ints[T_INIT] < 0:
            return RUNNING  # the caller continues with ratio_oracle_jump


@njit(cache=True)
def draw_sums(st, cfg, env, rng_env) -> None:
    """Each arm's reward sum at once, ``N(N_a mu_a, N_a sigma^2)`` (Gaussian rewards), then
    the exact ``A^{-1}``, ``theta`` and ``vals`` from the statistics."""
    counts, sums = st.counts, st.sums
    for a in range(counts.shape[0]):
        n = counts[a]
        sums[a] = 0.0
        if n > 0:
            sums[a] = n * env.means[a] + env.sigma * math.sqrt(n) * _rng.normal(rng_env)
    refresh(cfg.X, cfg.Y, st.ints[T_M], counts, sums, st.Ainv, st.vals, st.theta)


@njit(cache=True)
def ratio_counts(w, m, out) -> None:
    """``out``: the counts after ``m`` pulls of the ratio rule from zero counts
    (``m`` at least the support size): the prefix of length ``m`` of the merge of the
    keys ``(j / w_a, a)``, ``j = 1, 2, ...`` (after one initial pull of each support arm),
    which is the order :func:`rounding.tracking.track_ratio` pulls in (smallest key, lowest
    index on ties). Found from the guess ``max(1, floor(m w_a))`` by exchanges, in
    ``O(K^2)`` (every prefix of efficient rounding is within 1 of ``m w_a``)."""
    K = w.shape[0]
    total = 0
    for a in range(K):
        out[a] = max(1, int(m * w[a])) if w[a] > 0.0 else 0
        total += out[a]
    while True:
        # the next pull (smallest next key) and the last pull (largest last key)
        nxt, nk = -1, np.inf
        lst, lk = -1, -np.inf
        for a in range(K):
            if w[a] <= 0.0:
                continue
            k = out[a] / w[a]
            if k < nk:
                nk, nxt = k, a
            if out[a] >= 2:
                k = (out[a] - 1) / w[a]
                if k >= lk:
                    lk, lst = k, a
        if total < m:
            out[nxt] += 1
            total += 1
        elif total > m:
            out[lst] -= 1
            total -= 1
        elif lst >= 0 and (lk > nk or (lk == nk and lst > nxt)):
            out[lst] -= 1  # not a prefix: exchange the last pull for the next one
            out[nxt] += 1
        else:
            return


@njit(cache=True)
def ratio_oracle_jump(st, cfg) -> int:
    r"""XY-oracle with the ratio rule after the initial pulls, without drawing rewards: the
    first ``t`` at which the oracle's test (Soare et al. Eq. 4/11 with the true
    ``theta``) holds, or the budget, found by jumps over certified stretches.

    The test at ``t`` fails when some ``z`` has ``beta(t) ||z* - z||_{A_t^{-1}} >
    Delta(z)``. ``beta`` is non-decreasing in ``t`` and ``A_t`` grows (in the PSD order)
    with the counts, so if ``beta(t) ||z* - z||_{A_{t+L}^{-1}} > Delta(z)`` for one ``z``
    the test fails at every step of ``[t, t + L]``: the stretch is skipped (``L`` doubles
    while this holds and halves when it does not; at ``L = 1`` the test is evaluated at the
    next step as the per-sample loop evaluates it). Counts at any ``t`` come from
    :func:`ratio_counts`; ``A_t^{-1}`` is recomputed exactly there."""
    ints, counts, sums, Ainv, vals, theta = (st.ints, st.counts, st.sums, st.Ainv, st.vals,
                                             st.theta)
    X, Y, Z, w, th = cfg.X, cfg.Y, cfg.Z, cfg.w, cfg.theta_true
    c, log_const, fixed, max_samples = cfg.c, cfg.log_const, cfg.fixed, cfg.max_samples
    M = ints[T_M]
    K, d = X.shape
    KZ = Z.shape[0]
    best = argmax_all(Z, th)
    gaps = np.empty(KZ)
    for z in range(KZ):
        gaps[z] = 0.0
        for i in range(d):
            gaps[z] += (Z[best, i] - Z[z, i]) * th[i]
    y = np.empty(d)
    cnt2 = np.empty(K, dtype=np.int64)
    Ainv2 = np.empty((d, d))
    vals2 = np.empty(vals.shape[0])
    theta2 = np.empty(d)
    t = ints[T_PULLS]
    L = 1
    while True:
        refresh(X, Y, M, counts, sums, Ainv, vals, theta)
        b = beta(t, c, log_const, fixed)
        if check_stop(Z, Ainv, th, b) >= 0:
            ints[T_STATUS] = STATUS_RULE
            break
        if t >= max_samples:
            ints[T_STATUS] = STATUS_BUDGET
            break
        while True:
            L = min(L, max_samples - t)
            ratio_counts(w, t + L, cnt2)
            refresh(X, Y, M, cnt2, sums, Ainv2, vals2, theta2)
            certified = False
            for z in range(KZ):
                if z == best:
                    continue
                for i in range(d):
                    y[i] = Z[best, i] - Z[z, i]
                if b * math.sqrt(max(quad(Ainv2, y), 0.0)) > gaps[z]:
                    certified = True
                    break
            if certified or L == 1:
                break
            L //= 2
        if certified:  # no stop in (t, t + L): go to t + L, where the test is evaluated
            t += L
            L *= 2
        else:  # evaluate the test at the next step
            t += 1
            L = 1
        ratio_counts(w, t, counts)
    ints[T_PULLS] = t
    return ints[T_STATUS]
