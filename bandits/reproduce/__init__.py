"""One-command reproductions of published tables and figures (``oed reproduce NAME``).

Each entry runs the experiment, prints the published numbers next to ours, and writes a
CSV table (and a figure where the paper has one) to an output folder. Defaults finish in
minutes on a laptop; ``full=True`` (``--full``) uses the paper's number of runs.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

from bandits.io import jsonable
from bandits.provenance import provenance
from bandits.reproduce._core import Row, format_rows
from bandits.reproduce.dart import dart_figure1, dart_figure2, dart_figure3
from bandits.reproduce.mason import mason_figure3, mason_table1
from bandits.reproduce.reda import (
    reda_figure1a,
    reda_figure1b,
    reda_figure1c,
    reda_table4,
    reda_table5,
)
from bandits.reproduce.soare import soare_figure4, soare_figure5
from bandits.reproduce.xu import xu_figure1, xu_figure2, xu_table1

__all__ = ["EXPECTED_SECONDS", "REPRODUCTIONS", "Row", "catalogue", "format_rows", "reproduce"]

REPRODUCTIONS: dict[str, Callable[..., list[Row]]] = {
    "reda-table5": reda_table5,
    "reda-table4": reda_table4,
    "reda-figure1a": reda_figure1a,
    "reda-figure1b": reda_figure1b,
    "reda-figure1c": reda_figure1c,
    "xu-table1": xu_table1,
    "xu-figure1": xu_figure1,
    "xu-figure2": xu_figure2,
    "dart-figure1": dart_figure1,
    "dart-figure2": dart_figure2,
    "dart-figure3": dart_figure3,
    "mason-table1": mason_table1,
    "mason-figure3": mason_figure3,
    "soare-figure4": soare_figure4,
    "soare-figure5": soare_figure5,
}


#: Wall seconds of each entry with its default runs on 2 cores (x86_64 laptop-class machine,
#: ``make reproduction-table``; docs/reproduction.md, which a test compares).
EXPECTED_SECONDS: dict[str, float] = {
    "reda-table5": 0, "reda-table4": 144, "reda-figure1a": 3, "reda-figure1b": 80,
    "reda-figure1c": 42, "xu-table1": 3, "xu-figure1": 649, "xu-figure2": 39,
    "dart-figure1": 307, "dart-figure2": 239, "dart-figure3": 119, "mason-table1": 98,
    "mason-figure3": 0, "soare-figure4": 61, "soare-figure5": 137,
}


def catalogue() -> list[dict]:
    """Every entry: ``name``, ``runs`` (default runs per configuration, None when the entry
    has no runs), ``seconds`` (:data:`EXPECTED_SECONDS`) and ``title`` (first docstring
    line)."""
    import inspect

    out = []
    for name, fn in REPRODUCTIONS.items():
        param = inspect.signature(fn).parameters.get("runs")
        out.append({"name": name, "runs": None if param is None else param.default,
                    "seconds": EXPECTED_SECONDS.get(name),
                    "title": (fn.__doc__ or "").strip().splitlines()[0]})
    return out


def reproduce(name: str, out: str | Path = "out", *, runs: int | None = None, jobs: int = -1,
              seed: int = 0, full: bool = False, progress: bool = False) -> list[Row]:
    """Run the reproduction ``name`` (see :data:`REPRODUCTIONS`), write its files to
    ``out/name/`` and return the published-vs-ours rows.

    Besides the entry's tables and figures, ``out/name/provenance.json`` describes the run:
    package and library versions, time, the call or ``oed`` command, the arguments (first
    seed, runs, jobs, full) and the published-vs-ours rows
    (:func:`bandits.provenance.provenance`). ``progress=True`` prints each configuration as
    it starts (``[NAME] ...`` on stderr) and a tqdm bar for the long loops.
    """
    if name not in REPRODUCTIONS:
        raise ValueError(f"unknown reproduction {name!r}; known: {sorted(REPRODUCTIONS)}")
    kwargs: dict = {"jobs": jobs, "seed": seed, "full": full}
    if runs is not None:
        if isinstance(runs, bool) or int(runs) < 1:
            raise ValueError(f"runs must be a positive integer; got {runs!r}")
        kwargs["runs"] = int(runs)
    from bandits.reproduce._core import set_progress

    folder = Path(out) / name
    t0 = time.perf_counter()
    set_progress(progress, name)
    try:
        rows = REPRODUCTIONS[name](folder, **kwargs)
    finally:
        set_progress(False)
    record = provenance(
        call=f"reproduce({name!r}, runs={runs!r}, jobs={jobs!r}, seed={seed!r}, full={full!r})",
        reproduction=name, arguments={"runs": runs, "jobs": jobs, "first_seed": seed,
                                      "full": full},
        seconds=round(time.perf_counter() - t0, 3),
        rows=[asdict(r) for r in rows])
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "provenance.json").write_text(json.dumps(jsonable(record), indent=1) + "\n",
                                            encoding="utf-8")
    return rows


