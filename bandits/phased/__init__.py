r"""Phased elimination: XY-adaptive (Soare et al. 2014) and RAGE (Fiez et al. 2019).

Both algorithms run in phases; each phase is a *static* design chosen from the previous
phases' outcome, and its estimate uses **only the phase's own samples**, so the
non-adaptive confidence bound (Soare et al. Prop. 1) applies.  Within a phase the pulls are
simulated in jitted code (:mod:`bandits.static._kernels`) that keeps only counts and reward
sums per arm; the Python level runs once per phase (design, elimination).

XY-adaptive (Soare, Lazaric & Munos 2014, §5, Fig. 3)
-----------------------------------------------------
Phase ``j`` (active set ``X_j``, directions ``Y_j = {z - z' : z, z' in X_j}``):

1. fresh statistics; ``phase_init`` pulls (``"basis"``: the first ``d`` independent arms --
   "each phase begins with an initialisation matrix A_0, obtained by pulling once each
   canonical arm", §6 -- or ``"all"``), counted in the budget and used by the estimate;
2. greedy rule ``x_t = argmin_x max_{y in Y_j} y^T (A + x x^T)^{-1} y`` (Eq. 17) until
   the phase-length rule (Eq. 18) ``max_{y in Y_j} y^T A_t^{-1} y <= alpha u_{j-1}`` holds
   and at least ``min_phase_length`` pulls were made, where ``u_{j-1}`` is the previous
   phase's final value and ``u_0 = rho^0 / n_0 = 1 / (d(d+1)+1)`` (Fig. 3: ``rho^0 = 1``,
   ``n_0 = d(d+1)+1``);
3. ``theta_j`` from the phase's samples; discard ``z`` if some active ``z'`` dominates it
   (Eq. 16): ``beta(n) ||z' - z||_{A^{-1}} < (z' - z)^T theta_j``; stop when one is left.

Choices where the printed algorithm is inconsistent (spec 001 §3.6), all parameters:

* discard test: Eq. 16 (factor ``c``, strict ``<``), not Fig. 3's missing ``c``;
* directions: ``Y_j`` (Eq. 17), not Fig. 3's ``Y``;
* normalisation: ``normalization="eq18"`` (default, ``rho^j(lambda_t)/t = max_y y^T
  A_t^{-1} y``) or ``"fig3"`` (the figure's ``max_y y^T A_t^{-1} y / t``);
* ``rho0`` (default 1) and ``n0`` (default ``d(d+1)+1``); ``min_phase_length`` (default
  ``d(d+1)+1``, the "forced" length of the proof of Lemma 8);
* ``monotone=True`` (default): only active arms are tested and discarded arms never return
  (Eq. 16 and the proof of Thm. 3); ``False``: Fig. 3 literally (``X_{j+1}`` restarts from
  ``X`` each phase), the reading under which Xu et al. (2018) found XY-adaptive worse than
  XY-static;
* ``stop_in_phase=True`` (default): the empirical stopping rule (Eq. 11, §3.1 "used by G,
  XY and inside XY-adaptive"), restricted to the active targets, is checked after every
  pull of a phase with the phase's own estimate (valid: Prop. 1 holds for all ``n`` at
  once for the phase's static allocation); ``False``: stop only at the end of a phase when
  one target is left (Fig. 3 literally).  Without it the last phase overshoots by up to a
  factor ``1/alpha`` (the phase lengths form a geometric grid);
* ``log_n``: the ``n`` in ``log_n(K^2/delta)`` is the total number of samples at the end of
  the phase (``"global"``, default: distinct phases end at distinct ``n``, so the union
  bound ``sum_n 6 delta / (pi^2 n^2) <= delta`` covers all phases) or the phase length
  (``"phase"``).

RAGE (Fiez, Jain, Jamieson & Ratliff 2019, Algorithm 1)
-------------------------------------------------------
Transductive: measure on ``X``, decide on ``Z`` (``Z = X`` by default).  Phase
``k = 1, 2, ...`` with active set ``Z_k``:

* ``delta_k = delta / k^2``;
* ``lambda_k = argmin_lambda max_{y in Y(Z_k)} ||y||^2_{A(lambda)^{-1}}`` and
  ``rho_k`` its value;
* ``N_k = max(ceil(c (2^{k+1})^2 rho_k (1 + eps) log(|Z|^2 / delta_k)), r(eps))``
  (times ``sigma^2`` for sigma-sub-Gaussian noise, the paper has ``sigma = 1``), pulls
  ``ROUND(lambda_k, N_k)`` with the ``(1 + eps)`` guarantee
  (:func:`rounding.round_with_guarantee`: Carathéodory + efficient rounding,
  ``r(eps) = ceil((p-1)(1+eps)/eps)``);
* ``theta_k`` from the phase's samples; ``Z_{k+1} = Z_k \ {z : exists z' in Z_k,
  (z' - z)^T theta_k >= 2^{-(k+2)}}``; stop when ``|Z_k| = 1``.

**The constant ``c`` (option ``n_constant``, default 8).**  The reading of Algorithm 1 we
had is ``c = 2``; we could not check it against the paper's text.  With ``N_k`` samples
on the rounded design, ``||z - z'||^2_{A_k^{-1}} <= (1 + eps) rho_k / N_k``, so the
sub-Gaussian bound ``|<z - z', theta_k - theta>| <= ||z - z'||_{A_k^{-1}}
sqrt(2 log(|Z|^2 / delta_k))`` gives the radius ``sqrt(2 / c) 2^{-(k+1)}``.  The
elimination at ``2^{-(k+2)}`` is safe when that radius is at most ``2^{-(k+2)}``, i.e.
``c >= 8`` (``N_k = 2 (2^{k+2})^2 rho_k (1+eps) log(...)``).  Measured with 1,000 runs at
``delta = 0.01`` on four orthogonal arms with means 0.5 / 0.47 / 0.47 / 0.47: ``c = 2``
errs in 1.8% of runs (above delta), ``c = 8`` in 0%.  ``n_constant=2`` keeps the other
reading (about 4x fewer samples, not delta-PAC).

``variant="code"`` reproduces the authors' reference implementation
(``fiezt/Transductive-Linear-Bandit-Code``, ``RAGE.py``): ``N_k = max(ceil(2 (2^k)^2 rho_k
(1 + eps) log(2 |Z|^2 / delta_k)), 2 p / eps)``, plain efficient rounding, and elimination
by the confidence test ``sqrt(2 ||y||^2_{A_k^{-1}} log(2 |X|^2 / delta_k)) <= y^T
theta_k`` with the phase's design matrix ``A_k``.  The speed benchmark compares with it.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from bandits._core import rng as _rng
from bandits._core.env import ENV_GAUSSIAN, make_environment
from bandits._core.exact import check_resolution, check_unique_best, correct_set, exact_means
from bandits._core.memo import BoundedMemo
from bandits._core.protocol import ArmQueue, AskTellProtocol
from bandits._core.result import RunResult
from bandits._core.targets import T_INIT
from bandits._core.validate import (
    as_arms_and_targets,
    check_budget,
    check_int,
    check_positive,
    check_probability,
    check_seed,
    check_simulation,
    singular_pulls_error,
)
from bandits.phased import _kernels as S
from bandits.static import confidence_constants, distinct_rows, pair_targets, spanning_arms

__all__ = ["PHASED_ALGORITHMS", "AdaptivePolicy", "RagePolicy", "rage_design",
           "run_rage", "run_xy_adaptive"]

PHASED_ALGORITHMS = ("xy-adaptive", "rage")
MAX_PHASES = 200


# ----------------------------------------------------------------------------------------
# XY-adaptive
# ----------------------------------------------------------------------------------------


class _AdaptiveEngine:
    """Phase bookkeeping of XY-adaptive shared by the simulation and the ask/tell policy."""

    def __init__(self, X: object, Z: object, *, delta: float, sigma: float, alpha: float,
                 confidence: str | float, c: float | None, phase_init: str,
                 normalization: str, monotone: bool, log_n: str, rho0: float,
                 n0: int | None, min_phase_length: int | None,
                 stop_in_phase: bool = True) -> None:
        self.X, self.Z = as_arms_and_targets(X, Z)
        K, d = self.X.shape
        if not (isinstance(alpha, (int, float)) and not isinstance(alpha, bool)
                and 0.0 < float(alpha) < 1.0):
            raise ValueError(f"alpha must be in (0, 1); got {alpha!r}")
        if phase_init not in ("basis", "all"):
            raise ValueError(f"phase_init must be 'basis' or 'all'; got {phase_init!r}")
        if normalization not in ("eq18", "fig3"):
            raise ValueError(f"normalization must be 'eq18' or 'fig3'; got {normalization!r}")
        if log_n not in ("global", "phase"):
            raise ValueError(f"log_n must be 'global' or 'phase'; got {log_n!r}")
        self.c, self.log_const, self.fixed = confidence_constants(
            confidence, sigma=check_positive(sigma, "sigma"), delta=delta, K=self.Z.shape[0],
            c=c)
        self.alpha = float(alpha)
        self.stop_in = bool(stop_in_phase)
        self.fig3 = normalization == "fig3"
        self.monotone = bool(monotone)
        self.log_n = log_n
        n0 = d * (d + 1) + 1 if n0 is None else check_int(n0, "n0", 1)
        self.min_len = (d * (d + 1) + 1 if min_phase_length is None
                        else check_int(min_phase_length, "min_phase_length", 1))
        self.init_arms = (spanning_arms(self.X) if phase_init == "basis"
                          else np.arange(K, dtype=np.int64))
        self.target = self.alpha * check_positive(rho0, "rho0") / n0
        self.active = np.ones(self.Z.shape[0], dtype=np.bool_)
        self.theta_rec = np.zeros(d)
        self.phases: list[dict] = []
        self.Y = pair_targets(self.Z)

    def start_phase(self) -> tuple[np.ndarray, int]:
        """Targets ``Y_j`` (the active pairs) for the next phase."""
        self.Y = pair_targets(self.Z, self.active)
        return self.Y, self.Y.shape[0]

    def end_phase(self, n_phase: int, t_total: int, u: float, Ainv: np.ndarray,
                  theta: np.ndarray) -> bool:
        """Discard dominated targets (Eq. 16); returns True when one target is left."""
        n_log = t_total if self.log_n == "global" else n_phase
        b = S.beta(n_log, self.c, self.log_const, self.fixed)
        KZ = self.Z.shape[0]
        keep = np.zeros(KZ, dtype=np.bool_)
        if self.monotone:
            S.confidence_discard(self.Z, self.active, self.active, Ainv, theta, b, keep)
        else:
            everyone = np.ones(KZ, dtype=np.bool_)
            S.confidence_discard(self.Z, everyone, everyone, Ainv, theta, b, keep)
        self.phases.append({"pulls": int(n_phase), "active_before": int(self.active.sum()),
                            "active_after": int(keep.sum()), "uncertainty": float(u),
                            "target": float(self.target), "beta": float(b)})
        self.active = keep
        self.theta_rec = theta.copy()
        self.target = self.alpha * (u / n_phase if self.fig3 else u)
        return int(keep.sum()) == 1

    def stop_in_phase(self, n_phase: int, u: float, best: int, theta: np.ndarray) -> None:
        """The in-phase stopping rule fired: ``best`` dominates every other active target."""
        keep = np.zeros(self.Z.shape[0], dtype=np.bool_)
        keep[best] = True
        self.phases.append({"pulls": int(n_phase), "active_before": int(self.active.sum()),
                            "active_after": 1, "uncertainty": float(u),
                            "target": float(self.target), "beta": float("nan"),
                            "stopped_in_phase": True})
        self.active = keep
        self.theta_rec = theta.copy()

    def recommendation(self) -> int:
        a = int(S.argmax_active(self.Z, self.theta_rec, self.active))
        return a if a >= 0 else 0


#: Options of XY-adaptive with their defaults (the registry's schema reads this).
XY_ADAPTIVE_DEFAULTS: dict[str, object] = {
    "alpha": 0.1, "confidence": "soare", "c": None, "phase_init": "basis",
    "normalization": "eq18", "monotone": True, "log_n": "global", "rho0": 1.0, "n0": None,
    "min_phase_length": None, "stop_in_phase": True, "refresh_every": 1000}


def _adaptive_engine(X, Z, delta, sigma, options) -> _AdaptiveEngine:
    unknown = set(options) - set(XY_ADAPTIVE_DEFAULTS)
    if unknown:
        raise ValueError(f"unknown option(s) {sorted(unknown)} for xy-adaptive; valid: "
                         f"{sorted(XY_ADAPTIVE_DEFAULTS)}")
    opts = {**XY_ADAPTIVE_DEFAULTS, **options}
    opts.pop("refresh_every")
    return _AdaptiveEngine(X, Z, delta=check_probability(delta, "delta"), sigma=sigma,
                           **opts)  # type: ignore[arg-type]


#: Budget of a policy without ``max_samples`` (never reached).
NO_BUDGET = 2**62


def _phase_config(eng: _AdaptiveEngine, Ybuf: np.ndarray, refresh_every: int,
                  max_samples: int) -> S.AdaptiveConfig:
    """Start the engine's next phase (its active pairs into ``Ybuf``) and return the
    step kernel's configuration for it."""
    Y, M = eng.start_phase()
    Ybuf[:M] = Y
    return S.AdaptiveConfig(eng.X, Ybuf, eng.Z, eng.init_arms, float(eng.target),
                            int(eng.min_len), eng.fig3, eng.stop_in, eng.c, eng.log_const,
                            eng.fixed, eng.log_n == "global", int(refresh_every),
                            int(max_samples))


