"""Tests for the ``rounding`` package: efficient rounding, incremental order, efficiency loss."""

from __future__ import annotations

import ast
import itertools
import math
import pathlib
import subprocess
import sys
import time
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rounding
from rounding import RoundingLoss, efficiency_loss, efficient_round, incremental_allocation

ROOT = pathlib.Path(__file__).resolve().parents[1]
FAST = settings(max_examples=150, deadline=None)


# ----------------------------------------------------------------------------------------
# Reference implementations (exact arithmetic, literal transcription of the paper's rule)
# ----------------------------------------------------------------------------------------


def reference_round(weights, n, decrement_ties="highest"):
    """Pukelsheim's two-phase rule in exact rational arithmetic on the given float weights.

    Increments go to the lowest tied index.  ``decrement_ties="highest"`` removes from the
    highest tied index (the package's consistent rule); ``"lowest"`` is the literal
    "lowest index everywhere" reading.
    """
    w = [Fraction(x) for x in weights]
    total = sum(w)
    w = [x / total for x in w]
    support = [i for i, x in enumerate(w) if x > 0]
    p = len(support)
    nu = n - Fraction(p, 2)
    c = {i: math.ceil(nu * w[i]) for i in support}
    while sum(c.values()) != n:
        if sum(c.values()) < n:
            j = min(support, key=lambda i: (c[i] / w[i], i))
            c[j] += 1
        else:
            sign = 1 if decrement_ties == "highest" else -1
            j = max(support, key=lambda i: ((c[i] - 1) / w[i], sign * i))
            c[j] -= 1
    out = [0] * len(w)
    for i in support:
        out[i] = c[i]
    return out


def efficiency(counts, w):
    """Pukelsheim's efficiency bound min_{w_i > 0} n_i / (n w_i)."""
    counts = np.asarray(counts, dtype=float)
    s = w > 0
    return float(np.min(counts[s] / (counts.sum() * w[s])))


def is_efficient_apportionment(counts, w, rtol=1e-12):
    """Pukelsheim's characterisation: max (n_i - 1)/w_i <= min n_i/w_i on the support."""
    s = w > 0
    c = counts[s].astype(float)
    lo = np.max((c - 1) / w[s])
    hi = np.min(c / w[s])
    return lo <= hi * (1 + rtol)


# ----------------------------------------------------------------------------------------
# Hypothesis strategies
# ----------------------------------------------------------------------------------------


@st.composite
def float_weights(draw, max_k=8):
    """Random simplex weights with some exact zeros; positive entries are >= 1e-4."""
    k = draw(st.integers(1, max_k))
    raw = draw(
        st.lists(
            st.one_of(st.just(0.0), st.floats(1e-3, 1.0)),
            min_size=k,
            max_size=k,
        )
    )
    if sum(raw) == 0:
        raw[draw(st.integers(0, k - 1))] = 1.0
    w = np.asarray(raw)
    return w / w.sum()


@st.composite
def dyadic_weights(draw, max_k=7):
    """Weights a_i / 2^m (exact in float64): many exact ties between keys m / w_i."""
    m = draw(st.integers(2, 6))
    k = draw(st.integers(1, max_k))
    cuts = sorted(draw(st.lists(st.integers(0, 2**m), min_size=k - 1, max_size=k - 1)))
    a = np.diff([0, *cuts, 2**m])
    return a / 2.0**m


@st.composite
def rational_weights(draw, max_k=6):
    """Weights a_i / den with den like 3, 7, 10, 21: rational ties that float64 only nearly
    reproduces (e.g. 1 / fl(1/7) vs 3 / fl(3/7)), the hard case for float consistency."""
    den = draw(st.sampled_from([3, 7, 9, 10, 12, 21, 30, 100]))
    k = draw(st.integers(1, max_k))
    cuts = sorted(draw(st.lists(st.integers(0, den), min_size=k - 1, max_size=k - 1)))
    a = np.diff([0, *cuts, den])
    return a / den


