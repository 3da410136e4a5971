r"""Static allocations for best-arm identification: G-static, XY-static and XY-oracle.

Soare, Lazaric & Munos (2014), "Best-arm identification in linear bandits", NeurIPS, §3-4
and App. C; Xu, Honda & Sugiyama (2018), "A fully adaptive algorithm for pure exploration
in linear bandits", AISTATS, §7 (XY-oracle / XY-static baselines).

The allocation does not look at the rewards; only the stopping rule does.

Allocations (``method``):

* ``"greedy"`` -- the incremental rule (Soare et al. Eq. 22 for G, Eq. 26 for XY; no
  guarantee is given for it, §4; Xu et al.'s XY-static baseline)
  ``x_t = argmin_x max_{y in Y} y^T (A_{t-1} + x x^T)^{-1} y`` by Sherman–Morrison,
  uniformly random tie-breaking, after one pull of every arm (``init="all"``, as Xu et al.)
  or of a spanning subset (``init="basis"``, Soare et al.'s "pull each canonical arm once");
* ``"rounding"`` (the default) -- the convex relaxation ``lambda = argmin_lambda max_y
  ||y||^2_{A(lambda)^{-1}}`` (:func:`design.g_optimal`, :func:`design.minimax.xy_optimal`,
  :func:`design.minimax.minimax_optimal`) followed by efficient rounding in its incremental
  order (App. C): ``x_t = argmin_{lambda_a > 0} N_a / lambda_a``
  (:func:`rounding.tracking.track_ratio`), whose every prefix is the efficient rounding of
  ``lambda`` (:func:`rounding.incremental_allocation`).

Targets ``Y``: G -- the arms ``x``; XY -- all differences ``z - z'`` of the decision set
``Z`` (``Z = X`` by default; Soare et al. Eq. 14); oracle -- ``(z* - z) / Delta(z)`` with the
true parameter (Eq. 5; weighted minimax ``max_y ||y||^2 / Delta(y)^2``).

Stopping rule (Eq. 11): stop at the first ``n`` such that for ``z^ = argmax_z z^T theta_n``

.. math:: \beta(n)\, \|z^ - z\|_{A_n^{-1}} \le (z^ - z)^\top \hat\theta_n
          \quad \forall z \in Z,

and return ``z^``.  XY-oracle uses the same test with the true ``theta`` (Eq. 4; it is
deterministic) and returns ``argmax_z z^T theta_n``.  The confidence multiplier
(``confidence``):

* ``"soare"`` (default): ``beta(n) = c sqrt(log(6 n^2 K^2 / (pi^2 delta)))`` with
  ``c = 2 sigma sqrt(2)`` -- Soare et al. Prop. 1 with the union bound over the ``K^2``
  directions (footnote 1, ``log_n(K^2/delta)``);
* ``"xu"``: ``K`` instead of ``K^2`` in the logarithm, the constant in Xu et al.'s XY-oracle
  (it reproduces their Table 1 total of 2,742,457 samples at d = 5 to 0.01%);
* a number ``b``: a fixed multiplier ``beta(n) = b`` (no union bound over ``n``; used to
  calibrate against Soare et al.'s Fig. 5, whose constant is not stated).

``K`` is the number of decision targets ``|Z|``.  ``c`` may be overridden.
"""

from __future__ import annotations

import math
import time

import numpy as np

from bandits._core import rng as _rng
from bandits._core.env import ENV_GAUSSIAN, make_environment
from bandits._core.exact import check_resolution, check_unique_best, correct_set, exact_means
from bandits._core.memo import BoundedMemo, array_key
from bandits._core.protocol import ArmQueue, AskTellProtocol
from bandits._core.result import RunResult
from bandits._core.targets import T_INIT
from bandits._core.validate import (  # re-exported: bandits.static.as_matrix etc.
    as_arms_and_targets,
    as_matrix,
    check_arms_span,  # noqa: F401  (public name of bandits.static)
    check_budget,
    check_int,
    check_positive,
    check_probability,
    check_seed,
    check_simulation,
    singular_pulls_error,
)
from bandits.static import _kernels as S
from rounding.tracking import track_ratio

__all__ = ["STATIC_ALGORITHMS", "StaticPolicy", "confidence_constants", "run_static",
           "spanning_arms", "static_design"]

