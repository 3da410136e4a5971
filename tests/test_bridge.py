"""Brownian bridges in a strip (bandits._core.bridge), the maths of the exact block
simulation of G-static and XY-static (issue 18): the probability that a bridge stays in a
band against closed forms, between its two series, and against simulated bridges; the
conditional midpoint and half-band indicators against brute-force conditioning.

Statistical thresholds: fixed seeds, p > 1e-3 or five standard errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numba import njit
from scipy.stats import chi2_contingency, ks_2samp

from bandits._core import bridge as _bridge
from bandits._core import rng as _rng
from bandits._core.bridge import FLAG_LEAVE, FLAG_STAY

# the bridge helpers are inner kernels (no Python wrapper): called through jitted shims


@njit
def strip_stay(x, y, tau, lo, hi):
    return _bridge.strip_stay(x, y, tau, lo, hi)


@njit
def stay_images(u, v, tau, L):
    return _bridge.stay_images(u, v, tau, L)


@njit
def stay_eigen(u, v, tau, L):
    return _bridge.stay_eigen(u, v, tau, L)


@njit
def split_bridge(x, y, t1, tau, lo, hi, flag, rng):
    return _bridge.split_bridge(x, y, t1, tau, lo, hi, flag, rng)


@pytest.mark.parametrize("u, v, tau", [(1.0, 1.0, 1.0), (0.3, 2.0, 0.5), (2.5, 0.1, 3.0)])
def test_one_barrier_limit(u: float, v: float, tau: float) -> None:
    """A band whose upper edge is far away: Levy's one-barrier bridge formula
    ``P = 1 - exp(-2 u v / tau)`` (u, v: distances to the lower edge)."""
    p = strip_stay(u, v, tau, 0.0, 1e3)
    assert p == pytest.approx(1.0 - math.exp(-2.0 * u * v / tau), abs=1e-15)
    # reflected (u = x - lo is computed from -1e3: rounding of order 1e-13)
    assert strip_stay(-u, -v, tau, -1e3, 0.0) == pytest.approx(p, abs=1e-12)


def test_the_two_series_agree() -> None:
    """The method of images and the eigenfunction series are the same function; where both
    converge (``tau / L^2`` from 0.2 to 5) they agree to 1e-12."""
    for ratio in (0.2, 0.5, 1.0, 2.0, 5.0):
        for u in (0.05, 0.3, 0.5, 0.9):
            for v in (0.1, 0.5, 0.77):
                a, b = stay_images(u, v, ratio, 1.0), stay_eigen(u, v, ratio, 1.0)
                assert abs(a - b) < 1e-12, (ratio, u, v, a, b)


def test_edge_cases() -> None:
    assert strip_stay(0.5, 0.5, 0.0, 0.0, 1.0) == 1.0  # a single point inside
    assert strip_stay(1.5, 1.5, 0.0, 0.0, 1.0) == 0.0  # a single point outside
    assert strip_stay(0.5, 1.2, 1.0, 0.0, 1.0) == 0.0  # an end outside
    assert strip_stay(0.5, 0.5, 1.0, 0.0, 1.0) == pytest.approx(  # symmetric in x, y
        strip_stay(0.5, 0.5, 1.0, 0.0, 1.0))
    assert strip_stay(0.2, 0.7, 1.3, 0.0, 1.0) == pytest.approx(strip_stay(0.7, 0.2, 1.3, 0.0, 1.0),
                                                                abs=1e-15)


@pytest.mark.parametrize("x, y, tau, lo, hi", [(0.0, 0.3, 1.0, -1.2, 1.0),
                                               (0.5, -0.5, 2.0, -1.0, 1.5),
                                               (0.0, 0.0, 1.0, -0.6, 0.6)])
def test_strip_probability_matches_simulated_bridges(x, y, tau, lo, hi) -> None:
    """Brute force: 4,000 bridges on a grid of 2,000 steps; within a step the bridge leaves
    through an edge with Levy's one-barrier probability (two crossings within one step are
    of order exp(-L^2 / dt), negligible), so each path's survival is the product over its
    steps; the mean over paths agrees with the series within five standard errors."""
    rng = np.random.default_rng(7)
    n, paths = 2_000, 4_000
    dt = tau / n
    tgrid = np.linspace(0.0, tau, n + 1)
    inc = rng.standard_normal((paths, n)) * math.sqrt(dt)
    walk = np.concatenate([np.zeros((paths, 1)), np.cumsum(inc, axis=1)], axis=1)
    bridge = x + walk - (tgrid / tau) * (walk[:, -1:] - (y - x))
    a, b = bridge[:, :-1], bridge[:, 1:]
    inside = np.all((bridge > lo) & (bridge < hi), axis=1)
    p_lo = np.exp(-2.0 * np.clip(a - lo, 0, None) * np.clip(b - lo, 0, None) / dt)
    p_hi = np.exp(-2.0 * np.clip(hi - a, 0, None) * np.clip(hi - b, 0, None) / dt)
    survive = np.where(inside, np.prod(np.clip(1.0 - p_lo - p_hi, 0.0, 1.0), axis=1), 0.0)
    se = survive.std() / math.sqrt(paths)
    assert abs(survive.mean() - strip_stay(x, y, tau, lo, hi)) < 5 * se + 1e-3


def _definition(x, y, t1, tau, lo, hi, flag, n, seed):
    """Brute-force conditioning: the free midpoint and independent half indicators with
    their probabilities, kept when the parent's indicator is ``flag``."""
    rng = np.random.default_rng(seed)
    m = x + (y - x) * t1 / tau + math.sqrt(t1 * (tau - t1) / tau) * rng.standard_normal(50 * n)
    pl = np.array([strip_stay(x, v, t1, lo, hi) for v in m])
    pr = np.array([strip_stay(v, y, tau - t1, lo, hi) for v in m])
    fl = np.where(rng.random(m.size) < pl, FLAG_STAY, FLAG_LEAVE)
    fr = np.where(rng.random(m.size) < pr, FLAG_STAY, FLAG_LEAVE)
    both = (fl == FLAG_STAY) & (fr == FLAG_STAY)
    keep = both if flag == FLAG_STAY else ~both
    return m[keep][:n], fl[keep][:n], fr[keep][:n]


