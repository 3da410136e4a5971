r"""Hadamard designs for estimating individual means from joint (sum) feedback of K-subsets.

In top-K subset bandits with full-bandit feedback (Rejwan & Mansour 2020, "Top-k
Combinatorial Bandits with Full-Bandit Feedback", ALT; used as the CSAR baseline by
Agarwal, Aggarwal, Quinn & Umrawal, "DART") the learner may only query sets of exactly
``K`` arms and observes one number per query,

.. math:: y(S) = c + \sum_{i \in S} \theta_i + \text{noise}, \qquad |S| = K,

where ``c`` is an unknown constant shared by every query (e.g. the contribution of arms that
are always played).  The question of *which* K-subsets to query so that every
:math:`\theta_i` is estimated with the smallest variance is an experimental design problem.

The Hadamard design
-------------------
Let :math:`H` be a Hadamard matrix of order :math:`b = 2K` (entries :math:`\pm 1`,
:math:`H H^\top = b I`), normalised so that its first row is all ones.  Every other row
:math:`h_r` (``r = 1..b-1``) is orthogonal to the first, so it has exactly ``K`` entries
``+1`` and ``K`` entries ``-1``.  For a block of ``b`` arms, row ``r`` defines two
*complementary* K-subsets

.. math:: S_r^+ = \{i : h_{ri} = +1\}, \qquad S_r^- = \{i : h_{ri} = -1\},

so the design has ``2(b-1)`` queries per block, each of exactly ``K`` arms, and every arm is
in exactly half of them.  With :math:`y_r^\pm = y(S_r^\pm)`:

* :math:`y_r^+ - y_r^- = h_r^\top\theta` (the constant cancels), and
* :math:`y_r^+ + y_r^- = \mathbf 1^\top\theta + 2c` for every ``r``.

Since :math:`\sum_{r\ge 1} h_{ri}h_{rj} = b\,\delta_{ij} - 1` (orthogonality of the columns
minus the all-ones row), the estimator

.. math:: \hat\theta_i = \frac1b\Big[\sum_{r=1}^{b-1} h_{ri}(y_r^+ - y_r^-)
          + \frac{1}{b-1}\sum_{r=1}^{b-1}(y_r^+ + y_r^-)\Big]

satisfies :math:`E\hat\theta_i = \theta_i + 2c/b = \theta_i + c/K`: unbiased *up to one
constant shared by all arms of all blocks*, which is all a top-K rule needs (it only compares
arms).  If the queries have independent noise of variance :math:`s^2`, then

.. math:: \operatorname{Var}\hat\theta_i = \frac{2(b-1)(1 + (b-1)^{-2})}{b^2}\,s^2
          \approx \frac{s^2}{K}

per block repetition of ``2(b-1) ≈ 4K`` queries, i.e. about two queries per arm: the same
precision per query as observing each arm on its own, although every observation mixes
``K`` arms.  The naive alternative, the *leave-one-out* design on ``K+1`` arms (query the
block minus one arm, ``K+1`` queries), gives :math:`\hat\theta_j = \frac1K\sum_i y_i - y_j`
with variance :math:`(1 - 1/K + 1/K^2)s^2 \approx s^2` per repetition of ``K+1`` queries:
``K/2`` times fewer arms per unit of precision.  Both are returned by
:func:`subset_design`; the Hadamard one whenever a Hadamard matrix of order ``2K`` is
constructed here (Sylvester: ``2K`` a power of two, i.e. ``K`` in {1, 2, 4, 8, ...}).

Hadamard matrices of order ``b`` exist only for ``b`` in {1, 2} or ``b`` divisible by 4, so
for odd ``K >= 3`` no Hadamard design on ``2K`` arms exists; :func:`subset_design` then
returns the leave-one-out design (``kind="leave-one-out"``) and says so.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["SubsetDesign", "has_hadamard", "sylvester_hadamard", "subset_design"]


def sylvester_hadamard(order: int) -> np.ndarray:
    r"""Sylvester's Hadamard matrix of a power-of-two order.

    :math:`H_{ij} = (-1)^{\mathrm{popcount}(i \,\&\, j)}` (Sylvester 1867), equal to the
    Kronecker power :math:`H_2^{\otimes m}`; symmetric, first row and column all ones,
    :math:`H H^\top = \text{order}\cdot I` (:func:`scipy.linalg.hadamard`).

    Parameters
    ----------
    order : int
        A power of two, ``>= 1``.

    Returns
    -------
    ndarray of int64, shape (order, order)

    Raises
    ------
    ValueError
        If ``order`` is not a positive power of two.
    """
    from scipy.linalg import hadamard

    if isinstance(order, bool) or int(order) != order or order < 1 or (order & (order - 1)):
        raise ValueError(f"order must be a positive power of two; got {order!r}")
    return hadamard(int(order), dtype=np.int64)


def has_hadamard(K: int) -> bool:
    """Whether :func:`subset_design` builds a Hadamard design for subsets of size ``K``
    (a Sylvester matrix of order ``2K``: ``K`` a power of two)."""
    return K >= 1 and (K & (K - 1)) == 0


@dataclass(frozen=True)
class SubsetDesign:
    r"""A design of K-subset queries on a block of ``b`` arms and its linear estimator.

    Attributes
    ----------
    kind : str
        ``"hadamard"`` (block ``b = 2K``, ``2(b-1)`` queries) or ``"leave-one-out"``
        (block ``b = K+1``, ``b`` queries).
    K : int
        Size of every queried subset.
    queries : ndarray of int64, shape (q, K)
        Row ``j`` lists the positions (in ``0..b-1``) of the arms of query ``j``.
    coef : ndarray of float64, shape (b, q)
        The estimator: :math:`\hat\theta = \text{coef}\, y` for the vector ``y`` of the
        ``q`` observed joint rewards; :math:`E\hat\theta = \theta + c/K` under the linear
        model :math:`y_j = c + \sum_{i\in S_j}\theta_i`.
    hadamard : ndarray or None
        The ``b x b`` Hadamard matrix used (``None`` for leave-one-out).
    """

    kind: str
    K: int
    queries: np.ndarray
    coef: np.ndarray
    hadamard: np.ndarray | None = None

    @property
    def block(self) -> int:
        """Number of arms ``b`` estimated by one repetition of the design."""
        return int(self.coef.shape[0])

    @property
    def n_queries(self) -> int:
        """Number of K-subset queries ``q`` of one repetition."""
        return int(self.queries.shape[0])

    @property
    def incidence(self) -> np.ndarray:
        """0/1 matrix ``(q, b)``: which arms each query contains."""
        M = np.zeros((self.n_queries, self.block), dtype=np.int64)
        for j, row in enumerate(self.queries):
            M[j, row] = 1
        return M

    def variance_factor(self) -> float:
        r""":math:`\max_i \sum_j \text{coef}_{ij}^2`: the variance of :math:`\hat\theta_i`
        per repetition, in units of the variance of one query (independent queries)."""
        return float((self.coef**2).sum(axis=1).max())

    def estimate(self, y: np.ndarray) -> np.ndarray:
        """Estimates of the ``b`` block means (up to the shared constant ``c/K``) from the
        rewards ``y`` (shape ``(q,)``, or ``(reps, q)`` averaged over repetitions)."""
        y = np.asarray(y, dtype=float)
        if y.shape[-1] != self.n_queries:
            raise ValueError(f"y must have {self.n_queries} rewards per repetition; "
                             f"got shape {y.shape}")
        if y.ndim == 2:
            y = y.mean(axis=0)
        return self.coef @ y


def subset_design(K: int, kind: str = "auto") -> SubsetDesign:
    r"""The query design for estimating individual means from sums of ``K`` arms.

    Parameters
    ----------
    K : int
        Subset size, ``>= 1``.
    kind : {"auto", "hadamard", "leave-one-out"}
        ``"auto"``: Hadamard when :func:`has_hadamard` (``K`` a power of two), otherwise
        leave-one-out.

    Returns
    -------
    SubsetDesign

    Raises
    ------
    ValueError
        If ``K < 1``, ``kind`` is unknown, or ``kind="hadamard"`` for a ``K`` without a
        Hadamard matrix of order ``2K`` here.

    Examples
    --------
    >>> d = subset_design(2)
    >>> d.block, d.n_queries
    (4, 6)
    >>> theta = np.array([0.1, 0.4, 0.2, 0.9])
    >>> y = d.incidence @ theta + 0.5          # shared constant c = 0.5
    >>> np.allclose(d.estimate(y), theta + 0.5 / 2)
    True
    """
    if isinstance(K, bool) or int(K) != K or K < 1:
        raise ValueError(f"K must be a positive integer; got {K!r}")
    K = int(K)
    if kind not in ("auto", "hadamard", "leave-one-out"):
        raise ValueError(f"kind must be 'auto', 'hadamard' or 'leave-one-out'; got {kind!r}")
    if kind == "hadamard" and not has_hadamard(K):
        raise ValueError(f"no Hadamard matrix of order 2K = {2 * K} is constructed here "
                         "(K must be a power of two); use kind='leave-one-out'")
    if kind == "hadamard" or (kind == "auto" and has_hadamard(K)):
        b = 2 * K
        H = sylvester_hadamard(b)
        queries = np.empty((2 * (b - 1), K), dtype=np.int64)
        coef = np.empty((b, 2 * (b - 1)))
        a = 1.0 / (b - 1)
        for r in range(1, b):
            queries[2 * (r - 1)] = np.flatnonzero(H[r] == 1)
            queries[2 * (r - 1) + 1] = np.flatnonzero(H[r] == -1)
            coef[:, 2 * (r - 1)] = (H[r] + a) / b
            coef[:, 2 * (r - 1) + 1] = (-H[r] + a) / b
        return SubsetDesign("hadamard", K, queries, coef, H)
    b = K + 1
    queries = np.array([[i for i in range(b) if i != j] for j in range(b)], dtype=np.int64)
    coef = np.full((b, b), 1.0 / K) - np.eye(b)
    return SubsetDesign("leave-one-out", K, queries, coef, None)
