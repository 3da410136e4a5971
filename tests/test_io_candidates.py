"""The candidate loader: IDs and chosen feature columns from CSV/TSV/NPY (issue 14)."""

from __future__ import annotations

import numpy as np
import pytest

from bandits.io import load_candidates


def _write(path, text: str):
    path.write_text(text)
    return path


def test_csv_with_an_id_column_and_chosen_columns(tmp_path) -> None:
    p = _write(tmp_path / "s.csv", "name,logp,mw,note\nA-1,0.5,120,x\nB-2,-1.0,300,y\n")
    c = load_candidates(p, id_column="name", columns="mw,logp")
    assert c.ids == ["A-1", "B-2"] and c.columns == ["mw", "logp"]
    assert np.array_equal(c.X, [[120.0, 0.5], [300.0, -1.0]])
    assert c.index("B-2") == 1
    with pytest.raises(ValueError, match="unknown arm 'C'"):
        c.index("C")


def test_tsv_by_extension_and_default_columns(tmp_path) -> None:
    p = _write(tmp_path / "s.tsv", "id\tf1\tf2\n# a comment\nx\t1\t2\ny\t3\t4\n")
    c = load_candidates(p, id_column="id")
    assert c.columns == ["f1", "f2"] and c.ids == ["x", "y"]
    assert np.array_equal(c.X, [[1, 2], [3, 4]])


def test_headerless_numeric_csv_and_npy_use_row_numbers(tmp_path) -> None:
    c = load_candidates(_write(tmp_path / "m.csv", "1,2\n3,4\n"))
    assert c.ids == ["0", "1"] and c.columns == ["0", "1"]
    np.save(tmp_path / "m.npy", np.eye(3))
    c = load_candidates(tmp_path / "m.npy")
    assert c.ids == ["0", "1", "2"] and np.array_equal(c.X, np.eye(3))


@pytest.mark.parametrize("text, kwargs, match", [
    ("name,a\nx,1\n", {"id_column": "nom"}, "--id-column: no column 'nom'"),
    ("name,a\nx,1\n", {"columns": "b"}, "--columns: no column 'b'"),
    ("name,a\nx,1\n", {}, "column 'name' is not numeric"),
    ("name,a\nx,1\nx,2\n", {"id_column": "name"}, "appears twice"),
    ("name,a\nx,1,3\n", {"id_column": "name"}, "row 1 has 3 fields"),
    ("name,a\nx,nan\n", {"id_column": "name"}, "NaN or inf"),
    ("name,a\n", {"id_column": "name"}, "no rows"),
])
def test_bad_files_are_refused_by_name(tmp_path, text, kwargs, match) -> None:
    with pytest.raises(ValueError, match=match):
        load_candidates(_write(tmp_path / "bad.csv", text), **kwargs)


def test_unknown_extension_is_refused(tmp_path) -> None:
    with pytest.raises(ValueError, match="unknown extension"):
        load_candidates(_write(tmp_path / "s.dat", "a,b\n1,2\n"))
