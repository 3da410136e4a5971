r"""c-optimal designs through Elfving's theorem, with duality certificates.

The c-optimal design for a direction ``y`` minimises the variance of the least-squares
estimate of ``y^T theta``,

.. math::

    \min_{\lambda \in \Delta_K} \; y^\top A(\lambda)^- y, \qquad
    A(\lambda) = \sum_{a=1}^K \lambda_a x_a x_a^\top ,

where the arms ``x_a`` are the rows of ``X`` and ``A^-`` is a generalized inverse
(the variance is ``+inf`` when ``y`` is not in the range of ``A``).  Elfving's theorem
(Elfving 1952; Pukelsheim 2006, §2.14) turns this into the l1 linear program

.. math::

    w^\star = \arg\min_w \|w\|_1 \quad \text{s.t.} \quad X^\top w = \sum_a w_a x_a = y,

whose optimal value gives the optimum ``||w*||_1^2`` and whose solution gives the design
``lambda* = |w*| / ||w*||_1``.  The LP dual is

.. math::

    \max_u \; y^\top u \quad \text{s.t.} \quad |x_a^\top u| \le 1 \;\; \forall a,

so every dual-feasible ``u`` certifies ``(y^T u)^2 <= optimum``.  This is also the
equivalence theorem for c-optimality (Pukelsheim 2006, Thm 2.16): ``lambda`` is optimal iff
there is a generalized inverse ``G`` of ``A(lambda)`` with
``max_a (x_a^T G y)^2 = y^T G y``.

The signed coefficients ``w*`` are what the "optimized" arm-selection rule of LinGapE uses
(Xu, Honda & Sugiyama 2018): pull arms in proportion to ``|w*_a|``.

References
----------
.. [1] G. Elfving (1952). Optimum allocation in linear regression theory.
   *Ann. Math. Statist.* 23(2), 255-262.
.. [2] F. Pukelsheim (2006). *Optimal Design of Experiments*, SIAM Classics, §2.14-2.16.
.. [3] L. Xu, J. Honda & M. Sugiyama (2018). A fully adaptive algorithm for pure
   exploration in linear bandits. *AISTATS*, PMLR 84, 843-851.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import scipy.linalg
from scipy.optimize import linprog

from ._validation import as_arms, as_tol, as_vector, as_weights
from .result import DesignResult, warns_if_not_converged

__all__ = ["CCertificate", "c_check", "c_optimal"]

_METHODS = ("auto", "highs", "cvxpy")
_EPS = float(np.finfo(np.float64).eps)
# Relative residual above which ``y`` is declared outside a span / range.
_SPAN_RTOL = 1e-8


# --------------------------------------------------------------------------------------
# Certificate
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class CCertificate:
    r"""Equivalence-theorem / duality certificate of a design for the c-criterion.

    Attributes
    ----------
    value : float
        ``y^T A(lambda)^- y``, the variance factor of the design; ``inf`` if ``y`` is not in
        the range of ``A(lambda)``.
    max_response : float
        ``max_a (x_a^T A^- y)^2`` over the candidate arms.  When ``A`` is singular the
        generalized inverse is chosen (by a small LP over the null space of ``A``) to make
        this maximum as small as possible, as in Pukelsheim's Thm 2.16.
    argmax : int
        Arm attaining ``max_response`` (``-1`` if ``value`` is infinite).
    ratio : float
        ``max_response / value``; ``>= 1`` always and ``== 1`` exactly at a c-optimal design.
    lower_bound : float
        Certified lower bound on the c-optimal value: ``u = A^- y / sqrt(max_response)`` is
        feasible for the dual LP ``max y^T u s.t. |x_a^T u| <= 1``, hence
        ``(y^T u)^2 = value^2 / max_response = value / ratio <= optimum``.
    efficiency : float
        ``lower_bound / value = 1 / ratio``, a lower bound on the c-efficiency
        ``optimum / value`` of the design.
    within_tol : bool
        ``efficiency >= 1 - tol``.
    tol : float
        Tolerance used for ``within_tol``.
    rank : int
        Numerical rank of ``A(lambda)``.
    """

    value: float
    max_response: float
    argmax: int
    ratio: float
    lower_bound: float
    efficiency: float
    within_tol: bool
    tol: float
    rank: int

    def __repr__(self) -> str:
        verdict = "within" if self.within_tol else "NOT within"
        return (
            f"CCertificate(value={self.value:.10g}, max_response={self.max_response:.10g} "
            f"(arm {self.argmax}), ratio={self.ratio:.10f},\n"
            f"  lower_bound={self.lower_bound:.10g}, efficiency={self.efficiency:.10f}, "
            f"rank={self.rank}, {verdict} tol={self.tol:g})"
        )


def _range_solve(
    X: np.ndarray, weights: np.ndarray, y: np.ndarray
) -> tuple[float, np.ndarray | None, int, np.ndarray]:
    """Return ``(y^T A^+ y, A^+ y, rank, null_basis)`` for ``A = X^T diag(weights) X``.

    Works on the factor ``B = diag(sqrt(w_S)) X_S`` restricted to the support ``S``
    (``A = B^T B``), so that the condition number is not squared.  ``A^+ y`` is ``None``
    and the value ``inf`` if ``y`` is not in ``range(A)`` (relative residual of the
    projection onto the range above ``_SPAN_RTOL``).  ``null_basis`` is a ``(d, d - rank)``
    orthonormal basis of ``null(A)``.
    """
    d = X.shape[1]
    S = np.flatnonzero(weights > 0.0)
    B = np.sqrt(weights[S])[:, None] * X[S]
    _, s, Vt = np.linalg.svd(B, full_matrices=False)
    rank = int(np.sum(s > s[0] * max(B.shape) * _EPS)) if s.size and s[0] > 0 else 0
    Vr = Vt[:rank].T  # (d, rank), orthonormal basis of range(A)
    null_basis = scipy.linalg.null_space(Vt[:rank]) if rank < d else np.zeros((d, 0))
    if rank == 0:
        return float("inf"), None, rank, null_basis
    coef = Vr.T @ y
    resid = np.linalg.norm(y - Vr @ coef)
    if resid > _SPAN_RTOL * np.linalg.norm(y):
        return float("inf"), None, rank, null_basis
    scaled = coef / s[:rank]
    g = Vr @ (coef / s[:rank] ** 2)
    return float(scaled @ scaled), g, rank, null_basis


def _best_ginverse_direction(X: np.ndarray, g: np.ndarray, N: np.ndarray) -> np.ndarray:
    """Return ``u = g + N z`` minimising ``max_a |x_a^T u|`` (an LP in ``z``).

    All ``u = A^+ y + N z`` with ``N`` spanning ``null(A)`` are of the form ``G y`` for a
    generalized inverse ``G`` of ``A``, and all have the same ``y^T u``.  Falls back to ``g``
    if the LP does not solve or does not improve the (exactly recomputed) maximum.
    """
    XN = X @ N
    r = X @ g
    free = np.any(np.abs(XN) > 0.0, axis=1)
    if not np.any(free):
        return g
    fixed_max = float(np.max(np.abs(r[~free]))) if np.any(~free) else 0.0
    XNf, rf = XN[free], r[free]
    n, k = XNf.shape
    ones = np.ones((n, 1))
    # variables (z, t):  XN z - t <= -r,  -XN z - t <= r,  t >= fixed_max
    A_ub = np.block([[XNf, -ones], [-XNf, -ones]])
    b_ub = np.concatenate([-rf, rf])
    c = np.zeros(k + 1)
    c[-1] = 1.0
    bounds = [(None, None)] * k + [(fixed_max, None)]
    res = linprog(c, A_ub=A_ub, b_ub=b_ub, bounds=bounds, method="highs")
    if res.status != 0:
        return g
    u = g + N @ res.x[:k]
    return u if np.max(np.abs(X @ u)) < np.max(np.abs(r)) else g


def _certify(
    X: np.ndarray, weights: np.ndarray, y: np.ndarray, tol: float
) -> tuple[CCertificate, np.ndarray | None]:
    """The certificate and the vector ``g = G y`` it uses (``None`` if value is inf)."""
    value, g, rank, N = _range_solve(X, weights, y)
    if g is None:
        cert = CCertificate(
            value=float("inf"), max_response=float("inf"), argmax=-1, ratio=float("inf"),
            lower_bound=0.0, efficiency=0.0, within_tol=False, tol=tol, rank=rank,
        )
        return cert, None
    if N.shape[1] > 0:
        g = _best_ginverse_direction(X, g, N)
    resp = np.abs(X @ g)
    argmax = int(np.argmax(resp))
    m = float(resp[argmax])
    yu = float(y @ g)  # = value, up to rounding; this is what u = g / m certifies
    lower = max(yu, 0.0) ** 2 / m**2
    ratio = m**2 / value
    eff = lower / value
    cert = CCertificate(
        value=value, max_response=m**2, argmax=argmax, ratio=ratio, lower_bound=lower,
        efficiency=eff, within_tol=bool(eff >= 1.0 - tol), tol=tol, rank=rank,
    )
    return cert, g


def c_check(X: Any, weights: Any, y: Any, *, tol: float = 1e-6) -> CCertificate:
    r"""Certify how close a design is to c-optimal for the direction ``y``.

    Computes ``value = y^T A^- y`` and ``g = A^- y`` for ``A = sum_a weights_a x_a x_a^T``,
    then the equivalence-theorem ratio (Pukelsheim 2006, Thm 2.16; Elfving 1952)

    .. math::

        \rho = \frac{\max_a (x_a^\top A^- y)^2}{y^\top A^- y} \;\ge\; 1,

    with equality iff the design is c-optimal.  The vector ``u = g / max_a |x_a^T g|`` is
    feasible for the dual of Elfving's l1 program, so

    .. math::

        \text{optimum} \;\ge\; (y^\top u)^2
        = \frac{(y^\top A^- y)^2}{\max_a (x_a^\top A^- y)^2} = \frac{\text{value}}{\rho},

    and ``efficiency = 1 / rho`` lower-bounds the c-efficiency ``optimum / value``.

    When ``A`` is singular (c-optimal designs often have fewer than ``d`` support points)
    ``A^- y`` is not unique; the certificate uses the generalized inverse that minimises
    ``max_a |x_a^T A^- y|`` (a small LP over ``null(A)``), which makes ``rho == 1`` at an
    optimum.

    Parameters
    ----------
    X : array_like, shape (K, d)
        Candidate arms as rows (finite; need not span ``R^d``).
    weights : array_like, shape (K,)
        Any design on the simplex (validated by ``as_weights``).
    y : array_like, shape (d,)
        Direction of interest (finite, nonzero).
    tol : float, default 1e-6
        ``within_tol`` is ``efficiency >= 1 - tol``.

    Returns
    -------
    CCertificate
        ``value`` is ``inf`` (and ``lower_bound`` 0) if ``y`` is not in ``range(A)``.

    Raises
    ------
    ValueError
        Naming the offending argument, for malformed ``X``, ``weights``, ``y`` or ``tol``.
    """
    X = as_arms(X, need_span=False)
    K, d = X.shape
    w = as_weights(weights, K)
    y, scale = _normalised(as_vector(y, d))
    tol = as_tol(tol)
    cert = _certify(X, w, y, tol)[0]
    s2 = _scaled(1.0, scale * scale)
    return replace(cert, value=_scaled(cert.value, s2), lower_bound=cert.lower_bound * s2,
                   max_response=_scaled(cert.max_response, s2))


def _normalised(y: np.ndarray) -> tuple[np.ndarray, float]:
    """``(y / ||y||, ||y||)`` without overflow: every c-criterion value scales by ``||y||^2``
    and the optimal weights do not depend on the scale of ``y``."""
    m = float(np.max(np.abs(y)))
    n = m * float(np.linalg.norm(y / m))
    return y / n, n


def _scaled(value: float, s2: float) -> float:
    """``value * s2``; ``ValueError`` naming ``y`` if a finite value overflows float64."""
    out = value * s2
    if np.isfinite(value) and not np.isfinite(out):
        raise ValueError(f"y: the c-criterion value overflows float64 at this scale of y "
                         f"(|y|^2 = {s2:.3g}); rescale y, the optimal weights do not depend "
                         "on its scale")
    return float(out)


# --------------------------------------------------------------------------------------
# HiGHS path: Elfving's l1 LP, with a working set of arms
# --------------------------------------------------------------------------------------


def _whiten(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Whiten the l1 LP: return ``(Z, y_tilde, T)`` with ``X^T w = y <=> Z^T w = y_tilde``.

    ``Z = X T`` and ``y_tilde = T^T y`` for an invertible ``T`` (``d x r``, ``r`` the
    numerical rank of ``X``), chosen so that ``Z`` has (nearly) orthonormal columns: the
    LP's constraint matrix is then perfectly conditioned whatever the conditioning of the
    arms, and the feasible set in ``w`` is unchanged.  ``T`` also maps a dual vector of the
    whitened LP back: ``x_a^T (T u) = z_a^T u``.

    If ``cond(X) <= 1e4``, ``T = V diag(mu)^{-1/2}`` from the eigendecomposition of the
    Gram matrix ``X^T X = V diag(mu) V^T`` (fast: one ``d x d`` eigh).  Otherwise
    ``T = V_r S_r^{-1}`` from the thin SVD ``X = U S V^T`` truncated to the numerical rank
    (``Z = U_r``), which does not square the condition number.

    Raises ``ValueError`` naming ``y`` if ``y`` is not in the row span of ``X``.
    """
    K, d = X.shape
    mu, V = np.linalg.eigh(X.T @ X)
    if mu[0] > 1e-8 * mu[-1]:
        T = V / np.sqrt(mu)
        return X @ T, T.T @ y, T
    U, s, Vt = np.linalg.svd(X, full_matrices=False)
    rank = int(np.sum(s > s[0] * max(K, d) * _EPS)) if s[0] > 0 else 0
    coef = Vt[:rank] @ y
    resid = np.linalg.norm(y - Vt[:rank].T @ coef)
    if rank == 0 or resid > _SPAN_RTOL * np.linalg.norm(y):
        raise ValueError(
            "y is not in the span of the arms, its variance is infinite under every design "
            f"(the arms have rank {rank} < d={d} and y has a component of relative size "
            f"{resid / np.linalg.norm(y):.2g} outside their span)"
        )
    return U[:, :rank], coef / s[:rank], Vt[:rank].T / s[:rank]


