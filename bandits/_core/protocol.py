"""The ask/tell protocol shared by every policy front-end (real experiments).

A policy keeps a queue of arms it wants measured (an :class:`ArmQueue`: an int64 array and
a read position, so taking the next arm is O(1) whatever the length of the phase).
``ask()`` returns the pending arm (the same one until it is told), ``tell(arm, reward)``
must report exactly that arm with a finite reward; ``done``, ``stopped_by`` and
``recommendation`` describe the outcome.  Subclasses set ``_queue = ArmQueue(arms)`` and
implement :meth:`AskTellProtocol._observe` (the step kernel's update, then the next
decision).
"""

from __future__ import annotations

import copy
import math
import warnings
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np

from bandits._core.model_check import MODEL_CHECK_ALPHA, ModelCheck, ModelCheckWarning, check_model


class ArmQueue:
    """A first-in first-out queue of arms to measure: an int64 array read from a position.

    ``popleft`` and ``len`` are O(1) (``list.pop(0)`` is O(length), which made RAGE's
    ask cost grow with its phase length, issue 12).
    """

    __slots__ = ("_arms", "_pos")

    def __init__(self, arms: object = ()) -> None:
        self._arms = np.asarray(arms, dtype=np.int64).ravel()
        self._pos = 0

    @classmethod
    def repeated(cls, counts: np.ndarray) -> ArmQueue:
        """Arm ``a`` repeated ``counts[a]`` times, in arm-block order."""
        counts = np.asarray(counts, dtype=np.int64)
        return cls(np.repeat(np.arange(counts.shape[0], dtype=np.int64), counts))

    def __len__(self) -> int:
        return int(self._arms.shape[0]) - self._pos

    def __bool__(self) -> bool:
        return self._pos < self._arms.shape[0]

    def popleft(self) -> int:
        """Remove and return the next arm."""
        if self._pos >= self._arms.shape[0]:
            raise IndexError("pop from an empty ArmQueue")
        arm = int(self._arms[self._pos])
        self._pos += 1
        return arm

    def remove(self, arm: int) -> bool:
        """Remove the first remaining occurrence of ``arm`` (O(remaining)); False if absent.

        Used when a reward arrives for an arm the policy did not take from this queue (a
        batch's look-ahead arm or a warm-start measurement): it fills that slot of the
        allocation instead of adding to it.
        """
        rest = self._arms[self._pos:]
        hit = np.flatnonzero(rest == arm)
        if hit.size == 0:
            return False
        i = self._pos + int(hit[0])
        self._arms = np.concatenate([self._arms[self._pos:i], self._arms[i + 1:]])
        self._pos = 0
        return True

    def push_front(self, arms: Sequence[int]) -> None:
        """Put ``arms`` back before the remaining ones, in this order (cancelled asks)."""
        if len(arms):
            self._arms = np.concatenate([np.asarray(arms, dtype=np.int64),
                                         self._arms[self._pos:]])
            self._pos = 0

    def remaining(self) -> list[int]:
        """The arms still queued, in order."""
        return [int(a) for a in self._arms[self._pos:]]


def check_tell(pending: int | None, arm: object, reward: object) -> float:
    """Validate a ``tell(arm, reward)`` against the pending ask; returns the reward."""
    if pending is None:
        raise ValueError("tell() without a pending ask(): call ask() first")
    if isinstance(arm, bool) or not isinstance(arm, (int, np.integer)) or int(arm) != pending:
        raise ValueError(f"arm {arm!r} was told but arm {pending} was asked")
    return check_reward(reward)


def check_reward(reward: object) -> float:
    """A told reward as a finite float, else a ValueError."""
    try:
        r = float(reward)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"reward must be a number; got {reward!r}") from None
    if not math.isfinite(r):
        raise ValueError(f"reward must be finite; got {reward!r}")
    return r


