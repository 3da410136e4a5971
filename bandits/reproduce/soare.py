"""Soare, Lazaric & Munos (2014), best-arm identification in linear bandits: Figures 4 and 5.

Instance (their §6): arms ``e_1 .. e_d`` and ``x_{d+1} = (cos w, sin w, 0, ..)``, ``w = 0.01``,
``theta = 2 e_1``, N(0, 1) noise, ``delta = 0.05``, ``alpha = 1/10`` for XY-adaptive.

The paper does not state its confidence constant, so its absolute budgets are not a target
(the issue and the spec notes say so). We run every algorithm with the theoretical
constant ``c = 2 sqrt 2`` and ``log(6 n^2 K^2 / (pi^2 delta))`` and compare what does not
depend on it: the ratios between algorithms, the allocation pattern, and the growth in d.

**Why XY-adaptive / oracle is not a fixed number.** XY-adaptive's phase lengths form a
geometric grid (each phase lowers the uncertainty by ``alpha``; the grid does not depend
on the confidence constant), and the run stops in the first phase long enough on its own
samples. With ``alpha = 1/10`` the ratio therefore lies between about ``1 + alpha/(1-alpha)``
(the grid lands just above the oracle's budget) and about ``2 + alpha/(1-alpha)`` (just
below). :func:`soare_figure5` reports it at the theoretical constant and averaged over one
grid period (the constant scaled by ``10^{-i/16}``, ``i = 0..7``, i.e. the budget by
``10^{-i/8}``); the published 1.27 lies inside the measured range.

**The constant that reproduces the oracle.** A fixed multiplier ``ORACLE_CONSTANT = 2.03``
on ``||y||_{A^-1}`` -- no ``log n``, no union bound, i.e. ``confidence=2.03`` -- makes the
oracle stop at 41,628 samples (paper: 41,652), with the paper's per-arm pattern. It is not
a confidence bound: with it the algorithms that stop on *estimated* gaps stop too early
and are wrong far more often than ``delta = 0.05`` allows (measured over ``const_runs``
runs each and reported as rows), so no single constant explains the whole figure.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from bandits.reproduce._core import Row, _write, budgets_over, sample_counts

#: Soare et al. (2014), Appendix E (Fig. 5), d = 5: pulls of x1..x6 and the budget.
FIG5_PUBLISHED: dict[str, list[int]] = {
    "xy-oracle": [207, 41440, 2, 2, 1, 0],
    "xy-adaptive": [263, 52713, 3, 5, 2, 2],
    "xy-static": [29523, 29524, 29524, 29524, 29524, 1],
    "g-static": [28014, 28015, 28015, 28015, 28015, 1],
}
_BIG = 10**9  # sample cap: every run must stop by its rule
_ALGOS = ("xy-oracle", "xy-adaptive", "xy-static", "g-static")
#: The fixed multiplier on ``||y||_{A^-1}`` (no ``log n``, no union bound) with which the
#: oracle's budget matches the paper's 41,652 (issue 17; measured 41,628).
ORACLE_CONSTANT = 2.03
#: The static allocations use the relaxation + efficient rounding (``method="rounding"``):
#: it gives the paper's Fig. 5 pattern (uniform over e1..e5, x6 about never); the greedy
#: rule splits e1's share between e1 and x6 (0.1 / 0.1, the split of Xu et al. Table 1).
_OPTIONS = {"xy-static": {"method": "rounding"}, "g-static": {"method": "rounding"}}


def _runs(algo: str, inst, seeds: list[int], jobs: int, **options):
    """Samples, per-arm counts and correctness of ``algo`` (the static ones by rounding)."""
    return sample_counts(algo, inst, seeds, jobs, max_samples=_BIG,
                         deterministic=algo == "xy-oracle",
                         **{**_OPTIONS.get(algo, {}), **options})


def soare_figure5(out: Path, runs: int = 5, jobs: int = -1, seed: int = 0,
                  full: bool = False, omega: float = 0.01,
                  const_runs: int = 200) -> list[Row]:
    """Soare et al. (2014) Fig. 5 (App. E): samples per arm at d = 5 (100 runs in the paper).

    ``runs`` runs of XY-adaptive and of each static algorithm (their runs of 15-19
    million samples take milliseconds with the rounding rule's block simulation, issue
    18), the oracle once (it is deterministic), and the alignment sweep with ``max(2,
    runs // 2)`` runs per point. Writes
    ``soare-figure5.csv`` (published vs ours), ``soare-figure5-arms.csv`` (mean pulls per
    arm) and ``soare-figure5.png`` (grouped bars, log scale). ``omega`` is the paper's
    0.01; a larger one gives a quick check of the same pipeline. The rows "constant 2.03"
    rerun every algorithm with ``confidence=ORACLE_CONSTANT`` (``const_runs`` runs each,
    about 40 s at 200): the oracle's budget and allocation against the paper's, and the
    error counts of the others (``delta = 0.05`` allows about ``0.05 const_runs``).
    """
    from bandits.instances import soare
    from bandits.plots import mean_pulls, samples_per_arm

    inst = soare(d=5, omega=omega)
    n_ada = n_static = 100 if full else runs
    seeds = list(range(seed, seed + max(n_ada, n_static)))
    samples, counts, errors = {}, {}, {}
    for algo in _ALGOS:
        n = n_ada if algo == "xy-adaptive" else n_static
        samples[algo], counts[algo], ok = _runs(algo, inst, seeds[:n], jobs)
        errors[algo] = int(np.sum(~ok))
    out.mkdir(parents=True, exist_ok=True)
    plotted = mean_pulls(counts)
    # the published bars are for the paper's omega = 0.01 only: another angle is another
    # instance, and drawing them would compare different problems
    samples_per_arm(counts, out / "soare-figure5.png",
                    published=FIG5_PUBLISHED if omega == 0.01 else None,
                    published_label="published (Soare et al. 2014, Fig. 5)",
                    arm_labels=[f"x{i + 1}" for i in range(inst.K)],
                    title=f"Soare et al. Fig. 5: pulls per arm, d = 5, omega = {omega:g}, "
                          f"{n_ada} runs (xy-adaptive), {n_static} (static)")
    with (out / "soare-figure5-arms.csv").open("w") as fh:
        fh.write("algorithm,arm,published,ours_mean\n")
        for algo in _ALGOS:
            for a in range(6):
                fh.write(f"{algo},x{a + 1},{FIG5_PUBLISHED[algo][a]},{plotted[algo][a]}\n")

    pub = {a: float(sum(v)) for a, v in FIG5_PUBLISHED.items()}
    mean = {a: float(samples[a].mean()) for a in _ALGOS}
    rows = []
    for algo in _ALGOS:
        rows.append(Row(f"{algo}: budget (mean of {samples[algo].size})", pub[algo], mean[algo],
                        f"errors {errors[algo]}/{samples[algo].size}; constant differs, "
                        "compare the ratios"))
    for num, den in [("xy-adaptive", "xy-oracle"), ("xy-static", "xy-adaptive"),
                     ("g-static", "xy-adaptive"), ("g-static", "xy-static")]:
        rows.append(Row(f"ratio {num} / {den}", pub[num] / pub[den], mean[num] / mean[den]))
    for algo in ("xy-oracle", "xy-adaptive"):
        share = float(counts[algo][:, 1].sum() / counts[algo].sum())
        rows.append(Row(f"{algo}: share of pulls on x2 = e2", FIG5_PUBLISHED[algo][1] / pub[algo],
                        share))
    for algo in ("xy-static", "g-static"):
        share = counts[algo][:, :5].sum(axis=0) / counts[algo].sum()
        rows.append(Row(f"{algo}: largest / smallest share over e1..e5", 1.0,
                        float(share.max() / share.min()), "paper: uniform over e1..e5"))

    ratios = _alignment_sweep(inst, seeds[:max(2, runs // 2)], jobs)
    rows.append(Row("xy-adaptive / oracle, mean over one grid period", pub["xy-adaptive"]
                    / pub["xy-oracle"], float(np.mean(ratios)),
                    f"range {min(ratios):.2f}-{max(ratios):.2f} over the constant scaled by "
                    "10^(-i/16), i = 0..7"))
    rows += _oracle_constant_rows(inst, list(range(seed, seed + const_runs)), jobs,
                                  pub["xy-oracle"])
    _write(rows, out, "soare-figure5")
    return rows


def _oracle_constant_rows(inst, seeds: list[int], jobs: int, published_oracle: float
                          ) -> list[Row]:
    """Every algorithm with ``confidence = ORACLE_CONSTANT``: the oracle's match and what
    the same constant does to the error rates of the others (``len(seeds)`` runs each)."""
    c = ORACLE_CONSTANT
    rows = []
    for algo in _ALGOS:
        s, cnt, ok = _runs(algo, inst, seeds, jobs, confidence=c)
        wrong, n = int(np.sum(~ok)), int(s.size)
        if algo == "xy-oracle":
            arms = ", ".join(str(int(v)) for v in cnt[0])
            paper = ", ".join(str(v) for v in FIG5_PUBLISHED[algo])
            rows.append(Row(f"constant {c:g} (no log n, no union bound): xy-oracle budget",
                            published_oracle, float(s.mean()),
                            f"pulls [{arms}] vs paper [{paper}]; matches the oracle, but is "
                            "not a confidence bound (rows below)"))
            continue
        rows.append(Row(f"constant {c:g}: {algo} error rate ({n} runs)", None, wrong / n,
                        f"{wrong}/{n} wrong (delta = 0.05 allows ~{0.05 * n:.0f}); mean "
                        f"budget {s.mean():,.0f} (paper {sum(FIG5_PUBLISHED[algo]):,})"))
    return rows


def _alignment_sweep(inst, seeds: list[int], jobs: int) -> list[float]:
    """XY-adaptive / oracle with the constant ``c = 2 sqrt 2 * 10^{-i/16}``, i = 0..7."""
    ratios = []
    for i in range(8):
        c = 2.0 * math.sqrt(2.0) * 10.0 ** (-i / 16)
        oracle, _, _ = _runs("xy-oracle", inst, seeds, jobs, c=c)
        ada, _, _ = _runs("xy-adaptive", inst, seeds, jobs, c=c)
        ratios.append(float(ada.mean() / oracle.mean()))
    return ratios


def soare_figure4(out: Path, runs: int = 2, jobs: int = -1, seed: int = 0,
                  full: bool = False, omega: float = 0.01,
                  dims: tuple[int, ...] | None = None) -> list[Row]:
    """Soare et al. (2014) Fig. 4: budget against d = 2..10 (100 runs in the paper).

    The paper prints no numbers for Fig. 4, only trends, which are checked as rows with
    published value 1 (holds) and ours 1 or 0:

    * the oracle and XY-adaptive are nearly flat in d (we check max/min over d below 1.5);
    * XY-static and G-static grow with d (d = 10 at least 2x d = 2);
    * the gap between XY-adaptive and the static ones widens with d.

    Defaults: d = 2, 4, 6, 8, 10 with ``runs`` runs each (the oracle once); ``full=True``:
    d = 2..10 with 100 runs. Writes ``soare-figure4.csv``, ``soare-figure4-budgets.csv``
    (every run) and ``soare-figure4.png`` (mean with a min/max band, log scale).
    ``omega`` (the paper's 0.01) and ``dims`` may be changed for a quick check.
    """
    from bandits.instances import soare
    from bandits.plots import budget_summary, budget_vs_dimension

    dims = list(dims or (range(2, 11) if full else (2, 4, 6, 8, 10)))
    n = 100 if full else runs
    seeds = list(range(seed, seed + n))
    budgets, errors = budgets_over(_ALGOS, {d: soare(d=d, omega=omega) for d in dims}, seeds,
                                   jobs, _OPTIONS)
    out.mkdir(parents=True, exist_ok=True)
    plotted = budget_summary(budgets)
    budget_vs_dimension(budgets, out / "soare-figure4.png",
                        title=f"Soare et al. Fig. 4: budget vs d, omega = {omega:g}, {n} runs "
                              "per point (theoretical constant)")
    with (out / "soare-figure4-budgets.csv").open("w") as fh:
        fh.write("algorithm,d,run,samples\n")
        for algo in _ALGOS:
            for d in dims:
                for r, v in enumerate(budgets[algo][d]):
                    fh.write(f"{algo},{d},{r},{int(v)}\n")

    mean = {a: plotted[a][:, 1] for a in _ALGOS}
    rows = []
    for algo in _ALGOS:
        for d, m in zip(dims, mean[algo], strict=True):
            rows.append(Row(f"{algo}: mean budget, d = {d}", None, float(m)))
    for algo in ("xy-oracle", "xy-adaptive"):
        spread = float(mean[algo].max() / mean[algo].min())
        rows.append(Row(f"claim: {algo} nearly flat in d (max/min < 1.5)", 1.0,
                        float(spread < 1.5), f"max/min {spread:.2f}"))
    for algo in ("xy-static", "g-static"):
        growth = float(mean[algo][-1] / mean[algo][0])
        rows.append(Row(f"claim: {algo} grows with d (d={dims[-1]} >= 2x d={dims[0]})", 1.0,
                        float(growth >= 2.0), f"d={dims[-1]} / d={dims[0]} = {growth:.2f}"))
    gap = mean["xy-static"] / mean["xy-adaptive"]
    rows.append(Row("claim: static/adaptive gap widens with d", 1.0, float(gap[-1] > gap[0]),
                    "xy-static / xy-adaptive " + ", ".join(f"{g:.2f}" for g in gap)))
    rows.append(Row("errors (all algorithms, all d)", 0.0, float(sum(errors.values())),
                    ", ".join(f"{a} {e}" for a, e in errors.items())))
    _write(rows, out, "soare-figure4")
    return rows
