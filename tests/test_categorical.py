"""Categorical factors (a catalyst, a supplier, a batch): treatment coding in
``design.regressors``, designs on them, and the command line (`oed design`, `oed run`,
`oed experiment`) reading a candidate file with a text column."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

import design
from bandits.cli import main

CATALYSTS = ["Pt", "Pd", "Ni"]  # file order; sorted levels: Ni (baseline), Pd, Pt


def _grid() -> np.ndarray:
    """temp in {-1, 0, 1} x catalyst: 9 candidates, labels as text."""
    return np.array([[t, c] for t in (-1.0, 0.0, 1.0) for c in CATALYSTS], dtype=object)


def test_treatment_coding_columns_and_names():
    """Linear model with intercept: 1, temp, one 0/1 column per non-baseline level; the
    baseline is the first level in sorted order (Ni), as R's factor() sorts."""
    F = _grid()
    r = design.regressors(F, "linear", names=["temp", "cat"])
    assert r.terms == ["1", "temp", "cat[Pd]", "cat[Pt]"]
    temp = F[:, 0].astype(float)
    expected = np.c_[np.ones(9), temp, F[:, 1] == "Pd", F[:, 1] == "Pt"].astype(float)
    np.testing.assert_array_equal(r.X, expected)
    assert r.levels == (None, ("Ni", "Pd", "Pt"))
    assert "categorical: cat (Ni, Pd, Pt; baseline Ni)" in r.description


def test_quadratic_model_never_squares_a_categorical_factor():
    """Full second order in (temp, pH) with a categorical factor: the categorical factor
    enters at power one, in its main effect and its interactions, never squared."""
    F = np.array([[t, p, c] for t in (-1, 0, 1) for p in (-1, 0, 1) for c in "ab"],
                 dtype=object)
    r = design.regressors(F, "quadratic", names=["temp", "pH", "c"])
    assert r.terms == ["1", "temp", "pH", "c[b]", "temp*pH", "temp*c[b]", "pH*c[b]",
                       "temp^2", "pH^2"]
    b = (F[:, 2] == "b").astype(float)
    t = F[:, 0].astype(float)
    np.testing.assert_array_equal(r.X[:, 5], t * b)
    np.testing.assert_array_equal(r.X[:, 7], t**2)


def test_d_optimal_additive_model_is_the_product_design():
    """Additive model temp + catalyst (3 levels): the D-optimal design is the product of
    the marginal D-optimal designs (Schwabe 1996, Optimum Designs for Multi-Factor Models,
    Thm. 4.2): temp at +-1 with 1/2 each, the levels 1/3 each, so 1/6 on every
    (+-1, level) and none at temp = 0; value log det = the product's."""
    F = _grid()
    r = design.regressors(F, "linear", names=["temp", "cat"])
    res = design.d_optimal(r.X, tol=1e-10)
    w = res.weights
    ends = np.abs(F[:, 0].astype(float)) == 1
    np.testing.assert_allclose(w[ends], 1 / 6, atol=1e-6)
    assert w[~ends].max() < 1e-6


def test_d_optimal_design_does_not_depend_on_the_baseline():
    """Treatment coding is a reparametrisation: relabelling the levels so that another one
    is the baseline gives the same D-optimal design (here on an interaction model, where
    the design is not a product)."""
    rng = np.random.default_rng(5)
    temp = rng.uniform(-1, 1, 30)
    cat = rng.choice(["a", "b", "c"], 30)
    F1 = np.c_[temp.astype(object), cat]
    F2 = np.c_[temp.astype(object), np.where(cat == "a", "z", cat)]  # baseline b instead
    X1 = design.regressors(F1, "interactions").X
    X2 = design.regressors(F2, "interactions").X
    assert not np.allclose(X1, X2)
    w1 = design.d_optimal(X1, tol=1e-10).weights
    w2 = design.d_optimal(X2, tol=1e-10).weights
    np.testing.assert_allclose(w1, w2, atol=1e-5)


