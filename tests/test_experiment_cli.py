"""The lab scenario of issue 14 end to end through the ``oed experiment`` command line: a
generated 30-compound CSV with an ID column and 8 features, top 3 at delta = 0.05, daily
batches of 10, the state file read and rewritten by every call, until the stopping rule
holds; the recommended IDs must be the true top 3."""

from __future__ import annotations

import csv
import json
import subprocess
import sys

import numpy as np
import pytest

from bandits.cli import main

#: The screen's baseline response (the intercept): a lab's responses are not centred at 0.
BASELINE = 3.0


def _screen(tmp_path):
    """The candidate file, IDs, features and the true parameter of the model the
    experiment fits by default (intercept first: the features do not span a constant),
    so that the true means are ``[1, X] @ theta``."""
    rng = np.random.default_rng(14)
    X = rng.normal(size=(30, 8))
    theta = np.r_[BASELINE, rng.normal(size=8)]
    ids = [f"CMP-{i:03d}" for i in range(30)]
    path = tmp_path / "screen.csv"
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["name", *[f"f{j}" for j in range(8)]])
        for i in range(30):
            w.writerow([ids[i], *[repr(float(v)) for v in X[i]]])
    return path, ids, np.c_[np.ones(30), X], theta


def _fill_in(sheet, names, ids, means, rng) -> None:
    """The lab measures ``names`` (in this order) and writes an id,reward sheet:
    the true mean plus standard normal noise."""
    with sheet.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "reward"])
        for name in names:
            w.writerow([name, means[ids.index(name)] + rng.standard_normal()])


def _days_until_stop(tmp_path, state, ids, means, rng, per_day, days, capsys) -> str:
    """Daily batches of ``per_day`` (ask, the lab's results, tell) until `tell` reports
    the stop or ``days`` have passed; returns the last `tell` output."""
    told = ""
    for day in range(days):
        sheet = tmp_path / f"day{day}.csv"
        _oed("experiment", "ask", "--n", str(per_day), "--out", str(sheet), "--state", state,
             capsys=capsys)
        _fill_in(sheet, [r[0] for r in list(csv.reader(sheet.open()))[1:]], ids, means, rng)
        told = _oed("experiment", "tell", str(sheet), "--state", state, capsys=capsys)
        if "stopped after" in told:
            break
    return told


def _oed(*argv: str, capsys) -> str:
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def test_lab_screen_end_to_end(tmp_path, capsys) -> None:
    path, ids, X, theta = _screen(tmp_path)
    means = X @ theta
    truth = sorted(ids[a] for a in np.argsort(-means)[:3])
    state = str(tmp_path / "screen.json")
    S = f"{np.linalg.norm(theta) * 1.5:.3f}"  # a generous bound on ||theta||
    _oed("experiment", "new", "--arms", str(path), "--id-column", "name", "--algorithm",
         "m-lingape", "--m", "3", "--delta", "0.05", "--sigma", "1", "--S", S,
         "--state", state, capsys=capsys)
    rng = np.random.default_rng(0)
    told = 0
    for day in range(200):
        sheet = tmp_path / f"day{day}.csv"
        _oed("experiment", "ask", "--n", "10", "--out", str(sheet), "--state", state,
             capsys=capsys)
        rows = list(csv.reader(sheet.open()))
        # 10 a day; fewer only when the look-ahead predicts that the stopping rule holds
        # with the day's results (docs/choices.md, "Batches")
        assert rows[0] == ["id", "reward"] and 2 <= len(rows) <= 11
        told += len(rows) - 1
        _fill_in(sheet, [r[0] for r in rows[1:]], ids, means, rng)  # the lab's results
        _oed("experiment", "tell", str(sheet), "--state", state, capsys=capsys)
        st = json.loads(_oed("experiment", "status", "--json", "--simulations", "2",
                             "--state", state, capsys=capsys))
        if st["stopped"]:
            break
    assert st["stopped"] and st["stopped_by"] == "rule"
    assert st["best"] == truth
    assert told - 10 < st["samples"] <= told  # results after the stop are kept, unused
    # the shell entry point itself, on the final state
    out = subprocess.run([sys.executable, "-m", "bandits.cli", "experiment", "status",
                          "--state", state], capture_output=True, text=True, check=True)
    assert "holds" in out.stdout and ", ".join(truth) in out.stdout
    # the lab asks again after the stop: a clear error naming the certified set, and the
    # state file is left as it was (it was a RuntimeError traceback)
    before = (tmp_path / "screen.json").read_text()
    assert main(["experiment", "ask", "--n", "10", "--state", state]) == 2
    err = capsys.readouterr().err
    assert "has stopped (the stopping rule holds: the set is certified" in err
    assert ", ".join(truth) in err
    assert main(["experiment", "tell", str(sheet), "--state", state]) == 2
    assert "has stopped" in capsys.readouterr().err
    assert (tmp_path / "screen.json").read_text() == before


