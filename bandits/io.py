"""Reading arms / weights from files and writing designs as JSON (used by the CLI)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from design.result import DesignResult


def load_matrix(path: str | Path, name: str = "arms") -> np.ndarray:
    """Load a numeric matrix from ``.npy`` or a delimited text file (CSV, TSV, spaces).

    Text files may have one header line of column names; lines starting with ``#`` are
    comments. One arm per row.
    """
    p = Path(path)
    if not p.exists():
        raise ValueError(f"{name} file {str(p)!r} does not exist")
    if p.suffix == ".npy":
        return np.load(p, allow_pickle=False)
    text = p.read_text()
    delimiter = "," if "," in text else ("\t" if "\t" in text else None)
    for skip in (0, 1):
        try:
            arr = np.loadtxt(p, delimiter=delimiter, skiprows=skip, ndmin=2, comments="#")
            return arr
        except ValueError:
            continue
    raise ValueError(f"{name} file {str(p)!r} is not a numeric matrix (CSV/TSV/NPY)")


def load_vector(spec: str, name: str) -> np.ndarray:
    """A vector given inline (``"1,0,-1"``) or as a file (``.npy`` / text, one row)."""
    if Path(spec).exists():
        return load_matrix(spec, name).ravel()
    try:
        return np.array([float(v) for v in spec.split(",")])
    except ValueError:
        raise ValueError(f"{name} must be a comma-separated list of numbers or a file; "
                         f"got {spec!r}") from None


def load_weights(path: str | Path) -> np.ndarray:
    """Weights from a design JSON written by ``oed design`` or from a one-column file."""
    p = Path(path)
    if p.suffix == ".json":
        if not p.exists():
            raise ValueError(f"weights file {str(p)!r} does not exist")
        data = json.loads(p.read_text())
        if "weights" not in data:
            raise ValueError(f"weights file {str(p)!r} has no 'weights' entry")
        return np.asarray(data["weights"], dtype=float)
    return load_matrix(p, "weights").ravel()


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
