"""Front door of the simulations: one function for every registered algorithm.

:func:`run` looks the name up in :data:`bandits.registry.REGISTRY` and calls the family's
simulation; the names, options (with defaults) and families are listed by
``oed run --help`` and in ``docs/algorithms.md``.
"""

from __future__ import annotations

from typing import Any

from bandits import registry
from bandits._core.result import RunResult

#: Static and phased identification algorithms (bandits.static, bandits.phased).
DESIGN_ALGORITHMS = tuple(registry.names("static") + registry.names("phased"))
#: Logistic bandits (bandits.logistic, Mason, Jun & Jain 2022): "homer" runs HOMER for a
#: horizon T (option ``T``, default ``max_samples``); "war" runs the WAR warm-up alone.
LOGISTIC_ALGORITHMS = tuple(registry.names("logistic"))
#: Top-K subset algorithms (bandits.subsets): DART and its baselines.
SUBSET_ALGORITHMS = tuple(registry.names("subsets"))
#: Names that are not GIFA configurations (no ``make_algorithm`` rules apply to them).
NAMED_ALGORITHMS = DESIGN_ALGORITHMS + LOGISTIC_ALGORITHMS + SUBSET_ALGORITHMS


def run(algorithm: Any, instance: Any, *, delta: float = 0.05, epsilon: float = 0.0,
        seed: int = 0, max_samples: int = 10**7, **options: Any) -> RunResult:
    """Simulate one run of ``algorithm`` on ``instance`` (a jitted loop).

    Parameters
    ----------
    algorithm : str or GIFA
        A registered name (:func:`bandits.registry.names`: the GIFA family ``"lingape"``,
        ``"m-lingape"``, ``"lingifa"``, ``"lucb"``, ``"ugape"``; the static ``"g-static"``,
        ``"xy-static"``, ``"xy-oracle"``; the phased ``"xy-adaptive"``, ``"rage"``; the
        logistic ``"homer"``, ``"war"``; the subset ``"dart"``, ``"dart-anytime"``,
        ``"csar"``, ``"lints"``, ``"lints-unscaled"``, ``"ucb"``) or a
        :class:`bandits.GIFA` configuration.
    instance
        A :class:`bandits.instances.Instance` (linear), a
        :class:`bandits.logistic.LogisticInstance` (``homer``, ``war``) or a
        :class:`bandits.subsets.SubsetEnv` (subset algorithms).
    delta : float
        Confidence level in (0, 1) (the subset algorithms have none: leave the default).
    epsilon : float
        Tolerance: the answer must be in ``{a : mu_a >= mu_(m) - epsilon}`` (GIFA family;
        the others identify exactly, ``epsilon = 0``).
    seed : int
        Seeds both the policy's tie-breaking and the environment's rewards.
    max_samples : int
        Budget; a run that spends it reports ``stopped_by="budget"``. For the
        fixed-horizon algorithms (``homer``, the subset ones) it is the horizon ``T``
        unless the option ``T`` is given (a ``T`` above the budget is cut to it and the run
        reports ``"budget"``).
    **options
        The algorithm's own options (``oed run --help`` and ``docs/algorithms.md`` list
        them with their defaults), e.g. rule overrides ``selection="optimized"``,
        ``threshold="heuristic"`` and ``S`` / ``sigma`` for the GIFA family,
        ``method="rounding"`` for the static ones, ``variant="code"`` for RAGE. An unknown
        option is a ValueError listing the valid ones.

    Returns
    -------
    RunResult
        ``stopped_by`` is one of :data:`bandits.STOP_REASONS`.
    """
    return registry.run(algorithm, instance, delta=delta, epsilon=epsilon, seed=seed,
                        max_samples=max_samples, **options)