def test_experiment_errors_name_the_problem(tmp_path, capsys) -> None:
    path, ids, X, theta = _screen(tmp_path)
    state = str(tmp_path / "s.json")
    assert main(["experiment", "new", "--arms", str(path), "--state", state]) == 2
    assert "column 'name' is not numeric" in capsys.readouterr().err
    _oed("experiment", "new", "--arms", str(path), "--id-column", "name", "--m", "3",
         "--threshold", "heuristic", "--state", state, capsys=capsys)
    assert main(["experiment", "new", "--arms", str(path), "--id-column", "name",
                 "--state", state]) == 2
    assert "exists" in capsys.readouterr().err
    bad = tmp_path / "r.csv"
    bad.write_text("id,reward\nNOPE,1.0\n")
    assert main(["experiment", "tell", str(bad), "--state", state]) == 2
    assert "unknown ID" in capsys.readouterr().err
    bad.write_text(f"id,reward\n{ids[0]},1.0\n")
    assert main(["experiment", "tell", str(bad), "--state", state]) == 2
    assert "without a pending ask" in capsys.readouterr().err
    # observe takes it (a warm start), and partial sheets skip empty rewards
    _oed("experiment", "observe", str(bad), "--state", state, capsys=capsys)
    asked = _oed("experiment", "ask", "--n", "4", "--state", state, capsys=capsys).split()
    bad.write_text(f"id,reward\n{asked[2]},0.5\n{asked[0]},\n")
    assert "1 results taken" in _oed("experiment", "tell", str(bad), "--state", state,
                                     capsys=capsys)
    st = json.loads(_oed("experiment", "status", "--json", "--state", state, capsys=capsys))
    assert st["samples"] == 2 and sorted(st["outstanding"]) == sorted(
        [asked[0], asked[1], asked[3]])


@pytest.mark.parametrize(("algorithm", "m", "proven"), [
    ("m-lingape", "3", "theoretical"), ("lingape", "1", "lingape"), ("lucb", "1", "lucb1")])
def test_plan_shows_the_proven_and_the_heuristic_threshold(tmp_path, capsys, algorithm, m,
                                                           proven) -> None:
    """The plan simulates the algorithm's own proven threshold (LinGapE's, LUCB1 for LUCB:
    the theoretical one needs a ridge, which an unstructured algorithm has not, and was
    refused) next to the heuristic one, and says what each guarantees."""
    path, ids, X, theta = _screen(tmp_path)
    args = ("experiment", "plan", "--arms", str(path), "--id-column", "name",
            "--theta=" + ",".join(repr(float(t)) for t in theta), "--m", m, "--runs", "3",
            "--algorithm", algorithm)
    out = json.loads(_oed(*args, "--json", capsys=capsys))
    sims = out["simulations"]
    assert set(sims) == {proven, "heuristic"} == set(out["guarantees"])
    assert sims["heuristic"]["median"] < sims[proven]["median"]
    assert out["top"] == [ids[a] for a in np.argsort(-(X @ theta))[:int(m)]]
    assert "by proof" in out["guarantees"][proven]
    assert "no proof" in out["guarantees"]["heuristic"]