any_weights = st.one_of(float_weights(), dyadic_weights(), rational_weights())


# ----------------------------------------------------------------------------------------
# Hand-worked examples of Pukelsheim's rule
# ----------------------------------------------------------------------------------------


def test_hand_example_no_phase2():
    # w = (0.5, 0.3, 0.2), n = 7, p = 3: nu = n - p/2 = 5.5.
    # Phase 1: ceil(5.5*0.5)=ceil(2.75)=3, ceil(5.5*0.3)=ceil(1.65)=2, ceil(5.5*0.2)=ceil(1.1)=2.
    # Sum 7 = n, so phase 2 does nothing.  (Naive round(n w) = (4, 2, 1) (3.5->4) differs.)
    assert efficient_round([0.5, 0.3, 0.2], 7).tolist() == [3, 2, 2]


def test_hand_example_one_increment():
    # w = (0.4, 0.35, 0.25), n = 4, p = 3: nu = 2.5.
    # Phase 1: ceil(1.0)=1, ceil(0.875)=1, ceil(0.625)=1 -> sum 3 < 4.
    # (0.4*2.5 is exactly 1 -- the phase-1 boundary case.)
    # Increment argmin n_i/w_i = (2.5, 2.857, 4.0) -> arm 0: (2, 1, 1).
    assert efficient_round([0.4, 0.35, 0.25], 4).tolist() == [2, 1, 1]


def test_hand_example_two_increments():
    # w = (0.22, 0.21, 0.20, 0.19, 0.18), n = 7, p = 5: nu = 4.5.
    # Phase 1: 4.5*w = (0.99, 0.945, 0.9, 0.855, 0.81) -> all ceil to 1, sum 5 < 7.
    # Step 1: n_i/w_i = (4.545, 4.762, 5.0, 5.263, 5.556) -> arm 0 (now 2/0.22 = 9.09).
    # Step 2: min is 4.762 -> arm 1.  Result (2, 2, 1, 1, 1).
    assert efficient_round([0.22, 0.21, 0.20, 0.19, 0.18], 7).tolist() == [2, 2, 1, 1, 1]


def test_hand_example_one_decrement():
    # w = (0.5, 0.45, 0.05), n = 4, p = 3: nu = 2.5.
    # Phase 1: ceil(1.25)=2, ceil(1.125)=2, ceil(0.125)=1 -> sum 5 > 4.
    # Decrement argmax (n_i-1)/w_i = (1/0.5, 1/0.45, 0/0.05) = (2, 2.222, 0) -> arm 1.
    assert efficient_round([0.5, 0.45, 0.05], 4).tolist() == [2, 1, 1]


def test_hand_example_two_decrements():
    # w = (0.18, 0.17, 0.17, 0.17, 0.16, 0.15), n = 10, p = 6: nu = 7.
    # Phase 1: 7*w = (1.26, 1.19, 1.19, 1.19, 1.12, 1.05) -> all ceil to 2, sum 12 > 10.
    # Step 1: (n_i-1)/w_i = (5.556, 5.882, 5.882, 5.882, 6.25, 6.667) -> arm 5 (now 0).
    # Step 2: max is 6.25 -> arm 4.  Result (2, 2, 2, 2, 1, 1).
    w = [0.18, 0.17, 0.17, 0.17, 0.16, 0.15]
    assert efficient_round(w, 10).tolist() == [2, 2, 2, 2, 1, 1]


def test_hand_example_ties_favour_lower_index():
    # Uniform w on 3 arms.  n = 4: nu = 2.5, ceil(0.833)=1 each, sum 3; all n_i/w_i = 3 tie
    # -> lowest index gets it: (2, 1, 1).
    # n = 5: nu = 3.5, ceil(1.167)=2 each, sum 6; all (n_i-1)/w_i = 3 tie -> the HIGHEST
    # index loses: (2, 2, 1).  The literal "lowest index loses" would give (1, 2, 2).
    w = [1 / 3, 1 / 3, 1 / 3]
    assert efficient_round(w, 4).tolist() == [2, 1, 1]
    assert efficient_round(w, 5).tolist() == [2, 2, 1]
    assert efficient_round(w, 6).tolist() == [2, 2, 2]


