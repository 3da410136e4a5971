"""Replication over seeds: tidy table, backend-independence, I/O, summary, plots, inputs."""

import csv
import json

import numpy as np
import pytest

from bandits import ReplicationTable, make_algorithm, replicate, run
from bandits.instances import Instance
from bandits.plots import boxplot_samples
from bandits.replicate import COLUMNS


def classic(omega=np.pi / 3, sigma=0.5):
    """Réda et al. (2021) classic instance, K = 4, m = 2 (x_1 = e_1 as in their code);
    omega = pi/3 (gap 0.5) keeps runs at a few hundred samples."""
    X = np.array([[1, 0, 0], [1, 1, 0], [np.cos(omega), 0, np.sin(omega)], [0, 0, 1.0]])
    return Instance(name="classic", X=X, theta=np.array([1.0, 0, 0]), sigma=sigma, m=2)


ALGOS = ["m-lingape", ("lucb-both", "lucb", {"selection": "both"}), "lingifa"]


def _ints(text):
    return [int(v) for v in text.split()]


def test_table_is_tidy_and_rows_equal_single_runs():
    inst = classic()
    seeds = [7, 3, 11, 0]
    table = replicate(ALGOS, inst, 4, seeds=seeds, backend="serial")
    assert len(table) == 12 and table.columns == COLUMNS
    assert table.algorithms == ["m-lingape", "lucb-both", "lingifa"]
    assert table["algorithm"].tolist() == ["m-lingape"] * 4 + ["lucb-both"] * 4 + ["lingifa"] * 4
    assert table["seed"].tolist() == seeds * 3
    assert set(table["instance"]) == {"classic"}
    specs = {"m-lingape": ("m-lingape", {}), "lucb-both": ("lucb", {"selection": "both"}),
             "lingifa": ("lingifa", {})}
    for row in table.rows():
        name, opts = specs[row["algorithm"]]
        ref = run(name, inst, seed=row["seed"], **opts)
        assert row["samples"] == ref.samples
        assert row["correct"] == ref.correct
        assert row["stopped_by"] == ref.stopped_by == "rule"
        assert _ints(row["recommendation"]) == ref.recommendation.tolist()
        assert _ints(row["counts"]) == ref.counts.tolist()
        assert sum(_ints(row["counts"])) == row["samples"]
        assert row["wall_time"] > 0
    # the algorithms differ on this instance: the labels are not mixed up
    assert not np.array_equal(table.select("m-lingape")["samples"],
                              table.select("lucb-both")["samples"])
    assert table.counts_matrix().shape == (12, 4)
    assert [r.tolist() for r in table.recommendations()] == [[0, 1]] * 12
    assert table.meta["algorithms"]["lucb-both"]["selection"] == "both"


def test_same_seeds_same_table_whatever_backend_jobs_and_chunks():
    inst = classic()
    serial = replicate(ALGOS, inst, 10, backend="serial")
    one = replicate(ALGOS, inst, 10, n_jobs=1)
    two = replicate(ALGOS, inst, 10, n_jobs=2, chunksize=3)
    three = replicate(ALGOS, inst, 10, n_jobs=2)
    assert serial.meta["backend"] == "serial" and two.meta["n_jobs"] == 2
    for other in (one, two, three):
        assert serial.equals(other, wall_time=False)
    assert not serial.equals(two)  # the times are measured, not copied
    # a run is a function of its seed: a sub-list of seeds gives the matching sub-table
    part = replicate("m-lingape", inst, seeds=[4, 2], backend="serial")
    full = serial.select("m-lingape")
    assert part["samples"].tolist() == [full["samples"][4], full["samples"][2]]


def test_dask_backend_matches_serial():
    distributed = pytest.importorskip("distributed")
    inst = classic()
    serial = replicate(ALGOS[:2], inst, 6, backend="serial")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        table = replicate(ALGOS[:2], inst, 6, client=client, chunksize=2)
        assert table.meta["backend"] == "dask"
        # explicit backend with the same client
        again = replicate(ALGOS[:2], inst, 6, backend="dask", client=client)
    assert serial.equals(table, wall_time=False)
    assert serial.equals(again, wall_time=False)


@pytest.mark.slow
def test_dask_backend_with_its_own_local_cluster():
    pytest.importorskip("distributed")
    inst = classic()
    serial = replicate("m-lingape", inst, 8, backend="serial")
    table = replicate("m-lingape", inst, 8, backend="dask", n_jobs=2)
    assert serial.equals(table, wall_time=False)


