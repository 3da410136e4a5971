"""Réda, Kaufmann & Delahaye-Duriez (2021), top-m identification in linear bandits:
Table 5 and Figure 1 (a), (c)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from bandits.reproduce._core import Row, _replicated, _write


def reda_table5(out: Path, **_: object) -> list[Row]:
    """Réda et al. (2021) Table 5: complexity constants on the K=10, N=5 random instance."""
    from bandits.instances import reda_random_K10_N5
    from design.complexity import h_mlingape_optimized, h_ugape

    rows = []
    for m, (p_opt, p_ugape) in [(3, (4545.97, 5047.76)), (8, (32124.01, 27622.18))]:
        inst = reda_random_K10_N5(m=m)
        rows.append(Row(f"H(m-LinGapE optimized), m={m}", p_opt,
                        h_mlingape_optimized(inst.X, inst.means, m, 0.0, sigma=1.0)))
        rows.append(Row(f"H(UGapE), m={m}", p_ugape, h_ugape(inst.means, m, 0.0)))
    _write(rows, out, "reda-table5")
    return rows


def reda_figure1a(out: Path, runs: int = 100, jobs: int = -1, seed: int = 0,
                  full: bool = False) -> list[Row]:
    """Réda et al. (2021) Fig. 1(a): classic K=4, m=2, omega=pi/6, sigma=0.5, 500 runs.

    Published values are the authors' stored means (their repository, Results/, 500 runs);
    the paper itself shows only the boxplots.
    """
    from bandits.instances import reda_classic

    configs = [
        ("m-lingape greedy", "m-lingape", {}),
        ("m-lingape optimized", "m-lingape", {"selection": "optimized"}),
        ("lingifa", "lingifa", {}),
        ("lingifa greedy", "lingifa", {"selection": "greedy"}),
        ("lingifa individual", "lingifa", {"indices": "individual"}),
        ("lucb", "lucb", {}),
        ("ugape", "ugape", {}),
    ]
    published = {"m-lingape greedy": 2941.8, "m-lingape optimized": 3014.4, "lingifa": 4086.6,
                 "lingifa greedy": 3019.6, "lingifa individual": 8915.7, "lucb": 10444.3,
                 "ugape": 14003.2}
    return _replicated(configs, reda_classic(K=4, m=2, omega=np.pi / 6, sigma=0.5),
                       500 if full else runs, jobs, seed, out, "reda-figure1a",
                       "Classic instance K=4, m=2, omega=pi/6", published)


def reda_figure1c(out: Path, runs: int = 100, jobs: int = -1, seed: int = 0,
                  full: bool = False) -> list[Row]:
    """Réda et al. (2021) Fig. 1(c): drug repurposing, K=10, m=5, heuristic threshold."""
    from bandits.instances import drug_repurposing_epilepsy

    configs = [
        ("m-lingape greedy", "m-lingape", {"threshold": "heuristic"}),
        ("m-lingape optimized", "m-lingape", {"threshold": "heuristic",
                                              "selection": "optimized"}),
        ("lingifa", "lingifa", {"threshold": "heuristic"}),
        ("lingifa greedy", "lingifa", {"threshold": "heuristic", "selection": "greedy"}),
        ("lucb", "lucb", {"threshold": "heuristic"}),
        ("lucb both arms", "lucb", {"threshold": "heuristic", "selection": "both"}),
    ]
    published = {"m-lingape greedy": 7581.8, "m-lingape optimized": 7586.5, "lingifa": 7616.6,
                 "lingifa greedy": 7623.6, "lucb": 15005.7, "lucb both arms": 14816.5}
    return _replicated(configs, drug_repurposing_epilepsy(), 500 if full else runs, jobs,
                       seed, out, "reda-figure1c", "Drug repurposing (epilepsy), K=10, m=5",
                       published)


