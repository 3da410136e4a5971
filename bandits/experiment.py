"""A lab experiment from the shell: a state file that ``oed experiment`` reads and rewrites.

``new`` builds a policy (:func:`bandits.policy`) on a candidate file with IDs
(:func:`bandits.io.load_candidates`) and saves it; ``ask`` adds a batch of asks, ``tell``
takes results by ID (in any order, partially), ``observe`` takes historical measurements,
``status`` reports the current best set, whether the stopping rule holds and an estimate
of the samples still needed, ``plan`` predicts the budget before starting. Every call
reads the state file and rewrites it atomically (:func:`bandits._core.state.save_policy`:
a temporary file and ``os.replace``), so an interrupted call loses nothing.
"""

from __future__ import annotations

import csv
import warnings
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from bandits._core.model_check import ModelCheck, ModelCheckWarning
from bandits._core.state import load_policy, read_state, save_policy
from bandits.io import load_candidates


def candidate_model(arms: str | Path, *, id_column: str | None = None,
                    columns: list[str] | str | None = None, model: str | int | None = None,
                    intercept: bool | str = "auto", code: bool = False,
                    categorical: list[str] | str | None = None,
                    contrasts: str | None = None) -> tuple[Any, Any]:
    """``(candidates, regressors)`` of an experiment: the candidate file and the linear
    model ``mu = X theta`` fitted to the rewards (:func:`design.regressors`).

    A file of IDs only (the variants of an A/B/n test) gives one-hot features: each arm
    its own mean (unstructured), no model options.

    ``intercept="auto"`` (the default) adds a constant column exactly when the constant is
    not in the span of the features: measured responses have a baseline (a control's
    response, a conversion rate), and without an intercept the least-squares fit would
    force the response of the all-zero candidate to 0, bias every effect, and certify a
    wrong set. With one-hot features (or any that span the constant) nothing is added.

    A column named in ``categorical``, or a column of text (a catalyst, a supplier) among
    the ``columns`` given, is a categorical factor in treatment coding
    (:func:`design.regressors`).
    """
    from bandits.design_cli import categorical_request, model_regressors

    cand = load_candidates(arms, id_column=id_column, columns=columns,
                           allow_no_features=True,
                           **categorical_request(categorical, columns))
    if cand.X.shape[1] == 0:
        return cand, _one_hot(cand, model, intercept, code)
    return cand, model_regressors(cand.factors(), model, intercept, list(cand.columns),
                                  code=code, categorical=cand.categorical,
                                  contrasts=contrasts)


def _one_hot(cand: Any, model: str | int | None, intercept: bool | str, code: bool) -> Any:
    """A file of IDs only (an A/B/n test): one-hot features, each arm its own mean."""
    import design

    if model is not None or code or intercept is True:
        raise ValueError("--model/--intercept/--coded: the arms file has IDs only (no "
                         "feature column): each arm is its own mean, there is no model to "
                         "choose")
    K = len(cand.ids)
    return design.Regressors(np.eye(K), list(cand.ids), False,
                             f"one-hot: each of the {K} arms its own mean (the arms file "
                             "has IDs only)")


def _model_record(reg: Any, model: str | int | None) -> dict:
    return {"model": model, "intercept": reg.intercept, "terms": list(reg.terms),
            "description": reg.description}


def new_experiment(state: str | Path, arms: str | Path, *, algorithm: str = "m-lingape",
                   id_column: str | None = None, columns: list[str] | str | None = None,
                   m: int = 1, delta: float = 0.05, sigma: float = 1.0,
                   S: float | None = None, threshold: str | None = None, seed: int = 0,
                   max_samples: int | None = None, force: bool = False,
                   model: str | int | None = None, intercept: bool | str = "auto",
                   code: bool = False, categorical: list[str] | str | None = None,
                   contrasts: str | None = None) -> Any:
    """Create the state file of a new experiment; returns the policy.

    The arms are the regressors of :func:`candidate_model` (``model``, ``intercept``: by
    default the features plus an intercept unless they already span the constant); the
    state records the model (``oed experiment status`` prints it). ``S`` bounds the norm
    of the whole parameter, intercept included.
    """
    from bandits.registry import entry, policy

    p = Path(state)
    if p.exists() and not force:
        raise ValueError(f"--state: {str(p)!r} exists; pass --force to start over")
    cand, reg = candidate_model(arms, id_column=id_column, columns=columns, model=model,
                                intercept=intercept, code=code,
                                categorical=categorical, contrasts=contrasts)
    e = entry(algorithm)
    if e.instance != "linear":
        raise ValueError(f"--algorithm: {algorithm!r} is not a linear identification "
                         "algorithm; choose one of the GIFA family, LinGame, or the static or "
                         "phased family")
    args: dict[str, Any] = {"delta": delta, "sigma": sigma, "seed": seed}
    if max_samples is not None:
        args["max_samples"] = max_samples
    if "m" in e.policy_args:
        args["m"] = m
    elif m != 1:
        raise ValueError(f"--m: {algorithm} identifies the best arm only (m = 1); use "
                         "m-lingape or lingifa for a top-m set")
    if S is not None:
        args["S"] = S
    if threshold is not None:
        args["threshold"] = threshold
    pol = policy(algorithm, reg.X, **args)
    pol.ids = list(cand.ids)
    save_policy(pol, p, {"arms_file": str(arms), "id_column": id_column,
                         "columns": cand.columns, "categorical": cand.categorical, "m": m,
                         "model": _model_record(reg, model)})
    return pol


