r"""DART and its baselines for top-K subset selection with joint rewards (jitted runs).

* :func:`dart` -- DART (Agarwal, Aggarwal, Quinn & Umrawal), Algorithms 1 and 2, with the
  anytime (doubling) variant of Appendix G as :func:`dart_anytime`.
* :func:`csar` -- CSAR (Rejwan & Mansour 2020) with the Hadamard design of
  :mod:`design.hadamard`.
* :func:`lints` -- linear Thompson sampling (Agrawal & Goyal 2013), scaled or unscaled.
* :func:`ucb` -- improved UCB (Auer & Ortner 2010) over all C(N, K) subsets.

Every function simulates one run of ``T`` steps on a :class:`~bandits.subsets.SubsetEnv`
and returns a :class:`SubsetRunResult` with the cumulative pseudo-regret
:math:`R_t = t\mu_{a^*} - \sum_{s\le t}\mu_{a_s}` (DART Eq. 4) at the checkpoints.  Runs
are reproducible from ``seed`` in any process: the environment and the policy draw from two
independent splitmix64 streams (:mod:`bandits._core.rng`).

CMAB-SM (Agarwal et al. 2022) is not implemented: the DART paper describes it in one
sentence ("divide-and-conquer ... combines the results of those individual subproblems") and
its own paper is not in our sources, so a faithful implementation cannot be written from a
public description available here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from bandits._core.rng import make_state
from bandits.subsets import _kernels as _k
from bandits.subsets.confidence import ConfidenceRule
from bandits.subsets.env import SubsetEnv

__all__ = ["ALGORITHMS", "SubsetRunResult", "checkpoints", "csar", "dart", "dart_anytime",
           "dart_lambda_auto", "dart_lambda_printed", "dart_test_epochs", "lints", "run_subset",
           "ucb"]

_STOP = {0: "horizon", 1: "all-decided", 2: "lambda"}


@dataclass
class SubsetRunResult:
    """One simulated run.

    Attributes
    ----------
    algorithm : str
    times : ndarray of int64
        Checkpoints (1-based step counts, the last one is ``T``).
    regret : ndarray
        Cumulative pseudo-regret at ``times``.
    chosen : ndarray of int64, shape (K,)
        The final (committed or recommended) subset, sorted.
    correct : bool
        Whether ``chosen`` is an optimal subset (:meth:`SubsetEnv.is_optimal`: with tied
        means at the K-th place, any of the tied arms).
    stopped_by : str
        Why exploration ended: ``"horizon"`` (the horizon ``T`` was reached while still
        exploring -- ``chosen`` is then only the current best guess), ``"all-decided"``
        (all K slots accepted/filled by the tests), ``"lambda"`` (DART: Delta fell below
        lambda / the next test level is out of reach; CSAR/UCB: the next phase does not fit
        in the remaining horizon) -- in the last two cases the algorithm committed.
    explore_steps : int
        Steps before the commit phase (``T`` if ``stopped_by == "horizon"``).
    T : int
    seed : int
    info : dict
        Algorithm-specific data (DART: epochs, tests, lambda, counts, mu_hat, status ...);
        every algorithm: ``plays``, each arm's plays while exploring.
    """

    algorithm: str
    times: np.ndarray
    regret: np.ndarray
    chosen: np.ndarray
    correct: bool
    stopped_by: str
    explore_steps: int
    T: int
    seed: int
    info: dict = field(default_factory=dict)

    @property
    def final_regret(self) -> float:
        return float(self.regret[-1])


def checkpoints(T: int, n: int = 200) -> np.ndarray:
    """``n`` evenly spaced checkpoints ``ceil(T j / n)``, ``j = 1..n`` (unique, last = T)."""
    _check_T(T)
    n = max(1, min(int(n), int(T)))
    return np.unique(np.ceil(np.arange(1, n + 1) * (T / n)).astype(np.int64))


def _check_T(T) -> None:
    if isinstance(T, bool) or not isinstance(T, (int, np.integer)) or T < 1:
        raise ValueError(f"T must be a positive integer; got {T!r}")


def _prepare(env: SubsetEnv, T: int, seed: int, n_points: int):
    if not isinstance(env, SubsetEnv):
        raise ValueError(f"env must be a SubsetEnv; got {type(env).__name__}")
    _check_T(T)
    if T < env.N:
        raise ValueError(f"T must be at least the number of arms N = {env.N}; got T = {T}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer; got {seed!r}")
    cp = checkpoints(T, n_points)
    return (cp, np.zeros(cp.size), np.zeros(1, dtype=np.int64), np.zeros(1),
            make_state(seed, 1), make_state(seed, 2))


def _env_args(env: SubsetEnv):
    return (env.means, env.table, env.kind_code, env.rho, env.sigma, env.mu_star)


def _commit(env: SubsetEnv, curve: tuple, t: int, T: int, work: tuple, decide, chosen
            ) -> None:
    """After a loop's exploration (``t`` steps, horizon ``T``): the committed subset
    (``decide()`` writes it into ``chosen``; None when the loop did) and the regret of
    playing it to ``T`` (:func:`bandits.subsets._kernels.commit_regret`)."""
    if decide is not None:
        decide()
    if t < T:
        _k.commit_regret(_env_args(env), curve, chosen, work[0], int(t), int(T))


def _result(name, env, T, seed, cp, curve, chosen, stop, explore, info) -> SubsetRunResult:
    chosen = np.sort(chosen)
    return SubsetRunResult(name, cp, curve, chosen, env.is_optimal(chosen),
                           stop, int(explore), int(T), int(seed), info)


# ------------------------------------------------------------------------------- DART
def dart_lambda_printed(N: int, K: int, T: int) -> float:
    r"""The lambda printed in DART Algorithm 1: :math:`\sqrt{720 N K \ln(2NT)/T}`.

    At the paper's own settings it exceeds the initial :math:`\Delta = 1`, so a literal
    DART breaks after the first epoch (line 21, :math:`\Delta < \lambda`) and commits on
    one sample per arm: with ``N = 45``, ``T = 10^6``, :math:`\ln(2NT) = \ln(9\cdot 10^7)
    = 18.32`, so :math:`\lambda = \sqrt{720\cdot45\cdot K\cdot18.32/10^6} = 0.770\sqrt K`,
    i.e. 1.089, 1.541, 2.179 for K = 2, 4, 8.
    """
    return math.sqrt(720.0 * N * K * math.log(2.0 * N * T) / T)


def dart_test_epochs(N: int, T: int, levels: int = 8, c: float = 32.0,
                     union: float = 1.0) -> np.ndarray:
    r"""Epochs at which DART tests level :math:`\Delta = 2^{-k}`:
    :math:`\lceil c \ln(\text{union}\,NT) 4^k\rceil`, ``k = 0..levels-1`` (Algorithm 1,
    line 3/18; printed: ``c = 32``, ``union = 1``), from the shared
    :class:`~bandits.subsets.confidence.ConfidenceRule`."""
    rule = ConfidenceRule(c, union).checked()
    return np.ceil([rule.dart_epochs(N, T, 0.5**k) for k in range(levels)])


def dart_lambda_auto(N: int, K: int, T: int, c: float = 32.0, union: float = 1.0) -> float:
    r"""The a-priori smallest level DART can test within ``T`` if nothing is eliminated.

    The test of level :math:`\Delta = 2^{-k}` happens at the end of epoch
    :math:`e_k = \lceil c\ln(NT)4^k\rceil`; without eliminations an epoch lasts
    :math:`\lceil N/K\rceil` steps, so the level is reachable iff
    :math:`e_k\lceil N/K\rceil \le T`.  At ``N = 45``, ``T = 10^6`` (:math:`\ln(NT) =
    17.62`, :math:`e_k = 564\cdot 4^k`): K = 2 (23 steps/epoch, 43,478 epochs) reaches
    :math:`\Delta = 1/8` (epoch 36,090); K = 4 (12 steps, 83,333 epochs) reaches 1/8;
    K = 8 (6 steps, 166,666 epochs) reaches 1/16 (epoch 144,361).  Returns that level
    (1.0 if not even the first test is reachable).  :func:`dart` with ``lam="auto"``
    applies the same rule *online* after every test with the current epoch length
    (which only changes at tests), so it also uses levels made reachable by rejections.
    """
    L = -(-N // K)
    ek = dart_test_epochs(N, T, 40, c, union)
    ok = np.flatnonzero(ek * L <= T)
    return float(0.5 ** ok[-1]) if ok.size else 1.0


def dart(env: SubsetEnv, T: int, *, seed: int = 0, lam: float | str = "auto",
         c: float = 32.0, union: float = 1.0, n_points: int = 200) -> SubsetRunResult:
    r"""DART: aDaptive Accept RejecT (Agarwal, Aggarwal, Quinn & Umrawal, Algorithm 1).

    Epoch ``e``: draw a uniformly random permutation of the undecided arms :math:`N_e`
    and cut it into :math:`\lceil |N_e|/K_e\rceil` consecutive groups of
    :math:`K_e = K - |A_e|` arms, the last one wrapping around to the start (Partition
    Arms, Algorithm 2); play :math:`A_e \cup G_\ell` for each group and average the joint
    reward into :math:`\hat\mu_i` of every arm of the group -- except the wrap-around
    repeats, so every undecided arm gets exactly one update per epoch and
    :math:`n_i = e`.  When :math:`e \ge c\ln(NT)/\Delta^2` (``c = 32``) test:

    .. math:: \text{accept } i \text{ if } \hat\mu_i \ge \hat\mu_{(K_e+1)} + \Delta,\qquad
              \text{reject } i \text{ if } \hat\mu_i \le \hat\mu_{(K_e)} - \Delta

    (ranks within :math:`N_e`), then halve :math:`\Delta`.  Exploration ends when all K
    slots are decided (:math:`|A\cup N_e| = K`), when :math:`\Delta < \lambda`, or at the
    horizon; then DART commits to :math:`A \cup` the top :math:`K - |A|` undecided arms by
    :math:`\hat\mu`.  O(N) memory, O(K) work per step plus an O(N) permutation per epoch
    and a sort per test.

    Parameters
    ----------
    env : SubsetEnv
    T : int
        Horizon, ``T >= N``.
    seed : int
        Seeds the environment and the permutations.
    lam : float or {"auto", "printed"}
        Resolution floor :math:`\lambda`.  ``"auto"`` (default): test every level reachable
        within ``T`` and commit as soon as the next test cannot be completed in the
        remaining horizon (see :func:`dart_lambda_auto` for the arithmetic at the paper's
        settings).  ``"printed"``: :func:`dart_lambda_printed`
        (:math:`\sqrt{720NK\ln(2NT)/T}`, > 1 at N = 45, T = 1e6, so DART stops after one
        epoch).  A number: the literal rule, break when :math:`\Delta < \lambda`
        (``0`` = never, explore until the horizon or all decided).
    c, union : float
        The confidence rule (:class:`~bandits.subsets.confidence.ConfidenceRule`): test
        level :math:`\Delta` after :math:`c\ln(\text{union}\,NT)/\Delta^2` epochs. The
        paper prints ``c = 32``, ``union = 1`` (the defaults); ``c = 2``, ``union = 2``
        (:data:`~bandits.subsets.confidence.MATCHED`) is the sub-Gaussian union bound that
        CSAR and UCB use.
    n_points : int
        Number of checkpoints of the regret curve.

    Returns
    -------
    SubsetRunResult
        ``info``: ``epochs``, ``tests``, ``lambda`` (the value used; for ``"auto"`` the
        last tested level), ``delta`` (current), ``counts``, ``mu_hat``, ``status`` (0
        undecided, 1 accepted, 2 rejected), ``decided_at`` (epoch of the decision, -1).
    """
    cp, curve, ipos, acc, es, ps = _prepare(env, T, seed, n_points)
    auto, lam_val = _parse_lam(lam, env.N, env.K, T)
    rule = ConfidenceRule(c, union).checked()
    st = _k.dart_state(env.N, env.K)
    chosen = np.zeros(env.K, dtype=np.int64)
    plays = np.zeros(env.N, dtype=np.int64)
    cfg = _k.DartConfig(env.K, int(T), lam_val, auto, rule.c, rule.union)
    work = _k.scratch(env.K)
    _k.dart_block(_env_args(env), (cp, curve, ipos, acc), st, cfg, 0, es, ps, plays, work)
    _commit(env, (cp, curve, ipos, acc), st.ints[_k.D_STEPS], int(T), work,
            lambda: _k.dart_commit(st, cfg, chosen), chosen)
    ints, floats = st.ints, st.floats
    info = {"epochs": int(ints[_k.D_EPOCH]), "tests": int(ints[_k.D_TESTS]),
            "delta": float(floats[_k.F_DELTA]),
            "lambda": float(floats[_k.F_LAST_TESTED]) if auto else lam_val,
            "lambda_rule": str(lam), "counts": st.counts, "mu_hat": st.mu_hat,
            "status": st.status, "decided_at": st.decided_at, "plays": plays}
    return _result("dart", env, T, seed, cp, curve, chosen, _STOP[int(ints[_k.D_STOP])],
                   ints[_k.D_STEPS], info)


def _parse_lam(lam, N, K, T) -> tuple[bool, float]:
    if isinstance(lam, str):
        if lam == "auto":
            return True, 0.0
        if lam == "printed":
            return False, dart_lambda_printed(N, K, T)
        raise ValueError(f"lam must be a number >= 0, 'auto' or 'printed'; got {lam!r}")
    lam = float(lam)
    if not (np.isfinite(lam) and lam >= 0):
        raise ValueError(f"lam must be a number >= 0, 'auto' or 'printed'; got {lam!r}")
    return False, lam


def dart_anytime(env: SubsetEnv, T: int, *, seed: int = 0, lam: str | float = "auto",
                 c: float = 32.0, union: float = 1.0, n_points: int = 200
                 ) -> SubsetRunResult:
    r"""Anytime DART by the doubling trick (Appendix G).

    DART is restarted from scratch at :math:`T_l = 2^l`, ``l = 1, 2, ...``; restart ``l``
    runs :math:`T_l - T_{l-1}` steps with that length as its horizon and never sees ``T``
    (which only ends the simulation).  ``lam``: ``"auto"`` per restart (default),
    ``"printed"`` for Appendix G's
    :math:`\lambda_l = \sqrt{1440 N\ln(2N\Delta T_l)/(K\Delta T_l)}`,
    :math:`\Delta T_l = T_l - T_{l-1}`, or a fixed number.  With Besson & Kaufmann (2018,
    Thm 4), ``b = 2``, the :math:`\tilde O(\sqrt T)` bound carries over.

    Returns
    -------
    SubsetRunResult
        ``info["restarts"]``: the restart lengths; ``stopped_by`` is the last restart's.
    """
    cp, curve, ipos, acc, es, ps = _prepare(env, T, seed, n_points)
    rule = ConfidenceRule(c, union).checked()
    N, K = env.N, env.K
    st = _k.dart_state(N, K)
    chosen = np.zeros(K, dtype=np.int64)
    plays = np.zeros(N, dtype=np.int64)
    work = _k.scratch(K)
    t, ell, lengths = 0, 1, []
    if isinstance(lam, str) and lam not in ("auto", "printed"):
        raise ValueError(f"lam must be a number >= 0, 'auto' or 'printed'; got {lam!r}")
    stop = "horizon"
    while t < T:
        block = min(2**ell - 2 ** (ell - 1), T - t)
        if lam == "printed":
            auto, lv = False, math.sqrt(1440.0 * N * math.log(2.0 * N * block) / (K * block))
        else:
            auto, lv = _parse_lam(lam, N, K, block)
        cfg = _k.DartConfig(K, int(block), lv, auto, rule.c, rule.union)
        _k.dart_block(_env_args(env), (cp, curve, ipos, acc), st, cfg, int(t), es, ps, plays,
                      work)
        _commit(env, (cp, curve, ipos, acc), int(t) + st.ints[_k.D_STEPS], int(t) + block,
                work, lambda cfg=cfg: _k.dart_commit(st, cfg, chosen), chosen)
        lengths.append(int(block))
        stop = _STOP[int(st.ints[_k.D_STOP])]
        t += block
        ell += 1
    info = {"restarts": lengths, "epochs_last": int(st.ints[_k.D_EPOCH]),
            "tests_last": int(st.ints[_k.D_TESTS]), "plays": plays}
    return _result("dart-anytime", env, T, seed, cp, curve, chosen, stop, T, info)


# ------------------------------------------------------------------------------- CSAR
def csar_designs(K: int) -> _k.CsarDesigns:
    """Every query design CSAR may use with subsets of size ``K`` (leave-one-out for each
    ``k = 1..K`` open slots, Hadamard where ``k`` is a power of two), from
    :func:`design.hadamard.subset_design`, packed for the jitted loop."""
    from design.hadamard import has_hadamard, subset_design

    qmax, bmax = 2 * (2 * K - 1), 2 * K
    queries = np.zeros((2, K + 1, qmax, K), dtype=np.int64)
    coef = np.zeros((2, K + 1, bmax, qmax))
    size = np.zeros((2, K + 1, 2), dtype=np.int64)
    for k in range(1, K + 1):
        for h, kind in ((0, "leave-one-out"), (1, "hadamard")):
            if h == 1 and not has_hadamard(k):
                continue
            d = subset_design(k, kind)
            queries[h, k, :d.n_queries, :k] = d.queries
            coef[h, k, :d.block, :d.n_queries] = d.coef
            size[h, k] = d.block, d.n_queries
    return _k.CsarDesigns(queries, coef, size)


def csar(env: SubsetEnv, T: int, *, seed: int = 0, c: float = 2.0,
         n_points: int = 200) -> SubsetRunResult:
    r"""CSAR: Combinatorial Successive Accept Reject (Rejwan & Mansour 2020), regret form.

    Phase ``s = 1, 2, ...`` targets accuracy :math:`\varepsilon_s = 2^{-s}` on the arm
    values :math:`\phi_i = K\theta_i` of the linear model
    :math:`E r_a = \sum_{i\in a}\theta_i` (for the mean reward :math:`\phi_i = p_i`).
    The undecided arms are shuffled and cut into blocks (wrap-around as in DART); on each
    block the design of :func:`design.hadamard.subset_design` for the :math:`k_s = K -
    |A_s|` open slots is repeated :math:`m_s = \lceil c\,vK^2\ln(2NT)/\varepsilon_s^2\rceil`
    times (``v`` the estimator's variance factor times 1/4, the sub-Gaussian proxy of a
    reward in [0, 1]; ``c = 2``, the shared
    :class:`~bandits.subsets.confidence.ConfidenceRule`: per-arm radius ``eps_s`` at
    failure probability ``1/(NT)``), every query padded with the accepted arms.  That is
    the Hadamard design (block of :math:`2k_s` arms, :math:`2(2k_s - 1)` queries) when
    :math:`k_s` is a power of two and at least :math:`2k_s` arms are undecided, and the
    leave-one-out design otherwise.  The accepted arms and the design shift every estimate
    by the same constant, which the accept/reject rule ignores:

    .. math:: \text{accept } \hat\phi_i \ge \hat\phi_{(k_s+1)} + 2\varepsilon_s, \qquad
              \text{reject } \hat\phi_i \le \hat\phi_{(k_s)} - 2\varepsilon_s.

    Samples are discarded after every phase ("CSAR generates fresh K^2/Delta^2 samples",
    DART Sec. 7).  When the next phase does not fit in the remaining horizon, CSAR commits
    to the accepted arms plus the best undecided ones by the last estimates
    (``stopped_by="lambda"``).
    """
    cp, curve, ipos, acc, es, ps = _prepare(env, T, seed, n_points)
    rule = ConfidenceRule(c).checked()
    st = _k.csar_state(env.N, env.K, rule.c)
    chosen = np.zeros(env.K, dtype=np.int64)
    plays = np.zeros(env.N, dtype=np.int64)
    work = _k.scratch(env.K)
    _k.csar_run(_env_args(env), (cp, curve, ipos, acc), st, env.K, int(T), csar_designs(env.K),
                es, ps, plays, work)
    _commit(env, (cp, curve, ipos, acc), st.ints[_k.C_STEPS], int(T), work,
            lambda: _k.csar_commit(st, env.K, chosen), chosen)
    info = {"phases": int(st.ints[_k.C_PHASE]), "eps": float(st.floats[_k.C_EPS]),
            "estimates": st.est, "status": st.status, "plays": plays}
    return _result("csar", env, T, seed, cp, curve, chosen, _STOP[int(st.ints[_k.C_STOP])],
                   st.ints[_k.C_STEPS], info)


# ------------------------------------------------------------------------------- LinTS
def lints_scale(N: int, scaled: bool, v: float | None, reg: float, R: float
                ) -> tuple[float, float]:
    """LinTS's posterior scale ``v`` (default ``R sqrt(N)`` scaled, ``R`` unscaled) and its
    ridge ``reg``, checked."""
    if v is None:
        v = R * math.sqrt(N) if scaled else R
    v, reg = float(v), float(reg)
    if not (np.isfinite(v) and v >= 0):
        raise ValueError(f"v must be a finite number >= 0; got {v!r}")
    if not (np.isfinite(reg) and reg > 0):
        raise ValueError(f"reg must be positive; got {reg!r}")
    return v, reg


def lints(env: SubsetEnv, T: int, *, seed: int = 0, scaled: bool = True, v: float | None = None,
          reg: float = 1.0, R: float = 0.5, n_points: int = 200) -> SubsetRunResult:
    r"""Linear Thompson sampling (Agrawal & Goyal 2013) with indicator features.

    The chosen subset ``a`` is encoded as :math:`x_a = \sum_{i\in a} e_i \in \{0,1\}^N` and
    the joint reward modelled as :math:`x_a^\top\theta`.  Each step samples
    :math:`\tilde\theta \sim N(B^{-1}f, v^2B^{-1})`, :math:`B = \text{reg}\,I + \sum_s
    x_sx_s^\top`, :math:`f = \sum_s r_sx_s`, and plays the top-K entries of
    :math:`\tilde\theta` (the best subset under a linear model).  O(N^2) per step (rank-one
    Cholesky update and two triangular solves) instead of the paper's O(N^3).

    Parameters
    ----------
    scaled : bool
        ``True`` (LinTS (Scaled)): :math:`v = R\sqrt N`, the dimension factor of
        Agrawal & Goyal's :math:`v = R\sqrt{24 d\ln(1/\delta)/\epsilon}` (the ellipsoid
        "scales with O(N)"; their logarithmic factors are dropped).  ``False`` (LinTS
        (Unscaled)): :math:`v = R`.
    v : float, optional
        Overrides the scale.
    reg : float
        Ridge regulariser (prior precision).
    R : float
        Sub-Gaussian constant of the reward (1/2 for rewards in [0, 1]).
    """
    cp, curve, ipos, acc, es, ps = _prepare(env, T, seed, n_points)
    v, reg = lints_scale(env.N, scaled, v, reg, R)
    theta, chosen = np.zeros(env.N), np.zeros(env.K, dtype=np.int64)
    plays = np.zeros(env.N, dtype=np.int64)
    _k.lints_run(_env_args(env), (cp, curve, ipos, acc), _k.lints_state(env.N),
                 _k.LintsConfig(env.K, int(T), v, reg), es, ps, theta, chosen, plays,
                 _k.scratch(env.K))
    name = "lints" if scaled else "lints-unscaled"
    return _result(name, env, T, seed, cp, curve, chosen, "horizon", T,
                   {"v": v, "theta": theta, "plays": plays})


# ------------------------------------------------------------------------------- UCB
def ucb(env: SubsetEnv, T: int, *, seed: int = 0, max_actions: int = 1_000_000,
        c: float = 2.0, n_points: int = 200) -> SubsetRunResult:
    r"""Improved UCB (Auer & Ortner 2010) treating each of the C(N, K) subsets as an arm.

    Round ``m`` (:math:`\tilde\Delta_m = 2^{-m}`): play every remaining subset until it has
    :math:`n_m = \lceil c\ln(T\tilde\Delta_m^2)/\tilde\Delta_m^2\rceil` samples (``c = 2``,
    Auer & Ortner; the shared :class:`~bandits.subsets.confidence.ConfidenceRule` at radius
    :math:`\tilde\Delta_m/2`); eliminate ``a`` if :math:`\hat\mu_a +
    \sqrt{c\ln(T\tilde\Delta_m^2)/(4n_m)} < \max_{a'}(\hat\mu_{a'} - \sqrt{\cdots})`.
    After the last round (:math:`\tilde\Delta_m < \sqrt{e/T}`) or with one subset left,
    play the empirically best remaining one.  O(C(N, K)) memory: the paper runs it for
    K = 2 only (990 subsets at N = 45; 148,995 at K = 4).

    Raises
    ------
    ValueError
        If C(N, K) exceeds ``max_actions``.
    """
    M = math.comb(env.N, env.K)
    if M > max_actions:
        raise ValueError(f"UCB needs all C(N, K) = {M:,} subsets in memory; more than "
                         f"max_actions = {max_actions:,}")
    cp, curve, ipos, acc, es, ps = _prepare(env, T, seed, n_points)
    actions = np.array(list(combinations(range(env.N), env.K)), dtype=np.int64)
    chosen = np.zeros(env.K, dtype=np.int64)
    plays = np.zeros(env.N, dtype=np.int64)
    st = _k.ucb_state(actions, ConfidenceRule(c).checked().c)
    work = _k.scratch(env.K)
    _k.ucb_run(_env_args(env), (cp, curve, ipos, acc), st, int(T), es, ps, chosen, plays,
               work)
    _commit(env, (cp, curve, ipos, acc), st.ints[_k.U_STEPS], int(T), work, None, chosen)
    steps, left = int(st.ints[_k.U_STEPS]), int(st.ints[_k.U_ALIVE])
    return _result("ucb", env, T, seed, cp, curve, chosen, ucb_stop_reason(steps, left, T),
                   steps, {"rounds": int(st.ints[_k.U_ROUNDS]), "remaining": left,
                           "actions": M, "plays": plays})


def ucb_stop_reason(steps: int, remaining: int, T: int) -> str:
    """``"horizon"`` if the exploration used the horizon, ``"all-decided"`` if one action
    is left, else ``"lambda"`` (the next round's resolution is out of reach)."""
    return "horizon" if steps >= T else ("all-decided" if remaining == 1 else "lambda")


ALGORITHMS = {
    "dart": dart,
    "dart-anytime": dart_anytime,
    "csar": csar,
    "lints": lambda env, T, **kw: lints(env, T, scaled=True, **kw),
    "lints-unscaled": lambda env, T, **kw: lints(env, T, scaled=False, **kw),
    "ucb": ucb,
}


def run_subset(algorithm: str, env: SubsetEnv, T: int, *, seed: int = 0, **options
               ) -> SubsetRunResult:
    """Simulate one run of ``algorithm`` (a key of :data:`ALGORITHMS`) on ``env``."""
    if algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm must be one of {sorted(ALGORITHMS)}; got {algorithm!r}")
    try:
        res = ALGORITHMS[algorithm](env, T, seed=seed, **options)
    except TypeError as exc:  # an option the algorithm does not take
        raise ValueError(f"bad option for {algorithm!r} ({sorted(options)}): {exc}") from exc
    res.algorithm = algorithm
    return res
