"""Warm run time of the XY / minimax / H solver: this checkout against another revision, in
one process.

The other revision's ``design/_minimax_numba.py`` and ``design/_minimax_solver.py`` (``git
show REV:...``) are loaded as separate modules beside ours, and each case calls the public
function (``xy_optimal``, ``minimax_optimal``, ``h_optimal``) with ``design.minimax``'s
solver module switched between the two, alternating, after a first call of each (compile
or cache load excluded). Reported: best CPU seconds (``time.process_time``) of ``--repeats``
calls each, the ratio this / ref (< 1: this checkout is faster), the interior-point
iterations and the certified gaps of both (they must both be ``<= tol``).

BLAS is pinned to one thread (set before numpy is imported), as in ``bench_xy.py``.

Usage: ``python benchmarks/bench_xy_kernel.py [--ref main] [--repeats 5] [--quick]``.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from _revision import load_revision  # noqa: E402

import design  # noqa: E402
import design.minimax as mm  # noqa: E402


def load_ref(rev: str, where: Path):
    """The solver modules of ``rev`` as a fresh pair of modules (numba module first)."""
    return load_revision(rev, "_minimax_numba", "_minimax_solver", where)


def soare(d: int, omega: float = 0.01) -> np.ndarray:
    return np.vstack([np.eye(d), [np.cos(omega), np.sin(omega)] + [0.0] * (d - 2)])


def cases(quick: bool) -> dict:
    rng = np.random.default_rng(3)
    X100 = rng.normal(size=(100, 8))
    rng4 = np.random.default_rng(4)
    X60, Y300 = rng4.normal(size=(60, 4)), rng4.normal(size=(300, 4))
    X200 = np.random.default_rng(5).normal(size=(200, 10))
    Xs5 = soare(5)
    theta = np.zeros(5)
    theta[0] = 1.0
    means = Xs5 @ theta
    Yo = Xs5[0] - Xs5[1:]
    gaps = means[0] - means[1:]
    ang = 2 * np.pi * np.arange(30) / 30
    Xc = np.stack([np.cos(ang), np.sin(ang)], axis=1)
    out = {
        "xy_optimal K=100 d=8 (4950 pairs)": lambda: design.xy_optimal(X100),
        "xy_optimal K=60 d=4, 300 targets": lambda: design.xy_optimal(X60, Y300),
        "xy_optimal Soare d=5": lambda: design.xy_optimal(Xs5),
        "xy_optimal Soare d=20": lambda: design.xy_optimal(soare(20)),
        "oracle minimax Soare d=5, tol 1e-10": lambda: design.minimax_optimal(
            Xs5, Yo, c=1.0 / gaps**2, tol=1e-10),
        "h_optimal circle 30, theta (3, 0)": lambda: design.h_optimal(
            Xc, np.array([3.0, 0.0])),
    }
    if not quick:
        out["xy_optimal K=200 d=10 (19900 pairs)"] = lambda: design.xy_optimal(X200)
        out["xy_optimal Soare d=10, tol 1e-9"] = lambda: design.xy_optimal(soare(10),
                                                                          tol=1e-9)
    return out


def best_cpu(fn, repeats: int) -> tuple[float, object]:
    best, res = np.inf, None
    for _ in range(repeats):
        t0 = time.process_time()
        res = fn()
        best = min(best, time.process_time() - t0)
    return best, res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ref", default="main", help="revision to compare with")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    ours = mm.sol
    with tempfile.TemporaryDirectory(prefix="xy-ref-") as tmp:
        ref = load_ref(args.ref, Path(tmp))
        print(f"{'warm CPU s, best of ' + str(args.repeats):<40} {'this':>9} {args.ref:>9} "
              f"{'this/ref':>9} {'iters':>11} {'gap this':>9} {'gap ref':>9}")
        for name, fn in cases(args.quick).items():
            timing = {}
            for which, mod in (("ref", ref), ("this", ours), ("ref", ref), ("this", ours)):
                mm.sol = mod
                try:
                    if which not in timing:
                        fn()  # first call: compile or cache load
                    t, res = best_cpu(fn, args.repeats)
                finally:
                    mm.sol = ours
                prev = timing.get(which)
                if prev is None or t < prev[0]:
                    timing[which] = (t, res)
            (t1, r1), (t0, r0) = timing["this"], timing["ref"]
            print(f"{name:<40} {t1:>9.5f} {t0:>9.5f} {t1 / t0:>9.2f} "
                  f"{r1.iterations:>5}/{r0.iterations:<5} {r1.gap:>9.1e} {r0.gap:>9.1e}",
                  flush=True)


if __name__ == "__main__":
    main()
