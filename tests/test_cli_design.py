"""`oed design` for a lab: model terms, A/I/Ds criteria, exact designs, constraints."""

import json

import numpy as np
import pytest

from bandits.cli import main
from design import box_grid


@pytest.fixture
def grid(tmp_path):
    path = tmp_path / "grid.csv"
    F = box_grid(3, 2)
    cost = 1.0 + (F[:, 0] + 1) / 2  # runs at high temperature cost more
    np.savetxt(path, np.c_[F, cost], delimiter=",", header="temp,press,cost", comments="")
    return path


def run(args, tmp_path):
    out = tmp_path / "out.json"
    assert main([*args, "--out", str(out)]) == 0
    return json.loads(out.read_text())


def test_model_terms_and_the_model_in_the_output(grid, tmp_path, capsys):
    res = run(["design", "d", "--arms", str(grid), "--model", "quadratic",
               "--costs", "cost", "--budget", "10"], tmp_path)
    assert res["model"]["terms"] == ["1", "temp", "press", "temp*press", "temp^2", "press^2"]
    assert "quadratic model in 2 factors" in capsys.readouterr().out
    # the budget does not bind: the D-optimal 3^2 design (Atkinson, Donev & Tobias 2007)
    w = np.array(res["weights"])
    assert w[0] == pytest.approx(0.1458, abs=1e-4) and w[4] == pytest.approx(0.0962, abs=1e-4)


def test_without_model_the_output_says_no_intercept(tmp_path):
    grid = tmp_path / "settings.csv"
    np.savetxt(grid, box_grid(3, 2), delimiter=",")
    res = run(["design", "g", "--arms", str(grid)], tmp_path)
    assert res["model"]["intercept"] is False
    assert "no intercept added" in res["model"]["description"]
    res = run(["design", "g", "--arms", str(grid), "--intercept"], tmp_path)
    assert res["model"]["terms"] == ["1", "x1", "x2"]


def test_a_i_ds_and_budget(grid, tmp_path):
    a = run(["design", "a", "--arms", str(grid), "--model", "quadratic", "--costs", "cost",
             "--budget", "10"], tmp_path)
    assert a["criterion"] == "A" and a["converged"]
    i = run(["design", "i", "--arms", str(grid), "--model", "quadratic", "--costs", "cost",
             "--budget", "10"], tmp_path)
    assert i["criterion"] == "I" and i["gap"] <= 1e-4
    ds = run(["design", "ds", "--arms", str(grid), "--model", "quadratic", "--costs", "cost",
              "--budget", "10", "--interest", "temp^2,press^2"], tmp_path)
    assert ds["criterion"] == "Ds"
    cheap = run(["design", "d", "--arms", str(grid), "--model", "quadratic", "--costs", "cost",
                 "--budget", "1.4"], tmp_path)
    cost = 1.0 + (box_grid(3, 2)[:, 0] + 1) / 2
    assert cost @ np.array(cheap["weights"]) <= 1.4


def test_exact_bin_and_fixed(tmp_path):
    grid = tmp_path / "settings.csv"
    np.savetxt(grid, box_grid(3, 2), delimiter=",", header="temp,press", comments="")
    res = run(["design", "d", "--arms", str(grid), "--model", "quadratic", "--exact", "7",
               "--bin"], tmp_path)
    assert sum(res["counts"]) == 7 and max(res["counts"]) == 1
    assert 0 < res["efficiency_bound"] <= 1
    fixed = tmp_path / "fixed.csv"
    np.savetxt(fixed, [[0.0, 0.0]], delimiter=",")
    aug = run(["design", "d", "--arms", str(grid), "--model", "quadratic", "--exact", "6",
               "--fixed", str(fixed)], tmp_path)
    assert sum(aug["counts"]) == 6


