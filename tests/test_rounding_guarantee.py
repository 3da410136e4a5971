"""Tests of rounding.round_with_guarantee, reduce_support and rounding.track."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from rounding import (
    efficient_round,
    incremental_allocation,
    reduce_support,
    round_with_guarantee,
    rounding_requirement,
    track,
)


def _xy_value(X, counts_or_w, Y):
    A = (X.T * np.asarray(counts_or_w, dtype=float)) @ X
    Ainv = np.linalg.pinv(A)
    return float(np.max(np.einsum("ij,jk,ik->i", Y, Ainv, Y)))


def _pairs(X):
    i, j = np.triu_indices(X.shape[0], k=1)
    return X[i] - X[j]


def _compositions(n, K):
    for cut in itertools.combinations(range(n + K - 1), K - 1):
        prev, out = -1, []
        for c in cut:
            out.append(c - prev - 1)
            prev = c
        out.append(n + K - 2 - prev)
        yield np.array(out)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_guarantee_against_brute_force(seed):
    from design.minimax import xy_optimal

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(4, 2))
    Y = _pairs(X)
    lam = xy_optimal(X, tol=1e-9).weights
    rho = _xy_value(X, lam, Y)
    for eps in (0.5, 0.25):
        r = rounding_requirement(int(np.count_nonzero(reduce_support(X, lam))), eps)
        for n in range(r, r + 4):
            res = round_with_guarantee(X, lam, n, eps)
            got = _xy_value(X, res.counts, Y)
            assert res.counts.sum() == n
            assert res.factor <= n / (n - res.support + 1) + 1e-12 <= 1 + eps + 1e-12
            assert got <= (1 + eps) * rho / n * (1 + 1e-9)
            assert got <= res.factor * rho / n * (1 + 1e-9)
            best = min(_xy_value(X, c, Y) for c in _compositions(n, 4)
                       if np.linalg.matrix_rank((X.T * c) @ X) == 2)
            # the exact optimum is at least rho(lambda*)/n, so rounding is (1+eps)-optimal
            assert best >= rho / n * (1 - 1e-6)
            assert got <= (1 + eps) * best * (1 + 1e-6)


def test_guarantee_any_design_and_any_target():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(12, 3))
    w = rng.dirichlet(np.ones(12))
    res = round_with_guarantee(X, w, 200, 0.2)
    N = (X.T * res.counts) @ X
    Aw = (X.T * w) @ X
    # Loewner order N >= n A(w) / factor
    ev = np.linalg.eigvalsh(N - 200 * Aw / res.factor)
    assert ev.min() >= -1e-8
    assert res.support <= 3 * 4 // 2 + 1


def test_reduce_support_keeps_information_matrix():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 4))
    w = rng.dirichlet(np.ones(40))
    w2 = reduce_support(X, w)
    assert np.count_nonzero(w2) <= 4 * 5 // 2 + 1
    assert abs(w2.sum() - 1) < 1e-12 and w2.min() >= 0
    np.testing.assert_allclose((X.T * w2) @ X, (X.T * w) @ X, atol=1e-12)


def test_rounding_requirement_formula():
    assert rounding_requirement(1, 0.1) == 1
    assert rounding_requirement(5, 0.1) == 44  # ceil(4 * 1.1 / 0.1)
    for p in (2, 5, 11):
        for eps in (0.05, 0.1, 1.0):
            r = rounding_requirement(p, eps)
            assert r / (r - p + 1) <= 1 + eps + 1e-12
            if r > p:
                assert (r - 1) / (r - p) > 1 + eps


def test_soare_lemma6_bound_g_design():
    """Soare et al. Lemma 6 (G): rho_G(rounded) <= (1 + (d + d^2 + 2)/(2t)) d.  The bound
    that always holds is t/(t-p+1) d; Lemma 6 (= Pukelsheim's 1 + p/t with p = d(d+1)/2+1)
    is implied by it once t >= p(p-1)."""
    from bandits.instances import soare
    from design import g_optimal

    for d in (2, 3, 5):
        X = soare(d=d, omega=0.01).X
        lam = g_optimal(X, tol=1e-9).weights
        p_max = d * (d + 1) // 2 + 1
        for t in list(range(d + 3, 60)) + [p_max * (p_max - 1), 500]:
            counts = efficient_round(lam, t)
            p = int(np.count_nonzero(counts))
            rho = t * _xy_value(X, counts, X)
            assert rho <= t / (t - p + 1) * d * (1 + 1e-6)
            if t >= p_max * (p_max - 1):
                assert rho <= (1 + (d + d * d + 2) / (2 * t)) * d * (1 + 1e-6)


@pytest.mark.parametrize("bad, match", [
    (dict(eps=0.0), "eps"), (dict(eps=-1), "eps"), (dict(eps="a"), "eps"),
    (dict(n=0), "n"), (dict(n=2), "n="), (dict(weights=[0.5, 0.5]), "weights"),
    (dict(X=[[1.0, np.nan]] * 3), "X"),
])
def test_round_with_guarantee_bad_input(bad, match):
    kw = dict(X=np.eye(3), weights=[0.2, 0.3, 0.5], n=100, eps=0.1)
    kw.update(bad)
    with pytest.raises(ValueError, match=match):
        round_with_guarantee(kw["X"], kw["weights"], kw["n"], kw["eps"])


def test_track_ratio_is_incremental_rounding():
    w = np.array([0.45, 0.3, 0.0, 0.25])
    order, _ = incremental_allocation(w, 60)
    c = np.zeros(4, dtype=int)
    seq = []
    for _ in range(60):
        a = track(c, w, "ratio")
        seq.append(a)
        c[a] += 1
    assert seq == order.tolist()
    for n in range(3, 60):
        np.testing.assert_array_equal(np.bincount(seq[:n], minlength=4), efficient_round(w, n))


@pytest.mark.parametrize("rule", ["C", "D"])
def test_tracking_converges(rule):
    w = np.array([0.6, 0.3, 0.1, 0.0])
    c = np.zeros(4, dtype=int)
    for _ in range(5000):
        c[track(c, w, rule)] += 1
    assert np.abs(c / 5000 - w).max() < 0.02
    assert c.min() >= 1  # forced exploration reaches the zero-weight arm


def test_track_bad_input():
    with pytest.raises(ValueError, match="rule"):
        track([0, 0], [0.5, 0.5], "E")
    with pytest.raises(ValueError, match="counts"):
        track([0, -1], [0.5, 0.5], "C")
    with pytest.raises(ValueError, match="counts"):
        track([0, 0, 0], [0.5, 0.5], "C")
    with pytest.raises(ValueError, match="weights"):
        track([0, 0], [0.5, 0.6], "C")
    with pytest.raises(ValueError, match="cumulative"):
        track([0, 0], [0.5, 0.5], "C", cumulative=[1.0])