STATIC_ALGORITHMS = ("g-static", "xy-static", "xy-oracle")
#: Budget of a policy without ``max_samples`` (never reached).
NO_BUDGET = 2**62
_METHODS = ("greedy", "rounding")
_INITS = ("all", "basis")


# ----------------------------------------------------------------------------------------
# validation and set-up shared with bandits.phased
# ----------------------------------------------------------------------------------------


def confidence_constants(confidence: str | float, *, sigma: float, delta: float, K: int,
                         c: float | None = None) -> tuple[float, float, bool]:
    r"""``(c, log_const, fixed)`` of the multiplier ``beta(n) = c sqrt(log_const + 2 log n)``.

    ``"soare"``: ``c = 2 sigma sqrt 2``, ``log_const = log(6 K^2 / (pi^2 delta))``;
    ``"xu"``: the same with ``K``; a number ``b``: ``beta(n) = b`` (``fixed=True``).
    """
    delta = check_probability(delta, "delta")
    if isinstance(confidence, str):
        if confidence not in ("soare", "xu"):
            raise ValueError("confidence must be 'soare', 'xu' or a positive number; "
                             f"got {confidence!r}")
        cc = 2.0 * sigma * math.sqrt(2.0) if c is None else check_positive(c, "c")
        power = 2 if confidence == "soare" else 1
        return cc, math.log(6.0 * K**power / (math.pi**2 * delta)), False
    return check_positive(confidence, "confidence"), 0.0, True


def spanning_arms(X: np.ndarray) -> np.ndarray:
    """The first ``d`` arms (in index order) that are linearly independent: Soare et al.'s
    "pull once each canonical arm" initialisation, generalised."""
    K, d = X.shape
    chosen: list[int] = []
    basis = np.zeros((0, d))
    for a in range(K):
        cand = np.vstack([basis, X[a]])
        if np.linalg.matrix_rank(cand, tol=1e-10) > basis.shape[0]:
            basis = cand
            chosen.append(a)
            if len(chosen) == d:
                break
    if len(chosen) < d:
        raise ValueError(f"the rows of X must span R^d (d={d})")
    return np.asarray(chosen, dtype=np.int64)


def pair_targets(Z: np.ndarray, active: np.ndarray | None = None) -> np.ndarray:
    """Differences ``z_i - z_j`` (``i < j``) of the (active) rows of ``Z``, non-zero only."""
    idx = np.arange(Z.shape[0]) if active is None else np.flatnonzero(active)
    i, j = np.triu_indices(idx.shape[0], k=1)
    Y = Z[idx[i]] - Z[idx[j]]
    keep = np.any(Y != 0.0, axis=1)
    return np.ascontiguousarray(Y[keep])


def static_design(kind: str, X: object, Z: object = None, theta: object = None, *,
                  tol: float = 1e-9) -> np.ndarray:
    r"""The relaxed design of a static allocation.

    Parameters
    ----------
    kind : {"g", "xy", "oracle"}
        ``"g"``: ``argmin_lambda max_x x^T A(lambda)^{-1} x`` (Soare et al. Eq. 21;
        Kiefer–Wolfowitz value ``d``); ``"xy"``: ``argmin_lambda max_{z,z'} ||z -
        z'||^2_{A(lambda)^{-1}}`` (Eq. 25; transductive when ``Z`` is given);
        ``"oracle"``: ``argmin_lambda max_{z != z*} ||z* - z||^2_{A(lambda)^{-1}} /
        Delta(z)^2`` (Eq. 6) with the true ``theta``.
    X : array_like, shape (K, d)
        Arms (must span R^d).
    Z : array_like, shape (K_Z, d), optional
        Decision set (default ``X``).
    theta : array_like, shape (d,), optional
        True parameter (oracle only).
    tol : float
        Certified relative gap requested from the solver.

    Returns
    -------
    numpy.ndarray, shape (K,)
    """
    from design import g_optimal
    from design.minimax import minimax_optimal, xy_optimal

    Xa = as_matrix(X, "X")
    Za = Xa if Z is None else as_matrix(Z, "Z", Xa.shape[1])
    if kind == "g":
        return np.asarray(g_optimal(Xa, tol=min(tol, 1e-6)).weights)
    if kind == "xy":
        if Z is None:
            return np.asarray(xy_optimal(Xa, None, tol=max(tol, 1e-9)).weights)
        return np.asarray(xy_optimal(Xa, pair_targets(Za), tol=max(tol, 1e-9)).weights)
    if kind == "oracle":
        Y, gaps = oracle_targets(Za, theta)
        return np.asarray(minimax_optimal(Xa, Y, c=1.0 / gaps**2, tol=max(tol, 1e-10)).weights)
    raise ValueError(f"kind must be 'g', 'xy' or 'oracle'; got {kind!r}")


