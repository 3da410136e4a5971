"""Front door of the simulations: one function for every algorithm family."""

from __future__ import annotations

from bandits.gifa import ALGORITHMS, GIFA, RunResult, run_gifa


def run(algorithm: str | GIFA, instance, *, delta: float = 0.05, epsilon: float = 0.0,
        seed: int = 0, max_samples: int = 10**7, **options: object) -> RunResult:
    """Simulate one run of ``algorithm`` on ``instance`` (a jitted loop).

    Parameters
    ----------
    algorithm : str or GIFA
        A name (``"lingape"``, ``"m-lingape"``, ``"lingifa"``, ``"lucb"``, ``"ugape"``) or a
        :class:`bandits.GIFA` configuration.
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
    raise ValueError(f"unknown algorithm {algorithm!r}; known: {sorted(ALGORITHMS)}")
