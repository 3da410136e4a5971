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

BLAS runs single-threaded (threadpoolctl) so that the process measures its own work.

Usage: ``python benchmarks/bench_static.py [--runs 5] [--d 5]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit
from threadpoolctl import threadpool_limits

from bandits import run
from bandits._core import rng as _rng
from bandits._core.env import make_environment, pull
from bandits.instances import soare
from bandits.phased import _kernels as P
from bandits.static import _config, _setup
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
    if not S.refresh(X, Y, ints[S.T_M], st.counts, st.sums, st.Ainv, st.vals, st.theta):
        ints[S.T_STATUS] = S.STATUS_SINGULAR
        return -1
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
        return S.greedy_choice(X, Y, ints[S.T_M], Ainv, st.vals, rng, st.g, st.scores)
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
    S.observe(X, Y, M, Ainv, vals, theta, counts, sums, arm, r, st.g)
    ints[S.T_SINCE] += 1
    if ints[S.T_SINCE] >= refresh_every:
        S.refresh(X, Y, M, counts, sums, Ainv, vals, theta)
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
    return P.greedy_choice(cfg.X, cfg.Y, ints[P.T_M], st.Ainv, st.vals, rng, st.g, st.scores)


@njit(cache=True)
def adaptive_bundled(st, cfg, env, active, t0, rng_pol, rng_env) -> int:
    """XY-adaptive's phase loop of main before this change (verbatim)."""
    while True:
        a = _adaptive_main(st, cfg, active, t0, rng_pol)
        if a < 0:
            return st.ints[P.T_STATUS]
        _observe_main(st, cfg.X, cfg.Y, a, pull(env, a, rng_env), cfg.refresh_every)


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
    args = ap.parse_args()
    with threadpool_limits(1, user_api="blas"):
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
