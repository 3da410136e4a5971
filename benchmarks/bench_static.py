"""Static allocations (G-static, XY-static, XY-oracle): the fast simulation against the
per-sample reference, and the per-sample loop against the loop that unpacks the bundles
every step (issue 18, and the remainder of issue 13).

(a) Per-step cost of the per-sample loop, in one process on the same runs (same seed, same
    trajectory): ``simulate_static`` (the bundles -- state, configuration, environment --
    unpacked once before the loop) against ``loop_bundled`` below, the loop as the core
    redesign shipped it (``static_decide`` / ``observe_target`` / ``pull`` on the
    namedtuples every step). Reported: microseconds per pull and the ratio.
(b) Whole runs through ``bandits.run``: ``simulation="sufficient"`` against
    ``simulation="per-sample"`` on the same seeds: wall time per run, the sample counts
    side by side and the ratio. XY-oracle (rounding rule, the default) decides its
    stopping time from the counts alone and jumps over certified stretches.
(c) G-static and XY-static (stopping test on the estimate): the exact block simulation
    (``bandits.static.simulate_blocks`` over ``bandits._core.blocks.run_blocks``; the ratio
    rule's counts in closed form) against the per-sample loop, both allocation rules, runs
    of about 5e5 and 1.5e7 samples, with the block statistics (blocks, visited nodes,
    exact tests, bisections) of the last run.
(d) XY-adaptive (in-phase stopping test on the phase's estimate): the block simulation of
    its phases against the per-sample loop, runs of about 1.4e5 and 5e6 samples.
(e) The greedy rule (``method="greedy"`` of G-static and XY-static, and XY-adaptive's):
    nanoseconds per generated arm, the block simulation's generator now
    (``bandits._core.blocks.greedy_arms``: targets pruned, one inlined loop) against the
    generator before issue 18's greedy work (``greedy_choice`` scoring every arm on every
    target, then the rank-one update, called per pull as ``run_blocks`` called them: kept
    verbatim below as ``*_before``), same instance, same tie seed; whether the two arm
    sequences are identical (the arithmetic differs in the last bits, so a near-tie could
    in principle be decided differently). Then whole greedy runs cut at 1e5, 1e6 and 1.5e7
    samples: the block simulation against the per-sample reference (CPU time, same seeds),
    and with ``--ref REV`` the same runs of revision ``REV`` (``git archive``, a child
    process run right after, so "before" is measured on the same machine state).

(f) With ``--ref REV``: the warm run time of whole runs through ``bandits.run`` (G-static,
    XY-static, XY-adaptive with the greedy rule and the block simulation, the ratio rule,
    XY-oracle's jumps, RAGE, per-sample runs), this checkout and ``REV`` in alternating
    child processes (each compiles first; best CPU seconds of ``--runs`` runs with the same
    seeds; the samples must agree): the price, if any, of the compile-time changes
    (issue 16) at run time.

BLAS runs single-threaded (threadpoolctl) so that the process measures its own work.

Usage: ``python benchmarks/bench_static.py [--runs 5] [--d 5] [--only ef] [--ref main]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from numba import njit
from threadpoolctl import threadpool_limits

from bandits import run
from bandits._core import blocks as B
from bandits._core import rng as _rng
from bandits._core.env import make_environment, pull
from bandits.instances import random_gaussian, soare
from bandits.phased import _kernels as P
from bandits.static import _config, _setup, pair_targets
from bandits.static import _kernels as S
from rounding.tracking import track_ratio


@njit(cache=True, inline="always")
def _initial_main(st, X, Y, init_arms, t_budget, max_samples) -> int:
    ints = st.ints
    k = ints[S.T_INIT]
    if k < init_arms.shape[0]:
        if t_budget >= max_samples:
            ints[S.T_STATUS] = S.STATUS_BUDGET
            return -1
        ints[S.T_INIT] = k + 1
        return init_arms[k]
    ints[S.T_INIT] = -1
    ints[S.T_SINCE] = 0
    if not S.refresh(X, Y, ints[S.T_M], st.counts, st.sums, st.Ainv, st.vals, st.theta,
                     st.g):
        ints[S.T_STATUS] = S.STATUS_SINGULAR
        return -1
    S.leverages(X, st.Ainv, st.lev)
    return -2


@njit(cache=True, inline="always")
def _decide_main(st, cfg, rng) -> int:
    ints, Ainv, theta = st.ints, st.Ainv, st.theta
    X, Y = cfg.X, cfg.Y
    if ints[S.T_INIT] >= 0:
        a = _initial_main(st, X, Y, cfg.init_arms, ints[S.T_PULLS], cfg.max_samples)
        if a != -2:
            return a
    t = ints[S.T_PULLS]
    b = S.beta(t, cfg.c, cfg.log_const, cfg.fixed)
    th = cfg.theta_true if cfg.stop_kind == S.STOP_ORACLE else theta
    if S.check_stop(cfg.Z, Ainv, th, b) >= 0:
        ints[S.T_STATUS] = S.STATUS_RULE
        return -1
    if t >= cfg.max_samples:
        ints[S.T_STATUS] = S.STATUS_BUDGET
        return -1
    if cfg.rule == S.RULE_GREEDY:
        return S.greedy_choice(X, Y, ints[S.T_M], Ainv, st.vals, st.lev, rng, st.g,
                               st.scores)
    return track_ratio(st.counts, cfg.w)


@njit(cache=True, inline="always")
def _observe_main(st, X, Y, arm, r, refresh_every) -> bool:
    ints, counts, sums = st.ints, st.counts, st.sums
    M = ints[S.T_M]
    ints[S.T_PULLS] += 1
    if ints[S.T_INIT] >= 0:
        counts[arm] += 1
        sums[arm] += r
        return True
    Ainv, vals, theta = st.Ainv, st.vals, st.theta
    S.observe(X, Y, M, Ainv, vals, st.lev, theta, counts, sums, arm, r, st.g)
    ints[S.T_SINCE] += 1
    if ints[S.T_SINCE] >= refresh_every:
        S.refresh(X, Y, M, counts, sums, Ainv, vals, theta, st.g)
        S.leverages(X, Ainv, st.lev)
        ints[S.T_SINCE] = 0
    return True


@njit(cache=True)
def loop_bundled(st, cfg, env, rng_pol, rng_env) -> int:
    """The per-sample loop of main before this change (verbatim: ``static_decide``,
    ``observe_target`` and ``pull`` reading the namedtuples every step)."""
    while True:
        a = _decide_main(st, cfg, rng_pol)
        if a < 0:
            return st.ints[S.T_STATUS]
        _observe_main(st, cfg.X, cfg.Y, a, pull(env, a, rng_env), cfg.refresh_every)


@njit(cache=True, inline="always")
def _adaptive_main(st, cfg, active, t0, rng) -> int:
    ints = st.ints
    t = ints[P.T_PULLS]
    if ints[P.T_INIT] >= 0:
        a = _initial_main(st, cfg.X, cfg.Y, cfg.init_arms, t0 + t, cfg.max_samples)
        if a >= 0:
            return a
        if a == -1:
            ints[P.T_STATUS] = P.PHASE_SINGULAR if ints[P.T_STATUS] == P.STATUS_SINGULAR \
                else P.PHASE_BUDGET
            return -1
    u = P.max_val(st.vals, ints[P.T_M])
    if cfg.stop_in:
        b = P.beta(t0 + t if cfg.log_global else t, cfg.c, cfg.log_const, cfg.fixed)
        s = P.check_stop_active(cfg.Z, active, st.Ainv, st.theta, b)
        if s >= 0:
            ints[P.T_BEST] = s
            ints[P.T_STATUS] = P.PHASE_STOP
            return -1
    crit = u / t if cfg.fig3 else u
    if t >= cfg.min_len and crit <= cfg.target:
        ints[P.T_STATUS] = P.PHASE_END
        return -1
    if t0 + t >= cfg.max_samples:
        ints[P.T_STATUS] = P.PHASE_BUDGET
        return -1
    return P.greedy_choice(cfg.X, cfg.Y, ints[P.T_M], st.Ainv, st.vals, st.lev, rng, st.g,
                           st.scores)


@njit(cache=True)
def adaptive_bundled(st, cfg, env, active, t0, rng_pol, rng_env) -> int:
    """XY-adaptive's phase loop of main before this change (verbatim)."""
    while True:
        a = _adaptive_main(st, cfg, active, t0, rng_pol)
        if a < 0:
            return st.ints[P.T_STATUS]
        _observe_main(st, cfg.X, cfg.Y, a, pull(env, a, rng_env), cfg.refresh_every)


