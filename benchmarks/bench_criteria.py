"""A-/I-optimal solvers, constrained D and Ds, side by side in one process (ratios).

Part 1 -- approximate A- and I-optimal designs on random Gaussian arms (I: ``L`` the moment
matrix of 500 other Gaussian points):

* ``exchange`` -- our default (numba vertex exchange, ``tol=1e-6``);
* ``scs`` / ``clarabel`` -- the cvxpy reference (``matrix_frac``), SCS with ``eps=1e-9``
  capped at 5,000 iterations, Clarabel with gap/feasibility tolerances ``1e-10``.

Each row reports wall time, the certified gap *of the returned weights* (our certificate,
computed the same way for every solver) and the wall-time ratio to ``exchange``.

(Exact designs: ``benchmarks/bench_exact.py``.)

Part 4 (``--part4``) -- constrained D-optimal (caps ``2/d``) by our exchange against
cvxpy with the same constraints, and the Ds exchange at ``K = 1e4``.

Part 5 (``--part5``) -- general linear constraints ``A_ub w <= b_ub`` (two cost rows with
budgets and a group-share row, caps ``2/d``) for D and A: our default (the working-set
barrier method of :mod:`design._constrained_barrier`) against cvxpy with Clarabel and SCS on
the same problem. Every row's gap is the certified gap of the returned weights by the same
certificate (:func:`design.constrained._certificate`); ``ours`` is our default (``tol=1e-6``),
and for every cvxpy row our solver is run again to that row's gap (time to an equal
certified gap; in parentheses). CPU time (``time.process_time``), ratio = cvxpy / ours at
the equal gap. SCS and Clarabel at
``(1e4, 30)`` run only with ``--big5`` (minutes).

Reported: D-efficiency relative to the approximate optimum's certified lower bound
(``phi_LB / det(M/N)^{-1/p}``; higher is better, a true lower bound on the efficiency), wall
time and the time ratio to ``ours``.

BLAS runs single-threaded (``OPENBLAS_NUM_THREADS=1`` etc., set before numpy is imported,
for every method alike): on the shared, loaded 2-core machine, multithreaded BLAS makes the
many small products of every method 10-40x slower and the timings meaningless.

``--start``: the start of the A/I/Ds solvers (pivoted-QR arms) against the D-optimal start
they had before (issue 16), CPU seconds side by side in one process.

Usage: ``python benchmarks/bench_criteria.py [--quick] [--no-cvxpy] [--big] [--part4]
[--part5 [--big5]] [--start]``.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402

from design import (  # noqa: E402
    DesignConvergenceWarning,
    a_optimal,
    constrained_optimal,
    criterion_check,
    ds_optimal,
    i_optimal,
    moment_matrix,
)

TOL = 1e-6


SCS_OPTS = {"eps": 1e-9, "max_iters": 5000}
CLARABEL_OPTS = {"tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10, "tol_feas": 1e-10}


def cvxpy_linear(X: np.ndarray, L: np.ndarray, solver: str) -> np.ndarray:
    """``min matrix_frac(C, A(w))`` (``L = C C^T``) over the simplex with cvxpy."""
    import cvxpy as cp

    K, d = X.shape
    ev, U = np.linalg.eigh(L)
    C = U * np.sqrt(np.clip(ev, 0.0, None))
    F = np.einsum("ai,aj->aij", X, X).reshape(K, d * d)
    w = cp.Variable(K, nonneg=True)
    A = cp.reshape(F.T @ w, (d, d), order="C")
    prob = cp.Problem(cp.Minimize(cp.matrix_frac(C, (A + A.T) / 2)), [cp.sum(w) == 1])
    prob.solve(solver=solver, **(SCS_OPTS if solver == "SCS" else CLARABEL_OPTS))
    wv = np.clip(np.asarray(w.value, dtype=float), 0.0, None)
    return wv / wv.sum()


def timed(fn, *args, **kw):
    t0 = time.perf_counter()
    out = fn(*args, **kw)
    return out, time.perf_counter() - t0


def part1(sizes: list[tuple[int, int]], cvxpy: bool) -> None:
    print("Part 1: A- and I-optimal approximate designs (gap = certified gap of the weights)")
    print(f"{'K':>7} {'d':>3} {'crit':>4} {'solver':>9} {'wall s':>9} {'gap':>10} {'ratio':>8}")
    print("-" * 56)
    for K, d in sizes:
        rng = np.random.default_rng(K + d)
        X = rng.standard_normal((K, d))
        L = moment_matrix(rng.standard_normal((500, d)))
        for crit, fn, Lm in (("A", a_optimal, np.eye(d)), ("I", i_optimal, L)):
            kw = {} if crit == "A" else {"L": L}
            fn(X[: 4 * d], **kw)  # compile / load the jitted kernels outside the timing
            best = min((timed(fn, X, tol=TOL, **kw) for _ in range(3)), key=lambda r: r[1])
            res, t_ours = best
            print(f"{K:>7} {d:>3} {crit:>4} {'exchange':>9} {t_ours:>9.3f} {res.gap:>10.2e} "
                  f"{1.0:>7.1f}x")
            if not cvxpy:
                continue
            for solver in ("SCS", "CLARABEL"):
                try:
                    w, t = timed(cvxpy_linear, X, Lm, solver)
                except Exception as exc:  # noqa: BLE001 - report and go on
                    print(f"{K:>7} {d:>3} {crit:>4} {solver.lower():>9} failed: {exc}")
                    continue
                cert = criterion_check(X, w, crit.lower(), **kw)
                print(f"{K:>7} {d:>3} {crit:>4} {solver.lower():>9} {t:>9.3f} "
                      f"{cert.gap:>10.2e} {t / t_ours:>7.1f}x")


def part4(sizes: list[tuple[int, int]]) -> None:
    """Constrained D-optimal (caps) and Ds at large K: ours against cvxpy, same constraints."""
    print("\nPart 4: constrained D-optimal (caps 2/d) vs cvxpy, same constraints; Ds")
    print(f"{'K':>6} {'d':>3} {'what':>12} {'method':>9} {'wall s':>8} {'gap':>10} {'ratio':>7}")
    for K, d in sizes:
        X = np.random.default_rng(1).standard_normal((K, d))
        cap = 2.0 / d
        res, t0 = timed(constrained_optimal, X, "d", caps=cap, tol=1e-6)
        print(f"{K:>6} {d:>3} {'D caps':>12} {'exchange':>9} {t0:>8.3f} {res.gap:>10.2e} "
              f"{1.0:>6.1f}x")
        if K <= 2000:
            rc, t = timed(constrained_optimal, X, "d", caps=cap, method="cvxpy", tol=1e-4)
            print(f"{'':>23} {'cvxpy':>9} {t:>8.3f} {rc.gap:>10.2e} {t / t0:>6.1f}x")
        rd, t = timed(ds_optimal, X, list(range(d // 2)), tol=1e-6)
        print(f"{K:>6} {d:>3} {'Ds (s=d/2)':>12} {'exchange':>9} {t:>8.3f} {rd.gap:>10.2e}")


def _d_optimal_start(Q: np.ndarray) -> np.ndarray:
    """The A/I/Ds solvers' start before issue 16: the D-optimal design at ``tol=1e-2``."""
    from design import d_optimal

    return d_optimal(Q, tol=1e-2).weights.copy()


