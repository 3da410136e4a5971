r"""The l1-minimal representation of arm differences: a design quantity of the linear
bandits' complexity constants.

For arms ``X`` (rows) and every pair ``(i, j)``, :func:`l1_weights_all_pairs` solves
Elfving's l1 program ``min ||w||_1 s.t. X^T w = x_i - x_j`` (Xu, Honda & Sugiyama 2018,
Eq. 11; the c-optimal design of :func:`design.elfving.c_optimal` for the direction
``x_i - x_j``), each solution checked against its LP dual.

The problem-dependent constants built on it (``H`` of LUCB, UGapE, m-LinGapE, LinGapE;
Soare et al.'s ``H_LB``, ``N*``) are bandit quantities: they live in
:mod:`bandits.complexity` (moved there in issue 13; the design layer never imports the
bandit layer).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import Any

import numpy as np
from scipy.optimize import linprog

from ._validation import as_arms, rank_of
from .elfving import c_optimal

__all__ = ["l1_weights_all_pairs"]

_L1_METHODS = ("auto", "highspy", "linprog", "c_optimal")

#: Names that moved to bandits.complexity (issue 13), for a clear ImportError.
_MOVED = ("arm_gaps", "complexity_constants", "h_lingape", "h_lucb",
          "h_mlingape_largest_variance", "h_mlingape_optimized", "h_ugape", "lingape_rho",
          "soare_constants", "SoareConstants")


def __getattr__(name: str) -> Any:
    if name in _MOVED:
        raise ImportError(f"design.complexity.{name} moved to bandits.complexity.{name} "
                          "(the bandit complexity constants live in the bandit layer)")
    raise AttributeError(f"module 'design.complexity' has no attribute {name!r}")


# --------------------------------------------------------------------------------------


def _whitened(X: np.ndarray) -> np.ndarray:
    """Rows ``z_a`` of ``U_r`` from the thin SVD ``X = U S V^T`` (numerical rank ``r``).

    ``X^T w = x_i - x_j  <=>  U_r^T w = z_i - z_j`` (apply ``S_r^{-1} V_r^T``; the
    difference of two rows is always in the row span), so every pair's LP has the same,
    perfectly conditioned constraint matrix and right-hand side ``z_i - z_j``.
    """
    K, d = X.shape
    U, s, _ = np.linalg.svd(X, full_matrices=False)
    r = rank_of(s, max(K, d))
    if r == 0:
        raise ValueError("X is the zero matrix: no pairwise difference to represent")
    return np.ascontiguousarray(U[:, :r])


def _polish(Z: np.ndarray, b: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Re-solve ``Z_S^T w_S = b`` on the support of a vertex ``w`` (exact basic solution)."""
    S = np.flatnonzero(w != 0.0)
    if S.size == 0:
        return w
    ZS = Z[S]
    wS, _, rank, _ = np.linalg.lstsq(ZS.T, b, rcond=None)
    if rank == S.size and np.all(np.sign(wS) == np.sign(w[S])):
        if np.linalg.norm(ZS.T @ wS - b) <= np.linalg.norm(ZS.T @ w[S] - b):
            w = w.copy()
            w[S] = wS
    return w


def _pair_ok(Z: np.ndarray, b: np.ndarray, w: np.ndarray, u: np.ndarray, tol: float) -> bool:
    """Primal feasibility and a dual (duality-gap) certificate of l1-optimality of ``w``."""
    scale = max(1.0, float(np.linalg.norm(b)))
    if np.linalg.norm(Z.T @ w - b) > 1e3 * tol * scale:
        return False
    l1 = float(np.sum(np.abs(w)))
    if l1 == 0.0:
        return bool(np.linalg.norm(b) <= 1e3 * tol)
    mx = float(np.max(np.abs(Z @ u)))
    lower = abs(float(b @ u)) / mx if mx > 0 else 0.0
    return bool(l1 - lower <= max(tol, 1e-7) * l1)


