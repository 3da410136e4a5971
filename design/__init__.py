"""The design layer: optimal approximate designs on a finite set of arms, with certificates.

* :func:`g_optimal`, :func:`d_optimal`, :func:`kw_check` -- G/D-optimal designs and the
  Kiefer–Wolfowitz certificate of any weights.
* :func:`c_optimal`, :func:`c_check` -- c-optimal designs via Elfving's l1 program.
* :func:`xy_optimal`, :func:`minimax_optimal`, :func:`h_optimal`, :func:`g_optimal_hessian`,
  :func:`xy_check`, :func:`minimax_check` -- XY / transductive, weighted minimax and
  H-optimal (GLM) designs with equivalence-theorem certificates.
* :mod:`design.greedy` -- greedy incremental rules (Soare et al. Eq. 22 and 26).
* :mod:`design.complexity` -- l1-minimal weights of arm differences (the bandit
  complexity constants built on them are in :mod:`bandits.complexity`).
"""

from design.elfving import CCertificate, c_check, c_optimal
from design.gd import d_optimal, g_optimal, kw_check, two_approx_g_design, variances
from design.greedy import (
    GreedyChoice,
    greedy_g_step,
    greedy_minimax_step,
    greedy_xy_step,
    sherman_morrison_update,
)
from design.minimax import (
    MinimaxCertificate,
    g_optimal_hessian,
    h_optimal,
    minimax_check,
    minimax_optimal,
    pairwise_differences,
    xy_check,
    xy_optimal,
)
from design.result import Certificate, DesignResult

__all__ = [
    "CCertificate",
    "Certificate",
    "DesignResult",
    "GreedyChoice",
    "MinimaxCertificate",
    "c_check",
    "c_optimal",
    "d_optimal",
    "g_optimal",
    "g_optimal_hessian",
    "greedy_g_step",
    "greedy_minimax_step",
    "greedy_xy_step",
    "h_optimal",
    "kw_check",
    "minimax_check",
    "minimax_optimal",
    "pairwise_differences",
    "sherman_morrison_update",
    "two_approx_g_design",
    "variances",
    "xy_check",
    "xy_optimal",
]
