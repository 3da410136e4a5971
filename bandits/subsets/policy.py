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
the horizon); ``stopped_by`` says why the exploration ended. Batches (``ask(n)``),
delayed and partial tells, warm starts (``observe``) and saved state (``save``,
:func:`bandits.load_policy`) are those of :class:`SubsetPolicy`.
"""

from __future__ import annotations

import copy
import math
import warnings
from itertools import combinations
from pathlib import Path
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
#: The reward slot of a cancelled ask: the subset keeps its place in the schedule and is
#: asked again (:meth:`SubsetPolicy.cancel`).
_CANCELLED = "cancelled"
#: Attributes a look-ahead copy does not take (bookkeeping of the real policy only).
_NOT_CLONED = ("_fifo", "_log", "_config", "ids", "unused", "_late", "_index")


class SubsetPolicy:
    """Base of the subset policies: batches, delayed tells, warm starts, saved state.

    An action is a K-subset (an int64 array of arm indices) and its outcome one joint
    reward. Subclasses implement ``_decide(action)`` (fill the subset to play, from the
    state), ``_update(action, r) -> bool`` (the step kernel's update with its joint reward;
    True when the exploration is over), ``_finish() -> (recommendation, stopped_by)``,
    ``_boundary()`` (whether the decisions after the next update depend on its reward) and
    ``_warm(items)`` (warm start, :meth:`observe`).

    **Batch rule** (``docs/choices.md``, "Batches of the subset algorithms").
    ``ask(n)`` returns the next ``n`` subsets of the algorithm's own schedule: DART's groups
    of the current random partition (and the next partitions, drawn from the policy's
    stream as the sequential run draws them), CSAR's queries of the current phase, improved
    UCB's plays of the current round. They are decided on a throw-away copy of the policy
    fed the outstanding subsets with placeholder rewards, up to the first step whose reward
    the schedule depends on (DART's accept/reject test, the end of a CSAR phase or of a UCB
    round: a batch ends there, and continues once those rewards are told). Rewards are
    applied to the real state in the order the subsets were decided, each as soon as every
    earlier one is told, so a batched run makes *exactly* the decisions, estimates and
    commitment of the sequential run on the same rewards, at any batch size (a subset asked
    twice fills its oldest outstanding slot first: twins told in swapped order swap their
    rewards, interchangeable samples of one subset). LinTS
    (every decision depends on all rewards) takes the rule of the linear policies
    (GP-BUCB's hallucinated observations, Desautels, Krause & Burdick 2014): the copy is
    fed the outstanding subsets with the posterior mean as reward (the mean stays, the
    covariance shrinks), and each subset of the batch is a Thompson draw from that
    posterior, with the policy's own random stream.

    * ``ask()`` -- the oldest outstanding subset (the same until it is told), else the next
      decision; ``ask(n)`` -- a list of up to ``n`` *new* subsets (shorter only where the
      schedule needs an outstanding reward; ``[]`` only while rewards are outstanding).
      After the exploration, ``ask()`` returns the committed subset (``ask(n)``: ``n``
      copies of it): play it to the horizon.
    * ``tell(subset, reward)`` or ``tell(subsets, rewards)`` -- joint rewards of asked
      subsets, in any order, possibly later and partially (a subset asked several times
      fills its oldest outstanding slot).
    * ``cancel(subsets)`` / ``cancel()`` -- withdraw outstanding asks whose rewards will
      never come (a lost batch): nothing is learnt from them, and each keeps its place in
      the schedule and is asked again first (every asked subset is a step of the
      schedule, which the rewards are applied in).
    * ``observe(subsets, rewards)`` -- joint rewards the policy did not ask for (warm
      start; how each algorithm uses them: the subclass's ``_warm``).
    * ``save(path)`` / :func:`bandits.load_policy` -- the versioned JSON state file of
      every policy (:mod:`bandits._core.state`).
    """

    #: How ``ask(n)`` fills a batch: ``"schedule"`` (the algorithm's own next steps: the
    #: sequential decisions exactly) or ``"hallucinated"`` (LinTS: posterior draws).
    batch_rule = "schedule"
    #: How ``observe`` uses warm data: ``"schedule"`` (only measurements of the schedule's
    #: next subsets, which they fill), ``"samples"`` (UCB: per-subset samples) or
    #: ``"posterior"`` (LinTS: Bayesian updates).
    warm_rule = "schedule"

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
        self._plays = np.zeros(self.N, dtype=np.int64)
        self._t = 0
        self.done = False
        self.stopped_by: str | None = None
        self.recommendation: np.ndarray | None = None
        #: Decided and asked subsets whose rewards were not yet applied, in decision
        #: order: ``[subset, reward, None (outstanding) or _CANCELLED (to ask again)]``.
        self._fifo: list = []
        #: Event log ``[kind, subsets, rewards-or-None, n]`` (replayed by load_policy).
        self._log: list = []
        self._config: dict | None = None
        #: Optional names of the arms, carried to saved states.
        self.ids: list[str] | None = None
        #: Warm-start measurements the algorithm could not use, ``[subset, reward]``.
        self.unused: list = []
        self._reward_sum = 0.0

    # ---- counters ----------------------------------------------------------------------

    @property
    def samples(self) -> int:
        """Joint rewards applied so far (steps of the schedule)."""
        return self._t

    @property
    def counts(self) -> np.ndarray:
        """Plays of each arm while exploring (each applied subset counts once for each of
        its arms), as ``RunResult.counts`` of the simulation."""
        return self._plays.copy()

    @property
    def exploring(self) -> bool:
        """Whether the next applied reward is used (False while a committed subset is
        played: the simulation draws no rewards there, only the regret counts)."""
        return not self.done

    @property
    def outstanding(self) -> list[list[int]]:
        """Subsets asked and not yet told, in ask order."""
        return [[int(v) for v in a] for a, r in self._fifo if r is None]

    @property
    def late(self) -> list:
        """Rewards told after the exploration ended (none: a batch never crosses it)."""
        return self.__dict__.setdefault("_late", [])

    @property
    def reward_sum(self) -> float:
        """Sum of the rewards applied and observed (a check value of the saved state)."""
        return float(self._reward_sum)

    def _events(self) -> list:
        return self._log

    # ---- ask ---------------------------------------------------------------------------

    def ask(self, n: int | None = None) -> np.ndarray | list[np.ndarray]:
        """The K arms to play now (``n`` None: the oldest outstanding subset, the same until
        it is told, else the next decision), or a batch of up to ``n`` new subsets (class
        docstring). After the exploration, the committed subset."""
        if n is not None and (isinstance(n, bool) or not isinstance(n, (int, np.integer))
                              or n < 1):
            raise ValueError(f"n must be a positive integer; got {n!r}")
        if self.done:
            rec = self.recommendation.copy()  # type: ignore[union-attr]
            return rec if n is None else [rec.copy() for _ in range(int(n))]
        if n is None:
            for entry in self._fifo:
                if entry[1] is None:
                    return entry[0].copy()
                if entry[1] is _CANCELLED:
                    break
            return self._ask_batch(1)[0]
        return self._ask_batch(int(n))

    def _ask_batch(self, n: int) -> list[np.ndarray]:
        """Up to ``n`` subsets: the cancelled ones first (in schedule order, outstanding
        again), then new decisions; one ``ask`` event in the log."""
        out: list[np.ndarray] = []
        for entry in self._fifo:
            if len(out) == n:
                break
            if entry[1] is _CANCELLED:
                entry[1] = None
                out.append(entry[0].copy())
        if len(out) < n:
            if not self._fifo and n == 1:  # the sequential step: decide on the real state
                self._decide(self._action)
                new = [self._action.copy()]
            else:
                new = self._look_ahead(n - len(out))
            self._fifo.extend([a, None] for a in new)
            out += [a.copy() for a in new]
        self._log.append(["ask", [a.tolist() for a in out], None, n])
        return out

    def _look_ahead(self, n: int) -> list[np.ndarray]:
        """Up to ``n`` next subsets, decided on a copy fed the outstanding ones."""
        sim = self._clone()
        for a, _ in self._fifo:
            if sim.done or sim._boundary():
                return []
            sim._feed(a, sim._hallucinated(a))
        out: list[np.ndarray] = []
        while len(out) < n and not sim.done:
            sim._decide(sim._action)
            a = sim._action.copy()
            out.append(a)
            if len(out) == n or sim._boundary():
                break
            sim._feed(a, sim._hallucinated(a))
        return out

    def _clone(self) -> SubsetPolicy:
        memo = {id(obj): obj for obj in self._shared()}
        clone = object.__new__(type(self))
        clone.__dict__ = {key: copy.deepcopy(val, memo) for key, val in self.__dict__.items()
                          if key not in _NOT_CLONED}
        clone._fifo, clone._log, clone.unused = [], [], []
        return clone

    def _shared(self) -> list:
        """Objects a look-ahead copy shares with the policy instead of copying (read-only
        tables; LinTS's random stream, so that a batch's draws advance it)."""
        return []

    def _boundary(self) -> bool:
        """Whether the decisions after the next update depend on its reward."""
        return False

    def _hallucinated(self, action: np.ndarray) -> float:
        """The reward a look-ahead copy is fed (a placeholder: the schedule does not read
        it before the next boundary)."""
        return 0.0

    # ---- tell / observe ----------------------------------------------------------------

    def tell(self, subset: Any, reward: Any) -> None:
        """Report joint rewards of asked subsets: ``tell(subset, reward)`` or
        ``tell(subsets, rewards)``, in any order, possibly a part of what was asked."""
        if self.done:
            raise RuntimeError(f"the exploration has ended ({self.stopped_by}); play "
                               "policy.recommendation")
        pairs = self._pairs(subset, reward)
        if not any(r is None for _, r in self._fifo):
            raise ValueError("tell() without a pending ask(): call ask() first, or "
                             "observe() for measurements the policy did not ask for")
        taken = self._slots([key for key, _ in pairs], "told")
        self._log.append(["tell", [list(k) for k, _ in pairs], [r for _, r in pairs]])
        for slot, (_, r) in zip(taken, pairs, strict=True):
            self._fifo[slot][1] = r
        while self._fifo and self._fifo[0][1] is not None \
                and self._fifo[0][1] is not _CANCELLED:
            a, r = self._fifo.pop(0)
            if self.done:  # pragma: no cover - a batch never crosses the end
                self.late.append([a.tolist(), r])
                continue
            self._reward_sum += r
            self._feed(a, r)

    def _slots(self, keys: list[tuple[int, ...]], verb: str) -> list[int]:
        """The outstanding slot of each subset (sorted ``keys``), each matched to its oldest
        outstanding ask not matched before; ValueError naming it otherwise (nothing
        changes)."""
        open_slots = [i for i, (_, r) in enumerate(self._fifo) if r is None]
        taken: list[int] = []
        for key in keys:
            slot = next((i for i in open_slots if i not in taken
                         and tuple(sorted(self._fifo[i][0].tolist())) == key), None)
            if slot is None:
                asked = self.outstanding
                raise ValueError(f"subset {list(key)} was {verb} but "
                                 f"{asked[0] if len(asked) == 1 else asked} was asked")
            taken.append(slot)
        return taken

    def cancel(self, subsets: Any = None) -> list[list[int]]:
        """Withdraw outstanding asks whose rewards will never come (a lost batch, a failed
        run): ``subsets`` (each matched to its oldest outstanding ask, as ``tell`` does),
        or every outstanding ask when None. Returns the subsets withdrawn (sorted).

        Nothing is learnt from a withdrawn ask. Every asked subset is a step of the
        algorithm's schedule and the rewards are applied in schedule order, so a cancelled
        subset keeps its place and the next ``ask`` asks it again first: the run then
        makes the decisions of a run that never lost it (``docs/choices.md``, "Cancelled
        asks"). Subsets that are not outstanding raise ``ValueError`` before anything
        changes."""
        if subsets is None:
            keys = [tuple(sorted(a.tolist())) for a, r in self._fifo if r is None]
        else:
            keys = [self._subset_key(s_) for s_ in self._subset_list(subsets)]
        if not any(r is None for _, r in self._fifo):
            raise ValueError("subsets cannot be cancelled: no ask is outstanding")
        slots = self._slots(keys, "cancelled")
        self._log.append(["cancel", [list(k) for k in keys], None])
        for slot in slots:
            self._fifo[slot][1] = _CANCELLED
        return [list(k) for k in keys]

    def _feed(self, action: np.ndarray, r: float) -> None:
        """One step of the schedule: the subset's joint reward into the step kernel."""
        if self.exploring:
            _k.count_plays(action, self._plays)
        self._t += 1
        if self._update(action, r):
            rec, self.stopped_by = self._finish()
            self.recommendation = np.sort(rec)
            self.done = True

    def observe(self, subset: Any, reward: Any) -> None:
        """Take joint rewards the policy did not ask for (a warm start). How they enter
        depends on the algorithm (see the subclass, and ``docs/choices.md``, "Batches of
        the subset algorithms"); measurements an algorithm cannot use are kept in
        :attr:`unused` and reported by a warning, never silently dropped."""
        if self.done:
            raise RuntimeError(f"the exploration has ended ({self.stopped_by})")
        if self._fifo:
            raise ValueError("observe(): tell the outstanding subsets first, and ask again "
                             "and tell the cancelled ones (a warm start enters between "
                             "steps of the schedule)")
        pairs = self._pairs(subset, reward)
        self._log.append(["observe", [list(k) for k, _ in pairs], [r for _, r in pairs]])
        items = [(np.array(k, dtype=np.int64), r) for k, r in pairs]
        unused = self._warm(items)
        self._reward_sum += sum(r for _, r in items) - sum(r for _, r in unused)
        if unused:
            self.unused.extend([a.tolist(), r] for a, r in unused)
            warnings.warn(f"observe(): {len(unused)} of {len(items)} measurements were not "
                          f"used by {type(self).__name__} ({self._warm_rule()}); they are "
                          "kept in policy.unused", UserWarning, stacklevel=2)

    def _warm(self, items: list) -> list:
        """Warm start: the measurements that are the schedule's next steps fill them (they
        enter exactly as asked ones would, and count as steps); returns the unused ones.
        (DART, CSAR: their estimators are built on their own randomised schedules.)"""
        left = list(items)
        while left and not self.done:
            self._decide(self._action)
            key = sorted(self._action.tolist())
            hit = next((i for i, (a, _) in enumerate(left) if sorted(a.tolist()) == key),
                       None)
            if hit is None:
                break
            _, r = left.pop(hit)
            self._feed(self._action.copy(), r)
        return left

    def _warm_rule(self) -> str:
        return ("only measurements of the schedule's next subsets enter its estimates: the "
                "estimator is built on its own randomised schedule")

    def _pairs(self, subset: Any, reward: Any) -> list[tuple[tuple[int, ...], float]]:
        """``[(sorted subset, reward)]`` from one subset and a number, or equal-length
        sequences of subsets and rewards; validated."""
        if isinstance(reward, (str, bytes)):
            raise ValueError(f"reward must be a number; got {reward!r}")
        if np.ndim(reward) == 0:
            subsets, rewards = [subset], [reward]
        else:
            rewards = list(reward)
            try:
                subsets = list(subset)
            except TypeError:
                raise ValueError("subsets: pass one subset per reward (a sequence of "
                                 f"subsets); got {subset!r}") from None
            if len(subsets) != len(rewards):
                raise ValueError(f"rewards: {len(rewards)} rewards for {len(subsets)} "
                                 "subsets")
        return [(self._subset_key(s_), check_reward(r))
                for s_, r in zip(subsets, rewards, strict=True)]

    def _subset_list(self, subsets: Any) -> list:
        """One subset (a sequence of K ints) or a sequence of subsets, as a list."""
        a = np.asarray(subsets, dtype=object)
        if a.ndim == 1 and a.shape[0] == self.K and all(
                np.ndim(v) == 0 for v in a):
            return [subsets]
        try:
            return list(subsets)
        except TypeError:
            raise ValueError(f"subsets: pass a subset or a sequence of subsets; got "
                             f"{subsets!r}") from None

    def _subset_key(self, s_: Any) -> tuple[int, ...]:
        """The sorted arms of one subset, validated (K distinct integer arms)."""
        a = np.asarray(s_)
        if a.ndim != 1 or a.shape[0] != self.K or not np.issubdtype(a.dtype, np.integer):
            raise ValueError(f"subsets: {s_!r} is not a subset of K = {self.K} integer "
                             "arm indices")
        if a.min() < 0 or a.max() >= self.N or np.unique(a).size != self.K:
            raise ValueError(f"subsets: {a.tolist()} must hold {self.K} distinct arms "
                             f"in 0..{self.N - 1}")
        return tuple(sorted(int(v) for v in a))

    # ---- saved state -------------------------------------------------------------------

    def save(self, path: str | Path, extra: dict | None = None) -> None:
        """Write the policy's state as versioned JSON (:mod:`bandits._core.state`);
        :func:`bandits.load_policy` resumes it exactly."""
        from bandits._core.state import save_policy

        save_policy(self, path, extra)

    def _saved_build(self, arms: Any, arguments: dict) -> tuple[Any, dict]:
        """What a state file records to rebuild the policy: ``N`` and the arguments with
        ``K`` (a SubsetEnv is not stored; its N and K are)."""
        return self.N, {**arguments, "K": self.K}

    # ---- the step kernel (subclasses) --------------------------------------------------

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

    def _boundary(self) -> bool:
        """The next reward closes an epoch that ends with the accept/reject test
        (``e >= c ln(union N T) / Delta^2``): the next partition depends on it."""
        ints, fl = self._st.ints, self._st.floats
        if ints[_k.D_DONE] == 1:
            return False
        return bool(ints[_k.D_GROUP] + 1 >= ints[_k.D_GROUPS]
                    and ints[_k.D_EPOCH] >= fl[_k.F_THRESHOLD])

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

    def _boundary(self) -> bool:
        """DART's test, and any step that may end a restart's exploration (its commit
        subset, played to the end of the restart, depends on the estimates)."""
        ints, fl = self._st.ints, self._st.floats
        if ints[_k.D_DONE] == 1:
            return False  # the commit part: rewards are not used
        end_epoch = ints[_k.D_GROUP] + 1 >= ints[_k.D_GROUPS]
        if end_epoch and (ints[_k.D_EPOCH] >= fl[_k.F_THRESHOLD]
                          or (not self._cfg.auto and fl[_k.F_DELTA] < self._cfg.lam)):
            return True
        return bool(ints[_k.D_STEPS] + 1 >= self._cfg.T)

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

    def _boundary(self) -> bool:
        """The next reward is the phase's last query: the test and the next phase depend
        on it."""
        ints = self._st.ints
        return bool(ints[_k.C_QUERY] + 1 == ints[_k.C_QUERIES]
                    and ints[_k.C_BLOCK] + 1 == ints[_k.C_BLOCKS]
                    and ints[_k.C_REP] + 1 == ints[_k.C_REPS])

    def _shared(self) -> list:
        return [self._designs]

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

    batch_rule = "hallucinated"
    warm_rule = "posterior"

    def _shared(self) -> list:
        return [self._rng]  # a batch's Thompson draws advance the policy's stream

    def _hallucinated(self, action: np.ndarray) -> float:
        """The posterior mean of the subset's reward, ``sum_{i in a} (B^-1 f)_i``: fed back,
        it leaves the mean unchanged and shrinks the covariance (GP-BUCB)."""
        theta, chosen = np.zeros(self.N), np.zeros(self.K, dtype=np.int64)
        _k.lints_commit(self._st, self._cfg, theta, chosen)
        return float(theta[action].sum())

    def _warm(self, items: list) -> list:
        """Warm start: each measurement is a Bayesian update of the posterior (``B += x
        x^T``, ``f += r x`` for the subset's indicator ``x``), as a played step is; it does
        not use up the horizon and is not counted in ``samples`` or ``counts``."""
        for a, r in items:
            _k.lints_observe(self._st, self._cfg, a, r)
            self._st.ints[0] -= 1
        return []

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

    def _boundary(self) -> bool:
        """The next reward completes the round (every remaining subset has ``n_m``
        samples): the elimination, hence the next round, depends on it."""
        st = self._st
        ints, alive, cnt = st.ints, st.alive, st.cnt
        need, pos = ints[_k.U_NEED], ints[_k.U_POS]
        if cnt[alive[pos]] + 1 < need:
            return False
        rest = alive[pos + 1:ints[_k.U_ALIVE]]
        return not bool(np.any(cnt[rest] < need))

    warm_rule = "samples"

    def _shared(self) -> list:
        return [self._st.actions]

    def _warm(self, items: list) -> list:
        """Warm start: a joint reward of subset ``S`` is a sample of the action ``S``: it
        enters that action's count and mean (the elimination at the end of each round
        uses every sample, ``n >= n_m`` ones keep the radius of ``n_m``), and an action
        with enough samples for the round is not asked for more. Warm samples do not use
        up the horizon and are not counted in ``samples`` or ``counts``."""
        st = self._st
        index = self.__dict__.get("_index")
        if index is None:
            index = {tuple(int(v) for v in row): i for i, row in enumerate(st.actions)}
            self._index = index
        for a, r in items:
            i = index[tuple(sorted(int(v) for v in a))]
            st.cnt[i] += 1
            st.mean[i] += (r - st.mean[i]) / st.cnt[i]
        _k.ucb_next(st, self.T)  # skip satisfied actions, close a completed round
        if st.ints[_k.U_DONE] == 1:
            rec, self.stopped_by = self._finish()
            self.recommendation, self.done = np.sort(rec), True
        return []

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
        labels = [str(a) for a in arms]
    if K is None:
        raise ValueError("K (the subset size) is required")
    if T is None:
        raise ValueError("T (the horizon) is required: the subset algorithms depend on it")
    if isinstance(T, float) and math.isfinite(T) and T == int(T):
        T = int(T)
    pol = _POLICIES[name](N, K, T, seed=seed, **options)
    if not isinstance(arms, (int, np.integer, SubsetEnv)):
        pol.ids = labels
    return pol


def subset_reward_oracle(env: Any, seed: int):
    """A function ``subset -> joint reward`` drawing exactly the rewards a simulation of
    ``env`` with ``seed`` draws (stream 1), to drive a policy in tests and examples."""
    state = make_state(check_seed(seed), 1)

    def draw(subset: Any) -> float:
        a = np.asarray(subset, dtype=np.int64)
        return float(_k.draw_joint(a, env.K, env.means, env.table, env.kind_code, env.rho,
                                   env.sigma, state))

    return draw
