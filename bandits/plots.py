"""Figures for papers: replication tables, reproductions and designs.

Every helper draws on a matplotlib ``Axes`` and returns it:

* ``ax=None`` creates a new figure on an Agg canvas (nothing is displayed, no pyplot, no
  global matplotlib state is touched); pass an ``Axes`` of your own figure to compose panels.
* Saving is the caller's business (``ax.figure.savefig("fig.pdf")``); ``path=`` is a
  convenience that saves the figure (format from the extension) after drawing.

:func:`boxplot_samples` draws the empirical distribution of the sample complexity of each
algorithm as Réda, Kaufmann & Delahaye-Duriez (2021), Figure 1 do: a box plot (quartiles,
median, whiskers at 1.5 IQR) with every run drawn as a jittered grey point, the mean as a
diamond, and the error frequency under each label. Runs stopped by the sample budget are red
(their sample counts are censored). Published means, when given, are drawn next to ours.

:func:`budget_vs_dimension` draws the mean sample complexity against the dimension with a
min/max band (Soare, Lazaric & Munos 2014, Fig. 4); :func:`samples_per_arm` the mean number
of pulls of each arm per algorithm as grouped bars (their Fig. 5), with the published bars
marked when given. :func:`budget_summary` and :func:`mean_pulls` return exactly the numbers
these two draw.

:func:`plot_design` pictures a design on 2-D arms (Mason, Jun & Jain 2022, Fig. 3): each
arm's weight as marker area and the confidence ellipse of the design.
"""

from __future__ import annotations

import math
import os
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bandits.replicate import ReplicationTable

__all__ = ["boxplot_samples", "budget_summary", "budget_vs_dimension", "mean_pulls",
           "new_axes", "plot_design", "readable_log_axis", "samples_per_arm", "save"]


def new_axes(figsize: tuple[float, float] = (6.0, 4.4), ax: Any = None) -> Any:
    """``ax`` itself, or the single Axes of a new figure on an Agg canvas (no pyplot)."""
    if ax is not None:
        return ax
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize)
    FigureCanvasAgg(fig)
    return fig.add_subplot(1, 1, 1)


def save(ax: Any, path: str | os.PathLike | None, *, dpi: int = 150) -> None:
    """Save ``ax``'s figure to ``path`` (format from the extension; folders created) after a
    tight layout; nothing when ``path`` is None."""
    if path is None:
        return
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig = ax.figure
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)