class _Loaded(NamedTuple):
    """An experiment read from its state file once."""

    pol: Any
    extra: dict
    """The experiment's own record (candidate file, m, model)."""
    algorithm: str
    heuristic: bool
    """The stopping rule uses the heuristic threshold (no proof of ``P(wrong set) <=
    delta``): a stop is then not called certified."""


def _load(state: str | Path) -> _Loaded:
    record = read_state(state)
    return _Loaded(load_policy(state), record.get("experiment", {}), record["algorithm"],
                   record.get("arguments", {}).get("threshold") == "heuristic")


def ask(state: str | Path, n: int) -> list[str]:
    """Ask a batch of ``n`` arms; returns their IDs (the state file records them)."""
    pol, extra, _, heuristic = _load(state)
    if pol.done:
        _stopped(pol, state, heuristic, pol.model_check())
    arms = pol.ask(n)
    save_policy(pol, state, extra)
    return [pol.ids[a] for a in arms]


def stop_phrase(stopped_by: str, heuristic: bool, rejected: bool = False
                ) -> tuple[str, str]:
    """``(how, label)`` of a stopped experiment: how it ended, and what its set is called.
    A rule stop is "certified" only under a proven threshold, and never when the
    measurements reject the model the rule assumes (``rejected``: the model check)."""
    if stopped_by != "rule":
        return f"the run ended by its {stopped_by}, not certified", "best so far"
    if rejected:
        return ("the stopping rule holds, but the measurements reject the model it "
                "assumes: the set is NOT certified", "recommended (not certified)")
    if heuristic:
        return ("the stopping rule holds with the heuristic threshold: no proof that "
                "P(wrong set) <= delta", "recommended")
    return "the stopping rule holds: the set is certified", "recommended"


def _stopped(pol: Any, state: str | Path, heuristic: bool, check: ModelCheck) -> None:
    """The ValueError of an ask or tell on an experiment that has ended."""
    best = [] if pol.recommendation is None else [pol.ids[a] for a in sorted(pol.recommendation)]
    how, label = stop_phrase(pol.stopped_by, heuristic, check.rejected)
    raise ValueError(f"state {str(state)!r}: the experiment has stopped ({how}); "
                     f"{label}: {', '.join(best) or 'none'}; nothing more to measure "
                     "(`oed experiment status` shows it)")


def _sheet_rows(path: str | Path, columns: tuple[str, ...]) -> list[dict]:
    """The rows of a results CSV/TSV (a sheet written by ``ask``), which must have
    ``columns``."""
    from bandits.io import DELIMITERS

    p = Path(path)
    if not p.is_file():
        raise ValueError(f"results file {str(p)!r} does not exist")
    delimiter = DELIMITERS.get(p.suffix.lower())
    if delimiter is None:
        raise ValueError(f"results file {str(p)!r}: use a .csv or .tsv file")
    with p.open(newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter=delimiter))
    for row in rows:
        if any(c not in row for c in columns):
            raise ValueError(f"results file {str(p)!r} needs columns "
                             f"{', '.join(map(repr, columns))}; has {list(row)}")
    return rows


def read_results(path: str | Path, id_column: str = "id",
                 reward_column: str = "reward") -> tuple[list[str], list[float]]:
    """``(ids, rewards)`` from a results CSV/TSV; rows with an empty reward are skipped
    (results not in yet)."""
    ids, rewards = [], []
    for i, row in enumerate(_sheet_rows(path, (id_column, reward_column))):
        text = (row[reward_column] or "").strip()
        if not text:
            continue
        try:
            r = float(text)
        except ValueError:
            raise ValueError(f"results file {str(path)!r}, row {i + 1}: reward {text!r} is "
                             "not a number") from None
        ids.append(row[id_column].strip())
        rewards.append(r)
    return ids, rewards


