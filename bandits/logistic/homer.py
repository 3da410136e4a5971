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
from bandits.gifa import RunResult
from bandits.logistic import _kernels as kern
from bandits.logistic.core import DELTA, _check_delta, gamma, mle, mu
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


def _phase_estimate(X: np.ndarray, plan: PhasePlan, succ: np.ndarray) -> np.ndarray:
    """Step 7: MLE of the phase's pulls in the span coordinates, mapped back to R^d."""
    idx = np.flatnonzero(plan.counts > 0)
    Z = np.ascontiguousarray(X[idx] @ plan.basis)
    fit = mle(Z, plan.counts[idx], succ[idx], on_separable="fallback")
    plan.info["mle_exists"] = fit.exists
    return plan.basis @ fit.theta


def _eliminate(X: np.ndarray, active: np.ndarray, theta_hat: np.ndarray, k: int
               ) -> np.ndarray:
    m = mu(X @ theta_hat)
    top = m[active].max()
    new = active & (top - m < 2.0 * 2.0 ** (-k))
    return new


def run_homer(instance, T: int, *, delta: float = DELTA, warmup: str = "naive",
              eps: float = HOMER_EPS, seed: int = 0, n_points: int = 200,
              max_phases: int = 60, design_tol: float = DESIGN_TOL,
              warmup_options: dict | None = None) -> RunResult:
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
        Seeds every reward stream (warm-up: streams 1-2, phases: stream 3).
    n_points : int
        Checkpoints of the regret curve (evenly spaced in ``1..T``).

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
    from bandits.logistic.warmup import run_warmup

    _check_delta(delta)
    T = check_budget(T, "T")
    eps = check_real(eps, "eps", 0.0, open_low=True)
    design_tol = check_probability(design_tol, "design_tol")
    seed = check_int(seed, "seed", 0)
    n_points = check_int(n_points, "n_points", 1)
    max_phases = check_int(max_phases, "max_phases", 1)
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
        nonlocal t
        n = int(alloc.sum())
        use = min(n, T - t)
        if use <= 0:
            return 0
        if use < n:
            # a horizon cut: the first ``use`` pulls in the ask/tell order (HomerPolicy),
            # so that the counts sum to the samples (issue 12: floor() lost pulls)
            from bandits.logistic.warmup import interleaved_order

            alloc = np.bincount(np.asarray(interleaved_order(alloc)[:use], dtype=np.int64),
                                minlength=K).astype(np.int64)
        seg_len.append(use)
        seg_gap.append(float(alloc @ gaps) / use)
        counts[:] += alloc
        t += use
        return use

    wu = run_warmup(warmup, instance, delta=delta, seed=seed, **(warmup_options or {}))
    if wu.probe_samples:
        spend(wu.info["probe_counts"].astype(np.int64))
    spend(wu.counts)
    theta_hat = wu.theta_hat
    active = np.ones(K, dtype=bool)
    state = _rng.make_state(seed, 3)
    phases = []
    succ = np.zeros(K, dtype=np.int64)
    best_elim = False
    k = 0
    while t < T and active.sum() > 1 and k < max_phases:
        k += 1
        plan = phase_plan(X, active, theta_hat, k, delta, eps, design_tol)
        rec = {"k": k, "n_H": plan.n_H, "n_G": plan.n_G, "n": plan.n, "h": plan.h,
               "g": plan.g, "active": int(active.sum()), "start": t}
        phases.append(rec)
        if t + plan.n > T:
            spend(plan.counts)
            rec["truncated"] = True
            break
        spend(plan.counts)
        kern.draw_counts(plan.counts, means, state, succ)
        theta_hat = _phase_estimate(X, plan, succ)
        active = _eliminate(X, active, theta_hat, k)
        rec["mle_exists"] = plan.info.get("mle_exists", True)
        rec["survivors"] = int(active.sum())
        if not active[best]:
            best_elim = True
    committed = active.sum() == 1
    idx = np.flatnonzero(active)
    arm = int(idx[0]) if committed else int(idx[np.argmax(X[idx] @ theta_hat)])
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
               "best_eliminated": best_elim, "final_regret": float(cum[-1])})


def run_eps_greedy(instance, T: int, *, c_eps: float = 5.0, seed: int = 0,
                   n_points: int = 200, refit_ratio: float = 1.1) -> RunResult:
    """Baseline: epsilon-greedy on the MLE with G-optimal exploration (ours, not in the paper).

    ``eps_t = min(1, c_eps d / t)``; exploration draws an arm from the G-optimal design of
    the arms (:func:`design.gd.g_optimal`); exploitation pulls ``argmax x^T theta_hat``;
    the MLE (Appendix F corrected, so it always exists) is refitted whenever ``t`` grew by
    ``refit_ratio``. One jitted loop (:func:`bandits.logistic._kernels.eps_greedy`).
    """
    from design.gd import g_optimal

    if isinstance(T, bool) or int(T) < 1:
        raise ValueError(f"T must be a positive integer; got {T!r}")
    if not (c_eps > 0 and refit_ratio > 1):
        raise ValueError("need c_eps > 0 and refit_ratio > 1")
    t0 = time.perf_counter()
    X, th = instance.X, instance.theta
    K = X.shape[0]
    w = g_optimal(X, tol=1e-3).weights
    cdf = np.cumsum(w)
    cdf[-1] = 1.0
    times = _checkpoints(int(T), n_points)
    counts = np.zeros(K)
    succ = np.zeros(K)
    regret = np.zeros(times.shape[0])
    state = _rng.make_state(seed, 4)
    kern.eps_greedy(X, th, cdf, float(c_eps), int(T), float(refit_ratio), times, state,
                    counts, succ, regret)
    arm = int(np.argmax(counts))
    return RunResult(
        algorithm="eps-greedy", instance=getattr(instance, "name", "logistic"),
        seed=int(seed), samples=int(T), recommendation=np.array([arm]),
        correct=arm == instance.best, counts=counts.astype(np.int64), stopped_by="horizon",
        wall_time=time.perf_counter() - t0,
        extra={"times": times, "regret": regret, "final_regret": float(regret[-1])})


