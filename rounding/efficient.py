r"""Efficient rounding of approximate designs (Pukelsheim & Rieder, 1992).

An *approximate* design is a weight vector :math:`w` on the probability simplex over ``K``
arms; an *exact* design for a budget of ``n`` trials is an integer count vector summing to
``n``.  Efficient rounding turns the former into the latter while keeping the support.

References
----------
F. Pukelsheim and S. Rieder (1992), "Efficient rounding of approximate designs",
*Biometrika* 79(4), 763-770.

F. Pukelsheim (1993/2006), *Optimal Design of Experiments*, Chapter 12 ("Efficient design
apportionment").

M. Soare, A. Lazaric and R. Munos (2014), "Best-arm identification in linear bandits",
NeurIPS, Appendix C (incremental use of the rounding).

Notes on ties and the incremental order
---------------------------------------
Give every support arm its first trial for free and attach to the ``(m+1)``-th trial of arm
``i`` (``m >= 1``) the *priority key* :math:`m / w_i`.  Pukelsheim's two-phase rule only
ever adds the trial with the smallest key among the "next" trials (phase-2 increment:
``argmin_i n_i / w_i``) or removes the trial with the largest key among the "last" trials
(phase-2 decrement: ``argmax_i (n_i - 1) / w_i``), and phase 1 allocates exactly the
trials whose key is ``< n - p/2``.  So if keys are totally ordered by ``(key, arm index)``
the result for budget ``n`` is the first ``n - p`` trials of one fixed sequence -- the
allocation is *house monotone*.  This is Adams' divisor method from the apportionment
literature.

With exact ties between keys (e.g. equal weights), the literal rule "lowest index wins
every argmin/argmax" is **not** monotone: for ``w = (1/3, 1/3, 1/3)`` it gives
``(2, 1, 1)`` for ``n = 4`` and ``(1, 2, 2)`` for ``n = 5``.  We therefore break ties
*consistently in favour of the lower index*: the lowest index is the first to receive an
extra trial (increment) and the last to lose one (decrement, i.e. the decrement removes from
the **highest** tied index).  With that rule the result is monotone in ``n`` for every
weight vector, and :func:`incremental_allocation` reproduces it exactly.

All keys are computed as the same float64 division ``m / w_i`` everywhere, and phase 1 is
corrected so that it allocates exactly the trials whose *float* key is ``< n - p/2``; the
guarantees therefore hold in floating point, not only in exact arithmetic.  (A bare
``np.ceil((n - p/2) * w)`` is not enough: for ``w = (8, 3, 4, 6)/21`` the product lands a
hair above an integer and the literal float transcription gives ``(9, 3, 4, 6)`` at
``n = 22`` but ``(8, 4, 4, 7)`` at ``n = 23``.)  When weights that are "meant" to tie
(e.g. ``1/7`` and ``3/7``) do not tie exactly in float64, the float keys decide; the result
is still an efficient apportionment.
"""

from __future__ import annotations

import heapq

import numpy as np

from ._validation import ZERO_TOL, check_positive_int, check_weights

__all__ = ["MAX_TRIALS", "efficient_round", "incremental_allocation"]

#: Largest number of trials accepted: the keys ``m / w_i`` and ``(n - p/2) w_i`` are float64
#: computations, exact on integers only up to ``2**53``; beyond it the apportionment
#: identities (and the int64 counts, which overflow at ``2**63``) no longer hold.
MAX_TRIALS = 2**53


def _check_trials(n: object, name: str) -> int:
    """``n`` as a positive int no larger than :data:`MAX_TRIALS` (``ValueError`` naming it)."""
    n = check_positive_int(n, name)
    if n > MAX_TRIALS:
        raise ValueError(
            f"{name}={n} exceeds the largest supported number of trials 2**53 = {MAX_TRIALS}: "
            "the rounding keys are float64 and represent integer counts exactly only up to "
            "2**53; split the budget or round a smaller n"
        )
    return n


def _phase1(w: np.ndarray, n: int) -> np.ndarray:
    """Phase 1 on the support: ``c_i = ceil((n - p/2) w_i)``, made consistent with float keys.

    In exact arithmetic ``c_i - 1 = #{m >= 1 : m / w_i < nu}`` with ``nu = n - p/2``.  The
    float product ``nu * w_i`` can land on the wrong side of an integer, so we correct
    ``c_i`` until that identity holds for the float keys ``m / w_i`` used in phase 2.
    """
    p = w.shape[0]
    nu = n - p / 2.0  # exact (half-integer)
    c = np.maximum(np.ceil(nu * w), 1.0).astype(np.int64)
    for _ in range(8):  # float errors move c by at most one step; loop is a safety net
        down = (c >= 2) & ((c - 1) / w >= nu)
        up = (c / w) < nu
        if not (down.any() or up.any()):
            break
        c = c - down + up
    return c