def read_ids(path: str | Path, id_column: str = "id",
             reward_column: str = "reward") -> list[str]:
    """The IDs of a sheet of lost measurements (``oed experiment cancel``). A row with a
    reward is refused: that result is in, tell it instead of losing it."""
    ids = []
    for i, row in enumerate(_sheet_rows(path, (id_column,))):
        if (row.get(reward_column) or "").strip():
            raise ValueError(f"results file {str(path)!r}, row {i + 1}: {row[id_column]!r} "
                             "has a reward; tell it (oed experiment tell) instead of "
                             "cancelling it")
        ids.append(row[id_column].strip())
    return ids


def _indices(pol: Any, ids: list[str], where: str) -> list[int]:
    lookup = {n: i for i, n in enumerate(pol.ids)}
    unknown = sorted({n for n in ids if n not in lookup})
    if unknown:
        raise ValueError(f"{where}: unknown ID(s) {unknown[:10]} (not in the candidate file)")
    return [lookup[n] for n in ids]


def cancel(state: str | Path, ids: list[str] | None = None) -> list[str]:
    """Withdraw outstanding measurements whose results are lost (``ids``, or all of them
    when None; :meth:`bandits._core.protocol.AskTellProtocol.cancel`): nothing is learnt
    from them, and the ones the algorithm had planned are asked again. Returns the IDs
    withdrawn."""
    pol, extra, _, _ = _load(state)
    arms = None if ids is None else _indices(pol, ids, "cancel")
    if arms is not None:  # checked by ID here (the policy's message names row numbers)
        left = Counter(pol.outstanding)
        for name, a in zip(ids, arms, strict=True):
            if left[a] == 0:
                out = ", ".join(pol.ids[b] for b in pol.outstanding) or "none"
                raise ValueError(f"cancel: {name!r} is not an outstanding measurement (or "
                                 f"is given more often than asked); outstanding: {out}")
            left[a] -= 1
    gone = pol.cancel(arms)
    save_policy(pol, state, extra)
    return [pol.ids[a] for a in gone]


class Told(NamedTuple):
    """What a ``tell`` / ``observe`` did."""

    taken: int
    """Rewards read from the results file (rows with an empty reward are skipped)."""
    unused: int
    """Of those, rewards that arrived after the stop: recorded in the state, not used."""
    stopped_by: str | None
    """``"rule"`` (the set is certified) or the budget, if the run has ended; else None."""
    samples: int
    """Rewards the algorithm has used so far."""
    recommended: list[str]
    """The recommended IDs once stopped (empty before)."""
    heuristic: bool = False
    """The stopping rule uses the heuristic threshold (a rule stop is not certified)."""
    check: ModelCheck | None = None
    """The model check on the rewards used so far (:meth:`AskTellProtocol.model_check`:
    every experiment's algorithm is linear with Gaussian noise)."""


def tell(state: str | Path, results: str | Path, *, observe: bool = False,
         id_column: str = "id", reward_column: str = "reward") -> Told:
    """Tell the results of asked arms by ID (``observe``: measurements that were not
    asked, a warm start), in the order of the file: the stopping rule is checked after
    each. Results after the stop are recorded but not used (the stopped set is what was
    certified)."""
    pol, extra, _, heuristic = _load(state)
    ids, rewards = read_results(results, id_column, reward_column)
    arms = _indices(pol, ids, f"results file {str(results)!r}")
    late_before = len(pol.late)
    if not observe and pol.done and not pol.outstanding:
        _stopped(pol, state, heuristic, pol.model_check())
    with warnings.catch_warnings():  # the check is reported in Told (the CLI says it)
        warnings.simplefilter("ignore", ModelCheckWarning)
        if observe:
            pol.observe(arms, rewards)
        else:
            pol.tell(arms, rewards)
    save_policy(pol, state, extra)
    best = ([] if not pol.done or pol.recommendation is None
            else [pol.ids[a] for a in sorted(np.ravel(pol.recommendation))])
    return Told(len(arms), len(pol.late) - late_before, pol.stopped_by if pol.done else None,
                int(pol.samples), best, heuristic, pol.model_check())


