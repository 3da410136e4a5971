"""Timing of the logistic module: MLE, warm-ups, HOMER and the epsilon-greedy baseline.

Run: ``.venv/bin/python benchmarks/bench_homer.py``. Prints CPU seconds per call
(``time.process_time``, after one warm-up call for numba compilation), and for HOMER's
experiment of 10^7 pulls the default simulation (``simulation="sufficient"``: one exact
Binomial draw per arm and design) against the per-sample reference mode, side by side in
this process, with the ratio (issue 18).
"""

from __future__ import annotations

import time

import numpy as np

from bandits.logistic import (
    mle,
    naive_warmup,
    oracle_warmup,
    run_eps_greedy,
    run_homer,
    sphere,
    war_warmup,
)


def timed(label: str, fn, reps: int = 3) -> float:
    fn()
    t0 = time.process_time()
    for _ in range(reps):
        fn()
    sec = (time.process_time() - t0) / reps
    print(f"{label:<52s} {sec:9.4f} s")
    return sec


def main() -> None:
    inst = sphere(3, 20, 4.0, seed=0)
    rng = np.random.default_rng(0)
    big = sphere(10, 1000, 2.0, seed=0)
    n = np.full(1000, 1000)
    s = rng.binomial(n, big.means)
    timed("MLE d=10, K=1000 (sufficient statistics)", lambda: mle(big.X, n, s))
    timed("naive warm-up d=3, K=20", lambda: naive_warmup(inst.X, 4.0))
    timed("oracle warm-up d=3, K=20", lambda: oracle_warmup(inst.X, inst.theta))
    timed("WAR warm-up d=3, K=20, S=4", lambda: war_warmup(inst.X, 4.0, inst.theta), 1)
    for d in (3, 10):
        i2 = sphere(d, 20, 2.0, seed=1)
        fast = timed(f"HOMER d={d}, K=20, T=1e7 (sufficient, default)",
                     lambda i2=i2: run_homer(i2, 10**7), 3)
        ref = timed(f"HOMER d={d}, K=20, T=1e7 (per-sample reference)",
                    lambda i2=i2: run_homer(i2, 10**7, simulation="per-sample"), 1)
        res = run_homer(i2, 10**7)
        drawn = sum(p["n"] for p in res.extra["phases"] if not p.get("truncated"))
        print(f"{'':<52s} ratio {ref / fast:5.1f}x; {len(res.extra['phases'])} phases, "
              f"{drawn + res.extra['warmup']['samples']:,} outcomes drawn by the reference")
        timed(f"eps-greedy d={d}, K=20, T=1e7", lambda i2=i2: run_eps_greedy(i2, 10**7), 1)


if __name__ == "__main__":
    main()
