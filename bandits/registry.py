"""Every bandit algorithm behind one registry: name -> family entry.

An :class:`Entry` says how to simulate the algorithm (``simulate``), how to build its ask/tell
policy (``make_policy``), which options it takes (``options``: name, type, default), its
label, family and paper. :func:`bandits.run`, :func:`bandits.policy`,
:func:`bandits.replicate`, the ``oed`` command line and the algorithm table of the docs
(``docs/algorithms.md``, written by :func:`markdown_table`) all read :data:`REGISTRY`; a new
algorithm is one :func:`register` call (see ``docs/architecture.md``).

Families are imported lazily (``"module:function"`` strings), so ``import bandits`` does not
load every family's jitted code.
"""

from __future__ import annotations

import importlib
import inspect
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from bandits._core.result import RunResult
from rounding.validation import check_budget, check_probability, check_real, check_seed

__all__ = ["COMMON_RUN_ARGS", "Entry", "Option", "REGISTRY", "batch_rule", "entry",
           "markdown_table", "names", "policy", "policy_for", "register", "run"]

#: Arguments every ``run`` takes (they are not algorithm options).
COMMON_RUN_ARGS = ("delta", "epsilon", "seed", "max_samples")


@dataclass(frozen=True)
class Option:
    """One option of an algorithm: its name, type (as written in the signature), default,
    and the allowed values when they form a finite set."""

    name: str
    type: str
    default: Any
    choices: tuple | None = None

    def describe(self) -> str:
        """``name=default`` (with the choices) for help texts and the docs."""
        text = f"{self.name}={self.default!r}"
        if self.choices:
            text += " (" + "|".join(map(str, self.choices)) + ")"
        return text


@dataclass(frozen=True)
class Entry:
    """A registered algorithm.

    Attributes
    ----------
    name : str
        Registry key (``bandits.run(name, ...)``, ``oed run NAME``).
    family : str
        ``"gifa"``, ``"game"``, ``"static"``, ``"phased"``, ``"logistic"`` or ``"subsets"``.
    label : str
        Human-readable name (tables, plots).
    summary : str
        One line: what it identifies, how.
    reference : str
        The paper (author year, where in it).
    simulate : str
        ``"module:function"``, called as ``f(name, instance, *, delta, epsilon, seed,
        max_samples, **options) -> RunResult``.
    make_policy : str
        ``"module:function"``, called as ``f(name, arms, **arguments) -> policy``.
    options : tuple of Option
        The algorithm's own options (on top of :data:`COMMON_RUN_ARGS`).
    policy_args : tuple of str
        Arguments of :func:`policy` besides the options (``m``, ``sigma``, ``S``, ``Z``...).
    instance : str
        What ``run`` takes: ``"linear"`` (:class:`bandits.instances.Instance`),
        ``"logistic"`` (:class:`bandits.logistic.LogisticInstance`) or ``"subset"``
        (:class:`bandits.subsets.SubsetEnv`).
    example : str
        ``"module:function"`` returning a small instance it solves quickly (tests, docs).
    horizon : bool
        Fixed-horizon algorithm: ``max_samples`` is its horizon ``T`` unless the option
        ``T`` is given; a ``T`` larger than ``max_samples`` is cut, reported as a budget stop.
    call : str
        How :func:`run` calls ``simulate``: ``"name"`` -- ``f(name, instance, **kw)``
        (the family's public function takes the name), ``"instance"`` --
        ``f(instance, **kw)`` without ``epsilon`` (one function per algorithm), ``"adapter"``
        -- ``f(name, instance, **kw)`` with every common argument.
    exact : bool
        Best-arm identification with no tolerance: ``run`` refuses ``epsilon != 0`` and
        instances with ``m != 1`` before calling ``simulate``.
    end : str
        How a run that is not cut by a budget or horizon ends (a :data:`STOP_REASONS` key):
        ``"rule"`` (a certified recommendation) for the identification algorithms,
        ``"warm-up"`` for WAR (a delta-valid fit, not a certified arm).
    """

    name: str
    family: str
    label: str
    summary: str
    reference: str
    simulate: str
    make_policy: str
    options: tuple[Option, ...]
    policy_args: tuple[str, ...]
    instance: str = "linear"
    example: str = "bandits.registry:_example_linear"
    horizon: bool = False
    call: str = "adapter"
    exact: bool = False
    extra: dict = field(default_factory=dict)
    end: str = "rule"

    def option_names(self) -> list[str]:
        """Names of the algorithm's options."""
        return [o.name for o in self.options]

    def check_options(self, options: Mapping[str, Any], allowed_extra: tuple[str, ...] = ()
                      ) -> None:
        """One ValueError listing the valid options when any of ``options`` is unknown."""
        valid = sorted({*self.option_names(), *allowed_extra})
        unknown = sorted(set(options) - set(valid))
        if unknown:
            raise ValueError(f"unknown option(s) {unknown} for {self.name!r}; valid options: "
                             f"{', '.join(valid) or '(none)'}")


