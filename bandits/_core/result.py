"""The outcome of one simulated run, and the closed set of reasons a run stops.

Every family returns a :class:`RunResult`; every consumer (the replication table, the CLI,
the plots) validates ``stopped_by`` against :data:`STOP_REASONS` with
:func:`check_stop_reason`, so a new reason is added here once and nowhere else.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

#: Why a run ended. Only ``"rule"`` certifies the recommendation at level ``delta``.
STOP_REASONS: dict[str, str] = {
    "rule": "the stopping rule fired: the recommendation holds with probability >= 1 - delta",
    "budget": "max_samples pulls were spent first: the recommendation is the current "
              "estimate, not certified",
    "warm-up": "a warm-up's rule fired (WAR): its estimate is within 1 of x^T theta on every "
               "arm with probability >= 1 - delta (Mason et al. 2022, Definition 1); the "
               "recommendation argmax x^T theta_hat is not certified",
    "horizon": "a fixed-horizon algorithm used its whole horizon T while still exploring "
               "(HOMER, epsilon-greedy, the subset algorithms)",
    "commit": "elimination left a single arm before the horizon; the remaining pulls go to "
              "it (HOMER)",
    "all-decided": "every slot of the subset was accepted or filled by the tests (DART, "
                   "CSAR, UCB)",
    "lambda": "the resolution floor was reached or the next test does not fit in the "
              "horizon, so the algorithm committed to its best subset (DART, CSAR, UCB)",
}


def check_stop_reason(value: object, name: str = "stopped_by") -> str:
    """``value`` if it is one of :data:`STOP_REASONS`, else a ValueError naming ``name``."""
    if not isinstance(value, str) or value not in STOP_REASONS:
        raise ValueError(f"{name} must be one of {list(STOP_REASONS)}; got {value!r}")
    return value


def check_stop_reasons(values: Iterable[object], name: str = "stopped_by") -> None:
    """Validate a column of stop reasons (one ValueError listing the unknown values)."""
    bad = sorted({str(v) for v in values} - set(STOP_REASONS))
    if bad:
        raise ValueError(f"{name}: values must be one of {list(STOP_REASONS)}; got {bad}")


@dataclass(frozen=True)
class RunResult:
    """Outcome of one simulated run.

    Attributes
    ----------
    algorithm, instance : str
        Labels (the algorithm's name with its overrides; the instance's name).
    seed : int
    samples : int
        Pulls spent (for fixed-horizon algorithms: the horizon used).
    recommendation : ndarray of int64
        The recommended arm(s) (a set of ``m`` arms, or the subset), sorted.
    correct : bool
        Whether the recommendation is right on the instance's true means (exactly, no
        tolerance).
    counts : ndarray of int64
        Pulls per arm.
    stopped_by : str
        One of :data:`STOP_REASONS`. With ``"budget"`` the recommendation is the current
        estimate, *not* a certified answer, and ``correct`` reports it for information.
    wall_time : float
        Seconds spent in the run.
    extra : dict
        Family-specific data (designs, phases, regret curves...).
    """

    algorithm: str
    instance: str
    seed: int
    samples: int
    recommendation: np.ndarray
    correct: bool
    counts: np.ndarray
    stopped_by: str
    wall_time: float
    extra: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_stop_reason(self.stopped_by)

    @property
    def certified(self) -> bool:
        """True when the stopping rule fired (the only certified outcome)."""
        return self.stopped_by == "rule"