def oracle_targets(Z: np.ndarray, theta: object) -> tuple[np.ndarray, np.ndarray]:
    """``(z* - z, Delta(z))`` for ``z != z*`` (``z* = argmax z^T theta``, unique)."""
    if theta is None:
        raise ValueError("theta (the true parameter) is needed by the oracle")
    th = np.asarray(theta, dtype=np.float64).ravel()
    if th.shape[0] != Z.shape[1] or not np.all(np.isfinite(th)):
        raise ValueError(f"theta must be a finite vector of length d={Z.shape[1]}")
    mu = Z @ th
    best = int(np.argmax(mu))
    gaps = mu[best] - mu
    others = np.flatnonzero(np.arange(Z.shape[0]) != best)
    if np.any(gaps[others] <= 0):
        raise ValueError("theta: the best decision target is not unique (zero gap); the "
                         "oracle allocation is undefined")
    return np.ascontiguousarray(Z[best] - Z[others]), gaps[others]


# ----------------------------------------------------------------------------------------
# the engine
# ----------------------------------------------------------------------------------------


def _setup(algorithm: str, X: object, Z: object, theta: object, *, method: str, init: str,
           confidence: str | float, c: float | None, sigma: float,
           delta: float) -> S.StaticConfig:
    if algorithm not in STATIC_ALGORITHMS:
        raise ValueError(f"algorithm must be one of {STATIC_ALGORITHMS}; got {algorithm!r}")
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}; got {method!r}")
    if init not in _INITS:
        raise ValueError(f"init must be one of {_INITS}; got {init!r}")
    Xa, Za = as_arms_and_targets(X, Z)
    sigma = check_positive(sigma, "sigma")
    cc, log_const, fixed = confidence_constants(confidence, sigma=sigma, delta=delta,
                                                K=Za.shape[0], c=c)
    K = Xa.shape[0]
    theta_true = np.zeros(Xa.shape[1])
    stop_kind = S.STOP_EMPIRICAL
    if algorithm == "g-static":
        Y, kind = Xa.copy(), "g"
    elif algorithm == "xy-static":
        Y, kind = pair_targets(Za), "xy"
    else:
        Yo, gaps = oracle_targets(Za, theta)
        Y, kind = np.ascontiguousarray(Yo / gaps[:, None]), "oracle"
        theta_true = np.asarray(theta, dtype=np.float64).ravel().copy()
        stop_kind = S.STOP_ORACLE
    if method == "greedy":
        rule = S.RULE_GREEDY
        w = np.zeros(K)
        init_arms = np.arange(K, dtype=np.int64) if init == "all" else spanning_arms(Xa)
    else:
        rule = S.RULE_RATIO
        w, init_arms = _ratio_plan(kind, Xa, None if Z is None else Za,
                                   None if kind != "oracle" else theta_true)
    return S.StaticConfig(Xa, Za, np.ascontiguousarray(Y), rule, w, init_arms, stop_kind,
                          theta_true, cc, log_const, fixed, 1000, NO_BUDGET)


#: The ratio rule's relaxed design and first pulls by (kind, arms, targets, theta): a
#: deterministic function of its key, shared by the runs and replications of a process.
_RATIO_PLANS = BoundedMemo(128)


