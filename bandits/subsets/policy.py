"""Ask/tell front-ends of the top-K subset algorithms, for a real experiment.

Every policy drives the same jitted step kernel as its simulation (``*_action`` decides the
subset to play, ``*_observe`` takes its joint reward; see :mod:`bandits.subsets._kernels`),
so for the same seed and the same rewards it plays the same subsets and commits to the same
one as :func:`bandits.subsets.run_subset`.

>>> pol = bandits.policy("dart", 45, K=2, T=100_000, seed=0)   # doctest: +SKIP
>>> while not pol.done:                                          # doctest: +SKIP
...     subset = pol.ask()
...     pol.tell(subset, joint_reward(subset))
>>> pol.recommendation                                           # doctest: +SKIP

A subset policy is a fixed-horizon regret algorithm: ``done`` means the exploration is
over, and :meth:`SubsetPolicy.ask` then keeps returning the committed subset (play it to
the horizon); ``stopped_by`` says why the exploration ended.
"""

from __future__ import annotations

import math
from itertools import combinations
from typing import Any

import numpy as np

from bandits._core.protocol import check_reward
from bandits._core.rng import make_state
from bandits._core.validate import check_int, check_seed
from bandits.subsets import _kernels as _k
from bandits.subsets.confidence import ConfidenceRule

__all__ = ["CsarPolicy", "DartAnytimePolicy", "DartPolicy", "LintsPolicy", "SubsetPolicy",
           "UcbPolicy", "make_subset_policy", "subset_reward_oracle"]

_STOP = {_k.STOP_HORIZON: "horizon", _k.STOP_ALL_DECIDED: "all-decided",
         _k.STOP_LAMBDA: "lambda"}


class SubsetPolicy:
    """Base of the subset policies: the pending subset, tell validation, plays per arm.

    Subclasses implement ``_decide(action)`` (fill the subset to play), ``_update(action,
    r) -> bool`` (take its joint reward; True when the exploration is over) and
    ``_finish() -> (recommendation, stopped_by)``.
    """

    def __init__(self, N: int, K: int, T: int, seed: int = 0) -> None:
        self.N = check_int(N, "N", 2)
        self.K = check_int(K, "K", 1)
        if self.K >= self.N:
            raise ValueError(f"K must be < N = {self.N}; got K = {K}")
        self.T = check_int(T, "T", 1)
        if self.T < self.N:
            raise ValueError(f"T must be at least the number of arms N = {self.N}; got T = {T}")
        self.seed = check_seed(seed)
        self._action = np.empty(self.K, dtype=np.int64)
        self._pending: np.ndarray | None = None
        self._plays = np.zeros(self.N, dtype=np.int64)
        self._t = 0
        self.done = False
        self.stopped_by: str | None = None
        self.recommendation: np.ndarray | None = None

    @property
    def samples(self) -> int:
        """Joint rewards told so far (steps)."""
        return self._t

    @property
    def counts(self) -> np.ndarray:
        """Plays of each arm while exploring (each told subset counts once for each of its
        arms), as ``RunResult.counts`` of the simulation."""
        return self._plays.copy()

    @property
    def exploring(self) -> bool:
        """Whether the next told reward is used (False while a committed subset is played:
        the simulation draws no rewards there, only the regret counts)."""
        return not self.done

    def ask(self) -> np.ndarray:
        """The K arms to play now (the same subset until it is told); after the
        exploration, the committed subset."""
        if self.done:
            return self.recommendation.copy()  # type: ignore[union-attr]
        if self._pending is None:
            self._decide(self._action)
            self._pending = self._action.copy()
        return self._pending.copy()

    def tell(self, subset: Any, reward: float) -> None:
        """Report the joint ``reward`` of ``subset`` (the subset returned by :meth:`ask`)."""
        if self.done:
            raise RuntimeError(f"the exploration has ended ({self.stopped_by}); play "
                               "policy.recommendation")
        if self._pending is None:
            raise ValueError("tell() without a pending ask(): call ask() first")
        told = np.sort(np.asarray(subset, dtype=np.int64).ravel())
        if not np.array_equal(told, np.sort(self._pending)):
            raise ValueError(f"subset {told.tolist()} was told but {self._pending.tolist()} "
                             "was asked")
        r = check_reward(reward)
        action, self._pending = self._pending, None
        if self.exploring:
            _k.count_plays(action, self._plays)
        self._t += 1
        if self._update(action, r):
            rec, self.stopped_by = self._finish()
            self.recommendation = np.sort(rec)
            self.done = True

    def _decide(self, action: np.ndarray) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _update(self, action: np.ndarray, r: float) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    def _finish(self) -> tuple[np.ndarray, str]:  # pragma: no cover - abstract
        raise NotImplementedError