def test_zero_weights_get_zero_and_tiny_weights_are_zero():
    w = np.array([0.0, 0.6, 0.0, 0.4])
    assert efficient_round(w, 2).tolist() == [0, 1, 0, 1]
    assert efficient_round(w, 5).tolist() == [0, 3, 0, 2]
    # 1e-14 <= 1e-12 * max: treated as zero (so n = 2 is allowed) ...
    w_tiny = np.array([0.5, 0.5 - 1e-14, 1e-14])
    assert efficient_round(w_tiny, 2).tolist() == [1, 1, 0]
    # ... unless zero_tol=0, which keeps it in the support (needs n >= 3, gets one trial).
    with pytest.raises(ValueError, match="n"):
        efficient_round(w_tiny, 2, zero_tol=0.0)
    assert efficient_round(w_tiny, 3, zero_tol=0.0).tolist() == [1, 1, 1]


def test_single_arm_and_n_equals_p():
    assert efficient_round([1.0], 5).tolist() == [5]
    w = np.array([0.7, 0.1, 0.1, 0.1])
    assert efficient_round(w, 4).tolist() == [1, 1, 1, 1]


def test_returns_int64_and_accepts_numpy_int():
    out = efficient_round(np.array([0.25, 0.75]), np.int32(8))
    assert out.dtype == np.int64
    assert out.tolist() == [2, 6]


# ----------------------------------------------------------------------------------------
# Properties
# ----------------------------------------------------------------------------------------


@FAST
@given(w=any_weights, extra=st.integers(0, 60))
def test_sum_support_and_quota_bounds(w, extra):
    p = int(np.count_nonzero(w))
    n = p + extra
    c = efficient_round(w, n)
    assert c.dtype == np.int64 and c.shape == w.shape
    assert c.sum() == n
    assert np.all(c[w > 0] >= 1)
    assert np.all(c[w == 0] == 0)
    # From the characterisation: n w_i - p w_i <= n_i <= n w_i + 1 (so |n_i - n w_i| <= p).
    assert np.all(c <= n * w + 1 + 1e-9)
    assert np.all(c >= (n - p) * w - 1e-9)
    assert is_efficient_apportionment(c, w)
    assert efficiency(c, w) >= (n - p + 1) / n - 1e-12


@FAST
@given(w=dyadic_weights(), extra=st.integers(0, 40))
def test_matches_exact_reference(w, extra):
    # Dyadic weights are exact in float64, so exact and float key orders agree.
    n = int(np.count_nonzero(w)) + extra
    assert efficient_round(w, n).tolist() == reference_round(w, n)


@FAST
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 6), extra=st.integers(0, 30))
def test_matches_exact_reference_generic(seed, k, extra):
    # Generic (Dirichlet) weights: no exact ties between keys, so any tie rule gives the same
    # answer -- Soare et al.'s one-coordinate property holds for the literal rule here.
    w = np.random.default_rng(seed).dirichlet(np.full(k, 0.7))
    n = k + extra
    ref = reference_round(w, n)
    assert efficient_round(w, n).tolist() == ref
    assert reference_round(w, n, decrement_ties="lowest") == ref


def _compositions(n, k):
    """All k-tuples of positive integers summing to n."""
    for cuts in itertools.combinations(range(1, n), k - 1):
        yield np.diff([0, *cuts, n])


@settings(max_examples=60, deadline=None)
@given(w=any_weights.filter(lambda w: 1 <= np.count_nonzero(w) <= 4), extra=st.integers(0, 8))
def test_maximises_efficiency_bound_brute_force(w, extra):
    # Efficient rounding maximises min_i n_i / (n w_i) over all support-keeping allocations.
    s = np.flatnonzero(w)
    n = len(s) + extra
    ours = efficiency(efficient_round(w, n), w)
    best = max(float(np.min(comp / (n * w[s]))) for comp in _compositions(n, len(s)))
    assert ours == pytest.approx(best, rel=1e-12)


