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


@pytest.mark.parametrize(("crit", "kw"), [("d", {}), ("a", {}), ("ds", {"interest": [4, 5]})],
                         ids=["d", "a", "ds"])
def test_exchange_under_caps_leaves_no_residue(crit, kw):
    """200 sensor sites, a quadratic surface, at most 5% of the effort per site: the
    exchange's result, pulled exactly under the caps by mixing with an interior point of
    all candidates, used to carry about 1e-17 on every site the optimum does not use (a
    run sheet listed all 200). The interior point is now taken on the design's support:
    the design has no weight in (0, 1e-12 max] and fewer than 100 support points (with
    drop_residue=False too: the exchange itself leaves none), is certified, keeps the caps
    exactly, and both are the optimum within their certified gaps."""
    from design import model_matrix

    X = model_matrix(np.random.default_rng(5).uniform(-1, 1, (200, 2)), "quadratic")
    res = constrained_optimal(X, crit, caps=0.05, **kw)
    raw = constrained_optimal(X, crit, caps=0.05, drop_residue=False, **kw)
    for r in (res, raw):
        w = r.weights
        assert r.converged and r.support.size < 100
        assert not np.any((w > 0) & (w <= 1e-12 * w.max()))
        assert np.all(w <= 0.05) and abs(w.sum() - 1.0) <= 1e-12
    assert res.lower_bound <= raw.value * (1 + 1e-12) and raw.lower_bound <= res.value


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


# ---- general linear constraints A_ub w <= b_ub: the working-set barrier solver ----------

LINEAR = [("d", {}), ("a", {}), ("i", {})]


def _random_constraints(K, seed):
    """Two resource rows (costs against budgets) and a group share limit, all active-ish."""
    rng = np.random.default_rng(seed)
    costs = rng.uniform(1, 3, (2, K))
    group = (rng.uniform(size=K) < 0.3).astype(float)
    A = np.vstack([costs, group])
    b = np.array([1.7, 1.8, 0.2])
    return A, b


@pytest.mark.parametrize(("crit", "kw"), LINEAR, ids=[c[0] for c in LINEAR])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_barrier_matches_cvxpy_and_brackets_the_optimum(crit, kw, seed):
    X = np.random.default_rng(10 + seed).standard_normal((150, 5))
    A, b = _random_constraints(150, seed)
    res = constrained_optimal(X, crit, A_ub=A, b_ub=b, caps=0.04, **kw)
    assert res.solver == "barrier" and res.converged and res.gap <= 1e-6
    ref = cvx(X, crit, A_ub=A, b_ub=b, caps=0.04, **kw)
    brackets(res, ref)
    # the constraints hold exactly in floating point, never violated
    w = res.weights
    assert np.all(A @ w <= b) and np.all(w <= 0.04) and np.all(w >= 0)
    assert abs(w.sum() - 1.0) <= 1e-12


@pytest.mark.parametrize(("crit", "kw"), LINEAR, ids=[c[0] for c in LINEAR])
def test_barrier_with_fixed_runs(crit, kw):
    X = np.random.default_rng(5).standard_normal((100, 4))
    A, b = _random_constraints(100, 7)
    fixed = np.zeros(100, dtype=int)
    fixed[:3] = 4
    res = constrained_optimal(X, crit, A_ub=A, b_ub=b, fixed=fixed, n=20, **kw)
    assert res.solver == "barrier" and res.converged
    assert np.all(A @ res.weights <= b)
    brackets(res, cvx(X, crit, A_ub=A, b_ub=b, fixed=fixed, n=20, **kw))


def test_barrier_budget_without_caps_and_a_loose_constraint():
    """A constraint that does not bind gives the unconstrained optimum (certified)."""
    X = np.random.default_rng(6).standard_normal((200, 6))
    free = d_optimal(X, tol=1e-8)
    res = constrained_optimal(X, "d", A_ub=[np.ones(200)], b_ub=[2.0])
    assert res.solver == "barrier" and res.converged
    assert res.value == pytest.approx(free.value, rel=2e-6)
    assert res.lower_bound <= free.value * (1 + 1e-12)


def test_barrier_refuses_infeasible_and_falls_back_without_interior():
    X = np.random.default_rng(8).standard_normal((60, 3))
    c = np.random.default_rng(9).uniform(1, 3, 60)
    with pytest.raises(ValueError, match=r"A_ub w <= b_ub.*infeasible"):
        constrained_optimal(X, "d", A_ub=[c], b_ub=[0.5])
    with pytest.raises(ValueError, match=r"A_ub w <= b_ub.*infeasible"):
        assert c.min() < 1.5  # feasible without the caps
        constrained_optimal(X, "a", A_ub=[c], b_ub=[1.5], caps=0.02)  # caps force cost
    # an equality written as two inequalities: no interior, cvxpy solves it (and says so)
    mid = float(np.median(c))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DesignConvergenceWarning)
        res = constrained_optimal(X, "d", A_ub=[c, -c], b_ub=[mid, -mid])
    assert res.solver.startswith("cvxpy") and "no interior" in res.message
    with pytest.raises(ValueError, match="method='barrier'"):
        constrained_optimal(X, "ds", A_ub=[c], b_ub=[2.0], interest=[0], method="barrier")
    with pytest.raises(ValueError, match="method='exchange'"):
        constrained_optimal(X, "d", A_ub=[c], b_ub=[2.0], method="exchange")


