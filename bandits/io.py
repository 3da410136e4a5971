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
    return load_matrix(p, name).ravel()


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
