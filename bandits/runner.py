"""Front door of the simulations: one function for every algorithm family."""

from __future__ import annotations

import inspect
from collections.abc import Callable

from bandits._exact import correct_set, exact_means
from bandits.gifa import ALGORITHMS, GIFA, RunResult, run_gifa
from rounding._validation import (
    check_budget,
    check_probability,
    check_real,
    check_seed,
)

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

    Raises
    ------
    ValueError
        Naming the argument: unknown algorithm or option, an instance of the wrong kind
        (a linear :class:`~bandits.instances.Instance` for ``"homer"``/``"war"``, a
        :class:`~bandits.logistic.LogisticInstance` or anything else for the others), and
        ``delta``, ``epsilon``, ``seed``, ``max_samples`` of the wrong type or range (a
        float seed or budget is refused, not truncated).
    """
    check_probability(delta, "delta")
    check_real(epsilon, "epsilon", 0.0)
    check_seed(seed)
    check_budget(max_samples)
    logistic = isinstance(algorithm, str) and algorithm in LOGISTIC_ALGORITHMS
    _check_instance(instance, algorithm, logistic)
    if logistic:
        return _run_logistic(algorithm, instance, delta=delta, seed=seed,
                             max_samples=max_samples, **options)
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

            _check_options(run_xy_adaptive, options, algorithm)
            return run_xy_adaptive(instance, delta=delta, seed=seed,
                                   max_samples=max_samples, **options)
        if algorithm == "rage":
            from bandits.phased import run_rage

            _check_options(run_rage, options, algorithm)
            return run_rage(instance, delta=delta, seed=seed, max_samples=max_samples,
                            **options)
        from bandits.static import run_static

        _check_options(run_static, options, algorithm)
        return run_static(algorithm, instance, delta=delta, seed=seed,
                          max_samples=max_samples, **options)
    known = sorted(ALGORITHMS) + list(NAMED_ALGORITHMS)
    raise ValueError(f"unknown algorithm {algorithm!r}; known: {known}")


#: Logistic bandits (bandits.logistic, Mason, Jun & Jain 2022): "homer" runs HOMER for a
#: horizon T (option ``T``, default ``max_samples``); "war" runs the WAR warm-up alone.
LOGISTIC_ALGORITHMS = ("homer", "war")

#: Names that are not GIFA configurations (no ``make_algorithm`` rules apply to them).
NAMED_ALGORITHMS = DESIGN_ALGORITHMS + LOGISTIC_ALGORITHMS


def _run_logistic(algorithm: str, instance, *, delta: float, seed: int, max_samples: int,
                  **options: object) -> RunResult:
    """Dispatch of the logistic algorithms (instance: bandits.logistic.LogisticInstance)."""
    import time

    import numpy as np

    if algorithm == "homer":
        from bandits.logistic.homer import run_homer

        _check_options(run_homer, options, algorithm, extra=("T",))
        T = check_budget(options.pop("T", max_samples), "T")
        return run_homer(instance, T, delta=delta, seed=seed, **options)  # type: ignore[arg-type]
    from bandits.logistic.warmup import run_warmup, war_warmup

    _check_options(war_warmup, options, algorithm)
    t0 = time.perf_counter()
    wu = run_warmup("war", instance, delta=delta, seed=seed, **options)
    mu_exact = exact_means(instance)
    if wu.total + wu.probe_samples > max_samples:
        return _war_cut(instance, delta=delta, seed=seed, max_samples=max_samples, t0=t0,
                        mu_exact=mu_exact, **options)
    rec = np.array([int(np.argmax(instance.X @ wu.theta_hat))])
    return RunResult(algorithm="war", instance=getattr(instance, "name", "logistic"),
                     seed=int(seed), samples=wu.total + wu.probe_samples, recommendation=rec,
                     correct=correct_set(mu_exact, rec, 1, 0.0),
                     counts=wu.counts + wu.info["probe_counts"], stopped_by="rule",
                     wall_time=time.perf_counter() - t0,
                     extra={"warmup": wu, "theta_hat": wu.theta_hat})


def _war_cut(instance, *, delta: float, seed: int, max_samples: int, t0: float, mu_exact,
             **options: object) -> RunResult:
    """A WAR run cut by ``max_samples``: the ask/tell :class:`WarPolicy` fed the outcomes
    the simulation draws (probing: stream 1 in pull order, as ``war_warmup``; planning:
    stream 2 arm by arm, as ``run_warmup``), stopped after ``max_samples`` pulls.  The
    recommendation is ``argmax x^T theta_hat`` for the MLE of every pull made (Appendix F
    fallback; the pulled arm with the best success rate when no MLE exists), an
    uncertified estimate (``stopped_by="budget"``)."""
    import time

    import numpy as np

    from bandits import _rng
    from bandits.logistic.core import mle, mu
    from bandits.logistic.warmup import WarPolicy

    X = instance.X
    p = mu(X @ instance.theta)
    pol = WarPolicy(X, instance.S, delta=delta, seed=seed, **options)  # type: ignore[arg-type]
    probe_state = _rng.make_state(int(seed), 1)
    plan_state = _rng.make_state(int(seed), 2)
    planned: list[list[int]] | None = None
    used = np.zeros(X.shape[0], dtype=np.int64)
    succ = np.zeros(X.shape[0], dtype=np.int64)
    while pol.samples < max_samples and not pol.done:
        a = pol.ask()
        if pol.phase == "probing":
            y = int(_rng.uniform(probe_state) < p[a])
        else:
            if planned is None:
                assert pol.plan is not None
                planned = [[int(_rng.uniform(plan_state) < p[b]) for _ in range(int(n))]
                           for b, n in enumerate(pol.plan.counts)]
            y = planned[a][used[a]]
            used[a] += 1
        succ[a] += y
        pol.tell(a, y)
    counts = pol.counts
    try:
        theta_hat = mle(X, counts, succ).theta
        rec = np.array([int(np.argmax(X @ theta_hat))])
    except ValueError:  # too few pulls for any MLE: best empirical success rate
        theta_hat = None
        rate = np.where(counts > 0, succ / np.maximum(counts, 1), -np.inf)
        rec = np.array([int(np.argmax(rate))])
    return RunResult(algorithm="war", instance=getattr(instance, "name", "logistic"),
                     seed=int(seed), samples=pol.samples, recommendation=rec,
                     correct=correct_set(mu_exact, rec, 1, 0.0), counts=counts,
                     stopped_by="budget", wall_time=time.perf_counter() - t0,
                     extra={"theta_hat": theta_hat})


#: Arguments of the simulation functions that :func:`run` sets itself (not options).
_RUN_ARGUMENTS = ("delta", "epsilon", "seed", "max_samples")


def _check_options(fn: Callable, options: dict, algorithm: str,
                   extra: tuple[str, ...] = ()) -> None:
    """ValueError listing the valid options when ``options`` has a key ``fn`` does not take
    (instead of a TypeError from the call). Functions taking ``**options`` check their own.
    """
    params = inspect.signature(fn).parameters
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return
    valid = sorted([n for n, p in params.items()
                    if p.kind is p.KEYWORD_ONLY and n not in _RUN_ARGUMENTS] + list(extra))
    unknown = sorted(set(options) - set(valid))
    if unknown:
        raise ValueError(f"unknown option(s) {unknown} for {algorithm}; valid options: "
                         f"{', '.join(valid)}")


def _check_instance(instance: object, algorithm: object, logistic: bool) -> None:
    """ValueError naming ``instance`` unless it is of the kind the algorithm simulates."""
    from bandits.instances import Instance
    from bandits.logistic.instances import LogisticInstance

    want = LogisticInstance if logistic else Instance
    if not isinstance(instance, want):
        name = algorithm.name if isinstance(algorithm, GIFA) else algorithm
        hint = ("bandits.logistic.LogisticInstance (e.g. bandits.logistic.sphere())"
                if logistic else "bandits.instances.Instance (e.g. get_instance('soare'))")
        raise ValueError(f"instance: {name!r} needs a {hint}; got "
                         f"{type(instance).__name__}")
