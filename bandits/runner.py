"""Front door of the simulations: one function for every algorithm family."""

from __future__ import annotations

from bandits.gifa import ALGORITHMS, GIFA, RunResult, run_gifa

#: Static and phased identification algorithms (bandits.static, bandits.phased).
DESIGN_ALGORITHMS = ("g-static", "xy-static", "xy-oracle", "xy-adaptive", "rage")


def run(algorithm: str | GIFA, instance, *, delta: float = 0.05, epsilon: float = 0.0,
        seed: int = 0, max_samples: int = 10**7, **options: object) -> RunResult:
    """Simulate one run of ``algorithm`` on ``instance`` (a jitted loop).

    Parameters
    ----------
    algorithm : str or GIFA
        A name (``"lingape"``, ``"m-lingape"``, ``"lingifa"``, ``"lucb"``, ``"ugape"``), a
        :class:`bandits.GIFA` configuration, or one of the static/phased algorithms
        ``"g-static"``, ``"xy-static"``, ``"xy-oracle"`` (:func:`bandits.static.run_static`),
        ``"xy-adaptive"``, ``"rage"`` (:mod:`bandits.phased`), whose options are passed on.
    instance : bandits.instances.Instance
        Arms, true parameter (or reward table), noise level and ``m``.
    delta : float
        Confidence level in (0, 1).
    epsilon : float
        Tolerance: the answer must be in ``{a : mu_a >= mu_(m) - epsilon}``.
    seed : int
        Seeds both the policy's tie-breaking and the environment's rewards.
    max_samples : int
        Budget; a run that spends it reports ``stopped_by="budget"``.
    **options
        Rule overrides (``selection="optimized"``, ``indices="individual"``,
        ``stopping="ugape"``, ``threshold="heuristic"``, ``reg=...``, ``init=...``) and
        ``S`` (bound on ``||theta||``, default the instance's) or ``sigma`` (the algorithm's
        noise level, default the instance's).

    Returns
    -------
    RunResult
    """
    if isinstance(algorithm, GIFA) or algorithm in ALGORITHMS:
        return run_gifa(algorithm, instance, delta=delta, epsilon=epsilon, seed=seed,
                        max_samples=max_samples, **options)
    if isinstance(algorithm, str) and algorithm in DESIGN_ALGORITHMS:
        if epsilon != 0.0:
            raise ValueError(f"epsilon: {algorithm} identifies the best arm exactly "
                             "(epsilon must be 0)")
        if getattr(instance, "m", 1) != 1:
            raise ValueError(f"instance: {algorithm} is a best-arm (m = 1) algorithm; "
                             f"got m={instance.m}")
        if algorithm == "xy-adaptive":
            from bandits.phased import run_xy_adaptive

            return run_xy_adaptive(instance, delta=delta, seed=seed,
                                   max_samples=max_samples, **options)
        if algorithm == "rage":
            from bandits.phased import run_rage

            return run_rage(instance, delta=delta, seed=seed, max_samples=max_samples,
                            **options)
        from bandits.static import run_static

        return run_static(algorithm, instance, delta=delta, seed=seed,
                          max_samples=max_samples, **options)
    raise ValueError(f"unknown algorithm {algorithm!r}; known: "
                     f"{sorted(ALGORITHMS) + list(DESIGN_ALGORITHMS)}")
