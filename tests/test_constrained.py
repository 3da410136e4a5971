"""Constrained approximate designs (design.constrained_optimal): caps, linear resource
constraints, fixed runs; certificates, cvxpy cross-check, bad input."""

import warnings

import numpy as np
import pytest

from design import DesignConvergenceWarning, constrained_optimal, d_optimal

CRITERIA = [("d", {}), ("a", {}), ("i", {}), ("ds", {"interest": [0, 2]})]
IDS = [c[0] for c in CRITERIA]


@pytest.fixture(scope="module")
def arms():
    return np.random.default_rng(0).standard_normal((120, 4))


def cvx(X, crit, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DesignConvergenceWarning)
        return constrained_optimal(X, crit, method="cvxpy", **kw)


def brackets(ours, ref):
    # each certified lower bound is below the other solver's value: both bound one optimum
    assert ours.lower_bound <= ref.value * (1 + 1e-12)
    assert ref.lower_bound <= ours.value * (1 + 1e-12)
    assert ours.value == pytest.approx(ref.value, rel=1e-4)


@pytest.mark.parametrize(("crit", "kw"), CRITERIA, ids=IDS)
def test_caps(arms, crit, kw):
    res = constrained_optimal(arms, crit, caps=0.03, **kw)
    assert res.converged and res.solver == "exchange"
    assert np.all(res.weights <= 0.03) and res.weights.sum() == pytest.approx(1.0)
    brackets(res, cvx(arms, crit, caps=0.03, **kw))


@pytest.mark.parametrize(("crit", "kw"), CRITERIA, ids=IDS)
def test_budget_is_satisfied_exactly(arms, crit, kw):
    costs = np.random.default_rng(1).uniform(1, 3, arms.shape[0])
    res = constrained_optimal(arms, crit, A_ub=[costs], b_ub=[1.6], caps=0.05, **kw)
    assert res.converged
    assert costs @ res.weights <= 1.6 and np.all(res.weights <= 0.05)
    assert np.all(res.weights >= 0) and res.weights.sum() == pytest.approx(1.0, abs=1e-12)
    free = constrained_optimal(arms, crit, **kw)
    assert res.value >= free.lower_bound  # a constraint never helps


@pytest.mark.parametrize(("crit", "kw"), CRITERIA, ids=IDS)
def test_fixed_runs(arms, crit, kw):
    fixed = np.zeros(arms.shape[0], dtype=int)
    fixed[:4] = 5
    res = constrained_optimal(arms, crit, fixed=fixed, n=30, **kw)
    assert res.converged
    brackets(res, cvx(arms, crit, fixed=fixed, n=30, **kw))
    rows = constrained_optimal(arms, crit, fixed=np.repeat(arms[:4], 5, axis=0), n=30, **kw)
    assert rows.value == pytest.approx(res.value, rel=1e-6)


def test_loose_caps_give_the_unconstrained_design(arms):
    free = d_optimal(arms, tol=1e-8)
    res = constrained_optimal(arms, "d", caps=free.weights.max() * 1.5 + np.zeros(120))
    assert res.value == pytest.approx(free.value, rel=1e-6)


def test_bad_input(arms):
    K = arms.shape[0]
    with pytest.raises(ValueError, match="caps sum to"):
        constrained_optimal(arms, caps=0.5 / K)
    with pytest.raises(ValueError, match="infeasible"):
        constrained_optimal(arms, A_ub=[np.ones(K)], b_ub=[0.5])
    with pytest.raises(ValueError, match="give both A_ub and b_ub"):
        constrained_optimal(arms, A_ub=[np.ones(K)])
    with pytest.raises(ValueError, match="n .* is required"):
        constrained_optimal(arms, fixed=np.ones(K, dtype=int))
    with pytest.raises(ValueError, match="criterion must be one of"):
        constrained_optimal(arms, "g")
    with pytest.raises(ValueError, match="caps must be non-negative"):
        constrained_optimal(arms, caps=-np.ones(K))
