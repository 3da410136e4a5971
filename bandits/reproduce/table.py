"""The reproduction table of the documentation (``oed reproduce all --markdown PATH``).

Runs every entry of :data:`bandits.reproduce.REPRODUCTIONS` (or a chosen subset) with the
given settings and writes one Markdown page: per entry, the command, the settings, the wall
time and the published-vs-ours rows exactly as :func:`bandits.reproduce.format_rows`
prints them. ``docs/reproduction.md`` is this page; regenerate it with
``make reproduction-table``.
"""

from __future__ import annotations

import datetime
import platform
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from bandits.reproduce._core import Row


def _cell(x: float | None) -> str:
    if x is None:
        return "–"
    return f"{x:,.2f}" if abs(x) >= 100 else f"{x:.4g}"


def markdown_rows(rows: list[Row]) -> str:
    """Published vs ours as a Markdown table (``ours/pub`` where a value is published)."""
    lines = ["| quantity | published | ours | ours/pub | note |", "|---|---|---|---|---|"]
    for r in rows:
        ratio = "" if not r.published else f"{r.ours / r.published:.3f}"
        note = r.note.replace("|", "/")
        lines.append(f"| {r.quantity} | {_cell(r.published)} | {_cell(r.ours)} | {ratio} "
                     f"| {note} |")
    return "\n".join(lines)


def reproduction_page(results: dict[str, tuple[list[Row], float, str]], *,
                      settings: str) -> str:
    """The Markdown page from ``{name: (rows, seconds, first docstring line)}``."""
    head = [
        "# Reproduction table",
        "",
        "Published numbers next to ours for every `oed reproduce` entry. This page is "
        "generated: do not edit it by hand, regenerate it with `make reproduction-table` "
        "(`oed reproduce all --markdown docs/reproduction.md`).",
        "",
        f"Generated {datetime.date.today().isoformat()} on {platform.machine()} "
        f"({platform.python_version()}), {settings}.",
        "",
        "A published value of `–` means the paper gives none (orderings and claims are "
        "reported as 1 = holds, 0 = does not). Where an entry's docstring explains a "
        "difference (an unstated constant, a convention), the note says so; the per-topic "
        "pages discuss every gap.",
        "",
    ]
    body = []
    for name, (rows, seconds, title) in results.items():
        body += [f"## `{name}`", "", title, "",
                 f"`oed reproduce {name}` — {seconds:,.0f} s", "", markdown_rows(rows), ""]
    return "\n".join(head + body)


def reproduce_all(names: Sequence[str] | None = None, out: str | Path = "out", *,
                  markdown: str | Path | None = None, runs: int | None = None,
                  jobs: int = -1, seed: int = 0, full: bool = False,
                  log: Callable[[str], None] | None = print) -> dict[str, list[Row]]:
    """Run the reproductions ``names`` (default: all) and optionally write the page.

    Parameters
    ----------
    names : sequence of str, optional
        Entries of :data:`bandits.reproduce.REPRODUCTIONS` (default: all, in order).
    out : str or path-like
        Folder of the per-entry files (``out/NAME/``).
    markdown : str or path-like, optional
        Where to write the Markdown page.
    runs, jobs, seed, full
        As for :func:`bandits.reproduce.reproduce` (``runs=None``: each entry's default).
    log : callable, optional
        Progress messages (default ``print``; ``None`` for silence).

    Returns
    -------
    dict of str to list of Row
    """
    from bandits.reproduce import REPRODUCTIONS, reproduce

    names = list(REPRODUCTIONS) if names is None else list(names)
    unknown = [n for n in names if n not in REPRODUCTIONS]
    if unknown:
        raise ValueError(f"names: unknown reproduction(s) {unknown}; known: "
                         f"{sorted(REPRODUCTIONS)}")
    results = {}
    for name in names:
        t0 = time.perf_counter()
        rows = reproduce(name, out, runs=runs, jobs=jobs, seed=seed, full=full)
        seconds = time.perf_counter() - t0
        title = (REPRODUCTIONS[name].__doc__ or "").strip().splitlines()[0]
        results[name] = (rows, seconds, title)
        if log is not None:
            log(f"{name}: {len(rows)} rows in {seconds:,.0f} s")
    if markdown is not None:
        how = "each entry's default runs" if runs is None else f"{runs} runs per entry"
        settings = ("the papers' full settings" if full else how) + f", first seed {seed}"
        Path(markdown).write_text(reproduction_page(results, settings=settings) + "\n")
    return {name: r[0] for name, r in results.items()}
