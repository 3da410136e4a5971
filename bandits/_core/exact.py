"""Exact judging of simulated runs: true means in rational arithmetic, exact correctness,
and the refusal of instances beyond float64 resolution (issue 12).

The true mean of a decision target of a linear instance is the real number
``z_a^T theta`` of its float64 entries; of a reward-table instance, the exact average of
its column.  Both are rationals, computed here with :class:`fractions.Fraction` (once per
instance, cached), so that a recommendation is judged right or wrong on the instance's
true means, never within a tolerance (docs/choices.md, "Correctness of a run").
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

import numpy as np

#: Relative resolution below which a gap is refused: ``2^-40 ~ 9.1e-13`` (4,096 units in
#: the last place of float64).  The algorithms estimate means and mean differences in
#: float64 from running sums over up to ``refresh_every`` rank-one updates; a gap smaller
#: than this fraction of the mean scale cannot be resolved reliably by them.
RESOLUTION = 2.0 ** -40


@lru_cache(maxsize=32)
def _exact_linear(targets: bytes, theta: bytes, shape: tuple[int, int]) -> tuple[Fraction, ...]:
    Z = np.frombuffer(targets, dtype=np.float64).reshape(shape)
    th = [Fraction(float(v)) for v in np.frombuffer(theta, dtype=np.float64)]
    return tuple(sum((Fraction(float(z)) * t for z, t in zip(row, th, strict=True)),
                     Fraction(0)) for row in Z)


@lru_cache(maxsize=8)
def _exact_table(table: bytes, shape: tuple[int, int]) -> tuple[Fraction, ...]:
    T = np.frombuffer(table, dtype=np.float64).reshape(shape)
    n = shape[0]
    return tuple(sum((Fraction(float(v)) for v in T[:, a]), Fraction(0)) / n
                 for a in range(shape[1]))


def exact_means(instance) -> tuple[Fraction, ...]:
    """The true means of ``instance``'s decision targets as exact rationals.

    ``Z @ theta`` (``X @ theta`` when there is no ``Z``) in exact arithmetic on the float64
    entries, or the exact column means of ``reward_table`` when there is one.
    """
    table = getattr(instance, "reward_table", None)
    if table is not None:
        T = np.ascontiguousarray(table, dtype=np.float64)
        return _exact_table(T.tobytes(), T.shape)
    Z = getattr(instance, "Z", None)
    targets = np.ascontiguousarray(instance.X if Z is None else Z, dtype=np.float64)
    theta = np.ascontiguousarray(instance.theta, dtype=np.float64).ravel()
    return _exact_linear(targets.tobytes(), theta.tobytes(), targets.shape)


def correct_set(means, recommendation, m: int, epsilon: float) -> bool:
    """Whether ``recommendation`` is a correct (epsilon-)top-m answer, judged exactly.

    Correct means: exactly ``m`` distinct arms, each in
    ``S_m^{*,eps} = {a : mu_a >= mu_(m) - eps}``, where ``mu_(m)`` is the m-th largest
    true mean.  ``means`` may be exact rationals (:func:`exact_means`) or floats (each
    float is the rational it represents); every comparison is exact, with no tolerance.
    Ties at ``mu_(m)`` are therefore all correct: any m arms with means ``>= mu_(m)``.
    """
    rec = [int(a) for a in np.asarray(recommendation).ravel()]
    if len(rec) != m or len(set(rec)) != m:
        return False
    mu = [v if isinstance(v, Fraction) else Fraction(float(v)) for v in means]
    if any(a < 0 or a >= len(mu) for a in rec):
        return False
    mth = sorted(mu, reverse=True)[m - 1]
    threshold = mth - Fraction(float(epsilon))
    return all(mu[a] >= threshold for a in rec)


def check_resolution(instance, m: int, epsilon: float = 0.0) -> None:
    """Refuse (``ValueError``) an instance whose top-m boundary is beyond float64 resolution.

    With ``g = mu_(m) - mu_(m+1)`` (exact) and ``s = max_a |mu_a|``, refused when
    ``0 < g <= RESOLUTION * s`` unless ``epsilon >= RESOLUTION * s`` (then any answer within
    a resolvable tolerance is accepted), or when a target of the top-m set and one outside
    it (rows of ``Z``, or of ``X``) differ by at most ``RESOLUTION`` times the largest entry
    (their difference vector, hence their paired
    confidence width, is then not resolvable).  The message names both arms and the gap.
    """
    mu = exact_means(instance)
    K = len(mu)
    if K <= m:
        return
    order = sorted(range(K), key=lambda a: (-mu[a], a))
    i, j = order[m - 1], order[m]
    gap = mu[i] - mu[j]
    scale = max(abs(v) for v in mu)
    tol = Fraction(RESOLUTION) * scale
    if 0 < gap <= tol and Fraction(float(epsilon)) < tol:
        raise ValueError(
            f"instance: the gap between arm {i} (m-th largest mean, m={m}) and arm {j} "
            f"(the next) is {float(gap):.3g}, only {float(gap / scale):.3g} of the mean "
            f"scale {float(scale):.3g}: below float64 resolution ({RESOLUTION:.3g} "
            "relative), so the float64 estimates cannot resolve it reliably (the instance "
            f"is beyond floating-point resolution); pass epsilon >= {float(tol):.3g} to "
            "accept either arm")
    Z = getattr(instance, "Z", None)
    X = np.asarray(instance.X if Z is None else Z, dtype=np.float64)  # the decision targets
    if X.shape[0] != K:
        return  # a reward table over other arms: no feature to compare
    xmax = float(np.max(np.abs(X)))
    top = order[:m]
    rest = np.asarray(order[m:])
    for a in top:
        diff = np.max(np.abs(X[rest] - X[a]), axis=1)
        close = np.flatnonzero((diff > 0) & (diff <= RESOLUTION * xmax))
        if close.size:
            b = int(rest[close[0]])
            raise ValueError(
                f"instance: arms {a} and {b} differ by {float(diff[close[0]]):.3g} in their "
                f"features (largest feature {xmax:.3g}) and by {float(mu[a] - mu[b]):.3g} in "
                "their means; the difference is below float64 resolution "
                f"({RESOLUTION:.3g} relative), so their confidence width cannot be resolved")


def check_unique_best(instance) -> None:
    """Refuse (``ValueError``) a best-arm instance whose best mean is shared by arms with
    different decision targets: no stopping rule of an exact (``epsilon = 0``) algorithm
    can then fire, and every run would silently spend its whole budget. Arms with identical
    targets (duplicate rows) are the same answer and are allowed. The message names two
    tied arms (the GIFA family's counterpart, with ``epsilon``, is
    :func:`bandits.gifa.check_identifiable`)."""
    mu = exact_means(instance)
    best = max(mu)
    tied = [a for a, v in enumerate(mu) if v == best]
    if len(tied) < 2:
        return
    Z = getattr(instance, "Z", None)
    T = np.asarray(instance.X if Z is None else Z, dtype=np.float64)
    if T.shape[0] == len(mu):
        differ = [b for b in tied[1:] if not np.array_equal(T[b], T[tied[0]])]
    else:  # a reward table over other arms: no feature to compare
        differ = tied[1:]
    if differ:
        raise ValueError(
            f"instance: arms {tied[0]} and {differ[0]} tie for the best mean "
            f"({float(best):g}) with different features: the best arm is not unique, so the "
            "stopping rule can never fire and every run would spend its whole budget "
            "(the GIFA family accepts epsilon > 0 for such instances)")