def test_run_and_complexity_on_the_users_own_file(tmp_path, capsys) -> None:
    """`oed run` / `oed complexity` take --arms with IDs and --theta or --means; the
    recommendation is printed by ID."""
    p = tmp_path / "arms.csv"
    p.write_text("name,f1,f2\nA,1,0\nB,0,1\nC,0.7,0.7\nD,-1,0.2\n")
    out = json.loads(_oed("run", "m-lingape", "--arms", str(p), "--id-column", "name",
                          "--theta", "1,0.2", "--S", "2", "--json", capsys=capsys))
    assert out["best"] == [0] and out["recommendation_ids"] == ["A"]
    out = json.loads(_oed("complexity", "--arms", str(p), "--id-column", "name", "--means",
                          "1,0.5,0.9,0", "--json", capsys=capsys))
    gap = out["Reda et al. (2021) Table 2"]["gap"]
    assert gap == pytest.approx(0.1)  # mu_(1) - mu_(2) of the given means
    assert main(["run", "lucb", "--arms", str(p), "--id-column", "name"]) == 2
    assert "exactly one" in capsys.readouterr().err
    assert main(["run", "lucb", "--arms", str(p), "--id-column", "name",
                 "--theta", "1,2,3"]) == 2
    assert "3 values for 2 feature columns" in capsys.readouterr().err


def test_user_instance_with_a_model(tmp_path, capsys) -> None:
    """`oed run --arms --theta` simulates the model `oed experiment` fits: --intercept adds
    the baseline (theta's first value), --model a response surface; the means are exactly
    [1, F] theta; --model with --means is refused."""
    p = tmp_path / "arms.csv"
    p.write_text("name,f1,f2\nA,1,0\nB,0,1\nC,0.7,0.7\nD,-1,0.2\n")
    out = json.loads(_oed("run", "m-lingape", "--arms", str(p), "--id-column", "name",
                          "--theta", "5,1,0.2", "--intercept", "--threshold", "heuristic",
                          "--json", capsys=capsys))
    assert out["recommendation_ids"] == ["A"]  # means 6, 5.2, 5.84, 4.04
    assert main(["run", "m-lingape", "--arms", str(p), "--id-column", "name",
                 "--theta", "5,1,0.2"]) == 2
    assert "with an intercept (the baseline first), pass --intercept" in \
        capsys.readouterr().err
    assert main(["run", "lucb", "--arms", str(p), "--id-column", "name", "--model",
                 "quadratic", "--theta", "1,2"]) == 2
    assert "quadratic model has 5 terms and there are only 4 candidates" in \
        capsys.readouterr().err
    grid = tmp_path / "grid.csv"
    grid.write_text("f1,f2\n" + "".join(f"{a},{b}\n" for a in (-1, 0, 1) for b in (-1, 0, 1)))
    assert main(["run", "lucb", "--arms", str(grid), "--model", "quadratic",
                 "--theta", "1,2"]) == 2
    assert "2 values for 6 terms ['1', 'f1', 'f2', 'f1*f2', 'f1^2', 'f2^2'] of the model" \
        in capsys.readouterr().err
    assert main(["run", "lucb", "--arms", str(p), "--id-column", "name", "--means",
                 "1,2,3,4", "--intercept"]) == 2
    assert "--model/--intercept/--coded go with --theta" in capsys.readouterr().err


def test_lab_screen_with_lingame_best_compound(tmp_path, capsys) -> None:
    """The same shell workflow with LinGame (batches by look-ahead, issue 14): daily
    batches of 10 until the GLR rule holds, on the best compound of the screen."""
    path, ids, X, theta = _screen(tmp_path)
    means = X @ theta
    state = str(tmp_path / "game.json")
    _oed("experiment", "new", "--arms", str(path), "--id-column", "name", "--algorithm",
         "lingame", "--delta", "0.05", "--sigma", "1", "--threshold", "heuristic",
         "--state", state, capsys=capsys)
    rng = np.random.default_rng(1)
    for day in range(300):
        sheet = tmp_path / f"g{day}.csv"
        _oed("experiment", "ask", "--n", "10", "--out", str(sheet), "--state", state,
             capsys=capsys)
        rows = list(csv.reader(sheet.open()))
        assert rows[0] == ["id", "reward"] and 2 <= len(rows) <= 11
        # results in another order
        _fill_in(sheet, [r[0] for r in rows[1:]][::-1], ids, means, rng)
        _oed("experiment", "tell", str(sheet), "--state", state, capsys=capsys)
        st = json.loads(_oed("experiment", "status", "--json", "--simulations", "2",
                             "--state", state, capsys=capsys))
        if st["stopped"]:
            break
    assert st["stopped"] and st["stopped_by"] == "rule"
    assert st["best"] == [ids[int(np.argmax(means))]]


