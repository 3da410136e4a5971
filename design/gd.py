"""G- and D-optimal designs on a finite set of arms, with Kiefer–Wolfowitz certificates.

For arms ``x_1..x_K`` (rows of ``X``) and weights ``w`` on the simplex, the information
matrix is ``A(w) = sum_a w_a x_a x_a^T`` and the variance function is
``omega_a(w) = x_a^T A(w)^{-1} x_a``.

* G-optimal: minimise ``max_a omega_a(w)``.
* D-optimal: maximise ``det A(w)``; we report the homogeneous criterion
  ``phi_D(w) = det(A(w))^{-1/d}`` (to be minimised).

Kiefer & Wolfowitz (1960): both problems have the same solutions and the optimal maximum
variance is exactly ``d``. For any ``w`` the equivalence theorem certifies
``d / max_a omega_a(w)`` as a lower bound on both the G-efficiency and the D-efficiency
``(det A(w) / det A(w*))^{1/d}`` (AM–GM on the eigenvalues of ``A(w)^{-1/2} A(w*) A(w)^{-1/2}``:
``det(A^{-1}A*)^{1/d} <= tr(A^{-1}A*)/d = sum_a w*_a omega_a / d <= max_a omega_a / d``).
"""

from __future__ import annotations

import numpy as np

from design import _gd_numba as kern
from design._validation import (
    ArmBasis,
    arm_basis,
    as_arms,
    as_max_iter,
    as_tol,
    as_weights,
    rounding_error_factor,
)
from design.result import Certificate, DesignResult, warns_if_not_converged

_METHODS = ("auto", "fw", "fw-away", "cvxpy")