#: name -> Entry, in the order of the docs' table.
REGISTRY: dict[str, Entry] = {}


def register(e: Entry) -> Entry:
    """Add ``e`` to :data:`REGISTRY` (a name can be registered once)."""
    if e.name in REGISTRY:
        raise ValueError(f"algorithm {e.name!r} is already registered")
    REGISTRY[e.name] = e
    return e


def names(family: str | None = None) -> list[str]:
    """Registered names (of one family)."""
    return [n for n, e in REGISTRY.items() if family is None or e.family == family]


def entry(name: object) -> Entry:
    """The entry of ``name``; ValueError listing the registered names otherwise."""
    if not isinstance(name, str) or name not in REGISTRY:
        raise ValueError(f"unknown algorithm {name!r}; known: {', '.join(REGISTRY)}")
    return REGISTRY[name]


_KINDS = {"linear": ("bandits.instances", "Instance",
                     "bandits.instances.Instance (e.g. get_instance('soare'))"),
          "logistic": ("bandits.logistic.instances", "LogisticInstance",
                       "bandits.logistic.LogisticInstance (e.g. bandits.logistic.sphere())"),
          "subset": ("bandits.subsets.env", "SubsetEnv",
                     "bandits.subsets.SubsetEnv (e.g. SubsetEnv.bernoulli(N=10, K=2))")}


def check_instance_kind(e: Entry, instance: Any, name: str | None = None) -> None:
    """ValueError naming ``instance`` unless it is of the kind ``e`` simulates."""
    module, cls, hint = _KINDS[e.instance]
    if not isinstance(instance, getattr(importlib.import_module(module), cls)):
        raise ValueError(f"instance: {name or e.name!r} needs a {hint}; got "
                         f"{type(instance).__name__}")


def _load(path: str) -> Callable:
    module, _, attr = path.partition(":")
    return getattr(importlib.import_module(module), attr)


# --------------------------------------------------------------------------------------
# front doors
# --------------------------------------------------------------------------------------