def _ab_variants(tmp_path):
    """Twelve page variants by three coded factors (none spans a constant), with a
    baseline response of 5 and a negative effect: without an intercept the least-squares
    fit forces v00's mean to 0, the baseline leaks into every effect and v11 (largest
    features) looks best; the true best is v07."""
    import itertools

    F = np.array(list(itertools.product([0, 1], [0, 1, 2], [0, 1])), dtype=float)
    ids = [f"v{i:02d}" for i in range(len(F))]
    p = tmp_path / "variants.csv"
    with p.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["variant", "color", "layout", "copy"])
        for i, row in zip(ids, F, strict=True):
            w.writerow([i, *[int(v) for v in row]])
    means = 5.0 + F @ np.array([0.3, -0.1, 0.5])
    return p, ids, means


def test_experiment_fits_an_intercept_when_the_features_have_none(tmp_path, capsys) -> None:
    """A response with a baseline: `new` adds the intercept (the features do not span a
    constant), says so, the state and `status` record the model, and the certified
    recommendation is the true best variant; one-hot features get no intercept, and
    forcing one onto them is refused by name."""
    p, ids, means = _ab_variants(tmp_path)
    truth = ids[int(np.argmax(means))]
    assert truth == "v07"
    state = str(tmp_path / "ab.json")
    out = _oed("experiment", "new", "--arms", str(p), "--id-column", "variant", "--sigma",
               "1", "--threshold", "heuristic", "--state", state, capsys=capsys)
    assert "plus an intercept; terms 1, color, layout, copy" in out
    told = _days_until_stop(tmp_path, state, ids, means, np.random.default_rng(3), 20, 400,
                            capsys)
    # the heuristic threshold has no proof: the stop is not called certified
    assert ("(the stopping rule holds with the heuristic threshold: no proof that "
            f"P(wrong set) <= delta); recommended: {truth}") in told
    st = json.loads(_oed("experiment", "status", "--json", "--state", state, capsys=capsys))
    assert st["best"] == [truth] and st["model"].endswith("plus an intercept")
    assert st["heuristic"] and st["stopped"]
    assert "stopping rule    holds with the heuristic threshold" in _oed(
        "experiment", "status", "--state", state, capsys=capsys)
    # one-hot features already span the constant: nothing is added
    onehot = tmp_path / "onehot.csv"
    onehot.write_text("id,a,b,c\nA,1,0,0\nB,0,1,0\nC,0,0,1\n")
    out = _oed("experiment", "new", "--arms", str(onehot), "--id-column", "id", "--sigma",
               "1", "--threshold", "heuristic", "--state", str(tmp_path / "oh.json"),
               capsys=capsys)
    assert "no intercept added (the constant is in their span); terms a, b, c" in out
    assert main(["experiment", "new", "--arms", str(onehot), "--id-column", "id",
                 "--intercept", "--state", str(tmp_path / "oh2.json")]) == 2
    err = capsys.readouterr().err
    assert "--intercept" in err and "rank-deficient" in err
    # plan: one value per term, the terms named when the count is wrong
    assert main(["experiment", "plan", "--arms", str(p), "--id-column", "variant",
                 "--theta", "0.3,-0.1,0.5"]) == 2
    err = capsys.readouterr().err
    assert "3 values for the 4 terms ['1', 'color', 'layout', 'copy']" in err
    out = json.loads(_oed("experiment", "plan", "--arms", str(p), "--id-column", "variant",
                          "--theta", "5,0.3,-0.1,0.5", "--m", "1",
                          "--runs", "2", "--json", capsys=capsys))
    assert out["top"] == [truth] and out["model"].endswith("plus an intercept")
    # a response-surface model on the factors: the interactions are terms too
    assert main(["experiment", "plan", "--arms", str(p), "--id-column", "variant",
                 "--model", "interactions", "--theta", "1"]) == 2
    assert ("1 values for the 7 terms ['1', 'color', 'layout', 'copy', 'color*layout', "
            "'color*copy', 'layout*copy']") in capsys.readouterr().err


