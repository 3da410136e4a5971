"""Argument checks shared by every bandit family: one implementation of each.

The scalar validators are the toolkit's shared ones (:mod:`rounding.validation`: integers,
seeds, budgets, reals, probabilities; each raises a ``ValueError`` naming the argument);
matrices go through :func:`design.validation.as_arms` (the design layer's check), so a bad
``X`` reads the same wherever it is passed. This module adds the few bandit-specific
combinations and is what the families import.
"""

from __future__ import annotations

import numpy as np

from design.linalg import blas_threads
from design.validation import as_arms, rank_of
from rounding.validation import (
    as_real_array,
    check_budget,
    check_int,
    check_probability,
    check_real,
    check_seed,
)

__all__ = ["SIMULATIONS", "as_arms", "as_arms_and_targets", "as_matrix", "as_real_array",
           "MAX_ARMS_CONDITION", "arms_condition", "check_arms_span", "check_budget",
           "check_conditioning", "check_int", "check_nonnegative", "check_norm_bound",
           "check_positive", "check_probability", "check_real", "check_seed",
           "check_simulation"]

#: Simulation modes of every family that has them (static, phased, logistic):
#: ``"sufficient"`` (exact in distribution, drawing per-arm reward sums or success counts
#: where the algorithm only reads them) and ``"per-sample"`` (one reward per pull: the
#: reference the ask/tell policy replays exactly).
SIMULATIONS = ("sufficient", "per-sample")


def check_positive(x: object, name: str) -> float:
    """A finite real number > 0."""
    return check_real(x, name, 0.0, open_low=True)


def check_nonnegative(x: object, name: str) -> float:
    """A finite real number >= 0 (``epsilon``, a regulariser)."""
    return check_real(x, name, 0.0)


#: The thresholds whose confidence radius needs ``S``, a bound on ``||theta||``: the
#: theoretical one (GIFA family, LinGame; Réda et al. 2021, Eq. 2) and LinGapE's (Xu et al.
#: 2018, Eq. 3).
THRESHOLDS_NEEDING_S = ("theoretical", "lingape")


def check_norm_bound(S: object, threshold: str) -> float:
    """``S``, a bound on ``||theta||``, of a ``threshold`` that needs it (the theoretical
    thresholds of the GIFA family and LinGame, LinGapE's): a finite number >= 0, or a
    ValueError naming the remedies."""
    if S is None:
        raise ValueError(f"the {threshold!r} threshold needs S, a bound on ||theta||; pass "
                         "S=... (--S on the command line) or use threshold='heuristic' "
                         "(--threshold heuristic, no proof)")
    if not (np.isfinite(S) and S >= 0):
        raise ValueError(f"S must be a finite number >= 0; got {S!r}")
    return float(S)


def check_simulation(simulation: object) -> bool:
    """``simulation`` in :data:`SIMULATIONS`; returns True for ``"per-sample"``."""
    if simulation not in SIMULATIONS:
        raise ValueError(f"simulation must be one of {SIMULATIONS}; got {simulation!r}")
    return simulation == "per-sample"


def as_matrix(value: object, name: str, d: int | None = None) -> np.ndarray:
    """``value`` as a finite, real, C-contiguous float64 (n, d) array (rows are vectors).

    ``d``: the number of columns it must have (that of ``X``). Spanning is not required
    here (:func:`check_arms_span` checks it where least squares needs it).
    """
    arr = as_real_array(value, name)
    if arr.ndim != 2 or arr.shape[0] < 1 or arr.shape[1] < 1:
        raise ValueError(f"{name} must be a non-empty 2-D array (rows are vectors); "
                         f"got shape {arr.shape}")
    if d is not None and arr.shape[1] != d:
        raise ValueError(f"{name} must have d={d} columns like X; got shape {arr.shape}")
    return arr


#: Largest condition number of the arms that the least-squares kernels accept. They keep
#: ``V^{-1}`` (``V = lam I + sum_a n_a x_a x_a^T``) by rank-one updates, whose condition
#: number is up to ``cond(X)^2`` (times the spread of the counts), so about
#: ``cond(X)^2 eps`` of relative accuracy is lost. Measured (quadratic model in
#: temperature and pH, temperatures raw on ``[a, a + 40]``, 5 seeds each): m-LinGapE,
#: LinGame and RAGE were right in 5/5 runs up to ``cond(X) = 5.6e6``, and certified a wrong
#: best arm in 3-4/5 at ``1.5e7`` and in 5/5 from ``3.3e7``; the bound keeps a factor of
#: about 6 in ``cond`` (36 in ``cond^2 eps = 2.2e-4``) below the first failure.
MAX_ARMS_CONDITION = 1e6


