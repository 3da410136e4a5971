"""Batches (issue 14): the cost of a policy step, and the price of batching in samples.

A. Cost of one ask+tell step of m-LinGapE's policy (greedy selection) in microseconds at
   K = 10, 100, 1000 arms (d = 10, m = 3), measured over 500 steps after 1,000 and again
   after 10,000 samples so far: the ratio shows the step does not grow with the samples
   (rank-one updates, a periodic exact refresh). Also ``ask(10)`` + ``tell`` per arm.
B. Sample complexity vs batch size (1, 10, 100) for m-LinGapE, LinGIFA, XY-adaptive and
   RAGE on reda_classic and drug-repurposing (the best-arm algorithms on the m = 1
   versions; drug-repurposing with the heuristic threshold of Réda et al. Fig. 1(c)),
   results told a batch later in a random order: mean measurements asked (used
   by the stop + still in flight when it stopped) over seeds and the ratio to batch
   size 1 (which here is "one measurement in flight": the result of an ask arrives after
   the next ask).

C. LinGame (Degenne et al. 2020; batches by the same look-ahead rule): the price of
   batching on reda_classic (m = 1) at batch sizes 1, 10, 100 (mean samples asked over
   the seeds, ratio to batch size 1, results told a batch later in a random order), and
   the cost of one ask+tell step at K = 10, 100, 1000 as in A.

Usage: ``python benchmarks/bench_batch.py [A|B|C] [seeds]`` (default A and B, 5 seeds;
C uses max(seeds, 10) seeds).
"""

from __future__ import annotations

import sys
import time

import numpy as np

import bandits
from bandits import reward_oracle
from bandits.instances import drug_repurposing_epilepsy, reda_classic
from bandits.registry import policy_for


def _step_cost(K: int, warm: int, steps: int = 500, n: int = 1,
               algorithm: str = "m-lingape") -> float:
    rng = np.random.default_rng(K)
    X = rng.normal(size=(K, 10))
    theta = rng.normal(size=10)
    means = X @ theta
    # noise sd 50 (and the policy told so): the run is far from stopping in the window
    if algorithm == "lingame":
        pol = bandits.policy("lingame", X, sigma=50.0, seed=0, delta=1e-12)
    else:
        pol = bandits.policy(algorithm, X, m=3, sigma=50.0,
                             S=float(np.linalg.norm(theta)) * 2, seed=0,
                             threshold="theoretical", delta=1e-12)
    # every arm once (the initialisation is over), then random arms
    hist = np.concatenate([np.arange(K), rng.integers(0, K, size=warm - K)])
    pol.observe(hist.tolist(), (means[hist] + 50 * rng.standard_normal(hist.size)).tolist())
    done = 0
    t0 = time.perf_counter()
    while done < steps and not pol.done:
        arms = pol.ask(n) if n > 1 else [pol.ask()]
        pol.tell(arms, (means[arms] + 50 * rng.standard_normal(len(arms))).tolist())
        done += len(arms)
    if done < steps:
        raise RuntimeError(f"the policy stopped after {done} of {steps} timed steps")
    return (time.perf_counter() - t0) / done * 1e6


def part_a() -> None:
    _step_cost(10, 20, 20)  # compile
    print("A. m-LinGapE policy, microseconds per measurement (ask + tell)")
    print(f"{'K':>6} {'after 1e3':>10} {'after 1e4':>10} {'ratio':>6} {'ask(10) 1e4':>12}")
    for K in (10, 100, 1000):
        a, b = _step_cost(K, 1000), _step_cost(K, 10000)
        c = _step_cost(K, 10000, n=10)
        print(f"{K:>6} {a:>10.1f} {b:>10.1f} {b / a:>6.2f} {c:>12.1f}")


