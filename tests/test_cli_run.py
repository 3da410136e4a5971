"""The ``oed run`` and ``oed replicate`` subcommands."""

import json

import numpy as np
import pytest

from bandits import ReplicationTable, replicate, run
from bandits.cli import main, parse_algorithm, parse_number
from bandits.instances import get_instance

PI3 = ["--instance", "reda-classic", "--param", "omega=pi/3"]


def test_run_prints_the_result_of_bandits_run(capsys):
    assert main(["run", "m-lingape", *PI3, "--seed", "2"]) == 0
    out = capsys.readouterr().out
    ref = run("m-lingape", get_instance("reda-classic", omega=np.pi / 3), seed=2)
    assert f"samples         {ref.samples:,}" in out
    assert "stopped_by      rule" in out
    assert f"counts          {ref.counts.tolist()}" in out
    assert "true top-2: [0, 1]" in out


def test_run_json_with_rule_overrides(capsys):
    args = ["run", "lingifa:stopping=lucb", *PI3, "--selection", "greedy", "--seed", "5",
            "--delta", "0.1", "--json"]
    assert main(args) == 0
    data = json.loads(capsys.readouterr().out)
    ref = run("lingifa", get_instance("reda-classic", omega=np.pi / 3), seed=5, delta=0.1,
              stopping="lucb", selection="greedy")
    assert data["algorithm"] == ref.algorithm == "lingifa(selection=greedy,stopping=lucb)"
    assert data["samples"] == ref.samples and data["counts"] == ref.counts.tolist()
    assert data["recommendation"] == data["best"] == [0, 1]


def test_an_algorithm_assuming_less_noise_than_simulated_is_noted(capsys):
    # reda-classic has sigma = 0.5: --sigma 0.1 makes the algorithm assume less noise than
    # the simulation draws (its delta guarantee is void), which is said on stderr; an
    # assumed sigma at or above the noise is not noted.
    noise = get_instance("reda-classic", omega=np.pi / 3).sigma
    assert main(["run", "m-lingape", *PI3, "--sigma", str(noise / 5)]) == 0
    err = capsys.readouterr().err
    assert f"m-lingape assumes noise sigma = {noise / 5:g}, below the simulated noise " \
        f"{noise:g}" in err and "delta guarantee does not hold" in err
    assert main(["replicate", "m-lingape", "lingifa", *PI3, "--sigma", str(noise), "--runs",
                 "2", "--no-progress"]) == 0
    assert "note:" not in capsys.readouterr().err
    # the same for a bound S below the instance's ||theta|| (the theoretical threshold's
    # bias term): noted; S at the norm is not
    norm = float(np.linalg.norm(get_instance("reda-classic", omega=np.pi / 3).theta))
    assert main(["run", "m-lingape", *PI3, "--S", str(norm / 2)]) == 0
    err = capsys.readouterr().err
    assert f"m-lingape assumes ||theta|| <= S = {norm / 2:g}, below the instance's " \
        f"||theta|| = {norm:.4g}" in err
    assert main(["run", "m-lingape", *PI3, "--S", str(norm)]) == 0
    assert "note:" not in capsys.readouterr().err


def test_run_budget_and_instance_parameters(capsys):
    assert main(["run", "m-lingape", "--instance", "reda-classic", "--param", "K=3",
                 "--m", "1", "--param", "omega=0.1", "--max-samples", "50"]) == 0
    out = capsys.readouterr().out
    assert "samples         50" in out and "budget spent" in out
    assert "reda_classic(K=3, m=1, omega=0.1)" in out


