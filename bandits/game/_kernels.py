"""Jitted LinGame (Degenne, Ménard, Shang & Valko 2020), best arm (m = 1).

One round, from the least-squares state (:mod:`bandits._core.lsq`):

* the candidate answer ``i* = argmax_a mu_hat_a`` (random ties);
* the GLR statistic against the closest alternative in the geometry of the counts,
  ``W = sum_a N_a x_a x_a^T``: ``Z = min_{a != i*} (mu_hat_i* - mu_hat_a)^2 /
  (2 sigma^2 ||x_a - x_i*||^2_{W^-1})``; stop when ``Z >= beta(t)``, the theoretical
  threshold ``C(t)^2 / 2`` (:func:`glr_threshold`, delta-correct) or the heuristic
  ``log((log t + 1) / delta)`` of Réda et al. 2021;
* otherwise the learner of ``i*`` (AdaHedge over the arms) proposes ``w``; Nature answers
  with the closest alternative ``lambda = theta_hat - (y^T theta_hat / ||y||^2_{W^-1})
  W^{-1} y``, ``y = x_a - x_i*`` for the minimising ``a``; the learner is charged the
  optimistic gains ``g_a = min(0.5 (|x_a^T (theta_hat - lambda)| + b_a)^2, log t)`` (as a
  loss ``-g``), with the bonus ``b_a = sqrt(2 log t) ||x_a||_{V^-1}`` (the largest
  ``|x_a^T (xi - theta_hat)|`` over the ellipsoid ``||xi - theta_hat||_V <= sqrt(2 log t)``,
  Degenne et al.'s optimism) or, ``BONUS_CODE``, ``b_a = sqrt(2 log t ||x_a||_{V^-1})``
  (Réda et al.'s code); D-tracking pulls ``argmin_a N_a - t w_a``.

``W^{-1}`` is kept as ``V^{-1}`` is (:mod:`bandits._core.lsq`, a second state with
``lam = 0``): ``Q = X W^{-1}`` by Sherman–Morrison at every pull, exact (LAPACK) after the
initial round and every ``refresh_every`` pulls; ``||y||^2_{W^-1} = y . (Q_a - Q_b)`` for
``y = x_a - x_b`` and ``W^{-1} y = Q_a - Q_b``.

The state arrays are bundled in :class:`GameState`; slots of ``out`` and ``fout`` are
named by module constants.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from bandits._core.env import pull
from bandits._core.jit import inner
from bandits._core.lsq import READY, T, ellipsoid_multiplier, estimated_means, update_inner
from bandits._core.rng import argmax_random_ties

# output slots
OUT_STOP, OUT_ARM, OUT_BEST, OUT_ALT = range(4)
F_GLR, F_THRESHOLD = range(2)
# configuration slots (float): the theoretical threshold's constants are
# C_THEORETICAL (1.0 or 0.0 for the heuristic), C_DIM (d), C_L2 (L^2 = max ||x_a||^2),
# C_LAM (lam) and C_BIAS (sqrt(lam) S / sigma_glr)
C_DELTA, C_SIGMA_GLR, C_BONUS, C_THEORETICAL, C_DIM, C_L2, C_LAM, C_BIAS = range(8)
BONUS_PAPER, BONUS_CODE = 0, 1
#: AdaHedge's initial cumulative mixability gap (Réda et al.'s code: 0.01)
HEDGE_DELTA0 = 0.01
STOPPED_BY_RULE, STOPPED_BY_BUDGET, STOPPED_SINGULAR, NEED_REFRESH = 0, 1, 2, 3


class GameState(NamedTuple):
    """LinGame's own state next to the least-squares one, and its scratch."""

    losses: np.ndarray
    """Cumulative losses of the AdaHedge learner of each candidate answer, (K, K)."""
    hedge: np.ndarray
    """AdaHedge's cumulative mixability gap per learner, (K,) (starts at 0.01)."""
    w: np.ndarray
    """The proposed weights of the last round, (K,)."""
    gain: np.ndarray
    """Optimistic gains of the last round, (K,)."""
    mu: np.ndarray
    """Estimated means, (K,)."""
    shift: np.ndarray
    """``theta_hat - lambda`` for Nature's best response ``lambda``, (d,)."""
    scratch: np.ndarray
    """(K,) work array."""
    out: np.ndarray
    """int64 slots OUT_STOP, OUT_ARM, OUT_BEST, OUT_ALT."""
    fout: np.ndarray
    """float64 slots F_GLR, F_THRESHOLD."""


