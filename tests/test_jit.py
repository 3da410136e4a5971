"""Inner kernels (compiled without numba's Python wrapper) refuse Python calls cleanly."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from numba import njit

from bandits._core.jit import InnerKernel

_MODULES = ("design._linalg", "design._criteria_numba", "design._minimax_numba",
            "bandits._core.rng", "bandits._core.lsq", "bandits._core.targets",
            "bandits._core.bridge", "bandits._core.blocks",
            "bandits.gifa._kernels", "bandits.game._kernels", "bandits.logistic._kernels",
            "bandits.subsets._kernels")


def _inner_kernels() -> list[tuple[str, InnerKernel]]:
    found = []
    for name in _MODULES:
        for attr, obj in vars(importlib.import_module(name)).items():
            if isinstance(obj, InnerKernel) and obj.py_func.__module__ == name:
                found.append((f"{name}.{attr}", obj))
    return found


def test_inner_kernels_raise_instead_of_crashing():
    kernels = _inner_kernels()
    assert len(kernels) >= 40
    assert any(name.startswith("design.") for name, _ in kernels)
    for name, kernel in kernels:
        # without the wrapper numba would jump to a null entry point (a segfault)
        with pytest.raises(TypeError, match=name.rsplit(".", 1)[-1]):
            kernel(np.zeros(3))


def test_inner_kernel_called_from_jitted_code_matches_its_python_source():
    from bandits.subsets._kernels import _largest_two

    @njit
    def shim(vals, n, k):
        return _largest_two(vals, n, k)

    rng = np.random.default_rng(0)
    for n, k in ((5, 1), (9, 4), (12, 11)):
        vals = rng.normal(size=n)
        lo, hi = shim(vals.copy(), n, k)
        ordered = sorted(vals)
        assert (lo, hi) == (ordered[n - k], ordered[n - k - 1])
        assert (lo, hi) == _largest_two.py_func(vals.copy(), n, k)