def run(algorithm: Any, instance: Any, *, delta: float = 0.05, epsilon: float = 0.0,
        seed: int = 0, max_samples: int = 10**7, **options: Any) -> RunResult:
    """Simulate one run of ``algorithm`` on ``instance`` (a jitted loop).

    Parameters
    ----------
    algorithm : str or GIFA
        A registered name (:func:`bandits.registry.names`: the GIFA family ``"lingape"``,
        ``"m-lingape"``, ``"lingifa"``, ``"lucb"``, ``"ugape"``; the game ``"lingame"``;
        the static ``"g-static"``,
        ``"xy-static"``, ``"xy-oracle"``; the phased ``"xy-adaptive"``, ``"rage"``; the
        logistic ``"homer"``, ``"war"``; the subset ``"dart"``, ``"dart-anytime"``,
        ``"csar"``, ``"lints"``, ``"lints-unscaled"``, ``"ucb"``) or a
        :class:`bandits.GIFA` configuration.
    instance
        A :class:`bandits.instances.Instance` (linear), a
        :class:`bandits.logistic.LogisticInstance` (``homer``, ``war``) or a
        :class:`bandits.subsets.SubsetEnv` (subset algorithms).
    delta : float
        Error probability in (0, 1): a stop by the rule is right with probability at least
        ``1 - delta`` (the subset algorithms have none: leave the default).
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
    if not isinstance(algorithm, str):
        from bandits.gifa import GIFA, run_gifa

        if isinstance(algorithm, GIFA):
            check_instance_kind(entry("m-lingape"), instance, algorithm.name)
            return run_gifa(algorithm, instance, delta=delta, epsilon=epsilon, seed=seed,
                            max_samples=max_samples, **options)
    e = entry(algorithm)
    e.check_options(options)
    check_probability(delta, "delta")
    check_real(epsilon, "epsilon", 0.0)
    check_seed(seed)
    check_budget(max_samples)
    check_instance_kind(e, instance)
    if e.exact:
        _best_arm_only(e.name, instance, epsilon)
    simulate = _load(e.simulate)
    if e.call == "instance":
        return simulate(instance, delta=delta, seed=seed, max_samples=max_samples, **options)
    if e.call == "name" and e.exact:
        return simulate(e.name, instance, delta=delta, seed=seed, max_samples=max_samples,
                        **options)
    return simulate(e.name, instance, delta=delta, epsilon=epsilon, seed=seed,
                    max_samples=max_samples, **options)


def policy(name: str, arms: Any, **arguments: Any) -> Any:
    """An ask/tell policy of any registered algorithm, for a real experiment.

    Parameters
    ----------
    name : str
        A registered name (:func:`names`).
    arms : array_like, shape (K, d)
        The candidate arms, one per row.
    **arguments
        ``delta``, ``seed``, ``max_samples``, the entry's ``policy_args`` (``m``,
        ``epsilon``, ``sigma``, ``S``, ``Z``, ``theta``... as apply) and its options.
        Anything else is refused with a ValueError listing the valid names.

    Returns
    -------
    AskTellProtocol
        ``ask()`` / ``tell(arm, reward)`` / ``done`` / ``stopped_by`` / ``recommendation``.
    """
    e = entry(name)
    e.check_options(arguments, allowed_extra=e.policy_args)
    pol = _load(e.make_policy)(e.name, arms, **arguments)
    if hasattr(pol, "save"):  # what policy.save() records to rebuild it
        if hasattr(pol, "_saved_build"):  # e.g. a subset policy: N and K, not an env
            saved, args = pol._saved_build(arms, dict(arguments))
        else:
            saved, args = np.array(arms, dtype=np.float64), dict(arguments)
        # defaults the policy resolved (e.g. a static allocation rule), recorded so that a
        # saved state replays the same rule even if a later version changes the default
        args = {**getattr(pol, "resolved_options", {}), **args}
        pol._config = {"algorithm": e.name, "arms": saved, "arguments": args}
    return pol


def policy_for(name: str, instance: Any, *, delta: float = 0.05, epsilon: float = 0.0,
               seed: int = 0, max_samples: int | None = None, **options: Any) -> Any:
    """The ask/tell policy that :func:`run` drives in simulation with the same arguments
    (arms, noise level and bounds taken from ``instance``): fed the rewards of
    :func:`bandits.reward_oracle` it reproduces the simulated trajectory."""
    e = entry(name)
    e.check_options(options)
    make = _load(e.extra.get("policy_for", "bandits.registry:_linear_policy_for"))
    return make(e, instance, delta=delta, epsilon=epsilon, seed=seed,
                max_samples=max_samples, **options)


# --------------------------------------------------------------------------------------
# option schemas
# --------------------------------------------------------------------------------------


def _signature_options(func: Callable, skip: tuple[str, ...],
                       choices: Mapping[str, tuple] | None = None) -> tuple[Option, ...]:
    """Keyword options of ``func`` (name, annotation, default), minus ``skip``."""
    out = []
    for p in inspect.signature(func).parameters.values():
        if p.kind not in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD) or p.name in skip:
            continue
        default = None if p.default is inspect.Parameter.empty else p.default
        ann = p.annotation if isinstance(p.annotation, str) else getattr(
            p.annotation, "__name__", str(p.annotation))
        out.append(Option(p.name, ann, default, (choices or {}).get(p.name)))
    return tuple(out)


def _gifa_options(name: str) -> tuple[Option, ...]:
    from bandits.gifa import ALGORITHMS, GIFA, RULE_CHOICES

    base = ALGORITHMS[name]
    opts = []
    for f in fields(GIFA):
        opts.append(Option(f.name, str(f.type), getattr(base, f.name),
                           tuple(RULE_CHOICES[f.name]) if f.name in RULE_CHOICES else None))
    opts.append(Option("S", "float | None", None))
    opts.append(Option("sigma", "float | None", None))
    return tuple(opts)


def _dict_options(defaults: Mapping[str, Any], annotated: Callable) -> tuple[Option, ...]:
    ann = {p.name: p.annotation for p in inspect.signature(annotated).parameters.values()}
    return tuple(Option(k, str(ann.get(k, type(v).__name__)), v) for k, v in defaults.items())


# --------------------------------------------------------------------------------------
# family adapters: simulate and make_policy
# --------------------------------------------------------------------------------------


def _example_linear() -> Any:
    from bandits.instances import soare

    return soare(d=3, omega=0.3)


def _example_logistic() -> Any:
    from bandits.logistic import LogisticInstance

    X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    return LogisticInstance(X=X, theta=np.array([2.0, 0.0]), name="easy-logistic")


def _example_subset() -> Any:
    from bandits.subsets import SubsetEnv

    return SubsetEnv.bernoulli(K=2, means=[0.9, 0.8, 0.3, 0.2, 0.1, 0.05], seed=0,
                               name="easy-subset")


def _best_arm_only(name: str, instance: Any, epsilon: float) -> None:
    if epsilon != 0.0:
        raise ValueError(f"epsilon: {name} identifies the best arm exactly (epsilon must be 0)")
    if getattr(instance, "m", 1) != 1:
        raise ValueError(f"instance: {name} is a best-arm (m = 1) algorithm; got m={instance.m}")


def _horizon(name: str, max_samples: int, options: dict) -> tuple[int, bool]:
    """``(T, cut)``: the horizon to run and whether the budget cut the requested one."""
    T = options.pop("T", None)
    if T is None:
        return int(max_samples), False
    T = check_budget(T, "T")
    return min(T, int(max_samples)), T > int(max_samples)


def _budget_cut(res: RunResult, cut: bool) -> RunResult:
    """A run whose requested horizon ``T`` was cut to ``max_samples`` stopped by the budget
    (whatever it did within the shorter horizon, kept in ``extra["stop_within_budget"]``)."""
    from dataclasses import replace

    if cut:
        return replace(res, stopped_by="budget",
                       extra={**res.extra, "stop_within_budget": res.stopped_by})
    return res


def _sim_homer(name: str, instance: Any, *, epsilon: float, max_samples: int,
               **options: Any) -> RunResult:
    from bandits.logistic.homer import run_homer

    if epsilon != 0.0:
        raise ValueError("epsilon: HOMER does not take a tolerance (epsilon must be 0)")
    T, cut = _horizon(name, max_samples, options)
    return _budget_cut(run_homer(instance, T, **options), cut)


def _sim_subset(name: str, instance: Any, *, epsilon: float, delta: float, seed: int,
                max_samples: int, **options: Any) -> RunResult:
    from bandits.subsets import SubsetEnv, run_subset

    if not isinstance(instance, SubsetEnv):
        raise ValueError(f"instance: {name} runs on a bandits.subsets.SubsetEnv; got "
                         f"{type(instance).__name__}")
    if epsilon != 0.0:
        raise ValueError(f"epsilon: {name} is a regret algorithm (epsilon must be 0)")
    if delta != 0.05:
        raise ValueError(f"delta: {name} is a regret algorithm with no confidence level; "
                         "leave delta at its default")
    T, cut = _horizon(name, max_samples, options)
    t0 = time.perf_counter()
    res = run_subset(name, instance, T, seed=seed, **options)
    counts = res.info["plays"]
    out = RunResult(
        algorithm=name, instance=getattr(instance, "name", None) or "subset", seed=int(seed),
        samples=int(T), recommendation=np.asarray(res.chosen, dtype=np.int64),
        correct=bool(res.correct),
        counts=np.asarray(counts, dtype=np.int64),
        stopped_by=res.stopped_by, wall_time=time.perf_counter() - t0,
        extra={"times": res.times, "regret": res.regret, "final_regret": res.final_regret,
               "explore_steps": res.explore_steps, "info": res.info, "subset_result": res})
    return _budget_cut(out, cut)


def _policy_gifa(name: str, arms: Any, **kw: Any) -> Any:
    from bandits.gifa import Policy

    return Policy(name, arms, **kw)


def _policy_game(name: str, arms: Any, **kw: Any) -> Any:
    from bandits.game import GamePolicy

    return GamePolicy(arms, **kw)


def _drop_simulation(kw: dict) -> None:
    """An ask/tell policy steps per sample whatever the simulation mode of ``run``: the
    option is checked and dropped (``policy_for`` builds the policy ``run`` simulates)."""
    from bandits._core.validate import check_simulation

    if "simulation" in kw:
        check_simulation(kw.pop("simulation"))


def _policy_static(name: str, arms: Any, **kw: Any) -> Any:
    from bandits.static import StaticPolicy

    _drop_simulation(kw)
    return StaticPolicy(name, arms, **kw)


def _policy_phased(name: str, arms: Any, **kw: Any) -> Any:
    from bandits.phased import AdaptivePolicy, RagePolicy

    _drop_simulation(kw)
    if name == "rage":
        kw.pop("seed", None)  # RAGE's allocation is deterministic: no random stream
        return RagePolicy(arms, **kw)
    return AdaptivePolicy(arms, **kw)


def _policy_homer(name: str, arms: Any, **kw: Any) -> Any:
    """HOMER's policy: its horizon is ``T`` (or ``max_samples``, as :func:`run`, the
    smaller of the two if both are given); simulation-only options are dropped."""
    from bandits.logistic.homer import HomerPolicy

    T, cap = kw.pop("T", None), kw.pop("max_samples", None)
    for key in ("simulation", "n_points"):
        kw.pop(key, None)
    horizon = [v for v in (T, cap) if v is not None]
    return HomerPolicy(arms, T=min(horizon) if horizon else None, **kw)


def _policy_war(name: str, arms: Any, **kw: Any) -> Any:
    from bandits.logistic.warmup import WarPolicy

    kw.pop("simulation", None)
    return WarPolicy(arms, **kw)


def _policy_subset(name: str, arms: Any, **kw: Any) -> Any:
    from bandits.subsets.policy import make_subset_policy

    return make_subset_policy(name, arms, **kw)


def _linear_policy_for(e: Entry, instance: Any, *, delta: float, epsilon: float, seed: int,
                       max_samples: int | None, **options: Any) -> Any:
    """Policy arguments of a linear instance, the way the family's ``run`` uses them."""
    sigma = options.pop("sigma", None)
    sigma = float(instance.sigma if sigma is None else sigma)
    args: dict[str, Any] = {"delta": delta, "seed": seed, "max_samples": max_samples,
                            "sigma": sigma}
    if e.family in ("gifa", "game"):  # S: a bound on ||theta||, the instance's by default
        S = options.pop("S", None)
        if S is None and getattr(instance, "theta", None) is not None:
            S = float(np.linalg.norm(instance.theta))
        args["S"] = S
    if e.family == "gifa":
        args.update(m=instance.m, epsilon=epsilon)
        arms = instance.X
    else:
        _best_arm_only(e.name, instance, epsilon)
        arms = instance.X
        if getattr(instance, "Z", None) is not None:
            args["Z"] = instance.Z
        if e.name == "xy-oracle":
            args["theta"] = instance.theta
    return policy(e.name, arms, **args, **options)