def _spanning_arms(Z: np.ndarray) -> np.ndarray:
    """Indices of ``r`` arms whose whitened rows form a nonsingular ``r x r`` matrix.

    LU with partial pivoting of the ``(K, r)`` full-column-rank ``Z``: ``Z = L[p] @ U``,
    and the pivot rows (``p < r``) are the ones picked.
    """
    r = Z.shape[1]
    p, _, _ = scipy.linalg.lu(Z, p_indices=True)
    return np.flatnonzero(p < r)


# Fallbacks if HiGHS's default (dual simplex with presolve) does not report optimality.
_HIGHS_LADDER: tuple[tuple[str, dict[str, Any]], ...] = (
    ("highs", {}),
    ("highs", {"presolve": False}),
    ("highs-ipm", {}),
)


def _solve_lp(Zw: np.ndarray, y: np.ndarray, feas_tol: float) -> Any:
    """The split LP ``min 1^T (w+ + w-) s.t. Zw^T (w+ - w-) = y, w+-, w- >= 0``."""
    n = Zw.shape[0]
    A_eq = np.hstack([Zw.T, -Zw.T])
    tols = {"primal_feasibility_tolerance": feas_tol, "dual_feasibility_tolerance": feas_tol}
    for method, opts in _HIGHS_LADDER:
        res = linprog(np.ones(2 * n), A_eq=A_eq, b_eq=y, bounds=(0.0, None), method=method,
                      options={**tols, **opts})
        if res.status == 0:
            break
    return res


