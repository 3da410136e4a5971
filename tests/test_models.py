"""Model matrices and candidate grids (design.models)."""

from math import comb

import numpy as np
import pytest

from design import box_grid, d_optimal, model_matrix, model_terms, simplex_grid


def test_quadratic_model_in_two_factors():
    F = np.array([[0.5, -2.0], [1.0, 3.0]])
    X = model_matrix(F, "quadratic")
    assert model_terms(2, "quadratic") == ["1", "x1", "x2", "x1*x2", "x1^2", "x2^2"]
    a, b = F[:, 0], F[:, 1]
    np.testing.assert_array_equal(X, np.c_[np.ones(2), a, b, a * b, a**2, b**2])


@pytest.mark.parametrize(("terms", "p"), [
    ("linear", 1 + 3), ("interactions", 1 + 3 + 3), ("pure-quadratic", 1 + 3 + 3),
    ("quadratic", 1 + 3 + 3 + 3), ("cubic", comb(3 + 3, 3)), (2, comb(3 + 2, 2)),
    (4, comb(3 + 4, 4)),
])
def test_number_of_terms(terms, p):
    # a full polynomial of degree k in q factors has binom(q + k, k) terms
    assert model_matrix(box_grid(3, 3), terms).shape == (27, p)
    assert len(model_terms(3, terms)) == p


def test_cubic_is_the_full_degree_3_polynomial():
    assert sorted(model_terms(3, "cubic")) == sorted(model_terms(3, 3))
    assert sorted(model_terms(2, "quadratic")) == sorted(model_terms(2, 2))


def test_intercept_flag_and_explicit_exponents():
    F = box_grid(2, 2)
    X = model_matrix(F, [[1, 0], [1, 1]], intercept=False)
    np.testing.assert_array_equal(X, np.c_[F[:, 0], F[:, 0] * F[:, 1]])
    assert model_terms(2, [[1, 0], [1, 1]], intercept=False, names=["T", "P"]) == ["T", "T*P"]
    # a 1-D array is one factor
    np.testing.assert_array_equal(model_matrix([1.0, 2.0], 2), [[1, 1, 1], [1, 2, 4]])


def test_box_grid():
    G = box_grid([2, [0.0, 5.0, 10.0]])
    assert G.shape == (6, 2)
    np.testing.assert_array_equal(G[:3], [[-1, 0], [-1, 5], [-1, 10]])
    assert box_grid(5, 3, low=0, high=4).shape == (125, 3)
    assert set(box_grid(5, 3, low=0, high=4)[:, 2]) == {0, 1, 2, 3, 4}


@pytest.mark.parametrize(("q", "m"), [(3, 2), (3, 3), (4, 4), (6, 2)])
def test_simplex_lattice(q, m):
    S = simplex_grid(q, m)
    assert S.shape == (comb(q + m - 1, m), q)  # Scheffé (1958): binom(q + m - 1, m) points
    np.testing.assert_allclose(S.sum(axis=1), 1.0)
    assert np.all(S >= 0)
    np.testing.assert_allclose(S * m, np.round(S * m))
    assert np.unique(S, axis=0).shape[0] == S.shape[0]


def test_d_optimal_second_order_design_on_the_3x3_factorial():
    # D-optimal continuous design for the full quadratic model in two factors on the 3^2
    # grid: 0.1458 on each corner, 0.0802 on each edge centre, 0.0962 at the centre
    # (Atkinson, Donev & Tobias 2007, Optimum Experimental Designs, with SAS, ch. 11).
    F = box_grid(3, 2)
    w = d_optimal(model_matrix(F, "quadratic"), tol=1e-9).weights
    nonzero = np.count_nonzero(F, axis=1)
    np.testing.assert_allclose(w[nonzero == 2], 0.1458, atol=5e-5)
    np.testing.assert_allclose(w[nonzero == 1], 0.0802, atol=5e-5)
    np.testing.assert_allclose(w[nonzero == 0], 0.0962, atol=5e-5)