# --------------------------------------------------------------------------------------
# the entries
# --------------------------------------------------------------------------------------

_GIFA_ROWS = (
    ("lingape", "LinGapE", "best arm (m = 1), gap-based, greedy selection",
     "Xu, Honda & Sugiyama 2018 (AISTATS), Algorithm 1"),
    ("m-lingape", "m-LinGapE", "top-m, gap-based, greedy selection",
     "Réda, Kaufmann & Delahaye-Duriez 2021 (AISTATS), Table 1"),
    ("lingifa", "LinGIFA", "top-m, UGapE-style J_t and GIFA b_t, largest-variance selection",
     "Réda, Kaufmann & Delahaye-Duriez 2021 (AISTATS), Table 1"),
    ("lucb", "LUCB", "top-m, unstructured (features I_K), individual indices",
     "Kalyanakrishnan et al. 2012 (ICML), as in Réda et al. 2021"),
    ("ugape", "UGapE", "top-m, unstructured, UGapE indices",
     "Gabillon, Ghavamzadeh & Lazaric 2012 (NeurIPS), as in Réda et al. 2021"),
)
_GIFA_POLICY_ARGS = ("m", "delta", "epsilon", "sigma", "S", "seed", "max_samples")
_LINEAR_POLICY_ARGS = ("Z", "delta", "sigma", "seed", "max_samples")


