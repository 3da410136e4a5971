r"""Criterion loss from rounding an approximate design to an exact one.

For arms :math:`x_1, \dots, x_K \in \mathbb{R}^d` (rows of ``X``) and a design :math:`\xi`
on them, :math:`A(\xi) = \sum_a \xi_a x_a x_a^\top`.  The rounded design of counts
:math:`n_a` with :math:`n = \sum_a n_a` is :math:`\xi_a = n_a / n`.

* G: :math:`\max_a x_a^\top A(\xi)^{-1} x_a` (maximum over *all* arms, also those with
  zero weight).
* D: :math:`\det A(\xi)^{-1/d}`.

Both are to be minimised, positively homogeneous of degree -1 and antitone in the Loewner
order, so if :math:`n_a / n \ge e\, w_a` for all ``a`` then
:math:`\Phi(\text{rounded}) \le \Phi(w) / e`.  With :math:`e = \min_{a: w_a > 0}
n_a / (n w_a)` (Pukelsheim's efficiency bound, maximised by efficient rounding) this gives
the rigorous *a posteriori* bound reported as ``certified_bound``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from ._validation import ZERO_TOL, check_arms, check_counts, check_weights

__all__ = ["RoundingLoss", "efficiency_loss"]


@dataclass(frozen=True)
class RoundingLoss:
    """Criterion values of an approximate design and of its rounded exact design.

    Attributes
    ----------
    criterion : {"G", "D"}
        Which criterion (both are minimised).
    approx_value : float
        Criterion of the approximate design ``weights`` (``inf`` if ``A(w)`` is singular).
    rounded_value : float
        Criterion of the rounded design ``counts / n`` (``inf`` if singular).
    ratio : float
        ``rounded_value / approx_value`` (``nan`` if both are ``inf``).  If ``weights`` is
        optimal for the criterion, ``ratio >= 1``.  Both values are computed in floating
        point, so when a bound below is attained exactly ``ratio`` may exceed it by
        rounding error (a few ulps times the condition number of the information matrix);
        compare with a relative tolerance.
    bound : float
        ``n / (n - p + 1)`` (``inf`` if ``n < p``): a rigorous a-priori bound on ``ratio``
        whenever ``counts`` is an efficient rounding of ``weights`` (``p`` = support size
        of ``weights``).  Attained for G by ``X = I_p``, uniform weights, ``n = 2p - 1``.
    stated_bound : float
        ``1 + p/n``, the factor quoted by Soare, Lazaric & Munos (2014, Lemma 5) from
        Pukelsheim's Ch. 12.  It is **not** a valid bound for G when ``n < p (p - 1)``:
        e.g. ``X = I_3``, uniform weights, ``n = 5`` gives ``ratio = 5/3 > 8/5`` (and no
        allocation of 5 trials does better).  For ``n >= p (p - 1)`` it dominates ``bound``.
    certified_bound : float
        ``1 / efficiency``: a rigorous a-posteriori bound on ``ratio`` for *these*
        ``counts``, whatever rounding produced them (``inf`` if a support arm of ``weights``
        got no trial).  ``certified_bound <= bound`` for efficient rounding.
    efficiency : float
        Pukelsheim's efficiency bound ``min_{a: w_a > 0} counts_a / (n w_a)``.
    n : int
        Number of trials, ``counts.sum()``.
    p : int
        Support size of ``weights``.
    """

    criterion: str
    approx_value: float
    rounded_value: float
    ratio: float
    bound: float
    stated_bound: float
    certified_bound: float
    efficiency: float
    n: int
    p: int


def _arm_basis(X: np.ndarray) -> tuple[np.ndarray, float] | None:
    """``(Q, log|det R|)`` of a QR ``X = Q R`` of the column-equilibrated arms, or None if
    they are rank-deficient at float64 precision (``s_min <= s_max max(K, d) eps``,
    numpy's ``matrix_rank`` threshold).

    G and D ratios are invariant under ``X -> X T``: on ``Q`` (condition number 1) the
    information matrix is not the square of an ill-conditioned ``X``. Cholesky QR when the
    equilibrated condition number is at most 1e5, Householder otherwise -- the same basis
    as :func:`design._validation.arm_basis`, kept local because ``rounding`` does not
    import ``design``.
    """
    K, d = X.shape
    norms = np.linalg.norm(X, axis=0)
    if np.any(norms == 0.0):
        return None
    Xs = X / norms
    G = Xs.T @ Xs
    ev = np.linalg.eigvalsh(G)
    if ev[0] > 0.0 and ev[-1] <= 1e10 * ev[0]:
        R0 = np.linalg.cholesky(G).T
        Q = Xs @ np.linalg.inv(R0)
    else:
        Q, R0 = np.linalg.qr(Xs)
        s = np.linalg.svd(R0, compute_uv=False)
        if not s[-1] > s[0] * max(K, d) * np.finfo(float).eps:
            return None
    return Q, float(np.sum(np.log(np.abs(np.diag(R0)))) + np.sum(np.log(norms)))


def _criterion(X: np.ndarray, xi: np.ndarray, criterion: str,
               basis: tuple[np.ndarray, float] | None = None) -> float:
    """G or D criterion of the design ``xi``; ``inf`` if the information matrix is singular.

    Computed on ``Q`` from :func:`_arm_basis` (pass it to avoid a second QR):
    ``x^T A_X^{-1} x = q^T A_Q^{-1} q`` and ``det A_X = det A_Q |det R|^2``, with ``A_Q``
    as well-conditioned as the design itself allows.
    """
    d = X.shape[1]
    if basis is None:
        basis = _arm_basis(X)
    if basis is None:
        return float("inf")
    Q, logdet_r = basis
    A = Q.T @ (xi[:, None] * Q)
    A = 0.5 * (A + A.T)
    lam, V = np.linalg.eigh(A)
    lam_max = float(lam[-1])
    if lam_max <= 0.0 or float(lam[0]) <= lam_max * d * 1e3 * np.finfo(float).eps:
        return float("inf")
    if criterion == "D":
        return float(np.exp(-(np.sum(np.log(lam)) + 2.0 * logdet_r) / d))
    Z = Q @ V
    return float(np.max(np.sum(Z * Z / lam, axis=1)))


def efficiency_loss(
    X: object,
    weights: object,
    counts: object,
    criterion: Literal["G", "D"] = "G",
    *,
    zero_tol: float = ZERO_TOL,
) -> RoundingLoss:
    r"""Compare the criterion of an approximate design with that of its rounding.

    Parameters
    ----------
    X : array_like, shape (K, d)
        Arms as rows; finite.
    weights : array_like, shape (K,)
        Approximate design on the simplex (validated as in
        :func:`rounding.efficient_round`).
    counts : array_like of int, shape (K,)
        Exact design, e.g. ``efficient_round(weights, n)``; non-negative integers, positive
        total ``n``.
    criterion : {"G", "D"}
        G: :math:`\max_a x_a^\top A^{-1} x_a`; D: :math:`\det(A)^{-1/d}`, with
        :math:`A(\xi) = \sum_a \xi_a x_a x_a^\top`.
    zero_tol : float, default 1e-12
        Weights below ``zero_tol * max(weights)`` count as outside the support.

    Returns
    -------
    RoundingLoss
        Values, their ratio, the a-priori bound ``n / (n - p + 1)``, the literature factor
        ``1 + p/n`` and the certified bound ``1 / min_a (counts_a / (n w_a))``.

    Raises
    ------
    ValueError
        Naming ``X``, ``weights``, ``counts`` or ``criterion`` when that input is invalid or
        the shapes disagree.

    Notes
    -----
    Efficient rounding satisfies :math:`\max_a (n_a - 1)/w_a \le \min_a n_a / w_a =: \mu`;
    summing :math:`n_a - 1 \le \mu w_a` over the arms other than the minimiser gives
    :math:`\mu \ge n - p + 1`, so the efficiency :math:`e = \mu / n \ge (n - p + 1)/n` and
    ``ratio <= 1/e <= n / (n - p + 1)``.  Soare et al. (2014, Lemma 5) quote ``1 + p/n``;
    that is smaller than ``n / (n - p + 1)`` when ``n < p (p - 1)`` and is violated for G
    (see ``RoundingLoss.stated_bound``), so it is only reported for comparison.
    """
    if criterion not in ("G", "D"):
        raise ValueError(f"criterion must be 'G' or 'D'; got {criterion!r}")
    Xa = check_arms(X, "X")
    K = Xa.shape[0]
    w = check_weights(weights, "weights", zero_tol=zero_tol)
    if w.shape[0] != K:
        raise ValueError(f"weights has length {w.shape[0]} but X has K={K} arms (rows)")
    c = check_counts(counts, K, "counts")
    n = int(c.sum())
    support = w > 0
    p = int(support.sum())
    basis = _arm_basis(Xa)  # one QR; both designs are evaluated in that basis
    approx = _criterion(Xa, w, criterion, basis)
    rounded = _criterion(Xa, c / n, criterion, basis)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = float(np.divide(rounded, approx))
    eff = float(np.min(c[support] / (n * w[support])))
    certified = float("inf") if eff == 0.0 else 1.0 / eff
    return RoundingLoss(
        criterion=criterion,
        approx_value=approx,
        rounded_value=rounded,
        ratio=ratio,
        bound=float("inf") if n < p else n / (n - p + 1),
        stated_bound=1.0 + p / n,
        certified_bound=certified,
        efficiency=eff,
        n=n,
        p=p,
    )