def _samples(name: str, inst, n: int, seed: int) -> int:
    # the drug instance is tabulated (no theta): the heuristic threshold, as in Réda et
    # al. 2021, Fig. 1(c)
    opts = {"threshold": "heuristic"} if getattr(inst, "theta", None) is None else {}
    pol = policy_for(name, inst, seed=seed, max_samples=2 * 10**6, **opts)
    draw = reward_oracle(inst, 1000 + seed)
    rng = np.random.default_rng(seed)
    late: list[int] = []
    while not pol.done:
        arms = pol.ask(n)
        if late:
            told = [late[i] for i in rng.permutation(len(late))]
            pol.tell(told, [draw(a) for a in told])
        late = arms
    return pol.samples + len(pol.outstanding)  # asked = used + still in flight at the stop


def part_b(seeds: int) -> None:
    cases = [("reda_classic", reda_classic(), reda_classic(m=1)),
             ("drug-repurposing", drug_repurposing_epilepsy(),
              drug_repurposing_epilepsy(m=1))]
    print(f"B. mean samples over {seeds} seeds; ratio to batch size 1")
    print(f"{'instance':<18} {'algorithm':<12} {'b=1':>9} {'b=10':>9} {'b=100':>9} "
          f"{'r10':>6} {'r100':>6}")
    for label, top_m, best in cases:
        for name in ("m-lingape", "lingifa", "xy-adaptive", "rage"):
            inst = top_m if name in ("m-lingape", "lingifa") else best
            if name in ("xy-adaptive", "rage") and inst.X.shape[0] < inst.X.shape[1]:
                print(f"{label:<18} {name:<12} not applicable: K = {inst.X.shape[0]} arms do "
                      f"not span R^{inst.X.shape[1]} (unregularised least squares)")
                continue
            t0 = time.perf_counter()
            means = [np.mean([_samples(name, inst, n, s) for s in range(seeds)])
                     for n in (1, 10, 100)]
            print(f"{label:<18} {name:<12} {means[0]:>9.0f} {means[1]:>9.0f} "
                  f"{means[2]:>9.0f} {means[1] / means[0]:>6.2f} {means[2] / means[0]:>6.2f}"
                  f"   ({time.perf_counter() - t0:.0f} s)", flush=True)


def part_c(seeds: int) -> None:
    inst = reda_classic(m=1)
    print(f"C. LinGame on {inst.name} (m = 1, K = {inst.X.shape[0]}, d = {inst.X.shape[1]}): "
          f"mean samples asked over {seeds} seeds; ratio to batch size 1")
    print(f"{'b=1':>9} {'b=10':>9} {'b=100':>9} {'r10':>6} {'r100':>6}   (sd b=1/10/100)")
    runs = {n: [_samples("lingame", inst, n, s) for s in range(seeds)] for n in (1, 10, 100)}
    means = [float(np.mean(runs[n])) for n in (1, 10, 100)]
    sds = [float(np.std(runs[n], ddof=1)) for n in (1, 10, 100)]
    print(f"{means[0]:>9.0f} {means[1]:>9.0f} {means[2]:>9.0f} {means[1] / means[0]:>6.2f} "
          f"{means[2] / means[0]:>6.2f}   ({sds[0]:.0f} / {sds[1]:.0f} / {sds[2]:.0f})")
    _step_cost(10, 20, 20, algorithm="lingame")  # compile
    print("C. LinGame policy, microseconds per measurement (ask + tell)")
    print(f"{'K':>6} {'after 1e3':>10} {'after 1e4':>10} {'ratio':>6} {'ask(10) 1e4':>12}")
    for K in (10, 100, 1000):
        a = _step_cost(K, 1000, algorithm="lingame")
        b = _step_cost(K, 10000, algorithm="lingame")
        c = _step_cost(K, 10000, n=10, algorithm="lingame")
        print(f"{K:>6} {a:>10.1f} {b:>10.1f} {b / a:>6.2f} {c:>12.1f}", flush=True)


if __name__ == "__main__":
    which = sys.argv[1] if len(sys.argv) > 1 else "AB"
    seeds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    if "A" in which:
        part_a()
    if "B" in which:
        part_b(seeds)
    if "C" in which:
        part_c(max(seeds, 10))