def _lower_bound(X: np.ndarray, y: np.ndarray, u: np.ndarray) -> tuple[float, np.ndarray]:
    """Certified bound ``(y^T u / max_a |x_a^T u|)^2`` and the rescaled, feasible ``u``.

    The dual feasible set ``{u : |x_a^T u| <= 1}`` is symmetric, so ``u`` is sign-flipped
    to make ``y^T u >= 0`` and scaled by ``1 / max_a |x_a^T u|`` onto its boundary.
    """
    m = float(np.max(np.abs(X @ u)))
    yu = float(y @ u)
    if not (m > 0.0 and yu != 0.0 and np.isfinite(m) and np.isfinite(yu)):
        return 0.0, np.zeros_like(u)
    scale = np.copysign(1.0 / m, yu)
    return (yu / m) ** 2, u * scale


def _l1_highs(X: np.ndarray, y: np.ndarray, tol: float) -> dict[str, Any]:
    """Solve ``min ||w||_1 s.t. X^T w = y`` with HiGHS on a growing working set of arms.

    The LP is the split form ``w = w+ - w-`` (``2 |W|`` nonnegative variables, ``d``
    equalities) over a working set ``W`` of arms.  Its dual solution ``u`` (HiGHS's
    equality marginals, ``y^T u = ||w||_1``) is checked against *all* arms; arms with
    ``|x_a^T u| > 1`` (violated dual constraints, i.e. columns with negative reduced cost)
    are added and the LP re-solved.  When no arm outside ``W`` violates, ``w`` (padded with
    zeros) is optimal for the full LP.  This is exact column generation; it keeps each LP
    at a few hundred columns, where solving all ``2K`` columns at once would be slow for
    ``K = 1e5``.  The LP is solved in whitened coordinates (see :func:`_whiten`), which
    leaves ``w`` unchanged but keeps HiGHS reliable on ill-conditioned arms.
    """
    K, d = X.shape
    Z, yt, T = _whiten(X, y)
    r = Z.shape[1]
    sy = float(np.max(np.abs(yt)))
    ys = yt / sy  # solve for w' = w / sy

    feas_tol = float(np.clip(tol / 10.0, 1e-10, 1e-7))
    viol_tol = max(tol / 4.0, 1e-12)
    n_add = max(2 * r, 50)
    # Initial working set: spanning arms (feasibility) + arms most aligned with y.
    score = np.abs(Z @ ys) / np.maximum(np.linalg.norm(Z, axis=1), 1e-300)
    n_init = min(K, max(4 * r, 100))
    top = np.argpartition(-score, n_init - 1)[:n_init] if n_init < K else np.arange(K)
    W = np.sort(top)
    if W.size < K and np.linalg.matrix_rank(Z[W]) < r:
        # The restricted LP must be feasible: add r arms spanning the row space.
        W = np.union1d(W, _spanning_arms(Z))

    iterations = 0
    lp_solves = 0
    while True:
        res = _solve_lp(Z[W], ys, feas_tol)
        lp_solves += 1
        iterations += int(getattr(res, "nit", 0) or 0)
        if res.status != 0:
            if W.size < K:  # cannot happen in exact arithmetic: retry on all arms
                W = np.arange(K)
                continue
            raise RuntimeError(
                f"HiGHS failed on the c-optimal LP ({res.message}); the span check passed, "
                "so this is numerical trouble: try method='cvxpy'"
            )
        u = np.asarray(res.eqlin.marginals, dtype=np.float64)
        v = np.abs(Z @ u)
        v[W] = 0.0
        n_viol = int(np.sum(v > 1.0 + viol_tol))
        if n_viol == 0:
            break
        k = min(n_viol, n_add)
        new = np.argpartition(-v, k - 1)[:k]
        W = np.union1d(W, new)

    x = res.x
    n = W.size
    wW = x[:n] - x[n:]
    # Polish the basic solution: re-solve Z_S^T w_S = y on its support (exact vertex).
    S = np.flatnonzero(wW != 0.0)
    if S.size:
        ZS = Z[W[S]]
        wS, _, rk, _ = np.linalg.lstsq(ZS.T, ys, rcond=None)
        old_res = np.linalg.norm(ZS.T @ wW[S] - ys)
        new_res = np.linalg.norm(ZS.T @ wS - ys)
        if rk == S.size and np.all(np.sign(wS) == np.sign(wW[S])) and new_res <= old_res:
            wW = wW.copy()
            wW[S] = wS
        # Polish the dual: enforce complementary slackness z_a^T u = sign(w_a) on S.
        u_pol = u + np.linalg.lstsq(ZS, np.sign(wW[S]) - ZS @ u, rcond=None)[0]
    else:
        u_pol = u
    w = np.zeros(K)
    w[W] = wW * sy
    # Dual candidates mapped back to the original coordinates: x_a^T (T u) = z_a^T u.
    lb, u_feas = max((_lower_bound(X, y, T @ cand) for cand in (u, u_pol)), key=lambda p: p[0])
    return {
        "coefficients": w, "dual": u_feas, "lower_bound": lb, "iterations": iterations,
        "lp_solves": lp_solves, "working_set": int(W.size),
    }


