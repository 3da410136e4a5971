"""Cumulative regret curves as the DART paper draws them (Figs. 1-3).

Mean cumulative regret across runs with a band (and end error bar) from the minimum to the
maximum across runs; DART in red. Drawn on the given Axes, or on a new figure with an Agg
canvas (no display, no pyplot); returns the Axes, saving is the caller's (``path=`` is a
convenience).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from bandits.subsets.runner import RegretCurves

__all__ = ["plot_regret"]

_COLORS = {"dart": "tab:red", "csar": "tab:blue", "lints": "tab:green",
           "lints-unscaled": "tab:olive", "ucb": "tab:purple", "dart-anytime": "tab:orange"}


def plot_regret(curves: RegretCurves | dict[str, RegretCurves],
                path: str | os.PathLike | None = None, *, ax: Any = None,
                title: str | None = None, dpi: int = 150) -> Any:
    """Mean cumulative regret with a min/max band per algorithm (DART paper, Figs. 1-3).

    Parameters
    ----------
    curves : RegretCurves or dict of panel title to RegretCurves
        One panel, or several side by side (e.g. K = 2, 4, 8 as in the paper's figures).
    path : str or path-like, optional
        Also save the figure here (format from the extension).
    ax : matplotlib Axes or sequence of Axes, optional
        Where to draw: one Axes per panel; default a new figure with one row of panels.
    title : str, optional
        Figure title above the panels (a new figure only).
    dpi : int, default 150

    Returns
    -------
    matplotlib.axes.Axes or list of Axes
        The Axes of a single panel, else one per panel in order.

    Raises
    ------
    ValueError
        If there is nothing to plot or ``ax`` has the wrong number of panels.
    """
    panels = curves if isinstance(curves, dict) else {curves.title or "": curves}
    if not panels:
        raise ValueError("nothing to plot")
    if ax is None:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        fig = Figure(figsize=(4.6 * len(panels) + 1.8, 3.9))
        FigureCanvasAgg(fig)
        axes = list(fig.subplots(1, len(panels), squeeze=False)[0])
        if title:
            fig.suptitle(title, fontsize=11)
    else:
        axes = list(ax) if isinstance(ax, (list, tuple, np.ndarray)) else [ax]
        if len(axes) != len(panels):
            raise ValueError(f"ax: {len(panels)} panels need {len(panels)} Axes; "
                             f"got {len(axes)}")
    for a, (ptitle, rc) in zip(axes, panels.items(), strict=True):
        runs = set()
        for k, (lab, c) in enumerate(rc.curves.items()):
            color = _COLORS.get(lab, f"C{k}")
            mean, lo, hi = c.mean(axis=0), c.min(axis=0), c.max(axis=0)
            runs.add(c.shape[0])
            a.plot(rc.times, mean, color=color, lw=2.0 if lab == "dart" else 1.4, label=lab)
            a.fill_between(rc.times, lo, hi, color=color, alpha=0.15, lw=0)
            a.errorbar([rc.times[-1]], [mean[-1]],
                       yerr=[[mean[-1] - lo[-1]], [hi[-1] - mean[-1]]], color=color,
                       capsize=3, lw=1)
        a.set_xlabel("time step t")
        a.set_ylabel("cumulative regret")
        n_runs = f"{runs.pop()} runs" if len(runs) == 1 else "runs differ"
        a.set_title(f"{ptitle}: {n_runs}" if ptitle else n_runs, fontsize=10)
        a.ticklabel_format(axis="both", style="sci", scilimits=(0, 3))
        a.grid(alpha=0.3)
    # one legend for all panels, right of the last one (never over the curves)
    from matplotlib.patches import Patch

    handles, labels = axes[-1].get_legend_handles_labels()
    handles.append(Patch(color="0.5", alpha=0.3))
    labels.append("band and bar: min-max\nover runs; line: mean")
    axes[-1].legend(handles, labels, fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0),
                    frameon=False, borderaxespad=0.0)
    if path is not None:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        fig = axes[0].figure
        fig.tight_layout()
        fig.savefig(path, dpi=dpi)
    return axes[0] if len(axes) == 1 else axes
