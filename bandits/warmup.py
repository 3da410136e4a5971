"""Compile (or load from numba's cache) every jitted kernel once: ``oed warmup``.

numba compiles a kernel on its first call and stores the machine code in its cache
(``__pycache__``, or ``NUMBA_CACHE_DIR``); later processes load it in milliseconds. The
first call after an install therefore pays the compilation. ``oed warmup`` (run by
``make demo``) pays it once, up front, family by family with a progress bar, so that no
later timing includes it.

:func:`compile_events` counts the compilations numba has done in this process (cache
misses of our kernels), so callers can tell a compile from a cache load and say so
("compiling kernels, first use only") instead of reporting compile time as solver time.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

__all__ = ["FAMILIES", "compile_events", "jitted_functions", "warmup"]

_PACKAGES = ("design", "rounding", "bandits")


def jitted_functions() -> list[Any]:
    """Every numba dispatcher defined in the loaded modules of design/, rounding/, bandits/."""
    from numba.core.registry import CPUDispatcher

    found, seen = [], set()
    for name, mod in list(sys.modules.items()):
        if mod is None or name.split(".")[0] not in _PACKAGES:
            continue
        for obj in vars(mod).values():
            if isinstance(obj, CPUDispatcher) and id(obj) not in seen:
                seen.add(id(obj))
                found.append(obj)
    return found


def compile_events() -> int:
    """Number of compilations of our kernels in this process so far (numba cache misses;
    a load from the cache is a hit and does not count)."""
    total = 0
    for d in jitted_functions():
        try:
            total += sum(d.stats.cache_misses.values())
        except AttributeError:  # pragma: no cover - dispatchers without a cache
            total += len(d.overloads)
    return total


def _design_gd() -> None:
    from design import d_optimal, g_optimal, kw_check

    X = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]])
    w = g_optimal(X).weights
    d_optimal(X)
    kw_check(X, w)


def _design_minimax() -> None:
    from design import h_optimal, xy_optimal

    X = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]])
    xy_optimal(X)
    h_optimal(X, np.array([1.0, 0.5]))


def _design_criteria() -> None:
    from design import a_optimal

    a_optimal(np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]]))


def _rounding() -> None:
    from rounding import track

    track(np.zeros(3, dtype=np.int64), np.array([0.5, 0.25, 0.25]))


def _bandits(family: str) -> Callable[[], None]:
    def go() -> None:
        for name, instance in _family_runs(family):
            from bandits import run

            run(name, instance, seed=0, max_samples=2_000)
    return go


def _family_runs(family: str) -> Iterable[tuple[str, Any]]:
    """(algorithm, small instance) of every registered algorithm of ``family``."""
    from bandits.registry import REGISTRY

    runs = []
    for e in REGISTRY.values():
        if e.family == family:
            module, _, fn = e.example.partition(":")
            runs.append((e.name, getattr(__import__(module, fromlist=[fn]), fn)()))
    return runs


#: family -> function compiling its kernels with one tiny call of each public entry point
FAMILIES: dict[str, Callable[[], None]] = {
    "design: G/D": _design_gd,
    "design: XY/H": _design_minimax,
    "design: A/I/Ds": _design_criteria,
    "rounding: tracking": _rounding,
    "bandits: gifa": _bandits("gifa"),
    "bandits: game": _bandits("game"),
    "bandits: static": _bandits("static"),
    "bandits: phased": _bandits("phased"),
    "bandits: logistic": _bandits("logistic"),
    "bandits: subsets": _bandits("subsets"),
}


def warmup(families: Iterable[str] | None = None, *, progress: bool | None = None,
           file: Any = None) -> dict[str, dict[str, float]]:
    """Compile (or load from the cache) the kernels of ``families`` (default: all).

    Parameters
    ----------
    families : iterable of str, optional
        Keys of :data:`FAMILIES`.
    progress : bool, optional
        tqdm progress bar (default: when ``file`` is a terminal).
    file : text stream, optional
        Where the bar goes (default ``sys.stderr``).

    Returns
    -------
    dict
        ``{family: {"seconds": wall seconds, "compiled": number of kernels compiled}}``;
        ``compiled == 0`` means everything came from numba's cache.
    """
    from tqdm import tqdm

    names = list(FAMILIES) if families is None else list(families)
    unknown = [n for n in names if n not in FAMILIES]
    if unknown:
        raise ValueError(f"families: unknown {unknown}; known: {list(FAMILIES)}")
    file = sys.stderr if file is None else file
    if progress is None:
        progress = bool(getattr(file, "isatty", lambda: False)())
    out: dict[str, dict[str, float]] = {}
    with tqdm(names, disable=not progress, file=file, unit="family", leave=True) as bar:
        for name in bar:
            bar.set_description(name)
            before = compile_events()
            t0 = time.perf_counter()
            FAMILIES[name]()
            out[name] = {"seconds": time.perf_counter() - t0,
                         "compiled": compile_events() - before}
    return out
