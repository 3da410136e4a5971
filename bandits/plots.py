"""Plots of replication tables, written to files (Agg canvas; no display, no pyplot).

:func:`boxplot_samples` draws the empirical distribution of the sample complexity of
each algorithm as Réda, Kaufmann & Delahaye-Duriez (2021), Figure 1 do: a box plot
(quartiles, median, whiskers at 1.5 IQR) with every run drawn as a jittered grey point,
the mean as a diamond, and the error frequency under each label.  Runs stopped by the
sample budget are drawn in red (their sample counts are censored).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from bandits.replicate import ReplicationTable

__all__ = ["boxplot_samples"]


def boxplot_samples(table: ReplicationTable, path: str | os.PathLike, *,
                    title: str | None = None, log: bool = False,
                    algorithms: list[str] | None = None, jitter: float = 0.12,
                    dpi: int = 120) -> dict[str, np.ndarray]:
    """Box plots of the sample complexity per algorithm, saved to ``path``.

    Parameters
    ----------
    table : ReplicationTable
        Results of :func:`bandits.replicate` (or read back from a file).
    path : str or path-like
        Output file; the format follows the extension (``.png``, ``.pdf``, ``.svg``...).
    title : str, optional
        Figure title (default: the instance name and the number of runs).
    log : bool, default False
        Logarithmic sample axis (useful when LUCB-type algorithms need 10x more samples).
    algorithms : list of str, optional
        Which labels to plot, in this order (default: all, in table order).
    jitter : float, default 0.12
        Half-width of the horizontal jitter of the points (seeded: the image is
        reproducible).
    dpi : int, default 120
        Resolution of raster outputs.

    Returns
    -------
    dict of str to ndarray
        ``{label: samples}`` exactly as plotted (the table's ``samples`` of each label, in
        row order). Labels are ``"algorithm @ instance"`` when the table holds several
        instances.

    Raises
    ------
    ValueError
        If the table is empty, ``algorithms`` names a label that is not in the table, or
        ``log`` is asked for with a zero sample count.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    if not isinstance(table, ReplicationTable):
        raise ValueError(f"table must be a ReplicationTable; got {type(table).__name__}")
    if len(table) == 0:
        raise ValueError("table is empty: nothing to plot")
    groups = table.samples_by_algorithm()
    budget = {label: table["stopped_by"][mask] == "budget" for label, mask in table.groups()}
    correct = {label: table["correct"][mask] for label, mask in table.groups()}
    if algorithms is not None:
        unknown = [a for a in algorithms if a not in groups]
        if unknown:
            raise ValueError(f"algorithms: {unknown} not in the table; have {list(groups)}")
        labels = list(algorithms)
    else:
        labels = list(groups)
    data = {label: np.asarray(groups[label]).copy() for label in labels}
    if log and any(np.any(v <= 0) for v in data.values()):
        raise ValueError("log=True needs positive sample counts")

    n = len(labels)
    fig = Figure(figsize=(max(4.0, 1.4 * n + 1.5), 4.8))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    values = [data[label].astype(np.float64) for label in labels]
    ax.boxplot(values, positions=np.arange(1, n + 1), widths=0.55, showfliers=False,
               medianprops={"color": "tab:blue", "linewidth": 1.8},
               boxprops={"linewidth": 1.2}, whiskerprops={"linewidth": 1.0})
    rng = np.random.default_rng(0)
    for k, label in enumerate(labels, start=1):
        y = values[k - 1]
        x = k + rng.uniform(-jitter, jitter, size=y.size)
        cens = budget[label]
        ax.scatter(x[~cens], y[~cens], s=6, color="0.55", alpha=0.5, linewidths=0,
                   zorder=1)
        if np.any(cens):
            ax.scatter(x[cens], y[cens], s=10, color="tab:red", alpha=0.8, linewidths=0,
                       zorder=2, label="stopped by budget")
        ax.scatter([k], [y.mean()], marker="D", s=28, color="tab:orange", zorder=3,
                   label="mean" if k == 1 else None)
    ticks = [f"{label}\nerr {np.mean(~correct[label]):.3f}" for label in labels]
    ax.set_xticks(np.arange(1, n + 1))
    ax.set_xticklabels(ticks, rotation=20 if n > 4 else 0, ha="right" if n > 4 else "center",
                       fontsize=8)
    ax.set_ylabel("sample complexity (number of pulls)")
    if log:
        ax.set_yscale("log")
    ax.grid(axis="y", alpha=0.3)
    handles, names = ax.get_legend_handles_labels()
    uniq = dict(zip(names, handles, strict=True))
    if uniq:
        ax.legend(uniq.values(), uniq.keys(), fontsize=8, loc="upper left")
    if title is None:
        runs = {len(v) for v in data.values()}
        per = f"{runs.pop()} runs each" if len(runs) == 1 else "runs"
        title = f"{', '.join(table.instances)} ({per})"
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(Path(path), dpi=dpi)
    return data
