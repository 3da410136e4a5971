"""Result files describe themselves; summaries carry intervals; results read well in a
notebook (HTML) and in pandas."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats

import design
from bandits import replicate
from bandits.cli import main
from bandits.instances import soare
from bandits.provenance import INLINE_MAX, array_digest, describe_array, provenance
from bandits.replicate import ReplicationTable, clopper_pearson, mean_interval


@pytest.fixture(scope="module")
def table() -> ReplicationTable:
    return replicate(["m-lingape", "lingape"], soare(d=3, omega=0.3), 6, n_jobs=1,
                     seeds=list(range(3, 9)))


def test_provenance_has_versions_time_call_seeds_instance(table):
    p = table.meta["provenance"]
    assert p["versions"]["oed-bandits"] == design.__version__
    assert p["versions"]["numpy"] == np.__version__ and p["versions"]["numba"]
    assert p["created"].endswith("+00:00")
    assert p["seeds"] == {"first": 3, "last": 8, "count": 6}
    assert "replicate(['m-lingape', 'lingape']" in p["call"]
    inst = soare(d=3, omega=0.3)
    assert p["instance"]["name"] == inst.name
    np.testing.assert_array_equal(p["instance"]["X"]["values"], inst.X)
    assert p["instance"]["X"]["sha256"] == array_digest(inst.X)


def test_large_arrays_are_hashed_not_inlined():
    big = np.arange(INLINE_MAX + 1, dtype=float).reshape(-1, 1)
    d = describe_array(big, source="arms.csv")
    assert "values" not in d and d["source"] == "arms.csv" and d["shape"] == [INLINE_MAX + 1, 1]
    assert d["sha256"] == array_digest(big.copy()) != array_digest(big + 1)
    assert provenance(seeds=[5, 2])["seeds"] == [5, 2]


def test_csv_and_json_carry_the_meta_and_read_back(table, tmp_path):
    for name in ("t.csv", "t.json"):
        table.save(tmp_path / name)
        back = ReplicationTable.read(tmp_path / name)
        assert back.equals(table)
        assert back.meta["provenance"]["seeds"] == table.meta["provenance"]["seeds"]
        assert back.meta["delta"] == 0.05
    first = (tmp_path / "t.csv").read_text().splitlines()[0]
    assert first.startswith("# oed-bandits replication table; meta: {")
    pd = pytest.importorskip("pandas")
    df = pd.read_csv(tmp_path / "t.csv", comment="#")
    assert list(df["samples"]) == list(table["samples"])


def test_summary_intervals_are_the_textbook_ones(table):
    s = table.summary()["m-lingape"]
    x = table.select("m-lingape")["samples"].astype(float)
    lo, hi = stats.t.interval(0.95, x.size - 1, loc=x.mean(), scale=stats.sem(x))
    assert s["mean_ci"] == pytest.approx((lo, hi), rel=1e-12)
    # Clopper-Pearson, published values: 0 of 10 -> [0, 0.3085] (1 - 0.025^(1/10));
    # 3 of 10 -> [0.0667, 0.6525] (e.g. Brown, Cai & DasGupta 2001 tables)
    assert clopper_pearson(0, 10) == pytest.approx((0.0, 1 - 0.025 ** 0.1), abs=1e-12)
    lo, hi = clopper_pearson(3, 10)
    assert lo == pytest.approx(0.0667, abs=1e-4) and hi == pytest.approx(0.6525, abs=1e-4)
    assert clopper_pearson(10, 10)[1] == 1.0 and np.isnan(clopper_pearson(0, 0)[0])
    assert np.isnan(mean_interval(np.array([3.0]))[0])
    text = str(table.summary())
    assert "mean +- 95% CI" in text and "95% CI (CP)" in text


def test_html_and_pandas(table):
    html = table._repr_html_()
    assert html.count("<tr>") == 1 + len(table.algorithms) and "m-lingape" in html
    assert "<table>" in table.summary()._repr_html_()
    res = design.g_optimal(np.eye(3))
    assert "certified" in res._repr_html_() and res._repr_html_().count("<td>") >= 3 + 8
    pytest.importorskip("pandas")
    df = table.to_pandas()
    assert len(df) == len(table) and df.attrs["meta"]["delta"] == 0.05
    sdf = table.summary().to_pandas()
    assert {"mean_ci_low", "mean_ci_high", "error_ci_low", "error_ci_high"} <= set(sdf.columns)


def test_design_json_describes_itself(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    X = np.random.default_rng(0).standard_normal((30, 3))
    np.savetxt("arms.csv", X, delimiter=",")
    assert main(["design", "g", "--arms", "arms.csv", "--out", "g.json"]) == 0
    p = json.loads((tmp_path / "g.json").read_text())["provenance"]
    assert p["command"] == "oed design g --arms arms.csv --out g.json"
    assert p["inputs"]["arms"]["source"] == "arms.csv"
    np.testing.assert_allclose(p["inputs"]["arms"]["values"], np.loadtxt("arms.csv",
                                                                         delimiter=","))
    # the command is recorded while it runs, not in later Python calls of the process
    assert "command" not in provenance()
