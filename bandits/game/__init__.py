"""LinGame: best-arm identification in linear bandits as a game (Degenne, Ménard, Shang &
Valko 2020, "Gamification of pure exploration for linear bandits", ICML), in the form Réda,
Kaufmann & Delahaye-Duriez (2021) ran it as the baseline of their Fig. 1(b).

The Player runs one AdaHedge learner over the arms per candidate answer ``i*`` (the arm
with the best estimated mean); Nature answers the proposed weights with the closest
alternative in which another arm ties ``i*``, measured in the geometry of the counts
``W = sum_a N_a x_a x_a^T``; the learner is charged optimistic gains (width ``log t``,
clipped at ``log t``); D-tracking turns the weights into pulls; the run stops when the GLR
statistic ``min_{a != i*} (mu_i* - mu_a)^2 / (2 sigma^2 ||x_a - x_i*||^2_{W^-1})`` reaches
``beta(t)``: by default the theoretical threshold ``C(t)^2 / 2`` (Réda et al.'s Eq. 2
multiplier, delta-correct, needs ``S``), or Réda et al.'s heuristic ``log((log t + 1) /
delta)``. Every arm is pulled once first; the
estimate is regularised least squares with ``V_0 = (sigma / 20)^2 I``. The formulas are
those of :mod:`bandits.game._kernels`; the paper's choices we had to make are listed in
``docs/choices.md`` ("LinGame").

The heuristic threshold is what Réda et al. used; it is not a proven ``delta``-correct
threshold and ignores the dimension (``threshold="heuristic"`` reproduces their runs).
``glr_sigma`` is the noise level of the GLR statistic: the instance's ``sigma`` by default
(the Gaussian GLR), ``1.0`` reproduces the authors' code, which leaves ``sigma`` out (Réda
et al. run ``sigma = 0.5``, so their statistic is 4 times smaller and their runs longer).
``bonus="code"`` likewise reproduces the code's optimistic bonus ``sqrt(2 log t
||x_a||_{V^-1})`` (the paper's ellipsoid gives ``sqrt(2 log t) ||x_a||_{V^-1}``). With
both (``glr_sigma=1.0, bonus="code"``) and the heuristic threshold, Réda et al.'s Fig.
1(b) instance takes 6,868 +- 2,308 samples (200 runs; stored: 7,138 +- 2,460), with the
paper's forms 1,344 +- 1,056.
"""

from __future__ import annotations

import time

import numpy as np

from bandits._core import rng as _rng
from bandits._core.env import make_environment
from bandits._core.exact import check_resolution, check_unique_best, correct_set, exact_means
from bandits._core.lsq import new_state, refresh
from bandits._core.protocol import ArmQueue, AskTellProtocol
from bandits._core.result import RunResult
from bandits._core.validate import (
    as_real_array,
    check_arms_span,
    check_budget,
    check_int,
    check_norm_bound,
    check_positive,
    check_probability,
    check_seed,
)
from bandits.game import _kernels as G

__all__ = ["BONUSES", "THRESHOLDS", "GamePolicy", "run_lingame"]

#: The optimistic bonus of the gains (see :mod:`bandits.game._kernels`).
BONUSES = {"paper": G.BONUS_PAPER, "code": G.BONUS_CODE}
#: Regularisation ``V_0 = (sigma / ETA)^2 I`` (Hoffman et al. 2014, as in Réda et al.).
ETA = 20.0
#: Stopping thresholds: ``"theoretical"`` (delta-correct by proof, needs ``S``) and
#: ``"heuristic"`` (Réda et al.'s experiments; no proof), see
#: :func:`bandits.game._kernels.glr_threshold`.
THRESHOLDS = ("theoretical", "heuristic")


