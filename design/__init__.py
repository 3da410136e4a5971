"""The design layer: optimal approximate designs on a finite set of arms, with certificates.

* :func:`g_optimal`, :func:`d_optimal`, :func:`kw_check` -- G/D-optimal designs and the
  Kiefer–Wolfowitz certificate of any weights.
* :func:`c_optimal`, :func:`c_check` -- c-optimal designs via Elfving's l1 program.
* :func:`xy_optimal`, :func:`minimax_optimal`, :func:`h_optimal`, :func:`g_optimal_hessian`,
  :func:`xy_check`, :func:`minimax_check` -- XY / transductive, weighted minimax and
  H-optimal (GLM) designs with equivalence-theorem certificates.
* :func:`a_optimal`, :func:`i_optimal`, :func:`ds_optimal`, :func:`linear_optimal`,
  :func:`criterion_check`, :func:`moment_matrix` -- A-, I- (integrated variance), Ds- and
  general linear-criterion designs with equivalence-theorem certificates.
* :func:`model_matrix`, :func:`model_terms`, :func:`box_grid`, :func:`simplex_grid` --
  polynomial regression models on factor settings and candidate grids.
* :func:`exact`, :func:`exact_value` -- exact designs of ``n`` runs by exchange (bin, caps,
  fixed runs), with a certified efficiency.
* :func:`constrained_optimal` -- approximate designs under caps, linear resource
  constraints and fixed runs, with duality certificates.
* :class:`DesignConvergenceWarning` -- raised (as a warning) by every design function whose
  result is not certified within ``tol``; the result's ``message`` says why.
* :mod:`design.greedy` -- greedy incremental rules (Soare et al. Eq. 22 and 26).
* :mod:`design.complexity` -- l1-minimal weights of arm differences (the bandit
  complexity constants built on them are in :mod:`bandits.complexity`).
"""

from design._version import __version__ as __version__  # re-exported
from design.constrained import constrained_optimal
from design.criteria import (
    CriterionCertificate,
    a_optimal,
    criterion_check,
    ds_optimal,
    i_optimal,
    linear_optimal,
    moment_matrix,
)
from design.elfving import CCertificate, c_check, c_optimal
from design.exact import ExactDesign, exact, exact_value
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
from design.models import (
    Regressors,
    box_grid,
    coded,
    model_matrix,
    model_terms,
    regressors,
    simplex_grid,
    spans_constant,
)
from design.result import Certificate, DesignConvergenceWarning, DesignResult

__all__ = [
    "CCertificate",
    "Certificate",
    "CriterionCertificate",
    "DesignConvergenceWarning",
    "DesignResult",
    "ExactDesign",
    "GreedyChoice",
    "MinimaxCertificate",
    "Regressors",
    "a_optimal",
    "box_grid",
    "coded",
    "c_check",
    "c_optimal",
    "constrained_optimal",
    "criterion_check",
    "d_optimal",
    "ds_optimal",
    "exact",
    "exact_value",
    "g_optimal",
    "g_optimal_hessian",
    "greedy_g_step",
    "greedy_minimax_step",
    "greedy_xy_step",
    "h_optimal",
    "i_optimal",
    "kw_check",
    "linear_optimal",
    "minimax_check",
    "minimax_optimal",
    "model_matrix",
    "model_terms",
    "moment_matrix",
    "pairwise_differences",
    "regressors",
    "sherman_morrison_update",
    "two_approx_g_design",
    "simplex_grid",
    "spans_constant",
    "variances",
    "xy_check",
    "xy_optimal",
]