def test_without_intercept_the_first_factor_keeps_every_level():
    """intercept=False: one mean per level of the first categorical factor (R's
    ~ 0 + cat + temp), which spans the same model as the intercept version."""
    F = _grid()
    r0 = design.regressors(F, "linear", intercept=False, names=["temp", "cat"])
    r1 = design.regressors(F, "linear", names=["temp", "cat"])
    assert r0.terms == ["temp", "cat[Ni]", "cat[Pd]", "cat[Pt]"]
    assert r0.full_first and not r0.intercept
    both = np.c_[r0.X, r1.X]
    assert np.linalg.matrix_rank(both) == np.linalg.matrix_rank(r0.X) == 4
    np.testing.assert_array_equal(r0.at([[1.0, "Pd"]]), [[1.0, 0.0, 1.0, 0.0]])


def test_at_codes_labels_and_refuses_unknown_levels():
    F = _grid()
    r = design.regressors(F, "interactions", names=["temp", "cat"], code=True)
    np.testing.assert_array_equal(r.at(F), r.X)
    with pytest.raises(ValueError, match="'Cu' of the categorical factor 'cat'"):
        r.at([[0.0, "Cu"]], "--fixed")
    with pytest.raises(ValueError, match="'temp' is a numeric factor; got 'hot'"):
        r.at([["hot", "Pd"]], "--fixed")


def test_numeric_labels_declared_categorical_sort_numerically():
    """A batch numbered 10, 9, 2 is categorical when named: levels 2, 9, 10 (numerically,
    not as text), baseline 2."""
    F = np.array([[x, b] for x in (-1.0, 1.0) for b in (10, 9, 2)])
    r = design.regressors(F, "linear", names=["x", "batch"], categorical=["batch"])
    assert r.levels[1] == (2.0, 9.0, 10.0)
    assert r.terms == ["1", "x", "batch[9]", "batch[10]"]


def test_bad_categorical_input_is_refused_by_name():
    F = _grid()
    with pytest.raises(ValueError, match="categorical: 'colour' is neither"):
        design.regressors(F, names=["temp", "cat"], categorical=["colour"])
    one = np.array([[0.0, "a"], [1.0, "a"], [2.0, "a"]], dtype=object)
    with pytest.raises(ValueError, match="single level"):
        design.regressors(one, "linear")
    with pytest.raises(ValueError, match="categorical: column 5"):
        design.regressors(F, categorical=[5])


def test_dataframe_object_columns_are_categorical():
    pd = pytest.importorskip("pandas")
    F = _grid()
    df = pd.DataFrame({"temp": F[:, 0].astype(float), "cat": F[:, 1]})
    r = design.regressors(df, "quadratic", code=True)
    assert r.terms == ["1", "temp", "cat[Pd]", "cat[Pt]", "temp*cat[Pd]", "temp*cat[Pt]",
                       "temp^2"]
    np.testing.assert_array_equal(r.X, design.regressors(F, "quadratic", names=["temp", "cat"],
                                                         code=True).X)


@pytest.fixture
def runs_csv(tmp_path):
    """A lab's candidate file: IDs, temperature, pH, a catalyst (text), a cost and a
    batch number."""
    path = tmp_path / "runs.csv"
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "temp", "pH", "catalyst", "cost", "batch"])
        i = 0
        for T in (60, 75, 90):
            for ph in (5, 7):
                for cat in CATALYSTS:
                    i += 1
                    w.writerow([f"R{i:02d}", T, ph, cat, 10 + 5 * (cat == "Pt"), 1 + i % 2])
    return path