def test_csv_and_json_round_trip(tmp_path):
    table = replicate(ALGOS[:2], classic(), 5, backend="serial", max_samples=150)
    assert "budget" in set(table["stopped_by"])  # budget rows survive the round trip too
    p = table.to_csv(tmp_path / "r.csv")
    back = ReplicationTable.read_csv(p)
    assert back.equals(table)  # wall_time included: written with repr()
    with open(p, newline="") as fh:
        assert fh.readline().startswith("# oed-bandits replication table; meta: {")
        rows = list(csv.reader(fh))
    assert rows[0] == list(COLUMNS) and len(rows) == 11
    assert back.meta == json.loads(json.dumps(table.meta))  # the meta line is read back
    assert rows[1][COLUMNS.index("recommendation")] == table["recommendation"][0]
    j = table.to_json(tmp_path / "r.json")
    data = json.loads(j.read_text())
    assert data["meta"]["max_samples"] == 150 and len(data["rows"]) == 10
    back = ReplicationTable.read_json(j)
    assert back.equals(table) and back.meta["delta"] == 0.05
    assert ReplicationTable.read(j).equals(ReplicationTable.read(p))


def test_summary_equals_numpy_on_the_rows():
    table = replicate(ALGOS, classic(), 12, backend="serial", max_samples=180)
    summ = table.summary()
    summ_est, summ_ex = table.summary(budget="estimate"), table.summary(budget="exclude")
    assert [r["algorithm"] for r in summ] == table.algorithms
    assert sum(r["budget"] for r in summ) > 0
    for label in table.algorithms:
        sub = table.select(label)
        s = sub["samples"].astype(float)
        r = summ[label]
        assert r["runs"] == 12
        assert r["mean"] == pytest.approx(s.mean())
        assert r["std"] == pytest.approx(s.std(ddof=1))
        assert r["median"] == pytest.approx(np.median(s))
        assert (r["min"], r["max"]) == (s.min(), s.max())
        by_budget = sub["stopped_by"] == "budget"
        # default: a run stopped by the budget is never a correct identification
        assert r["error_rate"] == pytest.approx(np.mean(~sub["correct"] | by_budget))
        assert summ_est[label]["error_rate"] == pytest.approx(np.mean(~sub["correct"]))
        ex = summ_ex[label]["error_rate"]
        if by_budget.all():
            assert np.isnan(ex)
        else:
            assert ex == pytest.approx(np.mean(~sub["correct"][~by_budget]))
        assert r["budget"] == int(np.sum(sub["stopped_by"] == "budget"))
        assert np.all(sub["samples"][sub["stopped_by"] == "budget"] == 180)
    text = str(table)
    assert all(label in text for label in table.algorithms)
    assert "hit the sample budget (max_samples=180)" in text
    one = replicate("m-lingape", classic(), 1, backend="serial").summary()
    assert np.isnan(one["m-lingape"]["std"]) and "-" in str(one)


def test_boxplot_writes_a_file_and_plots_the_table(tmp_path):
    table = replicate(ALGOS, classic(), 8, backend="serial", max_samples=200)
    out = tmp_path / "box.png"
    ax = boxplot_samples(table, out, title="classic", log=True)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 5000
    ticks = [t.get_text().split("\n")[0] for t in ax.get_xticklabels()]
    assert ticks == [label.split()[0] for label in table.algorithms]
    # the orange diamonds are the means of exactly the table's samples, in table order
    # (labelled "mean"; "mean (ours)" only next to published values)
    means = [off.get_offsets()[0][1] for off in ax.collections if off.get_label() == "mean"]
    np.testing.assert_allclose(means, [table.select(a)["samples"].mean()
                                       for a in table.algorithms])
    assert ax.get_yscale() == "log"
    part = boxplot_samples(table, tmp_path / "box.svg", algorithms=["lingifa", "m-lingape"],
                           published={"lingifa": 123.0})
    assert [t.get_text().split("\n")[0] for t in part.get_xticklabels()] == ["lingifa",
                                                                             "m-lingape"]
    pub = [c.get_offsets()[0][1] for c in part.collections if c.get_label() == "published mean"]
    assert pub == [123.0]
    assert "mean (ours)" in {c.get_label() for c in part.collections}
    assert "delta = 0.05" in part.get_title() and "8 runs each" in part.get_title()
    assert (tmp_path / "box.svg").read_text().lstrip().startswith("<?xml")
    with pytest.raises(ValueError, match="algorithms"):
        boxplot_samples(table, tmp_path / "x.png", algorithms=["nope"])


