"""Plots of replication tables, written to files (Agg canvas; no display, no pyplot).

:func:`boxplot_samples` draws the empirical distribution of the sample complexity of
each algorithm as Réda, Kaufmann & Delahaye-Duriez (2021), Figure 1 do: a box plot
(quartiles, median, whiskers at 1.5 IQR) with every run drawn as a jittered grey point,
the mean as a diamond, and the error frequency under each label.  Runs stopped by the
sample budget are drawn in red (their sample counts are censored).

:func:`budget_vs_dimension` draws the mean sample complexity against the dimension with a
min/max band (Soare, Lazaric & Munos 2014, Fig. 4), and :func:`samples_per_arm` the mean
number of pulls of each arm per algorithm as grouped bars (their Fig. 5).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from bandits.replicate import ReplicationTable

__all__ = ["boxplot_samples", "budget_vs_dimension", "samples_per_arm"]


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
    fig, ax = _canvas((max(4.0, 1.4 * n + 1.5), 4.8))
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


def _canvas(figsize: tuple[float, float]):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize)
    FigureCanvasAgg(fig)
    return fig, fig.add_subplot(1, 1, 1)


def budget_vs_dimension(budgets: dict[str, dict[int, np.ndarray]], path: str | os.PathLike, *,
                        title: str | None = None, log: bool = True,
                        dpi: int = 120) -> dict[str, np.ndarray]:
    """Mean sample complexity against the dimension, one line per algorithm, with a
    min/max band over the runs (Soare et al. 2014, Fig. 4), saved to ``path``.

    Parameters
    ----------
    budgets : dict of str to dict of int to array
        ``{algorithm: {d: samples of every run at dimension d}}``.
    path : str or path-like
        Output file (format from the extension).
    title : str, optional
    log : bool, default True
        Logarithmic sample axis.
    dpi : int, default 120

    Returns
    -------
    dict of str to ndarray
        ``{algorithm: array of rows (d, mean, min, max)}`` exactly as plotted.

    Raises
    ------
    ValueError
        If ``budgets`` is empty or an algorithm has no runs at some dimension.
    """
    if not budgets:
        raise ValueError("budgets is empty: nothing to plot")
    plotted = {}
    for label, per_d in budgets.items():
        rows = []
        for d in sorted(per_d):
            v = np.asarray(per_d[d], dtype=np.float64)
            if v.size == 0:
                raise ValueError(f"budgets[{label!r}][{d}] has no runs")
            rows.append((d, v.mean(), v.min(), v.max()))
        plotted[label] = np.array(rows)
    fig, ax = _canvas((6.0, 4.4))
    for label, a in plotted.items():
        (line,) = ax.plot(a[:, 0], a[:, 1], marker="o", ms=4, label=label)
        ax.fill_between(a[:, 0], a[:, 2], a[:, 3], color=line.get_color(), alpha=0.15,
                        linewidth=0)
    ax.set_xlabel("dimension d")
    ax.set_ylabel("sample complexity (mean, min-max band)")
    if log:
        ax.set_yscale("log")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title(title or "budget vs dimension", fontsize=10)
    fig.tight_layout()
    fig.savefig(Path(path), dpi=dpi)
    return plotted


def samples_per_arm(counts: dict[str, np.ndarray], path: str | os.PathLike, *,
                    arm_labels: list[str] | None = None, title: str | None = None,
                    log: bool = True, dpi: int = 120) -> dict[str, np.ndarray]:
    """Mean pulls of each arm, grouped bars per algorithm (Soare et al. 2014, Fig. 5),
    saved to ``path``.

    Parameters
    ----------
    counts : dict of str to array
        ``{algorithm: counts}``; ``counts`` is one run's per-arm counts (length K) or a
        (runs, K) matrix, which is averaged over runs.
    path : str or path-like
    arm_labels : list of str, optional
        Default ``x1 .. xK``.
    title : str, optional
    log : bool, default True
        Logarithmic count axis (bars of zero pulls are not drawn).
    dpi : int, default 120

    Returns
    -------
    dict of str to ndarray
        ``{algorithm: mean pulls per arm}`` exactly as plotted.

    Raises
    ------
    ValueError
        If ``counts`` is empty, the algorithms have different numbers of arms, or
        ``arm_labels`` has the wrong length.
    """
    if not counts:
        raise ValueError("counts is empty: nothing to plot")
    means = {}
    for label, c in counts.items():
        a = np.asarray(c, dtype=np.float64)
        means[label] = a.mean(axis=0) if a.ndim == 2 else a
    sizes = {m.size for m in means.values()}
    if len(sizes) != 1:
        raise ValueError(f"counts: algorithms have different numbers of arms {sorted(sizes)}")
    K = sizes.pop()
    arm_labels = arm_labels or [f"x{i + 1}" for i in range(K)]
    if len(arm_labels) != K:
        raise ValueError(f"arm_labels must have {K} entries; got {len(arm_labels)}")
    fig, ax = _canvas((max(5.0, 0.9 * K + 2.5), 4.4))
    n = len(means)
    width = 0.8 / n
    for j, (label, m) in enumerate(means.items()):
        x = np.arange(K) + (j - (n - 1) / 2) * width
        ax.bar(x, np.where(m > 0, m, np.nan) if log else m, width=width, label=label)
    ax.set_xticks(np.arange(K))
    ax.set_xticklabels(arm_labels)
    ax.set_ylabel("pulls (mean over runs)")
    if log:
        ax.set_yscale("log")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title(title or "samples per arm", fontsize=10)
    fig.tight_layout()
    fig.savefig(Path(path), dpi=dpi)
    return means
