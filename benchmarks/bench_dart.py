"""DART and its baselines side by side, in one process.

* ``dart``        -- the jitted DART (bandits.subsets.dart), T = 1e6;
* ``dart-python`` -- a plain Python/numpy DART with the same rules (what paper code looks
  like), timed on a shorter horizon and reported per step;
* ``csar``, ``ucb`` (K = 2), ``lints``, ``lints-unscaled`` -- the jitted baselines.

Also checks the complexity claim of the paper (O(N) memory, O(N) work per step): the
per-step time of jitted DART as N grows at fixed K and T.

Reported: seconds per run, nanoseconds per step, and the ratio to jitted DART.

Usage: ``python benchmarks/bench_dart.py [--quick]``.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from bandits.subsets import SubsetEnv, dart, run_subset


def python_dart(env: SubsetEnv, T: int, seed: int = 0, c: float = 32.0) -> float:
    """Reference DART in plain Python (auto lambda omitted: explores until T)."""
    rng = np.random.default_rng(seed)
    N, K = env.N, env.K
    mu, n = np.zeros(N), np.zeros(N)
    und, acc = list(range(N)), []
    delta, e, t, regret = 1.0, 0, 0, 0.0
    thr = c * math.log(N * T)
    mu_star = env.mu_star
    while t < T:
        ke = K - len(acc)
        perm = rng.permutation(und)
        e += 1
        for ell in range(-(-len(perm) // ke)):
            if t >= T:
                break
            grp = [perm[(ke * ell + j) % len(perm)] for j in range(ke)]
            a = np.array(acc + grp)
            x = rng.random(K) < env.means[a]
            r = env.table[int(x.sum())]
            regret += mu_star - env.expected_reward(a)
            for j, i in enumerate(grp):
                if ke * ell + j < len(perm):
                    n[i] += 1
                    mu[i] += (r - mu[i]) / n[i]
            t += 1
        if e >= thr / delta**2:
            vals = np.sort(mu[und])[::-1]
            hi, lo = vals[ke], vals[ke - 1]
            acc += [i for i in und if mu[i] >= hi + delta]
            und = [i for i in und if lo - delta < mu[i] < hi + delta]
            delta /= 2
            if len(acc) + len(und) == K:
                break
    return regret


def timed(fn, *args, **kw) -> float:
    t0 = time.perf_counter()
    fn(*args, **kw)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="shorter horizons")
    args = ap.parse_args()
    T = 10**5 if args.quick else 10**6
    T_py = 20_000 if args.quick else 100_000
    small = SubsetEnv.bernoulli(45, 2, "mean", seed=0)
    for algo in ("dart", "csar", "ucb", "lints", "lints-unscaled"):  # compile
        run_subset(algo, small, 100, seed=0)

    print(f"N = 45, mean reward, T = {T:,} (seconds per run; ns per step; ratio to dart)")
    for K in (2, 4, 8):
        env = SubsetEnv.bernoulli(45, K, "mean", seed=0)
        base = timed(dart, env, T, seed=1)
        rows = [("dart", base, T)]
        py = timed(python_dart, env, T_py, seed=1)
        rows.append(("dart-python", py * T / T_py, T))
        for algo in ("csar", "lints", "lints-unscaled") + (("ucb",) if K == 2 else ()):
            rows.append((algo, timed(run_subset, algo, env, T, seed=1), T))
        print(f"K = {K}")
        for name, sec, n in rows:
            note = f" (extrapolated from T={T_py:,})" if name == "dart-python" else ""
            print(f"  {name:<16} {sec:8.3f} s  {1e9 * sec / n:9.1f} ns/step  "
                  f"x{sec / base:8.1f}{note}")

    print(f"\nDART per-step cost vs N (K = 4, T = {T:,}, lam=0: explores the whole horizon)")
    for N in (16, 64, 256, 1024, 4096):
        env = SubsetEnv.bernoulli(N, 4, "mean", seed=0)
        sec = timed(dart, env, T, seed=1, lam=0.0)
        print(f"  N = {N:5d}  {sec:6.3f} s  {1e9 * sec / T:7.1f} ns/step  "
              f"memory O(N): {6 * N * 8 / 1024:7.1f} KiB of per-arm arrays")


if __name__ == "__main__":
    main()
