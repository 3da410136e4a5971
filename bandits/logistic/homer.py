"""HOMER (Mason, Jun & Jain 2022, Algorithm 1), a regret baseline, and regret curves.

HOMER ("H-Optimal MEthod for Regret") runs a delta-valid warm-up, then phases
``k = 1, 2, ...`` on the surviving arms ``X_k``, each with *fresh* samples only:

1. ``delta_k = delta / (4 (2 + |X|) |X| k^2)``;
2. H-optimal design at the plug-in estimate ``theta_{k-1}``:
   ``lambda^H_k = argmin_lambda max_{x in X_k} mu'(x^T theta)^2 ||x||^2_{H_lambda(theta)^{-1}}``
   (value ``h_k``; :func:`design.minimax.h_optimal`);
3. G-optimal design ``lambda^G_k = argmin_lambda max_{x in X_k} ||x||^2_{H_lambda(theta)^{-1}}``
   (value ``g_k``; :func:`design.minimax.g_optimal_hessian`);
4. ``n^H_k = ceil(6 (1+eps) 6.1^2 3^3 4^k h_k log(1/delta_k))``,
   ``n^G_k = ceil(6 (1+eps) gamma(d, |X_k|, delta_k) g_k)``;
5. max-mixture ``lambda_k ∝ max(n^H/(n^H+n^G) lambda^H, n^G/(n^H+n^G) lambda^G)`` (per arm);
6. ``n_k = max(n^H + n^G, r(eps))`` pulls rounded with the ``(1+eps)`` guarantee
   (:func:`rounding.round_with_guarantee`);
7. MLE of this phase's pulls; eliminate ``x`` with
   ``max_{x'} mu(x'^T theta_k) - mu(x^T theta_k) >= 2 * 2^{-k}``;

and plays the last arm for the remaining time. Choices the paper leaves open (all
documented in ``docs/logistic.md``): ``eps = 0.5``; designs solved to a certified relative
gap ``1e-3`` (the values used in ``n^H, n^G`` are the *returned designs'* criteria, so the
guarantees hold for what is actually pulled); when ``X_k`` does not span R^d the designs,
MLE and plug-in estimate live in the span of ``X_k`` (``gamma`` still uses ``d``); when the
phase MLE does not exist the Appendix F correction is used (:func:`bandits.logistic.mle`).

Regret accounting: the pseudo-regret ``R_t = sum_s mu(x*^T theta*) - mu(x_s^T theta*)`` is a
deterministic function of the allocation; inside a phase (a fixed design, pulls in any
order) it is accrued at the phase's average gap per pull, so the curve is exact at phase
boundaries and linear in between. A phase cut by the horizon ``T`` is accounted up to ``T``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from bandits._core import rng as _rng
from bandits._core.exact import correct_set, exact_means
from bandits._core.protocol import ArmQueue
from bandits.gifa import RunResult
from bandits.logistic import _kernels as kern
from bandits.logistic.core import (
    DELTA,
    MLE_CONVERGED,
    MLE_MAX_ITER,
    _check_delta,
    appendix_f_successes,
    as_logistic_arms,
    gamma,
    mle,
    mu,
    newton_mle,
)
from bandits.logistic.warmup import (
    BernoulliProtocol,
    WarPolicy,
    check_simulation,
    interleaved_order,
    naive_warmup,
    prefix_counts,
    run_warmup,
    sample_warmup,
)
from rounding.validation import check_budget, check_int, check_probability, check_real

__all__ = ["HOMER_EPS", "HomerPolicy", "phase_plan", "run_eps_greedy", "run_homer"]

HOMER_EPS = 0.5
DESIGN_TOL = 1e-3
_C_H = 6.1 ** 2 * 27.0  # Lemma 1 constant squared times 3^3 (Lemma 7)


def _checkpoints(T: int, n_points: int) -> np.ndarray:
    return np.unique(np.linspace(1, T, max(2, n_points)).round().astype(np.int64))


@dataclass
class PhasePlan:
    """One HOMER phase: its designs, sample sizes and rounded counts (over all arms)."""

    k: int
    active: np.ndarray
    delta_k: float
    h: float
    g: float
    n_H: int
    n_G: int
    n: int
    weights: np.ndarray
    counts: np.ndarray
    basis: np.ndarray
    info: dict = field(default_factory=dict)


def phase_plan(X: np.ndarray, active: np.ndarray, theta_hat: np.ndarray, k: int,
               delta: float, eps: float = HOMER_EPS, tol: float = DESIGN_TOL) -> PhasePlan:
    """Steps 1-6 of Algorithm 1 for phase ``k`` on the arms ``X[active]``.

    Returns a :class:`PhasePlan` whose ``counts`` (length ``K``) is the rounded allocation of
    ``n = max(n^H + n^G, r(eps))`` pulls and ``basis`` an orthonormal basis (d, r) of the
    span of ``X[active]`` (designs are computed in those coordinates).
    """
    from design.minimax import g_optimal_hessian, h_optimal
    from rounding import round_with_guarantee, rounding_requirement

    K, d = X.shape
    idx = np.flatnonzero(active)
    Xk = X[idx]
    _, sv, Vt = np.linalg.svd(Xk, full_matrices=False)
    r = int(np.sum(sv > 1e-10 * sv.max()))
    B = Vt[:r].T
    Z = np.ascontiguousarray(Xk @ B)
    phi = B.T @ theta_hat
    delta_k = delta / (4.0 * (2 + K) * K * k * k)
    lg = math.log(1.0 / delta_k)
    if Z.shape[0] == 1 or r == 0:
        raise ValueError("phase_plan needs at least two arms")
    resH = h_optimal(Z, phi, tol=tol)
    resG = g_optimal_hessian(Z, phi, tol=tol)
    h, g = float(resH.value), float(resG.value)
    n_H = math.ceil(6.0 * (1.0 + eps) * _C_H * 4.0 ** k * h * lg)
    n_G = math.ceil(6.0 * (1.0 + eps) * gamma(d, int(idx.size), delta_k) * g)
    tot = n_H + n_G
    lam = np.maximum(n_H / tot * resH.weights, n_G / tot * resG.weights)
    lam /= lam.sum()
    p = int(np.count_nonzero(lam))
    n = max(tot, rounding_requirement(min(p, r * (r + 1) // 2 + 1), eps))
    rr = round_with_guarantee(Z, lam, n, eps)
    counts = np.zeros(K, dtype=np.int64)
    counts[idx] = rr.counts
    w = np.zeros(K)
    w[idx] = lam
    return PhasePlan(k=k, active=active.copy(), delta_k=delta_k, h=h, g=g, n_H=n_H, n_G=n_G,
                     n=int(counts.sum()), weights=w, counts=counts, basis=B,
                     info={"gap_H": resH.gap, "gap_G": resG.gap, "rank": r,
                           "rounding_factor": rr.factor})


def _phase_estimate(X: np.ndarray, plan: PhasePlan, st: kern.DesignStats) -> np.ndarray:
    """Step 7: MLE of the phase's pulls (``st``: per-arm pulls and successes of the arms of
    the plan's support) in the span coordinates, mapped back to R^d."""
    idx = np.flatnonzero(plan.counts > 0)
    Z = np.ascontiguousarray(X[idx] @ plan.basis)
    fit = mle(Z, st.n[idx], st.s[idx], on_separable="fallback")
    plan.info["mle_exists"] = fit.exists
    return plan.basis @ fit.theta


