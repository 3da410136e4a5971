"""Timing of the logistic module: MLE, warm-ups, HOMER and the epsilon-greedy baseline.

Run: ``.venv/bin/python benchmarks/bench_homer.py``. Prints CPU seconds per call
(``time.process_time``, after one warm-up call for numba compilation), and for HOMER's
experiment of 10^7 pulls the default simulation (``simulation="sufficient"``: one exact
Binomial draw per arm and design) against the per-sample reference mode, side by side in
this process, with the ratio (issue 18).

``--ref REV`` instead times warm calls of this checkout and of revision ``REV`` (``git
archive``, imported from a temporary directory) side by side: each case in a fresh process
per revision (numba cache loaded by a first call), best CPU seconds of several calls, the
two revisions in alternation, and prints ``this / REV`` (compile-time changes must not cost
run time unseen, issue 16).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
from _revision import best_cpu, extract

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


ROOT = Path(__file__).resolve().parents[1]

#: warm cases of ``--ref``: (setup, call, repeats)
REF_CASES: dict[str, tuple[str, str, int]] = {
    "MLE d=10, K=1000": (
        "import numpy as np\nfrom bandits.logistic import mle, sphere\n"
        "big = sphere(10, 1000, 2.0, seed=0); n = np.full(1000, 1000)\n"
        "s = np.random.default_rng(0).binomial(n, big.means)", "mle(big.X, n, s)", 20),
    "run('war') registry example": (
        "from bandits import run\nfrom bandits.registry import _example_logistic\n"
        "inst = _example_logistic()", "run('war', inst, seed=0, max_samples=20000)", 10),
    "WAR warm-up d=2, K=8, S=2": (
        "from bandits.logistic import sphere, war_warmup\ninst = sphere(2, 8, 2.0, seed=1)",
        "war_warmup(inst.X, 2.0, inst.theta)", 3),
    "HOMER d=3, K=10, T=2e4": (
        "from bandits.logistic import run_homer, sphere\ninst = sphere(3, 10)",
        "run_homer(inst, 20000, seed=0)", 10),
    "HOMER d=3, K=20, T=1e7": (
        "from bandits.logistic import run_homer, sphere\ninst = sphere(3, 20, 2.0, seed=1)",
        "run_homer(inst, 10**7)", 3),
    "HOMER d=3, K=10, T=3e4, WAR warm-up": (
        "from bandits.logistic import run_homer\nfrom bandits.registry import "
        "_example_logistic\ninst = _example_logistic()",
        "run_homer(inst, 30000, seed=0, warmup='war')", 5),
    "eps-greedy d=3, K=20, T=1e6": (
        "from bandits.logistic import run_eps_greedy, sphere\n"
        "inst = sphere(3, 20, 2.0, seed=1)", "run_eps_greedy(inst, 10**6)", 3),
}


def _warm_cpu(setup: str, call: str, repeats: int, where: Path, cache: str) -> float:
    return float(best_cpu(setup, call, repeats, where, cache)["cpu"])


def compare_ref(rev: str, rounds: int) -> None:
    """Warm CPU seconds of :data:`REF_CASES`, this checkout / ``rev`` (best of ``rounds``
    alternating processes per revision)."""
    with tempfile.TemporaryDirectory() as tmp:
        ref_dir = Path(tmp) / "ref"
        ref_dir.mkdir()
        extract(rev, ref_dir)
        caches = {w: tempfile.mkdtemp(dir=tmp) for w in ("this", "ref")}
        print(f"{'case':<40} {'this s':>9} {rev + ' s':>9} {'this/' + rev:>9}")
        for name, (setup, call, repeats) in REF_CASES.items():
            best = {"this": np.inf, "ref": np.inf}
            for _ in range(rounds):
                for who, where in (("this", ROOT), ("ref", ref_dir)):
                    best[who] = min(best[who], _warm_cpu(setup, call, repeats, where,
                                                         caches[who]))
            print(f"{name:<40} {best['this']:>9.4f} {best['ref']:>9.4f} "
                  f"{best['this'] / best['ref']:>9.2f}", flush=True)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ref", help="warm run time against this revision (e.g. main)")
    ap.add_argument("--rounds", type=int, default=2, help="with --ref: processes per side")
    args = ap.parse_args()
    if args.ref:
        compare_ref(args.ref, args.rounds)
    else:
        main()
