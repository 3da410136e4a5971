"""The figure contract: every plot helper draws on a given Axes (or a new figure when
``ax=None``), returns it, and writes a file only when asked (``path=``)."""

from __future__ import annotations

import numpy as np
import pytest

from bandits.logistic.experiments import figure3, plot_figure3
from bandits.plots import (
    boxplot_samples,
    budget_vs_dimension,
    plot_design,
    readable_log_axis,
    samples_per_arm,
)
from bandits.replicate import ReplicationTable
from bandits.subsets.plots import plot_regret
from bandits.subsets.runner import RegretCurves
from design import g_optimal


def _table() -> ReplicationTable:
    n = 4
    cols = {"algorithm": np.array(["a"] * n + ["b"] * n), "instance": np.array(["inst"] * 2 * n),
            "seed": np.tile(np.arange(n), 2), "samples": np.arange(1, 2 * n + 1) * 100,
            "correct": np.ones(2 * n, dtype=bool), "stopped_by": np.array(["rule"] * 2 * n),
            "wall_time": np.zeros(2 * n), "recommendation": np.array(["0"] * 2 * n),
            "counts": np.array(["1 1"] * 2 * n)}
    return ReplicationTable(cols, {"delta": 0.1})


def _curves() -> RegretCurves:
    t = np.array([10, 20, 30])
    return RegretCurves(t, {"dart": np.array([[1.0, 2, 3], [2, 3, 5]])}, [0, 1], title="K = 2")


HELPERS = {
    "boxplot_samples": lambda **kw: boxplot_samples(_table(), **kw),
    "budget_vs_dimension": lambda **kw: budget_vs_dimension({"a": {2: [1, 2], 3: [2, 5]}}, **kw),
    "samples_per_arm": lambda **kw: samples_per_arm({"a": [[1, 2], [3, 4]]}, **kw),
    "plot_design": lambda **kw: plot_design(np.eye(2), [0.5, 0.5], **kw),
    "plot_regret": lambda **kw: plot_regret(_curves(), **kw),
}


@pytest.mark.parametrize("name", HELPERS)
def test_every_helper_draws_on_the_given_axes_and_returns_it(name, tmp_path, monkeypatch):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    monkeypatch.chdir(tmp_path)
    fig = Figure()
    FigureCanvasAgg(fig)
    mine = fig.add_subplot(1, 2, 2)
    assert HELPERS[name](ax=mine) is mine
    assert mine.has_data() and list(tmp_path.iterdir()) == []  # no file unless asked
    new = HELPERS[name]()
    assert new is not mine and new.figure is not fig and new.has_data()
    HELPERS[name](path=tmp_path / "x.png")
    assert (tmp_path / "x.png").read_bytes()[:4] == b"\x89PNG"


def test_plot_figure3_takes_axes(tmp_path):
    from matplotlib.figure import Figure

    axes = Figure().subplots(2, 2)
    f = figure3()
    assert plot_figure3(fig3=f, axes=axes) is not None and axes[0, 0].has_data()
    with pytest.raises(ValueError, match="2 x 2"):
        plot_figure3(fig3=f, axes=axes[0])


def test_log_axis_under_one_decade_has_several_labelled_ticks():
    from matplotlib.figure import Figure

    ax = Figure().add_subplot()
    ax.plot([0, 1], [2000, 9000])
    readable_log_axis(ax)
    ticks = [t for t in ax.get_yticks() if 2000 <= t <= 9000]
    labels = [ax.yaxis.get_major_formatter()(t) for t in ticks]
    assert labels == ["2,000", "5,000"]


