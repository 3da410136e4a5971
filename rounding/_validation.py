"""Input checks for the rounding layer, and the scalar and array validators shared by the
whole toolkit (design, rounding, bandits).

Every bad input raises ``ValueError`` whose message names the offending argument; no value
is silently changed (``1.5`` is not an integer, a complex array is not truncated to its real
part, a string is not a number).  This module deliberately does not import from ``design``
or ``bandits``: ``rounding`` is a leaf package, so the shared validators live here and the
other layers import them (one validator per kind of argument).

Shared validators: :func:`check_int` (integer-valued, bounded), :func:`check_seed`,
:func:`check_real` (finite real in an interval), :func:`check_probability`,
:func:`as_real_array` (real, finite array of a given dimension).
"""

from __future__ import annotations

import numbers

import numpy as np

#: Entries of ``weights`` in ``[-NEG_ATOL, 0)`` are treated as solver noise and clipped to
#: zero (same convention as the design layer); anything more negative is an error.
NEG_ATOL = 1e-8

#: Default relative threshold below which a weight is treated as exactly zero.
ZERO_TOL = 1e-12


#: Largest seed: numpy's SeedSequence and the splitmix64 streams take any non-negative
#: int, but a bound keeps a typo (``seed=10**400``) from becoming a silent 4 kB entropy pool.
MAX_SEED = 2**63 - 1


def check_int(x: object, name: str, low: int | None = None, high: int | None = None) -> int:
    """``x`` as a Python ``int`` in ``[low, high]`` (``None``: unbounded on that side).

    Integers only (Python or numpy); ``bool``, floats (even ``2.0``: no silent rounding of
    ``2.5``), strings and everything else are a ``ValueError`` naming ``name``.
    """
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Integral):
        raise ValueError(f"{name} must be an integer; got {x!r} of type {type(x).__name__}")
    v = int(x)
    if (low is not None and v < low) or (high is not None and v > high):
        if high is None:
            what = "a positive integer" if low == 1 else f"an integer >= {low}"
        else:
            what = f"an integer in [{low if low is not None else '-inf'}, {high}]"
        raise ValueError(f"{name} must be {what}; got {v}")
    return v


def check_positive_int(n: object, name: str = "n") -> int:
    """Return ``n`` as a Python ``int`` if it is a positive integer (``bool`` rejected)."""
    return check_int(n, name, 1)


def check_seed(seed: object, name: str = "seed") -> int:
    """A seed: an integer in ``[0, 2**63 - 1]``."""
    return check_int(seed, name, 0, MAX_SEED)


#: Largest sample budget / horizon: the jitted loops count samples in int64.
MAX_BUDGET = 2**62


def check_budget(x: object, name: str = "max_samples") -> int:
    """A sample budget or horizon: an integer in ``[1, 2**62]``."""
    return check_int(x, name, 1, MAX_BUDGET)


def check_real(x: object, name: str, low: float = -np.inf, high: float = np.inf, *,
               open_low: bool = False, open_high: bool = False) -> float:
    """``x`` as a finite Python ``float`` in the interval ``low .. high`` (each end open or
    closed).  Real numbers only: ``bool``, strings, complex numbers, arrays and ``None`` are
    a ``ValueError`` naming ``name``, as are NaN, inf and integers too large for a float."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Real):
        raise ValueError(f"{name} must be a real number; got {x!r} of type {type(x).__name__}")
    try:
        v = float(x)
    except (OverflowError, ValueError):
        raise ValueError(f"{name} must be a finite real number; got {x!r}") from None
    if not np.isfinite(v):
        raise ValueError(f"{name} must be a finite real number; got {x!r}")
    if v < low or v > high or (open_low and v == low) or (open_high and v == high):
        left, right = "(" if open_low else "[", ")" if open_high else "]"
        raise ValueError(f"{name} must be in {left}{low:g}, {high:g}{right}; got {x!r}")
    return v


def check_probability(x: object, name: str) -> float:
    """A confidence level or probability strictly inside ``(0, 1)``."""
    return check_real(x, name, 0.0, 1.0, open_low=True, open_high=True)


def as_real_array(value: object, name: str, ndim: int | None = None, *,
                  finite: bool = True) -> np.ndarray:
    """``value`` as a finite float64 array (C-contiguous), else ``ValueError`` naming ``name``.

    Real data only: complex arrays are refused (numpy would drop the imaginary part with a
    warning), as are strings, objects and ragged nesting; booleans and integers are exact
    in float64 up to 2**53 and accepted. ``finite=False`` leaves the NaN/inf check to the
    caller (a caller that scans the array anyway checks it in the same pass).
    """
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a numeric array: {exc}") from None
    if arr.dtype.kind == "c":
        raise ValueError(f"{name} must be real; got a complex array (the imaginary part is "
                         "not dropped silently)")
    if arr.dtype.kind not in "biuf":
        raise ValueError(f"{name} must be a numeric array of real numbers; got dtype "
                         f"{arr.dtype}")
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-D array; got ndim={arr.ndim}")
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    if finite and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf")
    return arr


def check_weights(
    weights: object, name: str = "weights", *, zero_tol: float = ZERO_TOL
) -> np.ndarray:
    """Return ``weights`` as a float64 vector on the probability simplex.

    Checks: numeric, 1-D, non-empty, finite, non-negative (entries down to ``-NEG_ATOL`` are
    clipped to 0), summing to one within ``1e-8 * K``.  The vector is renormalised to sum to
    one, entries ``<= zero_tol * max(weights)`` are set to exactly zero, and it is
    renormalised again.
    """
    w = as_real_array(weights, name).copy()
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
    zero_tol = check_real(zero_tol, "zero_tol", 0.0, 1.0, open_high=True)
    w = np.clip(w, 0.0, None)
    w /= w.sum()
    w[w <= zero_tol * w.max()] = 0.0
    w /= w.sum()
    return w


def check_arms(X: object, name: str = "X") -> np.ndarray:
    """Return ``X`` as a float64 (K, d) array with arms as rows, after checking it."""
    arr = as_real_array(X, name)
    if arr.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D array of shape (K, d) with arms as rows; got ndim={arr.ndim}"
        )
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"{name} must have at least one arm and one feature; got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf")
    return np.ascontiguousarray(arr)


def as_count_array(value: object, name: str, length: int | None = None) -> np.ndarray:
    """A 1-D array of non-negative integers (integer-valued floats accepted, ``2.5`` refused:
    a count is never rounded silently), as int64."""
    c = as_real_array(value, name, ndim=1)
    if length is not None and c.shape[0] != length:
        raise ValueError(f"{name} must have length {length}; got {c.shape[0]}")
    if np.any(c < 0) or np.any(c != np.floor(c)) or np.any(c > 2.0**62):
        raise ValueError(f"{name} must hold non-negative integers (counts); got "
                         f"{c[(c < 0) | (c != np.floor(c))][:3].tolist() or c.max()}")
    return c.astype(np.int64)


def check_counts(counts: object, K: int, name: str = "counts") -> np.ndarray:
    """Return ``counts`` as an int64 vector of length ``K`` of non-negative integers, sum > 0."""
    try:
        c = np.asarray(counts)
    except (TypeError, ValueError) as exc:
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
