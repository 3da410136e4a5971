"""The figures of the tutorials, made from the code (never drawn by hand, never stale).

``python scripts/make_figures.py [OUTDIR]`` (``make figures``) writes every figure of
:data:`FIGURES` to OUTDIR (default ``figures/``). The documentation build makes them too:
``scripts/mkdocs_hooks.py`` adds them to the site as ``figures/NAME`` on every
``mkdocs build``, so the pages show what the current code draws.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np


def design_2d(path: Path) -> None:
    """Design tutorial, section 8: the G-optimal design of 12 arms in the plane."""
    from bandits.plots import plot_design
    from design import g_optimal

    angles = np.linspace(0, 2 * np.pi, 12, endpoint=False)
    radii = 1.0 + 0.3 * np.cos(3 * angles)
    X = np.column_stack([radii * np.cos(angles), 0.6 * radii * np.sin(angles)])
    res = g_optimal(X)
    plot_design(X, res.weights, path, title="G-optimal design of 12 arms in the plane")


def uniform_2d(path: Path) -> None:
    """Design tutorial, section 8: the same arms with uniform weights (not G-optimal)."""
    from bandits.plots import plot_design

    angles = np.linspace(0, 2 * np.pi, 12, endpoint=False)
    radii = 1.0 + 0.3 * np.cos(3 * angles)
    X = np.column_stack([radii * np.cos(angles), 0.6 * radii * np.sin(angles)])
    plot_design(X, np.full(12, 1 / 12), path, title="uniform weights on the same arms")


def surface_2d(path: Path) -> None:
    """Design tutorial, section 8: an exact I-optimal design of 12 runs for a quadratic
    response surface in temperature and pH, with its prediction-variance contour."""
    from bandits.plots import plot_design
    from design import box_grid, exact, regressors

    F = box_grid(5, 2) * np.array([20.0, 1.5]) + np.array([60.0, 7.0])
    model = regressors(F, "quadratic", names=["temperature", "pH"], code=True)
    res = exact(model.X, 12, criterion="i")
    plot_design(F, res.counts, path, model=model,
                title="exact I-optimal design, 12 runs, quadratic in temperature and pH")


def replicate_boxplot(path: Path) -> None:
    """Bandit tutorial, section 4: the box plot of 20 runs of four algorithms."""
    from bandits import replicate
    from bandits.instances import soare
    from bandits.plots import boxplot_samples

    table = replicate(["m-lingape", "lingape", "xy-adaptive", "rage"], soare(d=3, omega=0.3),
                      20, n_jobs=1)
    boxplot_samples(table, path, log=True)


#: file name -> function drawing it (the tutorials link ``../figures/NAME``)
FIGURES: dict[str, Callable[[Path], None]] = {
    "design-2d.png": design_2d,
    "uniform-2d.png": uniform_2d,
    "surface-2d.png": surface_2d,
    "replicate-boxplot.png": replicate_boxplot,
}


def make_all(outdir: Path) -> list[Path]:
    """Draw every figure into ``outdir``; the paths written."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    outdir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, draw in FIGURES.items():
        draw(outdir / name)
        written.append(outdir / name)
    return written


if __name__ == "__main__":
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("figures")
    for p in make_all(out):
        print(p)
