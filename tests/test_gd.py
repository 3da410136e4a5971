"""G/D-optimal designs: Kiefer–Wolfowitz, known exact designs, cvxpy cross-check, bad input."""

import numpy as np
import pytest

from design import d_optimal, g_optimal, kw_check, variances


def random_arms(K, d, seed):
    return np.random.default_rng(seed).standard_normal((K, d))


def soare_arms(d, omega=0.01):
    """Soare, Lazaric & Munos (2014) §6: e_1..e_d and (cos w, sin w, 0, ..., 0)."""
    X = np.eye(d)
    extra = np.zeros(d)
    extra[0], extra[1] = np.cos(omega), np.sin(omega)
    return np.vstack([X, extra])


@pytest.mark.parametrize("method", ["fw", "fw-away"])
@pytest.mark.parametrize(("K", "d", "seed"), [(30, 3, 0), (200, 5, 1), (1000, 8, 2), (3000, 12, 3)])
def test_kiefer_wolfowitz_on_random_arms(K, d, seed, method):
    X = random_arms(K, d, seed)
    res = g_optimal(X, tol=1e-6, method=method)
    om = variances(X, res.weights)
    # Kiefer–Wolfowitz: the optimum of max variance is d; we certify within tol.
    assert res.converged
    assert d <= om.max() <= d * (1 + 1e-6)
    assert res.lower_bound == d
    assert res.gap == pytest.approx(om.max() / d - 1, abs=1e-12)
    # equivalence theorem: every support point has variance d (up to the tolerance)
    assert np.all(om[res.support] >= d * (1 - 1e-3))
    # Carathéodory bound on the support size (Soare et al., Remark 1)
    assert res.support.size <= d * (d + 1) // 2
    assert res.weights.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.all(res.weights >= 0)


def test_both_step_rules_reach_the_same_d_optimum():
    X = random_arms(500, 6, 7)
    a = d_optimal(X, method="fw")
    b = d_optimal(X, method="fw-away")
    # the D-optimal information matrix is unique, so the criterion values agree
    assert a.value == pytest.approx(b.value, rel=1e-6)


@pytest.mark.parametrize(("K", "d", "seed"), [(25, 3, 10), (60, 4, 11)])
def test_agrees_with_cvxpy_reference(K, d, seed):
    X = random_arms(K, d, seed)
    ours = d_optimal(X)
    ref = d_optimal(X, method="cvxpy")
    assert ref.solver.startswith("cvxpy")
    # same D criterion to 1e-4, and ours is at least as good up to its certified gap
    assert ours.value == pytest.approx(ref.value, rel=1e-4)
    assert ours.value <= ref.value * (1 + 1e-6)
    # the certified lower bound brackets the reference optimum
    assert ours.lower_bound <= ref.value * (1 + 1e-6)
    g_ref = g_optimal(X, method="cvxpy")
    assert g_ref.value == pytest.approx(d, rel=1e-4)


def test_quadratic_regression_on_three_points():
    # f(t) = (1, t, t^2) on {-1, 0, 1}: the G/D-optimal design is uniform (Pukelsheim §9.5)
    t = np.array([-1.0, 0.0, 1.0])
    X = np.stack([np.ones(3), t, t * t], axis=1)
    res = g_optimal(X)
    np.testing.assert_allclose(res.weights, np.full(3, 1 / 3), atol=1e-9)
    assert res.value == pytest.approx(3.0, rel=1e-6)


def test_quadratic_regression_on_a_grid_puts_weight_on_ends_and_middle():
    # on a symmetric grid of [-1, 1] the D-optimal design for quadratic regression is
    # uniform on {-1, 0, 1} (Pukelsheim 2006, §9.5)
    t = np.linspace(-1, 1, 21)
    X = np.stack([np.ones_like(t), t, t * t], axis=1)
    res = d_optimal(X, tol=1e-8)
    big = res.weights > 1e-6
    np.testing.assert_array_equal(np.flatnonzero(big), [0, 10, 20])
    np.testing.assert_allclose(res.weights[big], np.full(3, 1 / 3), atol=1e-6)


