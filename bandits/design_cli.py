"""The lab-design part of ``oed design``: model terms, A/I/Ds criteria, exact designs and
constraints (kept apart from :mod:`bandits.cli`, which only routes to it), and the design
outputs keyed by candidate ID (``oed design`` and ``oed round``).

``oed design a|i|ds|d|g|c|xy|h --arms FILE [--id-column C] [--columns A,B] [--model TERMS]
[--intercept/--no-intercept] [--exact N [--bin]] [--caps SPEC] [--costs SPEC --budget B]
[--fixed FILE --runs N] [--out design.csv|design.json] [--json design.json]``.

Outputs keyed by ID: a CSV ``id,weight`` (approximate design) or ``id,runs`` (exact design,
``oed round``) lists only the conditions to run (weight > 0, runs > 0), in the order of the
candidate file; weights are written with ``repr`` (shortest round-trip) and runs are
integers summing exactly to N. The JSON for programs keeps the full vectors (``weights`` /
``counts``, read back by ``oed round``), the candidate ``ids``, the same rows under
``design`` / ``runs`` and the ``provenance`` of every result file
(:mod:`bandits.provenance`). Without ``--id-column`` the IDs are the row numbers ``0, 1,
...`` of the candidate file.
"""

from __future__ import annotations

import argparse
import csv
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bandits.io import (
    column_names,
    design_to_dict,
    jsonable,
    load_candidates,
    load_matrix,
    load_vector,
    read_table,
)

#: Extensions ``--out`` of ``oed design`` / ``oed round`` accepts.
OUT_SUFFIXES = (".csv", ".json")

NEW_CRITERIA = ("a", "i", "ds")


def add_model_options(g: Any, intercept_help: str, prefix: str = "") -> None:
    """``--model`` and ``--intercept`` (``design.regressors``) of the commands that read
    factor settings; ``intercept_help`` states the command's default, ``prefix`` when the
    options apply only with another one (e.g. ``"with --theta: "``)."""
    g.add_argument("--model", help=f"{prefix}regression model on the features of --arms: "
                   "linear, interactions, pure-quadratic, quadratic, cubic or a degree "
                   "(default: the features as given)")
    g.add_argument("--intercept", action=argparse.BooleanOptionalAction, default=None,
                   help=prefix + intercept_help)
    g.add_argument("--coded", action="store_true",
                   help=f"{prefix}build the model on the features in coded units (each "
                   "mapped to [-1, 1]; the output gives the coding): the same model, far "
                   "better conditioned (e.g. a quadratic in raw temperatures)")


def model_regressors(F: np.ndarray, model: str | None, intercept: bool | str | None,
                     names: Sequence[str] | None, *, code: bool = False,
                     source: str = "the features",
                     categorical: Sequence[str] | None = None,
                     contrasts: str | None = None) -> Any:
    """:func:`design.regressors` for the commands: its ValueError names the command-line
    options (``--model``, ``--intercept``, ``--coded``) that choose the model.
    ``categorical``: the categorical columns (:meth:`bandits.io.Candidates.factors` holds
    their labels)."""
    import design

    try:
        return design.regressors(F, model, intercept, names, code=code, source=source,
                                 categorical=list(categorical or ()) or None,
                                 contrasts=contrasts or "treatment")
    except ValueError as exc:
        raise ValueError(f"--intercept/--model/--coded/--categorical: {exc}") from None


def categorical_request(option: str | Sequence[str] | None,
                        columns: Sequence[str] | str | None) -> dict[str, Any]:
    """What :func:`bandits.io.load_candidates` reads as categorical for a command (its
    keyword arguments): the columns of ``--categorical`` (comma-separated, or a list as a
    design JSON records them), and with ``--columns`` every text column among them (the
    user chose them as factors); without ``--columns`` a text column is refused with a
    message saying how to declare it (a free-text column is not made a factor unasked)."""
    return {"categorical": option or (), "text_categorical": bool(columns)}