class Estimate(NamedTuple):
    """The current estimate of a policy (:meth:`AskTellProtocol.estimate`).

    Attributes
    ----------
    theta : ndarray, shape (d,)
        The parameter estimate, in the coordinates of the policy's ``features``.
    means : ndarray, shape (K,)
        ``X theta``: the estimated mean reward of every arm.
    identified : bool
        Whether the arms measured so far span ``R^d`` (else ``theta`` is the minimum-norm
        least-squares solution, or NaN for a logistic model, and only the means of arms
        in the span of the measured ones are estimated).
    """

    theta: np.ndarray
    means: np.ndarray
    identified: bool


class AskTellProtocol:
    """Base of the ask/tell policies: batches, delayed feedback, warm starts, saved state.

    A subclass fills ``_queue`` with the arms its step kernel decided and implements one
    hook, ``_observe(arm, reward)``: the step kernel's update with a validated reward,
    followed by the next decision (refill ``_queue``, or set ``done`` / ``stopped_by`` /
    ``recommendation``), and one prediction hook, ``_predict(arm)`` (the current estimate
    of the arm's mean, or None when there is none yet).  Everything the protocol adds on
    top goes through those hooks, so the simulation's step kernel stays the only
    implementation of the algorithm:

    * ``ask()`` -- the next arm (the same arm until it is told), as before;
      ``ask(n)`` -- a list of up to ``n`` *new* arms to measure now (a batch).
    * ``tell(arm, reward)`` or ``tell(arms, rewards)`` -- results of asked arms, in any
      order, possibly later and partially (delayed feedback); ``outstanding`` lists the
      arms asked and not yet told.
    * ``observe(arms, rewards)`` -- measurements the policy did not ask for (warm start).
    * ``save(path)`` / :func:`bandits.load_policy` -- a versioned JSON state file.

    **Batch rule** (``docs/choices.md``, "Batches and delayed feedback"). The arms of a
    batch are, first, the arms the step kernel already decided on the real data (the
    queue), then *look-ahead* decisions made on a throw-away copy of the policy fed the
    outstanding arms with *hallucinated* rewards equal to the current estimate of their
    means (``_predict``). A hallucinated reward leaves the least-squares estimate
    unchanged and updates ``V`` by the rank-one term ``x x^T`` of the pending measurement:
    the "hallucinated observations" of GP-BUCB (Desautels, Krause & Burdick 2014, JMLR) and
    the lazy update of batched linear bandits. Stopping is checked only on real
    observations: the copy is discarded, the real policy's state and random stream see only
    told and observed rewards, so ``ask(1)`` / ``tell`` gives exactly the sequential run and
    the simulation's trajectory. A batch is shorter than ``n`` when no further arm can be
    chosen without a real reward (the copy cannot predict yet -- ``V`` singular during the
    initialisation of an unstructured algorithm -- or it would already stop, or it hit the
    budget); ``ask(n)`` returns ``[]`` only while rewards are outstanding.
    """

    done: bool = False
    stopped_by: str | None = None
    recommendation: np.ndarray | None = None
    _queue: ArmQueue
    _t: int = 0
    _counts: np.ndarray
    #: Asked arms whose rewards are not yet told, in ask order: [arm, from_queue].
    _asked: list
    #: The number of asked-but-untold arms besides the one being observed (read by
    #: ``_observe``: a decision made before outstanding rewards arrive is stale).
    _outstanding: int = 0
    #: Of those, the arms taken from the real queue (an allocation's or initialisation's
    #: arms: a phase or the initial pulls end only when none of them is outstanding;
    #: look-ahead arms do not hold them up, they fill the next allocation).
    _outstanding_real: int = 0
    #: Whether the reward being observed was not taken from the real queue.
    _unasked: bool = False
    #: Event log ``[kind, arms, rewards-or-None]`` (replayed by :func:`load_policy`).
    _log: list
    #: What :func:`bandits.policy` built the policy from (needed by ``save``).
    _config: dict | None = None
    #: Optional names of the arms, carried to saved states and outputs.
    ids: list[str] | None = None
    #: The noise standard deviation the stopping rule assumes (Gaussian-linear policies
    #: set it; None: :meth:`model_check` does not apply, e.g. a logistic model).
    _noise_sd: float | None = None
    @property
    def late(self) -> list:
        """Rewards told after the policy stopped, ``[arm, reward]`` (kept, not used: the
        recommendation is certified by the data at the stop)."""
        return self.__dict__.setdefault("_late", [])

    @property
    def arm_reward_sums(self) -> np.ndarray:
        """Sum of the used rewards (told and observed) of every arm: with :attr:`counts`,
        the sufficient statistics of :meth:`estimate`."""
        return self._arm_sums().copy()

    def _arm_sums(self) -> np.ndarray:
        if "_arm_reward_sums" not in self.__dict__:
            self._arm_reward_sums = np.zeros(self._n_arms())
        return self._arm_reward_sums

    def _arm_moments(self) -> tuple[np.ndarray, np.ndarray]:
        """Per-arm number of used rewards and their within-arm sum of squared deviations
        from the arm's mean (Welford's update in :meth:`_feed`, the means from
        :meth:`_arm_sums`)."""
        if "_arm_ss" not in self.__dict__:
            self._arm_n = np.zeros(self._n_arms(), dtype=np.int64)
            self._arm_ss = np.zeros(self._n_arms())
        return self._arm_n, self._arm_ss

    def model_check(self, alpha: float = MODEL_CHECK_ALPHA) -> ModelCheck:
        r"""Test the model and the noise level the stopping rule assumes on the rewards
        used so far: the lack-of-fit chi-square ``sum_a n_a (ybar_a - x_a^T
        theta_hat)^2 / sigma^2`` on ``k - r`` degrees of freedom and the pure-error
        chi-square ``sum_a SS_a / sigma^2`` on ``N - k`` (``k`` arms measured, ``r`` their
        rank, ``N`` measurements), each rejecting at ``alpha``
        (:mod:`bandits._core.model_check`, Draper & Smith Sec. 2.1). A rejected check
        means the set a stopping rule certifies is *not* certified: the measurements
        refute what the certificate assumes. A policy that stops by its rule on a
        rejected check also emits a :class:`ModelCheckWarning`.

        ``ValueError`` for a policy without a Gaussian noise level (logistic models).
        """
        if self._noise_sd is None:
            raise ValueError("model_check: this policy has no Gaussian noise level to "
                             "check (a logistic or subset model)")
        n, ss = self._arm_moments()
        return check_model(self.features, n, self._arm_sums() / np.maximum(n, 1), ss,
                           self._noise_sd, alpha)

    def estimate(self) -> Estimate:
        r"""The current estimate of the model from every reward the policy used.

        Least squares ``theta_hat = argmin sum_a n_a (x_a^T theta - ybar_a)^2`` (``x_a``
        the rows of :attr:`features`) over the arms measured so far (``n_a`` pulls with
        mean reward ``ybar_a``), computed by ``numpy.linalg.lstsq`` on the rows
        ``sqrt(n_a) x_a`` (never the normal equations), the minimum-norm solution while
        those arms do not span ``R^d``. This is the algorithm-independent estimate a
        practitioner reads *during* an experiment
        ("what is winning now"); the stopping rule and the recommendation use the
        algorithm's own estimate (e.g. a ridge or a phase's data only). Rewards told after
        the stop (:attr:`late`) are not used.
        """
        X = np.asarray(self.features, dtype=np.float64)
        n = np.asarray(self.counts, dtype=np.float64)
        seen = n > 0
        d = X.shape[1]
        if not seen.any():
            return Estimate(np.zeros(d), np.zeros(X.shape[0]), False)
        root = np.sqrt(n[seen])
        rows = X[seen] * root[:, None]
        theta, _, rank, _ = np.linalg.lstsq(rows, self._arm_sums()[seen] / root, rcond=None)
        return Estimate(theta, X @ theta, bool(rank == d))

    @property
    def features(self) -> np.ndarray:  # pragma: no cover - abstract
        """The features the model fits, one row per arm (K, d): the arms as given, or the
        identity ``I_K`` for an unstructured algorithm (LUCB, UGapE), which estimates each
        arm's mean on its own. :meth:`estimate`'s ``theta`` is in these coordinates."""
        raise NotImplementedError

    @property
    def reward_sum(self) -> float:
        """Sum of the rewards the policy used (told and observed): a check value of the
        saved state."""
        return float(self.__dict__.get("_reward_sum", 0.0))

    # ---- counters ------------------------------------------------------------------

    @property
    def samples(self) -> int:
        """Rewards told so far."""
        return self._t

    @property
    def counts(self) -> np.ndarray:
        """Pulls per arm so far."""
        return self._counts.copy()

    @property
    def outstanding(self) -> list[int]:
        """Arms asked and not yet told, in ask order."""
        return [a for a, _ in self._pending_list()]

    def _pending_list(self) -> list:
        if "_asked" not in self.__dict__:
            self._asked = []
        return self._asked

    def _events(self) -> list:
        if "_log" not in self.__dict__:
            self._log = []
        return self._log

    # ---- ask -----------------------------------------------------------------------

    def ask(self, n: int | None = None) -> int | list[int]:
        """The next arm to measure (``n`` None), or a batch of up to ``n`` new arms.

        ``ask()`` returns the oldest outstanding arm if there is one (the same arm until it
        is told), else the next decision. ``ask(n)`` always returns new arms: first the
        decided ones, then look-ahead decisions (class docstring). Raises RuntimeError once
        the policy is done.
        """
        if self.done:
            raise RuntimeError(f"the policy has stopped ({self.stopped_by}); read "
                               "policy.recommendation")
        pending = self._pending_list()
        if n is None:
            if pending:
                return int(pending[0][0])
            arms = self._ask_batch(1)
            if not arms:  # pragma: no cover - a live policy always has a decision
                raise RuntimeError("no arm can be asked")
            return arms[0]
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"n must be a positive integer; got {n!r}")
        return self._ask_batch(int(n))

    def _ask_batch(self, n: int) -> list[int]:
        pending = self._pending_list()
        out: list[int] = []
        while len(out) < n and self._queue:
            a = self._queue.popleft()
            out.append(a)
            pending.append([a, True])
        if len(out) < n:
            for a in self._look_ahead(n - len(out)):
                out.append(a)
                pending.append([a, False])
        self._events().append(["ask", out, None, n])
        return out

    def _look_ahead(self, k: int) -> list[int]:
        """Up to ``k`` arms decided on a copy fed hallucinated rewards (class docstring)."""
        pending = self._pending_list()
        if not pending:
            return []
        clone = object.__new__(type(self))  # no __init__ / __new__ logic: a plain copy
        clone.__dict__ = {key: copy.deepcopy(val) for key, val in self.__dict__.items()
                          if key not in ("_log", "_config", "ids", "_late", "_asked")}
        clone._asked = []
        clone._start_look_ahead()
        out: list[int] = []
        real_after = sum(1 for _, q in pending if q)  # from the queue, after arm i
        for i, (a, from_queue) in enumerate(pending):
            real_after -= bool(from_queue)
            r = clone._predict(a)
            if r is None:
                return out
            clone._outstanding, clone._unasked = len(pending) - 1 - i, True
            clone._outstanding_real = real_after
            clone._observe(a, float(r))
            if clone.done:
                return out
        clone._outstanding, clone._outstanding_real, clone._unasked = 0, 0, False
        while len(out) < k and clone._queue and not clone.done:
            a = clone._queue.popleft()
            r = clone._predict(a)
            if r is None:
                break
            out.append(a)
            clone._observe(a, float(r))
        return out

    def _start_look_ahead(self) -> None:
        """Hook: prepare a copy for look-ahead (e.g. drop a decision that pending rewards
        make stale). Default: nothing."""

    def _predict(self, arm: int) -> float | None:  # pragma: no cover - abstract
        """The current estimate of ``arm``'s mean (a hallucinated reward), or None."""
        raise NotImplementedError

    # ---- tell / observe --------------------------------------------------------------

    def tell(self, arm: int | Sequence[int], reward: float | Sequence[float]) -> None:
        """Report measured rewards of asked arms: ``tell(arm, reward)`` or
        ``tell(arms, rewards)``, in any order, possibly a part of what was asked."""
        arms, rewards = _pairs(arm, reward)
        pending = self._pending_list()
        matched = _match_outstanding(pending, arms)
        self._events().append(["tell", arms, rewards])
        outstanding = len(pending)
        outstanding_real = sum(1 for _, from_queue in pending if from_queue)
        told: set[int] = set()
        try:
            for a, r, j in zip(arms, rewards, matched, strict=True):
                from_queue = pending[j][1]
                outstanding -= 1
                outstanding_real -= bool(from_queue)
                told.add(j)
                self._feed(a, r, unasked=not from_queue, outstanding=(outstanding,
                                                                      outstanding_real))
        finally:  # the asks fed so far are no longer outstanding, whatever happens
            pending[:] = [p for j, p in enumerate(pending) if j not in told]

    def cancel(self, arms: int | Sequence[int] | None = None) -> list[int]:
        """Withdraw outstanding asks whose results will never come (a lost plate, a failed
        run): ``arms`` (each matched to its first outstanding ask, as ``tell`` does), or
        every outstanding ask when None. Returns the arms withdrawn.

        Nothing is learnt from a withdrawn ask. An arm the algorithm had decided on the
        real data (taken from its queue: an allocation's or initialisation's pull, the
        current decision) goes back to the front of the queue, in ask order, so the next
        ``ask`` asks it again and the allocation stays what the algorithm planned; a
        look-ahead arm is dropped (``docs/choices.md``, "Cancelled asks"). Unknown or
        not-outstanding arms raise ``ValueError`` before anything changes. Without
        cancelled asks a run whose results were lost could not go on: ``ask(n)`` returns
        no new arm while outstanding results keep the look-ahead from deciding.
        """
        pending = self._pending_list()
        arms = [a for a, _ in pending] if arms is None else _arm_list(arms)
        matched = _match_outstanding(pending, arms, verb="cancelled")
        self._events().append(["cancel", arms, None])
        back = sorted(j for j in matched if pending[j][1])  # real-queue arms, ask order
        self._queue.push_front([pending[j][0] for j in back])
        gone = set(matched)
        pending[:] = [p for j, p in enumerate(pending) if j not in gone]
        return arms

    def observe(self, arm: int | Sequence[int], reward: float | Sequence[float]) -> None:
        """Take measurements the policy did not ask for (a warm start: last year's data).

        They enter exactly as told rewards do: the step kernel's update (the estimate,
        ``V``, the counts and ``t`` of the confidence threshold), then a fresh decision with
        the stopping rule checked; a measured arm fills a slot of the current allocation
        when it has one. See ``docs/choices.md`` ("Warm start") for what this assumes.
        """
        arms, rewards = _pairs(arm, reward)
        K = self._n_arms()
        for a in arms:
            if not 0 <= a < K:
                raise ValueError(f"arms: arm {a} is out of range (K = {K})")
        self._events().append(["observe", arms, rewards])
        pending = self._pending_list()
        outstanding = (len(pending), sum(1 for _, from_queue in pending if from_queue))
        for a, r in zip(arms, rewards, strict=True):
            self._feed(a, r, unasked=True, outstanding=outstanding)

    def _feed(self, arm: int, r: float, *, unasked: bool,
              outstanding: tuple[int, int]) -> None:
        """Give one reward to the step (``_observe``); ``outstanding``: how many asked
        arms are still untold besides this one, and how many of them came from the real
        queue."""
        if self.done:
            self.late.append([arm, r])
            return
        self._reward_sum = self.reward_sum + r
        sums, (n, ss) = self._arm_sums(), self._arm_moments()
        step = r - (sums[arm] / n[arm] if n[arm] else r)  # Welford: from the old mean
        sums[arm] += r
        n[arm] += 1
        ss[arm] += step * (r - sums[arm] / n[arm])  # ... to the new one
        if unasked:
            self._queue.remove(arm)
        self._outstanding, self._outstanding_real = outstanding
        self._unasked = unasked
        self._observe(int(arm), r)
        self._outstanding, self._outstanding_real, self._unasked = 0, 0, False
        if self.done and self.stopped_by == "rule" and self._noise_sd is not None:
            check = self.model_check()
            if check.rejected:
                warnings.warn(f"the stopping rule holds, but the measurements reject "
                              f"what it assumes: {check.message}; the set is not "
                              "certified", ModelCheckWarning, stacklevel=4)

    def _observe(self, arm: int, reward: float) -> None:  # pragma: no cover - abstract
        """The subclass's step: update with ``reward`` of ``arm``, then decide."""
        raise NotImplementedError

    def _n_arms(self) -> int:
        return int(self.counts.shape[0])

    # ---- saved state -------------------------------------------------------------------

    def save(self, path: str | Path, extra: dict | None = None) -> None:
        """Write the policy's state as readable, versioned JSON (atomically: a temporary
        file, then ``os.replace``). :func:`bandits.load_policy` resumes it exactly.
        ``extra`` (JSON-able) is stored under ``"experiment"`` (the CLI keeps its own
        records there). See :mod:`bandits._core.state`."""
        from bandits._core.state import save_policy

        save_policy(self, path, extra)