def _phased_result(algorithm: str, instance, seed: int, t: int, counts: np.ndarray,
                   stopped: str, t0: float, eng, **extra: object) -> RunResult:
    """The RunResult of a phased simulation: the engine's recommendation and phases."""
    wall = time.perf_counter() - t0
    rec = np.array([eng.recommendation()])
    return RunResult(
        algorithm=algorithm, instance=getattr(instance, "name", "instance"), seed=seed,
        samples=t, recommendation=rec, correct=correct_set(exact_means(instance), rec, 1, 0.0),
        counts=counts, stopped_by=stopped, wall_time=wall,
        extra={"phases": eng.phases, "n_phases": len(eng.phases),
               "active": np.flatnonzero(eng.active), **extra},
    )


def phase_max(st) -> float:
    """``max_j y_j^T A^{-1} y_j`` over the phase's targets at the end of a phase (the
    phase-length rule's value, :func:`bandits._core.targets.max_val`'s): numpy's exact
    maximum, no kernel to compile for a Python call."""
    M = int(st.ints[S.T_M])
    return float(np.max(st.vals[:M])) if M > 0 else -np.inf


def adaptive_blocks(st, cfg: S.AdaptiveConfig, env, active: np.ndarray, t0: int,
                    rng_pol: np.ndarray, rng_env: np.ndarray, stats: np.ndarray) -> int:
    """One phase of XY-adaptive with the in-phase stopping rule and Gaussian rewards, with
    the distribution of :func:`~bandits.phased._kernels.adaptive_phase`'s (pulls, counts,
    estimate, PHASE_* code): the initial pulls one reward each, as there, then the exact
    block simulation (both by :func:`bandits._core.blocks.run_blocks`: the greedy rule on
    the phase's targets, the length rule, the test on the active targets with ``beta(t0 +
    t)`` when ``log_global``, the budget ``max_samples - t0``). At the end of a phase
    without a stop, ``A^{-1}`` and ``vals`` are the per-sample run's (generated by the same
    rank-one updates) and ``theta`` is exact. ``stats`` (int64, 4): blocks, nodes, exact
    tests, bisections (added to)."""
    alloc = S.BlockAlloc(cfg.X, cfg.Y, None, int(cfg.refresh_every),
                         int(cfg.min_len), float(cfg.target), bool(cfg.fig3),
                         int(cfg.max_samples - t0), cfg.init_arms)
    test = S.BlockTest(cfg.Z, active, float(cfg.c), float(cfg.log_const), bool(cfg.fixed),
                       int(t0) if cfg.log_global else 0)
    status = S.run_blocks(st, alloc, test, env, rng_pol, rng_env, stats)
    if status == S.INIT_STOP:
        singular = st.ints[S.T_STATUS] == S.STATUS_SINGULAR
        st.ints[S.T_STATUS] = S.PHASE_SINGULAR if singular else S.PHASE_BUDGET
        return int(st.ints[S.T_STATUS])
    st.ints[S.T_STATUS] = {S.STATUS_RULE: S.PHASE_STOP, S.BLOCKS_END: S.PHASE_END}.get(
        int(status), S.PHASE_BUDGET)
    return int(st.ints[S.T_STATUS])


