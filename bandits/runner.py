"""Front door of the simulations: one function for every registered algorithm.

:func:`run` looks the name up in :data:`bandits.registry.REGISTRY` and calls the family's
simulation; the names, options (with defaults) and families are listed by
``oed run --help`` and in ``docs/algorithms.md``.
"""

from __future__ import annotations

from bandits import registry

#: Static and phased identification algorithms (bandits.static, bandits.phased).
DESIGN_ALGORITHMS = tuple(registry.names("static") + registry.names("phased"))
#: Logistic bandits (bandits.logistic, Mason, Jun & Jain 2022): "homer" runs HOMER for a
#: horizon T (option ``T``, default ``max_samples``); "war" runs the WAR warm-up alone.
LOGISTIC_ALGORITHMS = tuple(registry.names("logistic"))
#: Top-K subset algorithms (bandits.subsets): DART and its baselines.
SUBSET_ALGORITHMS = tuple(registry.names("subsets"))
#: Names that are not GIFA configurations (no ``make_algorithm`` rules apply to them).
NAMED_ALGORITHMS = DESIGN_ALGORITHMS + LOGISTIC_ALGORITHMS + SUBSET_ALGORITHMS


#: Simulate one run of a registered algorithm: :func:`bandits.registry.run` itself (no
#: extra call on the way to the family's simulation).
run = registry.run