def _init_args(cls: type) -> tuple[str, ...]:
    """Keyword arguments of a policy class (but the arms)."""
    return tuple(n for n in inspect.signature(cls).parameters if n != "X")


def _register_builtin() -> None:
    from bandits._core.validate import SIMULATIONS
    from bandits.gifa import ALGORITHMS
    from bandits.phased import RAGE_DEFAULTS, XY_ADAPTIVE_DEFAULTS, AdaptiveEngine, RageEngine
    from bandits.static import INITS, METHODS, run_static

    for name, label, summary, ref in _GIFA_ROWS:
        assert name in ALGORITHMS
        register(Entry(name, "gifa", label, summary, ref, "bandits.gifa:run_gifa",
                       "bandits.registry:_policy_gifa", _gifa_options(name),
                       _GIFA_POLICY_ARGS, call="name"))
    from bandits.game import BONUSES, THRESHOLDS, GamePolicy, run_lingame

    register(Entry("lingame", "game", "LinGame",
                   "best arm (m = 1), a game: AdaHedge per candidate answer against Nature's "
                   "closest alternative, D-tracking, GLR stopping (theoretical or "
                   "heuristic threshold)",
                   "Degenne, Ménard, Shang & Valko 2020 (ICML), as run by Réda et al. 2021",
                   "bandits.game:run_lingame", "bandits.registry:_policy_game",
                   _signature_options(run_lingame, skip=("name", "instance", *COMMON_RUN_ARGS),
                                      choices={"bonus": tuple(BONUSES),
                                               "threshold": THRESHOLDS}),
                   _init_args(GamePolicy), call="name", exact=True))
    static_opts = _signature_options(
        run_static, skip=("algorithm", "instance", *COMMON_RUN_ARGS),
        choices={"method": METHODS, "init": INITS, "simulation": SIMULATIONS})
    for name, label, summary in (
            ("g-static", "G-static", "best arm, static G-optimal allocation"),
            ("xy-static", "XY-static", "best arm, static XY-optimal allocation"),
            ("xy-oracle", "XY-oracle", "best arm, static oracle allocation (knows theta)")):
        register(Entry(name, "static", label, summary,
                       "Soare, Lazaric & Munos 2014 (NeurIPS), §3-4",
                       "bandits.static:run_static", "bandits.registry:_policy_static",
                       static_opts, _LINEAR_POLICY_ARGS + (("theta",) if name == "xy-oracle"
                                                           else ()), call="name", exact=True))
    for name, label, summary, ref, fn, defaults, engine in (
            ("xy-adaptive", "XY-adaptive",
             "best arm, phases of XY-optimal allocations on the active set",
             "Soare, Lazaric & Munos 2014 (NeurIPS), Fig. 3", "run_xy_adaptive",
             XY_ADAPTIVE_DEFAULTS, AdaptiveEngine),
            ("rage", "RAGE",
             "best arm (transductive), rounds of XY-optimal designs with elimination",
             "Fiez, Jain, Jamieson & Ratliff 2019 (NeurIPS), Algorithm 1", "run_rage",
             RAGE_DEFAULTS, RageEngine)):
        register(Entry(name, "phased", label, summary, ref, f"bandits.phased:{fn}",
                       "bandits.registry:_policy_phased",
                       _dict_options(defaults, engine.__init__)
                       + (Option("sigma", "float | None", None),)
                       + (Option("simulation", "str", "sufficient", SIMULATIONS),),
                       _LINEAR_POLICY_ARGS,
                       call="instance", exact=True))
    from bandits.logistic.homer import HomerPolicy, run_homer
    from bandits.logistic.warmup import WarPolicy, run_war, war_warmup

    register(Entry("homer", "logistic", "HOMER",
                   "logistic best arm / regret, H-optimal phases after a warm-up",
                   "Mason, Jun & Jain 2022 (AAAI), Algorithm 1",
                   "bandits.registry:_sim_homer", "bandits.registry:_policy_homer",
                   (Option("T", "int | None", None),)
                   + _signature_options(run_homer, skip=("instance", "T", "seed", "delta"),
                                        choices={"simulation": SIMULATIONS}),
                   _init_args(HomerPolicy),
                   instance="logistic", example="bandits.registry:_example_logistic",
                   horizon=True,
                   extra={"policy_for": "bandits.registry:_logistic_policy_for"}))
    register(Entry("war", "logistic", "WAR",
                   "logistic warm-up: probing, then a planned G-type allocation",
                   "Mason, Jun & Jain 2022 (AAAI), Algorithm 2",
                   "bandits.logistic.warmup:run_war", "bandits.registry:_policy_war",
                   _signature_options(war_warmup, skip=("X", "S", "theta", "delta", "seed"),
                                      choices={"pessimistic": ("exact", "relaxed")})
                   + _signature_options(run_war, skip=("instance", "delta", "seed",
                                                       "max_samples", "options"),
                                        choices={"simulation": SIMULATIONS}),
                   _init_args(WarPolicy),
                   instance="logistic", example="bandits.registry:_example_logistic",
                   call="instance",
                   extra={"policy_for": "bandits.registry:_logistic_policy_for"},
                   end="warm-up"))
    from bandits.subsets import algorithms as sub

    for name, label, summary, ref in (
            ("dart", "DART", "best K-subset, accept/reject on joint rewards",
             "Agarwal, Aggarwal, Quinn & Umrawal, Algorithms 1-2"),
            ("dart-anytime", "DART (anytime)", "DART restarted by the doubling trick",
             "Agarwal et al., Appendix G"),
            ("csar", "CSAR", "best K-subset, successive accept/reject on a Hadamard design",
             "Rejwan & Mansour 2020 (COLT)"),
            ("lints", "LinTS", "linear Thompson sampling on subset indicators",
             "Agrawal & Goyal 2013 (ICML)"),
            ("lints-unscaled", "LinTS (unscaled)", "LinTS without the sqrt(d) scaling",
             "Agrawal & Goyal 2013 (ICML)"),
            ("ucb", "improved UCB", "improved UCB over all C(N, K) subsets",
             "Auer & Ortner 2010")):
        fn = sub.lints if name.startswith("lints") else sub.ALGORITHMS[name]
        register(Entry(name, "subsets", label, summary, ref, "bandits.registry:_sim_subset",
                       "bandits.registry:_policy_subset",
                       (Option("T", "int | None", None),)
                       + _signature_options(fn, skip=("env", "T", "seed", "scaled")),
                       ("seed", "T", "K"), instance="subset",
                       example="bandits.registry:_example_subset", horizon=True,
                       extra={"policy_for": "bandits.registry:_subset_policy_for"}))