def test_instance_by_name_and_progress_bar(capsys):
    table = replicate("m-lingape", "reda-classic", 3, backend="serial", progress=True)
    assert len(table) == 3 and table.instances[0].startswith("reda_classic")
    err = capsys.readouterr().err
    assert "/3 [" in err and "run/s" in err
    replicate("m-lingape", "reda-classic", 3, backend="serial")  # auto: off (not a tty)
    assert capsys.readouterr().err == ""


def test_several_instances_concatenate():
    a = replicate("m-lingape", classic(), 3, backend="serial")
    b = replicate("m-lingape", Instance(name="other", X=classic().X, theta=[1.0, 0.2, 0],
                                        sigma=0.5, m=2), 3, backend="serial")
    both = ReplicationTable.concat([a, b])
    assert len(both) == 6 and both.instances == ["classic", "other"]
    assert list(both.samples_by_algorithm()) == ["m-lingape @ classic", "m-lingape @ other"]
    assert len(both.summary()) == 2


@pytest.mark.parametrize("kwargs, match", [
    ({"n_runs": 0}, "n_runs"),
    ({"n_runs": -3}, "n_runs"),
    ({"n_runs": 2.5}, "n_runs"),
    ({"n_runs": True}, "n_runs"),
    ({"n_runs": None}, "n_runs"),
    ({"n_runs": 3, "seeds": [0, 1]}, "seeds"),
    ({"n_runs": 2, "seeds": [0, -1]}, "seeds"),
    ({"n_runs": 2, "seeds": [1, 1]}, "seeds"),
    ({"n_runs": 2, "seeds": [0, 1.5]}, "seeds"),
    ({"n_runs": 2, "backend": "threads"}, "backend"),
    ({"n_runs": 2, "n_jobs": 0}, "n_jobs"),
    ({"n_runs": 2, "n_jobs": -2}, "n_jobs"),
    ({"n_runs": 2, "chunksize": 0}, "chunksize"),
    ({"n_runs": 2, "progress": "yes"}, "progress"),
    ({"n_runs": 2, "client": object(), "backend": "processes"}, "client"),
    ({"n_runs": 2, "delta": 1.5}, "delta"),
    ({"n_runs": 2, "selection": "bogus"}, "selection"),
    ({"n_runs": 2, "bogus": 1}, "bogus"),
])
def test_bad_arguments_raise_value_error_naming_them(kwargs, match):
    with pytest.raises(ValueError, match=match):
        replicate("m-lingape", classic(), **kwargs)


def test_bad_algorithms_and_instances():
    inst = classic()
    with pytest.raises(ValueError, match="unknown instance"):
        replicate("m-lingape", "no-such-instance", 2)
    with pytest.raises(ValueError, match="instance"):
        replicate("m-lingape", 42, 2)
    with pytest.raises(ValueError, match="algorithm"):
        replicate("no-such-algorithm", inst, 2)
    with pytest.raises(ValueError, match="duplicate"):
        replicate(["m-lingape", "m-lingape"], inst, 2)
    with pytest.raises(ValueError, match="empty"):
        replicate([], inst, 2)
    with pytest.raises(ValueError, match="tuples"):
        replicate([("label", "lucb")], inst, 2)
    # a GIFA object and a renamed variant run side by side
    table = replicate([make_algorithm("lucb"), ("lucb2", "lucb", {})], inst, 2,
                      backend="serial")
    assert table.algorithms == ["lucb", "lucb2"]
    np.testing.assert_array_equal(table.select("lucb")["samples"],
                                  table.select("lucb2")["samples"])


def test_table_input_validation(tmp_path):
    with pytest.raises(ValueError, match="columns"):
        ReplicationTable({"seed": [1]})
    p = tmp_path / "bad.csv"
    p.write_text("a,b\n1,2\n")
    with pytest.raises(ValueError, match="path"):
        ReplicationTable.read_csv(p)
    with pytest.raises(ValueError, match="path"):
        ReplicationTable.read_csv(tmp_path / "missing.csv")
    table = replicate("m-lingape", classic(), 2, backend="serial")
    with pytest.raises(ValueError, match="algorithm"):
        table.select("nope")
    with pytest.raises(KeyError):
        table["nope"]