@pytest.mark.parametrize("eps", [0.5, 0.1, 0.01])
def test_soare_appendix_a_two_points(eps):
    # Soare et al. (2014) Appendix A: x1 = [1, e/2], x2 = [1, -e/2] -> (1/2, 1/2), value 2
    X = np.array([[1.0, eps / 2], [1.0, -eps / 2]])
    res = g_optimal(X)
    np.testing.assert_allclose(res.weights, [0.5, 0.5], atol=1e-9)
    assert res.value == pytest.approx(2.0, rel=1e-6)


@pytest.mark.parametrize("d", [2, 5, 10])
def test_soare_instance_g_design(d):
    # e_1..e_d and a near-duplicate of e_1: the G-optimal value is d; e_2..e_d get 1/d
    X = soare_arms(d)
    res = g_optimal(X)
    assert res.value == pytest.approx(d, rel=1e-6)
    np.testing.assert_allclose(res.weights[1:d], 1 / d, atol=1e-6)
    # e_1 and x_{d+1} share the remaining 1/d
    assert res.weights[0] + res.weights[d] == pytest.approx(1 / d, abs=1e-6)


def test_invariance_to_permutation_and_duplication():
    X = random_arms(80, 4, 3)
    base = d_optimal(X)
    perm = np.random.default_rng(0).permutation(80)
    permuted = d_optimal(X[perm])
    assert permuted.value == pytest.approx(base.value, rel=1e-6)
    dup = d_optimal(np.vstack([X, X[:10]]))
    assert dup.value == pytest.approx(base.value, rel=1e-6)


def test_dimension_one_and_square_cases():
    res = g_optimal(np.array([[1.0], [-3.0], [2.0]]))
    np.testing.assert_array_equal(res.weights, [0.0, 1.0, 0.0])
    assert res.value == pytest.approx(1.0)
    # K = d: the only design that spans is uniform
    X = random_arms(4, 4, 5)
    np.testing.assert_allclose(g_optimal(X).weights, 0.25, atol=1e-9)


def test_max_iter_reports_not_converged():
    X = random_arms(2000, 15, 9)
    res = g_optimal(X, tol=1e-9, max_iter=5)
    assert not res.converged
    assert res.gap > 1e-9
    assert res.iterations <= 5
    # still a valid design with a valid certificate
    assert kw_check(X, res.weights).max_variance == pytest.approx(res.value)


def test_kw_check_on_user_weights():
    X = random_arms(50, 3, 4)
    uniform = np.full(50, 1 / 50)
    cert = kw_check(X, uniform)
    om = variances(X, uniform)
    assert cert.max_variance == pytest.approx(om.max())
    assert cert.argmax == int(np.argmax(om))
    assert cert.g_efficiency == pytest.approx(3 / om.max())
    assert cert.g_efficiency < 1
    opt = g_optimal(X)
    assert kw_check(X, opt.weights).within_tol
    # D-efficiency of the uniform design is at least its G-efficiency (AM-GM bound)
    detu = np.linalg.det((X * uniform[:, None]).T @ X)
    deto = np.linalg.det((X * opt.weights[:, None]).T @ X)
    assert (detu / deto) ** (1 / 3) >= cert.g_efficiency - 1e-9
    # a design with singular information matrix has infinite max variance
    w = np.zeros(50)
    w[0] = 1.0
    assert kw_check(X, w).g_efficiency == 0.0


def test_d_optimal_value_and_bound():
    X = random_arms(300, 5, 6)
    res = d_optimal(X, tol=1e-7)
    A = (X * res.weights[:, None]).T @ X
    assert res.value == pytest.approx(np.linalg.det(A) ** (-1 / 5), rel=1e-10)
    assert res.info["log_det"] == pytest.approx(np.log(np.linalg.det(A)), rel=1e-10)
    assert res.lower_bound <= res.value
    assert res.gap <= 1e-7


@pytest.mark.parametrize(
    ("X", "match"),
    [
        (np.array([[1.0, np.nan], [0.0, 1.0]]), "X contains NaN"),
        (np.array([[1.0, np.inf], [0.0, 1.0]]), "X contains NaN or inf"),
        (np.array([1.0, 2.0, 3.0]), "X must be a 2-D"),
        (np.ones((2, 3)), "K < d"),
        (np.array([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]]), "do not span"),
        (np.zeros((0, 2)), "X must have at least one arm"),
        ([["a", "b"]], "X must be a numeric"),
    ],
)
def test_bad_arms(X, match):
    with pytest.raises(ValueError, match=match):
        g_optimal(X)
    with pytest.raises(ValueError, match="X"):
        d_optimal(X)


