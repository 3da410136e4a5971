"""``inner``: the decorator of a jitted helper that only other jitted kernels call.

The bandit kernels' name for :func:`design.linalg.inner` (defined once, in the design layer,
which the bandits build on): ``@njit(cache=True)`` without numba's CPython and C wrappers,
which a helper called only from jitted code never uses (first-call compile time, issue 16);
calling such a helper from Python raises ``TypeError`` instead of crashing.
"""

from __future__ import annotations

from design.linalg import InnerKernel, inner

__all__ = ["InnerKernel", "inner"]