def run_xy_adaptive(instance, *, delta: float = 0.05, seed: int = 0,
                    max_samples: int = 10**7, sigma: float | None = None,
                    simulation: str = "sufficient", **options: object) -> RunResult:
    r"""Simulate XY-adaptive (Soare et al. 2014, Fig. 3) on an instance.

    Parameters
    ----------
    instance : bandits.instances.Instance
    delta : float
        Confidence in (0, 1).
    seed : int
        Tie-breaking stream 0, rewards stream 1.
    max_samples : int
        Budget (``stopped_by="budget"`` when reached).
    sigma : float, optional
        Noise scale of the confidence bound (default the instance's).
    **options
        ``alpha`` (0.1), ``confidence`` ("soare" | "xu" | number), ``c``, ``phase_init``
        ("basis" | "all"), ``normalization`` ("eq18" | "fig3"), ``monotone`` (True),
        ``log_n`` ("global" | "phase"), ``rho0`` (1), ``n0`` (d(d+1)+1),
        ``min_phase_length`` (d(d+1)+1), ``stop_in_phase`` (True), ``refresh_every``
        (1000).  See the module
        docstring.
    simulation : {"sufficient", "per-sample"}
        ``"per-sample"``: one reward per pull (the trajectory :class:`AdaptivePolicy`
        replays exactly). ``"sufficient"`` (default): with the in-phase stopping rule,
        Gaussian rewards and distinct decision targets, each phase is simulated by
        certified blocks of Brownian increments (:func:`bandits._core.blocks.run_blocks`:
        exact in distribution; the arms, the phase lengths and ``max_y y^T A^{-1} y`` are
        the per-sample run's, the in-phase stopping time is drawn from its law);
        otherwise per sample.

    Returns
    -------
    RunResult
        ``extra["phases"]``: per phase its pulls, active set sizes, final uncertainty
        ``max_y y^T A^{-1} y``, target and multiplier; ``extra["simulation"]``: the mode
        used; ``extra["blocks"]`` (block simulation): blocks, visited nodes, exact tests
        and bisections over all phases.
    """
    sig = float(instance.sigma if sigma is None else sigma)
    refresh_every = check_int(options.pop("refresh_every", 1000), "refresh_every", 1)
    check_resolution(instance, 1)  # first: its message names the unresolvable arms
    check_unique_best(instance)
    eng = _adaptive_engine(instance.X, getattr(instance, "Z", None), delta, sig, options)
    seed, max_samples = check_seed(seed), check_budget(max_samples)
    per_sample = check_simulation(simulation)
    env = make_environment(instance)
    blocks = (not per_sample and eng.stop_in and env.kind == ENV_GAUSSIAN
              and distinct_rows(eng.Z))
    block_stats = np.zeros(4, dtype=np.int64)
    X = eng.X
    K, d = X.shape
    M_max = eng.Y.shape[0]
    Ybuf = np.zeros((max(M_max, 1), d))
    st = S.target_state(K, d, M_max)
    counts = np.zeros(K, dtype=np.int64)
    rng_pol, rng_env = _rng.make_state(seed, 0), _rng.make_state(seed, 1)
    t = 0
    stopped = "budget"
    t0 = time.perf_counter()
    for _ in range(MAX_PHASES):
        cfg = _phase_config(eng, Ybuf, refresh_every, max_samples)
        S.reset_target(st, eng.Y.shape[0])
        if blocks:
            status = adaptive_blocks(st, cfg, env, eng.active, t, rng_pol, rng_env,
                                     block_stats)
        else:
            status = S.adaptive_phase(st, cfg, env, eng.active, t, rng_pol, rng_env)
        n = int(st.ints[S.T_PULLS])
        t += n
        counts += st.counts
        if status == S.PHASE_SINGULAR:
            raise singular_pulls_error(eng.X, "phase_init", "the initial pulls of a phase")
        if status == S.PHASE_BUDGET:
            break
        u = phase_max(st)
        if status == S.PHASE_STOP:
            eng.stop_in_phase(n, u, int(st.ints[S.T_BEST]), st.theta)
            stopped = "rule"
            break
        if eng.end_phase(n, t, u, st.Ainv, st.theta):
            stopped = "rule"
            break
    return _phased_result(
        "xy-adaptive", instance, seed, t, counts, stopped, t0, eng,
        simulation="sufficient" if blocks else "per-sample",
        **({"blocks": dict(zip(("blocks", "nodes", "exact_tests", "bisections"),
                               block_stats.tolist(), strict=True))} if blocks else {}))