class DartPolicy(SubsetPolicy):
    """DART (Agarwal, Aggarwal, Quinn & Umrawal, Algorithms 1-2) one subset at a time.

    ``lam``, ``c`` and ``union`` as in :func:`bandits.subsets.dart`; ``T`` (``>= N``) enters
    the test threshold ``c ln(union N T) / Delta^2`` and the ``"auto"`` lambda rule; ``seed``
    the random partitions (stream 2, as the simulation).
    """

    def __init__(self, N: int, K: int, T: int, *, seed: int = 0, lam: float | str = "auto",
                 c: float = 32.0, union: float = 1.0) -> None:
        super().__init__(N, K, T, seed)
        self._rng = make_state(self.seed, 2)
        self._lam, self._rule = lam, ConfidenceRule(c, union).checked()
        self._start(self.T)

    def _start(self, T: int) -> None:
        from bandits.subsets.algorithms import _parse_lam

        auto, lam_val = _parse_lam(self._lam, self.N, self.K, T)
        self._cfg = _k.DartConfig(self.K, int(T), lam_val, auto, self._rule.c,
                                  self._rule.union)
        self._st = _k.dart_state(self.N, self.K)
        _k.dart_reset(self._st, self._cfg, self._rng)

    @property
    def mu_hat(self) -> np.ndarray:
        """Current per-arm estimates."""
        return self._st.mu_hat.copy()

    def _decide(self, action: np.ndarray) -> None:
        _k.dart_action(self._st, self._cfg, action)

    def _update(self, action: np.ndarray, r: float) -> bool:
        return bool(_k.dart_observe(self._st, self._cfg, r, self._rng))

    def _finish(self) -> tuple[np.ndarray, str]:
        chosen = np.zeros(self.K, dtype=np.int64)
        _k.dart_commit(self._st, self._cfg, chosen)
        return chosen, _STOP[int(self._st.ints[_k.D_STOP])]


class DartAnytimePolicy(DartPolicy):
    """Anytime DART (Appendix G): DART restarted from scratch at ``T_l = 2^l``, each restart
    with its own length as horizon; ``T`` only ends the experiment. ``lam``: ``"auto"`` per
    restart or a fixed number (as :func:`bandits.subsets.dart_anytime`)."""

    def __init__(self, N: int, K: int, T: int, *, seed: int = 0, lam: float | str = "auto",
                 c: float = 32.0, union: float = 1.0) -> None:
        if lam == "printed":
            raise ValueError("lam='printed' is not available in the ask/tell DART-anytime "
                             "(use 'auto' or a number)")
        self._ell, self._block_start = 1, 0
        SubsetPolicy.__init__(self, N, K, T, seed)
        self._rng = make_state(self.seed, 2)
        self._lam, self._rule = lam, ConfidenceRule(c, union).checked()
        self._start(self._block_length())
        self._last_stop = "horizon"

    @property
    def exploring(self) -> bool:
        return not self.done and self._st.ints[_k.D_DONE] == 0

    def _block_length(self) -> int:
        return min(2**self._ell - 2 ** (self._ell - 1), self.T - self._block_start)

    def _update(self, action: np.ndarray, r: float) -> bool:
        # a restart's exploration ends early: its commit phase plays the committed subset
        # to the end of the block, then the next restart begins
        if self._st.ints[_k.D_DONE] == 0:
            if _k.dart_observe(self._st, self._cfg, r, self._rng):
                self._last_stop = _STOP[int(self._st.ints[_k.D_STOP])]
                self._chosen = np.zeros(self.K, dtype=np.int64)
                _k.dart_commit(self._st, self._cfg, self._chosen)
        if self._t - self._block_start < self._cfg.T:
            return False
        if self._t >= self.T:
            return True
        self._block_start = self._t
        self._ell += 1
        self._start(self._block_length())
        return False

    def _decide(self, action: np.ndarray) -> None:
        if self._st.ints[_k.D_DONE] == 1:
            action[:] = self._chosen
        else:
            _k.dart_action(self._st, self._cfg, action)

    def _finish(self) -> tuple[np.ndarray, str]:
        chosen = np.zeros(self.K, dtype=np.int64)
        _k.dart_commit(self._st, self._cfg, chosen)
        return chosen, self._last_stop


