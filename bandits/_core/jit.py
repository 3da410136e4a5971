"""``inner``: the decorator of a jitted helper that only other jitted kernels call.

A helper compiled without numba's CPython and C wrappers (``no_cpython_wrapper``,
``no_cfunc_wrapper``): a shorter first-call compile, the same machine code; a Python call
raises ``TypeError`` instead of crashing. One implementation for the toolkit, in the design
layer (``design._jit``, public through :mod:`design.linalg`); the bandit kernels import it
from here.
"""

from __future__ import annotations

from design.linalg import InnerKernel, inner

__all__ = ["InnerKernel", "inner"]