def _efficient_round_support(w: np.ndarray, n: int) -> np.ndarray:
    """Efficient rounding for strictly positive weights ``w`` (the support) and ``n >= p``."""
    p = w.shape[0]
    c = _phase1(w, n)
    gap = n - int(c.sum())
    if gap == 0:
        return c
    idx = np.arange(p)
    cl = c.tolist()
    wl = w.tolist()
    if gap > 0:
        # Increase a count attaining min_j n_j / w_j; ties -> lowest index.  Only the `gap`
        # arms with the smallest (key, index) can ever be touched, so heap just those.
        keys = c / w
        first = np.lexsort((idx, keys))[:gap]
        heap = [(float(keys[j]), int(j)) for j in first]
        heapq.heapify(heap)
        for _ in range(gap):
            _, j = heapq.heappop(heap)
            cl[j] += 1
            heapq.heappush(heap, (cl[j] / wl[j], j))
    else:
        # Decrease a count attaining max_k (n_k - 1) / w_k; ties -> HIGHEST index (so the
        # lower index keeps its trial: consistent tie-breaking, see module notes).  Arms at
        # count 1 are never decreased (support is kept).
        k = -gap
        keys = np.where(c >= 2, (c - 1) / w, -np.inf)
        first = np.lexsort((-idx, -keys))[:k]
        heap = [(-float(keys[j]), -int(j)) for j in first]
        heapq.heapify(heap)
        for _ in range(k):
            _, mj = heapq.heappop(heap)
            j = -mj
            cl[j] -= 1
            if cl[j] >= 2:
                heapq.heappush(heap, (-((cl[j] - 1) / wl[j]), mj))
    return np.asarray(cl, dtype=np.int64)


def efficient_round(weights: object, n: int, *, zero_tol: float = ZERO_TOL) -> np.ndarray:
    r"""Round an approximate design to ``n`` trials by Pukelsheim's efficient rounding.

    Let :math:`S = \{i : w_i > 0\}` be the support and :math:`p = |S|`.

    * Phase 1: :math:`n_i = \lceil (n - p/2)\, w_i \rceil` for :math:`i \in S`.
    * Phase 2: while :math:`\sum_i n_i \neq n`: if the sum is below ``n``, increase a count
      :math:`n_j` attaining :math:`\min_i n_i / w_i`; if it is above, decrease a count
      :math:`n_k` attaining :math:`\max_i (n_i - 1)/w_i`.

    Arms outside the support get 0; every support arm gets at least 1.  The result is an
    *efficient apportionment*: :math:`\max_i (n_i - 1)/w_i \le \min_i n_i / w_i`, which is
    equivalent to maximising the efficiency bound :math:`\min_{i \in S} n_i / (n w_i)` over
    all allocations of ``n`` trials that keep the support.  That bound is at least
    :math:`1 - (p-1)/n`, and :math:`n w_i - p w_i \le n_i \le n w_i + 1`.

    Parameters
    ----------
    weights : array_like, shape (K,)
        Approximate design: finite, non-negative, summing to 1 within ``1e-8 * K``
        (renormalised).  Entries in ``[-1e-8, 0)`` are clipped to 0 as solver noise.
    n : int
        Number of trials, a positive integer with ``p <= n <= 2**53`` (:data:`MAX_TRIALS`:
        the keys are float64, exact on integers only up to ``2**53``).
    zero_tol : float, default 1e-12
        Weights ``<= zero_tol * max(weights)`` are treated as exactly zero (they are solver
        noise, and keeping them would force one trial each).  Pass 0 to keep every positive
        weight in the support.

    Returns
    -------
    numpy.ndarray of int64, shape (K,)
        Counts summing to ``n``.

    Raises
    ------
    ValueError
        If ``weights`` is not a valid design (message names ``weights``), or ``n`` is not a
        positive integer, ``n < p`` or ``n > 2**53`` (message names ``n``).

    Notes
    -----
    Tie-breaking is deterministic and always favours the **lower index**: in an increment
    the lowest tied index receives the trial; in a decrement the highest tied index loses
    it.  (The literal "lowest index for both argmin and argmax" is not monotone in ``n``;
    see the module notes.)  With this rule ``efficient_round(w, n + 1)`` equals
    ``efficient_round(w, n)`` plus one trial on one arm, for every ``n >= p``.

    Phase 2 takes at most ``p/2`` steps and is run with a heap over the ``O(|gap|)``
    candidate arms, so the cost is ``O(K + p log p)``.

    Examples
    --------
    >>> efficient_round([0.5, 0.3, 0.2], 7).tolist()
    [3, 2, 2]
    """
    w = check_weights(weights, zero_tol=zero_tol)
    n = _check_trials(n, "n")
    support = np.flatnonzero(w)
    p = support.shape[0]
    if n < p:
        smallest = np.sort(w[support])[: min(p - n, 5)]
        listed = ", ".join(f"{v:.3g}" for v in smallest) + (", ..." if p - n > 5 else "")
        raise ValueError(
            f"n={n} is smaller than the support size p={p}; efficient rounding keeps the "
            f"support, so it needs n >= p (the {p - n} smallest weights: {listed}). For "
            "fewer runs, compute an exact design of n runs (design.exact; oed design "
            "--exact N), or treat small solver weights as zero with zero_tol (oed round "
            "--zero-tol)"
        )
    counts = np.zeros(w.shape[0], dtype=np.int64)
    counts[support] = _efficient_round_support(w[support], n)
    return counts


