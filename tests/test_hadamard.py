"""The Hadamard design of design/hadamard.py (used by CSAR, Rejwan & Mansour 2020)."""

import numpy as np
import pytest

from design.hadamard import has_hadamard, subset_design, sylvester_hadamard


@pytest.mark.parametrize("order", [1, 2, 4, 8, 16, 32])
def test_sylvester_is_hadamard(order):
    H = sylvester_hadamard(order)
    assert set(np.unique(H)) <= {-1, 1}
    assert np.array_equal(H @ H.T, order * np.eye(order, dtype=np.int64))
    assert np.all(H[0] == 1) and np.all(H[:, 0] == 1)


@pytest.mark.parametrize("order", [0, 3, 6, 12, -4, 2.5, True])
def test_sylvester_rejects_bad_order(order):
    with pytest.raises(ValueError, match="order"):
        sylvester_hadamard(order)


@pytest.mark.parametrize("K", [1, 2, 3, 4, 5, 7, 8, 16])
def test_design_queries_are_K_subsets_and_estimator_is_exact(K):
    d = subset_design(K)
    assert d.kind == ("hadamard" if has_hadamard(K) else "leave-one-out")
    inc = d.incidence
    assert np.all(inc.sum(axis=1) == K)                       # every query has K arms
    assert all(len(set(q.tolist())) == K for q in d.queries)  # distinct arms
    rng = np.random.default_rng(K)
    theta, c = rng.random(d.block), 0.7
    # exact under the linear model with a shared constant: theta + c / K
    assert np.allclose(d.estimate(inc @ theta + c), theta + c / K)
    # left inverse of the incidence matrix: unbiased for every theta
    assert np.allclose(d.coef @ inc, np.eye(d.block), atol=1e-12)
    assert np.allclose(d.coef.sum(axis=1), 1.0 / K)


@pytest.mark.parametrize("K", [1, 2, 4, 8])
def test_hadamard_design_structure_and_variance(K):
    d = subset_design(K, "hadamard")
    b = 2 * K
    assert d.block == b and d.n_queries == 2 * (b - 1)
    inc = d.incidence
    # complementary pairs: each row pair covers the block exactly once
    assert np.all(inc[0::2] + inc[1::2] == 1)
    # every arm is in exactly half of the queries
    assert np.all(inc.sum(axis=0) == b - 1)
    # variance per repetition ~ 1/K of one query's (documented formula)
    expected = 2 * (b - 1) * (1 + 1 / (b - 1) ** 2) / b**2
    assert d.variance_factor() == pytest.approx(expected)
    loo = subset_design(K, "leave-one-out")
    assert loo.variance_factor() == pytest.approx(1 - 1 / K + 1 / K**2)
    if K >= 2:
        # Hadamard: per query and per arm, the variance is K/2 times smaller or better
        assert (d.variance_factor() * d.n_queries / d.block) \
            < (loo.variance_factor() * loo.n_queries / loo.block)


def test_design_estimate_averages_repetitions_and_checks_shape():
    d = subset_design(2)
    y = np.ones((3, d.n_queries))
    assert d.estimate(y).shape == (4,)
    with pytest.raises(ValueError, match="rewards per repetition"):
        d.estimate(np.ones(5))


@pytest.mark.parametrize("K,kind", [(0, "auto"), (-1, "auto"), (3, "hadamard"), (2, "bogus")])
def test_design_rejects_bad_input(K, kind):
    with pytest.raises(ValueError):
        subset_design(K, kind)
