"""The confidence rule shared by the accept/reject subset algorithms (DART, CSAR, UCB).

Each of them decides from estimates (DART: per-arm means of joint rewards; CSAR: the arm
values of its Hadamard / leave-one-out design; improved UCB: the mean reward of a subset)
once they are within a radius ``r`` of their means, and chooses its sample sizes as

.. math:: n(r) = c\\,v\\,\\log L / r^2

for an estimate with variance proxy ``v`` (1/4 for a mean of rewards in [0, 1]) and a log
term ``log L``. With ``c = 2`` this is exactly the sub-Gaussian tail bound
(``P(|est - mean| >= r) <= 2 exp(-n r^2 / (2 v)) = 2 / L``); DART's printed test
``32 ln(NT) / Delta^2`` is ``c = 32`` at radius ``Delta / 2`` with ``L = NT``.

=============  =========================  ===========================  =================
algorithm      radius                     log term                     paper's c
=============  =========================  ===========================  =================
DART           ``Delta / 2`` (margin       ``log(union N T)``,          32 (``union = 1``)
               ``Delta``)                  ``union = 1`` printed
CSAR           ``eps_s`` (margin           ``log(2 N T)``               2 (reconstruction)
               ``2 eps_s``)
improved UCB   ``Delta_m / 2``             ``log(T Delta_m^2)``         2 (Auer & Ortner)
=============  =========================  ===========================  =================

:data:`MATCHED` (``c = 2``, ``union = 2``: the union bound over ``N`` arms and ``T`` steps)
gives all three the same rule; :data:`DART_PRINTED` is DART's constant as printed. The
formulas live once, in :func:`bandits.subsets._kernels.confidence_samples` and
:func:`~bandits.subsets._kernels.confidence_radius`, which the jitted step kernels of the
three algorithms call.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from bandits.subsets import _kernels as _k

__all__ = ["DART_PRINTED", "MATCHED", "ConfidenceRule"]


class ConfidenceRule(NamedTuple):
    """``n(r) = c v log L / r^2`` (see the module docstring).

    Attributes
    ----------
    c : float
        The multiplier (2: the sub-Gaussian bound).
    union : float
        DART's log term is ``log(union N T)`` (CSAR's is ``log(2NT)``, UCB's
        ``log(T Delta^2)``).
    """

    c: float = 2.0
    union: float = 2.0

    def checked(self) -> ConfidenceRule:
        """The rule with ``c > 0`` and ``union > 0`` finite, else a ValueError naming them."""
        for name in ("c", "union"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not (
                    math.isfinite(v) and v > 0):
                raise ValueError(f"{name} must be a finite number > 0; got {v!r}")
        return ConfidenceRule(float(self.c), float(self.union))

    def samples(self, variance: float, log_term: float, radius: float) -> float:
        """``c variance log_term / radius^2`` (the jitted kernel's value)."""
        return float(_k.confidence_samples(float(self.c), float(variance), float(log_term),
                                           float(radius)))

    def radius(self, variance: float, log_term: float, n: float) -> float:
        """``sqrt(c variance log_term / n)``."""
        return float(_k.confidence_radius(float(self.c), float(variance), float(log_term),
                                          float(n)))

    def dart_epochs(self, N: int, T: int, delta: float) -> float:
        """Epochs before DART tests level ``delta``: ``c log(union N T) / delta^2``."""
        return self.samples(_k.UNIT_VARIANCE, math.log(self.union * N * T), delta / 2.0)

    def csar_repetitions(self, variance: float, N: int, T: int, eps: float) -> int:
        """Repetitions of CSAR's design in a phase of accuracy ``eps``:
        ``ceil(c v log(2NT) / eps^2)``."""
        return int(math.ceil(self.samples(variance, math.log(2.0 * N * T), eps)))

    def ucb_samples(self, T: int, delta_m: float) -> int:
        """Samples per subset in improved UCB's round ``Delta_m``:
        ``ceil(c log(T Delta_m^2) / Delta_m^2)``."""
        return int(math.ceil(self.samples(_k.UNIT_VARIANCE, math.log(T * delta_m**2),
                                          delta_m / 2.0)))


#: One rule for all three: the sub-Gaussian bound with the union over N arms and T steps.
MATCHED = ConfidenceRule(2.0, 2.0)
#: DART's test as printed (Algorithm 1): ``32 ln(NT) / Delta^2``.
DART_PRINTED = ConfidenceRule(32.0, 1.0)
