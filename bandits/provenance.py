"""What a result file needs to describe itself: versions, time, call, seeds, instance.

:func:`provenance` returns a JSON-ready dictionary written into every result file of the
toolkit (``oed design`` JSON, replication tables in CSV and JSON, ``oed reproduce``
folders): the package version, the Python / numpy / numba / scipy versions, the UTC
timestamp, the command line or the Python call, the seeds, and the instance itself -- its
arrays when they are small (at most :data:`INLINE_MAX` numbers), else their shape, dtype
and SHA-256 content hash, with the file they were read from when known. A hash identifies
the exact data: ``array_digest(np.loadtxt(path, delimiter=","))`` recomputes it.
"""

from __future__ import annotations

import hashlib
import platform
import shlex
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

import numpy as np

__all__ = ["INLINE_MAX", "array_digest", "describe_array", "describe_instance", "provenance",
           "seed_summary"]

#: Arrays with at most this many entries are written out in full; larger ones by hash.
INLINE_MAX = 10_000

_COMMAND: str | None = None


def set_command(argv: Sequence[str] | None) -> None:
    """Record the ``oed`` command line being run (called by :func:`bandits.cli.main`)."""
    global _COMMAND
    _COMMAND = None if argv is None else shlex.join(["oed", *argv])


def array_digest(a: Any) -> str:
    """``"sha256:..."`` of the array's float64 C-order bytes and shape (content identity,
    independent of the file format it was read from)."""
    arr = np.ascontiguousarray(np.asarray(a, dtype=np.float64))
    h = hashlib.sha256(repr(arr.shape).encode())
    h.update(arr.tobytes())
    return f"sha256:{h.hexdigest()}"


def describe_array(a: Any, source: str | None = None) -> dict:
    """``{"shape", "sha256"}`` plus ``"values"`` when small and ``"source"`` when given."""
    arr = np.asarray(a)
    out: dict = {"shape": list(arr.shape), "sha256": array_digest(arr)}
    if arr.size <= INLINE_MAX:
        out["values"] = arr.tolist()
    if source is not None:
        out["source"] = str(source)
    return out


def describe_instance(instance: Any) -> dict:
    """Name and arrays (``X``, ``theta``, ``means``, ``reward_table``...) of an instance,
    each via :func:`describe_array`; ``sigma`` and ``m`` when present."""
    out: dict = {"name": str(getattr(instance, "name", type(instance).__name__))}
    for key in ("sigma", "m", "N", "K"):
        v = getattr(instance, key, None)
        if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool):
            out[key] = v.item() if isinstance(v, np.generic) else v
    for key in ("X", "theta", "means", "reward_table"):
        v = getattr(instance, key, None)
        if v is not None:
            try:
                out[key] = describe_array(np.asarray(v, dtype=np.float64))
            except (TypeError, ValueError):
                continue
    return out


def seed_summary(seeds: Sequence[int] | None) -> Any:
    """The seeds compactly: ``{"first", "last", "count"}`` for a contiguous range, else the
    list."""
    if seeds is None:
        return None
    s = [int(x) for x in seeds]
    if s and s == list(range(s[0], s[0] + len(s))):
        return {"first": s[0], "last": s[-1], "count": len(s)}
    return s


def _versions() -> dict:
    import design

    out = {"oed-bandits": design.__version__, "python": platform.python_version(),
           "numpy": np.__version__}
    for mod in ("numba", "scipy"):
        try:
            out[mod] = __import__(mod).__version__
        except ImportError:  # pragma: no cover - both are dependencies
            out[mod] = None
    return out


def provenance(*, call: str | None = None, seeds: Sequence[int] | None = None,
               instance: Any = None, arrays: Mapping[str, Any] | None = None,
               sources: Mapping[str, str] | None = None, **extra: Any) -> dict:
    """A JSON-ready description of how a result was made.

    Parameters
    ----------
    call : str, optional
        The Python call (e.g. ``"replicate(['m-lingape'], 'soare', 20)"``). When the
        ``oed`` command line is running, it is recorded as ``command`` as well.
    seeds : sequence of int, optional
        The seeds used (written compactly by :func:`seed_summary`).
    instance : object, optional
        A problem instance (:func:`describe_instance`).
    arrays : mapping of str to array, optional
        Further input arrays (e.g. the arms of a design), by :func:`describe_array`.
    sources : mapping of str to str, optional
        The file each of ``arrays`` was read from.
    **extra
        Added as they are (must be JSON-ready).

    Returns
    -------
    dict
        ``versions``, ``created`` (UTC, ISO 8601), ``platform``, ``command`` or ``call``,
        ``seeds``, ``instance``, ``inputs`` and ``extra``'s keys.
    """
    out: dict = {"versions": _versions(),
                 "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                 "platform": platform.platform()}
    if _COMMAND is not None:
        out["command"] = _COMMAND
    if call is not None:
        out["call"] = call
    if seeds is not None:
        out["seeds"] = seed_summary(seeds)
    if instance is not None:
        out["instance"] = describe_instance(instance)
    if arrays:
        sources = dict(sources or {})
        out["inputs"] = {k: describe_array(v, sources.get(k)) for k, v in arrays.items()}
    out.update(extra)
    return out