def new_state(K: int, d: int) -> GameState:
    """Fresh LinGame arrays for K arms in dimension d."""
    return GameState(np.zeros((K, K)), np.full(K, HEDGE_DELTA0), np.zeros(K), np.zeros(K),
                     np.zeros(K), np.zeros(d), np.zeros(K), np.zeros(4, dtype=np.int64),
                     np.zeros(2))


@inner
def glr_threshold(t: float, f: np.ndarray) -> float:
    """``beta(t)`` of the GLR stopping test (GLR scale: ``Z >= beta``).

    Theoretical (``f[C_THEORETICAL] == 1``): ``beta(t) = C(t)^2 / 2`` with Réda et al.'s
    (2021, Eq. 2) multiplier ``C(t) = sqrt(2 log(1/delta) + d log(1 + (t+1) L^2 / (lam
    d))) + sqrt(lam) S / sigma``. With probability at least ``1 - delta``, at every t,
    ``||theta_hat - theta||_V <= sigma C(t)`` (Abbasi-Yadkori et al. 2011, Thm. 2, ``V =
    lam I + W``); then ``|y^T (theta_hat - theta)| <= sigma C(t) ||y||_{V^-1} <= sigma C(t)
    ||y||_{W^-1}`` for ``y = x_i* - x_a`` (``V >= W``), so ``Z >= beta(t)`` makes
    ``mu_i* - mu_a >= mu_hat_i* - mu_hat_a - sigma C ||y||_{W^-1} > 0`` for every ``a``:
    the stopped answer is right. Otherwise the heuristic :func:`heuristic_threshold`.
    """
    if f[C_THEORETICAL] == 0.0:
        return heuristic_threshold(t, f[C_DELTA])
    c = ellipsoid_multiplier(t, f[C_DELTA], f[C_DIM], f[C_L2], f[C_LAM], f[C_BIAS])
    return 0.5 * c * c


@inner
def heuristic_threshold(t: float, delta: float) -> float:
    """``beta(t) = log((log t + 1) / delta)`` (Réda et al. 2021, §5; GLR scale)."""
    return np.log((np.log(max(t, 1.0)) + 1.0) / delta)


@inner
def pair_width(X, Q, a, b) -> float:
    """``||x_a - x_b||^2_{W^-1} = (x_a - x_b) . (Q_a - Q_b)`` with ``Q = X W^{-1}`` (the
    count geometry's cached products), from the difference vector."""
    d = X.shape[1]
    s = 0.0
    for i in range(d):
        s += (X[a, i] - X[b, i]) * (Q[a, i] - Q[b, i])
    return s


@inner
def glr(X, mu, best, Q, sigma, vals) -> None:
    """``vals[a] = (mu_best - mu_a)^2 / (2 sigma^2 ||x_a - x_best||^2_{W^-1})``
    (``+inf`` at ``best``): the GLR of ``best`` against the alternative where ``a`` ties it."""
    K = X.shape[0]
    for a in range(K):
        if a == best:
            vals[a] = np.inf
            continue
        w2 = pair_width(X, Q, a, best)
        gap = mu[best] - mu[a]
        vals[a] = gap * gap / (2.0 * sigma * sigma * w2) if w2 > 0.0 else np.inf


@inner
def hedge_weights(losses, eta, w) -> None:
    """AdaHedge's weights ``w ∝ exp(-eta (L - min L))``."""
    K = losses.shape[0]
    m = np.inf  # a loop, not losses.min(): its numba glue costs 0.3 s of CPU (issue 16)
    for a in range(K):
        m = min(m, losses[a])
    s = 0.0
    for a in range(K):
        w[a] = np.exp(-eta * (losses[a] - m))
        s += w[a]
    for a in range(K):
        w[a] /= s


