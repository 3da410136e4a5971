"""Numba kernels of the top-K subset bandits: environment, DART, CSAR, LinTS, improved UCB.

Everything here works on plain arrays, allocates only at the start of a run and never
enters object mode.  The environment is passed as ``(p, table, kind, rho, sigma, mu_star)``:

* ``kind == 0``: Bernoulli arms with means ``p``; the joint reward of a K-subset is
  ``table[s]`` where ``s`` is the number of arms of the subset that returned 1 (every
  symmetric reward of Bernoulli arms is such a table).  Correlation ``rho``: each arm uses the
  round's shared uniform ``U_t`` with probability ``rho`` and its own uniform otherwise,
  ``X_i = 1{V_i < p_i}``.
* ``kind == 1``: Gaussian arms with a shared noise, ``X_i = p_i + Z_t``,
  ``Z_t ~ N(0, sigma^2)``, joint reward the mean (the lower-bound instance of DART,
  Appendix A).

Regret is the pseudo-regret ``mu_star - mu_{a_t}`` accumulated exactly (Eq. 4 of DART) and
written to ``curve`` at the requested checkpoints (1-based step counts).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from bandits._core.rng import integer, normal, uniform


@njit(cache=True)
def draw_joint(action, K, p, table, kind, rho, sigma, env_state):
    """One joint reward of the K arms ``action[:K]``."""
    if kind == 1:
        z = sigma * normal(env_state)
        m = 0.0
        for j in range(K):
            m += p[action[j]]
        return m / K + z
    s = 0
    if rho > 0.0:
        u = uniform(env_state)
        for j in range(K):
            if uniform(env_state) < rho:
                v = u
            else:
                v = uniform(env_state)
            if v < p[action[j]]:
                s += 1
    else:
        for j in range(K):
            if uniform(env_state) < p[action[j]]:
                s += 1
    return table[s]


@njit(cache=True)
def _table_mean_indep(q, K, table, dp):
    """E[table[S]] for S a sum of independent Bernoulli(q[0..K-1]) (Poisson-binomial DP)."""
    dp[0] = 1.0
    for s in range(1, K + 1):
        dp[s] = 0.0
    for j in range(K):
        pj = q[j]
        for s in range(j + 1, 0, -1):
            dp[s] = dp[s] * (1.0 - pj) + dp[s - 1] * pj
        dp[0] *= 1.0 - pj
    m = 0.0
    for s in range(K + 1):
        m += dp[s] * table[s]
    return m


@njit(cache=True)
def expected_joint(action, K, p, table, kind, rho, work):
    """Expected joint reward mu_a of ``action[:K]`` (exact).

    With correlation, conditionally on the shared uniform ``u`` the arms are independent
    Bernoulli with ``q_i(u) = rho 1{u < p_i} + (1 - rho) p_i``, a step function of ``u``
    with breaks at the ``p_i``; the integral over ``u`` is a finite sum.  ``work`` has
    length >= 3K + 2.
    """
    if kind == 1:
        m = 0.0
        for j in range(K):
            m += p[action[j]]
        return m / K
    q = work[:K]
    dp = work[K:2 * K + 1]
    if rho <= 0.0:
        for j in range(K):
            q[j] = p[action[j]]
        return _table_mean_indep(q, K, table, dp)
    br = work[2 * K + 1:3 * K + 1]
    for j in range(K):
        br[j] = p[action[j]]
    br.sort()
    total = 0.0
    lo = 0.0
    for b in range(K + 1):
        hi = br[b] if b < K else 1.0
        if hi > lo:
            mid = 0.5 * (lo + hi)
            for j in range(K):
                pj = p[action[j]]
                q[j] = (1.0 - rho) * pj + (rho if mid < pj else 0.0)
            total += (hi - lo) * _table_mean_indep(q, K, table, dp)
            lo = hi
    return total


@njit(cache=True)
def _record(acc, t, cp, curve, ipos):
    while ipos[0] < cp.size and cp[ipos[0]] <= t:
        curve[ipos[0]] = acc[0]
        ipos[0] += 1


@njit(cache=True)
def _play(action, K, p, table, kind, rho, sigma, mu_star, env_state, work, acc, t, cp,
          curve, ipos):
    """Draw the reward of ``action``, add its pseudo-regret, record step ``t`` (1-based)."""
    r = draw_joint(action, K, p, table, kind, rho, sigma, env_state)
    acc[0] += mu_star - expected_joint(action, K, p, table, kind, rho, work)
    _record(acc, t, cp, curve, ipos)
    return r


@njit(cache=True)
def _commit(action, K, p, table, kind, rho, mu_star, work, acc, t, T, cp, curve, ipos):
    """Play the fixed ``action`` from step t+1 to T (regret is deterministic: no draws)."""
    gap = mu_star - expected_joint(action, K, p, table, kind, rho, work)
    while ipos[0] < cp.size and cp[ipos[0]] <= T:
        curve[ipos[0]] = acc[0] + gap * (cp[ipos[0]] - t)
        ipos[0] += 1
    acc[0] += gap * (T - t)


@njit(cache=True)
def _shuffle(a, n, state):
    for i in range(n - 1, 0, -1):
        j = integer(state, i + 1)
        tmp = a[i]
        a[i] = a[j]
        a[j] = tmp


@njit(cache=True)
def _top_k_of(idx, n, values, k, out, offset):
    """Write the ``k`` entries of ``idx[:n]`` with the largest ``values`` to
    ``out[offset:offset+k]`` (ties: lowest position first). O(n k)."""
    used = np.zeros(n, dtype=np.bool_)
    for c in range(k):
        best = -1
        for j in range(n):
            if not used[j] and (best < 0 or values[idx[j]] > values[idx[best]]):
                best = j
        used[best] = True
        out[offset + c] = idx[best]


# ----------------------------------------------------------------------------------------
# DART (Agarwal, Aggarwal, Quinn & Umrawal), Algorithms 1 and 2
# ----------------------------------------------------------------------------------------

class DartState(NamedTuple):
    """Arrays of a DART run (one value at the numba boundary; :func:`dart_state` allocates).

    ``ints`` slots: :data:`D_EPOCH` (epochs started, the current one included),
    :data:`D_STEPS` (steps played in this run), :data:`D_UNDECIDED` (``|N_e|``),
    :data:`D_ACCEPTED` (``|A|``), :data:`D_OPEN` (``K_e = K - |A|``), :data:`D_GROUP` (index
    of the group to play in the epoch), :data:`D_GROUPS` (groups in the epoch),
    :data:`D_TESTS`, :data:`D_STOP` (0 horizon, 1 all decided, 2 lambda), :data:`D_DONE`
    (exploration over). ``floats`` slots: :data:`F_DELTA` (current Delta),
    :data:`F_THRESHOLD` (epochs needed for the next test), :data:`F_LOGNT`,
    :data:`F_LAST_TESTED`.
    """

    ints: np.ndarray
    floats: np.ndarray
    undecided: np.ndarray
    perm: np.ndarray
    accepted: np.ndarray
    mu_hat: np.ndarray
    counts: np.ndarray
    status: np.ndarray
    decided_at: np.ndarray
    vals: np.ndarray


D_EPOCH, D_STEPS, D_UNDECIDED, D_ACCEPTED, D_OPEN, D_GROUP, D_GROUPS, D_TESTS, D_STOP, \
    D_DONE = range(10)
F_DELTA, F_THRESHOLD, F_LOGNT, F_LAST_TESTED = range(4)
STOP_HORIZON, STOP_ALL_DECIDED, STOP_LAMBDA = 0, 1, 2


class DartConfig(NamedTuple):
    """Constants of a DART run: subset size, horizon, lambda rule and test constant."""

    K: int
    T: int
    lam: float
    auto: bool
    c_thr: float


def dart_state(N: int, K: int) -> DartState:
    """Fresh arrays for N arms and subsets of size K."""
    return DartState(np.zeros(10, dtype=np.int64), np.zeros(4), np.empty(N, dtype=np.int64),
                     np.empty(N, dtype=np.int64), np.empty(K, dtype=np.int64), np.zeros(N),
                     np.zeros(N, dtype=np.int64), np.zeros(N, dtype=np.int64),
                     np.zeros(N, dtype=np.int64), np.empty(N))


@njit(cache=True)
def _dart_new_epoch(st, pol_state):
    """Partition Arms (Algorithm 2): a random permutation of N_e cut into groups."""
    n_und = st.ints[D_UNDECIDED]
    for j in range(n_und):
        st.perm[j] = st.undecided[j]
    _shuffle(st.perm, n_und, pol_state)
    Ke = st.ints[D_OPEN]
    st.ints[D_GROUPS] = (n_und + Ke - 1) // Ke
    st.ints[D_GROUP] = 0
    st.ints[D_EPOCH] += 1


@njit(cache=True)
def dart_reset(st, cfg, pol_state):
    """Start a DART run: every arm undecided, Delta = 1, the first epoch partitioned."""
    N = st.mu_hat.size
    for i in range(N):
        st.undecided[i] = i
        st.mu_hat[i] = 0.0
        st.counts[i] = 0
        st.status[i] = 0
        st.decided_at[i] = -1
    for k in range(st.ints.size):
        st.ints[k] = 0
    st.ints[D_UNDECIDED] = N
    st.ints[D_OPEN] = cfg.K
    st.floats[F_DELTA] = 1.0
    st.floats[F_LOGNT] = np.log(float(N) * float(cfg.T))
    st.floats[F_THRESHOLD] = cfg.c_thr * st.floats[F_LOGNT]
    st.floats[F_LAST_TESTED] = 0.0
    _dart_new_epoch(st, pol_state)


@njit(cache=True)
def dart_action(st, cfg, action):
    """The step kernel's decision: the subset ``A_e u G_ell`` to play now (into ``action``)."""
    n_acc = st.ints[D_ACCEPTED]
    Ke = st.ints[D_OPEN]
    n_und = st.ints[D_UNDECIDED]
    ell = st.ints[D_GROUP]
    for j in range(n_acc):
        action[j] = st.accepted[j]
    for j in range(Ke):
        action[n_acc + j] = st.perm[(Ke * ell + j) % n_und]


