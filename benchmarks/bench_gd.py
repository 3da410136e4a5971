"""G/D-optimal design solvers side by side, in one process.

Compares, on the same random Gaussian instances (arms ~ N(0, I_d)):

* ``fw``       -- our default: working-set Frank–Wolfe with vertex-exchange steps (numba);
* ``fw-away``  -- the same working set with Wolfe–Atwood toward/away/drop steps (numba);
* ``naive``    -- plain Frank–Wolfe with step 2/(k+2) in numpy (rank-one updates, capped);
* ``cvxpy``    -- log-det formulation solved by SCS (eps=1e-9), only where it finishes.

Reported per solver: wall time, CPU time (all threads; best of 3 runs for ours, one run
for the slow baselines), achieved G-efficiency
``d / max_a x_a^T A(w)^{-1} x_a`` and the wall-time ratio to ``fw``. The first-call compile
time of the jitted code is measured in fresh subprocesses, with an empty numba cache (cold)
and with the cache written by the previous run (warm).

With ``--ref REV`` it instead times the warm calls of ``g_optimal``, ``d_optimal``,
``g_optimal(method="fw-away")`` and ``two_approx_g_design`` of this checkout and of the
revision ``REV`` (its ``design._gd_numba``, ``design._gd_batch`` and ``design.gd``, loaded
beside ours in the same process), in alternation, from small to large problems (best CPU
seconds of several calls; ``process_time`` counts every thread), prints the ratio
``this / REV`` and whether the weights are bit-identical.

Usage: ``python benchmarks/bench_gd.py [--quick] [--no-cvxpy] [--ref REV [--large]]``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

import numpy as np
from _revision import load_chain

from design import g_optimal, kw_check
from design.gd import _solve_cvxpy

SIZES = [(2000, 20), (10_000, 10), (100_000, 10), (10_000, 50), (100_000, 50)]
CVXPY_MAX = 2000 * 20 * 20  # K d^2 budget under which cvxpy is attempted
TOL = 1e-6


def naive_fw(X: np.ndarray, max_iter: int, time_limit: float) -> np.ndarray:
    """Plain Frank–Wolfe on log det with step 2/(k+2), rank-one updates (numpy)."""
    K, d = X.shape
    w = np.full(K, 1.0 / K)
    Minv = np.linalg.inv((X * w[:, None]).T @ X)
    om = np.einsum("ij,jk,ik->i", X, Minv, X)
    t0 = time.perf_counter()
    for k in range(max_iter):
        i = int(np.argmax(om))
        if om[i] <= d * (1 + TOL) or time.perf_counter() - t0 > time_limit:
            break
        tau = 2.0 / (k + 3.0)  # 2/(k+2) from k = 1: k = 0 would put all weight on one arm
        s = tau / (1 - tau)
        u = Minv @ X[i]
        c = s / (1 + s * om[i])
        g = X @ u
        om = (om - c * g * g) / (1 - tau)
        Minv = (Minv - c * np.outer(u, u)) / (1 - tau)
        w *= 1 - tau
        w[i] += tau
    return w / w.sum()


def timed(fn, repeats: int = 1):
    """Best of ``repeats`` runs (wall and CPU time): the shared machine only adds noise."""
    best = (np.inf, np.inf)
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        best = min(best, (time.perf_counter() - t0, time.process_time() - c0))
    return out, best[0], best[1]


def compile_times() -> tuple[float, float]:
    """First call of g_optimal in a fresh interpreter: cold numba cache, then warm."""
    code = (
        "import time, numpy as np; t=time.perf_counter(); from design import g_optimal; "
        "g_optimal(np.random.default_rng(0).standard_normal((50, 4))); "
        "print(time.perf_counter()-t)"
    )
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        cold = float(subprocess.check_output([sys.executable, "-c", code], env=env))
        warm = float(subprocess.check_output([sys.executable, "-c", code], env=env))
    return cold, warm


#: the G/D modules of a revision, in import order (each sees the previous ones)
_CHAIN = ("_gd_numba", "_gd_batch", "gd")


def load_gd_revision(rev: str, where: Path) -> ModuleType:
    """``design.gd`` of revision ``rev`` over that revision's ``design._gd_batch`` and
    ``design._gd_numba`` (fresh modules ``ref_gd_numba``, ...; everything else they import
    is this checkout's)."""
    return load_chain(rev, _CHAIN, where)["gd"]


#: (K, d) of the warm comparison; ``--large`` adds the last ones
REF_SIZES = [(6, 2), (40, 3), (200, 10), (2000, 20), (10_000, 10), (10_000, 50)]
REF_LARGE = [(100_000, 10), (100_000, 50), (100_000, 100)]


def best_cpu(fn, budget: float) -> float:
    """Best CPU seconds of calls of ``fn`` within about ``budget`` CPU seconds (>= 3)."""
    best, spent, n = np.inf, 0.0, 0
    while n < 3 or spent < budget:
        c0 = time.process_time()
        fn()
        c = time.process_time() - c0
        best, spent, n = min(best, c), spent + c, n + 1
    return best


def compare_ref(rev: str, large: bool) -> None:
    """Warm CPU time of the G/D entry points, this checkout / ``rev``, same process."""
    import warnings

    import design.gd as this

    warnings.simplefilter("ignore")
    with tempfile.TemporaryDirectory() as tmp:
        ref = load_gd_revision(rev, Path(tmp))
        calls = {
            "g_optimal": lambda m, X: m.g_optimal(X).weights,
            "d_optimal": lambda m, X: m.d_optimal(X).weights,
            "g fw-away": lambda m, X: m.g_optimal(X, method="fw-away").weights,
            "two_approx": lambda m, X: m.two_approx_g_design(X),
        }
        X0 = np.random.default_rng(0).standard_normal((40, 3))
        for fn in calls.values():  # compile / load both
            fn(this, X0), fn(ref, X0)
        print(f"{'K':>7} {'d':>4}  {'call':<11} {'this ms':>10} {rev + ' ms':>10} "
              f"{'this/' + rev:>9}  same weights")
        for K, d in REF_SIZES + (REF_LARGE if large else []):
            X = np.random.default_rng(K + d).standard_normal((K, d))
            for name, fn in calls.items():
                if name == "g fw-away" and K * d > 2_000_000:
                    continue  # the greedy kernel on every arm: minutes
                budget = 0.3 if K * d < 100_000 else 2.0
                a = best_cpu(lambda fn=fn, X=X: fn(this, X), budget)
                b = best_cpu(lambda fn=fn, X=X: fn(ref, X), budget)
                a = min(a, best_cpu(lambda fn=fn, X=X: fn(this, X), budget))  # alternation
                same = np.array_equal(fn(this, X), fn(ref, X))
                print(f"{K:>7} {d:>4}  {name:<11} {1e3 * a:>10.3f} {1e3 * b:>10.3f} "
                      f"{a / b:>9.2f}  {same}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="only the two smallest sizes")
    ap.add_argument("--no-cvxpy", action="store_true")
    ap.add_argument("--naive-seconds", type=float, default=20.0)
    ap.add_argument("--ref", help="warm times of the G/D entry points against this revision")
    ap.add_argument("--large", action="store_true", help="with --ref: K = 1e5, d <= 100 too")
    args = ap.parse_args()
    if args.ref:
        compare_ref(args.ref, args.large)
        return
    cold, warm = compile_times()
    print(f"first call in a fresh process: {cold:.2f} s with an empty numba cache (compile), "
          f"{warm:.2f} s with the cache (load)\n")
    g_optimal(np.random.default_rng(0).standard_normal((50, 4)))  # load the kernels
    sizes = SIZES[:2] if args.quick else SIZES
    hdr = (f"{'K':>7} {'d':>3}  {'solver':<8} {'wall s':>8} {'cpu s':>8} "
           f"{'1 - G-eff':>10} {'ratio':>8}")
    print(hdr)
    print("-" * len(hdr))
    for K, d in sizes:
        X = np.random.default_rng(K + d).standard_normal((K, d))
        rows = []
        for name, fn in [
            ("fw", lambda X=X: g_optimal(X, tol=TOL).weights),
            ("fw-away", lambda X=X: g_optimal(X, tol=TOL, method="fw-away").weights),
            ("naive", lambda X=X: naive_fw(X, 200_000, args.naive_seconds)),
            ("cvxpy", lambda X=X: _solve_cvxpy(X, "SCS")[0]),
        ]:
            if name == "cvxpy" and (args.no_cvxpy or K * d * d > CVXPY_MAX):
                continue
            w, wall, cpu = timed(fn, repeats=3 if name.startswith("fw") else 1)
            eff = kw_check(X, w, tol=TOL).g_efficiency
            rows.append((name, wall, cpu, 1.0 - eff))
        base = rows[0][1]
        for name, wall, cpu, ineff in rows:
            print(f"{K:>7} {d:>3}  {name:<8} {wall:>8.3f} {cpu:>8.3f} {ineff:>10.2e} "
                  f"{wall / base:>7.1f}x")
    print("\nratio = wall time / wall time of fw (higher is slower than ours)")


if __name__ == "__main__":
    main()