def _eliminate(X: np.ndarray, active: np.ndarray, theta_hat: np.ndarray, k: int
               ) -> np.ndarray:
    m = mu(X @ theta_hat)
    top = m[active].max()
    new = active & (top - m < 2.0 * 2.0 ** (-k))
    return new


class _HomerEngine:
    """HOMER's decisions between designs, shared by :func:`run_homer` (simulation) and
    :class:`HomerPolicy` (ask/tell): whoever drives it does the pulls of each design and
    reports the design's per-arm statistics
    (:class:`bandits.logistic._kernels.DesignStats`).

    ``fit_warmup(theta)`` takes the warm-up's estimate; ``next_design()`` plans phase
    ``k + 1`` (its counts) or returns None once one arm is left (``status = "commit"``) or
    ``max_phases`` phases were run (``"exploit"``); ``fit_phase(st)`` is step 7 (the
    phase's MLE, then elimination).
    """

    def __init__(self, X: np.ndarray, delta: float, eps: float, tol: float,
                 max_phases: int) -> None:
        self.X, self.delta, self.eps, self.tol = X, delta, eps, tol
        self.max_phases = max_phases
        self.active = np.ones(X.shape[0], dtype=bool)
        self.k = 0
        self.theta_hat: np.ndarray | None = None
        self.plan: PhasePlan | None = None
        self.status = "warmup"

    def fit_warmup(self, theta_hat: np.ndarray) -> None:
        self.theta_hat = theta_hat
        self.status = "phases"

    def next_design(self) -> np.ndarray | None:
        if self.active.sum() == 1:
            self.status = "commit"
            return None
        if self.k >= self.max_phases:
            self.status = "exploit"
            return None
        self.k += 1
        assert self.theta_hat is not None
        self.plan = phase_plan(self.X, self.active, self.theta_hat, self.k, self.delta,
                               self.eps, self.tol)
        return self.plan.counts

    def fit_phase(self, st: kern.DesignStats) -> None:
        assert self.plan is not None
        self.theta_hat = _phase_estimate(self.X, self.plan, st)
        self.active = _eliminate(self.X, self.active, self.theta_hat, self.k)

    @property
    def committed(self) -> bool:
        return self.status == "commit"

    def recommendation(self) -> int:
        """The committed arm, else ``argmax x^T theta_hat`` over the survivors (the first
        arm before any estimate)."""
        idx = np.flatnonzero(self.active)
        if self.status == "commit" or self.theta_hat is None:
            return int(idx[0])
        return int(idx[np.argmax(self.X[idx] @ self.theta_hat)])


