"""Jitted kernels of the logistic bandit module (numba, ``cache=True``, no object mode).

Everything works on *sufficient statistics per arm*: ``n[a]`` pulls and ``s[a]`` successes
of arm ``a`` (rows of ``X``). The logistic log-likelihood of such data is

.. math:: \\ell(\\theta) = \\sum_a s_a z_a - n_a \\log(1 + e^{z_a}),\\qquad z_a = x_a^T\\theta,

so an MLE costs ``O(K d^2)`` per Newton step whatever the number of pulls (the MLE itself
is numpy, :func:`bandits.logistic.core.newton_mle`: it runs a few times per run, issue 16).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from bandits._core.jit import inner
from bandits._core.rng import binomial_split, standard_gamma, uniform  # noqa: F401
from bandits._core.targets import argmax_all

#: WAR probing decisions (:func:`probe_arm`).
UNDECIDED = 0
ACCEPT = 1
REJECT = 2


class DesignStats(NamedTuple):
    """Per-arm statistics of one fixed design (a warm-up's planned pulls or a HOMER phase):
    the only data its estimate uses (one value at the numba boundary)."""

    n: np.ndarray
    """Outcomes recorded per arm, int64 (K,)."""
    s: np.ndarray
    """Successes per arm, int64 (K,)."""


def new_design_stats(K: int) -> DesignStats:
    """Empty statistics for ``K`` arms."""
    return DesignStats(np.zeros(K, dtype=np.int64), np.zeros(K, dtype=np.int64))


@njit(cache=True)
def design_record(st: DesignStats, arm: int, y: int) -> None:
    """The step kernel of a fixed design: record outcome ``y`` (0 or 1) of ``arm``. Called
    per pull by the per-sample simulation (:func:`design_play`) and by the ask/tell
    policies (HOMER's phases, the warm-ups' planned pulls)."""
    st.n[arm] += 1
    st.s[arm] += y


@njit(cache=True)
def bernoulli(p: float, state: np.ndarray) -> int:
    """One Bernoulli(``p``) outcome: ``uniform < p`` (the environment's draw of one pull)."""
    return 1 if uniform(state) < p else 0


@njit(cache=True)
def design_play(order: np.ndarray, p: np.ndarray, state: np.ndarray, st: DesignStats) -> None:
    """Per-sample simulation of a design: the pulls ``order`` (the ask/tell order), each
    drawn from the stream ``state`` and recorded by :func:`design_record`."""
    for i in range(order.shape[0]):
        a = order[i]
        design_record(st, a, bernoulli(p[a], state))


@njit(cache=True, error_model="numpy")
def design_draw(counts: np.ndarray, p: np.ndarray, state: np.ndarray, st: DesignStats) -> None:
    """Sufficient-statistic simulation of a design: every arm's successes drawn at once,
    ``Binomial(counts[a], p[a])`` (:func:`binomial_split`): ``O(K log n)``, the same
    distribution of ``(n, s)`` as :func:`design_play`."""
    for a in range(counts.shape[0]):
        st.n[a] += counts[a]
        st.s[a] += binomial_split(int(counts[a]), p[a], state)


@inner
def logit_abs(q: float) -> float:
    """``|mu^{-1}(q)| = |log(q / (1 - q))|`` (``inf`` at ``q`` in {0, 1})."""
    if q <= 0.0 or q >= 1.0:
        return np.inf
    return abs(np.log(q / (1.0 - q)))


@inner
def bernstein_bounds(N: int, succ: int, K: int, delta: float) -> tuple[float, float]:
    """Bounds ``[L_x, U_x]`` on ``|x^T theta*|`` from ``succ`` successes in ``N`` pulls.

    Anytime empirical-Bernstein width (Mnih, Szepesvari & Audibert 2008; Mason et al. 2022,
    Sec. 3 / Thm 4) with ``log(3 / delta_N) = log(3 K N (N + 1) / delta)``::

        W = sqrt(2 p (1 - p) log(3/delta_N) / N) + 3 log(3/delta_N) / N,   p = succ / N.

    The mean interval ``[p - W, p + W]`` (clipped to [0, 1]) is mapped through
    ``|mu^{-1}|``: if it contains 1/2 then ``L_x = 0``; otherwise ``L_x`` and ``U_x`` are the
    smaller and larger of ``|mu^{-1}|`` of its end points (``U_x = inf`` at 0 or 1).
    """
    p = succ / N
    lg = np.log(3.0 * K * N * (N + 1.0) / delta)
    W = np.sqrt(2.0 * p * (1.0 - p) * lg / N) + 3.0 * lg / N
    # max/min of two floats spelled out as the builtins' selects (``max(x, y)`` is ``y if
    # y > x else x``): the same values, without compiling their overloads (issue 16)
    lo = p - W if p - W > 0.0 else 0.0
    hi = p + W if p + W < 1.0 else 1.0
    a = logit_abs(lo)
    b = logit_abs(hi)
    U = b if b > a else a
    if lo <= 0.5 <= hi:
        return 0.0, U
    return (b if b < a else a), U


@njit(cache=True, inline="always")
def probe_decision_inner(N: int, succ: int, K: int, delta: float, Lw: float, Uw: float
                   ) -> tuple[int, float, float]:
    """WAR's stopping rule for one probed arm after ``succ`` successes in ``N`` pulls.

    Returns ``(decision, L_x, U_x)``: :data:`ACCEPT` if ``U_x < U``, else :data:`REJECT` if
    ``L_x > L``, else :data:`UNDECIDED` (:func:`bernstein_bounds`). Shared by the simulation
    (:func:`probe_arm`, which inlines it: one call site) and the ask/tell front-end
    (:class:`bandits.logistic.WarPolicy`, through :func:`probe_decision`).
    """
    lo, hi = bernstein_bounds(N, succ, K, delta)
    if hi < Uw:
        return ACCEPT, lo, hi
    if lo > Lw:
        return REJECT, lo, hi
    return UNDECIDED, lo, hi


@njit(cache=True)
def probe_decision(N: int, succ: int, K: int, delta: float, Lw: float, Uw: float
                   ) -> tuple[int, float, float]:
    """Python entry of :func:`probe_decision_inner` (the ask/tell policy's call; compiled
    on its first call, not by a simulation's)."""
    return probe_decision_inner(N, succ, K, delta, Lw, Uw)


@njit(cache=True)
def probe_arm(p: float, K: int, delta: float, Lw: float, Uw: float, state: np.ndarray,
              max_pulls: int) -> tuple[int, int, int, float, float]:
    """WAR optimistic probing of one arm (Mason et al. 2022, Algorithm 2, line 6).

    Pull the arm (success probability ``p``) until ``Accept = {U_x < U}`` or
    ``Reject = {L_x > L}`` (:func:`probe_decision`), or ``max_pulls``. Returns
    ``(N, successes, decision, L_x, U_x)``.
    """
    succ = 0
    for N in range(1, max_pulls + 1):
        if uniform(state) < p:
            succ += 1
        dec, lo, hi = probe_decision_inner(N, succ, K, delta, Lw, Uw)
        if dec != UNDECIDED or N == max_pulls:
            return N, succ, dec, lo, hi
    return 0, 0, UNDECIDED, 0.0, np.inf


@njit(cache=True)
def eps_greedy_steps(X: np.ndarray, means: np.ndarray, best: float, explore_cdf: np.ndarray,
                     c_eps: float, t: int, t_stop: int, fitted: bool, theta: np.ndarray,
                     state: np.ndarray, counts: np.ndarray, succ: np.ndarray,
                     checkpoints: np.ndarray, c: int, reg: float, regret_out: np.ndarray
                     ) -> tuple[int, float]:
    """Steps ``t, ..., t_stop - 1`` (1-based) of epsilon-greedy on a fixed estimate ``theta``
    (the regret baseline; :func:`bandits.logistic.run_eps_greedy` refits between calls).

    At time ``t`` explore with probability ``eps_t = min(1, c_eps d / t)`` (always before
    the first fit, ``fitted`` False) by drawing an arm from ``explore_cdf`` (the G-optimal
    design of the arms), otherwise pull ``argmax_a x_a^T theta``; the outcome is a
    Bernoulli(``means[arm]``) draw. ``reg`` is the cumulative pseudo-regret (``best -
    means[arm]`` per pull), written to ``regret_out[c]`` at each checkpoint
    ``checkpoints[c] == t`` (sorted). Returns the new ``(c, reg)``.
    """
    d = X.shape[1]
    K = X.shape[0]
    for tt in range(t, t_stop):
        eps = c_eps * d / tt
        if not fitted or uniform(state) < eps:  # eps >= 1: always (uniform < 1)
            u = uniform(state)
            arm = K - 1
            for a in range(K):
                if u < explore_cdf[a]:
                    arm = a
                    break
        else:
            arm = argmax_all(X, theta)
        counts[arm] += 1.0
        if uniform(state) < means[arm]:
            succ[arm] += 1.0
        reg += best - means[arm]
        while c < checkpoints.shape[0] and checkpoints[c] == tt:
            regret_out[c] = reg
            c += 1
    return c, reg
