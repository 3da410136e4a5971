"""Tests for the c-optimal design (Elfving's theorem) in design.elfving."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from design.elfving import (
    CCertificate,
    _c_optimal_cvxpy_l1,
    _lower_bound,
    c_check,
    c_optimal,
)


def _instance(seed: int, K: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.standard_normal((K, d)), rng.standard_normal(d)


def _soare(d: int = 5, omega: float = 0.01) -> tuple[np.ndarray, np.ndarray]:
    """Arms e_1..e_d and x_{d+1} = (cos w, sin w, 0, ...); direction y = x_1 - x_{d+1}."""
    extra = np.zeros(d)
    extra[:2] = np.cos(omega), np.sin(omega)
    X = np.vstack([np.eye(d), extra])
    return X, X[0] - X[d]


def _full_lp_optimum(X: np.ndarray, y: np.ndarray) -> float:
    """||w*||_1 from one HiGHS solve of the split LP over all arms (no working set)."""
    K = X.shape[0]
    res = linprog(np.ones(2 * K), A_eq=np.hstack([X.T, -X.T]), b_eq=y, bounds=(0, None),
                  method="highs")
    assert res.status == 0
    return float(res.fun)


def _check_result(res, X: np.ndarray, y: np.ndarray) -> None:
    """Invariants every HiGHS result must satisfy."""
    w = res.info["coefficients"]
    u = res.info["dual"]
    l1 = np.abs(w).sum()
    assert res.criterion == "c"
    assert w.shape == (X.shape[0],) and u.shape == (X.shape[1],)
    np.testing.assert_allclose(X.T @ w, y, rtol=0, atol=1e-10 * (1 + np.abs(y).max()))
    np.testing.assert_allclose(res.weights, np.abs(w) / l1, rtol=0, atol=1e-15)
    assert res.weights.sum() == pytest.approx(1.0, abs=1e-14)
    # Elfving: the optimum is ||w*||_1^2, attained at |w*| / ||w*||_1.
    assert res.value == pytest.approx(l1**2, rel=1e-8)
    # The dual vector is exactly feasible and certifies the lower bound.
    assert np.max(np.abs(X @ u)) <= 1.0 + 1e-12
    assert res.lower_bound == pytest.approx((y @ u) ** 2, rel=1e-12)
    assert res.lower_bound <= res.value * (1 + 1e-12)
    assert res.gap <= 1e-9 and res.converged
    np.testing.assert_array_equal(res.support, np.flatnonzero(res.weights > 0))


# ----------------------------------------------------------------------------- examples


def test_hand_example_identity() -> None:
    res = c_optimal(np.eye(2), [1.0, 1.0])
    np.testing.assert_allclose(res.info["coefficients"], [1.0, 1.0], atol=1e-12)
    np.testing.assert_allclose(res.weights, [0.5, 0.5], atol=1e-12)
    assert res.value == pytest.approx(4.0, rel=1e-12)
    assert res.lower_bound == pytest.approx(4.0, rel=1e-12)
    _check_result(res, np.eye(2), np.array([1.0, 1.0]))


def test_hand_example_signed_coefficients() -> None:
    # y = 2 x_1 - x_2 is the only representation (arms are a basis): value (2 + 1)^2 = 9.
    X = np.array([[1.0, 0.0], [1.0, 1.0]])
    y = 2 * X[0] - X[1]
    res = c_optimal(X, y)
    np.testing.assert_allclose(res.info["coefficients"], [2.0, -1.0], atol=1e-12)
    np.testing.assert_allclose(res.weights, [2 / 3, 1 / 3], atol=1e-12)
    assert res.value == pytest.approx(9.0, rel=1e-12)


def test_soare_hard_instance_exact() -> None:
    # Minimise |a| + |b| + |c| s.t. y = a e_1 + b e_2 + c x_{d+1}.  Writing s = 1 + c,
    # |a| + |b| + |c| = |1 - s cos w| + s sin w + |s - 1| is minimised at s = 1 (c = 0):
    # w* = (1 - cos w, -sin w, 0, ..., 0), optimum (1 - cos w + sin w)^2.
    d, omega = 5, 0.01
    X, y = _soare(d, omega)
    res = c_optimal(X, y)
    expected_w = np.zeros(d + 1)
    expected_w[:2] = 1 - np.cos(omega), -np.sin(omega)
    np.testing.assert_allclose(res.info["coefficients"], expected_w, rtol=1e-10, atol=1e-15)
    assert res.value == pytest.approx((1 - np.cos(omega) + np.sin(omega)) ** 2, rel=1e-10)
    np.testing.assert_array_equal(res.support, [0, 1])  # 2 < d support points: A singular
    # LinGapE (Xu et al. 2018) quotes "about 1:200"; exactly sin w / (1 - cos w) = cot(w/2).
    ratio = res.weights[1] / res.weights[0]
    assert ratio == pytest.approx(1 / np.tan(omega / 2), rel=1e-9)
    assert ratio == pytest.approx(199.998333, rel=1e-8)
    _check_result(res, X, y)
    cert = c_check(X, res.weights, y)
    assert cert.rank == 2
    assert cert.ratio == pytest.approx(1.0, abs=1e-6)
    assert cert.within_tol


def test_soare_matrix_frac_reference() -> None:
    X, y = _soare()
    exact = (1 - np.cos(0.01) + np.sin(0.01)) ** 2
    ref = c_optimal(X, y, method="cvxpy")
    assert ref.solver.startswith("cvxpy-")
    assert ref.value == pytest.approx(exact, rel=1e-4)
    assert ref.lower_bound <= exact * (1 + 1e-12)


# ------------------------------------------------------------------------ random instances

RANDOM_CASES = [(0, 10, 3), (1, 15, 4), (2, 20, 5), (3, 30, 5), (4, 30, 3)]


@pytest.mark.parametrize(("seed", "K", "d"), RANDOM_CASES)
def test_random_value_is_l1_squared(seed: int, K: int, d: int) -> None:
    X, y = _instance(seed, K, d)
    res = c_optimal(X, y)
    _check_result(res, X, y)
    assert res.value == pytest.approx(_full_lp_optimum(X, y) ** 2, rel=1e-9)


@pytest.mark.parametrize(("seed", "K", "d"), RANDOM_CASES)
def test_agrees_with_matrix_frac_and_cvxpy_l1(seed: int, K: int, d: int) -> None:
    X, y = _instance(seed, K, d)
    lp = c_optimal(X, y, method="highs")
    mf = c_optimal(X, y, method="cvxpy")
    l1 = _c_optimal_cvxpy_l1(X, y)
    assert mf.value == pytest.approx(lp.value, rel=1e-4)
    assert l1.value == pytest.approx(lp.value, rel=1e-4)
    # every certified bound is below every achieved value
    for a in (lp, mf, l1):
        for b in (lp, mf, l1):
            assert a.lower_bound <= b.value * (1 + 1e-10)
    assert mf.gap < 1e-2 and l1.gap < 1e-2
    assert isinstance(mf.info["certificate"], CCertificate)
    np.testing.assert_allclose(X.T @ mf.info["coefficients"], y, atol=1e-8)


def test_auto_is_highs() -> None:
    X, y = _instance(7, 25, 4)
    a, h = c_optimal(X, y), c_optimal(X, y, method="highs")
    assert a.solver == h.solver == "highs"
    np.testing.assert_array_equal(a.weights, h.weights)


def test_working_set_reaches_global_optimum() -> None:
    # K far above the initial working set: column generation must still find the optimum.
    X, y = _instance(11, 3000, 6)
    res = c_optimal(X, y)
    assert res.info["working_set"] < 3000
    _check_result(res, X, y)
    assert res.value == pytest.approx(_full_lp_optimum(X, y) ** 2, rel=1e-9)


def test_working_set_made_feasible_when_top_arms_do_not_span() -> None:
    # 300 copies of e_1 are the arms best aligned with y, so the initial working set does
    # not span R^4; spanning arms must be added for the restricted LP to be feasible.
    from unittest import mock

    import design.elfving as elfving

    X = np.vstack([np.tile([1.0, 0.0, 0.0, 0.0], (300, 1)),
                   np.random.default_rng(0).standard_normal((300, 4))])
    y = np.array([1.0, 0.05, 0.0, 0.0])
    with mock.patch.object(elfving, "_spanning_arms", wraps=elfving._spanning_arms) as spy:
        res = c_optimal(X, y)
    assert spy.call_count == 1
    _check_result(res, X, y)
    assert res.value == pytest.approx(_full_lp_optimum(X, y) ** 2, rel=1e-9)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), K=st.integers(1, 60), d=st.integers(1, 6))
def test_property_certificate(seed: int, K: int, d: int) -> None:
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((K, d))
    y = X.T @ rng.standard_normal(K)  # always in the span, even when K < d
    if np.linalg.norm(y) < 1e-6:
        return
    res = c_optimal(X, y)
    _check_result(res, X, y)
    cert = c_check(X, res.weights, y)
    assert cert.ratio == pytest.approx(1.0, abs=1e-6)


def test_permutation_invariance() -> None:
    X, y = _instance(5, 25, 4)
    perm = np.random.default_rng(0).permutation(25)
    a, b = c_optimal(X, y), c_optimal(X[perm], y)
    assert b.value == pytest.approx(a.value, rel=1e-12)
    np.testing.assert_allclose(b.weights, a.weights[perm], atol=1e-12)
    np.testing.assert_allclose(b.info["coefficients"], a.info["coefficients"][perm], atol=1e-12)


def test_scale_equivariance() -> None:
    X, y = _instance(6, 20, 4)
    base = c_optimal(X, y)
    for c in (1e-4, 1e4):
        scaled = c_optimal(c * X, y)
        assert scaled.value == pytest.approx(base.value / c**2, rel=1e-9)
        assert scaled.converged
        np.testing.assert_allclose(scaled.weights, base.weights, atol=1e-10)


def test_dual_bound_is_rescaled_to_feasibility() -> None:
    # Any u gives the certified bound (y^T u / max_a |x_a^T u|)^2: infeasible (or too
    # timid) multiples of the optimal dual must give the same bound, never a larger one.
    X, y = _instance(12, 20, 4)
    res = c_optimal(X, y)
    for c in (0.5, 2.0, 10.0):
        lb, u = _lower_bound(X, y, c * res.info["dual"])
        assert lb == pytest.approx(res.lower_bound, rel=1e-12)
        assert np.max(np.abs(X @ u)) == pytest.approx(1.0, abs=1e-14)
    # the dual feasible set is symmetric: -u certifies the same bound, after a sign flip
    lb, u = _lower_bound(X, y, -3.0 * res.info["dual"])
    assert lb == pytest.approx(res.lower_bound, rel=1e-12)
    np.testing.assert_allclose(u, res.info["dual"], rtol=1e-12)
    assert _lower_bound(X, y, np.zeros(4))[0] == 0.0


def test_ill_conditioned_arms() -> None:
    # cond(X) ~ 1e9: coefficients ~ 1e9, value ~ 1e17.  The whitened LP still solves and
    # the certificate stays valid (only the attainable accuracy degrades, ~ cond * eps).
    rng = np.random.default_rng(55)
    X = rng.standard_normal((40, 5))
    X[:, 4] = X[:, 3] + 1e-9 * rng.standard_normal(40)
    y = rng.standard_normal(5)
    res = c_optimal(X, y)
    assert res.value > 1e14
    assert res.value == pytest.approx(np.abs(res.info["coefficients"]).sum() ** 2, rel=1e-5)
    assert res.lower_bound <= res.value * (1 + 1e-12)
    assert res.gap < 1e-4
    # u has entries ~ 1e9 that cancel in X @ u: feasibility holds to rounding, ~ cond * eps.
    u = res.info["dual"]
    assert np.max(np.abs(X @ u)) <= 1.0 + 1e-5


# --------------------------------------------------------------------------------- c_check


@pytest.mark.parametrize(("seed", "K", "d"), RANDOM_CASES)
def test_c_check_optimum_and_uniform(seed: int, K: int, d: int) -> None:
    X, y = _instance(seed, K, d)
    res = c_optimal(X, y)
    opt = c_check(X, res.weights, y)
    assert opt.ratio == pytest.approx(1.0, abs=1e-6)
    assert opt.within_tol
    assert opt.value == pytest.approx(res.value, rel=1e-12)
    uni = c_check(X, np.full(K, 1.0 / K), y)
    assert uni.ratio > 1.0 + 1e-3
    assert not uni.within_tol
    assert uni.lower_bound <= res.value * (1 + 1e-12) <= uni.value


def test_c_check_algebra_random_designs() -> None:
    X, y = _instance(8, 12, 3)
    opt = c_optimal(X, y).value
    rng = np.random.default_rng(1)
    for _ in range(20):
        w = rng.dirichlet(np.ones(12))
        cert = c_check(X, w, y)
        A = X.T @ (w[:, None] * X)
        g = np.linalg.solve(A, y)
        assert cert.value == pytest.approx(y @ g, rel=1e-10)
        assert cert.max_response == pytest.approx(np.max((X @ g) ** 2), rel=1e-10)
        assert cert.argmax == int(np.argmax(np.abs(X @ g)))
        assert cert.ratio == pytest.approx(cert.max_response / cert.value, rel=1e-12)
        # lower bound = value^2 / max_response = value / ratio, a valid bound on the optimum
        assert cert.lower_bound == pytest.approx(cert.value**2 / cert.max_response, rel=1e-10)
        assert cert.efficiency == pytest.approx(1 / cert.ratio, rel=1e-12)
        assert cert.ratio >= 1.0 - 1e-12
        assert cert.lower_bound <= opt * (1 + 1e-12) <= cert.value * (1 + 1e-12)


def test_c_check_singular_design_chooses_best_ginverse() -> None:
    # x_2 = (1.1, 0.5): with the design on e_1 only, A = e_1 e_1^T is singular and the
    # pseudo-inverse gives x_2^T A^+ y = 1.1 > 1 although e_1 alone is optimal for y = e_1
    # (y = e_1 needs w_2 = 0).  Some generalized inverse gives max |x^T G y| = 1.
    X = np.array([[1.0, 0.0], [1.1, 0.5]])
    y = np.array([1.0, 0.0])
    res = c_optimal(X, y)
    np.testing.assert_allclose(res.weights, [1.0, 0.0], atol=1e-14)
    assert res.value == pytest.approx(1.0, rel=1e-12)
    cert = c_check(X, [1.0, 0.0], y)
    assert cert.rank == 1
    assert cert.value == pytest.approx(1.0, rel=1e-12)
    assert cert.ratio == pytest.approx(1.0, abs=1e-9)
    assert cert.lower_bound == pytest.approx(1.0, rel=1e-9)


def test_c_check_y_outside_range() -> None:
    cert = c_check(np.eye(3), [1.0, 0.0, 0.0], [0.0, 1.0, 0.0])
    assert cert.value == np.inf and cert.ratio == np.inf
    assert cert.lower_bound == 0.0 and cert.efficiency == 0.0
    assert not cert.within_tol and cert.argmax == -1
    assert "NOT within" in repr(cert)


# ------------------------------------------------------------------- rank-deficient arms


def test_arms_not_spanning_rd() -> None:
    # Arms in the plane x_3 = 0 of R^3; the answer is the 2-D problem's.
    X2, y2 = _instance(9, 15, 2)
    X = np.hstack([X2, np.zeros((15, 1))])
    y = np.append(y2, 0.0)
    res = c_optimal(X, y)
    _check_result(res, X, y)
    assert res.value == pytest.approx(c_optimal(X2, y2).value, rel=1e-10)
    assert c_check(X, res.weights, y).ratio == pytest.approx(1.0, abs=1e-6)
    with pytest.raises(ValueError, match=r"^y is not in the span of the arms"):
        c_optimal(X, [1.0, 0.0, 1e-3])
    with pytest.raises(ValueError, match=r"^X\b.*span"):
        c_optimal(X, y, method="cvxpy")


def test_fewer_arms_than_dimensions() -> None:
    rng = np.random.default_rng(3)
    X = rng.standard_normal((2, 5))
    y = X[0] + 2 * X[1]  # unique representation: w = (1, 2), value 9
    res = c_optimal(X, y)
    np.testing.assert_allclose(res.info["coefficients"], [1.0, 2.0], rtol=1e-10)
    assert res.value == pytest.approx(9.0, rel=1e-10)
    with pytest.raises(ValueError, match=r"^y is not in the span"):
        c_optimal(X, rng.standard_normal(5))


# ---------------------------------------------------------------------------- bad inputs

GOOD_X = np.eye(3)
GOOD_Y = np.ones(3)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"X": [[1.0, np.nan], [0.0, 1.0]], "y": [1.0, 1.0]}, "X"),
        ({"X": [[1.0, np.inf], [0.0, 1.0]], "y": [1.0, 1.0]}, "X"),
        ({"X": [1.0, 2.0, 3.0], "y": [1.0]}, "X"),
        ({"X": np.zeros((0, 3)), "y": GOOD_Y}, "X"),
        ({"X": [["a", "b"]], "y": [1.0, 1.0]}, "X"),
        ({"X": GOOD_X, "y": [1.0, 1.0]}, "y"),
        ({"X": GOOD_X, "y": [0.0, 0.0, 0.0]}, "y"),
        ({"X": GOOD_X, "y": [1.0, np.nan, 0.0]}, "y"),
        ({"X": GOOD_X, "y": [1.0, np.inf, 0.0]}, "y"),
        ({"X": GOOD_X, "y": GOOD_Y[:, None]}, "y"),
        ({"X": GOOD_X, "y": GOOD_Y, "method": "simplex"}, "method"),
        ({"X": GOOD_X, "y": GOOD_Y, "method": None}, "method"),
        ({"X": GOOD_X, "y": GOOD_Y, "tol": 0.0}, "tol"),
        ({"X": GOOD_X, "y": GOOD_Y, "tol": float("nan")}, "tol"),
    ],
)
def test_c_optimal_bad_inputs(kwargs: dict, name: str) -> None:
    kwargs = dict(kwargs)
    X, y = kwargs.pop("X"), kwargs.pop("y")
    with pytest.raises(ValueError, match=rf"^{name}\b"):
        c_optimal(X, y, **kwargs)


@pytest.mark.parametrize(
    ("weights", "name"),
    [
        ([0.5, 0.5], "weights"),
        ([0.5, 0.6, -0.1], "weights"),
        ([0.5, 0.5, 0.5], "weights"),
        ([np.nan, 0.5, 0.5], "weights"),
        ([[1 / 3, 1 / 3, 1 / 3]], "weights"),
    ],
)
def test_c_check_bad_weights(weights: list, name: str) -> None:
    with pytest.raises(ValueError, match=rf"^{name}\b"):
        c_check(GOOD_X, weights, GOOD_Y)


def test_c_check_bad_other_inputs() -> None:
    w = np.full(3, 1 / 3)
    with pytest.raises(ValueError, match=r"^X\b"):
        c_check([[np.nan, 0.0, 0.0]] * 3, w, GOOD_Y)
    with pytest.raises(ValueError, match=r"^y\b"):
        c_check(GOOD_X, w, [1.0, 2.0])
    with pytest.raises(ValueError, match=r"^y\b"):
        c_check(GOOD_X, w, np.zeros(3))
    with pytest.raises(ValueError, match=r"^tol\b"):
        c_check(GOOD_X, w, GOOD_Y, tol=2.0)


def test_repr_and_frozen() -> None:
    X, y = _soare()
    res = c_optimal(X, y)
    assert "c-optimal" in repr(res)
    cert = c_check(X, res.weights, y)
    assert "CCertificate" in repr(cert) and "within" in repr(cert)
    with pytest.raises(AttributeError):
        cert.value = 0.0  # type: ignore[misc]
