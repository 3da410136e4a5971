"""The design layer: optimal approximate designs on a finite set of arms, with certificates.

* :func:`g_optimal`, :func:`d_optimal`, :func:`kw_check` -- G/D-optimal designs and the
  Kiefer–Wolfowitz certificate of any weights.
* :func:`c_optimal`, :func:`c_check` -- c-optimal designs via Elfving's l1 program.
"""

from design.elfving import CCertificate, c_check, c_optimal
from design.gd import d_optimal, g_optimal, kw_check, variances
from design.result import Certificate, DesignResult

__all__ = [
    "CCertificate",
    "Certificate",
    "DesignResult",
    "c_check",
    "c_optimal",
    "d_optimal",
    "g_optimal",
    "kw_check",
    "variances",
]
