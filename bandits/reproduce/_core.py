"""Shared pieces of the reproductions: the published-vs-ours row, its CSV and text forms,
and the replicate-and-boxplot helper used by the sample-complexity figures."""

from __future__ import annotations

import csv
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

#: Progress reporting of the running reproduction (set by :func:`bandits.reproduce.reproduce`).
_PROGRESS: dict[str, Any] = {"on": False, "name": ""}


def set_progress(on: bool, name: str = "") -> None:
    """Turn the per-configuration messages and progress bars of the reproductions on/off."""
    _PROGRESS.update(on=bool(on), name=name)


def progress_on() -> bool:
    """Whether the running reproduction reports progress (tqdm bars for long loops)."""
    return bool(_PROGRESS["on"])


def announce(text: str) -> None:
    """One line ``[NAME] text`` on stderr when progress is on: the configuration starting."""
    if _PROGRESS["on"]:
        print(f"[{_PROGRESS['name']}] {text}", file=sys.stderr, flush=True)


@dataclass(frozen=True)
class Row:
    """One compared quantity: what, published value (None if the paper has none), ours."""

    quantity: str
    published: float | None
    ours: float
    note: str = ""


def _write(rows: list[Row], out: Path, name: str) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.csv"
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["quantity", "published", "ours", "note"])
        for r in rows:
            w.writerow([r.quantity, "" if r.published is None else r.published, r.ours, r.note])
    return path


def format_rows(rows: list[Row]) -> str:
    """Published vs ours, one line each, with the relative difference."""
    def num(x: float) -> str:
        return f"{x:,.2f}" if abs(x) >= 100 else f"{x:.5g}"

    width = max(len(r.quantity) for r in rows)
    lines = [f"{'quantity':<{width}}  {'published':>12}  {'ours':>12}  {'ours/pub':>8}  note"]
    for r in rows:
        pub = "-" if r.published is None else num(r.published)
        ratio = "" if not r.published else f"{r.ours / r.published:.3f}"
        lines.append(f"{r.quantity:<{width}}  {pub:>12}  {num(r.ours):>12}  {ratio:>8}  {r.note}")
    return "\n".join(lines)


def _replicated(configs, instance, runs, jobs, seed, out: Path, name: str, title: str,
                published: dict[str, float], **run_kw) -> list[Row]:
    from bandits.plots import boxplot_samples
    from bandits.replicate import replicate

    announce(f"{len(configs)} configurations x {runs} runs on "
             f"{getattr(instance, 'name', 'instance')}")
    table = replicate(configs, instance, seeds=list(range(seed, seed + runs)), n_jobs=jobs,
                      progress=progress_on(), **run_kw)
    out.mkdir(parents=True, exist_ok=True)
    table.to_csv(out / f"{name}-runs.csv")
    boxplot_samples(table, out / f"{name}.png", published=published,
                    published_label="published mean",
                    title=f"{title}: {runs} runs each, delta = {table.meta['delta']:g}")
    rows = []
    for label, samples in table.samples_by_algorithm().items():
        errors = sum(1 for r in table.rows() if r["algorithm"] == label and not r["correct"])
        rows.append(Row(f"{label}: mean samples", published.get(label), float(samples.mean()),
                        f"std {samples.std(ddof=1):,.0f}, errors {errors}/{samples.size}"))
    _write(rows, out, name)
    return rows




def sample_counts(algo: str, inst, seeds: list[int], jobs: int, *, max_samples: int = 10**9,
                  deterministic: bool = False, **options):
    """Samples (runs,), per-arm counts (runs, K) and correctness (runs,) of ``algo`` on
    ``inst`` over ``seeds``; every run must stop by its rule (``RuntimeError`` otherwise).
    ``deterministic=True`` runs the first seed only (e.g. XY-oracle)."""
    from bandits.replicate import replicate

    seeds = list(seeds[:1]) if deterministic else list(seeds)
    announce(f"{algo} on {getattr(inst, 'name', 'instance')}: {len(seeds)} run(s)")
    table = replicate(algo, inst, seeds=seeds, n_jobs=jobs, max_samples=max_samples,
                      progress=progress_on(), **options)
    stopped = np.asarray(table["stopped_by"])
    if np.any(stopped != "rule"):
        raise RuntimeError(f"{algo}: {np.sum(stopped != 'rule')} runs hit the sample cap "
                           f"{max_samples:,}")
    counts = table.counts_matrix()
    return counts.sum(axis=1), counts, np.asarray(table["correct"], dtype=bool)


def budgets_over(algos, instances: dict, seeds: list[int], jobs: int,
                 options: dict[str, dict] | None = None):
    """``({algo: {key: samples of every run}}, {algo: errors})`` of every algorithm on
    every instance of ``instances`` (``{key: instance}``); XY-oracle, deterministic, runs
    once; ``options`` gives each algorithm's options."""
    options = options or {}
    budgets: dict = {a: {} for a in algos}
    errors = dict.fromkeys(algos, 0)
    for key, inst in instances.items():
        for algo in algos:
            s, _, ok = sample_counts(algo, inst, seeds, jobs, max_samples=10**9,
                                     deterministic=algo == "xy-oracle",
                                     **options.get(algo, {}))
            budgets[algo][key] = s
            errors[algo] += int(np.sum(~ok))
    return budgets, errors
