"""Public jitted linear-algebra helpers of the design layer, for the layers built on it.

:func:`cholesky_lower` (in-place Cholesky factor of a symmetric positive definite matrix,
False when it is not) and :func:`lower_inverse` (inverse of a lower-triangular factor),
callable from numba-jitted code (the bandits' least-squares state refreshes with them).
"""

from design._linalg import cholesky_lower, lower_inverse

__all__ = ["cholesky_lower", "lower_inverse"]