def test_scheffe_quadratic_mixture_design():
    # Scheffé's quadratic mixture model (no intercept) on the {3, 2} lattice: six
    # parameters, six points, so the D-optimal design is uniform on the lattice
    # (Kiefer 1961).
    S = simplex_grid(3, 2)
    res = d_optimal(model_matrix(S, "interactions", intercept=False))
    np.testing.assert_allclose(res.weights, 1 / 6, atol=1e-6)


def test_bad_input():
    with pytest.raises(ValueError, match="terms must be one of"):
        model_matrix(box_grid(2, 2), "quartic")
    with pytest.raises(ValueError, match="F contains NaN"):
        model_matrix([[np.nan, 1.0]], "linear")
    with pytest.raises(ValueError, match="exponent rows"):
        model_matrix(box_grid(2, 2), [[1, 0, 0]])
    with pytest.raises(ValueError, match="n_factors is required"):
        box_grid(3)
    with pytest.raises(ValueError, match=r"levels\[0\] must be >= 2"):
        box_grid([1, 2])
    with pytest.raises(ValueError, match="m must be an integer"):
        simplex_grid(3, 0)
    with pytest.raises(ValueError, match="degree must be >= 1"):
        model_matrix(box_grid(2, 2), 0)


def test_spans_constant() -> None:
    """One-hot and mixture columns span the constant (also when scaled by 1e6: the test
    is column-equilibrated); generic features and coded factors do not."""
    from design import simplex_grid, spans_constant

    rng = np.random.default_rng(0)
    assert spans_constant(np.eye(4))
    assert spans_constant(1e6 * np.eye(4)[:, [2, 0, 1, 3]])
    assert spans_constant(simplex_grid(3, 2))
    assert spans_constant(np.c_[np.ones(5), rng.normal(size=(5, 2))])
    assert not spans_constant(rng.normal(size=(30, 8)))
    assert not spans_constant(box_grid(3, 2))
    # nearly but not exactly constant in the span: a column 1 + 1e-3 noise is not
    assert not spans_constant((1 + 1e-3 * rng.normal(size=40))[:, None])


def test_regressors_intercept_rules() -> None:
    """``regressors``: None is 'auto' with a model and no intercept without one; 'auto'
    adds it exactly when the constant is not in the span (so a model on a mixture gets
    none); True onto a spanning model is refused by name; the columns equal
    ``model_matrix``'s and the terms ``model_terms``'."""
    from design import model_terms, regressors, simplex_grid

    F = box_grid(3, 2)
    r = regressors(F, "quadratic", None, ["t", "p"])
    np.testing.assert_array_equal(r.X, model_matrix(F, "quadratic"))
    assert r.terms == model_terms(2, "quadratic", True, names=["t", "p"]) and r.intercept
    r = regressors(F)
    assert not r.intercept and r.X.shape == (9, 2) and "no intercept added" in r.description
    r = regressors(F, intercept="auto")
    assert r.intercept and r.terms == ["1", "x1", "x2"] and r.X[:, 0].tolist() == [1.0] * 9
    M = simplex_grid(3, 2)
    r = regressors(M, "interactions", "auto")  # Scheffe's quadratic model: no intercept
    np.testing.assert_array_equal(r.X, model_matrix(M, "interactions", intercept=False))
    assert not r.intercept and r.description.endswith(", no intercept")
    assert regressors(M, "interactions").terms == r.terms  # the default is 'auto'
    with pytest.raises(ValueError, match="intercept: the constant is already in the span"):
        regressors(M, "linear", True)
    with pytest.raises(ValueError, match="intercept must be"):
        regressors(F, intercept="yes")
    with pytest.raises(ValueError, match="names has 1 entries for 2 factors"):
        regressors(F, names=["t"])


