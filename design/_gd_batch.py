"""Batched working-set solver of the G/D-optimal design, its rows source and its polish.

Internal module behind :mod:`design.gd` (``method="auto"``/``"fw"``). Three parts:

* :class:`ArmRows` -- the rows ``q_a`` of the well-conditioned basis ``X = Q R``, either
  stored (``Q``) or produced on the fly in blocks as ``x_a T`` with ``T = R^{-1}`` (the
  Cholesky-QR basis of :func:`design._validation.arm_basis`, which forms ``Q = X T`` by the
  same product): at ``K = 10^7`` this saves the copy of ``X`` that ``Q`` would be.
* :func:`solve` -- column generation over the candidates with a REX-style inner solver
  (Harman, Filová & Richtárik 2020): batches of vertex exchanges between the support and
  the arms of largest variance, ``O(d^2)`` each, with the variances of the working set
  recomputed by BLAS-3 products after each batch (instead of the ``O(|S| d)`` update of
  every variance after every exchange of the greedy kernel, which is kept for small working
  sets, ``|S| d <= 20000``, where it is faster).
* :func:`polish` -- a primal-dual interior-point method on the working set for
  ``max log det A(w)`` (equivalent to the G problem by Kiefer-Wolfowitz), converging
  quadratically to the precision that float64 allows.

Threads: everything runs with one BLAS thread (the numba exchange kernel is sequential, and
tall-skinny Gram products ``X^T X`` were measured 10-20x slower with two OpenBLAS threads
than with one on the shared, loaded 2-core machine), except the blocked full passes over the
candidates (:class:`ArmRows`) and the variances of a large working set, which split their
rows over ``threads`` Python threads, each calling a one-thread BLAS (``threads`` is the BLAS
setting on entry: run under ``threadpoolctl.threadpool_limits(1)`` for a single-threaded
solve); :func:`blas_threads` does the limiting (threadpoolctl).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from scipy.linalg import cholesky, solve_triangular

from design import _gd_numba as kern

_BLOCK_ROWS = 1 << 16  # rows per block of the full passes (bounds the temporaries)
_GREEDY_MAX = 20_000  # |S| d up to which the greedy kernel beats the batches (measured)
_POLISH_MAX = 2000  # working sets above this size are not polished (Newton is O(|S|^3))
_PAIR_FILTER = 0.3  # see _exchange_pairs (measured best of 0, 0.1, 0.3, 0.5, 0.7, 0.9 at d = 200)
_SCREEN_MARGIN = 1e-4  # relative safety margin of the single-precision screening passes

_controller = None


def _threadpool_controller():
    global _controller
    if _controller is None:
        from threadpoolctl import ThreadpoolController

        _controller = ThreadpoolController()
    return _controller


def max_threads() -> int:
    """BLAS threads available to the full passes (the current BLAS setting)."""
    info = [p["num_threads"] for p in _threadpool_controller().info()
            if p["user_api"] == "blas"]
    return max(info) if info else (os.cpu_count() or 1)


_limit = [0]  # the BLAS limit in force from an enclosing blas_threads block (0: none)


@contextlib.contextmanager
def blas_threads(n: int) -> Iterator[None]:
    """Limit the BLAS thread pools to ``n`` threads inside the block (threadpoolctl).

    Inside an enclosing block whose limit is already ``<= n`` nothing is changed: the
    limit is process-wide, and re-setting it costs about 10 us per block (a small design
    entered 30 such blocks per solve)."""
    n = int(n)
    if 0 < _limit[0] <= n:
        yield
        return
    outer = _limit[0]
    with _threadpool_controller().limit(limits=n, user_api="blas"):
        _limit[0] = n
        try:
            yield
        finally:
            _limit[0] = outer


_executors: dict = {}


def _executor(n: int):
    """A process-wide pool of ``n`` worker threads for the blocked passes (recreated in a
    forked child, which does not inherit the parent's threads)."""
    key = (os.getpid(), n)
    if key not in _executors:
        from concurrent.futures import ThreadPoolExecutor

        _executors[key] = ThreadPoolExecutor(n, thread_name_prefix="oed-gd")
    return _executors[key]


# ----------------------------------------------------------------------------------------
# rows of the basis
# ----------------------------------------------------------------------------------------


class ArmRows:
    """The rows ``q_a`` of ``Q`` (``X = Q R``), stored or computed in blocks as ``x_a T``.

    Parameters
    ----------
    src : ndarray (K, d)
        ``Q`` itself (``T is None``) or the arms ``X`` (then ``q_a = x_a T``).
    T : ndarray (d, d) or None
        ``R^{-1}`` of the Cholesky-QR basis (column scaling included).
    single : bool
        Keep a float32 copy of the candidates for the screening passes (half the memory
        traffic; only when ``Q`` is stored).
    """

    def __init__(self, src: np.ndarray, T: np.ndarray | None, single: bool = True,
                 threads: int | None = None) -> None:
        self.src = src
        self.threads = max_threads() if threads is None else threads
        self.T = T
        self.K, self.d = src.shape
        self._single = src.astype(np.float32) if (single and T is None) else None
        self._single_idx: np.ndarray | None = None
        self._sqnorms: np.ndarray | None = None

    def rows(self, idx: np.ndarray) -> np.ndarray:
        """Float64 rows ``q_a`` for the indices ``idx`` (a new C-contiguous array)."""
        if self.T is None:
            return np.ascontiguousarray(self.src[idx])
        return np.ascontiguousarray(self.src[idx] @ self.T)

    def _each_block(self, n: int, fn) -> None:
        """Call ``fn(slice)`` on the row blocks of ``range(n)``: on ``threads`` Python
        threads, each with a one-thread BLAS (numpy releases the GIL in the products), so
        that no BLAS thread spins waiting for another on a shared machine."""
        slices = [slice(s, min(n, s + _BLOCK_ROWS)) for s in range(0, n, _BLOCK_ROWS)]
        with blas_threads(1):
            if self.threads > 1 and len(slices) > 1:
                list(_executor(self.threads).map(fn, slices))
            else:
                for sl in slices:
                    fn(sl)

    def _q(self, blk: np.ndarray) -> np.ndarray:
        return blk if self.T is None else blk @ self.T

    def sqnorms(self) -> np.ndarray:
        """``||q_a||^2`` of every arm (one blocked pass, then cached)."""
        if self._sqnorms is not None:
            return self._sqnorms
        out = np.empty(self.K)
        self._sqnorms = out

        def fn(sl):
            Z = self._q(self.src[sl])
            out[sl] = np.einsum("ij,ij->i", Z, Z)

        self._each_block(self.K, fn)
        return out

    def restrict(self, cand: np.ndarray) -> None:
        """Keep the float32 screening copy only for the candidates ``cand`` (sorted, a
        subset of the previous candidates)."""
        if self._single is not None:
            pos = cand if self._single_idx is None else np.searchsorted(self._single_idx, cand)
            self._single = np.ascontiguousarray(self._single[pos])
            self._single_idx = cand

    def screen(self, cand: np.ndarray, Linv: np.ndarray) -> np.ndarray:
        """Approximate variances ``||Linv q_a||^2`` of the candidates (screening pass).

        float32 GEMM on the stored copy (relative error ~1e-6), or float64 blocks of
        ``x_a (T Linv^T)`` when the rows are produced on the fly. ``cand`` is all arms or
        the candidates of the last :meth:`restrict`.
        """
        out = np.empty(cand.size)
        if self._single is not None:
            src = self._single
            P = np.ascontiguousarray(Linv.T, dtype=np.float32)
        else:
            P = Linv.T if self.T is None else self.T @ Linv.T
            src = self.src if cand.size == self.K else None

        def fn(sl):
            blk = src[sl] if src is not None else self.src[cand[sl]]
            Z = blk @ P
            out[sl] = np.einsum("ij,ij->i", Z, Z)

        self._each_block(cand.size, fn)
        return out

    def certify_variances(self, Rwinv: np.ndarray) -> np.ndarray:
        """Variances ``||q_a Rw^{-1}||^2`` of all arms in float64, ``q_a`` formed exactly as
        in the basis (``x_a T``, then the product with ``Rw^{-1}``), in blocks."""
        out = np.empty(self.K)

        def fn(sl):
            Z = self._q(self.src[sl]) @ Rwinv
            out[sl] = np.einsum("ij,ij->i", Z, Z)

        self._each_block(self.K, fn)
        return out


# ----------------------------------------------------------------------------------------
# working-set state and the batched exchange solver
# ----------------------------------------------------------------------------------------


def _split_rows(n: int, threads: int, work: float, fn) -> None:
    """``fn(slice)`` over ``range(n)`` in ``threads`` parts on the worker threads when
    ``work`` (flops) is large enough to pay for the hand-off, else in one call."""
    if threads > 1 and work > 2e7 and n >= 2 * threads:
        step = -(-n // threads)
        list(_executor(threads).map(fn, [slice(s, min(n, s + step))
                                         for s in range(0, n, step)]))
    else:
        fn(slice(0, n))


def exact_state(Xs: np.ndarray, w: np.ndarray, threads: int = 1
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """``(Minv, omega, Linv)`` of the design ``w`` on the rows ``Xs``, from scratch (BLAS-3).

    ``M = B^T B`` with ``B = diag(sqrt(w_S)) Xs_S``, ``M = L L^T``, ``omega_a = ||L^{-1}
    x_a||^2``. ``None`` if ``M`` is not numerically positive definite.
    """
    d = Xs.shape[1]
    S = w > 0.0
    B = Xs[S] * np.sqrt(w[S])[:, None]
    M = B.T @ B
    try:
        L = cholesky(M, lower=True, check_finite=False)
    except np.linalg.LinAlgError:
        return None
    if not np.all(np.isfinite(L)) or np.min(np.abs(np.diag(L))) <= 0.0:
        return None
    Linv = solve_triangular(L, np.eye(d), lower=True, check_finite=False)
    om = np.empty(Xs.shape[0])
    LT = np.ascontiguousarray(Linv.T)

    def fn(sl):
        Z = Xs[sl] @ LT
        om[sl] = np.einsum("ij,ij->i", Z, Z)

    _split_rows(Xs.shape[0], threads, Xs.shape[0] * d * d, fn)
    return np.ascontiguousarray(Linv.T @ Linv), om, Linv


def _exchange_pairs(om: np.ndarray, w: np.ndarray, d: int,
                    rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Pairs (gainer, loser) of one REX batch.

    Gainers: the arms with ``omega_a > d`` (at most as many as the support, the largest
    first); losers: the support. Both in random order, paired cyclically, so every gainer
    and every support point takes part in at least one exchange.
    """
    supp = np.flatnonzero(w > 0.0)
    gain = np.flatnonzero(om > d)
    if gain.size > supp.size:
        gain = gain[np.argpartition(om[gain], -supp.size)[-supp.size:]]
    if gain.size == 0:
        gain = np.array([int(np.argmax(om))])
    gain = rng.permutation(gain)
    lose = rng.permutation(supp)
    n = max(gain.size, lose.size)
    t = np.arange(n)
    gi, lj = gain[t % gain.size], lose[t % lose.size]
    if _PAIR_FILTER > 0.0:
        # skip the pairs whose variances (at the start of the batch) differ by less than a
        # fraction of the current gap: their exchange moves almost nothing
        keep = om[gi] - om[lj] >= _PAIR_FILTER * (om.max() - d)
        if keep.any():
            gi, lj = gi[keep], lj[keep]
    return gi.astype(np.int64), lj.astype(np.int64)


def inner_solve(Xs: np.ndarray, w: np.ndarray, tol: float, max_iter: int,
                rng: np.random.Generator, threads: int = 1
                ) -> tuple[bool, int, np.ndarray, np.ndarray]:
    """REX batches on the working set until ``max_a omega_a <= d (1 + tol)``.

    Returns ``(converged, exchanges, omega, Linv)`` with the exact (recomputed) variances
    and factor of the final ``w`` (updated in place). ``RuntimeError`` if the information
    matrix becomes singular (it cannot in exact arithmetic: every exchange increases
    ``log det``).
    """
    d = Xs.shape[1]
    u = np.empty((2, d))  # the two Woodbury vectors of batch_exchange
    its = 0
    while True:
        st = exact_state(Xs, w, threads)
        if st is None:
            raise RuntimeError("information matrix of the working set became singular")
        Minv, om, Linv = st
        if om.max() <= d * (1.0 + tol):
            return True, its, om, Linv
        if its >= max_iter:
            return False, its, om, Linv
        gain, lose = _exchange_pairs(om, w, d, rng)
        rem = max_iter - its  # iterations = exchanges attempted
        kern.batch_exchange(Xs, w, Minv, gain[:rem], lose[:rem], u)
        its += min(gain.size, rem)


def greedy_solve(Xs: np.ndarray, w: np.ndarray, tol: float, max_iter: int
                 ) -> tuple[bool, int, np.ndarray, np.ndarray]:
    """Small working sets: the greedy vertex-exchange kernel (:func:`design._gd_numba.
    wolfe_atwood`, every variance updated after each exchange, no Python per batch).
    Same contract as :func:`inner_solve`."""
    d = Xs.shape[1]
    Minv = np.empty((d, d))
    om = np.empty(Xs.shape[0])
    status, its = kern.wolfe_atwood(Xs, w, Minv, om, tol, max_iter, max(100, 10 * d), True)
    if status == kern.SINGULAR and its == 0:
        raise RuntimeError("information matrix of the working set became singular")
    st = exact_state(Xs, w)
    if status == kern.SINGULAR or st is None:
        raise RuntimeError("information matrix became singular during the iterations")
    return status == kern.CONVERGED, its, st[1], st[2]


def _hp_threshold(eps: float, d: int) -> float:
    """Harman & Pronzato (2007) bound: with ``max_a omega_a = d + eps``, no arm with
    ``omega_a < d (1 + eps/2 - sqrt(eps (4 + eps - 4/d)) / 2)`` supports a D-optimal design."""
    if eps <= 0.0:
        return float(d)
    return d * (1.0 + eps / 2.0 - np.sqrt(eps * (4.0 + eps - 4.0 / d)) / 2.0)


_SCORE_SLACK = 2.5  # the score filter's error bound: >= 2 (two dot products), with room


def kumar_yildirim_support(X: np.ndarray) -> np.ndarray:
    """Kumar–Yildirim style initial support of ``d`` linearly independent rows of ``X``.

    Householder form of Todd (2016, §3) as given in Mason, Jun & Jain (2022, Algorithm 4):
    for ``j = 0, ..., d - 1`` pick the row with the largest ``|q_j^T x|`` among those not
    picked (the first on ties), ``q_j`` the ``j``-th column of ``Q``, then reflect ``Q`` so
    that its columns ``j + 1, ...`` are orthogonal to every row picked so far. Returns the
    ``d`` row indices (a row repeats only if ``X`` does not span R^d).

    numpy, not numba (first-call compile time, issue 16), and exactly the floating-point
    arithmetic of the plain loops it replaces, so that every tie is broken as before: each
    sum is accumulated from ``0.0`` in the loops' order by ``np.add.accumulate`` (a
    sequential loop). The scores of all rows come from one BLAS product, whose error and
    that of the ordered sum are each at most ``gamma_d ||x|| ||q||``
    (``gamma_d = d u / (1 - d u)``, Higham 2002, §3.1); the rows within twice that of the
    best are rescored by the ordered sum, which decides. ``Q`` is kept transposed
    (``P = Q^T``: its ``j``-th row is ``q_j``). The products run on one BLAS thread for large
    ``X`` (the picks do not depend on it; idle BLAS threads spin on a shared machine).
    """
    if X.shape[0] * X.shape[1] < _BLOCK_ROWS:
        return _kumar_yildirim_picks(X)
    with blas_threads(1):
        return _kumar_yildirim_picks(X)


def _kumar_yildirim_picks(X: np.ndarray) -> np.ndarray:
    """The body of :func:`kumar_yildirim_support`."""
    K, d = X.shape
    P = np.eye(d)
    chosen = np.empty(d, dtype=np.int64)
    norm_max = float(np.sqrt(np.max(np.einsum("ij,ij->i", X, X))))
    gam = _SCORE_SLACK * (d + 1) * (np.finfo(np.float64).eps / 2.0)
    terms = np.zeros((d, d + 1))  # column 0 stays 0.0: every sum starts from 0.0
    for j in range(d):
        q = P[j]
        fast = X @ q
        np.abs(fast, out=fast)
        fast[chosen[:j]] = -np.inf
        top = int(np.argmax(fast))  # a NaN anywhere would be the argmax
        slack = 2.0 * gam * float(np.sqrt(q @ q)) * norm_max
        if np.isfinite(fast[top]) and np.isfinite(slack):
            cand = np.flatnonzero(fast >= fast[top] - slack)
        else:
            cand = np.setdiff1d(np.arange(K), chosen[:j])
        if cand.size == 1:
            arg = int(cand[0])
        else:  # rescore by the ordered sums; the loop kept the first best above -1
            rows = np.zeros((cand.size, d + 1))
            np.multiply(X[cand], q, out=rows[:, 1:])
            sc = np.abs(np.add.accumulate(rows, axis=1)[:, -1])
            sc[np.isnan(sc)] = -np.inf
            arg = int(cand[np.argmax(sc)]) if cand.size and sc.max() > -1.0 else 0
        chosen[j] = arg
        # w = Q^T x_arg (w_i = sum_r P[i, r] x_r) with its first j entries zeroed
        np.multiply(P, X[arg], out=terms[:, 1:])
        w = np.add.accumulate(terms, axis=1)[:, -1]
        w[:j] = 0.0
        norm_w = 0.0
        for wi in w[j:].tolist():
            norm_w += wi * wi
        norm_w = float(np.sqrt(norm_w))
        if norm_w == 0.0:
            continue
        wj = float(w[j])
        u = w
        u[j] += (1.0 if wj >= 0.0 else -1.0) * norm_w
        uu = 2.0 * norm_w * (norm_w + abs(wj))
        # Q <- Q (I - 2 u u^T / u^T u): s_r = sum_i Q[r, i] u_i = sum_i P[i, r] u_i
        np.multiply(P.T, u, out=terms[:, 1:])
        s_r = np.add.accumulate(terms, axis=1)[:, -1]
        s_r *= 2.0 / uu
        P -= u[:, None] * s_r[None, :]
    return chosen


def initial_support(rows: ArmRows) -> np.ndarray:
    """Kumar–Yildirim/Todd initial support (Mason et al. 2022, Alg. 4) of ``d`` arms, run on
    the ``20 d`` longest rows (all rows if those do not span)."""
    K, d = rows.K, rows.d
    m = 20 * d
    if K > 2 * m:
        top = np.sort(np.argpartition(rows.sqnorms(), -m)[-m:])
        Xt = rows.rows(top)
        sub = kumar_yildirim_support(Xt)
        if np.linalg.matrix_rank(Xt[sub]) == d:
            return top[sub]
    return kumar_yildirim_support(rows.rows(np.arange(K)))


@dataclass
class Certified:
    """Float64 certificate of a design: variances of all arms, their relative error bound
    ``eta`` and the triangular factor ``Rw`` of ``diag(sqrt(w_S)) Q_S`` (None if singular)."""

    omega: np.ndarray
    eta: float
    Rw: np.ndarray | None = None
    d_criterion: bool = False

    def factor(self) -> float:
        """Certified gap = ``factor * max_a omega_a / d - 1``: ``1 + eta`` for G, and
        ``(1 + eta)^2 / (1 - eta)`` for D (``design.gd``: both sides of the D bound carry
        the rounding error)."""
        e = self.eta
        return (1.0 + e) ** 2 / (1.0 - e) if self.d_criterion else 1.0 + e

    def gap(self, d: int) -> float:
        return float(self.omega.max()) * self.factor() / d - 1.0


def solve(rows: ArmRows, tol: float, max_iter: int, certify, cert_tol: float = 0.0, *,
          batch: int | None = None, shrink: float = 0.01, polish_below: float = 1e-7,
          warm: int | None = None, seed: int = 0
          ) -> tuple[np.ndarray, Certified, bool, int, dict]:
    """Column generation with REX inner batches; returns ``(w, cert, converged, its, info)``.

    Outer loop: solve the design on the working set ``S`` (:func:`inner_solve`, to a
    tolerance that follows the global gap), then one screening pass over the candidates
    (:meth:`ArmRows.screen`), Harman–Pronzato deletion of candidates that cannot be
    support points (with a relative margin for the rounding of that pass), and the most
    violated candidates join ``S``. When the screen shows no candidate above
    ``d (1 + tol)``, ``certify(w)`` (float64 :class:`Certified` of the caller, with the
    rounding error bound) decides: converged if its gap is ``<= cert_tol``; if the computed
    variances already meet ``tol`` but the rounding bound keeps the gap above
    ``cert_tol``, float64 cannot do better and the loop stops. Below ``polish_below`` the
    working-set solve ends with the interior-point :func:`polish`. ``warm``: for
    ``K > 4 warm``, the design is first solved on the ``warm`` longest rows (to ``1e-3``)
    and its support starts the working set.
    """
    K, d = rows.K, rows.d
    info: dict = {"rounds": 0, "polish_iterations": 0}
    if batch is None:
        batch = max(20 * d, 256)
    if warm is None:
        warm = max(20_000, 10 * batch)
    rng = np.random.default_rng(seed)
    nthreads = rows.threads
    if K > 4 * warm:
        top = np.sort(np.argpartition(rows.sqnorms(), -warm)[-warm:])
        sub = ArmRows(rows.rows(top), None, threads=rows.threads)
        ws, _, _, _, _ = solve(sub, max(tol, 1e-3), max_iter, None, batch=batch,
                               shrink=shrink, polish_below=0.0, warm=warm, seed=seed)
        S = top[ws > 0.0]
        wS = ws[ws > 0.0]
    else:
        S = np.unique(initial_support(rows))
        wS = np.full(S.size, 1.0 / S.size)
    cand = np.arange(K)
    total_it = 0
    gap_prev = None
    converged = False
    cert = None
    stalled = 0
    slow = 0
    while True:
        info["rounds"] += 1
        cert = None  # a certificate is only returned for the final weights
        Xs = rows.rows(S)
        inner_tol = tol if gap_prev is None else max(tol, shrink * gap_prev)
        with blas_threads(1):
            # first order down to polish_below, the interior-point polish below it
            rex_tol = max(inner_tol, polish_below) if S.size <= _POLISH_MAX else inner_tol
            if S.size * d <= _GREEDY_MAX:
                ok, its, omS, Linv = greedy_solve(Xs, wS, rex_tol, max_iter - total_it)
            else:
                ok, its, omS, Linv = inner_solve(Xs, wS, rex_tol, max_iter - total_it, rng,
                                                 nthreads)
            total_it += its
            if ok and inner_tol < rex_tol:
                wS, pits = polish(Xs, wS, inner_tol)
                info["polish_iterations"] += pits
                total_it += pits
                st = exact_state(Xs, wS)
                if st is None:
                    raise RuntimeError("information matrix of the working set became singular")
                _, omS, Linv = st
        keep = wS > 0.0
        S, wS = S[keep], wS[keep]
        om = rows.screen(cand, Linv)
        om_max = float(om.max())
        if om_max <= d * (1.0 + tol) * (1.0 + _SCREEN_MARGIN) and inner_tol > tol:
            # below the resolution of the screen: solve the working set to tol, then certify
            gap_prev = 0.0
            continue
        if om_max <= d * (1.0 + tol) * (1.0 + _SCREEN_MARGIN):
            if certify is None:
                converged = True
                break
            w = np.zeros(K)
            w[S] = wS / wS.sum()
            cert = certify(w)
            if cert.gap(d) <= cert_tol:
                converged = True
                break
            om = cert.omega[cand]  # the exact variances drive the next round
            om_max = float(om.max())
            if not np.isfinite(om_max) or stalled >= 2:
                break
            stalled += 1
            if om_max <= d * (1.0 + tol):
                # the computed variances meet tol but the rounding bound eta does not leave
                # room for cert_tol: tighten the working tolerance if float64 allows it
                room = (1.0 + cert_tol) / cert.factor() - 1.0
                if room <= 0.0 or room >= tol:
                    break
                tol = room
                gap_prev = 0.0
                continue
        if gap_prev is not None and om_max / d - 1.0 >= 0.5 * gap_prev:
            slow += 1  # the polish is at the limit of float64 on the working set
        gap_prev = om_max / d - 1.0
        if not ok or total_it >= max_iter or info["rounds"] >= 10_000 or slow >= 5:
            break
        h = _hp_threshold(om_max * (1.0 + _SCREEN_MARGIN) - d, d)
        if h > 0.0:
            alive = om >= h * (1.0 - _SCREEN_MARGIN)
            alive[np.searchsorted(cand, S)] = True
            if alive.sum() < 0.9 * cand.size:
                cand, om = cand[alive], om[alive]
                rows.restrict(cand)
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
    info.update({"deleted": K - cand.size, "working_set": int(S.size),
                 "threads": {"exchanges": 1, "working_set_variances": nthreads,
                             "full_passes": nthreads, "blas_per_thread": 1}})
    return w, cert, converged, total_it, info


# ----------------------------------------------------------------------------------------
# second-order polish
# ----------------------------------------------------------------------------------------


def polish(Xs: np.ndarray, w0: np.ndarray, tol: float, max_iter: int = 60
           ) -> tuple[np.ndarray, int]:
    """Primal-dual interior-point polish of ``max log det A(w)`` on the working set.

    Problem on the rows ``Xs`` (m x d): ``min f(w) = -log det A(w)`` s.t. ``1^T w = 1``,
    ``w >= 0``. ``grad f = -omega``, ``Hess f = (G o G)`` with ``G = Xs A^{-1} Xs^T``.
    KKT: ``z = nu 1 - omega >= 0``, ``w o z = 0`` (so ``nu = d`` and ``omega_a <= d``:
    the Kiefer–Wolfowitz conditions). Newton on the perturbed KKT system
    ``w o z = sigma mu`` (Mehrotra-free, ``sigma = 0.1``; Boyd & Vandenberghe 2004,
    §11.7), reduced to ``(H + diag(z/w)) dw + dnu 1 = r`` and solved by Cholesky, with the
    fraction-to-boundary rule. Started from the first-order design mixed with 1e-3 of the
    uniform design on the working set (an interior point). Stops when
    ``max_a omega_a <= d (1 + tol / 4)``, when the step stalls, or after ``max_iter``
    Newton steps; returns the better of the start and the result, with weights below
    ``1e-14 max w`` set to zero.
    """
    m, d = Xs.shape
    if m <= 1:
        return w0, 0

    def state(w):
        st = exact_state(Xs, w)
        if st is None:
            return None
        Minv, om, Linv = st
        return Minv, om, Linv

    st0 = state(w0)
    best_w, best_val = w0.copy(), float(st0[1].max())
    w = 0.999 * w0 + 0.001 / m
    z = None
    it = 0
    while it < max_iter:
        st = state(w)
        if st is None:
            break
        Minv, om, Linv = st
        Z = Xs @ Linv.T
        G = Z @ Z.T
        H = G * G
        if z is None:
            nu = float(np.dot(w, om))  # = d
            z = np.maximum(nu - om, 1e-3 * nu / m)
        nu = float(np.dot(w, om) + np.dot(w, z))  # least-squares dual estimate
        mu = float(np.dot(w, z)) / m
        # residuals: dual r_d = -om - z + nu 1, centrality w z - sigma mu
        r_d = -om - z + nu
        sigma = 0.1
        r_c = w * z - sigma * mu
        D = z / w
        A = H + np.diag(D)
        rhs = -r_d - r_c / w
        try:
            C = cholesky(A, lower=True, check_finite=False)
        except np.linalg.LinAlgError:
            break

        def sol(b, C=C):
            y = solve_triangular(C, b, lower=True, check_finite=False)
            return solve_triangular(C, y, lower=True, trans="T", check_finite=False)

        a1 = sol(rhs)
        a2 = sol(np.ones(m))
        r_p = float(w.sum()) - 1.0
        dnu = (a1.sum() + r_p) / a2.sum()
        dw = a1 - dnu * a2
        dz = (-r_c - z * dw) / w
        step = 1.0
        neg = dw < 0.0
        if np.any(neg):
            step = min(step, 0.99 * float(np.min(-w[neg] / dw[neg])))
        negz = dz < 0.0
        if np.any(negz):
            step = min(step, 0.99 * float(np.min(-z[negz] / dz[negz])))
        if step < 1e-12:
            break
        w = w + step * dw
        z = z + step * dz
        w = w / w.sum()
        it += 1
        wcut = np.where(w > 1e-14 * w.max(), w, 0.0)
        wcut /= wcut.sum()
        stc = state(wcut)
        if stc is not None and float(stc[1].max()) < best_val:
            best_w, best_val = wcut, float(stc[1].max())
        if best_val <= d * (1.0 + tol / 4.0):
            break
    return best_w, it
