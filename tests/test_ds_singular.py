"""Singular Ds-optimal designs: the first-order solver reaches them, the value is the
information matrix of the parameters of interest for a singular A, and the certificate is a
true bound (closed form, Elfving's LP, cvxpy)."""

import warnings

import numpy as np
import pytest

from design import DesignConvergenceWarning, c_optimal, criterion_check, ds_optimal

GRID = np.linspace(-1.0, 1.0, 21)
QUAD = np.c_[np.ones_like(GRID), GRID, GRID**2]


def singular_instance(seed):
    """Arms whose Ds-optimum is singular: 20 arms whose nuisance part lies in an
    ``r < m``-dimensional subspace and carry large interest components (they are the
    efficient ones), 30 generic Gaussian arms; columns shuffled."""
    rng = np.random.default_rng(seed)
    d = int(rng.integers(3, 7))
    s = int(rng.integers(1, d - 1))
    m = d - s
    r = int(rng.integers(0, m))
    U = rng.standard_normal((m, r))
    A = np.c_[rng.standard_normal((20, r)) @ U.T, 5.0 * rng.standard_normal((20, s))]
    X = np.r_[A, 0.5 * rng.standard_normal((30, d))]
    perm = rng.permutation(d)
    return np.ascontiguousarray(X[:, perm]), np.flatnonzero(perm >= m)


def rank_of(X, w):
    S = w > 0
    return np.linalg.matrix_rank(np.sqrt(w[S])[:, None] * X[S])


def test_slope_of_a_quadratic_is_the_singular_two_point_design():
    # f = (1, x, x^2) on [-1, 1], interest: the slope (s = 1, the c-criterion for e_2).
    # Elfving's theorem (Elfving 1952; Pukelsheim 2006, §2.14): e_2 = f(1)/2 - f(-1)/2 lies
    # on the boundary of the Elfving set conv(+-f(x)) (the dual vector u = e_2 has
    # |u^T f(x)| = |x| <= 1), so the optimum is 1/2 at -1 and 1, with slope variance 1; its
    # information matrix has rank 2 (the intercept and x^2 coincide at +-1).
    res = ds_optimal(QUAD, [1])
    assert res.converged
    assert set(GRID[res.support]) == {-1.0, 1.0}
    np.testing.assert_allclose(res.weights[res.support], [0.5, 0.5], atol=1e-6)
    assert rank_of(QUAD, res.weights) == 2
    assert res.value == pytest.approx(1.0, rel=1e-12)
    assert res.lower_bound <= 1.0 <= res.value * (1 + 1e-12)
    assert res.gap <= 1e-6
    # the certificate of the exact optimum, the user's weights
    w = np.zeros(21)
    w[[0, 20]] = 0.5
    cert = criterion_check(QUAD, w, "ds", interest=[1])
    assert cert.value == pytest.approx(1.0, rel=1e-12)
    assert cert.lower_bound <= 1.0 and cert.gap <= 1e-9


def test_singular_value_is_the_generalized_schur_complement():
    # weights 0.4, 0.2, 0.4 at -1, 0, 1 (nonsingular): slope information sum w x^2 = 0.8
    # (symmetric design: the slope is orthogonal to 1 and x^2), value 1.25; and the singular
    # design 1/2 at -1 and 1/2 at 1 of the test above has value 1, not inf.
    w = np.zeros(21)
    w[[0, 10, 20]] = [0.4, 0.2, 0.4]
    cert = criterion_check(QUAD, w, "ds", interest=[1])
    assert cert.value == pytest.approx(1.25, rel=1e-12)
    assert cert.lower_bound <= 1.0
    # two points that are not symmetric: the slope is not estimable, the value is inf
    w = np.zeros(21)
    w[[0, 17]] = 0.5
    cert = criterion_check(QUAD, w, "ds", interest=[1])
    assert cert.value == np.inf and cert.lower_bound == 0.0


