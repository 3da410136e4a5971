"""Replicate simulated runs over many seeds, on all cores or a dask cluster.

:func:`replicate` runs one or several algorithms on the same instance and the same seeds
and collects a tidy :class:`ReplicationTable` (one row per run) that can be summarised,
saved (CSV / JSON), read back and plotted (:func:`bandits.plots.boxplot_samples`).

Every run is a pure function of ``(algorithm, instance, seed, delta, epsilon,
max_samples, options)``: the policy and the environment draw from generators seeded by
the run's seed (:mod:`bandits._core.rng`), so the table is identical -- except the measured
``wall_time`` -- whatever the backend, the number of workers and the chunking.

>>> from bandits import replicate                                   # doctest: +SKIP
>>> from bandits.instances import reda_classic                      # doctest: +SKIP
>>> table = replicate(["m-lingape", "lucb"], reda_classic(), 500)   # doctest: +SKIP
>>> print(table.summary())                                          # doctest: +SKIP
"""

from __future__ import annotations

import csv
import json
import math
import multiprocessing as mp
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from bandits._core.result import RunResult, check_stop_reasons
from bandits.gifa import GIFA, make_algorithm
from bandits.runner import run

__all__ = ["COLUMNS", "ReplicationTable", "Summary", "clopper_pearson", "mean_interval",
           "replicate"]

#: Columns of a :class:`ReplicationTable`, in order.
COLUMNS: tuple[str, ...] = (
    "algorithm", "instance", "seed", "samples", "correct", "stopped_by", "wall_time",
    "recommendation", "counts",
)
_INT_COLUMNS = ("seed", "samples")
_STR_COLUMNS = ("algorithm", "instance", "stopped_by", "recommendation", "counts")
BACKENDS = ("processes", "dask", "serial")
#: Run options that are not rule overrides of :class:`bandits.GIFA`.
_RUN_OPTIONS = ("S", "sigma")

AlgorithmSpec = str | GIFA | tuple
PathLike = str | os.PathLike


# --------------------------------------------------------------------------------------
# The table
# --------------------------------------------------------------------------------------


_CSV_META_PREFIX = "# oed-bandits replication table; meta: "


def _ints_to_text(values: Iterable[int]) -> str:
    return " ".join(str(int(v)) for v in values)


def _text_to_ints(text: str) -> np.ndarray:
    return np.array([int(v) for v in text.split()], dtype=np.int64)


def _parse_bool(value: Any, where: str) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    text = str(value).strip().lower()
    if text in ("true", "1", "yes"):
        return True
    if text in ("false", "0", "no"):
        return False
    raise ValueError(f"{where}: not a boolean: {value!r}")


class Summary:
    """Per-algorithm statistics of a :class:`ReplicationTable` (see its ``summary``).

    Iterating yields one dict per group with the keys ``algorithm``, ``instance``,
    ``runs``, ``mean``, ``std`` (sample standard deviation, ``ddof=1``; NaN for one run),
    ``median``, ``min``, ``max`` (all on ``samples``), ``error_rate`` (fraction of runs whose
    recommendation is wrong; by default a run stopped by the budget counts as not correct,
    see :meth:`ReplicationTable.summary`), ``errors``, ``budget`` (runs stopped by the
    sample budget) and ``wall_time`` (mean seconds per run). ``summary["m-lingape"]`` gets
    one group by label.

    Intervals: ``mean_ci`` is the 95% Student-t confidence interval of the mean sample
    complexity, ``mean +- t_{0.975, n-1} std / sqrt(n)`` (NaN for one run; with censored
    runs it is an interval for the censored mean); ``error_ci`` is the exact
    Clopper-Pearson 95% interval of the error probability from ``errors`` out of the judged
    runs: ``[B(0.025; k, n-k+1), B(0.975; k+1, n-k)]`` with ``B`` the beta quantile (0 and 1
    at the ends). ``to_pandas()`` gives a DataFrame (pandas is an optional extra), and in a
    notebook the summary shows as an HTML table.
    """

    KEYS = ("algorithm", "instance", "runs", "mean", "mean_ci", "std", "median", "min", "max",
            "error_rate", "error_ci", "errors", "budget", "wall_time")

    def __init__(self, rows: Sequence[dict], max_samples: int | None = None,
                 budget: str = "failure") -> None:
        self.rows = list(rows)
        self.max_samples = max_samples
        self.budget = budget

    def __iter__(self) -> Iterator[dict]:
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, algorithm: str) -> dict:
        hits = [r for r in self.rows if r["algorithm"] == algorithm]
        if not hits:
            raise KeyError(f"no algorithm {algorithm!r} in the summary; have "
                           f"{[r['algorithm'] for r in self.rows]}")
        if len(hits) > 1:
            raise KeyError(f"algorithm {algorithm!r} was run on several instances; "
                           "iterate over the summary instead")
        return hits[0]

    def to_dict(self) -> list[dict]:
        """The rows as plain JSON-ready dicts."""
        return [dict(r) for r in self.rows]

    def __repr__(self) -> str:
        return f"Summary({len(self.rows)} group(s))"

    def to_pandas(self):
        """A ``pandas.DataFrame``, one row per group (``pip install oed-bandits[pandas]``);
        the intervals are split into ``*_low`` / ``*_high`` columns."""
        pd = _pandas()
        flat = []
        for r in self.rows:
            row = {k: v for k, v in r.items() if k not in ("mean_ci", "error_ci")}
            row["mean_ci_low"], row["mean_ci_high"] = r["mean_ci"]
            row["error_ci_low"], row["error_ci_high"] = r["error_ci"]
            flat.append(row)
        return pd.DataFrame(flat)

    def _repr_html_(self) -> str:
        head, body = self._cells(html=True)
        return _html_table(head, body, caption=self._notes())

    def _cells(self, html: bool = False) -> tuple[list[str], list[list[str]]]:
        several = len({r["instance"] for r in self.rows}) > 1
        head = (["instance"] if several else []) + [
            "algorithm", "runs", "mean +- 95% CI", "std", "median", "min", "max", "error",
            "95% CI (CP)", "budget", "ms/run"]
        body = []
        for r in self.rows:
            std = "-" if not np.isfinite(r["std"]) else f"{r['std']:.1f}"
            lo, hi = r["mean_ci"]
            mean_ci = (f"{r['mean']:.1f}" if not np.isfinite(lo)
                       else f"{r['mean']:.1f} +- {(hi - lo) / 2:.1f}")  # t-interval: symmetric
            elo, ehi = r["error_ci"]
            err_ci = "-" if not np.isfinite(elo) else f"[{elo:.3f}, {ehi:.3f}]"
            body.append(([r["instance"]] if several else []) + [
                r["algorithm"], str(r["runs"]), mean_ci, std,
                f"{r['median']:.1f}", str(r["min"]), str(r["max"]),
                f"{r['error_rate']:.3f}", err_ci, str(r["budget"]),
                f"{1e3 * r['wall_time']:.2f}"])
        return head, body

    def _notes(self) -> str:
        censored = sum(r["budget"] for r in self.rows)
        if not censored:
            return ""
        cap = "" if self.max_samples is None else f" (max_samples={self.max_samples})"
        how = {"failure": "counted as errors (not identified)",
               "estimate": "judged on their current estimate",
               "exclude": "left out of the error rate"}[self.budget]
        return (f"note: {censored} run(s) hit the sample budget{cap}; their samples are "
                f"censored, so mean/median are lower bounds; they are {how}")

    def __str__(self) -> str:
        several = len({r["instance"] for r in self.rows}) > 1
        head, body = self._cells()
        widths = [max(len(h), *(len(row[i]) for row in body)) if body else len(h)
                  for i, h in enumerate(head)]
        n_left = 2 if several else 1

        def fmt(cells: Sequence[str]) -> str:
            return "  ".join(c.ljust(w) if i < n_left else c.rjust(w)
                             for i, (c, w) in enumerate(zip(cells, widths, strict=True)))

        lines = [fmt(head), "  ".join("-" * w for w in widths)] + [fmt(b) for b in body]
        if not several and self.rows:
            lines.insert(0, f"instance: {self.rows[0]['instance']}")
        if self._notes():
            lines.append(self._notes())
        return "\n".join(lines)


