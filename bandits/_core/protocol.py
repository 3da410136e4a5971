"""The ask/tell protocol shared by every policy front-end (real experiments).

A policy keeps a queue of arms it wants measured. ``ask()`` returns the pending arm (the
same one until it is told), ``tell(arm, reward)`` must report exactly that arm with a
finite reward; ``done``, ``stopped_by`` and ``recommendation`` describe the outcome.
Subclasses fill ``_queue`` and call :meth:`AskTellProtocol._accept` at the start of
their ``tell``.
"""

from __future__ import annotations

import math

import numpy as np


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
    """Base of the ask/tell policies: the pending arm, ``ask``, tell validation, and the
    ``samples`` / ``counts`` read from ``_t`` and ``_counts`` (a subclass whose state lives
    elsewhere overrides those two properties)."""

    done: bool = False
    stopped_by: str | None = None
    recommendation: np.ndarray | None = None
    _pending: int | None = None
    _queue: list[int]
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
            self._pending = self._queue.pop(0)
        return self._pending

    def _accept(self, arm: object, reward: object) -> float:
        """Check a told reward against the pending arm, clear it, and return the reward."""
        r = check_tell(self._pending, arm, reward)
        self._pending = None
        return r
