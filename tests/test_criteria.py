"""A-, I- and Ds-optimal designs: closed-form optima, cvxpy cross-checks, certificates,
the result contract of every criterion (incl. the non-convergence warning), bad input."""

import warnings

import numpy as np
import pytest

import design
from design import (
    DesignConvergenceWarning,
    a_optimal,
    criterion_check,
    ds_optimal,
    i_optimal,
    linear_optimal,
    moment_matrix,
)

GRID = np.linspace(-1.0, 1.0, 201)  # contains -1, -1/2, 0, 1/2, 1


def poly(x, degree):
    return np.vander(np.asarray(x, dtype=float), degree + 1, increasing=True)


def random_arms(K, d, seed):
    return np.random.default_rng(seed).standard_normal((K, d))


def weights_at(res, x, points):
    return np.array([res.weights[np.argmin(np.abs(x - p))] for p in points])


# ----------------------------------------------------------------------------------------
# known optima
# ----------------------------------------------------------------------------------------


def test_a_optimal_simple_linear_regression_on_minus1_1():
    # f = (1, x) on [-1, 1]: A = diag(1, m2) for symmetric designs, tr A^{-1} = 1 + 1/m2,
    # minimal at m2 = 1: weights 1/2 at -1 and 1, value 2 (Pukelsheim 2006, §9.8 example).
    res = a_optimal(poly(GRID, 1))
    assert res.converged
    assert set(GRID[res.support]) == {-1.0, 1.0}
    np.testing.assert_allclose(weights_at(res, GRID, [-1, 1]), [0.5, 0.5], atol=1e-6)
    assert res.value == pytest.approx(2.0, rel=1e-9)
    assert res.lower_bound <= 2.0 <= res.value * (1 + 1e-12)


def test_a_optimal_simple_linear_regression_on_0_1():
    # f = (1, x) on [0, 1]: weight w at 1, tr A^{-1} = (1 + w) / (w (1 - w)), minimal at
    # w^2 + 2 w - 1 = 0, i.e. w = sqrt(2) - 1 (value 3 + 2 sqrt 2); Pukelsheim (2006), §8.?/9.8.
    x = np.linspace(0.0, 1.0, 101)
    res = a_optimal(poly(x, 1))
    np.testing.assert_allclose(weights_at(res, x, [0, 1]), [2 - np.sqrt(2), np.sqrt(2) - 1],
                               atol=1e-6)
    assert res.value == pytest.approx(3 + 2 * np.sqrt(2), rel=1e-9)


def test_a_optimal_quadratic_regression():
    # symmetric design with mass p on {-1, 1}: tr A^{-1} = 2 / (p (1 - p)), so p = 1/2:
    # weights 1/4, 1/2, 1/4 at -1, 0, 1 and value 8.
    res = a_optimal(poly(GRID, 2))
    np.testing.assert_allclose(weights_at(res, GRID, [-1, 0, 1]), [0.25, 0.5, 0.25], atol=1e-5)
    assert res.value == pytest.approx(8.0, rel=1e-8)


def test_i_optimal_quadratic_regression_uniform_on_minus1_1():
    # I-optimal design for f = (1, x, x^2), variance averaged uniformly over [-1, 1]:
    # weights 1/4, 1/2, 1/4 at -1, 0, 1 (Atkinson, Donev & Tobias 2007, "Optimum
    # Experimental Designs, with SAS", §11.6 / Table 11.?). Derivation: with mass p on
    # {-1, 1}, tr(L A^{-1}) = (1/3 + 1/5) / (p (1 - p)) = (8/15) / (p (1 - p)), so p = 1/2
    # and the minimal average variance is 32/15.
    L = np.array([[1, 0, 1 / 3], [0, 1 / 3, 0], [1 / 3, 0, 1 / 5]])
    res = i_optimal(poly(GRID, 2), L=L)
    assert res.converged and res.criterion == "I"
    np.testing.assert_allclose(weights_at(res, GRID, [-1, 0, 1]), [0.25, 0.5, 0.25], atol=1e-5)
    assert res.value == pytest.approx(32 / 15, rel=1e-8)
    assert res.lower_bound <= 32 / 15 <= res.value * (1 + 1e-12)
    # the moment matrix of a fine uniform grid approximates L: same design
    fine = poly(np.linspace(-1, 1, 20001), 2)
    res2 = i_optimal(poly(GRID, 2), region=fine)
    np.testing.assert_allclose(res2.info["L"], L, atol=1e-3)
    np.testing.assert_allclose(weights_at(res2, GRID, [-1, 0, 1]), [0.25, 0.5, 0.25],
                               atol=1e-3)