# ----------------------------------------------------------------------------------------
# (e) the greedy rule's generator before issue 18's greedy work (verbatim from main), as
# run_blocks drove it: greedy_choice (every arm scored on every target), then the rank-one
# update with a zero reward, an exact refresh every 1000 pulls
# ----------------------------------------------------------------------------------------


@njit(cache=True)
def _observe_before(X, Y, M, Ainv, vals, theta, counts, sums, arm, r, g) -> None:
    d = X.shape[1]
    x = X[arm]
    for i in range(d):
        s = 0.0
        for j in range(d):
            s += Ainv[i, j] * x[j]
        g[i] = s
    den = 1.0
    resid = r
    for i in range(d):
        den += x[i] * g[i]
        resid -= x[i] * theta[i]
    for i in range(d):
        theta[i] += g[i] * resid / den
    for m in range(M):
        s = 0.0
        for i in range(d):
            s += Y[m, i] * g[i]
        vals[m] -= s * s / den
    for i in range(d):
        for j in range(d):
            Ainv[i, j] -= g[i] * g[j] / den
    counts[arm] += 1
    sums[arm] += r


@njit(cache=True)
def _greedy_scores_before(X, Y, M, Ainv, vals, g, scores) -> None:
    K, d = X.shape
    for a in range(K):
        x = X[a]
        den = 1.0
        for i in range(d):
            s = 0.0
            for j in range(d):
                s += Ainv[i, j] * x[j]
            g[i] = s
            den += x[i] * s
        best = -np.inf
        for m in range(M):
            s = 0.0
            for i in range(d):
                s += Y[m, i] * g[i]
            v = vals[m] - s * s / den
            if v > best:
                best = v
        scores[a] = best


