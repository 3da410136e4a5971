"""Public jitted linear-algebra helpers of the design layer, for the layers built on it.

:func:`cholesky_lower` (in-place Cholesky factor of a symmetric positive definite matrix,
False when it is not) and :func:`lower_inverse` (inverse of a lower-triangular factor),
callable from numba-jitted code (the bandits' least-squares state refreshes with them),
:func:`inverse_from_factor` (``M^{-1} = L^{-T} L^{-1}`` from the inverse factor) and
:func:`mv_into` (a small matrix-vector product as a plain loop, into a given vector): plain
loops, so that a caller needs neither ``@`` nor an array assignment, which cost seconds of
compilation on the first call (issue 16). They are compiled without a Python wrapper
(:func:`inner`): call them from jitted code; a Python call raises ``TypeError``.

:func:`inner` is the decorator of a jitted helper that only other jitted kernels call
(compiled without numba's Python and C wrappers; a Python call raises ``TypeError``,
:class:`InnerKernel`), used by the design kernels and, as ``bandits._core.jit.inner``, by
the bandit kernels.

:func:`blas_threads` (a context manager) limits the BLAS thread pools inside a block; the
design solvers and the bandits' exact refreshes run their small products on one thread.
"""

from design._gd_batch import blas_threads
from design._jit import InnerKernel, inner
from design._linalg import cholesky_lower, inverse_from_factor, lower_inverse, mv_into

__all__ = ["InnerKernel", "blas_threads", "cholesky_lower", "inner", "inverse_from_factor",
           "lower_inverse", "mv_into"]