class CsarPolicy(SubsetPolicy):
    """CSAR (Rejwan & Mansour 2020) one query at a time, with the designs of
    :func:`bandits.subsets.algorithms.csar_designs`."""

    def __init__(self, N: int, K: int, T: int, *, seed: int = 0, c: float = 2.0) -> None:
        from bandits.subsets.algorithms import csar_designs

        super().__init__(N, K, T, seed)
        self._rng = make_state(self.seed, 2)
        self._designs = csar_designs(self.K)
        self._st = _k.csar_state(self.N, self.K, ConfidenceRule(c).checked().c)
        _k.csar_reset(self._st, self.K, self.T, self._designs, self._rng)
        if self._st.ints[_k.C_DONE] == 1:  # not even one phase fits in T
            rec, self.stopped_by = self._finish()
            self.recommendation, self.done = np.sort(rec), True

    def _decide(self, action: np.ndarray) -> None:
        _k.csar_action(self._st, self._designs, action)

    def _update(self, action: np.ndarray, r: float) -> bool:
        return bool(_k.csar_observe(self._st, self.K, self.T, self._designs, r, self._rng))

    def _finish(self) -> tuple[np.ndarray, str]:
        chosen = np.zeros(self.K, dtype=np.int64)
        _k.csar_commit(self._st, self.K, chosen)
        return chosen, _STOP[int(self._st.ints[_k.C_STOP])]


class LintsPolicy(SubsetPolicy):
    """Linear Thompson sampling on subset indicators (Agrawal & Goyal 2013); ``scaled``,
    ``v``, ``reg``, ``R`` as in :func:`bandits.subsets.lints`. Explores to the horizon."""

    def __init__(self, N: int, K: int, T: int, *, seed: int = 0, scaled: bool = True,
                 v: float | None = None, reg: float = 1.0, R: float = 0.5) -> None:
        from bandits.subsets.algorithms import lints_scale

        super().__init__(N, K, T, seed)
        v, reg = lints_scale(self.N, scaled, v, reg, R)
        self._rng = make_state(self.seed, 2)
        self._cfg = _k.LintsConfig(self.K, self.T, v, reg)
        self._st = _k.lints_state(self.N)
        _k.lints_reset(self._st, self._cfg)

    def _decide(self, action: np.ndarray) -> None:
        _k.lints_action(self._st, self._cfg, action, self._rng)

    def _update(self, action: np.ndarray, r: float) -> bool:
        return bool(_k.lints_observe(self._st, self._cfg, action, r))

    def _finish(self) -> tuple[np.ndarray, str]:
        chosen, theta = np.zeros(self.K, dtype=np.int64), np.zeros(self.N)
        _k.lints_commit(self._st, self._cfg, theta, chosen)
        return chosen, "horizon"