def test_budget_stop_is_said_not_certified(tmp_path, capsys) -> None:
    """--max-samples: tell says the run ended by its budget, not certified, with the best
    set so far (never 'recommended'); ask afterwards is refused saying the same."""
    p, ids, means = _ab_variants(tmp_path)
    state = str(tmp_path / "b.json")
    _oed("experiment", "new", "--arms", str(p), "--id-column", "variant", "--threshold",
         "heuristic", "--max-samples", "30", "--state", state, capsys=capsys)
    sheet = tmp_path / "s.csv"
    _oed("experiment", "ask", "--n", "50", "--out", str(sheet), "--state", state,
         capsys=capsys)
    rows = list(csv.reader(sheet.open()))[1:]
    assert len(rows) == 30  # the batch is cut at the budget
    rng = np.random.default_rng(0)
    _fill_in(sheet, [r[0] for r in rows], ids, means, rng)
    out = _oed("experiment", "tell", str(sheet), "--state", state, capsys=capsys)
    assert "stopped after 30 samples (the run ended by its budget, not certified); best " \
           "so far: " in out and "recommended" not in out
    assert main(["experiment", "ask", "--state", state]) == 2
    err = capsys.readouterr().err
    assert "ended by its budget, not certified); best so far:" in err


def test_ill_conditioned_model_is_refused_and_coded_units_work(tmp_path, capsys) -> None:
    """A quadratic in raw kelvin (condition number 5.9e7) is refused at `new` with the
    remedy; with --coded the same model is built on coded factors, `new` prints the
    coding, and the screen certifies the true best condition."""
    import itertools

    F = list(itertools.product([293.15, 303.15, 313.15, 323.15, 333.15], [5.0, 6.0, 7.0]))
    ids = [f"c{i:02d}" for i in range(len(F))]
    p = tmp_path / "cond.csv"
    p.write_text("cond,temp_K,pH\n" + "".join(f"{i},{t},{h}\n" for i, (t, h) in
                                               zip(ids, F, strict=True)))
    Fa = np.array(F)
    means = 50 - 0.02 * (Fa[:, 0] - 318) ** 2 - 3 * (Fa[:, 1] - 6.6) ** 2
    state = str(tmp_path / "k.json")
    base = ["experiment", "new", "--arms", str(p), "--id-column", "cond", "--model",
            "quadratic", "--threshold", "heuristic", "--state", state]
    assert main(base) == 2
    err = capsys.readouterr().err
    assert "condition number is" in err and "--coded" in err
    out = _oed(*base, "--coded", capsys=capsys)
    assert "factors coded to [-1, 1]: temp_K = 313.15 + 20 * coded, pH = 6 + 1 * coded" in out
    told = _days_until_stop(tmp_path, state, ids, means, np.random.default_rng(5), 200, 60,
                            capsys)
    assert f"<= delta); recommended: {ids[int(np.argmax(means))]}" in told


