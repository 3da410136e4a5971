"""The design layer: optimal approximate designs on a finite set of arms, with certificates."""

from design.gd import d_optimal, g_optimal, kw_check, variances
from design.result import Certificate, DesignResult

__all__ = ["Certificate", "DesignResult", "d_optimal", "g_optimal", "kw_check", "variances"]