@njit(cache=True)
def _greedy_choice_before(X, Y, M, Ainv, vals, rng, g, scores) -> int:
    K = X.shape[0]
    _greedy_scores_before(X, Y, M, Ainv, vals, g, scores)
    lo = np.inf
    for a in range(K):
        if scores[a] < lo:
            lo = scores[a]
    tol = 1e-9 * abs(lo)
    chosen = -1
    n_ties = 0
    for a in range(K):
        if scores[a] <= lo + tol:
            n_ties += 1
            if n_ties == 1 or _rng.integer(rng, n_ties) == 0:
                chosen = a
    return chosen


@njit(cache=True)
def arms_before(X, Y, counts, sums, Ainv, vals, theta, g, scores, rng, out) -> None:
    """The generator loop of ``run_blocks`` before: one call of each kernel per pull."""
    M = Y.shape[0]
    since = 0
    for k in range(out.shape[0]):
        a = _greedy_choice_before(X, Y, M, Ainv, vals, rng, g, scores)
        _observe_before(X, Y, M, Ainv, vals, theta, counts, sums, a, 0.0, g)
        since += 1
        if since >= 1000:
            S.refresh(X, Y, M, counts, sums, Ainv, vals, theta, g)
            since = 0
        out[k] = a


def arms_now(st, alloc, rng, out) -> int:
    """:func:`bandits._core.blocks.greedy_arms` (the generator the block kernel inlines)."""
    return B.greedy_arms(st, alloc, rng, out)


def _after_init(X: np.ndarray, Y: np.ndarray):
    """State after one pull of every arm (greedy ``init="all"``), zero rewards."""
    K, d = X.shape
    st = S.target_state(K, d, Y.shape[0])
    st.counts[:] = 1
    st.ints[S.T_INIT] = -1
    assert S.refresh(X, Y, Y.shape[0], st.counts, st.sums, st.Ainv, st.vals, st.theta, st.g)
    S.leverages(X, st.Ainv, st.lev)
    st.ints[S.T_PULLS] = K
    return st