def add_categorical_option(g: Any) -> None:
    """``--categorical``: factor columns of labels (:func:`categorical_request`)."""
    g.add_argument("--categorical", metavar="COLS",
                   help="factor columns whose values are labels, comma-separated (e.g. a "
                   "batch numbered 1, 2, 3); a column of text (a catalyst, a supplier) "
                   "named in --columns is categorical without it. Treatment coding: the "
                   "first level in sorted order is the baseline, one 0/1 term per other "
                   "level (catalyst[Pt]); see --contrasts")
    g.add_argument("--contrasts", choices=("treatment", "sum"), default=None,
                   help="coding of the categorical factors: treatment (default; R's "
                   "contr.treatment, effects against the baseline level) or sum (effect "
                   "coding, R's contr.sum: effects against the mean of the levels). D- and "
                   "G-designs do not depend on it; A-, I- and Ds-designs do")


def add_design_arguments(g: argparse.ArgumentParser) -> None:
    """The lab-design options of ``oed design``."""
    g.add_argument("--columns", help="the factor columns of --arms, comma-separated "
                   "(default: every column but --id-column and the --caps/--costs "
                   "columns); other columns, numeric or not, are ignored")
    add_model_options(g, "add a constant term (default: with --model, yes unless the "
                      "model's terms already span a constant, as on a mixture; without "
                      "--model, no: the columns are the regressors as given)")
    add_categorical_option(g)
    g.add_argument("--interest", help="ds: parameters of interest, comma-separated column "
                   "indices or term names (e.g. 'x1^2,x2^2')")
    g.add_argument("--region", help="i: points of the region to average the variance over "
                   "(factor settings with --model); default the candidates")
    g.add_argument("--exact", type=int, metavar="N", help="exact design of N runs "
                   "(criteria d, a, i, ds) instead of weights")
    g.add_argument("--bin", action="store_true", help="exact: at most one run per candidate")
    g.add_argument("--restarts", type=int, help="exact: perturbed, randomised-greedy and "
                   "random starts of each kind (default 5: 17 starts in all; more can find "
                   "a better design, at about proportional time)")
    g.add_argument("--ils-rounds", type=int, help="exact: rounds of the local search after "
                   "the starts (default 8; 0 switches it off; the design is never worse "
                   "for more)")
    g.add_argument("--seed", type=int, help="exact: seed of the randomised starts and the "
                   "search (default 0; the same seed gives the same design)")
    g.add_argument("--caps", help="most weight (approximate) or runs (--exact) per candidate: "
                   "a number, 'c1,c2,...', a file, or a column name of --arms")
    g.add_argument("--costs", help="cost of a run on each candidate: 'c1,...', a file, or a "
                   "column name of --arms (with --budget)")
    g.add_argument("--budget", type=float, help="most average cost per run "
                   "(costs @ weights <= budget); a total budget T for N runs is T/N, or "
                   "--total-budget T")
    g.add_argument("--total-budget", type=float, metavar="T",
                   help="with --exact N: most total cost of the N runs (costs @ counts <= "
                   "T); the same as --budget T/N, without the division")
    g.add_argument("--fixed", help="runs already made: an 'id,runs' CSV (as oed design "
                   "--exact and oed round write; the ID column may also carry the "
                   "--id-column name, e.g. 'site,runs'), a file of counts per candidate "
                   "(one column, K rows) or of settings/regressor rows")
    g.add_argument("--runs", type=int, help="number of new runs planned (approximate design "
                   "with --fixed)")


def _header(path: str) -> list[str] | None:
    p = Path(path)
    if p.suffix == ".npy" or not p.exists():
        return None
    try:
        text = p.read_text()
    except UnicodeDecodeError:  # not a text file: load_matrix refuses it by name
        return None
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        delim = "," if "," in line else ("\t" if "\t" in line else None)
        cells = [c.strip() for c in line.split(delim)]
        try:
            [float(c) for c in cells]
        except ValueError:
            return cells
        return None
    return None


def factor_columns(args: argparse.Namespace) -> list[str] | None:
    """The names given with ``--columns`` (None: not given)."""
    spec = getattr(args, "columns", None)
    if spec is None:
        return None
    names = [c.strip() for c in spec.split(",") if c.strip()]
    if not names:
        raise ValueError("--columns: give the factor columns of --arms, comma-separated")
    if len(set(names)) != len(names):
        raise ValueError(f"--columns: a column is named twice in {names}")
    return names


def _named_columns(args: argparse.Namespace, factors: list[str]) -> list[str]:
    """The ``--caps`` / ``--costs`` specifications that name a column of ``--arms`` (read
    with the factors, then set apart), other than the factors themselves."""
    header = column_names(args.arms) or []
    out = []
    for key in ("caps", "costs"):
        spec = getattr(args, key, None)
        if spec is not None and spec in header and spec not in factors and spec not in out:
            out.append(spec)
    return out


