"""Cumulative regret curves as the DART paper draws them (Figs. 1-3).

Mean cumulative regret across runs with a band (and end error bar) from the minimum to the
maximum across runs; DART in red.  Written with the Agg canvas (no display, no pyplot).
"""

from __future__ import annotations

import os
from pathlib import Path

from bandits.subsets.runner import RegretCurves

__all__ = ["plot_regret"]

_COLORS = {"dart": "tab:red", "csar": "tab:blue", "lints": "tab:green",
           "lints-unscaled": "tab:olive", "ucb": "tab:purple", "dart-anytime": "tab:orange"}


def plot_regret(curves: RegretCurves | dict[str, RegretCurves], path: str | os.PathLike, *,
                title: str | None = None, dpi: int = 120) -> Path:
    """Plot mean cumulative regret with a min/max band per algorithm; save to ``path``.

    Parameters
    ----------
    curves : RegretCurves or dict of panel title to RegretCurves
        One panel, or several side by side (e.g. K = 2, 4, 8 as in the paper's figures).
    path : str or path-like
        Output file (format from the extension).
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    panels = curves if isinstance(curves, dict) else {curves.title or "": curves}
    if not panels:
        raise ValueError("nothing to plot")
    fig = Figure(figsize=(4.6 * len(panels), 3.8))
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    for ax, (ptitle, rc) in zip(axes, panels.items(), strict=True):
        for k, (lab, c) in enumerate(rc.curves.items()):
            color = _COLORS.get(lab, f"C{k}")
            mean, lo, hi = c.mean(axis=0), c.min(axis=0), c.max(axis=0)
            ax.plot(rc.times, mean, color=color, lw=2.0 if lab == "dart" else 1.4,
                    label=f"{lab} ({c.shape[0]})")
            ax.fill_between(rc.times, lo, hi, color=color, alpha=0.15, lw=0)
            ax.errorbar([rc.times[-1]], [mean[-1]],
                        yerr=[[mean[-1] - lo[-1]], [hi[-1] - mean[-1]]], color=color,
                        capsize=3, lw=1)
        ax.set_xlabel("time step t")
        ax.set_ylabel("cumulative regret")
        ax.set_title(ptitle, fontsize=10)
        ax.ticklabel_format(axis="both", style="sci", scilimits=(0, 3))
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="upper left")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=dpi)
    return path

