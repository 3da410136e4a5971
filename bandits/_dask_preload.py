"""Preload module of the dask workers that :func:`bandits.replicate` starts itself.

dask runs ``dask_setup(worker)`` in each worker process at start-up, in the process's main
thread (the only one allowed to set signal handlers).  Ctrl-C at a terminal sends SIGINT to the
whole foreground process group, the workers included.  A worker used to raise
KeyboardInterrupt in its event loop and log its own teardown ("Batched Comm Closed",
CommClosedError) to the shared terminal before the parent's one line ``oed: interrupted``;
and its nanny restarted it in the middle of the shutdown.  As in the ``processes`` backend
(whose pool initializer does the same), the workers now ignore SIGINT: the parent handles the
interrupt and stops them itself (``bandits.replicate._run_dask``).
"""

from __future__ import annotations

import signal
import threading
from typing import Any


def dask_setup(worker: Any) -> None:
    """Make the worker process ignore SIGINT (its parent handles Ctrl-C)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
