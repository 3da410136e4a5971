"""Greedy incremental allocation rules of Soare, Lazaric & Munos (2014), with pruning.

Given the current (regularised) design matrix ``A`` through ``Ainv = A^{-1}``, candidate
arms ``x_1..x_K`` and targets ``y_1..y_M``, the greedy rule pulls::

    x_t = argmin_x max_y y^T (A + x x^T)^{-1} y                   (Eq. 26, XY; Eq. 22, G)

evaluated with Sherman–Morrison, never by inverting ``A + x x^T``::

    y^T (A + x x^T)^{-1} y = v_y - b_{xy}^2 / (1 + a_x),
    v_y = y^T A^{-1} y,   b_{xy} = y^T A^{-1} x,   a_x = x^T A^{-1} x.

Exact pruning (the answer is the same as the brute force):

* Cauchy–Schwarz gives ``b_{xy}^2 <= v_y a_x``, hence every candidate's value is at least
  ``max_y v_y / (1 + a_x) >= V / (1 + max_x a_x)`` with ``V = max_y v_y``: targets with
  ``v_y`` below that threshold can never attain a candidate's maximum and are skipped.
  In a bandit ``A`` accumulates pulls, ``a_x ~ d / t`` and only the near-worst targets
  survive.
* Surviving targets are scanned by decreasing ``v_y``; since the new value of ``y`` is at
  most ``v_y``, the scan of a candidate stops once ``v_y`` is below its running maximum,
  and it is abandoned once the running maximum exceeds the best candidate so far.

Cost: ``O(M d^2 + K d^2)`` to get ``v`` and ``a`` (``O(K^2 d)`` for implicit pairs), plus
``O(K |C| d)`` in the worst case for the ``|C|`` surviving targets; memory ``O(M d + K d)``
(``O(K d + |C|)`` for implicit pairs): no ``K x M`` matrix is ever formed.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from design._validation import as_arms

__all__ = [
    "GreedyChoice",
    "greedy_g_step",
    "greedy_minimax_step",
    "greedy_xy_step",
    "sherman_morrison_update",
]


class GreedyChoice(NamedTuple):
    """Arm chosen by a greedy rule and the criterion value after adding it.

    ``value = max_y y^T (A + x_index x_index^T)^{-1} y`` (within ``tie_rtol`` of the
    minimum over the candidates).
    """

    index: int
    value: float


# ----------------------------------------------------------------------------------------
# the search (one jitted kernel of loops); the set-up is numpy/BLAS
# ----------------------------------------------------------------------------------------


@njit(cache=True)
def _search(X: np.ndarray, a: np.ndarray, Wc: np.ndarray, vc: np.ndarray, order: np.ndarray,
            rtol: float, vals: np.ndarray) -> None:
    """``vals[k] = max_c vc_c - (Wc_c . x_k)^2 / (1 + a_k)`` for every candidate that can
    be within a relative ``rtol`` of the minimum (the others keep ``vals[k] = inf``), with
    ``vc`` sorted decreasingly (``Wc_c = A^{-1} y_c``), visiting the candidates in
    ``order`` (first those that most reduce the worst target: a good incumbent early).

    Only loops (no allocation, no sort, no BLAS): the set-up is numpy (issue 16, compile
    time). A pruned candidate's value exceeds the incumbent by more than ``rtol``, so the
    tie set, and hence the result, does not depend on ``order``."""
    K, d = X.shape
    n = vc.shape[0]
    thr = np.inf
    for r in range(K):
        k = order[r]
        inv = 1.0 / (1.0 + a[k])
        run = -np.inf
        pruned = False
        for c in range(n):
            if vc[c] <= run:
                break  # later targets have new value <= vc[c] <= run
            b = 0.0
            for p in range(d):
                b += Wc[c, p] * X[k, p]
            val = vc[c] - b * b * inv
            if val > run:
                run = val
                if run > thr:
                    pruned = True
                    break
        if not pruned:
            vals[k] = run
            t = run + rtol * abs(run)
            if t < thr:
                thr = t


#: Products ``M A^{-1}`` of at least this many multiply-adds run with one BLAS thread (a
#: small product gains nothing from threads and the pool's wake-ups cost more CPU time
#: than the work; the limit itself costs about 10 us, so small products skip it).
_ONE_THREAD_FLOPS = 1 << 16


def _times(M: np.ndarray, Ainv: np.ndarray) -> np.ndarray:
    """``M A^{-1}`` (C-contiguous), with BLAS on one thread when it is large."""
    d = Ainv.shape[0]
    if M.shape[0] * d * d < _ONE_THREAD_FLOPS:
        return np.ascontiguousarray(M @ Ainv)
    from design._gd_batch import blas_threads

    with blas_threads(1):
        return np.ascontiguousarray(M @ Ainv)


def _rowdot(U: np.ndarray, V: np.ndarray) -> np.ndarray:
    """``out_i = U_i . V_i``."""
    return np.einsum("ij,ij->i", U, V)


def _run_search(X: np.ndarray, a: np.ndarray, Wc: np.ndarray, vc: np.ndarray, rtol: float
                ) -> np.ndarray:
    """:func:`_search` with its candidate order: increasing ``-(Wc_0 . x_k)^2 / (1 + a_k)``
    (stable)."""
    K = X.shape[0]
    vals = np.full(K, np.inf)
    if vc.shape[0] == 0:
        vals[:] = -np.inf  # no target: every candidate's maximum is empty
        return vals
    b = X @ Wc[0]
    order = np.argsort(-(b * b) / (1.0 + a), kind="stable").astype(np.int64)
    _search(X, a, np.ascontiguousarray(Wc), np.ascontiguousarray(vc), order, rtol, vals)
    return vals


def _greedy_explicit(Ainv: np.ndarray, X: np.ndarray, Y: np.ndarray, rtol: float
                     ) -> np.ndarray:
    W = _times(Y, Ainv)
    v = _rowdot(W, Y)
    U = _times(X, Ainv)
    a = _rowdot(U, X)
    thr = v.max() / (1.0 + a.max()) * (1.0 - 1e-12)
    sel = np.flatnonzero(v >= thr)
    idx = sel[np.argsort(-v[sel], kind="stable")]
    return _run_search(X, a, W[idx], v[idx], rtol)


@njit(cache=True)
def _pair_scan(U: np.ndarray, X: np.ndarray, a_max: float, I: np.ndarray, J: np.ndarray,
               V: np.ndarray) -> int:
    """The implicit pair targets ``x_i - x_j`` (``i < j``) in two streaming passes, each
    value ``s_ij = (u_i - u_j) . (x_i - x_j)`` (``u = A^{-1} x``) from its difference
    vectors: pass 1 finds ``V* = max s_ij``, pass 2 writes the pairs with ``s_ij >= V* /
    (1 + a_max) (1 - 1e-12)`` and ``s_ij > 0`` into ``I``, ``J``, ``V`` in ``(i, j)``
    order, up to their length. Returns the number of such pairs (more than the length:
    call again with longer arrays). Loops only: ``O(K d)`` memory, no allocation."""
    K, d = X.shape
    vmax = 0.0
    for i in range(K):
        for j in range(i + 1, K):
            s = 0.0
            for p in range(d):
                s += (U[i, p] - U[j, p]) * (X[i, p] - X[j, p])
            if s > vmax:
                vmax = s
    thr = vmax / (1.0 + a_max) * (1.0 - 1e-12)
    cap = I.shape[0]
    n = 0
    for i in range(K):
        for j in range(i + 1, K):
            s = 0.0
            for p in range(d):
                s += (U[i, p] - U[j, p]) * (X[i, p] - X[j, p])
            if s >= thr and s > 0.0:
                if n < cap:
                    I[n] = i
                    J[n] = j
                    V[n] = s
                n += 1
    return n


def _greedy_pairs(Ainv: np.ndarray, X: np.ndarray, rtol: float) -> np.ndarray:
    """Targets ``x_i - x_j`` (``i < j``) handled implicitly (:func:`_pair_scan`), then the
    pruned search on the surviving pairs sorted by decreasing value."""
    K = X.shape[0]
    U = _times(X, Ainv)
    a = _rowdot(U, X)
    cap = max(64, 2 * K)
    while True:
        I, J = np.empty(cap, dtype=np.int64), np.empty(cap, dtype=np.int64)
        V = np.empty(cap)
        n = int(_pair_scan(U, X, float(a.max()), I, J, V))
        if n <= cap:
            break
        cap = n
    order = np.argsort(-V[:n], kind="stable")
    i, j = I[:n][order], J[:n][order]
    return _run_search(X, a, U[i] - U[j], V[:n][order], rtol)


@njit(cache=True)
def _sm_update(Ainv: np.ndarray, x: np.ndarray, out: np.ndarray) -> float:
    d = x.shape[0]
    u = np.empty(d)
    for i in range(d):
        s = 0.0
        for p in range(d):
            s += Ainv[i, p] * x[p]
        u[i] = s
    a = 0.0
    for i in range(d):
        a += x[i] * u[i]
    c = 1.0 / (1.0 + a)
    for i in range(d):
        for p in range(d):
            out[i, p] = Ainv[i, p] - c * u[i] * u[p]
    # keep the result exactly symmetric
    for i in range(d):
        for p in range(i):
            s = 0.5 * (out[i, p] + out[p, i])
            out[i, p] = s
            out[p, i] = s
    return a


# ----------------------------------------------------------------------------------------
# validated wrappers
# ----------------------------------------------------------------------------------------


def _as_ainv(Ainv: object, d: int | None = None) -> np.ndarray:
    try:
        arr = np.asarray(Ainv, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"Ainv must be a numeric (d, d) matrix: {exc}") from None
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1] or arr.shape[0] == 0:
        raise ValueError(f"Ainv must be a square (d, d) matrix; got shape {arr.shape}")
    if d is not None and arr.shape[0] != d:
        raise ValueError(f"Ainv is {arr.shape[0]}x{arr.shape[0]} but the arms have d={d} "
                         "features")
    if not np.all(np.isfinite(arr)):
        raise ValueError("Ainv contains NaN or inf")
    return np.ascontiguousarray(arr)


def _prepare(Ainv: object, X: object, check: bool) -> tuple[np.ndarray, np.ndarray]:
    if not check:
        return (np.ascontiguousarray(Ainv, dtype=np.float64),
                np.ascontiguousarray(X, dtype=np.float64))
    Xa = as_arms(X, need_span=False)
    return _as_ainv(Ainv, Xa.shape[1]), Xa


def _as_rtol(tie_rtol: float) -> float:
    try:
        t = float(tie_rtol)
    except (TypeError, ValueError):
        raise ValueError(f"tie_rtol must be a number >= 0; got {tie_rtol!r}") from None
    if not (t >= 0.0 and np.isfinite(t)):
        raise ValueError(f"tie_rtol must be a finite number >= 0; got {tie_rtol!r}")
    return t


def _choose(vals: np.ndarray, rtol: float, rng: np.random.Generator | None) -> GreedyChoice:
    """Smallest index (``rng=None``) or a uniformly random one among the candidates within
    a relative ``rtol`` of the minimum."""
    best = float(vals.min())
    ties = np.flatnonzero(vals <= best + rtol * abs(best))
    k = int(ties[0]) if rng is None or ties.size == 1 else int(rng.choice(ties))
    return GreedyChoice(k, float(vals[k]))


_TIES_DOC = """
    Ties: candidates within a relative ``tie_rtol`` of the minimum are tied; the smallest
    index wins, or a uniformly random one if a ``numpy.random.Generator`` is given as
    ``rng``. Random tie-breaking matters in bandits: the exact rule stalls on ties (on
    Soare et al.'s instance from ``A = I`` every candidate ties at 2 and the first arm is
    pulled forever; Xu et al. 2018 make the same remark).