def _column_or_vector(spec: str, name: str, header: list[str] | None, raw: np.ndarray
                      ) -> tuple[np.ndarray, int | None]:
    """A vector from a column name of the arms file, a number list or a file."""
    if header is not None and spec in header:
        j = header.index(spec)
        return raw[:, j].copy(), j
    try:
        return np.array([float(spec)]), None
    except ValueError:
        return load_vector(spec, name), None


def arms_and_model(args: argparse.Namespace) -> tuple[np.ndarray, dict, dict]:
    """The regressor matrix, a description of the model, and per-candidate columns."""

    factors = factor_columns(args)
    categorical = categorical_request(getattr(args, "categorical", None), factors)
    categorical_columns: list[str] = []
    header = _header(args.arms)
    if factors is not None or getattr(args, "id_column", None) is not None \
            or (header is not None
                and Path(args.arms).suffix.lower() in (".csv", ".tsv", ".tab")):
        # a file with a header: its categorical factors keep their labels
        cand = load_candidates(args.arms, id_column=getattr(args, "id_column", None),
                               columns=None if factors is None
                               else factors + _named_columns(args, factors),
                               **categorical)
        raw, header, ids = cand.factors(), list(cand.columns), list(cand.ids)
        categorical_columns = cand.categorical
    else:
        raw = load_matrix(args.arms, "--arms")
        ids = row_ids(raw.shape[0])
        if getattr(args, "categorical", None):
            raise ValueError("--categorical: the --arms file has no header naming its "
                             "columns")
    columns: dict = {"ids": ids}
    drop: list[int] = []
    for key in ("caps", "costs"):
        spec = getattr(args, key, None)
        if spec is not None:
            if spec in categorical_columns:
                raise ValueError(f"--{key}: column {spec!r} of --arms is not numeric")
            vec, j = _column_or_vector(spec, key, header, raw)
            columns[key] = np.asarray(vec, dtype=np.float64)
            if j is not None:
                drop.append(j)
    if factors is not None:  # the factors are the columns named, whatever else is read
        keep = list(range(len(factors)))
    else:  # every column but the IDs and the --caps/--costs columns
        keep = [j for j in range(raw.shape[1]) if j not in drop]
    F = raw[:, keep]
    names = [header[j] for j in keep] if header is not None else None
    cats = [c for c in categorical_columns if names is not None and c in names]
    columns["settings"] = (names or [f"x{j + 1}" for j in range(F.shape[1])], F)
    columns["regressors"] = reg = model_regressors(F, args.model, args.intercept, names,
                           code=getattr(args, "coded", False), source="the columns of --arms",
                           categorical=cats, contrasts=getattr(args, "contrasts", None))
    X, labels, intercept, desc = reg.X, reg.terms, reg.intercept, reg.description
    # "spec" rebuilds the same regressors from the same file (`oed round --arms`)
    model = {"description": desc, "terms": labels, "intercept": intercept,
             "parameters": int(X.shape[1]),
             "spec": {"model": args.model, "factors": names, "intercept": intercept,
                      "coded": bool(getattr(args, "coded", False)), "categorical": cats,
                      "contrasts": reg.contrasts}}
    return X, model, columns


def settings_regressors(path: str, name: str, reg: Any) -> np.ndarray:
    """The model's regressors (``reg``: :class:`design.Regressors`) at the factor settings
    in the file ``path`` (``--region``, ``--fixed``): a numeric matrix, or with
    categorical factors a CSV/TSV whose labels are coded with the candidates' levels (its
    columns are the factors by name when its header has them all, else in order)."""
    if reg.levels is None:
        return reg.at(load_matrix(path, name), name)
    header, rows = read_table(Path(path), name)
    if not rows:
        raise ValueError(f"{name} file {path!r} has no rows")
    names = list(reg.factor_names)
    cols = ([header.index(f) for f in names] if header is not None
            and all(f in header for f in names) else list(range(len(rows[0]))))
    F = np.array([[r[j] for j in cols] for r in rows], dtype=object)
    return reg.at(F, name)