@pytest.mark.parametrize(("degree", "points", "weights"), [
    (2, [-1, 0, 1], [0.25, 0.5, 0.25]),
    (3, [-1, -0.5, 0.5, 1], [1 / 6, 1 / 3, 1 / 3, 1 / 6]),
])
def test_ds_optimal_highest_coefficient_is_chebyshev(degree, points, weights):
    # Ds-optimal for the highest coefficient of a degree-m polynomial on [-1, 1]: the
    # Chebyshev points cos(k pi / m), weights 1/(2m) at the ends and 1/m inside
    # (Kiefer & Wolfowitz 1959, Ann. Math. Statist. 30; Studden 1968). Its value is the
    # variance of the coefficient estimate, 2^(2m - 2) (here 4 and 16).
    res = ds_optimal(poly(GRID, degree), [degree])
    assert res.converged and res.criterion == "Ds"
    assert res.support.size == degree + 1
    np.testing.assert_allclose(GRID[res.support], points, atol=1e-12)
    np.testing.assert_allclose(res.weights[res.support], weights, atol=1e-5)
    assert res.value == pytest.approx(4.0 ** (degree - 1), rel=1e-8)


def test_ds_with_all_parameters_is_d_optimal():
    X = random_arms(300, 4, 5)
    ds = ds_optimal(X, [0, 1, 2, 3], tol=1e-8)
    d = design.d_optimal(X, tol=1e-8)
    assert ds.value == pytest.approx(d.value, rel=1e-6)


def test_linear_optimal_with_identity_is_a_optimal():
    X = random_arms(200, 5, 8)
    a = a_optimal(X)
    lin = linear_optimal(X, np.eye(5))
    assert lin.value == pytest.approx(a.value, rel=1e-6)


def test_i_optimal_equals_a_optimal_after_the_change_of_variables():
    # OptimalDesign's Fx_ItoA: with L = C C^T, tr(L A^{-1}) = tr((C^{-1} A C^{-T})^{-1}),
    # the A-criterion of the arms C^{-1} x. Same optimal weights and value.
    X = random_arms(300, 4, 9)
    R = random_arms(50, 4, 10)
    L = moment_matrix(R)
    C = np.linalg.cholesky(L)
    i_res = i_optimal(X, L=L, tol=1e-9)
    a_res = a_optimal(np.linalg.solve(C, X.T).T, tol=1e-9)
    assert i_res.value == pytest.approx(a_res.value, rel=1e-7)
    np.testing.assert_allclose(i_res.weights, a_res.weights, atol=1e-4)


# ----------------------------------------------------------------------------------------
# cvxpy cross-check and certificates bracketing the optimum
# ----------------------------------------------------------------------------------------

CVX_CASES = [
    ("A", lambda X, **kw: a_optimal(X, **kw)),
    ("I", lambda X, **kw: i_optimal(X, region=X[::3] ** 2, **kw)),
    ("Ds", lambda X, **kw: ds_optimal(X, [0, 2], **kw)),
]


@pytest.mark.parametrize(("name", "fn"), CVX_CASES, ids=[c[0] for c in CVX_CASES])
@pytest.mark.parametrize(("K", "d", "seed"), [(40, 3, 0), (120, 5, 1)])
def test_agrees_with_cvxpy(name, fn, K, d, seed):
    X = random_arms(K, d, seed)
    ours = fn(X, tol=1e-7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DesignConvergenceWarning)
        ref = fn(X, method="cvxpy", tol=1e-7)
    assert ref.solver.startswith("cvxpy")
    assert ours.converged
    # both certified lower bounds are below both values (each bounds the common optimum)
    assert ours.lower_bound <= ref.value * (1 + 1e-12)
    assert ref.lower_bound <= ours.value * (1 + 1e-12)
    assert ours.value == pytest.approx(ref.value, rel=1e-5)


