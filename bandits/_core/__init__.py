"""What every bandit family shares (see docs/architecture.md).

* :mod:`bandits._core.result` -- :class:`RunResult` and the closed set of stop reasons.
* :mod:`bandits._core.validate` -- argument checks (matrices through :mod:`design.validation`).
* :mod:`bandits._core.env` -- the simulated environment, one bundled value at the numba
  boundary, and its jitted ``pull``.
* :mod:`bandits._core.rng` -- reproducible splitmix64 streams for jitted code.
* :mod:`bandits._core.lsq` -- the regularised least-squares state with rank-one updates.
* :mod:`bandits._core.protocol` -- the ask/tell protocol base of every policy.

Nothing here imports a family; families import from here.
"""