def generator_per_pull(label: str, X: np.ndarray, Y: np.ndarray, n: int,
                       seed: int = 3) -> None:
    """ns per generated arm, before and now (best of 3, CPU), same tie seed."""
    X, Y = np.ascontiguousarray(X), np.ascontiguousarray(Y)
    alloc = S.BlockAlloc(X, Y, None, 1000, S.NO_LENGTH_RULE, 0.0, False, 2**62,
                         np.arange(X.shape[0], dtype=np.int64))
    res = {}
    for which in ("before", "now"):
        best = np.inf
        for rep in range(4):  # the first one compiles
            st = _after_init(X, Y)
            out = np.empty(n if rep else 10, dtype=np.int64)
            rng = _rng.make_state(seed, 0)
            c0 = time.process_time()
            if which == "before":
                arms_before(X, Y, st.counts, st.sums, st.Ainv, st.vals, st.theta, st.g,
                            st.scores, rng, out)
            else:
                arms_now(st, alloc, rng, out)
            if rep:
                best = min(best, time.process_time() - c0)
        res[which] = (best / n * 1e9, out)
    diff = np.flatnonzero(res["before"][1] != res["now"][1])
    same = "identical" if diff.size == 0 else f"first difference at arm {diff[0]:,}"
    K, d = X.shape
    print(f"  {label:34s} K={K:3d} d={d:2d} M={Y.shape[0]:5d}: before "
          f"{res['before'][0]:8.0f} ns/arm, now {res['now'][0]:7.0f} ns/arm, ratio "
          f"{res['before'][0] / res['now'][0]:5.1f}x; {n:,} arms {same}", flush=True)


_WHOLE = """
import json, sys, time
import numpy as np
from threadpoolctl import threadpool_limits
from bandits import run
from bandits.instances import soare
out = {{}}
with threadpool_limits(1, user_api="blas"):
    for d, name, budget, sim in {cases!r}:
        inst = soare(d=d, omega=0.01)
        run(name, inst, seed=0, max_samples=2000, simulation=sim)
        times, samples = [], []
        for seed in range({runs}):
            c0 = time.process_time()
            res = run(name, inst, seed=seed, max_samples=budget, simulation=sim)
            times.append(time.process_time() - c0)
            samples.append(res.samples)
        out[f"{{d}} {{name}} {{budget}} {{sim}}"] = (float(np.median(times)), samples)
import bandits
print(json.dumps({{"file": bandits.__file__, "out": out}}))
"""


def _whole_runs(where: Path, cases: list, runs: int) -> dict:
    """The greedy whole runs of ``cases`` in a child process importing ``bandits`` from
    ``where`` (an empty numba cache, compiled before the timed runs)."""
    with tempfile.TemporaryDirectory(prefix="numba-bench-") as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(where),
               "PYTHONDONTWRITEBYTECODE": "1"}
        proc = subprocess.run([sys.executable, "-c", _WHOLE.format(cases=cases, runs=runs)],
                              cwd=where, env=env, capture_output=True, text=True,
                              check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"whole runs at {where} failed:\n{proc.stderr[-2000:]}")
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    if not res["file"].startswith(str(where)):
        raise RuntimeError(f"imported {res['file']} instead of the copy in {where}")
    return res["out"]


def greedy_whole_runs(runs: int, ref: str | None) -> None:
    """Whole greedy runs (soare, omega = 0.01, budgets 1e5, 1e6, 1.5e7), fast and
    per-sample, this checkout and ``ref``."""
    root = Path(__file__).resolve().parent.parent
    cases = [(d, name, budget, sim) for d in (2, 5) for name in ("xy-static", "g-static")
             for budget in (10**5, 10**6, 15 * 10**6) for sim in ("sufficient", "per-sample")]
    now = _whole_runs(root, cases, runs)
    before = None
    if ref is not None:
        with tempfile.TemporaryDirectory(prefix="bench-ref-") as tmp:
            archive = subprocess.run(["git", "archive", ref], cwd=root, capture_output=True,
                                     check=True).stdout
            subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
            before = _whole_runs(Path(tmp), cases, runs)
    print(f"  CPU s per run, median of {runs} (samples of the first run); "
          + (f"before = {ref}" if ref else "no --ref: no before column"))
    for d, name, budget, sim in cases:
        if sim != "sufficient":
            continue
        key = f"{d} {name} {budget}"
        f, p = now[key + " sufficient"], now[key + " per-sample"]
        line = (f"  soare(d={d}) {name:9s} budget {budget:>10,}: fast {f[0]:7.3f} s "
                f"({f[1][0]:>10,} samples), per-sample {p[0]:7.3f} s, ratio "
                f"{p[0] / f[0]:6.1f}x")
        if before is not None:
            bf, bp = before[key + " sufficient"], before[key + " per-sample"]
            line += (f" | before: fast {bf[0]:7.3f} s, per-sample {bp[0]:7.3f} s; "
                     f"fast now/before {f[0] / bf[0]:5.3f} ({bf[0] / f[0]:5.1f}x faster)")
        print(line, flush=True)


