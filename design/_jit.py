"""``inner``: the decorator of a jitted helper that only other jitted kernels call.

numba compiles two wrappers around every function it compiles, whatever calls it: a
CPython wrapper (unboxing each argument from Python objects: every array of a namedtuple
state, with its reference counting) and a C-callable wrapper. A helper that is only called
from jitted code never uses either, and for the bandit kernels, whose arguments are
namedtuples of up to ten arrays, the wrappers are a large part of the first-call compile
time (issue 16: five helpers taking a ten-array namedtuple compile in 0.19 s of CPU
without them, 0.42 s with them; the XY solver's Newton direction, fourteen arrays, 0.29 s
instead of 0.47 s). :func:`inner` compiles without both
(``no_cpython_wrapper``, ``no_cfunc_wrapper``); the machine code called from other kernels,
and so every result, is the same.

Such a helper cannot run from Python (numba would jump to the missing wrapper and crash the
interpreter): calling it from Python raises ``TypeError`` instead. Kernels that the Python
side calls (step kernels, simulation loops, anything a test or a policy calls) keep
``@njit(cache=True)``.

It lives in the design layer (public name :func:`design.linalg.inner`) so that the design
kernels and the bandit kernels (through ``bandits._core.jit``) share the one decorator.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from numba import njit
from numba.core.registry import CPUDispatcher

__all__ = ["InnerKernel", "inner"]


class InnerKernel(CPUDispatcher):
    """A dispatcher compiled without the CPython wrapper: callable from jitted code only."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(
            f"{self.py_func.__module__}.{self.py_func.__qualname__} is an inner kernel "
            "(compiled without a Python wrapper, design.linalg.inner): call it from "
            "jitted code, or use its Python source through .py_func")


def inner(fn: Callable[..., Any] | None = None, **options: Any) -> Any:
    """``@njit(cache=True, **options)`` without the CPython and C wrappers (see the module
    text); ``@inner`` or ``@inner(error_model="numpy")``."""
    def wrap(f: Callable[..., Any]) -> InnerKernel:
        dispatcher = njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True,
                          **options)(f)
        dispatcher.__class__ = InnerKernel
        return dispatcher
    return wrap if fn is None else wrap(fn)