def test_design_picture_ellipse_touches_the_support_of_a_g_optimal_design():
    # Kiefer-Wolfowitz: at a G-optimal design every arm has x^T A^-1 x <= d = 2 with
    # equality on the support, so the ellipse at level d passes through the support arms
    rng = np.random.default_rng(3)
    X = rng.standard_normal((15, 2))
    res = g_optimal(X, tol=1e-9)
    ax = plot_design(X, res.weights)
    curve = ax.lines[0].get_xydata()
    A = (X * res.weights[:, None]).T @ X
    on_curve = np.einsum("ij,jk,ik->i", curve, np.linalg.inv(A), curve)
    np.testing.assert_allclose(on_curve, 2.0, rtol=1e-9)
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert not any("outside" in t for t in legend)  # G-optimal: no arm outside
    support = res.weights > 1e-4
    var = np.einsum("ij,jk,ik->i", X, np.linalg.inv(A), X)
    np.testing.assert_allclose(var[support], 2.0, rtol=1e-5)  # support arms on the ellipse
    uniform = plot_design(X, np.full(15, 1 / 15))
    assert any("outside" in t.get_text() for t in uniform.get_legend().get_texts())


def test_design_picture_of_a_model_draws_the_variance_contour_through_the_support():
    """With ``model`` (a quadratic response surface on two factors) the red curve is the
    contour ``f(x)^T A^-1 f(x) = p`` over the factor plane. The D-optimal design of the
    quadratic model on the 3 x 3 grid (0.1458 / 0.0802 / 0.0962 on corners, edge centres
    and centre; Atkinson, Donev & Tobias 2007, ch. 11; tests/test_models.py) is G-optimal
    (Kiefer-Wolfowitz), so no candidate lies outside and the contour passes through the
    support points."""
    from design import box_grid, d_optimal, regressors

    F = box_grid(3, 2) * np.array([20.0, 1.5]) + np.array([60.0, 7.0])  # temperature, pH
    model = regressors(F, "quadratic", names=["temp", "pH"], code=True)
    res = d_optimal(model.X, tol=1e-10)
    ax = plot_design(F, res.weights, model=model)
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert not any("outside" in t for t in legend) and "p = 6" in legend[2]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("temp", "pH")
    A_inv = np.linalg.inv((model.X * res.weights[:, None]).T @ model.X)
    from matplotlib.contour import ContourSet

    (contour,) = [c for c in ax.collections if isinstance(c, ContourSet)]
    pts = np.vstack([p.vertices for p in contour.get_paths()])
    f = model.at(pts)
    var = np.einsum("ij,jk,ik->i", f, A_inv, f)
    np.testing.assert_allclose(var, 6.0, rtol=2e-3)  # on the contour (grid interpolation)
    near = np.min(np.linalg.norm((pts[:, None, :] - F[None]) / [20.0, 1.5], axis=2), axis=0)
    # it passes by the eight support points of the boundary; at the centre the variance
    # has a local maximum equal to p, a point the level set only touches
    assert np.delete(near, 4).max() < 0.02
    other = plot_design(F, np.full(9, 1 / 9), model=model)  # uniform: not G-optimal
    assert any("outside" in t.get_text() for t in other.get_legend().get_texts())


def test_design_picture_of_a_model_refuses_a_model_of_other_candidates():
    from design import box_grid, regressors

    F = box_grid(3, 2)
    with pytest.raises(ValueError, match="model: its regressors are not those of X"):
        plot_design(F, np.full(9, 1 / 9), model=regressors(F * 2.0, "quadratic"))
    with pytest.raises(ValueError, match="model must be a design.Regressors of two factors"):
        plot_design(F, np.full(9, 1 / 9), model=regressors(box_grid(3, 3), "linear"))


def test_design_picture_rejects_bad_input():
    with pytest.raises(ValueError, match="shape"):
        plot_design(np.random.default_rng(0).standard_normal((4, 3)), np.full(4, 0.25))
    with pytest.raises(ValueError, match="weights"):
        plot_design(np.eye(2), [0.7, 0.7])
    with pytest.raises(ValueError, match="singular"):
        plot_design(np.eye(2), [1.0, 0.0])
    with pytest.raises(ValueError, match="level"):
        plot_design(np.eye(2), [0.5, 0.5], level=-1.0)


