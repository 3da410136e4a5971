"""Rounding approximate designs to exact designs.

* :func:`efficient_round` -- Pukelsheim & Rieder's (1992) efficient rounding.
* :func:`incremental_allocation` -- a pull order whose every prefix of length ``n >= p``
  is the efficient rounding for ``n``.
* :func:`efficiency_loss` / :class:`RoundingLoss` -- G/D criterion before and after rounding.

This package is a leaf: it imports nothing from ``design`` or ``bandits``.
"""

from .efficient import efficient_round, incremental_allocation
from .guarantee import (
    GuaranteedRounding,
    reduce_support,
    round_with_guarantee,
    rounding_requirement,
)
from .loss import RoundingLoss, efficiency_loss
from .tracking import track

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
