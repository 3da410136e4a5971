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

from design import _gd_batch as batch_solver
from design import _gd_numba as kern
from design._gd_batch import ArmRows, Certified, _hp_threshold, kumar_yildirim_support
from design._validation import (
    _CHOLQR_MAX_COND,
    _UNIT_ROUNDOFF,
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
    The certificate of the solvers (:func:`_certify`, one implementation) on the stored
    ``Q``.
    """
    cert = _certify(basis, ArmRows(basis.Q, None, single=False, threads=1), weights)
    return cert.omega, cert.eta


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


from design._gd_batch import _SCREEN_MARGIN  # noqa: E402  (one definition of the margin)


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
        sub = kumar_yildirim_support(np.ascontiguousarray(X[top]))
        if np.linalg.matrix_rank(X[top[sub]]) == d:
            return top[sub]
    return kumar_yildirim_support(X)


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
        # no need to solve the working set far below the current global gap
        inner_tol = tol if om_max_prev is None else max(tol, shrink * (om_max_prev / d - 1.0))
        status, its = kern.wolfe_atwood(
            Xs, wS, Minv, omS, inner_tol, max_iter - total_it, refresh, pairwise
        )
        total_it += its
        if status == kern.SINGULAR and its == 0:
            raise RuntimeError("information matrix of the working set became singular")
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
        if (status in (kern.MAX_ITER, kern.STALLED) or total_it >= max_iter
                or rounds >= 10_000):
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


_LAZY_MIN_ELEMENTS = 1 << 26  # K d (512 MB of float64) from which Q is never stored


def _lazy_basis(X: np.ndarray, threads: int) -> tuple[ArmBasis, ArmRows] | None:
    """The Cholesky-QR basis of :func:`design._validation.arm_basis` without storing ``Q``.

    Same ``R``, ``cond`` and ``error`` as ``arm_basis`` (its fast branch: the equilibrated
    Gram matrix has ``cond <= 1e5``), and the rows ``q_a = x_a T``, ``T = R^{-1}``, are
    formed in blocks by the same product whenever a pass needs them, so a solve at
    ``K = 10^7`` holds ``X`` and no copy of it. ``None`` when the fast branch does not
    apply (then ``arm_basis`` runs its Householder QR). The returned ``ArmBasis.Q`` is a
    zero-stride placeholder of the right shape (only its shape is used).
    """
    from scipy.linalg import cholesky, solve_triangular

    K, d = X.shape
    G = X.T @ X
    if not (np.all(np.isfinite(G)) and np.all(np.diag(G) > 1e-290)):
        return None
    scales = np.sqrt(np.diag(G))
    Gs = G / np.outer(scales, scales)
    ev = np.linalg.eigvalsh(Gs)
    if not (ev[0] > 0.0 and ev[-1] <= _CHOLQR_MAX_COND**2 * ev[0]):
        return None
    R0 = cholesky(Gs, lower=False, check_finite=False)
    T = solve_triangular(R0, np.eye(d), check_finite=False) / scales[:, None]
    cond = float(np.sqrt(ev[-1] / ev[0]))
    basis = ArmBasis(Q=np.broadcast_to(np.float64(0.0), (K, d)), R=R0 * scales[None, :],
                     cond=cond, error=float(np.sqrt(K * d) * _UNIT_ROUNDOFF * cond))
    return basis, ArmRows(X, np.ascontiguousarray(T), threads=threads)


def _basis_rows(Xa: np.ndarray, threads: int) -> tuple[ArmBasis, ArmRows]:
    """Basis of the arms and the row source of the solver (stored ``Q`` or lazy).

    The Cholesky-QR branch is computed by :func:`_lazy_basis` (its Gram product on one BLAS
    thread); below ``_LAZY_MIN_ELEMENTS`` the rows ``Q = X T`` are then stored, formed by
    the same product as in ``arm_basis`` in row blocks on ``threads`` threads.
    """
    K, d = Xa.shape
    lazy = _lazy_basis(Xa, threads)
    if lazy is not None:
        basis, rows = lazy
        if K * d >= _LAZY_MIN_ELEMENTS:
            return lazy
        Q = np.empty((K, d))

        def fn(sl: slice) -> None:
            np.matmul(Xa[sl], rows.T, out=Q[sl])

        rows._each_block(K, fn)
        return (ArmBasis(Q=Q, R=basis.R, cond=basis.cond, error=basis.error),
                ArmRows(Q, None, threads=threads))
    basis = arm_basis(Xa)
    return basis, ArmRows(basis.Q, None, threads=threads)


def _certify(basis: ArmBasis, rows: ArmRows, w: np.ndarray, d_criterion: bool = False
             ) -> Certified:
    """Float64 certificate of ``w``: the variances ``omega_a = ||q_a R_w^{-1}||^2`` of every
    arm (row blocks, :meth:`ArmRows.certify_variances`) with ``diag(sqrt(w_S)) Q_S = U R_w``
    (QR), their relative error bound ``eta`` (:func:`design._validation.
    rounding_error_factor`) and ``R_w`` (for ``log det``); ``omega = eta = inf`` and
    ``R_w = None`` for a singular design. The one certificate of the G/D solvers, their
    reference engine and :func:`kw_check`."""
    from scipy.linalg import solve_triangular

    K, d = rows.K, rows.d
    S = np.flatnonzero(w > 0.0)
    B = np.sqrt(w[S])[:, None] * rows.rows(S)
    eta = rounding_error_factor(basis, B)
    if not np.isfinite(eta) or eta >= 1.0:
        return Certified(np.full(K, np.inf), np.inf, None, d_criterion)
    Rw = np.linalg.qr(B, mode="r")
    om = rows.certify_variances(solve_triangular(Rw, np.eye(d), check_finite=False))
    return Certified(om, eta, Rw, d_criterion)


def _optimal(X: object, tol: float, method: str, max_iter: int | None, criterion: str,
             engine: str = "batch") -> DesignResult:
    """Shared body of :func:`g_optimal` / :func:`d_optimal`.

    ``engine="reference"`` runs the solver of the previous release (stored ``Q``, greedy
    exchange kernel :func:`_solve_fw`, whole-array certificate, BLAS threads as set by the
    caller), kept for the side-by-side benchmarks (``benchmarks/bench_gd_scale.py``). The
    default engine runs with BLAS limited to one thread and ``threads`` worker threads (the
    BLAS setting on entry) for the passes over the arms.
    """
    if engine not in ("batch", "reference"):
        raise ValueError(f"engine must be 'batch' or 'reference'; got {engine!r}")
    if engine == "reference":
        return _optimal_body(X, tol, method, max_iter, criterion, engine, 0)
    threads = batch_solver.max_threads()
    with batch_solver.blas_threads(1):
        return _optimal_body(X, tol, method, max_iter, criterion, engine, threads)


def _optimal_body(X: object, tol: float, method: str, max_iter: int | None, criterion: str,
                  engine: str, threads: int) -> DesignResult:
    Xa = as_arms(X)
    tol = as_tol(tol)
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}; got {method!r}")
    max_iter = as_max_iter(max_iter, 200_000)
    K, d = Xa.shape
    info: dict = {}
    its = 0
    if method == "cvxpy" or method == "fw-away" or engine == "reference":
        # one QR per call: the solvers run on Q (condition number 1), weights are invariant
        basis = arm_basis(Xa)
        if method == "cvxpy":
            w, solver = _solve_cvxpy(basis.Q)
        else:
            pairwise = method != "fw-away"
            # leave room for the certified rounding error (eta >= basis.error) in the gap
            solve_tol = max(tol - 2.0 * basis.error, 0.1 * tol)
            w, _, its, info = _solve_fw(basis.Q, solve_tol, max_iter, pairwise=pairwise)
            solver = "fw-exchange" if pairwise else "fw-away"
        cert = _certify(basis, ArmRows(basis.Q, None, single=False, threads=1), w)
    else:
        basis, rows = _basis_rows(Xa, threads)
        solve_tol = max(tol - 2.0 * basis.error, 0.1 * tol)
        w, cert, _, its, info = batch_solver.solve(
            rows, solve_tol, max_iter, lambda w: _certify(basis, rows, w, criterion == "D"),
            cert_tol=tol)
        if cert is None:
            cert = _certify(basis, rows, w)
        solver = "fw-rex"
    om, eta = cert.omega, cert.eta
    max_var = float(om.max())
    # certified: the true max variance is <= (1 + eta) max_var and the optimum is exactly
    # d (Kiefer-Wolfowitz), so gap = value (1 + eta) / lower_bound - 1 is a true bound
    gap = max_var * (1.0 + eta) / d - 1.0
    if criterion == "G":
        value, lower = max_var, float(d)
    else:
        Rw = cert.Rw
        logdet = (2.0 * float(np.sum(np.log(np.abs(np.diag(Rw))))) + 2.0 * basis.log_abs_det()
                  if Rw is not None else -np.inf)
        value = float(np.exp(-logdet / d)) if np.isfinite(logdet) else np.inf
        # phi_D(w*) >= phi_D(w) d / max_a omega_a, both sides' rounding error <= eta
        lower = value * (1.0 - eta) * d / (max_var * (1.0 + eta))
        gap = value * (1.0 + eta) / lower - 1.0
        info = {**info, "log_det": float(logdet)}
    info = {**info, "max_variance": max_var, "argmax": int(np.argmax(om)),
            "cond": basis.cond, "rounding_error": eta}
    if gap > tol:
        if its >= max_iter:
            why = "max_iter was reached"
        elif solver.startswith("cvxpy"):
            why = (f"the {solver} solver's own tolerance limits it (certified gap {gap:.3g}); "
                   "try method='auto'")
        elif eta >= 0.1 * tol:
            why = (f"float64 cannot certify it for this instance: the rounding-error bound "
                   f"of the certificate is eta = {eta:.3g} (the arms' condition number "
                   f"after column scaling is {basis.cond:.3g}), so no gap below about "
                   f"{eta:.2g} can be certified; the certified gap reached is {gap:.3g}. "
                   "Use a larger tol, or reparametrise the arms (X @ T) if they are "
                   "ill-conditioned")
        else:
            why = (f"the solver stalled at the certified gap {gap:.3g} (rounding-error "
                   f"bound eta = {eta:.3g})")
        info["message"] = f"tol={tol:g} cannot be certified: {why}"
        info["attainable_gap"] = eta
        if its >= max_iter:
            why += "; raise max_iter or loosen tol"
        message = (f"not converged: certified gap {gap:.3g} > tol={tol:g} after {its} "
                   f"iterations ({solver}); {why}")
    else:
        message = ""
    return DesignResult(
        weights=w, value=value, lower_bound=lower, gap=gap,
        support=np.flatnonzero(w > 0.0).astype(np.int64), iterations=int(its),
        solver=solver, converged=bool(gap <= tol), criterion=criterion, info=info,
        message=message,
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
        ``"auto"``/``"fw"``: working-set vertex exchanges (Böhning 1986) in REX-style
        batches (Harman, Filová & Richtárik 2020; ``O(d^2)`` per exchange, exact BLAS-3
        recomputation of the variances after each batch; the greedy kernel below for
        working sets with ``|S| d <= 20000``), a primal-dual interior-point
        polish of ``log det`` on the working set below a working tolerance of 1e-7,
        Kumar–Yildirim initial support (Mason et al. 2022, Alg. 4), float32 screening
        passes over the candidates with Harman–Pronzato (2007) deletion, and a float64
        certificate (:mod:`design._gd_batch`). For ``K d >= 2^26`` and well-conditioned
        arms the rows of ``Q`` are formed in blocks and never stored. ``"fw-away"``:
        Wolfe–Atwood (Fedorov–Wynn toward, away and drop steps with the exact log-det line
        search; Atwood 1973, Todd 2016, Mason et al. 2022 Alg. 5), greedy, jitted, with
        rank-one updates of ``A^{-1}`` and every variance per step. ``"cvxpy"``: the
        log-det formulation (Clarabel if installed, else SCS) as a reference path.
    max_iter : int, optional
        Cap on the exchange and Newton steps (default 200,000). Reaching it gives
        ``converged=False``.

    Returns
    -------
    DesignResult
        ``value = max_a omega_a``, ``lower_bound = d``, ``gap = value (1 + eta) / d - 1``
        with ``eta = info["rounding_error"]`` the bound on the relative rounding error
        (about 1e-13 for well-conditioned arms, about ``1e-16 cond(X)`` otherwise; the
        solver runs on ``Q`` from ``X = Q R``, one QR per call). ``info`` has the solver's
        rounds, deleted candidates, the argmax arm, ``cond`` (of the column-equilibrated
        arms), ``threads`` (per stage) and, when ``tol`` is not certified, ``message``
        saying why and ``attainable_gap`` (``eta``: no smaller gap can be certified in
        float64 for the instance).
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

    Mason, Jun & Jain (2022), Algorithm 3: Algorithm 4 (:func:`design._gd_batch.
    kumar_yildirim_support`, Kumar–Yildirim / Todd) gives ``d`` points with uniform weights, then
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
    sup = kumar_yildirim_support(Z)
    w[sup] = 1.0 / sup.shape[0]
    Minv = np.empty((r, r))
    omega = np.empty(K)
    status, its = kern.wolfe_atwood(Z, w, Minv, omega, 1.0, 100_000, 50, False)
    if status == kern.SINGULAR and its == 0:  # pragma: no cover - Alg. 4 spans
        raise RuntimeError("Algorithm 4 returned a singular support")
    return w
