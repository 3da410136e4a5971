"""Outcome codes of the jitted design solvers: one definition shared by every kernel
(the Wolfe–Atwood kernel of G/D designs and the barrier kernel of minimax designs), so
that a code means the same thing wherever it is read."""

CONVERGED = 0
"""The certified gap reached the tolerance."""
MAX_ITER = 1
"""The iteration cap was reached first (the result carries its honest gap)."""
STALLED = 2
"""No further progress in floating point (barrier kernel)."""
SINGULAR = 3
"""The information matrix became numerically singular."""
CENTRED = 4
"""A centring step of the barrier kernel finished (internal)."""
REFRESH = 5
"""An exchange kernel needs the exact state recomputed by its caller (internal)."""