@pytest.mark.parametrize("flag", [FLAG_STAY, FLAG_LEAVE])
def test_conditioned_midpoint_matches_brute_force(flag: int) -> None:
    """:func:`split_bridge` against the definition (free midpoint and half indicators,
    filtered on the parent's indicator): KS on the midpoint, chi-square on the pair of half
    indicators, 3,000 draws each (a band where both outcomes are common: P(stay) = 0.39)."""
    x, y, t1, tau, lo, hi = 0.1, -0.2, 3.0, 8.0, -2.0, 2.5
    p = strip_stay(x, y, tau, lo, hi)
    assert 0.2 < p < 0.8
    n = 3_000
    state = _rng.make_state(11, 1)
    ours = [split_bridge(x, y, t1, tau, lo, hi, flag, state) for _ in range(n)]
    m_ref, fl_ref, fr_ref = _definition(x, y, t1, tau, lo, hi, flag, n, 5)
    assert m_ref.size == n
    assert ks_2samp([o[0] for o in ours], m_ref).pvalue > 1e-3
    if flag == FLAG_STAY:
        assert all(o[1] == o[2] == FLAG_STAY for o in ours)
        return
    pairs = [(FLAG_STAY, FLAG_LEAVE), (FLAG_LEAVE, FLAG_STAY), (FLAG_LEAVE, FLAG_LEAVE)]
    table = [[sum((o[1], o[2]) == pr for o in ours) for pr in pairs],
             [int(np.sum((fl_ref == pr[0]) & (fr_ref == pr[1]))) for pr in pairs]]
    assert sum(table[0]) == n
    assert chi2_contingency(table).pvalue > 1e-3, table


def test_split_of_a_half_of_length_zero() -> None:
    """A half of length 0 is the end point itself: the midpoint is that point, the half
    stays iff the point is inside, and a leaving parent leaves through the other half."""
    state = _rng.make_state(3, 1)
    for _ in range(20):
        m, fl, fr = split_bridge(0.0, 0.4, 0.0, 2.0, -1.0, 1.0, FLAG_LEAVE, state)
        assert m == 0.0 and fl == FLAG_STAY and fr == FLAG_LEAVE
        m, fl, fr = split_bridge(0.0, 0.4, 2.0, 2.0, -1.0, 1.0, FLAG_STAY, state)
        assert m == 0.4 and fl == fr == FLAG_STAY
