"""`oed design` / `oed round` outputs keyed by candidate ID (issue 14): 'id,weight' and
'id,runs' CSV files listing only the conditions to run, in file order, JSON with the IDs
and provenance, run from the shell on a generated candidate file with an ID column."""

from __future__ import annotations

import csv
import json
import subprocess
import sys

import numpy as np
import pytest

from bandits.cli import main
from design import box_grid


@pytest.fixture
def screen(tmp_path):
    """A 3 x 3 grid of (temp, press) settings with a text ID column in the middle."""
    path = tmp_path / "screen.csv"
    F = box_grid(3, 2)
    ids = [f"cond-{chr(ord('a') + i)}" for i in range(F.shape[0])]
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["temp", "name", "press"])
        for name, (t, p) in zip(ids, F, strict=True):
            w.writerow([t, name, p])
    return path, ids, F


def _rows(path):
    with open(path, newline="") as fh:
        return list(csv.reader(fh))


def test_design_csv_lists_the_support_by_id_in_file_order(screen, tmp_path, capsys):
    """The D-optimal design of the linear model with intercept on the 3^2 grid puts 1/4 on
    each corner (Kiefer-Wolfowitz: G-optimal = D-optimal, max variance p = 3 reached at the
    corners only; Atkinson, Donev & Tobias 2007, Ch. 9): the CSV lists the four corners."""
    path, ids, F = screen
    out, js = tmp_path / "design.csv", tmp_path / "design.json"
    assert main(["design", "d", "--arms", str(path), "--id-column", "name", "--model",
                 "linear", "--out", str(out), "--json", str(js)]) == 0
    assert "4 of 9 candidates to run" in capsys.readouterr().out
    rows = _rows(out)
    assert rows[0] == ["id", "weight", "temp", "press"]  # a run sheet: what to set
    corners = [ids[i] for i in range(9) if abs(F[i, 0]) == 1 and abs(F[i, 1]) == 1]
    assert [r[0] for r in rows[1:]] == corners  # file order, support only
    for r in rows[1:]:
        assert [float(v) for v in r[2:]] == F[ids.index(r[0])].tolist()
    weights = np.array([float(r[1]) for r in rows[1:]])
    assert np.all(weights > 0) and abs(weights.sum() - 1.0) < 1e-9
    assert np.allclose(weights, 0.25, atol=1e-6)
    doc = json.loads(js.read_text())
    assert doc["ids"] == ids and len(doc["weights"]) == 9
    assert [r["id"] for r in doc["design"]] == corners
    # the CSV holds the JSON's weights bit for bit
    assert [r["weight"] for r in doc["design"]] == weights.tolist()
    assert doc["provenance"]["inputs"]["arms"]["source"] == str(path)
    assert "command" in doc["provenance"] and "versions" in doc["provenance"]


def test_exact_design_and_round_write_integer_runs_summing_to_n(screen, tmp_path, capsys):
    path, ids, _ = screen
    exact = tmp_path / "exact.csv"
    assert main(["design", "d", "--arms", str(path), "--id-column", "name", "--model",
                 "quadratic", "--exact", "7", "--out", str(exact)]) == 0
    rows = _rows(exact)
    assert rows[0] == ["id", "runs", "temp", "press"]
    runs = [int(r[1]) for r in rows[1:]]
    assert sum(runs) == 7 and min(runs) >= 1
    assert [r[0] for r in rows[1:]] == [i for i in ids if i in {r[0] for r in rows[1:]}]
    # design JSON -> oed round: IDs carried by the JSON
    js = tmp_path / "d.json"
    assert main(["design", "d", "--arms", str(path), "--id-column", "name", "--model",
                 "quadratic", "--out", str(js)]) == 0
    capsys.readouterr()
    for n in (9, 10, 23):
        out = tmp_path / f"runs{n}.csv"
        assert main(["round", "--weights", str(js), "--n", str(n), "--out", str(out),
                     "--json", str(tmp_path / "runs.json")]) == 0
        rows = _rows(out)
        assert rows[0] == ["id", "runs"]
        got = {r[0]: int(r[1]) for r in rows[1:]}
        assert sum(got.values()) == n and min(got.values()) >= 1
        assert list(got) == [i for i in ids if i in got]
        doc = json.loads((tmp_path / "runs.json").read_text())
        assert sum(doc["counts"]) == n and doc["runs"] == [{"id": k, "runs": v}
                                                          for k, v in got.items()]
        assert "provenance" in doc


