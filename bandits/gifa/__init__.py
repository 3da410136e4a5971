"""The GIFA family of fully adaptive top-m identification algorithms.

Réda, Kaufmann & Delahaye-Duriez (2021), "Top-m identification for linear bandits"
(AISTATS), Algorithm 1 and Table 1: every algorithm is the same loop with four pluggable
rules. :class:`GIFA` is that configuration; the named algorithms are instances of it:

============ ============ =========== ============ ================== =========== =========
name         compute_Jt   compute_bt  stopping     selection          indices     features
============ ============ =========== ============ ================== =========== =========
lingape      empirical    lucb        lucb         greedy             paired      yes (m=1)
m-lingape    empirical    lucb        lucb         greedy             paired      yes
lingifa      ugape        gifa        ugape        largest-variance   paired      yes
lucb         empirical    lucb        lucb         largest-variance   individual  no
ugape        ugape        lucb        ugape        largest-variance   individual  no
============ ============ =========== ============ ================== =========== =========

* compute_Jt ``empirical``: the m largest estimated means; ``ugape``: the m arms ``j``
  with the smallest ``max^m_{i != j} B_{i,j}``.
* compute_bt ``lucb``: ``argmax_{j in J} max_{i not in J} B_{i,j}``; ``gifa``:
  ``argmax_{j in J} max^m_{i != j} B_{i,j}``. The challenger is
  ``c = argmax_{i not in J} B_{i,b}`` (Algorithm 1; the prose's max over [K] is not used).
* stopping ``lucb``: ``B_{c,b} <= eps``; ``ugape``: ``max_{j in J} max^m_{i!=j} B_{i,j} <= eps``.
* selection ``largest-variance``: the arm of ``{b, c}`` with the larger
  ``||x||_{V^-1}``; ``greedy`` (Xu et al. 2018, Eq. 9):
  ``argmin_a ||x_b - x_c||_{(V + x_a x_a^T)^-1}``; ``optimized`` (Xu et al. Eq. 10-12):
  track ``p = |w*(b, c)| / ||w*||_1`` from the l1 program
  ``min ||w||_1 s.t. X^T w = x_b - x_c`` by pulling ``argmin_{p_a > 0} N_a / p_a`` (the
  paper prints argmax; we follow Xu et al. and the authors' code); ``both``: pull b and c.
* indices ``paired``: ``B_{i,j} = mu_i - mu_j + C sigma ||x_i - x_j||_{V^-1}``;
  ``individual``: ``... + C sigma (||x_i||_{V^-1} + ||x_j||_{V^-1})``.
* unstructured algorithms (features = no) use canonical features ``I_K`` with no
  regularisation, so that ``mu_hat`` are empirical means and ``||e_a||_{V^-1} = 1/sqrt(N_a)``.

Estimation is regularised least squares, ``V = reg I + sum_a N_a x_a x_a^T``. Réda et al.
write ``lambda = sigma / 20`` (Hoffman et al. 2014) with ``V = lambda I`` but ``lambda^2`` in
the log of their threshold (Eq. 2) and ``sqrt(lambda)`` in its bias term, which is
inconsistent; their code uses ``V_0 = lambda^2 I`` throughout. Our threshold is written in
terms of ``reg`` itself (Abbasi-Yadkori et al. 2011), so the default ``reg = (sigma/20)^2``
is exactly the authors' experimental setting: on the classic instance it reproduces their
stored means (LinGIFA 4,179 vs 4,087; LinGIFA greedy 3,058 vs 3,020; 300 runs), while
``reg = sigma / 20`` gives 15% fewer samples. LinGapE uses Xu et al.'s ``reg = 1``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

from bandits._core import rng as _rng
from bandits._core.env import make_environment, reward_oracle
from bandits._core.exact import check_resolution, correct_set, exact_means
from bandits._core.lsq import new_state, refresh, update
from bandits._core.protocol import ArmQueue, AskTellProtocol
from bandits._core.result import RunResult
from bandits._core.validate import THRESHOLDS_NEEDING_S, check_conditioning, check_norm_bound
from bandits.gifa import _kernels as G
from rounding.validation import (
    as_real_array,
    check_budget,
    check_int,
    check_probability,
    check_real,
    check_seed,
)

_CHOICES = {
    "compute_jt": {"empirical": G.J_EMPIRICAL, "ugape": G.J_UGAPE},
    "compute_bt": {"lucb": G.B_LUCB, "gifa": G.B_GIFA},
    "stopping": {"lucb": G.STOP_LUCB, "ugape": G.STOP_UGAPE},
    "selection": {"largest-variance": G.SEL_LARGEST_VARIANCE, "greedy": G.SEL_GREEDY,
                  "optimized": G.SEL_OPTIMIZED, "both": G.SEL_BOTH},
    "indices": {"individual": 0, "paired": 1},
    "threshold": {"theoretical": G.THR_THEORETICAL, "lingape": G.THR_LINGAPE,
                  "heuristic": G.THR_HEURISTIC, "lucb1": G.THR_LUCB1},
}
MAX_OPTIMIZED_K = 300
#: An arm farther than this (relative to its norm) from the measured arms' span is a
#: direction no measurement has seen.
SPAN_TOL = 1e-9


@dataclass(frozen=True)
class GIFA:
    """A configuration of the GIFA template (see the module docstring for the rules).

    Parameters
    ----------
    name : str
        Label used in results tables.
    compute_jt, compute_bt, stopping, selection, indices, threshold : str
        Rule names (module docstring); ``threshold`` is one of ``"theoretical"``
        (Réda et al. Eq. 2), ``"lingape"`` (Xu et al. Eq. 3 with delta/K^2),
        ``"heuristic"`` and ``"lucb1"``. The last two have no ``S`` term: with them the
        rule stops only once the measured arms span every arm (before, the arm farthest
        from their span is measured; docs/choices.md, "No stop on unmeasured directions
        without S").
    structured : bool
        Use the arms' features (linear model). False: unstructured, features ``I_K``,
        ``reg = 0``, initialisation required.
    reg : float or None
        Regulariser ``V_0 = reg I``; None means ``(sigma / 20)^2`` (Réda et al.'s code,
        see the module docstring).
    init : bool
        Pull every arm once before the adaptive phase.
    m_fixed : int or None
        Forces ``m`` (LinGapE is the ``m = 1`` case).
    refresh_every : int
        Exact recomputation of ``V^{-1}`` every so many pulls.
    """

    name: str = "gifa"
    compute_jt: str = "empirical"
    compute_bt: str = "lucb"
    stopping: str = "lucb"
    selection: str = "largest-variance"
    indices: str = "paired"
    structured: bool = True
    threshold: str = "theoretical"
    reg: float | None = None
    init: bool = True
    m_fixed: int | None = None
    refresh_every: int = 1000

    def __post_init__(self) -> None:
        for key, options in _CHOICES.items():
            value = getattr(self, key)
            if value not in options:
                raise ValueError(f"{key} must be one of {sorted(options)}; got {value!r}")
        if self.reg is not None and not (np.isfinite(self.reg) and self.reg >= 0):
            raise ValueError(f"reg must be a finite number >= 0; got {self.reg!r}")
        if isinstance(self.refresh_every, bool) or int(self.refresh_every) < 1:
            raise ValueError("refresh_every must be a positive integer; "
                             f"got {self.refresh_every!r}")


ALGORITHMS: dict[str, GIFA] = {
    "lingape": GIFA(name="lingape", selection="greedy", threshold="lingape", reg=1.0,
                    m_fixed=1),
    "m-lingape": GIFA(name="m-lingape", selection="greedy"),
    "lingifa": GIFA(name="lingifa", compute_jt="ugape", compute_bt="gifa", stopping="ugape",
                    init=False),
    "lucb": GIFA(name="lucb", indices="individual", structured=False, threshold="lucb1"),
    "ugape": GIFA(name="ugape", compute_jt="ugape", stopping="ugape", indices="individual",
                  structured=False, threshold="lucb1"),
}


def make_algorithm(algorithm: str | GIFA, **overrides: object) -> GIFA:
    """A :class:`GIFA` from a name in :data:`ALGORITHMS` (or a GIFA) with rule overrides.

    Examples: ``make_algorithm("m-lingape", selection="optimized")``,
    ``make_algorithm("lingifa", stopping="lucb")`` (LinGIFA with tau^LUCB),
    ``make_algorithm("lucb", selection="both")``.
    """
    if isinstance(algorithm, GIFA):
        base = algorithm
    elif isinstance(algorithm, str) and algorithm in ALGORITHMS:
        base = ALGORITHMS[algorithm]
    else:
        raise ValueError(f"algorithm must be one of {sorted(ALGORITHMS)} or a GIFA; "
                         f"got {algorithm!r}")
    unknown = set(overrides) - set(GIFA.__dataclass_fields__)
    if unknown:
        raise ValueError(f"unknown option(s) {sorted(unknown)} for {base.name}")
    if not overrides:
        return base
    suffix = ",".join(f"{k}={v}" for k, v in sorted(overrides.items()))
    name = overrides.pop("name", None) or f"{base.name}({suffix})"
    return replace(base, name=name, **overrides)


@lru_cache(maxsize=16)
def _pair_ratios_cached(key: bytes, shape: tuple[int, int]) -> np.ndarray:
    from design.complexity import l1_weights_all_pairs

    X = np.frombuffer(key, dtype=np.float64).reshape(shape)
    W = np.abs(l1_weights_all_pairs(X))
    total = W.sum(axis=2, keepdims=True)
    return np.divide(W, total, out=np.zeros_like(W), where=total > 0)


def pair_ratios(X: np.ndarray) -> np.ndarray:
    """``p[i, j] = |w*(i, j)| / ||w*(i, j)||_1`` for every pair (the optimized rule).

    ``w*(i, j) = argmin ||w||_1 s.t. X^T w = x_i - x_j`` (Xu et al. 2018, Eq. 11), solved
    once per pair (:func:`design.complexity.l1_weights_all_pairs`, each solution checked
    against its LP dual) and cached per feature matrix.
    """
    Xc = np.ascontiguousarray(X, dtype=np.float64)
    if Xc.shape[0] > MAX_OPTIMIZED_K:
        raise ValueError(f"the optimized rule precomputes K^2/2 linear programs and K^3 "
                         f"ratios; K={Xc.shape[0]} > {MAX_OPTIMIZED_K} is too large "
                         "(use selection='greedy')")
    return _pair_ratios_cached(Xc.tobytes(), Xc.shape)


_check_probability = check_probability  # the shared validator (rounding.validation)


class _Engine:
    """Arrays and configuration shared by the simulation and ask/tell front-ends."""

    def __init__(self, algo: GIFA, X: np.ndarray, *, m: int, delta: float, epsilon: float,
                 sigma: float, S: float | None, seed: int, max_samples: int | None) -> None:
        X = as_real_array(X, "X")
        if X.ndim != 2 or X.shape[0] < 2 or X.shape[1] < 1:
            raise ValueError(f"X must be a (K, d) array with K >= 2 arms; got shape {X.shape}")
        K = X.shape[0]
        if algo.m_fixed is not None:
            m = algo.m_fixed
        m = check_int(m, "m", 1, K - 1)
        self.delta = check_probability(delta, "delta")
        epsilon = check_real(epsilon, "epsilon", 0.0)
        sigma = check_real(sigma, "sigma", 0.0, open_low=True)
        if max_samples is not None:
            max_samples = check_budget(max_samples)
        seed = check_seed(seed)
        self.algo, self.K, self.m = algo, K, int(m)
        if algo.structured:
            check_conditioning(X)
        self.features = X if algo.structured else np.eye(K)
        self.lam = float((sigma / 20.0) ** 2 if algo.reg is None else algo.reg)
        if not algo.structured:
            self.lam = 0.0
        if self.lam == 0.0 and not algo.init:
            raise ValueError("reg = 0 (or an unstructured algorithm) needs init=True: "
                             "V is singular until every arm has been pulled")
        if algo.threshold in THRESHOLDS_NEEDING_S:
            if self.lam == 0.0 and algo.threshold == "theoretical":
                raise ValueError("the theoretical threshold needs reg > 0; use "
                                 "threshold='lucb1' or 'heuristic' for unstructured runs")
            check_norm_bound(S, algo.threshold)
        Xf = np.ascontiguousarray(self.features)
        self.features = Xf
        self.cfg = np.zeros(7, dtype=np.int64)
        self.cfg[G.J_RULE] = _CHOICES["compute_jt"][algo.compute_jt]
        self.cfg[G.B_RULE] = _CHOICES["compute_bt"][algo.compute_bt]
        self.cfg[G.STOP_RULE] = _CHOICES["stopping"][algo.stopping]
        self.cfg[G.SELECTION] = _CHOICES["selection"][algo.selection]
        self.cfg[G.PAIRED] = _CHOICES["indices"][algo.indices]
        self.cfg[G.THRESHOLD] = _CHOICES["threshold"][algo.threshold]
        self.cfg[G.M] = self.m
        L = float(np.sqrt(np.max(np.einsum("ij,ij->i", Xf, Xf))))
        self.f = np.array([self.delta, float(epsilon), float(sigma), self.lam,
                           0.0 if S is None else float(S), L])
        if algo.selection == "optimized":
            self.ratios = pair_ratios(Xf)
        else:
            self.ratios = np.zeros((1, 1, 1))
        self.state = new_state(Xf, self.lam)
        self.rng_policy = _rng.make_state(int(seed), 0)
        self.rng_env = _rng.make_state(int(seed), 1)
        self.max_samples = None if max_samples is None else int(max_samples)
        self.conf = G.GifaConfig(self.cfg, self.f, self.ratios)
        self.work = G.new_work(K, self.m)
        self.J, self.out = self.work.J, self.work.out

    def decide(self) -> float:
        """The step kernel (the same call the simulation loop makes)."""
        return G.decide(self.features, self.state, self.conf, self.rng_policy, self.work)

    def update(self, arm: int, reward: float) -> None:
        update(self.features, self.lam, self.state, arm, reward, self.algo.refresh_every)

    def refresh(self) -> None:
        refresh(self.features, self.lam, self.state)

    def unseen_arm(self) -> int:
        """After a rule stop: -1 when the stop stands, else the arm to measure first.

        The heuristic and LUCB1 thresholds have no ``sqrt(lam) S`` term, so they bound
        nothing in a direction no measurement has seen (the ridge estimate is the prior's
        there). With them a stop needs the measured arms to span every arm; until then the
        arm farthest from their span (relative to its norm; the first on a tie) is measured
        (docs/choices.md, "No stop on unmeasured directions without S"). Called by the
        simulation after its kernel stops and by the ask/tell policy after its decision,
        so both keep one trajectory; numpy, so nothing more is compiled."""
        if self.algo.threshold in THRESHOLDS_NEEDING_S:  # their S term covers the prior
            return -1
        X = self.features
        seen = self.state.counts > 0
        norms = np.linalg.norm(X, axis=1)
        rows = X[seen] / norms[seen, None]
        _, sv, vt = np.linalg.svd(rows, full_matrices=False)
        basis = vt[sv > SPAN_TOL * max(sv[0], 1.0)]
        resid = np.linalg.norm(X - (X @ basis.T) @ basis, axis=1) / np.maximum(norms, 1e-300)
        far = int(np.argmax(resid))
        return far if resid[far] > SPAN_TOL else -1

    @property
    def samples(self) -> int:
        return int(self.state.stats[0])


def check_identifiable(means: np.ndarray, m: int, epsilon: float) -> None:
    """Reject a simulation that can never stop: with ``epsilon = 0`` the top-m set must be
    unique (``mu_(m) > mu_(m+1)``), otherwise every run would spend its whole budget."""
    if epsilon == 0 and means.size > m:
        ordered = np.sort(means)[::-1]
        if ordered[m - 1] <= ordered[m]:
            raise ValueError(f"the instance has no unique top-{m} set (mu_({m}) = mu_({m + 1}) "
                             f"= {ordered[m]:g}); pass epsilon > 0")


def run_gifa(algorithm: str | GIFA, instance, *, delta: float = 0.05, epsilon: float = 0.0,
             seed: int = 0, max_samples: int = 10**7, S: float | None = None,
             sigma: float | None = None, **overrides: object) -> RunResult:
    """Simulate a GIFA-family algorithm on an instance (jitted loop). See :func:`bandits.run`."""
    algo = make_algorithm(algorithm, **overrides)
    if algo.m_fixed is not None and instance.m != algo.m_fixed:
        raise ValueError(f"{algo.name} identifies m={algo.m_fixed} arm(s) but the instance has "
                         f"m={instance.m}; use 'm-lingape' for top-m identification")
    check_identifiable(np.asarray(instance.means, dtype=float), instance.m, epsilon)
    check_resolution(instance, instance.m, epsilon)
    if S is None and getattr(instance, "theta", None) is not None:
        S = float(np.linalg.norm(instance.theta))
    eng = _Engine(algo, instance.X, m=instance.m, delta=delta, epsilon=epsilon,
                  sigma=instance.sigma if sigma is None else sigma, S=S, seed=seed,
                  max_samples=max_samples)
    env = make_environment(instance)
    t0 = time.perf_counter()
    resume = (0 if algo.init else eng.K + 1, -1, False)
    while True:  # the jitted loop returns for each exact refresh (numpy/LAPACK)
        status, a, second = G.simulate(eng.features, eng.lam, eng.state, eng.conf,
                                       eng.rng_policy, eng.rng_env, env, resume,
                                       eng.max_samples, algo.refresh_every, eng.work)
        if status == G.NEED_REFRESH:
            eng.refresh()
            resume = (a, second, True)
            continue
        arm = eng.unseen_arm() if status == G.STOPPED_BY_RULE else -1
        if arm < 0:
            break
        resume = (a, arm, True)  # measure it (the decision's "second arm"), then decide
    wall = time.perf_counter() - t0
    rec = np.sort(eng.J.copy())
    return RunResult(
        algorithm=algo.name, instance=getattr(instance, "name", "instance"), seed=int(seed),
        samples=eng.samples, recommendation=rec,
        correct=correct_set(exact_means(instance), rec, eng.m, epsilon),
        counts=eng.state.counts.copy(),
        stopped_by="budget" if status == G.STOPPED_BY_BUDGET else "rule", wall_time=wall,
    )


class Policy(AskTellProtocol):
    """Ask/tell front-end for real experiments, over the same jitted step functions.

    >>> pol = Policy("m-lingape", X, m=2, sigma=0.5, S=1.0, seed=0)   # doctest: +SKIP
    >>> while not pol.done:                                           # doctest: +SKIP
    ...     arm = pol.ask()
    ...     pol.tell(arm, measure(arm))      # your experiment's outcome
    >>> pol.recommendation                                            # doctest: +SKIP

    The sequence of decisions equals that of :func:`bandits.run` for the same seed and the
    same rewards. ``max_samples`` (optional) ends the run with ``stopped_by="budget"``.

    Any other registered name (``Policy("rage", X)``, ``Policy("homer", X, S=2.0)``...) is
    delegated to :func:`bandits.policy`, which returns that family's policy.
    """

    def __new__(cls, algorithm: str | GIFA = "", X: object = None, **kwargs: object):
        if isinstance(algorithm, str) and algorithm not in ALGORITHMS:
            from bandits.registry import entry, policy

            entry(algorithm)  # ValueError listing every registered name
            return policy(algorithm, X, **kwargs)
        return super().__new__(cls)

    def __init__(self, algorithm: str | GIFA, X: np.ndarray, *, m: int = 1,
                 delta: float = 0.05, epsilon: float = 0.0, sigma: float = 1.0,
                 S: float | None = None, seed: int = 0, max_samples: int | None = None,
                 **overrides: object) -> None:
        self.algorithm = make_algorithm(algorithm, **overrides)
        self._eng = _Engine(self.algorithm, X, m=m, delta=delta, epsilon=epsilon,
                            sigma=sigma, S=S, seed=seed, max_samples=max_samples)
        self._noise_sd = float(sigma)  # validated by the engine; see model_check
        self._queue = ArmQueue(np.arange(self._eng.K) if self.algorithm.init else ())
        self._in_init = self.algorithm.init
        if not self._queue:
            self._advance()

    @property
    def samples(self) -> int:
        """Number of rewards told so far."""
        return self._eng.samples

    @property
    def counts(self) -> np.ndarray:
        """Pulls per arm so far."""
        return self._eng.state.counts.copy()

    def _advance(self) -> None:
        eng = self._eng
        if self._in_init:
            self._in_init = False
            eng.refresh()
        if eng.max_samples is not None and eng.samples >= eng.max_samples:
            eng.decide()
            self._finish("budget")
            return
        eng.decide()
        if eng.out[G.OUT_STOP] == 1:
            arm = eng.unseen_arm()
            if arm < 0:
                self._finish("rule")
                return
            self._queue = ArmQueue([arm])  # as the simulation measures it
            return
        first, second = int(eng.out[G.OUT_ARM1]), int(eng.out[G.OUT_ARM2])
        self._queue = ArmQueue([first, second] if second >= 0 else [first])

    def _finish(self, how: str) -> None:
        self.done = True
        self.stopped_by = how
        self.recommendation = np.sort(self._eng.J.copy())
        self._queue = ArmQueue()

    def _observe(self, arm: int, r: float) -> None:
        """The step kernel's update with the told reward ``r`` of ``arm``, then the next
        decision.

        Batches (:class:`bandits._core.protocol.AskTellProtocol`): during the
        initialisation the next decision waits until every initial arm is told; afterwards
        a decision made before this reward (while other rewards are outstanding, or for a
        reward the policy did not take from its queue) is stale and is made again, so the
        stopping rule is checked on every real observation.
        """
        eng = self._eng
        eng.update(int(arm), r)
        budget = eng_budget_reached(eng)
        if budget and self._queue:
            self._queue = ArmQueue()
        if self._in_init and not budget:
            if not self._queue and not self._outstanding_real:
                self._advance()
            return
        if self._outstanding or self._unasked:
            self._queue = ArmQueue()
        if not self._queue:
            self._advance()

    @property
    def features(self) -> np.ndarray:
        """The features the algorithm fits: ``X`` (structured) or the identity (LUCB and
        UGapE estimate each arm's mean on its own)."""
        return self._eng.features

    def _predict(self, arm: int) -> float | None:
        """``x_a^T theta_hat`` (``None`` while ``V`` is singular)."""
        st = self._eng.state
        if st.stats[3] == 0.0:  # lsq.READY
            return None
        return float(st.P[arm] @ st.bvec)


def eng_budget_reached(eng: _Engine) -> bool:
    """Whether the engine spent its optional budget."""
    return eng.max_samples is not None and eng.samples >= eng.max_samples


def simulated_rewards(instance, seed: int):
    """A reward oracle drawing exactly the rewards :func:`run_gifa` would draw for ``seed``
    (same stream), to drive a :class:`Policy` in tests and examples
    (:func:`bandits.reward_oracle`)."""
    return reward_oracle(instance, seed)


#: Rule names and their kernel codes, per rule (public: the registry's option schema and
#: the CLI's choices read it).
RULE_CHOICES = _CHOICES
