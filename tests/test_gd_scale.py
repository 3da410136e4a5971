"""G/D solver at high precision and at scale (issue 18, parts 2-3).

The interior-point polish must certify gaps far below what first-order steps reach, the
certificate must be a true bound (checked against an independent extended-precision
computation on the original arms), float64's limit must be reported instead of a stall,
and the batched solver, the on-the-fly rows of large problems and the threaded passes must
agree with the reference solver and with each other.
"""

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from design import _gd_batch, d_optimal, g_optimal, gd
from design.result import DesignConvergenceWarning

LONG_EPS = float(np.finfo(np.longdouble).eps)


def arms(K, d):
    return np.random.default_rng(K + d).standard_normal((K, d))


def variances_longdouble(X: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``x_a^T A(w)^{-1} x_a`` on the original arms in extended precision (independent of
    the solver's basis, QR and BLAS): Cholesky and forward substitution in np.longdouble."""
    Xl = X.astype(np.longdouble)
    S = w > 0
    A = (Xl[S] * w[S].astype(np.longdouble)[:, None]).T @ Xl[S]
    d = A.shape[0]
    L = np.zeros_like(A)
    for j in range(d):
        L[j, j] = np.sqrt(A[j, j] - np.sum(L[j, :j] ** 2))
        for i in range(j + 1, d):
            L[i, j] = (A[i, j] - np.sum(L[i, :j] * L[j, :j])) / L[j, j]
    Z = np.zeros_like(Xl)  # rows z_a = L^{-1} x_a
    for j in range(d):
        Z[:, j] = (Xl[:, j] - Z[:, :j] @ L[j, :j]) / L[j, j]
    return np.sum(Z * Z, axis=1)


@pytest.mark.skipif(LONG_EPS > 1e-18, reason="np.longdouble is not extended precision here")
@pytest.mark.parametrize(("K", "d"), [(1000, 15), (10_000, 10)])
def test_polish_certifies_1e10_and_the_certificate_is_true(K, d):
    # issue 18 part 3: the previous solver returned converged=False at 1e-10 (gap 1.3e-9)
    X = arms(K, d)
    res = g_optimal(X, tol=1e-10)
    assert res.converged and res.gap <= 1e-10
    assert res.info["polish_iterations"] > 0
    om = variances_longdouble(X, res.weights)
    true_max = float(om.max())
    # the certified value (1 + eta) bounds the true maximum variance from above, and the
    # true gap (optimum exactly d, Kiefer-Wolfowitz) is within the certified one
    assert true_max <= res.value * (1 + res.info["rounding_error"])
    assert true_max / d - 1 <= res.gap
    assert true_max == pytest.approx(res.value, rel=1e-12)
    # equivalence theorem at the polished design: support variances equal d to ~1e-10
    assert np.all(np.abs(om[res.support] / d - 1) <= 1e-9)


def test_d_optimal_polish_and_independent_log_det():
    X = arms(1000, 15)
    res = d_optimal(X, tol=1e-10)
    assert res.converged and res.gap <= 1e-10
    S = res.weights > 0
    A = (X[S] * res.weights[S][:, None]).T @ X[S]
    sign, logdet = np.linalg.slogdet(A)
    assert sign > 0
    assert res.info["log_det"] == pytest.approx(logdet, rel=1e-12, abs=1e-11)
    assert res.value == pytest.approx(np.exp(-logdet / 15), rel=1e-11)


def test_tol_below_float64_reports_the_attainable_gap():
    X = arms(1000, 15)
    with pytest.warns(DesignConvergenceWarning, match="no gap below"):
        res = g_optimal(X, tol=1e-15)
    eta = res.info["rounding_error"]
    assert not res.converged
    assert res.gap > 1e-15
    # it got to the float64 limit (a few eta), not stalled far above it
    assert res.gap <= 10 * eta
    assert res.info["attainable_gap"] == eta
    assert res.message.startswith("not converged") and "no gap below" in res.message
    assert "cannot be certified" in res.info["message"]


def test_polish_reaches_the_kkt_point_of_a_fixed_working_set():
    rng = np.random.default_rng(3)
    Xs = rng.standard_normal((80, 6))
    w0 = np.full(80, 1 / 80)
    w, its = _gd_batch.polish(Xs, w0, 1e-13)
    om = _gd_batch.exact_state(Xs, w)[1]
    assert its > 0
    assert w.sum() == pytest.approx(1.0, abs=1e-14) and np.all(w >= 0)
    # Kiefer-Wolfowitz on the working set: max variance d, attained on the support
    assert om.max() <= 6 * (1 + 1e-12)
    assert np.all(om[w > 1e-8] >= 6 * (1 - 1e-9))


@pytest.mark.parametrize(("K", "d"), [(3000, 12), (20_000, 30)])
def test_batched_solver_agrees_with_the_reference_solver(K, d):
    X = arms(K, d)
    new = gd._optimal(X, 1e-6, "auto", None, "D")
    ref = gd._optimal(X, 1e-6, "auto", None, "D", engine="reference")
    assert new.solver == "fw-rex" and ref.solver == "fw-exchange"
    assert new.converged and ref.converged
    # the D-optimal information matrix is unique: the criteria agree within the gaps
    assert new.value == pytest.approx(ref.value, rel=new.gap + ref.gap)
    # each certificate brackets the other's value: lower_ref <= opt <= value_new
    assert ref.lower_bound <= new.value <= ref.value * (1 + new.gap)
    assert new.lower_bound <= ref.value <= new.value * (1 + ref.gap)


def test_rows_formed_on_the_fly_give_the_stored_certificate(monkeypatch):
    X = arms(50_000, 8)
    stored = g_optimal(X, tol=1e-7)
    monkeypatch.setattr(gd, "_LAZY_MIN_ELEMENTS", 1000)
    monkeypatch.setattr(_gd_batch, "_BLOCK_ROWS", 4096)
    lazy = g_optimal(X, tol=1e-7)
    assert stored.converged and lazy.converged
    assert lazy.value == pytest.approx(stored.value, rel=2e-7)
    # same weights -> same certificate whichever way the rows of Q are produced
    basis, rows = gd._lazy_basis(gd.as_arms(X), 1)
    c_lazy = gd._certify(basis, rows, stored.weights)
    assert c_lazy.omega.max() == pytest.approx(stored.value, rel=1e-12)
    assert c_lazy.eta == pytest.approx(stored.info["rounding_error"], rel=1e-12)


def test_threaded_passes_give_identical_results(monkeypatch):
    monkeypatch.setattr(gd, "_LAZY_MIN_ELEMENTS", 1000)
    monkeypatch.setattr(_gd_batch, "_BLOCK_ROWS", 4096)
    X = arms(40_000, 10)
    with threadpool_limits(1, user_api="blas"):
        one = g_optimal(X)
    with threadpool_limits(2, user_api="blas"):
        two = g_optimal(X)
    assert one.info["threads"]["full_passes"] == 1
    np.testing.assert_array_equal(one.weights, two.weights)
    assert one.gap == two.gap