@inner
def hedge_incur(losses, hedge, row, gain, w) -> None:
    """Charge learner ``row`` the losses ``-gain`` (AdaHedge, de Rooij et al. 2014, as in
    Réda et al.'s code): with ``eta = log K / Delta`` and the current weights ``w``,
    ``Delta += w . loss - m``, ``m = min loss - log(sum_a w_a exp(-eta (loss_a - min
    loss))) / eta`` (the mix loss), then ``L += loss``. ``w`` is a work array."""
    K = gain.shape[0]
    eta = np.log(K) / hedge[row]
    hedge_weights(losses[row], eta, w)
    lmin = np.inf
    for a in range(K):
        lmin = min(lmin, -gain[a])
    s = 0.0
    dot = 0.0
    for a in range(K):
        s += w[a] * np.exp(-eta * (-gain[a] - lmin))
        dot += w[a] * -gain[a]
    mix = lmin - np.log(s) / eta
    hedge[row] += max(dot - mix, 0.0)
    for a in range(K):
        losses[row, a] -= gain[a]


@njit(cache=True, inline="always")
def decide_inner(X, lsq, wls, f, rng, st) -> bool:
    """The step kernel: the stopping test and, if the run goes on, the next arm
    (``st.out[OUT_ARM]``), from the least-squares state ``lsq`` (``V = lam I + W``: the
    estimate and the bonus) and the count geometry ``wls`` (the same state with
    ``lam = 0``: ``Q = X W^{-1}`` in its ``P``). Returns False while ``W`` is singular (arms
    not spanning R^d)."""
    P, diag, bvec, counts, stats = lsq.P, lsq.diag, lsq.bvec, lsq.counts, lsq.stats
    K, d = X.shape
    mu, out, fout, vals = st.mu, st.out, st.fout, st.scratch
    estimated_means(P, bvec, mu)
    best = argmax_random_ties(mu, rng, 1.0)
    out[OUT_BEST] = best
    Q = wls.P
    if wls.stats[READY] == 0.0:
        out[OUT_STOP] = 0
        return False
    t = stats[T]
    glr(X, mu, best, Q, f[C_SIGMA_GLR], vals)
    alt = argmax_random_ties(vals, rng, -1.0)
    out[OUT_ALT] = alt
    z = vals[alt] if alt >= 0 else np.inf
    beta = glr_threshold(t, f)
    fout[F_GLR] = z
    fout[F_THRESHOLD] = beta
    if z >= beta:
        out[OUT_STOP] = 1
        out[OUT_ARM] = -1
        return True
    out[OUT_STOP] = 0
    # the learner of the candidate answer proposes w
    eta = np.log(K) / st.hedge[best]
    hedge_weights(st.losses[best], eta, st.w)
    # Nature's best response: the closest alternative where `alt` ties `best` in the
    # W-geometry, lambda = theta_hat - coef W^{-1} y with y = x_alt - x_best and
    # coef = y^T theta_hat / ||y||^2_{W^-1}; only theta_hat - lambda = coef W^{-1} y is
    # needed, and y^T theta_hat = mu_alt - mu_best.
    # (W^{-1} y = Q_alt - Q_best, W^{-1} being symmetric)
    w2 = pair_width(X, Q, alt, best)
    coef = (mu[alt] - mu[best]) / w2
    for i in range(d):
        st.shift[i] = coef * (Q[alt, i] - Q[best, i])
    # optimistic gains, clipped at log t, charged as losses
    width = np.log(max(t, 1.0))
    gain = st.gain
    for a in range(K):
        ref = 0.0
        for i in range(d):
            ref += st.shift[i] * X[a, i]
        if f[C_BONUS] == BONUS_CODE:  # Réda et al.'s code: sqrt(2 log t ||x_a||_{V^-1})
            dev = np.sqrt(2.0 * width * np.sqrt(max(diag[a], 0.0)))
        else:  # the ellipsoid {||xi - theta_hat||_V <= sqrt(2 log t)}
            dev = np.sqrt(2.0 * width * max(diag[a], 0.0))
        g = 0.5 * (abs(ref) + dev) ** 2
        gain[a] = min(g, width)
    hedge_incur(st.losses, st.hedge, best, gain, vals)
    # D-tracking: argmin_a N_a - t w_a
    for a in range(K):
        vals[a] = counts[a] - t * st.w[a]
    out[OUT_ARM] = argmax_random_ties(vals, rng, -1.0)
    return True