def run_homer(instance, T: int, *, delta: float = DELTA, warmup: str = "naive",
              eps: float = HOMER_EPS, seed: int = 0, n_points: int = 200,
              max_phases: int = 60, design_tol: float = DESIGN_TOL,
              warmup_options: dict | None = None,
              simulation: str = "sufficient") -> RunResult:
    """Simulate HOMER for ``T`` rounds on a :class:`~bandits.logistic.LogisticInstance`.

    Parameters
    ----------
    instance : LogisticInstance
    T : int
        Horizon.
    delta : float
        Confidence (the paper's Theorem 2 needs ``delta <= 1/e``; default 0.05).
    warmup : {"naive", "war", "oracle"}
        Warm-up producing ``theta_0`` (:mod:`bandits.logistic.warmup`).
    eps : float
        Rounding tolerance ``epsilon`` (default 0.5).
    seed : int
        Seeds every reward stream.
    n_points : int
        Checkpoints of the regret curve (evenly spaced in ``1..T``).
    simulation : {"sufficient", "per-sample"}
        ``"sufficient"`` (default): every estimate of HOMER uses only the per-arm pulls and
        successes of a design (the warm-up's MLE, each phase's MLE), so a design of
        ``(n_1..n_K)`` pulls is simulated by one ``Binomial(n_a, p_a)`` draw per arm
        (:func:`bandits.logistic._kernels.binomial_split`, ``O(log n_a)``; warm-up plan on
        stream 2, phases on stream 3, WAR's sequential probing one draw per pull on stream
        1): a run costs ``O(phases x K x d^2)`` whatever ``T``. ``"per-sample"`` (the
        reference): every pull is drawn, in the ask/tell order, from stream 1; the
        :class:`HomerPolicy` fed :func:`bandits.reward_oracle` replays it exactly. Both
        modes give the same distribution of the result (tests/test_logistic*.py).

    Returns
    -------
    RunResult
        ``samples = T`` (pulls made), ``recommendation`` the committed (or current best)
        arm, ``correct`` whether it is the best arm, ``counts`` pulls per arm,
        ``stopped_by = "commit"`` when a single arm survived before ``T`` (else
        ``"horizon"``); ``extra`` holds ``times`` and ``regret`` (the curve), ``phases``
        (per phase: ``k, n_H, n_G, n, h, g, active, eliminated_best``), ``warmup``
        (samples, probing samples, method) and ``best_eliminated``.
    """
    _check_delta(delta)
    T = check_budget(T, "T")
    eps = check_real(eps, "eps", 0.0, open_low=True)
    design_tol = check_probability(design_tol, "design_tol")
    seed = check_int(seed, "seed", 0)
    n_points = check_int(n_points, "n_points", 1)
    max_phases = check_int(max_phases, "max_phases", 1)
    per_sample = check_simulation(simulation) == "per-sample"
    t0 = time.perf_counter()
    X, th = instance.X, instance.theta
    K, d = X.shape
    means = mu(X @ th)
    gaps = means.max() - means
    best = int(np.argmax(means))
    counts = np.zeros(K, dtype=np.int64)
    seg_len: list[int] = []
    seg_gap: list[float] = []
    t = 0

    def spend(alloc: np.ndarray) -> int:
        """Account ``alloc`` pulls (the first ones in the ask/tell order if the horizon
        cuts them); returns the pulls made."""
        nonlocal t
        n = int(alloc.sum())
        use = min(n, T - t)
        if use <= 0:
            return 0
        if use < n:  # a horizon cut: the pulls HomerPolicy asks first
            alloc = prefix_counts(alloc, use)
        seg_len.append(use)
        seg_gap.append(float(alloc @ gaps) / use)
        counts[:] += alloc
        t += use
        return use

    def _probe_prefix(seq: list, use: int) -> np.ndarray:
        """Probing pulls per arm among the first ``use`` (probing asks arm by arm)."""
        out = np.zeros(K, dtype=np.int64)
        for a, n in seq:
            take = min(int(n), use)
            out[a] += take
            use -= take
        return out

    env = _rng.make_state(seed, 1)  # the environment's stream (per-sample mode)
    wu = run_warmup(warmup, instance, delta=delta, seed=seed, simulation=simulation,
                    state=env if per_sample else None, sample=False,
                    **(warmup_options or {}))
    if wu.probe_samples + wu.total <= T:  # else the horizon ends inside the warm-up: no fit
        wu = sample_warmup(wu, instance, seed=seed, simulation=simulation, state=env)
    warmup_done = True
    if wu.probe_samples:
        n_probe = int(wu.probe_samples)
        probed = _probe_prefix(wu.info["probe_sequence"], min(n_probe, T - t))
        warmup_done = spend(probed) == n_probe
    warmup_done = spend(wu.counts) == int(wu.counts.sum()) and warmup_done
    eng = _HomerEngine(X, delta, eps, design_tol, max_phases)
    if warmup_done:
        eng.fit_warmup(wu.theta_hat)
    phase_state = _rng.make_state(seed, 3)
    phases = []
    best_elim = False
    while warmup_done and t < T and (alloc := eng.next_design()) is not None:
        plan = eng.plan
        assert plan is not None
        rec = {"k": plan.k, "n_H": plan.n_H, "n_G": plan.n_G, "n": plan.n, "h": plan.h,
               "g": plan.g, "active": int(eng.active.sum()), "start": t}
        phases.append(rec)
        if t + plan.n > T:
            spend(alloc)
            rec["truncated"] = True
            break
        spend(alloc)
        st = kern.new_design_stats(K)
        if per_sample:
            kern.design_play(interleaved_order(alloc), means, env, st)
        else:
            kern.design_draw(alloc, means, phase_state, st)
        eng.fit_phase(st)
        rec["mle_exists"] = plan.info.get("mle_exists", True)
        rec["survivors"] = int(eng.active.sum())
        if not eng.active[best]:
            best_elim = True
    committed = bool(eng.active.sum() == 1)
    arm = eng.recommendation()
    stopped = "commit" if committed and t < T else "horizon"
    if t < T:
        alloc = np.zeros(K, dtype=np.int64)
        alloc[arm] = T - t
        spend(alloc)
    ends = np.cumsum([0, *seg_len]).astype(float)
    cum = np.concatenate([[0.0], np.cumsum(np.array(seg_len) * np.array(seg_gap))])
    times = _checkpoints(T, n_points)
    regret = np.interp(times, ends, cum)
    return RunResult(
        algorithm="homer", instance=getattr(instance, "name", "logistic"), seed=int(seed),
        samples=int(t), recommendation=np.array([arm]),
        correct=correct_set(exact_means(instance), np.array([arm]), 1, 0.0),
        counts=counts, stopped_by=stopped, wall_time=time.perf_counter() - t0,
        extra={"times": times, "regret": regret, "phases": phases,
               "warmup": {"method": warmup, "samples": int(wu.counts.sum()),
                          "probe_samples": wu.probe_samples, "g": wu.g},
               "best_eliminated": best_elim, "final_regret": float(cum[-1]),
               "simulation": simulation})