class _PhasePolicy(AskTellProtocol):
    """What the XY-adaptive and RAGE ask/tell policies share: the phase log of their engine
    and how a run ends (the engine's current recommendation)."""

    _eng: Any

    @property
    def phases(self) -> list[dict]:
        """One record per phase so far."""
        return list(self._eng.phases)

    @property
    def features(self) -> np.ndarray:
        return self._eng.X

    def _finish(self, how: str) -> None:
        self.done = True
        self.stopped_by = how
        self.recommendation = np.array([self._eng.recommendation()])


class AdaptivePolicy(_PhasePolicy):
    """Ask/tell XY-adaptive over the same kernels as :func:`run_xy_adaptive`.

    Parameters: ``X``, ``Z``, ``delta``, ``sigma``, ``seed``, ``max_samples`` and the options
    of :func:`run_xy_adaptive`.  Attributes ``done``, ``recommendation``, ``stopped_by``,
    ``samples``, ``counts``, ``phases``.
    """

    def __init__(self, X: object, *, Z: object = None, delta: float = 0.05,
                 sigma: float = 1.0, seed: int = 0, max_samples: int | None = None,
                 **options: object) -> None:
        self._refresh_every = check_int(options.pop("refresh_every", 1000), "refresh_every",
                                        1)
        self._eng = _adaptive_engine(X, Z, delta, sigma, options)
        self._noise_sd = float(sigma)  # validated by the engine; see model_check
        self._rng = _rng.make_state(check_seed(seed), 0)
        self._max = NO_BUDGET if max_samples is None else check_budget(max_samples)
        K, d = self._eng.X.shape
        self._counts = np.zeros(K, dtype=np.int64)
        self._Ybuf = np.zeros((max(self._eng.Y.shape[0], 1), d))
        self._st = S.target_state(K, d, self._eng.Y.shape[0])
        self._t0 = 0  # pulls before the current phase
        self._t = 0  # rewards told
        self._start()

    def _start(self) -> None:
        self._cfg = _phase_config(self._eng, self._Ybuf, self._refresh_every, self._max)
        S.reset_target(self._st, self._eng.Y.shape[0])
        self._advance()

    def _advance(self) -> None:
        """The step kernel's decision (the call the simulation's phase loop makes)."""
        st, eng = self._st, self._eng
        a = S.adaptive_decide(st, self._cfg, eng.active, self._t0, self._rng)
        if a >= 0:
            arms = [a]  # a phase's initial pulls are a fixed list: decide them at once
            while 0 <= st.ints[T_INIT] < self._cfg.init_arms.shape[0]:
                arms.append(int(S.adaptive_decide(st, self._cfg, eng.active, self._t0,
                                                  self._rng)))
            self._queue = ArmQueue(arms)
            return
        status = st.ints[S.T_STATUS]
        n = int(st.ints[S.T_PULLS])
        if status == S.PHASE_SINGULAR:
            raise singular_pulls_error(eng.X, "phase_init", "the initial pulls")
        if status == S.PHASE_BUDGET:
            self._finish("budget")
            return
        u = phase_max(st)
        if status == S.PHASE_STOP:
            eng.stop_in_phase(n, u, int(st.ints[S.T_BEST]), st.theta)
            self._finish("rule")
            return
        self._t0 += n
        if eng.end_phase(n, self._t0, u, st.Ainv, st.theta):
            self._finish("rule")
            return
        self._start()

    def _observe(self, arm: int, r: float) -> None:
        """The step kernel's update with the told reward ``r`` of ``arm``, then the next
        decision."""
        a = int(arm)
        self._counts[a] += 1
        self._t += 1
        S.observe_target(self._st, self._cfg.X, self._cfg.Y, a, r, self._refresh_every)
        if self._st.ints[T_INIT] >= 0:  # a phase's initial pulls: wait for all of them
            if self._t >= self._max:
                self._finish("budget")
            elif not self._queue and not self._outstanding_real:
                self._advance()
            return
        self._advance()

    def _predict(self, arm: int) -> float:
        """``x_a^T theta``: the phase's estimate once it has one, else the last phase's."""
        st = self._st
        theta = st.theta if st.ints[T_INIT] < 0 else self._eng.theta_rec
        return float(self._eng.X[arm] @ theta)