def _match_outstanding(pending: list, arms: list[int], verb: str = "told") -> list[int]:
    """The position in ``pending`` of each arm's first outstanding ask (ask order; an arm
    given twice takes two asks), all checked before anything changes; O(len) with
    per-arm queues of positions (a search and a list.pop per reward made a tell of n
    rewards cost O(n^2))."""
    where: dict[int, deque] = {}
    for j, (b, _) in enumerate(pending):
        where.setdefault(b, deque()).append(j)
    matched = []
    for a in arms:
        slots = where.get(a)
        if not slots:
            _refuse(pending, arms, a, verb)
        matched.append(slots.popleft())
    return matched


def _refuse(pending: list, arms: list[int], arm: int, verb: str) -> None:
    """The ValueError of a told (cancelled) ``arm`` that has no outstanding ask left (the
    arms before it in the same call took their asks)."""
    if not pending:
        if verb == "told":
            raise ValueError("tell() without a pending ask(): call ask() first, or "
                             "observe() for measurements the policy did not ask for")
        raise ValueError(f"arms: arm {arm!r} cannot be cancelled: no ask is outstanding")
    left = [b for b, _ in pending]
    for a in arms:
        if a == arm and a not in left:
            break
        left.remove(a)
    asked = _describe(left or [b for b, _ in pending])
    raise ValueError(f"arm {arm!r} was {verb} but arm {asked} was asked")


