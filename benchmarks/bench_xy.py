"""XY / transductive / H-optimal designs: our solver against the baselines, in one process.

Sections (all times are wall-clock seconds, median of repeated warm runs unless noted):

* ``soare``  -- Soare et al. (2014) instance (e_1..e_d and (cos w, sin w, 0..), w = 0.01,
  all pairwise differences; optimum 2d, uniform on e_1..e_d) for d = 2, 5, 10, 20: ours
  (``xy_optimal``, certified gap <= 1e-4) against a plain Frank–Wolfe with step
  2/(k+2) stopped when the weights change by < 1% (the rule of the RAGE reference code,
  Fiez et al. 2019), and against the cvxpy reference with Clarabel and with SCS.
* ``solvers`` -- the solver comparison that chose the default: primal-dual IPM (default),
  pure log-barrier IPM, Frank–Wolfe with away steps on a log-sum-exp smoothing with
  continuation, multiplicative saddle-point iteration; time to a certified gap.
* ``random`` -- random Gaussian arms: K = 200, d = 10, all 19,900 pairs; K = 1000,
  d = 20 with (i) all 499,500 pairwise differences of a random decision set Z of 1000
  points (implicit, ``xy_optimal(X, Z=Z)``), (ii) the 999 directions z* - z of the same
  Z for a random theta (explicit ``Y``), (iii) all 499,500 pairs of X itself. Gap <=
  1e-3; each case runs in a fresh subprocess to report peak memory (tracemalloc peak of
  numpy allocations, and the peak RSS during the call above the RSS before it, which
  also counts numba's allocations; Linux ``/proc/self/clear_refs``).
* ``hopt``   -- Mason et al. (2022) Appendix G: 30 unit vectors at angles 2 pi i / 30,
  theta = (3, 0): h*, g* and agreement with cvxpy.
* ``greedy`` -- one greedy step (Soare et al. Eq. 22/26) at K = 1000, d = 20.
* ``compile`` -- first-call time in a fresh process, with the numba cache present and
  with an empty cache (cold compile), reported separately from the warm timings.

BLAS is pinned to one thread (``OPENBLAS_NUM_THREADS=1`` etc., set before numpy is
imported) so that all methods are compared on the same footing on a shared machine.

Usage: ``python benchmarks/bench_xy.py [--quick] [--only soare,solvers,...]``.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import resource  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the reference solvers live with the tests

import _minimax_alt as alt  # noqa: E402

from design import _minimax_solver as sol  # noqa: E402
from design.minimax import (  # noqa: E402
    _solve_cvxpy,
    g_optimal_hessian,
    h_optimal,
    pairwise_differences,
    xy_check,
    xy_optimal,
)


def soare_arms(d: int, omega: float = 0.01) -> np.ndarray:
    extra = np.zeros(d)
    extra[0], extra[1] = np.cos(omega), np.sin(omega)
    return np.vstack([np.eye(d), extra])


def timed(fn, repeat: int) -> tuple[float, object]:
    """Median wall time of ``repeat`` calls (after one warm-up call) and the last result."""
    out = fn()
    ts = []
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        ts.append(time.perf_counter() - t)
    return float(np.median(ts)), out


def fw_rage(X: np.ndarray, Y: np.ndarray, max_iter: int = 5000) -> tuple[np.ndarray, int]:
    """Plain Frank–Wolfe of the RAGE reference code (Fiez et al. 2019, ``RAGE.py``).

    Step ``2/(k+2)`` toward the arm maximising ``(y*^T A^{-1} x)^2`` for the worst target
    ``y*``; stop when ``||lam_{k+1} - lam_k|| / ||lam_k|| < 0.01``; weights ``< 1e-5``
    zeroed. Same iterates as the reference, with ``inv`` instead of ``pinv`` + SVD.
    """
    K = X.shape[0]
    design = np.full(K, 1.0 / K)
    count = 0
    for count in range(1, max_iter):
        A_inv = np.linalg.inv(X.T @ (design[:, None] * X))
        rho = np.einsum("ij,jk,ik->i", Y, A_inv, Y)
        y = Y[int(np.argmax(rho))]
        g = (X @ (A_inv @ y)) ** 2
        gamma = 2.0 / (count + 2)
        upd = -gamma * design
        upd[int(np.argmax(g))] += gamma
        relative = np.linalg.norm(upd) / np.linalg.norm(design)
        design = design + upd
        if relative < 0.01:
            break
    design[design < 1e-5] = 0.0
    return design / design.sum(), count


def fmt_t(t: float) -> str:
    if t < 1e-3:
        return f"{t * 1e6:.0f} us"
    if t < 1.0:
        return f"{t * 1e3:.1f} ms"
    return f"{t:.2f} s"


# ----------------------------------------------------------------------------------------
# (a) Soare instance
# ----------------------------------------------------------------------------------------


def bench_soare(quick: bool) -> None:
    print("\n## (a) Soare et al. instance, all pairwise differences (optimum 2d)\n")
    print("| d | method | time | value | true gap (value/2d - 1) | certified gap | "
          "time ratio vs ours |")
    print("|---|---|---|---|---|---|---|")
    dims = (2, 5, 10) if quick else (2, 5, 10, 20)
    for d in dims:
        X = soare_arms(d)
        Y = pairwise_differences(X)
        rows = []
        t_ours, res = timed(lambda X=X: xy_optimal(X, tol=1e-4), 7)
        rows.append(("ours (primal-dual IPM)", t_ours, res.value, res.gap,
                     f"{res.iterations} it"))
        t_fw, (w_fw, it_fw) = timed(lambda X=X, Y=Y: fw_rage(X, Y), 3)
        c_fw = xy_check(X, w_fw)
        rows.append(("Frank–Wolfe 2/(k+2), RAGE stop", t_fw, c_fw.value, c_fw.gap,
                     f"{it_fw} it"))
        targets = sol.Targets(d=d, pts=X)
        reps = 1 if d >= 10 else 2
        for solver in ("CLARABEL", "SCS"):
            t_cv, (w_cv, _, _) = timed(lambda s=solver, X=X, T=targets: _solve_cvxpy(X, T, s),
                                       reps)
            c_cv = xy_check(X, w_cv)
            rows.append((f"cvxpy + {solver.title()}", t_cv, c_cv.value, c_cv.gap, ""))
        for name, t, val, gap, _extra in rows:
            print(f"| {d} | {name} | {fmt_t(t)} | {val:.8f} | {val / (2 * d) - 1:.1e} | "
                  f"{gap:.1e} | {t / t_ours:.0f}x |")
        print(f"|   | (FW stopped after {it_fw} iterations; ours: {res.iterations} "
              f"interior-point steps, support {res.support.size}) | | | | | |")


# ----------------------------------------------------------------------------------------
# solver comparison
# ----------------------------------------------------------------------------------------


def bench_solvers(quick: bool) -> None:
    print("\n## Solver comparison (time to a certified gap; 'x' = did not certify)\n")
    rng = np.random.default_rng(0)
    circle = np.c_[np.cos(2 * np.pi * np.arange(30) / 30), np.sin(2 * np.pi * np.arange(30) / 30)]
    mp = 1 / (1 + np.exp(-3 * circle[:, 0]))
    mp = mp * (1 - mp)
    cases = [
        ("Soare d=5", soare_arms(5), pairwise_differences(soare_arms(5))),
        ("Soare d=20", soare_arms(20), pairwise_differences(soare_arms(20))),
        ("H circle", circle * np.sqrt(mp)[:, None], circle * mp[:, None]),
    ]
    Xr = rng.standard_normal((50, 5))
    cases.append(("Gauss K=50 d=5 (1225 pairs)", Xr, pairwise_differences(Xr)))
    if not quick:
        Xr = rng.standard_normal((100, 8))
        cases.append(("Gauss K=100 d=8 (4950 pairs)", Xr, pairwise_differences(Xr)))
    budget = 2.0 if quick else 10.0  # seconds per first-order run (iteration cap)
    tols = (1e-2, 1e-4, 1e-6)
    print("| instance | tol | primal-dual IPM (default) | log-barrier IPM + LP | "
          "FW-away smoothed | multiplicative saddle |")
    print("|---|---|---|---|---|---|")
    for name, X, Y in cases:
        X = np.ascontiguousarray(X)
        rows, orig = sol.dedupe_rows(Y)
        targets = sol.Targets(d=X.shape[1], rows=rows, orig=orig)
        ids = np.arange(rows.shape[0])
        K = X.shape[0]
        for tol in tols:
            cells = []
            for inner in ("pd", "barrier"):
                t, (w, c, its, _) = timed(
                    lambda i=inner, tol=tol, X=X, T=targets: sol.solve_ipm(X, T, tol, 5000,
                                                                            inner=i), 3)
                mark = "" if c.gap <= tol else " x"
                cells.append(f"{fmt_t(t)} ({its} it, gap {c.gap:.0e}){mark}")
            for fn, arg in ((alt.fw_smooth, 50), (alt.saddle_multiplicative, 1.0)):
                lam = np.full(K, 1.0 / K)
                fn(X, rows, lam.copy(), tol, 2, arg)  # compile
                t0 = time.perf_counter()
                fn(X, rows, lam.copy(), 0.0 + 1e-300, 200, arg)
                cap = max(200, int(200 * budget / (time.perf_counter() - t0)))
                t0 = time.perf_counter()
                it, mu = fn(X, rows, lam, tol, cap, arg)
                t = time.perf_counter() - t0
                c = sol.certify(X, lam / lam.sum(), targets, tol, hint_ids=ids, hint_mu=mu,
                                lp=False)
                mark = "" if c.gap <= tol else " x"
                cells.append(f"{fmt_t(t)} ({it} it, gap {c.gap:.0e}){mark}")
            print(f"| {name} | {tol:g} | " + " | ".join(cells) + " |")


# ----------------------------------------------------------------------------------------
# (b) random instances, each in its own process for the memory figures
# ----------------------------------------------------------------------------------------


def _rss_kb(field: str) -> int:
    """``VmRSS`` / ``VmHWM`` (peak RSS) of this process in kB, from /proc (Linux)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:  # pragma: no cover - not Linux
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _reset_peak_rss() -> bool:
    """Reset the peak-RSS counter (Linux: ``echo 5 > /proc/self/clear_refs``)."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:  # pragma: no cover
        return False


def _random_case(name: str) -> dict:
    rng = np.random.default_rng(1)
    kwargs: dict = {}
    if name == "K200_d10_pairs":
        X = rng.standard_normal((200, 10))
        desc = "X: 200 x 10 Gaussian; Y: all 19,900 pairs of X (implicit)"
    elif name == "K1000_d20_Zpairs":
        X = rng.standard_normal((1000, 20))
        Z = rng.standard_normal((1000, 20))
        kwargs["Z"] = Z
        desc = "X: 1000 x 20; Y: all 499,500 pairs of Z (1000 x 20 Gaussian, implicit)"
    elif name == "K1000_d20_zstar":
        X = rng.standard_normal((1000, 20))
        Z = rng.standard_normal((1000, 20))
        theta = rng.standard_normal(20)
        zs = Z[int(np.argmax(Z @ theta))]
        kwargs["Y"] = zs - Z
        desc = "X: 1000 x 20; Y: the 999 directions z* - z of Z (explicit)"
    elif name == "K1000_d20_pairs":
        X = rng.standard_normal((1000, 20))
        desc = "X: 1000 x 20; Y: all 499,500 pairs of X (implicit)"
    else:  # pragma: no cover
        raise ValueError(name)
    xy_optimal(rng.standard_normal((6, 2)))  # load the jitted kernels
    base_rss = _rss_kb("VmRSS")
    reset = _reset_peak_rss()
    tracemalloc.start()
    t0 = time.perf_counter()
    res = xy_optimal(X, tol=1e-3, **kwargs)
    t = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    rss = _rss_kb("VmHWM") if reset else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t2, _ = timed(lambda: xy_optimal(X, tol=1e-3, **kwargs), 2)
    return {"case": desc, "time": min(t, t2), "value": res.value, "gap": res.gap,
            "converged": res.converged, "iters": res.iterations,
            "rounds": res.info["rounds"], "support": int(res.support.size),
            "targets": res.info["n_targets"], "ws_arms": res.info["working_arms"],
            "ws_targets": res.info["working_targets"], "tracemalloc_mb": peak / 2**20,
            "rss_growth_mb": (rss - base_rss) / 1024}


def bench_random(quick: bool) -> None:
    print("\n## (b) Random Gaussian instances, tol = 1e-3 (fresh process per case)\n")
    print("| case | time | value | certified gap | IPM steps / rounds | support | "
          "working set (arms, targets) | peak numpy mem | peak RSS growth |")
    print("|---|---|---|---|---|---|---|---|---|")
    names = ["K200_d10_pairs", "K1000_d20_zstar"]
    if not quick:
        names += ["K1000_d20_Zpairs", "K1000_d20_pairs"]
    for name in names:
        out = subprocess.run([sys.executable, __file__, "--case", name], capture_output=True,
                             text=True, check=True)
        r = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"| {r['case']} | {fmt_t(r['time'])} | {r['value']:.6f} | {r['gap']:.1e} | "
              f"{r['iters']} / {r['rounds']} | {r['support']} | "
              f"({r['ws_arms']}, {r['ws_targets']}) of ({1000 if 'K1000' in name else 200},"
              f" {r['targets']:,}) | {r['tracemalloc_mb']:.1f} MB | "
              f"{r['rss_growth_mb']:.1f} MB |")


# ----------------------------------------------------------------------------------------
# (c) H-optimal, Mason et al. Appendix G
# ----------------------------------------------------------------------------------------


def bench_hopt(quick: bool) -> None:
    print("\n## (c) Mason et al. (2022) Appendix G: 30 unit vectors, theta = (3, 0)\n")
    ang = 2 * np.pi * np.arange(30) / 30
    X = np.c_[np.cos(ang), np.sin(ang)]
    theta = np.array([3.0, 0.0])
    print("| design | ours: value | certified gap | time | cvxpy (Clarabel) value | "
          "time | rel. diff | support (angles, deg) |")
    print("|---|---|---|---|---|---|---|---|")
    for name, fn in (("h* (H-optimal)", h_optimal), ("g* (Eq. 4)", g_optimal_hessian)):
        t, res = timed(lambda fn=fn: fn(X, theta, tol=1e-6), 5)
        tc, ref = timed(lambda fn=fn: fn(X, theta, method="cvxpy"), 1)
        angles = ", ".join(f"{int(round(a))}" for a in np.degrees(ang[res.support]))
        print(f"| {name} | {res.value:.7f} | {res.gap:.1e} | {fmt_t(t)} | {ref.value:.7f} | "
              f"{fmt_t(tc)} | {abs(res.value / ref.value - 1):.1e} | {angles} |")
    res = g_optimal_hessian(X, theta, scaled=True, tol=1e-6)
    print(f"\nKiefer–Wolfowitz design of the rows sqrt(mu') x (scaled=True): value "
          f"{res.value:.6f} (= d), support angles "
          f"{', '.join(str(int(round(a))) for a in np.degrees(ang[res.support]))}")


# ----------------------------------------------------------------------------------------
# greedy steps and first-call times
# ----------------------------------------------------------------------------------------


def bench_greedy(quick: bool) -> None:
    from design.greedy import greedy_g_step, greedy_xy_step, sherman_morrison_update

    print("\n## Greedy steps (Soare et al. Eq. 22 / 26), K = 1000, d = 20, A = I + 500 pulls\n")
    rng = np.random.default_rng(2)
    X = rng.standard_normal((1000, 20))
    A = np.eye(20) + X[:500].T @ X[:500]
    Ainv = np.linalg.inv(A)
    Y = rng.standard_normal((5000, 20))
    print("| call | time |")
    print("|---|---|")
    for name, fn in (("greedy_xy_step (499,500 implicit pairs)", lambda: greedy_xy_step(Ainv, X)),
                     ("greedy_xy_step (5,000 explicit targets)",
                      lambda: greedy_xy_step(Ainv, X, Y)),
                     ("greedy_g_step", lambda: greedy_g_step(Ainv, X)),
                     ("greedy_g_step, check=False", lambda: greedy_g_step(Ainv, X, check=False)),
                     ("sherman_morrison_update", lambda: sherman_morrison_update(Ainv, X[0]))):
        t, _ = timed(fn, 20)
        print(f"| {name} | {fmt_t(t)} |")


_FIRST_CALL = """
import time, numpy as np
t = time.perf_counter()
from design.minimax import xy_optimal
from design.greedy import greedy_xy_step
t_imp = time.perf_counter() - t
X = np.vstack([np.eye(3), [0.9, 0.1, 0.0]])
t = time.perf_counter(); xy_optimal(X); t1 = time.perf_counter() - t
t = time.perf_counter(); greedy_xy_step(np.eye(3), X); t2 = time.perf_counter() - t
t = time.perf_counter(); xy_optimal(X); t3 = time.perf_counter() - t
print(t_imp, t1, t2, t3)
"""


def bench_compile(quick: bool) -> None:
    print("\n## First call (fresh process): numba cache present vs. empty (cold compile)\n")
    print("| numba cache | import | first xy_optimal | first greedy_xy_step | "
          "second xy_optimal |")
    print("|---|---|---|---|---|")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    with tempfile.TemporaryDirectory() as tmp:
        for label, extra in (("present (warm)", {}), ("empty (cold compile)",
                                                      {"NUMBA_CACHE_DIR": tmp})):
            out = subprocess.run([sys.executable, "-c", _FIRST_CALL], capture_output=True,
                                 text=True, check=True, env={**env, **extra}, cwd=ROOT)
            t_imp, t1, t2, t3 = map(float, out.stdout.split())
            print(f"| {label} | {fmt_t(t_imp)} | {fmt_t(t1)} | {fmt_t(t2)} | {fmt_t(t3)} |")


SECTIONS = {"soare": bench_soare, "solvers": bench_solvers, "random": bench_random,
            "hopt": bench_hopt, "greedy": bench_greedy, "compile": bench_compile}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller instances, fewer repeats")
    ap.add_argument("--only", default=",".join(SECTIONS), help="comma-separated sections")
    ap.add_argument("--case", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.case:
        print(json.dumps(_random_case(args.case)))
        return
    print(f"numpy {np.__version__}; BLAS threads pinned to "
          f"{os.environ.get('OPENBLAS_NUM_THREADS')}; {os.cpu_count()} CPUs")
    for name in args.only.split(","):
        SECTIONS[name.strip()](args.quick)


if __name__ == "__main__":
    main()