class UcbPolicy(SubsetPolicy):
    """Improved UCB (Auer & Ortner 2010) over all C(N, K) subsets, one play at a time."""

    def __init__(self, N: int, K: int, T: int, *, seed: int = 0,
                 max_actions: int = 1_000_000, c: float = 2.0) -> None:
        super().__init__(N, K, T, seed)
        M = math.comb(self.N, self.K)
        if M > max_actions:
            raise ValueError(f"UCB needs all C(N, K) = {M:,} subsets in memory; more than "
                             f"max_actions = {max_actions:,}")
        actions = np.array(list(combinations(range(self.N), self.K)), dtype=np.int64)
        self._rng = make_state(self.seed, 2)
        self._st = _k.ucb_state(actions, ConfidenceRule(c).checked().c)
        _k.ucb_reset(self._st, self.T, self._rng)
        if self._st.ints[_k.U_DONE] == 1:
            rec, self.stopped_by = self._finish()
            self.recommendation, self.done = np.sort(rec), True

    def _decide(self, action: np.ndarray) -> None:
        _k.ucb_action(self._st, action)

    def _update(self, action: np.ndarray, r: float) -> bool:
        return bool(_k.ucb_observe(self._st, self.T, r))

    def _finish(self) -> tuple[np.ndarray, str]:
        from bandits.subsets.algorithms import ucb_stop_reason

        chosen = np.zeros(self.K, dtype=np.int64)
        _k.ucb_commit(self._st, chosen)
        return chosen, ucb_stop_reason(int(self._st.ints[_k.U_STEPS]),
                                       int(self._st.ints[_k.U_ALIVE]), self.T)


_POLICIES: dict[str, Any] = {
    "dart": DartPolicy, "dart-anytime": DartAnytimePolicy, "csar": CsarPolicy,
    "lints": LintsPolicy, "lints-unscaled": lambda *a, **kw: LintsPolicy(*a, scaled=False, **kw),
    "ucb": UcbPolicy,
}


def make_subset_policy(name: str, arms: Any, *, seed: int = 0, T: int | None = None,
                       K: int | None = None, **options: Any) -> SubsetPolicy:
    """The ask/tell policy of a subset algorithm (registry factory).

    ``arms``: a :class:`bandits.subsets.SubsetEnv` (its ``N`` and ``K``), the number of arms
    ``N``, or a sequence of N arm labels; ``K`` (subset size) is required unless ``arms`` is
    a SubsetEnv; ``T`` is the horizon. ``n_points`` (a simulation option) is ignored.
    """
    from bandits.subsets.env import SubsetEnv

    if name not in _POLICIES:
        raise ValueError(f"no subset policy {name!r}; known: {', '.join(_POLICIES)}")
    options.pop("n_points", None)  # checkpoints of the simulated regret curve only
    if isinstance(arms, SubsetEnv):
        N, K = arms.N, arms.K if K is None else K
    elif isinstance(arms, (int, np.integer)) and not isinstance(arms, bool):
        N = int(arms)
    else:
        try:
            N = len(arms)
        except TypeError:
            raise ValueError(f"arms must be a SubsetEnv, the number of arms or a sequence "
                             f"of arm labels; got {arms!r}") from None
    if K is None:
        raise ValueError("K (the subset size) is required")
    if T is None:
        raise ValueError("T (the horizon) is required: the subset algorithms depend on it")
    if isinstance(T, float) and math.isfinite(T) and T == int(T):
        T = int(T)
    return _POLICIES[name](N, K, T, seed=seed, **options)


def subset_reward_oracle(env: Any, seed: int):
    """A function ``subset -> joint reward`` drawing exactly the rewards a simulation of
    ``env`` with ``seed`` draws (stream 1), to drive a policy in tests and examples."""
    state = make_state(check_seed(seed), 1)

    def draw(subset: Any) -> float:
        a = np.asarray(subset, dtype=np.int64)
        return float(_k.draw_joint(a, env.K, env.means, env.table, env.kind_code, env.rho,
                                   env.sigma, state))

    return draw