#: (f) name -> (instance, run keyword arguments): warm whole runs, this checkout vs --ref.
WARM_CASES: dict[str, tuple[str, str]] = {
    "g-static soare(d=2) greedy": ("soare(d=2, omega=0.05)", "{}"),
    "xy-static soare(d=2) greedy": ("soare(d=2, omega=0.05)", "{}"),
    "xy-static soare(d=5) greedy 1e6": ("soare(d=5, omega=0.05)", "{'max_samples': 10**6}"),
    "g-static soare(d=5) greedy 1e6": ("soare(d=5, omega=0.05)", "{'max_samples': 10**6}"),
    "xy-adaptive soare(d=5)": ("soare(d=5, omega=0.05)", "{}"),
    "xy-adaptive soare(d=2)": ("soare(d=2, omega=0.05)", "{}"),
    "xy-static soare(d=5) rounding": ("soare(d=5, omega=0.01)", "{'method': 'rounding'}"),
    "g-static soare(d=2) rounding": ("soare(d=2, omega=0.01)", "{'method': 'rounding'}"),
    "xy-oracle soare(d=5)": ("soare(d=5, omega=0.01)", "{'confidence': 'xu'}"),
    "xy-oracle soare(d=5) greedy": ("soare(d=5, omega=0.05)", "{'method': 'greedy'}"),
    "rage soare(d=5)": ("soare(d=5, omega=0.05)", "{}"),
    "xy-static soare(d=5) per-sample 2e5": (
        "soare(d=5, omega=0.05)", "{'simulation': 'per-sample', 'max_samples': 200000}"),
}

_WARM = """
import json, time
from threadpoolctl import threadpool_limits
from bandits import run
from bandits.instances import soare
out = {{}}
with threadpool_limits(1, user_api="blas"):
    for key, (inst, kw) in {cases!r}.items():
        name = key.split()[0]
        inst, kw = eval(inst), eval(kw)
        run(name, inst, seed=0, **kw)  # compile / load the cache
        best, samples = float("inf"), []
        for seed in range({runs}):
            t0 = time.process_time()
            res = run(name, inst, seed=seed, **kw)
            best = min(best, time.process_time() - t0)
            samples.append(res.samples)
        out[key] = [best, samples]
import bandits
print(json.dumps({{"file": bandits.__file__, "out": out}}))
"""


def warm_runs(runs: int, ref: str, rounds: int = 2) -> None:
    """(f) Warm whole runs of :data:`WARM_CASES`, this checkout and ``ref`` in alternating
    child processes (``rounds`` each, the best kept): CPU seconds and the ratio."""
    root = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory(prefix="bench-ref-") as tmp, \
            tempfile.TemporaryDirectory(prefix="numba-now-") as c_now, \
            tempfile.TemporaryDirectory(prefix="numba-ref-") as c_ref:
        archive = subprocess.run(["git", "archive", ref], cwd=root, capture_output=True,
                                 check=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        best: dict[str, dict] = {"now": {}, "ref": {}}
        for _ in range(rounds):
            for tag, where, cache in (("now", root, c_now), ("ref", Path(tmp), c_ref)):
                env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(where),
                       "PYTHONDONTWRITEBYTECODE": "1"}
                proc = subprocess.run(
                    [sys.executable, "-c", _WARM.format(cases=WARM_CASES, runs=runs)],
                    cwd=where, env=env, capture_output=True, text=True, check=False)
                if proc.returncode != 0:
                    raise RuntimeError(f"warm runs at {where} failed:\n{proc.stderr[-2000:]}")
                res = json.loads(proc.stdout.strip().splitlines()[-1])
                if not res["file"].startswith(str(where)):
                    raise RuntimeError(f"imported {res['file']} instead of {where}")
                for key, (cpu, samples) in res["out"].items():
                    old = best[tag].get(key)
                    best[tag][key] = [min(cpu, old[0]) if old else cpu, samples]
    print(f"(f) warm whole runs, best CPU s of {runs} seeds x {rounds} alternating processes, "
          f"this checkout vs {ref}")
    for key in WARM_CASES:
        (a, sa), (b, sb) = best["now"][key], best["ref"][key]
        same = "same samples" if sa == sb else f"samples differ: {sa} vs {sb}"
        print(f"  {key:38s} now {a:8.4f}  {ref} {b:8.4f}  now/{ref} {a / b:5.2f}  ({same})",
              flush=True)