@contextlib.contextmanager
def _quiet_c_stdout() -> Iterator[None]:
    """Discard what C code writes to file descriptor 1 inside the block: constructing a
    ``highspy.Highs`` object prints HiGHS's version banner ("Running HiGHS ...") before
    ``output_flag`` can be set (the constructor calls a logging method), which would land
    in the user's output (`oed experiment plan`, `oed complexity`). Python's own
    ``sys.stdout`` is flushed first; descriptor 1 is restored after."""
    sys.stdout.flush()
    try:
        saved = os.dup(1)
    except OSError:  # no descriptor 1 (a detached process): nothing to keep clean
        yield
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 1)
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(null)


class _HighspySolver:
    """One HiGHS model ``min 1^T (w+ + w-) s.t. Z^T (w+ - w-) = b`` re-solved per ``b``.

    Only the right-hand side changes between pairs, so the previous optimal basis stays
    dual feasible and each re-solve is a few dual simplex iterations.
    """

    def __init__(self, Z: np.ndarray, tol: float) -> None:
        import highspy

        with _quiet_c_stdout():  # highspy >= 1.1x logs a banner before options can be set
            self._h = highspy.Highs()
        self._ok = highspy.HighsModelStatus.kOptimal
        h = self._h
        h.setOptionValue("output_flag", False)
        h.setOptionValue("primal_feasibility_tolerance", float(np.clip(tol, 1e-10, 1e-7)))
        h.setOptionValue("dual_feasibility_tolerance", float(np.clip(tol, 1e-10, 1e-7)))
        K, r = Z.shape
        n = 2 * K
        lp = highspy.HighsLp()
        lp.num_col_ = n
        lp.num_row_ = r
        lp.col_cost_ = np.ones(n)
        lp.col_lower_ = np.zeros(n)
        lp.col_upper_ = np.full(n, highspy.kHighsInf)
        lp.row_lower_ = np.zeros(r)
        lp.row_upper_ = np.zeros(r)
        lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        lp.a_matrix_.num_col_ = n
        lp.a_matrix_.num_row_ = r
        lp.a_matrix_.start_ = np.arange(0, n * r + 1, r, dtype=np.int32)
        lp.a_matrix_.index_ = np.tile(np.arange(r, dtype=np.int32), n)
        lp.a_matrix_.value_ = np.concatenate([Z, -Z]).ravel()
        h.passModel(lp)
        self._rows = np.arange(r, dtype=np.int32)
        self._K = K

    def solve(self, b: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        h = self._h
        h.changeRowsBounds(b.size, self._rows, b, b)
        h.run()
        if h.getModelStatus() != self._ok:
            return None
        sol = h.getSolution()
        x = np.asarray(sol.col_value)
        return x[: self._K] - x[self._K:], np.asarray(sol.row_dual)


def _linprog_pair(Z: np.ndarray, b: np.ndarray, tol: float) -> tuple[np.ndarray, np.ndarray] | None:
    K = Z.shape[0]
    ftol = float(np.clip(tol, 1e-10, 1e-7))
    res = linprog(np.ones(2 * K), A_eq=np.hstack([Z.T, -Z.T]), b_eq=b, bounds=(0.0, None),
                  method="highs",
                  options={"primal_feasibility_tolerance": ftol,
                           "dual_feasibility_tolerance": ftol})
    if res.status != 0:
        return None
    return res.x[:K] - res.x[K:], np.asarray(res.eqlin.marginals)


def _c_optimal_pair(X: np.ndarray, i: int, j: int, tol: float) -> np.ndarray:
    return np.asarray(c_optimal(X, X[i] - X[j], tol=tol).info["coefficients"], dtype=np.float64)


def l1_weights_all_pairs(X: Any, *, method: str = "auto", tol: float = 1e-9) -> np.ndarray:
    r"""l1-minimal representations ``w*(i, j)`` of all pairwise differences of the arms.

    For every pair of arms (Xu, Honda & Sugiyama 2018, eq. 11; Réda et al. 2021, eq. 1)

    .. math::

        w^\star(i,j) = \arg\min_{w \in \mathbb{R}^K} \|w\|_1
        \quad\text{s.t.}\quad \sum_{a=1}^K w_a x_a = x_i - x_j ,

    which by Elfving's theorem gives the c-optimal design ``|w*| / ||w*||_1`` for the
    direction ``x_i - x_j`` (:func:`design.elfving.c_optimal`).  The "optimized" selection
    rule of LinGapE / m-LinGapE tracks these proportions, and the constants
    :func:`h_mlingape_optimized` and :func:`h_lingape` use them.

    Only the ``K (K - 1) / 2`` pairs ``i < j`` are solved; ``W[j, i] = -W[i, j]`` (the
    negated optimum is optimal for the negated direction) and ``W[i, i] = 0``.  The LPs are
    solved in whitened coordinates (rows of ``U_r`` from ``X = U S V^T``), which share one
    constraint matrix; with ``highspy`` the model is built once and re-solved with a warm
    start for each right-hand side (~0.5 ms per pair).  Every solution is polished on its
    support and checked against its dual (``||w||_1 - y^T u / max_a |x_a^T u| <= tol``);
    a pair that fails the check is re-solved by :func:`design.elfving.c_optimal`.

    When the LP has several optimal vertices (degenerate arms, e.g. duplicated arms) the
    one returned is solver-dependent; so is anything built on it.

    Parameters
    ----------
    X : array_like, shape (K, d)
        Arms as rows, finite.  Any rank (``K < d`` is fine).
    method : {"auto", "highspy", "linprog", "c_optimal"}, default "auto"
        ``"auto"``: ``"highspy"`` when the ``highspy`` package is importable, else
        ``"linprog"`` (``scipy.optimize.linprog`` with HiGHS, one call per pair, a few ms
        each).  ``"c_optimal"``: :func:`design.elfving.c_optimal` per pair (the reference
        path, with its duality certificate; slowest).
    tol : float, default 1e-9
        Optimality / feasibility tolerance of the check above.

    Returns
    -------
    ndarray, shape (K, K, K)
        ``W[i, j, a] = w*_a(i, j)``; ``X.T @ W[i, j] == X[i] - X[j]``.  Memory is
        ``8 K^3`` bytes (8 MB for K = 100).

    Raises
    ------
    ValueError
        For malformed ``X`` (not 2-D, empty, NaN/inf), unknown ``method``, ``tol`` outside
        (0, 1), or ``method="highspy"`` without the package.

    Examples
    --------
    >>> W = l1_weights_all_pairs(np.eye(3))
    >>> W[0, 1]
    array([ 1., -1.,  0.])
    """
    X = as_arms(X, need_span=False)
    if not isinstance(method, str) or method not in _L1_METHODS:
        raise ValueError(f"method must be one of {_L1_METHODS}; got {method!r}")
    try:
        tol = float(tol)
    except (TypeError, ValueError):
        raise ValueError(f"tol must be a number in (0, 1); got {tol!r}") from None
    if not (0.0 < tol < 1.0):
        raise ValueError(f"tol must be in (0, 1); got {tol!r}")
    K = X.shape[0]
    W = np.zeros((K, K, K))
    if K < 2:
        return W
    if method == "c_optimal":
        for i in range(K):
            for j in range(i + 1, K):
                if np.any(X[i] != X[j]):
                    W[i, j] = _c_optimal_pair(X, i, j, tol)
                    W[j, i] = -W[i, j]
        return W

    Z = _whitened(X)
    solver: _HighspySolver | None = None
    if method in ("auto", "highspy"):
        try:
            solver = _HighspySolver(Z, tol)
        except ImportError:
            if method == "highspy":
                raise ValueError("method='highspy' needs the highspy package "
                                 "(pip install highspy)") from None
    for i in range(K):
        for j in range(i + 1, K):
            b = Z[i] - Z[j]
            if not np.any(X[i] != X[j]):
                continue  # identical arms: w* = 0
            sol = solver.solve(b) if solver is not None else _linprog_pair(Z, b, tol)
            w = None
            if sol is not None:
                w = _polish(Z, b, sol[0])
                if not _pair_ok(Z, b, w, sol[1], tol):
                    w = None
            if w is None:  # rare: fall back to the certified reference solver
                w = _c_optimal_pair(X, i, j, tol)
            W[i, j] = w
            W[j, i] = -w
    return W