class _Engine:
    """Arrays shared by the simulation and the ask/tell policy."""

    def __init__(self, X: object, *, delta: float, sigma: float, glr_sigma: float | None,
                 bonus: str, threshold: str, S: float | None, seed: int,
                 max_samples: int | None, refresh_every: int) -> None:
        X = as_real_array(X, "X")
        if X.ndim != 2 or X.shape[0] < 2 or X.shape[1] < 1:
            raise ValueError(f"X must be a (K, d) array with K >= 2 arms; got shape {X.shape}")
        check_arms_span(X)
        self.X = np.ascontiguousarray(X, dtype=np.float64)
        self.K, self.d = self.X.shape
        self.delta = check_probability(delta, "delta")
        sigma = check_positive(sigma, "sigma")
        glr_sigma = sigma if glr_sigma is None else check_positive(glr_sigma, "glr_sigma")
        self.lam = (sigma / ETA) ** 2
        if bonus not in BONUSES:
            raise ValueError(f"bonus must be one of {list(BONUSES)}; got {bonus!r}")
        if threshold not in THRESHOLDS:
            raise ValueError(f"threshold must be one of {list(THRESHOLDS)}; got {threshold!r}")
        theoretical = threshold == "theoretical"
        if theoretical:
            check_norm_bound(S, threshold)
            if glr_sigma < sigma:
                raise ValueError(f"glr_sigma={glr_sigma!r} < sigma={sigma!r}: the theoretical "
                                 "threshold holds for a GLR statistic scaled by at least the "
                                 "noise level; use threshold='heuristic'")
        L2 = float(np.max(np.einsum("ij,ij->i", self.X, self.X)))
        self.f = np.array([self.delta, glr_sigma, float(BONUSES[bonus]), float(theoretical),
                           float(self.d), L2, self.lam,
                           np.sqrt(self.lam) * (0.0 if S is None else float(S)) / glr_sigma])
        self.refresh_every = check_int(refresh_every, "refresh_every", 1)
        self.max_samples = None if max_samples is None else check_budget(max_samples)
        seed = check_seed(seed)
        self.lsq = new_state(self.X, self.lam)  # V = lam I + W: the estimate, the bonus
        self.wls = new_state(self.X, 0.0)  # the count geometry W (the GLR, Nature)
        self.st = G.new_state(self.K, self.d)
        self.rng_policy = _rng.make_state(seed, 0)
        self.rng_env = _rng.make_state(seed, 1)

    def decide(self, check: bool = True) -> None:
        """The step kernel's decision (the same call the simulation loop makes)."""
        ok = G.decide(self.X, self.lsq, self.wls, self.f, self.rng_policy, self.st)
        if check and not ok:
            raise RuntimeError("LinGame: W = sum_a N_a x_a x_a^T is singular")  # pragma: no cover

    def update(self, arm: int, reward: float) -> None:
        """The step kernel's update of both states, then their exact refresh when due."""
        if G.update_step(self.X, self.lam, self.lsq, self.wls, arm, reward,
                         self.refresh_every):
            self.refresh()

    def refresh(self) -> None:
        """The exact refresh of both states (numpy/LAPACK, :func:`bandits._core.lsq.refresh`;
        ``W`` stays flagged singular until the arms pulled span R^d)."""
        refresh(self.X, self.lam, self.lsq)
        refresh(self.X, 0.0, self.wls)

    @property
    def samples(self) -> int:
        return int(self.lsq.stats[0])