def _rank_and_condition(X: np.ndarray) -> tuple[int, float]:
    """Numerical rank of ``X`` (:func:`design.validation.rank_of`, numpy's
    ``matrix_rank`` threshold) and its 2-norm condition number on its row space
    (``s_1 / s_r``), from one SVD (on one BLAS thread: a 500 x 28 SVD took 0.17 s with
    OpenBLAS's two threads on the loaded 2-core machine, a few ms with one)."""
    with blas_threads(1):
        sv = np.linalg.svd(X, compute_uv=False)
    r = rank_of(sv, max(X.shape))
    return r, (float(sv[0] / sv[r - 1]) if r > 0 else float("inf"))


def arms_condition(X: np.ndarray) -> float:
    """2-norm condition number of ``X`` on its row space: ``s_1 / s_r`` over the singular
    values above the numerical-rank threshold (``design.validation.rank_of``)."""
    return _rank_and_condition(X)[1]


def check_conditioning(X: np.ndarray, name: str = "X", cond: float | None = None) -> None:
    """ValueError naming ``name`` when the arms are too ill-conditioned for the float64
    least-squares kernels (:data:`MAX_ARMS_CONDITION`): refused with the cause and the
    remedy, instead of a run whose confidence widths have lost every digit and whose
    stopping rule can certify a wrong set. ``cond``: :func:`arms_condition` of ``X`` when
    the caller has it."""
    cond = arms_condition(X) if cond is None else cond
    if cond > MAX_ARMS_CONDITION:
        raise ValueError(
            f"{name}: the arms' condition number is {cond:.3g} > {MAX_ARMS_CONDITION:.0e}: "
            "the least-squares state (V^-1 by rank-one updates, condition number up to "
            "cond(X)^2) would lose all accuracy in float64 and the stopping rule could "
            "certify a wrong set. Reparametrise the arms (X -> X T with theta -> T^-1 "
            "theta, which leaves the identification problem unchanged): e.g. centre and "
            "scale each factor to [-1, 1] before building polynomial terms (coded units; "
            "--coded on the command line), or use the Q of X = QR")


def check_arms_span(X: np.ndarray, name: str = "X") -> None:
    """ValueError naming ``name`` unless the rows of ``X`` span R^d and are well enough
    conditioned for float64 least squares (:func:`check_conditioning`)."""
    rank, cond = _rank_and_condition(X)
    if rank < X.shape[1]:
        raise ValueError(f"the rows of {name} must span R^d (d={X.shape[1]}); least squares "
                         "is not identifiable otherwise")
    check_conditioning(X, name, cond)


def singular_pulls_error(X: np.ndarray, name: str, what: str) -> ValueError:
    """The error for a least-squares kernel whose ``what`` (e.g. "the initial pulls") left
    ``sum x x^T`` numerically singular although the rows of ``X`` span R^d: it names the
    condition number of ``X`` (the kernels' singularity test is relative to the largest
    eigenvalue of ``sum x x^T``, whose condition number is its square), so that an
    ill-conditioned instance is refused with the cause and the remedy instead of a bare
    "do not span"."""
    sv = np.linalg.svd(X, compute_uv=False)
    cond = float(sv[0] / sv[-1]) if sv[-1] > 0 else float("inf")
    return ValueError(
        f"{name}: {what} do not give an invertible sum x x^T in float64: the arms' "
        f"condition number is {cond:.3g} (squared in x x^T). Reparametrise the arms "
        "(X -> X T with theta -> T^-1 theta, e.g. scale the columns or use the Q of "
        "X = QR), which leaves the identification problem unchanged")


def as_arms_and_targets(X: object, Z: object = None) -> tuple[np.ndarray, np.ndarray]:
    """The arms ``X`` (at least 2, spanning R^d) and the decision set ``Z`` (default ``X``;
    at least 2 rows with X's ``d`` columns) of a linear best-arm problem, checked."""
    Xa = as_matrix(X, "X")
    if Xa.shape[0] < 2:
        raise ValueError("X must have at least 2 arms")
    check_arms_span(Xa)
    Za = Xa if Z is None else as_matrix(Z, "Z", Xa.shape[1])
    if Za.shape[0] < 2:
        raise ValueError("Z must have at least 2 decision targets")
    return Xa, Za