# ----------------------------------------------------------------------------------------
# RAGE
# ----------------------------------------------------------------------------------------


def rage_design(X: np.ndarray, Y: np.ndarray, tol: float = 1e-3) -> tuple[np.ndarray, float]:
    """``(lambda, rho)``: an XY design on the targets ``Y`` and its criterion value
    ``max_y ||y||^2_{A(lambda)^{-1}}`` (the value *of the returned weights*, so the phase
    length is valid whatever the solver accuracy)."""
    from design.minimax import xy_optimal

    res = xy_optimal(X, Y, tol=tol)
    return np.asarray(res.weights, dtype=np.float64), float(res.value)


#: RAGE's phase designs by (variant, tolerance, arms, targets, active set) and its phase
#: plans (allocation and record) by that and the phase index and options: deterministic
#: functions of their keys, shared by the phases, runs and replications of a process.
_DESIGN_CACHE = BoundedMemo(512)
_PLAN_CACHE = BoundedMemo(512)


def _pinv_psd(A: np.ndarray) -> np.ndarray:
    """Moore–Penrose pseudo-inverse of a symmetric PSD matrix (``numpy.linalg.pinv``'s cut
    ``1e-15 * max eigenvalue``), from its eigendecomposition."""
    ev, V = np.linalg.eigh(A)
    keep = ev > 1e-15 * max(ev[-1], 0.0)
    return (V[:, keep] / ev[keep]) @ V[:, keep].T