def readable_log_axis(ax: Any, axis: str = "y") -> None:
    """Log scale on ``axis`` whose ticks stay readable when the data span less than a few
    decades: plain numbers (``2,000``, ``5,000``) at 1, 2 and 5 times each power of ten
    instead of the lone ``10^3`` matplotlib shows for a span under one decade."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    getattr(ax, f"set_{axis}scale")("log")
    target = ax.yaxis if axis == "y" else ax.xaxis
    lo, hi = sorted(getattr(ax, f"get_{axis}lim")())
    if hi / max(lo, 1e-300) < 1e3:
        target.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        target.set_major_formatter(FuncFormatter(_plain_number))
        target.set_minor_formatter(NullFormatter())


def _plain_number(v: float, _pos: Any = None) -> str:
    if v >= 1:
        return f"{v:,.0f}"
    return f"{v:.3g}"


def _wrap(label: str, width: int = 12) -> str:
    """Wrap a tick label at spaces, before ``(``, after ``,`` and ``=``; never inside a
    word."""
    text = label.replace("(", "\0(").replace(",", ",\0").replace("=", "=\0")
    lines = textwrap.wrap(text.replace("\0", " "), width, break_on_hyphens=False,
                          break_long_words=False)
    # undo the added spaces: a line break stays, an added space inside a line goes
    out = "\n".join(lines)
    for token in ("(", ","):
        out = out.replace(f" {token}", token) if token == "(" else out.replace(", ", ",")
    return out.replace("= ", "=") or label


def _title(ax: Any, title: str) -> None:
    """A title wrapped to the axes' width (about 9 characters per inch at size 10), never
    inside an assignment such as ``delta = 0.05``."""
    width = ax.figure.get_figwidth() * ax.get_position().width
    glued = title.replace(" = ", "\0=\0")
    lines = [w.replace("\0", " ") for part in glued.split("\n")
             for w in textwrap.wrap(part, max(30, int(9.5 * width)), break_on_hyphens=False)]
    ax.set_title("\n".join(lines), fontsize=10)


def _legend_outside(ax: Any, handles=None, labels=None, *, ncol: int = 1) -> None:
    """A legend to the right of the axes (never over the data)."""
    if handles is None:
        handles, labels = ax.get_legend_handles_labels()
    uniq = dict(zip(labels, handles, strict=True))
    if not uniq:
        return
    ax.legend(uniq.values(), uniq.keys(), fontsize=8, loc="upper left",
              bbox_to_anchor=(1.01, 1.0), ncol=ncol, frameon=False, borderaxespad=0.0)


def boxplot_samples(table: ReplicationTable, path: str | os.PathLike | None = None, *,
                    ax: Any = None, title: str | None = None, log: bool = False,
                    algorithms: list[str] | None = None, jitter: float = 0.12,
                    published: Mapping[str, float] | None = None,
                    published_label: str = "published mean", dpi: int = 150) -> Any:
    """Box plots of the sample complexity per algorithm (Réda et al. 2021, Fig. 1).

    Parameters
    ----------
    table : ReplicationTable
        Results of :func:`bandits.replicate` (or read back from a file).
    path : str or path-like, optional
        Also save the figure here (format from the extension: ``.png``, ``.pdf``, ``.svg``).
    ax : matplotlib Axes, optional
        Draw here; default a new figure.
    title : str, optional
        Default: the instance, the number of runs and ``delta`` (from ``table.meta``).
    log : bool, default False
        Logarithmic sample axis (useful when LUCB-type algorithms need 10x more samples);
        ticks stay readable under one decade (:func:`readable_log_axis`).
    algorithms : list of str, optional
        Which labels to plot, in this order (default: all, in table order).
    jitter : float, default 0.12
        Half-width of the horizontal jitter of the points (seeded: the image is
        reproducible).
    published : mapping of label to float, optional
        Published mean sample complexity per label, drawn as a black cross next to our
        mean (labels not in the mapping get none).
    published_label : str, default "published mean"
        Legend entry of the published means (e.g. the paper and figure).
    dpi : int, default 150
        Resolution of raster outputs written to ``path``.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on. Box ``k`` (x position ``k + 1``) holds
        ``table.select(algorithms[k])["samples"]``.

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
    values = [np.asarray(groups[label], dtype=np.float64) for label in labels]
    if log and any(np.any(v <= 0) for v in values):
        raise ValueError("log=True needs positive sample counts")

    n = len(labels)
    ax = new_axes((max(6.5, 1.25 * n + 4.0), 4.6), ax)
    ax.boxplot(values, positions=np.arange(1, n + 1), widths=0.55, showfliers=False,
               medianprops={"color": "tab:blue", "linewidth": 1.8},
               boxprops={"linewidth": 1.2}, whiskerprops={"linewidth": 1.0})
    ax.plot([], [], color="tab:blue", lw=1.8, label="median, box: quartiles, "
            "whiskers: 1.5 IQR")
    rng = np.random.default_rng(0)
    for k, label in enumerate(labels, start=1):
        y = values[k - 1]
        x = k + rng.uniform(-jitter, jitter, size=y.size)
        cens = budget[label]
        ax.scatter(x[~cens], y[~cens], s=6, color="0.55", alpha=0.5, linewidths=0,
                   zorder=1, label="one run")
        if np.any(cens):
            ax.scatter(x[cens], y[cens], s=10, color="tab:red", alpha=0.8, linewidths=0,
                       zorder=2, label="run stopped by the budget")
        ax.scatter([k - 0.08 if published else k], [y.mean()], marker="D", s=30,
                   color="tab:orange", zorder=3,
                   label="mean (ours)" if published else "mean")
        if published and label in published:
            ax.scatter([k + 0.08], [published[label]], marker="X", s=45, color="black",
                       zorder=3, label=published_label)
    ticks = [f"{_wrap(label)}\nerr {np.mean(~correct[label]):.3f}" for label in labels]
    ax.set_xticks(np.arange(1, n + 1))
    ax.set_xticklabels(ticks, fontsize=8)
    ax.set_xlim(0.4, n + 0.6)
    ax.set_ylabel("sample complexity (number of pulls)")
    if log:
        readable_log_axis(ax, "y")
    ax.grid(axis="y", alpha=0.3)
    _legend_outside(ax)
    if title is None:
        runs = {v.size for v in values}
        per = f"{runs.pop()} runs each" if len(runs) == 1 else "runs per label differ"
        delta = table.meta.get("delta")
        title = (f"{', '.join(table.instances)}: {per}"
                 + (f", delta = {delta:g}" if delta is not None else ""))
    _title(ax, title)
    save(ax, path, dpi=dpi)
    return ax


def budget_summary(budgets: Mapping[str, Mapping[int, Any]]) -> dict[str, np.ndarray]:
    """``{algorithm: rows (d, mean, min, max)}`` over the runs at each dimension: exactly
    what :func:`budget_vs_dimension` draws.

    Raises
    ------
    ValueError
        If ``budgets`` is empty or an algorithm has no runs at some dimension.
    """
    if not budgets:
        raise ValueError("budgets is empty: nothing to plot")
    out = {}
    for label, per_d in budgets.items():
        rows = []
        for d in sorted(per_d):
            v = np.asarray(per_d[d], dtype=np.float64)
            if v.size == 0:
                raise ValueError(f"budgets[{label!r}][{d}] has no runs")
            rows.append((d, v.mean(), v.min(), v.max()))
        out[label] = np.array(rows)
    return out


def budget_vs_dimension(budgets: Mapping[str, Mapping[int, Any]],
                        path: str | os.PathLike | None = None, *, ax: Any = None,
                        title: str | None = None, log: bool = True,
                        dpi: int = 150) -> Any:
    """Mean sample complexity against the dimension, one line per algorithm, with a
    min/max band over the runs (Soare et al. 2014, Fig. 4).

    Parameters
    ----------
    budgets : mapping of str to mapping of int to array
        ``{algorithm: {d: samples of every run at dimension d}}``.
    path : str or path-like, optional
        Also save the figure here (format from the extension).
    ax : matplotlib Axes, optional
        Draw here; default a new figure.
    title : str, optional
        Default names the number of runs per point.
    log : bool, default True
        Logarithmic sample axis.
    dpi : int, default 150

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on; the numbers drawn are :func:`budget_summary` ``(budgets)``.

    Raises
    ------
    ValueError
        If ``budgets`` is empty or an algorithm has no runs at some dimension.
    """
    plotted = budget_summary(budgets)
    ax = new_axes((7.2, 4.4), ax)
    for label, a in plotted.items():
        (line,) = ax.plot(a[:, 0], a[:, 1], marker="o", ms=4, label=f"{label}: mean")
        if np.any(a[:, 3] > a[:, 2]):
            ax.fill_between(a[:, 0], a[:, 2], a[:, 3], color=line.get_color(), alpha=0.15,
                            linewidth=0, label=f"{label}: min-max over runs")
    ax.set_xlabel("dimension d")
    ax.set_xticks(sorted({int(d) for a in plotted.values() for d in a[:, 0]}))
    ax.set_ylabel("sample complexity")
    if log:
        readable_log_axis(ax, "y")
    ax.grid(alpha=0.3)
    _legend_outside(ax)
    if title is None:
        runs = sorted({np.asarray(v).size for per_d in budgets.values() for v in per_d.values()})
        title = ("budget vs dimension, "
                 + (f"{runs[0]} runs per point" if len(runs) == 1
                    else f"{runs[0]}-{runs[-1]} runs per point"))
    _title(ax, title)
    save(ax, path, dpi=dpi)
    return ax


def mean_pulls(counts: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """``{algorithm: mean pulls per arm}``: a (runs, K) matrix averaged over runs, or one
    run's counts as they are; exactly what :func:`samples_per_arm` draws.

    Raises
    ------
    ValueError
        If ``counts`` is empty or the algorithms have different numbers of arms.
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
    return means


def samples_per_arm(counts: Mapping[str, Any], path: str | os.PathLike | None = None, *,
                    ax: Any = None, arm_labels: Sequence[str] | None = None,
                    title: str | None = None, log: bool = True,
                    published: Mapping[str, Sequence[float]] | None = None,
                    published_label: str = "published", dpi: int = 150) -> Any:
    """Mean pulls of each arm, grouped bars per algorithm (Soare et al. 2014, Fig. 5).

    Parameters
    ----------
    counts : mapping of str to array
        ``{algorithm: counts}``; ``counts`` is one run's per-arm counts (length K) or a
        (runs, K) matrix, which is averaged over runs.
    path : str or path-like, optional
        Also save the figure here.
    ax : matplotlib Axes, optional
        Draw here; default a new figure.
    arm_labels : sequence of str, optional
        Default the arm indices ``0 .. K-1``, as in ``counts``, ``recommendation`` and
        ``oed run`` (Soare et al.'s figure names them ``x1 .. xK``: pass that).
    title : str, optional
    log : bool, default True
        Logarithmic count axis (bars of zero pulls are not drawn).
    published : mapping of str to sequence of float, optional
        Published pulls per arm for some algorithms, drawn as a black bar-wide tick on each
        of our bars.
    published_label : str, default "published"
        Legend entry of the published ticks.
    dpi : int, default 150

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on; the bar heights are :func:`mean_pulls` ``(counts)``.

    Raises
    ------
    ValueError
        If ``counts`` is empty, the algorithms have different numbers of arms, or
        ``arm_labels`` or a ``published`` entry has the wrong length.
    """
    means = mean_pulls(counts)
    K = next(iter(means.values())).size
    arm_labels = [str(a) for a in arm_labels] if arm_labels is not None else \
        [str(i) for i in range(K)]
    if len(arm_labels) != K:
        raise ValueError(f"arm_labels must have {K} entries; got {len(arm_labels)}")
    for label, pub in (published or {}).items():
        if len(pub) != K:
            raise ValueError(f"published[{label!r}] must have {K} entries; got {len(pub)}")
    ax = new_axes((min(14.0, max(6.0, 0.9 * K + 4.0)), 4.4), ax)
    n = len(means)
    width = 0.8 / n
    for j, (label, m) in enumerate(means.items()):
        x = np.arange(K) + (j - (n - 1) / 2) * width
        ax.bar(x, np.where(m > 0, m, np.nan) if log else m, width=width, label=label)
        if published and label in published:
            pub = np.asarray(published[label], dtype=np.float64)
            ok = pub > 0 if log else np.ones(K, dtype=bool)
            ax.hlines(pub[ok], x[ok] - width / 2, x[ok] + width / 2, color="black", lw=2.0,
                      label=published_label)
    # many arms: vertical labels, and every step-th one once they no longer fit (the
    # figure is at most 14 inches wide)
    longest = max(len(label) for label in arm_labels)
    vertical = K > 16 or longest * K > 120
    step = max(1, math.ceil(K / 60)) if vertical else 1
    ax.set_xticks(np.arange(0, K, step))
    ax.set_xticklabels(arm_labels[::step], rotation=90 if vertical else 0,
                       fontsize=7 if vertical else None)
    ax.set_xlim(-0.6, K - 0.4)
    ax.set_xlabel("arm")
    ax.set_ylabel("pulls (mean over runs)")
    if log:
        readable_log_axis(ax, "y")
    ax.grid(axis="y", alpha=0.3)
    _legend_outside(ax)
    if title is None:
        runs = {np.asarray(c).shape[0] if np.ndim(c) == 2 else 1 for c in counts.values()}
        title = ("samples per arm, mean of "
                 + (f"{runs.pop()} runs" if len(runs) == 1 else "several runs"))
    _title(ax, title)
    save(ax, path, dpi=dpi)
    return ax


def plot_design(X: Any, weights: Any, path: str | os.PathLike | None = None, *,
                ax: Any = None, level: float | str = "d", annotate: bool = True,
                min_weight: float = 1e-4, title: str | None = None, dpi: int = 150,
                model: Any = None) -> Any:
    """Picture of a design on 2-D arms (Mason, Jun & Jain 2022, Fig. 3).

    Each arm is a point; an arm with weight ``w_i > min_weight`` gets a disc of area
    proportional to ``w_i`` (the design's support). The red curve is the confidence ellipse
    of the design

    $$E = \\{x : x^T A(w)^{-1} x \\le c\\}, \\qquad A(w) = \\sum_i w_i x_i x_i^T,$$

    the set of directions whose predicted variance under ``w`` is at most ``c`` (in units of
    ``sigma^2 / n`` for ``n`` samples allocated by ``w``). With the default ``c = d`` this is
    the Kiefer–Wolfowitz picture: ``w`` is G-optimal exactly when every arm lies inside
    ``E`` (``max_i x_i^T A(w)^{-1} x_i = d``), and then the support arms lie on its boundary
    (``E`` is the minimum-area ellipse centred at 0 that contains the arms). An arm outside
    ``E`` is one whose variance exceeds ``d``: the design is not G-optimal. The variance
    ellipse ``{x : x^T A(w) x <= 1}`` would show the spread of the design instead, not
    which arms are predicted well; we draw the confidence ellipse. The axes have equal
    scales (the ellipse's true shape) when the extents of the arms and the ellipse are
    within 3:1, and scale freely beyond (a linear map of the axes keeps every arm on the
    same side of the ellipse).

    **A model on two factors** (``model``, e.g. a quadratic response surface): ``X`` are
    then the factor settings of the candidates and ``w`` a design for the regressors
    ``f(x)`` of ``model`` (``design.regressors``: ``model.X`` are ``f`` at ``X``). The red
    curve is the contour ``f(x)^T A(w)^{-1} f(x) = c`` of the prediction variance over the
    factor plane, with ``A(w) = sum_i w_i f(x_i) f(x_i)^T`` and ``c = p`` (the number of
    parameters, the G-optimal value) by default: the variance contour plot of response
    surface designs. Candidates outside it are predicted worse than ``c``.

    Parameters
    ----------
    X : array of shape (K, 2)
        Arms, one per row.
    weights : array of shape (K,)
        Design weights (non-negative, summing to 1), e.g. ``g_optimal(X).weights``, or
        the run counts of an exact design (an integer array, e.g. ``exact(X, n).counts``):
        drawn as the weights ``counts / n``, each support point labelled with its runs.
    path : str or path-like, optional
        Also save the figure here.
    ax : matplotlib Axes, optional
        Draw here; default a new figure.
    level : float or {"d", "max"}, default "d"
        ``c`` above: ``"d"`` (= 2, the G-optimal value), ``"max"`` (``max_i x_i^T A^{-1}
        x_i``, the design's G-criterion: the ellipse through its worst arm), or a number
        (e.g. the value of another criterion, as Mason et al. draw ``g*`` and ``h*``).
    annotate : bool, default True
        Write the weight next to each support arm.
    min_weight : float, default 1e-4
        Arms with a smaller weight are drawn as small grey points only.
    title : str, optional
        Default gives the support size and ``max_i x_i^T A^{-1} x_i``.
    dpi : int, default 150
    model : design.Regressors, optional
        The model the design is for, on these two factors (``model.X`` has one row per
        row of ``X`` and equals ``model.at(X)``). Default: the arms are the regressors.

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    ValueError
        If ``X`` is not (K, 2), ``weights`` is not a probability vector of length K,
        ``A(w)`` is singular, ``level`` is not positive, or ``model`` is not a model of
        these two factors at ``X``.
    """
    from design.validation import as_arms, as_weights

    X = as_arms(X, "X")
    if X.shape[1] != 2:
        raise ValueError(f"X must have shape (K, 2) for a 2-D picture; got {X.shape}")
    raw = np.asarray(weights)
    runs = None  # run counts of an exact design (integers), read as weights runs / total
    if raw.dtype.kind in "iu":
        if raw.shape != (X.shape[0],) or np.any(raw < 0) or int(raw.sum()) < 1:
            raise ValueError(f"weights: run counts must be {X.shape[0]} non-negative "
                             f"integers, not all zero; got shape {raw.shape}")
        runs = raw.astype(np.int64)
        weights = runs / runs.sum()
    w = as_weights(weights, X.shape[0], "weights")
    F = X if model is None else _model_regressors_at(model, X)
    A = (F * w[:, None]).T @ F
    eig = np.linalg.eigvalsh(A)
    if eig[0] <= 1e-12 * max(eig[-1], 1e-300):
        raise ValueError("weights: A(w) is singular (the support does not identify the "
                         f"{F.shape[1]} parameters); no variance contour")
    A_inv = np.linalg.inv(A)
    var = np.einsum("ij,ij->i", F @ A_inv, F)
    p = F.shape[1]
    if isinstance(level, str):
        if level not in ("d", "max"):
            raise ValueError(f"level must be 'd', 'max' or a positive number; got {level!r}")
        c = float(p) if level == "d" else float(var.max())
        c_text = (f"{'d' if model is None else 'p'} = {p}" if level == "d"
                  else f"max variance = {c:.3g}")
    else:
        c = float(level)
        if not np.isfinite(c) or c <= 0:
            raise ValueError(f"level must be 'd', 'max' or a positive number; got {level!r}")
        c_text = f"{c:.3g}"
    ax = new_axes((6.8, 5.0), ax)
    support = w > min_weight
    ax.scatter(X[~support, 0], X[~support, 1], s=8, color="0.6", zorder=2)
    area = 900.0 * w[support] / w.max()
    ax.scatter(X[support, 0], X[support, 1], s=area, color="tab:blue", alpha=0.55,
               edgecolors="tab:blue", zorder=3)
    if model is None:  # the ellipse, exactly: x = sqrt(c) L u on the unit circle
        t = np.linspace(0.0, 2.0 * np.pi, 400)
        L = np.linalg.cholesky(A * c)
        pts = L @ np.vstack([np.cos(t), np.sin(t)])
        ax.plot(pts[0], pts[1], color="tab:red", lw=1.4, zorder=1)
        both = np.c_[X.T, pts]
    else:
        both = X.T
    # the solver's certified gap leaves support arms a hair outside c = d: only an arm more
    # than 0.01 % outside is flagged
    outside = var > c * (1.0 + 1e-4)
    if np.any(outside):
        ax.scatter(X[outside, 0], X[outside, 1], s=40, facecolors="none",
                   edgecolors="tab:red", zorder=4)
    # equal weights (an exact design of one run per point, a uniform design): the legend
    # says the weight once instead of a label at every point, which overlap for many points
    equal_w = float(np.ptp(w[support])) <= 1e-9 * float(w.max())
    if annotate and not equal_w:
        for i, r in zip(np.flatnonzero(support), np.sqrt(area / np.pi), strict=True):
            off = 0.75 * r + 2.0
            text = f"{w[i]:.3f}" if runs is None else f"×{runs[i]}"
            ax.annotate(text, X[i], xytext=(off, off), textcoords="offset points",
                        fontsize=7 if runs is None else 8)
    from matplotlib.lines import Line2D

    point = "arm" if model is None else "candidate"
    handles = [Line2D([], [], ls="", marker="o", ms=3, color="0.6"),
               Line2D([], [], ls="", marker="o", ms=10, color="tab:blue", alpha=0.55),
               Line2D([], [], color="tab:red", lw=1.4)]
    if runs is not None:
        one = int(runs[support][0])
        held = ("\n(area ∝ runs, ×k: k runs)" if not equal_w
                else f"\n({one} run{'s' if one > 1 else ''} each)")
    else:
        held = ("\n(area ∝ weight)" if not equal_w
                else f"\n(equal weights {float(w[support][0]):.3g})")
    labels = [f"{point} ({'no run' if runs is not None else 'weight 0'})",
              f"support {point}{held}",
              (f"$x^T A(w)^{{-1}} x \\leq$ {c_text}" if model is None
               else f"$f(x)^T A(w)^{{-1}} f(x) \\leq$ {c_text}")]
    if np.any(outside):
        handles.append(Line2D([], [], ls="", marker="o", ms=7, mfc="none", color="tab:red"))
        labels.append(f"{point} outside the {'ellipse' if model is None else 'contour'}"
                      "\n(not G-optimal at this level)")
    if model is None:
        ax.axhline(0, color="0.85", lw=0.8, zorder=0)
        ax.axvline(0, color="0.85", lw=0.8, zorder=0)
    from matplotlib.ticker import MaxNLocator

    # limits: the arms (and the ellipse) with a margin of 15 % of the larger extent on each
    # side (room for the largest disc at the edge); equal axis scales show the ellipse's
    # true shape, but for elongated arms (extents more than 3:1) they would leave most of
    # the figure empty, and since x -> D x maps the ellipse of X to the ellipse of X D
    # (inside stays inside), the axes then scale freely with a margin of their own extent
    lo, hi = both.min(axis=1), both.max(axis=1)
    spans = np.maximum(hi - lo, 1e-12 * max(float(np.abs(both).max()), 1.0))
    equal = spans.max() <= 3.0 * spans.min()
    pad = 0.15 * (np.full(2, spans.max()) if equal else spans)
    if model is not None:  # the variance contour over the padded box of the candidates
        g1 = np.linspace(lo[0] - pad[0], hi[0] + pad[0], 241)
        g2 = np.linspace(lo[1] - pad[1], hi[1] + pad[1], 241)
        G1, G2 = np.meshgrid(g1, g2)
        Fg = _model_regressors_at(model, np.c_[G1.ravel(), G2.ravel()], check=False)
        V = np.einsum("ij,ij->i", Fg @ A_inv, Fg).reshape(G1.shape)
        ax.contour(G1, G2, V, levels=[c], colors="tab:red", linewidths=1.4, zorder=1)
    ax.update_datalim([lo - pad, hi + pad])
    ax.margins(0.0)
    ax.autoscale_view()
    if equal:  # the data limits (with the padding) grow along one axis to fill the box
        ax.set_aspect("equal", adjustable="datalim")
    ax.xaxis.set_major_locator(MaxNLocator(nbins=5))
    ax.yaxis.set_major_locator(MaxNLocator(nbins=5))
    names = ("$x_1$", "$x_2$") if model is None else _factor_names(model)
    ax.set_xlabel(names[0])
    ax.set_ylabel(names[1])
    _legend_outside(ax, handles, labels)
    what = "" if model is None else "\n" + model.description.split(";")[0]
    runs_text = "" if runs is None else f"{int(runs.sum())} runs "
    _title(ax, title or f"design {runs_text}on {X.shape[0]} {point}s: support "
                        f"{int(support.sum())}, max variance {var.max():.4g}{what}")
    save(ax, path, dpi=dpi)
    return ax


def _model_regressors_at(model: Any, X: np.ndarray, *, check: bool = True) -> np.ndarray:
    """``model``'s regressors at the factor settings ``X`` (K, 2); with ``check``, they
    must be ``model.X`` (the design's regressors are those of these candidates)."""
    factors = getattr(model, "factors", None)
    if not callable(getattr(model, "at", None)) or factors != 2:
        raise ValueError("model must be a design.Regressors of two factors (design."
                         f"regressors on the (K, 2) settings); got {type(model).__name__}"
                         + (f" of {factors} factors" if factors is not None else ""))
    if getattr(model, "levels", None) is not None:
        raise ValueError("model: a categorical factor has no continuous axis to draw the "
                         "variance contour on; plot each level's candidates with a model of "
                         "the numeric factors, or the design without model")
    F = model.at(X, "X")
    if check and (F.shape != model.X.shape
                  or not np.allclose(F, model.X, rtol=1e-9, atol=1e-12)):
        raise ValueError("model: its regressors are not those of X (build it with design."
                         "regressors on the same (K, 2) factor settings)")
    return F


def _factor_names(model: Any) -> tuple[str, str]:
    """The two factors' names: the first two linear terms of the model."""
    first = int(model.intercept)
    names = list(model.terms[first:first + 2])
    if len(names) == 2 and all(("*" not in t and "^" not in t) for t in names):
        return names[0], names[1]
    return "$x_1$", "$x_2$"