def design_json(path: str) -> dict | None:
    """The parsed design JSON of ``oed design`` at ``path`` (None for another file)."""
    p = Path(path)
    if p.suffix.lower() != ".json" or not p.is_file():
        return None
    data = json.loads(p.read_text())
    return data if isinstance(data, dict) else None


def model_spec(design: dict | None) -> dict | None:
    """The ``model.spec`` of a design JSON (:func:`design_json`; None if absent)."""
    model = None if design is None else design.get("model")
    spec = model.get("spec") if isinstance(model, dict) else None
    return spec if isinstance(spec, dict) else None


def constraints_of(design: dict | None) -> list[str]:
    """The constraints a design JSON (:func:`design_json`) was computed under (``caps``,
    ``linear``, ``fixed``; empty for an unconstrained design or no JSON)."""
    info = None if design is None else design.get("info")
    cons = info.get("constraints") if isinstance(info, dict) else None
    if not isinstance(cons, dict):
        return []
    return [k for k in ("caps", "linear", "fixed") if cons.get(k)]


def regressors_of(arms: str, id_column: str | None, spec: dict
                  ) -> tuple[np.ndarray, str, list[str], tuple[list[str], np.ndarray]]:
    """The regressor matrix of a design's model (``spec``) on the candidate file ``arms``,
    the model's description, the candidates' IDs and their factor settings."""
    factors = spec.get("factors")
    ns = argparse.Namespace(arms=arms, id_column=id_column,
                            columns=None if not factors else ",".join(factors),
                            model=spec.get("model"), intercept=spec.get("intercept"),
                            coded=bool(spec.get("coded", False)), caps=None, costs=None,
                            categorical=spec.get("categorical"),
                            contrasts=spec.get("contrasts"))
    X, model, columns = arms_and_model(ns)
    return X, model["description"], list(columns["ids"]), columns["settings"]


def _interest(spec: str | None, labels: list[str]) -> list[int]:
    if spec is None:
        raise ValueError("--interest is required for the ds criterion (column indices or "
                         f"term names among {labels})")
    out = []
    for item in spec.split(","):
        item = item.strip()
        if item in labels:
            out.append(labels.index(item))
        elif item.lstrip("-").isdigit():
            out.append(int(item))
        else:
            raise ValueError(f"--interest: {item!r} is neither a column index nor a term "
                             f"name among {labels}")
    return out


#: ``--exact`` only: the exchange's search options, ``(flag, design.exact keyword)``.
EXACT_SEARCH = (("--restarts", "restarts"), ("--ils-rounds", "ils_rounds"), ("--seed", "seed"))


def handles(args: argparse.Namespace) -> bool:
    """Whether the request needs this module (new criterion, exact, constraints)."""
    return (args.criterion in NEW_CRITERIA or args.exact is not None or args.caps is not None
            or args.costs is not None or args.budget is not None or args.fixed is not None
            or getattr(args, "total_budget", None) is not None or args.bin
            or any(getattr(args, key, None) is not None for _, key in EXACT_SEARCH))