def test_regressors_of_a_dataframe_name_terms_by_its_columns() -> None:
    """A pandas DataFrame's column names are the factor names (unless ``names`` is
    given), and the repr says what the regressors are instead of printing ``X``."""
    pd = pytest.importorskip("pandas")
    from design import regressors

    F = box_grid(3, 2) * 50.0 + 20.0
    df = pd.DataFrame(F, columns=["temp_C", "ph"])
    r = regressors(df, "interactions")
    assert r.terms == ["1", "temp_C", "ph", "temp_C*ph"]
    np.testing.assert_array_equal(r.X, regressors(F, "interactions").X)
    assert regressors(df, "linear", names=["t", "p"]).terms == ["1", "t", "p"]
    assert repr(r) == ("Regressors(interactions model in 2 factors: 1, temp_C, ph, "
                       "temp_C*ph; X 9 x 4)")


def test_coded_regressors_span_the_same_model_better_conditioned() -> None:
    """``code=True``: each factor mapped to [-1, 1] (centre + half-range), the regressors
    span the same column space as the raw model (a reparametrisation X -> X T), with a
    condition number of 3.8 instead of 5.9e7 for a quadratic in raw kelvin and pH; coding
    a model without an intercept (which it would change) is refused."""
    import itertools

    from design import coded, regressors

    F = np.array(list(itertools.product([293.15, 303.15, 313.15, 323.15, 333.15],
                                        [5.0, 6.0, 7.0, 8.0])))
    C, centre, half = coded(F)
    assert C.min(axis=0).tolist() == [-1.0, -1.0] and C.max(axis=0).tolist() == [1.0, 1.0]
    np.testing.assert_allclose(centre + half * C, F, rtol=1e-15)
    raw = regressors(F, "quadratic", None, ["T", "pH"])
    cod = regressors(F, "quadratic", None, ["T", "pH"], code=True)
    assert cod.terms == raw.terms and "T = 313.15 + 20 * coded" in cod.description
    assert np.linalg.cond(raw.X) > 5e7 and np.linalg.cond(cod.X) < 4
    T = np.linalg.lstsq(cod.X, raw.X, rcond=None)[0]  # raw = coded @ T exactly
    np.testing.assert_allclose(cod.X @ T, raw.X, rtol=0, atol=1e-9 * np.abs(raw.X).max())
    with pytest.raises(ValueError, match="code: coding centres the factors"):
        regressors(F, "quadratic", False, code=True)
    const = np.c_[F[:, :1], np.full(len(F), 2.0)]  # a constant factor is only centred
    assert np.all(coded(const)[0][:, 1] == 0.0)


def test_a_model_its_candidates_cannot_estimate_is_refused_with_the_relation() -> None:
    """A model whose terms are linearly dependent on the candidates is refused naming the
    first dependent term and its expression in the earlier ones (exact on every
    candidate): the full quadratic on a mixture (x1 + x2 + x3 = 1 gives
    x1^2 = x1 - x1*x2 - x1*x3, with Scheffé's model suggested), and a squared term of a
    factor with two levels. Scheffé's model on the same mixture is accepted."""
    from design import regressors, simplex_grid

    M = simplex_grid(3, 4)
    with pytest.raises(ValueError, match=r"^model: the quadratic model's 9 terms have rank 6 "
                       r"on these 15 candidates.*: a\^2 = a - a\*b - a\*c on every "
                       r"candidate; the factors sum to a constant .*Scheff"):
        regressors(M, "quadratic", names=["a", "b", "c"])
    a, b, c = M.T
    np.testing.assert_allclose(a**2, a - a * b - a * c, atol=1e-15)
    assert regressors(M, "interactions").X.shape == (15, 6)
    two_levels = box_grid([2, 3], low=0.0, high=1.0)
    with pytest.raises(ValueError, match=r"x1\^2 = x1 on every candidate; drop terms"):
        regressors(two_levels, "quadratic")
