"""Reading arms / weights from files and writing designs as JSON (used by the CLI)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np

from design.result import DesignResult


def _real_finite(arr: np.ndarray, name: str, p: Path) -> np.ndarray:
    """The loaded array as float64, refusing complex, non-numeric and non-finite data."""
    if arr.dtype.kind not in "biuf":
        raise ValueError(f"{name} file {str(p)!r} holds {arr.dtype} data, not real numbers")
    arr = np.asarray(arr, dtype=np.float64)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} file {str(p)!r} contains NaN or inf")
    return arr


def load_matrix(path: str | Path, name: str = "arms") -> np.ndarray:
    """Load a numeric matrix from ``.npy`` or a delimited text file (CSV, TSV, spaces).

    Text files may have one header line of column names; lines starting with ``#`` are
    comments. One arm per row.  Every failure (missing, binary, not numeric, complex,
    NaN/inf) is a ``ValueError`` naming the option ``name`` and the file.
    """
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"{name} file {str(p)!r} does not exist")
    if p.suffix == ".npy":
        try:
            arr = np.load(p, allow_pickle=False)
        except (ValueError, OSError, EOFError) as exc:
            raise ValueError(f"{name} file {str(p)!r} is not a readable .npy array: "
                             f"{exc}") from None
        if arr.ndim == 1:
            arr = arr[:, None]
        return _real_finite(arr, name, p)
    try:
        text = p.read_text()
    except UnicodeDecodeError:
        raise ValueError(f"{name} file {str(p)!r} is not a text file (CSV/TSV) or .npy") \
            from None
    delimiter = "," if "," in text else ("\t" if "\t" in text else None)
    for skip in (0, 1):
        try:
            with warnings.catch_warnings():  # an empty file is refused below, by name
                warnings.simplefilter("ignore", UserWarning)
                arr = np.loadtxt(p, delimiter=delimiter, skiprows=skip, ndmin=2,
                                 comments="#")
        except ValueError:
            continue
        if arr.size == 0:
            break
        return _real_finite(arr, name, p)
    raise ValueError(f"{name} file {str(p)!r} is not a numeric matrix (CSV/TSV/NPY)")


def load_vector(spec: str, name: str) -> np.ndarray:
    """A vector given inline (``"1,0,-1"``) or as a file (``.npy`` / text, one row)."""
    if Path(spec).is_file():
        return load_matrix(spec, name).ravel()
    try:
        arr = np.array([float(v) for v in spec.split(",")])
    except ValueError:
        raise ValueError(f"{name} must be a comma-separated list of numbers or a file; "
                         f"got {spec!r}") from None
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf: {spec!r}")
    return arr


def load_weights(path: str | Path, name: str = "weights") -> np.ndarray:
    """Weights from a design JSON written by ``oed design`` or from a one-column file."""
    p = Path(path)
    if p.suffix == ".json":
        if not p.is_file():
            raise ValueError(f"{name} file {str(p)!r} does not exist")
        try:
            data = json.loads(p.read_text())
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ValueError(f"{name} file {str(p)!r} is not valid JSON: {exc}") from None
        if not isinstance(data, dict) or "weights" not in data:
            raise ValueError(f"{name} file {str(p)!r} has no 'weights' entry")
        try:
            w = np.asarray(data["weights"])
        except ValueError as exc:
            raise ValueError(f"{name} file {str(p)!r}: 'weights' is not an array: {exc}") \
                from None
        if w.ndim != 1:
            raise ValueError(f"{name} file {str(p)!r}: 'weights' must be a list of numbers")
        return _real_finite(w, name, p)
    M = load_matrix(p, name)
    if M.ndim == 2 and min(M.shape) > 1:
        raise ValueError(f"{name} file {str(p)!r} has {M.shape[0]} rows of {M.shape[1]} "
                         "columns; weights are one column (or row) of numbers, a design "
                         "JSON or an 'id,weight' CSV of `oed design`")
    return M.ravel()


def jsonable(value: object) -> object:
    """``value`` with numpy arrays and scalars (also nested in dicts, lists, tuples and
    dataclass-like objects exposing ``_asdict``) turned into plain Python types."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if hasattr(value, "_asdict"):
        return jsonable(value._asdict())
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return value


def design_to_dict(res: DesignResult) -> dict:
    """A JSON-ready dictionary of a design result and its certificate."""
    info = jsonable(res.info)
    return {
        "criterion": res.criterion,
        "solver": res.solver,
        "converged": res.converged,
        "iterations": res.iterations,
        "value": res.value,
        "lower_bound": res.lower_bound,
        "gap": res.gap,
        "support": res.support.tolist(),
        "weights": res.weights.tolist(),
        "info": info,
    }


# --------------------------------------------------------------------------------------
# candidate files with names: one loader for CSV / TSV / NPY / Parquet (issue 14)
# --------------------------------------------------------------------------------------

#: File extension -> delimiter of the text formats (no guessing: the extension decides).
DELIMITERS = {".csv": ",", ".tsv": "\t", ".tab": "\t", ".txt": "\t"}