def test_brute_force_beats_naive_rounding_example():
    # Largest-remainder rounding of w=(0.9, 0.05, 0.05), n=10 -> (9, 1, 0) drops an arm;
    # efficient rounding keeps all three and is the max-efficiency allocation (8, 1, 1).
    assert efficient_round([0.9, 0.05, 0.05], 10).tolist() == [8, 1, 1]


# ----------------------------------------------------------------------------------------
# Monotonicity / incremental order
# ----------------------------------------------------------------------------------------


def literal_float_round(w, n):
    """Pukelsheim's rule transcribed literally in float64 (bare np.ceil in phase 1), with the
    package's tie rule (increment: lowest index; decrement: highest index)."""
    s = np.flatnonzero(w)
    ws = w[s]
    c = np.ceil((n - len(s) / 2) * ws).astype(np.int64)
    while c.sum() != n:
        if c.sum() < n:
            j = int(np.argmin(c / ws))
            c[j] += 1
        else:
            keys = (c - 1) / ws
            j = int(np.flatnonzero(keys == keys.max())[-1])
            c[j] -= 1
    out = np.zeros_like(w, dtype=np.int64)
    out[s] = c
    return out


def test_phase1_agrees_with_float_keys():
    # w = (8, 3, 4, 6)/21.  n = 23, p = 4: nu = 21 and nu*w = (8, 3, 4, 6) exactly, so exact
    # phase 1 gives (8, 3, 4, 6), sum 21; both increments see keys n_i/w_i = 21 for all arms
    # (a 4-way tie) -> arms 0, 1: (9, 4, 4, 6).  n = 22: nu = 20, nu*w = (7.62, 2.86, 3.81,
    # 5.71) -> (8, 3, 4, 6), sum 21; increment keys (21, 21, 21, 21) -> arm 0: (9, 3, 4, 6).
    # In float64 (after renormalisation) some nu*w_i land a hair above an integer, and the
    # bare-ceil transcription returns (8, 4, 4, 7) at n = 23: arm 0 LOSES a trial going from
    # 22 to 23.  Our phase 1 is corrected to the float keys, so it stays monotone and equal
    # to the exact-arithmetic answer.
    from rounding._validation import check_weights

    raw = np.array([8, 3, 4, 6]) / 21
    exact = [Fraction(a, 21) for a in (8, 3, 4, 6)]
    assert efficient_round(raw, 22).tolist() == [9, 3, 4, 6] == reference_round(exact, 22)
    assert efficient_round(raw, 23).tolist() == [9, 4, 4, 6] == reference_round(exact, 23)
    w = check_weights(raw)
    assert literal_float_round(w, 22).tolist() == [9, 3, 4, 6]
    assert literal_float_round(w, 23).tolist() == [8, 4, 4, 7]  # not monotone


def test_literal_lowest_index_rule_is_not_monotone():
    # The counterexample to "n -> n+1 changes one coordinate by +1" (Soare et al. 2014,
    # App. C) for the literal rule with lowest-index tie-breaking in both phases.
    w = [1 / 3, 1 / 3, 1 / 3]
    assert reference_round(w, 4, decrement_ties="lowest") == [2, 1, 1]
    assert reference_round(w, 5, decrement_ties="lowest") == [1, 2, 2]
    # Ours: consistent tie-breaking -> monotone.
    assert (efficient_round(w, 5) - efficient_round(w, 4)).tolist() == [0, 1, 0]


@FAST
@given(w=any_weights, extra=st.integers(0, 60))
def test_efficient_round_is_house_monotone(w, extra):
    p = int(np.count_nonzero(w))
    prev = efficient_round(w, p)
    for n in range(p + 1, p + extra + 1):
        cur = efficient_round(w, n)
        diff = cur - prev
        assert diff.min() >= 0 and diff.sum() == 1, (n, prev, cur)
        prev = cur