def variances(X: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Variance function ``omega_a = x_a^T A(w)^{-1} x_a`` of every arm (inf if A singular).

    Computed in the well-conditioned basis ``Q`` of ``X = Q R`` (:func:`design._validation.
    arm_basis`), where ``omega_a = q_a^T A_Q(w)^{-1} q_a``; all inf if ``X`` or the design
    is numerically singular.
    """
    try:
        basis = arm_basis(np.asarray(X, dtype=np.float64))
    except ValueError:
        return np.full(X.shape[0], np.inf)
    return _basis_variances(basis, weights)[0]


def _basis_variances(basis: ArmBasis, weights: np.ndarray) -> tuple[np.ndarray, float]:
    """``(omega, eta)``: variances of all arms and their relative error bound.

    ``A_Q(w) = B^T B`` with ``B = diag(sqrt(w_S)) Q_S``; with ``B = U R_w`` (QR),
    ``omega_a = ||R_w^{-T} q_a||^2``: no normal equations, so the error is
    ``cond(B) = cond(A_Q(w))^{1/2}`` times the rounding unit, not its square. ``eta`` is
    :func:`design._validation.rounding_error_factor`; ``(inf, inf)`` for a singular design.
    """
    from scipy.linalg import solve_triangular

    Q = basis.Q
    S = np.flatnonzero(weights > 0.0)
    B = np.sqrt(weights[S])[:, None] * Q[S]
    eta = rounding_error_factor(basis, B)
    if not np.isfinite(eta) or eta >= 1.0:
        return np.full(Q.shape[0], np.inf), np.inf
    Rw = np.linalg.qr(B, mode="r")
    # omega_a = ||q_a Rw^{-1}||^2: one GEMM with the small triangular inverse
    Z = Q @ solve_triangular(Rw, np.eye(Q.shape[1]), check_finite=False)
    return np.einsum("ij,ij->i", Z, Z), eta


def _variances_fast(Xc: np.ndarray, Xs: np.ndarray, ws: np.ndarray) -> np.ndarray:
    """Variances of the rows of ``Xc`` under the design ``ws`` on the rows ``Xs``.

    One GEMM: ``omega = rowsum((Xc L^{-T})^2)`` with ``A = L L^T``. If ``Xc`` is float32
    the GEMM runs in single precision (relative error ~1e-6, used only for screening) and
    the variances are returned as float64.
    """
    A = (Xs * ws[:, None]).T @ Xs
    L = np.linalg.cholesky(A)
    Linv = np.linalg.inv(L).astype(Xc.dtype)
    Z = Xc @ Linv.T
    return np.einsum("ij,ij->i", Z, Z).astype(np.float64)


_SCREEN_MARGIN = 1e-4  # relative safety margin of the single-precision screening passes


def kw_check(X: object, weights: object, *, tol: float = 1e-6) -> Certificate:
    """Kiefer–Wolfowitz certificate of any design (the user's own weights too).

    Computes ``max_a x_a^T A(w)^{-1} x_a`` in a well-conditioned basis (``X = Q R``, then a
    QR of ``diag(sqrt(w)) Q``; :func:`design._validation.arm_basis`), its argmax, and the
    G-efficiency ``d / (max_a omega_a (1 + eta))``, which is also a lower bound on the
    D-efficiency (Kiefer & Wolfowitz 1960; Pukelsheim 2006, §9.4 and Thm. 9.4). ``eta``
    (``rounding_error``) bounds the relative rounding error of the maximum variance, so the
    efficiency stays a true lower bound on ill-conditioned arms.

    Parameters
    ----------
    X : array_like, shape (K, d)
        Candidate arms (rows); must span R^d.
    weights : array_like, shape (K,)
        Design weights (non-negative, summing to one).
    tol : float
        ``within_tol`` is ``g_efficiency >= 1 - tol``.

    Returns
    -------
    Certificate
        If ``A(w)`` is singular (numerically: ``eta >= 1``), ``max_variance`` is inf and
        the efficiency 0. ``ValueError`` naming ``X`` if the arms are rank-deficient at
        float64 precision.
    """
    Xa = as_arms(X)
    w = as_weights(weights, Xa.shape[0])
    tol = as_tol(tol)
    basis = arm_basis(Xa)
    om, eta = _basis_variances(basis, w)
    d = Xa.shape[1]
    mv = float(om.max())
    # argmax: the lowest index among the arms tied with the maximum up to rounding error
    k = int(np.argmax(om >= mv / (1.0 + eta))) if np.isfinite(mv) else int(np.argmax(om))
    # the certified efficiency uses the upper bound (1 + eta) max_a omega_a of the true
    # maximum variance (rounding error of the computation, see ArmBasis)
    eff = d / (mv * (1.0 + eta)) if np.isfinite(mv) else 0.0
    return Certificate(max_variance=mv, argmax=k, d=d, g_efficiency=eff,
                       within_tol=bool(eff >= 1.0 - tol), tol=tol, rounding_error=eta)


def _hp_threshold(eps: float, d: int) -> float:
    """Harman & Pronzato (2007) bound: with ``max_a omega_a = d + eps``, no arm with
    ``omega_a < d (1 + eps/2 - sqrt(eps (4 + eps - 4/d)) / 2)`` supports a D-optimal design."""
    if eps <= 0.0:
        return float(d)
    return d * (1.0 + eps / 2.0 - np.sqrt(eps * (4.0 + eps - 4.0 / d)) / 2.0)


def _initial_support(X: np.ndarray) -> np.ndarray:
    """Kumar–Yildirim/Todd initial support (Mason et al. 2022, Alg. 4) of ``d`` arms.

    Run on the ``20 d`` rows of largest norm (the support of a G-optimal design lies on the
    boundary of the minimum-volume ellipsoid, so long rows are the likely candidates); if
    those do not span R^d, on all rows.
    """
    K, d = X.shape
    m = 20 * d
    if K > 2 * m:
        top = np.argpartition(np.einsum("ij,ij->i", X, X), -m)[-m:]
        sub = kern.initial_support(np.ascontiguousarray(X[top]))
        if np.linalg.matrix_rank(X[top[sub]]) == d:
            return top[sub]
    return kern.initial_support(X)


def _solve_fw(
    X: np.ndarray, tol: float, max_iter: int, batch: int | None = None,
    pairwise: bool = True,
    shrink: float = 0.01,
) -> tuple[np.ndarray, bool, int, dict]:
    """Working-set Wolfe–Atwood solver; returns ``(weights, converged, iterations, info)``.

    Outer loop (column generation): solve the design restricted to a working set ``S`` with
    the jitted Wolfe–Atwood kernel to the requested tolerance, then compute the variances of
    all remaining candidates in one single-precision GEMM, delete the candidates that the
    Harman–Pronzato bound proves cannot be support points (with a 1e-4 relative margin for
    the rounding of that pass), and add the most violated candidates
    (``omega_a > d (1 + tol)``) to ``S``. Stops when a double-precision pass finds no
    candidate violating the tolerance.
    """
    K, d = X.shape
    if d == 1:
        k = int(np.argmax(np.abs(X[:, 0])))
        w = np.zeros(K)
        w[k] = 1.0
        return w, True, 0, {"rounds": 0, "deleted": K - 1}
    refresh = max(100, 10 * d)
    if batch is None:
        batch = max(20 * d, 256)
    init = _initial_support(X)
    cand = np.arange(K)  # candidates not deleted (indices into X)
    # single-precision copy of the candidate rows for the screening passes (half the
    # memory traffic); convergence is only ever declared on a double-precision pass
    Xc = X.astype(np.float32)
    S = np.unique(init)
    wS = np.full(S.size, 1.0 / S.size)
    total_it = 0
    rounds = 0
    om_max_prev = None
    converged = False
    while True:
        rounds += 1
        Xs = np.ascontiguousarray(X[S])
        Minv = np.empty((d, d))
        omS = np.empty(S.size)
        if not kern.exact_state(Xs, wS, Minv, omS):
            raise RuntimeError("information matrix of the working set became singular")
        # no need to solve the working set far below the current global gap
        inner_tol = tol if om_max_prev is None else max(tol, shrink * (om_max_prev / d - 1.0))
        status, its = kern.wolfe_atwood(
            Xs, wS, Minv, omS, inner_tol, max_iter - total_it, refresh, pairwise
        )
        total_it += its
        if status == kern.SINGULAR:
            raise RuntimeError("information matrix became singular during the iterations")
        keep = wS > 0.0
        S, wS = S[keep], wS[keep]
        # screening pass over the candidates (one single-precision GEMM)
        om = _variances_fast(Xc, Xs[keep], wS)
        if om.max() <= d * (1.0 + tol) * (1.0 + _SCREEN_MARGIN) and inner_tol == tol:
            om = _variances_fast(X[cand], Xs[keep], wS)  # certify in double precision
            if om.max() <= d * (1.0 + tol):
                converged = True
                break
        om_max = float(om.max())
        om_max_prev = om_max
        if status == kern.MAX_ITER or total_it >= max_iter or rounds >= 10_000:
            break
        # Harman–Pronzato deletion (never delete a current support point)
        # (the screening error is covered by the margin on both om and the bound)
        h = _hp_threshold(om_max * (1.0 + _SCREEN_MARGIN) - d, d)
        if h > 0.0:
            alive = om >= h * (1.0 - _SCREEN_MARGIN)
            alive[np.searchsorted(cand, S)] = True
            if alive.sum() < 0.9 * cand.size:
                cand, om = cand[alive], om[alive]
                Xc = np.ascontiguousarray(X[cand], dtype=np.float32)
        # add the most violated candidates to the working set
        viol = np.flatnonzero(om > d * (1.0 + tol))
        if viol.size > batch:
            viol = viol[np.argpartition(om[viol], -batch)[-batch:]]
        new = np.setdiff1d(cand[viol], S, assume_unique=True)
        S = np.concatenate([S, new])
        wS = np.concatenate([wS, np.zeros(new.size)])
        order = np.argsort(S)
        S, wS = S[order], wS[order]
    w = np.zeros(K)
    w[S] = wS / wS.sum()
    info = {"rounds": rounds, "deleted": K - cand.size, "working_set": int(S.size)}
    return w, converged, total_it, info


def _solve_cvxpy(X: np.ndarray, solver: str | None = None) -> tuple[np.ndarray, str]:
    """Reference path: ``maximise log det A(w)`` over the simplex with cvxpy.

    SCS by default, Clarabel when installed. ``A(w)`` is written as a reshape of
    ``F^T w`` with ``F[a] = vec(x_a x_a^T)`` so that the problem stays small to build.
    """
    import cvxpy as cp

    K, d = X.shape
    if solver is None:
        solver = "CLARABEL" if "CLARABEL" in cp.installed_solvers() else "SCS"
    F = np.einsum("ai,aj->aij", X, X).reshape(K, d * d)
    w = cp.Variable(K, nonneg=True)
    A = cp.reshape(F.T @ w, (d, d), order="C")
    prob = cp.Problem(cp.Maximize(cp.log_det((A + A.T) / 2)), [cp.sum(w) == 1])
    kwargs = {"eps": 1e-9, "max_iters": 100_000} if solver == "SCS" else {}
    prob.solve(solver=solver, **kwargs)
    if w.value is None:
        raise RuntimeError(f"cvxpy/{solver} failed: status {prob.status}")
    wv = np.clip(np.asarray(w.value, dtype=float), 0.0, None)
    return wv / wv.sum(), f"cvxpy-{solver.lower()}"


def _optimal(X: object, tol: float, method: str, max_iter: int | None, criterion: str
             ) -> DesignResult:
    Xa = as_arms(X)
    tol = as_tol(tol)
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}; got {method!r}")
    max_iter = as_max_iter(max_iter, 200_000)
    K, d = Xa.shape
    # one QR per call: the solvers run on Q (condition number 1), weights are invariant
    basis = arm_basis(Xa)
    if method == "cvxpy":
        w, solver = _solve_cvxpy(basis.Q)
        its, info = 0, {}
    else:
        pairwise = method != "fw-away"
        # leave room for the certified rounding error (eta >= basis.error) in the gap
        solve_tol = max(tol - 2.0 * basis.error, 0.1 * tol)
        w, _, its, info = _solve_fw(basis.Q, solve_tol, max_iter, pairwise=pairwise)
        solver = "fw-exchange" if pairwise else "fw-away"
    om, eta = _basis_variances(basis, w)
    max_var = float(om.max())
    # certified: the true max variance is <= (1 + eta) max_var and the optimum is exactly
    # d (Kiefer-Wolfowitz), so gap = value (1 + eta) / lower_bound - 1 is a true bound
    gap = max_var * (1.0 + eta) / d - 1.0
    if criterion == "G":
        value, lower = max_var, float(d)
    else:
        Rw = np.linalg.qr(np.sqrt(w[w > 0.0])[:, None] * basis.Q[w > 0.0], mode="r")
        logdet = 2.0 * float(np.sum(np.log(np.abs(np.diag(Rw))))) + 2.0 * basis.log_abs_det()
        value = float(np.exp(-logdet / d)) if np.isfinite(logdet) else np.inf
        # phi_D(w*) >= phi_D(w) d / max_a omega_a, both sides' rounding error <= eta
        lower = value * (1.0 - eta) * d / (max_var * (1.0 + eta))
        gap = value * (1.0 + eta) / lower - 1.0
        info = {**info, "log_det": float(logdet)}
    info = {**info, "max_variance": max_var, "argmax": int(np.argmax(om)),
            "cond": basis.cond, "rounding_error": eta}
    if gap > tol:
        why = ("max_iter was reached" if its >= max_iter else
               f"the arms' condition number {basis.cond:.3g} (after column scaling) bounds "
               f"the relative rounding error of the variances only by {eta:.3g}; "
               "reparametrise the arms (X @ T) or use a larger tol")
        info["message"] = f"tol={tol:g} cannot be certified: {why}"
    return DesignResult(
        weights=w, value=value, lower_bound=lower, gap=gap,
        support=np.flatnonzero(w > 0.0).astype(np.int64), iterations=int(its),
        solver=solver, converged=bool(gap <= tol), criterion=criterion, info=info,
    )


@warns_if_not_converged
def g_optimal(X: object, *, tol: float = 1e-6, method: str = "auto",
              max_iter: int | None = None) -> DesignResult:
    """G-optimal design: ``min_w max_a x_a^T A(w)^{-1} x_a`` over the simplex.

    Kiefer & Wolfowitz (1960): the optimum is exactly ``d`` (so ``lower_bound = d``) and
    coincides with the D-optimal design. Used by Soare, Lazaric & Munos (2014, Eq. 21) as
    the G-allocation and by Mason, Jun & Jain (2022, Algorithm 3) for warm-up.

    Parameters
    ----------
    X : array_like, shape (K, d)
        Candidate arms as rows; must span R^d (else ``ValueError``).
    tol : float, default 1e-6
        Stop when ``max_a omega_a <= d (1 + tol)``, i.e. the certified gap
        ``value / d - 1 <= tol`` (G-efficiency ``>= 1/(1 + tol)``).
    method : {"auto", "fw", "fw-away", "cvxpy"}
        ``"fw-away"``: Wolfe–Atwood (Fedorov–Wynn toward steps, away steps and drop steps
        with the exact log-det line search; Atwood 1973, Todd 2016, Mason et al. 2022
        Alg. 5). ``"auto"``/``"fw"``: the same scheme with vertex-exchange (pairwise) steps
        that move weight from the away arm to the toward arm with the exact line search
        (Böhning 1986), measured about 2x faster (``benchmarks/bench_gd.py``). Both are
        jitted with numba and run inside a working-set loop: started from a Kumar–Yildirim
        support (Mason et al. 2022, Alg. 4), rank-one (Sherman–Morrison / Woodbury) updates
        of ``A^{-1}`` and of every variance per step, an exact Cholesky refresh every
        ``max(100, 10 d)`` steps and before convergence is declared, a full variance pass
        over all candidates (one GEMM) between rounds, and Harman–Pronzato (2007) deletion
        of candidates that cannot be support points. ``"cvxpy"``: the log-det formulation
        (Clarabel if installed, else SCS) as a reference path.
    max_iter : int, optional
        Cap on the Wolfe–Atwood steps (default 200,000). Reaching it gives
        ``converged=False``.

    Returns
    -------
    DesignResult
        ``value = max_a omega_a``, ``lower_bound = d``, ``gap = value (1 + eta) / d - 1``
        with ``eta = info["rounding_error"]`` the bound on the relative rounding error
        (about 1e-13 for well-conditioned arms, about ``1e-16 cond(X)`` otherwise; the
        solver runs on ``Q`` from ``X = Q R``, one QR per call). ``info`` has the solver's
        rounds, deleted candidates, the argmax arm, ``cond`` (of the column-equilibrated
        arms) and, when ``tol`` is not certified, ``message`` saying why.
    """
    return _optimal(X, tol, method, max_iter, "G")


@warns_if_not_converged
def d_optimal(X: object, *, tol: float = 1e-6, method: str = "auto",
              max_iter: int | None = None) -> DesignResult:
    """D-optimal design: ``max_w det A(w)``, reported as ``phi_D(w) = det(A(w))^{-1/d}``.

    Same solver and same optimum as :func:`g_optimal` (Kiefer & Wolfowitz 1960). The value
    is ``det(A(w))^{-1/d}`` (a homogeneous criterion to minimise; ``info["log_det"]`` has
    ``log det A(w)``), and ``lower_bound = value (1 - eta) d / (max_a omega_a (1 + eta))``
    is certified by the efficiency bound ``(det A(w)/det A(w*))^{1/d} >= d / max_a omega_a``
    (``eta`` as in :func:`g_optimal`), so the relative gap is the G gap up to ``O(eta)``.
    Parameters as in :func:`g_optimal`.
    """
    return _optimal(X, tol, method, max_iter, "D")


def two_approx_g_design(X: object) -> np.ndarray:
    """A 2-approximate G-optimal design: weights with ``max_x ||x||^2_{A(w)^{-1}} <= 2 d``.

    Mason, Jun & Jain (2022), Algorithm 3: Algorithm 4 (:func:`design._gd_numba.
    initial_support`, Kumar–Yildirim / Todd) gives ``d`` points with uniform weights, then
    Algorithm 5 (Wolfe's algorithm with away and drop steps, without pairwise exchanges) runs
    to ``eps = 1``. Rows that do not span R^d are handled in coordinates of their span (the
    variances of rows in the span are unchanged).

    Parameters
    ----------
    X : array_like, shape (K, d)
        Arms, one per row (finite, not all zero).

    Returns
    -------
    numpy.ndarray, shape (K,)
        The weights.
    """
    X = as_arms(X, need_span=False)
    U, sv, Vt = np.linalg.svd(X, full_matrices=False)
    r = int(np.sum(sv > 1e-10 * sv.max())) if sv.max() > 0 else 0
    if r == 0:
        raise ValueError("X: all rows are zero; no design has an informative matrix")
    Z = np.ascontiguousarray(X @ Vt[:r].T)
    K = Z.shape[0]
    w = np.zeros(K)
    sup = kern.initial_support(Z)
    w[sup] = 1.0 / sup.shape[0]
    Minv = np.empty((r, r))
    omega = np.empty(K)
    if not kern.exact_state(Z, w, Minv, omega):  # pragma: no cover - Alg. 4 spans
        raise RuntimeError("Algorithm 4 returned a singular support")
    kern.wolfe_atwood(Z, w, Minv, omega, 1.0, 100_000, 50, False)
    return w
