"""Ask/tell front-end of DART for a real top-K subset experiment.

The policy drives the same jitted step kernel as the simulation (:func:`dart_action` to
decide the subset to play, :func:`dart_observe` to take its joint reward; see
:mod:`bandits.subsets._kernels`), so for the same seed and the same rewards it plays the
same subsets and commits to the same one as :func:`bandits.subsets.dart`.

>>> pol = DartPolicy(N=45, K=2, T=100_000, seed=0)       # doctest: +SKIP
>>> while not pol.done:                                   # doctest: +SKIP
...     subset = pol.ask()
...     pol.tell(subset, joint_reward(subset))
>>> pol.recommendation                                    # doctest: +SKIP
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from bandits._core.protocol import check_reward
from bandits._core.rng import make_state
from bandits._core.validate import check_int, check_seed
from bandits.subsets import _kernels as _k

__all__ = ["DartPolicy", "make_subset_policy", "subset_reward_oracle"]

_STOP = {_k.STOP_HORIZON: "horizon", _k.STOP_ALL_DECIDED: "all-decided",
         _k.STOP_LAMBDA: "lambda"}


class DartPolicy:
    """DART (Agarwal, Aggarwal, Quinn & Umrawal, Algorithms 1-2) one subset at a time.

    Parameters
    ----------
    N : int
        Number of arms (``>= 2``).
    K : int
        Subset size, ``1 <= K < N``.
    T : int
        Horizon (``>= N``): DART's test threshold ``c ln(NT) / Delta^2`` and the ``"auto"``
        lambda rule depend on it.
    seed : int
        Seeds the random partitions (the simulation's stream 2).
    lam, c
        As in :func:`bandits.subsets.dart`.

    Attributes
    ----------
    done : bool
        Exploration is over: ``recommendation`` is the committed subset, ``stopped_by`` is
        ``"all-decided"``, ``"lambda"`` or ``"horizon"``. :meth:`ask` then keeps returning
        the committed subset (DART's commit phase).
    """

    def __init__(self, N: int, K: int, T: int, *, seed: int = 0, lam: float | str = "auto",
                 c: float = 32.0) -> None:
        from bandits.subsets.algorithms import _check_c, _parse_lam

        self.N = check_int(N, "N", 2)
        self.K = check_int(K, "K", 1)
        if self.K >= self.N:
            raise ValueError(f"K must be < N = {self.N}; got K = {K}")
        self.T = check_int(T, "T", 1)
        if self.T < self.N:
            raise ValueError(f"T must be at least the number of arms N = {self.N}; got T = {T}")
        auto, lam_val = _parse_lam(lam, self.N, self.K, self.T)
        self._cfg = _k.DartConfig(self.K, self.T, lam_val, auto, _check_c(c))
        self._rng = make_state(check_seed(seed), 2)
        self._st = _k.dart_state(self.N, self.K)
        _k.dart_reset(self._st, self._cfg, self._rng)
        self._action = np.empty(self.K, dtype=np.int64)
        self._pending: np.ndarray | None = None
        self._chosen = np.zeros(self.K, dtype=np.int64)
        self.done = False
        self.stopped_by: str | None = None
        self.recommendation: np.ndarray | None = None

    @property
    def samples(self) -> int:
        """Joint rewards told so far (steps)."""
        return int(self._st.ints[_k.D_STEPS])

    @property
    def counts(self) -> np.ndarray:
        """Updates of each arm's estimate so far (one per epoch while undecided)."""
        return self._st.counts.copy()

    @property
    def mu_hat(self) -> np.ndarray:
        """Current per-arm estimates."""
        return self._st.mu_hat.copy()

    def ask(self) -> np.ndarray:
        """The K arms to play now (the same subset until it is told)."""
        if self.done:
            return self.recommendation.copy()  # type: ignore[union-attr]
        if self._pending is None:
            _k.dart_action(self._st, self._cfg, self._action)
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
        self._pending = None
        if _k.dart_observe(self._st, self._cfg, r, self._rng):
            _k.dart_commit(self._st, self._cfg, self._chosen)
            self.done = True
            self.stopped_by = _STOP[int(self._st.ints[_k.D_STOP])]
            self.recommendation = np.sort(self._chosen.copy())


def make_subset_policy(name: str, arms: Any, *, seed: int = 0, T: int | None = None,
                       K: int | None = None, **options: Any) -> DartPolicy:
    """The ask/tell policy of a subset algorithm (registry factory).

    ``arms``: a :class:`bandits.subsets.SubsetEnv` (its ``N`` and ``K``), the number of arms
    ``N``, or a sequence of N arm labels; ``K`` (subset size) is required unless ``arms`` is
    a SubsetEnv; ``T`` is the horizon.
    """
    from bandits.subsets.env import SubsetEnv

    if name != "dart":
        raise ValueError(f"{name!r} has no ask/tell policy yet (simulation only: "
                         "bandits.run / oed subset); DART has one: bandits.policy('dart', ...)")
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
        raise ValueError("T (the horizon) is required: DART's tests depend on it")
    if isinstance(T, float) and math.isfinite(T) and T == int(T):
        T = int(T)
    return DartPolicy(N, K, T, seed=seed, **options)


def subset_reward_oracle(env: Any, seed: int):
    """A function ``subset -> joint reward`` drawing exactly the rewards a simulation of
    ``env`` with ``seed`` draws (stream 1), to drive a policy in tests and examples."""
    state = make_state(check_seed(seed), 1)

    def draw(subset: Any) -> float:
        a = np.asarray(subset, dtype=np.int64)
        return float(_k.draw_joint(a, env.K, env.means, env.table, env.kind_code, env.rho,
                                   env.sigma, state))

    return draw