def run(args: argparse.Namespace, X: np.ndarray, model: dict, columns: dict
        ) -> tuple[object, dict]:
    """Compute the requested design; returns ``(result, JSON dict)``."""
    import design

    K, d = X.shape
    crit = {"g": "d"}.get(args.criterion, args.criterion) if args.exact is None \
        else args.criterion
    if crit not in ("d", "a", "i", "ds"):
        raise ValueError(f"--exact / --caps / --costs / --fixed work with the criteria d, a, "
                         f"i, ds; got {args.criterion!r}")
    kw: dict = {}
    if crit == "ds":
        kw["interest"] = _interest(args.interest, model["terms"])
    elif args.interest is not None:
        raise ValueError("--interest is only used by the ds criterion")
    if crit == "i" and args.region is not None:
        # factor settings of --region / --fixed get the candidates' own transformation
        # (Regressors.at: the same terms, intercept decision and coding)
        kw["region"] = settings_regressors(args.region, "--region", columns["regressors"])
    elif args.region is not None:
        raise ValueError("--region is only used by the i criterion")
    fixed = None
    if args.fixed is not None:
        by_id = read_runs_csv(args.fixed, columns["ids"], id_column=args.id_column)
        reg = columns["regressors"]
        rows = None if by_id is not None or reg.levels is not None \
            else load_matrix(args.fixed, "--fixed")
        if by_id is not None:  # 'id,runs' rows of an earlier exact design or rounding
            fixed = by_id
        elif rows is not None and rows.shape == (K, 1) and np.all(rows == np.round(rows)) \
                and np.all(rows >= 0):
            fixed = rows[:, 0].astype(np.int64)
        else:
            fixed = settings_regressors(args.fixed, "--fixed", reg)
    total_budget = getattr(args, "total_budget", None)
    if total_budget is not None:
        if args.budget is not None:
            raise ValueError("--budget/--total-budget: give one (--budget is per run, "
                             "--total-budget for the N runs of --exact N)")
        if args.exact is None:
            raise ValueError("--total-budget is for exact designs (--exact N: the most "
                             "total cost of the N runs); an approximate design takes "
                             "--budget, the most average cost per run")
        if not np.isfinite(total_budget) or total_budget <= 0:
            raise ValueError(f"--total-budget must be positive; got {total_budget}")
    per_run = args.budget if total_budget is None else total_budget / args.exact
    if (args.costs is None) != (args.budget is None and total_budget is None):
        raise ValueError("--costs and --budget go together (or --costs and --total-budget "
                         "with --exact N)")
    costs = columns.get("costs")
    if costs is not None:
        if costs.shape != (K,):
            raise ValueError(f"--costs needs one cost per candidate (K={K}); got {costs.size}")
        if not np.all(np.isfinite(costs)) or np.any(costs <= 0):
            raise ValueError("--costs must be positive and finite")
    caps = columns.get("caps")
    if caps is not None and caps.size == 1:
        caps = np.full(K, float(caps[0]))
    if args.exact is not None:
        # --budget is the most average cost per run: the total for N runs is budget * N
        total = None if costs is None else (
            total_budget if total_budget is not None else args.budget * args.exact)
        search = {key: getattr(args, key) for _, key in EXACT_SEARCH
                  if getattr(args, key) is not None}
        res = design.exact(X, args.exact, crit, bin=args.bin, fixed=fixed, caps=caps,
                           costs=costs, budget=total, **kw, **search)
        out = {"criterion": res.criterion, "n": res.n, "value": res.value,
               "efficiency_bound": res.efficiency_bound, "lower_bound": res.lower_bound,
               "counts": res.counts.tolist(), "support": res.support.tolist(),
               "start": res.start, "message": res.message,
               "constraints": {"bin": bool(args.bin), "caps": caps is not None,
                               "fixed": fixed is not None,
                               "budget_per_run": None if costs is None else per_run}}
        if costs is not None:
            spent = float(costs @ res.counts)
            out["cost"] = {"total": spent, "per_run": spent / res.n,
                           "budget_per_run": per_run, "budget_total": total}
        return res, out
    for flag, given in (("--bin", args.bin),
                        *((f, getattr(args, key) is not None) for f, key in EXACT_SEARCH)):
        if given:
            raise ValueError(f"{flag} is for exact designs (with --exact N)")
    tol = args.tol
    if caps is None and costs is None and fixed is None:
        fn = {"a": design.a_optimal, "i": design.i_optimal,
              "ds": design.ds_optimal, "d": design.d_optimal}[crit]
        res = fn(X, **kw, tol=tol or 1e-6, method=args.method or "auto",
                 max_iter=args.max_iter) if crit != "ds" else \
            fn(X, kw.pop("interest"), tol=tol or 1e-6, method=args.method or "auto",
               max_iter=args.max_iter)
    else:
        if fixed is not None and args.runs is None:
            raise ValueError("--fixed for an approximate design needs --runs N (the number "
                             "of new runs); or ask for an exact design with --exact N")
        res = design.constrained_optimal(
            X, crit, caps=caps, A_ub=None if costs is None else [costs],
            b_ub=None if costs is None else [args.budget], fixed=fixed,
            n=args.runs if fixed is not None else None, tol=tol,
            method=args.method or "auto", max_iter=args.max_iter, **kw)
    out = design_to_dict(res)
    out["message"] = res.message
    if costs is not None:
        out["cost"] = {"per_run": float(costs @ res.weights), "budget_per_run": args.budget}
    return res, out