@pytest.mark.parametrize("criterion", ["a", "i", "ds"])
def test_check_of_arbitrary_weights_bounds_the_optimum(criterion):
    X = random_arms(150, 4, 3)
    kw = {"interest": [1, 3]} if criterion == "ds" else {}
    opt = {"a": a_optimal, "i": i_optimal, "ds": lambda X, **k: ds_optimal(X, [1, 3], **k)}[
        criterion](X, tol=1e-9)
    rng = np.random.default_rng(4)
    for _ in range(5):
        w = rng.dirichlet(np.ones(150))
        cert = criterion_check(X, w, criterion, **kw)
        # value of any design >= optimum >= its certified lower bound
        assert cert.value >= opt.value * (1 - 1e-12)
        assert cert.lower_bound <= opt.value * (1 + 1e-12)
        assert cert.gap == pytest.approx(cert.value / cert.lower_bound - 1, rel=1e-9)
    cert = criterion_check(X, opt.weights, criterion, **kw)
    assert cert.gap <= 1e-9 * (1 + 1e-6)


def test_singular_design_has_infinite_value_and_zero_bound():
    X = random_arms(20, 3, 0)
    w = np.zeros(20)
    w[:2] = 0.5
    cert = criterion_check(X, w, "a")
    assert cert.value == np.inf and cert.lower_bound == 0.0


# ----------------------------------------------------------------------------------------
# the contract of every criterion (new criteria are tested for free when added here)
# ----------------------------------------------------------------------------------------

ALL_CRITERIA = {
    "G": lambda X, **kw: design.g_optimal(X, **kw),
    "D": lambda X, **kw: design.d_optimal(X, **kw),
    "A": lambda X, **kw: a_optimal(X, **kw),
    "I": lambda X, **kw: i_optimal(X, **kw),
    "L": lambda X, **kw: linear_optimal(X, np.diag(np.arange(1.0, X.shape[1] + 1)), **kw),
    "Ds": lambda X, **kw: ds_optimal(X, [0], **kw),
    "XY": lambda X, **kw: design.xy_optimal(X, **kw),
    "minimax": lambda X, **kw: design.minimax_optimal(X, X[:5] - X[5:10], **kw),
    "H": lambda X, **kw: design.h_optimal(X, np.full(X.shape[1], 0.3), **kw),
    "A-caps": lambda X, **kw: design.constrained_optimal(X, "a", caps=0.1, **kw),
    "D-fixed": lambda X, **kw: design.constrained_optimal(
        X, "d", fixed=(np.arange(X.shape[0]) < 3).astype(int), n=20, **kw),
    "Ds-caps": lambda X, **kw: design.constrained_optimal(X, "ds", interest=[1], caps=0.1,
                                                          **kw),
}


@pytest.mark.parametrize("name", list(ALL_CRITERIA))
def test_result_contract(name):
    X = random_arms(60, 4, 21)
    res = ALL_CRITERIA[name](X, tol=1e-6)
    assert res.converged, res.message
    assert res.message.startswith("converged")
    w = res.weights
    assert w.shape == (60,) and np.all(w >= 0) and w.sum() == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_array_equal(res.support, np.flatnonzero(w > 0))
    assert 0 < res.lower_bound <= res.value
    assert res.gap == pytest.approx(res.value / res.lower_bound - 1, rel=1e-6, abs=1e-12)
    assert res.gap <= 1e-6


@pytest.mark.parametrize("name", [n for n in ALL_CRITERIA if n != "c"])
def test_not_converged_warns_and_says_why(name):
    X = random_arms(400, 8, 22)
    with pytest.warns(DesignConvergenceWarning, match="not converged"):
        res = ALL_CRITERIA[name](X, tol=1e-12 if name in ("G", "D") else 1e-9, max_iter=1)
    assert not res.converged
    assert res.message.startswith("not converged") and "max_iter" in res.message
    assert "not converged" in repr(res)


