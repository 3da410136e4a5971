"""The oed command line, the demo report and the Soare instance."""

import json

import numpy as np
import pytest

from bandits.cli import main
from bandits.demo import demo_report
from bandits.instances import soare


def test_soare_instance():
    inst = soare(d=5, omega=0.01)
    assert inst.X.shape == (6, 5)
    np.testing.assert_allclose(inst.X[:5], np.eye(5))
    np.testing.assert_allclose(inst.X[5], [np.cos(0.01), np.sin(0.01), 0, 0, 0])
    np.testing.assert_allclose(inst.theta, [2, 0, 0, 0, 0])
    assert inst.best.tolist() == [0]
    assert inst.means[5] == pytest.approx(2 * np.cos(0.01))
    for kwargs, name in [({"d": 1}, "d"), ({"omega": 0.0}, "omega"), ({"scale": -1}, "scale"),
                         ({"sigma": 0}, "sigma"), ({"d": 2.5}, "d")]:
        with pytest.raises(ValueError, match=name):
            soare(**kwargs)


def test_demo_report_numbers():
    text = demo_report(d=5, omega=0.01, n=100)
    # G-optimal on the Soare instance: uniform on e_1..e_5, value d = 5, rounds to 20 each
    assert "weights      = [0.2000, 0.2000, 0.2000, 0.2000, 0.2000, 0.0000]" in text
    assert "counts = [20, 20, 20, 20, 20, 0]" in text
    # c-optimal for y = x_1 - x_6: y = (1 - cos w) e_1 - sin w e_2, so w* = (1 - cos w, -sin w)
    # and the pull ratio is sin w / (1 - cos w) = cot(w/2) ~ 200 (Xu et al. 2018, Table 1)
    assert "about 1 : 200" in text
    assert "counts = [1, 99, 0, 0, 0, 0]" in text
    assert "NOT OK" not in text
    # LinGapE's pulls follow the c-optimal design (99.5% on e_2), and it is correct
    assert "-> correct" in text and "of the pulls on e_2" in text
    share = float(text.split("% of the pulls on e_2")[0].split()[-1])
    assert share > 99.0


def test_cli_demo_runs(capsys):
    assert main(["demo", "--d", "3", "--n", "30"]) == 0
    out = capsys.readouterr().out
    assert "G-optimal design" in out and "c-optimal design" in out