def cost_line(out: dict) -> str:
    """The summary line of a design under ``--costs``/``--budget`` ('' without)."""
    c = out.get("cost")
    if c is None:
        return ""
    if "total" in c:
        return (f"cost: {c['total']:.6g} for {out['n']} runs ({c['per_run']:.6g} per run; "
                f"budget {c['budget_per_run']:.6g} per run, {c['budget_total']:.6g} in "
                "total)\n")
    return (f"cost: {c['per_run']:.6g} per run (costs @ weights; budget "
            f"{c['budget_per_run']:.6g})\n")


# --------------------------------------------------------------------------------------
# outputs keyed by candidate ID
# --------------------------------------------------------------------------------------


def row_ids(K: int) -> list[str]:
    """The IDs of candidates read without an ID column: their row numbers."""
    return [str(i) for i in range(K)]


def support_rows(ids: Sequence[str], values: np.ndarray, kind: str) -> list[dict]:
    """``[{"id": ..., kind: value}]`` for the candidates with a positive value, in
    candidate order; ``kind`` is ``"weight"`` (floats) or ``"runs"`` (integers)."""
    values = np.asarray(values)
    if len(ids) != values.shape[0]:
        raise ValueError(f"ids: {len(ids)} IDs for {values.shape[0]} candidates")
    rows = []
    for name, v in zip(ids, values.tolist(), strict=True):
        if v > 0:
            rows.append({"id": str(name), kind: int(v) if kind == "runs" else float(v)})
    return rows


def rows_by_id(ids: Sequence[str], rows: list[dict], kind: str, *, shown: int = 12) -> str:
    """The summary line of the design by candidate ID (``"by id: run-A 0.25, ..."``, the
    first ``shown`` rows), with a trailing newline; empty when the IDs are the row numbers
    (the result's own listing above already names those)."""
    if list(ids) == row_ids(len(ids)):
        return ""
    fmt = (lambda v: f"{v:.6g}") if kind == "weight" else str
    text = ", ".join(f"{r['id']} {fmt(r[kind])}" for r in rows[:shown])
    more = f", ... ({len(rows) - shown} more)" if len(rows) > shown else ""
    return f"{kind} by id: {text}{more}\n"


def add_settings(rows: list[dict], ids: Sequence[str],
                 settings: tuple[list[str], np.ndarray] | None) -> None:
    """Put each row's factor settings (``{name: value}``, from the candidate file) into
    it, so that a run sheet says what to run, not only a candidate's ID."""
    if settings is None:
        return
    names, F = settings
    where = {name: i for i, name in enumerate(ids)}
    for row in rows:
        row["settings"] = {n: v if isinstance(v, str) else float(v)
                           for n, v in zip(names, F[where[row["id"]]], strict=True)}


def write_rows_csv(path: str | Path, rows: list[dict], kind: str) -> None:
    """Write ``id,<kind>`` rows (weights with ``repr``: they read back bit for bit),
    followed by the factor settings of each candidate when the rows have them
    (``id,runs,temp,ph``: a run sheet; the readers use the first two columns)."""
    names = list(rows[0]["settings"]) if rows and "settings" in rows[0] else []
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["id", kind, *names])
        for row in rows:
            v = row[kind]
            extra = [s if isinstance(s, str) else repr(s)
                     for s in (row["settings"][n] for n in names)]
            w.writerow([row["id"], repr(v) if kind == "weight" else v, *extra])


def write_outputs(out: dict, rows: list[dict], kind: str, *, out_path: str | None,
                  json_path: str | None) -> str | None:
    """Write the CSV (``--out x.csv``) and/or the JSON (``--out x.json``, ``--json``);
    returns the text to print on stdout (the JSON when no file was asked for)."""
    text = json.dumps(jsonable(out), indent=2)
    written = []
    for path in (out_path, json_path):
        if path is None:
            continue
        if Path(path).suffix.lower() == ".csv":
            write_rows_csv(path, rows, kind)
        else:
            Path(path).write_text(text + "\n")
        written.append(str(path))
    if not written:
        return text
    return None


def check_json_path(path: str | None, flag: str = "--json") -> None:
    """``--json`` must name a ``.json`` file in an existing folder."""
    if path is None:
        return
    p = Path(path)
    if p.suffix.lower() != ".json":
        raise ValueError(f"{flag}: {str(path)!r} has extension {p.suffix or '(none)'!r}; "
                         "use .json")
    if not p.resolve().parent.is_dir():
        raise ValueError(f"{flag}: directory {str(p.resolve().parent)!r} does not exist")