def rage_code_design(X: np.ndarray, Z_active: np.ndarray,
                     max_iter: int = 5000) -> tuple[np.ndarray, float]:
    r"""The design of the authors' ``RAGE.py`` (``optimal_allocation``), ported as written:
    Frank–Wolfe on ``max_y ||y||^2_{A(lambda)^{-1}}`` over all ``k^2`` differences of the
    active targets (zero rows included), from the uniform design, step ``2 / (count + 2)``,
    stopped when ``||update|| / ||design|| < 0.01``; weights below ``1e-5`` zeroed (no
    renormalisation).

    What differs from an optimal design (and makes the code variant longer than the paper's
    algorithm with an exact design): ``rho`` is the value at the iterate *before* the last
    update (``A^{-1}`` is computed before the step), arms the iteration never moved keep a
    residual of the uniform start above the ``1e-5`` cut (so they stay in the support,
    receive pulls and count in ``n_min = 2 |support| / eps``), and the returned weights sum
    to slightly less than 1.

    Returns ``(design, rho)``.
    """
    K = X.shape[0]
    k, d = Z_active.shape
    Y = (Z_active[None, :, :] - Z_active[:, None, :]).reshape(k * k, d)
    design = np.ones(K) / K
    rho = np.zeros(k * k)
    for count in range(1, max_iter):
        A_inv = np.linalg.pinv(X.T @ np.diag(design) @ X)
        U, D, V = np.linalg.svd(A_inv)
        half = U @ np.diag(np.sqrt(D)) @ V.T
        rho = ((Y @ half) ** 2).sum(axis=1)
        y = Y[int(np.argmax(rho))]
        g = (X @ A_inv @ y) ** 2
        gamma = 2.0 / (count + 2)
        update = -gamma * design
        update[int(np.argmax(g))] += gamma
        relative = np.linalg.norm(update) / np.linalg.norm(design)
        design += update
        if relative < 0.01:
            break
    design[design < 1e-5] = 0.0
    return design, float(rho.max())


def rage_code_rounding(design: np.ndarray, n: int) -> np.ndarray:
    """``RAGE.py``'s ``rounding`` as written: ``ceil((n - p/2) w_i)`` on the support (the
    weights as they are, not renormalised), then ``+1`` at the first ``argmin n_i / w_i``
    or ``-1`` at the first ``argmax (n_i - 1) / w_i`` until the sum is ``n``."""
    idx = np.flatnonzero(design > 0)
    w = design[idx]
    nr = np.ceil((n - 0.5 * idx.shape[0]) * w)
    while nr.sum() != n:
        if nr.sum() < n:
            nr[int(np.argmin(nr / w))] += 1
        else:
            nr[int(np.argmax((nr - 1) / w))] -= 1
    out = np.zeros(design.shape[0], dtype=np.int64)
    out[idx] = nr.astype(np.int64)
    return out