# --------------------------------------------------------------------------------------
# cvxpy reference paths
# --------------------------------------------------------------------------------------


def _cvxpy_solver() -> str:
    import cvxpy as cp

    return "CLARABEL" if "CLARABEL" in cp.installed_solvers() else "SCS"


def _cvxpy_solve(prob: Any, solver: str, tol: float) -> None:
    if solver == "SCS":
        eps = float(np.clip(tol, 1e-9, 1e-5))
        prob.solve(solver="SCS", eps_abs=eps, eps_rel=eps, max_iters=200_000)
    else:
        gap_tol = float(np.clip(tol, 1e-10, 1e-8))
        prob.solve(solver=solver, tol_gap_abs=gap_tol, tol_gap_rel=gap_tol, tol_feas=gap_tol)
    if prob.status not in ("optimal", "optimal_inaccurate"):
        raise RuntimeError(f"cvxpy/{solver} failed on the c-optimal problem: {prob.status}")


def _clean_weights(lam: np.ndarray) -> np.ndarray:
    lam = np.clip(np.asarray(lam, dtype=np.float64).ravel(), 0.0, None)
    return lam / lam.sum()


def _matrix_frac_weights(X: np.ndarray, y: np.ndarray, tol: float) -> tuple[np.ndarray, str, int]:
    """Solve ``min t s.t. matrix_frac(y, A(lambda)) <= t, lambda in simplex`` with cvxpy."""
    import cvxpy as cp

    K, d = X.shape
    solver = _cvxpy_solver()
    lam = cp.Variable(K, nonneg=True)
    # A(lambda) = sum_a lambda_a x_a x_a^T as one (d*d, K) linear map (much faster to
    # canonicalise than X.T @ diag(lambda) @ X).
    M = np.einsum("ai,aj->ija", X, X).reshape(d * d, K)
    A = cp.reshape(M @ lam, (d, d), order="C")
    t = cp.Variable()
    prob = cp.Problem(cp.Minimize(t), [cp.matrix_frac(y, A) <= t, cp.sum(lam) == 1])
    _cvxpy_solve(prob, solver, tol)
    return _clean_weights(lam.value), solver, int(prob.solver_stats.num_iters or 0)


