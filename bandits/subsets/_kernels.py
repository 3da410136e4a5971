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

from bandits._core.jit import inner
from bandits._core.rng import integer, normal, uniform

# ----------------------------------------------------------------------------------------
# The confidence rule shared by DART, CSAR and improved UCB (bandits.subsets.confidence)
# ----------------------------------------------------------------------------------------

@njit(cache=True)
def confidence_samples(c, variance, log_term, radius):
    """Samples for the radius ``radius``: ``n = c variance log_term / radius^2``.

    With ``c = 2`` this is the sub-Gaussian tail bound: ``n`` samples of an estimate with
    variance proxy ``variance`` are within ``radius`` of its mean with probability at least
    ``1 - 2 exp(-log_term)``."""
    return c * variance * log_term / (radius * radius)


@njit(cache=True)
def confidence_radius(c, variance, log_term, n):
    """The radius of ``n`` samples under the same rule, ``sqrt(c variance log_term / n)``."""
    return np.sqrt(c * variance * log_term / n)


#: Variance proxy of a mean of rewards in [0, 1] (Hoeffding).
UNIT_VARIANCE = 0.25


@inner
def _draw_joint(action, K, p, table, kind, rho, sigma, env_state):
    """One joint reward of the K arms ``action[:K]`` (the loops' call, without numba's
    wrappers; :func:`draw_joint` is its Python entry)."""
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
def draw_joint(action, K, p, table, kind, rho, sigma, env_state):
    """One joint reward of the K arms ``action[:K]``: the Python entry of
    :func:`_draw_joint` (:func:`bandits.subsets.subset_reward_oracle`, the tests; compiled on
    its first call, not by a simulation's)."""
    return _draw_joint(action, K, p, table, kind, rho, sigma, env_state)


@inner
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
    for j in range(K):  # the breaks in increasing order (insertion sort: K is small, and
        v = p[action[j]]  # numba's sort costs about a second of compilation, issue 16)
        pos = j
        while pos > 0 and br[pos - 1] > v:
            br[pos] = br[pos - 1]
            pos -= 1
        br[pos] = v
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


@inner
def _record(acc, t, cp, curve, ipos):
    while ipos[0] < cp.size and cp[ipos[0]] <= t:
        curve[ipos[0]] = acc[0]
        ipos[0] += 1


@njit(cache=True, inline="always")
def _play(action, K, env, env_state, work, curve, t):
    """Draw the reward of ``action``, add its pseudo-regret, record step ``t`` (1-based).
    ``env`` is ``(p, table, kind, rho, sigma, mu_star)``, ``curve`` is ``(cp, curve, ipos,
    acc)``."""
    p, table, kind, rho, sigma, mu_star = env
    cp, cv, ipos, acc = curve
    r = _draw_joint(action, K, p, table, kind, rho, sigma, env_state)
    acc[0] += mu_star - expected_joint(action, K, p, table, kind, rho, work)
    _record(acc, t, cp, cv, ipos)
    return r


def commit_regret(env, curve, chosen, work, t, T) -> None:
    """The commit phase of a simulation: ``chosen`` played from step ``t + 1`` to ``T``
    (regret only: it is deterministic, no draws), in Python after the loop's exploration
    (the loops no longer compile it: issue 16). The arithmetic of the per-step curve:
    ``curve[c] = acc + gap (cp[c] - t)`` at every checkpoint ``t < cp[c] <= T``, ``acc +=
    gap (T - t)``, with ``gap = mu_star - mu_chosen`` (:func:`expected_joint`)."""
    p, table, kind, rho, sigma, mu_star = env
    cp, cv, ipos, acc = curve
    gap = mu_star - expected_joint(chosen, chosen.shape[0], p, table, kind, rho, work)
    j = int(ipos[0])
    k = j + int(np.searchsorted(cp[j:], T, side="right"))
    cv[j:k] = acc[0] + gap * (cp[j:k] - t).astype(np.float64)
    ipos[0] = k
    acc[0] += gap * (T - t)


def top_k_stable(idx: np.ndarray, values: np.ndarray, k: int) -> np.ndarray:
    """The ``k`` entries of ``idx`` with the largest ``values``, largest first, ties by
    position in ``idx`` (a stable sort): the selection of the commits (:func:`dart_commit`,
    :func:`csar_commit`) and of the jitted :func:`_top_k_of`."""
    return idx[np.argsort(-values[idx], kind="stable")[:k]]


