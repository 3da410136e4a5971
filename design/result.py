"""Result and certificate objects shared by every design criterion."""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TypeVar

import numpy as np


class DesignConvergenceWarning(UserWarning):
    """A design solver stopped before certifying the requested tolerance.

    The returned :class:`DesignResult` is still honest (``converged=False``, its
    ``value``, ``lower_bound`` and ``gap`` are those of the returned weights) and its
    ``message`` says why it stopped and what to change.
    """


def _fmt_weights(weights: np.ndarray, support: np.ndarray, limit: int = 8) -> str:
    items = [f"{int(i)}: {weights[i]:.6g}" for i in support[:limit]]
    more = "" if support.size <= limit else f", ... ({support.size - limit} more)"
    return "{" + ", ".join(items) + more + "}"


@dataclass(frozen=True, repr=False)
class DesignResult:
    """An approximate design (weights on the candidate arms) with its certificate.

    Every criterion is written as a *minimisation* over the simplex, so that
    ``lower_bound <= optimum <= value`` always holds and the certified relative gap is
    ``gap = value (1 + eta) / lower_bound - 1`` (for positive criteria), where
    ``eta = info["rounding_error"]`` bounds the relative rounding error of the computed
    value (0 in exact arithmetic, ~1e-13 for well-conditioned arms; it grows with the
    condition number of the arms, see :class:`design._validation.ArmBasis`).

    Attributes
    ----------
    weights : ndarray, shape (K,)
        Design weights, non-negative, summing to one.
    value : float
        The criterion evaluated at ``weights``.
    lower_bound : float
        A certified lower bound on the optimal value (duality / equivalence theorem).
    gap : float
        Certified relative gap ``value (1 + eta) / lower_bound - 1``; the weights are
        within a factor ``1 + gap`` of optimal, rounding errors included.
    support : ndarray of int64
        Indices of the arms with positive weight.
    iterations : int
        Iterations used by the solver.
    solver : str
        Which solver produced the design.
    converged : bool
        Whether the requested tolerance was certified (``gap <= tol``).
    criterion : str
        Name of the criterion (``"G"``, ``"D"``, ``"c"``, ...).
    info : dict
        Extra, criterion-specific data (e.g. signed coefficients of the c-optimal LP).
    message : str
        Human-readable outcome, as in ``scipy.optimize.OptimizeResult``: why the solver
        stopped and, when not converged, what to change.
    """

    weights: np.ndarray
    value: float
    lower_bound: float
    gap: float
    support: np.ndarray
    iterations: int
    solver: str
    converged: bool
    criterion: str = ""
    info: dict = field(default_factory=dict)
    message: str = ""

    def __repr__(self) -> str:
        status = "converged" if self.converged else "NOT converged"
        return (
            f"DesignResult({self.criterion}-optimal, {status}, solver={self.solver!r}, "
            f"iterations={self.iterations},\n"
            f"  value={self.value:.10g}, lower_bound={self.lower_bound:.10g}, "
            f"gap={self.gap:.3e},\n"
            f"  support ({self.support.size} of {self.weights.size} arms)="
            f"{_fmt_weights(self.weights, self.support)})"
            + ("" if self.converged or not self.message else f"\n  message: {self.message}")
        )


_F = TypeVar("_F", bound=Callable[..., DesignResult])


def warns_if_not_converged(fn: _F) -> _F:
    """Decorate a public design function: fill ``message`` and warn when not converged.

    A result with ``converged=False`` gets a :class:`DesignConvergenceWarning` (pointing at
    the caller's line) and, unless the solver wrote one, the message
    ``"not converged: certified gap ... > tol ... after N iterations (solver); ..."``.
    Converged results get ``message="converged: ..."``. The values are never changed.
    """
    sig = inspect.signature(fn)

    @functools.wraps(fn)
    def wrapper(*args: object, **kwargs: object) -> DesignResult:
        res = fn(*args, **kwargs)
        if not isinstance(res, DesignResult):  # pragma: no cover - defensive
            return res
        try:
            bound = sig.bind(*args, **kwargs)
            bound.apply_defaults()
            tol = bound.arguments.get("tol")
        except TypeError:  # pragma: no cover - fn already validated its arguments
            tol = None
        tol_txt = f"tol={tol:g}" if isinstance(tol, (int, float)) else "the tolerance"
        if res.converged:
            if not res.message:
                res = replace(res, message=f"converged: certified gap {res.gap:.3g} <= "
                                           f"{tol_txt} after {res.iterations} iterations")
            return res
        if not res.message:
            if res.solver.startswith("cvxpy"):
                hint = "the solver's own tolerance limits it; try method='auto'"
            elif "max_iter" in sig.parameters:
                hint = "raise max_iter, loosen tol, or try method='cvxpy'"
            else:
                hint = "loosen tol or try another method"
            res = replace(res, message=(
                f"not converged: certified gap {res.gap:.3g} > {tol_txt} after "
                f"{res.iterations} iterations ({res.solver}); {hint}"))
        warnings.warn(f"{fn.__name__}: {res.message}", DesignConvergenceWarning, stacklevel=2)
        return res

    return wrapper  # type: ignore[return-value]


@dataclass(frozen=True, repr=False)
class Certificate:
    """Kiefer–Wolfowitz / equivalence-theorem certificate of a given design.

    Attributes
    ----------
    max_variance : float
        ``max_x x^T A(w)^{-1} x`` over the candidate arms.
    argmax : int
        Arm attaining the maximum variance (the lowest index among arms tied with it up to
        the rounding error).
    d : int
        Dimension, the optimal value of the maximum variance (Kiefer–Wolfowitz 1960).
    g_efficiency : float
        ``d / (max_variance (1 + rounding_error))``; also a lower bound on the D-efficiency
        ``(det A(w) / det A(w*))^{1/d}``.
    within_tol : bool
        ``g_efficiency >= 1 - tol``.
    tol : float
        Tolerance used for ``within_tol``.
    rounding_error : float
        Bound ``eta`` on the relative rounding error of ``max_variance`` (from the
        conditioning of the arms and of the design, see
        :class:`design._validation.ArmBasis`); ``g_efficiency = d / (max_variance (1 +
        eta))`` so that it stays a true lower bound. ``inf`` for a singular design.
    """

    max_variance: float
    argmax: int
    d: int
    g_efficiency: float
    within_tol: bool
    tol: float
    rounding_error: float = 0.0

    def __repr__(self) -> str:
        verdict = "within" if self.within_tol else "NOT within"
        return (
            f"Certificate(max_variance={self.max_variance:.10g} (arm {self.argmax}), d={self.d}, "
            f"G-efficiency={self.g_efficiency:.10f}, {verdict} tol={self.tol:g})"
        )