def test_cli_design_with_a_text_column(runs_csv, tmp_path, capsys):
    """`oed design d --columns temp,pH,catalyst`: the catalyst is a categorical factor,
    the output says so, the run sheet writes the labels as text, and the exact design
    under a budget per run spends at most it."""
    out = tmp_path / "plan.csv"
    assert main(["design", "d", "--arms", str(runs_csv), "--id-column", "id", "--columns",
                 "temp,pH,catalyst", "--model", "interactions", "--coded", "--exact", "10",
                 "--costs", "cost", "--budget", "12", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "categorical: catalyst (Ni, Pd, Pt; baseline Ni)" in text
    assert "temp*catalyst[Pt]" in text
    with out.open() as fh:
        rows = list(csv.DictReader(fh))
    assert sum(int(r["runs"]) for r in rows) == 10
    assert {r["catalyst"] for r in rows} <= set(CATALYSTS)
    cost = {"Pt": 15.0, "Pd": 10.0, "Ni": 10.0}
    assert sum(int(r["runs"]) * cost[r["catalyst"]] for r in rows) <= 12 * 10


def test_cli_text_column_needs_to_be_chosen(runs_csv, capsys):
    """Without --columns a text column is not made a factor unasked: refused with a
    message saying how to declare it."""
    assert main(["design", "d", "--arms", str(runs_csv), "--id-column", "id",
                 "--model", "linear"]) == 2
    err = capsys.readouterr().err
    assert "column 'catalyst' is not numeric" in err and "--categorical" in err
    assert main(["design", "d", "--arms", str(runs_csv), "--id-column", "id", "--columns",
                 "temp,catalyst", "--costs", "catalyst", "--budget", "3"]) == 2
    assert "--costs: column 'catalyst' of --arms is not numeric" in capsys.readouterr().err


def test_cli_categorical_option_and_round_trip(runs_csv, tmp_path, capsys):
    """--categorical batch: a numbered batch as a factor; the design JSON records it, so
    `oed round --arms` rebuilds the same model from the file."""
    js = tmp_path / "d.json"
    assert main(["design", "d", "--arms", str(runs_csv), "--id-column", "id", "--columns",
                 "temp,catalyst,batch", "--categorical", "batch", "--model", "linear",
                 "--out", str(js)]) == 0
    capsys.readouterr()
    data = json.loads(js.read_text())
    assert data["model"]["terms"] == ["1", "temp", "catalyst[Pd]", "catalyst[Pt]",
                                      "batch[2]"]
    assert data["model"]["spec"]["categorical"] == ["catalyst", "batch"]
    assert main(["round", "--weights", str(js), "--n", "40", "--arms", str(runs_csv),
                 "--id-column", "id"]) == 0
    out = capsys.readouterr().out
    assert "categorical: catalyst (Ni, Pd, Pt; baseline Ni), batch (1, 2; baseline 1)" in out


def test_cli_run_and_experiment_with_a_categorical_factor(runs_csv, tmp_path, capsys):
    """`oed run --arms ... --theta` on a model with a catalyst: the instance's arms are the
    treatment-coded regressors (theta has one value per term), and `oed experiment new`
    records the categorical column and the model."""
    theta = "0,1,0.5,-0.3,0.6"  # 1, temp, pH, catalyst[Pd], catalyst[Pt] (coded)
    assert main(["run", "lingape", "--arms", str(runs_csv), "--id-column", "id",
                 "--columns", "temp,pH,catalyst", "--model", "linear", "--coded",
                 "--theta", theta, "--noise", "0.3", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    # the best mean: temp 90 and pH 7 (coded +1), catalyst Pt (+0.6): row 16 (index 15)
    assert res["best"] == [15]
    assert res["stopped_by"] == "rule" and res["recommendation"] == [15]
    state = tmp_path / "st.json"
    assert main(["experiment", "new", "--state", str(state), "--arms", str(runs_csv),
                 "--id-column", "id", "--columns", "temp,pH,catalyst", "--model", "linear",
                 "--S", "3"]) == 0
    assert "catalyst[Pt]" in capsys.readouterr().out
    record = json.loads(state.read_text())["experiment"]
    assert record["categorical"] == ["catalyst"]


def test_cli_fixed_runs_as_settings_with_labels(runs_csv, tmp_path, capsys):
    """--fixed as rows of settings with the catalyst's labels (by column name, in another
    order): the augmented exact design counts them, and the same runs given by ID give the
    same design; an unknown catalyst is refused by name."""
    done = tmp_path / "done.csv"
    done.write_text("catalyst,pH,temp\nPt,5,60\nNi,7,90\n")
    by_id = tmp_path / "done_ids.csv"
    by_id.write_text("id,runs\nR01,1\nR18,1\n")  # the same two runs: (60, 5, Pt), (90, 7, Ni)
    base = ["design", "d", "--arms", str(runs_csv), "--id-column", "id", "--columns",
            "temp,pH,catalyst", "--model", "linear", "--exact", "6", "--json"]
    outs = []
    for f in (done, by_id):
        path = tmp_path / f"out_{f.stem}.json"
        assert main(base + [str(path), "--fixed", str(f), "--out",
                            str(tmp_path / f"o_{f.stem}.csv")]) == 0
        capsys.readouterr()
        outs.append(json.loads(path.read_text())["counts"])
    assert outs[0] == outs[1] and sum(outs[0]) == 6
    bad = tmp_path / "bad.csv"
    bad.write_text("temp,pH,catalyst\n60,5,Cu\n")
    assert main(base[:-1] + ["--fixed", str(bad)]) == 2
    assert "'Cu' of the categorical factor 'catalyst'" in capsys.readouterr().err


def test_sum_coding_is_effects_against_the_mean():
    """contrasts="sum" (R's contr.sum): columns for every level but the last, +1 there and
    -1 at the last level; with the intercept, the intercept is then the mean over the
    levels. The D-optimal design equals the treatment-coded one (a reparametrisation), the
    A-optimal value differs (A depends on the parametrisation)."""
    F = _grid()
    r = design.regressors(F, "linear", names=["temp", "cat"], contrasts="sum")
    assert r.terms == ["1", "temp", "cat[Ni]", "cat[Pd]"]
    cat = F[:, 1]
    np.testing.assert_array_equal(r.X[:, 2], (cat == "Ni") * 1.0 - (cat == "Pt"))
    assert "sum coding, Pt = minus the others" in r.description
    np.testing.assert_array_equal(r.at(F), r.X)
    t = design.regressors(F, "linear", names=["temp", "cat"])
    np.testing.assert_allclose(design.d_optimal(r.X, tol=1e-10).weights,
                               design.d_optimal(t.X, tol=1e-10).weights, atol=1e-6)
    assert abs(design.a_optimal(r.X).value - design.a_optimal(t.X).value) > 0.1
    with pytest.raises(ValueError, match="contrasts must be 'treatment' or 'sum'"):
        design.regressors(F, "linear", contrasts="helmert")


def test_cli_contrasts_recorded_in_the_design(runs_csv, tmp_path, capsys):
    js = tmp_path / "a.json"
    assert main(["design", "a", "--arms", str(runs_csv), "--id-column", "id", "--columns",
                 "temp,catalyst", "--model", "linear", "--coded", "--contrasts", "sum",
                 "--out", str(js)]) == 0
    assert "sum coding, Pt = minus the others" in capsys.readouterr().out
    spec = json.loads(js.read_text())["model"]["spec"]
    assert spec["contrasts"] == "sum" and spec["categorical"] == ["catalyst"]


def test_mixture_with_a_categorical_process_factor():
    """Three mixture components and a categorical process factor: the components sum to
    one, so the process factor's main effect equals the sum of its products with the
    components; with those products in the model ("interactions") it is carried by them
    and not repeated (Cornell 2002, Experiments with Mixtures, ch. 7: Scheffé's quadratic
    blending plus the process factor's linear blending), and the model is estimable; the
    additive "linear" model keeps it."""
    S = design.simplex_grid(3, 4)
    F = np.array([[*s, c] for s in S for c in ("A", "B")], dtype=object)
    r = design.regressors(F, "interactions", names=["a", "b", "c", "proc"])
    assert r.terms == ["a", "b", "c", "a*b", "a*c", "a*proc[B]", "b*c", "b*proc[B]",
                       "c*proc[B]"]
    assert not r.intercept and np.linalg.matrix_rank(r.X) == 9
    np.testing.assert_array_equal(r.at(F), r.X)
    lin = design.regressors(F, "linear", names=["a", "b", "c", "proc"])
    assert lin.terms == ["a", "b", "c", "proc[B]"]


def test_round_a_weights_csv_on_the_designs_columns(runs_csv, tmp_path, capsys):
    """An 'id,weight' CSV records no model: `oed round --arms` takes the design's factor
    columns (--columns, with the catalyst a categorical factor) and model, so the
    efficiency loss is for the model the design was computed for (G value p = 4 of the
    linear model 1, temp, catalyst[Pd], catalyst[Pt] at the approximate optimum, Kiefer-
    Wolfowitz), not for a model of every column of the file (cost and batch too)."""
    w = tmp_path / "w.csv"
    assert main(["design", "d", "--arms", str(runs_csv), "--id-column", "id", "--columns",
                 "temp,catalyst", "--model", "linear", "--out", str(w)]) == 0
    capsys.readouterr()
    assert main(["round", "--weights", str(w), "--n", "24", "--arms", str(runs_csv),
                 "--id-column", "id", "--model", "linear", "--columns",
                 "temp,catalyst"]) == 0
    loss = json.loads(capsys.readouterr().out)["loss"]
    assert loss["model"].startswith("linear model in 2 factors; categorical: catalyst")
    assert abs(loss["approx_value"] - 4) < 1e-4


def test_a_pandas_categorical_keeps_its_level_order():
    """A pandas Categorical's own order decides the levels (its first category present is
    the baseline), as patsy and statsmodels read it; plain text is sorted."""
    pd = pytest.importorskip("pandas")
    F = _grid()
    df = pd.DataFrame({"temp": F[:, 0].astype(float),
                       "cat": pd.Categorical(F[:, 1], categories=["Pt", "Cu", "Ni", "Pd"])})
    r = design.regressors(df, "linear")
    assert r.levels[1] == ("Pt", "Ni", "Pd")  # Cu is not among the candidates
    assert r.terms == ["1", "temp", "cat[Ni]", "cat[Pd]"]
    batch = pd.DataFrame({"x": [-1.0, 1.0] * 3,
                          "b": pd.Categorical([3, 3, 1, 1, 2, 2], categories=[3, 1, 2])})
    rb = design.regressors(batch, "linear")
    assert rb.levels[1] == (3.0, 1.0, 2.0) and rb.terms == ["1", "x", "b[1]", "b[2]"]
    np.testing.assert_array_equal(rb.at(batch), rb.X)


def test_lab_screen_with_a_catalyst_reaches_the_right_candidate(runs_csv, tmp_path,
                                                                 capsys):
    """`oed experiment` on a candidate file with a catalyst column: daily batches of 6
    (ask, the lab's results, tell) under LinGapE's proven threshold until the stop; the
    certified best candidate is the true one (means from the treatment-coded model)."""
    model = design.regressors(
        np.array([[r["temp"], r["pH"], r["catalyst"]] for r in csv.DictReader(
            runs_csv.open())], dtype=object), "linear", names=["temp", "pH", "catalyst"],
        code=True)
    theta = np.array([1.0, 0.8, 0.4, -0.5, 0.9])  # 1, temp, pH, catalyst[Pd], catalyst[Pt]
    means = model.X @ theta
    ids = [r["id"] for r in csv.DictReader(runs_csv.open())]
    state = str(tmp_path / "screen.json")
    assert main(["experiment", "new", "--state", state, "--arms", str(runs_csv),
                 "--id-column", "id", "--columns", "temp,pH,catalyst", "--model", "linear",
                 "--coded", "--algorithm", "lingape", "--S", "3", "--sigma", "0.5"]) == 0
    capsys.readouterr()
    rng = np.random.default_rng(11)
    for day in range(400):
        sheet = tmp_path / f"day{day}.csv"
        assert main(["experiment", "ask", "--n", "6", "--out", str(sheet), "--state",
                     state]) == 0
        asked = [row["id"] for row in csv.DictReader(sheet.open())]
        with sheet.open("w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["id", "reward"])
            for name in asked:
                w.writerow([name, means[ids.index(name)] + 0.5 * rng.standard_normal()])
        assert main(["experiment", "tell", str(sheet), "--state", state]) == 0
        told = capsys.readouterr().out
        if "stopped after" in told:
            break
    line = next(t for t in told.splitlines() if t.startswith("stopped after"))
    assert "certified" in line
    assert line.rsplit(": ", 1)[1] == ids[int(np.argmax(means))]


def test_box_grid_with_a_categorical_factor():
    """box_grid takes a factor's labels: an object grid, the first factor varying slowest,
    which regressors codes (the numeric columns stay numbers)."""
    F = design.box_grid([3, ["Pd", "Pt"]])
    assert F.dtype == object and F.shape == (6, 2)
    assert [tuple(r) for r in F[:3]] == [(-1.0, "Pd"), (-1.0, "Pt"), (0.0, "Pd")]
    r = design.regressors(F, "linear", names=["temp", "cat"])
    assert r.terms == ["1", "temp", "cat[Pt]"]
    with pytest.raises(ValueError, match="distinct labels"):
        design.box_grid([2, ["a", "a"]])
    with pytest.raises(ValueError, match="got the text 'abc'"):
        design.box_grid([2, "abc"])
    with pytest.raises(ValueError, match="categorical: build its model with design.regressors"):
        design.model_matrix(F, "linear")