def run_eps_greedy(instance, T: int, *, c_eps: float = 5.0, seed: int = 0,
                   n_points: int = 200, refit_ratio: float = 1.1) -> RunResult:
    """Baseline: epsilon-greedy on the MLE with G-optimal exploration (ours, not in the paper).

    ``eps_t = min(1, c_eps d / t)``; exploration draws an arm from the G-optimal design of
    the arms (:func:`design.gd.g_optimal`); exploitation pulls ``argmax x^T theta_hat``;
    the MLE (Appendix F corrected, so it always exists) is refitted whenever ``t`` grew by
    ``refit_ratio`` (:func:`bandits.logistic.core.newton_mle`, in Python between calls of
    the jitted steps :func:`bandits.logistic._kernels.eps_greedy_steps`).
    """
    from design.gd import g_optimal

    if isinstance(T, bool) or int(T) < 1:
        raise ValueError(f"T must be a positive integer; got {T!r}")
    if not (c_eps > 0 and refit_ratio > 1):
        raise ValueError("need c_eps > 0 and refit_ratio > 1")
    t0 = time.perf_counter()
    X, th = instance.X, instance.theta
    K, d = X.shape
    T = int(T)
    w = g_optimal(X, tol=1e-3).weights
    cdf = np.cumsum(w)
    cdf[-1] = 1.0
    times = _checkpoints(T, n_points)
    counts = np.zeros(K)
    succ = np.zeros(K)
    regret = np.zeros(times.shape[0])
    state = _rng.make_state(seed, 4)
    means = mu(X @ th)
    best = float(means.max())
    theta = np.zeros(d)
    next_fit = float(2 * d)
    fitted = False
    c, reg = 0, 0.0
    t = 1
    while t <= T:
        # the checks of step t: a refit when t reached next_fit (the first fit one step
        # after next_fit was first reached), then every step up to the next refit at once
        if fitted and t >= next_fit:
            th_fit = theta.copy()
            status, _ = newton_mle(X, counts, appendix_f_successes(counts, succ), th_fit,
                                   1e-10, 100, 60.0)
            if status in (MLE_CONVERGED, MLE_MAX_ITER):
                theta = th_fit
            next_fit = max(next_fit * refit_ratio, next_fit + 1.0)
        elif not fitted and t >= next_fit:
            fitted = True
            next_fit = float(t)
        stop = min(T + 1, max(t + 1, math.ceil(next_fit)))
        c, reg = kern.eps_greedy_steps(X, means, best, cdf, float(c_eps), t, stop, fitted,
                                       theta, state, counts, succ, times, c, reg, regret)
        t = stop
    arm = int(np.argmax(counts))
    return RunResult(
        algorithm="eps-greedy", instance=getattr(instance, "name", "logistic"),
        seed=int(seed), samples=int(T), recommendation=np.array([arm]),
        correct=arm == instance.best, counts=counts.astype(np.int64), stopped_by="horizon",
        wall_time=time.perf_counter() - t0,
        extra={"times": times, "regret": regret, "final_regret": float(regret[-1])})


