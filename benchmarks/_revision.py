"""Modules of another revision beside this checkout's, for same-process benchmarks."""

from __future__ import annotations

import importlib.util
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