def adaptive_per_step(inst, budget: int, seed: int = 1) -> tuple[float, float, int]:
    """XY-adaptive's first phase (long: ``min_phase_length`` large, no in-phase stop
    possible before it), both loops on the same trajectory: (us unpacked, us bundled, n)."""
    from bandits.phased import _adaptive_engine, _phase_config

    out = []
    for loop in (P.adaptive_phase, adaptive_bundled):
        best = np.inf
        for _ in range(3):
            eng = _adaptive_engine(inst.X, None, 0.05, 1.0, {"min_phase_length": budget})
            Ybuf = np.zeros((max(eng.Y.shape[0], 1), inst.X.shape[1]))
            cfg = _phase_config(eng, Ybuf, 1000, budget)
            st = P.target_state(inst.X.shape[0], inst.X.shape[1], eng.Y.shape[0])
            P.reset_target(st, eng.Y.shape[0])
            env = make_environment(inst)
            c0 = time.process_time()
            loop(st, cfg, env, eng.active, 0, _rng.make_state(seed, 0),
                 _rng.make_state(seed, 1))
            best = min(best, (time.process_time() - c0) / st.ints[P.T_PULLS])
        out.append((best * 1e6, int(st.ints[P.T_PULLS]), st.counts.copy()))
    assert out[0][1] == out[1][1] and np.array_equal(out[0][2], out[1][2])
    return out[0][0], out[1][0], out[0][1]


def per_step(name: str, inst, budget: int, seed: int = 1) -> tuple[float, float, int]:
    """(us per pull unpacked once, us per pull bundled, pulls) on the same trajectory."""
    method = "rounding" if name == "xy-oracle" else "greedy"
    base = _setup(name, inst.X, None, inst.theta, method=method, init="all",
                  confidence="soare", c=None, sigma=float(inst.sigma), delta=0.05)
    cfg = _config(base, 1000, budget)
    env = make_environment(inst)
    out = []
    for loop in (S.simulate_static, loop_bundled):
        best = np.inf
        for _ in range(3):
            st = S.target_state(inst.X.shape[0], inst.X.shape[1], base.Y.shape[0])
            args = (st, cfg, env, _rng.make_state(seed, 0), _rng.make_state(seed, 1))
            if loop is S.simulate_static:
                args = (*args, True)
            c0 = time.process_time()
            loop(*args)
            best = min(best, (time.process_time() - c0) / st.ints[S.T_PULLS])
        out.append((best * 1e6, int(st.ints[S.T_PULLS]), st.counts.copy()))
    assert out[0][1] == out[1][1] and np.array_equal(out[0][2], out[1][2])
    return out[0][0], out[1][0], out[0][1]