def test_bad_input(grid, tmp_path, capsys):
    base = ["design", "ds", "--arms", str(grid), "--model", "quadratic"]
    # the cost column (affine in temp) is read as a factor here: with temp it spans the
    # constant, so no intercept is added, and the quadratic terms are then dependent
    assert main(base) == 2
    err = capsys.readouterr().err
    assert "--model" in err and "terms have rank" in err and "*cost = " in err
    assert main([*base, "--intercept"]) == 2
    err = capsys.readouterr().err
    assert "already in the span" in err and "'cost'" in err
    assert main([*base, "--columns", "temp,press"]) == 2
    assert "--interest is required" in capsys.readouterr().err
    assert main(["design", "d", "--arms", str(grid), "--costs", "cost"]) == 2
    assert "--costs and --budget go together" in capsys.readouterr().err
    assert main(["design", "d", "--arms", str(grid), "--costs", "-1", "--budget", "1"]) == 2
    assert main(["design", "c", "--arms", str(grid), "--exact", "4", "--target", "1,0,0"]) == 2
    assert main(["design", "d", "--arms", str(grid), "--model", "linear", "--costs", "cost",
                 "--exact", "2"]) == 2
    assert "--costs and --budget go together" in capsys.readouterr().err
    assert main(["design", "d", "--arms", str(grid), "--model", "linear", "--caps", "cost",
                 "--exact", "2"]) == 2
    assert "n=2 runs" in capsys.readouterr().err


def test_exact_with_costs_and_budget(grid, tmp_path):
    """--costs with --exact: average cost per run <= --budget, checked exactly on the
    counts; a tight budget changes the design (runs at high temperature cost up to 2)."""
    from fractions import Fraction

    cost = np.loadtxt(grid, delimiter=",", skiprows=1)[:, 2]
    free = run(["design", "d", "--arms", str(grid), "--model", "quadratic", "--exact", "8",
                "--costs", "cost", "--budget", "100"], tmp_path)  # budget not binding
    res = run(["design", "d", "--arms", str(grid), "--model", "quadratic", "--exact", "8",
               "--costs", "cost", "--budget", "1.4"], tmp_path)
    counts = np.array(res["counts"])
    assert counts.sum() == 8
    total = sum(Fraction(float(c)) * int(k) for c, k in zip(cost, counts, strict=True))
    assert total <= Fraction(1.4 * 8)
    assert float(np.dot(cost, free["counts"])) > 1.4 * 8  # the budget binds
    assert res["value"] >= free["value"]
    # the result file says what the design costs, against the budget
    assert res["cost"]["total"] == pytest.approx(float(total), rel=1e-12)
    assert res["cost"]["per_run"] == pytest.approx(float(total) / 8, rel=1e-12)
    assert res["cost"]["budget_total"] == pytest.approx(1.4 * 8)
    assert res["constraints"] == {"bin": False, "caps": False, "fixed": False,
                                  "budget_per_run": 1.4}


def test_total_budget_of_an_exact_design(grid, tmp_path, capsys):
    """--total-budget T with --exact N bounds the total cost of the N runs exactly (T, not
    (T/N) N), gives the design of --budget T/N where that is exact, and is refused without
    --exact or beside --budget."""
    from fractions import Fraction

    cost = np.loadtxt(grid, delimiter=",", skiprows=1)[:, 2]
    args = ["design", "d", "--arms", str(grid), "--model", "quadratic", "--exact", "8",
            "--costs", "cost"]
    res = run([*args, "--total-budget", "11"], tmp_path)
    per_run = run([*args, "--budget", "1.375"], tmp_path)  # 11 / 8 exactly in binary
    assert res["counts"] == per_run["counts"]
    spent = sum(Fraction(float(c)) * int(k) for c, k in zip(cost, res["counts"], strict=True))
    assert spent <= 11
    assert res["cost"]["budget_total"] == 11 and res["cost"]["budget_per_run"] == 1.375
    assert main([*args[:6], "--costs", "cost", "--total-budget", "11"]) == 2
    assert "--total-budget is for exact designs" in capsys.readouterr().err
    assert main([*args, "--total-budget", "11", "--budget", "2"]) == 2
    assert "give one" in capsys.readouterr().err


