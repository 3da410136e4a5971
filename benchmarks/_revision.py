"""Modules of another revision beside this checkout's, for same-process benchmarks."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def load_chain(rev: str, names: Sequence[str], where: Path) -> dict[str, ModuleType]:
    """``design.<name>`` for each of ``names`` at revision ``rev``, in import order, each
    importing the revision's own earlier ones (e.g. its numba kernels): fresh modules
    ``ref<name>`` from files written into ``where``; everything else they import is this
    checkout's."""
    import design

    loaded: dict[str, ModuleType] = {}
    for name in names:
        src = subprocess.run(["git", "show", f"{rev}:design/{name}.py"], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout
        path = where / f"ref{name}.py"
        path.write_text(src)
        spec = importlib.util.spec_from_file_location(f"ref{name}", path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = mod
        real = {k: sys.modules[f"design.{k}"] for k in loaded}
        for k, m in loaded.items():  # the revision's own earlier modules
            sys.modules[f"design.{k}"] = m
            setattr(design, k, m)
        try:
            spec.loader.exec_module(mod)
        finally:
            for k, m in real.items():
                sys.modules[f"design.{k}"] = m
                setattr(design, k, m)
        loaded[name] = mod
    return loaded


def load_revision(rev: str, kernels: str, module: str, where: Path) -> ModuleType:
    """``design.<module>`` of revision ``rev`` over that revision's ``design.<kernels>``
    (its numba kernels): :func:`load_chain` of the two."""
    return load_chain(rev, (kernels, module), where)[module]


def extract(ref: str, dest: Path) -> Path:
    """``git archive ref`` unpacked into ``dest`` (no worktree is registered)."""
    archive = subprocess.run(["git", "archive", ref], cwd=ROOT, capture_output=True,
                             check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return dest


#: A warm call's best CPU seconds over ``repeats`` calls after a first one, in a child
#: process (prints ``{"cpu": seconds, "file": the bandits package it imported}``).
BEST_CPU_PROBE = """
import json, time, warnings
warnings.simplefilter("ignore")
{setup}
{call}
best = float("inf")
for _ in range({repeats}):
    t0 = time.process_time()
    {call}
    best = min(best, time.process_time() - t0)
import bandits
print(json.dumps({{"cpu": best, "file": bandits.__file__}}))
"""


def best_cpu(setup: str, call: str, repeats: int, where: Path, cache: str) -> dict:
    """:data:`BEST_CPU_PROBE` run on the code at ``where`` with numba cache ``cache``."""
    env = {**os.environ, "PYTHONPATH": str(where), "NUMBA_CACHE_DIR": cache,
           "PYTHONDONTWRITEBYTECODE": "1"}
    out = subprocess.run([sys.executable, "-c", BEST_CPU_PROBE.format(
        setup=setup, call=call, repeats=repeats)], cwd=where, env=env, capture_output=True,
        text=True, check=False)
    if out.returncode:
        raise RuntimeError(out.stderr.strip().splitlines()[-1])
    return json.loads(out.stdout.strip().splitlines()[-1])