def test_bad_options_and_weights():
    X = random_arms(10, 2, 0)
    with pytest.raises(ValueError, match="tol"):
        g_optimal(X, tol=0)
    with pytest.raises(ValueError, match="tol"):
        g_optimal(X, tol=float("nan"))
    with pytest.raises(ValueError, match="method"):
        g_optimal(X, method="newton")
    with pytest.raises(ValueError, match="max_iter"):
        g_optimal(X, max_iter=0)
    with pytest.raises(ValueError, match="weights"):
        kw_check(X, np.full(10, 0.2))  # sums to 2
    with pytest.raises(ValueError, match="weights"):
        kw_check(X, np.r_[-0.1, np.full(9, 1.1 / 9)])
    with pytest.raises(ValueError, match="weights"):
        kw_check(X, np.full(9, 1 / 9))
    with pytest.raises(ValueError, match="weights"):
        kw_check(X, np.r_[np.nan, np.full(9, 1 / 9)])


def _kumar_yildirim_loops(X):
    """The plain loops of Mason et al. (2022), Algorithm 4 (Householder form of Todd 2016,
    §3), as the jitted kernel ran them before it moved to numpy: the reference of the
    floating-point arithmetic (every sum from 0.0, in index order)."""
    K, d = X.shape
    Q = np.eye(d)
    chosen = np.empty(d, dtype=np.int64)
    taken = np.zeros(K, dtype=bool)
    for j in range(d):
        best, arg = -1.0, 0
        for k in range(K):
            if taken[k]:
                continue
            s = 0.0
            for i in range(d):
                s += Q[i, j] * X[k, i]
            if abs(s) > best:
                best, arg = abs(s), k
        chosen[j] = arg
        taken[arg] = True
        w = np.zeros(d)
        for i in range(j, d):
            s = 0.0
            for r in range(d):
                s += Q[r, i] * X[arg, r]
            w[i] = s
        norm_w = 0.0
        for i in range(j, d):
            norm_w += w[i] * w[i]
        norm_w = np.sqrt(norm_w)
        if norm_w == 0.0:
            continue
        u = w.copy()
        u[j] += (1.0 if w[j] >= 0.0 else -1.0) * norm_w
        uu = 2.0 * norm_w * (norm_w + abs(w[j]))
        for r in range(d):
            s = 0.0
            for i in range(d):
                s += Q[r, i] * u[i]
            s *= 2.0 / uu
            for i in range(d):
                Q[r, i] -= s * u[i]
    return chosen


def _tie_instances():
    """Arms with exact and near ties of |q^T x| (signs, duplicates, 0/1 and coarse grids,
    badly scaled columns), where only the same arithmetic picks the same arms."""
    rng = np.random.default_rng(16)
    out = []
    for t in range(70):
        K, d = int(rng.integers(1, 60)), int(rng.integers(1, 9))
        kind = t % 7
        if kind == 0:
            X = rng.standard_normal((K, d))
        elif kind == 1:
            X = rng.integers(-2, 3, size=(K, d)).astype(float)
        elif kind == 2:
            X = np.vstack([np.eye(d), -np.eye(d), rng.standard_normal((K, d))])
        elif kind == 3:
            Z = rng.standard_normal((K, d))
            Z /= np.linalg.norm(Z, axis=1, keepdims=True)
            X = np.vstack([Z, -Z, Z])
        elif kind == 4:
            X = np.round(rng.standard_normal((K, d)), 1)
        elif kind == 5:
            X = rng.standard_normal((K, d)) * 10.0 ** rng.integers(-5, 5, size=(1, d))
        else:
            X = np.vstack([rng.integers(0, 2, size=(K, d)).astype(float), np.zeros((2, d))])
        out.append(np.ascontiguousarray(X))
    return out


def test_kumar_yildirim_support_is_the_loops_arithmetic():
    """The numpy Algorithm 4 (BLAS scores filtered by their error bound, then the ordered
    sums) picks exactly the arms of the plain loops, ties included, and they span R^d."""
    from design._gd_batch import kumar_yildirim_support

    for X in _tie_instances():
        got = kumar_yildirim_support(X)
        np.testing.assert_array_equal(got, _kumar_yildirim_loops(X))
        d = X.shape[1]
        if np.linalg.matrix_rank(X) == d:
            assert np.linalg.matrix_rank(X[got]) == d