def test_cost_line_in_the_summary(grid, tmp_path, capsys):
    """The printed summary of a design under --costs/--budget has its cost: the exact
    design's total and per-run cost, the approximate design's costs @ weights."""
    out = tmp_path / "e.json"
    assert main(["design", "d", "--arms", str(grid), "--model", "quadratic", "--exact", "8",
                 "--costs", "cost", "--budget", "1.4", "--out", str(out)]) == 0
    res = json.loads(out.read_text())
    text = capsys.readouterr().out
    assert (f"cost: {res['cost']['total']:.6g} for 8 runs ({res['cost']['per_run']:.6g} per "
            "run; budget 1.4 per run, 11.2 in total)") in text
    assert main(["design", "d", "--arms", str(grid), "--model", "quadratic",
                 "--costs", "cost", "--budget", "1.4", "--out", str(out)]) == 0
    res = json.loads(out.read_text())
    w = np.array(res["weights"])
    cost = np.loadtxt(grid, delimiter=",", skiprows=1)[:, 2]
    assert res["cost"]["per_run"] == pytest.approx(float(cost @ w), rel=1e-12)
    assert res["cost"]["per_run"] <= 1.4 * (1 + 1e-9)
    assert "per run (costs @ weights; budget 1.4)" in capsys.readouterr().out


def test_region_and_fixed_runs_take_the_candidates_coding(tmp_path):
    """--region and --fixed rows are factor settings in the file's units: with --coded they
    get the candidates' coding (not their own range), so the I-optimal design on a region
    and an augmented D-optimal design are the same coded or not (both criteria are
    invariant under the reparametrisation X -> X T that coding is). Raw temperatures
    293-333 K, pressure 1-3 bar; the region is a corner of the box."""
    F = box_grid([[293.0, 313.0, 333.0], [1.0, 2.0, 3.0]])
    arms = tmp_path / "raw.csv"
    np.savetxt(arms, F, delimiter=",", header="temp,press", comments="")
    region = tmp_path / "region.csv"
    np.savetxt(region, box_grid([[313.0, 323.0, 333.0], [2.0, 2.5, 3.0]]), delimiter=",")
    fixed = tmp_path / "fixed.csv"
    np.savetxt(fixed, [[333.0, 3.0], [313.0, 2.0]], delimiter=",")
    base = ["design", "i", "--arms", str(arms), "--model", "quadratic", "--region",
            str(region)]
    raw, cod = run(base, tmp_path), run([*base, "--coded"], tmp_path)
    np.testing.assert_allclose(cod["weights"], raw["weights"], atol=1e-6)
    base = ["design", "d", "--arms", str(arms), "--model", "quadratic", "--exact", "6",
            "--fixed", str(fixed)]
    raw, cod = run(base, tmp_path), run([*base, "--coded"], tmp_path)
    assert cod["counts"] == raw["counts"]
    bad = tmp_path / "bad.csv"
    np.savetxt(bad, [[313.0, 2.0, 1.0]], delimiter=",")
    assert main([*base[:-1], str(bad), "--coded"]) == 2


def test_round_a_weights_csv_with_the_design_model(tmp_path, capsys):
    """A weights CSV records no model: `oed round --arms` then computes the efficiency on
    the model given with --model (the G-value of the D-optimal design is d = 6 for
    Scheffé's quadratic mixture model, Kiefer-Wolfowitz), says so on stderr when none is
    given (the raw columns are then the regressors), and refuses --model next to a design
    JSON that records its own."""
    from design import simplex_grid

    arms = tmp_path / "blend.csv"
    np.savetxt(arms, simplex_grid(3, 4), delimiter=",", header="a,b,c", comments="")
    weights = tmp_path / "d.csv"
    assert main(["design", "d", "--arms", str(arms), "--model", "interactions", "--out",
                 str(weights)]) == 0
    capsys.readouterr()
    base = ["round", "--weights", str(weights), "--n", "10", "--arms", str(arms)]
    res = run([*base, "--model", "interactions"], tmp_path)
    assert res["loss"]["approx_value"] == pytest.approx(6.0, rel=1e-6)
    assert res["loss"]["model"] == "interactions model in 3 factors, no intercept"
    assert sum(res["counts"]) == 10 and "note" not in capsys.readouterr().err
    res = run(base, tmp_path)
    assert res["loss"]["model"] == "the columns of --arms as regressors"
    assert "--weights records no model" in capsys.readouterr().err
    design_json = tmp_path / "d.json"
    assert main(["design", "d", "--arms", str(arms), "--model", "interactions", "--out",
                 str(design_json)]) == 0
    assert main(["round", "--weights", str(design_json), "--n", "10", "--arms", str(arms),
                 "--model", "quadratic"]) == 2
    assert "records its model" in capsys.readouterr().err