def test_round_reads_the_design_csv_and_ids_default_to_row_numbers(screen, tmp_path,
                                                                   capsys):
    path, ids, F = screen
    plain = tmp_path / "plain.csv"
    np.savetxt(plain, F, delimiter=",")
    out = tmp_path / "d.csv"
    assert main(["design", "d", "--arms", str(plain), "--model", "linear", "--out",
                 str(out)]) == 0
    rows = _rows(out)
    corners = [str(i) for i in range(9) if abs(F[i, 0]) == 1 and abs(F[i, 1]) == 1]
    assert [r[0] for r in rows[1:]] == corners  # row numbers without --id-column
    runs = tmp_path / "r.csv"
    assert main(["round", "--weights", str(out), "--n", "10", "--out", str(runs)]) == 0
    got = {r[0]: int(r[1]) for r in _rows(runs)[1:]}
    assert set(got) == set(corners) and sum(got.values()) == 10
    assert sorted(got.values()) == [2, 2, 3, 3]  # 10 runs on 4 equal weights
    capsys.readouterr()
    assert main(["round", "--weights", str(out), "--n", "10", "--out", str(tmp_path / "r.xlsx")
                 ]) == 2
    assert "--out" in capsys.readouterr().err
    assert main(["round", "--weights", str(out), "--n", "10", "--id-column", "name"]) == 2
    assert "--id-column needs --arms" in capsys.readouterr().err


def test_design_and_round_from_the_shell(screen, tmp_path):
    """The installed entry point, as a lab user types it."""
    path, ids, _ = screen
    design_csv, runs_csv = tmp_path / "design.csv", tmp_path / "runs.csv"
    cmd = [sys.executable, "-m", "bandits.cli"]
    subprocess.run([*cmd, "design", "a", "--arms", str(path), "--id-column", "name",
                    "--model", "quadratic", "--out", str(design_csv), "--json",
                    str(tmp_path / "design.json")], check=True, capture_output=True)
    proc = subprocess.run([*cmd, "round", "--weights", str(tmp_path / "design.json"), "--n",
                           "12", "--out", str(runs_csv)], check=True, capture_output=True,
                          text=True)
    assert "12 runs on" in proc.stdout
    rows = _rows(runs_csv)
    assert rows[0] == ["id", "runs"] and {r[0] for r in rows[1:]} <= set(ids)
    assert sum(int(r[1]) for r in rows[1:]) == 12
    weights = {r[0] for r in _rows(design_csv)[1:]}
    assert {r[0] for r in rows[1:]} <= weights  # runs only where the design has weight


def _screen_with_extras(tmp_path, F, ids):
    """The 3 x 3 screen with a cost column and a text notes column next to the factors."""
    path = tmp_path / "screen_extra.csv"
    costs = 1.0 + np.arange(F.shape[0]) / 10.0
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["temp", "name", "notes", "cost", "press"])
        for name, (t, p), c in zip(ids, F, costs, strict=True):
            w.writerow([t, name, f"batch {name}", c, p])
    return path, costs