def _logistic_policy_for(e: Entry, instance: Any, *, delta: float, epsilon: float, seed: int,
                         max_samples: int | None, **options: Any) -> Any:
    options.pop("n_points", None)
    options.pop("simulation", None)
    if e.name == "homer":
        T = options.pop("T", None)
        options["T"] = T if T is not None else max_samples
    elif max_samples is not None:
        options["max_samples"] = max_samples
    return policy(e.name, instance.X, S=instance.S, delta=delta, seed=seed, **options)


def _subset_policy_for(e: Entry, instance: Any, *, delta: float, epsilon: float, seed: int,
                       max_samples: int | None, **options: Any) -> Any:
    T = options.pop("T", None) or max_samples
    return policy(e.name, instance, seed=seed, T=T, **options)


#: How each family's ask/tell policy fills ``ask(n)`` and uses ``observe`` (the table of
#: the docs; ``docs/choices.md``, "Batches..." and "Batches of the subset algorithms").
_BATCH_RULES = {
    "gifa": "look-ahead on hallucinated rewards; observe: into the estimate and the rule",
    "game": "look-ahead on hallucinated rewards; observe: into the estimate and the rule",
    "static": "next pulls of the allocation; observe: into the estimate and the rule",
    "phased": "next pulls of the phase, then look-ahead; observe: joins the current phase",
    "subsets": "next steps of its schedule (the sequential decisions); observe: only the "
               "schedule's next subsets",
    "logistic": "next pulls of the current design (WAR: probes over the undecided arms); "
                "observe: fills the current design, enters its MLE",
}
_BATCH_RULE_OVERRIDES = {
    "ucb": "next plays of the round (the sequential decisions); observe: per-subset samples",
    "lints": "Thompson draws from the hallucinated posterior; observe: Bayesian update",
    "lints-unscaled": "Thompson draws from the hallucinated posterior; observe: Bayesian "
                      "update",
}


def batch_rule(name: str) -> str:
    """How ``ask(n)`` and ``observe`` work for the algorithm ``name`` (one line)."""
    e = entry(name)
    return _BATCH_RULE_OVERRIDES.get(e.name, _BATCH_RULES[e.family])


def markdown_table() -> str:
    """The algorithm table of the docs (``docs/algorithms.md``), generated from the registry."""
    lines = ["| name | family | what it does | paper | batches `ask(n)`, warm start `observe` "
             "| options (defaults) |",
             "| --- | --- | --- | --- | --- | --- |"]
    for e in REGISTRY.values():
        opts = ", ".join(f"`{o.describe()}`" for o in e.options)
        lines.append(f"| `{e.name}` | {e.family} | {e.summary} | {e.reference} | "
                     f"{batch_rule(e.name)} | {opts} |")
    return "\n".join(lines)


_register_builtin()


if __name__ == "__main__":  # python -m bandits.registry: the docs' table
    print(markdown_table())