def test_lagrangian_bound_is_a_true_upper_bound():
    """For any multipliers lam >= 0 the Lagrangian bound is >= the LP maximum over P."""
    from scipy.optimize import linprog

    from design._constrained_barrier import lagrangian_top

    rng = np.random.default_rng(11)
    K = 40
    for _ in range(20):
        g = rng.standard_normal(K)
        A = rng.uniform(0, 2, (2, K))
        b = np.array([1.2, 1.1])
        caps = np.where(rng.uniform(size=K) < 0.5, 0.1, np.inf)
        lp = linprog(-g, A_ub=A, b_ub=b, A_eq=np.ones((1, K)), b_eq=[1.0],
                     bounds=[(0, None if np.isinf(c) else c) for c in caps], method="highs")
        assert lp.status == 0
        for lam in (np.zeros(2), rng.exponential(size=2), -lp.ineqlin.marginals):
            assert lagrangian_top(g, caps, A, b, lam)[0] >= -lp.fun - 1e-12


@pytest.mark.parametrize("caps", [None, 0.1])
def test_barrier_without_linear_rows_matches_the_exchange(caps):
    """method='barrier' with caps only (or nothing) reaches the exchange solver's optimum;
    each certificate brackets the other's value."""
    X = np.random.default_rng(12).standard_normal((200, 5))
    res = constrained_optimal(X, "d", caps=caps, method="barrier")
    ref = constrained_optimal(X, "d", caps=caps)
    assert res.solver == "barrier" and ref.solver == "exchange" and res.converged
    assert res.lower_bound <= ref.value * (1 + 1e-12)
    assert ref.lower_bound <= res.value * (1 + 1e-12)


@pytest.mark.parametrize(("crit", "kw"), LINEAR, ids=[c[0] for c in LINEAR])
def test_barrier_design_has_no_interior_point_residue(crit, kw):
    """A lab's quadratic model on a 4 x 4 grid under a binding cost budget: the barrier
    leaves weights of 1e-6 to 1e-5 on candidates the optimum does not use (two of 13 in
    the D case: a lab would be told to run them, and efficient rounding to 12 runs was
    refused for a support of 13). The design returned has no weight in (0, 1e-3 max],
    is certified to tol, keeps the budget exactly, and its value is cvxpy's within the
    two certificates."""
    from design import box_grid, model_matrix

    F = box_grid(4, 2)
    X = model_matrix(F, "quadratic")
    cost = np.random.default_rng(7).uniform(1.0, 2.0, X.shape[0])
    res = constrained_optimal(X, crit, A_ub=[cost], b_ub=[1.4], **kw)
    w = res.weights
    assert res.converged and res.gap <= 1e-6
    assert not np.any((w > 0) & (w <= 1e-3 * w.max()))
    assert cost @ w <= 1.4 and abs(w.sum() - 1.0) <= 1e-12 and np.all(w >= 0)
    brackets(res, cvx(X, crit, A_ub=[cost], b_ub=[1.4], **kw))


def test_cvxpy_design_has_no_solver_residue():
    """method='cvxpy' with A_ub: Clarabel leaves weights of 1e-9 on 5 of the 16 candidates
    of the lab's D problem above; the design returned is solved again without them (11
    support points), certified to tol, within the budget, and brackets the barrier's. A
    singular Ds optimum (interest: the linear terms) cannot be certified without an
    invertible information matrix, so there the solver's point is kept, certified."""
    from design import box_grid, model_matrix

    X = model_matrix(box_grid(4, 2), "quadratic")
    cost = np.random.default_rng(7).uniform(1.0, 2.0, X.shape[0])
    res = cvx(X, "d", A_ub=[cost], b_ub=[1.4])
    raw = cvx(X, "d", A_ub=[cost], b_ub=[1.4], drop_residue=False)
    w = res.weights
    assert res.converged and not np.any((w > 0) & (w <= 1e-3 * w.max()))
    assert np.any((raw.weights > 0) & (raw.weights <= 1e-3 * raw.weights.max()))
    assert res.support.size < raw.support.size
    assert cost @ w <= 1.4 and abs(w.sum() - 1.0) <= 1e-12 and np.all(w >= 0)
    brackets(res, constrained_optimal(X, "d", A_ub=[cost], b_ub=[1.4]))
    ds = cvx(X, "ds", interest=[1, 2], A_ub=[cost], b_ub=[1.4])
    assert ds.converged and ds.gap <= 1e-4


def test_drop_residue_false_keeps_the_first_certified_point():
    """drop_residue=False returns the barrier's point with its residue (the same
    certificate semantics), and a non-boolean is refused by name."""
    from design import box_grid, model_matrix

    X = model_matrix(box_grid(4, 2), "quadratic")
    cost = np.random.default_rng(7).uniform(1.0, 2.0, X.shape[0])
    raw = constrained_optimal(X, "d", A_ub=[cost], b_ub=[1.4], drop_residue=False)
    clean = constrained_optimal(X, "d", A_ub=[cost], b_ub=[1.4])
    w = raw.weights
    assert raw.converged and np.any((w > 0) & (w <= 1e-3 * w.max()))
    assert clean.support.size < raw.support.size
    brackets(raw, clean)
    with pytest.raises(ValueError, match="drop_residue"):
        constrained_optimal(X, "d", A_ub=[cost], b_ub=[1.4], drop_residue="yes")