class _RageEngine:
    """Phase bookkeeping of RAGE shared by the simulation and the ask/tell policy."""

    def __init__(self, X: object, Z: object, *, delta: float, sigma: float, eps: float,
                 variant: str, design_tol: float, n_constant: float = 8.0) -> None:
        self.X, self.Z = as_arms_and_targets(X, Z)
        K, d = self.X.shape
        if variant not in ("paper", "code"):
            raise ValueError(f"variant must be 'paper' or 'code'; got {variant!r}")
        self.delta = check_probability(delta, "delta")
        self.sigma = check_positive(sigma, "sigma")
        self.eps = check_positive(eps, "eps")
        self.variant = variant
        self.design_tol = check_positive(design_tol, "design_tol")
        self.n_constant = check_positive(n_constant, "n_constant")
        self.active = np.ones(self.Z.shape[0], dtype=np.bool_)
        self.theta_rec = np.zeros(d)
        self.k = 0
        self.phases: list[dict] = []
        self._key = (variant, self.design_tol, self.X.shape, self.X.tobytes(), self.Z.shape,
                     self.Z.tobytes())

    def _design(self) -> tuple[np.ndarray, float]:
        """The phase's design and ``rho`` (paper: the XY design on the active pairs, its
        support reduced; code: RAGE.py's Frank–Wolfe iterate), a deterministic function
        of the active set: memoised across phases, runs and replications."""
        key = (self._key, self.active.tobytes())
        hit = _DESIGN_CACHE.get(key)
        if hit is not None:
            return hit
        if self.variant == "paper":
            from rounding import reduce_support

            lam, rho = rage_design(self.X, pair_targets(self.Z, self.active), self.design_tol)
            lam = reduce_support(self.X, lam)
        else:
            lam, rho = rage_code_design(self.X, self.Z[self.active])
        lam.setflags(write=False)
        _DESIGN_CACHE.remember(key, (lam, rho))
        return lam, rho

    def plan_phase(self) -> np.ndarray:
        """Allocation (pulls per arm) of the next phase (memoised: a deterministic
        function of the phase index, the active set and the options)."""
        self.k += 1
        key = (self._key, self.active.tobytes(), self.k, self.delta, self.sigma, self.eps,
               self.n_constant)
        hit = _PLAN_CACHE.get(key)
        if hit is None:
            hit = self._make_plan()
            _PLAN_CACHE.remember(key, hit)
        alloc, record = hit
        self._current = dict(record)
        return alloc.copy()  # writable: numba compiles read-only arrays as another type

    def _make_plan(self) -> tuple[np.ndarray, dict]:
        from rounding import round_with_guarantee, rounding_requirement

        k = self.k
        delta_k = self.delta / k**2
        lam, rho = self._design()
        nZ = self.Z.shape[0]
        s2 = self.sigma**2
        p = int(np.count_nonzero(lam))
        if self.variant == "paper":
            base = (self.n_constant * (2.0 ** (k + 1)) ** 2 * rho * (1 + self.eps)
                    * math.log(nZ**2 / delta_k))
            # rounding with the (1 + eps) guarantee needs n >= r(eps) for the reduced support
            r_eps = rounding_requirement(p, self.eps)
            N = max(int(math.ceil(s2 * base)), r_eps)
            alloc = round_with_guarantee(self.X, lam, N, self.eps).counts
        else:
            # RAGE.py: n_min = 2 factor |support| with factor = 1 / eps, the support of the
            # Frank-Wolfe iterate (every arm it kept above 1e-5, irrelevant ones included)
            base = 8.0 * (2.0 ** (k - 1)) ** 2 * rho * (1 + self.eps) * math.log(
                2 * nZ**2 / delta_k)
            N = max(int(math.ceil(s2 * base)), int(math.ceil(2 * (1.0 / self.eps) * p)))
            alloc = rage_code_rounding(lam, N)
        alloc = np.ascontiguousarray(alloc, dtype=np.int64)
        alloc.setflags(write=False)
        return alloc, {"phase": k, "N": int(N), "rho": float(rho), "support": p,
                       "active_before": int(self.active.sum()), "delta_k": delta_k}

    def end_phase(self, pcounts: np.ndarray, psums: np.ndarray) -> bool:
        """Estimate from the phase's samples only and eliminate; True when one is left."""
        X = self.X
        Ainv = _pinv_psd((X.T * pcounts) @ X)
        theta = Ainv @ (X.T @ psums)
        keep = self.active.copy()
        act = np.flatnonzero(self.active)
        Za = self.Z[act]
        if self.variant == "paper":
            thr = 2.0 ** (-(self.k + 2))
            mu = Za @ theta
            drop = (mu.max() - mu) >= thr  # exists z' with (z' - z)^T theta >= 2^-(k+2)
            keep[act[drop]] = False
        else:
            # RAGE.py's drop_arms: z is dropped when some z' active at the start of the
            # test (also one dropped earlier in the same pass: it loops over a copy) has
            # sqrt(2 ||y||^2_{A^-1} log(2 |X|^2 / delta_k)) <= y^T theta, y = z' - z
            logt = math.log(2 * X.shape[0] ** 2 / self._current["delta_k"])
            Yd = Za[None, :, :] - Za[:, None, :]  # Yd[i, j] = z_j - z_i
            width2 = ((Yd @ Ainv) * Yd).sum(axis=2)
            ok = np.sqrt(2 * self.sigma**2 * np.maximum(width2, 0.0) * logt) <= Yd @ theta
            np.fill_diagonal(ok, False)
            keep[act[ok.any(axis=1)]] = False
        if not keep.any():  # cannot happen for the paper rule; guard for the code rule
            keep[act[int(np.argmax(Za @ theta))]] = True
        self._current["active_after"] = int(keep.sum())
        self.phases.append(self._current)
        self.active = keep
        self.theta_rec = theta
        # done when one target is left, or several identical ones (duplicate rows: one
        # answer, and their pairwise differences, the next design's targets, are all zero)
        left = self.Z[keep]
        return bool(np.all(left == left[0]))

    def recommendation(self) -> int:
        a = int(S.argmax_active(self.Z, self.theta_rec, self.active))
        return a if a >= 0 else int(np.flatnonzero(self.active)[0])


#: Options of RAGE with their defaults (the registry's schema reads this).
RAGE_DEFAULTS: dict[str, object] = {"eps": 0.1, "variant": "paper", "design_tol": 1e-3,
                                    "n_constant": 8.0}


def _rage_engine(X, Z, delta, sigma, options) -> _RageEngine:
    unknown = set(options) - set(RAGE_DEFAULTS)
    if unknown:
        raise ValueError(f"unknown option(s) {sorted(unknown)} for rage; valid: "
                         f"{sorted(RAGE_DEFAULTS)}")
    return _RageEngine(X, Z, delta=delta, sigma=sigma,
                       **{**RAGE_DEFAULTS, **options})  # type: ignore[arg-type]