def weights_ids(path: str, K: int) -> list[str] | None:
    """The candidate IDs stored in a design JSON of ``oed design`` (None if absent)."""
    p = Path(path)
    if p.suffix.lower() != ".json":
        return None
    data = json.loads(p.read_text())
    ids = data.get("ids") if isinstance(data, dict) else None
    if ids is None:
        return None
    if not isinstance(ids, list) or len(ids) != K:
        raise ValueError(f"--weights file {str(p)!r}: 'ids' must list one ID per weight")
    return [str(i) for i in ids]


def read_design_csv(path: str) -> tuple[list[str], np.ndarray] | None:
    """``(ids, weights)`` of an ``id,weight`` CSV written by ``oed design --out x.csv``;
    None for any other file (a plain column of weights is read by the caller)."""
    return _read_id_values(path, "weight", "--weights")


def is_runs_csv(path: str) -> bool:
    """Whether ``path`` is an ``id,runs`` CSV (a run sheet of an exact design or a
    rounding)."""
    p = Path(path)
    if p.suffix.lower() != ".csv" or not p.is_file():
        return False
    with p.open(newline="", encoding="utf-8") as fh:
        head = next(csv.reader(fh), [])
    return [c.strip() for c in head[:2]] == ["id", "runs"]


def read_runs_csv(path: str, ids: Sequence[str], flag: str = "--fixed",
                  id_column: str | None = None) -> np.ndarray | None:
    """Counts per candidate (in the order of ``ids``) from an ``id,runs`` CSV, as written by
    ``oed design --exact N --out x.csv`` and ``oed round --out x.csv`` (the ID column may
    also carry the candidate file's own ID column name ``id_column``, e.g. ``site,runs``);
    None for any other file. An ID that is not a candidate is a ValueError naming it."""
    read = _read_id_values(path, "runs", flag, id_column)
    if read is None:
        return None
    where = {name: i for i, name in enumerate(ids)}
    unknown = [name for name in read[0] if name not in where]
    if unknown:
        raise ValueError(f"{flag} file {str(path)!r}: unknown ID(s) {unknown[:10]} (not in "
                         "the candidate file)")
    counts = np.zeros(len(ids), dtype=np.int64)
    for name, v in zip(*read, strict=True):
        if v != np.round(v):
            raise ValueError(f"{flag} file {str(path)!r}: runs of {name!r} must be a whole "
                             f"number; got {v!r}")
        counts[where[name]] = int(v)
    return counts


def _read_id_values(path: str, kind: str, flag: str, id_column: str | None = None
                    ) -> tuple[list[str], np.ndarray] | None:
    """``(ids, values)`` of an ``id,<kind>`` CSV (values finite and >= 0, IDs distinct; the
    ID column named ``id`` or ``id_column``); None when the file is not such a CSV."""
    p = Path(path)
    if p.suffix.lower() != ".csv" or not p.is_file():
        return None
    with p.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    head = [c.strip() for c in rows[0][:2]] if rows else []
    if len(head) != 2 or head[1] != kind:
        return None
    if head[0] not in ("id", id_column):
        raise ValueError(f"{flag} file {str(p)!r}: its header is {head[0]!r},{kind!r}; the "
                         f"IDs' column must be named 'id'"
                         + (f" or {id_column!r} (--id-column)" if id_column else
                            " (or the candidates' --id-column)"))
    width = len(rows[0])  # id, kind, then optionally the factor settings (a run sheet)
    ids, values = [], []
    for line, row in enumerate(rows[1:], start=2):
        if not row:
            continue
        if len(row) != width:
            raise ValueError(f"{flag} file {str(p)!r}, line {line}: expected {width} fields "
                             f"({','.join(rows[0])})")
        try:
            v = float(row[1])
        except ValueError:
            raise ValueError(f"{flag} file {str(p)!r}, line {line}: {kind} {row[1]!r} "
                             "is not a number") from None
        if not np.isfinite(v) or v < 0:
            raise ValueError(f"{flag} file {str(p)!r}, line {line}: {kind} {row[1]!r} "
                             "must be finite and >= 0")
        ids.append(row[0])
        values.append(v)
    if len(set(ids)) != len(ids):
        raise ValueError(f"{flag} file {str(p)!r}: an ID appears twice")
    if not ids:
        raise ValueError(f"{flag} file {str(p)!r} lists no candidate")
    return ids, np.array(values)