@njit(cache=True)
def _dart_test(st, cfg):
    """The accept/reject test at the end of an epoch with ``e >= c ln(NT) / Delta^2``."""
    e = st.ints[D_EPOCH]
    n_und = st.ints[D_UNDECIDED]
    Ke = st.ints[D_OPEN]
    delta = st.floats[F_DELTA]
    st.ints[D_TESTS] += 1
    st.floats[F_LAST_TESTED] = delta
    for j in range(n_und):
        st.vals[j] = -st.mu_hat[st.undecided[j]]
    srt = np.sort(st.vals[:n_und])
    hi = -srt[Ke]      # (K_e + 1)-th largest within N_e
    lo = -srt[Ke - 1]  # K_e-th largest within N_e
    m = 0
    n_acc = st.ints[D_ACCEPTED]
    new_acc = 0
    for j in range(n_und):
        i = st.undecided[j]
        if st.mu_hat[i] >= hi + delta:
            st.status[i] = 1
            st.decided_at[i] = e
            st.accepted[n_acc + new_acc] = i
            new_acc += 1
        elif st.mu_hat[i] <= lo - delta:
            st.status[i] = 2
            st.decided_at[i] = e
        else:
            st.undecided[m] = i
            m += 1
    st.ints[D_UNDECIDED] = m
    st.ints[D_ACCEPTED] = n_acc + new_acc
    st.ints[D_OPEN] = cfg.K - st.ints[D_ACCEPTED]
    delta *= 0.5
    st.floats[F_DELTA] = delta
    st.floats[F_THRESHOLD] = cfg.c_thr * st.floats[F_LOGNT] / (delta * delta)


