"""Minimax (XY, transductive, weighted, H-optimal) designs with certificates.

For arms ``x_1..x_K`` (rows of ``X``), weights ``lam`` on the simplex and
``A(lam) = sum_a lam_a x_a x_a^T``, the weighted minimax criterion of targets
``y_1..y_M`` with weights ``c_j > 0`` is::

    rho(lam) = max_j c_j y_j^T A(lam)^{-1} y_j           (to be minimised).

Special cases:

* XY-allocation (Soare, Lazaric & Munos 2014, Eq. 25): ``Y = {x_i - x_j}``, ``c = 1``;
* transductive design (Fiez, Jain, Jamieson & Ratliff 2019): measure on ``X``, targets the
  differences of another set ``Z``;
* oracle allocation (Soare et al. 2014, Eq. 6): ``c_j = 1 / Delta(y_j)^2``;
* H-optimal design (Mason, Jun & Jain 2022): rows ``sqrt(mu'_a) x_a``, targets
  ``sqrt(mu'_a) x_a``, ``c_a = mu'_a``; and the paper's ``g*`` (their Eq. 4).

Certificate (general equivalence theorem; derivation in
:func:`design._minimax_solver.cs_lower_bound`): for any design ``lam`` and any
probability ``mu`` on the targets, with ``B = sum_j mu_j c_j y_j y_j^T``::

    min_lam' rho(lam') >= tr(A^{-1} B)^2 / max_a x_a^T A^{-1} B A^{-1} x_a,

which is tight at an optimal design with an optimal ``mu`` (supported on the active
targets). Every result carries ``lower_bound`` and ``gap = value (1 + eta) / lower_bound - 1``,
where ``eta`` (``info["rounding_error"]``, about 1e-13 for well-conditioned arms) bounds the
relative rounding error: the problem is solved and certified on ``Q`` from ``X = Q R``
(designs are invariant under ``X -> X T``; targets map to ``y R^{-1}``), and
``lower_bound`` is relaxed by ``1 - 4 eta`` so that both stay true bounds.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from design import _minimax_solver as sol
from design._validation import (
    ArmBasis,
    arm_basis,
    as_arms,
    as_max_iter,
    as_tol,
    as_vector,
    as_weights,
    rounding_error_factor,
)
from design.result import DesignResult, warns_if_not_converged

__all__ = [
    "MinimaxCertificate",
    "g_optimal_hessian",
    "glm_variance",
    "h_optimal",
    "minimax_check",
    "minimax_optimal",
    "pairwise_differences",
    "xy_check",
    "xy_optimal",
]

_METHODS = ("auto", "ipm", "barrier", "cvxpy")
_LINKS = ("logistic", "probit", "poisson", "identity")


# ----------------------------------------------------------------------------------------
# validation helpers
# ----------------------------------------------------------------------------------------


def _as_targets(Y: object, d: int, name: str = "Y") -> np.ndarray:
    try:
        arr = np.asarray(Y, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a numeric (M, d) array: {exc}") from None
    if arr.ndim == 1 and arr.shape[0] == d:
        arr = arr[None, :]
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array of shape (M, d) with targets as rows; "
                         f"got ndim={arr.ndim}")
    if arr.shape[1] != d:
        raise ValueError(f"{name} has {arr.shape[1]} columns but the arms have d={d} features")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} is empty: at least one non-zero target is needed")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf")
    return np.ascontiguousarray(arr)


def _as_costs(c: object, M: int, name: str = "c") -> np.ndarray:
    if c is None:
        return np.ones(M)
    try:
        arr = np.asarray(c, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a numeric vector: {exc}") from None
    if arr.ndim == 0:
        arr = np.full(M, float(arr))
    if arr.ndim != 1 or arr.shape[0] != M:
        raise ValueError(f"{name} must be a vector of length M={M} (one per target); "
                         f"got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf")
    if np.any(arr <= 0.0):
        raise ValueError(f"{name} must be > 0 (got min {arr.min():.3g}); drop the targets "
                         "with zero weight instead")
    return arr


def _explicit_targets(Y: np.ndarray, c: np.ndarray, name: str = "Y") -> sol.Targets:
    rows, orig = sol.dedupe_rows(Y * np.sqrt(c)[:, None])
    if rows.shape[0] == 0:
        raise ValueError(f"{name} has no non-zero target (all rows are zero): the criterion "
                         "is identically 0")
    return sol.Targets(d=Y.shape[1], rows=rows, orig=orig)


def _pair_targets(Z: np.ndarray, name: str = "Y") -> sol.Targets:
    if Z.shape[0] < 2 or np.all(Z == Z[0]):
        raise ValueError(f"{name}: the targets are the pairwise differences of the rows, but "
                         "all rows are equal: no non-zero target")
    return sol.Targets(d=Z.shape[1], pts=Z, scale=1.0)


def _xy_targets(Xa: np.ndarray, Y: object, Z: object) -> sol.Targets:
    d = Xa.shape[1]
    if Y is not None and Z is not None:
        raise ValueError("give either Y (explicit targets) or Z (targets = its pairwise "
                         "differences), not both")
    if Z is not None:
        Za = as_arms(Z, "Z", need_span=False)
        if Za.shape[1] != d:
            raise ValueError(f"Z has {Za.shape[1]} columns but the arms have d={d} features")
        return _pair_targets(Za, "Z")
    if Y is None:
        return _pair_targets(Xa, "Y")
    Ya = _as_targets(Y, d)
    return _explicit_targets(Ya, np.ones(Ya.shape[0]))


def pairwise_differences(Z: object, name: str = "Z") -> np.ndarray:
    """All differences ``z_i - z_j`` (``i < j``) of the rows of ``Z``, shape (n(n-1)/2, d).

    This is Soare et al.'s ``Y`` for ``Z = X`` and the transductive target set of Fiez et
    al. (2019) for another decision set ``Z``. Memory O(n^2 d); :func:`xy_optimal` with
    ``Y=None`` (pairs of ``X``) or ``Z=Z`` handles the pairs without materialising them.
    """
    Za = as_arms(Z, name, need_span=False)
    i, j = np.triu_indices(Za.shape[0], 1)
    return Za[i] - Za[j]


# ----------------------------------------------------------------------------------------
# certificates of arbitrary designs
# ----------------------------------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class MinimaxCertificate:
    """Value and certified lower bound of a (weighted) minimax design.

    Attributes
    ----------
    value : float
        ``max_j c_j y_j^T A(w)^{-1} y_j`` at the given weights (``inf`` if a target is not
        in the range of a singular ``A(w)``).
    lower_bound : float
        Certified lower bound on the optimum over all designs (Cauchy–Schwarz bound).
    gap : float
        ``value (1 + eta) / lower_bound - 1`` with ``eta`` the rounding-error bound of the
        computation (see the module notes): the design is within a factor ``1 + gap`` of
        optimal.
    active : ndarray of int64
        Targets with ``c_j y_j^T A^{-1} y_j >= (1 - tol) value``, by decreasing value:
        row indices of ``Y``, or an (n, 2) array of arm pairs ``(i, j)`` when the targets
        are the implicit pairwise differences.
    argmax : ndarray of int64
        The target attaining the value (index, or an ``(i, j)`` pair).
    within_tol : bool
        ``gap <= tol``.
    tol : float
        Tolerance used for ``within_tol`` and ``active``.
    """

    value: float
    lower_bound: float
    gap: float
    active: np.ndarray
    argmax: np.ndarray
    within_tol: bool
    tol: float

    def __repr__(self) -> str:
        verdict = "within" if self.within_tol else "NOT within"
        return (f"MinimaxCertificate(value={self.value:.10g}, lower_bound="
                f"{self.lower_bound:.10g}, gap={self.gap:.3e}, {len(self.active)} active, "
                f"{verdict} tol={self.tol:g})")


def _max_row_norm(Y: np.ndarray) -> float:
    """Largest Euclidean row norm, computed without overflow or underflow."""
    m = float(np.max(np.abs(Y)))
    if m == 0.0 or not np.isfinite(m):
        return m
    return m * float(np.max(np.linalg.norm(Y / m, axis=1)))


def _to_basis(X: np.ndarray, targets: sol.Targets, name: str = "Y"
              ) -> tuple[ArmBasis, sol.Targets, float]:
    """The problem in the well-conditioned basis ``X = Q R`` with normalised targets.

    Returns ``(basis, targets_Q, scale2)``: arms ``Q``, targets ``y R^{-1} / n`` (or the
    pair points ``p R^{-1} / n``) with ``n`` their largest norm, and ``scale2 = n^2``: every
    criterion value of the original problem is ``scale2`` times the one on ``Q`` (weights
    identical). The normalisation keeps targets of any scale (1e-200 .. 1e200) away from
    under- and overflow.
    """
    basis = arm_basis(X)
    if targets.is_pairs:
        P = basis.Q if targets.pts is X else basis.targets(targets.pts)
        P = P - P[0]  # pairwise differences are shift-invariant
        n = _max_row_norm(P)
        tq = sol.Targets(d=targets.d, pts=np.ascontiguousarray(P / n), scale=targets.scale)
    else:
        Yq = basis.targets(targets.rows)
        n = _max_row_norm(Yq)
        tq = sol.Targets(d=targets.d, rows=np.ascontiguousarray(Yq / n), orig=targets.orig)
    if not (np.isfinite(n) and n > 0.0):  # pragma: no cover - targets checked non-zero
        raise ValueError(f"{name}: the targets have norm {n!r} in the basis of the arms")
    return basis, tq, n * n


def _design_eta(basis: ArmBasis, w: np.ndarray) -> float:
    """Relative rounding-error bound of ``y^T A(w)^{-1} y`` computed on ``Q`` (inf if
    singular), :func:`design._validation.rounding_error_factor`."""
    S = np.flatnonzero(w > 0.0)
    return rounding_error_factor(basis, np.sqrt(w[S])[:, None] * basis.Q[S])


def _certified(value: float, lb: float, eta: float, scale2: float, name: str
               ) -> tuple[float, float, float]:
    """``(value, lower_bound, gap)`` in the user's scale, honest under rounding.

    The value and the Cauchy–Schwarz terms are quadratic forms in ``A(w)^{-1}`` computed
    with relative error ``<= eta``: the true value is ``<= value (1 + eta)`` and
    ``tr^2 / max_a g_a`` has relative error ``<= 4 eta`` (first order), so
    ``lower_bound = lb (1 - 4 eta)`` is a true lower bound on the optimum and
    ``gap = value (1 + eta) / lower_bound - 1`` a true bound on the relative gap.
    ``ValueError`` naming ``name`` if the value overflows float64.
    """
    v = value * scale2
    if np.isfinite(value) and not np.isfinite(v):
        raise ValueError(f"{name}: the criterion value {value:.3g} * {scale2:.3g} overflows "
                         "float64; rescale the targets (the optimal weights do not depend on "
                         "their scale)")
    lower = float(lb * scale2 * (1.0 - 4.0 * eta)) if eta < 0.25 else 0.0
    gap = v * (1.0 + eta) / lower - 1.0 if lower > 0.0 else np.inf
    return float(v), lower, float(gap)


def _singular_values(X: np.ndarray, w: np.ndarray, targets: sol.Targets) -> np.ndarray:
    """Criterion of every target at a singular design: ``y^T A^+ y`` if ``y`` lies in
    range(A) (up to ``1e-9 ||y||``), else ``inf``. O(M d^2) time, O(M) memory."""
    A = (X * w[:, None]).T @ X
    ev, U = np.linalg.eigh(A)
    big = ev > 1e-12 * max(float(ev.max()), 1e-300)
    M = targets.count
    out = np.empty(M)
    ids = (np.arange(M, dtype=np.int64) if not targets.is_pairs
           else _all_pair_ids(targets.pts.shape[0]))
    for s in range(0, M, 1 << 15):
        Yb = targets.get(ids[s:s + (1 << 15)])
        C = Yb @ U
        outside = np.any(np.abs(C[:, ~big]) > 1e-9 * np.linalg.norm(Yb, axis=1)[:, None],
                         axis=1)
        vals = (C[:, big] ** 2) @ (1.0 / ev[big])
        vals[outside] = np.inf
        out[s:s + vals.size] = vals
    return out


def _check(X: np.ndarray, w: np.ndarray, targets: sol.Targets, tol: float, refine: bool,
           name: str = "Y") -> MinimaxCertificate:
    K = X.shape[0]
    basis, tq, scale2 = _to_basis(X, targets, name)
    Q = basis.Q
    cert = sol.certify(Q, w, tq, tol)
    eta = _design_eta(basis, w)
    if cert is not None and eta < 0.25:
        value, lb, arg = cert.value, cert.lb, cert.arg
        Linv = sol.factor(Q, w)
        _, _, ids, _ = tq.scan(Linv, tq.count, (1.0 - tol) * value)
    else:
        # singular design: the bound holds at any invertible design, use a mixture
        mix = 0.99 * w + 0.01 / K
        lb = sol.certify(Q, mix, tq, tol).lb
        eta = _design_eta(basis, mix)
        vals = _singular_values(Q, w, tq)
        all_ids = (np.arange(vals.size, dtype=np.int64) if not tq.is_pairs
                   else _all_pair_ids(tq.pts.shape[0]))
        k = int(np.argmax(vals))
        value, arg = float(vals[k]), int(all_ids[k])
        sel = np.flatnonzero(vals >= (1.0 - tol) * value)
        ids = all_ids[sel[np.argsort(-vals[sel], kind="stable")]]
    value, lb, gap = _certified(value, lb, eta, scale2, name)
    if refine and not gap <= tol:
        # the bound at w is first-order sensitive to the error in w (the value is not);
        # the bound holds at any auxiliary design, so evaluate it at a near-optimal one
        w2, c2, _, _ = sol.solve_ipm(Q, tq, 0.5 * tol, 2000)
        if c2 is not None:
            lb2 = _certified(c2.value, c2.lb, _design_eta(basis, w2), scale2, name)[1]
            if lb2 > lb:
                lb = lb2
                gap = value * (1.0 + eta) / lb - 1.0
    return MinimaxCertificate(
        value=float(value), lower_bound=float(lb), gap=float(gap),
        active=targets.user_ids(ids), argmax=targets.user_ids(np.array([arg]))[0],
        within_tol=bool(gap <= tol), tol=tol,
    )


def minimax_check(X: object, weights: object, Y: object, c: object = None, *,
                  tol: float = 1e-4, refine: bool = True) -> MinimaxCertificate:
    """Certificate of any design (the user's own weights too) for the weighted minimax.

    Computes ``value = max_j c_j y_j^T A(w)^{-1} y_j`` exactly (Cholesky, one pass over the
    targets) and the best Cauchy–Schwarz lower bound found at ``w`` among: the point mass
    on the worst target and the LP-optimised measure on the near-active targets
    (:func:`design._minimax_solver.lp_measure`). That bound is tight only near an optimal
    design: its error is first order in the error of ``w`` while the value's is not (a
    design 1% off balance on Soare's ``d = 2`` instance is 1e-4 from optimal in value but
    gets a 2% bound). So if it does not certify ``tol`` and ``refine`` is True, the bound
    is also evaluated at a near-optimal auxiliary design (one solve of the problem to
    ``tol / 2``; the bound holds whatever design it is evaluated at), which makes ``gap``
    the inefficiency of ``w`` up to ``tol / 2``. If ``A(w)`` is singular the value uses
    the pseudo-inverse (``inf`` if a target is outside the range of ``A(w)``).

    Parameters
    ----------
    X : array_like, shape (K, d)
        Arms (rows), spanning R^d.
    weights : array_like, shape (K,)
        Design weights on the simplex.
    Y : array_like, shape (M, d)
        Targets (rows); zero rows are ignored.
    c : array_like, shape (M,), optional
        Positive target weights (default 1).
    tol : float
        Tolerance of ``within_tol`` and of the ``active`` set.
    refine : bool, default True
        Tighten a bound that does not certify ``tol`` by a solve (see above); False keeps
        the bound computed at ``w`` only (cheaper, possibly loose).

    Returns
    -------
    MinimaxCertificate
    """
    Xa = as_arms(X)
    w = as_weights(weights, Xa.shape[0])
    tol = as_tol(tol)
    Ya = _as_targets(Y, Xa.shape[1])
    targets = _explicit_targets(Ya, _as_costs(c, Ya.shape[0]))
    return _check(Xa, w, targets, tol, refine)


def xy_check(X: object, weights: object, Y: object = None, *, Z: object = None,
             tol: float = 1e-4, refine: bool = True) -> MinimaxCertificate:
    """Certificate of any design for the XY criterion ``max_y y^T A(w)^{-1} y``.

    Targets as in :func:`xy_optimal`: ``Y`` explicit, or ``Z`` (pairwise differences of
    its rows), or neither (pairwise differences of the arms). With implicit pairs,
    ``active`` and ``argmax`` are ``(i, j)`` row pairs. See :func:`minimax_check` (also
    for ``refine``).
    """
    Xa = as_arms(X)
    w = as_weights(weights, Xa.shape[0])
    tol = as_tol(tol)
    return _check(Xa, w, _xy_targets(Xa, Y, Z), tol, refine)


# ----------------------------------------------------------------------------------------
# solvers
# ----------------------------------------------------------------------------------------


def _solve_cvxpy(X: np.ndarray, targets: sol.Targets, solver: str | None = None
                 ) -> tuple[np.ndarray, str, np.ndarray | None]:
    """Reference formulation: ``min t  s.t.  matrix_frac(y_j, A(lam)) <= t``, simplex.

    SCS by default, Clarabel if installed. Returns the weights, the solver name and the
    constraint duals (a target measure for the certificate, or None).
    """
    import cvxpy as cp

    K, d = X.shape
    if solver is None:
        solver = "CLARABEL" if "CLARABEL" in cp.installed_solvers() else "SCS"
    Yr = targets.get(np.arange(targets.count, dtype=np.int64)) if not targets.is_pairs \
        else targets.get(_all_pair_ids(targets.pts.shape[0]))
    # normalise the criterion to O(1) at the uniform design (the weights are unchanged);
    # badly scaled targets (e.g. c = 1 / Delta^2 with tiny gaps) otherwise cost accuracy
    Lu = sol.factor(X, np.full(K, 1.0 / K))
    Tu = Yr @ Lu.T
    Yr = Yr / np.sqrt(float(np.max(np.einsum("ij,ij->i", Tu, Tu))))
    F = np.einsum("ai,aj->aij", X, X).reshape(K, d * d)
    lam = cp.Variable(K, nonneg=True)
    t = cp.Variable()
    A = cp.reshape(F.T @ lam, (d, d), order="C")
    A = (A + A.T) / 2
    cons = [cp.matrix_frac(y, A) <= t for y in Yr]
    prob = cp.Problem(cp.Minimize(t), [cp.sum(lam) == 1, *cons])
    kwargs = {"eps": 1e-9, "max_iters": 200_000} if solver == "SCS" else {}
    prob.solve(solver=solver, **kwargs)
    if lam.value is None:
        raise RuntimeError(f"cvxpy/{solver} failed: status {prob.status}")
    w = np.clip(np.asarray(lam.value, dtype=float), 0.0, None)
    duals = np.array([float(np.asarray(con.dual_value if con.dual_value is not None
                                        else 0.0)) for con in cons])
    duals = np.clip(duals, 0.0, None)
    return w / w.sum(), f"cvxpy-{solver.lower()}", duals if duals.sum() > 0 else None


def _all_pair_ids(K: int) -> np.ndarray:
    i, j = np.triu_indices(K, 1)
    return (i * K + j).astype(np.int64)


_STATUS_MESSAGES = {
    int(sol.kern.STALLED): "the interior-point iterates stalled at the rounding level",
    int(sol.kern.SINGULAR): "the working-set information matrix became numerically singular",
    int(sol.kern.MAX_ITER): "max_iter was reached",
}


def _optimal(X: np.ndarray, targets: sol.Targets, tol: float, method: str,
             max_iter: int | None, criterion: str, extra: dict | None = None,
             name: str = "Y") -> DesignResult:
    """The minimax solve with BLAS limited to one thread: its products are small and many
    (an interior-point step is a few dozen of them), and a thread pool spent 3-6x the CPU
    time in wake-ups on a loaded machine (issue 16)."""
    from design._gd_batch import blas_threads

    with blas_threads(1):
        return _optimal_solve(X, targets, tol, method, max_iter, criterion, extra, name)


def _optimal_solve(X: np.ndarray, targets: sol.Targets, tol: float, method: str,
                   max_iter: int | None, criterion: str, extra: dict | None,
                   name: str) -> DesignResult:
    tol = as_tol(tol)
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}; got {method!r}")
    max_iter = as_max_iter(max_iter, 2000)
    # one QR per call: solve and certify on Q (condition number 1) with normalised
    # targets; the weights are invariant, values scale by scale2 (see _to_basis)
    basis, tq, scale2 = _to_basis(X, targets, name)
    Q = basis.Q
    if method == "cvxpy":
        w, solver, duals = _solve_cvxpy(Q, tq)
        hint_ids = None
        if duals is not None:
            hint_ids = (np.arange(tq.count, dtype=np.int64) if not tq.is_pairs
                        else _all_pair_ids(tq.pts.shape[0]))
        cert = sol.certify(Q, w, tq, tol, hint_ids=hint_ids, hint_mu=duals)
        its, info = 0, {}
    else:
        inner = "barrier" if method == "barrier" else "pd"
        # leave room for the certified rounding error (5 eta, see _certified) in the gap
        solve_tol = max(tol - 6.0 * basis.error, 0.1 * tol)
        w, cert, its, info = sol.solve_ipm(Q, tq, solve_tol, max_iter, inner=inner)
        solver = "barrier" if inner == "barrier" else "primal-dual"
    eta = _design_eta(basis, w)
    if cert is None or not eta < 0.25:  # pragma: no cover - cvxpy returned a singular design
        vals = _singular_values(Q, w, tq)
        value, lb, gap = float(np.max(vals)) * scale2, 0.0, np.inf
        cert_ids, cert_mu, arg = np.empty(0, np.int64), np.empty(0), 0
        active = np.empty(0, np.int64)
    else:
        value, lb, gap = _certified(cert.value, cert.lb, eta, scale2, name)
        keep = cert.mu > 0.0
        cert_ids, cert_mu, arg = cert.ids[keep], cert.mu[keep], cert.arg
        order = np.argsort(-cert_mu, kind="stable")
        cert_ids, cert_mu = cert_ids[order], cert_mu[order]
        _, _, active, _ = tq.scan(sol.factor(Q, w), tq.count, (1.0 - tol) * cert.value)
    info = {**info, **(extra or {}),
            "active": targets.user_ids(active), "argmax": targets.user_ids(np.array([arg]))[0],
            "certificate_targets": targets.user_ids(cert_ids),
            "certificate_measure": cert_mu, "n_targets": targets.count,
            "cond": basis.cond, "rounding_error": eta}
    converged = bool(gap <= tol)
    if not converged:
        why = _STATUS_MESSAGES.get(int(info.get("status", -1)), "the solver stopped")
        if eta * 5.0 >= tol:
            why = (f"the rounding error of the computation is only bounded by {eta:.3g} "
                   f"(arms' condition number {basis.cond:.3g} after column scaling), which "
                   "does not leave room for the requested tol")
        info["message"] = (f"tol={tol:g} not certified ({why}); the reported gap "
                           f"{gap:.3g} is a true bound")
    return DesignResult(
        weights=w, value=float(value), lower_bound=float(lb), gap=float(gap),
        support=np.flatnonzero(w > 0.0).astype(np.int64), iterations=int(its),
        solver=solver, converged=converged, criterion=criterion, info=info,
    )


@warns_if_not_converged
def minimax_optimal(X: object, Y: object, c: object = None, *, tol: float = 1e-4,
                    method: str = "auto", max_iter: int | None = None) -> DesignResult:
    """Weighted minimax design: ``min_lam max_j c_j y_j^T A(lam)^{-1} y_j`` over the simplex.

    Covers the XY-allocation (``c = 1``, Soare et al. 2014, Eq. 25), transductive designs
    (Fiez et al. 2019), the oracle allocation ``c_j = 1 / Delta(y_j)^2`` (Soare et al. 2014,
    Eq. 6) and the H-optimal design (Mason et al. 2022).

    Parameters
    ----------
    X : array_like, shape (K, d)
        Arms (measurement vectors) as rows; must span R^d (else ``ValueError``).
    Y : array_like, shape (M, d)
        Targets as rows. Zero rows are dropped, and so are duplicates up to sign (after
        scaling by ``sqrt(c)``); if nothing is left, ``ValueError`` naming ``Y``.
    c : array_like, shape (M,), optional
        Positive target weights (default all 1).
    tol : float, default 1e-4
        Requested certified relative gap ``value / lower_bound - 1``.
    method : {"auto", "ipm", "barrier", "cvxpy"}
        ``"auto"``/``"ipm"``: working-set primal-dual interior-point method (LAPACK; see
        Notes). ``"barrier"``: the same with a pure log-barrier Newton kernel instead
        (slower, kept for comparison). ``"cvxpy"``: the reference SDP
        ``min t s.t. matrix_frac(sqrt(c_j) y_j, A(lam)) <= t`` (Clarabel if installed,
        else SCS); small instances only.
    max_iter : int, optional
        Cap on the Newton steps (default 2000); reaching it gives ``converged=False``.

    Returns
    -------
    DesignResult
        ``criterion="minimax"``; ``value`` is the criterion of the returned weights,
        ``lower_bound`` the Cauchy–Schwarz certificate, ``gap`` their ratio minus one,
        ``converged = gap <= tol``. ``info`` holds ``active`` (the targets within a
        factor ``1 - tol`` of the value, by decreasing value, as row indices of ``Y``),
        ``argmax`` (worst target), ``certificate_targets`` / ``certificate_measure``
        (the target measure ``mu`` that proves ``lower_bound``, by decreasing mass),
        ``n_targets`` (after de-duplication) and solver statistics (``rounds`` of the
        working-set loop, final ``working_arms`` / ``working_targets``, ``polished``).

    Notes
    -----
    Homogeneous form: ``min {sum(lam) : y_j^T A(lam)^{-1} y_j <= 1, lam >= 0}`` has the same
    optimum, and ``lam / sum(lam)`` solves the original problem (``v_j(s lam) = v_j / s``).
    It is solved by a primal-dual interior-point method with Mehrotra's predictor-corrector
    (:func:`design._minimax_solver.primal_dual`) on a working set of arms ``S`` and of
    targets ``T`` (column and constraint generation, :func:`design._minimax_solver.
    solve_ipm`); after each restricted solve one exact full pass over all targets adds the
    violated ones, the arms are priced with the restricted multipliers, and the design is
    certified against everything. Finally arms below ``1e-2`` (then ``1e-3``) of the
    largest weight are dropped and the problem re-solved, kept only if still certified.

    Cost: per interior-point step ``O(|T| (d^2 + |S| d + |S|^2) + |S|^3)`` time and
    ``O(|T| |S| + |S|^2)`` memory (Newton system); per full pass ``O(M d^2 + K |T| d)``
    time. With ``|S| <= max(150, 4d)`` and ``|T| <= max(600, 10d)`` the working problem
    is solved directly; larger instances start from ``3d + 20`` arms and ``4 batch``
    targets. Memory overall ``O(M d)`` for the (de-duplicated) targets, plus the working
    problem. Typical runs take 10-30 interior-point steps per restricted solve.

    The lower bound: for any ``lam`` and any probability ``mu`` on the targets, with
    ``B = sum_j mu_j c_j y_j y_j^T``,
    ``min rho >= tr(A^{-1}B)^2 / max_a x_a^T A^{-1} B A^{-1} x_a`` (Cauchy–Schwarz; proof
    in :func:`design._minimax_solver.cs_lower_bound`). ``mu`` is the normalised vector of
    interior-point multipliers of the target constraints, or (fallback) the solution of an
    LP on the near-active targets (:func:`design._minimax_solver.lp_measure`).
    """
    Xa = as_arms(X)
    Ya = _as_targets(Y, Xa.shape[1])
    targets = _explicit_targets(Ya, _as_costs(c, Ya.shape[0]))
    return _optimal(Xa, targets, tol, method, max_iter, "minimax")


@warns_if_not_converged
def xy_optimal(X: object, Y: object = None, *, Z: object = None, tol: float = 1e-4,
               method: str = "auto", max_iter: int | None = None) -> DesignResult:
    """XY-optimal design: ``min_lam max_{y in Y} y^T A(lam)^{-1} y`` (Soare et al. 2014).

    Parameters
    ----------
    X : array_like, shape (K, d)
        Arms as rows; must span R^d.
    Y : array_like, shape (M, d), optional
        Explicit targets (transductive design, Fiez et al. 2019), e.g. ``z* - z`` for a
        decision set ``Z``. Zero rows and duplicates up to sign are dropped.
    Z : array_like, shape (n, d), optional
        Decision set whose pairwise differences ``z_i - z_j`` (``i < j``) are the targets,
        handled implicitly (memory O(n d) instead of O(n^2 d)).
    tol, method, max_iter
        As in :func:`minimax_optimal`.

    Returns
    -------
    DesignResult
        ``criterion="XY"``. With implicit pairs, the targets in ``info["active"]`` and
        ``info["argmax"]`` are row pairs ``(i, j)``.

    Notes
    -----
    With neither ``Y`` nor ``Z``, the targets are all pairwise differences of the arms,
    ``x_i - x_j`` (the XY-allocation of Soare, Lazaric & Munos 2014, Eq. 14/25), handled
    implicitly: O(K^2 d) time per full pass, O(K d) memory.

    Examples
    --------
    Soare et al.'s instance (``e_1..e_d`` and ``(cos w, sin w, 0, ...)``): the optimum is
    ``2 d``, uniform on ``e_1..e_d``.

    >>> import numpy as np
    >>> X = np.vstack([np.eye(3), [np.cos(0.01), np.sin(0.01), 0.0]])
    >>> res = xy_optimal(X)
    >>> round(res.value, 3), bool(res.gap <= 1e-4), res.weights.round(4).tolist()
    (6.0, True, [0.3333, 0.3333, 0.3333, 0.0])
    """
    Xa = as_arms(X)
    return _optimal(Xa, _xy_targets(Xa, Y, Z), tol, method, max_iter, "XY")


# ----------------------------------------------------------------------------------------
# GLM (logistic) designs of Mason, Jun & Jain (2022)
# ----------------------------------------------------------------------------------------


def glm_variance(z: np.ndarray, link: str = "logistic") -> np.ndarray:
    """Derivative of the mean function ``mu'(z)`` (the GLM variance) for ``link``.

    ``logistic``: ``mu(1 - mu)`` computed as ``e^{-|z|} / (1 + e^{-|z|})^2`` (no overflow);
    ``probit``: the normal density; ``poisson``: ``e^z``; ``identity``: 1.
    """
    if link not in _LINKS:
        raise ValueError(f"link must be one of {_LINKS}; got {link!r}")
    z = np.asarray(z, dtype=np.float64)
    if link == "logistic":
        e = np.exp(-np.abs(z))
        return e / (1.0 + e) ** 2
    if link == "probit":
        return np.exp(-0.5 * z * z) / np.sqrt(2.0 * np.pi)
    if link == "poisson":
        return np.exp(z)
    return np.ones_like(z)


def _glm_setup(X: object, theta: object, link: str) -> tuple[np.ndarray, np.ndarray]:
    Xa = as_arms(X)
    th = as_vector(theta, Xa.shape[1], "theta", nonzero=False)
    if link not in _LINKS:
        raise ValueError(f"link must be one of {_LINKS}; got {link!r}")
    with np.errstate(over="ignore"):
        mup = glm_variance(Xa @ th, link)
    if not np.all(np.isfinite(mup)):
        raise ValueError(f"theta gives mu'(x^T theta) = inf for link {link!r} "
                         "(x^T theta too large)")
    Xs = Xa * np.sqrt(mup)[:, None]
    if np.linalg.matrix_rank(Xs) < Xa.shape[1]:
        raise ValueError("theta makes mu'(x^T theta) underflow to 0 on too many arms: the "
                         "scaled arms sqrt(mu') x no longer span R^d")
    return Xa, mup


@warns_if_not_converged
def h_optimal(X: object, theta: object, *, link: str = "logistic", tol: float = 1e-4,
              method: str = "auto", max_iter: int | None = None) -> DesignResult:
    """H-optimal design of Mason, Jun & Jain (2022), for GLM bandits.

    Minimises ``h(lam) = max_x mu'(x^T theta)^2 ||x||^2_{H(lam, theta)^{-1}}`` with
    ``H(lam, theta) = sum_a lam_a mu'(x_a^T theta) x_a x_a^T``: the weighted minimax with
    measurement rows ``sqrt(mu'_a) x_a``, targets ``sqrt(mu'_a) x_a`` and weights
    ``c_a = mu'_a``. The optimum ``h*`` satisfies ``h* <= max_a mu'_a * d`` (Kiefer–
    Wolfowitz on the scaled rows; ``<= d/4`` for the logistic link).

    Parameters
    ----------
    X : array_like, shape (K, d)
        Arms as rows; must span R^d.
    theta : array_like, shape (d,)
        Parameter at which the Fisher information is evaluated (ValueError naming
        ``theta`` if its length is not d, it has NaN/inf, or ``mu'`` underflows so that
        the scaled arms do not span).
    link : {"logistic", "probit", "poisson", "identity"}
        GLM link; ``mu' = mu (1 - mu)`` for the logistic link.
    tol, method, max_iter
        As in :func:`minimax_optimal`.

    Returns
    -------
    DesignResult
        ``criterion="H"``; ``info["mu_prime"]`` holds ``mu'(x_a^T theta)``.
    """
    Xa, mup = _glm_setup(X, theta, link)
    Xs = np.ascontiguousarray(Xa * np.sqrt(mup)[:, None])
    targets = _explicit_targets(Xa * mup[:, None], np.ones(Xa.shape[0]), name="theta")
    return _optimal(Xs, targets, tol, method, max_iter, "H", {"mu_prime": mup}, name="theta")


@warns_if_not_converged
def g_optimal_hessian(X: object, theta: object, *, link: str = "logistic",
                      tol: float = 1e-4, method: str = "auto",
                      max_iter: int | None = None, scaled: bool = False) -> DesignResult:
    """G-optimal design under the Fisher information ``H(lam, theta)`` (Mason et al. 2022).

    ``scaled=False`` (default): the paper's ``g* = min_lam max_x ||x||^2_{H(lam,theta)^{-1}}``
    (Mason, Jun & Jain 2022, Eq. 4, the warm-up design): the minimax with measurement rows
    ``sqrt(mu'_a) x_a`` and targets ``x_a`` (``c = 1``). Bounds (Kiefer–Wolfowitz on the
    scaled rows): ``d / max_a mu'_a <= g* <= kappa_0 d`` with ``kappa_0 = max_a 1/mu'_a``;
    and ``h* <= (max_a mu'_a)^2 g*``.

    ``scaled=True``: the Kiefer–Wolfowitz G-optimal design of the scaled rows
    ``sqrt(mu'_a) x_a``, i.e. ``min max_x mu'(x^T theta) ||x||^2_{H^{-1}}``, whose optimum
    is exactly ``d`` (solved by :func:`design.gd.g_optimal`).

    Parameters as in :func:`h_optimal`. Returns a :class:`DesignResult` with
    ``criterion="G-Hessian"`` (or ``"G-Hessian-scaled"``).
    """
    Xa, mup = _glm_setup(X, theta, link)
    Xs = np.ascontiguousarray(Xa * np.sqrt(mup)[:, None])
    if scaled:
        from design.gd import g_optimal

        if method not in _METHODS:
            raise ValueError(f"method must be one of {_METHODS}; got {method!r}")
        res = g_optimal(Xs, tol=tol, method="cvxpy" if method == "cvxpy" else "auto",
                        max_iter=max_iter)
        return replace(res, criterion="G-Hessian-scaled",
                       info={**res.info, "mu_prime": mup})
    targets = _explicit_targets(Xa, np.ones(Xa.shape[0]), name="theta")
    return _optimal(Xs, targets, tol, method, max_iter, "G-Hessian", {"mu_prime": mup},
                    name="theta")
