"""``oed warmup`` compiles once and tells a compile from a cache load truthfully."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from bandits.cli import main
from bandits.warmup import FAMILIES, compile_events, jitted_functions, warmup


def _oed(args: list[str], cache: str) -> str:
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    proc = subprocess.run([sys.executable, "-m", "bandits.cli", *args], env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_first_call_compiles_then_loads_from_the_cache(tmp_path):
    # a fresh cache directory is a user's first call after installing
    first = _oed(["warmup", "--family", "rounding: tracking", "--no-progress"], str(tmp_path))
    assert "kernel(s) compiled" in first and "loaded from the cache" not in first
    second = _oed(["warmup", "--family", "rounding: tracking", "--no-progress"], str(tmp_path))
    assert "loaded from the cache" in second and "compiled" not in second.split("s  ")[1]


def test_warmup_reports_every_family_asked(capsys):
    report = warmup(["rounding: tracking"], progress=False)
    assert list(report) == ["rounding: tracking"] and report["rounding: tracking"]["seconds"] > 0
    assert compile_events() >= 0 and len(jitted_functions()) > 0
    with pytest.raises(ValueError, match="families"):
        warmup(["nope"])
    assert main(["warmup", "--list"]) == 0
    assert capsys.readouterr().out.split("\n")[:-1] == list(FAMILIES)


@pytest.mark.slow  # compiles the GIFA kernels into an empty cache (about a minute of CPU)
def test_oed_run_says_when_it_compiled(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    args = [sys.executable, "-m", "bandits.cli", "run", "lucb", "--instance", "soare",
            "-p", "d=2", "--max-samples", "3000"]
    first = subprocess.run(args, env=env, capture_output=True, text=True, timeout=900)
    assert first.returncode == 0, first.stderr
    assert first.stderr.count("compiling kernels, first use only") == 1
    again = subprocess.run(args, env=env, capture_output=True, text=True, timeout=900)
    assert "compiling" not in again.stderr


def test_every_registered_family_is_warmed():
    """`oed warmup` compiles every family of the registry (LinGame's was missing)."""
    from bandits.registry import REGISTRY

    warmed = {k.removeprefix("bandits: ") for k in FAMILIES if k.startswith("bandits: ")}
    assert {e.family for e in REGISTRY.values()} <= warmed


@pytest.mark.slow  # compiles every design family into an empty cache (about a minute of CPU)
def test_design_families_compile_every_public_design_solver(tmp_path):
    """After `oed warmup` of the design families, no public design call compiles a kernel
    (Ds, I, exact and constrained designs were missing from the families: 20 compilations)."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    families = [f for f in FAMILIES if f.startswith(("design", "rounding"))]
    subprocess.run([sys.executable, "-m", "bandits.cli", "warmup", "--no-progress",
                    *[a for f in families for a in ("--family", f)]],
                   env=env, check=True, capture_output=True, timeout=900)
    code = """
import warnings
import numpy as np
import design, rounding
from bandits.warmup import compile_events
warnings.simplefilter("ignore")
g = np.linspace(-1, 1, 7)
X = np.c_[np.ones(7), g, g ** 2]
w = design.d_optimal(X).weights
design.g_optimal(X); design.a_optimal(X); design.i_optimal(X); design.ds_optimal(X, [1, 2])
design.xy_optimal(X); design.h_optimal(X, np.array([0.1, 0.5, -0.2])); design.kw_check(X, w)
design.exact(X, 5, "d"); design.exact(X, 4, "a", bin=True); design.exact(X, 6, "i")
design.constrained_optimal(X, "d", caps=0.3); design.constrained_optimal(X, "a", caps=0.3)
rounding.efficient_round(w, 10); rounding.track(np.zeros(7, dtype=np.int64), w)
print(compile_events())
"""
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split()[-1] == "0", proc.stdout
