"""Modules of another revision beside this checkout's, for same-process benchmarks."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def load_revision(rev: str, kernels: str, module: str, where: Path) -> ModuleType:
    """``design.<module>`` of revision ``rev`` over that revision's ``design.<kernels>``
    (its numba kernels), loaded as fresh modules ``ref<kernels>``, ``ref<module>`` from
    files written into ``where``; everything else they import is this checkout's."""
    import design

    mods: dict[str, ModuleType] = {}
    for name in (kernels, module):
        src = subprocess.run(["git", "show", f"{rev}:design/{name}.py"], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout
        path = where / f"ref{name}.py"
        path.write_text(src)
        spec = importlib.util.spec_from_file_location(f"ref{name}", path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = mod
        if name == module:  # it imports design.<kernels>: give it the revision's
            real = sys.modules[f"design.{kernels}"]
            sys.modules[f"design.{kernels}"] = mods[kernels]
            setattr(design, kernels, mods[kernels])
            try:
                spec.loader.exec_module(mod)
            finally:
                sys.modules[f"design.{kernels}"] = real
                setattr(design, kernels, real)
        else:
            spec.loader.exec_module(mod)
        mods[name] = mod
    return mods[module]