def test_replicate_summary_table_and_files(tmp_path, capsys):
    out_csv, out_png = tmp_path / "r.csv", tmp_path / "r.png"
    args = ["replicate", "m-lingape", "lucb:selection=both", *PI3, "--runs", "6",
            "--jobs", "1", "--out", str(out_csv), "--plot", str(out_png)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "m-lingape " in out and "lucb(selection=both)" in out and "error" in out
    table = ReplicationTable.read_csv(out_csv)
    ref = replicate(["m-lingape", ("lucb(selection=both)", "lucb", {"selection": "both"})],
                    get_instance("reda-classic", omega=np.pi / 3), 6, backend="serial")
    assert table.equals(ref, wall_time=False)
    assert out_png.read_bytes()[:4] == b"\x89PNG"
    mean = ref.summary()["m-lingape"]["mean"]
    assert f"{mean:.1f}" in out


def test_replicate_json_and_seeds(tmp_path, capsys):
    out_json = tmp_path / "r.json"
    assert main(["replicate", "m-lingape", *PI3, "--runs", "4", "--first-seed", "10",
                 "--backend", "serial", "--json", "--out", str(out_json)]) == 0
    summ = json.loads(capsys.readouterr().out)
    assert summ[0]["algorithm"] == "m-lingape" and summ[0]["runs"] == 4
    table = ReplicationTable.read_json(out_json)
    assert table["seed"].tolist() == [10, 11, 12, 13]
    assert summ[0]["mean"] == pytest.approx(table["samples"].mean())


@pytest.mark.parametrize("args, message", [
    (["run", "m-lingape", "--instance", "nope"], "unknown instance 'nope'; known: soare"),
    (["run", "nope", "--instance", "reda-classic"], "unknown algorithm 'nope'"),
    (["run", "m-lingape:foo=1", "--instance", "reda-classic"], "unknown option"),
    (["run", "m-lingape:selection", "--instance", "reda-classic"], "KEY=VALUE"),
    (["run", "m-lingape", "--instance", "reda-classic", "--param", "omega"], "KEY=VALUE"),
    (["run", "m-lingape", "--instance", "soare", "--m", "2"], "m: not a parameter"),
    (["run", "m-lingape", "--instance", "reda-classic", "--delta", "2"], "delta"),
    (["replicate", "m-lingape", "--instance", "reda-classic", "--runs", "0"], "--runs"),
    (["replicate", "m-lingape", "m-lingape", "--instance", "reda-classic", "--runs", "2"],
     "duplicate"),
    (["replicate", "m-lingape", "--instance", "reda-classic", "--jobs", "0"], "--jobs"),
    (["replicate", "m-lingape", "--instance", "reda-classic", "--out", "/no/such/dir/r.csv"],
     "--out"),
])
def test_bad_input_exits_2_with_a_message(args, message, capsys):
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("oed: error: ") and message in err


def test_argparse_errors_exit_2_with_one_line(capsys):
    assert main(["replicate", "m-lingape", "--instance", "reda-classic",
                 "--backend", "threads"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("oed: error: replicate: argument --backend") and err.count("\n") == 1
    assert main(["run", "m-lingape"]) == 2  # --instance is required
    assert "--instance" in capsys.readouterr().err


def test_option_parsing():
    assert parse_number("pi/6") == pytest.approx(np.pi / 6)
    assert parse_number("-2*pi/3") == pytest.approx(-2 * np.pi / 3)
    assert parse_number("1e-3") == 1e-3
    for bad in ("__import__('os')", "pi/0", "x", ""):
        with pytest.raises(ValueError):
            parse_number(bad)
    name, opts = parse_algorithm("lucb:selection=both,init=false,reg=0.5,refresh_every=10")
    assert name == "lucb"
    assert opts == {"selection": "both", "init": False, "reg": 0.5, "refresh_every": 10}
    with pytest.raises(ValueError, match="init"):
        parse_algorithm("lucb:init=maybe")


def test_run_and_replicate_accept_static_and_phased_algorithms(capsys):
    assert parse_algorithm("rage:variant=code,eps=0.2,n_constant=8") == (
        "rage", {"variant": "code", "eps": 0.2, "n_constant": 8})
    assert parse_algorithm("xy-static:confidence=xu,method=rounding")[1] == {
        "confidence": "xu", "method": "rounding"}
    args = ["--instance", "soare", "-p", "d=3", "-p", "omega=0.3", "--json"]
    assert main(["run", "rage", *args]) == 0
    out = json.loads(capsys.readouterr().out)
    ref = run("rage", get_instance("soare", d=3, omega=0.3), seed=0)
    assert out["samples"] == ref.samples and out["counts"] == ref.counts.tolist()
    assert main(["run", "rage", "--selection", "greedy", *args]) == 2
    assert "--selection is not an option of 'rage' (it applies to lingape, m-lingape" \
        in capsys.readouterr().err
    assert main(["run", "rage:foo=1", *args]) == 2
    assert "unknown option" in capsys.readouterr().err