@njit(cache=True, inline="always")
def update_inner2(X, lam, lsq, wls, k, reward, refresh_every) -> bool:
    """Record reward ``reward`` of arm ``k`` in both states (:func:`bandits._core.lsq.
    update_inner`: ``V = lam I + W`` and the count geometry ``W``, one call site). Returns
    True when the exact refresh of both is due (their update counters agree once ``W`` is
    invertible: both are refreshed together)."""
    due = False
    for s in range(2):
        state = lsq if s == 0 else wls
        due_s = update_inner(X, lam if s == 0 else 0.0, state, k, reward, refresh_every)
        if s == 0:
            due = due_s
    return due


@njit(cache=True)
def simulate(X, lam, lsq, wls, f, rng_pol, rng_env, env, resume, max_samples,
             refresh_every, st) -> tuple[int, int]:
    """LinGame against the environment ``env``: every arm once, then decide -> pull ->
    update until the GLR test stops it or ``max_samples`` pulls are spent. Returns
    ``(status, a)``: ``status`` is STOPPED_BY_RULE, STOPPED_BY_BUDGET, STOPPED_SINGULAR
    (the arms do not span R^d) or NEED_REFRESH: the exact refresh of the states ``lsq`` and
    ``wls`` is due (after the initial round and every ``refresh_every`` updates); the
    caller runs :func:`bandits._core.lsq.refresh` on both (numpy/LAPACK) and calls again
    with ``resume = (a, True)`` (``a`` counts the pulls from the start of the initial
    round; a fresh run starts from ``(0, False)``).
    The ask/tell :class:`bandits.game.GamePolicy` makes the same calls in the same order."""
    K = X.shape[0]
    # one call site per kernel (each site is code LLVM compiles again): `a < K` is the
    # initial round (arm a), `a == K` refreshes once after it, then decide -> pull
    a, fresh = resume
    due = False
    while True:
        exhausted = lsq.stats[T] >= max_samples
        if (due or a == K or (a < K and exhausted)) and not fresh:
            return NEED_REFRESH, a
        fresh = False
        if a >= K or exhausted:
            ok = decide_inner(X, lsq, wls, f, rng_pol, st)
            if a >= K:
                if not ok:
                    return STOPPED_SINGULAR, a
                if st.out[OUT_STOP] == 1:
                    return STOPPED_BY_RULE, a
            if exhausted:
                return STOPPED_BY_BUDGET, a
        arm = a if a < K else st.out[OUT_ARM]
        due = update_inner2(X, lam, lsq, wls, arm, pull(env, arm, rng_env), refresh_every)
        a += 1


# ----------------------------------------------------------------------------------------
# Python entries (the ask/tell policies' and the tests' calls)
# ----------------------------------------------------------------------------------------
# The simulation loop inlines decide_inner and update_inner2; these entries compile the
# same source for Python callers on their first call.


@njit(cache=True)
def decide(X, lsq, wls, f, rng, st):
    """Python entry of :func:`decide_inner` (compiled on the first Python call)."""
    return decide_inner(X, lsq, wls, f, rng, st)


@njit(cache=True)
def update_step(X, lam, lsq, wls, k, reward, refresh_every) -> bool:
    """Python entry of :func:`update_inner2` (returns whether the refresh is due)."""
    return update_inner2(X, lam, lsq, wls, k, reward, refresh_every)