def measurements(state: str | Path) -> list[tuple[str, float]]:
    """Every measurement of the experiment as ``(id, reward)``, in the order given: the
    told and observed results, then those that arrived after the stop (recorded, not used
    by the algorithm). What ``oed experiment export`` writes and ``observe`` reads: to
    carry the data into a new experiment, e.g. with a richer model after a rejected model
    check (the new experiment's rule then uses them as a warm start, ``docs/choices.md``,
    "Warm start")."""
    doc = read_state(state)
    ids = doc.get("ids")
    if ids is None:
        raise ValueError(f"state {str(state)!r} has no candidate IDs (not written by "
                         "`oed experiment new`)")
    rows = [(ids[a], float(r)) for ev in doc["events"] if ev["kind"] in ("tell", "observe")
            for a, r in zip(ev["arms"], ev["rewards"], strict=True)]
    rows += [(ids[int(a)], float(r)) for a, r in doc.get("late", [])]
    return rows


@dataclass
class Status:
    """What ``oed experiment status`` reports."""

    algorithm: str
    samples: int
    outstanding: list[str]
    best: list[str]
    stopped: bool
    stopped_by: str | None
    remaining: int | None
    basis: str
    model: str = ""
    heuristic: bool = False
    identified: bool = True
    """Whether the measured candidates determine the model's parameters (else the current
    best comes from the minimum-norm estimate: a guess, not an estimate)."""
    model_check: str = ""
    """The model check's finding (:meth:`AskTellProtocol.model_check`)."""
    model_rejected: bool = False
    """The measurements reject the model or the noise level the stopping rule assumes:
    a stop is then not a certificate."""


def status(state: str | Path, *, simulations: int = 5) -> Status:
    """The current best set, whether the stopping rule holds, samples so far and an
    estimate of the samples still needed (median of ``simulations`` simulated runs on the
    current estimate, minus the samples so far)."""
    pol, extra, algorithm, heuristic = _load(state)
    m = int(extra.get("m", 1))
    theta, mu, identified = pol.estimate()
    if pol.done:
        best = [int(a) for a in np.ravel(pol.recommendation)]
    else:
        best = sorted(int(a) for a in np.argsort(-mu, kind="stable")[:m])
    remaining, basis = None, "the run has stopped"
    if not pol.done and not identified:
        basis = (f"not yet estimable: the {pol.samples} measurements do not determine the "
                 f"model's {theta.size} parameters; use `oed experiment plan` with a "
                 "plausible theta")
    elif not pol.done:
        remaining, basis = _predict_remaining(pol, algorithm, theta, m, simulations)
    model = extra.get("model", {}).get("description", "the features as given (a state "
                                       "written before models were recorded)")
    check = pol.model_check()
    return Status(algorithm, pol.samples, [pol.ids[a] for a in pol.outstanding],
                  [pol.ids[a] for a in sorted(best)], pol.done and pol.stopped_by == "rule",
                  pol.stopped_by, remaining, basis, model, heuristic,
                  bool(identified) or pol.done, check.message, check.rejected)


def _simulate(algorithm: str, X: np.ndarray, theta: np.ndarray, m: int, args: dict,
              runs: int, max_samples: int) -> tuple[list[int], int]:
    """The samples of ``runs`` simulated runs on ``theta`` (seeds 0, 1, ...), and how many
    of them reached ``max_samples`` without the stopping rule (their counts are lower
    bounds)."""
    from bandits.instances import Instance
    from bandits.registry import run

    inst = Instance(name="plausible", X=X, theta=theta, sigma=float(args.get("sigma", 1.0)),
                    m=m)
    opts = {k: v for k, v in args.items() if k not in ("delta", "seed", "max_samples",
                                                        "m", "epsilon")}
    results = [run(algorithm, inst, delta=float(args.get("delta", 0.05)), seed=s,
                   max_samples=max_samples, **opts) for s in range(runs)]
    return [r.samples for r in results], sum(r.stopped_by != "rule" for r in results)


def _predict_remaining(pol: Any, algorithm: str, theta: np.ndarray, m: int, runs: int
                       ) -> tuple[int | None, str]:
    X = pol.features  # theta's coordinates (the identity for LUCB and UGapE)
    mu = X @ theta
    top = np.sort(mu)[::-1]
    if pol.samples == 0 or top[m - 1] <= top[m]:
        return None, ("no estimate yet (no reward, or tied estimated means): use "
                      "`oed experiment plan` with a plausible theta")
    cap = 10**6
    try:
        got, hit = _simulate(algorithm, X, theta, m, dict(pol._config["arguments"]), runs,
                             cap)
    except ValueError as exc:
        return None, f"no simulation possible on the current estimate ({exc})"
    med = int(np.median(got))
    capped = (f"; {hit} of {runs} simulated runs reached their budget of {cap:,} samples "
              "without stopping, so the median is a lower bound" if hit else "")
    return max(med - pol.samples, 0), (
        f"median of {runs} simulated runs of {algorithm} on the current estimate "
        f"theta_hat ({med} samples in total){capped}; theta_hat is uncertain early on, so "
        "this is a rough guide")