@inner
def _shuffle(a, n, state):
    for i in range(n - 1, 0, -1):
        j = integer(state, i + 1)
        tmp = a[i]
        a[i] = a[j]
        a[j] = tmp


@inner
def _top_k_of(idx, n, values, k, out, offset):
    """Write the ``k`` entries of ``idx[:n]`` with the largest ``values`` to
    ``out[offset:offset+k]`` (ties: lowest position first). O(n k), no allocation (each
    allocator a kernel uses is one more numba function compiled, issue 16): pick ``c`` is
    the best in the order (value descending, position ascending) among the positions after
    pick ``c - 1`` in that order."""
    last = -1
    for c in range(k):
        best = -1
        for j in range(n):
            if last >= 0:  # only what comes after the previous pick in the order
                v, vl = values[idx[j]], values[idx[last]]
                if v > vl or (v == vl and j <= last):
                    continue
            if best < 0 or values[idx[j]] > values[idx[best]]:
                best = j
        out[offset + c] = idx[best]
        last = best


@inner
def _largest_two(vals, n, k):
    """The ``k``-th and ``(k+1)``-th largest of ``vals[:n]`` (``1 <= k < n``), by a partial
    selection sort in place (``vals[:k+1]`` ends in decreasing order): ``O(n k)`` and no
    call of numba's sort, whose first compilation costs about a second (issue 16). Same
    values as ``sorted(vals[:n])[n - k]`` and ``[n - k - 1]``."""
    for c in range(k + 1):
        best = c
        for j in range(c + 1, n):
            if vals[j] > vals[best]:
                best = j
        tmp = vals[c]
        vals[c] = vals[best]
        vals[best] = tmp
    return vals[k - 1], vals[k]


@inner
def _count_plays(action, plays):
    """One more play of every arm of ``action`` (``plays``: per-arm plays while exploring;
    the loops' call, :func:`count_plays` is its Python entry)."""
    for j in range(action.size):
        plays[action[j]] += 1


@njit(cache=True)
def count_plays(action, plays):
    """Python entry of :func:`_count_plays` (the ask/tell policies)."""
    _count_plays(action, plays)


def scratch(K: int) -> tuple[np.ndarray, np.ndarray]:
    """Work arrays of a simulation loop, allocated in Python: ``(work, action)``, the
    ``3K + 2`` floats of :func:`expected_joint` and the played subset."""
    return np.empty(3 * K + 2), np.empty(K, dtype=np.int64)


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
    """Constants of a DART run: subset size, horizon, lambda rule and the confidence rule
    (``c``, ``union``: the test at level Delta comes after
    ``confidence_samples(c, 1/4, log(union N T), Delta / 2) = c log(union N T) / Delta^2``
    epochs; the paper prints ``c = 32``, ``union = 1``)."""

    K: int
    T: int
    lam: float
    auto: bool
    c_thr: float
    union: float


def dart_state(N: int, K: int) -> DartState:
    """Fresh arrays for N arms and subsets of size K."""
    return DartState(np.zeros(10, dtype=np.int64), np.zeros(4), np.empty(N, dtype=np.int64),
                     np.empty(N, dtype=np.int64), np.empty(K, dtype=np.int64), np.zeros(N),
                     np.zeros(N, dtype=np.int64), np.zeros(N, dtype=np.int64),
                     np.zeros(N, dtype=np.int64), np.empty(N))


@inner
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


@njit(cache=True, inline="always")
def _dart_reset(st, cfg, pol_state):
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
    st.floats[F_LOGNT] = np.log(cfg.union * float(N) * float(cfg.T))
    st.floats[F_THRESHOLD] = confidence_samples(cfg.c_thr, UNIT_VARIANCE, st.floats[F_LOGNT],
                                                0.5)
    st.floats[F_LAST_TESTED] = 0.0
    _dart_new_epoch(st, pol_state)


@njit(cache=True, inline="always")
def _dart_action(st, cfg, action):
    """The step kernel's decision: the subset ``A_e u G_ell`` to play now (into ``action``)."""
    n_acc = st.ints[D_ACCEPTED]
    Ke = st.ints[D_OPEN]
    n_und = st.ints[D_UNDECIDED]
    ell = st.ints[D_GROUP]
    for j in range(n_acc):
        action[j] = st.accepted[j]
    for j in range(Ke):
        action[n_acc + j] = st.perm[(Ke * ell + j) % n_und]


