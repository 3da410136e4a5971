"""RAGE on Soare et al.'s sin-cos instance (d = 20, omega = 0.01): speed and sample counts,
three implementations side by side in one process (issue 18).

(a) ``bandits.run("rage", ..., simulation="sufficient")`` -- the default: each arm's phase sum
    drawn at once, ``N(n_a mu_a, n_a sigma^2)`` (exact in distribution: RAGE reads only
    the per-arm counts and sums), phase plans memoised by active set;
(b) ``simulation="per-sample"`` -- one reward per pull (the reference the ask/tell policy
    replays);
(c) a faithful numpy port of the authors' ``RAGE.py`` loop (``tests/_rage_reference.py``:
    Frank–Wolfe design with a pseudo-inverse and an SVD per iteration, every pull
    materialised as a row), ``factor = 10``.

For ``variant="code"`` (the reference code's constants) all three run on the same seeds;
``variant="paper"`` (Fiez et al. Algorithm 1, ``n_constant = 8``) has (a) and (b). Printed:
CPU time per run (median, warm: the first runs, which compile and fill the plan memo, are
not timed), the ratios, and the sample-count distributions side by side; then the wall
time of ``--replications`` runs through ``bandits.replicate``, serially in this process
(with its CPU time) and on ``--jobs`` worker processes (each worker compiles nothing --
the numba cache is on disk -- but solves its own phase designs once).

History: an earlier note quoted 44 s per run of RAGE.py (about 900x ours); that came from
a contended, multi-threaded run and is withdrawn. Every number this script prints is
measured by it, with single-threaded BLAS (threadpoolctl) in this process.

Usage: ``python benchmarks/bench_rage.py [--runs 30] [--reference 10] [--d 20]
[--replications 10000] [--jobs 2]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from bandits import replicate, run
from bandits.instances import soare

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from _rage_reference import rage_py  # noqa: E402

DELTA = 0.05


def _summary(samples: np.ndarray) -> str:
    q = np.percentile(samples, [5, 50, 95])
    return (f"mean {samples.mean():>11,.0f}  quantiles 5/50/95% "
            f"{', '.join(f'{v:,.0f}' for v in q)}")


def _ours(inst, seeds, **kw) -> tuple[float, np.ndarray, float]:
    cpu, samples, correct = [], [], []
    for seed in seeds:
        c0 = time.process_time()
        res = run("rage", inst, seed=seed, delta=DELTA, **kw)
        cpu.append(time.process_time() - c0)
        samples.append(res.samples)
        correct.append(res.correct)
    return float(np.median(cpu)), np.array(samples, dtype=float), float(np.mean(correct))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--reference", type=int, default=10)
    ap.add_argument("--d", type=int, default=20)
    ap.add_argument("--replications", type=int, default=10_000)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    inst = soare(d=args.d, omega=0.01)
    seeds = range(1000, 1000 + args.runs)
    with threadpool_limits(1, user_api="blas"):
        for variant in ("code", "paper"):
            for sim in ("sufficient", "per-sample"):  # compile, fill the plan memo
                for s in range(3):
                    run("rage", inst, seed=s, variant=variant, simulation=sim)
        print(f"RAGE on soare(d={args.d}, omega=0.01), delta={DELTA}; CPU per run (median)")
        for variant in ("code", "paper"):
            fast = _ours(inst, seeds, variant=variant)
            ref = _ours(inst, seeds, variant=variant, simulation="per-sample")
            print(f"variant={variant}")
            print(f"  (a) fast        {fast[0] * 1e3:9.3f} ms  samples {_summary(fast[1])}"
                  f"  correct {fast[2]:.2f}")
            print(f"  (b) per-sample  {ref[0] * 1e3:9.3f} ms  samples {_summary(ref[1])}"
                  f"  correct {ref[2]:.2f}   (b)/(a) = {ref[0] / fast[0]:,.0f}x")
            if variant == "code" and args.reference:
                cpu, samples = [], []
                for seed in list(seeds)[:args.reference]:
                    c0 = time.process_time()
                    samples.append(rage_py(inst.X, inst.theta, seed, delta=DELTA)[0])
                    cpu.append(time.process_time() - c0)
                c = float(np.median(cpu))
                print(f"  (c) RAGE.py port {c * 1e3:8.1f} ms  samples "
                      f"{_summary(np.array(samples, dtype=float))}   (c)/(a) = "
                      f"{c / fast[0]:,.0f}x, (c)/(b) = {c / ref[0]:.1f}x "
                      f"({args.reference} runs)")
    if args.replications:
        print(f"{args.replications:,} replications through bandits.replicate: serially in this "
              f"process (CPU time) and on {args.jobs} worker processes (wall time)")
        for variant in ("paper", "code"):
            c0, t0 = time.process_time(), time.perf_counter()
            serial = replicate("rage", inst, args.replications, backend="serial",
                               progress=False, variant=variant)
            cpu, wall_serial = time.process_time() - c0, time.perf_counter() - t0
            t0 = time.perf_counter()
            table = replicate("rage", inst, args.replications, n_jobs=args.jobs,
                              progress=False, variant=variant)
            wall = time.perf_counter() - t0
            same = np.array_equal(np.asarray(serial["samples"]), np.asarray(table["samples"]))
            print(f"  variant={variant}: serial {cpu:.1f} s CPU ({wall_serial:.1f} s wall), "
                  f"{args.jobs} processes {wall:.1f} s wall (serial/parallel "
                  f"{wall_serial / wall:.2f}x); same samples per seed: {same}; samples "
                  f"{_summary(np.asarray(table['samples'], dtype=float))}")

if __name__ == "__main__":
    main()