def _ratio_plan(kind: str, X: np.ndarray, Z: np.ndarray | None,
                theta: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """The ratio rule's design ``w`` (the relaxed design, weights below ``1e-12`` of the
    largest set to zero: numerically absent arms are never pulled, renormalised) and its
    first pulls (one per support arm in the incremental order, heaviest first); memoised
    (copies returned: a run may not alter the memo)."""
    key = (kind, array_key(X), array_key(Z), array_key(theta))
    hit = _RATIO_PLANS.get(key)
    if hit is None:
        w = static_design(kind, X, Z, theta)
        w = np.where(w > 1e-12 * w.max(), w, 0.0)
        w = w / w.sum()
        cnt = np.zeros(X.shape[0], dtype=np.int64)
        order = []
        for _ in range(int(np.count_nonzero(w))):
            a = int(track_ratio.py_func(cnt, w))  # Python: once per plan, nothing to compile
            order.append(a)
            cnt[a] += 1
        hit = (w, np.asarray(order, dtype=np.int64))
        _RATIO_PLANS.remember(key, hit)
    return hit[0].copy(), hit[1].copy()


def _config(st: S.StaticConfig, refresh_every: int, max_samples: int) -> S.StaticConfig:
    """The set-up allocation ``st`` with its refresh period and budget."""
    return st._replace(refresh_every=int(refresh_every), max_samples=int(max_samples))


#: The default allocation of G-static, XY-static and XY-oracle: the route Soare et al.'s
#: guarantees (Lemmas 5-7) are proved for, and the one their Fig. 5 pattern matches
#: (docs/choices.md, "Static allocations: relaxation + rounding by default"); XY-adaptive's
#: phases keep Fig. 3's greedy rule. ``method=None`` means this default.
DEFAULT_METHOD = "rounding"


def _budget(max_samples: object) -> int:
    return check_budget(max_samples)


def _seed(seed: object) -> int:
    return check_seed(seed)


def target_means(instance) -> np.ndarray:
    """Means of the decision targets (``Z theta``, or the table's column means)."""
    return np.asarray(instance.means, dtype=np.float64)


def run_static(algorithm: str, instance, *, delta: float = 0.05, seed: int = 0,
               max_samples: int = 10**7, method: str = DEFAULT_METHOD, init: str = "all",
               confidence: str | float = "soare", c: float | None = None,
               sigma: float | None = None, refresh_every: int = 1000,
               simulation: str = "sufficient") -> RunResult:
    r"""Simulate G-static, XY-static or XY-oracle on an instance (one jitted loop).

    Parameters
    ----------
    algorithm : {"g-static", "xy-static", "xy-oracle"}
    instance : bandits.instances.Instance
        Arms ``X``, decision targets ``Z`` (default ``X``), ``theta`` and noise ``sigma``.
    delta : float
        Confidence in (0, 1).
    seed : int
        Seeds the tie-breaking (stream 0) and the rewards (stream 1).
    max_samples : int
        Budget; reaching it gives ``stopped_by="budget"``.
    method : {"greedy", "rounding"}, optional
        Greedy incremental rule or relaxation + efficient rounding order (module
        docstring).  Default ``"rounding"``: the route Soare et al.'s guarantees (Lemmas
        5-7) are proved for (the greedy rule has none), the one their Fig. 5 pattern
        matches, and for XY-oracle the exact oracle design, as Xu et al. (the greedy oracle
        rule wastes pulls on ``x_{d+1}`` on Soare's instance); ``"greedy"`` is the rule of
        Xu et al.'s XY-static baseline (their code; Table 1's pattern).
    init : {"all", "basis"}
        Greedy only: initial pulls (every arm once, or a spanning subset).
    confidence : {"soare", "xu"} or float
        Confidence multiplier of the stopping rule (module docstring).
    c : float, optional
        Overrides ``c = 2 sigma sqrt 2``.
    sigma : float, optional
        Noise scale assumed by the algorithm (default the instance's).
    refresh_every : int
        Exact recomputation of ``A^{-1}`` and ``theta`` every so many pulls.
    simulation : {"sufficient", "per-sample"}
        ``"per-sample"``: one reward per pull (the trajectory :class:`StaticPolicy`
        replays exactly). ``"sufficient"`` (default), XY-oracle: its allocation and its
        stopping test (true ``theta``) read only the counts, so no reward is drawn during
        the run; each arm's sum is drawn once at the end, ``N(N_a mu_a, N_a sigma^2)`` or a
        reward table's multinomial row counts (:func:`bandits._core.env.pull_sum`), for
        the recommendation (exact in distribution; the
        stopping time and counts are those of the per-sample run with the same seed); with
        the rounding rule, stretches where the test provably fails are skipped
        (:func:`ratio_oracle_jump`). G-static and XY-static stop on the estimate, tested
        after every pull: with Gaussian rewards and distinct decision targets they are
        simulated by certified blocks of Brownian increments (:func:`simulate_blocks`:
        exact in distribution; the ratio rule's counts in closed form, so a run costs
        milliseconds; the greedy rule's arms are generated pull by pull, as the per-sample
        run's, by one inlined loop: 40-190 ns per pull on Soare's instances), otherwise per
        sample (docs/choices.md).

    Returns
    -------
    RunResult
        ``extra`` holds ``method``, ``confidence``, ``beta`` (multiplier at the end),
        ``design`` (the relaxed design for ``method="rounding"``) and ``simulation`` (the
        mode used: ``"sufficient"`` or ``"per-sample"``).
    """
    sig = float(instance.sigma if sigma is None else sigma)
    method = DEFAULT_METHOD if method is None else method
    check_resolution(instance, 1)  # first: its message names the unresolvable arms
    check_unique_best(instance)
    st = _setup(algorithm, instance.X, getattr(instance, "Z", None),
                getattr(instance, "theta", None), method=method, init=init,
                confidence=confidence, c=c, sigma=sig, delta=delta)
    seed = _seed(seed)
    max_samples = _budget(max_samples)
    refresh_every = check_int(refresh_every, "refresh_every", 1)
    per_sample = check_simulation(simulation)
    env = make_environment(instance)
    fast = not per_sample and st.stop_kind == S.STOP_ORACLE
    blocks = (not per_sample and st.stop_kind == S.STOP_EMPIRICAL
              and env.kind == ENV_GAUSSIAN and distinct_rows(st.Z))
    cfg = _config(st, refresh_every, max_samples)
    state = S.target_state(st.X.shape[0], st.X.shape[1], st.Y.shape[0])
    rng_pol, rng_env = _rng.make_state(seed, 0), _rng.make_state(seed, 1)
    block_stats = np.zeros(4, dtype=np.int64)
    t0 = time.perf_counter()
    if blocks:
        status = simulate_blocks(state, cfg, env, rng_pol, rng_env, block_stats)
    else:
        if fast and st.rule == S.RULE_RATIO:
            status = ratio_oracle_start(state, cfg)
        else:
            status = S.simulate_static(state, cfg, env, rng_pol, rng_env, not fast)
    if status == S.RUNNING:  # XY-oracle, fast, ratio rule: the certified jumps
        status = ratio_oracle_jump(state, cfg)
    if fast and status != S.STATUS_SINGULAR:
        draw_sums(state, cfg, env, rng_env)
    wall = time.perf_counter() - t0
    if status == S.STATUS_SINGULAR:
        raise singular_pulls_error(st.X, "instance", "the initial pulls")
    theta, counts = state.theta, state.counts
    rec = np.array([recommend(st.Z, theta, blocks)])
    n = int(state.ints[S.T_PULLS])
    return RunResult(
        algorithm=algorithm, instance=getattr(instance, "name", "instance"), seed=seed,
        samples=n, recommendation=rec, correct=correct_set(exact_means(instance), rec, 1, 0.0),
        counts=counts, stopped_by="rule" if status == S.STATUS_RULE else "budget",
        wall_time=wall,
        extra={"method": method, "confidence": confidence,
               "beta": float(S.beta(n, st.c, st.log_const, st.fixed)),
               "design": st.w.copy() if st.rule == S.RULE_RATIO else None,
               "theta_hat": theta.copy(),
               "simulation": "sufficient" if fast or blocks else "per-sample",
               **({"blocks": dict(zip(("blocks", "nodes", "exact_tests", "bisections"),
                                      block_stats.tolist(), strict=True))}
                  if blocks else {})},
    )


def simulate_blocks(st, cfg: S.StaticConfig, env, rng_pol: np.ndarray, rng_env: np.ndarray,
                    stats: np.ndarray) -> int:
    """G-static / XY-static (the stopping test on the estimate, Soare et al. Eq. 11) with
    Gaussian rewards, with the distribution of :func:`~bandits.static._kernels.simulate_static`'s
    (samples, counts, recommendation, stop reason): the initial pulls one reward each, as
    the per-sample loop, then the exact block simulation (both by
    :func:`bandits._core.blocks.run_blocks`: every target active, no length rule, the
    budget ``max_samples``). Returns a STATUS_* code; ``st`` then holds the counts, sums,
    ``A^{-1}``, ``theta`` and ``vals`` at the end. ``stats`` (int64, 4): blocks, visited
    nodes, exact tests, bisections."""
    alloc = S.BlockAlloc(cfg.X, cfg.Y, None if cfg.rule == S.RULE_GREEDY else cfg.w,
                         int(cfg.refresh_every),
                         S.NO_LENGTH_RULE, 0.0, False, int(cfg.max_samples), cfg.init_arms)
    test = S.BlockTest(cfg.Z, np.ones(cfg.Z.shape[0], dtype=np.bool_), float(cfg.c),
                       float(cfg.log_const), bool(cfg.fixed), 0)
    status = S.run_blocks(st, alloc, test, env, rng_pol, rng_env, stats)
    if status == S.INIT_STOP:
        return int(st.ints[S.T_STATUS])
    st.ints[S.T_STATUS] = status
    return status


def recommend(Z: np.ndarray, theta: np.ndarray, blocks: bool) -> int:
    """``argmax_z z^T theta`` (first index on ties): :func:`~bandits.static._kernels.argmax_all`,
    or after the block simulation the same argmax by ``argmax_active`` with every target
    active, which that simulation compiled (its stopping test) and ``argmax_all`` would
    add to a first call (issue 16); where no value exceeds ``-inf`` it says -1, read as
    ``argmax_all``'s 0."""
    if not blocks:
        return int(S.argmax_all(Z, theta))
    best = int(S.argmax_active(Z, theta, np.ones(Z.shape[0], dtype=np.bool_)))
    return best if best >= 0 else 0


def distinct_rows(Z: np.ndarray) -> bool:
    """True if no two rows of ``Z`` are equal (the block simulation's certificate needs a
    non-zero ``z^ - z`` for every other target; with duplicates the run is per sample)."""
    return np.unique(Z, axis=0).shape[0] == Z.shape[0]


# ----------------------------------------------------------------------------------------
# XY-oracle's fast simulation (issue 18): no reward is drawn before the stopping time
# ----------------------------------------------------------------------------------------


def draw_sums(st, cfg: S.StaticConfig, env, rng_env: np.ndarray) -> None:
    """Each arm's reward sum at once (:func:`bandits._core.env.pull_sum`: ``N(N_a mu_a,
    N_a sigma^2)``, or a reward table's multinomial row counts; from the environment's
    stream), then the exact ``A^{-1}``, ``theta`` and ``vals``."""
    for a in np.flatnonzero(st.counts):
        st.sums[a] = S.pull_sum(env, int(a), int(st.counts[a]), rng_env)
    S.refresh(cfg.X, cfg.Y, st.ints[S.T_M], st.counts, st.sums, st.Ainv, st.vals, st.theta,
              st.g)


def ratio_oracle_start(st, cfg: S.StaticConfig) -> int:
    """XY-oracle with the ratio rule, no reward drawn: what
    :func:`~bandits.static._kernels.simulate_static` with ``draw=False`` does up to the
    first pull after the initial ones, where :func:`ratio_oracle_jump` takes over, in
    Python over the compiled kernels ``refresh``, ``check_stop`` and ``track_ratio`` (a
    first XY-oracle call then compiles no loop and no greedy rule: issue 16). The same
    order as the step kernel: each initial arm after the budget test, the exact refresh
    (singular: STATUS_SINGULAR), the oracle's test, the budget, one pull of
    ``argmin N_a / w_a``; returns RUNNING then, or the STATUS_* code that ended the run
    first. (``theta`` stays 0: no reward has been drawn.)"""
    ints, counts = st.ints, st.counts
    n_init = cfg.init_arms.shape[0]
    first = min(n_init, int(cfg.max_samples))
    np.add.at(counts, cfg.init_arms[:first], 1)
    ints[S.T_PULLS] = first
    ints[T_INIT] = first
    if first < n_init:
        ints[S.T_STATUS] = S.STATUS_BUDGET
        return S.STATUS_BUDGET
    ints[T_INIT] = -1
    if not S.refresh(cfg.X, cfg.Y, ints[S.T_M], counts, st.sums, st.Ainv, st.vals, st.theta,
                     st.g):
        ints[S.T_STATUS] = S.STATUS_SINGULAR
        return S.STATUS_SINGULAR
    t = first
    if S.check_stop(cfg.Z, st.Ainv, cfg.theta_true,
                    S.beta(t, cfg.c, cfg.log_const, cfg.fixed)) >= 0:
        ints[S.T_STATUS] = S.STATUS_RULE
        return S.STATUS_RULE
    if t >= cfg.max_samples:
        ints[S.T_STATUS] = S.STATUS_BUDGET
        return S.STATUS_BUDGET
    counts[int(S.track_ratio(counts, cfg.w))] += 1
    ints[S.T_PULLS] = t + 1
    return S.RUNNING


def ratio_oracle_jump(st, cfg: S.StaticConfig) -> int:
    r"""XY-oracle with the ratio rule after its first pulls, without drawing rewards: the
    first ``t`` at which the oracle's test (Soare et al. Eq. 4/11 with the true ``theta``)
    holds, or the budget, as the per-sample loop finds it, by jumps over certified
    stretches.

    The test at ``t`` fails when some ``z`` has ``beta(t) ||z* - z||_{A_t^{-1}} >
    Delta(z)``. ``beta`` is non-decreasing in ``t`` and ``A_t`` grows (PSD order) with the
    counts, so if ``beta(t) ||z* - z||_{A_{t+L}^{-1}} > Delta(z)`` for one ``z`` the test
    fails at every step of ``[t, t + L]``, which is skipped (``L`` doubles while this holds
    and halves when it does not; at ``L = 1`` the test is evaluated at the next step as
    the per-sample loop evaluates it). The counts at any ``t`` come from
    :func:`bandits.static._kernels.ratio_counts_at`, ``A_t^{-1}`` from an exact
    recomputation (compiled kernels ``refresh`` and ``check_stop``; the loop runs
    ``O(log t)`` times plus the steps next to the stopping time). Returns the STATUS_*
    code; ``st`` holds the final counts."""
    X, Y, Z, w, th = cfg.X, cfg.Y, cfg.Z, cfg.w, cfg.theta_true
    ints, sums = st.ints, st.sums
    M = int(ints[S.T_M])
    best = int(S.argmax_all(Z, th))
    D = np.delete(Z[best] - Z, best, axis=0)  # z* - z for z != z*
    gaps = D @ th
    cnt2 = np.empty_like(st.counts)
    Ainv2, vals2, theta2 = np.empty_like(st.Ainv), np.empty_like(st.vals), np.empty_like(st.theta)
    t = int(ints[S.T_PULLS])
    L = 1
    while True:
        S.refresh(X, Y, M, st.counts, sums, st.Ainv, st.vals, st.theta, st.g)
        b = S.beta(t, cfg.c, cfg.log_const, cfg.fixed)
        if S.check_stop(Z, st.Ainv, th, b) >= 0:
            status = S.STATUS_RULE
            break
        if t >= cfg.max_samples:
            status = S.STATUS_BUDGET
            break
        while True:
            L = min(L, cfg.max_samples - t)
            S.ratio_counts_at(w, t + L, cnt2)
            S.refresh(X, Y, M, cnt2, sums, Ainv2, vals2, theta2, st.g)
            width2 = np.maximum(((D @ Ainv2) * D).sum(axis=1), 0.0)
            certified = bool(np.any(b * np.sqrt(width2) > gaps))
            if certified or L == 1:
                break
            L //= 2
        if certified:  # no stop in (t, t + L]: go to t + L, where the test is evaluated
            t += L
            L *= 2
        else:  # evaluate the test at the next step
            t += 1
            L = 1
        S.ratio_counts_at(w, t, st.counts)
    ints[S.T_PULLS] = t
    ints[S.T_STATUS] = status
    return status


class StaticPolicy(AskTellProtocol):
    """Ask/tell front-end of G-static / XY-static / XY-oracle over the same jitted kernels.

    >>> pol = StaticPolicy("xy-static", X, sigma=1.0, seed=0)    # doctest: +SKIP
    >>> while not pol.done:                                       # doctest: +SKIP
    ...     arm = pol.ask()
    ...     pol.tell(arm, measure(arm))

    For the same seed and the same rewards (e.g. :func:`bandits.gifa.simulated_rewards`)
    the decisions equal those of :func:`run_static`.

    Parameters
    ----------
    algorithm, method, init, confidence, c, delta, refresh_every
        As in :func:`run_static`.
    X : array_like, shape (K, d)
        Arms.
    Z : array_like, optional
        Decision targets (default ``X``).
    theta : array_like, optional
        True parameter (``"xy-oracle"`` only: the oracle's design and stopping use it).
    sigma : float
        Noise scale assumed by the confidence bound.
    seed : int
        Seeds the tie-breaking stream (stream 0).
    max_samples : int, optional
        Budget; ends the run with ``stopped_by="budget"``.
    """

    #: Defaults of earlier versions that a saved state did not record: a state without
    #: ``method`` was saved when the greedy rule was the default (the replay's hint,
    #: :mod:`bandits._core.state`).
    former_defaults = {"method": "greedy"}

    def __init__(self, algorithm: str, X: object, *, Z: object = None, theta: object = None,
                 delta: float = 0.05, sigma: float = 1.0, seed: int = 0,
                 max_samples: int | None = None, method: str = DEFAULT_METHOD, init: str = "all",
                 confidence: str | float = "soare", c: float | None = None,
                 refresh_every: int = 1000) -> None:
        self.algorithm = algorithm
        method = DEFAULT_METHOD if method is None else method
        #: the allocation rule, recorded by a saved state (bandits.registry.policy)
        self.resolved_options = {"method": method}
        self._st = _setup(algorithm, X, Z, theta, method=method, init=init,
                          confidence=confidence, c=c, sigma=sigma, delta=delta)
        self._noise_sd = float(sigma)  # validated by _setup; see model_check
        self._rng = _rng.make_state(_seed(seed), 0)
        budget = NO_BUDGET if max_samples is None else _budget(max_samples)
        self._cfg = _config(self._st, check_int(refresh_every, "refresh_every", 1), budget)
        K, d = self._st.X.shape
        self._state = S.target_state(K, d, self._st.Y.shape[0])
        self._queue = ArmQueue()
        self._advance()

    @property
    def theta_hat(self) -> np.ndarray:
        """Current least-squares estimate (zeros during the initialisation)."""
        return self._state.theta.copy()

    @property
    def samples(self) -> int:
        """Rewards told so far."""
        return int(self._state.ints[S.T_PULLS])

    @property
    def counts(self) -> np.ndarray:
        """Pulls per arm so far."""
        return self._state.counts.copy()

    def _advance(self) -> None:
        """The step kernel's decision (the call the simulation loop makes).

        The initial pulls are a fixed list: they are all decided at once (the kernel's
        ``initial_step`` draws no randomness), so that a batch can take them together;
        the next decision waits until every one of them is told."""
        a = S.static_decide(self._state, self._cfg, self._rng)
        if a >= 0:
            arms = [a]
            ints = self._state.ints
            while 0 <= ints[T_INIT] < self._cfg.init_arms.shape[0]:
                arms.append(int(S.static_decide(self._state, self._cfg, self._rng)))
            self._queue = ArmQueue(arms)
            return
        status = self._state.ints[S.T_STATUS]
        if status == S.STATUS_SINGULAR:
            raise singular_pulls_error(self._st.X, "X", "the initial pulls")
        self.done = True
        self.stopped_by = "rule" if status == S.STATUS_RULE else "budget"
        self.recommendation = np.array([int(S.argmax_all(self._st.Z, self._state.theta))])
        self._queue = ArmQueue()

    def _observe(self, arm: int, r: float) -> None:
        """The step kernel's update with the told reward ``r`` of ``arm``, then the next
        decision."""
        S.observe_target(self._state, self._cfg.X, self._cfg.Y, int(arm), r,
                         self._cfg.refresh_every)
        if self._state.ints[T_INIT] >= 0:  # initial pulls: wait for all of them
            if self.samples >= self._cfg.max_samples:
                self._stop_in_init()
            elif not self._queue and not self._outstanding_real:
                self._advance()
            return
        self._advance()

    def _stop_in_init(self) -> None:
        """The budget ran out during the initial pulls (what ``static_decide`` reports)."""
        self.done = True
        self.stopped_by = "budget"
        self.recommendation = np.array([int(S.argmax_all(self._st.Z, self._state.theta))])
        self._queue = ArmQueue()

    @property
    def features(self) -> np.ndarray:
        return self._cfg.X

    def _predict(self, arm: int) -> float:
        """``x_a^T theta_hat`` (zero during the initial pulls)."""
        return float(self._cfg.X[arm] @ self._state.theta)


#: Allocation methods and initialisations (public: the registry's option schema reads them).
METHODS, INITS = _METHODS, _INITS