class HomerPolicy:
    """Ask/tell HOMER for real experiments (needs only ``X``, ``S`` and binary outcomes).

    >>> pol = HomerPolicy(X, S=2.0)                        # doctest: +SKIP
    >>> for _ in range(T):                                 # doctest: +SKIP
    ...     arm = pol.ask(); pol.tell(arm, outcome(arm))   # outcome in {0, 1}

    ``warmup="naive"`` (default) pulls the naive warm-up (eq. 5); ``warmup="war"`` runs
    :class:`bandits.logistic.WarPolicy` (probing, then its planned pulls; options such as
    ``L, U, r`` via ``warmup_options``) and starts the phases from its MLE. Pulls of a
    design (warm-up or phase) are issued in an interleaved deterministic order
    (:func:`bandits.logistic.warmup.interleaved_order`); after a phase's last reward the
    MLE and elimination run and the next phase is planned. Once one arm is left,
    :meth:`ask` returns it forever (``phase`` becomes ``"commit"``).
    """

    def __init__(self, X: np.ndarray, S: float, *, delta: float = DELTA,
                 eps: float = HOMER_EPS, design_tol: float = DESIGN_TOL,
                 warmup: str = "naive", seed: int = 0,
                 warmup_options: dict | None = None) -> None:
        from bandits.logistic.core import as_logistic_arms
        from bandits.logistic.warmup import WarPolicy, naive_warmup

        self.X = as_logistic_arms(X)
        self.delta = _check_delta(delta)
        self.eps = check_real(eps, "eps", 0.0, open_low=True)
        self.tol = check_probability(design_tol, "design_tol")
        check_int(seed, "seed", 0)
        K = self.X.shape[0]
        self.active = np.ones(K, dtype=bool)
        self.k = 0
        self.phase = "warmup"
        self.warmup = warmup
        self.theta_hat: np.ndarray | None = None
        self._pending: int | None = None
        self._pulls = np.zeros(K, dtype=np.int64)  # every told pull, per arm
        #: HOMER minimises regret over a horizon the user controls: it has no stopping
        #: rule, so ``done`` stays False (see :attr:`committed`).
        self.done = False
        self.war: WarPolicy | None = None
        if warmup == "naive":
            if warmup_options:
                raise ValueError("warmup_options only apply to warmup='war'")
            self._start(naive_warmup(self.X, S, delta=delta).counts)
        elif warmup == "war":
            self.war = WarPolicy(self.X, S, delta=delta, seed=seed,
                                 **(warmup_options or {}))  # type: ignore[arg-type]
        else:
            raise ValueError(f"warmup must be 'naive' or 'war'; got {warmup!r}")

    def _start(self, counts: np.ndarray) -> None:
        from bandits.logistic.warmup import interleaved_order

        self._counts = counts.astype(np.int64)
        self._succ = np.zeros_like(self._counts)
        self._queue = interleaved_order(self._counts)
        self._i = 0

    def _end_of_design(self) -> None:
        if self.phase == "warmup":
            if self.war is not None:
                assert self.war.result is not None
                self.theta_hat = self.war.result.theta_hat
            else:
                self.theta_hat = mle(self.X, self._counts, self._succ).theta
        else:
            self.theta_hat = _phase_estimate(self.X, self._plan, self._succ)
            self.active = _eliminate(self.X, self.active, self.theta_hat, self.k)
        if self.active.sum() == 1:
            self.phase = "commit"
            return
        self.k += 1
        self.phase = f"phase {self.k}"
        self._plan = phase_plan(self.X, self.active, self.theta_hat, self.k, self.delta,
                                self.eps, self.tol)
        self._start(self._plan.counts)

    @property
    def samples(self) -> int:
        """Number of outcomes told so far."""
        return int(self._pulls.sum())

    @property
    def counts(self) -> np.ndarray:
        """Pulls per arm so far (warm-up, phases and commitment)."""
        return self._pulls.copy()

    @property
    def committed(self) -> bool:
        """True once every arm but one has been eliminated (``ask`` then returns it)."""
        return self.phase == "commit"

    @property
    def recommendation(self) -> int:
        """Current best arm among the survivors (by ``theta_hat``; arm 0 before any fit)."""
        idx = np.flatnonzero(self.active)
        if self.theta_hat is None:
            return int(idx[0])
        return int(idx[np.argmax(self.X[idx] @ self.theta_hat)])

    def ask(self) -> int:
        """The next arm to pull."""
        if self._pending is None:
            if self.phase == "commit":
                self._pending = int(np.flatnonzero(self.active)[0])
            elif self.phase == "warmup" and self.war is not None:
                self._pending = self.war.ask()
            else:
                self._pending = self._queue[self._i]
        return self._pending

    def tell(self, arm: int, reward: float) -> None:
        """Report the binary outcome (0 or 1) of the arm returned by :meth:`ask`."""
        from bandits.logistic.warmup import check_told

        y = check_told(self._pending, arm, reward)
        self._pending = None
        self._pulls[int(arm)] += 1
        if self.phase == "commit":
            return
        if self.phase == "warmup" and self.war is not None:
            self.war.tell(int(arm), y)
            if self.war.done:
                self._end_of_design()
            return
        self._succ[int(arm)] += y
        self._i += 1
        if self._i == len(self._queue):
            self._end_of_design()
