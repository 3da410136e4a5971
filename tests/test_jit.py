"""Inner kernels (compiled without numba's Python wrapper) refuse Python calls cleanly."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from numba import njit

from bandits._core.jit import InnerKernel

_MODULES = ("design._linalg", "design._criteria_numba", "design._minimax_numba",
            "design._exact_numba", "bandits._core.rng", "bandits._core.lsq",
            "bandits._core.targets",
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


_FIRST_CALLS = """
import json
from bandits import reward_oracle, run
from bandits.registry import REGISTRY, _load, policy_for
from bandits.warmup import jitted_functions

for name, e in REGISTRY.items():
    inst = _load(e.example)()
    run(name, inst, seed=0, max_samples=3000)
    opts = {"T": 300} if e.horizon else {}
    pol = policy_for(name, inst, seed=0, max_samples=3000, **opts)
    draw = reward_oracle(inst, 0)
    for _ in range(300):
        if pol.done:
            break
        arm = pol.ask()
        pol.tell(arm, draw(arm) if getattr(pol, "exploring", True) else 0.0)
print(json.dumps({d.py_func.__module__ + "." + d.py_func.__qualname__: len(d.signatures)
                  for d in jitted_functions() if d.signatures}))
"""


def test_one_specialisation_per_kernel_over_every_registered_algorithm():
    """The first calls of every registered algorithm, simulated (``bandits.run`` on its
    registry example) and driven by its ask/tell policy, all in one fresh process, compile
    each of our kernels once: no duplicate specialisation (a literal int or bool, another
    array layout or dtype) costs a second compilation (issue 16). Parametrised by the
    registry, so a new algorithm is checked for free."""
    import json
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", _FIRST_CALLS], capture_output=True,
                         text=True, timeout=1800, check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    sigs = json.loads(out.stdout.strip().splitlines()[-1])
    assert len(sigs) >= 50  # the run reached the kernels of every family
    # the block kernel compiles one body per allocation rule (the greedy rule's with the
    # generator, the ratio rule's with the closed form: numba prunes each from the other,
    # docs/choices.md), and the registry's examples run both (XY-adaptive's greedy
    # phases, G/XY-static's default rounding); nothing else may compile twice
    assert sigs.get("bandits._core.blocks.block_steps", 0) <= 2
    assert {k: n for k, n in sigs.items()
            if n > 1 and k != "bandits._core.blocks.block_steps"} == {}
