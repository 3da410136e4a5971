"""Argument checks shared by every bandit family: one implementation of each.

Each returns the checked value (converted) or raises a ``ValueError`` that names the
argument. Matrices go through :func:`design.validation.as_arms` (the design layer's check),
so a bad ``X`` reads the same wherever it is passed.
"""

from __future__ import annotations

import math

import numpy as np

from design.validation import as_arms


def check_probability(x: object, name: str) -> float:
    """A number in the open interval (0, 1) (``delta``, a confidence level)."""
    if isinstance(x, bool) or not isinstance(x, (int, float, np.floating, np.integer)):
        raise ValueError(f"{name} must be a number in (0, 1); got {x!r}")
    if not (0.0 < float(x) < 1.0):
        raise ValueError(f"{name} must be in (0, 1); got {x!r}")
    return float(x)


def check_positive(x: object, name: str) -> float:
    """A positive finite number."""
    if isinstance(x, bool):
        raise ValueError(f"{name} must be a positive number; got {x!r}")
    try:
        v = float(x)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a positive number; got {x!r}") from None
    if not (math.isfinite(v) and v > 0):
        raise ValueError(f"{name} must be a positive finite number; got {x!r}")
    return v


def check_nonnegative(x: object, name: str) -> float:
    """A finite number >= 0 (``epsilon``, a regulariser)."""
    if isinstance(x, bool):
        raise ValueError(f"{name} must be a finite number >= 0; got {x!r}")
    try:
        v = float(x)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a finite number >= 0; got {x!r}") from None
    if not (math.isfinite(v) and v >= 0):
        raise ValueError(f"{name} must be a finite number >= 0; got {x!r}")
    return v


def check_int(x: object, name: str, low: int) -> int:
    """An integer ``>= low`` (bools and floats are refused)."""
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)) or int(x) < low:
        raise ValueError(f"{name} must be an integer >= {low}; got {x!r}")
    return int(x)


def check_seed(seed: object) -> int:
    """A non-negative integer seed."""
    return check_int(seed, "seed", 0)


def check_budget(max_samples: object, name: str = "max_samples") -> int:
    """A positive integer sample budget."""
    return check_int(max_samples, name, 1)


def as_matrix(value: object, name: str, d: int | None = None) -> np.ndarray:
    """``value`` as a finite C-contiguous float64 (n, d) array (rows are vectors).

    ``d``: the number of columns it must have (that of ``X``). Spanning is not required
    here (:func:`check_arms_span` checks it where least squares needs it).
    """
    arr = as_arms(value, name, need_span=False)
    if d is not None and arr.shape[1] != d:
        raise ValueError(f"{name} must have d={d} columns like X; got shape {arr.shape}")
    return arr


def check_arms_span(X: np.ndarray, name: str = "X") -> None:
    """ValueError naming ``name`` unless the rows of ``X`` span R^d."""
    if np.linalg.matrix_rank(X) < X.shape[1]:
        raise ValueError(f"the rows of {name} must span R^d (d={X.shape[1]}); least squares "
                         "is not identifiable otherwise")