def test_design_picture_of_equal_weights_says_the_weight_once():
    """An exact design of one run per point (or a uniform design) has equal weights: the
    legend states the weight once instead of a label at every support point (18 labels of
    '0.056' overlapped on a sensor-placement design); unequal weights keep their labels."""
    X = np.random.default_rng(4).standard_normal((12, 2))
    w = np.zeros(12)
    w[:6] = 1 / 6
    ax = plot_design(X, w)
    assert len(ax.texts) == 0
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "equal weights 0.167" in legend[1]
    w[:6] = [0.3, 0.2, 0.2, 0.1, 0.1, 0.1]
    labelled = plot_design(X, w)
    assert sorted(t.get_text() for t in labelled.texts) == sorted(
        f"{v:.3f}" for v in w[:6])
    with pytest.raises(ValueError, match="categorical factor has no continuous axis"):
        from design import regressors

        F = np.array([[t, c] for t in (-1.0, 0.0, 1.0) for c in "ab"], dtype=object)
        plot_design(np.c_[F[:, 0].astype(float), np.r_[0:6]], np.full(6, 1 / 6),
                    model=regressors(F, "linear"))


def test_design_picture_of_run_counts_labels_the_runs():
    """Run counts of an exact design (integers) are drawn as counts / n, each support point
    labelled with its runs; bad counts are refused by name."""
    X = np.random.default_rng(5).standard_normal((8, 2))
    counts = np.array([2, 1, 0, 3, 0, 0, 1, 1])
    ax = plot_design(X, counts)
    assert sorted(t.get_text() for t in ax.texts) == ["×1", "×1", "×1", "×2", "×3"]
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend[0] == "arm (no run)" and "area ∝ runs" in legend[1]
    assert "design 8 runs on 8 arms" in ax.get_title()
    A = (X * (counts / 8)[:, None]).T @ X  # the ellipse of the weights counts / n
    curve = ax.lines[0].get_xydata()
    np.testing.assert_allclose(np.einsum("ij,jk,ik->i", curve, np.linalg.inv(A), curve),
                               2.0, rtol=1e-9)
    with pytest.raises(ValueError, match="run counts must be 8 non-negative integers"):
        plot_design(X, -counts)


def _overlapping_labels(ax) -> list[tuple[str, str]]:
    fig = ax.figure
    fig.tight_layout()
    renderer = fig.canvas.get_renderer()
    shown = [t for t in ax.get_xticklabels() if t.get_visible() and t.get_text()]
    boxes = [t.get_window_extent(renderer) for t in shown]
    return [(shown[i].get_text(), shown[j].get_text()) for i in range(len(boxes))
            for j in range(i + 1, len(boxes)) if boxes[i].overlaps(boxes[j])]


@pytest.mark.parametrize("K", [5, 40, 250])
def test_samples_per_arm_of_many_arms_stays_readable(K):
    """40 arms drew a 40-inch figure labelled x1..x40 (arm 0 as 'x1'); the labels are the
    arm indices of counts and recommendations, the width is capped, and no two shown tick
    labels overlap."""
    counts = {"a": np.arange(1, K + 1), "b": np.arange(K, 0, -1)}
    ax = samples_per_arm(counts)
    assert ax.figure.get_figwidth() <= 14.0
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels[0] == "0"
    assert all(int(lab) == int(x) for lab, x in zip(labels, ax.get_xticks(), strict=True))
    assert _overlapping_labels(ax) == []
    ax = samples_per_arm(counts, arm_labels=[f"C{i:03d}" for i in range(K)])
    assert _overlapping_labels(ax) == []
    heights = [p.get_height() for p in ax.patches]
    np.testing.assert_array_equal(heights, np.r_[counts["a"], counts["b"]])


def test_title_is_not_wrapped_inside_an_assignment():
    """A one-box plot wrapped its default title as '..., delta' / '= 0.05'."""
    t = _table().select("a")
    t = ReplicationTable({**{c: t[c] for c in t.columns},
                          "instance": np.array(["my forty arms in four dims"] * len(t))},
                         t.meta)
    ax = boxplot_samples(t)
    lines = ax.get_title().split("\n")
    assert len(lines) > 1 and any(line.endswith("delta = 0.1") for line in lines)
    assert not any(line.startswith("=") or line.endswith("=") for line in lines)