@FAST
@given(w=any_weights, n_max=st.integers(1, 80))
def test_incremental_allocation_prefixes(w, n_max):
    K = w.shape[0]
    p = int(np.count_nonzero(w))
    order, counts = incremental_allocation(w, n_max)
    assert order.dtype == np.int64 and order.shape == (n_max,)
    assert counts.dtype == np.int64
    assert counts.tolist() == np.bincount(order, minlength=K).tolist()
    assert np.all(w[order] > 0)
    # n < p: distinct support arms, heaviest first (ties -> lower index).
    head = order[: min(p, n_max)]
    assert len(set(head.tolist())) == head.shape[0]
    keys = [(-w[i], i) for i in head]
    assert keys == sorted(keys)
    # n >= p: every prefix is exactly the efficient rounding.
    for n in range(p, n_max + 1):
        assert np.bincount(order[:n], minlength=K).tolist() == efficient_round(w, n).tolist()


def test_incremental_allocation_small_example():
    # Keys of the (m+1)-th trial, m/w_i: arm0 2, 4, 6; arm1 3.33, 6.67; arm2 5.
    # After the 3 first trials (heaviest first) the order is 2 < 3.33 < 4 < 5 < 6 < 6.67.
    order, counts = incremental_allocation([0.5, 0.3, 0.2], 9)
    assert order.tolist() == [0, 1, 2, 0, 1, 0, 2, 0, 1]
    assert counts.tolist() == [4, 3, 2]
    order, counts = incremental_allocation([0.2, 0.0, 0.8], 2)
    assert order.tolist() == [2, 0]


# ----------------------------------------------------------------------------------------
# Efficiency loss
# ----------------------------------------------------------------------------------------


def multiplicative_optimal(X, iters=3000):
    """Titterington's multiplicative algorithm w <- w * var / d: D-optimal = G-optimal."""
    K, d = X.shape
    w = np.full(K, 1.0 / K)
    for _ in range(iters):
        A = X.T @ (w[:, None] * X)
        var = np.einsum("ij,ij->i", X @ np.linalg.inv(A), X)
        w = w * var / d
        w /= w.sum()
    return w


@pytest.mark.parametrize("seed", range(6))
def test_efficiency_loss_on_optimal_designs(seed):
    rng = np.random.default_rng(seed)
    K, d = 7, 3
    X = rng.normal(size=(K, d)) * rng.uniform(0.3, 2.0, size=(K, 1))
    w = multiplicative_optimal(X)
    w[w < 1e-4] = 0.0  # drop the arms the algorithm is still emptying
    w /= w.sum()
    p = int(np.count_nonzero(w))
    A = X.T @ (w[:, None] * X)
    g_direct = np.max(np.einsum("ij,ij->i", X @ np.linalg.inv(A), X))
    for n in range(p, 6 * p):
        counts = efficient_round(w, n)
        for crit in ("G", "D"):
            loss = efficiency_loss(X, w, counts, crit)
            assert isinstance(loss, RoundingLoss)
            assert loss.n == n and loss.p == p and loss.criterion == crit
            assert loss.ratio == pytest.approx(loss.rounded_value / loss.approx_value)
            assert loss.ratio <= loss.certified_bound * (1 + 1e-9)
            assert loss.certified_bound <= loss.bound * (1 + 1e-12)
            assert loss.bound == pytest.approx(n / (n - p + 1))
            assert loss.stated_bound == pytest.approx(1 + p / n)
            if n >= p * (p - 1):
                assert loss.ratio <= loss.stated_bound * (1 + 1e-9)
            if crit == "G":
                # Kiefer-Wolfowitz: max variance >= d for every design, = d at the optimum.
                assert loss.approx_value == pytest.approx(g_direct)
                assert loss.approx_value == pytest.approx(d, rel=2e-2)
                assert loss.rounded_value >= d * (1 - 1e-9)
            else:
                Ar = X.T @ ((counts / n)[:, None] * X)
                assert loss.rounded_value == pytest.approx(np.linalg.det(Ar) ** (-1 / d))


