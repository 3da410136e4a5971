"""Public input checks of the design layer, for the layers built on it (bandits, rounding).

Every bad input is a ``ValueError`` naming the argument. :func:`as_arms` checks a (K, d)
matrix of arms (finite, non-empty, optionally spanning R^d), :func:`as_vector` a length-d
vector, :func:`as_weights` a design on the simplex; :func:`rank_of` is the one numerical-rank
rule from singular values.
"""

from design._validation import as_arms, as_vector, as_weights, rank_of

__all__ = ["as_arms", "as_vector", "as_weights", "rank_of"]
