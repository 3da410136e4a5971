"""H-optimal and Hessian-G designs of Mason, Jun & Jain (2022) (design.minimax)."""

from __future__ import annotations

import numpy as np
import pytest

from design.minimax import g_optimal_hessian, glm_variance, h_optimal, minimax_check

pytest.importorskip("cvxpy")


def circle(n: int = 30) -> np.ndarray:
    ang = 2 * np.pi * np.arange(n) / n
    return np.c_[np.cos(ang), np.sin(ang)]


THETA = np.array([3.0, 0.0])


def h_value(X: np.ndarray, w: np.ndarray, theta: np.ndarray) -> float:
    mp = glm_variance(X @ theta)
    H = (X * (w * mp)[:, None]).T @ X
    return float(np.max(mp**2 * np.einsum("ij,jk,ik->i", X, np.linalg.inv(H), X)))


def g_value(X: np.ndarray, w: np.ndarray, theta: np.ndarray) -> float:
    mp = glm_variance(X @ theta)
    H = (X * (w * mp)[:, None]).T @ X
    return float(np.max(np.einsum("ij,jk,ik->i", X, np.linalg.inv(H), X)))


def test_appendix_g_circle_h_and_g_against_cvxpy():
    X = circle()
    h = h_optimal(X, THETA, tol=1e-7)
    g = g_optimal_hessian(X, THETA, tol=1e-7)
    assert h.converged and g.converged
    assert h.criterion == "H" and g.criterion == "G-Hessian"
    h_ref = h_optimal(X, THETA, method="cvxpy")
    g_ref = g_optimal_hessian(X, THETA, method="cvxpy")
    assert h.value == pytest.approx(h_ref.value, rel=1e-4)
    assert g.value == pytest.approx(g_ref.value, rel=1e-4)
    assert h.lower_bound <= h_ref.value * (1 + 1e-6) <= h.value * (1 + 2e-6)
    assert g.lower_bound <= g_ref.value * (1 + 1e-6) <= g.value * (1 + 2e-6)
    # values recomputed from scratch; spec reader values h* ~ 0.389, g* ~ 21.10
    assert h_value(X, h.weights, THETA) == pytest.approx(h.value, rel=1e-9)
    assert g_value(X, g.weights, THETA) == pytest.approx(g.value, rel=1e-9)
    assert h.value == pytest.approx(0.389, abs=5e-4)
    assert g.value == pytest.approx(21.10, abs=1e-2)


def test_appendix_g_relations_between_h_and_g():
    X = circle()
    mp = glm_variance(X @ THETA)
    h = h_optimal(X, THETA, tol=1e-7)
    g = g_optimal_hessian(X, THETA, tol=1e-7)
    d = 2
    # h* <= (max mu')^2 g*  (evaluate the H criterion at the G design), h* <= d max mu'
    assert h.value <= mp.max() ** 2 * g.value * (1 + 1e-6)
    assert h.value <= d * mp.max() <= d / 4
    assert h_value(X, g.weights, THETA) >= h.lower_bound * (1 - 1e-9)
    # d / max mu' <= g* <= kappa_0 d  (Kiefer-Wolfowitz on the scaled rows)
    assert d / mp.max() * (1 - 1e-9) <= g.value <= d / mp.min()
    # the paper's claim: the H design moves mass towards the vertical axis (|cos| small)
    cos_h = float(h.weights @ np.abs(X[:, 0]))
    cos_g = float(g.weights @ np.abs(X[:, 0]))
    assert cos_h < cos_g
    # both designs are sparse and symmetric under x -> -x
    assert h.support.size <= 8 and g.support.size <= 8
    np.testing.assert_allclose(h.weights, np.roll(h.weights, 15), atol=1e-4)


def test_scaled_g_design_is_kiefer_wolfowitz():
    pytest.importorskip("design.gd")
    X = circle()
    res = g_optimal_hessian(X, THETA, scaled=True, tol=1e-7)
    mp = glm_variance(X @ THETA)
    H = (X * (res.weights * mp)[:, None]).T @ X
    val = float(np.max(mp * np.einsum("ij,jk,ik->i", X, np.linalg.inv(H), X)))
    assert res.criterion == "G-Hessian-scaled" and res.converged
    assert val == pytest.approx(res.value, rel=1e-9)
    assert val == pytest.approx(2.0, rel=1e-6)
    assert res.lower_bound == pytest.approx(2.0)


def test_identity_link_reduces_to_kiefer_wolfowitz():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((12, 3))
    res = h_optimal(X, np.zeros(3), link="identity", tol=1e-7)
    assert res.value == pytest.approx(3.0, rel=1e-6)  # min max x^T A^{-1} x = d
    # logistic at theta = 0: mu' = 1/4 everywhere -> h* = d / 4, g* = 4 d
    h0 = h_optimal(X, np.zeros(3), tol=1e-7)
    g0 = g_optimal_hessian(X, np.zeros(3), tol=1e-7)
    assert h0.value == pytest.approx(0.75, rel=1e-6)
    assert g0.value == pytest.approx(12.0, rel=1e-6)


def test_h_check_of_uniform_design():
    X = circle()
    mp = glm_variance(X @ THETA)
    opt = h_optimal(X, THETA, tol=1e-7)
    uni = np.full(30, 1 / 30)
    cert = minimax_check(X * np.sqrt(mp)[:, None], uni, X * np.sqrt(mp)[:, None], mp)
    assert cert.value == pytest.approx(h_value(X, uni, THETA), rel=1e-10)
    assert cert.lower_bound <= opt.value * (1 + 1e-9)
    assert cert.value > opt.value


@pytest.mark.parametrize("link", ["logistic", "probit", "poisson"])
def test_other_links_are_certified(link):
    rng = np.random.default_rng(1)
    X = rng.standard_normal((15, 3)) / 2
    theta = rng.standard_normal(3)
    res = h_optimal(X, theta, link=link, tol=1e-6)
    assert res.converged and res.gap <= 1e-6
    mp = res.info["mu_prime"]
    H = (X * (res.weights * mp)[:, None]).T @ X
    val = float(np.max(mp**2 * np.einsum("ij,jk,ik->i", X, np.linalg.inv(H), X)))
    assert val == pytest.approx(res.value, rel=1e-9)


def test_glm_variance_logistic_is_stable():
    z = np.array([-1000.0, -3.0, 0.0, 3.0, 1000.0])
    mp = glm_variance(z)
    mu = 1 / (1 + np.exp(-z[1:4]))
    np.testing.assert_allclose(mp[1:4], mu * (1 - mu), rtol=1e-14)
    assert mp[0] == 0.0 and mp[4] == 0.0 and np.all(np.isfinite(mp))


def test_bad_inputs_raise_value_error_naming_argument():
    X = circle(8)
    with pytest.raises(ValueError, match="theta"):
        h_optimal(X, [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="theta"):
        h_optimal(X, [np.nan, 0.0])
    with pytest.raises(ValueError, match="theta"):
        g_optimal_hessian(X, [1e4, 1e4])  # mu' underflows: scaled arms do not span
    with pytest.raises(ValueError, match="link"):
        h_optimal(X, THETA, link="logit")
    with pytest.raises(ValueError, match="link"):
        glm_variance(np.zeros(2), link="cloglog")
    with pytest.raises(ValueError, match="X"):
        h_optimal(np.array([[np.nan, 1.0], [0.0, 1.0]]), THETA)
    with pytest.raises(ValueError, match="method"):
        h_optimal(X, THETA, method="mosek")