class HomerPolicy(BernoulliProtocol):
    """Ask/tell HOMER for real experiments (needs only ``X``, ``S`` and binary outcomes).

    >>> pol = HomerPolicy(X, S=2.0)                              # doctest: +SKIP
    >>> for day in range(days):                                  # doctest: +SKIP
    ...     arms = pol.ask(10); pol.tell(arms, outcomes(arms))   # outcomes in {0, 1}

    ``warmup="naive"`` (default) pulls the naive warm-up (eq. 5); ``warmup="war"`` runs
    :class:`bandits.logistic.WarPolicy` (probing, then its planned pulls; options such as
    ``L, U, r`` via ``warmup_options``) and starts the phases from its MLE. The pulls of a
    design (warm-up or phase) are asked in :func:`interleaved_order` and recorded by the
    step kernel :func:`bandits.logistic._kernels.design_record` (the per-sample simulation
    calls it too); once the design's last outcome is in, the decisions between designs
    (MLE, elimination, next phase plan) are :func:`run_homer`'s own (``_HomerEngine``).
    Once one arm is left, :meth:`ask` returns it (``phase`` becomes ``"commit"``; after
    ``max_phases`` phases, ``"exploit"`` with the current best arm). Fed
    :func:`bandits.reward_oracle`, it replays ``run_homer(..., simulation="per-sample")``.

    **Horizon.** HOMER minimises regret over a horizon: with ``T`` the policy is ``done``
    after ``T`` outcomes (``stopped_by`` ``"commit"`` if one arm was left before ``T``,
    else ``"horizon"``, as :func:`run_homer`); without ``T`` it never stops.

    **Batches** (``ask(n)``): the next ``n`` pulls of the current design; the next phase is
    planned only when every outcome of the design is in, so a batch ends with the design
    (WAR's probing: see :class:`WarPolicy`); once committed, ``n`` pulls of the committed
    arm. Outcomes may be told in any order, later and partially.

    **Warm start** (``observe``): an outcome of an arm the current design pulls fills one
    of that arm's slots (or adds an extra point to the design if its slots are full) and
    enters the design's MLE; HOMER's phases use only their own fresh outcomes, so an arm
    outside the current design (eliminated, or not in the design's support) is counted
    but not used; during the WAR warm-up, :class:`WarPolicy`'s rule applies.
    """

    def __init__(self, X: np.ndarray, S: float, *, delta: float = DELTA,
                 eps: float = HOMER_EPS, design_tol: float = DESIGN_TOL,
                 warmup: str = "naive", seed: int = 0,
                 warmup_options: dict | None = None, T: int | None = None,
                 max_phases: int = 60) -> None:
        self.X = as_logistic_arms(X)
        _check_delta(delta)
        eps = check_real(eps, "eps", 0.0, open_low=True)
        tol = check_probability(design_tol, "design_tol")
        check_int(seed, "seed", 0)
        self._budget = None if T is None else check_budget(T, "T")
        self._eng = _HomerEngine(self.X, float(delta), eps, tol,
                                 check_int(max_phases, "max_phases", 1))
        K = self.X.shape[0]
        self._counts = np.zeros(K, dtype=np.int64)
        self._design = kern.new_design_stats(K)
        self._alloc = np.zeros(K, dtype=np.int64)
        self._commit_t: int | None = None
        self.phase = "warmup"
        self.warmup = warmup
        self.war: WarPolicy | None = None
        if warmup == "naive":
            if warmup_options:
                raise ValueError("warmup_options only apply to warmup='war'")
            self._start_design(naive_warmup(self.X, S, delta=delta).counts)
        elif warmup == "war":
            self.war = WarPolicy(self.X, S, delta=delta, seed=seed,
                                 **(warmup_options or {}))  # type: ignore[arg-type]
            self._queue = self.war._queue
        else:
            raise ValueError(f"warmup must be 'naive' or 'war'; got {warmup!r}")

    def _start_design(self, counts: np.ndarray) -> None:
        self._alloc = np.asarray(counts, dtype=np.int64)
        self._design = kern.new_design_stats(self._alloc.shape[0])
        self._queue = ArmQueue(interleaved_order(self._alloc))

    # ---- the step ------------------------------------------------------------------

    def _observe(self, arm: int, reward: float) -> None:
        a, y = int(arm), int(reward)
        self._t += 1
        self._counts[a] += 1
        if self.phase == "warmup" and self.war is not None:
            war = self.war
            war._outstanding, war._unasked = self._outstanding, self._unasked
            war._observe(a, y)
            self._queue = war._queue
            if war.done:
                assert war.result is not None and war.result.theta_hat is not None
                self._end_of_warmup(war.result.theta_hat)
        elif self.phase in ("commit", "exploit"):
            pass
        else:
            if self._alloc[a] > 0:
                kern.design_record(self._design, a, y)
            if not self._queue and self._outstanding == 0:
                if self.phase == "warmup":
                    fit = mle(self.X, self._design.n, self._design.s)
                    self._end_of_warmup(fit.theta)
                else:
                    self._eng.fit_phase(self._design)
                    self._next_design()
        if self._budget is not None and self._t >= self._budget:
            self.done = True
            committed = self._commit_t is not None and self._commit_t < self._budget
            self.stopped_by = "commit" if committed else "horizon"
            self._queue = ArmQueue()
        elif self.phase in ("commit", "exploit"):
            self._queue = ArmQueue([self._eng.recommendation()])

    def _end_of_warmup(self, theta_hat: np.ndarray) -> None:
        self._eng.fit_warmup(theta_hat)
        self._next_design()

    def _next_design(self) -> None:
        if self._budget is not None and self._t >= self._budget:
            if self._eng.active.sum() == 1:
                self._eng.status = "commit"
                self.phase = "commit"
                self._commit_t = self._t
            return  # the horizon is reached: nothing more to plan
        counts = self._eng.next_design()
        if counts is None:
            self.phase = self._eng.status
            if self.phase == "commit":
                self._commit_t = self._t
            self._queue = ArmQueue([self._eng.recommendation()])
            return
        self.phase = f"phase {self._eng.k}"
        self._start_design(counts)

    def _look_ahead(self, k: int) -> list[int]:
        if self.phase in ("commit", "exploit"):
            return [self._eng.recommendation()] * k
        if self.phase == "warmup" and self.war is not None:
            return self.war._probe_look_ahead(k, [a for a, _ in self._pending_list()])
        return []

    # ---- read-outs -----------------------------------------------------------------

    @property
    def theta_hat(self) -> np.ndarray | None:
        """The current estimate (warm-up MLE, then each phase's)."""
        return self._eng.theta_hat

    @property
    def active(self) -> np.ndarray:
        """The surviving arms (bool mask)."""
        return self._eng.active.copy()

    @property
    def k(self) -> int:
        """The current phase (0 during the warm-up)."""
        return self._eng.k

    @property
    def committed(self) -> bool:
        """True once every arm but one has been eliminated (``ask`` then returns it)."""
        return self.phase == "commit"

    @property
    def recommendation(self) -> np.ndarray:  # type: ignore[override]
        """``[arm]``: the committed arm, else the best survivor by ``theta_hat`` (the first
        arm before any estimate)."""
        return np.array([self._eng.recommendation()])
