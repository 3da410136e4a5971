"""A-, I- and Ds-optimal designs on a finite set of arms, with certificates.

For arms ``x_1..x_K`` (rows of ``X``) and weights ``w`` on the simplex,
``A(w) = sum_a w_a x_a x_a^T``.

* **Linear criteria** ``phi_L(w) = tr(L A(w)^{-1})`` for a PSD ``L`` (Kiefer 1974;
  Pukelsheim 2006, §6.5, §9.8): A-optimal is ``L = I`` (the average variance of the
  parameter estimates), I-optimal (also called V- or IV-optimal) is ``L = int f f^T d mu``,
  the moment matrix of a region, so that ``phi_L`` is the average prediction variance over
  the region. One engine solves every ``L``.
  Certificate: ``phi_L`` is convex with gradient ``-A^{-1} L A^{-1}``; for any optimal
  ``A*`` and any ``t > 0``, ``phi_L(A*) / t = phi_L(t A*) >= 2 phi_L(A) - t max_a g_a``
  with ``g_a = x_a^T A^{-1} L A^{-1} x_a``; at ``t = phi_L / max_a g_a`` this gives
  ``phi_L(A*) >= phi_L(A)^2 / max_a g_a`` (equivalence theorem: ``max_a g_a = phi_L`` at
  the optimum). So ``lower_bound = value^2 / max g`` and ``gap = max g / value - 1``.
* **Ds-optimal** (the ``s`` parameters of ``interest``; the others are nuisance): maximise
  ``det C(A)`` with ``C = (E^T A^{-1} E)^{-1}`` the Schur complement (information on the
  parameters of interest), reported as ``phi_Ds = det(C)^{-1/s}`` (to minimise). ``det(C)^{1/s}``
  is concave and positively homogeneous with supergradient ``(1/s) det(C)^{1/s} A^{-1} E C
  E^T A^{-1}`` (Pukelsheim 2006, §3.13, §7.5), so ``det(C*)^{1/s} <= det(C)^{1/s} max_a d_a / s``
  with ``d_a = x_a^T A^{-1} E C E^T A^{-1} x_a``: ``lower_bound = value * s / max d`` and
  ``gap = max d / s - 1`` (Kiefer 1961; ``max_a d_a = s`` at the optimum). A singular
  ``A`` (the optimum may be: only the parameters of interest must be estimable) has the
  generalized Schur complement ``C = A_II - A_IN A_NN^- A_NI`` and the duality bound
  ``phi* >= s |det V_I|^{2/s} / max_a ||V^T x_a||^2``, true for every ``d x s`` matrix ``V``
  (Pukelsheim 2006, §7.10-7.19), with ``V`` from ``(A + delta P_N)^{-1}``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from design import _criteria_numba as kern
from design._validation import (
    ArmBasis,
    arm_basis,
    as_arms,
    as_max_iter,
    as_tol,
    as_weights,
    rank_of,
    rounding_error_factor,
)
from design.result import DesignResult, warns_if_not_converged

__all__ = [
    "CriterionBasis",
    "CriterionCertificate",
    "criterion_basis",
    "a_optimal",
    "criterion_check",
    "ds_optimal",
    "i_optimal",
    "linear_optimal",
    "moment_matrix",
]

_METHODS = ("auto", "exchange", "cvxpy")
_EPS = float(np.finfo(np.float64).eps)
_STATUS = {kern.CONVERGED: "converged", kern.MAX_ITER: "max_iter reached",
           kern.SINGULAR: "information matrix became singular",
           kern.STALLED: "no improving exchange left (numerical floor)"}


# ----------------------------------------------------------------------------------------
# validation
# ----------------------------------------------------------------------------------------


def as_moment_matrix(L: object, d: int, name: str = "L") -> np.ndarray:
    """Check a symmetric PSD ``(d, d)`` weight matrix; return it symmetrised."""
    try:
        arr = np.asarray(L, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a numeric (d, d) matrix: {exc}") from None
    if arr.shape != (d, d):
        raise ValueError(f"{name} must have shape (d, d) = ({d}, {d}); got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf")
    scale = float(np.abs(arr).max())
    if scale == 0.0:
        raise ValueError(f"{name} is the zero matrix: the criterion is identically 0")
    if np.abs(arr - arr.T).max() > 1e-10 * scale:
        raise ValueError(f"{name} must be symmetric")
    arr = (arr + arr.T) / 2.0
    ev = np.linalg.eigvalsh(arr)
    if ev[0] < -1e-10 * ev[-1]:
        raise ValueError(f"{name} must be positive semidefinite; its smallest eigenvalue is "
                         f"{ev[0]:.3g}")
    return np.ascontiguousarray(arr)


def moment_matrix(F: object, weights: object = None, *, name: str = "F") -> np.ndarray:
    """Moment matrix ``L = sum_r v_r f_r f_r^T`` of the rows ``f_r`` of ``F`` (model space).

    With ``weights=None`` the points are weighted equally (``L = F^T F / n``): the uniform
    measure on the points, e.g. a fine grid of a region or the candidate set itself. Pass
    quadrature weights (non-negative, summing to one) for another measure. The I-optimal
    criterion ``tr(L A^{-1})`` is then the ``v``-average of the prediction variance
    ``f^T A^{-1} f``.
    """
    Fa = as_arms(F, name, need_span=False)
    if weights is None:
        return Fa.T @ Fa / Fa.shape[0]
    v = as_weights(weights, Fa.shape[0], "weights")
    return (Fa * v[:, None]).T @ Fa


def _as_interest(interest: object, d: int) -> np.ndarray:
    if isinstance(interest, (int, np.integer)) and not isinstance(interest, bool):
        raise ValueError(f"interest must be a sequence of column indices (e.g. [{interest}]); "
                         "an integer is ambiguous")
    try:
        idx = np.asarray(interest)
    except (TypeError, ValueError) as exc:  # pragma: no cover
        raise ValueError(f"interest must be a sequence of column indices: {exc}") from None
    if idx.dtype == np.bool_:
        if idx.shape != (d,):
            raise ValueError(f"interest as a boolean mask must have length d={d}")
        idx = np.flatnonzero(idx)
    if idx.ndim != 1 or idx.size == 0 or not np.issubdtype(idx.dtype, np.integer):
        raise ValueError("interest must be a non-empty sequence of integer column indices")
    if idx.min() < -d or idx.max() >= d:
        raise ValueError(f"interest has an index outside the d={d} columns")
    idx = np.where(idx < 0, idx + d, idx)
    if np.unique(idx).size != idx.size:
        raise ValueError("interest has repeated column indices")
    return np.sort(idx).astype(np.int64)


def _check_method(method: str) -> None:
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}; got {method!r}")


# ----------------------------------------------------------------------------------------
# certificates of any weights
# ----------------------------------------------------------------------------------------


class CriterionCertificate(NamedTuple):
    """Certificate of a design for an A-, I- or Ds-criterion.

    Attributes
    ----------
    value : float
        The criterion at the weights (to minimise).
    lower_bound : float
        Certified lower bound on the optimum over all designs on the candidates.
    gap : float
        ``value / lower_bound - 1``.
    max_derivative : float
        Largest directional derivative (``g_a`` for linear criteria, ``d_a`` for Ds).
    argmax : int
        Arm attaining it (-1 if ``A(w)`` is singular).
    rounding_error : float
        Bound on the relative rounding error of the computed derivatives and value (from
        the arms' condition number after column scaling and the design's; see
        :func:`design._validation.rounding_error_factor`), already accounted for in
        ``lower_bound`` and ``gap``.
    """

    value: float
    lower_bound: float
    gap: float
    max_derivative: float
    argmax: int
    rounding_error: float = 0.0


_SINGULAR = CriterionCertificate(np.inf, 0.0, np.inf, np.inf, -1)


def _chol_inverse(X: np.ndarray, w: np.ndarray) -> np.ndarray | None:
    sup = w > 0
    A = (X[sup] * w[sup, None]).T @ X[sup]
    try:
        Lc = np.linalg.cholesky(A)
    except np.linalg.LinAlgError:
        return None
    Li = np.linalg.inv(Lc)
    return Li.T @ Li


# Designs are invariant under X -> X T; the values are computed in the well-conditioned
# basis X = Q R (design._validation.arm_basis) with the criterion carried over:
# x_a = R^T q_a, so A_X(w) = R^T A_Q(w) R and A_X^{-1} = R^{-1} A_Q^{-1} R^{-T}.
# * linear: tr(L A_X^{-1}) = tr(L_Q A_Q^{-1}) with L_Q = R^{-T} L R^{-1} = H^T H,
#   H = F^T R^{-1} for L = F F^T (so A with L = I is the linear criterion L_Q = R^{-T} R^{-1}
#   on Q); g_a = x_a^T A_X^{-1} L A_X^{-1} x_a = q_a^T A_Q^{-1} L_Q A_Q^{-1} q_a.
# * Ds: with the nuisance columns first, R = [[R_NN, R_NI], [0, R_II]] is block upper
#   triangular, the interest parameters of Q are phi_I = R_II theta_I (the last s columns),
#   d_a is invariant and log det C_X = log det C_Q + 2 log |det R_II|.


def _psd_factor_in_basis(basis: ArmBasis, L: np.ndarray, rows: np.ndarray | None = None
                         ) -> tuple[np.ndarray, float]:
    """``(H, delta)`` with ``L_Q = H^T H = R^{-T} L R^{-1}``.

    From the region's points (``rows``, ``L = rows^T rows / n``): ``H = rows R^{-1} /
    sqrt(n)``, formed without ``L`` (no squared condition number), ``delta = 0``. From a
    matrix ``L``: ``L = F F^T`` by ``eigh`` (eigenvalues clipped at 0), ``H = F^T R^{-1}``;
    ``F F^T`` differs from ``L`` by ``delta = 4 d u ||L||_2`` at most (backward stability of
    the symmetric eigensolver), which the certificate accounts for.
    """
    from scipy.linalg import solve_triangular

    if rows is not None:
        return basis.targets(rows) / np.sqrt(rows.shape[0]), 0.0
    lam, V = np.linalg.eigh(L)
    F = V * np.sqrt(np.clip(lam, 0.0, None))
    delta = 4.0 * L.shape[0] * _EPS / 2.0 * float(np.max(np.abs(lam)))
    # F^T R^{-1} = (R^{-T} F)^T: a triangular solve, no explicit inverse of R
    H = np.ascontiguousarray(solve_triangular(basis.R, F, trans="T", check_finite=False).T)
    return H, delta


def _design_factor(basis: ArmBasis, w: np.ndarray) -> tuple[np.ndarray, float] | None:
    """``(R_w^{-1}, eta)``: ``A_Q(w) = R_w^T R_w`` from the QR of ``diag(sqrt(w_S)) Q_S``
    (no normal equations) and :func:`design._validation.rounding_error_factor`; None for a
    singular design."""
    from scipy.linalg import solve_triangular

    S = np.flatnonzero(w > 0.0)
    B = np.sqrt(w[S])[:, None] * basis.Q[S]
    eta = rounding_error_factor(basis, B)
    if not np.isfinite(eta):
        return None
    Rw = np.linalg.qr(B, mode="r")
    return solve_triangular(Rw, np.eye(Rw.shape[0]), check_finite=False), eta


def _certified(value: float, dmax: float, scale: float, err: float
               ) -> tuple[float, float]:
    """``(lower_bound, gap)`` from the computed value and largest derivative, each with
    relative error at most ``err``: ``lower = value (1 - err) scale / (dmax (1 + err))``
    (``scale`` a lower bound on the true ``value`` for the linear criteria, ``s`` for Ds) and
    ``gap = value (1 + err) / lower - 1`` bounds the gap of the true value. An error
    ``err >= 1/2`` gives the trivial bound ``(0, inf)``."""
    if not err < 0.5:
        return 0.0, np.inf
    lower = value * (1.0 - err) * scale / (dmax * (1.0 + err))
    return lower, value * (1.0 + err) / lower - 1.0


def _linear_certificate(basis: ArmBasis, w: np.ndarray, H: np.ndarray, delta: float = 0.0
                        ) -> CriterionCertificate:
    """Certificate of ``tr(L A_X^{-1})`` computed on ``Q`` with ``L_Q = H^T H``: every
    quantity is a sum of squares (``g_a = ||H A_Q^{-1} q_a||^2``, ``phi = ||H R_w^{-1}||_F^2``),
    with relative error ``err = 2 e + e^2``, ``e = eta + basis.error`` (``eta``: the design's
    rounding error factor; ``basis.error``: forming ``H`` with ``R``). When ``H^T H``
    represents ``L`` only up to ``||Delta L||_2 <= delta`` (an eigen-factor of a given
    matrix), ``|Delta phi| <= delta tr(A_X^{-1})`` and ``|Delta g_a| <= delta
    ||A_X^{-1} x_a||^2`` are added (the A-criterion's terms, computed the same way)."""
    from scipy.linalg import solve_triangular

    fac = _design_factor(basis, w)
    if fac is None:
        return _SINGULAR
    Rwinv, eta = fac
    QR = basis.Q @ Rwinv  # row a: (R_w^{-T} q_a)^T

    def terms(Hm: np.ndarray) -> tuple[float, np.ndarray]:
        HR = Hm @ Rwinv
        P = QR @ HR.T  # row a: (H A_Q^{-1} q_a)^T
        return float(np.sum(HR * HR)), np.einsum("ij,ij->i", P, P)

    phi, g = terms(H)
    e = eta + basis.error
    err = 2.0 * e + e * e
    if delta > 0.0:
        d = basis.R.shape[0]
        HA = solve_triangular(basis.R, np.eye(d), check_finite=False)  # L = I: H = R^{-1}
        trA, gA = terms(HA)
        g = g + delta * gA * (1.0 + err) / (1.0 - err)
        phi_lo = phi * (1.0 - err) - delta * trA * (1.0 + err)
        if not phi_lo > 0.0:
            return CriterionCertificate(phi, 0.0, np.inf, float(g.max()), int(np.argmax(g)),
                                        np.inf)
        err = max(err, 1.0 - phi_lo / phi)
    k = int(np.argmax(g))
    gmax = float(g[k])
    if not (phi > 0.0 and gmax > 0.0):
        return _SINGULAR
    # phi* >= phi_true^2 / g_true with phi_true >= phi (1 - err) and g_true <= g (1 + err):
    # both factors of phi^2 are lowered
    lower, gap = _certified(phi, gmax, phi * (1.0 - err), err)
    return CriterionCertificate(phi, lower, gap, gmax, k, err)


def _ds_basis(Xa: np.ndarray, interest: np.ndarray) -> tuple[ArmBasis, int]:
    """Basis of the arms with the nuisance columns first: ``(basis, m)``; the parameters of
    interest are the last ``s = d - m`` columns of ``basis.Q``."""
    d = Xa.shape[1]
    nuis = np.setdiff1d(np.arange(d), interest)
    perm = np.concatenate([nuis, interest])
    return arm_basis(np.ascontiguousarray(Xa[:, perm])), nuis.size


class CriterionBasis(NamedTuple):
    """A criterion carried over to the well-conditioned basis (for exact and constrained
    designs, which are invariant under ``X -> X T`` as the approximate ones are).

    ``Q`` (columns permuted, nuisance first, for Ds), ``L`` (``L_Q = R^{-T} L R^{-1}``),
    ``interest`` (the last ``s`` columns for Ds), ``value_scale``: criterion values on ``X``
    are those on ``Q`` times it (D: ``|det R|^{-2/d}``; Ds: ``|det R_II|^{-2/s}``; A/I: 1),
    ``basis`` (with ``R`` for the columns in ``perm`` order), ``perm`` and ``L_error``: the
    ``delta`` of :func:`_psd_factor_in_basis` (``L_Q`` represents ``R^{-T} L' R^{-1}`` for an
    ``L'`` with ``||L' - L||_2 <= delta``; 0 when ``L`` came from points), so a linear
    criterion computed on ``Q`` is off by at most ``delta tr(A_X^{-1})``.
    """

    Q: np.ndarray
    L: np.ndarray
    interest: np.ndarray
    value_scale: float
    basis: ArmBasis
    perm: np.ndarray
    L_error: float = 0.0

    def info(self, M: np.ndarray) -> np.ndarray:
        """An information matrix on ``X`` carried to ``Q``: ``R^{-T} M_perm R^{-1}``."""
        from scipy.linalg import solve_triangular

        Mp = M[np.ix_(self.perm, self.perm)]
        T = solve_triangular(self.basis.R, Mp, trans="T", check_finite=False)
        T = solve_triangular(self.basis.R, T.T, trans="T", check_finite=False)
        return np.ascontiguousarray(0.5 * (T + T.T))

    def rows(self, Y: np.ndarray) -> np.ndarray:
        """Rows on ``X`` (e.g. runs already made) carried to ``Q``: ``y_perm R^{-1}``."""
        return self.basis.targets(np.ascontiguousarray(Y[:, self.perm]))


def criterion_basis(Xa: np.ndarray, crit: str, L: np.ndarray, interest: np.ndarray,
                    rows: np.ndarray | None = None) -> CriterionBasis:
    """The criterion ``crit`` ("d", "a", "i", "ds") of the arms ``Xa`` in their
    well-conditioned basis (:func:`design._validation.arm_basis`)."""
    d = Xa.shape[1]
    if crit == "ds":
        basis, m = _ds_basis(Xa, interest)
        perm = np.concatenate([np.setdiff1d(np.arange(d), interest), interest])
        s = d - m
        log_det = float(np.sum(np.log(np.abs(np.diag(basis.R)[m:]))))
        return CriterionBasis(basis.Q, np.zeros((d, d)), np.arange(m, d, dtype=np.int64),
                              float(np.exp(-2.0 * log_det / s)), basis, perm)
    basis = arm_basis(Xa)
    perm = np.arange(d, dtype=np.int64)
    if crit == "d":
        return CriterionBasis(basis.Q, np.zeros((d, d)), perm,
                              float(np.exp(-2.0 * basis.log_abs_det() / d)), basis, perm)
    H, delta = _psd_factor_in_basis(basis, L, rows)
    return CriterionBasis(basis.Q, np.ascontiguousarray(H.T @ H), perm, 1.0, basis, perm,
                          float(delta))


def _ds_factor(basis: ArmBasis, m: int, w: np.ndarray, delta: float
               ) -> tuple[np.ndarray, float] | None:
    """``(R^{-1}, eta)`` for ``A_Q(w) + delta P_N = R^T R`` (``P_N``: the projector on the
    ``m`` nuisance coordinates, the first ones): the QR of ``diag(sqrt(w_S)) Q_S`` stacked
    on ``sqrt(delta) [I_m, 0]`` (no normal equations); ``delta = 0`` is
    :func:`_design_factor`. None when the stack is numerically rank-deficient."""
    if delta <= 0.0:
        return _design_factor(basis, w)
    from scipy.linalg import solve_triangular

    S = np.flatnonzero(w > 0.0)
    d = basis.Q.shape[1]
    reg = np.zeros((m, d))
    reg[:, :m] = np.sqrt(delta) * np.eye(m)
    B = np.vstack([np.sqrt(w[S])[:, None] * basis.Q[S], reg])
    eta = rounding_error_factor(basis, B)
    if not np.isfinite(eta):
        return None
    Rw = np.linalg.qr(B, mode="r")
    return solve_triangular(Rw, np.eye(d), check_finite=False), eta


def _ds_true_logdet(basis: ArmBasis, m: int, w: np.ndarray
                    ) -> tuple[float, float, int]:
    """``(log det C_Q(w), eta, rank)`` valid for a singular ``A_Q(w)``.

    ``C_K(A) = A_II - A_IN A_NN^- A_NI`` (Pukelsheim 2006, §3.11-3.13: the information
    matrix of the parameters of interest, the same for every generalized inverse
    ``A_NN^-``), computed from the weighted factor ``B = diag(sqrt(w_S)) Q_S = [B_N, B_I]``
    as ``C = B_I^T (I - P) B_I`` with ``P`` the projector on the range of ``B_N``, whose
    orthonormal basis comes from the SVD of ``B_N`` (rank: the singular values above
    ``max(K, d) u sigma_max``, as for every rank decision of the design layer). ``rank``
    is that rank of ``B_N`` (``m``: nuisance parameters all estimable). ``log det C = -inf``
    when the parameters of interest are not estimable (``C`` numerically singular).
    ``eta``: relative error bound of the values, as :func:`rounding_error_factor` with
    ``cond = sigma_max(B) / sigma_min((I - P) B_I)``.
    """
    K, d = basis.Q.shape
    S = np.flatnonzero(w > 0.0)
    B = np.sqrt(w[S])[:, None] * basis.Q[S]
    BN, BI = B[:, :m], B[:, m:]
    rank = 0
    if m > 0:
        U, sv, _ = np.linalg.svd(BN, full_matrices=False)
        rank = rank_of(sv, max(K, d))
        U = U[:, :rank]
        BI = BI - U @ (U.T @ BI)
    if BI.shape[0] < BI.shape[1]:
        return -np.inf, np.inf, rank
    top = float(np.linalg.norm(B, 2))
    svi = np.linalg.svd(BI, compute_uv=False)
    if not svi[-1] > top * max(K, d) * _EPS:
        return -np.inf, np.inf, rank
    Ri = np.linalg.qr(BI, mode="r")
    logdet = 2.0 * float(np.sum(np.log(np.abs(np.diag(Ri)))))
    eta = basis.error + float(np.sqrt(K * d) * _EPS / 2.0 * top / svi[-1])
    return logdet, eta, rank


def _ds_certificate(basis: ArmBasis, m: int, w: np.ndarray, deltas: tuple = ()
                    ) -> tuple[CriterionCertificate, float]:
    """Ds certificate on ``Q`` (nuisance columns first), valid for singular designs.

    **Value.** ``log det C_X = log det C_Q + 2 log |det R_II|`` with ``C_Q`` from
    :func:`_ds_true_logdet` (a generalized Schur complement: defined whenever the
    parameters of interest are estimable, ``value = inf`` otherwise). For a nonsingular
    design, ``A_Q(w) = R_w^T R_w`` (QR, no normal equations) and ``C_Q = R_{w,II}^T
    R_{w,II}``.

    **Lower bound** (duality; Pukelsheim 2006, §7.10-7.13). For any ``d x s`` matrix ``V``
    and any design ``w*`` (information ``A*``, ``C* = C_K(A*)``), ``A* >= E C* E^T``
    (``E``: the interest coordinates; Pukelsheim 2006, Thm 3.13) gives
    ``max_a ||V^T q_a||^2 >= tr(A* V V^T) >= tr(C* V_I^T V_I) >= s det(C*)^{1/s}
    |det V_I|^{2/s}`` (AM-GM), so ``phi_Ds* = det(C*)^{-1/s} >= s |det V_I|^{2/s} /
    max_a ||V^T q_a||^2`` for *every* ``V``: a true bound whatever ``V`` is. With ``V = G E
    C^{1/2}`` for ``G = (A + delta P_N)^{-1}`` this is ``value_delta s / max_a d_a^delta``
    with ``d_a^delta = q_a^T G E C_delta E^T G q_a = ||(R^{-T} q_a)_I||^2`` (``R`` the factor
    of :func:`_ds_factor`); ``delta = 0`` (a nonsingular design) is the classical bound
    ``value s / max_a d_a`` (Kiefer 1961), and as ``delta -> 0`` ``G`` tends to a
    generalized inverse of a singular ``A``, as in the general equivalence theorem
    (Pukelsheim 2006, Thm 7.19). The bound is evaluated for ``delta = 0`` (when ``A`` is
    nonsingular) and every ``delta`` in ``deltas`` (with a singular ``A``: also a ladder
    ``tr(A)/d 10^{-k}``, ``k = 2, 4, ..., 12``), and the largest is kept. Rounding: each
    computed ``value``/``d_a`` is widened by its relative error as in
    :func:`_certified`.
    """
    d = basis.Q.shape[1]
    s = d - m
    log_r = 2.0 * float(np.sum(np.log(np.abs(np.diag(basis.R)[m:]))))
    K = basis.Q.shape[0]
    rank = m
    if m > 0:
        S = np.flatnonzero(w > 0.0)
        sv = np.linalg.svd(np.sqrt(w[S])[:, None] * basis.Q[S, :m], compute_uv=False)
        rank = rank_of(sv, max(K, d))
    trials = list(deltas)
    if rank == m:
        # nonsingular nuisance block: the value from the QR of the weighted arms (as the
        # bound at delta = 0 below; unchanged from the nonsingular-only certificate)
        fac = _design_factor(basis, w)
        if fac is None:
            return _SINGULAR, -np.inf
        logdet_q = -2.0 * float(np.sum(np.log(np.abs(np.diag(fac[0])[m:]))))
        eta_v = fac[1] + basis.error
        trials.insert(0, 0.0)
    else:
        logdet_q, eta_v, _ = _ds_true_logdet(basis, m, w)
        if not np.isfinite(logdet_q) or not np.isfinite(eta_v):
            return _SINGULAR, -np.inf
        S = w > 0.0
        scale = float(np.sum(w[S] * np.einsum("ij,ij->i", basis.Q[S], basis.Q[S]))) / d
        trials += [scale * 10.0 ** (-k) for k in (2, 4, 6, 8, 10, 12)]
    logdet_c = logdet_q + log_r
    value = float(np.exp(-logdet_c / s))
    err_v = 2.0 * eta_v + eta_v * eta_v
    best = (0.0, np.inf, -1, np.inf)  # lower, dmax, argmax, err
    for delta in trials:
        fac = _ds_factor(basis, m, w, float(delta))
        if fac is None:
            continue
        Rinv, eta = fac
        Zi = basis.Q @ Rinv[:, m:]
        dv = np.einsum("ij,ij->i", Zi, Zi)
        # value of the regularised design: det(C_delta)^{-1/s}, C_delta = R_II^T R_II
        value_d = float(np.exp((2.0 * float(np.sum(np.log(np.abs(np.diag(Rinv)[m:]))))
                                - log_r) / s))
        e = eta + basis.error
        err = 2.0 * e + e * e
        k = int(np.argmax(dv))
        lower, _ = _certified(value_d, float(dv[k]), float(s), err)
        if lower > best[0]:
            best = (lower, float(dv[k]), k, err)
    lower, dmax, k, err = best
    if not lower > 0.0:
        return CriterionCertificate(value, 0.0, np.inf, dmax, k, err_v), logdet_c
    gap = value * (1.0 + err_v) / lower - 1.0
    return CriterionCertificate(value, lower, gap, dmax, k, max(err, err_v)), logdet_c


def criterion_check(X: object, weights: object, criterion: str = "a", *, L: object = None,
                    region: object = None, interest: object = None) -> CriterionCertificate:
    """Certificate of any design (the user's own weights too) for an A-, I- or Ds-criterion.

    Parameters
    ----------
    X : array_like, shape (K, d)
        Candidate arms (rows); must span R^d.
    weights : array_like, shape (K,)
        Design weights (non-negative, summing to one).
    criterion : {"a", "i", "ds"}
        ``"a"``: ``tr A^{-1}``; ``"i"``: ``tr(L A^{-1})`` with ``L`` given, or the moment
        matrix of ``region`` (rows in model space), or of ``X`` itself; ``"ds"``:
        ``det(C)^{-1/s}`` for the columns ``interest``.

    Returns
    -------
    CriterionCertificate
        ``value``, certified ``lower_bound`` on the optimum over all designs on ``X``,
        ``gap = value / lower_bound - 1`` and the arm with the largest directional
        derivative. A singular ``A(w)`` gives ``value=inf``, ``lower_bound=0`` for A and
        I; for Ds only when the parameters of interest are not estimable under ``w``
        (otherwise the value of the generalized Schur complement and the duality bound of
        :func:`_ds_certificate`: a singular design can be Ds-optimal).
    """
    Xa = as_arms(X)
    w = as_weights(weights, Xa.shape[0])
    crit = str(criterion).lower()
    if crit in ("a", "i"):
        Lm = np.eye(Xa.shape[1]) if crit == "a" else _i_matrix(Xa, L, region)
        rows = None if crit == "a" else _i_rows(Xa, L, region)
        basis = arm_basis(Xa)
        return _linear_certificate(basis, w, *_psd_factor_in_basis(basis, Lm, rows))
    if crit == "ds":
        if interest is None:
            raise ValueError("interest (the column indices of the parameters of interest) is "
                             "required for criterion='ds'")
        basis, m = _ds_basis(Xa, _as_interest(interest, Xa.shape[1]))
        return _ds_certificate(basis, m, w)[0]
    raise ValueError(f"criterion must be one of 'a', 'i', 'ds'; got {criterion!r}")


# ----------------------------------------------------------------------------------------
# solvers
# ----------------------------------------------------------------------------------------


def _start(Q: np.ndarray, rounds: int = 4) -> np.ndarray:
    """PD starting design: equal weights on up to ``rounds * d`` well-spread arms of ``Q``.

    Each round takes the first ``d`` pivots of the column-pivoted QR of the remaining
    candidates' ``Q_C^T`` (Businger & Golub 1965: each pivot is the arm farthest from the
    span of those already chosen in the round); the first round's ``d`` arms span ``R^d``,
    so the start is nonsingular. Candidates: the ``20 d`` arms of largest norm (the
    leverages of the uniform design), or all arms when ``K <= 20 d`` or when those do not
    span. The exchange and its working set do the rest. It replaced the D-optimal design at
    ``tol=1e-2``, so that the A/I/Ds solvers compile no G/D kernel (issue 16), at equal or
    better warm run time (``benchmarks/bench_criteria.py --start``; docs/choices.md).
    """
    from scipy.linalg import qr

    K, d = Q.shape
    pools = [np.arange(K)]
    if K > 20 * d:
        norms = np.einsum("ij,ij->i", Q, Q)
        pools.insert(0, np.argpartition(norms, K - 20 * d)[K - 20 * d:])
    for pool in pools:
        R, piv = qr(np.ascontiguousarray(Q[pool].T), mode="r", pivoting=True,
                    check_finite=False)
        diag = np.abs(np.diag(R))
        if diag.size == d and diag[-1] > 1e-8 * diag[0]:
            break
    chosen = [pool[piv[:d]]]
    rest = pool[piv[d:]]
    for _ in range(rounds - 1):
        if rest.size < d:
            break
        piv = qr(np.ascontiguousarray(Q[rest].T), mode="r", pivoting=True,
                 check_finite=False)[1]
        chosen.append(rest[piv[:d]])
        rest = rest[piv[d:]]
    w = np.zeros(K)
    idx = np.concatenate(chosen)
    w[idx] = 1.0 / idx.size
    return w


def _cvxpy_solver(solver: str | None) -> tuple[str, dict]:
    import cvxpy as cp

    if solver is None:
        solver = "CLARABEL" if "CLARABEL" in cp.installed_solvers() else "SCS"
    solver = solver.upper()
    kwargs: dict = {"eps": 1e-9, "max_iters": 100_000} if solver == "SCS" else {}
    if solver == "CLARABEL":
        kwargs = {"tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10, "tol_feas": 1e-10,
                  "max_iter": 500}
    return solver, kwargs


def _info_expr(X: np.ndarray, w: object) -> object:
    import cvxpy as cp

    K, d = X.shape
    F = np.einsum("ai,aj->aij", X, X).reshape(K, d * d)
    A = cp.reshape(F.T @ w, (d, d), order="C")
    return (A + A.T) / 2


def _finish_cvxpy(prob: object, w: object, solver: str) -> np.ndarray:
    if w.value is None:
        raise RuntimeError(f"cvxpy/{solver} failed: status {prob.status}")
    wv = np.clip(np.asarray(w.value, dtype=float), 0.0, None)
    wv[wv < 1e-12 * wv.max()] = 0.0
    return wv / wv.sum()


def _linear_cvxpy(X: np.ndarray, L: np.ndarray, solver: str | None = None
                  ) -> tuple[np.ndarray, str]:
    """Reference path: ``min matrix_frac(C, A(w)) = tr(C^T A^{-1} C)`` with ``L = C C^T``."""
    import cvxpy as cp

    solver, kwargs = _cvxpy_solver(solver)
    ev, U = np.linalg.eigh(L)
    keep = ev > 1e-12 * ev[-1]
    C = U[:, keep] * np.sqrt(ev[keep])
    w = cp.Variable(X.shape[0], nonneg=True)
    prob = cp.Problem(cp.Minimize(cp.matrix_frac(C, _info_expr(X, w))), [cp.sum(w) == 1])
    prob.solve(solver=solver, **kwargs)
    return _finish_cvxpy(prob, w, solver), f"cvxpy-{solver.lower()}"


def _ds_cvxpy(X: np.ndarray, interest: np.ndarray, solver: str | None = None
              ) -> tuple[np.ndarray, str]:
    """Reference path: ``max log det T`` s.t. ``[[A_II - T, A_IN], [A_NI, A_NN]] >= 0``."""
    import cvxpy as cp

    solver, kwargs = _cvxpy_solver(solver)
    d = X.shape[1]
    nuis = np.setdiff1d(np.arange(d), interest)
    Xp = X[:, np.concatenate([interest, nuis])]
    s = interest.size
    w = cp.Variable(X.shape[0], nonneg=True)
    T = cp.Variable((s, s), symmetric=True)
    A = _info_expr(Xp, w)
    if nuis.size:
        block = cp.bmat([[A[:s, :s] - T, A[:s, s:]], [A[s:, :s], A[s:, s:]]])
    else:
        block = A - T
    prob = cp.Problem(cp.Maximize(cp.log_det(T)), [cp.sum(w) == 1, block >> 0])
    prob.solve(solver=solver, **kwargs)
    return _finish_cvxpy(prob, w, solver), f"cvxpy-{solver.lower()}"


def _column_generation(K: int, d: int, w0: np.ndarray, tol: float, max_iter: int,
                       solve: Callable[[np.ndarray, np.ndarray, float, int], tuple[int, int]],
                       derivatives: Callable[[np.ndarray],
                                             tuple[np.ndarray, float] | None]
                       ) -> tuple[np.ndarray, int, int]:
    """Column generation around an exchange kernel: ``(weights, status, iterations)``.

    ``solve(S, wS, inner, steps)`` runs the kernel on the working set ``S`` (the support
    plus the most violated candidates) from the weights ``wS``, updated in place, to the
    gap ``inner`` in at most ``steps`` steps, and returns ``(status, steps taken)``.
    Between rounds ``derivatives(w)`` gives every candidate's directional derivative and
    the threshold ``t`` of the equivalence theorem (``None``: ``A(w)`` singular), and up to
    ``batch`` candidates with a derivative above ``t (1 + tol / 2)`` join the working set.
    Stops when none is left (the theorem holds on all candidates) or at ``max_iter`` kernel
    steps.

    The rounds aim at ``tol / 2``, not ``tol``: the certificate reported afterwards carries
    the basis' rounding-error factor (``1 + eta``), so a design at a working-set gap just
    under ``tol`` was certified just above it (Ds at cond 1e10: 1.014e-3 for tol = 1e-3).
    A design whose gap stops improving while it is within ``tol`` ends the rounds too.

    BLAS is limited to one thread throughout (:func:`design._gd_batch.blas_threads`): the
    products are small and many, and a thread pool spent 5-20x the CPU time in wake-ups on
    a loaded machine (issue 16).
    """
    from design._gd_batch import blas_threads

    with blas_threads(1):
        return _rounds(K, d, w0, tol, max_iter, solve, derivatives)


def _rounds(K: int, d: int, w0: np.ndarray, tol: float, max_iter: int,
            solve: Callable[[np.ndarray, np.ndarray, float, int], tuple[int, int]],
            derivatives: Callable[[np.ndarray], tuple[np.ndarray, float] | None]
            ) -> tuple[np.ndarray, int, int]:
    """The rounds of :func:`_column_generation`."""
    batch = max(10 * d, 100)
    S = np.flatnonzero(w0 > 0)
    w = w0.copy()
    total = 0
    status = kern.MAX_ITER
    prev_gap = None
    target = 0.5 * tol
    for _ in range(1000):
        wS = np.ascontiguousarray(w[S] / w[S].sum())
        # no need to solve the working set far below the current global gap
        inner = target if prev_gap is None else max(target, 0.01 * prev_gap)
        status, its = solve(S, wS, inner, max_iter - total)
        total += its
        w = np.zeros(K)
        w[S] = np.clip(wS, 0.0, None)
        w /= w.sum()
        if status == kern.SINGULAR:
            break
        found = derivatives(w)
        if found is None:
            break
        dv, threshold = found
        viol = np.flatnonzero(dv > threshold * (1.0 + target))
        gap = float(dv.max()) / threshold - 1.0
        if (viol.size == 0 and inner == target) or (
                inner == target and gap <= tol and prev_gap is not None and gap >= prev_gap):
            status = kern.CONVERGED
            break
        if total >= max_iter:
            status = kern.MAX_ITER
            break
        prev_gap = gap
        if viol.size > batch:
            viol = viol[np.argpartition(dv[viol], -batch)[-batch:]]
        S = np.union1d(np.flatnonzero(w > 0), viol)
    return w, int(status), total


def _linear_working_set(X: np.ndarray, L: np.ndarray, w0: np.ndarray, tol: float,
                        max_iter: int) -> tuple[np.ndarray, int, int]:
    """:func:`_column_generation` with the A/I exchange kernel: the derivatives are
    ``g_a = x_a^T A^{-1} L A^{-1} x_a`` (two GEMMs), the threshold ``phi = tr(L A^{-1})``."""
    K, d = X.shape

    def solve(S: np.ndarray, wS: np.ndarray, inner: float, steps: int) -> tuple[int, int]:
        return kern.linear_solve(np.ascontiguousarray(X[S]), L, wS, np.zeros((d, d)),
                                 np.full(S.size, 2.0), False, inner, steps, _refresh(d))

    return _column_generation(K, d, w0, tol, max_iter, solve,
                              lambda w: _linear_certificate_g(X, w, L))


def _ds_working_set(Q: np.ndarray, m: int, w0: np.ndarray, tol: float, max_iter: int,
                    delta: float = 0.0) -> tuple[np.ndarray, int, int]:
    """:func:`_column_generation` with :func:`design._criteria_numba.ds_solve`: the
    derivatives are ``d_a = ||z_{a,I}||^2`` (``z_a = C^{-1} q_a``, ``A(w) = C C^T``,
    interest columns last), the threshold ``s``, the number of parameters of interest.

    ``delta > 0`` solves the regularised problem ``A(w) + delta P_N`` (``P_N``: the
    projector on the ``m`` nuisance coordinates; the kernel's ``M0``), which stays
    nonsingular when a Ds-optimal design is singular (see :func:`ds_optimal`)."""
    from scipy.linalg import solve_triangular

    K, d = Q.shape
    s = d - m
    M0 = np.zeros((d, d))
    for r in range(m):
        M0[r, r] = delta
    M0N = np.ascontiguousarray(M0[:m, :m])

    def solve(S: np.ndarray, wS: np.ndarray, inner: float, steps: int) -> tuple[int, int]:
        QS = np.ascontiguousarray(Q[S])
        return kern.ds_solve(QS, np.ascontiguousarray(QS[:, :m]), wS, M0, M0N,
                             np.full(S.size, 2.0), False, s, inner, steps, _refresh(d))

    def derivatives(w: np.ndarray) -> tuple[np.ndarray, float] | None:
        sup = w > 0
        try:
            C = np.linalg.cholesky((Q[sup] * w[sup, None]).T @ Q[sup] + M0)
        except np.linalg.LinAlgError:
            return None
        Z = solve_triangular(C, Q.T, lower=True, check_finite=False)[m:]
        return np.einsum("ij,ij->j", Z, Z), float(s)

    return _column_generation(K, d, w0, tol, max_iter, solve, derivatives)


def _ds_prune(basis: ArmBasis, m: int, w: np.ndarray, cert: CriterionCertificate,
              logdet_c: float, tol: float, deltas: tuple = ()) -> tuple:
    """``(w, cert, logdet_c)`` without the weights below ``10^{-k}`` of the largest (``k = 3,
    4, 5, 6``, the largest cut first), when that design's value is not larger and its
    certified gap within ``max(tol, cert.gap)``; else the design as it was.

    An exchange that approaches a singular Ds-optimum leaves weights near 0 (the remains
    of a drop); the design without them is the singular one it approaches."""
    top = w.max()
    for k in (3, 4, 5, 6):
        small = (w > 0.0) & (w < 10.0 ** (-k) * top)
        if not small.any():
            continue
        pruned = np.where(small, 0.0, w)
        pruned /= pruned.sum()
        cp, lp = _ds_certificate(basis, m, pruned, deltas)
        if cp.value <= cert.value and cp.gap <= max(tol, cert.gap):
            return pruned, cp, lp
    return w, cert, logdet_c


def _ds_singular(basis: ArmBasis, m: int, w: np.ndarray, cert: CriterionCertificate,
                 logdet_c: float, tol: float, max_iter: int, its: int) -> tuple:
    """Continuation towards a singular Ds-optimal design: ``(w, status, its, cert,
    logdet_c, delta)``.

    Solves the regularised problems ``A(w) + delta P_N`` (the nuisance coordinates get the
    information ``delta``; :func:`_ds_working_set`) for ``delta = tr(A)/d 10^{-k}``,
    ``k = 3, 5, 7, 9``, each started from the last design, and certifies each result for
    the *unregularised* criterion (:func:`_ds_certificate`, with the ``delta`` whose
    generalized inverse ``(A + delta P_N)^{-1}`` gives the bound). Regularisation adds
    information, so ``C_K(A + delta P_N) >= C_K(A)`` and tends to it as ``delta -> 0``
    (Pukelsheim 2006, §3.13: ``C_K`` is monotone and upper semicontinuous); the solver's stop
    rule ``max_a d_a^delta <= s (1 + tol)`` bounds the optimum by ``value_delta / (1 + tol)``,
    within ``value / value_delta - 1 = O(delta)`` of the value. Keeps the best certified
    design; stops at the first certified within ``tol``. ``delta = 0`` when no regularised
    design was better.
    """
    Q = basis.Q
    d = Q.shape[1]
    S = w > 0.0
    scale = float(np.sum(w[S] * np.einsum("ij,ij->i", Q[S], Q[S]))) / d
    best = (w, kern.STALLED, cert, logdet_c, 0.0)
    cur = w
    for k in (3, 5, 7, 9):
        if its >= max_iter:
            best = (best[0], kern.MAX_ITER, *best[2:])
            break
        delta = scale * 10.0 ** (-k)
        cur, status, it = _ds_working_set(Q, m, cur, tol, max_iter - its, delta)
        its += it
        c, ld = _ds_certificate(basis, m, cur, (delta,))
        cur, c, ld = _ds_prune(basis, m, cur, c, ld, tol, (delta,))
        if c.gap < best[2].gap:
            best = (cur, status, c, ld, delta)
        if c.gap <= tol:
            break
    w, status, cert, logdet_c, delta = best
    return w, status, its, cert, logdet_c, delta


def _linear_certificate_g(X: np.ndarray, w: np.ndarray, L: np.ndarray
                          ) -> tuple[np.ndarray, float] | None:
    Ainv = _chol_inverse(X, w)
    if Ainv is None:
        return None
    Z = X @ Ainv
    return np.einsum("ij,ij->i", Z @ L, Z), float(np.einsum("ij,ji->", L, Ainv))


def _refresh(d: int) -> int:
    return max(100, 10 * d)


def _linear(Xa: np.ndarray, L: np.ndarray, tol: float, method: str, max_iter: int | None,
            criterion: str, info: dict | None = None, rows: np.ndarray | None = None
            ) -> DesignResult:
    """The A/I/linear solve with BLAS limited to one thread (as :func:`_column_generation`:
    small products, where a thread pool only costs)."""
    from design._gd_batch import blas_threads

    with blas_threads(1):
        return _linear_solve(Xa, L, tol, method, max_iter, criterion, info, rows)


def _linear_solve(Xa: np.ndarray, L: np.ndarray, tol: float, method: str,
                  max_iter: int | None, criterion: str, info: dict | None,
                  rows: np.ndarray | None) -> DesignResult:
    tol = as_tol(tol)
    _check_method(method)
    max_iter = as_max_iter(max_iter, 200_000)
    basis = arm_basis(Xa)
    H, delta = _psd_factor_in_basis(basis, L, rows)
    LQ = np.ascontiguousarray(H.T @ H)
    status_txt = ""
    if method == "cvxpy":
        w, solver = _linear_cvxpy(basis.Q, LQ)
        its = 0
    else:
        w, status, its = _linear_working_set(basis.Q, LQ, _start(basis.Q), tol, max_iter)
        solver = "exchange"
        status_txt = _STATUS[int(status)]
    cert = _linear_certificate(basis, w, H, delta)
    return _result(w, cert, its, solver, status_txt, tol, criterion, info or {})


def _result(w: np.ndarray, cert: CriterionCertificate, its: int, solver: str,
            status_txt: str, tol: float, criterion: str, info: dict) -> DesignResult:
    """The :class:`DesignResult` of a first-order or cvxpy solve, with its certificate and,
    when the certified gap exceeds ``tol``, the message saying why it stopped."""
    converged = bool(cert.gap <= tol)
    message = ""
    if not converged and cert.rounding_error * 4.0 >= tol:
        message = (f"tol={tol:g} cannot be certified: the conditioning of the arms (after "
                   "column scaling) and of L bounds the relative rounding error of the "
                   f"certificate only by {cert.rounding_error:.3g} (certified gap "
                   f"{cert.gap:.3g}); reparametrise the arms (X @ T), give the region's "
                   "points instead of L, or use a larger tol")
    elif not converged and status_txt:
        message = (f"not converged: certified gap {cert.gap:.3g} > tol={tol:g} after {its} "
                   f"exchanges ({status_txt}); raise max_iter, loosen tol, or try "
                   "method='cvxpy'")
    return DesignResult(
        weights=w, value=cert.value, lower_bound=cert.lower_bound, gap=cert.gap,
        support=np.flatnonzero(w > 0.0).astype(np.int64), iterations=int(its), solver=solver,
        converged=converged, criterion=criterion,
        info={**info, "max_derivative": cert.max_derivative, "argmax": cert.argmax,
              "rounding_error": cert.rounding_error},
        message=message,
    )


@warns_if_not_converged
def linear_optimal(X: object, L: object, *, tol: float = 1e-6, method: str = "auto",
                   max_iter: int | None = None) -> DesignResult:
    """Linear-criterion (L-optimal) design: ``min_w tr(L A(w)^{-1})`` for a PSD ``L``.

    The engine behind :func:`a_optimal` (``L = I``) and :func:`i_optimal` (``L`` a moment
    matrix). ``L = c c^T`` is the c-criterion ``c^T A^{-1} c``; for that prefer
    :func:`design.c_optimal`, whose optimum may have a singular ``A`` that this solver
    only approaches.

    Parameters
    ----------
    X : array_like, shape (K, d)
        Candidate arms as rows; must span R^d.
    L : array_like, shape (d, d)
        Symmetric positive semidefinite weight matrix (``ValueError`` otherwise).
    tol : float, default 1e-6
        Requested certified gap ``max_a g_a / phi - 1`` with
        ``g_a = x_a^T A^{-1} L A^{-1} x_a``.
    method : {"auto", "exchange", "cvxpy"}
        ``"auto"``/``"exchange"``: the vertex-exchange solver
        (:func:`design._criteria_numba.linear_solve`, jitted steps): each step moves weight
        from the support arm with the smallest ``g`` to the arm with the largest with the
        exact line search (a quadratic equation), ``A^{-1}`` and every ``g_a`` updated by a
        rank-two Woodbury formula in ``O(K d)``, an exact (LAPACK) Cholesky refresh every
        ``max(100, 10 d)`` steps and before convergence is declared; started from equal
        weights on ``4 d`` well-spread arms (pivoted QR, :func:`_start`). ``"cvxpy"``:
        ``min matrix_frac(C, A(w))`` with ``L = C C^T`` (Clarabel if installed, else SCS
        with ``eps=1e-9``).
    max_iter : int, optional
        Cap on the exchange steps (default 200,000); reaching it gives ``converged=False``,
        a :class:`~design.DesignConvergenceWarning` and a ``message``.

    Returns
    -------
    DesignResult
        ``value = tr(L A^{-1})``, ``lower_bound = value^2 / max_a g_a`` (see the module
        docstring), ``gap = max_a g_a / value - 1``; ``info["argmax"]`` is the arm with the
        largest ``g_a``.
    """
    Xa = as_arms(X)
    Lm = as_moment_matrix(L, Xa.shape[1])
    return _linear(Xa, Lm, tol, method, max_iter, "L")


@warns_if_not_converged
def a_optimal(X: object, *, tol: float = 1e-6, method: str = "auto",
              max_iter: int | None = None) -> DesignResult:
    """A-optimal design: ``min_w tr A(w)^{-1}``, the sum of the parameter variances.

    :func:`linear_optimal` with ``L = I`` (Kiefer 1974; Pukelsheim 2006, §6.5). Equivalence
    theorem: ``w`` is A-optimal iff ``max_a x_a^T A^{-2} x_a <= tr A^{-1}``; the result's
    ``lower_bound = (tr A^{-1})^2 / max_a x_a^T A^{-2} x_a`` is certified for any ``w``.
    The A-criterion is not invariant to reparametrisation: scale the columns of ``X`` as
    the parameters should be weighed. Parameters as in :func:`linear_optimal`.
    """
    Xa = as_arms(X)
    return _linear(Xa, np.eye(Xa.shape[1]), tol, method, max_iter, "A")


def _i_matrix(Xa: np.ndarray, L: object, region: object) -> np.ndarray:
    d = Xa.shape[1]
    if L is not None and region is not None:
        raise ValueError("give either L (a moment matrix) or region (points), not both")
    if L is not None:
        return as_moment_matrix(L, d)
    if region is None:
        return moment_matrix(Xa, name="X")
    R = as_arms(region, "region", need_span=False)
    if R.shape[1] != d:
        raise ValueError(f"region has {R.shape[1]} columns but the arms have d={d}: give the "
                         "region's points in model space (design.model_matrix of its factor "
                         "settings, with the same terms as X)")
    return moment_matrix(R, name="region")


def _i_rows(Xa: np.ndarray, L: object, region: object) -> np.ndarray | None:
    """The points behind the I-criterion's moment matrix (``region``, or ``X`` when neither
    ``L`` nor ``region`` is given), None when ``L`` was given as a matrix."""
    if L is not None:
        return None
    return Xa if region is None else as_arms(region, "region", need_span=False)


@warns_if_not_converged
def i_optimal(X: object, *, L: object = None, region: object = None, tol: float = 1e-6,
              method: str = "auto", max_iter: int | None = None) -> DesignResult:
    """I-optimal (integrated-variance) design: ``min_w tr(L A(w)^{-1})``.

    ``tr(L A^{-1}) = int f^T A^{-1} f d mu`` is the average prediction variance over the
    region ``mu`` when ``L = int f f^T d mu`` is its moment matrix (Box & Draper 1959;
    Atkinson, Donev & Tobias 2007, §10.6; OptimalDesign's ``Fx_ItoA``). Solved by
    :func:`linear_optimal`'s engine.

    Parameters
    ----------
    X : array_like, shape (K, d)
        Candidate arms (regressors ``f(x)``) as rows; must span R^d.
    L : array_like, shape (d, d), optional
        The moment matrix (symmetric PSD). For a continuous region use its exact moments
        (e.g. ``[[1, 0, 1/3], [0, 1/3, 0], [1/3, 0, 1/5]]`` for ``f = (1, x, x^2)`` and
        ``x`` uniform on ``[-1, 1]``).
    region : array_like, shape (n, d), optional
        Points of the region in model space; ``L`` is their mean ``f f^T``
        (:func:`moment_matrix`). Default when neither is given: the candidate set ``X``.
    tol, method, max_iter
        As in :func:`linear_optimal`.

    Returns
    -------
    DesignResult
        ``value = tr(L A^{-1})``, the average prediction variance; certificate as in
        :func:`linear_optimal`; ``info["L"]`` holds the moment matrix used.
    """
    Xa = as_arms(X)
    Lm = _i_matrix(Xa, L, region)
    return _linear(Xa, Lm, tol, method, max_iter, "I", info={"L": Lm},
                   rows=_i_rows(Xa, L, region))


def _ds_span_reduction(Xa: np.ndarray, idx: np.ndarray
                       ) -> tuple[np.ndarray, float, float] | None:
    """Ds on candidates that do not span R^d: ``(Z, factor, eta)``, or None if they span.

    With numerical rank ``r < d`` (:func:`design._validation.rank_of` on the column-
    equilibrated ``Xs = X D^{-1}``) only ``theta`` modulo the orthogonal complement of the
    row space ``V`` (``d x r``, orthonormal) is identifiable; ``theta_I`` is estimable iff
    every ``e_i`` (``i`` in ``interest``) lies in ``V`` (Pukelsheim 2006, §3.5), else no
    design on these candidates can estimate it: ``ValueError``. Estimable: ``B = V^T E``
    has orthonormal columns, ``T = [B, N]^T`` (``N`` an orthonormal basis of the complement
    of ``range B`` in R^r) is orthogonal, and on ``Z = Xs V T^T`` (``K x r``, full rank)
    the first ``s`` coordinates are ``theta_I``: its Ds problem has the same weights and
    ``phi_X = phi_Z prod_{i in I} D_i^{-2/s}`` (``factor``). ``eta`` bounds the relative
    change of the value from treating ``X`` as exactly rank ``r`` (its dropped singular
    values) and from forming ``Z`` (orthogonal transforms)."""
    from design._validation import _rank

    K, d = Xa.shape
    if _rank(Xa) == d:
        return None
    scale = np.linalg.norm(Xa, axis=0)
    zero = scale == 0.0
    if np.any(zero[idx]):
        raise ValueError(f"interest: column(s) {idx[zero[idx]].tolist()} of X are zero, "
                         "so no design on these candidates can estimate those parameters")
    scale[zero] = 1.0
    Xs = Xa / scale
    _, sv, Vt = np.linalg.svd(Xs, full_matrices=False)
    r = rank_of(sv, max(K, d))
    V = Vt[:r].T
    E = np.eye(d)[:, idx]
    resid = np.linalg.norm(E - V @ (V.T @ E), axis=0)
    bad = idx[resid > 1e-8]
    if bad.size:
        raise ValueError(
            f"interest: the parameters {bad.tolist()} are not estimable from these "
            f"candidates (X has rank {r} < d={d} and e_i is not in its row space, residual "
            f"{float(resid.max()):.2g}): no design on them can estimate these parameters; "
            "drop or reparametrise the confounded columns")
    B = V.T @ E
    Qb = np.linalg.qr(B, mode="complete")[0]
    T = np.vstack([B.T, Qb[:, idx.size:].T])
    Z = np.ascontiguousarray(Xs @ V @ T.T)
    dropped = float(sv[r]) if r < sv.size else 0.0
    eta = 4.0 * (dropped + 8.0 * d * np.finfo(np.float64).eps * float(sv[0])) \
        / float(sv[r - 1]) + 4.0 * float(resid.max())
    factor = float(np.exp(-2.0 * np.log(scale[idx]).sum() / idx.size))
    return Z, factor, eta


@warns_if_not_converged
def ds_optimal(X: object, interest: object, *, tol: float = 1e-6, method: str = "auto",
               max_iter: int | None = None) -> DesignResult:
    """Ds-optimal design: most precise joint estimate of the parameters ``interest``.

    Maximises ``det C(A)`` with ``C = (E^T A^{-1} E)^{-1}`` (the information on the
    parameters of interest after the nuisance parameters are estimated; Kiefer 1961,
    Atkinson, Donev & Tobias 2007, §10.3); equivalently minimises the determinant of the
    ``s x s`` block of ``A^{-1}``. Reported as ``phi_Ds = det(C)^{-1/s}`` (to minimise;
    ``info["log_det_schur"]`` has ``log det C``). With every column of interest it is the
    D-optimal design.

    Parameters
    ----------
    X : array_like, shape (K, d)
        Candidate arms as rows. If they do not span R^d (numerical rank ``r < d``), the
        design is computed on their row space when the parameters of interest are
        estimable there (:func:`_ds_span_reduction`; ``info["span_rank"] = r``), else
        ``ValueError`` (no design on these candidates estimates them). The Ds-optimum may
        be singular (only the
        parameters of interest need to be estimable, e.g. the slope of a quadratic on
        ``[-1, 1]``: 1/2 at each end): the value is then the generalized Schur complement
        ``C_K(A) = A_II - A_IN A_NN^- A_NI`` and the certificate the duality bound of
        :func:`_ds_certificate`, and the solver reaches it by continuation (below).
    interest : sequence of int or boolean mask
        Column indices of the ``s`` parameters of interest (an int is refused as ambiguous:
        write ``[k]``).
    tol : float, default 1e-6
        Requested certified gap ``max_a d_a / s - 1`` with
        ``d_a = x_a^T A^{-1} E C E^T A^{-1} x_a``.
    method : {"auto", "exchange", "cvxpy"}
        ``"auto"``/``"exchange"``: numba vertex exchange (:func:`design._criteria_numba.
        ds_solve`) with the exact line search (the log-ratio of two determinant quadratics;
        its stationary points solve a quadratic), rank-two updates of ``A^{-1}`` and of the
        nuisance block's inverse; started from equal weights on ``4 d`` well-spread arms
        (pivoted QR, :func:`_start`).
        When that stops above ``tol`` (a singular optimum: the exchange cannot step onto
        it), it continues on the regularised problems ``A(w) + delta P_N`` (information
        ``delta = tr(A)/d 10^{-k}``, ``k = 3, 5, 7, 9``, on the nuisance coordinates only),
        each certified for the unregularised criterion; weights below ``1e-3``-``1e-6`` of
        the largest are dropped when that does not raise the value (:func:`_ds_prune`).
        ``"cvxpy"``: ``max log det T`` s.t. ``[[A_II - T, A_IN], [A_NI, A_NN]] >= 0``.
    max_iter : int, optional
        Cap on the exchange steps (default 200,000).

    Returns
    -------
    DesignResult
        ``value = det(C)^{-1/s}``, ``lower_bound = value s / max_a d_a`` (nonsingular
        designs; singular ones: the duality bound), ``gap = value / lower_bound - 1``;
        ``info["interest"]`` the sorted column indices, ``info["regularisation"]`` the
        ``delta`` of the continuation when it gave the result.
    """
    Xa = as_arms(X, need_span=False)
    K, d = Xa.shape
    idx = _as_interest(interest, d)
    tol = as_tol(tol)
    _check_method(method)
    max_iter = as_max_iter(max_iter, 200_000)
    reduced = _ds_span_reduction(Xa, idx)
    if reduced is not None:  # X does not span R^d, the interest is estimable
        Z, factor, eta = reduced
        res = ds_optimal.__wrapped__(Z, np.arange(idx.size), tol=tol, method=method,
                                     max_iter=max_iter)
        lower = res.lower_bound * factor * (1.0 - eta) / (1.0 + eta)
        value = res.value * factor
        return dataclasses.replace(
            res, value=value, lower_bound=lower, gap=value / lower - 1.0 if lower > 0 else
            np.inf, converged=bool(res.converged and value / lower - 1.0 <= tol),
            info={**res.info, "interest": idx, "span_rank": Z.shape[1],
                  "span_error": eta})
    Xa = as_arms(Xa)
    from design._gd_batch import blas_threads

    with blas_threads(1):  # small products: a thread pool only costs (as _linear)
        return _ds(Xa, idx, tol, method, max_iter)


def _ds(Xa: np.ndarray, idx: np.ndarray, tol: float, method: str, max_iter: int
        ) -> DesignResult:
    """The body of :func:`ds_optimal` on validated, spanning arms."""
    K, d = Xa.shape
    status_txt = ""
    basis, m = _ds_basis(Xa, idx)
    Q = basis.Q
    info: dict = {"interest": idx}
    if method == "cvxpy":
        w, solver = _ds_cvxpy(Q, np.arange(m, d))
        its = 0
        cert, logdet_c = _ds_certificate(basis, m, w)
    else:
        w, status, its = _ds_working_set(Q, m, _start(Q), tol, max_iter)
        solver = "exchange"
        status_txt = _STATUS[int(status)]
        cert, logdet_c = _ds_certificate(basis, m, w)
        if m > 0:
            w, cert, logdet_c = _ds_prune(basis, m, w, cert, logdet_c, tol)
        if cert.gap > tol and m > 0 and its < max_iter:
            w, status, its, cert, logdet_c, delta = _ds_singular(
                basis, m, w, cert, logdet_c, tol, max_iter, its)
            status_txt = _STATUS[int(status)]
            if delta > 0.0:
                info["regularisation"] = delta
    info["log_det_schur"] = logdet_c
    return _result(w, cert, its, solver, status_txt, tol, "Ds", info)
