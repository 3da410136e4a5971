"""m-LinGapE simulations: ours (numba) against a straightforward numpy loop, in one process.

Instance: the classic instance of Réda, Kaufmann & Delahaye-Duriez (2021), §5 (K=4, m=2,
omega=pi/6, sigma=0.5, theta=e_1; x_1 = e_1 as in the authors' code), delta=0.05, eps=0,
lambda=sigma/20, the theoretical threshold (their Eq. 2) -- the setting of their Figure 1(a).

(a) ``numpy``: m-LinGapE with the greedy selection written the way paper code is (a Python
    loop per round; numpy for the K x K gap indices and a Sherman–Morrison update of
    V^-1), against ``bandits.run("m-lingape", ...)`` on the same seeds. Rewards come from
    different generators, so the two sample-complexity distributions are compared, not
    the runs: their means must agree within 4 standard errors.
(b) 500 replications of the same experiment with :func:`bandits.replicate`, ``n_jobs=2``
    (and serially, for reference), wall time of the whole call including the pool start.
(c) Compile time of the first call in a fresh subprocess with an empty ``NUMBA_CACHE_DIR``
    (cold) and with the cache that run wrote (warm).

Usage: ``python benchmarks/bench_gifa.py [--runs 200] [--quick]``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from bandits import replicate, run
from bandits.instances import reda_classic

DELTA = 0.05


def numpy_m_lingape(X: np.ndarray, theta: np.ndarray, m: int, sigma: float, delta: float,
                    seed: int, max_samples: int = 10**7) -> tuple[int, np.ndarray, np.ndarray]:
    """m-LinGapE (greedy selection) in plain numpy, one Python iteration per round.

    Same rules as ``bandits.run("m-lingape")``: pull every arm once, then
    ``J`` = m largest estimated means, paired indices
    ``B_ij = mu_i - mu_j + C(t) sigma ||x_i - x_j||_{V^-1}`` with Réda et al.'s Eq. (2)
    threshold, ``b = argmax_{j in J} max_{i not in J} B_ij``, ``c = argmax_{i not in J}
    B_ib``, stop when ``B_cb <= 0``, else pull ``argmin_a ||x_b - x_c||_{(V + x_a x_a^T)^-1}``.
    Returns (samples, recommendation, counts).
    """
    rng = np.random.default_rng(seed)
    K, d = X.shape
    lam = sigma / 20.0
    S = float(np.linalg.norm(theta))
    L2 = float(np.max(np.sum(X * X, axis=1)))
    means = X @ theta
    Vinv = np.eye(d) / lam
    bvec = np.zeros(d)
    counts = np.zeros(K, dtype=np.int64)
    t = 0

    def pull(a: int) -> None:
        nonlocal Vinv, t
        r = means[a] + sigma * rng.standard_normal()
        x = X[a]
        u = Vinv @ x
        Vinv = Vinv - np.outer(u, u) / (1.0 + x @ u)
        bvec[:] += r * x
        counts[a] += 1
        t += 1

    for a in range(K):
        pull(a)
    while True:
        mu = X @ (Vinv @ bvec)
        C = np.sqrt(2 * np.log(1 / delta) + d * np.log(1 + (max(t, 1) + 1) * L2 / (lam * d)))
        C += np.sqrt(lam) * S / sigma
        G = X @ Vinv @ X.T
        dg = np.diag(G)
        W = np.sqrt(np.maximum(dg[:, None] + dg[None, :] - 2 * G, 0.0))
        B = mu[:, None] - mu[None, :] + C * sigma * W  # B[i, j]
        J = np.argsort(-mu, kind="stable")[:m]
        out = np.setdiff1d(np.arange(K), J)
        b = J[np.argmax(B[np.ix_(out, J)].max(axis=0))]
        c = out[np.argmax(B[out, b])]
        if B[c, b] <= 0.0 or t >= max_samples:
            return t, np.sort(J), counts
        y = X[b] - X[c]
        P = X @ Vinv
        pull(int(np.argmax((P @ y) ** 2 / (1.0 + np.sum(P * X, axis=1)))))


def side_by_side(n_runs: int) -> None:
    inst = reda_classic(K=4, m=2, omega=np.pi / 6, sigma=0.5)
    run("m-lingape", inst, seed=0, max_samples=10)  # load the jitted code first
    seeds = range(n_runs)
    t0 = time.perf_counter()
    ours = np.array([run("m-lingape", inst, seed=s, delta=DELTA).samples for s in seeds])
    t_ours = (time.perf_counter() - t0) / n_runs
    n_np = max(20, n_runs // 4)  # the numpy loop is slow: time it on fewer seeds
    t0 = time.perf_counter()
    ref, wrong = [], 0
    for s in range(n_np):
        samples, rec, _ = numpy_m_lingape(inst.X, inst.theta, inst.m, inst.sigma, DELTA, s)
        ref.append(samples)
        wrong += rec.tolist() != [0, 1]
    t_np = (time.perf_counter() - t0) / n_np
    ref = np.array(ref)
    se = np.sqrt(ours.var(ddof=1) / ours.size + ref.var(ddof=1) / ref.size)
    z = abs(ours.mean() - ref.mean()) / se
    print(f"(a) m-LinGapE greedy on {inst.name}, delta={DELTA}")
    print(f"    ours  (numba) : {1e3 * t_ours:9.3f} ms/run   mean samples {ours.mean():7.1f} "
          f"+- {ours.std(ddof=1) / np.sqrt(ours.size):5.1f}  ({ours.size} runs)")
    print(f"    numpy loop    : {1e3 * t_np:9.3f} ms/run   mean samples {ref.mean():7.1f} "
          f"+- {ref.std(ddof=1) / np.sqrt(ref.size):5.1f}  ({ref.size} runs, "
          f"{wrong} wrong)")
    print(f"    ratio numpy/ours per run: {t_np / t_ours:7.1f}x;  per sample: "
          f"{(t_np / ref.mean()) / (t_ours / ours.mean()):7.1f}x")
    print(f"    means differ by {z:.2f} standard errors -> "
          f"{'similar' if z < 4 else 'NOT SIMILAR'}")


def replications(n: int) -> None:
    inst = reda_classic(K=4, m=2, omega=np.pi / 6, sigma=0.5)
    print(f"(b) {n} replications of m-LinGapE greedy ({inst.name})")
    for backend, jobs in (("processes", 2), ("serial", 1)):
        t0 = time.perf_counter()
        table = replicate("m-lingape", inst, n, n_jobs=jobs, backend=backend, progress=False)
        wall = time.perf_counter() - t0
        s = table.summary()["m-lingape"]
        print(f"    {backend:9s} n_jobs={jobs}: {wall:6.2f} s wall  (mean {s['mean']:.1f}, "
              f"std {s['std']:.1f}, error rate {s['error_rate']:.3f}, "
              f"{s['budget']} budget stops)")


def compile_times() -> tuple[float, float, float, float]:
    code = ("import time; t0 = time.perf_counter(); import bandits; "
            "from bandits.instances import reda_classic; t1 = time.perf_counter(); "
            "bandits.run('m-lingape', reda_classic(), seed=0); t2 = time.perf_counter(); "
            "print(t1 - t0, t2 - t1)")
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        cold = subprocess.check_output([sys.executable, "-c", code], env=env).split()
        warm = subprocess.check_output([sys.executable, "-c", code], env=env).split()
    return float(cold[0]), float(cold[1]), float(warm[0]), float(warm[1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=200, help="seeds for (a) (numpy: runs/4)")
    ap.add_argument("--quick", action="store_true", help="(a) on 40 seeds, (b) 100 runs")
    args = ap.parse_args()
    cpu = os.cpu_count()
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, {cpu} logical CPUs\n")
    side_by_side(40 if args.quick else args.runs)
    print()
    replications(100 if args.quick else 500)
    print()
    imp_c, run_c, imp_w, run_w = compile_times()
    print("(c) first call in a fresh process (import bandits / first run of m-lingape)")
    print(f"    empty NUMBA_CACHE_DIR : import {imp_c:5.2f} s, first run {run_c:6.2f} s")
    print(f"    warm cache            : import {imp_w:5.2f} s, first run {run_w:6.2f} s")


if __name__ == "__main__":
    main()