def test_status_of_an_unstructured_algorithm_ranks_by_each_arms_own_mean(tmp_path,
                                                                          capsys) -> None:
    """LUCB estimates each arm's mean on its own (its features are the identity): the
    status's best arm is the arm with the largest mean reward, and the remaining-samples
    prediction simulates on those means (the features have 8 columns, the means 30)."""
    path, ids, X, theta = _screen(tmp_path)
    state = str(tmp_path / "lucb.json")
    _oed("experiment", "new", "--arms", str(path), "--id-column", "name", "--algorithm",
         "lucb", "--delta", "0.05", "--sigma", "1", "--state", state, capsys=capsys)
    sheet = tmp_path / "day0.csv"
    _oed("experiment", "ask", "--n", "30", "--out", str(sheet), "--state", state,
         capsys=capsys)
    names = [r[0] for r in list(csv.reader(sheet.open()))[1:]]
    rewards = {name: float(i) for i, name in enumerate(names)}  # the last asked is best
    with sheet.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "reward"])
        for name in names:
            w.writerow([name, rewards[name]])
    _oed("experiment", "tell", str(sheet), "--state", state, capsys=capsys)
    st = json.loads(_oed("experiment", "status", "--json", "--simulations", "2",
                         "--state", state, capsys=capsys))
    assert len(names) == 30 and st["best"] == [names[-1]]
    assert st["remaining"] is not None and st["remaining"] >= 0