class Candidates:
    """Arms read from a file: ``ids`` (one name per row), the feature matrix ``X`` (K, d),
    the names of its ``columns`` and, with categorical columns, their labels.

    ``X`` holds NaN in a categorical column (its labels are not numbers); the factor
    settings with the labels are :meth:`factors`, which :func:`design.regressors` codes."""

    __slots__ = ("ids", "X", "columns", "categorical", "_labels")

    def __init__(self, ids: list[str], X: np.ndarray, columns: list[str],
                 labels: dict[str, list[str]] | None = None) -> None:
        self.ids, self.X, self.columns = ids, X, columns
        self._labels = dict(labels or {})
        self.categorical = [c for c in columns if c in self._labels]
        """The categorical columns, in the order of ``columns``."""

    def factors(self) -> np.ndarray:
        """The factor settings (K, d): ``X`` itself when every column is numeric, else an
        object array with the labels (text) in the categorical columns."""
        if not self._labels:
            return self.X
        F = self.X.astype(object)
        for j, c in enumerate(self.columns):
            if c in self._labels:
                F[:, j] = self._labels[c]
        return F

    def __repr__(self) -> str:
        return f"Candidates(K={len(self.ids)}, d={self.X.shape[1]}, columns={self.columns})"

    def index(self, name: str, what: str = "id") -> int:
        """Row of the arm called ``name``; ValueError naming ``what`` otherwise."""
        try:
            return self._lookup()[name]
        except KeyError:
            raise ValueError(f"{what}: unknown arm {name!r} (not in the candidate file's "
                             "IDs)") from None

    def _lookup(self) -> dict[str, int]:
        return {n: i for i, n in enumerate(self.ids)}


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def read_table(p: Path, name: str) -> tuple[list[str] | None, list[list[str]]]:
    """``(header or None, rows)`` of a CSV/TSV file (the csv module; delimiter from the
    extension). The first row is a header unless every cell of it is a number."""
    import csv

    delimiter = DELIMITERS.get(p.suffix.lower())
    if delimiter is None:
        raise ValueError(f"{name} file {str(p)!r}: unknown extension {p.suffix!r}; use "
                         ".csv, .tsv, .npy or .parquet")
    try:
        with p.open(newline="") as fh:
            rows = [r for r in csv.reader(fh, delimiter=delimiter)
                    if r and any(c.strip() for c in r) and not r[0].startswith("#")]
    except UnicodeDecodeError:
        raise ValueError(f"{name} file {str(p)!r} is not a text file") from None
    if not rows:
        raise ValueError(f"{name} file {str(p)!r} is empty")
    rows = [[c.strip() for c in r] for r in rows]
    if all(_is_number(c) for c in rows[0]):
        return None, rows
    return rows[0], rows[1:]


def _cells(p: Path, name: str) -> tuple[list[str], list[list[str]]]:
    """``(header, rows as text)`` of a candidate file of any supported format; a file
    without names (``.npy``, a text file whose first row is numbers) gets ``"0", "1",
    ...``."""
    suffix = p.suffix.lower()
    if suffix == ".npy":
        X = load_matrix(p, name)
        return [str(j) for j in range(X.shape[1])], [[str(v) for v in row]
                                                     for row in X.tolist()]
    if suffix == ".parquet":
        try:
            import pandas as pd
        except ImportError:
            raise ValueError(f"{name} file {str(p)!r}: reading Parquet needs pandas "
                             "(pip install pandas pyarrow)") from None
        df = pd.read_parquet(p)
        return ([str(c) for c in df.columns],
                [[str(v) for v in row] for row in df.astype(str).itertuples(index=False)])
    head, cells = read_table(p, name)
    width = max(len(r) for r in cells) if cells else 0
    return (head if head is not None else [str(j) for j in range(width)]), cells


def column_names(path: str | Path, name: str = "--arms") -> list[str] | None:
    """The names of a candidate file's columns, numeric or not (None for a file without
    names: ``.npy``, or a text file whose first row is numbers)."""
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"{name} file {str(p)!r} does not exist")
    suffix = p.suffix.lower()
    if suffix == ".npy":
        return None
    return _cells(p, name)[0] if suffix == ".parquet" else read_table(p, name)[0]


