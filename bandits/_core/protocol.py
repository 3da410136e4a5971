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

import math

import numpy as np


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


class AskTellProtocol:
    """Base of the ask/tell policies: the pending arm, ``ask``, ``tell`` with its
    validation, and the ``samples`` / ``counts`` read from ``_t`` and ``_counts`` (a
    subclass whose state lives elsewhere overrides those two properties).

    A subclass fills ``_queue`` with the arms its step kernel decided and implements one
    hook, ``_observe(arm, reward)``: the step kernel's update with a validated reward,
    followed by the next decision (refill ``_queue``, or set ``done`` / ``stopped_by`` /
    ``recommendation``). Everything the protocol adds on top -- batches (``ask(n)`` taking
    the next ``n`` arms of the queue, ``tell(arms, rewards)`` in any order), rewards the
    policy did not ask for (``observe``), saving and loading -- goes through that hook, so
    the simulation's step kernel stays the only implementation of the algorithm.
    """

    done: bool = False
    stopped_by: str | None = None
    recommendation: np.ndarray | None = None
    _pending: int | None = None
    _queue: ArmQueue
    _t: int = 0
    _counts: np.ndarray

    @property
    def samples(self) -> int:
        """Rewards told so far."""
        return self._t

    @property
    def counts(self) -> np.ndarray:
        """Pulls per arm so far."""
        return self._counts.copy()

    def ask(self) -> int:
        """The next arm to measure. Raises RuntimeError once the policy is done."""
        if self.done:
            raise RuntimeError(f"the policy has stopped ({self.stopped_by}); read "
                               "policy.recommendation")
        if self._pending is None:
            self._pending = self._queue.popleft()
        return self._pending

    def tell(self, arm: int, reward: float) -> None:
        """Report the measured ``reward`` of ``arm`` (the arm returned by :meth:`ask`)."""
        r = self._accept(arm, reward)
        self._observe(int(arm), r)

    def _observe(self, arm: int, reward: float) -> None:  # pragma: no cover - abstract
        """The subclass's step: update with ``reward`` of ``arm``, then decide."""
        raise NotImplementedError

    def _accept(self, arm: object, reward: object) -> float:
        """Check a told reward against the pending arm, clear it, and return the reward."""
        r = check_tell(self._pending, arm, reward)
        self._pending = None
        return r