@njit(cache=True, inline="always")
def _dart_test(st, cfg):
    """The accept/reject test at the end of an epoch with ``e >= c ln(NT) / Delta^2``."""
    e = st.ints[D_EPOCH]
    n_und = st.ints[D_UNDECIDED]
    Ke = st.ints[D_OPEN]
    delta = st.floats[F_DELTA]
    st.ints[D_TESTS] += 1
    st.floats[F_LAST_TESTED] = delta
    for j in range(n_und):
        st.vals[j] = st.mu_hat[st.undecided[j]]
    # lo: the K_e-th largest within N_e, hi: the (K_e + 1)-th
    lo, hi = _largest_two(st.vals, n_und, Ke)
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
    st.floats[F_THRESHOLD] = confidence_samples(cfg.c_thr, UNIT_VARIANCE, st.floats[F_LOGNT],
                                                0.5 * delta)


@njit(cache=True, inline="always")
def _dart_observe(st, cfg, r, pol_state):
    """The step kernel's update: joint reward ``r`` of the group just played (the action
    of :func:`_dart_action`); at the end of an epoch the test, the stopping checks and the
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


def dart_commit(st, cfg, chosen) -> None:
    """The subset DART commits to: ``A`` plus the top ``K - |A|`` undecided arms by mu_hat
    (ties: first in the undecided list), into ``chosen``. Python (once per run; the
    simulation and the ask/tell policy call it)."""
    n_acc = int(st.ints[D_ACCEPTED])
    chosen[:n_acc] = st.accepted[:n_acc]
    if cfg.K - n_acc > 0:
        chosen[n_acc:cfg.K] = top_k_stable(st.undecided[:int(st.ints[D_UNDECIDED])],
                                           st.mu_hat, cfg.K - n_acc)


@njit(cache=True)
def dart_block(env, curve, st, cfg, t0, env_state, pol_state, plays, scratch):
    """Simulate the exploration of one DART run over ``cfg.T`` steps starting after global
    step ``t0``: the step kernel (:func:`_dart_action`, :func:`_dart_observe`) against the
    environment (the caller then commits, :func:`dart_commit`, and plays the commit phase,
    :func:`commit_regret`). ``env`` is ``(p, table, kind, rho, sigma,
    mu_star)``, ``curve`` is ``(cp, curve, ipos, acc)``; ``plays`` counts each arm's plays
    while exploring."""
    K = cfg.K
    work, action = scratch  # given (no allocator compiled): see scratch()
    _dart_reset(st, cfg, pol_state)
    done = False
    while not done:
        _dart_action(st, cfg, action)
        _count_plays(action, plays)
        r = _play(action, K, env, env_state, work, curve, t0 + st.ints[D_STEPS] + 1)
        done = _dart_observe(st, cfg, r, pol_state)


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


class CsarState(NamedTuple):
    """Arrays of a CSAR run. ``ints`` slots: :data:`C_STEPS`, :data:`C_PHASE`,
    :data:`C_UNDECIDED`, :data:`C_ACCEPTED`, :data:`C_OPEN` (``k_s``), :data:`C_BLOCK_SIZE`
    (``b``), :data:`C_QUERIES` (``q``), :data:`C_HADAMARD`, :data:`C_REPS` (``m_s``),
    :data:`C_BLOCKS`, :data:`C_REP`, :data:`C_BLOCK`, :data:`C_QUERY` (position in the
    phase), :data:`C_STOP` (1 all decided, 2 the next phase does not fit), :data:`C_DONE`;
    ``floats``: :data:`C_EPS` (``eps_s``), :data:`C_LOG` (``log(2NT)``), :data:`C_CONF`
    (the confidence rule's ``c``, set by :func:`csar_state`)."""

    undecided: np.ndarray
    perm: np.ndarray
    accepted: np.ndarray
    sums: np.ndarray
    est: np.ndarray
    status: np.ndarray
    vals: np.ndarray
    ints: np.ndarray
    floats: np.ndarray


C_STEPS, C_PHASE, C_UNDECIDED, C_ACCEPTED, C_OPEN, C_BLOCK_SIZE, C_QUERIES, C_HADAMARD, \
    C_REPS, C_BLOCKS, C_REP, C_BLOCK, C_QUERY, C_STOP, C_DONE = range(15)
C_EPS, C_LOG, C_CONF = range(3)


def csar_state(N: int, K: int, c: float = 2.0) -> CsarState:
    """Fresh arrays for N arms and subsets of size K; ``c`` the confidence rule's constant."""
    return CsarState(np.empty(N, dtype=np.int64), np.empty(N, dtype=np.int64),
                     np.empty(K, dtype=np.int64), np.zeros(N), np.zeros(N),
                     np.zeros(N, dtype=np.int64), np.empty(N), np.zeros(15, dtype=np.int64),
                     np.array([0.0, 0.0, float(c)]))


@inner
def _csar_start_phase(st, K, T, designs, pol_state):
    """Open phase ``s``: ``eps_s = 2^-s``, the design for ``k_s`` open slots repeated
    ``m_s = ceil(confidence_samples(c, v, log(2NT), eps_s)) = ceil(c v log(2NT) / eps_s^2)``
    times (``c = 2``: the sub-Gaussian bound; ``v`` the variance proxy of one repetition's
    estimate of ``phi_i``) over blocks of a fresh permutation; stop (code 2) when it does
    not fit in the remaining horizon."""
    ints = st.ints
    n_und = ints[C_UNDECIDED]
    k = K - ints[C_ACCEPTED]
    ints[C_OPEN] = k
    ints[C_PHASE] += 1
    eps = 0.5 ** ints[C_PHASE]
    st.floats[C_EPS] = eps
    use_h = 1 if (k & (k - 1)) == 0 and n_und >= 2 * k else 0
    b, q = designs.size[use_h, k, 0], designs.size[use_h, k, 1]
    Hc = designs.coef[use_h, k]
    v = 0.0
    for i in range(b):
        s2 = 0.0
        for j in range(q):
            s2 += Hc[i, j] * Hc[i, j]
        if s2 > v:
            v = s2
    v *= UNIT_VARIANCE * K * K
    reps = np.int64(np.ceil(confidence_samples(st.floats[C_CONF], v, st.floats[C_LOG], eps)))
    nblocks = (n_und + b - 1) // b
    if reps * nblocks * q > T - ints[C_STEPS]:
        ints[C_STOP] = 2
        ints[C_DONE] = 1
        return
    ints[C_HADAMARD], ints[C_BLOCK_SIZE], ints[C_QUERIES] = use_h, b, q
    ints[C_REPS], ints[C_BLOCKS] = reps, nblocks
    ints[C_REP], ints[C_BLOCK], ints[C_QUERY] = 0, 0, 0
    for j in range(n_und):
        st.perm[j] = st.undecided[j]
    _shuffle(st.perm, n_und, pol_state)
    for j in range(n_und):
        st.sums[st.perm[j]] = 0.0


@njit(cache=True, inline="always")
def _csar_reset(st, K, T, designs, pol_state):
    """Every arm undecided, no phase yet; opens phase 1."""
    N = st.est.size
    for i in range(N):
        st.undecided[i] = i
        st.status[i] = 0
        st.est[i] = 0.0
    for k in range(st.ints.size):
        st.ints[k] = 0
    st.ints[C_UNDECIDED] = N
    st.floats[C_EPS] = 1.0
    st.floats[C_LOG] = np.log(2.0 * N * T)
    _csar_start_phase(st, K, T, designs, pol_state)


@njit(cache=True, inline="always")
def _csar_action(st, designs, action):
    """Step decision: the accepted arms plus the design's query on the current block."""
    ints = st.ints
    n_acc, n_und, k = ints[C_ACCEPTED], ints[C_UNDECIDED], ints[C_OPEN]
    Hq = designs.queries[ints[C_HADAMARD], k]
    blk, qq, b = ints[C_BLOCK], ints[C_QUERY], ints[C_BLOCK_SIZE]
    for j in range(n_acc):
        action[j] = st.accepted[j]
    for j in range(k):
        action[n_acc + j] = st.perm[(blk * b + Hq[qq, j]) % n_und]


@njit(cache=True, inline="always")
def _csar_test(st, K):
    """End of a phase: estimates ``phi_i = K sum / m_s``, accept
    ``phi_i >= phi_(k+1) + 2 eps``, reject ``phi_i <= phi_(k) - 2 eps``."""
    ints = st.ints
    n_und, k, eps = ints[C_UNDECIDED], ints[C_OPEN], st.floats[C_EPS]
    for j in range(n_und):
        i = st.undecided[j]
        st.est[i] = K * st.sums[i] / ints[C_REPS]
        st.vals[j] = st.est[i]
    lo, hi = _largest_two(st.vals, n_und, k)  # the k-th and (k+1)-th largest estimates
    m = 0
    n_acc = ints[C_ACCEPTED]
    new_acc = 0
    for j in range(n_und):
        i = st.undecided[j]
        if st.est[i] >= hi + 2.0 * eps:
            st.status[i] = 1
            st.accepted[n_acc + new_acc] = i
            new_acc += 1
        elif st.est[i] <= lo - 2.0 * eps:
            st.status[i] = 2
        else:
            st.undecided[m] = i
            m += 1
    ints[C_UNDECIDED] = m
    ints[C_ACCEPTED] = n_acc + new_acc


@njit(cache=True, inline="always")
def _csar_observe(st, K, T, designs, r, pol_state):
    """Step update with the joint reward ``r`` of the query played; closes the phase after
    its last query (test, then the next phase). Returns True once the exploration is over."""
    ints = st.ints
    Hc = designs.coef[ints[C_HADAMARD], ints[C_OPEN]]
    blk, qq, b, n_und = ints[C_BLOCK], ints[C_QUERY], ints[C_BLOCK_SIZE], ints[C_UNDECIDED]
    ints[C_STEPS] += 1
    for i in range(b):
        pos = blk * b + i
        if pos < n_und:  # wrap-around repeats: first block's estimate only
            st.sums[st.perm[pos]] += Hc[i, qq] * r
    ints[C_QUERY] += 1
    if ints[C_QUERY] == ints[C_QUERIES]:
        ints[C_QUERY] = 0
        ints[C_BLOCK] += 1
        if ints[C_BLOCK] == ints[C_BLOCKS]:
            ints[C_BLOCK] = 0
            ints[C_REP] += 1
    if ints[C_REP] < ints[C_REPS]:
        return False
    _csar_test(st, K)
    if ints[C_ACCEPTED] + ints[C_UNDECIDED] == K:
        ints[C_STOP] = 1
        ints[C_DONE] = 1
        return True
    _csar_start_phase(st, K, T, designs, pol_state)
    return ints[C_DONE] == 1


def csar_commit(st, K, chosen) -> None:
    """Accepted arms plus the best undecided ones by the last estimates, into ``chosen``
    (Python, once per run; the simulation and the ask/tell policy call it)."""
    n_acc = int(st.ints[C_ACCEPTED])
    chosen[:n_acc] = st.accepted[:n_acc]
    if K - n_acc > 0:
        chosen[n_acc:K] = top_k_stable(st.undecided[:int(st.ints[C_UNDECIDED])], st.est,
                                       K - n_acc)


@njit(cache=True)
def csar_run(env, curve, st, K, T, designs, env_state, pol_state, plays, scratch):
    """CSAR's exploration with fresh samples per phase (see :func:`bandits.subsets.csar`):
    the step kernel (:func:`_csar_action`, :func:`_csar_observe`) against the environment
    (the caller then commits, :func:`csar_commit`, and plays the commit phase,
    :func:`commit_regret`)."""
    work, action = scratch  # given (no allocator compiled): see scratch()
    _csar_reset(st, K, T, designs, pol_state)
    done = st.ints[C_DONE] == 1
    while not done:
        _csar_action(st, designs, action)
        _count_plays(action, plays)
        r = _play(action, K, env, env_state, work, curve, st.ints[C_STEPS] + 1)
        done = _csar_observe(st, K, T, designs, r, pol_state)


# ----------------------------------------------------------------------------------------
# Linear Thompson sampling (Agrawal & Goyal 2013) with indicator features
# ----------------------------------------------------------------------------------------

class LintsState(NamedTuple):
    """Arrays of a LinTS run: the Cholesky factor ``L`` of ``B = reg I + sum x x^T``, the
    reward-weighted sum ``f``, work vectors, and ``ints[0]`` = steps so far."""

    L: np.ndarray
    f: np.ndarray
    w: np.ndarray
    th: np.ndarray
    x: np.ndarray
    idx: np.ndarray
    ints: np.ndarray


class LintsConfig(NamedTuple):
    """Constants of a LinTS run: subset size, horizon, posterior scale and ridge."""

    K: int
    T: int
    v: float
    reg: float


def lints_state(N: int) -> LintsState:
    """Fresh arrays for N arms (call :func:`_lints_reset` before the first step)."""
    return LintsState(np.zeros((N, N)), np.zeros(N), np.empty(N), np.empty(N), np.empty(N),
                      np.arange(N), np.zeros(1, dtype=np.int64))


@njit(cache=True, inline="always")
def _lints_reset(st, cfg):
    """``L = sqrt(reg) I``, ``f = 0``, no step yet."""
    N = st.f.size
    for i in range(N):
        for j in range(N):
            st.L[i, j] = 0.0
        st.L[i, i] = np.sqrt(cfg.reg)
        st.f[i] = 0.0
    st.ints[0] = 0


@inner
def _forward(L, f, w):
    """Solve ``L w = f`` (lower triangular)."""
    N = f.size
    for i in range(N):
        s = f[i]
        for j in range(i):
            s -= L[i, j] * w[j]
        w[i] = s / L[i, i]


@inner
def _backward(L, w, out):
    """Solve ``L^T out = w``."""
    N = w.size
    for i in range(N - 1, -1, -1):
        s = w[i]
        for j in range(i + 1, N):
            s -= L[j, i] * out[j]
        out[i] = s / L[i, i]


@njit(cache=True, inline="always")
def _lints_action(st, cfg, action, pol_state):
    """Step decision: ``theta_tilde ~ N(B^-1 f, v^2 B^-1)`` (``L^-T (L^-1 f + v z)``, two
    triangular solves), play the top-K of ``theta_tilde``."""
    N = st.f.size
    _forward(st.L, st.f, st.w)
    for i in range(N):
        st.w[i] += cfg.v * normal(pol_state)
    _backward(st.L, st.w, st.th)
    _top_k_of(st.idx, N, st.th, cfg.K, action, np.int64(0))  # no literal


@njit(cache=True, inline="always")
def _lints_observe(st, cfg, action, r):
    """Step update with the joint reward ``r`` of ``action``: ``f += r x`` and the rank-one
    Cholesky update ``L L^T + x x^T``. Returns True at the horizon."""
    N = st.f.size
    L, x = st.L, st.x
    for i in range(N):
        x[i] = 0.0
    first = N
    for j in range(cfg.K):
        x[action[j]] = 1.0
        st.f[action[j]] += r
        if action[j] < first:
            first = action[j]
    for c in range(first, N):  # x is zero before `first`
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
    st.ints[0] += 1
    return st.ints[0] >= cfg.T


@njit(cache=True, inline="always")
def _lints_commit(st, cfg, theta_mean, chosen):
    """The posterior mean ``B^-1 f`` and its top-K (the reported recommendation)."""
    _forward(st.L, st.f, st.w)
    _backward(st.L, st.w, theta_mean)
    _top_k_of(st.idx, st.f.size, theta_mean, cfg.K, chosen, np.int64(0))


@njit(cache=True)
def lints_run(env, curve, st, cfg, env_state, pol_state, theta_mean, chosen, plays,
              scratch):
    """Simulate LinTS (Agrawal & Goyal 2013) for ``cfg.T`` steps: the step kernel
    (:func:`_lints_action`, :func:`_lints_observe`) against the environment."""
    work, action = scratch  # given (no allocator compiled): see scratch()
    _lints_reset(st, cfg)
    done = False
    while not done:
        _lints_action(st, cfg, action, pol_state)
        _count_plays(action, plays)
        r = _play(action, cfg.K, env, env_state, work, curve, st.ints[0] + 1)
        done = _lints_observe(st, cfg, action, r)
    _lints_commit(st, cfg, theta_mean, chosen)


# ----------------------------------------------------------------------------------------
# Improved UCB (Auer & Ortner 2010) over all C(N, K) subsets
# ----------------------------------------------------------------------------------------

class UcbState(NamedTuple):
    """Arrays of an improved-UCB run over the ``M`` actions (rows of ``actions``).

    ``ints`` slots :data:`U_STEPS`, :data:`U_ROUNDS`, :data:`U_ALIVE` (actions left),
    :data:`U_POS` (position in ``alive`` of the action to play), :data:`U_NEED` (samples per
    action this round, ``n_m``), :data:`U_IN_ROUND`, :data:`U_DONE`; ``floats`` slots
    :data:`U_DM` (``Delta_m``), :data:`U_LOG` (``log(T Delta_m^2)``) and :data:`U_CONF` (the
    confidence rule's ``c``, set by :func:`ucb_state`).
    """

    actions: np.ndarray
    alive: np.ndarray
    cnt: np.ndarray
    mean: np.ndarray
    ints: np.ndarray
    floats: np.ndarray


U_STEPS, U_ROUNDS, U_ALIVE, U_POS, U_NEED, U_IN_ROUND, U_DONE = range(7)
U_DM, U_LOG, U_CONF = range(3)


def ucb_state(actions: np.ndarray, c: float = 2.0) -> UcbState:
    """Fresh arrays for the action table ``actions`` (M, K); ``c`` the confidence rule's
    constant (Auer & Ortner: 2)."""
    M = actions.shape[0]
    return UcbState(actions, np.arange(M), np.zeros(M, dtype=np.int64), np.zeros(M),
                    np.zeros(7, dtype=np.int64), np.array([0.0, 0.0, float(c)]))


@inner
def _ucb_next(st, T):
    """Advance to the next action that needs a sample, closing rounds (elimination) on the
    way; sets ``ints[U_DONE]`` when no round is left or the horizon is reached."""
    ints, fl, alive = st.ints, st.floats, st.alive
    while True:
        if ints[U_IN_ROUND] == 0:
            if not (ints[U_ALIVE] > 1 and fl[U_DM] >= np.sqrt(np.e / T)):
                ints[U_DONE] = 1
                return
            dm = fl[U_DM]
            fl[U_LOG] = np.log(T * dm * dm)
            # n_m = c log(T Delta_m^2) / Delta_m^2: radius Delta_m / 2 for a [0, 1] mean
            ints[U_NEED] = np.int64(np.ceil(confidence_samples(fl[U_CONF], UNIT_VARIANCE,
                                                          fl[U_LOG], 0.5 * dm)))
            ints[U_POS] = 0
            ints[U_IN_ROUND] = 1
        while ints[U_POS] < ints[U_ALIVE] and st.cnt[alive[ints[U_POS]]] >= ints[U_NEED]:
            ints[U_POS] += 1
        if ints[U_POS] < ints[U_ALIVE]:
            if ints[U_STEPS] >= T:  # the horizon ends the round: it does not count
                ints[U_DONE] = 1
            return
        # round over: eliminate every action whose UCB is below the best LCB
        ints[U_ROUNDS] += 1
        rad = confidence_radius(fl[U_CONF], UNIT_VARIANCE, fl[U_LOG], ints[U_NEED])
        best_lcb = -np.inf
        n_alive = ints[U_ALIVE]
        for jj in range(n_alive):
            if st.mean[alive[jj]] - rad > best_lcb:
                best_lcb = st.mean[alive[jj]] - rad
        m = 0
        for jj in range(n_alive):
            a = alive[jj]
            if st.mean[a] + rad >= best_lcb:
                alive[m] = a
                m += 1
        ints[U_ALIVE] = m
        fl[U_DM] *= 0.5
        ints[U_IN_ROUND] = 0


@njit(cache=True, inline="always")
def _ucb_reset(st, T, pol_state):
    """Every action alive in a random order, ``Delta_0 = 1``, the first round opened."""
    M = st.actions.shape[0]
    for a in range(M):
        st.alive[a] = a
        st.cnt[a] = 0
        st.mean[a] = 0.0
    for k in range(st.ints.size):
        st.ints[k] = 0
    st.ints[U_ALIVE] = M
    st.floats[U_DM] = 1.0
    _shuffle(st.alive, M, pol_state)
    _ucb_next(st, T)


@njit(cache=True, inline="always")
def _ucb_action(st, action):
    """Step decision: the action whose turn it is in the round (into ``action``)."""
    a = st.alive[st.ints[U_POS]]
    for j in range(st.actions.shape[1]):
        action[j] = st.actions[a, j]


@njit(cache=True, inline="always")
def _ucb_observe(st, T, r):
    """Step update with the joint reward ``r`` of the action played. Returns True once the
    exploration is over."""
    a = st.alive[st.ints[U_POS]]
    st.ints[U_STEPS] += 1
    st.cnt[a] += 1
    st.mean[a] += (r - st.mean[a]) / st.cnt[a]
    _ucb_next(st, T)
    return st.ints[U_DONE] == 1


@njit(cache=True, inline="always")
def _ucb_commit(st, chosen):
    """The empirically best remaining action (first in ``alive`` order among ties)."""
    alive = st.alive
    best = alive[0]
    for jj in range(st.ints[U_ALIVE]):
        if st.mean[alive[jj]] > st.mean[best]:
            best = alive[jj]
    for j in range(st.actions.shape[1]):
        chosen[j] = st.actions[best, j]


@njit(cache=True)
def ucb_run(env, curve, st, T, env_state, pol_state, chosen, plays, scratch):
    """UCB-Improved (Auer & Ortner 2010) over all K-subsets: rounds m with
    ``Delta_m = 2^-m``; every remaining action is played until it has
    ``n_m = ceil(c log(T Delta_m^2) / Delta_m^2)`` samples (``c = 2``), then actions with
    ``mean + sqrt(c log(T Delta_m^2) / (4 n_m)) < max(mean - same)`` are eliminated (the
    shared rule, :func:`confidence_samples` / :func:`confidence_radius`). After the
    last round (``Delta_m < sqrt(e / T)``) or when one action is left, the empirically best
    remaining action is played to the horizon (by the caller: :func:`commit_regret`). The
    step kernel (:func:`_ucb_action`, :func:`_ucb_observe`) against the environment."""
    K = st.actions.shape[1]
    work, action = scratch  # given (no allocator compiled): see scratch()
    _ucb_reset(st, T, pol_state)
    done = st.ints[U_DONE] == 1
    while not done:
        _ucb_action(st, action)
        _count_plays(action, plays)
        r = _play(action, K, env, env_state, work, curve, st.ints[U_STEPS] + 1)
        done = _ucb_observe(st, T, r)
    _ucb_commit(st, chosen)


# ----------------------------------------------------------------------------------------
# Python entries of the step kernels (the ask/tell policies' calls)
# ----------------------------------------------------------------------------------------
# The simulation loops above call the step kernels themselves: each step kernel
# (*_reset, *_action, *_observe, *_commit) and the loop's _play have one call site
# in their loop, so they are inlined into it (numba's inline="always": a run's first call
# compiles one function per loop instead of a kernel per step, each linked and optimised
# again by the loop: issue 16); helpers with several call sites are inner kernels (no
# Python wrapper). A policy calls these entries, which compile the same step kernel once,
# on the policy's first use.


@njit(cache=True)
def dart_reset(st, cfg, pol_state):
    """Python entry of the step kernel :func:`_dart_reset`."""
    return _dart_reset(st, cfg, pol_state)


@njit(cache=True)
def dart_action(st, cfg, action):
    """Python entry of the step kernel :func:`_dart_action`."""
    return _dart_action(st, cfg, action)


@njit(cache=True)
def dart_observe(st, cfg, r, pol_state):
    """Python entry of the step kernel :func:`_dart_observe`."""
    return _dart_observe(st, cfg, r, pol_state)


@njit(cache=True)
def csar_reset(st, K, T, designs, pol_state):
    """Python entry of the step kernel :func:`_csar_reset`."""
    return _csar_reset(st, K, T, designs, pol_state)


@njit(cache=True)
def csar_action(st, designs, action):
    """Python entry of the step kernel :func:`_csar_action`."""
    return _csar_action(st, designs, action)


@njit(cache=True)
def csar_observe(st, K, T, designs, r, pol_state):
    """Python entry of the step kernel :func:`_csar_observe`."""
    return _csar_observe(st, K, T, designs, r, pol_state)


@njit(cache=True)
def lints_reset(st, cfg):
    """Python entry of the step kernel :func:`_lints_reset`."""
    return _lints_reset(st, cfg)


@njit(cache=True)
def lints_action(st, cfg, action, pol_state):
    """Python entry of the step kernel :func:`_lints_action`."""
    return _lints_action(st, cfg, action, pol_state)


@njit(cache=True)
def lints_observe(st, cfg, action, r):
    """Python entry of the step kernel :func:`_lints_observe`."""
    return _lints_observe(st, cfg, action, r)


@njit(cache=True)
def lints_commit(st, cfg, theta_mean, chosen):
    """Python entry of the step kernel :func:`_lints_commit`."""
    return _lints_commit(st, cfg, theta_mean, chosen)


@njit(cache=True)
def ucb_reset(st, T, pol_state):
    """Python entry of the step kernel :func:`_ucb_reset`."""
    return _ucb_reset(st, T, pol_state)


@njit(cache=True)
def ucb_action(st, action):
    """Python entry of the step kernel :func:`_ucb_action`."""
    return _ucb_action(st, action)


@njit(cache=True)
def ucb_observe(st, T, r):
    """Python entry of the step kernel :func:`_ucb_observe`."""
    return _ucb_observe(st, T, r)


@njit(cache=True)
def ucb_commit(st, chosen):
    """Python entry of the step kernel :func:`_ucb_commit`."""
    return _ucb_commit(st, chosen)


@njit(cache=True)
def ucb_next(st, T):
    """Python entry of :func:`_ucb_next` (the policy's warm start skips satisfied actions)."""
    return _ucb_next(st, T)