def _sparsify(X: np.ndarray, y: np.ndarray, lam: np.ndarray, rel: float = 1e-9) -> np.ndarray:
    """Zero interior-point noise (weights below ``rel * max``) if that keeps ``y`` in range."""
    cut = np.where(lam > rel * lam.max(), lam, 0.0)
    cut /= cut.sum()
    if np.isfinite(_range_solve(X, cut, y)[0]):
        return cut
    return lam


def _from_weights(
    X: np.ndarray, y: np.ndarray, lam: np.ndarray, tol: float, solver: str, iterations: int
) -> DesignResult:
    """DesignResult for given weights, with the :func:`c_check` certificate as its bound."""
    lam = _sparsify(X, y, lam)
    cert, g = _certify(X, lam, y, tol)
    info: dict[str, Any] = {}
    if g is not None:
        # Elfving: w_a = lambda_a x_a^T A^- y is a representation X^T w = y.
        info["coefficients"] = lam * (X @ g)
        info["dual"] = g / np.sqrt(cert.max_response)
    info["certificate"] = cert
    gap = _gap(cert.value, cert.lower_bound)
    return DesignResult(
        weights=lam, value=cert.value, lower_bound=cert.lower_bound, gap=gap,
        support=np.flatnonzero(lam > 0.0).astype(np.int64), iterations=iterations,
        solver=solver, converged=bool(gap <= tol), criterion="c", info=info,
    )