def test_columns_choose_the_factors_and_ignore_other_columns(screen, tmp_path, capsys):
    """--columns names the factors: a text column and a cost column beside them are not
    regressors (without --columns the text column is refused with a message naming
    --columns); the design equals the one of the plain factor file, the corners of the
    linear model (Kiefer-Wolfowitz, as above), and the summary names them by ID."""
    _, ids, F = screen
    path, _ = _screen_with_extras(tmp_path, F, ids)
    assert main(["design", "d", "--arms", str(path), "--id-column", "name", "--model",
                 "linear", "--out", str(tmp_path / "x.csv")]) == 2
    assert "column 'notes' is not numeric" in capsys.readouterr().err
    out = tmp_path / "d.csv"
    assert main(["design", "d", "--arms", str(path), "--id-column", "name", "--columns",
                 "temp,press", "--model", "linear", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "linear model in 2 factors: 1, temp, press" in text
    corners = [ids[i] for i in range(9) if abs(F[i, 0]) == 1 and abs(F[i, 1]) == 1]
    assert [r[0] for r in _rows(out)[1:]] == corners
    assert "weight by id: " + ", ".join(f"{c} 0.25" for c in corners) in text
    assert main(["design", "d", "--arms", str(path), "--id-column", "name", "--columns",
                 "temp,pressure", "--out", str(tmp_path / "y.csv")]) == 2
    assert "--columns: no column 'pressure'" in capsys.readouterr().err


def test_columns_with_a_cost_column_keep_the_budget(screen, tmp_path, capsys):
    """With --columns, --costs may still name another column of the file: the exact design
    of 6 runs respects the total budget 6 * B exactly (costs 1.0 ... 1.8 by row), and the
    cost column is not a factor."""
    _, ids, F = screen
    path, costs = _screen_with_extras(tmp_path, F, ids)
    out = tmp_path / "e.csv"
    budget = 1.3
    assert main(["design", "d", "--arms", str(path), "--id-column", "name", "--columns",
                 "temp,press", "--model", "linear", "--exact", "6", "--costs", "cost",
                 "--budget", str(budget), "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "2 factors: 1, temp, press" in text and "runs by id: " in text
    runs = {r[0]: int(r[1]) for r in _rows(out)[1:]}
    assert sum(runs.values()) == 6
    total = sum(costs[ids.index(k)] * n for k, n in runs.items())
    assert total <= budget * 6 + 1e-12
    unconstrained = tmp_path / "u.csv"
    assert main(["design", "d", "--arms", str(path), "--id-column", "name", "--columns",
                 "temp,press", "--model", "linear", "--exact", "6",
                 "--out", str(unconstrained)]) == 0
    free = {r[0]: int(r[1]) for r in _rows(unconstrained)[1:]}
    assert sum(costs[ids.index(k)] * n for k, n in free.items()) > budget * 6  # binding


def test_round_reports_the_loss_under_the_designs_own_model(screen, tmp_path, capsys):
    """`oed round --arms` on a design JSON of a quadratic model measures the efficiency
    loss with the quadratic regressors (6 parameters), not with the two raw factor columns
    of the file (it did: a G-value about 2 instead of about 6); a CSV of weights carries no
    model and says which regressors it used."""
    from design import model_matrix
    from rounding import efficiency_loss

    path, ids, F = screen
    js = tmp_path / "q.json"
    assert main(["design", "d", "--arms", str(path), "--id-column", "name", "--model",
                 "quadratic", "--out", str(js)]) == 0
    out = tmp_path / "r.json"
    assert main(["round", "--weights", str(js), "--n", "12", "--arms", str(path),
                 "--id-column", "name", "--json", str(out), "--out",
                 str(tmp_path / "r.csv")]) == 0
    data = json.loads(out.read_text())
    w = np.asarray(json.loads(js.read_text())["weights"])
    want = efficiency_loss(model_matrix(F, "quadratic"), w, np.asarray(data["counts"]), "G")
    assert data["loss"]["model"].startswith("quadratic model in 2 factors")
    assert data["loss"]["approx_value"] == pytest.approx(want.approx_value, rel=1e-12)
    assert data["loss"]["approx_value"] >= 6 - 1e-9  # G-value >= p (Kiefer-Wolfowitz)
    # the (1 + eps) guarantee reduces the support on the design's model too: the quadratic
    # model keeps all 9 support points (on the two raw columns, Caratheodory leaves <= 3)
    assert main(["round", "--weights", str(js), "--n", "30", "--eps", "0.5", "--arms",
                 str(path), "--id-column", "name", "--json", str(out), "--out",
                 str(tmp_path / "r.csv")]) == 0
    reduced = json.loads(out.read_text())
    assert reduced["support"] == 9
    assert reduced["loss"]["model"].startswith("quadratic model")
    capsys.readouterr()


def test_round_zero_tol_drops_a_solvers_near_zero_weights(tmp_path, capsys):
    """n below the support size is refused with the smallest weights named; --zero-tol
    treats them as zero and the runs go to the other candidates."""
    wfile = tmp_path / "w.csv"
    np.savetxt(wfile, [0.25, 1e-6, 0.25, 0.25, 2e-6, 0.25 - 3e-6])
    assert main(["round", "--weights", str(wfile), "--n", "4"]) == 2
    err = capsys.readouterr().err
    assert "smallest weights: 1e-06, 2e-06" in err and "--zero-tol" in err
    assert main(["round", "--weights", str(wfile), "--n", "4", "--zero-tol", "1e-4"]) == 0
    assert json.loads(capsys.readouterr().out)["counts"] == [1, 0, 1, 1, 0, 1]


def test_round_warns_that_a_constrained_design_loses_its_constraints(screen, tmp_path,
                                                                     capsys):
    """A design computed under a budget, rounded by `oed round`, says on stderr that the
    rounding does not keep the constraints and points to the exact design; an
    unconstrained design's rounding says nothing of the kind."""
    path, ids, F = screen
    costs = ",".join(str(1.0 + i / 10) for i in range(9))
    js = tmp_path / "c.json"
    assert main(["design", "d", "--arms", str(path), "--id-column", "name", "--model",
                 "linear", "--costs", costs, "--budget", "1.3", "--out", str(js)]) == 0
    capsys.readouterr()
    assert main(["round", "--weights", str(js), "--n", "10"]) == 0
    err = capsys.readouterr().err
    assert "under constraints (linear)" in err and "--exact N" in err
    free = tmp_path / "f.json"
    assert main(["design", "d", "--arms", str(path), "--id-column", "name", "--model",
                 "linear", "--out", str(free)]) == 0
    capsys.readouterr()
    assert main(["round", "--weights", str(free), "--n", "10"]) == 0
    assert "constraints" not in capsys.readouterr().err
    # a CSV does not record the constraints: `oed design` says so when it writes one
    csv_out = tmp_path / "c.csv"
    assert main(["design", "d", "--arms", str(path), "--id-column", "name", "--model",
                 "linear", "--costs", costs, "--budget", "1.3", "--out", str(csv_out)]) == 0
    err = capsys.readouterr().err
    assert "satisfy the constraints (linear)" in err and "--exact N" in err
    assert main(["design", "d", "--arms", str(path), "--id-column", "name", "--model",
                 "linear", "--out", str(tmp_path / "f.csv")]) == 0
    assert "constraints" not in capsys.readouterr().err


def test_fixed_runs_by_id_augment_an_earlier_exact_design(screen, tmp_path, capsys):
    """Day 1: an exact design of 4 runs written as 'id,runs'; day 2: 3 more runs with
    --fixed day1.csv. The result equals the one from the same runs given as a column of
    counts per candidate, and an unknown ID is refused by name."""
    path, ids, F = screen
    day1 = tmp_path / "day1.csv"
    base = ["design", "d", "--arms", str(path), "--id-column", "name", "--model", "linear"]
    assert main([*base, "--exact", "4", "--out", str(day1)]) == 0
    runs = {r[0]: int(r[1]) for r in _rows(day1)[1:]}
    column = tmp_path / "counts.csv"
    np.savetxt(column, [runs.get(i, 0) for i in ids], fmt="%d")
    by_id, by_column = tmp_path / "a.json", tmp_path / "b.json"
    assert main([*base, "--exact", "3", "--fixed", str(day1), "--out", str(by_id)]) == 0
    assert main([*base, "--exact", "3", "--fixed", str(column), "--out", str(by_column)]) == 0
    a, b = (json.loads(p.read_text()) for p in (by_id, by_column))
    assert a["counts"] == b["counts"] and sum(a["counts"]) == 3
    assert a["value"] == pytest.approx(b["value"], rel=1e-12)
    bad = tmp_path / "bad.csv"
    bad.write_text("id,runs\nnope,1\n")
    capsys.readouterr()
    assert main([*base, "--exact", "3", "--fixed", str(bad)]) == 2
    assert "unknown ID(s) ['nope']" in capsys.readouterr().err
    # the file may name its ID column as the candidates' --id-column does ('name,runs');
    # another name is refused by name (it used to be read as a numeric matrix and refused so)
    named = tmp_path / "named.csv"
    named.write_text(day1.read_text().replace("id,runs", "name,runs", 1))
    by_name = tmp_path / "c.json"
    assert main([*base, "--exact", "3", "--fixed", str(named), "--out", str(by_name)]) == 0
    assert json.loads(by_name.read_text())["counts"] == a["counts"]
    other = tmp_path / "other.csv"
    other.write_text(day1.read_text().replace("id,runs", "site,runs", 1))
    capsys.readouterr()
    assert main([*base, "--exact", "3", "--fixed", str(other)]) == 2
    assert "its header is 'site','runs'" in capsys.readouterr().err


def test_run_sheets_carry_settings_and_read_back(screen, tmp_path, capsys):
    """`oed round --arms` of a design with a model writes the settings too; a run sheet
    (id,runs,settings...) is read back as --fixed, and refused as --weights with a message
    saying what it is; a matrix of several columns is refused as weights."""
    path, ids, F = screen
    js, runs = tmp_path / "d.json", tmp_path / "runs.csv"
    assert main(["design", "d", "--arms", str(path), "--id-column", "name", "--model",
                 "quadratic", "--out", str(js)]) == 0
    assert main(["round", "--weights", str(js), "--n", "9", "--arms", str(path),
                 "--id-column", "name", "--out", str(runs)]) == 0
    rows = _rows(runs)
    assert rows[0] == ["id", "runs", "temp", "press"]
    for r in rows[1:]:
        assert [float(v) for v in r[2:]] == F[ids.index(r[0])].tolist()
    more = tmp_path / "more.json"
    assert main(["design", "d", "--arms", str(path), "--id-column", "name", "--model",
                 "quadratic", "--exact", "3", "--fixed", str(runs), "--out", str(more)]) == 0
    assert sum(json.loads(more.read_text())["counts"]) == 3
    capsys.readouterr()
    assert main(["round", "--weights", str(runs), "--n", "10"]) == 2
    assert "holds runs ('id,runs'" in capsys.readouterr().err
    matrix = tmp_path / "m.csv"
    np.savetxt(matrix, F[:3], delimiter=",")
    assert main(["round", "--weights", str(matrix), "--n", "10"]) == 2
    assert "has 3 rows of 2 columns; weights are one column" in capsys.readouterr().err


def test_exact_search_options_and_flags_that_need_exact(screen, tmp_path, capsys):
    """--seed, --restarts and --ils-rounds reach design.exact (the CLI's design equals the
    call's); without --exact they, and --bin, are refused by name (--bin was ignored by an
    unconstrained G/D design)."""
    import design

    path, ids, F = screen
    base = ["design", "d", "--arms", str(path), "--id-column", "name", "--model", "linear"]
    out = tmp_path / "e.json"
    assert main([*base, "--exact", "5", "--seed", "4", "--restarts", "2", "--ils-rounds",
                 "0", "--out", str(out)]) == 0
    ref = design.exact(design.regressors(F, "linear").X, 5, "d", seed=4, restarts=2,
                       ils_rounds=0)
    assert json.loads(out.read_text())["counts"] == ref.counts.tolist()
    for flag, value in (("--seed", "4"), ("--restarts", "2"), ("--ils-rounds", "0"),
                        ("--bin", None)):
        capsys.readouterr()
        args = [*base, flag] + ([] if value is None else [value])
        assert main(args) == 2
        assert f"{flag} is for exact designs (with --exact N)" in capsys.readouterr().err
