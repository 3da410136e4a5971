"""Input checks shared by the design layer: every bad input is a ``ValueError`` naming the
argument, never a numba traceback or a silently wrong number."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rounding._validation import as_real_array, check_int, check_real

_EPS = float(np.finfo(np.float64).eps)
_UNIT_ROUNDOFF = _EPS / 2.0


def _column_scales(X: np.ndarray) -> np.ndarray:
    """Euclidean norms of the columns of ``X`` (zero columns get scale 1)."""
    norms = np.linalg.norm(X, axis=0)
    return np.where(norms > 0.0, norms, 1.0)


def rank_of(s: np.ndarray, size: int) -> int:
    """The numerical rank from singular values ``s`` (decreasing) of a matrix with
    ``max(rows, columns) = size``: the values ``> s_1 * size * eps`` (numpy's
    ``matrix_rank`` default threshold); 0 for an empty or zero ``s``."""
    if not s.size or not s[0] > 0.0:
        return 0
    return int(np.sum(s > s[0] * size * _EPS))


def _rank(X: np.ndarray, G: np.ndarray | None = None) -> int:
    """Numerical rank of ``X`` after column equilibration.

    Designs are invariant under ``X -> X T`` for invertible ``T``, so the test is made
    invariant under column scaling: with ``Xs = X diag(1 / ||X_j||)`` and singular values
    ``s_1 >= ... >= s_d`` of ``Xs``, a singular value counts iff
    ``s_i > s_1 * max(K, d) * eps`` (numpy's ``matrix_rank`` default threshold). A cheap
    Gram-matrix test settles the well-conditioned case, the SVD the rest. ``G``: the Gram
    matrix ``X^T X`` when the caller has it.
    """
    K, d = X.shape
    if G is None:
        G = X.T @ X
    dg = np.diag(G)
    if np.all(np.isfinite(G)) and np.all(dg > 1e-290):
        ev = np.linalg.eigvalsh(G / np.sqrt(np.outer(dg, dg)))
        if ev[0] > 1e-10 * ev[-1] and ev[-1] > 0:
            return d
    return rank_of(np.linalg.svd(X / _column_scales(X), compute_uv=False), max(K, d))


@dataclass(frozen=True)
class ArmBasis:
    """A well-conditioned basis of the arms: ``X = Q R`` (thin QR of the equilibrated X).

    Every criterion of the design layer is invariant under ``X -> X T`` (``T`` invertible):
    with ``q_a = R^{-T} x_a`` the information matrices are ``A_Q(w) = R^{-T} A_X(w) R^{-1}``,
    so ``x^T A_X(w)^{-1} x = q^T A_Q(w)^{-1} q`` and a target ``y`` maps to ``R^{-T} y``
    (rows: ``Y R^{-1}``). Solving on ``Q`` (orthonormal columns, condition number 1)
    instead of ``X`` avoids squaring ``cond(X)`` in ``X^T W X``.

    Attributes
    ----------
    Q : ndarray, shape (K, d)
        Orthonormal columns, ``X = Q R``.
    R : ndarray, shape (d, d)
        Upper triangular, ``R = R_0 diag(||X_j||)`` with ``X diag(1/||X_j||) = Q R_0``.
    cond : float
        2-norm condition number of the column-equilibrated arms ``R_0``.
    error : float
        ``sqrt(K d) u cond`` (``u = eps / 2``): the relative perturbation of the arms, in the
        basis ``Q``, that the Householder QR can introduce (Higham 2002, Thm. 19.4, with
        the practical constant ``sqrt(K d)`` in place of the worst case ``c K d``).
    """

    Q: np.ndarray
    R: np.ndarray
    cond: float
    error: float

    def targets(self, Y: np.ndarray) -> np.ndarray:
        """Targets in the basis: rows ``y R^{-1}`` (so ``y^T A_X^{-1} y = t^T A_Q^{-1} t``)."""
        from scipy.linalg import solve_triangular

        return np.ascontiguousarray(solve_triangular(self.R, Y.T, trans="T").T)

    def log_abs_det(self) -> float:
        """``log |det R|``: ``log det A_X(w) = log det A_Q(w) + 2 log |det R|``."""
        return float(np.sum(np.log(np.abs(np.diag(self.R)))))


_CHOLQR_MAX_COND = 1e5  # Cholesky QR when cond^2 u <= 1e-6 (Q orthonormal to 1e-6)


def arm_basis(X: np.ndarray, name: str = "X") -> ArmBasis:
    """Well-conditioned basis of full-column-rank arms: one QR per call.

    The arms are column-equilibrated (``Xs = X diag(1/||X_j||)``). If the Gram matrix
    shows ``cond(Xs) <= 1e5``, the QR is the Cholesky QR ``R_0 = chol(Xs^T Xs)``,
    ``Q = Xs R_0^{-1}`` (two BLAS-3 passes over ``X``: ``Q`` is orthonormal up to
    ``cond^2 u <= 1e-6`` and, row by row, an exact transform ``X T`` of slightly perturbed
    arms, which is all the design problems need); otherwise Householder QR.

    Raises ``ValueError`` naming ``name`` when the column-equilibrated arms are
    rank-deficient at working precision, ``s_min <= s_max * max(K, d) * eps`` (the
    threshold of :func:`_rank` and of numpy's ``matrix_rank``): no design has an information
    matrix that float64 can invert, and the message says what to do.
    """
    from scipy.linalg import cholesky, solve_triangular

    K, d = X.shape
    G = X.T @ X
    fast = bool(np.all(np.isfinite(G)) and np.all(np.diag(G) > 1e-290))  # no over/underflow
    if fast:
        scales = np.sqrt(np.diag(G))
        Gs = G / np.outer(scales, scales)  # Gram matrix of the equilibrated arms
        ev = np.linalg.eigvalsh(Gs)
    else:
        scales = _column_scales(X)
    if fast and ev[0] > 0.0 and ev[-1] <= _CHOLQR_MAX_COND**2 * ev[0]:
        R0 = cholesky(Gs, lower=False, check_finite=False)
        # Q = Xs R0^{-1} = X (diag(1/scales) R0^{-1}) as one GEMM with a (d x d) matrix:
        # measured several times faster than a triangular solve with K right-hand sides
        R0inv = solve_triangular(R0, np.eye(d), check_finite=False)
        Q = X @ (R0inv / scales[:, None])
        cond = float(np.sqrt(ev[-1] / ev[0]))
    else:
        Q, R0 = np.linalg.qr(X / scales)
        sv = np.linalg.svd(R0, compute_uv=False)
        if not sv[-1] > sv[0] * max(K, d) * _EPS:
            cond = sv[0] / sv[-1] if sv[-1] > 0.0 else np.inf
            raise ValueError(
                f"{name} is rank-deficient at float64 precision: the column-equilibrated "
                f"arms have condition number {cond:.3g} >= 1 / (max(K, d) eps) = "
                f"{1.0 / (max(K, d) * _EPS):.3g}, so no design has an information matrix "
                "that can be inverted reliably; drop nearly dependent arms or features, or "
                "project the arms onto their numerical span (X @ Vt[:r].T from "
                "np.linalg.svd(X))"
            )
        cond = float(sv[0] / sv[-1])
    return ArmBasis(Q=np.ascontiguousarray(Q), R=R0 * scales[None, :], cond=cond,
                    error=float(np.sqrt(K * d) * _UNIT_ROUNDOFF * cond))


def rounding_error_factor(basis: ArmBasis, B: np.ndarray) -> float:
    """Relative error bound ``eta`` of values ``y^T A(w)^{-1} y`` computed in the basis.

    ``B = diag(sqrt(w_S)) Q_S`` is the weighted factor of ``A_Q(w) = B^T B``. The arms carry
    the relative perturbation ``basis.error`` (:class:`ArmBasis`) and the solve with ``B``
    adds ``sqrt(K d) u cond(B)`` (backward-stable QR of ``B``, Higham 2002, §19-20).
    Returns ``inf`` when ``B`` is numerically rank-deficient (singular design).
    """
    K, d = basis.Q.shape
    if B.shape[0] < d:
        return np.inf
    s = np.linalg.svd(B, compute_uv=False)
    if not s[-1] > s[0] * max(K, d) * _EPS:
        return np.inf
    return basis.error + float(np.sqrt(K * d) * _UNIT_ROUNDOFF * s[0] / s[-1])


def as_arms(X: object, name: str = "X", *, need_span: bool = True) -> np.ndarray:
    """Return ``X`` as a C-contiguous float64 (K, d) array, after checking it.

    Raises ``ValueError`` if ``X`` is not 2-D, is empty, holds NaN/inf, or (when
    ``need_span``) has fewer rows than columns or rows that do not span R^d.

    One pass over ``X`` (issue 16; it used to take three: two finiteness scans and the
    rank test): with ``need_span``, the Gram matrix ``G = X^T X`` of the rank test also
    checks finiteness, since ``G_jj = sum_a x_aj^2`` is NaN or inf whenever a column holds
    NaN or inf (the elementwise scan runs only when ``G`` is not finite, to tell NaN/inf
    apart from an overflow of large finite values).
    """
    arr = as_real_array(X, name, finite=False)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array of shape (K, d) with arms as rows; "
                         f"got ndim={arr.ndim}")
    K, d = arr.shape
    if K == 0 or d == 0:
        raise ValueError(
            f"{name} must have at least one arm and one feature; got shape {arr.shape}"
        )
    G = None
    if need_span and K >= d:
        with np.errstate(invalid="ignore", over="ignore"):  # NaN/inf: reported below
            G = arr.T @ arr
    if (G is None or not np.all(np.isfinite(np.diag(G)))) and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf")
    if need_span:
        if K < d:
            raise ValueError(
                f"{name} has K={K} arms in dimension d={d}: K < d arms cannot span R^d; "
                "project the arms onto their span (e.g. X @ U[:, :r] from an SVD) first"
            )
        rank = _rank(arr, G)
        if rank < d:
            sv = np.linalg.svd(arr / _column_scales(arr), compute_uv=False)
            cond = sv[0] / sv[-1] if sv[-1] > 0.0 else np.inf
            raise ValueError(
                f"{name} has rank {rank} < d={d} (rank-deficient at float64 precision: the "
                f"column-equilibrated arms have condition number {cond:.3g} >= "
                f"1 / (max(K, d) eps) = {1.0 / (max(K, d) * _EPS):.3g}): the arms do not span "
                "R^d, so no design has an invertible information matrix; project the arms "
                "onto their span (e.g. X @ U[:, :r] with U from np.linalg.svd(X.T)) first"
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