def part_start(sizes: list[tuple[int, int]], repeats: int = 3) -> None:
    """The A/I/Ds start: pivoted-QR arms (now) against the D-optimal design (before), the
    same solver otherwise, in alternation in this process (best CPU s of ``repeats``)."""
    import design.criteria as crit

    print("\nStart of the A/I/Ds solvers: pivoted-QR arms (qr) vs D-optimal at tol 1e-2 "
          "(dopt); CPU s, best of", repeats)
    print(f"{'K':>7} {'d':>3} {'crit':>4} {'qr s':>8} {'dopt s':>8} {'qr/dopt':>8} "
          f"{'gap qr':>9} {'gap dopt':>9}")
    starts = {"qr": crit._start, "dopt": _d_optimal_start}
    try:
        for K, d in sizes:
            rng = np.random.default_rng(0)
            X = rng.standard_normal((K, d))
            region = rng.standard_normal((500, d))
            calls = {"A": (a_optimal, (X,), {}),
                     "I": (i_optimal, (X,), {"region": region}),
                     "Ds": (ds_optimal, (X, list(range(d // 2))), {})}
            for name, (fn, args, kw) in calls.items():
                best: dict[str, tuple[float, float]] = {}
                for _ in range(repeats):
                    for key, start in starts.items():
                        crit._start = start
                        t0 = time.process_time()
                        res = fn(*args, tol=TOL, **kw)
                        t = time.process_time() - t0
                        if key not in best or t < best[key][0]:
                            best[key] = (t, res.gap)
                print(f"{K:>7} {d:>3} {name:>4} {best['qr'][0]:>8.3f} {best['dopt'][0]:>8.3f} "
                      f"{best['qr'][0] / best['dopt'][0]:>8.2f} {best['qr'][1]:>9.1e} "
                      f"{best['dopt'][1]:>9.1e}", flush=True)
    finally:
        crit._start = starts["qr"]


def _linear_constraints(K: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    costs = rng.uniform(1, 3, (2, K))
    group = (rng.uniform(size=K) < 0.3).astype(float)
    return np.vstack([costs, group]), np.array([1.7, 1.8, 0.2])


def cvxpy_constrained(X: np.ndarray, crit: str, caps: float, A: np.ndarray, b: np.ndarray,
                      solver: str) -> np.ndarray:
    """D (``log_det``) or A (``matrix_frac``) over ``P`` with cvxpy, the solver's options of
    part 1; the weights pulled into ``P`` as the library does."""
    import cvxpy as cp

    from design.constrained import _make_feasible

    K, d = X.shape
    F = np.einsum("ai,aj->aij", X, X).reshape(K, d * d)
    w = cp.Variable(K, nonneg=True)
    Am = cp.reshape(F.T @ w, (d, d), order="C")
    Am = (Am + Am.T) / 2
    obj = cp.Maximize(cp.log_det(Am)) if crit == "d" else cp.Minimize(
        cp.matrix_frac(np.eye(d), Am))
    prob = cp.Problem(obj, [cp.sum(w) == 1, w <= caps, A @ w <= b])
    prob.solve(solver=solver, **(SCS_OPTS if solver == "SCS" else CLARABEL_OPTS))
    wv = np.clip(np.asarray(w.value, dtype=float), 0.0, None)
    return _make_feasible(wv / wv.sum(), np.full(K, caps), A, b)


def part5(sizes: list[tuple[int, int]], big: bool) -> None:
    """General linear constraints: the barrier default against cvxpy, same problem."""
    from design.constrained import _certificate

    print("\nPart 5: D and A under A_ub w <= b_ub (3 rows) and caps 2/d; CPU seconds")
    print(f"{'K':>6} {'d':>3} {'crit':>4} {'method':>9} {'cpu s':>8} {'gap':>10} {'ratio':>8}")

    def cpu(fn, *a, **k):
        t0 = time.process_time()
        out = fn(*a, **k)
        return out, time.process_time() - t0

    for K, d in sizes:
        X = np.random.default_rng(K + d).standard_normal((K, d))
        A, b = _linear_constraints(K, K)
        cap = 2.0 / d
        for crit in ("d", "a"):
            L = np.eye(d) if crit == "a" else np.zeros((d, d))
            res, t_ours = cpu(constrained_optimal, X, crit, A_ub=A, b_ub=b, caps=cap)
            print(f"{K:>6} {d:>3} {crit.upper():>4} {'ours':>9} {t_ours:>8.3f} "
                  f"{res.gap:>10.2e}", flush=True)
            gaps = {}
            for solver in ("CLARABEL", "SCS"):
                if K >= 10_000 and not big:
                    continue
                try:
                    w, t = cpu(cvxpy_constrained, X, crit, cap, A, b, solver)
                except Exception as exc:  # noqa: BLE001 - report and go on
                    print(f"{'':>15} {solver.lower():>9} failed: {type(exc).__name__}")
                    continue
                gap = _certificate(X, w, np.zeros((d, d)), crit, L, np.arange(d),
                                   np.full(K, cap), A, b)[2]
                gaps[solver] = (gap, t)
            for solver, (gap, t) in gaps.items():  # ours to the same certified gap
                r_eq, t_eq = cpu(constrained_optimal, X, crit, A_ub=A, b_ub=b, caps=cap,
                                 tol=max(gap, 1e-10))
                print(f"{'':>15} {solver.lower():>9} {t:>8.3f} {gap:>10.2e} "
                      f"{t / t_eq:>7.1f}x   (ours {t_eq:.3f} s to {r_eq.gap:.2e})",
                      flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--no-cvxpy", action="store_true")
    ap.add_argument("--big", action="store_true", help="also (1e5, 50), ours only")
    ap.add_argument("--part4", action="store_true", help="only part 4 (constrained, Ds)")
    ap.add_argument("--part5", action="store_true", help="only part 5 (A_ub w <= b_ub)")
    ap.add_argument("--big5", action="store_true", help="part 5: cvxpy at (1e4, 30) too")
    ap.add_argument("--start", action="store_true",
                    help="only the A/I/Ds start: pivoted-QR arms vs the D-optimal design")
    args = ap.parse_args()
    warnings.simplefilter("ignore", DesignConvergenceWarning)
    if args.start:
        a_optimal(np.eye(3))  # compile outside the timing
        ds_optimal(np.eye(3), [0])
        _d_optimal_start(np.eye(3))
        part_start([(2000, 20), (10_000, 30), (100_000, 50)])
        return
    if args.part5:
        part5([(500, 10), (2000, 20), (10_000, 30)], args.big5)
        return
    if args.part4:
        constrained_optimal(np.eye(3), "d", caps=0.5)  # compile outside the timing
        part4([(500, 10), (2000, 20), (10_000, 20)])
        return
    sizes = [(2000, 20)] if args.quick else [(2000, 20), (10_000, 30)]
    part1(sizes, not args.no_cvxpy)
    if args.big:
        part1([(100_000, 50)], False)


if __name__ == "__main__":
    main()
