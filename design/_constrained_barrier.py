"""Working-set log-barrier (interior-point) solver for approximate designs under general
linear constraints ``A_ub w <= b_ub`` (with caps and fixed runs), D-, A- and I-criteria.

The problem is ``min Psi(w)`` over ``P = {w >= 0, sum w = 1, w <= caps, A w <= b}`` with
``Psi = -log det A(w)`` (D) or ``tr(L A(w)^{-1})`` (A/I), ``A(w) = M0 + sum_a w_a x_a x_a^T``.

* **Interior start** (one HiGHS LP): the point ``v0`` of ``P`` with the largest common slack
  ``s`` in ``A v <= b`` and the finite caps; infeasible constraints are refused, and ``s = 0``
  (no interior: e.g. an equality written as two inequalities) returns ``None`` so that the
  caller can use cvxpy.
* **Working set** ``S`` (column generation, as the unconstrained solvers' screening): the
  support of ``v0`` and the ``2 d`` candidates of largest leverage; the restricted problem on
  ``S`` is solved by the barrier method (Boyd & Vandenberghe 2004, Sec. 11.3): centring
  steps of Newton's method with the equality ``sum w = 1`` eliminated, on
  ``t Psi(w) - sum log w - sum log(caps - w) - sum log(b - A w)``, with the exact dense
  Hessian (``(x_a^T A^{-1} x_b)^2`` for D; ``2 (x_a^T A^{-1} L A^{-1} x_b)(x_a^T A^{-1}
  x_b)`` for A/I) and a backtracking line search inside the domain; ``t`` grows by 10.
* **Pricing and certificate over all K candidates**: the barrier's multipliers ``lam_i =
  1 / (t (b - A w)_i)`` are dual feasible (``lam >= 0``), so ``max_P g.v <= lam.b +
  max {(g - A^T lam).v : sum v = 1, 0 <= v <= caps}`` (weak duality; the inner maximum by
  a greedy fill) bounds the Frank-Wolfe gap of the module :mod:`design.constrained`; when
  the fill uses candidates outside ``S`` they join ``S`` (the restricted problem is
  re-centred from the current point), otherwise ``t`` grows until the certified gap meets
  ``tol``. The final certificate is computed by the caller from these multipliers and,
  if that does not reach ``tol``, from an LP dual (both are true bounds).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.linalg import cho_factor, cho_solve, solve_triangular

_EPS = float(np.finfo(np.float64).eps)


class BarrierResult(NamedTuple):
    """``w`` on all K candidates (strictly inside ``A w <= b`` and the caps on its
    support), the multipliers ``lam`` (>= 0) of ``A w <= b``, Newton steps, working-set
    size."""

    w: np.ndarray
    lam: np.ndarray
    newton_steps: int
    working_set: int


def interior_point(caps: np.ndarray, A: np.ndarray, b: np.ndarray
                   ) -> tuple[np.ndarray, float]:
    """``(v0, s)``: a point of ``P`` strictly inside ``A v <= b`` and the finite caps, and its
    smallest slack ``s`` there (``s <= 0``: ``P`` has no such point). Raises ``ValueError``
    if ``P`` is empty.

    First (fast: ``m + 1`` rows) the largest common slack in ``A v <= b`` with the caps
    lowered to ``(1 - tau) caps`` as bounds, ``tau = min(1/2, (sum caps - 1) / (2 sum
    caps))``; if that fails, the exact LP with the slack in every cap (``K`` sparse rows;
    it decides infeasibility). A vertex of the first LP has about ``1 / cap + m + 1``
    weights, a small start for the working set.
    """
    from scipy.optimize import linprog

    K = caps.size
    fin = np.isfinite(caps)
    m = A.shape[0]
    tot = float(caps[fin].sum()) if fin.all() else np.inf
    tau = 0.5 if not np.isfinite(tot) else min(0.5, max(tot - 1.0, 0.0) / (2.0 * tot))
    c = np.r_[np.zeros(K), -1.0]
    Aeq = np.r_[np.ones(K), 0.0][None, :]
    scale = 1.0 + float(np.abs(b).max()) if m else 1.0
    if tau > 0.0:
        hi = np.where(fin, (1.0 - tau) * caps, np.inf)
        res = linprog(c, A_ub=np.c_[A, np.ones(m)], b_ub=b, A_eq=Aeq, b_eq=[1.0],
                      bounds=np.c_[np.zeros(K + 1), np.r_[hi, 1.0]],
                      method="highs")
        if res.status == 0 and res.x[K] > 1e-9 * scale:
            v = np.clip(res.x[:K], 0.0, None)
            v /= v.sum()
            parts = [b - A @ v, caps[fin] - v[fin]]
            return v, float(np.min(np.concatenate(parts))) if m or fin.any() else 1.0
    from scipy import sparse

    idx = np.flatnonzero(fin)
    rows = [sparse.csr_matrix(np.c_[A, np.ones(m)])]
    rhs = [b]
    if idx.size:  # v_a + s <= caps_a: sparse rows
        rows.append(sparse.csr_matrix((np.ones(2 * idx.size),
                                       (np.r_[np.arange(idx.size), np.arange(idx.size)],
                                        np.r_[idx, np.full(idx.size, K)])),
                                      shape=(idx.size, K + 1)))
        rhs.append(caps[idx])
    res = linprog(c, A_ub=sparse.vstack(rows, format="csr"), b_ub=np.concatenate(rhs),
                  A_eq=Aeq, b_eq=[1.0], bounds=np.c_[np.r_[np.zeros(K), -np.inf],
                                                     np.r_[np.full(K, np.inf), 1.0]],
                  method="highs")
    if res.status == 2 or (res.status == 0 and res.x[K] < 0.0):
        raise ValueError("the constraints (caps, A_ub w <= b_ub, sum w = 1) are infeasible")
    if res.status != 0:  # pragma: no cover - HiGHS failure on a bounded LP
        raise RuntimeError(f"HiGHS could not find an interior point: {res.message}")
    v = np.clip(res.x[:K], 0.0, None)
    s_max = float(res.x[K]) if res.x[K] > 1e-9 * scale else 0.0
    return v / v.sum(), s_max


def capped_fill_max(h: np.ndarray, caps: np.ndarray) -> tuple[float, np.ndarray]:
    """``max {h.v : sum v = 1, 0 <= v <= caps}`` by the greedy fill in decreasing ``h``
    (exact), and the candidates the fill uses."""
    order = np.argsort(-h)
    room = caps[order]
    cum = np.cumsum(room)
    k = int(np.searchsorted(cum, 1.0))
    k = min(k, h.size - 1)
    take = room[:k + 1].copy()
    take[k] = 1.0 - (cum[k - 1] if k > 0 else 0.0)
    return float(np.dot(h[order[:k + 1]], take)), order[:k + 1]


def lagrangian_top(g: np.ndarray, caps: np.ndarray, A: np.ndarray, b: np.ndarray,
                   lam: np.ndarray) -> tuple[float, np.ndarray]:
    """Upper bound on ``max_P g.v`` from multipliers ``lam >= 0`` of ``A v <= b`` (weak
    duality), widened by the rounding of ``h = g - A^T lam`` and ``lam.b``; and the
    candidates of the inner fill."""
    lam = np.clip(lam, 0.0, None)
    h = g - A.T @ lam
    m = A.shape[0]
    slack_h = 2.0 * (m + 2) * _EPS * (np.abs(g) + np.abs(A).T @ lam)
    top, used = capped_fill_max(h + slack_h, caps)
    lb = float(lam @ b)
    return top + lb + 2.0 * (m + 2) * _EPS * (abs(top) + float(lam @ np.abs(b))), used


def _psi(X: np.ndarray, w: np.ndarray, M0: np.ndarray, crit: str, L: np.ndarray,
         hess: bool) -> tuple[float, np.ndarray, np.ndarray | None] | None:
    """``(Psi, g, Hessian)`` on the rows ``X`` (gradient of Psi is ``-g``); None if
    ``A(w)`` is not numerically PD."""
    Am = (X * w[:, None]).T @ X + M0
    try:
        C = np.linalg.cholesky(Am)
    except np.linalg.LinAlgError:
        return None
    Z = solve_triangular(C, X.T, lower=True, check_finite=False).T  # rows C^{-1} x_a
    G = Z @ Z.T if hess else None
    if crit == "d":
        psi = -2.0 * float(np.log(np.diag(C)).sum())
        g = np.einsum("ij,ij->i", Z, Z)
        return psi, g, (G * G if hess else None)
    Ci = solve_triangular(C, np.eye(C.shape[0]), lower=True, check_finite=False)
    Y = Z @ Ci  # rows (A^{-1} x_a)^T
    LY = Y @ L
    g = np.einsum("ij,ij->i", LY, Y)
    psi = float(np.einsum("ij,ij->", Ci @ L, Ci))  # tr(L A^{-1}) = tr(C^{-1} L C^{-T})
    return psi, g, (2.0 * (LY @ Y.T) * G if hess else None)


def barrier_solve(X: np.ndarray, M0: np.ndarray, crit: str, L: np.ndarray,
                  caps: np.ndarray, A: np.ndarray, b: np.ndarray, v0: np.ndarray,
                  slack0: float, tol: float, max_newton: int = 2000,
                  certify=None, certify_lp=None) -> BarrierResult:
    """The working-set barrier method of the module docstring.

    ``certify(w, lam)`` returns the certified gap (in the criterion's value units) of ``w``
    with multipliers ``lam``, ``certify_lp(w)`` the same with an LP's multipliers; the
    method stops when one is ``<= tol``, when a centring stalls (its line search finds no
    decrease: rounding at large ``t``) or after ``max_newton`` Newton steps.
    """
    K, d = X.shape
    m = A.shape[0]
    fin = np.isfinite(caps)
    # the working set: v0's support and the candidates of largest leverage
    Mu = (X.T @ X) / K + M0
    lev = np.einsum("ij,ij->i", X @ np.linalg.inv(Mu), X)
    inS = v0 > 0.0
    inS[np.argsort(-lev)[:min(K, 2 * d)]] = True
    S = np.flatnonzero(inS)
    w_full = _mix_inside(v0, S, caps, A, b, slack0)
    n_add = max(d, 10)
    steps = 0
    t = 0.0
    lam = np.zeros(m)
    stalled = False
    while True:
        XS, AS, cS, finS = X[S], A[:, S], caps[S], fin[S]
        w = w_full[S]
        if t == 0.0:
            st = _psi(XS, w, M0, crit, L, False)
            gap0 = float(max(st[1] @ w, 1e-300)) if st is not None else 1.0
            t = (S.size + finS.sum() + m) / gap0
        # centring (Newton with sum w = 1 eliminated)
        while steps < max_newton:
            st = _psi(XS, w, M0, crit, L, True)
            if st is None:  # pragma: no cover - the barrier keeps A(w) PD
                break
            psi, g, Hp = st
            sl = b - AS @ w
            cw = cS[finS] - w[finS]
            grad = -t * g - 1.0 / w + AS.T @ (1.0 / sl)
            grad[finS] += 1.0 / cw
            Hd = 1.0 / (w * w)
            Hd[finS] += 1.0 / (cw * cw)
            H = t * Hp + (AS.T * (1.0 / (sl * sl))) @ AS
            H[np.diag_indices_from(H)] += Hd
            try:
                cf = cho_factor(H, lower=True, check_finite=False)
            except np.linalg.LinAlgError:
                H[np.diag_indices_from(H)] += 1e-12 * np.abs(np.diag(H)).max()
                cf = cho_factor(H, lower=True, check_finite=False)
            one = np.ones(S.size)
            Hg, H1 = cho_solve(cf, grad, check_finite=False), cho_solve(cf, one,
                                                                         check_finite=False)
            nu = -float(one @ Hg) / float(one @ H1)
            dw = -(Hg + nu * H1)
            dec = -float(grad @ dw)
            steps += 1
            if dec <= 1e-6:  # centred enough: the certificate, not m/t, decides
                break
            # largest step inside the domain, then backtracking on the barrier function
            amax = 1.0
            neg = dw < 0
            if neg.any():
                amax = min(amax, float(np.min(-w[neg] / dw[neg])))
            Ad = AS @ dw
            pos = Ad > 0
            if pos.any():
                amax = min(amax, float(np.min(sl[pos] / Ad[pos])))
            dc = dw[finS]
            posc = dc > 0
            if posc.any():
                amax = min(amax, float(np.min(cw[posc] / dc[posc])))
            alpha = min(1.0, 0.99 * amax)
            f0 = t * psi - _logsum(w, sl, cw)
            while alpha > 1e-14:
                wn = w + alpha * dw
                sln = b - AS @ wn
                cwn = cS[finS] - wn[finS]
                if np.all(wn > 0) and np.all(sln > 0) and np.all(cwn > 0):
                    stn = _psi(XS, wn, M0, crit, L, False)
                    if stn is not None and t * stn[0] - _logsum(wn, sln, cwn) \
                            <= f0 - 0.25 * alpha * dec:
                        break
                alpha *= 0.5
            if alpha <= 1e-14:
                stalled = True
                break
            w = wn
        sl = b - AS @ w
        lam = 1.0 / (t * sl)
        w_full = np.zeros(K)
        w_full[S] = w
        gfull = _psi(X, w_full, M0, crit, L, False)[1]
        top, used = lagrangian_top(gfull, caps, A, b, lam)
        new = used[~inS[used]]
        if new.size:  # is the gap from outside S (pricing) or from t (centring)?
            top_S = lagrangian_top(gfull[S], caps[S], A[:, S], b, lam)[0]
            gw = float(gfull @ w_full)
            if top - top_S <= 0.5 * max(top_S - gw, 0.0):
                new = new[:0]
        if new.size:  # price: the fill leaves S; add the best outside candidates
            h = gfull - A.T @ lam
            out = np.flatnonzero(~inS)
            add = out[np.argsort(-h[out])[:max(n_add, new.size)]]
            inS[add] = True
            S = np.flatnonzero(inS)
            w_full = _mix_inside(w_full, S, caps, A, b, None)
            if steps < max_newton:
                continue
        if certify is not None and certify(w_full, lam) <= tol:
            break
        # the barrier's own gap (sum of the m_total slacks' multipliers over t, psi units)
        # below tol: the multipliers, not w, limit the certificate; ask the LP's
        m_total = S.size + int(finS.sum()) + m
        if certify_lp is not None and (stalled or m_total / t <= 0.1 * tol * gw_scale(
                gfull, w_full)) and certify_lp(w_full) <= tol:
            break
        if steps >= max_newton or stalled:
            break
        if not new.size:
            t *= 10.0
    return BarrierResult(w_full, lam, steps, int(S.size))


def gw_scale(g: np.ndarray, w: np.ndarray) -> float:
    """``g.w`` (``d`` for D without fixed runs, the value for A/I): the scale that turns a
    relative gap into the criterion's convex form."""
    return max(float(g @ w), 1e-300)


def _logsum(w: np.ndarray, sl: np.ndarray, cw: np.ndarray) -> float:
    return float(np.log(w).sum() + np.log(sl).sum() + np.log(cw).sum())


def _mix_inside(v: np.ndarray, S: np.ndarray, caps: np.ndarray, A: np.ndarray,
                b: np.ndarray, slack: float | None) -> np.ndarray:
    """``(1 - theta) v + theta u`` with ``u`` uniform on ``S``: positive on ``S`` and
    strictly inside ``A w <= b`` and the caps (``v`` strictly inside, with common slack
    ``slack`` if known)."""
    u = np.zeros(v.size)
    u[S] = 1.0 / S.size
    fin = np.isfinite(caps)
    if slack is None:
        parts = [b - A @ v]
        if fin.any():
            parts.append(caps[fin] - v[fin])
        parts = np.concatenate(parts)
        slack = float(parts.min()) if parts.size else np.inf  # no constraint but w >= 0
    viol = max(float(np.max(A @ u - b)) if A.shape[0] else 0.0,
               float(np.max(u[fin] - caps[fin])) if fin.any() else 0.0, 0.0)
    theta = (0.5 if not np.isfinite(slack) else min(0.5, 0.5 * slack / (slack + viol))) \
        if slack > 0 else 0.0
    theta = max(theta, 0.0)
    if theta == 0.0:  # pragma: no cover - the caller only mixes strictly feasible points
        return v
    return (1.0 - theta) * v + theta * u