def _describe(arms: list[int]) -> str:
    return str(arms[0]) if len(arms) == 1 else str(arms)


def _pairs(arm: object, reward: object) -> tuple[list[int], list[float]]:
    """``(arms, rewards)`` from a scalar pair or two equal-length sequences, validated."""
    if isinstance(arm, (int, np.integer)) and not isinstance(arm, bool):
        return [int(arm)], [check_reward(reward)]
    arms = _arm_list(arm)
    if isinstance(reward, (str, bytes)) or not hasattr(reward, "__len__"):
        raise ValueError("rewards: pass one reward per arm (a sequence); got "
                         f"{reward!r}")
    rewards = list(reward)  # type: ignore[arg-type]
    if len(rewards) != len(arms):
        raise ValueError(f"rewards: {len(rewards)} rewards for {len(arms)} arms")
    return arms, [check_reward(r) for r in rewards]


def _arm_list(arm: object) -> list[int]:
    """Arm indices from an integer or a sequence of integers, validated (never coerced:
    ``1.5`` is refused, not taken as arm 1)."""
    if isinstance(arm, (int, np.integer)) and not isinstance(arm, bool):
        return [int(arm)]
    if isinstance(arm, (str, bytes, bool)) or arm is None or not hasattr(arm, "__len__"):
        raise ValueError(f"arm must be an integer arm index or a sequence of them; "
                         f"got {arm!r}")
    out = []
    for a in list(arm):  # type: ignore[call-overload]
        if isinstance(a, bool) or not isinstance(a, (int, np.integer)):
            raise ValueError(f"arms: {a!r} is not an integer arm index")
        out.append(int(a))
    return out
