"""Xu, Honda & Sugiyama (2018), fully adaptive LinGapE: Table 1."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from bandits.reproduce._core import Row, _write


def xu_table1(out: Path, runs: int = 5, jobs: int = -1, seed: int = 0,
              full: bool = False) -> list[Row]:
    """Xu, Honda & Sugiyama (2018) Table 1, LinGapE column: Soare instance d=5, omega=0.01.

    The paper reports one run (431,119 samples; per arm 2,133 / 428,889 / 19 / 34 / 33 /
    11). We report the mean over runs and the per-arm shares.
    """
    from bandits.instances import soare
    from bandits.replicate import replicate

    runs = 20 if full else runs
    table = replicate([("lingape greedy", "lingape", {}),
                       ("lingape optimized", "lingape", {"selection": "optimized"})],
                      soare(d=5, omega=0.01), seeds=list(range(seed, seed + runs)), n_jobs=jobs)
    out.mkdir(parents=True, exist_ok=True)
    table.to_csv(out / "xu-table1-runs.csv")
    published = np.array([2133, 428889, 19, 34, 33, 11], dtype=float)
    rows = []
    counts_all = table.counts_matrix()
    for label, mask in table.groups():
        counts = counts_all[mask]
        rows.append(Row(f"{label}: samples (mean over {mask.sum()} runs)",
                        float(published.sum()), float(counts.sum(axis=1).mean()),
                        f"range {counts.sum(axis=1).min():,}-{counts.sum(axis=1).max():,}"))
        share = counts.sum(axis=0) / counts.sum()
        for a in range(6):
            rows.append(Row(f"{label}: share of arm {a + 1}", float(published[a] / published.sum()),
                            float(share[a])))
    _write(rows, out, "xu-table1")
    return rows


