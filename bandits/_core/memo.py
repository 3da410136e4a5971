"""A bounded memo of deterministic set-up results (designs, phase plans) shared by the runs,
phases and replications of a process."""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np


class BoundedMemo(dict):
    """A dict that keeps at most ``size`` entries, dropping the oldest one first.

    Keys must determine the value completely (array keys as ``(shape, dtype, bytes)``, see
    :func:`array_key`): a hit returns exactly what a fresh computation would.
    """

    def __init__(self, size: int = 512) -> None:
        super().__init__()
        self.size = int(size)

    def remember(self, key: Hashable, value: object) -> None:
        """Store ``value`` under ``key``, dropping the oldest entry beyond ``size``."""
        if key not in self and len(self) >= self.size:
            del self[next(iter(self))]
        self[key] = value


def array_key(a: np.ndarray | None) -> tuple | None:
    """A hashable key that identifies the contents of ``a`` exactly (``None`` stays None)."""
    if a is None:
        return None
    a = np.ascontiguousarray(a)
    return (a.shape, a.dtype.str, a.tobytes())