def _pandas():
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError("to_pandas() needs pandas: pip install 'oed-bandits[pandas]'") from None
    return pd


def _html_table(head: Sequence[str], body: Sequence[Sequence[str]], caption: str = "") -> str:
    """A plain HTML table (escaped cells; numbers right-aligned) for notebooks."""
    from html import escape

    def cell(tag: str, text: str) -> str:
        numeric = bool(text) and (text[0].isdigit() or text[0] in "-[") and tag == "td"
        style = ' style="text-align:right"' if numeric else ""
        return f"<{tag}{style}>{escape(text)}</{tag}>"

    rows = ["<tr>" + "".join(cell("th", h) for h in head) + "</tr>"]
    rows += ["<tr>" + "".join(cell("td", c) for c in r) + "</tr>" for r in body]
    cap = f"<caption>{escape(caption)}</caption>" if caption else ""
    return f"<table>{cap}{''.join(rows)}</table>"


def mean_interval(samples: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """Student-t confidence interval of the mean, ``mean +- t_{(1+level)/2, n-1} s/sqrt(n)``
    (NaN for fewer than two values)."""
    from scipy import stats

    s = np.asarray(samples, dtype=np.float64)
    n = s.size
    if n < 2:
        return (float("nan"), float("nan"))
    half = stats.t.ppf(0.5 + level / 2, n - 1) * s.std(ddof=1) / np.sqrt(n)
    return (float(s.mean() - half), float(s.mean() + half))


def clopper_pearson(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Exact (Clopper-Pearson) interval of a binomial probability from ``k`` of ``n``:
    ``[B(a/2; k, n-k+1), B(1-a/2; k+1, n-k)]``, ``a = 1 - level``, 0 and 1 at the ends
    (NaN for ``n = 0``)."""
    from scipy import stats

    if n == 0:
        return (float("nan"), float("nan"))
    a = 1.0 - level
    lo = 0.0 if k == 0 else float(stats.beta.ppf(a / 2, k, n - k + 1))
    hi = 1.0 if k == n else float(stats.beta.ppf(1 - a / 2, k + 1, n - k))
    return (lo, hi)


class ReplicationTable:
    """Tidy results of replicated runs: one row per run.

    Columns (:data:`COLUMNS`): ``algorithm`` (label), ``instance`` (name), ``seed``,
    ``samples``, ``correct``, ``stopped_by`` (one of :data:`bandits.STOP_REASONS`), ``wall_time``
    (seconds of the jitted loop), ``recommendation`` and ``counts`` (space-separated
    integers, e.g. ``"0 1"``).  ``table["samples"]`` is a numpy array; ``meta`` holds the
    settings of the replication (delta, epsilon, max_samples, algorithm configurations).

    Parameters
    ----------
    columns : mapping of str to array_like
        One equal-length sequence per name of :data:`COLUMNS`.
    meta : dict, optional
        Free-form, JSON-serialisable settings.
    """

    def __init__(self, columns: Mapping[str, Any], meta: dict | None = None) -> None:
        missing = [c for c in COLUMNS if c not in columns]
        if missing:
            raise ValueError(f"columns: missing {missing}; a table needs {list(COLUMNS)}")
        lengths = {c: len(columns[c]) for c in COLUMNS}
        if len(set(lengths.values())) > 1:
            raise ValueError(f"columns: unequal lengths {lengths}")
        cols: dict[str, np.ndarray] = {}
        for c in COLUMNS:
            values = list(columns[c])
            if c in _INT_COLUMNS:
                arr = np.array([int(v) for v in values], dtype=np.int64)
            elif c == "correct":
                arr = np.array([_parse_bool(v, "correct") for v in values], dtype=np.bool_)
            elif c == "wall_time":
                arr = np.array([float(v) for v in values], dtype=np.float64)
            else:
                arr = np.array([str(v) for v in values], dtype=object)
            arr.setflags(write=False)
            cols[c] = arr
        check_stop_reasons(cols["stopped_by"])
        self._cols = cols
        self.meta: dict = dict(meta or {})

    # construction -----------------------------------------------------------------------

    @classmethod
    def from_rows(cls, rows: Iterable[Mapping[str, Any]],
                  meta: dict | None = None) -> ReplicationTable:
        """A table from dicts keyed by the names of :data:`COLUMNS`."""
        rows = list(rows)
        return cls({c: [r[c] for r in rows] for c in COLUMNS}, meta)

    @classmethod
    def from_results(cls, results: Iterable[RunResult], labels: Sequence[str] | None = None,
                     meta: dict | None = None) -> ReplicationTable:
        """A table from :class:`bandits.RunResult` objects (``labels`` replace
        ``result.algorithm``)."""
        results = list(results)
        if labels is None:
            labels = [r.algorithm for r in results]
        if len(labels) != len(results):
            raise ValueError(f"labels has length {len(labels)} for {len(results)} results")
        return cls.from_rows((_result_row(r, lab)
                              for r, lab in zip(results, labels, strict=True)), meta)

    @classmethod
    def concat(cls, tables: Sequence[ReplicationTable]) -> ReplicationTable:
        """Stack tables (e.g. several instances) into one; ``meta`` of the first is kept."""
        if not tables:
            raise ValueError("tables: need at least one table")
        cols = {c: np.concatenate([t._cols[c] for t in tables]) for c in COLUMNS}
        return cls(cols, tables[0].meta)

    # access -----------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._cols["seed"])

    def __getitem__(self, column: str) -> np.ndarray:
        if column not in self._cols:
            raise KeyError(f"no column {column!r}; columns are {list(COLUMNS)}")
        return self._cols[column]

    @property
    def columns(self) -> tuple[str, ...]:
        """Column names, in order."""
        return COLUMNS

    @property
    def algorithms(self) -> list[str]:
        """Algorithm labels in order of first appearance."""
        return list(dict.fromkeys(self._cols["algorithm"]))

    @property
    def instances(self) -> list[str]:
        """Instance names in order of first appearance."""
        return list(dict.fromkeys(self._cols["instance"]))

    def rows(self) -> Iterator[dict]:
        """Rows as dicts of Python scalars."""
        for i in range(len(self)):
            yield {c: self._cols[c][i].item() if hasattr(self._cols[c][i], "item")
                   else self._cols[c][i] for c in COLUMNS}

    def select(self, algorithm: str | None = None,
               instance: str | None = None) -> ReplicationTable:
        """The rows of one algorithm label and/or one instance name."""
        mask = np.ones(len(self), dtype=bool)
        if algorithm is not None:
            if algorithm not in self.algorithms:
                raise ValueError(f"algorithm: {algorithm!r} not in the table; have "
                                 f"{self.algorithms}")
            mask &= self._cols["algorithm"] == algorithm
        if instance is not None:
            if instance not in self.instances:
                raise ValueError(f"instance: {instance!r} not in the table; have "
                                 f"{self.instances}")
            mask &= self._cols["instance"] == instance
        return ReplicationTable({c: self._cols[c][mask] for c in COLUMNS}, self.meta)

    def samples_by_algorithm(self) -> dict[str, np.ndarray]:
        """``{label: samples}`` in row order (label ``"algorithm @ instance"`` when the
        table holds several instances)."""
        return {label: self._cols["samples"][mask] for label, mask in self.groups()}

    def recommendations(self) -> list[np.ndarray]:
        """The recommended sets as integer arrays."""
        return [_text_to_ints(s) for s in self._cols["recommendation"]]

    def counts_matrix(self) -> np.ndarray:
        """Pulls per arm, shape ``(n_rows, K)`` (all rows must have the same K)."""
        counts = [_text_to_ints(s) for s in self._cols["counts"]]
        if len({c.size for c in counts}) > 1:
            raise ValueError("counts: rows have different numbers of arms (several "
                             "instances); use select(instance=...) first")
        return np.array(counts, dtype=np.int64).reshape(len(counts), -1)

    def equals(self, other: ReplicationTable, *, wall_time: bool = True) -> bool:
        """Same rows (``wall_time=False`` ignores the measured times)."""
        if not isinstance(other, ReplicationTable) or len(self) != len(other):
            return False
        for c in COLUMNS:
            if c == "wall_time" and not wall_time:
                continue
            if not np.array_equal(self._cols[c], other._cols[c]):
                return False
        return True

    def groups(self) -> list[tuple[str, np.ndarray]]:
        """``[(label, row mask), ...]`` per (instance, algorithm), in table order; the label
        is the algorithm, or ``"algorithm @ instance"`` when there are several instances."""
        alg, inst = self._cols["algorithm"], self._cols["instance"]
        several = len(self.instances) > 1
        keys = list(dict.fromkeys(zip(inst, alg, strict=True)))
        return [(f"{a} @ {i}" if several else a, (inst == i) & (alg == a)) for i, a in keys]

    # statistics -------------------------------------------------------------------------

    def summary(self, budget: str = "failure") -> Summary:
        """Per-algorithm (and per-instance) statistics of the sample complexity.

        Parameters
        ----------
        budget : {"failure", "estimate", "exclude"}
            How runs stopped by the sample budget enter ``errors`` / ``error_rate``.  A
            budget-stopped run has not identified anything, so by default (``"failure"``)
            it is never a correct identification: ``errors`` = wrong answers certified by
            the stopping rule + budget-stopped runs.  ``"estimate"`` judges the current
            estimate of a budget-stopped run like a final answer (its ``correct`` column);
            ``"exclude"`` leaves budget-stopped runs out: ``error_rate`` is then the
            fraction of wrong answers among the runs stopped by the rule (the PAC error,
            NaN if no run stopped by the rule).

        Returns
        -------
        Summary
            ``runs``, ``mean``, ``std`` (``ddof=1``), ``median``, ``min``, ``max`` of
            ``samples``; ``error_rate`` and ``errors`` (see ``budget``); ``budget`` =
            number of runs stopped by the budget; ``wall_time`` = mean seconds per run.
        """
        if budget not in ("failure", "estimate", "exclude"):
            raise ValueError("budget must be 'failure', 'estimate' or 'exclude'; "
                             f"got {budget!r}")
        rows = []
        alg, inst = self._cols["algorithm"], self._cols["instance"]
        for i, a in dict.fromkeys(zip(inst, alg, strict=True)):
            mask = (inst == i) & (alg == a)
            s = self._cols["samples"][mask].astype(np.float64)
            n = int(s.size)
            by_budget = self._cols["stopped_by"][mask] == "budget"
            wrong_est = ~self._cols["correct"][mask]
            if budget == "estimate":
                wrong, judged = int(np.count_nonzero(wrong_est)), n
            elif budget == "failure":
                wrong, judged = int(np.count_nonzero(wrong_est | by_budget)), n
            else:
                wrong = int(np.count_nonzero(wrong_est & ~by_budget))
                judged = int(np.count_nonzero(~by_budget))
            rows.append({
                "algorithm": str(a), "instance": str(i), "runs": n,
                "mean": float(s.mean()), "mean_ci": mean_interval(s),
                "std": float(s.std(ddof=1)) if n > 1 else float("nan"),
                "median": float(np.median(s)), "min": int(s.min()), "max": int(s.max()),
                "error_rate": wrong / judged if judged else float("nan"),
                "error_ci": clopper_pearson(wrong, judged), "errors": wrong,
                "budget": int(np.count_nonzero(self._cols["stopped_by"][mask] == "budget")),
                "wall_time": float(self._cols["wall_time"][mask].mean()),
            })
        max_samples = self.meta.get("max_samples")
        return Summary(rows, None if max_samples is None else int(max_samples), budget)

    # input / output ---------------------------------------------------------------------

    def to_csv(self, path: PathLike) -> Path:
        """Write the rows as CSV with a header line (``wall_time`` in full precision).

        The first line is a comment, ``# oed-bandits replication table; meta: {JSON}``,
        holding :attr:`meta` (settings and provenance: versions, time, call, seeds,
        instance), so the file describes itself; :meth:`read_csv` restores it
        (``pandas.read_csv(path, comment="#")`` skips it).
        """
        p = Path(path)
        with p.open("w", newline="", encoding="utf-8") as fh:
            fh.write(f"{_CSV_META_PREFIX}{json.dumps(_jsonable(self.meta))}\n")
            w = csv.writer(fh)
            w.writerow(COLUMNS)
            for row in self.rows():
                w.writerow([repr(row[c]) if c == "wall_time" else row[c] for c in COLUMNS])
        return p

    @classmethod
    def read_csv(cls, path: PathLike) -> ReplicationTable:
        """Read a table written by :meth:`to_csv` (extra columns are ignored)."""
        p = Path(path)
        try:
            with p.open(newline="", encoding="utf-8") as fh:
                first = fh.readline()
                meta = None
                if first.startswith(_CSV_META_PREFIX):
                    meta = json.loads(first[len(_CSV_META_PREFIX):])
                elif first.startswith("#"):
                    meta = None
                else:
                    fh.seek(0)
                reader = csv.DictReader(fh)
                header = reader.fieldnames or []
                missing = [c for c in COLUMNS if c not in header]
                if missing:
                    raise ValueError(f"path: {str(p)!r} lacks the column(s) {missing}")
                rows = list(reader)
        except (OSError, json.JSONDecodeError) as exc:
            raise ValueError(f"path: cannot read {str(p)!r}: {exc}") from None
        try:
            return cls.from_rows(rows, meta)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"path: {str(p)!r} is not a replication table: {exc}") from None

    def to_dict(self) -> dict:
        """``{"meta": ..., "columns": [...], "rows": [{...}, ...]}`` (JSON-ready)."""
        return {"meta": _jsonable(self.meta), "columns": list(COLUMNS),
                "rows": list(self.rows())}

    def to_json(self, path: PathLike) -> Path:
        """Write :meth:`to_dict` as JSON."""
        p = Path(path)
        p.write_text(json.dumps(self.to_dict(), indent=1) + "\n", encoding="utf-8")
        return p

    @classmethod
    def read_json(cls, path: PathLike) -> ReplicationTable:
        """Read a table written by :meth:`to_json`."""
        p = Path(path)
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ValueError(f"path: cannot read {str(p)!r} as JSON: {exc}") from None
        if not isinstance(data, dict) or "rows" not in data:
            raise ValueError(f"path: {str(p)!r} has no 'rows' entry")
        try:
            return cls.from_rows(data["rows"], data.get("meta"))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"path: {str(p)!r} is not a replication table: {exc}") from None

    @classmethod
    def read(cls, path: PathLike) -> ReplicationTable:
        """:meth:`read_json` for ``.json`` files, :meth:`read_csv` otherwise."""
        return cls.read_json(path) if str(path).endswith(".json") else cls.read_csv(path)

    def save(self, path: PathLike) -> Path:
        """:meth:`to_json` for ``.json`` files, :meth:`to_csv` for ``.csv``; any other
        extension is a ValueError (a CSV is never written into, say, ``t.xlsx``)."""
        suffix = Path(path).suffix.lower()
        if suffix not in (".json", ".csv"):
            raise ValueError(f"path: {str(path)!r} must end in .csv or .json; got "
                             f"{suffix or 'no extension'!r}")
        return self.to_json(path) if suffix == ".json" else self.to_csv(path)

    def to_pandas(self):
        """A ``pandas.DataFrame`` of the rows (``pip install 'oed-bandits[pandas]'``); the
        table's :attr:`meta` is in ``df.attrs["meta"]``."""
        df = _pandas().DataFrame({c: self._cols[c] for c in COLUMNS})
        df.attrs["meta"] = _jsonable(self.meta)
        return df

    def _repr_html_(self) -> str:
        n_alg = len(self.algorithms)
        caption = (f"ReplicationTable: {len(self)} runs, {n_alg} algorithm(s)"
                   + "".join(f", {k}={self.meta[k]}" for k in ("delta", "epsilon")
                             if k in self.meta))
        if len(self) == 0:
            return f"<p>{caption} (empty)</p>"
        summary = self.summary()
        head, body = summary._cells(html=True)
        note = summary._notes()
        return (f"<p><b>{caption}</b><br>instance(s): {', '.join(self.instances)}</p>"
                + _html_table(head, body, caption=note))

    # display ----------------------------------------------------------------------------

    def __repr__(self) -> str:
        return (f"ReplicationTable({len(self)} rows, algorithms={self.algorithms}, "
                f"instances={self.instances})")

    def __str__(self) -> str:
        n_alg = len(self.algorithms)
        head = (f"ReplicationTable: {len(self)} runs, {n_alg} algorithm(s)"
                + "".join(f", {k}={self.meta[k]}" for k in ("delta", "epsilon")
                          if k in self.meta))
        if len(self) == 0:
            return head + " (empty)"
        return head + "\n" + str(self.summary())


def _jsonable(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, (np.integer, np.floating, np.bool_)):
        return obj.item()
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    return repr(obj)


def _result_row(res: RunResult, label: str) -> dict:
    return {
        "algorithm": label, "instance": res.instance, "seed": int(res.seed),
        "samples": int(res.samples), "correct": bool(res.correct),
        "stopped_by": res.stopped_by, "wall_time": float(res.wall_time),
        "recommendation": _ints_to_text(res.recommendation),
        "counts": _ints_to_text(res.counts),
    }


# --------------------------------------------------------------------------------------
# Workers
# --------------------------------------------------------------------------------------

#: Replications (tokens) this process has already warmed up for.
_WARMED: set[str] = set()


def _warm_up(token: str, specs: Sequence[tuple[str, Any, dict]], instance: Any,
             common: dict) -> None:
    """Load the jitted code (numba cache) and per-process caches once per process.

    A short run of every algorithm, capped at ``K + 2`` samples, so that the first timed
    run of a worker does not include loading the compiled functions or the optimized
    rule's linear programs.
    """
    if token in _WARMED:
        return
    cap = min(int(common["max_samples"]), _n_arms(instance) + 2)
    for _label, algo, options in specs:
        run(algo, instance, **{**common, "max_samples": cap, "seed": 0}, **options)
    _WARMED.add(token)


def _run_chunk_packed(args: tuple) -> list[tuple[int, dict]]:
    return _run_chunk(*args)


# --------------------------------------------------------------------------------------
# Worker processes
# --------------------------------------------------------------------------------------

#: Start method of the worker processes: ``"forkserver"`` where the platform has it (Linux,
#: macOS), else ``"spawn"``; never ``"fork"``.  Forking the caller is unsafe: by the time
#: workers start it runs numba's and BLAS's threads (and dask's, with that backend), and a
#: fork copies their locks in whatever state they are (Python 3.12 warns, 3.14 no longer
#: forks by default).  The fork server is a clean single-threaded process that imports
#: ``bandits.replicate`` once, so a worker costs a fork of it; spawn imports everything
#: again in every worker (benchmarks/bench_start_method.py measures both).
START_METHOD = "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"


def worker_context() -> mp.context.BaseContext:
    """The multiprocessing context every worker pool of the toolkit uses (START_METHOD)."""
    ctx = mp.get_context(START_METHOD)
    if START_METHOD == "forkserver":
        ctx.set_forkserver_preload(["bandits.replicate"])
        _start_fork_server_ignoring_sigint()
    return ctx


def _ignore_sigint() -> None:
    """Worker initializer: Ctrl-C is the parent's to handle (it terminates the pool), so
    workers neither print a KeyboardInterrupt traceback each nor die half-way on their own."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def map_in_workers(fn: Callable[[Any], Any], jobs: Sequence[Any], n_workers: int, *,
                   ordered: bool = True) -> Iterator[Any]:
    """``fn(job)`` for every job in ``n_workers`` worker processes, yielded in the order of
    ``jobs`` (``ordered=False``: as they finish).

    On any exception in the caller (``KeyboardInterrupt`` included) or in a worker, the
    workers are terminated at once instead of finishing their chunks, so Ctrl-C returns in
    well under a second.
    """
    pool = worker_context().Pool(n_workers, initializer=_ignore_sigint)
    try:
        yield from (pool.imap if ordered else pool.imap_unordered)(fn, jobs)
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()


def _run_chunk(token: str, specs: Sequence[tuple[str, Any, dict]], instance: Any,
               common: dict, tasks: Sequence[tuple[int, int, int]]) -> list[tuple[int, dict]]:
    """Run ``tasks`` = ``[(row index, spec index, seed), ...]``; return ``(index, row)``."""
    _warm_up(token, specs, instance, common)
    out = []
    for idx, s, seed in tasks:
        label, algo, options = specs[s]
        res = run(algo, instance, seed=seed, **common, **options)
        out.append((idx, _result_row(res, label)))
    return out


# --------------------------------------------------------------------------------------
# Argument checking
# --------------------------------------------------------------------------------------


def label_of(algo: Any, options: dict) -> str:
    """The table label of ``algo`` with ``options``: the GIFA configuration's name (rule
    overrides spelled out), else ``name(key=value,...)``; validates the name and options."""
    from bandits.registry import entry

    if isinstance(algo, GIFA) or (isinstance(algo, str) and entry(algo).family == "gifa"):
        overrides = {k: v for k, v in options.items() if k not in _RUN_OPTIONS}
        return make_algorithm(algo, **overrides).name
    entry(algo).check_options(options)
    suffix = ",".join(f"{k}={v}" for k, v in sorted(options.items()))
    return f"{algo}({suffix})" if suffix else algo


_label_of = label_of


def _normalise_specs(algorithm: Any, options: dict) -> list[tuple[str, Any, dict]]:
    """``[(label, algorithm, options), ...]`` from the ``algorithm`` argument."""
    if isinstance(algorithm, (str, GIFA)) or (isinstance(algorithm, tuple)
                                              and len(algorithm) == 3
                                              and isinstance(algorithm[0], str)
                                              and isinstance(algorithm[2], Mapping)):
        items = [algorithm]
    elif isinstance(algorithm, (list, tuple)):
        items = list(algorithm)
        if not items:
            raise ValueError("algorithm: the list of algorithms is empty")
    else:
        raise ValueError("algorithm must be a name, a GIFA, a (label, algorithm, options) "
                         f"tuple or a list of them; got {algorithm!r}")
    specs = []
    for item in items:
        if isinstance(item, tuple):
            if len(item) != 3 or not isinstance(item[0], str) \
                    or not isinstance(item[2], Mapping):
                raise ValueError("algorithm: tuples must be (label, algorithm, options dict); "
                                 f"got {item!r}")
            label, algo, opts = item[0], item[1], {**options, **item[2]}
            _label_of(algo, opts)  # validates the name and the overrides
        elif isinstance(item, (str, GIFA)):
            algo, opts = item, dict(options)
            label = _label_of(algo, opts)
        else:
            raise ValueError(f"algorithm: entries must be names, GIFA objects or "
                             f"(label, algorithm, options) tuples; got {item!r}")
        if not label:
            raise ValueError("algorithm: labels must be non-empty strings")
        specs.append((label, algo, opts))
    labels = [s[0] for s in specs]
    dup = sorted({lab for lab in labels if labels.count(lab) > 1})
    if dup:
        raise ValueError(f"algorithm: duplicate label(s) {dup}; give (label, algorithm, "
                         "options) tuples to tell them apart")
    return specs


def _check_seeds(n_runs: Any, seeds: Any) -> list[int]:
    if n_runs is not None and (isinstance(n_runs, bool)
                               or not isinstance(n_runs, (int, np.integer))):
        raise ValueError(f"n_runs must be a positive integer; got {n_runs!r}")
    if n_runs is not None and n_runs < 1:
        raise ValueError(f"n_runs must be a positive integer (>= 1); got {n_runs!r}")
    if seeds is None:
        if n_runs is None:
            raise ValueError("n_runs: give the number of runs (or seeds=...)")
        return list(range(int(n_runs)))
    try:
        seeds = list(seeds)
    except TypeError:
        raise ValueError(f"seeds must be a sequence of integers; got {seeds!r}") from None
    for s in seeds:
        if isinstance(s, (bool, np.bool_)) or not isinstance(s, (int, np.integer)) or s < 0:
            raise ValueError(f"seeds must be non-negative integers; got {s!r}")
    if n_runs is not None and len(seeds) != n_runs:
        raise ValueError(f"seeds has length {len(seeds)} but n_runs = {n_runs}")
    if not seeds:
        raise ValueError("seeds is empty")
    if len(set(seeds)) != len(seeds):
        raise ValueError("seeds must be distinct (a run is a deterministic function of "
                         "its seed, a repeated seed repeats the run)")
    return [int(s) for s in seeds]


def _check_n_jobs(n_jobs: Any) -> int:
    from rounding.validation import check_int

    if check_int(n_jobs, "n_jobs", -1) == 0:
        raise ValueError(f"n_jobs must be -1 (all cores) or a positive integer; got {n_jobs!r}")
    return (os.cpu_count() or 1) if n_jobs == -1 else int(n_jobs)


def instance_by_name(name: str, **kwargs: Any) -> Any:
    """Build a registered instance (:func:`bandits.instances.get_instance`).

    Raises ValueError listing the known names when ``name`` is unknown.
    """
    try:
        from bandits.instances import get_instance
    except ImportError:  # pragma: no cover - registry always present in releases
        from bandits import instances

        known = {"soare": instances.soare}
        key = str(name).strip().lower().replace("_", "-")
        if key not in known:
            raise ValueError(f"instance: unknown instance {name!r}; known: "
                             f"{', '.join(known)}") from None
        return known[key](**kwargs)
    return get_instance(name, **kwargs)


def _n_arms(instance: Any) -> int:
    """Number of arms of a linear / logistic instance (rows of X) or a SubsetEnv (N)."""
    X = getattr(instance, "X", None)
    return int(np.asarray(X).shape[0]) if X is not None else int(instance.N)


def _resolve_instance(instance: Any) -> Any:
    if isinstance(instance, str):
        return instance_by_name(instance)
    if not (hasattr(instance, "X") or hasattr(instance, "kind_code")):
        raise ValueError(f"instance must be a bandits.instances.Instance, a LogisticInstance, "
                         f"a SubsetEnv or a registered name; got {instance!r}")
    return instance


def _chunks(tasks: list, n_workers: int, chunksize: int | None) -> list[list]:
    if chunksize is None:
        # about 8 chunks per worker: balances uneven run lengths, keeps overhead negligible
        chunksize = max(1, math.ceil(len(tasks) / (8 * n_workers)))
    return [tasks[i:i + chunksize] for i in range(0, len(tasks), chunksize)]


def _progress_bar(progress: bool | None, total: int, desc: str):
    from tqdm.auto import tqdm

    if progress is None:
        progress = total >= 50 and sys.stderr.isatty()
    return tqdm(total=total, desc=desc, unit="run", disable=not progress, leave=False,
                file=sys.stderr)


# --------------------------------------------------------------------------------------
# replicate
# --------------------------------------------------------------------------------------


def replicate(algorithm: AlgorithmSpec | Sequence[AlgorithmSpec], instance: Any,
              n_runs: int | None = None, *, seeds: Sequence[int] | None = None,
              n_jobs: int = -1, backend: str | None = None, client: Any = None,
              progress: bool | None = None, delta: float = 0.05, epsilon: float = 0.0,
              max_samples: int = 10**7, chunksize: int | None = None,
              **options: Any) -> ReplicationTable:
    """Run ``algorithm`` on ``instance`` for many seeds and collect a tidy table.

    Parameters
    ----------
    algorithm : str, GIFA, (label, algorithm, options) tuple, or a list of them
        What to run. A list runs several algorithms side by side on the same seeds; a
        tuple gives a label of your choice and per-algorithm options (rule overrides such
        as ``{"selection": "optimized"}``, or ``S`` / ``sigma``) on top of ``**options``.
        Labels (the GIFA name, e.g. ``"m-lingape(selection=optimized)"``, or the tuple's
        label) must be distinct.
    instance : Instance or str
        The problem (a registered name is built by :func:`bandits.instances.get_instance`).
    n_runs : int
        Number of runs per algorithm (>= 1). Optional when ``seeds`` is given.
    seeds : sequence of int, optional
        Distinct non-negative seeds, one per run; default ``range(n_runs)``.
    n_jobs : int, default -1
        Worker processes; -1 means ``os.cpu_count()``. ``n_jobs=1`` with the
        ``"processes"`` backend runs in this process.
    backend : {"processes", "dask", "serial"}, optional
        ``"processes"`` (default): a ``concurrent.futures.ProcessPoolExecutor`` fed with
        chunks of runs; ``"dask"``: a ``dask.distributed`` client (``client`` or, when
        None, a ``LocalCluster`` of ``n_jobs`` single-threaded workers created and closed
        for this call); ``"serial"``: a loop in this process. Default ``"dask"`` when a
        ``client`` is given.
    client : distributed.Client, optional
        An existing dask client (its workers must be able to import ``bandits``).
    progress : bool, optional
        Show a tqdm progress bar on stderr; None: when there are >= 50 runs and stderr is
        a terminal.
    delta, epsilon, max_samples
        As in :func:`bandits.run`.
    chunksize : int, optional
        Runs per task sent to a worker (default: about 8 tasks per worker).
    **options
        Passed to every :func:`bandits.run` call (rule overrides, ``S``, ``sigma``).

    Returns
    -------
    ReplicationTable
        One row per (algorithm, seed), algorithms in the given order and seeds in the
        given order within each algorithm. Identical for the same seeds whatever
        ``n_jobs``, ``backend`` and ``chunksize`` (except ``wall_time``).

    Raises
    ------
    ValueError
        Naming the argument: ``n_runs < 1``, ``seeds`` of the wrong length / negative /
        repeated, unknown ``backend``, bad ``n_jobs``, unknown algorithm or option, and
        every error of :func:`bandits.run` (checked once in this process before any
        worker starts).
    """
    if backend is None:
        backend = "dask" if client is not None else "processes"
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {list(BACKENDS)}; got {backend!r}")
    if client is not None and backend != "dask":
        raise ValueError(f"client is only used with backend='dask'; got backend={backend!r}")
    seeds_list = _check_seeds(n_runs, seeds)
    workers = _check_n_jobs(n_jobs)
    if chunksize is not None and (isinstance(chunksize, bool)
                                  or not isinstance(chunksize, (int, np.integer))
                                  or chunksize < 1):
        raise ValueError(f"chunksize must be a positive integer; got {chunksize!r}")
    if progress is not None and not isinstance(progress, bool):
        raise ValueError(f"progress must be True, False or None; got {progress!r}")
    instance = _resolve_instance(instance)
    specs = _normalise_specs(algorithm, options)
    from rounding.validation import check_budget, check_probability, check_real

    common = {"delta": check_probability(delta, "delta"),
              "epsilon": check_real(epsilon, "epsilon", 0.0),
              "max_samples": check_budget(max_samples)}
    token = uuid.uuid4().hex
    # validate every configuration here (clear errors before any worker starts) and
    # warm this process up (the serial path) and fail here, before any worker starts
    _warm_up(token, specs, instance, common)

    tasks = [(k, s, seed) for k, (s, seed) in enumerate(
        (s, seed) for s in range(len(specs)) for seed in seeds_list)]
    rows: list[dict | None] = [None] * len(tasks)
    t0 = time.perf_counter()
    bar = _progress_bar(progress, len(tasks), f"replicate {getattr(instance, 'name', '')}")
    try:
        if backend == "serial" or (backend == "processes" and workers == 1):
            for task in tasks:
                for idx, row in _run_chunk(token, specs, instance, common, [task]):
                    rows[idx] = row
                bar.update(1)
        elif backend == "processes":
            chunks = _chunks(tasks, workers, chunksize)
            jobs = [(token, specs, instance, common, ch) for ch in chunks]
            for part in map_in_workers(_run_chunk_packed, jobs, min(workers, len(chunks)),
                                       ordered=False):
                for idx, row in part:
                    rows[idx] = row
                bar.update(len(part))
        else:
            _run_dask(client, workers, token, specs, instance, common,
                      _chunks(tasks, workers if client is None else
                              max(1, len(client.scheduler_info().get("workers", {}))),
                              chunksize), rows, bar)
    finally:
        bar.close()
    elapsed = time.perf_counter() - t0
    meta = {
        "delta": delta, "epsilon": epsilon, "max_samples": max_samples,
        "instance": getattr(instance, "name", "instance"),
        "algorithms": {label: _describe(algo, opts) for label, algo, opts in specs},
        "n_runs": len(seeds_list), "backend": backend,
        "n_jobs": 1 if backend == "serial" else workers, "elapsed": elapsed,
    }
    from bandits.provenance import provenance

    meta["provenance"] = provenance(
        call=(f"replicate({[label for label, _, _ in specs]!r}, "
              f"{getattr(instance, 'name', 'instance')!r}, seeds={len(seeds_list)} seeds, "
              f"delta={delta!r}, epsilon={epsilon!r}, max_samples={max_samples!r})"),
        seeds=seeds_list, instance=instance)
    return ReplicationTable.from_rows(rows, meta)  # type: ignore[arg-type]


def _describe(algo: Any, opts: dict) -> dict:
    from bandits.registry import entry

    if isinstance(algo, str) and entry(algo).family != "gifa":
        return {"name": algo, **opts}
    overrides = {k: v for k, v in opts.items() if k not in _RUN_OPTIONS}
    desc = asdict(make_algorithm(algo, **overrides))
    desc.update({k: opts[k] for k in _RUN_OPTIONS if k in opts})
    return desc


def _start_fork_server_ignoring_sigint() -> None:
    """Start the fork server of :func:`worker_context` with SIGINT ignored.

    A terminal's Ctrl-C goes to the whole foreground process group.  The fork server keeps
    the SIGINT disposition it was started with as its children's (CPython restores the
    server's original handlers in each child), and an ignored SIGINT survives the exec of a
    new interpreter, so every worker forked from it ignores Ctrl-C from its first
    instruction; the parent handles the interrupt and stops them.  SIGINT is ignored here
    only while the server process is created (milliseconds): the server then imports its
    preload (this package, numba: seconds on a busy machine) without a KeyboardInterrupt
    traceback when Ctrl-C comes meanwhile.  The server and the workers it forks write
    their stderr to the null device: their results and errors travel back to the parent,
    which reports them, and a worker that Ctrl-C orphans while it starts (its parent
    already gone) cannot print a traceback under the parent's one line.  No-op when the
    server already runs (``ensure_running``) or outside the main thread (Python handles
    signals in the main thread only).
    """
    from multiprocessing import forkserver

    if threading.current_thread() is not threading.main_thread():
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    saved_stderr = os.dup(2)
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), 2)
        forkserver.ensure_running()
    finally:
        os.dup2(saved_stderr, 2)
        os.close(saved_stderr)
        signal.signal(signal.SIGINT, previous)


@contextmanager
def _sigint_deferred() -> Iterator[None]:
    """Hold a Ctrl-C (SIGINT) back during the block and raise KeyboardInterrupt after it.

    Main thread only (elsewhere a no-op: Python delivers signals to the main thread).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: received.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if received:
        raise KeyboardInterrupt


def _stop_workers_now(cluster: Any) -> None:
    """Kill the worker processes of our own dask cluster at once (Ctrl-C or a failure).

    They ignore SIGINT (``bandits._dask_preload``), and a graceful close would wait for each
    running chunk (up to the nanny's timeout); the nannies are first told not to restart them.
    Mirrors ``Pool.terminate`` of the ``processes`` backend.
    """
    for nanny in list(getattr(cluster, "workers", {}).values()):
        pid = getattr(nanny, "pid", None)
        if hasattr(nanny, "close_gracefully"):
            nanny.close_gracefully(reason="oed: interrupted")
        if pid:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):  # already gone
                pass