def _c_optimal_cvxpy(X: np.ndarray, y: np.ndarray, tol: float) -> DesignResult:
    if np.linalg.matrix_rank(X) < X.shape[1]:
        raise ValueError(
            "X: method='cvxpy' (matrix_frac) needs the arms to span R^d so that A(lambda) "
            "can be invertible; use method='highs', which handles arms of any rank"
        )
    lam, solver, iters = _matrix_frac_weights(X, y, tol)
    return _from_weights(X, y, lam, tol, f"cvxpy-{solver}", iters)


def _c_optimal_cvxpy_l1(X: Any, y: Any, *, tol: float = 1e-9) -> DesignResult:
    """Cross-check: Elfving's l1 program ``min ||w||_1 s.t. X^T w = y`` solved by cvxpy.

    Private (used by the tests).  The lower bound comes from the cvxpy dual of the equality
    constraint (sign-normalised and rescaled to be exactly feasible) or from the
    certificate of the weights, whichever is larger.
    """
    import cvxpy as cp

    X = as_arms(X, need_span=False)
    y = as_vector(y, X.shape[1])
    tol = as_tol(tol)
    _whiten(X, y)
    solver = _cvxpy_solver()
    w = cp.Variable(X.shape[0])
    eq = X.T @ w == y
    prob = cp.Problem(cp.Minimize(cp.norm1(w)), [eq])
    _cvxpy_solve(prob, solver, tol)
    wv = np.asarray(w.value, dtype=np.float64)
    lam = _clean_weights(np.abs(wv))
    res = _from_weights(X, y, lam, tol, f"cvxpy-l1-{solver}",
                        int(prob.solver_stats.num_iters or 0))
    dual = np.asarray(eq.dual_value, dtype=np.float64).ravel()
    lb, u = _lower_bound(X, y, dual)  # sign convention of cvxpy's dual does not matter
    if lb > res.lower_bound:
        gap = _gap(res.value, lb)
        info = dict(res.info, dual=u)
        res = DesignResult(
            weights=res.weights, value=res.value, lower_bound=lb, gap=gap,
            support=res.support, iterations=res.iterations, solver=res.solver,
            converged=bool(gap <= tol), criterion="c", info=info,
        )
    res.info["l1_coefficients"] = wv
    return res