def run_lingame(name: str, instance, *, delta: float = 0.05, seed: int = 0,
                max_samples: int = 10**7, sigma: float | None = None,
                glr_sigma: float | None = None, bonus: str = "paper",
                threshold: str = "theoretical", S: float | None = None,
                refresh_every: int = 1000) -> RunResult:
    """Simulate LinGame (best arm, ``m = 1``) on a linear instance (jitted loop).

    Parameters
    ----------
    name : str
        ``"lingame"`` (the registry calls every family by name).
    instance : bandits.instances.Instance
        Arms ``X`` (rows spanning R^d), ``theta``, noise ``sigma``; ``m`` must be 1.
    delta : float
        Risk of the stopping rule: with ``threshold="theoretical"`` the answer is wrong
        with probability at most ``delta``.
    seed : int
        Stream 0: tie-breaking; stream 1: rewards.
    max_samples : int
        Budget; a run that spends it reports ``stopped_by="budget"``.
    sigma : float, optional
        Noise level assumed by the regularisation ``(sigma / 20)^2`` and the GLR (default:
        the instance's).
    glr_sigma : float, optional
        Noise level in the GLR statistic (default ``sigma``; ``1.0`` is Réda et al.'s code).
    bonus : {"paper", "code"}
        Optimism of the gains: ``"paper"`` adds ``sqrt(2 log t) ||x_a||_{V^-1}`` (the
        confidence ellipsoid of Degenne et al.), ``"code"`` adds ``sqrt(2 log t
        ||x_a||_{V^-1})`` as Réda et al.'s code does.
    threshold : {"theoretical", "heuristic"}
        ``beta(t)`` of the GLR stopping test. ``"theoretical"`` (default): ``C(t)^2 / 2``
        with Réda et al.'s Eq. 2 multiplier ``C(t)``, delta-correct by the confidence
        ellipsoid of Abbasi-Yadkori et al. (2011) (:func:`bandits.game._kernels.glr_threshold`;
        needs ``S``). ``"heuristic"``: ``log((log t + 1) / delta)``, what Réda et al. ran in
        their Fig. 1(b); no proof, and it does not grow with ``d`` (docs/choices.md,
        "LinGame's threshold", has the measured error rates and costs of both).
    S : float, optional
        Bound on ``||theta||`` for the theoretical threshold (default: the instance's
        ``||theta||``, as for the GIFA family).
    refresh_every : int
        Exact recomputation of ``V^{-1}`` every so many rank-one updates.

    Returns
    -------
    RunResult
        ``extra`` holds ``glr`` and ``threshold`` (the statistic and ``beta(t)`` at the
        last decision).
    """
    if name != "lingame":
        raise ValueError(f"name must be 'lingame'; got {name!r}")
    if getattr(instance, "Z", None) is not None:
        raise ValueError("instance: LinGame identifies the best arm of X (no separate "
                         "targets Z)")
    if instance.m != 1:
        raise ValueError(f"instance: LinGame is a best-arm (m = 1) algorithm; got m={instance.m}")
    check_resolution(instance, 1, 0.0)
    check_unique_best(instance)
    max_samples = check_budget(max_samples)
    if S is None and threshold == "theoretical":
        S = float(np.linalg.norm(instance.theta))
    eng = _Engine(instance.X, delta=delta, sigma=instance.sigma if sigma is None else sigma,
                  glr_sigma=glr_sigma, bonus=bonus, threshold=threshold, S=S, seed=seed,
                  max_samples=max_samples, refresh_every=refresh_every)
    env = make_environment(instance)
    t0 = time.perf_counter()
    resume = (0, False)
    while True:  # the jitted loop returns for each exact refresh (numpy/LAPACK)
        status, a = G.simulate(eng.X, eng.lam, eng.lsq, eng.wls, eng.f, eng.rng_policy,
                               eng.rng_env, env, resume, max_samples, eng.refresh_every,
                               eng.st)
        if status != G.NEED_REFRESH:
            break
        eng.refresh()
        resume = (a, True)
    wall = time.perf_counter() - t0
    if status == G.STOPPED_SINGULAR:  # pragma: no cover - X spans R^d (checked)
        raise RuntimeError("LinGame: W = sum_a N_a x_a x_a^T is singular")
    rec = np.array([int(eng.st.out[G.OUT_BEST])])
    return RunResult(
        algorithm="lingame", instance=getattr(instance, "name", "instance"), seed=int(seed),
        samples=eng.samples, recommendation=rec,
        correct=correct_set(exact_means(instance), rec, 1, 0.0),
        counts=eng.lsq.counts.copy(),
        stopped_by="rule" if status == G.STOPPED_BY_RULE else "budget", wall_time=wall,
        extra={"glr": float(eng.st.fout[G.F_GLR]),
               "threshold": float(eng.st.fout[G.F_THRESHOLD])})


