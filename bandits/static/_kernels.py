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
from bandits._core.bridge import FLAG_LEAVE, FLAG_STAY, bridge_point, split_bridge, strip_stay
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
    return static_rule(ints, counts, Ainv, vals, g, scores, X, Y, rule, w, rng)


@njit(cache=True, inline="always")
def static_rule(ints, counts, Ainv, vals, g, scores, X, Y, rule, w, rng) -> int:
    """The allocation rule: Soare et al.'s greedy rule on ``Y`` (Eq. 22/26, reading
    ``A^{-1}`` and ``vals``) or ``argmin N_a / w_a``. It never reads the rewards: the
    step kernel (:func:`decide_arrays`) and the block simulation (:func:`simulate_blocks`)
    call it."""
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
    ``theta`` (:func:`bandits.static.draw_sums`). With the ratio rule the loop returns
    RUNNING after the first pull that follows the initial ones, and the caller continues
    with :func:`bandits.static.ratio_oracle_jump` (Python over the compiled kernels
    ``refresh`` and ``check_stop``: no kernel to compile for it)."""
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


# ----------------------------------------------------------------------------------------
# the exact block simulation of G-static and XY-static (issue 18)
# ----------------------------------------------------------------------------------------

FLAG_NONE = 0
#: Longest block (pulls) of the greedy rule; the arms of a block are generated ahead of its
#: draws. The ratio rule's counts come in closed form (:func:`ratio_counts_at`): its blocks
#: are only capped at MAX_BLOCK_RATIO.
MAX_BLOCK = 1 << 16
MAX_BLOCK_RATIO = 1 << 40
#: A block is drawn when bands of LAMBDA_MIN standard deviations of every arm's increment
#: (twice that for a child) fit in its certificate (:func:`_band_scale`); the bands use
#: the largest such scale, at most LAMBDA_MAX.
LAMBDA_MIN = 1.5
LAMBDA_MAX = 2.5
MAX_DEPTH = 64


@njit(cache=True)
def _counts_at(cnt0, seq, i0, i1, out):
    """``out = cnt0 +`` the arms of ``seq[i0:i1]``."""
    out[:] = cnt0
    for i in range(i0, i1):
        out[seq[i]] += 1


@njit(cache=True)
def ratio_counts_at(w, m, out) -> None:
    """``out``: the counts after ``m`` pulls of the ratio rule from zero counts (``m`` at
    least the support size of ``w``), the order in which
    :func:`rounding.tracking.track_ratio` pulls: one pull of each support arm, then the
    merge of the keys ``(j / w_a, a)``, ``j = 1, 2, ...`` (smallest key ``N_a / w_a``,
    lowest index on ties; the keys are the same floating-point quotients). Found from
    ``max(1, floor(m w_a))`` by single moves and exchanges of the largest pulled key with
    the smallest unpulled one until the pulled keys are a prefix (every prefix of
    efficient rounding is within 1 of ``m w_a``: ``O(K)`` moves of ``O(K)`` each)."""
    K = w.shape[0]
    total = 0
    for a in range(K):
        if w[a] > 0.0:
            out[a] = max(1, int(math.floor(m * w[a])))
            total += out[a]
        else:
            out[a] = 0
    while True:
        nxt = -1
        nk = np.inf
        lst = -1
        lk = -np.inf
        for a in range(K):
            if w[a] <= 0.0:
                continue
            k = out[a] / w[a]  # the key of a's next pull
            if k < nk:
                nk = k
                nxt = a
            if out[a] >= 2:
                k = (out[a] - 1) / w[a]  # the key of a's last pull
                if k >= lk:
                    lk = k
                    lst = a
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
def _counts_to(ratio, w, cs, seq, s, ns, ne, out):
    """The counts at pull ``ne`` of the block that starts at pull ``s``, from the counts
    ``cs`` at pull ``ns``: the ratio rule's closed form (:func:`ratio_counts_at`), or
    ``cs`` plus the arms ``seq[ns - s:ne - s]`` generated by the greedy rule."""
    if ratio:
        ratio_counts_at(w, ne, out)
    else:
        _counts_at(cs, seq, ns - s, ne - s, out)


@njit(cache=True)
def _sums(counts, W, means, sigma, out):
    for a in range(counts.shape[0]):
        out[a] = counts[a] * means[a] + sigma * W[a]


@njit(cache=True)
def _budget(X, Z, means, sigma, cnt_s, cnt_e, W_s, t_s, c, log_const, fixed, wk) -> float:
    """The certificate of a block ``(t_s, t_e]``: returns the room ``G = beta(t_s) (1 -
    1e-9) - min_z (z^ - z)^T theta_s / ||z^ - z||_{A_e^{-1}}`` and fills ``drift[a] = dn_a
    |mu_a - x_a^T theta_s|`` and ``Mabs[a, b] = |x_a^T A_s^{-1} x_b|``. No stop in the
    block if ``rho^T Mabs rho < G^2`` with ``rho_a = drift[a] + sigma m_a`` over the arms
    pulled in it, where ``|W_a(n) - W_a(n_a(t_s))| <= m_a`` on the block
    (:func:`simulate_blocks`: ``||sum_a r_a x_a||^2_{A_s^{-1}} <= rho^T Mabs rho``)."""
    Ainv_s, Ainv_e, theta, sums, dummy, drift, y, Mabs, Q = wk
    K, d = X.shape
    for a in range(K):
        sums[a] = cnt_s[a] * means[a] + sigma * W_s[a]
    refresh(X, X, 0, cnt_s, sums, Ainv_s, dummy, theta)
    refresh(X, X, 0, cnt_e, sums, Ainv_e, dummy, dummy)  # A_e^{-1} only
    best = argmax_all(Z, theta)
    umin = np.inf
    for z in range(Z.shape[0]):
        if z == best:
            continue
        gap = 0.0
        for i in range(d):
            y[i] = Z[best, i] - Z[z, i]
            gap += y[i] * theta[i]
        u = max(gap, 0.0) / math.sqrt(max(quad(Ainv_e, y), 1e-300))
        if u < umin:
            umin = u
    for a in range(K):
        fit = 0.0
        for i in range(d):
            fit += X[a, i] * theta[i]
            q = 0.0
            for j in range(d):
                q += Ainv_s[i, j] * X[a, j]
            Q[i, a] = q
        drift[a] = (cnt_e[a] - cnt_s[a]) * abs(means[a] - fit)
    for a in range(K):
        for b in range(a, K):
            m = 0.0
            for i in range(d):
                m += X[a, i] * Q[i, b]
            Mabs[a, b] = abs(m)
            Mabs[b, a] = abs(m)
    return beta(t_s, c, log_const, fixed) * (1.0 - 1e-9) - umin


@njit(cache=True)
def _band_scale(Mabs, f, g, G) -> float:
    """The largest ``lam`` with ``(f + 2 lam g)^T Mabs (f + 2 lam g) <= G^2`` (a child may
    inherit a band up to twice as wide around its own start): ``inf`` when ``g = 0`` and
    ``f^T Mabs f < G^2``, ``-1`` when no ``lam >= 0`` fits."""
    K = f.shape[0]
    alpha = 0.0
    bet = 0.0
    gam = 0.0
    for a in range(K):
        for b in range(K):
            alpha += f[a] * Mabs[a, b] * f[b]
            bet += f[a] * Mabs[a, b] * g[b]
            gam += g[a] * Mabs[a, b] * g[b]
    if G <= 0.0 or alpha >= G * G:
        return -1.0
    if gam == 0.0:
        return np.inf
    return (-bet + math.sqrt(bet * bet + gam * (G * G - alpha))) / (2.0 * gam)


@njit(cache=True)
def _exact_test(X, Z, means, sigma, cnt, W, t, c, log_const, fixed, wk) -> bool:
    """The stopping test at ``t`` pulls (Soare et al. Eq. 11, :func:`check_stop`) on the
    estimate recomputed exactly from the counts and sums."""
    Ainv_s, theta, sums, dummy = wk[0], wk[2], wk[3], wk[4]
    _sums(cnt, W, means, sigma, sums)
    refresh(X, X, 0, cnt, sums, Ainv_s, dummy, theta)
    return check_stop(Z, Ainv_s, theta, beta(t, c, log_const, fixed)) >= 0


@njit(cache=True)
def simulate_blocks(st, cfg, env, rng_pol, rng_env, stats) -> int:
    r"""G-static / XY-static (the stopping test on the estimate, Soare et al. Eq. 11) with
    Gaussian rewards, by blocks of pulls, with the distribution of :func:`simulate_static`'s
    (samples, counts, recommendation, stop reason). Returns a STATUS_* code; ``st`` then
    holds the counts, sums, exact ``A^{-1}``, ``theta`` and ``vals`` at the end.
    ``stats`` (int64, 4) counts top-level blocks, visited nodes, exact tests, bisections.

    * The arms never depend on the rewards. The greedy rule's are generated by
      :func:`static_rule` with the step kernel's rank-one ``A^{-1}`` and the same
      tie-breaking stream (the same sequence as the per-sample run); the ratio rule's
      counts at any pull come in closed form (:func:`ratio_counts_at`: ``O(K^2)`` per
      count vector, whatever the block length), so a run costs ``O(log n)`` top-level
      blocks plus the nodes of its bisections, not ``O(n)``.
    * Arm ``a``'s reward sum is ``S_a(n) = n mu_a + sigma W_a(n)`` with ``W_a`` independent
      standard Brownian motions (the per-sample walk is one at integer times). A block
      ``(s, e]`` draws each ``W_a`` at its end; the estimate at ``t`` in the block is
      ``theta_t = theta_s + A_t^{-1} sum_a r_a(t) x_a`` with ``r_a = dn_a (mu_a - x_a^T
      theta_s) + sigma dW_a``, so for ``y = z^ - z`` (``z^ = argmax z^T theta_s``)
      ``y^T theta_t / ||y||_{A_t^{-1}} <= y^T theta_s / ||y||_{A_e^{-1}} + sum_a |r_a|
      ||x_a||_{A_s^{-1}}`` (``A_s <= A_t <= A_e``), and for ``z' != z^`` the witness
      ``z^`` gives ``(z' - z^)^T theta_t / ||.||_{A_t^{-1}} <= E``, where ``E =
      ||sum_a r_a x_a||_{A_s^{-1}}`` and ``E^2 <= rho^T |X A_s^{-1} X^T| rho`` when ``|r_a|
      <= rho_a = dn_a |mu_a - x_a^T theta_s| + sigma m_a``, ``|dW_a| <= m_a`` on the block.
      ``beta`` grows with ``t``, so if that bound is below ``beta(s) - min_z y^T theta_s /
      ||y||_{A_e^{-1}}`` (with a relative margin of 1e-9 on ``beta``), no test in the
      block holds (:func:`_budget`).
    * Whether ``W_a`` stays in its band ``W_a(s) +- m_a`` is drawn with its exact
      probability given the two ends (:func:`bandits._core.bridge.strip_stay`); when every
      arm stays, the block is done (by the Markov property nothing else about the path
      is ever needed). Otherwise the block is bisected: each midpoint is drawn given the
      ends and the band indicators (:func:`bandits._core.bridge.split_bridge`), the
      halves are visited in time order, and a single pull is decided by the per-sample
      loop's own test (:func:`check_stop` on ``A_t^{-1}`` and ``theta_t`` recomputed
      exactly; the per-sample loop's rank-one values agree to rounding).
    * A block is only drawn when bands of ``LAMBDA_MIN`` standard deviations of the arms'
      increments, doubled, fit in its certificate (its length halves until they do, down
      to one pull; :func:`_band_scale`); the bands use the largest scale that fits, at most
      ``LAMBDA_MAX`` (a child inherits its parent's band, up to twice as wide around its
      own start).
    """
    ints, counts, sums, Ainv, vals, theta, g, scores = (st.ints, st.counts, st.sums, st.Ainv,
                                                        st.vals, st.theta, st.g, st.scores)
    X, Y, Z = cfg.X, cfg.Y, cfg.Z
    K, d = X.shape
    means, sigma = env.means, env.sigma
    c, lc, fx, max_samples = cfg.c, cfg.log_const, cfg.fixed, cfg.max_samples
    greedy = cfg.rule == RULE_GREEDY
    # the initial pulls, one reward each (as the per-sample loop), then its first test
    while ints[T_INIT] >= 0:
        a = initial_arrays(ints, counts, sums, Ainv, vals, theta, X, Y, cfg.init_arms,
                           ints[T_PULLS], max_samples)
        if a == -1:
            return ints[T_STATUS]
        if a == -2:
            break
        observe_arrays(ints, counts, sums, Ainv, vals, theta, g, X, Y, a,
                       means[a] + sigma * _rng.normal(rng_env), cfg.refresh_every)
    s = ints[T_PULLS]
    if check_stop(Z, Ainv, theta, beta(s, c, lc, fx)) >= 0:
        ints[T_STATUS] = STATUS_RULE
        return STATUS_RULE
    W = np.empty(K)
    for a in range(K):
        W[a] = (sums[a] - counts[a] * means[a]) / sigma
    cnt0 = counts.copy()
    wk = (np.empty((d, d)), np.empty((d, d)), np.empty(d), np.empty(K), np.empty(d),
          np.empty(K), np.empty(d), np.empty((K, K)), np.empty((d, K)))
    drift, Mabs = wk[5], wk[7]
    f = np.empty(K)
    gg = np.empty(K)
    # buf[off + i]: the arm of pull s + i + 1 (greedy rule only)
    buf = np.empty(2 * MAX_BLOCK if greedy else 1, dtype=np.int64)
    off = 0
    nseq = 0
    cnt_e = np.empty(K, dtype=np.int64)
    cnt_m = np.empty(K, dtype=np.int64)
    D = MAX_DEPTH
    n_s = np.empty(D, dtype=np.int64)
    n_e = np.empty(D, dtype=np.int64)
    sWs, sWe = np.empty((D, K)), np.empty((D, K))
    sLo, sHi = np.empty((D, K)), np.empty((D, K))
    sF = np.empty((D, K), dtype=np.int64)
    sC = np.empty((D, K), dtype=np.int64)
    mW = np.empty(K)
    fL = np.empty(K, dtype=np.int64)
    fR = np.empty(K, dtype=np.int64)
    Wend = np.empty(K)
    w = cfg.w
    ratio = not greedy  # counts in closed form: no arm sequence is generated
    cap = MAX_BLOCK_RATIO if ratio else MAX_BLOCK
    L = 1
    status = STATUS_BUDGET
    t_stop = -1
    while True:
        if s >= max_samples:
            status = STATUS_BUDGET
            cnt_e[:] = cnt0
            Wend[:] = W
            t_stop = s
            break
        L = min(L, max_samples - s, cap)
        if off > MAX_BLOCK:  # keep room for a block after the arms already generated
            for i in range(nseq):
                buf[i] = buf[off + i]
            off = 0
        seq = buf[off:]
        while greedy and nseq < L:  # the allocation's next pulls (they never read rewards)
            a = static_rule(ints, counts, Ainv, vals, g, scores, X, Y, cfg.rule, w, rng_pol)
            observe_arrays(ints, counts, sums, Ainv, vals, theta, g, X, Y, a, 0.0,
                           cfg.refresh_every)
            seq[nseq] = a
            nseq += 1
        while L > 1:  # the longest block (halving) with room for the noise
            _counts_to(ratio, w, cnt0, seq, s, s, s + L, cnt_e)
            G = _budget(X, Z, means, sigma, cnt0, cnt_e, W, s, c, lc, fx, wk)
            for a in range(K):
                f[a] = drift[a]
                gg[a] = sigma * math.sqrt(cnt_e[a] - cnt0[a])
            if _band_scale(Mabs, f, gg, G) >= LAMBDA_MIN:
                break
            L //= 2
        _counts_to(ratio, w, cnt0, seq, s, s, s + L, cnt_e)
        for a in range(K):
            dn = cnt_e[a] - cnt0[a]
            Wend[a] = W[a] + (math.sqrt(dn) * _rng.normal(rng_env) if dn > 0 else 0.0)
        stats[0] += 1
        top = 0
        n_s[0], n_e[0] = s, s + L
        sWs[0, :] = W
        sWe[0, :] = Wend
        sF[0, :] = FLAG_NONE
        sC[0, :] = cnt0
        bisected = False
        while top >= 0:
            ns, ne = n_s[top], n_e[top]
            Ws, We, fl, lo, hi, cs = sWs[top], sWe[top], sF[top], sLo[top], sHi[top], sC[top]
            _counts_to(ratio, w, cs, seq, s, ns, ne, cnt_e)
            stats[1] += 1
            if ne - ns == 1:
                stats[2] += 1
                if _exact_test(X, Z, means, sigma, cnt_e, We, ne, c, lc, fx, wk):
                    t_stop = ne
                    Wend[:] = We
                    status = STATUS_RULE
                    break
                top -= 1
                continue
            certified = False
            leave = False
            for a in range(K):
                if fl[a] == FLAG_LEAVE and not (lo[a] < Ws[a] < hi[a] and lo[a] < We[a] < hi[a]):
                    fl[a] = FLAG_NONE  # an end outside the band: leaving is certain, no news
                if cnt_e[a] > cs[a] and fl[a] == FLAG_LEAVE:
                    leave = True
            if not leave:
                G = _budget(X, Z, means, sigma, cs, cnt_e, Ws, ns, c, lc, fx, wk)
                for a in range(K):
                    dn = cnt_e[a] - cs[a]
                    if dn == 0:
                        f[a] = 0.0
                        gg[a] = 0.0
                    elif fl[a] == FLAG_STAY:
                        f[a] = drift[a] + sigma * max(hi[a] - Ws[a], Ws[a] - lo[a])
                        gg[a] = 0.0
                    else:
                        f[a] = drift[a]
                        gg[a] = sigma * math.sqrt(dn)
                lam = _band_scale(Mabs, f, gg, G)
                if lam == np.inf:
                    certified = True
                elif lam >= LAMBDA_MIN:
                    lam = min(lam, LAMBDA_MAX)
                    certified = True
                    for a in range(K):
                        dn = cnt_e[a] - cs[a]
                        if dn == 0 or fl[a] != FLAG_NONE:
                            continue
                        m = lam * math.sqrt(dn)
                        lo[a] = Ws[a] - m
                        hi[a] = Ws[a] + m
                        if _rng.uniform(rng_env) < strip_stay(Ws[a], We[a], float(dn), lo[a],
                                                              hi[a]):
                            fl[a] = FLAG_STAY
                        else:
                            fl[a] = FLAG_LEAVE
                            certified = False
            if certified:
                top -= 1
                continue
            bisected = True
            stats[3] += 1
            mid = (ns + ne) // 2
            _counts_to(ratio, w, cs, seq, s, ns, mid, cnt_m)
            for a in range(K):
                dn = cnt_e[a] - cs[a]
                t1 = cnt_m[a] - cs[a]
                if dn == 0:
                    mW[a], fL[a], fR[a] = Ws[a], fl[a], fl[a]
                elif fl[a] == FLAG_NONE:
                    if t1 == 0:
                        mW[a] = Ws[a]
                    elif t1 == dn:
                        mW[a] = We[a]
                    else:
                        mW[a] = bridge_point(Ws[a], We[a], float(t1), float(dn), rng_env)
                    fL[a], fR[a] = FLAG_NONE, FLAG_NONE
                else:
                    mW[a], fL[a], fR[a] = split_bridge(Ws[a], We[a], float(t1), float(dn),
                                                       lo[a], hi[a], fl[a], rng_env)
            # left child (ns, mid] above the right one (mid, ne], which takes the parent's slot
            n_s[top + 1], n_e[top + 1] = ns, mid
            sWs[top + 1, :] = Ws
            sWe[top + 1, :] = mW
            sF[top + 1, :] = fL
            sLo[top + 1, :] = lo
            sHi[top + 1, :] = hi
            sC[top + 1, :] = cs
            n_s[top] = mid
            sWs[top, :] = mW
            sF[top, :] = fR
            sC[top, :] = cnt_m
            top += 1
        if t_stop >= 0:
            break
        # no stop in (s, s + L]
        _counts_to(ratio, w, cnt0, seq, s, s, s + L, cnt_e)
        cnt0[:] = cnt_e
        W[:] = Wend
        if greedy:
            off += L
            nseq -= L
        s += L
        L = max(1, L // 2) if bisected else 2 * L
    # the state at the end: counts, sums, exact A^{-1}, theta and vals
    for a in range(K):
        counts[a] = cnt_e[a]
        sums[a] = cnt_e[a] * means[a] + sigma * Wend[a]
    refresh(X, Y, ints[T_M], counts, sums, Ainv, vals, theta)
    ints[T_PULLS] = t_stop
    ints[T_STATUS] = status
    return status
