"""The built-in example run by ``make demo`` / ``oed demo``.

On the hard instance of Soare, Lazaric & Munos (2014, §6) it computes the G-optimal
design and the c-optimal design for the decisive direction ``x_1 - x_{d+1}``, prints their
certificates, rounds both to an allocation of ``n`` pulls with the efficiency lost, and
runs LinGapE on the same instance to show its pulls following the c-optimal design.
"""

from __future__ import annotations

import time

import numpy as np

from bandits.instances import soare
from design import c_check, c_optimal, g_optimal, kw_check
from rounding import efficiency_loss, efficient_round


def _vec(v: np.ndarray, fmt: str = "{:.4f}") -> str:
    return "[" + ", ".join(fmt.format(x) for x in v) + "]"


def demo_report(d: int = 5, omega: float = 0.01, n: int = 100) -> str:
    """Text report of the demo (also returned for tests)."""
    from bandits.warmup import warmup

    inst = soare(d=d, omega=omega)
    X = inst.X
    K = X.shape[0]
    # compile (first use) or load (later) the kernels before any timing, and say which
    ready = warmup(["design: G/D", "bandits: gifa"], progress=False)
    compiled = sum(int(r["compiled"]) for r in ready.values())
    seconds = sum(r["seconds"] for r in ready.values())
    lines = [
        "oed-bandits demo",
        "=" * 72,
        (f"compiling kernels, first use only: {compiled} compiled in {seconds:.1f} s "
         "(`oed warmup` compiles every family once; timings below exclude it)"
         if compiled else f"kernels loaded from numba's cache in {seconds:.2f} s"),
        f"Instance: {inst.name}  ({inst.reference})",
        f"  K = {K} arms in R^{d}: e_1..e_{d} and x_{K} = (cos w, sin w, 0, ...)",
        f"  theta = {_vec(inst.theta, '{:g}')}, means = {_vec(inst.means)}",
        "",
    ]

    t0 = time.perf_counter()
    g = g_optimal(X)
    tg = time.perf_counter() - t0
    cert = kw_check(X, g.weights)
    lines += [
        "G-optimal design  min_w max_a x_a^T A(w)^-1 x_a   (Kiefer-Wolfowitz: optimum = d)",
        f"  weights      = {_vec(g.weights)}",
        f"  value        = {g.value:.8f}   lower bound = {g.lower_bound:g}   "
        f"gap = {g.gap:.2e}   ({g.solver}, {g.iterations} steps, {tg * 1e3:.1f} ms)",
        f"  certificate  : max variance {cert.max_variance:.8f} at arm {cert.argmax + 1}, "
        f"G-efficiency {cert.g_efficiency:.8f} -> {'OK' if cert.within_tol else 'NOT OK'}",
    ]
    counts = efficient_round(g.weights, n)
    loss = efficiency_loss(X, g.weights, counts, "G")
    lines += [
        f"  rounded to n = {n}: counts = {counts.tolist()}",
        f"  rounded value = {loss.rounded_value:.6f} "
        f"(x{loss.ratio:.4f} of the design; bound x{loss.bound:.4f})",
        "",
    ]

    y = X[0] - X[-1]
    t0 = time.perf_counter()
    c = c_optimal(X, y)
    tc = time.perf_counter() - t0
    cc = c_check(X, c.weights, y)
    coef = c.info["coefficients"]
    lines += [
        f"c-optimal design for y = x_1 - x_{K} (Elfving l1 LP: min ||w||_1 s.t. X^T w = y)",
        f"  coefficients = {_vec(coef, '{:+.3g}')}",
        f"  weights      = {_vec(c.weights, '{:.5f}')}",
        f"  value        = {c.value:.6f}   lower bound = {c.lower_bound:.6f}   "
        f"gap = {c.gap:.2e}   ({c.solver}, {tc * 1e3:.1f} ms)",
        f"  certificate  : max_a (x_a^T A^- y)^2 / y^T A^- y = {cc.ratio:.8f} "
        f"(1 at the optimum) -> {'OK' if cc.within_tol else 'NOT OK'}",
    ]
    nz = np.flatnonzero(c.weights > 0)
    if nz.size >= 2:
        r = c.weights[nz].max() / c.weights[nz].min()
        lines.append(f"  pull ratio between its arms: about 1 : {r:.0f} "
                     f"(most pulls go to e_2, almost aligned with y)")
    try:
        counts_c = efficient_round(c.weights, n)
        lines.append(f"  rounded to n = {n}: counts = {counts_c.tolist()}")
    except ValueError as exc:  # n smaller than the support
        lines.append(f"  rounding to n = {n} impossible: {exc}")
    var_g = float(y @ np.linalg.solve((X.T * g.weights) @ X, y))
    gap_y = float(inst.theta @ y)
    lines += [
        "",
        "Samples to separate x_1 from x_K scale with ||y||^2_{A(w)^-1} / (theta^T y)^2:",
        f"  G-optimal design : {var_g:.3e} / {gap_y:.3e}^2 = {var_g / gap_y**2:,.0f} per unit "
        "of log(1/delta)",
        f"  c-optimal design : {c.value:.3e} / {gap_y:.3e}^2 = {c.value / gap_y**2:,.0f} "
        f"({var_g / c.value:.1f}x fewer)",
    ]
    lines += ["", *_bandit_section(inst, c.weights)]
    return "\n".join(lines)


def _bandit_section(inst, c_weights: np.ndarray, seed: int = 1) -> list[str]:
    """LinGapE (Xu et al. 2018) on the same instance: its pulls follow the c-optimal design."""
    from bandits import run

    t0 = time.perf_counter()
    res = run("lingape", inst, seed=seed)
    el = time.perf_counter() - t0
    share = res.counts / res.samples
    ratio = res.counts[1] / max(res.counts[0], 1)
    return [
        "Best-arm identification: LinGapE (greedy, delta = 0.05, N(0,1) noise)",
        f"  stopped by the {res.stopped_by} after {res.samples:,} samples "
        f"({el * 1e3:.1f} ms); "
        f"recommends arm {res.recommendation[0] + 1} -> {'correct' if res.correct else 'WRONG'}",
        f"  pulls per arm: {res.counts.tolist()}",
        f"  {share[1]:.2%} of the pulls on e_2, arm 1 : arm 2 = 1 : {ratio:.0f} "
        f"(c-optimal design: 1 : {c_weights[1] / c_weights[0]:.0f}; "
        "Xu et al. 2018 Table 1: 1 : 201)",
    ]