def plan(arms: str | Path, theta: np.ndarray, *, algorithm: str = "m-lingape",
         id_column: str | None = None, columns: list[str] | str | None = None, m: int = 1,
         delta: float = 0.05, sigma: float = 1.0, S: float | None = None, runs: int = 10,
         max_samples: int = 10**6, model: str | int | None = None,
         intercept: bool | str = "auto", code: bool = False,
         categorical: list[str] | str | None = None, contrasts: str | None = None) -> dict:
    """Predicted budget on a plausible ``theta``: the complexity constants (Réda et al.
    2021, Table 2) and short simulations under the algorithm's proven threshold (its
    default: ``theoretical``, ``lingape`` for LinGapE, ``lucb1`` for LUCB and UGapE) and
    the heuristic one.

    ``theta`` has one value per term of the model (:func:`candidate_model`, the same
    ``model`` and ``intercept`` as ``new``), the intercept first when one is added."""
    from bandits._core.validate import THRESHOLDS_NEEDING_S
    from bandits.complexity import complexity_constants
    from bandits.registry import entry

    cand, reg = candidate_model(arms, id_column=id_column, columns=columns, model=model,
                                intercept=intercept, code=code,
                                categorical=categorical, contrasts=contrasts)
    X = reg.X
    theta = np.asarray(theta, dtype=float).ravel()
    if theta.shape[0] != X.shape[1]:
        extra = (" ('1' is the intercept: the baseline response; --no-intercept fits "
                 "without it)" if reg.intercept else "")
        raise ValueError(f"--theta: {theta.shape[0]} values for the {X.shape[1]} terms "
                         f"{reg.terms} of the model{extra}")
    mu = X @ theta
    order = np.argsort(-mu, kind="stable")
    if m < mu.size and mu[order[m - 1]] <= mu[order[m]]:
        tied = [cand.ids[a] for a in np.flatnonzero(mu == mu[order[m - 1]])]
        raise ValueError(f"--theta: under this theta the top-{m} set is not unique: "
                         f"{', '.join(tied[:6])}{' ...' if len(tied) > 6 else ''} share "
                         f"the mean {mu[order[m - 1]]:g} at its boundary, so no number of "
                         "runs tells them apart and the planned budget would be infinite; "
                         "plan with a theta under which they differ (e.g. the smallest "
                         "difference you need to detect)")
    out: dict[str, Any] = {"K": X.shape[0], "d": X.shape[1], "m": m,
                           "model": _model_record(reg, model)["description"],
                           "top": [cand.ids[a] for a in order[:m]],
                           "constants": complexity_constants(X, mu, m, sigma=sigma)}
    args: dict[str, Any] = {"delta": delta, "sigma": sigma}
    e = entry(algorithm)
    sims: dict[str, Any] = {}
    proven = next((o.default for o in e.options if o.name == "threshold"), None)
    for thr in (proven, "heuristic") if proven is not None else (None,):
        a = dict(args)
        if thr is not None:
            a["threshold"] = thr
            if thr in THRESHOLDS_NEEDING_S:
                a["S"] = float(np.linalg.norm(theta)) if S is None else S
        got, hit = _simulate(algorithm, X, theta, m, a, runs, max_samples)
        # a run that hit max_samples did not stop: its count is a lower bound, said so
        sims[thr or "default"] = {"median": int(np.median(got)), "min": int(min(got)),
                                  "max": int(max(got)), "runs": runs, "budget_hit": hit,
                                  "max_samples": int(max_samples)}
    out["simulations"] = sims
    out["guarantees"] = {thr: GUARANTEES[thr] for thr in sims if thr in GUARANTEES}
    return out


#: What each threshold guarantees (``oed experiment plan`` prints it).
GUARANTEES = {
    "theoretical": "delta-correct by proof (Réda et al. 2021, Eq. 2 / Abbasi-Yadkori "
                   "et al. 2011): P(wrong set) <= delta",
    "lingape": "delta-correct by proof (Xu, Honda & Sugiyama 2018, Eq. 3): "
               "P(wrong arm) <= delta",
    "lucb1": "delta-correct by proof (LUCB1's confidence bound, Kalyanakrishnan et al. "
             "2012): P(wrong set) <= delta",
    "heuristic": "no proof; delta-correct in the simulations of Réda et al. 2021 (§5) "
                 "and typically several times cheaper"}