def test_c_optimal_converged_has_message():
    X = random_arms(30, 3, 2)
    res = design.c_optimal(X, X[0] - X[1])
    assert res.converged and res.message.startswith("converged")


# ----------------------------------------------------------------------------------------
# bad input
# ----------------------------------------------------------------------------------------


def test_bad_input():
    X = random_arms(30, 3, 1)
    with pytest.raises(ValueError, match="L must be positive semidefinite"):
        i_optimal(X, L=np.diag([1.0, -1.0, 1.0]))
    with pytest.raises(ValueError, match="L must be symmetric"):
        i_optimal(X, L=np.triu(np.ones((3, 3))))
    with pytest.raises(ValueError, match=r"L must have shape"):
        i_optimal(X, L=np.eye(2))
    with pytest.raises(ValueError, match="not both"):
        i_optimal(X, L=np.eye(3), region=X)
    with pytest.raises(ValueError, match="region has 2 columns"):
        i_optimal(X, region=X[:, :2])
    with pytest.raises(ValueError, match="interest must be a sequence"):
        ds_optimal(X, 1)
    with pytest.raises(ValueError, match="interest has an index outside"):
        ds_optimal(X, [5])
    with pytest.raises(ValueError, match="repeated"):
        ds_optimal(X, [1, 1])
    with pytest.raises(ValueError, match="method must be one of"):
        a_optimal(X, method="rex")
    with pytest.raises(ValueError, match="tol"):
        a_optimal(X, tol=0)
    with pytest.raises(ValueError, match="rank"):
        a_optimal(np.c_[X[:, :2], X[:, 0] + X[:, 1]])
    with pytest.raises(ValueError, match="criterion must be one of"):
        criterion_check(X, np.full(30, 1 / 30), "e")
    with pytest.raises(ValueError, match="interest .* is required"):
        criterion_check(X, np.full(30, 1 / 30), "ds")


@pytest.mark.parametrize("kind", ["linear", "ds"])
def test_exchange_solvers_reach_the_optimum_whatever_the_refresh_interval(kind):
    # linear_solve / ds_solve recompute the exact state (LAPACK) between runs of the
    # jitted steps, which return REFRESH every `refresh` steps: refreshing after every
    # step and after 10,000 reach the same optimum, certified by the equivalence theorem
    # (max_a g_a <= phi (1 + tol) for A; max_a d_a <= s (1 + tol) for Ds)
    from design import _criteria_numba as kern

    X = np.random.default_rng(11).normal(size=(30, 4))
    K, d = X.shape
    out = []
    for refresh in (1, 10_000):
        w = np.full(K, 1.0 / K)
        if kind == "linear":
            status, its = kern.linear_solve(X, np.eye(d), w, np.zeros((d, d)),
                                            np.full(K, 2.0), False, 1e-9, 100_000, refresh)
            Ainv = np.linalg.inv((X.T * w) @ X)
            g = np.einsum("ij,ij->i", X @ Ainv @ Ainv, X)
            assert g.max() <= np.trace(Ainv) * (1 + 1e-8)
        else:
            XN = np.ascontiguousarray(X[:, 2:])
            status, its = kern.ds_solve(X, XN, w, np.zeros((d, d)), np.zeros((2, 2)),
                                        np.full(K, 2.0), False, 2, 1e-9, 100_000, refresh)
            om = np.einsum("ij,ij->i", X @ np.linalg.inv((X.T * w) @ X), X)
            nu = np.einsum("ij,ij->i", XN @ np.linalg.inv((XN.T * w) @ XN), XN)
            assert (om - nu).max() <= 2 * (1 + 1e-8)
        assert status == kern.CONVERGED and its > 0
        assert w.sum() == pytest.approx(1.0, abs=1e-12) and w.min() >= 0.0
        out.append(w)
    np.testing.assert_allclose(out[0], out[1], atol=1e-4)
