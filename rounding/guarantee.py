r"""Rounding with a multiplicative guarantee: ``(1 + eps)`` for every ``n >= r(eps)``.

RAGE (Fiez, Jain, Jamieson & Ratliff 2019, Algorithm 1 and Appendix B) needs a procedure
``ROUND(lambda, N, eps)`` that turns a design ``lambda`` into ``N`` pulls whose information
matrix is, up to a factor ``1 + eps``, at least ``N A(lambda)``: then every minimax
criterion (G, XY, transductive, oracle) of the pulls is at most ``(1 + eps)`` times that of
the design.  Fiez et al. cite Allen-Zhu, Li, Singh & Wang (2017), whose regret-minimisation
rounding needs ``r(eps) = O(d / eps^2)`` samples, and note that efficient rounding
(Pukelsheim 2006, Ch. 12) is what is used in practice.

This module gives a *provable* guarantee with efficient rounding plus a Carathéodory support
reduction:

1. **Support reduction.** The information matrix ``A(w) = sum_i w_i x_i x_i^T`` lives in the
   ``D = d(d+1)/2``-dimensional space of symmetric matrices, so by Carathéodory there is a
   design ``w'`` with ``A(w') = A(w)`` exactly and at most ``D + 1`` support points
   (Soare et al. 2014, Remark 1).  We move along null vectors of
   ``w -> (vech(A(w)), sum(w))`` until ``p <= D + 1``; the criterion is unchanged.
2. **Efficient rounding** (:func:`rounding.efficient_round`) of ``w'`` to ``n`` trials.  An
   efficient apportionment satisfies ``max_i (n_i - 1)/w_i <= nu := min_i n_i / w_i``;
   summing ``n_i - 1 <= nu w_i`` over ``i != argmin`` gives ``nu >= n - p + 1``, hence

   .. math:: \sum_i n_i x_i x_i^\top \succeq (n - p + 1)\, A(w'), \qquad
             y^\top\Big(\sum_i n_i x_i x_i^\top\Big)^{-1} y \le
             \frac{n}{n - p + 1}\; \frac{y^\top A(w)^{-1} y}{n}.

   The factor ``n / (n - p + 1)`` is **the valid bound for every n >= p**.  Pukelsheim's
   (and Soare et al.'s Lemma 5) ``1 + p/n`` is weaker than it only for ``n >= p(p - 1)``
   and can fail below (``n / (n-p+1) > 1 + p/n`` iff ``n < p(p-1)``).
3. ``n / (n - p + 1) <= 1 + eps`` iff ``n >= r(eps) = ceil((p - 1)(1 + eps) / eps)``, which
   is ``O(d^2 / eps)``; Allen-Zhu et al.'s ``O(d / eps^2)`` is smaller only for
   ``eps < 1/d``.

References
----------
T. Fiez, L. Jain, K. Jamieson, L. Ratliff (2019), Sequential experimental design for
transductive linear bandits, NeurIPS, Algorithm 1 and Appendix B.
Z. Allen-Zhu, Y. Li, A. Singh, Y. Wang (2017), Near-optimal design of experiments via
regret minimization, ICML.
F. Pukelsheim (2006), Optimal Design of Experiments, SIAM, Ch. 12.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ._validation import ZERO_TOL, check_arms, check_positive_int, check_real, check_weights
from .efficient import efficient_round

__all__ = ["GuaranteedRounding", "reduce_support", "round_with_guarantee", "rounding_requirement"]


def _check_eps(eps: object) -> float:
    return check_real(eps, "eps", 0.0, open_low=True)


def rounding_requirement(p: int, eps: float) -> int:
    r"""``r(eps) = max(p, ceil((p - 1)(1 + eps) / eps))``: the smallest ``n`` for which
    ``n / (n - p + 1) <= 1 + eps`` (efficient rounding of a design with ``p`` support
    points).

    Parameters
    ----------
    p : int
        Support size (positive integer).
    eps : float
        Tolerance ``> 0``.

    Returns
    -------
    int
    """
    p = check_positive_int(p, "p")
    e = _check_eps(eps)
    need = math.ceil((p - 1) * (1.0 + e) / e - 1e-9)
    return max(p, need)


def reduce_support(X: object, weights: object, *, zero_tol: float = ZERO_TOL) -> np.ndarray:
    r"""A design with the same information matrix and at most ``d(d+1)/2 + 1`` support points.

    Carathéodory reduction: while the support ``S`` has more than ``D + 1`` points
    (``D = d(d+1)/2``), take ``v`` in the null space of the ``(D+1) x |S|`` matrix with
    columns ``(vech(x_i x_i^T), 1)`` and move ``w_S -> w_S - t v`` with the largest ``t``
    that keeps ``w >= 0``; one weight reaches zero and ``A(w)`` and ``sum(w)`` are unchanged.

    Parameters
    ----------
    X : array_like, shape (K, d)
        Arms as rows.
    weights : array_like, shape (K,)
        Design on the simplex.
    zero_tol : float
        Relative threshold below which weights are treated as zero.

    Returns
    -------
    numpy.ndarray, shape (K,)
        Reduced design (sums to one, ``A`` equal to ``A(weights)`` up to round-off).
    """
    Xa = check_arms(X)
    w = check_weights(weights, zero_tol=zero_tol)
    K, d = Xa.shape
    if w.shape[0] != K:
        raise ValueError(f"weights must have one entry per arm (K={K}); got {w.shape[0]}")
    D = d * (d + 1) // 2
    iu = np.triu_indices(d)
    w = w.copy()
    for _ in range(K):
        S = np.flatnonzero(w > 0)
        if S.shape[0] <= D + 1:
            break
        M = np.empty((D + 1, S.shape[0]))
        for col, i in enumerate(S):
            M[:D, col] = np.outer(Xa[i], Xa[i])[iu]
        M[D] = 1.0
        _, _, Vt = np.linalg.svd(M)
        v = Vt[-1]
        if not np.any(v > 0):
            v = -v
        pos = v > 1e-14 * np.abs(v).max()
        t = np.min(w[S][pos] / v[pos])
        ws = w[S] - t * v
        ws[np.argmin(np.where(pos, w[S] / np.where(pos, v, 1.0), np.inf))] = 0.0
        ws = np.clip(ws, 0.0, None)
        w[S] = ws
        w /= w.sum()
    return w


@dataclass(frozen=True)
class GuaranteedRounding:
    """Counts with a certified ``(1 + eps)`` guarantee.

    Attributes
    ----------
    counts : ndarray of int64, shape (K,)
        Trials per arm, summing to ``n``.
    weights : ndarray, shape (K,)
        The (support-reduced) design that was rounded; ``A(weights) = A(input)``.
    support : int
        ``p``, its number of support points.
    r_eps : int
        ``r(eps)`` for this ``p``.
    factor : float
        Certified a-posteriori factor ``1 / min_i (n_i / (n w_i)) <= n/(n-p+1) <= 1 + eps``:
        for every ``y``, ``y^T (sum_i n_i x_i x_i^T)^{-1} y <= factor * y^T A(w)^{-1} y / n``.
    """

    counts: np.ndarray
    weights: np.ndarray
    support: int
    r_eps: int
    factor: float


def round_with_guarantee(X: object, weights: object, n: int, eps: float, *,
                         zero_tol: float = ZERO_TOL) -> GuaranteedRounding:
    r"""Round a design to ``n`` trials so that every minimax criterion is within ``1 + eps``.

    Guarantee: with ``N = sum_i n_i x_i x_i^T`` (``n_i`` the returned counts),
    ``N >= n A(w) / (1 + eps)`` in the Loewner order, hence for every target ``y``

    .. math:: \|y\|^2_{N^{-1}} \le (1 + \epsilon)\, \|y\|^2_{A(w)^{-1}} / n,

    so ``max_y ||y||^2_{N^{-1}} <= (1 + eps) rho(w) / n`` for the G, XY, transductive and
    oracle criteria alike (this is what RAGE's phase length relies on, Fiez et al. 2019,
    Algorithm 1 / Appendix B).

    Parameters
    ----------
    X : array_like, shape (K, d)
        Arms as rows.
    weights : array_like, shape (K,)
        Approximate design.
    n : int
        Number of trials; must be ``>= r(eps)`` (see :func:`rounding_requirement`) for the
        support size ``p`` after Carathéodory reduction (``p <= d(d+1)/2 + 1``).
    eps : float
        Tolerance ``> 0``.
    zero_tol : float
        Relative threshold below which weights count as zero.

    Returns
    -------
    GuaranteedRounding

    Raises
    ------
    ValueError
        Naming ``X``, ``weights``, ``n`` or ``eps``; in particular when ``n < r(eps)``.

    Examples
    --------
    >>> import numpy as np
    >>> res = round_with_guarantee(np.eye(2), [0.3, 0.7], 20, 0.1)
    >>> res.counts.tolist(), res.factor <= 1.1
    ([6, 14], True)
    """
    Xa = check_arms(X)
    n = check_positive_int(n, "n")
    e = _check_eps(eps)
    w = reduce_support(Xa, weights, zero_tol=zero_tol)
    p = int(np.count_nonzero(w))
    r = rounding_requirement(p, e)
    if n < r:
        raise ValueError(f"n={n} is below r(eps)={r} for a design with p={p} support points "
                         f"and eps={e:g} (r(eps) = ceil((p-1)(1+eps)/eps)); increase n")
    counts = efficient_round(w, n, zero_tol=0.0)
    S = w > 0
    eff = float(np.min(counts[S] / (n * w[S])))
    return GuaranteedRounding(counts=counts, weights=w, support=p, r_eps=r, factor=1.0 / eff)
