"""Regret curves over many seeds: run, collect, save as CSV (mean, min, max per checkpoint).

The DART paper plots, for every algorithm, the average cumulative regret across runs with
error bars at the minimum and maximum across runs (Sec. 7.3); :class:`RegretCurves` keeps
every run's curve so any other summary can be computed too.
"""

from __future__ import annotations

import csv
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bandits.subsets.algorithms import ALGORITHMS, run_subset
from bandits.subsets.env import SubsetEnv

__all__ = ["RegretCurves", "regret_curves"]


@dataclass
class RegretCurves:
    """Cumulative regret of several algorithms over the same seeds.

    Attributes
    ----------
    times : ndarray of int64, shape (P,)
        Checkpoints (the last one is ``T``).
    curves : dict of str to ndarray, shape (runs, P)
        Per label, one row per run.
    seeds : list of int
    correct : dict of str to ndarray of bool
        Whether each run's final subset was optimal.
    stopped_by : dict of str to list of str
    seconds : dict of str to float
        Total wall time per label.
    """

    times: np.ndarray
    curves: dict[str, np.ndarray]
    seeds: list[int]
    correct: dict[str, np.ndarray] = field(default_factory=dict)
    stopped_by: dict[str, list[str]] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    title: str = ""

    def summary(self) -> dict[str, dict[str, float]]:
        """Final regret per label: mean, min, max, std, fraction correct, runs."""
        out = {}
        for lab, c in self.curves.items():
            f = c[:, -1]
            out[lab] = {"mean": float(f.mean()), "min": float(f.min()), "max": float(f.max()),
                        "std": float(f.std(ddof=1)) if f.size > 1 else 0.0,
                        "correct": float(np.mean(self.correct.get(lab, np.nan))),
                        "runs": int(f.size), "seconds": self.seconds.get(lab, np.nan)}
        return out

    def to_csv(self, path: str | os.PathLike) -> Path:
        """Tidy CSV: ``algorithm, t, mean, min, max, runs``."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["algorithm", "t", "mean", "min", "max", "runs"])
            for lab, c in self.curves.items():
                mean, lo, hi = c.mean(axis=0), c.min(axis=0), c.max(axis=0)
                for k, t in enumerate(self.times):
                    w.writerow([lab, int(t), f"{mean[k]:.6g}", f"{lo[k]:.6g}", f"{hi[k]:.6g}",
                                c.shape[0]])
        return path

    @classmethod
    def from_csv(cls, path: str | os.PathLike) -> RegretCurves:
        """Read back the summary CSV (each label gets three pseudo-runs: mean, min, max
        rows are *not* runs; use only for plotting)."""
        rows: dict[str, list] = {}
        with Path(path).open() as fh:
            for r in csv.DictReader(fh):
                rows.setdefault(r["algorithm"], []).append(r)
        times = np.array([int(r["t"]) for r in next(iter(rows.values()))], dtype=np.int64)
        curves = {lab: np.array([[float(r["mean"]) for r in rs], [float(r["min"]) for r in rs],
                                 [float(r["max"]) for r in rs]]) for lab, rs in rows.items()}
        return cls(times, curves, [])


def _one(args):
    label, algo, opts, env, T, seed, n_points = args
    t0 = time.perf_counter()
    res = run_subset(algo, env, T, seed=seed, **{"n_points": n_points, **opts})
    return label, seed, res.times, res.regret, res.correct, res.stopped_by, \
        time.perf_counter() - t0


def regret_curves(configs: Sequence[tuple[str, str, dict] | str],
                  env: SubsetEnv | Callable[[int], SubsetEnv], T: int, *,
                  runs: int = 5, seed: int = 0, jobs: int = 1, n_points: int = 200,
                  runs_per_config: dict[str, int] | None = None, title: str = ""
                  ) -> RegretCurves:
    """Run every configuration on seeds ``seed, ..., seed + runs - 1``.

    Parameters
    ----------
    configs : sequence of (label, algorithm, options) or algorithm names
    env : SubsetEnv or callable seed -> SubsetEnv
        A fixed environment, or a factory (e.g. U[0,1] means redrawn for every run, as
        ``lambda s: SubsetEnv.bernoulli(45, 2, "mean", seed=s)``).  Run ``r`` of every
        algorithm sees the same environment.
    T : int
        Horizon.
    runs : int
        Runs per configuration (``runs_per_config`` overrides it per label, e.g. the
        paper's 2 runs of LinTS).
    jobs : int
        Worker processes (1: in this process; -1: all cores).
    """
    if isinstance(runs, bool) or int(runs) < 1:
        raise ValueError(f"runs must be a positive integer; got {runs!r}")
    cfgs = []
    for c in configs:
        if isinstance(c, str):
            c = (c, c, {})
        label, algo, opts = c
        if algo not in ALGORITHMS:
            raise ValueError(f"algorithm must be one of {sorted(ALGORITHMS)}; got {algo!r}")
        cfgs.append((label, algo, dict(opts)))
    if len({c[0] for c in cfgs}) != len(cfgs):
        raise ValueError("configuration labels must be unique")
    seeds = list(range(seed, seed + int(runs)))
    envs = {s: env(s) if callable(env) else env for s in seeds}
    tasks = []
    for label, algo, opts in cfgs:
        n = (runs_per_config or {}).get(label, runs)
        tasks += [(label, algo, opts, envs[s], T, s, n_points) for s in seeds[:n]]
    from bandits.replicate import _check_n_jobs

    jobs = _check_n_jobs(jobs)
    if jobs > 1 and len(tasks) > 1:
        from bandits.replicate import map_in_workers

        out = list(map_in_workers(_one, tasks, jobs))
    else:
        out = [_one(t) for t in tasks]
    times = out[0][2]
    curves, correct, stopped, secs = {}, {}, {}, {}
    for label, _, _ in cfgs:
        mine = [o for o in out if o[0] == label]
        curves[label] = np.array([o[3] for o in mine])
        correct[label] = np.array([o[4] for o in mine])
        stopped[label] = [o[5] for o in mine]
        secs[label] = float(sum(o[6] for o in mine))
    return RegretCurves(times, curves, seeds, correct, stopped, secs, title)
