"""Approximate designs under constraints: caps, linear resource constraints, fixed runs.

The feasible set is ``P = {w >= 0, sum w = 1, w <= caps, A_ub w <= b_ub}``, and runs already
made (``fixed``, with ``n`` new runs planned) enter the information matrix as
``A(w) = (M_fixed + n sum_a w_a x_a x_a^T) / (n_fixed + n)`` (design augmentation).

Certificate (convex duality / the constrained equivalence theorem): every criterion is
written as a convex function ``Psi(w)`` (``-log det A`` for D, ``-log det C`` for Ds,
``tr(L A^{-1})`` for A/I) with gradient ``-beta g_a``; for the optimum ``w*`` in ``P``,
``Psi(w*) >= Psi(w) - beta (max_{v in P} g.v - g.w)`` (the Frank–Wolfe gap). The maximum of
the linear function over ``P`` is bounded from above by an LP *dual* solution (HiGHS), so
the bound is valid whatever the LP solver's accuracy; the barrier solver's multipliers
``lam >= 0`` give the same kind of bound without an LP (Lagrangian weak duality). Without
fixed runs the homogeneous bounds ``value * max_P(v.d) / d`` (D), ``value^2 / max_P(v.g)``
(A/I) are used when better.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from design import _constrained_barrier as barrier
from design import _criteria_numba as kern
from design._validation import as_arms, as_max_iter, as_tol
from design.criteria import (
    _as_interest,
    _check_method,
    _cvxpy_solver,
    _i_matrix,
    _i_rows,
    criterion_basis,
)
from design.exact import _fixed_info, _fixed_info_q
from design.result import DesignResult, warns_if_not_converged

__all__ = ["constrained_optimal"]

_EPS = float(np.finfo(np.float64).eps)

_CRITERIA = ("d", "a", "i", "ds")


def _as_caps(caps: object, K: int) -> np.ndarray:
    if caps is None:
        return np.full(K, np.inf)
    try:
        arr = np.asarray(caps, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"caps must be numeric: {exc}") from None
    if arr.ndim == 0:
        arr = np.full(K, float(arr))
    if arr.shape != (K,):
        raise ValueError(f"caps must be a number or a vector of length K={K}; got {arr.shape}")
    if np.any(np.isnan(arr)) or np.any(arr < 0):
        raise ValueError("caps must be non-negative weights (inf for no cap)")
    if arr.sum() < 1.0 - 1e-12:
        raise ValueError(f"caps sum to {arr.sum():.6g} < 1: no design satisfies them")
    return arr


def _as_linear(A_ub: object, b_ub: object, K: int) -> tuple[np.ndarray, np.ndarray]:
    if A_ub is None and b_ub is None:
        return np.zeros((0, K)), np.zeros(0)
    if A_ub is None or b_ub is None:
        raise ValueError("give both A_ub and b_ub (the constraints A_ub @ w <= b_ub)")
    A = np.atleast_2d(np.asarray(A_ub, dtype=np.float64))
    b = np.atleast_1d(np.asarray(b_ub, dtype=np.float64))
    if A.shape[1] != K:
        raise ValueError(f"A_ub must have K={K} columns; got shape {A.shape}")
    if b.shape != (A.shape[0],):
        raise ValueError(f"b_ub must have one entry per row of A_ub ({A.shape[0]}); got "
                         f"shape {b.shape}")
    if not (np.all(np.isfinite(A)) and np.all(np.isfinite(b))):
        raise ValueError("A_ub and b_ub must be finite")
    return A, b


def _max_over_P(g: np.ndarray, caps: np.ndarray, A: np.ndarray, b: np.ndarray,
                lam: np.ndarray | None = None) -> float:
    """Certified upper bound on ``max {g.v : v in P}``.

    With ``lam`` (multipliers ``>= 0`` of ``A v <= b``, e.g. the barrier solver's): the
    Lagrangian bound ``lam.b + max {(g - A^T lam).v : sum v = 1, 0 <= v <= caps}``
    (:func:`design._constrained_barrier.lagrangian_top`), no LP.

    Caps only: the greedy fill in decreasing ``g`` is exact. With ``A_ub``: weak duality,
    ``g.v <= y + lam.b + mu.caps`` for any ``lam >= 0`` and ``y``, ``mu >= 0`` with
    ``y + A^T lam + mu >= g``; ``lam`` from the HiGHS dual, ``y`` and ``mu`` then chosen
    optimally (a 1-D piecewise-linear minimisation over the breakpoints).
    """
    if lam is not None and A.shape[0]:
        return barrier.lagrangian_top(g, caps, A, b, lam)[0]
    if A.shape[0] == 0:
        order = np.argsort(-g)
        room = caps[order]
        cum = np.cumsum(room)
        k = int(np.searchsorted(cum, 1.0))
        take = room.copy()
        take[k + 1:] = 0.0
        take[k] = 1.0 - (cum[k - 1] if k > 0 else 0.0)
        return float(np.dot(g[order[:k + 1]], take[:k + 1]))
    from scipy.optimize import linprog

    K = g.size
    bounds = [(0.0, None if not np.isfinite(c) else float(c)) for c in caps]
    res = linprog(-g, A_ub=A, b_ub=b, A_eq=np.ones((1, K)), b_eq=[1.0], bounds=bounds,
                  method="highs")
    if res.status == 2:
        raise ValueError("the constraints (caps, A_ub w <= b_ub, sum w = 1) are infeasible")
    lam = np.clip(-np.asarray(res.ineqlin.marginals, dtype=float), 0.0, None)
    h = g - A.T @ lam  # need y + mu_a >= h_a, mu_a >= 0
    finite = np.isfinite(caps)
    if not finite.any():
        return float(h.max() + lam @ b)
    # minimise y + sum_a caps_a max(0, h_a - y) over y >= max of uncapped h
    lo = h[~finite].max() if (~finite).any() else -np.inf
    ys = np.unique(np.concatenate([h, [lo]] if np.isfinite(lo) else [h]))
    ys = ys[ys >= lo]
    vals = ys + np.array([np.sum(caps[finite] * np.clip(h[finite] - y, 0.0, None)) for y in ys])
    return float(vals.min() + lam @ b)


class _Errors(NamedTuple):
    """Rounding-error model of a certificate computed on ``Q``.

    ``rel``: relative error of every computed value and derivative (the basis' perturbation
    and the Cholesky of ``A_Q(w)``); ``delta``: ``||L' - L||_2`` for the linear criteria,
    where ``L_Q`` represents ``R^{-T} L' R^{-1}`` (``CriterionBasis.L_error``: the
    eigen-factor of an ``L`` given as a matrix; 0 from points); ``R``: the basis' triangular
    factor (needed when ``delta > 0``)."""

    rel: float = 0.0
    delta: float = 0.0
    R: np.ndarray | None = None


_NO_ERRORS = _Errors()


def _state(X: np.ndarray, w: np.ndarray, M0: np.ndarray, crit: str, L: np.ndarray,
           idx: np.ndarray, R: np.ndarray | None = None
           ) -> tuple[float, float, np.ndarray, float, np.ndarray] | None:
    """``(value, Psi, g, trA, gA)``: criterion value, its convex form, the (scaled)
    derivative and, for the linear criteria with ``R`` given, the A-criterion's terms on the
    original columns, ``trA = tr(A_X^{-1}) = ||R^{-1} C^{-T}||_F^2`` and ``gA_a =
    ||A_X^{-1} x_a||^2 = ||R^{-1} A_Q^{-1} q_a||^2`` (``A_Q = C C^T``; 0 otherwise)."""
    A = (X * w[:, None]).T @ X + M0
    try:
        C = np.linalg.cholesky(A)
    except np.linalg.LinAlgError:
        return None
    Ci = np.linalg.inv(C)
    Ainv = Ci.T @ Ci
    d = X.shape[1]
    if crit == "d":
        logdet = 2.0 * float(np.log(np.diag(C)).sum())
        Z = X @ Ci.T
        return float(np.exp(-logdet / d)), -logdet, np.einsum("ij,ij->i", Z, Z), 0.0, \
            np.zeros(0)
    if crit in ("a", "i"):
        Z = X @ Ainv
        phi = float(np.einsum("ij,ji->", L, Ainv))
        g = np.einsum("ij,ij->i", Z @ L, Z)
        if R is None:
            return phi, phi, g, 0.0, np.zeros(0)
        from scipy.linalg import solve_triangular

        T = solve_triangular(R, Ci.T, check_finite=False)
        ZR = solve_triangular(R, Z.T, check_finite=False)
        return phi, phi, g, float(np.sum(T * T)), np.einsum("ij,ij->j", ZR, ZR)
    Vs = Ainv[np.ix_(idx, idx)]
    Lv = np.linalg.cholesky(Vs)
    Zi = (X @ Ainv[:, idx]) @ np.linalg.inv(Lv).T
    logdet_c = -2.0 * float(np.log(np.diag(Lv)).sum())
    return float(np.exp(-logdet_c / idx.size)), -logdet_c, np.einsum("ij,ij->i", Zi, Zi), \
        0.0, np.zeros(0)


def _certificate(X: np.ndarray, w: np.ndarray, M0: np.ndarray, crit: str, L: np.ndarray,
                 idx: np.ndarray, caps: np.ndarray, A: np.ndarray, b: np.ndarray,
                 err: _Errors = _NO_ERRORS, lam: np.ndarray | None = None
                 ) -> tuple[float, float, float]:
    """``(value, lower_bound, gap)``, the bound true for the exact quantities.

    Every computed quantity is widened to an interval that holds the true one (relative
    error ``err.rel``; for A/I also ``delta tr(A_X^{-1})`` on the value and ``delta
    ||A_X^{-1} x_a||^2`` on ``g_a``, the error of ``L``'s factor), and the bounds, monotone
    in them, are evaluated at the unfavourable ends: ``Psi* >= Psi_lo - (max_P v.g_hi -
    w.g_lo)`` (Frank-Wolfe) and, without fixed runs, ``phi_lo^2 / max_P v.g_hi`` (A/I),
    ``value_lo s / max_P v.g_hi`` (D, Ds). ``gap = value_hi / lower_bound - 1``. An error
    ``rel >= 1/2`` (or a value interval reaching 0) gives the trivial bound."""
    linear = crit in ("a", "i")
    st = _state(X, w, M0, crit, L, idx, err.R if (linear and err.delta > 0.0) else None)
    if st is None:
        return np.inf, 0.0, np.inf
    value, psi, g, trA, gA = st
    e = err.rel
    if not e < 0.5:
        return value, 0.0, np.inf
    if linear:
        slack = err.delta * (1.0 + e)
        value_lo = value * (1.0 - e) - slack * trA
        value_hi = value * (1.0 + e) + slack * trA
        g_hi = g * (1.0 + e) + (slack * gA if gA.size else 0.0)
        g_lo = np.clip(g * (1.0 - e) - (slack * gA if gA.size else 0.0), 0.0, None)
        psi_lo = value_lo
    else:
        s = X.shape[1] if crit == "d" else idx.size
        value_lo, value_hi = value * (1.0 - e), value * (1.0 + e)
        g_hi, g_lo = g * (1.0 + e), g * (1.0 - e)
        psi_lo = psi + s * np.log1p(-e)  # Psi = s log(value)
    top = _max_over_P(g_hi, caps, A, b, lam)
    gw = float(g_lo @ w) * (1.0 - 2.0 * w.size * _EPS)  # a rounded sum of non-negatives
    psi_lb = psi_lo - (top - gw)  # the Frank-Wolfe gap bound on Psi
    homogeneous = not np.any(M0)
    if linear:
        lb = psi_lb
        if homogeneous and value_lo > 0.0:
            lb = max(lb, value_lo * value_lo / top)
        lb = max(lb, 0.0)
    else:
        lb = float(np.exp(psi_lb / s))
        if homogeneous:
            lb = max(lb, value_lo * s / top)
    lb = min(lb, value_lo) if value_lo > 0.0 else 0.0
    return value, lb, value_hi / lb - 1.0 if lb > 0 else np.inf


def _feasible_start(K: int, caps: np.ndarray) -> np.ndarray:
    """Water-filling ``w_a = min(caps_a, t)`` with ``sum w = 1``."""
    lo, hi = 0.0, 1.0
    for _ in range(200):
        t = (lo + hi) / 2
        if np.minimum(caps, t).sum() >= 1.0:
            hi = t
        else:
            lo = t
    w = np.minimum(caps, hi)
    return w / w.sum()


def _cvxpy(X: np.ndarray, M0: np.ndarray, crit: str, L: np.ndarray, idx: np.ndarray,
           caps: np.ndarray, A: np.ndarray, b: np.ndarray, solver: str | None = None
           ) -> tuple[np.ndarray, str]:
    import cvxpy as cp

    solver, kwargs = _cvxpy_solver(solver)
    K, d = X.shape
    w = cp.Variable(K, nonneg=True)
    F = np.einsum("ai,aj->aij", X, X).reshape(K, d * d)
    Am = cp.reshape(F.T @ w, (d, d), order="C") + M0
    Am = (Am + Am.T) / 2
    cons = [cp.sum(w) == 1]
    fin = np.isfinite(caps)
    if fin.any():
        cons.append(w[np.flatnonzero(fin)] <= caps[fin])
    if A.shape[0]:
        cons.append(A @ w <= b)
    if crit == "d":
        obj = cp.Maximize(cp.log_det(Am))
    elif crit in ("a", "i"):
        ev, U = np.linalg.eigh(L)
        keep = ev > 1e-12 * ev[-1]
        obj = cp.Minimize(cp.matrix_frac(U[:, keep] * np.sqrt(ev[keep]), Am))
    else:
        nuis = np.setdiff1d(np.arange(d), idx)
        s = idx.size
        T = cp.Variable((s, s), symmetric=True)
        perm = np.concatenate([idx, nuis])
        P = np.eye(d)[perm]
        Ap = P @ Am @ P.T
        block = cp.bmat([[Ap[:s, :s] - T, Ap[:s, s:]], [Ap[s:, :s], Ap[s:, s:]]]) \
            if nuis.size else Ap - T
        cons.append(block >> 0)
        obj = cp.Maximize(cp.log_det(T))
    prob = cp.Problem(obj, cons)
    prob.solve(solver=solver, **kwargs)
    if w.value is None:
        raise RuntimeError(f"cvxpy/{solver} failed: status {prob.status}")
    wv = np.clip(np.asarray(w.value, dtype=float), 0.0, None)
    return _make_feasible(wv / wv.sum(), caps, A, b), f"cvxpy-{solver.lower()}"


def _barrier_without_residue(Xs: np.ndarray, M0: np.ndarray, crit: str, L: np.ndarray,
                             idx: np.ndarray, caps: np.ndarray, A: np.ndarray,
                             b: np.ndarray, w: np.ndarray, tol: float, newton_cap: int
                             ) -> tuple[np.ndarray, np.ndarray, int] | None:
    """The barrier method again on the candidates with a weight above ``1e-3 max(w)``.

    A log barrier keeps every weight of its working set positive, ``O(1/t)`` on candidates
    that the optimum does not use (``1e-6`` to ``1e-5`` at the final ``t``): a lab would be
    told to run them, and efficient rounding keeps every weight, so it would need more runs
    than the design's real support. Solving again on the other candidates (the certificate
    still prices all ``K``) gives weights without that residue. Returns ``(w, lam, Newton
    steps)`` when the new design is certified to ``0.9 tol``, else None (the caller keeps
    ``w``; a weight that small that the optimum needs also ends here)."""
    from design._gd_batch import blas_threads

    pos = w > 0.0
    small = pos & (w <= 1e-3 * float(w.max()))
    if not small.any():
        return None
    keep = np.flatnonzero(pos & ~small)
    try:
        v0, slack0 = barrier.interior_point(caps[keep], A[:, keep], b)
    except ValueError:  # the constraints need the dropped candidates
        return None
    if not slack0 > 1e-9:
        return None

    def embed(wk: np.ndarray) -> np.ndarray:
        full = np.zeros(w.size)
        full[keep] = wk
        return full

    def gap(wk: np.ndarray, lam: np.ndarray | None = None) -> float:
        return _certificate(Xs, embed(wk), M0, crit, L, idx, caps, A, b, lam=lam)[2]

    with blas_threads(1):
        out = barrier.barrier_solve(np.ascontiguousarray(Xs[keep]), M0, crit, L, caps[keep],
                                    np.ascontiguousarray(A[:, keep]), b, v0, slack0, tol / 2,
                                    max_newton=newton_cap, certify=gap,
                                    certify_lp=gap)
    wk = _make_feasible(out.w / out.w.sum(), caps[keep], np.ascontiguousarray(A[:, keep]), b)
    if gap(wk, out.lam) > 0.9 * tol and gap(wk) > 0.9 * tol:  # the LP dual's bound too
        return None
    return embed(wk), out.lam, out.newton_steps


def _cvxpy_without_residue(Xs: np.ndarray, M0: np.ndarray, crit: str, L: np.ndarray,
                           idx: np.ndarray, caps: np.ndarray, A: np.ndarray, b: np.ndarray,
                           w: np.ndarray, tol: float) -> np.ndarray:
    """cvxpy again on the candidates with a weight above ``1e-3 max(w)``, as
    :func:`_barrier_without_residue` does for the barrier: the interior-point solvers leave
    weights of ``1e-9`` to ``1e-5`` on candidates the optimum does not use. The new design
    is kept when certified (every candidate priced) to ``0.9 tol``, else ``w`` is."""
    pos = w > 0.0
    small = pos & (w <= 1e-3 * float(w.max()))
    if not small.any():
        return w
    keep = np.flatnonzero(pos & ~small)
    try:
        wk, _ = _cvxpy(np.ascontiguousarray(Xs[keep]), M0, crit, L, idx, caps[keep],
                       np.ascontiguousarray(A[:, keep]), b)
    except Exception:  # noqa: BLE001 - infeasible or failed on the subset: keep w
        return w
    full = np.zeros(w.size)
    full[keep] = wk
    if _certificate(Xs, full, M0, crit, L, idx, caps, A, b)[2] > 0.9 * tol:
        return w
    return full


def _make_feasible(w: np.ndarray, caps: np.ndarray, A: np.ndarray, b: np.ndarray
                   ) -> np.ndarray:
    """Pull a solver's slightly infeasible ``w`` into ``P`` exactly: mix it with the point of
    ``P`` with the largest slack (an LP) just enough to satisfy every constraint. That point
    is sought among the candidates ``w`` uses, so the mix adds no weight elsewhere (an
    all-candidate point put about ``1e-17`` on every unused candidate of an exchange's
    design under caps: a run sheet listed all of them), and among all candidates when the
    support has none."""
    fin = np.isfinite(caps)
    viol = max(float(np.max(A @ w - b)) if A.shape[0] else -1.0,
               float(np.max(w[fin] - caps[fin])) if fin.any() else -1.0)
    if viol <= 0.0:
        return w
    from scipy import sparse
    from scipy.optimize import linprog

    K = w.size
    rows = [sparse.csr_matrix(np.c_[A, np.ones(A.shape[0])])] if A.shape[0] else []
    rhs = [b] if A.shape[0] else []
    if fin.any():  # w_a + s <= caps_a: sparse rows (K of them at most)
        idx = np.flatnonzero(fin)
        rows.append(sparse.csr_matrix((np.ones(2 * idx.size),
                                       (np.r_[np.arange(idx.size), np.arange(idx.size)],
                                        np.r_[idx, np.full(idx.size, K)])),
                                      shape=(idx.size, K + 1)))
        rhs.append(caps[fin])
    def slack_point(used: np.ndarray | None):
        bounds = [(0, None) if used is None or used[a] else (0, 0) for a in range(K)]
        return linprog(np.r_[np.zeros(K), -1.0], A_ub=sparse.vstack(rows, format="csr"),
                       b_ub=np.concatenate(rhs),
                       A_eq=np.r_[np.ones(K), 0.0][None, :], b_eq=[1.0],
                       bounds=bounds + [(None, 1.0)], method="highs")

    used = w > 0
    res = slack_point(used)
    if (res.status != 0 or res.x[K] <= 0.0) and not used.all():
        res = slack_point(None)
    if res.status != 0 or res.x[K] <= 0.0:
        return w  # no interior point: keep the solver's point (its violation is reported)
    v = np.clip(res.x[:K], 0.0, None)
    v /= v.sum()
    theta = 0.0
    for lhs_w, lhs_v, bound in ([(A @ w, A @ v, b)] if A.shape[0] else []) + (
            [(w[fin], v[fin], caps[fin])] if fin.any() else []):
        bad = lhs_w > bound
        if bad.any():
            theta = max(theta, float(np.max((lhs_w[bad] - bound[bad])
                                            / (lhs_w[bad] - lhs_v[bad]))))
    theta = min(1.0, theta * (1.0 + 1e-9) + 1e-15)
    for _ in range(60):  # rounding can leave an ulp of violation: move further inside
        out = (1.0 - theta) * w + theta * v
        out /= out.sum()
        ok = (not A.shape[0] or np.all(A @ out <= b)) and np.all(out[fin] <= caps[fin])
        if ok or theta >= 1.0:
            return out
        theta = min(1.0, 2.0 * theta + 1e-12)
    return out  # pragma: no cover


@warns_if_not_converged
def constrained_optimal(X: object, criterion: str = "d", *, caps: object = None,
                        A_ub: object = None, b_ub: object = None, fixed: object = None,
                        n: int | None = None, L: object = None, region: object = None,
                        interest: object = None, tol: float | None = None,
                        method: str = "auto", max_iter: int | None = None,
                        drop_residue: bool = True) -> DesignResult:
    """Optimal approximate design under caps, linear resource constraints and fixed runs.

    Parameters
    ----------
    X : array_like, shape (K, d)
        Candidate arms as rows; must span R^d.
    criterion : {"d", "a", "i", "ds"}
        As in :func:`design.d_optimal`, :func:`design.a_optimal`, :func:`design.i_optimal`
        (``L``/``region``) and :func:`design.ds_optimal` (``interest``).
    caps : float or array_like (K,), optional
        Upper bounds on the weights (``inf`` for none); they must sum to at least 1.
    A_ub, b_ub : array_like, optional
        Linear constraints ``A_ub @ w <= b_ub``; e.g. costs per run ``c`` and an average
        budget per run ``B``: ``A_ub = [c]``, ``b_ub = [B]`` (a total budget for ``N`` runs is
        ``B = budget / N``).
    fixed : array_like, optional
        Runs already made: counts per candidate (K,) or regressor rows (m, d); requires
        ``n``, the number of new runs. The information is
        ``(M_fixed + n sum_a w_a x_a x_a^T) / (n_fixed + n)``.
    n : int, optional
        Number of new runs (with ``fixed``).
    tol : float, optional
        Requested certified gap; default ``1e-6``, or ``1e-4`` when cvxpy solves the problem
        (``method="cvxpy"``, or ``A_ub`` with ``criterion="ds"``: interior-point solvers
        stop near ``1e-5``).
    method : {"auto", "exchange", "barrier", "cvxpy"}
        ``"auto"``: without ``A_ub``, ``"exchange"``: the numba vertex-exchange solver of
        :mod:`design.criteria` restricted to the caps (weight moved to an arm only up to
        its cap) with ``M_fixed`` in the information matrix. With ``A_ub`` (D, A, I),
        ``"barrier"``: a working-set log-barrier (interior-point) method with Newton steps
        on the working set and pricing over all candidates
        (:mod:`design._constrained_barrier`), certified by the barrier's multipliers (or an
        LP dual); when the constraints leave no interior (an equality written as two
        inequalities) it hands over to cvxpy and says so in ``message``. With ``A_ub`` and
        Ds, and with ``"cvxpy"``: cvxpy (Clarabel if installed, else SCS).
    max_iter : int, optional
        Cap on the exchange steps (default 200,000) or, for the barrier method, on its
        Newton steps (default 2,000).
    drop_residue : bool, default True
        Barrier method: solve again on the candidates with a weight above ``1e-3`` of the
        largest, so that the design has no interior-point residue (weights of ``1e-7`` to
        ``1e-5`` on candidates the optimum does not use, which a lab would be told to run
        and which efficient rounding keeps); kept only when certified to ``0.9 tol``. About
        2-5x the time (e.g. ``(500, 10)``: 59 support points with residue, 32 without).
        The same for cvxpy (its interior-point solvers leave ``1e-9`` to ``1e-5``), kept
        when certified to ``0.9 tol`` (a singular Ds optimum is not: its certificate needs
        an invertible information matrix, so the solver's point stays). The exchange
        solver (caps and fixed runs only) leaves no residue. False: the solver's first
        certified point, as it is.

    Returns
    -------
    DesignResult
        ``value`` as for the unconstrained criterion (of the augmented information when
        ``fixed``), ``lower_bound`` the duality certificate of the module docstring (valid
        for the constrained optimum), ``gap``, ``converged``;
        ``info["constraints"]`` summarises the constraints, ``info["rounding_error"]`` the
        relative rounding error the certificate includes (with, for A/I and ``L`` given as a
        matrix, the error of its eigen-factor; see :func:`_certificate`).
    """
    Xa = as_arms(X)
    K, d = Xa.shape
    crit = str(criterion).lower()
    if crit not in _CRITERIA:
        raise ValueError(f"criterion must be one of {_CRITERIA}; got {criterion!r}")
    if method != "barrier":
        _check_method(method)
    newton_cap = 2000 if max_iter is None else as_max_iter(max_iter, 2000)
    max_iter = as_max_iter(max_iter, 200_000)
    capv = _as_caps(caps, K)
    A, b = _as_linear(A_ub, b_ub, K)
    if method == "barrier" and crit == "ds":
        raise ValueError("method='barrier' is for criterion 'd', 'a' or 'i' (Ds: 'cvxpy')")
    if method == "exchange" and A.shape[0]:
        raise ValueError("method='exchange' takes caps and fixed runs only; with A_ub use "
                         "'auto', 'barrier' or 'cvxpy'")
    use_barrier = method == "barrier" or (method == "auto" and A.shape[0] > 0
                                          and crit != "ds")
    use_cvxpy = method == "cvxpy" or (A.shape[0] > 0 and not use_barrier)
    if tol is None:
        tol = 1e-4 if use_cvxpy else 1e-6
    tol = as_tol(tol)
    L_m = np.eye(d) if crit == "a" else (_i_matrix(Xa, L, region) if crit == "i"
                                         else np.zeros((d, d)))
    idx = _as_interest(interest, d) if crit == "ds" else np.arange(d, dtype=np.int64)
    if crit == "ds" and interest is None:  # pragma: no cover - _as_interest refuses None
        raise ValueError("interest is required for criterion='ds'")
    # work in the well-conditioned basis X = Q R: the designs are invariant under X -> X T,
    # values are those on Q times cb.value_scale
    # (the I-criterion's factor from the region's points when there are some: no error term)
    cb = criterion_basis(Xa, crit, L_m, idx, _i_rows(Xa, L, region) if crit == "i" else None)
    L_m, idx = cb.L, cb.interest
    if fixed is not None:
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError("n (the number of new runs, a positive integer) is required "
                             "with fixed")
        _, nfix = _fixed_info(Xa, fixed)  # validates fixed
        beta = n / (nfix + n)
        M0 = _fixed_info_q(cb, fixed) / (nfix + n)
    else:
        if n is not None:
            raise ValueError("n is only used with fixed (the number of new runs)")
        beta, M0 = 1.0, np.zeros((d, d))
    Xs = np.ascontiguousarray(cb.Q * np.sqrt(beta))  # A(w) = M0 + sum w_a xs_a xs_a^T
    its = 0
    lam = None
    note = ""
    if use_barrier:
        v0, slack0 = barrier.interior_point(capv, A, b)  # raises on infeasible constraints
        if not slack0 > 1e-9:
            use_cvxpy = True
            note = (f"the constraints leave no interior (largest common slack {slack0:.3g}): "
                    "solved by cvxpy instead of the barrier method; ")
        else:
            from design._gd_batch import blas_threads

            with blas_threads(1):  # dense matrices of a few hundred: threads only cost
                out = barrier.barrier_solve(
                    Xs, M0, crit, L_m, capv, A, b, v0, slack0, tol,
                    max_newton=newton_cap,
                    certify=lambda w, lam: _certificate(Xs, w, M0, crit, L_m, idx, capv, A,
                                                        b, lam=lam)[2],
                    certify_lp=lambda w: _certificate(Xs, w, M0, crit, L_m, idx, capv, A,
                                                      b)[2])
            w, lam, its, solver = out.w, out.lam, out.newton_steps, "barrier"
            w = _make_feasible(w / w.sum(), capv, A, b)
    elif A.shape[0]:
        _max_over_P(np.zeros(K), capv, A, b)  # raises on infeasible constraints
    if not isinstance(drop_residue, (bool, np.bool_)):
        raise ValueError(f"drop_residue must be True or False; got {drop_residue!r}")
    unpruned = None
    if use_cvxpy:
        w, solver = _cvxpy(Xs, M0, crit, L_m, idx, capv, A, b)
        if drop_residue:  # the solver's residue (1e-9..1e-5 on unused arms): solve again
            unpruned, lam_unpruned = w, lam
            w = _cvxpy_without_residue(Xs, M0, crit, L_m, idx, capv, A, b, w, tol)
    if use_barrier and not use_cvxpy and drop_residue:  # residue: 1e-6 on unused arms
        unpruned, lam_unpruned = w, lam
        pruned = _barrier_without_residue(Xs, M0, crit, L_m, idx, capv, A, b, w, tol,
                                          newton_cap)
        if pruned is not None:
            w, lam, steps = pruned
            its += steps
    elif not use_cvxpy and not use_barrier:
        w = _feasible_start(K, capv)
        cap_k = np.minimum(capv, 2.0)
        kkt = bool(np.any(capv < 1.0) or np.any(M0))
        solver = "exchange"
        tol_in = tol
        for _ in range(6):  # tighten the KKT tolerance until the certificate holds
            if crit in ("a", "i"):
                status, it = kern.linear_solve(Xs, L_m, w, M0, cap_k, kkt, tol_in,
                                               max_iter - its, max(100, 10 * d))
            else:
                nuis = np.setdiff1d(np.arange(d), idx)
                status, it = kern.ds_solve(
                    Xs, np.ascontiguousarray(Xs[:, nuis]), w, M0,
                    np.ascontiguousarray(M0[np.ix_(nuis, nuis)]), cap_k, kkt, idx.size,
                    tol_in, max_iter - its, max(100, 10 * d))
            its += it
            w = np.clip(w, 0.0, None)
            w = np.minimum(w / w.sum(), capv)
            w /= w.sum()
            _, _, gap = _certificate(Xs, w, M0, crit, L_m, idx, capv, A, b)
            if gap <= tol or status != kern.CONVERGED or its >= max_iter or tol_in < 1e-12:
                break
            tol_in /= 10.0
        w = _make_feasible(w, capv, A, b)  # renormalising can leave an ulp above a cap
    # rounding: the basis' perturbation and the Cholesky of A_Q(w) (relative error
    # d u cond(A_Q)) on the value and the derivatives, and for A/I the error of L's factor
    # (cb.L_error); the certificate widens every quantity by them (_certificate)
    def final(w: np.ndarray) -> tuple[float, float, float, float, _Errors]:
        ev = np.linalg.eigvalsh((Xs * w[:, None]).T @ Xs + M0)
        rel = 2.0 * (cb.basis.error + d * _EPS * ev[-1] / max(ev[0], 1e-300))
        errs = _Errors(rel, cb.L_error, cb.basis.R)
        value, lb, gap = _certificate(Xs, w, M0, crit, L_m, idx, capv, A, b, errs, lam)
        if lam is not None and gap > tol:  # the LP dual's bound: also true, maybe tighter
            lp = _certificate(Xs, w, M0, crit, L_m, idx, capv, A, b, errs)
            if lp[1] > lb:
                value, lb, gap = lp
        return value, lb, gap, rel, errs

    value, lb, gap, rel, errs = final(w)
    if gap > tol and unpruned is not None and w is not unpruned:  # keep the certified one
        w, lam = unpruned, lam_unpruned
        value, lb, gap, rel, errs = final(w)
    message = note
    if gap > tol and _certificate(Xs, w, M0, crit, L_m, idx, capv, A, b)[2] <= tol:
        message += (f"tol={tol:g} cannot be certified: the rounding error of the certificate "
                   f"(relative {rel:.3g} from the conditioning of the arms after column "
                   "scaling and of the design"
                   + (f", and {cb.L_error:.3g} on L's eigen-factor" if cb.L_error else "")
                   + f") leaves a certified gap of {gap:.3g}; reparametrise the arms (X @ T)"
                   + (", give the region's points instead of L" if crit == "i" else "")
                   + ", or use a larger tol")
    value, lb = value * cb.value_scale, lb * cb.value_scale
    return DesignResult(
        weights=w, value=value, lower_bound=lb, gap=gap,
        support=np.flatnonzero(w > 0).astype(np.int64), iterations=int(its), solver=solver,
        converged=bool(gap <= tol),
        criterion={"d": "D", "a": "A", "i": "I", "ds": "Ds"}[crit],
        info={"constraints": {"caps": caps is not None, "linear": int(A.shape[0]),
                              "fixed": fixed is not None}, "rounding_error": rel},
        message=message,
    )
