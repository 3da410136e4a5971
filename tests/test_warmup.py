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