def run_rage(instance, *, delta: float = 0.05, seed: int = 0, max_samples: int = 10**8,
             sigma: float | None = None, simulation: str = "sufficient",
             **options: object) -> RunResult:
    r"""Simulate RAGE (Fiez et al. 2019, Algorithm 1) on an instance (transductive if the
    instance has ``Z``).

    Parameters
    ----------
    instance : bandits.instances.Instance
    delta : float
        Confidence in (0, 1).
    seed : int
        Rewards from stream 1 of the seed (the allocation is deterministic).
    max_samples : int
        Budget; a phase cut by it ends the run with ``stopped_by="budget"``.
    sigma : float, optional
        Sub-Gaussian scale assumed (default the instance's); ``N_k`` scales with sigma^2.
    simulation : {"sufficient", "per-sample"}
        ``"sufficient"`` (default): each arm's phase sum is drawn at once,
        ``N(n_a mu_a, n_a sigma^2)`` for Gaussian rewards, ``sum_v c_v table[v, a]`` with
        multinomial row counts ``c`` for a reward table
        (:func:`bandits._core.env.pull_sum`) -- RAGE reads only the per-arm counts and
        sums, so the run has the distribution of the per-sample one at the cost of one
        draw per arm and phase (a table: ``O(rows log n)``); ``"per-sample"``: one reward
        per pull, the trajectory that :class:`RagePolicy` replays exactly.
    **options
        ``eps`` (0.1, rounding tolerance; the authors' experiments use ``factor = 10``),
        ``variant`` ("paper" | "code"), ``design_tol`` (1e-3, certified gap of the
        phase designs; only efficiency depends on it), ``n_constant`` (8, the ``c`` of
        ``N_k`` in the paper variant; see the module docstring).

    Returns
    -------
    RunResult
        ``extra["phases"]``: per phase ``N``, ``rho``, design support, ``delta_k`` and the
        active-set sizes.
    """
    sig = float(instance.sigma if sigma is None else sigma)
    per_sample = check_simulation(simulation)
    check_resolution(instance, 1)  # first: its message names the unresolvable arms
    check_unique_best(instance)
    eng = _rage_engine(instance.X, getattr(instance, "Z", None), delta, sig, options)
    seed, max_samples = check_seed(seed), check_budget(max_samples)
    env = make_environment(instance)
    K = eng.X.shape[0]
    pcounts, psums = np.zeros(K, dtype=np.int64), np.zeros(K)
    counts = np.zeros(K, dtype=np.int64)
    rng_env = _rng.make_state(seed, 1)
    t = 0
    stopped = "budget"
    t0 = time.perf_counter()
    for _ in range(MAX_PHASES):
        if t >= max_samples:
            break
        alloc = eng.plan_phase()
        pcounts[:] = 0
        psums[:] = 0.0
        n = S.block_phase(alloc, env, rng_env, t, max_samples, pcounts, psums, per_sample)
        t += int(n)
        counts += pcounts
        if n < int(alloc.sum()):
            break
        if eng.end_phase(pcounts, psums):
            stopped = "rule"
            break
    return _phased_result("rage", instance, seed, t, counts, stopped, t0, eng,
                          variant=eng.variant, simulation=simulation)


class RagePolicy(_PhasePolicy):
    """Ask/tell RAGE over the same phase logic as :func:`run_rage` (pulls of a phase in
    arm-block order).  Parameters: ``X``, ``Z``, ``delta``, ``sigma``, ``max_samples`` and
    the options of :func:`run_rage`."""

    def __init__(self, X: object, *, Z: object = None, delta: float = 0.05,
                 sigma: float = 1.0, max_samples: int | None = None,
                 **options: object) -> None:
        self._eng = _rage_engine(X, Z, delta, sigma, options)
        self._noise_sd = self._eng.sigma  # see model_check
        self._max = None if max_samples is None else check_budget(max_samples)
        K = self._eng.X.shape[0]
        self._counts = np.zeros(K, dtype=np.int64)
        self._pc, self._ps = np.zeros(K, dtype=np.int64), np.zeros(K)
        self._t = 0
        self._plan()

    def _plan(self) -> None:
        if self._max is not None and self._t >= self._max:
            self._finish("budget")
            return
        alloc = self._eng.plan_phase()
        # a phase longer than the budget left (minus the asks still out) is cut to its first
        # pulls in arm-block order, as the simulation's block_phase cuts it: ask(n) never
        # hands out measurements beyond max_samples, and a cut phase ends by the budget,
        # never by its elimination test
        left = None if self._max is None else \
            max(self._max - self._t - int(getattr(self, "_outstanding", 0)), 0)
        self._cut = left is not None and int(alloc.sum()) > left
        if self._cut:
            start = np.cumsum(alloc) - alloc  # pulls before each arm's block
            alloc = np.clip(left - start, 0, alloc)
        self._queue = ArmQueue.repeated(alloc)
        self._pc[:] = 0
        self._ps[:] = 0.0

    def _predict(self, arm: int) -> float:
        """``x_a^T theta``: the last phase's estimate (zero in the first phase)."""
        return float(self._eng.X[arm] @ self._eng.theta_rec)

    def _observe(self, arm: int, r: float) -> None:
        """The step kernel's update with the told reward ``r`` of ``arm``, then the next
        decision."""
        a = int(arm)
        self._pc[a] += 1
        self._ps[a] += r
        self._counts[a] += 1
        self._t += 1
        # the phase ends when all of it is told (a phase cut by the budget never ends)
        if self._queue or self._outstanding_real or self._cut:
            if self._max is not None and self._t >= self._max:
                self._finish("budget")
            return
        if self._eng.end_phase(self._pc, self._ps):
            self._finish("rule")
            return
        self._plan()


#: The phase engines shared by the simulations and the policies (public: the registry reads
#: their signatures for the option types).
AdaptiveEngine, RageEngine = _AdaptiveEngine, _RageEngine