@pytest.mark.parametrize("seed", range(8))
def test_singular_instances_agree_with_cvxpy(seed):
    X, interest = singular_instance(seed)
    d = X.shape[1]
    ours = ds_optimal(X, interest)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # cvxpy's accuracy warnings; its gap is not tested
        ref = ds_optimal(X, interest, method="cvxpy")
    assert ours.converged and ours.gap <= 1e-6
    # both certified lower bounds are below both values (each bounds the common optimum)
    assert ours.lower_bound <= ref.value * (1 + 1e-12)
    assert ref.lower_bound <= ours.value * (1 + 1e-12)
    assert ours.value == pytest.approx(ref.value, rel=2e-6)
    # the instance family is singular at the optimum
    assert rank_of(X, ours.weights) < d
    if len(interest) == 1:
        # s = 1 is the c-criterion: Elfving's LP gives the optimum exactly
        y = np.zeros(d)
        y[interest[0]] = 1.0
        ref_c = c_optimal(X, y)
        assert ours.value == pytest.approx(ref_c.value, rel=2e-6)
        assert ours.lower_bound <= ref_c.value * (1 + 1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_nonsingular_instances_agree_with_cvxpy(seed):
    rng = np.random.default_rng(100 + seed)
    X = rng.standard_normal((40, 5))
    ours = ds_optimal(X, [1, 3])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = ds_optimal(X, [1, 3], method="cvxpy")
    assert ours.converged and rank_of(X, ours.weights) == 5
    assert ours.lower_bound <= ref.value * (1 + 1e-12)
    assert ref.lower_bound <= ours.value * (1 + 1e-12)
    assert ours.value == pytest.approx(ref.value, rel=2e-6)


@pytest.mark.parametrize("seed", range(4))
def test_certificate_of_sparse_weights_bounds_the_optimum(seed):
    # any weights, singular ones too: value >= optimum >= lower bound
    X, interest = singular_instance(seed)
    opt = ds_optimal(X, interest)
    rng = np.random.default_rng(seed)
    checked = 0
    for _ in range(40):
        w = np.zeros(X.shape[0])
        # supports among the 20 structured arms: singular, the interest often estimable
        S = rng.choice(20, size=int(rng.integers(1, 21)), replace=False)
        w[S] = rng.dirichlet(np.ones(S.size))
        cert = criterion_check(X, w, "ds", interest=interest)
        # cert.value >= optimum >= opt.lower_bound; cert.lower_bound <= optimum <= opt.value
        assert cert.value >= opt.lower_bound * (1 - 1e-12)
        assert cert.lower_bound <= opt.value * (1 + 1e-12)
        checked += np.isfinite(cert.value) and rank_of(X, w) < X.shape[1]
    assert checked > 0  # some singular weights had the parameters of interest estimable


def test_not_converged_singular_run_warns_and_says_so():
    with pytest.warns(DesignConvergenceWarning):
        res = ds_optimal(QUAD, [1], max_iter=1)
    assert not res.converged and res.lower_bound <= 1.0 and "max_iter" in res.message


def test_candidates_not_spanning_with_an_estimable_interest():
    # (1, x, x^2) on x = +-1 only: x^2 = 1 duplicates the intercept (rank 2 < 3), the slope
    # is estimable (e_2 = (f(1) - f(-1)) / 2) and its Ds-optimum is 1/2 at each point with
    # slope information sum w x^2 = 1: value 1, as for the spanning model (1, x)
    t = np.array([-1.0, 1.0, 1.0, -1.0])
    X = np.c_[np.ones(4), t, t * t]
    res = ds_optimal(X, [1])
    assert res.converged and res.info["span_rank"] == 2
    assert res.value == pytest.approx(1.0, rel=1e-9)
    assert res.lower_bound <= 1.0 <= res.value * (1 + 1e-12)
    assert res.weights[t > 0].sum() == pytest.approx(0.5, abs=1e-6)
    # the intercept is confounded with x^2 on these candidates: no design estimates it
    with pytest.raises(ValueError, match="not estimable"):
        ds_optimal(X, [0])


@pytest.mark.parametrize("seed", range(4))
def test_not_spanning_agrees_with_the_spanning_model(seed):
    # X = [Y, Y[:, 2:] c]: the last column is a combination of columns 2, 3 (rank 4 < 5);
    # theta_0, theta_1 are estimable, and the Ds design for them equals the one on Y (the
    # same regression for those parameters); columns rescaled to check the value's scale
    rng = np.random.default_rng(seed)
    Y = rng.standard_normal((40, 4)) * [1.0, 3.0, 0.5, 2.0]
    X = np.c_[Y, Y[:, 2:] @ rng.standard_normal(2)]
    ref = ds_optimal(Y, [0, 1])
    ours = ds_optimal(X, [0, 1])
    assert ours.converged and ours.info["span_rank"] == 4
    assert ours.lower_bound <= ref.value * (1 + 1e-12)
    assert ref.lower_bound <= ours.value * (1 + 1e-12)
    assert ours.value == pytest.approx(ref.value, rel=1e-5)
    with pytest.raises(ValueError, match="not estimable"):
        ds_optimal(X, [2])