def incremental_allocation(
    weights: object, n_max: int, *, zero_tol: float = ZERO_TOL
) -> tuple[np.ndarray, np.ndarray]:
    r"""A sequence of arms whose prefix counts are the efficient roundings for every ``n``.

    Returns an arm order ``order`` of length ``n_max`` such that, with
    ``counts(n) = np.bincount(order[:n], minlength=K)``,

    * for every ``p <= n <= n_max``: ``counts(n) == efficient_round(weights, n)`` exactly
      (same ``zero_tol``), so each step adds one trial to one arm and the prefix is always
      an efficient apportionment (Pukelsheim & Rieder, 1992);
    * for ``n < p``: ``order[:n]`` lists ``n`` distinct support arms, the heaviest first
      (ties: lower index first) -- efficient rounding itself is undefined there.

    Only support arms (``w_i > zero_tol * max w``) ever appear.

    Soare, Lazaric & Munos (2014, App. C) assume efficient rounding moves by a single +1
    from ``n`` to ``n + 1``.  That is true when there are no ties between the keys
    :math:`m / w_i`, but with ties it depends on tie-breaking (the literal lowest-index rule
    fails already for uniform weights on 3 arms, ``n = 4 -> 5``).  Because
    :func:`efficient_round` breaks ties consistently, the guarantee above holds for *all*
    weights.

    Construction: after the first ``p`` trials (one per support arm), the
    ``(m+1)``-th trial of arm ``i`` has key :math:`m / w_i`; the remaining trials are the
    keys sorted by ``(key, arm index)``, i.e. Pukelsheim's increment rule
    :math:`\arg\min_i n_i / w_i` run from the all-ones allocation.  Vectorised: ``O(n_max
    log n_max)``.

    Parameters
    ----------
    weights : array_like, shape (K,)
        Approximate design (validated as in :func:`efficient_round`).
    n_max : int
        Length of the sequence (positive integer, at most ``2**53``; may be smaller than
        ``p``).
    zero_tol : float, default 1e-12
        As in :func:`efficient_round`.

    Returns
    -------
    order : numpy.ndarray of int64, shape (n_max,)
        Arm indices in pull order.
    counts : numpy.ndarray of int64, shape (K,)
        ``np.bincount(order, minlength=K)``; equals ``efficient_round(weights, n_max)`` when
        ``n_max >= p``.

    Examples
    --------
    >>> order, counts = incremental_allocation([0.5, 0.3, 0.2], 7)
    >>> order.tolist(), counts.tolist()
    ([0, 1, 2, 0, 1, 0, 2], [3, 2, 2])
    """
    w = check_weights(weights, zero_tol=zero_tol)
    n_max = _check_trials(n_max, "n_max")
    K = w.shape[0]
    support = np.flatnonzero(w)
    ws = w[support]
    p = support.shape[0]
    # First p trials: one per support arm, heaviest first (ties -> lower index).
    head = support[np.lexsort((support, -ws))]
    if n_max <= p:
        order = head[:n_max].astype(np.int64)
        return order, np.bincount(order, minlength=K).astype(np.int64)
    final = _efficient_round_support(ws, n_max)
    extra = final - 1  # trials m + 1 = 2 .. final_i for each support arm
    local = np.repeat(np.arange(p), extra)
    starts = np.repeat(np.cumsum(extra) - extra, extra)
    m = (np.arange(local.shape[0]) - starts + 1).astype(np.float64)
    keys = m / ws[local]  # same float division as in phase 2
    tail = support[local[np.lexsort((local, keys))]]
    order = np.concatenate([head, tail]).astype(np.int64)
    counts = np.zeros(K, dtype=np.int64)
    counts[support] = final
    return order, counts