@njit(cache=True)
def dart_observe(st, cfg, r, pol_state):
    """The step kernel's update: joint reward ``r`` of the group just played (the action
    of :func:`dart_action`); at the end of an epoch the test, the stopping checks and the
    next partition. Returns True once the exploration is over (``ints[D_DONE]``)."""
    Ke = st.ints[D_OPEN]
    n_und = st.ints[D_UNDECIDED]
    ell = st.ints[D_GROUP]
    for j in range(Ke):
        pos = Ke * ell + j
        if pos < n_und:  # wrap-around repeats are not updated (Algorithm 2)
            i = st.perm[pos]
            st.counts[i] += 1
            st.mu_hat[i] += (r - st.mu_hat[i]) / st.counts[i]
    st.ints[D_STEPS] += 1
    st.ints[D_GROUP] = ell + 1
    tb = st.ints[D_STEPS]
    if st.ints[D_GROUP] < st.ints[D_GROUPS]:
        if tb >= cfg.T:  # the horizon cut the epoch: it does not count
            st.ints[D_EPOCH] -= 1
            st.ints[D_STOP] = STOP_HORIZON
            st.ints[D_DONE] = 1
        return st.ints[D_DONE] == 1
    if st.ints[D_EPOCH] >= st.floats[F_THRESHOLD]:
        _dart_test(st, cfg)
        if st.ints[D_ACCEPTED] + st.ints[D_UNDECIDED] == cfg.K:
            st.ints[D_STOP] = STOP_ALL_DECIDED
            st.ints[D_DONE] = 1
            return True
        if cfg.auto:
            need = np.ceil(st.floats[F_THRESHOLD]) - st.ints[D_EPOCH]
            Ke = st.ints[D_OPEN]
            if need * ((st.ints[D_UNDECIDED] + Ke - 1) // Ke) > cfg.T - tb:
                st.ints[D_STOP] = STOP_LAMBDA
                st.ints[D_DONE] = 1
                return True
    if (not cfg.auto) and st.floats[F_DELTA] < cfg.lam:
        st.ints[D_STOP] = STOP_LAMBDA
        st.ints[D_DONE] = 1
        return True
    if tb >= cfg.T:
        st.ints[D_STOP] = STOP_HORIZON
        st.ints[D_DONE] = 1
        return True
    _dart_new_epoch(st, pol_state)
    return False


@njit(cache=True)
def dart_commit(st, cfg, chosen):
    """The subset DART commits to: ``A`` plus the top ``K - |A|`` undecided arms by mu_hat."""
    n_acc = st.ints[D_ACCEPTED]
    for j in range(n_acc):
        chosen[j] = st.accepted[j]
    if cfg.K - n_acc > 0:
        _top_k_of(st.undecided, st.ints[D_UNDECIDED], st.mu_hat, cfg.K - n_acc, chosen, n_acc)


@njit(cache=True)
def dart_block(env, curve, st, cfg, t0, env_state, pol_state, chosen):
    """Simulate one DART run over ``cfg.T`` steps starting after global step ``t0``: the
    step kernel (:func:`dart_action`, :func:`dart_observe`) against the environment, then
    the commit phase (regret only, no draws). ``env`` is ``(p, table, kind, rho, sigma,
    mu_star)``, ``curve`` is ``(cp, curve, ipos, acc)``."""
    p, table, kind, rho, sigma, mu_star = env
    cp, cv, ipos, acc = curve
    K = cfg.K
    work = np.empty(3 * K + 2)
    action = np.empty(K, dtype=np.int64)
    dart_reset(st, cfg, pol_state)
    done = False
    while not done:
        dart_action(st, cfg, action)
        r = _play(action, K, p, table, kind, rho, sigma, mu_star, env_state, work, acc,
                  t0 + st.ints[D_STEPS] + 1, cp, cv, ipos)
        done = dart_observe(st, cfg, r, pol_state)
    dart_commit(st, cfg, chosen)
    tb = st.ints[D_STEPS]
    if tb < cfg.T:
        _commit(chosen, K, p, table, kind, rho, mu_star, work, acc, t0 + tb, t0 + cfg.T,
                cp, cv, ipos)


# ----------------------------------------------------------------------------------------
# CSAR (Rejwan & Mansour 2020), regret variant with the Hadamard design
# ----------------------------------------------------------------------------------------

class CsarDesigns(NamedTuple):
    """The query designs CSAR may use, precomputed by :func:`design.hadamard.subset_design`
    for every number of open slots ``k = 1..K``: slot ``[0, k]`` leave-one-out, ``[1, k]``
    Hadamard (when ``k`` is a power of two). ``queries[h, k, :q, :k]`` and
    ``coef[h, k, :b, :q]`` are the design's query table and estimator, ``size[h, k]`` its
    ``(b, q)``."""

    queries: np.ndarray
    coef: np.ndarray
    size: np.ndarray


@njit(cache=True)
def csar_run(p, table, kind, rho, sigma, mu_star, K, T, designs, env_state, pol_state, cp,
             curve, ipos, acc, est, status, chosen, stats):
    """CSAR with fresh samples per phase; see :func:`bandits.subsets.csar`.

    Phase ``s`` targets accuracy ``eps_s = 2^-s`` on ``phi_i = K theta_i`` (for the mean
    reward ``phi_i = E X_i``): each block design is repeated
    ``m_s = ceil(2 v K^2 log(2NT) / eps_s^2)`` times, ``v`` the sub-Gaussian variance proxy
    of the estimator (queries in [0, 1] are 1/4-sub-Gaussian).  Accept
    ``phi_i >= phi_(k+1) + 2 eps_s``, reject ``phi_i <= phi_(k) - 2 eps_s``.  When a phase
    does not fit in the remaining horizon the run commits.  ``stats``: [phases,
    exploration steps, stop code (0 horizon, 1 all decided, 2 budget for next phase),
    last eps].
    """
    N = p.size
    work = np.empty(3 * K + 2)
    und = np.empty(N, dtype=np.int64)
    perm = np.empty(N, dtype=np.int64)
    accepted = np.empty(K, dtype=np.int64)
    action = np.empty(K, dtype=np.int64)
    vals = np.empty(N)
    sums = np.zeros(N)
    for i in range(N):
        und[i] = i
        status[i] = 0
        est[i] = 0.0
    n_und = N
    n_acc = 0
    t = 0
    phase = 0
    stop = 0
    log2NT = np.log(2.0 * N * T)
    eps = 1.0
    while True:
        k = K - n_acc
        phase += 1
        eps = 0.5 ** phase
        use_h = 1 if (k & (k - 1)) == 0 and n_und >= 2 * k else 0
        b, q = designs.size[use_h, k, 0], designs.size[use_h, k, 1]
        Hq = designs.queries[use_h, k]
        Hc = designs.coef[use_h, k]
        v = 0.0
        for i in range(b):
            s2 = 0.0
            for j in range(q):
                s2 += Hc[i, j] * Hc[i, j]
            if s2 > v:
                v = s2
        v *= 0.25 * K * K
        reps = int(np.ceil(2.0 * v * log2NT / (eps * eps)))
        nblocks = (n_und + b - 1) // b
        cost = reps * nblocks * q
        if cost > T - t:
            stop = 2
            break
        for j in range(n_und):
            perm[j] = und[j]
        _shuffle(perm, n_und, pol_state)
        for j in range(n_und):
            sums[perm[j]] = 0.0
        for _rep in range(reps):
            for blk in range(nblocks):
                for qq in range(q):
                    for j in range(n_acc):
                        action[j] = accepted[j]
                    for j in range(k):
                        action[n_acc + j] = perm[(blk * b + Hq[qq, j]) % n_und]
                    t += 1
                    r = _play(action, K, p, table, kind, rho, sigma, mu_star, env_state, work,
                              acc, t, cp, curve, ipos)
                    for i in range(b):
                        pos = blk * b + i
                        if pos < n_und:  # wrap-around repeats: first block's estimate only
                            sums[perm[pos]] += Hc[i, qq] * r
        for j in range(n_und):
            i = und[j]
            est[i] = K * sums[i] / reps
            vals[j] = -est[i]
        srt = np.sort(vals[:n_und])
        hi = -srt[k]
        lo = -srt[k - 1]
        m = 0
        new_acc = 0
        for j in range(n_und):
            i = und[j]
            if est[i] >= hi + 2.0 * eps:
                status[i] = 1
                accepted[n_acc + new_acc] = i
                new_acc += 1
            elif est[i] <= lo - 2.0 * eps:
                status[i] = 2
            else:
                und[m] = i
                m += 1
        n_und = m
        n_acc += new_acc
        if n_acc + n_und == K:
            stop = 1
            break
    for j in range(n_acc):
        chosen[j] = accepted[j]
    if K - n_acc > 0:
        _top_k_of(und, n_und, est, K - n_acc, chosen, n_acc)
    explore = t
    if t < T:
        _commit(chosen, K, p, table, kind, rho, mu_star, work, acc, t, T, cp, curve, ipos)
    stats[0] = phase
    stats[1] = explore
    stats[2] = stop
    stats[3] = eps


# ----------------------------------------------------------------------------------------
# Linear Thompson sampling (Agrawal & Goyal 2013) with indicator features
# ----------------------------------------------------------------------------------------

@njit(cache=True)
def lints_run(p, table, kind, rho, sigma, mu_star, K, T, v, reg, env_state, pol_state, cp,
              curve, ipos, acc, theta_mean, chosen):
    """LinTS: theta_tilde ~ N(B^-1 f, v^2 B^-1), play the top-K of theta_tilde.

    ``B = reg I + sum x x^T`` is kept as its Cholesky factor ``L`` (rank-one update per
    step, O(N^2)); ``theta_tilde = L^-T (L^-1 f + v z)`` costs two triangular solves.
    """
    N = p.size
    L = np.zeros((N, N))
    for i in range(N):
        L[i, i] = np.sqrt(reg)
    f = np.zeros(N)
    w = np.empty(N)
    th = np.empty(N)
    x = np.empty(N)
    work = np.empty(3 * K + 2)
    action = np.empty(K, dtype=np.int64)
    idx = np.arange(N)
    for t in range(1, T + 1):
        # forward solve L w = f, add v z, back solve L^T th = w
        for i in range(N):
            s = f[i]
            for j in range(i):
                s -= L[i, j] * w[j]
            w[i] = s / L[i, i]
        for i in range(N):
            w[i] += v * normal(pol_state)
        for i in range(N - 1, -1, -1):
            s = w[i]
            for j in range(i + 1, N):
                s -= L[j, i] * th[j]
            th[i] = s / L[i, i]
        _top_k_of(idx, N, th, K, action, 0)
        r = _play(action, K, p, table, kind, rho, sigma, mu_star, env_state, work, acc, t, cp,
                  curve, ipos)
        for i in range(N):
            x[i] = 0.0
        first = N
        for j in range(K):
            x[action[j]] = 1.0
            f[action[j]] += r
            if action[j] < first:
                first = action[j]
        # rank-one Cholesky update L L^T + x x^T (x is zero before `first`)
        for c in range(first, N):
            xc = x[c]
            if xc == 0.0:
                continue
            lcc = L[c, c]
            rr = np.sqrt(lcc * lcc + xc * xc)
            cc = rr / lcc
            ss = xc / lcc
            L[c, c] = rr
            for i in range(c + 1, N):
                L[i, c] = (L[i, c] + ss * x[i]) / cc
                x[i] = cc * x[i] - ss * L[i, c]
    # posterior mean (for the reported recommendation)
    for i in range(N):
        s = f[i]
        for j in range(i):
            s -= L[i, j] * w[j]
        w[i] = s / L[i, i]
    for i in range(N - 1, -1, -1):
        s = w[i]
        for j in range(i + 1, N):
            s -= L[j, i] * theta_mean[j]
        theta_mean[i] = s / L[i, i]
    _top_k_of(idx, N, theta_mean, K, chosen, 0)


# ----------------------------------------------------------------------------------------
# Improved UCB (Auer & Ortner 2010) over all C(N, K) subsets
# ----------------------------------------------------------------------------------------

@njit(cache=True)
def ucb_run(p, table, kind, rho, sigma, mu_star, K, T, actions, env_state, pol_state, cp,
            curve, ipos, acc, chosen, stats):
    """UCB-Improved: rounds m with Delta_m = 2^-m; every remaining action is played until it
    has n_m = ceil(2 log(T Delta_m^2) / Delta_m^2) samples, then actions with
    mean + sqrt(log(T Delta_m^2) / (2 n_m)) < max(mean - same) are eliminated.  After the
    last round (Delta_m < sqrt(e / T)) or when one action is left, the empirically best
    remaining action is played.  ``stats``: [rounds, remaining actions, exploration steps].
    """
    M = actions.shape[0]
    work = np.empty(3 * K + 2)
    alive = np.arange(M)
    n_alive = M
    cnt = np.zeros(M, dtype=np.int64)
    mean = np.zeros(M)
    t = 0
    dm = 1.0
    rounds = 0
    _shuffle(alive, M, pol_state)
    while n_alive > 1 and dm >= np.sqrt(np.e / T):
        lg = np.log(T * dm * dm)
        nm = int(np.ceil(2.0 * lg / (dm * dm)))
        done = False
        for jj in range(n_alive):
            a = alive[jj]
            while cnt[a] < nm:
                if t >= T:
                    done = True
                    break
                t += 1
                r = _play(actions[a], K, p, table, kind, rho, sigma, mu_star, env_state, work,
                          acc, t, cp, curve, ipos)
                cnt[a] += 1
                mean[a] += (r - mean[a]) / cnt[a]
            if done:
                break
        if done:
            break
        rounds += 1
        rad = np.sqrt(lg / (2.0 * nm))
        best_lcb = -np.inf
        for jj in range(n_alive):
            if mean[alive[jj]] - rad > best_lcb:
                best_lcb = mean[alive[jj]] - rad
        m = 0
        for jj in range(n_alive):
            a = alive[jj]
            if mean[a] + rad >= best_lcb:
                alive[m] = a
                m += 1
        n_alive = m
        dm *= 0.5
    best = alive[0]
    for jj in range(n_alive):
        if mean[alive[jj]] > mean[best]:
            best = alive[jj]
    for j in range(K):
        chosen[j] = actions[best, j]
    explore = t
    if t < T:
        _commit(chosen, K, p, table, kind, rho, mu_star, work, acc, t, T, cp, curve, ipos)
    stats[0] = rounds
    stats[1] = n_alive
    stats[2] = explore