def load_candidates(path: str | Path, *, id_column: str | None = None,
                    columns: list[str] | str | None = None,
                    name: str = "--arms", allow_no_features: bool = False,
                    categorical: list[str] | str = (),
                    text_categorical: bool = False) -> Candidates:
    """Read candidate arms with their names from a CSV, TSV, NPY or Parquet file.

    Parameters
    ----------
    path : str or Path
        ``.csv`` (comma), ``.tsv``/``.tab``/``.txt`` (tab), ``.npy`` (a numeric matrix; IDs
        are the row numbers) or ``.parquet`` (needs pandas). The delimiter follows from the
        extension, never from the content. A text file's first row is a header unless all
        of it is numbers; lines starting with ``#`` are comments.
    id_column : str, optional
        The header of the column holding the arms' names (kept as text). Without it the
        IDs are the row numbers ``"0", "1", ...``.
    columns : list of str or comma-separated str, optional
        The feature columns, in this order. Default: every column but the ID column.
        A column that is not numeric, or not there, is a ValueError naming it.
    name : str
        The option name used in error messages.
    allow_no_features : bool
        Accept a file of IDs only (``X`` then has no column; e.g. the variants of an
        A/B/n test, whose arms are unstructured). Otherwise that is a ValueError.
    categorical : list of str or comma-separated str
        Feature columns read as categorical factors, their labels kept as text
        (:meth:`Candidates.factors`), even when the labels are numbers (batch 1, 2, 3).
    text_categorical : bool, default False
        Read every other feature column of text (a catalyst, a supplier) as a categorical
        factor too. Without it such a column is refused with a message saying how to
        declare it (a free-text column beside the factors is not made a factor unasked).

    Returns
    -------
    Candidates
        ``ids``, ``X`` (float64, finite) and ``columns``.
    """
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"{name} file {str(p)!r} does not exist")
    if isinstance(columns, str):
        columns = [c.strip() for c in columns.split(",") if c.strip()]
    if p.suffix.lower() == ".npy" and id_column is not None:
        raise ValueError(f"--id-column: a .npy file has no named columns ({str(p)!r})")
    header, cells = _cells(p, name)
    if not cells:
        raise ValueError(f"{name} file {str(p)!r} has a header but no rows")
    for i, r in enumerate(cells):
        if len(r) != len(header):
            raise ValueError(f"{name} file {str(p)!r}: row {i + 1} has {len(r)} fields, the "
                             f"header has {len(header)}")
    if len(set(header)) != len(header):
        raise ValueError(f"{name} file {str(p)!r}: repeated column names {header}")
    pos = {h: j for j, h in enumerate(header)}
    if id_column is not None and id_column not in pos:
        raise ValueError(f"--id-column: no column {id_column!r} in {str(p)!r}; columns: "
                         f"{', '.join(header)}")
    if columns is None:
        columns = [h for h in header if h != id_column]
    for c in columns:
        if c not in pos:
            raise ValueError(f"--columns: no column {c!r} in {str(p)!r}; columns: "
                             f"{', '.join(header)}")
        if c == id_column:
            raise ValueError(f"--columns: {c!r} is the ID column")
    if not columns and not allow_no_features:
        raise ValueError(f"--columns: {str(p)!r} has no feature column")
    if isinstance(categorical, str):
        categorical = [c.strip() for c in categorical.split(",") if c.strip()]
    named = list(categorical)
    for c in named:
        if c not in columns:
            raise ValueError(f"--categorical: {c!r} is not a feature column ({columns})")
    X = np.empty((len(cells), len(columns)))
    labels: dict[str, list[str]] = {}
    for j, c in enumerate(columns):
        is_label = c in named
        for i, r in enumerate(cells if not is_label else ()):
            v = r[pos[c]]
            try:
                X[i, j] = float(v)
            except ValueError:
                if text_categorical and v.strip():
                    is_label = True
                    break
                hint = ("; if it is a factor of labels (a categorical factor), name it in "
                        "--categorical or --columns" if not text_categorical else "")
                raise ValueError(f"{name} file {str(p)!r}: column {c!r} is not numeric "
                                 f"(row {i + 1}: {v!r}); choose the feature columns with "
                                 f"--columns and the name column with --id-column{hint}") \
                    from None
        if is_label:  # a categorical factor: its labels, NaN in X
            labels[c] = [r[pos[c]] for r in cells]
            X[:, j] = np.nan
    num = [j for j, c in enumerate(columns) if c not in labels]
    if not np.all(np.isfinite(X[:, num])):
        raise ValueError(f"{name} file {str(p)!r} contains NaN or inf in {columns}")
    for c, lab in labels.items():
        empty = next((i for i, v in enumerate(lab) if not v.strip()), None)
        if empty is not None:
            raise ValueError(f"{name} file {str(p)!r}: the categorical column {c!r} is empty "
                             f"in row {empty + 1}")
    if id_column is None:
        ids = [str(i) for i in range(len(cells))]
    else:
        ids = [r[pos[id_column]] for r in cells]
        seen: set[str] = set()
        for n in ids:
            if n in seen:
                raise ValueError(f"--id-column: the ID {n!r} appears twice in {str(p)!r}")
            seen.add(n)
    return Candidates(ids, X, list(columns), labels)


def write_id_table(path: str | Path | None, header: tuple[str, str], rows: list[tuple],
                   out=None) -> None:
    """Write ``rows`` (id, value) as a CSV with ``header`` to ``path`` (``None``: ``out``,
    e.g. sys.stdout). Used by ``oed experiment ask --out`` and the design outputs."""
    import csv
    import sys

    if path is None:
        w = csv.writer(out or sys.stdout, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)
        return
    with Path(path).open("w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)
