"""Jitted GIFA template (Réda, Kaufmann & Delahaye-Duriez 2021, Algorithm 1).

One round: estimated means ``mu``, gap indices ``B_{i,j} = mu_i - mu_j + W(i,j)``, the
estimated top-m set ``J`` (compute_Jt), the ambiguous arm ``b`` (compute_bt), the challenger
``c = argmax_{i not in J} B_{i,b}``, the stopping rule, and the arm(s) to pull (selection
rule). Rules are integer codes (numba cannot take Python callables cheaply); the Python
side (:mod:`bandits.gifa`) maps names to codes. Ties are broken uniformly at random with
the policy's own generator.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from bandits._core import rng as _rng
from bandits._core.env import pull
from bandits._core.jit import inner
from bandits._core.lsq import T, ellipsoid_multiplier, estimated_means, update_inner
from bandits._core.rng import argmax_random_ties

# integer configuration layout
J_RULE, B_RULE, STOP_RULE, SELECTION, PAIRED, THRESHOLD, M = range(7)
J_EMPIRICAL, J_UGAPE = 0, 1
B_LUCB, B_GIFA = 0, 1
STOP_LUCB, STOP_UGAPE = 0, 1
SEL_LARGEST_VARIANCE, SEL_GREEDY, SEL_OPTIMIZED, SEL_BOTH = 0, 1, 2, 3
THR_THEORETICAL, THR_LINGAPE, THR_HEURISTIC, THR_LUCB1 = 0, 1, 2, 3
# float configuration layout
DELTA, EPS, SIGMA, LAM, S_BOUND, L_BOUND = range(6)
# decision output layout
OUT_STOP, OUT_ARM1, OUT_ARM2, OUT_B, OUT_C = range(5)


@inner
def threshold(kind: int, t: float, K: int, d: int, logdet_ratio: float, f: np.ndarray) -> float:
    """Confidence multiplier ``C(t, delta)`` (indices are ``Delta_hat + C sigma ||.||_{V^-1}``).

    * theoretical (Réda et al. 2021, Eq. 2; Abbasi-Yadkori et al. 2011 with
      ``log det V / det(lam I) <= d log(1 + (t+1) L^2 / (lam d))``):
      ``sqrt(2 log(1/delta) + d log(1 + (t+1) L^2 / (lam d))) + sqrt(lam) S / sigma``.
    * lingape (Xu, Honda & Sugiyama 2018, Eq. 3 with ``delta / K^2``):
      ``sqrt(2 log(K^2 / delta) + log(det V / det(lam I))) + sqrt(lam) S / sigma``.
    * heuristic (Réda et al. 2021, §5): ``sqrt(2 log((log t + 1) / delta))``.
    * lucb1 (Kalyanakrishnan et al. 2012, as in Réda et al.'s code):
      ``sqrt(2 log(5 K t^4 / (4 delta)))``.
    """
    delta = f[DELTA]
    t = max(t, 1.0)
    if kind == THR_THEORETICAL:
        # d as a float, as LinGame passes it: one specialisation of the shared kernel
        return ellipsoid_multiplier(t, delta, float(d), f[L_BOUND] ** 2, f[LAM],
                                    np.sqrt(f[LAM]) * f[S_BOUND] / f[SIGMA])
    if kind == THR_LINGAPE:
        inner = 2.0 * np.log(K * K / delta) + max(logdet_ratio, 0.0)
        return np.sqrt(inner) + np.sqrt(f[LAM]) * f[S_BOUND] / f[SIGMA]
    if kind == THR_HEURISTIC:
        return np.sqrt(2.0 * np.log((np.log(t) + 1.0) / delta))
    return np.sqrt(2.0 * np.log(5.0 * K * t ** 4 / (4.0 * delta)))


@inner
def gap_index(i, j, X, P, diag, mu, scale, paired) -> float:
    """``B_{i,j} = mu_i - mu_j + W(i,j)`` with ``scale = C sigma``.

    paired: ``W = scale ||x_i - x_j||_{V^-1}``; individual:
    ``W = scale (||x_i||_{V^-1} + ||x_j||_{V^-1})``.

    The paired width is computed from the difference vector ``y = x_i - x_j``:
    ``||y||^2_{V^-1} = y . (P_i - P_j)`` (``P = X V^{-1}``), whose rounding error is
    proportional to ``||y||`` and not to ``||x||^2``.  The expanded form
    ``diag_i + diag_j - 2 P_i . x_j`` cancels catastrophically on nearly parallel arms
    (``||y|| = 1e-6`` leaves no correct digit) and made LinGapE stop with wrong answers
    (issue 12).
    """
    if paired:
        v = 0.0
        for r in range(X.shape[1]):
            v += (X[i, r] - X[j, r]) * (P[i, r] - P[j, r])
        w = scale * np.sqrt(v) if v > 0.0 else 0.0
    else:
        w = scale * (np.sqrt(max(diag[i], 0.0)) + np.sqrt(max(diag[j], 0.0)))
    return mu[i] - mu[j] + w


@inner
def _mth_largest_other(j, m, X, P, diag, mu, scale, paired, buf) -> float:
    """``max^m_{i != j} B_{i,j}``: the m-th largest index against ``j``.

    A selection by insertion into ``buf[:r]`` (the ``r = m`` largest values seen so far,
    in decreasing order; or the ``r = K - m`` smallest, in increasing order, when that is
    shorter): ``O(K min(m, K - m))`` and no call of numba's sort, whose first compilation
    cost about 1.5 s of CPU (issue 16). The value is the same as ``sorted(...)[K - 1 - m]``.
    """
    K = X.shape[0]
    n = K - 1
    top = m <= n - m + 1
    r = m if top else n - m + 1
    filled = 0
    for i in range(K):
        if i == j:
            continue
        v = gap_index(i, j, X, P, diag, mu, scale, paired)
        sign = 1.0 if top else -1.0
        if filled < r:
            p = filled
            filled += 1
        elif sign * v > sign * buf[r - 1]:
            p = r - 1
        else:
            continue
        while p > 0 and sign * buf[p - 1] < sign * v:
            buf[p] = buf[p - 1]
            p -= 1
        buf[p] = v
    return buf[r - 1]


class GifaConfig(NamedTuple):
    """The rules of a run: ``cfg`` (int64, slots J_RULE..M), ``f`` (float64, slots
    DELTA..L_BOUND) and the optimized rule's pair ratios ``ratios[b, c, a]``."""

    cfg: np.ndarray
    f: np.ndarray
    ratios: np.ndarray


class GifaWork(NamedTuple):
    """Outputs and scratch of a decision: estimated means ``mu``, indices ``ind``, the
    top-m set (``inJ`` mask, ``J`` list), a buffer, and ``out`` (slots OUT_STOP, OUT_ARM1,
    OUT_ARM2, OUT_B, OUT_C)."""

    mu: np.ndarray
    ind: np.ndarray
    inJ: np.ndarray
    J: np.ndarray
    buf: np.ndarray
    out: np.ndarray


def new_work(K: int, m: int) -> GifaWork:
    """Fresh decision arrays for K arms and a top-m set."""
    return GifaWork(np.zeros(K), np.zeros(K), np.zeros(K, dtype=np.bool_),
                    np.zeros(m, dtype=np.int64), np.zeros(K), np.zeros(5, dtype=np.int64))


@inner
def decide_inner(X, lsq, conf, rng, work):
    """The step kernel: one GIFA decision from the least-squares state ``lsq``; fills
    ``work.out = [stop, arm1, arm2, b, c]`` and ``work.J``.

    ``arm2`` is -1 unless the selection rule pulls both ``b`` and ``c``. Returns ``B_{c,b}``.
    """
    P, diag, bvec, counts, stats = lsq.P, lsq.diag, lsq.bvec, lsq.counts, lsq.stats
    cfg, f, ratios = conf.cfg, conf.f, conf.ratios
    mu, ind, inJ, J, buf, out = work.mu, work.ind, work.inJ, work.J, work.buf, work.out
    K, d = X.shape
    m = cfg[M]
    paired = cfg[PAIRED] == 1
    estimated_means(P, bvec, mu)
    C = threshold(cfg[THRESHOLD], stats[0], K, d, stats[1], f)
    scale = C * f[SIGMA]
    need_ind = cfg[J_RULE] == J_UGAPE or cfg[B_RULE] == B_GIFA or cfg[STOP_RULE] == STOP_UGAPE
    # compute_Jt: the m best arms by -ind (UGapE) or by mu (empirical), random ties
    for a in range(K):
        inJ[a] = False
    if cfg[J_RULE] == J_UGAPE:
        for j in range(K):
            ind[j] = _mth_largest_other(j, m, X, P, diag, mu, scale, paired, buf)
        for a in range(K):
            buf[a] = -ind[a]
    else:
        for a in range(K):
            buf[a] = mu[a]
    for r in range(m):
        arg = argmax_random_ties(buf, rng, 1.0)
        buf[arg] = -np.inf
        inJ[arg] = True
        J[r] = arg
    if cfg[J_RULE] != J_UGAPE and need_ind:
        for r in range(m):
            ind[J[r]] = _mth_largest_other(J[r], m, X, P, diag, mu, scale, paired, buf)
    # compute_bt
    for a in range(K):
        buf[a] = -np.inf
    for r in range(m):
        j = J[r]
        if cfg[B_RULE] == B_GIFA:
            buf[j] = ind[j]
        else:
            v = -np.inf
            for i in range(K):
                if not inJ[i]:
                    v = max(v, gap_index(i, j, X, P, diag, mu, scale, paired))
            buf[j] = v
    b = argmax_random_ties(buf, rng, 1.0)
    # challenger c = argmax_{i not in J} B_{i,b}
    for i in range(K):
        buf[i] = -np.inf if inJ[i] else gap_index(i, b, X, P, diag, mu, scale, paired)
    c = argmax_random_ties(buf, rng, 1.0)
    bcb = buf[c]
    out[OUT_B] = b
    out[OUT_C] = c
    out[OUT_ARM2] = -1
    # stopping rule
    if cfg[STOP_RULE] == STOP_UGAPE:
        worst = -np.inf
        for r in range(m):
            worst = max(worst, ind[J[r]])
        stop = worst <= f[EPS]
    else:
        stop = bcb <= f[EPS]
    out[OUT_STOP] = 1 if stop else 0
    if stop:
        out[OUT_ARM1] = -1
        return bcb
    # selection rule
    sel = cfg[SELECTION]
    if sel == SEL_BOTH:
        out[OUT_ARM1] = b
        out[OUT_ARM2] = c
    elif sel == SEL_LARGEST_VARIANCE:
        # variances within 1e-9 (relative) are a tie: equal counts give equal variances up to
        # rounding, and the tie must be broken at random whatever the rounding did
        if abs(diag[b] - diag[c]) <= 1e-9 * max(diag[b], diag[c]):
            out[OUT_ARM1] = b if _rng.integer(rng, np.int64(2)) == 0 else c  # no literal
        elif diag[b] > diag[c]:
            out[OUT_ARM1] = b
        else:
            out[OUT_ARM1] = c
    elif sel == SEL_GREEDY:
        # argmin_a ||y||^2_{(V + x_a x_a^T)^-1} = argmax_a (x_a^T V^-1 y)^2 / (1 + diag_a)
        for a in range(K):
            s = 0.0
            for r in range(d):
                s += P[a, r] * (X[b, r] - X[c, r])
            buf[a] = s * s / (1.0 + diag[a])
        out[OUT_ARM1] = argmax_random_ties(buf, rng, 1.0)
    else:  # optimized: track p = |w*(b, c)| / ||w*||_1, argmin_{p_a > 0} N_a / p_a
        for a in range(K):
            p = ratios[b, c, a]
            buf[a] = -counts[a] / p if p > 0.0 else -np.inf
        out[OUT_ARM1] = argmax_random_ties(buf, rng, 1.0)
    return bcb


STOPPED_BY_RULE, STOPPED_BY_BUDGET, NEED_REFRESH = 0, 1, 2


@njit(cache=True)
def simulate(X, lam, lsq, conf, rng_pol, rng_env, env, resume, max_samples, refresh_every,
             work) -> tuple[int, int, int]:
    """Run a GIFA algorithm against the simulated environment ``env`` until it stops, the
    budget of ``max_samples`` pulls is spent, or the exact refresh of the least-squares
    state is due. Returns ``(status, a, second)``: ``status`` is STOPPED_BY_RULE or
    STOPPED_BY_BUDGET (the recommendation is left in ``work.J``), or NEED_REFRESH: the
    caller runs :func:`bandits._core.lsq.refresh` (numpy/LAPACK: no factorisation is
    compiled here, issue 16) and calls again with ``resume = (a, second, True)``, where
    the run was (``a``: the next initial arm, ``K + 1`` past the initial round; ``second``:
    the decision's second arm still to pull, or -1; True: the refresh is done). A fresh
    run starts from ``(0, -1, False)``, or ``(K + 1, -1, False)`` without the initial round.
    (Scalars, not an array of loop state: an extra array argument made the loop 15 %
    slower, measured.)

    The sequence decide -> pull -> update (-> refresh) is exactly the one the ask/tell
    front-end (:class:`bandits.gifa.Policy`) performs, so both give the same trajectory for
    the same rewards and seed.  A budget spent during the initialisation also ends with a
    decision (the exact refresh, then ``decide``), so the recommendation is always ``m``
    distinct arms, as in the ask/tell front-end (issue 12: it used to be the unfilled
    ``[0, 0]``).

    The paired widths are computed from difference vectors (:func:`gap_index`).
    """
    K = X.shape[0]
    out = work.out
    # One call site per kernel (LLVM compiles a kernel's code again at every site it
    # inlines, issue 16): `a < K` is the initial round (arm `a`), `a == K` the exact
    # refresh after it (V singular with lam = 0, or badly conditioned updates from
    # V^-1 = I / lam with a tiny lam); then decide -> pull arm 1 -> pull arm 2 (paired).
    a, second, fresh = resume  # `second`: the decision's second arm, pulled next
    due = False  # the periodic exact refresh of the least-squares state
    while True:
        exhausted = lsq.stats[T] >= max_samples
        if (due or a == K or (a < K and exhausted)) and not fresh:
            return NEED_REFRESH, a, second
        fresh = False
        if second >= 0 and not exhausted:
            arm = second
            second = -1
        elif a >= K or exhausted:
            decide_inner(X, lsq, conf, rng_pol, work)
            if exhausted:
                return STOPPED_BY_BUDGET, a, second
            if out[OUT_STOP] == 1:
                return STOPPED_BY_RULE, a, second
            arm = out[OUT_ARM1]
            second = out[OUT_ARM2]
        else:
            arm = a
        due = update_inner(X, lam, lsq, arm, pull(env, arm, rng_env), refresh_every)
        a += 1


# ----------------------------------------------------------------------------------------
# Python entries (the ask/tell policies' and the tests' calls)
# ----------------------------------------------------------------------------------------
# The simulation loop calls decide_inner, compiled without numba's Python wrapper
# (bandits._core.jit.inner): a run's first call does not compile the wrappers of its
# namedtuple states; this entry compiles them on the first Python call.


@njit(cache=True)
def decide(X, lsq, conf, rng, work):
    """Python entry of :func:`decide_inner` (compiled on the first Python call)."""
    return decide_inner(X, lsq, conf, rng, work)
