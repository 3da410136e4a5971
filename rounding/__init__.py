"""Rounding approximate designs to exact designs.

* :func:`efficient_round` -- Pukelsheim & Rieder's (1992) efficient rounding.
* :func:`incremental_allocation` -- a pull order whose every prefix of length ``n >= p``
  is the efficient rounding for ``n``.
* :func:`efficiency_loss` / :class:`RoundingLoss` -- G/D criterion before and after rounding.

This package is a leaf: it imports nothing from ``design`` or ``bandits``.
"""

from importlib.metadata import PackageNotFoundError, version

from .efficient import efficient_round, incremental_allocation
from .guarantee import (
    GuaranteedRounding,
    reduce_support,
    round_with_guarantee,
    rounding_requirement,
)
from .loss import RoundingLoss, efficiency_loss
from .tracking import track

try:  # rounding is a leaf (imports nothing from design): its own look-up of the same version
    __version__ = version("oed-bandits")
except PackageNotFoundError:  # a source tree that was never installed
    __version__ = "0+unknown"

__all__ = [
    "GuaranteedRounding",
    "RoundingLoss",
    "efficiency_loss",
    "efficient_round",
    "incremental_allocation",
    "reduce_support",
    "round_with_guarantee",
    "rounding_requirement",
    "track",
]