def _run_dask(client: Any, n_workers: int, token: str, specs: list, instance: Any,
              common: dict, chunks: list, rows: list, bar: Any) -> None:
    own = client is None
    try:
        from distributed import Client, LocalCluster, as_completed
    except ImportError:  # pragma: no cover - depends on the environment
        raise ValueError("backend='dask' needs dask.distributed: "
                         "pip install 'oed-bandits[dask]'") from None
    cluster = None
    if own:
        import logging

        import dask

        # dask's own log lines are silenced, in the workers (silence_logs) and in this
        # process (scheduler and nannies live here) until the cluster is closed, since
        # LocalCluster.close() restores the levels before its last comms have closed: a
        # failing run surfaces as the exception of its future instead.
        dask_logger = logging.getLogger("distributed")
        dask_level = dask_logger.level
        dask_logger.setLevel(logging.CRITICAL)
        scratch = None
        try:
            # a Ctrl-C while the cluster starts is raised once it is up (and then stopped
            # below), not inside dask's start-up, which cannot be interrupted cleanly
            with _sigint_deferred():
                # the workers are forked from our fork server, which ignores SIGINT from its
                # first instruction (see worker_context), so a Ctrl-C pressed while they
                # start never reaches them: no window in which a worker prints a traceback
                if START_METHOD == "forkserver":
                    worker_context()
                # the workers' scratch space (lock files included) in a folder of our own,
                # removed below even when the workers were killed before they cleaned up
                scratch = tempfile.mkdtemp(prefix="oed-dask-")
                with dask.config.set({"temporary-directory": scratch,
                                      "distributed.worker.multiprocessing-method":
                                      START_METHOD}):
                    cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1,
                                           processes=True, dashboard_address=None,
                                           # no dashboard; its HTTP routes on a free port
                                           scheduler_kwargs={"dashboard_address": ":0"},
                                           silence_logs=logging.CRITICAL,
                                           local_directory=scratch,
                                           # workers ignore Ctrl-C; the parent handles it
                                           preload=["bandits._dask_preload"])
                client = Client(cluster)
        except BaseException:
            try:
                if cluster is not None:
                    _stop_workers_now(cluster)
                    if client is not None:
                        client.close()
                    cluster.close()
            finally:
                if scratch is not None:
                    shutil.rmtree(scratch, ignore_errors=True)
                dask_logger.setLevel(dask_level)
            raise
    futures: list = []
    try:
        futures = [client.submit(_run_chunk, token, specs, instance, common, ch, pure=False)
                   for ch in chunks]
        for fut in as_completed(futures):
            part = fut.result()
            for idx, row in part:
                rows[idx] = row
            bar.update(len(part))
    except BaseException:
        if futures:
            client.cancel(futures)
        if own:
            _stop_workers_now(cluster)
        raise
    finally:
        if own:
            try:
                client.close()
                cluster.close()
            finally:
                shutil.rmtree(scratch, ignore_errors=True)
                dask_logger.setLevel(dask_level)