def test_an_ab_test_from_a_file_of_ids_only(tmp_path, capsys) -> None:
    """The variants of an A/B/n test have no features: a file of IDs only gives one-hot
    arms (each variant its own mean). Conversions (0/1, sigma = 0.5 bounds their noise)
    with clear gaps: the experiment certifies the truly best variant; a model option on
    such a file is refused by name."""
    from bandits import experiment

    path = tmp_path / "variants.csv"
    path.write_text("variant\nA\nB\nC\nD\n")
    rates = {"A": 0.3, "B": 0.6, "C": 0.35, "D": 0.2}
    state = tmp_path / "ab.json"
    out = _oed("experiment", "new", "--arms", str(path), "--id-column", "variant",
               "--algorithm", "lucb", "--sigma", "0.5", "--state", str(state), capsys=capsys)
    assert "one-hot: each of the 4 arms its own mean" in out
    rng = np.random.default_rng(1)
    for day in range(100):
        sheet = tmp_path / f"day{day}.csv"
        names = experiment.ask(state, 100)
        with sheet.open("w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["id", "reward"])
            for name in names:
                w.writerow([name, int(rng.random() < rates[name])])
        told = experiment.tell(state, sheet)
        if told.stopped_by:
            break
    assert told.stopped_by == "rule" and told.recommended == ["B"]
    st = experiment.status(state)
    assert st.stopped and st.best == ["B"]
    assert main(["experiment", "new", "--arms", str(path), "--id-column", "variant",
                 "--model", "linear", "--state", str(tmp_path / "x.json")]) == 2
    assert "--model/--intercept/--coded: the arms file has IDs only" in capsys.readouterr().err


def test_a_lost_batch_is_cancelled_and_asked_again(tmp_path, capsys) -> None:
    """A plate is dropped: `cancel SHEET` withdraws its measurements (nothing is learnt),
    and the next `ask` asks the planned ones again; the experiment goes on. A sheet row
    with a reward is refused (tell it instead), so is an ID that is not outstanding."""
    path, ids, X, theta = _screen(tmp_path)
    state = str(tmp_path / "s.json")
    _oed("experiment", "new", "--arms", str(path), "--id-column", "name", "--threshold",
         "heuristic", "--state", state, capsys=capsys)
    lost, again = tmp_path / "lost.csv", tmp_path / "again.csv"
    _oed("experiment", "ask", "--n", "10", "--out", str(lost), "--state", state,
         capsys=capsys)
    first = [r[0] for r in list(csv.reader(lost.open()))[1:]]
    out = _oed("experiment", "cancel", str(lost), "--state", state, capsys=capsys)
    assert out.startswith("10 outstanding measurements withdrawn")
    st = json.loads(_oed("experiment", "status", "--json", "--state", state, capsys=capsys))
    assert st["samples"] == 0 and st["outstanding"] == []
    _oed("experiment", "ask", "--n", "10", "--out", str(again), "--state", state,
         capsys=capsys)
    assert [r[0] for r in list(csv.reader(again.open()))[1:]] == first
    _fill_in(again, first, ids, X @ theta, np.random.default_rng(0))
    assert main(["experiment", "cancel", str(again), "--state", state]) == 2
    assert "has a reward; tell it" in capsys.readouterr().err
    assert "10 results taken" in _oed("experiment", "tell", str(again), "--state", state,
                                      capsys=capsys)
    assert main(["experiment", "cancel", str(lost), "--state", state]) == 2
    assert "is not an outstanding measurement" in capsys.readouterr().err
    assert main(["experiment", "cancel", "--all", "--state", state]) == 0
    assert "0 outstanding measurements withdrawn" in capsys.readouterr().out


def test_plan_refuses_tied_theta_and_says_when_runs_hit_the_budget(tmp_path, capsys) -> None:
    """A plausible theta that ties the top-m boundary is refused by name (no budget could
    separate the tied candidates); runs that reach --max-samples are counted and said to
    be a lower bound, not reported as a predicted budget."""
    grid = tmp_path / "grid.csv"  # symmetric settings: theta (1, 1, 1) ties A and B
    grid.write_text("id,x,y\nA,1,0\nB,0,1\nC,0.5,0.25\nD,0,0\n")
    assert main(["experiment", "plan", "--arms", str(grid), "--id-column", "id",
                 "--theta", "1,1,1"]) == 2
    err = capsys.readouterr().err
    assert "top-1 set is not unique: A, B share the mean 2" in err
    path, ids, X, theta = _screen(tmp_path)
    out = json.loads(_oed("experiment", "plan", "--arms", str(path), "--id-column", "name",
                          "--theta=" + ",".join(repr(float(t)) for t in theta), "--m", "3",
                          "--runs", "2", "--max-samples", "50", "--json", capsys=capsys))
    sims = out["simulations"]
    assert sims["theoretical"]["budget_hit"] == 2 and sims["theoretical"]["min"] == 50
    # the heuristic threshold stops both runs before 50 samples: nothing to report there
    assert sims["heuristic"]["budget_hit"] == 0 and sims["heuristic"]["max"] < 50
    text = _oed("experiment", "plan", "--arms", str(path), "--id-column", "name",
                "--theta=" + ",".join(repr(float(t)) for t in theta), "--m", "3",
                "--runs", "2", "--max-samples", "50", capsys=capsys)
    assert "median >=" in text and "2 of 2 runs reached the simulation budget of 50" in text


def test_highs_banner_does_not_reach_the_output(capfd) -> None:
    """highspy prints its banner ("Running HiGHS ...") on constructing a solver, before
    any option can be set; the l1 weights of all pairs (oed complexity, experiment plan)
    must not put it into the user's output."""
    pytest.importorskip("highspy")
    from design.complexity import l1_weights_all_pairs

    X = np.random.default_rng(0).normal(size=(6, 3))
    l1_weights_all_pairs(X, method="highspy")
    assert "HiGHS" not in capfd.readouterr().out


def test_status_before_the_model_is_determined_says_it_is_a_guess(tmp_path, capsys) -> None:
    """With fewer measured candidates than the model's 9 parameters the fit is the
    minimum-norm solution: `status` calls its best set a guess and predicts nothing (a
    simulation on that theta would be a number with no basis); once the measurements
    determine the model, both come back."""
    path, ids, X, theta = _screen(tmp_path)
    state = str(tmp_path / "s.json")
    _oed("experiment", "new", "--state", state, "--arms", str(path), "--id-column", "name",
         "--m", "3", "--S", "5", capsys=capsys)
    sheet = tmp_path / "hist.csv"
    rng = np.random.default_rng(3)
    _fill_in(sheet, ids[:4], ids, X @ theta, rng)
    _oed("experiment", "observe", str(sheet), "--state", state, capsys=capsys)
    out = _oed("experiment", "status", "--state", state, capsys=capsys)
    assert "(a guess: the measurements do not determine the model yet" in out
    assert "unknown (not yet estimable: the 4 measurements do not determine the model's 9 " \
           "parameters" in out
    _fill_in(sheet, ids[4:20], ids, X @ theta, rng)
    _oed("experiment", "observe", str(sheet), "--state", state, capsys=capsys)
    out = _oed("experiment", "status", "--state", state, capsys=capsys)
    assert "a guess" not in out and "not yet estimable" not in out