def whole_runs(name: str, inst, runs: int, budget: int, **kw) -> None:
    stats = {}
    for sim in ("sufficient", "per-sample"):
        run(name, inst, seed=0, max_samples=1000, simulation=sim, **kw)  # compile
        walls, samples = [], []
        for seed in range(runs):
            c0 = time.process_time()
            res = run(name, inst, seed=seed, max_samples=budget, simulation=sim, **kw)
            walls.append(time.process_time() - c0)
            samples.append(res.samples)
        stats[sim] = (np.median(walls), np.array(samples), res.extra["simulation"],
                      res.extra.get("blocks"))
    f, p = stats["sufficient"], stats["per-sample"]
    print(f"  {name:9s} {kw or ''}: fast ({f[2]}) {f[0] * 1e3:9.2f} ms/run, per-sample "
          f"{p[0] * 1e3:9.2f} ms/run, ratio {p[0] / f[0]:7.1f}x; samples fast "
          f"{_q(f[1])} | per-sample {_q(p[1])}")
    if "blocks" in res.extra or f[3]:
        print(f"            block simulation, last run: {f[3]}")


def _q(x: np.ndarray) -> str:
    return f"median {np.median(x):,.0f} [{x.min():,.0f}, {x.max():,.0f}]"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--d", type=int, default=5)
    ap.add_argument("--only", default="abcde", help="sections to run, e.g. 'e'")
    ap.add_argument("--ref", default=None, help="(e) also time the whole greedy runs of "
                    "this git revision (e.g. main); (f) the warm runs against it")
    args = ap.parse_args()
    with threadpool_limits(1, user_api="blas"):
        if "e" in args.only:
            print("(e) the greedy rule: ns per generated arm (CPU, best of 3), before "
                  "(every arm on every target, one kernel call per pull) and now "
                  "(blocks.greedy_arms), same tie seed")
            for d in (2, 5):
                X = soare(d=d, omega=0.01).X
                generator_per_pull(f"soare(d={d}) G-static", X, X, 10**6)
                generator_per_pull(f"soare(d={d}) XY-static", X, pair_targets(X), 10**6)
            Xr = random_gaussian(50, 10, seed=1).X
            generator_per_pull("random(50x10) G-static", Xr, Xr, 10**5)
            generator_per_pull("random(50x10) XY, Z = 20 arms", Xr, pair_targets(Xr[:20]),
                               10**5)
            generator_per_pull("random(50x10) XY-static", Xr, pair_targets(Xr), 2 * 10**4)
            greedy_whole_runs(args.runs, args.ref)
        if "f" in args.only and args.ref is not None:
            warm_runs(args.runs, args.ref)
        if not set("abcd") & set(args.only):
            return
        print(f"(a) per-sample loop, soare(d={args.d}, omega=0.05): us per pull (CPU)")
        inst = soare(d=args.d, omega=0.05)
        for name in ("g-static", "xy-static", "xy-oracle"):
            once, bundled, n = per_step(name, inst, 300_000)
            print(f"  {name:11s}: unpacked once {once:.3f} us, bundled every step "
                  f"{bundled:.3f} us, ratio {bundled / once:.2f} ({n:,} pulls, same "
                  "trajectory)")
        once, bundled, n = adaptive_per_step(inst, 300_000)
        print(f"  xy-adaptive: unpacked once {once:.3f} us, bundled every step "
              f"{bundled:.3f} us, ratio {bundled / once:.2f} ({n:,} pulls of one phase, "
              "same trajectory)")
        print(f"(b) whole runs, CPU time per run (median of {args.runs}), budget 1e7")
        big = soare(d=args.d, omega=0.01)
        whole_runs("xy-oracle", big, args.runs, 10**7, confidence="xu")
        whole_runs("xy-oracle", soare(d=args.d, omega=0.002), args.runs, 10**7,
                   confidence="xu")
        whole_runs("xy-oracle", soare(d=args.d, omega=0.05), args.runs, 10**7,
                   method="greedy")
        print(f"(c) G-static and XY-static: block simulation against per-sample, CPU time "
              f"per run (median of {args.runs}), runs of about 1e6 (omega=0.05) and 1e7 "
              "(omega=0.01) samples")
        for omega in (0.05, 0.01):
            for name in ("xy-static", "g-static"):
                for method in ("rounding", "greedy"):
                    whole_runs(name, soare(d=args.d, omega=omega), args.runs, 10**8,
                               method=method)
        print(f"(d) XY-adaptive: block simulation of its phases against per-sample, CPU time "
              f"per run (median of {args.runs})")
        for omega in (0.05, 0.01):
            whole_runs("xy-adaptive", soare(d=args.d, omega=omega), args.runs, 10**8)


if __name__ == "__main__":
    main()
