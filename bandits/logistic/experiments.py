"""Table 1, Figure 3 (Appendix G) and the HOMER regret experiment of Mason, Jun & Jain (2022).

* :func:`table1` -- warm-up sample counts (naive / WAR / oracle) for ``d = 3``, 20 arms on
  the sphere, ``||theta*|| = S`` in 2, 4, 8, ``delta = 0.05``, integer effects ignored
  (``g gamma``); arms and ``theta*`` redrawn for every repetition (seed = repetition).
* :func:`figure3` -- the G- and H-optimal designs on the 30-point circle with
  ``theta* = (3, 0)`` and the plot of the paper's Figure 3.
* :func:`regret_experiment` -- HOMER vs epsilon-greedy on ``d = 3..10`` (ours).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from bandits.logistic.core import DELTA, mudot

__all__ = ["TABLE1_PUBLISHED", "figure3", "plot_figure3", "regret_experiment", "table1"]

#: Table 1 of the paper: mean (std) over 5 repetitions, for S = 2, 4, 8.
TABLE1_PUBLISHED = {
    "naive": ((8377, 0.3), (49794, 0.1), (2623477, 3.0)),
    "war": ((6536, 237.9), (19701, 805.0), (122405, 30815.5)),
    "oracle": ((4970, 69.0), (11720, 1094.2), (50258, 4052.5)),
}


def table1(reps: int = 5, S_values: tuple[float, ...] = (2.0, 4.0, 8.0), *, d: int = 3,
           K: int = 20, delta: float = DELTA, seed: int = 0, L: float = 1.0,
           U: float = 2.0, r: float = 2.0) -> dict:
    """Warm-up sample counts ``g gamma`` per method and ``S`` (means over ``reps``).

    Returns ``{"naive"|"war"|"oracle"|"war_probe"|"war_total"|"war_relaxed": {S: array of
    reps}}`` plus ``"params"`` (``L, U, r, delta, d, K``). ``war`` is the pessimistic
    planning count (the quantity comparable to naive and oracle); ``war_probe`` the
    optimistic-probing pulls and ``war_total`` their sum; ``war_relaxed`` the planning count
    of the same probing run when ``max_{theta in C_m} |x^T theta|`` drops the confidence
    set's lower bounds (``pessimistic="relaxed"``, our earlier computation).
    """
    from bandits.logistic.instances import sphere
    from bandits.logistic.warmup import naive_warmup, oracle_warmup, relaxed_plan, war_warmup

    out: dict = {k: {} for k in ("naive", "war", "oracle", "war_probe", "war_total",
                                 "war_relaxed")}
    for S in S_values:
        vals: dict = {k: [] for k in out}
        for rep in range(reps):
            inst = sphere(d, K, S, seed=seed + rep)
            vals["naive"].append(naive_warmup(inst.X, S, delta=delta).total_continuous)
            vals["oracle"].append(oracle_warmup(inst.X, inst.theta, delta=delta)
                                  .total_continuous)
            w = war_warmup(inst.X, S, inst.theta, L=L, U=U, r=r, delta=delta,
                           seed=seed + rep)
            vals["war"].append(w.total_continuous)
            vals["war_probe"].append(float(w.probe_samples))
            vals["war_total"].append(w.total_continuous + w.probe_samples)
            vals["war_relaxed"].append(relaxed_plan(inst.X, S, w).total_continuous)
        for k in out:
            out[k][S] = np.array(vals[k])
    out["params"] = {"L": L, "U": U, "r": r, "delta": delta, "d": d, "K": K, "reps": reps}
    return out


def figure3(theta: tuple[float, float] = (3.0, 0.0), tol: float = 1e-6) -> dict:
    """G- and H-optimal designs on the 30-point circle (Appendix G).

    Returns ``X``, ``mu_prime``, ``lambda_G``, ``g_star``, ``lambda_H``, ``h_star`` and
    the angles (degrees) of the support points of both designs.
    """
    from bandits.logistic.instances import circle30
    from design.minimax import g_optimal_hessian, h_optimal

    inst = circle30(theta)
    G = g_optimal_hessian(inst.X, inst.theta, tol=tol)
    H = h_optimal(inst.X, inst.theta, tol=tol)
    ang = np.degrees(np.arctan2(inst.X[:, 1], inst.X[:, 0])) % 360
    return {"X": inst.X, "theta": inst.theta, "mu_prime": mudot(inst.X @ inst.theta),
            "lambda_G": G.weights, "g_star": G.value, "g_gap": G.gap,
            "lambda_H": H.weights, "h_star": H.value, "h_gap": H.gap,
            "support_G": np.flatnonzero(G.weights > 1e-4),
            "support_H": np.flatnonzero(H.weights > 1e-4), "angles": ang}


def _ellipse(ax, M: np.ndarray, level: float, **kw) -> None:
    """Draw ``{x : x^T M^{-1} x <= level}``."""
    t = np.linspace(0, 2 * np.pi, 400)
    Lc = np.linalg.cholesky(M * level)
    pts = Lc @ np.vstack([np.cos(t), np.sin(t)])
    ax.plot(pts[0], pts[1], **kw)


def plot_figure3(path: str | Path, fig3: dict | None = None) -> Path:
    """The paper's Figure 3: points, scaled points, ellipses and stem plots of both designs.

    Left column, G design: arms (blue), ``sqrt(mu') x`` (orange), the ellipse
    ``{x : x^T H(lambda_G)^{-1} x <= g*}`` (red). Right column, H design: ``mu' x`` (blue),
    ``sqrt(mu') x`` (orange), ``{x : x^T H(lambda_H)^{-1} x <= h*}`` (red). Bottom: stems of
    ``lambda_G`` and ``lambda_H`` over the arm index 0..29.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    f = fig3 or figure3()
    X, m = f["X"], f["mu_prime"]
    fig = Figure(figsize=(10, 8))
    FigureCanvasAgg(fig)
    ax = fig.subplots(2, 2)
    for col, (lab, lam, val, pts) in enumerate([("G", f["lambda_G"], f["g_star"], X),
                                                 ("H", f["lambda_H"], f["h_star"],
                                                  X * m[:, None])]):
        a = ax[0, col]
        a.scatter(pts[:, 0], pts[:, 1], s=14, color="C0",
                  label="$x_i$" if lab == "G" else r"$\dot\mu(x_i^T\theta)x_i$")
        sc = X * np.sqrt(m)[:, None]
        a.scatter(sc[:, 0], sc[:, 1], s=14, color="C1", label=r"$\sqrt{\dot\mu}\,x_i$")
        Hm = (X * (lam * m)[:, None]).T @ X
        _ellipse(a, Hm, val, color="red", lw=1.2,
                 label=f"$x^T H(\\lambda_{lab})^{{-1}} x \\leq {lab.lower()}^*$ = {val:.3g}")
        for i in np.flatnonzero(lam > 1e-4):
            a.annotate(str(i), pts[i], fontsize=7)
        a.set_aspect("equal")
        th = f["theta"]
        a.set_title(f"{lab}-optimal design, $\\theta^*$ = ({th[0]:g}, {th[1]:g})")
        a.legend(fontsize=7, loc="upper left")
        s = ax[1, col]
        s.stem(np.arange(X.shape[0]), lam)
        s.set_xlabel("arm index i")
        s.set_ylabel(f"$\\lambda_{lab}$")
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    return path


def regret_experiment(dims: tuple[int, ...] = (3, 5, 10), T: int = 10**6, runs: int = 2, *,
                      K: int = 20, S: float = 2.0, seed: int = 0, delta: float = DELTA,
                      n_points: int = 100) -> dict:
    """HOMER (naive warm-up) vs epsilon-greedy on random sphere instances (ours).

    For each ``d`` and run ``i``: instance ``sphere(d, K, S, seed=seed + i)``, both
    algorithms with seed ``seed + i``. Returns ``{d: RegretCurves}`` (see
    :class:`bandits.subsets.runner.RegretCurves`; plot with
    :func:`bandits.subsets.plots.plot_regret`).
    """
    from bandits.logistic.homer import run_eps_greedy, run_homer
    from bandits.logistic.instances import sphere
    from bandits.subsets.runner import RegretCurves

    out = {}
    for d in dims:
        curves: dict = {"homer": [], "eps-greedy": []}
        correct: dict = {"homer": [], "eps-greedy": []}
        secs = {"homer": 0.0, "eps-greedy": 0.0}
        stopped: dict = {"homer": [], "eps-greedy": []}
        times = None
        for i in range(runs):
            inst = sphere(d, max(K, d), S, seed=seed + i)
            for lab, res in (("homer", run_homer(inst, T, seed=seed + i, delta=delta,
                                                 n_points=n_points)),
                             ("eps-greedy", run_eps_greedy(inst, T, seed=seed + i,
                                                           n_points=n_points))):
                curves[lab].append(res.extra["regret"])
                correct[lab].append(res.correct)
                secs[lab] += res.wall_time
                stopped[lab].append(res.stopped_by)
                times = res.extra["times"]
        out[d] = RegretCurves(times=times, curves={k: np.array(v) for k, v in curves.items()},
                              seeds=list(range(seed, seed + runs)),
                              correct={k: np.array(v) for k, v in correct.items()},
                              stopped_by=stopped, seconds=secs,
                              title=f"logistic, d={d}, K={max(K, d)}, S={S:g}")
    return out
