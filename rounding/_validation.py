"""Input checks for the rounding layer.

Every bad input raises ``ValueError`` whose message names the offending argument.  This
module deliberately does not import from ``design`` or ``bandits``: ``rounding`` is a
leaf package.
"""

from __future__ import annotations

import numbers

import numpy as np

#: Entries of ``weights`` in ``[-NEG_ATOL, 0)`` are treated as solver noise and clipped to
#: zero (same convention as the design layer); anything more negative is an error.
NEG_ATOL = 1e-8

#: Default relative threshold below which a weight is treated as exactly zero.
ZERO_TOL = 1e-12


def check_positive_int(n: object, name: str = "n") -> int:
    """Return ``n`` as a Python ``int`` if it is a positive integer (``bool`` rejected)."""
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, numbers.Integral):
        raise ValueError(f"{name} must be a positive integer; got {n!r} of type {type(n).__name__}")
    n = int(n)
    if n < 1:
        raise ValueError(f"{name} must be a positive integer; got {n}")
    return n


def check_weights(
    weights: object, name: str = "weights", *, zero_tol: float = ZERO_TOL
) -> np.ndarray:
    """Return ``weights`` as a float64 vector on the probability simplex.

    Checks: numeric, 1-D, non-empty, finite, non-negative (entries down to ``-NEG_ATOL`` are
    clipped to 0), summing to one within ``1e-8 * K``.  The vector is renormalised to sum to
    one, entries ``<= zero_tol * max(weights)`` are set to exactly zero, and it is
    renormalised again.
    """
    try:
        w = np.array(weights, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a numeric 1-D array: {exc}") from None
    if w.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of arm weights; got ndim={w.ndim}")
    K = w.shape[0]
    if K == 0:
        raise ValueError(f"{name} is empty; need at least one arm")
    if not np.all(np.isfinite(w)):
        raise ValueError(f"{name} contains NaN or inf")
    if np.any(w < -NEG_ATOL):
        raise ValueError(f"{name} has negative entries (min {w.min():.3g}); weights must be >= 0")
    total = float(w.sum())
    if abs(total - 1.0) > 1e-8 * max(K, 1):
        raise ValueError(f"{name} must sum to 1 (within 1e-8*K); they sum to {total:.12g}")
    zero_tol = float(zero_tol)
    if not (np.isfinite(zero_tol) and 0.0 <= zero_tol < 1.0):
        raise ValueError(f"zero_tol must be a float in [0, 1); got {zero_tol!r}")
    w = np.clip(w, 0.0, None)
    w /= w.sum()
    w[w <= zero_tol * w.max()] = 0.0
    w /= w.sum()
    return w


def check_arms(X: object, name: str = "X") -> np.ndarray:
    """Return ``X`` as a float64 (K, d) array with arms as rows, after checking it."""
    try:
        arr = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a numeric (K, d) array: {exc}") from None
    if arr.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D array of shape (K, d) with arms as rows; got ndim={arr.ndim}"
        )
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"{name} must have at least one arm and one feature; got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf")
    return np.ascontiguousarray(arr)


def check_counts(counts: object, K: int, name: str = "counts") -> np.ndarray:
    """Return ``counts`` as an int64 vector of length ``K`` of non-negative integers, sum > 0."""
    try:
        c = np.asarray(counts)
    except (TypeError, ValueError) as exc:  # pragma: no cover - asarray rarely fails
        raise ValueError(f"{name} must be a 1-D integer array: {exc}") from None
    if c.ndim != 1 or c.shape[0] != K:
        raise ValueError(f"{name} must be a vector of length K={K}; got shape {c.shape}")
    if c.dtype == np.bool_ or not (
        np.issubdtype(c.dtype, np.integer) or np.issubdtype(c.dtype, np.floating)
    ):
        raise ValueError(f"{name} must hold integers; got dtype {c.dtype}")
    if np.issubdtype(c.dtype, np.floating):
        if not np.all(np.isfinite(c)) or np.any(c != np.round(c)):
            raise ValueError(f"{name} must hold (finite) integers")
    c = c.astype(np.int64)
    if np.any(c < 0):
        raise ValueError(f"{name} must be non-negative")
    if c.sum() == 0:
        raise ValueError(f"{name} must have a positive total")
    return c