"""


def greedy_minimax_step(Ainv: object, X: object, Y: object, c: object = None, *,
                        rng: np.random.Generator | None = None, tie_rtol: float = 1e-9,
                        check: bool = True) -> GreedyChoice:
    """Greedy minimax rule: ``argmin_x max_j c_j y_j^T (A + x x^T)^{-1} y_j``.

    Soare et al. (2014, Eq. 26) for ``c = 1`` and pairwise-difference targets; the oracle
    allocation of their Eq. 5 uses ``c_j = 1 / Delta(y_j)^2`` and ``Y = Y*``.

    Parameters
    ----------
    Ainv : array_like, shape (d, d)
        ``A^{-1}`` of the current design matrix (e.g. ``(eta I + sum_s x_s x_s^T)^{-1}``).
    X : array_like, shape (K, d)
        Candidate arms (rows).
    Y : array_like, shape (M, d)
        Targets (rows).
    c : array_like, shape (M,), optional
        Positive target weights (default 1).
    rng : numpy.random.Generator, optional
        Break ties at random (see below); default: smallest index.
    tie_rtol : float, default 1e-9
        Relative tolerance defining ties.
    check : bool, default True
        Validate the inputs (``ValueError`` naming the argument). ``False`` skips the
        checks for hot loops where the caller guarantees finite, well-shaped arrays.

    Returns
    -------
    GreedyChoice
        ``(index, value)``: the chosen arm and ``max_j c_j y_j^T (A + x x^T)^{-1} y_j``
        after adding it (Sherman–Morrison).
    """
    Ai, Xa = _prepare(Ainv, X, check)
    rtol = _as_rtol(tie_rtol)
    if check:
        from design.minimax import _as_costs, _as_targets

        Ya = _as_targets(Y, Xa.shape[1])
        if c is not None:
            Ya = Ya * np.sqrt(_as_costs(c, Ya.shape[0]))[:, None]
    else:
        Ya = np.ascontiguousarray(Y, dtype=np.float64)
        if c is not None:
            Ya = Ya * np.sqrt(np.asarray(c, dtype=np.float64))[:, None]
    return _choose(_greedy_explicit(Ai, Xa, np.ascontiguousarray(Ya), rtol), rtol, rng)


def greedy_xy_step(Ainv: object, X: object, Y: object = None, *,
                   rng: np.random.Generator | None = None, tie_rtol: float = 1e-9,
                   check: bool = True) -> GreedyChoice:
    """Greedy XY rule (Soare et al. 2014, Eq. 26): ``argmin_x max_y y^T(A + xx^T)^{-1} y``.

    ``Y=None`` means all pairwise differences ``x_i - x_j`` of the candidates, handled
    implicitly in ``O(K^2 d)`` time and ``O(K d)`` memory (plus the surviving pairs). See
    :func:`greedy_minimax_step` for the parameters and the return value.
    """
    if Y is not None:
        return greedy_minimax_step(Ainv, X, Y, rng=rng, tie_rtol=tie_rtol, check=check)
    Ai, Xa = _prepare(Ainv, X, check)
    rtol = _as_rtol(tie_rtol)
    if check and (Xa.shape[0] < 2 or np.all(Xa == Xa[0])):
        raise ValueError("Y=None means the pairwise differences of X, but all arms are "
                         "equal: no non-zero target")
    return _choose(_greedy_pairs(Ai, Xa, rtol), rtol, rng)


def greedy_g_step(Ainv: object, X: object, *, rng: np.random.Generator | None = None,
                  tie_rtol: float = 1e-9, check: bool = True) -> GreedyChoice:
    """Greedy G rule (Soare et al. 2014, Eq. 22): ``argmin_x max_x' x'^T (A + xx^T)^{-1} x'``
    (targets = candidates). See :func:`greedy_minimax_step`."""
    Ai, Xa = _prepare(Ainv, X, check)
    rtol = _as_rtol(tie_rtol)
    return _choose(_greedy_explicit(Ai, Xa, Xa, rtol), rtol, rng)


for _f in (greedy_minimax_step, greedy_xy_step, greedy_g_step):
    _f.__doc__ = (_f.__doc__ or "") + _TIES_DOC


def sherman_morrison_update(Ainv: object, x: object, *, out: np.ndarray | None = None,
                            check: bool = True) -> np.ndarray:
    """``(A + x x^T)^{-1} = A^{-1} - A^{-1} x x^T A^{-1} / (1 + x^T A^{-1} x)`` in O(d^2).

    Parameters
    ----------
    Ainv : array_like, shape (d, d)
        Current inverse (symmetric positive definite).
    x : array_like, shape (d,)
        Arm added to the design.
    out : ndarray, shape (d, d), optional
        Where to write the result (may be ``Ainv`` itself, float64 C-contiguous, for an
        in-place update).
    check : bool, default True
        Validate the inputs.

    Returns
    -------
    ndarray, shape (d, d)
        The updated inverse (symmetrised). For long runs, recompute it from ``A`` every
        few thousand updates to stop rounding drift.
    """
    if check:
        xa = np.asarray(x, dtype=np.float64)
        if xa.ndim != 1:
            raise ValueError(f"x must be a 1-D vector; got ndim={xa.ndim}")
        Ai = _as_ainv(Ainv, xa.shape[0])
        if not np.all(np.isfinite(xa)):
            raise ValueError("x contains NaN or inf")
        if out is not None and (not isinstance(out, np.ndarray) or out.shape != Ai.shape
                                or out.dtype != np.float64 or not out.flags.c_contiguous):
            raise ValueError("out must be a float64 C-contiguous (d, d) array")
    else:
        Ai = np.ascontiguousarray(Ainv, dtype=np.float64)
        xa = np.ascontiguousarray(x, dtype=np.float64)
    if out is None:
        out = np.empty_like(Ai)
    _sm_update(Ai, xa, out)  # element (i, p) is read before it is written: in place is safe
    return out