class GamePolicy(AskTellProtocol):
    """Ask/tell LinGame for a real experiment, over the same jitted step kernel.

    >>> pol = GamePolicy(X, sigma=0.5, seed=0)              # doctest: +SKIP
    >>> while not pol.done:                                 # doctest: +SKIP
    ...     arm = pol.ask(); pol.tell(arm, measure(arm))
    >>> pol.recommendation                                  # doctest: +SKIP

    Every arm is asked once, then one arm per decision of :func:`bandits.game._kernels.decide`
    (the call the simulation makes): fed the rewards of :func:`bandits.reward_oracle` it
    makes the decisions of :func:`run_lingame` with the same seed. ``glr`` and
    ``threshold`` are the statistic and ``beta(t)`` of the last decision.

    Batches, delayed tells, warm start and saved state come from
    :class:`bandits._core.protocol.AskTellProtocol` with the GIFA family's rule
    (``docs/choices.md``, "Batches..."): ``ask(n)`` adds look-ahead arms decided on a copy
    fed the outstanding arms with the hallucinated rewards ``x_a^T theta_hat``;
    ``observe(arms, rewards)`` enters each measurement like a told one -- the
    least-squares estimate, ``V``, the counts (hence ``W`` of the GLR statistic) and ``t``
    of ``beta(t)`` -- followed by a fresh decision: the GLR stopping test and one AdaHedge
    update, as after a pull.
    """

    def __init__(self, X: object, *, delta: float = 0.05, sigma: float = 1.0,
                 glr_sigma: float | None = None, bonus: str = "paper",
                 threshold: str = "theoretical", S: float | None = None, seed: int = 0,
                 max_samples: int | None = None, refresh_every: int = 1000,
                 Z: object = None) -> None:
        if Z is not None:
            raise ValueError("Z: LinGame identifies the best arm of X (no separate targets)")
        self._eng = _Engine(X, delta=delta, sigma=sigma, glr_sigma=glr_sigma, bonus=bonus,
                            threshold=threshold, S=S, seed=seed, max_samples=max_samples,
                            refresh_every=refresh_every)
        self._noise_sd = float(sigma)  # validated by the engine; see model_check
        self._queue = ArmQueue(np.arange(self._eng.K))
        self._in_init = True

    @property
    def samples(self) -> int:
        """Rewards told so far."""
        return self._eng.samples

    @property
    def counts(self) -> np.ndarray:
        """Pulls per arm so far."""
        return self._eng.lsq.counts.copy()

    @property
    def glr(self) -> float:
        """GLR statistic of the last decision."""
        return float(self._eng.st.fout[G.F_GLR])

    @property
    def threshold(self) -> float:
        """``beta(t)`` of the last decision."""
        return float(self._eng.st.fout[G.F_THRESHOLD])

    def _observe(self, arm: int, r: float) -> None:
        """The step kernel's update with the told reward ``r`` of ``arm``, then the next
        decision (the stopping test first).

        Batches (:class:`bandits._core.protocol.AskTellProtocol`, the rule of the GIFA
        family): the initial pulls end only when none of them is outstanding; afterwards a
        decision made before this reward (other rewards outstanding, or a reward the policy
        did not take from its queue: a look-ahead arm, a warm-start measurement) is stale
        and is made again, so the GLR stopping test runs after every real observation and
        the learner is charged once per real observation, as in the sequential run.
        """
        eng = self._eng
        eng.update(int(arm), r)
        budget = eng.max_samples is not None and eng.samples >= eng.max_samples
        if self._in_init:
            if budget:  # as the simulation: the budget ends the initial pulls
                eng.refresh()
                eng.decide(check=False)
                self._finish("budget")
            elif not self._queue and not self._outstanding_real:
                self._decide()
            return
        if budget or self._outstanding or self._unasked:
            self._queue = ArmQueue()
        if not self._queue:
            self._decide()

    def _decide(self) -> None:
        eng = self._eng
        if self._in_init:
            self._in_init = False
            eng.refresh()
        eng.decide()
        if eng.st.out[G.OUT_STOP] == 1:
            self._finish("rule")
        elif eng.max_samples is not None and eng.samples >= eng.max_samples:
            self._finish("budget")
        else:
            self._queue = ArmQueue([int(eng.st.out[G.OUT_ARM])])

    @property
    def features(self) -> np.ndarray:
        return self._eng.X

    def _predict(self, arm: int) -> float | None:
        """``x_a^T theta_hat`` (the hallucinated reward of a look-ahead decision; ``V_0 =
        (sigma / 20)^2 I`` makes the estimate exist from the start)."""
        lsq = self._eng.lsq
        return float(lsq.P[arm] @ lsq.bvec)

    def _finish(self, how: str) -> None:
        self.done = True
        self.stopped_by = how
        self.recommendation = np.array([int(self._eng.st.out[G.OUT_BEST])])
        self._queue = ArmQueue()