def test_cli_design_and_round(tmp_path, capsys):
    X = np.random.default_rng(0).standard_normal((40, 3))
    arms = tmp_path / "arms.csv"
    np.savetxt(arms, X, delimiter=",", header="a,b,c", comments="")
    out = tmp_path / "g.json"
    assert main(["design", "g", "--arms", str(arms), "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["criterion"] == "G" and data["converged"]
    assert sum(data["weights"]) == pytest.approx(1.0)
    assert data["certificate"]["g_efficiency"] >= 1 - 1e-6
    capsys.readouterr()
    assert main(["round", "--weights", str(out), "--n", "50", "--arms", str(arms)]) == 0
    rounded = json.loads(capsys.readouterr().out)
    assert sum(rounded["counts"]) == 50
    assert rounded["loss"]["ratio"] <= rounded["loss"]["bound"] + 1e-12
    # with the (1+eps) guarantee: the G criterion of the counts is within factor <= 1+eps
    assert main(["round", "--weights", str(out), "--n", "50", "--arms", str(arms),
                 "--eps", "0.5"]) == 0
    g = json.loads(capsys.readouterr().out)
    assert sum(g["counts"]) == 50 and g["factor"] <= 1.5 and g["r_eps"] <= 50
    assert g["loss"]["ratio"] <= g["factor"] * (1 + 1e-9)
    assert main(["round", "--weights", str(out), "--n", "50", "--eps", "0.5"]) == 2
    assert "--eps needs --arms" in capsys.readouterr().err
    np.save(tmp_path / "arms.npy", X)
    assert main(["design", "c", "--arms", str(tmp_path / "arms.npy"), "--target", "1,0,0"]) == 0
    c = json.loads(capsys.readouterr().out)
    assert c["criterion"] == "c"
    assert c["value"] == pytest.approx(sum(abs(v) for v in c["info"]["coefficients"]) ** 2)


def test_cli_errors_are_clean(tmp_path, capsys):
    assert main(["design", "g", "--arms", str(tmp_path / "missing.csv")]) == 2
    assert "does not exist" in capsys.readouterr().err
    bad = tmp_path / "bad.csv"
    bad.write_text("1,2\n2,4\n3,6\n")
    assert main(["design", "d", "--arms", str(bad)]) == 2
    assert "do not span" in capsys.readouterr().err
    assert main(["design", "c", "--arms", str(bad)]) == 2
    assert "--target" in capsys.readouterr().err


def test_cli_design_xy_and_h(tmp_path, capsys):
    # Soare instance d = 3: the XY optimum is 2d = 6 (uniform on e_1..e_d)
    X = np.vstack([np.eye(3), [np.cos(0.01), np.sin(0.01), 0.0]])
    arms = tmp_path / "soare.csv"
    np.savetxt(arms, X, delimiter=",")
    assert main(["design", "xy", "--arms", str(arms)]) == 0
    xy = json.loads(capsys.readouterr().out)
    assert xy["criterion"] == "XY" and xy["converged"]
    assert xy["value"] == pytest.approx(6.0, rel=1e-4)
    assert xy["certificate"]["lower_bound"] <= 6.0 <= xy["value"] * (1 + 1e-9)
    # transductive: decisions Z different from the measurement arms
    Z = np.array([[1.0, 0, 0], [0.9, 0.1, 0], [0, 0, 1.0]])
    zfile = tmp_path / "z.npy"
    np.save(zfile, Z)
    assert main(["design", "xy", "--arms", str(arms), "--decisions", str(zfile)]) == 0
    assert json.loads(capsys.readouterr().out)["converged"]
    # H-optimal on Mason et al.'s Appendix G circle: h* = 0.38926, g* = 21.0954
    ang = 2 * np.pi * np.arange(30) / 30
    circle = tmp_path / "circle.csv"
    np.savetxt(circle, np.stack([np.cos(ang), np.sin(ang)], 1), delimiter=",")
    assert main(["design", "h", "--arms", str(circle), "--theta", "3,0"]) == 0
    h = json.loads(capsys.readouterr().out)
    assert h["value"] == pytest.approx(0.3892612, rel=1e-4)
    assert h["g_star"]["value"] == pytest.approx(21.0953741, rel=1e-4)
    assert main(["design", "h", "--arms", str(circle)]) == 2
    assert "--theta" in capsys.readouterr().err


def test_cli_complexity(capsys):
    # Soare hard instance d = 5: H_LB = 10,100.8; Reda et al. constants are listed too
    assert main(["complexity", "--instance", "soare", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["Soare et al. (2014)"]["H_LB"] == pytest.approx(10100.8, abs=0.1)
    assert out["Soare et al. (2014)"]["rho_XY"] == pytest.approx(10.0, rel=1e-5)
    assert "LUCB" in out["Reda et al. (2021) Table 2"]
    assert main(["complexity", "--instance", "reda-classic"]) == 0
    text = capsys.readouterr().out
    assert "m-LinGapE (optimized)" in text and "Soare" not in text  # m = 2
    assert main(["complexity", "--instance", "nope"]) == 2


def test_cli_complexity_of_a_tie_for_the_best_arm_is_infinite(tmp_path, capsys):
    """m = 1 with two best arms: Table 2's constants are inf (as for a tie at m = 2), and
    so are Soare et al.'s; the command used to fail with 'theta: the best arm is not
    unique' although the user gave --means and no theta."""
    arms = tmp_path / "arms.csv"
    arms.write_text("x\n1\n2\n3\n4\n")
    assert main(["complexity", "--arms", str(arms), "--means", "1,1,0.5,0", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["Reda et al. (2021) Table 2"]["LUCB"] == float("inf")
    assert out["Soare et al. (2014)"] == {"H_LB": float("inf"), "N_star": float("inf")}
    assert main(["complexity", "--arms", str(arms), "--means", "1,0.9,0.5,0", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert 0 < out["Soare et al. (2014)"]["H_LB"] < float("inf")


def test_cli_rule_flag_error_names_the_algorithms_that_take_it(capsys):
    """'--S applies to the GIFA algorithms only' was said to rage although lingame, not a
    GIFA algorithm, takes --S; the error lists the algorithms that have the option."""
    base = ["run", "--instance", "soare", "-p", "d=3", "-p", "omega=0.7", "--max-samples",
            "50"]
    assert main([*base[:1], "rage", *base[1:], "--S", "2"]) == 2
    err = capsys.readouterr().err
    assert "--S is not an option of 'rage'" in err and "lingame" in err
    assert "GIFA algorithms only" not in err
    assert main([*base[:1], "lingame", *base[1:], "--S", "2"]) == 0
