"""Input checks shared by the design layer: every bad input is a ``ValueError`` naming the
argument, never a numba traceback or a silently wrong number."""

from __future__ import annotations

import numpy as np

from rounding._validation import as_real_array, check_int, check_real


def _rank(X: np.ndarray) -> int:
    """Numerical rank of ``X``: a cheap Gram-matrix test, the SVD only when borderline."""
    d = X.shape[1]
    ev = np.linalg.eigvalsh(X.T @ X)
    if ev[0] > 1e-10 * ev[-1] and ev[-1] > 0:
        return d
    return int(np.linalg.matrix_rank(X))


def as_arms(X: object, name: str = "X", *, need_span: bool = True) -> np.ndarray:
    """Return ``X`` as a C-contiguous float64 (K, d) array, after checking it.

    Raises ``ValueError`` if ``X`` is not 2-D, is empty, holds NaN/inf, or (when
    ``need_span``) has fewer rows than columns or rows that do not span R^d.
    """
    arr = as_real_array(X, name)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array of shape (K, d) with arms as rows; "
                         f"got ndim={arr.ndim}")
    K, d = arr.shape
    if K == 0 or d == 0:
        raise ValueError(
            f"{name} must have at least one arm and one feature; got shape {arr.shape}"
        )
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf")
    if need_span:
        if K < d:
            raise ValueError(
                f"{name} has K={K} arms in dimension d={d}: K < d arms cannot span R^d; "
                "project the arms onto their span (e.g. X @ U[:, :r] from an SVD) first"
            )
        rank = _rank(arr)
        if rank < d:
            raise ValueError(
                f"{name} has rank {rank} < d={d}: the arms do not span R^d, so no design has an "
                "invertible information matrix; project the arms onto their span "
                "(e.g. X @ U[:, :r] with U from np.linalg.svd(X.T)) first"
            )
    return np.ascontiguousarray(arr)


def as_vector(y: object, d: int, name: str = "y", *, nonzero: bool = True) -> np.ndarray:
    """Return ``y`` as a float64 vector of length ``d`` after checking it."""
    arr = as_real_array(y, name)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D vector of length d={d}; got ndim={arr.ndim}")
    if arr.shape[0] != d:
        raise ValueError(f"{name} has length {arr.shape[0]} but the arms have d={d} features")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf")
    if nonzero and not np.any(arr != 0.0):
        raise ValueError(f"{name} is the zero vector; the criterion is trivially 0")
    return np.ascontiguousarray(arr)


def as_weights(weights: object, K: int, name: str = "weights", *, atol: float = 1e-8) -> np.ndarray:
    """Return ``weights`` as a float64 vector of length ``K`` on the simplex.

    Weights must be finite, non-negative (entries down to ``-atol`` are clipped to 0) and
    sum to one within ``atol * K``; they are renormalised to sum exactly to one.
    """
    w = as_real_array(weights, name)
    if w.ndim != 1 or w.shape[0] != K:
        raise ValueError(f"{name} must be a vector of length K={K}; got shape {w.shape}")
    if not np.all(np.isfinite(w)):
        raise ValueError(f"{name} contains NaN or inf")
    if np.any(w < -atol):
        raise ValueError(f"{name} has negative entries (min {w.min():.3g}); weights must be >= 0")
    total = float(w.sum())
    if abs(total - 1.0) > max(atol * K, 1e-8):
        raise ValueError(f"{name} must sum to 1; they sum to {total:.12g}")
    w = np.clip(w, 0.0, None)
    return w / w.sum()


def as_tol(tol: float, name: str = "tol") -> float:
    """Check a relative tolerance: a finite number in (0, 1)."""
    return check_real(tol, name, 0.0, 1.0, open_low=True, open_high=True)


def as_max_iter(max_iter: int | None, default: int, name: str = "max_iter") -> int:
    """Check an iteration cap (``None`` means ``default``)."""
    if max_iter is None:
        return default
    return check_int(max_iter, name, 1)