def test_stated_bound_counterexample_identity_design():
    # X = I_3, w uniform (G-optimal, G = d = 3).  n = 5: any support-keeping allocation of
    # 5 trials has an arm with one trial, whose variance is n / 1 = 5 -> ratio 5/3 > 1 + 3/5.
    X = np.eye(3)
    w = np.full(3, 1 / 3)
    counts = efficient_round(w, 5)
    loss = efficiency_loss(X, w, counts, "G")
    assert loss.approx_value == pytest.approx(3.0)
    assert loss.rounded_value == pytest.approx(5.0)
    assert loss.ratio == pytest.approx(5 / 3)
    assert loss.ratio > loss.stated_bound  # 1.667 > 1.6: the 1 + p/n claim fails for G
    assert loss.ratio == pytest.approx(loss.bound)  # n/(n-p+1) = 5/3 is attained
    assert loss.efficiency == pytest.approx(3 / 5)


def test_efficiency_loss_singular_rounding_is_inf():
    X = np.eye(2)
    w = np.array([0.5, 0.5])
    loss = efficiency_loss(X, w, [3, 0], "G")
    assert loss.rounded_value == math.inf and loss.ratio == math.inf
    assert loss.certified_bound == math.inf and loss.efficiency == 0.0
    loss_d = efficiency_loss(X, w, [3, 0], "D")
    assert loss_d.rounded_value == math.inf
    both = efficiency_loss(X, np.array([1.0, 0.0]), [3, 0], "D")
    assert both.approx_value == math.inf and math.isnan(both.ratio)


def test_efficiency_loss_is_frozen():
    loss = efficiency_loss(np.eye(2), [0.5, 0.5], [1, 1])
    with pytest.raises(AttributeError):
        loss.ratio = 0.0  # type: ignore[misc]


# ----------------------------------------------------------------------------------------
# Input validation: every bad input raises ValueError naming the argument
# ----------------------------------------------------------------------------------------

BAD_WEIGHTS = [
    [0.5, np.nan, 0.5],
    [0.5, np.inf, 0.5],
    [1.2, -0.2],
    [0.5, 0.4],
    [[0.5, 0.5]],
    [],
    ["a", "b"],
    0.5,
]


@pytest.mark.parametrize("bad", BAD_WEIGHTS)
def test_bad_weights(bad):
    with pytest.raises(ValueError, match="weights"):
        efficient_round(bad, 3)
    with pytest.raises(ValueError, match="weights"):
        incremental_allocation(bad, 3)
    with pytest.raises(ValueError, match="weights"):
        efficiency_loss(np.eye(2), bad, [1, 1])


def test_tiny_negative_weights_are_clipped():
    assert efficient_round([0.5 + 1e-10, 0.5, -1e-10], 2).tolist() == [1, 1, 0]


@pytest.mark.parametrize("bad", [0, -3, 2.0, 2.5, True, "4", None, np.float64(3.0)])
def test_bad_n(bad):
    with pytest.raises(ValueError, match="n"):
        efficient_round([0.5, 0.5], bad)
    with pytest.raises(ValueError, match="n_max"):
        incremental_allocation([0.5, 0.5], bad)


def test_n_smaller_than_support():
    """The refusal names the weights in the way and the ways out (an exact design of n
    runs, or zero_tol for a solver's near-zero weights, which then rounds to n runs)."""
    with pytest.raises(ValueError, match=r"n=2 .*p=3.*smallest weights: 0\.2\)"):
        efficient_round([0.2, 0.3, 0.5], 2)
    w = [0.25, 1e-6, 0.25, 0.25, 2e-6, 0.25 - 3e-6]
    with pytest.raises(ValueError, match=r"2 smallest weights: 1e-06, 2e-06\).*exact"):
        efficient_round(w, 4)
    assert efficient_round(w, 4, zero_tol=1e-4).tolist() == [1, 0, 1, 1, 0, 1]