def _gap(value: float, lower: float) -> float:
    if not np.isfinite(value) or lower <= 0.0:
        return float("inf")
    # value >= optimum >= lower in exact arithmetic; clamp rounding-level negatives.
    return max(value / lower - 1.0, 0.0)


# --------------------------------------------------------------------------------------
# Public entry point
# --------------------------------------------------------------------------------------


@warns_if_not_converged
def c_optimal(X: Any, y: Any, *, method: str = "auto", tol: float = 1e-9) -> DesignResult:
    r"""c-optimal design for the direction ``y`` via Elfving's theorem.

    Minimises ``y^T A(lambda)^- y`` over the simplex, ``A(lambda) = sum_a lambda_a x_a x_a^T``
    (arms ``x_a`` are the rows of ``X``).  By Elfving's theorem (Elfving 1952; Pukelsheim
    2006, §2.14) the optimum equals ``||w*||_1^2`` for

    .. math::

        w^\star = \arg\min_w \|w\|_1 \quad\text{s.t.}\quad X^\top w = y,

    and ``lambda* = |w*| / ||w*||_1`` is an optimal design.  The LP dual
    ``max_u y^T u s.t. |x_a^T u| <= 1`` certifies the lower bound ``(y^T u)^2``.

    Parameters
    ----------
    X : array_like, shape (K, d)
        Candidate arms as rows.  They need *not* span ``R^d`` (``method="highs"``), but
        ``y`` must be a combination ``X^T w`` of them.
    y : array_like, shape (d,)
        Direction of interest, finite and nonzero.
    method : {"auto", "highs", "cvxpy"}, default "auto"
        ``"highs"`` (= ``"auto"``): the l1 LP in split form ``w = w+ - w-`` solved by
        HiGHS (``scipy.optimize.linprog``), with exact column generation over the arms so
        that ``K = 1e5`` stays fast.  ``"cvxpy"``: the reference formulation
        ``min t s.t. matrix_frac(y, A(lambda)) <= t`` solved by Clarabel (or SCS), which is
        independent of the LP but needs ``X`` to span ``R^d`` (``A(lambda)`` must be
        invertible for ``matrix_frac``) and is much slower.
    tol : float, default 1e-9
        ``converged`` is ``gap <= tol``.  Also sets the HiGHS feasibility tolerances.
        The cvxpy path typically certifies gaps of only 1e-5 to 1e-3 (an interior-point
        solution's equivalence-theorem ratio is first-order sensitive), so it usually
        reports ``converged=False`` at the default ``tol``.

    Returns
    -------
    DesignResult
        ``criterion="c"``; ``weights = |w*| / ||w*||_1``; ``value = y^T A^- y`` at those
        weights (computed on the support by an SVD, valid when ``A`` is singular);
        ``lower_bound = (y^T u)^2`` for a dual-feasible ``u`` (rescaled so that
        ``max_a |x_a^T u| = 1`` exactly); ``gap = value / lower_bound - 1``.
        ``info["coefficients"]`` holds the signed ``w*`` (shape ``(K,)``; LinGapE's
        "optimized" selection rule uses it), ``info["dual"]`` the certified ``u``
        (shape ``(d,)``).  The HiGHS path also reports ``info["lp_solves"]`` and
        ``info["working_set"]``; the cvxpy path ``info["certificate"]`` (a
        :class:`CCertificate`), whose lower bound is used.

    Raises
    ------
    ValueError
        Naming the argument: malformed ``X`` (not 2-D, empty, NaN/inf), ``y`` (wrong
        length, NaN/inf, zero, or not in the span of the arms), unknown ``method``,
        ``tol`` outside (0, 1), or ``X`` not spanning ``R^d`` with ``method="cvxpy"``.

    References
    ----------
    Elfving (1952), *Ann. Math. Statist.* 23, 255-262; Pukelsheim (2006), *Optimal Design
    of Experiments*, §2.14-2.16; Xu, Honda & Sugiyama (2018), AISTATS (LinGapE).

    Examples
    --------
    >>> import numpy as np
    >>> res = c_optimal(np.eye(2), np.array([1.0, 1.0]))
    >>> res.weights, round(res.value, 12), res.info["coefficients"]
    (array([0.5, 0.5]), 4.0, array([1., 1.]))
    """
    X = as_arms(X, need_span=False)
    y, scale = _normalised(as_vector(y, X.shape[1]))
    if not isinstance(method, str) or method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}; got {method!r}")
    tol = as_tol(tol)
    s2 = _scaled(1.0, scale * scale)
    # solved for y / ||y|| (scale invariance); values scale by ||y||^2, coefficients by ||y||
    res = _c_optimal_unit(X, y, method, tol)
    info = dict(res.info)
    if "coefficients" in info:
        info["coefficients"] = info["coefficients"] * scale
    if "l1_coefficients" in info:  # pragma: no cover - private cvxpy-l1 path only
        info["l1_coefficients"] = info["l1_coefficients"] * scale
    return replace(res, value=_scaled(res.value, s2), lower_bound=res.lower_bound * s2,
                   info=info)


def _c_optimal_unit(X: np.ndarray, y: np.ndarray, method: str, tol: float) -> DesignResult:
    """:func:`c_optimal` for validated arms and a unit-norm direction ``y``."""
    if method == "cvxpy":
        return _c_optimal_cvxpy(X, y, tol)

    sol = _l1_highs(X, y, tol)
    w = sol["coefficients"]
    l1 = float(np.sum(np.abs(w)))
    weights = np.abs(w) / l1
    value, _, _, _ = _range_solve(X, weights, y)
    lower = sol["lower_bound"]
    gap = _gap(value, lower)
    return DesignResult(
        weights=weights, value=value, lower_bound=lower, gap=gap,
        support=np.flatnonzero(weights > 0.0).astype(np.int64),
        iterations=sol["iterations"], solver="highs", converged=bool(gap <= tol),
        criterion="c",
        info={"coefficients": w, "dual": sol["dual"], "lp_solves": sol["lp_solves"],
              "working_set": sol["working_set"]},
    )
