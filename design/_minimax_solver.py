"""Working-set barrier solver and certificates for weighted minimax designs.

Internal module behind :mod:`design.minimax`. Problem (targets already multiplied by
``sqrt(c_j)``)::

    rho* = min_{lam in simplex} max_j  y_j^T A(lam)^{-1} y_j,   A(lam) = sum_a lam_a x_a x_a^T.

Certificate (general equivalence theorem, proof in :func:`cs_lower_bound`): for any design
``lam`` with ``A = A(lam)`` invertible and any probability measure ``mu`` on the targets,
with ``B = sum_j mu_j y_j y_j^T``::

    rho* >= tr(A^{-1} B)^2 / max_a x_a^T A^{-1} B A^{-1} x_a.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg.lapack import dpotrf, dpotrs, dtrtri

from design import _minimax_numba as kern

# ----------------------------------------------------------------------------------------
# targets: explicit rows or implicit pairwise differences
# ----------------------------------------------------------------------------------------

_BLOCK = 1 << 15  # rows per block in explicit full passes (bounds the temporaries)


@dataclass
class Targets:
    """Target set of a minimax problem, explicit or implicit.

    * explicit: ``rows`` (M, d) are the (scaled) targets; ``orig`` maps each row to the
      user's index (after dropping zero rows and duplicates).
    * pairs: the targets are ``sqrt(scale) (pts_i - pts_j)`` for all ``i < j``; the id of a
      pair is ``i * K + j``. Nothing of size O(K^2) is ever stored.
    """

    d: int
    rows: np.ndarray | None = None
    orig: np.ndarray | None = None
    pts: np.ndarray | None = None
    scale: float = 1.0

    @property
    def is_pairs(self) -> bool:
        return self.pts is not None

    @property
    def count(self) -> int:
        if self.pts is not None:
            K = self.pts.shape[0]
            return K * (K - 1) // 2
        return self.rows.shape[0]

    def get(self, ids: np.ndarray) -> np.ndarray:
        """Explicit (n, d) rows of the targets with the given ids."""
        ids = np.asarray(ids, dtype=np.int64)
        if self.pts is None:
            return np.ascontiguousarray(self.rows[ids])
        K = self.pts.shape[0]
        i, j = ids // K, ids % K
        return np.ascontiguousarray((self.pts[i] - self.pts[j]) * np.sqrt(self.scale))

    def user_ids(self, ids: np.ndarray) -> np.ndarray:
        """Indices in the user's terms: rows of ``Y`` or an (n, 2) array of arm pairs."""
        ids = np.asarray(ids, dtype=np.int64)
        if self.pts is None:
            return self.orig[ids]
        K = self.pts.shape[0]
        return np.stack([ids // K, ids % K], axis=1)

    def scan(self, Linv: np.ndarray, cap: int, keep_above: float
             ) -> tuple[float, int, np.ndarray, np.ndarray]:
        """Full pass: ``(vmax, argmax id, ids, values)`` of the ``cap`` largest values above
        ``keep_above`` (ids sorted by decreasing value).

        Time O(M d^2) for explicit targets (BLAS, in blocks of 32768 rows) and O(K^2 d) for
        implicit pairs (:func:`pair_scan`, no pair stored); extra memory O(block d + cap).
        """
        if self.pts is not None:
            vmax, arg, ids, vals = pair_scan(self.pts @ Linv.T, self.scale, cap, keep_above)
        else:
            M = self.rows.shape[0]
            vmax, arg = -1.0, 0
            id_parts: list[np.ndarray] = []
            val_parts: list[np.ndarray] = []
            LT = np.ascontiguousarray(Linv.T)
            for s in range(0, M, _BLOCK):
                T = self.rows[s:s + _BLOCK] @ LT
                v = np.einsum("ij,ij->i", T, T)
                k = int(np.argmax(v))
                if v[k] > vmax:
                    vmax, arg = float(v[k]), s + k
                if cap > 0:
                    sel = np.flatnonzero(v > keep_above)
                    if sel.size > cap:
                        sel = sel[np.argpartition(v[sel], -cap)[-cap:]]
                    id_parts.append(sel + s)
                    val_parts.append(v[sel])
            if id_parts:
                ids = np.concatenate(id_parts)
                vals = np.concatenate(val_parts)
                if ids.size > cap:
                    keep = np.argpartition(vals, -cap)[-cap:]
                    ids, vals = ids[keep], vals[keep]
            else:
                ids, vals = np.empty(0, np.int64), np.empty(0)
        order = np.argsort(-vals, kind="stable")
        return float(vmax), int(arg), ids[order].astype(np.int64), vals[order]


_PAIR_BLOCK = 1 << 18  # differences (entries of d-vectors) per block of pair_scan


def pair_scan(P: np.ndarray, scale: float, cap: int, keep_above: float
              ) -> tuple[float, int, np.ndarray, np.ndarray]:
    """Values ``scale * ||P_i - P_j||^2`` of all pairs ``i < j`` without storing them all.

    With ``P = X Linv^T`` this is ``scale * (x_i - x_j)^T A^{-1} (x_i - x_j)``, each from
    its difference vector. Rows ``i`` are taken in blocks (``O(K^2 d)`` time, memory
    ``O(block + cap)``). Returns the maximum, the id ``i K + j`` of its first pair (in the
    order of ``i``, then ``j``), and the ids and values of the ``cap`` largest values above
    ``keep_above`` (unsorted). numpy, not a numba kernel (0.3 s of compile on the first
    XY design; issue 16).
    """
    K, d = P.shape
    vmax, arg = -1.0, 1
    ids, vals = np.empty(0, np.int64), np.empty(0)
    rows = max(1, _PAIR_BLOCK // max(1, K * d))
    for i0 in range(0, K - 1, rows):
        i1 = min(K - 1, i0 + rows)
        D = P[i0:i1, None, :] - P[None, i0 + 1:, :]  # (b, K - i0 - 1, d): j = i0 + 1 + c
        V = np.einsum("abk,abk->ab", D, D)
        V *= scale
        # j > i only: in row a (i = i0 + a) the columns c < a are pairs already seen
        V[np.tri(i1 - i0, K - i0 - 1, -1, dtype=bool)] = -np.inf
        top = int(np.argmax(V))
        if V.flat[top] > vmax:
            a, c = divmod(top, V.shape[1])
            vmax, arg = float(V.flat[top]), (i0 + a) * K + i0 + 1 + c
        if cap > 0:
            sel = np.flatnonzero(V > keep_above)
            if sel.size:
                a, c = np.divmod(sel, V.shape[1])
                ids = np.concatenate([ids, (i0 + a) * K + i0 + 1 + c])
                vals = np.concatenate([vals, V.ravel()[sel]])
                if vals.size > cap:
                    keep = np.argpartition(vals, -cap)[-cap:]
                    ids, vals = ids[keep], vals[keep]
    return vmax, int(arg), ids.astype(np.int64), vals


def dedupe_rows(Y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Drop zero rows and duplicates up to sign (``y`` and ``-y`` give the same term).

    Returns ``(rows, orig)`` with ``rows[i] = +-Y[orig[i]]`` and the sign chosen so that the
    first non-zero entry is positive. O(M d + M log M) time: rows are bucketed by a random
    projection and equal projections are compared exactly.
    """
    nz = np.flatnonzero(np.any(Y != 0.0, axis=1))
    if nz.size == 0:
        return np.empty((0, Y.shape[1])), np.empty(0, np.int64)
    R = Y[nz]
    first = np.argmax(R != 0.0, axis=1)
    sign = np.sign(R[np.arange(R.shape[0]), first])
    R = R * sign[:, None] + 0.0  # + 0.0 turns -0.0 into 0.0
    rng = np.random.default_rng(12345)
    h = (R * rng.standard_normal(R.shape[1])).sum(axis=1)
    order = np.argsort(h, kind="stable")
    hs = h[order]
    dup = np.zeros(R.shape[0], dtype=bool)
    cand = np.flatnonzero(hs[1:] == hs[:-1]) + 1
    if cand.size:
        same = np.all(R[order[cand]] == R[order[cand - 1]], axis=1)
        dup[order[cand[same]]] = True
    keep = np.flatnonzero(~dup)
    return np.ascontiguousarray(R[keep]), nz[keep]


# ----------------------------------------------------------------------------------------
# certificates
# ----------------------------------------------------------------------------------------


def factor(X: np.ndarray, w: np.ndarray) -> np.ndarray | None:
    """``Linv`` with ``A(w)^{-1} = Linv^T Linv``, or None if ``A(w)`` is singular.

    The test of the jitted :func:`design._minimax_numba.inverse_factor` (a Cholesky pivot
    ``L_jj^2 <= PIVOT_RTOL A_jj`` means singular), computed with LAPACK (``dpotrf``,
    ``dtrtri``): from Python this needs no compiled kernel (issue 16).
    """
    A = (X.T * w) @ X
    L, info = dpotrf(A, lower=1, clean=1)
    if info != 0 or (L.diagonal() ** 2 <= kern.PIVOT_RTOL * np.abs(A.diagonal())).any():
        return None
    Linv, info = dtrtri(L, lower=1)
    if info != 0:  # pragma: no cover - L has a positive diagonal
        return None
    return Linv


def target_values(Linv: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """``v_j = y_j^T A^{-1} y_j = ||Linv y_j||^2`` for the rows of ``Y``."""
    T = Y @ Linv.T
    return np.einsum("ij,ij->i", T, T)


def cs_lower_bound(X: np.ndarray, Linv: np.ndarray, Yj: np.ndarray, mu: np.ndarray
                   ) -> tuple[float, np.ndarray, float]:
    """Cauchy–Schwarz lower bound of the minimax optimum from a design and a target measure.

    Let ``A = A(lam)`` (given by ``A^{-1} = Linv^T Linv``), ``mu`` a probability vector on
    the targets ``Yj`` and ``B = sum_j mu_j y_j y_j^T``. For any other design ``lam'`` with
    ``A' = A(lam')`` invertible, the Cauchy–Schwarz inequality for the trace inner product
    applied to ``U = A'^{1/2} A^{-1} B^{1/2}`` and ``V = A'^{-1/2} B^{1/2}`` (so that
    ``tr(U^T V) = tr(A^{-1} B)``) gives::

        tr(A^{-1} B)^2 <= tr(A^{-1} B A^{-1} A') tr(A'^{-1} B),

    and ``tr(A^{-1} B A^{-1} A') = sum_a lam'_a g_a <= max_a g_a`` with
    ``g_a = x_a^T A^{-1} B A^{-1} x_a = sum_j mu_j (y_j^T A^{-1} x_a)^2``. Since a maximum
    dominates an average, ``max_j y_j^T A'^{-1} y_j >= tr(A'^{-1} B)``, so for every
    ``lam'``::

        max_j y_j^T A(lam')^{-1} y_j >= tr(A^{-1} B)^2 / max_a g_a.

    The bound is tight at a saddle point: if ``lam*`` is optimal there is a ``mu*`` on the
    active targets with ``max_a g_a = tr(A^{-1} B) = rho*`` (equivalence theorem for the
    linear criterion ``tr(A^{-1} B)``, Pukelsheim 2006, Thm. 7.19 / Kiefer 1974).

    Returns ``(lb, g, tr)`` with ``g`` of length K.
    """
    W = Yj @ (Linv.T @ Linv)  # rows A^{-1} y_j
    tr = float(np.einsum("ij,ij->i", W, Yj) @ mu)
    g = np.zeros(X.shape[0])
    for s in range(0, X.shape[0], 4096):
        Z = W @ X[s:s + 4096].T
        g[s:s + 4096] = mu @ (Z * Z)
    gmax = float(g.max())
    lb = tr * tr / gmax if gmax > 0.0 else 0.0
    return lb, g, tr


def lp_measure(X: np.ndarray, Linv: np.ndarray, Yj: np.ndarray, vj: np.ndarray,
               arms: np.ndarray | None = None, rounds: int = 6) -> np.ndarray | None:
    """Target measure making the Cauchy–Schwarz bound (nearly) tight at a given design.

    Solves the LP ``max sum_j v_j nu_j  s.t.  sum_j nu_j (y_j^T A^{-1} x_a)^2 <= 1 for all
    arms a, nu >= 0`` (HiGHS) and returns ``mu = nu / sum(nu)``. When the design is optimal
    and the ``v_j`` are equal on ``Yj`` (the active set), the optimal ``mu*`` is feasible up
    to scale and the bound equals the optimum. The arm constraints are generated lazily
    (cutting planes, starting from ``arms``): only arms whose constraint binds are ever in
    the LP. Returns None if the LP fails.
    """
    from scipy.optimize import linprog

    K = X.shape[0]
    W = Yj @ (Linv.T @ Linv)
    scale = float(vj.max())
    R = np.arange(K) if arms is None or arms.size == 0 else np.unique(arms)
    mu = None
    for _ in range(rounds):
        Q = (X[R] @ W.T) ** 2  # (|R|, n)
        try:
            res = linprog(-vj / scale, A_ub=Q * scale, b_ub=np.ones(R.size),
                          bounds=(0.0, None), method="highs")
        except ValueError:
            return mu
        if res.x is None or not np.all(np.isfinite(res.x)) or res.x.sum() <= 0.0:
            return mu
        nu = np.clip(res.x, 0.0, None)
        mu = nu / nu.sum()
        if R.size == K:
            break
        # price all arms; add the violated constraints
        g = np.empty(K)
        for s in range(0, K, 4096):
            Z = W @ X[s:s + 4096].T
            g[s:s + 4096] = mu @ (Z * Z)
        gR = float(g[R].max())
        viol = np.flatnonzero(g > gR * (1.0 + 1e-9))
        if viol.size == 0:
            break
        viol = viol[np.argsort(-g[viol])[: max(20, R.size // 2)]]
        R = np.union1d(R, viol)
    return mu


@dataclass
class Certified:
    """Value, certified lower bound and the target measure that proves it."""

    value: float
    lb: float
    arg: int  # target id attaining the value
    ids: np.ndarray  # target ids carrying the measure
    mu: np.ndarray  # the measure (sums to one)
    g: np.ndarray  # g_a for all arms with that measure
    tr: float

    @property
    def gap(self) -> float:
        return self.value / self.lb - 1.0 if self.lb > 0.0 else np.inf


def certify(X: np.ndarray, w: np.ndarray, targets: Targets, tol: float,
            hint_ids: np.ndarray | None = None, hint_mu: np.ndarray | None = None,
            *, lp: bool = True, lp_cap: int | None = None, Linv: np.ndarray | None = None
            ) -> Certified | None:
    """Exact value and best certified lower bound of the design ``w``.

    The value is a full pass over all targets. Lower-bound candidates, best kept:
    the hint measure (e.g. the barrier multipliers), the point mass on the argmax, and
    (if ``lp`` and those do not reach ``tol``) the LP measure (:func:`lp_measure`) on the
    near-active targets ``v_j >= (1 - eta) value`` for a few ``eta``, at most ``lp_cap``
    of them. Returns None if ``A(w)`` is singular.
    """
    K, d = X.shape
    if lp_cap is None:
        lp_cap = max(200, d * (d + 1))
    if Linv is None:
        Linv = factor(X, w)
        if Linv is None:
            return None
    vmax, arg, ids, vals = targets.scan(Linv, lp_cap, -1.0)
    best: Certified | None = None

    def consider(idj: np.ndarray, mu: np.ndarray) -> None:
        nonlocal best
        keep = mu > 0.0
        idj, mu = idj[keep], mu[keep] / mu[keep].sum()
        lb, g, tr = cs_lower_bound(X, Linv, targets.get(idj), mu)
        if best is None or lb > best.lb:
            best = Certified(vmax, lb, arg, idj, mu, g, tr)

    if hint_ids is not None and hint_mu is not None and hint_mu.sum() > 0:
        consider(hint_ids, hint_mu)
    consider(np.array([arg], dtype=np.int64), np.ones(1))
    if best.gap <= tol or not lp:
        return best
    tried = -1
    for eta in (max(1e-3, 20.0 * tol), 0.05, 0.3):
        n = int(np.searchsorted(-vals, -(1.0 - eta) * vmax, side="right"))
        n = max(n, 1)
        if n == tried:
            continue
        tried = n
        g = best.g
        arms = np.union1d(np.flatnonzero(w > 0.0),
                          np.argsort(-g)[: min(K, max(2 * d, 20))])
        mu = lp_measure(X, Linv, targets.get(ids[:n]), vals[:n], arms)
        if mu is not None:
            consider(ids[:n], mu)
        if best.gap <= tol:
            break
    return best


# ----------------------------------------------------------------------------------------
# primal-dual interior-point method (Mehrotra predictor-corrector), numpy / LAPACK
# ----------------------------------------------------------------------------------------


def _whitened(X: np.ndarray, Y: np.ndarray, lam: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray] | None:
    """``(Linv, T)``: ``A(lam)^{-1} = Linv^T Linv`` and the whitened targets ``T = Y Linv^T``
    (rows ``t_j = L^{-1} y_j``, ``v_j = |t_j|^2``); None if ``A(lam)`` is singular (the rule
    of :func:`factor`)."""
    A = (X.T * lam) @ X
    L, info = dpotrf(A, lower=1, clean=1)
    dg = L.diagonal()
    if info != 0 or not (dg * dg > kern.PIVOT_RTOL * np.abs(A.diagonal())).all():
        return None
    Linv, info = dtrtri(L, lower=1)
    if info != 0:  # pragma: no cover - L has a positive diagonal
        return None
    return Linv, Y @ Linv.T


def _newton_factor(H: np.ndarray) -> np.ndarray | None:
    """Lower Cholesky factor of the Newton matrix ``H`` (lower triangles read and returned:
    the upper one is not cleaned, :func:`dpotrs` does not read it), retried on
    ``H + shift I`` with ``shift = 1e-14 max_a H_aa`` multiplied by 100 after each failure
    (12 retries); a pivot ``L_jj^2 <= PIVOT_RTOL M_jj`` is a failure. None if all fail."""
    dg = H.diagonal().copy()
    shift = 0.0
    for attempt in range(13):
        if attempt == 1:
            shift = 1e-14 * max(float(dg.max()), 0.0)
        elif attempt > 1:
            shift *= 100.0
        M = H
        if attempt > 0:
            M = H.copy()
            M.ravel()[::M.shape[0] + 1] = dg + shift
        L, info = dpotrf(M, lower=1, clean=0)
        ld = L.diagonal()
        if info == 0 and (ld * ld > kern.PIVOT_RTOL * np.abs(M.diagonal())).all():
            return L
    return None


def primal_dual(X: np.ndarray, Y: np.ndarray, lam: np.ndarray, u: np.ndarray,
                nu: np.ndarray, tol: float, max_iter: int, gamma: float = 1e-3
                ) -> tuple[int, int, float, float]:
    """Primal-dual interior-point method for ``min sum(lam) s.t. v_j(lam) <= 1, lam >= 0``.

    Perturbed KKT system (``s_j = 1 - v_j(lam) > 0`` kept exactly, duals ``u, nu > 0``)::

        1 - sum_j u_j q_j - nu = 0,   u_j s_j = sigma,   nu_a lam_a = sigma,

    with ``q_ja = z_ja^2 = -d v_j / d lam_a``. Eliminating ``du, dnu`` leaves the
    ``k x k`` system ``M dlam = -1 + sum_j q_j sigma'_j / s_j + sigma'_a / lam_a``,
    ``M = 2 G o (Z^T diag(u) Z) + Q^T diag(u / s) Q + diag(nu / lam)``; Mehrotra's
    predictor-corrector chooses ``sigma`` (with a centring floor after a short step).
    Primal steps keep ``lam > 0`` and the *exact* ``s > 0`` (backtracking) and stay in
    the wide neighbourhood ``min(u_j s_j, nu_a lam_a) >= gamma * average``; dual steps use
    the fraction-to-boundary rule.

    Everything is computed in the basis whitened by the Cholesky factor ``A = L L^T``: with
    ``t_j = L^{-1} y_j`` and ``r_a = L^{-1} x_a``, ``v_j = |t_j|^2``, ``z_ja = t_j . r_a``,
    ``G_ab = r_a . r_b`` and ``Z^T diag(u) Z = R B_w R^T``, ``B_w = sum_j u_j t_j t_j^T``
    (rank ``<= d``: ``O(m d^2 + k^2 d)``); its diagonal is the denominator of the
    certificate. Stops when the restricted certificate (value ``sum(lam) max_j v_j``,
    bound ``(sum_j mu_j v_j)^2 / max_a sum_j mu_j z_ja^2``, ``mu = u / sum(u)``) has
    relative gap ``<= tol``. ``lam`` (strictly feasible), ``u`` (> 0) and ``nu`` (> 0) are
    updated in place. Returns ``(status, iterations, value, lb)``.

    The slacks ``x = (s, lam)`` and the duals ``y = (u, nu)`` are stacked (``dx = (Q; I)
    dlam``), so that each vector operation of a step is one numpy call. numpy and LAPACK,
    not numba: its products are BLAS-3, and a jitted version of this loop cost about 2.5 s
    of CPU to compile on a user's first call of every XY/H design (and of the static,
    phased and logistic bandits); warm, this version has about 0.1 ms of interpreter
    overhead per step (issue 16, docs/choices.md).
    """
    k = X.shape[0]
    m = Y.shape[0]
    mk = m + k
    value, lb, it, floor = np.inf, 0.0, 0, 0.0
    first = _whitened(X, Y, lam)
    if first is None:
        return kern.SINGULAR, 0, value, lb
    Linv, T = first
    v = np.einsum("ij,ij->i", T, T)
    x = np.concatenate((1.0 - v, lam))  # slacks (s, lam)
    y = np.concatenate((u, nu))  # duals (u, nu)
    xt = np.empty(mk)
    QI = np.zeros((mk, k))  # (Q; I): the slacks' change dx = QI dlam
    QI[m:] = np.eye(k)
    Q = QI[:m]
    minus_one = np.full(k, -1.0)
    status = kern.MAX_ITER
    while True:
        # near the rounding level the slacks (or duals) can reach 0 although the line
        # search kept them positive: stop (the caller certifies the last iterate)
        if not (x.min() > 0.0 and y.min() > 0.0):
            status = kern.STALLED
            break
        R = X @ Linv.T  # rows r_a = L^{-1} x_a
        Z = T @ R.T  # z_ja = t_j . r_a
        np.multiply(Z, Z, out=Q)  # q_ja = z_ja^2
        yu = y[:m]
        RB = R @ ((T.T * yu) @ T)  # R B_w, B_w = sum_j u_j t_j t_j^T
        su = float(yu.sum())
        gmax = float(np.einsum("ai,ai->a", RB, R).max())  # max_a sum_j u_j z_ja^2
        tr = float(yu @ v)
        value = max(float(v.max()), 0.0) * float(x[m:].sum())
        lb = (tr / su) * (tr / su) / (gmax / su) if su > 0.0 and gmax > 0.0 else 0.0
        if lb > 0.0 and value <= lb * (1.0 + tol):
            status = kern.CONVERGED
            break
        if it >= max_iter:
            break
        # Newton matrix 2 G o (R B_w R^T) + Q^T diag(u / s) Q + diag(nu / lam)
        H = R @ R.T
        H *= RB @ R.T
        H *= 2.0
        ratio_yx = y / x
        H += Q.T @ (Q * ratio_yx[:m, None])
        H.ravel()[::k + 1] += ratio_yx[m:]  # H is a new C-contiguous array: a view
        Lh = _newton_factor(H)
        if Lh is None:
            status = kern.SINGULAR
            break
        comp = float(y @ x)
        if not comp > 0.0:
            status = kern.STALLED
            break
        # predictor (no centring terms): M dlam = -1, dy = -y (x + dx) / x
        dl = dpotrs(Lh, minus_one, lower=1)[0]
        dx = QI @ dl
        dy = -y * (x + dx) / x
        rp, rd = float((dx / x).min()), float((dy / y).min())
        ap = min(1.0, -1.0 / rp) if rp < 0.0 else 1.0
        ad = min(1.0, -1.0 / rd) if rd < 0.0 else 1.0
        ratio = float((y + ad * dy) @ (x + ap * dx)) / comp
        # corrector: centring terms c = sigma - dx_aff dy_aff (Mehrotra's sigma, with a
        # floor after a short step), M dlam = -1 + QI^T (c / x), dy = (c - y (x + dx)) / x
        cx = (max(ratio * ratio * ratio, floor) * comp / mk - dx * dy) / x
        rhs = cx @ QI
        rhs -= 1.0
        dl = dpotrs(Lh, rhs, lower=1)[0]
        dx = QI @ dl
        dy = cx - y * (x + dx) / x
        # fraction to the boundary: x + t dx >= 0 up to t = -1 / min(dx / x)
        rp, rd = float((dx / x).min()), float((dy / y).min())
        ap = min(1.0, -0.995 / rp) if rp < 0.0 else 1.0
        ad = min(1.0, -0.995 / rd) if rd < 0.0 else 1.0
        # exact feasibility of the primal step (v is convex: s may fall below its
        # linearisation), and the wide neighbourhood min_i (y_i x_i) >= gamma * average
        ok = False
        for _ in range(60):
            lam_t = x[m:] + ap * dl
            trial = _whitened(X, Y, lam_t) if lam_t.min() > 0.0 else None
            if trial is not None:
                vt = np.einsum("ij,ij->i", trial[1], trial[1])
                xt[:m] = 1.0 - vt
                xt[m:] = lam_t
                p = (y + ad * dy) * xt
                if vt.max() < 1.0 and p.min() >= gamma * p.sum() / mk:
                    ok = True
                    break
            ap *= 0.5
            ad *= 0.5
        it += 1
        if not ok:
            status = kern.STALLED
            break
        floor = 0.0 if ap > 0.2 else (0.1 if ap > 0.05 else 0.5)
        x, xt = xt, x
        y += ad * dy
        (Linv, T), v = trial, vt
    lam[:] = x[m:]
    u[:] = y[:m]
    nu[:] = y[m:]
    return status, it, value, lb


# ----------------------------------------------------------------------------------------
# working-set interior-point solver
# ----------------------------------------------------------------------------------------


def _spanning_arms(X: np.ndarray) -> np.ndarray:
    """``d`` arms spanning R^d (column-pivoted QR of ``X^T``)."""
    from scipy.linalg import qr

    _, _, piv = qr(X.T, pivoting=True, mode="economic")
    return np.sort(piv[: X.shape[1]])


class _Inner:
    """Restricted-problem solver state: the primal-dual kernel (default) or the barrier."""

    def __init__(self, kind: str, growth: float = 10.0) -> None:
        self.kind = kind
        self.growth = growth  # barrier: factor on tau once centred
        self.tau = -1.0  # barrier state kept for warm restarts
        self.u = np.empty(0)  # primal-dual multipliers kept for warm restarts
        self.nu = np.empty(0)

    def run(self, Xs: np.ndarray, Yt: np.ndarray, lam: np.ndarray, tol: float,
            budget: int, warm: bool) -> tuple[int, int, np.ndarray]:
        """Solve from ``lam`` (rescaled in place to be strictly feasible); returns
        ``(status, iterations, mu)`` with ``mu`` the target measure (sums to one)."""
        m, k = Yt.shape[0], Xs.shape[0]
        if not warm and self.kind == "pd":
            # interior-point methods hate starting next to the boundary: cold start from
            # the uniform design on the working arms (measured: ~8x fewer iterations than
            # restarting from the previous, nearly sparse, design)
            lam[:] = 1.0 / k
        Linv = factor(Xs, lam)
        if Linv is None:  # pragma: no cover - S spans
            raise RuntimeError("working-set information matrix became singular")
        v = target_values(Linv, Yt)
        vmax = max(float(v.max()), 1e-300)
        if not warm or vmax >= 0.95:
            # rescale into the interior of {v_j(lam) <= 1}: max_j v_j = 0.95
            scale = vmax / 0.95
            lam *= scale
            v /= scale
            warm = False
        if self.kind == "barrier":
            u = np.empty(m)
            tau = self.tau if warm else -1.0
            status, its, self.tau, _, _ = kern.barrier_newton(Xs, Yt, lam, tau, tol, budget,
                                                             u, self.growth)
            return status, its, u
        if not warm:
            tau = (m + k) / lam.sum()
            self.u = 1.0 / (tau * (1.0 - v))
            self.nu = 1.0 / (tau * lam)
        from design._gd_batch import blas_threads

        with blas_threads(1):  # small products: BLAS threads only cost (wake-ups)
            status, its, _, _ = primal_dual(Xs, Yt, lam, self.u, self.nu, tol, budget)
        return status, its, self.u / self.u.sum()


def solve_ipm(X: np.ndarray, targets: Targets, tol: float, max_iter: int, *,
              inner: str = "pd", arms_all: int | None = None,
              targets_all: int | None = None, batch: int | None = None,
              init_arms: int | None = None, init_targets: int | None = None
              ) -> tuple[np.ndarray, Certified | None, int, dict]:
    """Working-set interior-point solver; returns ``(weights, certificate, iterations, info)``.

    Outer loop (column and constraint generation):

    1. solve the problem restricted to the working arms ``S`` and targets ``T`` with the
       primal-dual method (:func:`primal_dual`; or the jitted pure barrier kernel if
       ``inner="barrier"``);
    2. full pass over *all* targets at the new design: add the targets that violate the
       restricted optimum (largest ``v_j`` first) and go back to 1;
    3. price the arms outside ``S`` with the restricted multipliers ``mu``: an arm with
       ``g_a = sum_j mu_j (y_j^T A^{-1} x_a)^2 > tr(A^{-1} B)`` would improve the restricted
       problem; certify against all targets and all arms (:func:`certify`) and stop if
       ``gap <= tol``; else add the violated targets and the best-priced arms, or, if
       there are none, tighten the inner tolerance and resume.

    Finally the design is sparsified (:func:`_polish`). ``arms_all`` / ``targets_all``:
    below these sizes the working set is everything; otherwise it starts with
    ``init_arms`` arms (a spanning set plus the largest leverages ``x^T A^{-1} x`` at the
    uniform design) and ``init_targets`` targets (largest values at that design), and
    grows by at most ``batch`` arms and targets per round.
    """
    K, d = X.shape
    M = targets.count
    if arms_all is None:
        arms_all = max(150, 4 * d)
    if targets_all is None:
        targets_all = max(600, 10 * d)
    if batch is None:
        batch = max(50, 5 * d)
    if init_arms is None:
        init_arms = 3 * d + 20
    if init_targets is None:
        init_targets = max(4 * batch, 100)
    solver = _Inner(inner)
    info: dict = {"rounds": 0}
    # --- initial working sets
    if K <= arms_all:
        S = np.arange(K)
    else:
        w0 = np.full(K, 1.0 / K)
        Linv0 = factor(X, w0)
        P0 = X @ Linv0.T
        lev = np.einsum("ij,ij->i", P0, P0)
        n0 = min(K, init_arms)
        S = np.union1d(_spanning_arms(X), np.argpartition(lev, -n0)[-n0:])
    w = np.zeros(K)
    w[S] = 1.0 / S.size
    Linv = factor(X, w)
    if Linv is None:  # pragma: no cover - S spans by construction
        raise RuntimeError("initial working set does not span R^d")
    if M <= targets_all:
        if targets.is_pairs:
            Kp = targets.pts.shape[0]
            ii, jj = np.triu_indices(Kp, 1)
            T = (ii * Kp + jj).astype(np.int64)
        else:
            T = np.arange(M, dtype=np.int64)
    else:
        _, _, T, _ = targets.scan(Linv, init_targets, -1.0)
    lam = w[S].copy()
    tol_in = 0.25 * tol
    total = 0
    cert: Certified | None = None
    status = kern.MAX_ITER
    warm = False
    while True:
        info["rounds"] += 1
        Xs = np.ascontiguousarray(X[S])
        Yt = targets.get(T)
        budget = max_iter - total
        if budget <= 0:
            break
        status, its, mu = solver.run(Xs, Yt, lam, tol_in, budget, warm)
        total += its
        # a SINGULAR/STALLED status leaves lam at the last feasible iterate: certify it
        w = np.zeros(K)
        w[S] = lam / lam.sum()
        Linv = factor(X, w)
        if Linv is None:  # pragma: no cover
            raise RuntimeError("information matrix of the design is singular")
        Tv = Yt @ Linv.T
        restricted_value = float(np.max(np.einsum("ij,ij->i", Tv, Tv)))
        # violated targets first: while there are any, the certificate can wait
        _, _, cand, _ = targets.scan(Linv, batch, restricted_value * (1.0 + 0.25 * tol))
        new_T = np.setdiff1d(cand, T)
        # pricing of the arms outside S with the restricted problem's own multipliers:
        # g_a > tr(A^{-1}B) means that moving weight to arm a improves the restricted
        # problem (the directional derivative of tr(A^{-1}B) is tr - g_a)
        _, g_in, tr_in = cs_lower_bound(X, Linv, Yt, mu)
        out = np.setdiff1d(np.arange(K), S)
        new_S = out[g_in[out] > tr_in * (1.0 + 0.25 * tol)]
        if new_S.size > batch:
            new_S = new_S[np.argsort(-g_in[new_S])[:batch]]
        # certificate; the LP fallback only when the working sets look complete
        cert = certify(X, w, targets, tol, hint_ids=T, hint_mu=mu, Linv=Linv,
                       lp=new_T.size == 0 and new_S.size == 0)
        if cert.gap <= tol or total >= max_iter:
            break
        if new_T.size == 0 and new_S.size == 0:
            if status in (kern.STALLED, kern.SINGULAR) or tol_in <= 1e-3 * tol:
                break
            tol_in *= 0.1
            warm = True
            continue
        warm = False
        if new_T.size:
            T = np.concatenate([T, new_T])
        if new_S.size:
            S_new = np.concatenate([S, new_S])
            lam = np.concatenate([lam, np.full(new_S.size, 1e-3 * lam.sum() / S.size)])
            order = np.argsort(S_new)
            S, lam = S_new[order], lam[order]
    info.update(working_arms=int(S.size), working_targets=int(T.size),
                status=int(status))
    if cert is not None and cert.gap <= tol:
        w, cert, total = _polish(X, targets, tol, max_iter, w, cert, S, lam, T, total,
                                 solver, info)
    return w, cert, total, info


def _polish(X: np.ndarray, targets: Targets, tol: float, max_iter: int, w: np.ndarray,
            cert: Certified, S: np.ndarray, lam: np.ndarray, T: np.ndarray, total: int,
            solver: _Inner, info: dict) -> tuple[np.ndarray, Certified, int]:
    """Sparsify an interior-point design: re-solve on the arms carrying real weight.

    Interior-point iterates keep every working arm at a small positive weight. Arms
    below ``1e-2 max(w)`` are dropped and the restricted problem is re-solved; arms that
    the new multipliers price as improving (``g_a > tr(A^{-1}B) (1 + tol/4)``) are put
    back, at most three times. The sparse design is kept only if its certificate (against
    all arms and all targets) is within ``tol``.
    """
    info["polished"] = False
    keep = lam >= 1e-2 * lam.max()
    if keep.all() or total >= max_iter:
        return w, cert, total
    S2 = S[keep]
    Yt = targets.get(T)
    for _ in range(4):
        Xs = np.ascontiguousarray(X[S2])
        if np.linalg.matrix_rank(Xs) < X.shape[1] or total >= max_iter:
            break
        lam2 = np.full(S2.size, 1.0 / S2.size)
        status, its, mu = solver.run(Xs, Yt, lam2, 0.25 * tol, max_iter - total, False)
        total += its
        w2 = np.zeros(X.shape[0])
        w2[S2] = lam2 / lam2.sum()
        Linv = factor(X, w2)
        if Linv is None:  # pragma: no cover
            break
        c2 = certify(X, w2, targets, tol, hint_ids=T, hint_mu=mu, Linv=Linv, lp=False)
        if c2.gap <= tol:
            info["polished"] = True
            return w2, c2, total
        _, g, tr = cs_lower_bound(X, Linv, Yt, mu)
        back = np.setdiff1d(np.flatnonzero(g > tr * (1.0 + 0.25 * tol)), S2)
        if back.size == 0:
            c2 = certify(X, w2, targets, tol, hint_ids=T, hint_mu=mu, Linv=Linv)
            if c2.gap <= tol:
                info["polished"] = True
                return w2, c2, total
            break
        S2 = np.union1d(S2, back)
    return w, cert, total