@pytest.mark.parametrize(
    "bad",
    [np.ones(3), np.ones((2, 2, 1)), [[1.0, np.nan], [0.0, 1.0]], [[np.inf, 0], [0, 1]],
     np.zeros((0, 2)), [["a", "b"], ["c", "d"]]],
)
def test_bad_X(bad):
    with pytest.raises(ValueError, match="X"):
        efficiency_loss(bad, [0.5, 0.5], [1, 1])


def test_bad_counts_and_criterion_and_shapes():
    X, w = np.eye(2), [0.5, 0.5]
    for bad in ([1, 1, 1], [1, -1], [0, 0], [1.5, 1], [[1, 1]], [True, True], [np.nan, 1]):
        with pytest.raises(ValueError, match="counts"):
            efficiency_loss(X, w, bad)
    with pytest.raises(ValueError, match="criterion"):
        efficiency_loss(X, w, [1, 1], "A")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="weights"):
        efficiency_loss(np.eye(3), w, [1, 1])
    assert efficiency_loss(X, w, np.array([2.0, 1.0])).n == 3  # integral floats accepted


# ----------------------------------------------------------------------------------------
# Scale and package hygiene
# ----------------------------------------------------------------------------------------


def test_fast_for_large_K():
    rng = np.random.default_rng(0)
    K = 100_000
    w = rng.dirichlet(np.ones(K))
    t0 = time.perf_counter()
    for n in (K, K + 12_345, 3 * K):
        c = efficient_round(w, n)
        assert c.sum() == n and c.min() >= 1
    order, counts = incremental_allocation(w, 2 * K)
    elapsed = time.perf_counter() - t0
    assert counts.tolist() == efficient_round(w, 2 * K).tolist()
    assert np.bincount(order[: K + 12_345], minlength=K).tolist() == (
        efficient_round(w, K + 12_345).tolist()
    )
    assert elapsed < 5.0


def test_public_api():
    assert set(rounding.__all__) == {
        "efficient_round",
        "incremental_allocation",
        "efficiency_loss",
        "RoundingLoss",
        "GuaranteedRounding",
        "reduce_support",
        "round_with_guarantee",
        "rounding_requirement",
        "track",
    }
    assert all(callable(getattr(rounding, name)) for name in rounding.__all__)


def test_rounding_imports_nothing_from_design_or_bandits():
    for path in (ROOT / "rounding").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""] if node.level == 0 else []
            else:
                continue
            for name in names:
                assert name.split(".")[0] not in {"design", "bandits"}, (path, name)
    code = "import sys, rounding; print(any(m.split('.')[0] in ('design', 'bandits') " \
           "for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == "False"


# ----------------------------------------------------------------------------------------
# Huge budgets: bounded by 2**53, never a hang or an int64 overflow (issue 12, item 4)
# ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2**53 + 1, 2**63, 10**19])
@pytest.mark.parametrize("func", [efficient_round, incremental_allocation])
def test_budget_above_2_53_is_a_value_error_naming_n(func, n):
    # on main efficient_round(w, 10**19) hung and efficient_round(w, 2**63) returned counts
    # summing to -2**63
    with pytest.raises(ValueError, match=r"n(_max)?=\d+ exceeds .*2\*\*53"):
        func([0.5, 0.3, 0.2], n)


@pytest.mark.parametrize("w", [[0.5, 0.25, 0.25], [0.5, 0.375, 0.125]])
def test_budget_at_2_53_matches_exact_reference(w):
    # dyadic weights: exact in float64, so the rational reference applies at n = 2**53
    n = rounding.efficient.MAX_TRIALS
    counts = efficient_round(w, n)
    assert counts.dtype == np.int64 and int(counts.sum()) == n
    assert counts.tolist() == reference_round(w, n)
