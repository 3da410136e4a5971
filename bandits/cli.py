"""The ``oed`` command line.

Subcommands: ``demo`` (the built-in example), ``design`` (compute and certify a design
from a file of arms), ``round`` (turn weights into integer counts), ``run`` (simulate one
run of a bandit algorithm on a named instance), ``replicate`` (many seeds, several
algorithms side by side, summary table, CSV/JSON and box plot) and ``experiment`` (a lab
experiment in a state file: new, ask, tell, observe, status, plan).

Algorithms are given as ``NAME`` or ``NAME:key=value,key=value`` with rule overrides of
:class:`bandits.GIFA`, e.g. ``m-lingape:selection=optimized`` or
``lingifa:stopping=lucb,selection=greedy,name=LinGIFA-tauLUCB``.  Instance parameters are
``--param key=value`` (repeatable; values may use ``pi``, e.g. ``omega=pi/6``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import re
import sys
import time
from collections.abc import Iterator, Sequence
from typing import Any, NoReturn

import numpy as np

from bandits.io import design_to_dict, jsonable, load_matrix, load_vector, load_weights

#: Figure formats accepted by ``--plot`` (what the plots are tested with).
PLOT_FORMATS = (".png", ".pdf", ".svg")


def check_output(path: str | None, flag: str, suffixes: Sequence[str]) -> None:
    """Refuse an output file before any work: unknown extension (a CSV is never written into
    ``t.xlsx``) or a folder that does not exist.  ValueError naming the option."""
    if path is None:
        return
    from pathlib import Path

    p = Path(path)
    if p.suffix.lower() not in suffixes:
        raise ValueError(f"{flag}: {str(path)!r} has extension {p.suffix or '(none)'!r}; "
                         f"use one of {', '.join(suffixes)}")
    parent = p.resolve().parent
    if not parent.is_dir():
        raise ValueError(f"{flag}: directory {str(parent)!r} does not exist")


def _cmd_demo(args: argparse.Namespace) -> int:
    from bandits.demo import demo_report

    print(demo_report(d=args.d, omega=args.omega, n=args.n))
    return 0


@contextlib.contextmanager
def first_use_notice(stream: Any = None) -> Iterator[None]:
    """Say once, on stderr, when the enclosed calls compiled kernels (their first use after
    an install) instead of letting the compile time pass for solver time."""
    from bandits.warmup import compile_events

    before = compile_events()
    t0 = time.perf_counter()
    yield
    compiled = compile_events() - before
    if compiled and not _NOTICE["shown"]:
        _NOTICE["shown"] = True
        print(f"oed: compiling kernels, first use only ({compiled} compiled in "
              f"{time.perf_counter() - t0:.1f} s; `oed warmup` compiles every family once; "
              "the times reported exclude it)", file=stream or sys.stderr)


_NOTICE = {"shown": False}


def _cmd_warmup(args: argparse.Namespace) -> int:
    """``oed warmup``: compile (or load from the cache) every kernel, family by family."""
    from bandits.warmup import FAMILIES, warmup

    if args.list:
        print("\n".join(FAMILIES))
        return 0
    report = warmup(args.family, progress=args.progress)
    width = max(len(k) for k in report)
    for name, r in report.items():
        what = (f"{int(r['compiled'])} kernel(s) compiled" if r["compiled"]
                else "loaded from the cache")
        print(f"{name:<{width}}  {r['seconds']:7.2f} s  {what}")
    total = sum(r["seconds"] for r in report.values())
    print(f"{'total':<{width}}  {total:7.2f} s")
    return 0


def _cmd_design(args: argparse.Namespace) -> int:
    import design
    from bandits import design_cli

    check_output(args.out, "--out", design_cli.OUT_SUFFIXES)
    design_cli.check_json_path(args.json)
    X, model, columns = design_cli.arms_and_model(args)
    # --tol is checked in (0, 1) by argparse; None means the criterion's default
    tol_gd = 1e-6 if args.tol is None else args.tol
    tol_mm = 1e-4 if args.tol is None else args.tol
    if design_cli.handles(args):
        res, out = design_cli.run(args, X, model, columns)
    elif args.criterion in ("g", "d"):
        fn = design.g_optimal if args.criterion == "g" else design.d_optimal
        res = fn(X, tol=tol_gd, method=args.method or "auto", max_iter=args.max_iter)
        out = design_to_dict(res)
        cert = design.kw_check(X, res.weights, tol=tol_gd)
        out["certificate"] = {"max_variance": cert.max_variance, "argmax": cert.argmax,
                              "d": cert.d, "g_efficiency": cert.g_efficiency}
    elif args.criterion == "c":
        if args.target is None:
            raise ValueError("--target y is required for the c-optimal design")
        y = load_vector(args.target, "--target")
        res = design.c_optimal(X, y, method=args.method or "auto")
        out = design_to_dict(res)
        cc = design.c_check(X, res.weights, y)
        out["certificate"] = {"value": cc.value, "max_response": cc.max_response,
                              "ratio": cc.ratio, "lower_bound": cc.lower_bound}
    elif args.criterion == "xy":
        Y = None if args.targets is None else load_matrix(args.targets, "--targets")
        Z = None if args.decisions is None else load_matrix(args.decisions, "--decisions")
        if Y is not None and Z is not None:
            raise ValueError("give --targets Y or --decisions Z, not both")
        res = design.xy_optimal(X, Y, Z=Z, tol=tol_mm, method=args.method or "auto",
                                max_iter=args.max_iter)
        out = design_to_dict(res)
        mc = design.xy_check(X, res.weights, Y, Z=Z, tol=tol_mm)
        out["certificate"] = {"value": mc.value, "lower_bound": mc.lower_bound,
                              "gap": mc.gap, "argmax": mc.argmax}
    elif args.criterion == "h":
        if args.theta is None:
            raise ValueError("--theta is required for the H-optimal design")
        theta = load_vector(args.theta, "--theta")
        res = design.h_optimal(X, theta, link=args.link, tol=tol_mm,
                               method=args.method or "auto", max_iter=args.max_iter)
        out = design_to_dict(res)
        g = design.g_optimal_hessian(X, theta, link=args.link, tol=tol_mm)
        out["g_star"] = {"value": g.value, "lower_bound": g.lower_bound,
                         "weights": g.weights.tolist()}
    else:  # pragma: no cover - argparse restricts the choices
        raise ValueError(f"unknown criterion {args.criterion!r}")
    out["model"] = model
    from bandits.provenance import provenance

    ids = columns["ids"]
    kind, values = ("runs", out["counts"]) if "counts" in out else ("weight", out["weights"])
    rows = design_cli.support_rows(ids, np.asarray(values), kind)
    design_cli.add_settings(rows, ids, columns.get("settings"))
    out["ids"] = ids
    out["design" if kind == "weight" else "runs"] = rows
    out["provenance"] = provenance(arrays={"arms": X}, sources={"arms": args.arms})
    text = design_cli.write_outputs(out, rows, kind, out_path=args.out, json_path=args.json)
    if text is None:
        files = " and ".join(p for p in (args.out, args.json) if p)
        print(f"{res!r}\n{design_cli.rows_by_id(ids, rows, kind)}"
              f"model: {model['description']}: {', '.join(model['terms'])}\n"
              f"{design_cli.cost_line(out)}"
              f"{len(rows)} of {len(ids)} candidates to run; written to {files}")
        constrained = design_cli.constraints_of(out)
        if kind == "weight" and constrained:
            print(f"oed design: note: these weights satisfy the constraints "
                  f"({', '.join(constrained)}); rounding them to runs (oed round) does not "
                  "keep them, and the CSV does not record them: for N runs under the same "
                  "constraints use --exact N", file=sys.stderr)
    else:
        print(text)
    return 0


def _cmd_round(args: argparse.Namespace) -> int:
    from bandits import design_cli
    from rounding import efficiency_loss, efficient_round

    check_output(args.out, "--out", design_cli.OUT_SUFFIXES)
    design_cli.check_json_path(args.json)
    if args.id_column is not None and not args.arms:
        raise ValueError("--id-column needs --arms (the candidate file holding the IDs)")
    from_csv = design_cli.read_design_csv(args.weights)
    if from_csv is None and design_cli.is_runs_csv(args.weights):
        raise ValueError(f"--weights: {args.weights!r} holds runs ('id,runs': an exact design "
                         "or a rounding), not weights; it is already an allocation (use it "
                         "as --fixed to add runs to it)")
    if from_csv is not None:  # 'id,weight' rows of `oed design --out x.csv`
        w = _expand_support(args, *from_csv)
    else:
        w = load_weights(args.weights, "--weights")
    meta = design_cli.design_json(args.weights)
    constrained = design_cli.constraints_of(meta)
    if constrained:
        print(f"oed round: warning: the design was computed under constraints "
              f"({', '.join(constrained)}); efficient rounding does not keep caps, costs or "
              "runs already made: check the runs, or compute an exact design under the same "
              "constraints (oed design ... --exact N)", file=sys.stderr)
    out: dict = {"n": args.n}
    zero_tol = {} if args.zero_tol is None else {"zero_tol": args.zero_tol}
    if args.eps is not None and not args.arms:
        raise ValueError("--eps needs --arms (the guarantee reduces the support on X)")
    if args.arms:  # the design's own model (e.g. quadratic), not the raw columns
        X, described, arm_ids, settings = _round_arms(args, design_cli.model_spec(meta))
        if X.shape[0] != w.shape[0]:
            raise ValueError(f"--arms: {X.shape[0]} candidates for {w.shape[0]} weights")
    if args.eps is not None:
        from rounding import round_with_guarantee

        g = round_with_guarantee(X, w, args.n, args.eps, **zero_tol)
        counts, w = g.counts, g.weights
        out.update({"eps": args.eps, "support": g.support, "r_eps": g.r_eps,
                    "factor": g.factor})
    else:
        counts = efficient_round(w, args.n, **zero_tol)
    out["counts"] = counts.tolist()
    if args.arms:
        loss = efficiency_loss(X, w, counts, args.criterion.upper())
        out["loss"] = {"criterion": loss.criterion, "approx_value": loss.approx_value,
                       "rounded_value": loss.rounded_value, "ratio": loss.ratio,
                       "bound": loss.bound, "model": described}
        if described == _RAW_COLUMNS:
            print("oed round: note: --weights records no model, so the efficiency is "
                  "computed on the columns of --arms as regressors; if the design was for "
                  "a model, pass the same --model/--intercept/--coded as to oed design",
                  file=sys.stderr)
    if from_csv is not None and not args.arms:
        ids = from_csv[0]
    elif args.id_column is not None:
        ids = arm_ids
    elif from_csv is not None:
        ids = design_cli.row_ids(w.shape[0])
    else:
        ids = design_cli.weights_ids(args.weights, w.shape[0]) or design_cli.row_ids(
            w.shape[0])
    rows = design_cli.support_rows(ids, counts, "runs")
    if args.arms and len(ids) == len(arm_ids):
        design_cli.add_settings(rows, ids, settings)
    out["ids"] = list(ids)
    out["runs"] = rows
    from bandits.provenance import provenance

    out["provenance"] = provenance(arrays={"weights": w},
                                   sources={"weights": args.weights})
    text = design_cli.write_outputs(out, rows, "runs", out_path=args.out,
                                    json_path=args.json)
    if text is None:
        files = " and ".join(p for p in (args.out, args.json) if p)
        print(f"{int(counts.sum())} runs on {len(rows)} of {len(ids)} candidates; written "
              f"to {files}")
    else:
        print(text)
    return 0


def _expand_support(args: argparse.Namespace, ids: list[str], w: np.ndarray) -> np.ndarray:
    """Weights of an 'id,weight' CSV: as they are without --arms (the listed candidates),
    else one weight per candidate of --arms (0 for those not listed)."""
    if not args.arms:
        return w
    if args.id_column is not None:
        from bandits.io import load_candidates

        all_ids = load_candidates(args.arms, id_column=args.id_column, columns=[],
                                  allow_no_features=True).ids  # the IDs only
    else:
        from bandits import design_cli

        all_ids = design_cli.row_ids(load_matrix(args.arms, "--arms").shape[0])
    where = {name: i for i, name in enumerate(all_ids)}
    full = np.zeros(len(all_ids))
    for name, v in zip(ids, w, strict=True):
        if name not in where:
            raise ValueError(f"--weights: ID {name!r} is not a candidate of --arms")
        full[where[name]] = v
    return full


#: How ``oed round --arms`` describes a model it was not given (the note after its output).
_RAW_COLUMNS = "the columns of --arms as regressors"


def _round_arms(args: argparse.Namespace, spec: dict | None
                ) -> tuple[np.ndarray, str, list[str], tuple[list[str], np.ndarray] | None]:
    """The regressors of ``oed round --arms``, their description, the candidates' IDs and
    their factor settings (for the run sheet): the design's own model when its JSON
    records one (``spec``), else the columns of the file as given (their features only,
    with ``--id-column``; no settings, the columns being the regressors)."""
    from bandits import design_cli

    columns = design_cli.factor_columns(args)
    chosen = args.model is not None or args.intercept is not None or args.coded \
        or columns is not None or args.categorical is not None or args.contrasts is not None
    if spec is not None:
        if chosen:
            raise ValueError("--model/--intercept/--coded/--columns/--categorical/--contrasts: "
                             "--weights is a design JSON that records its model, which is "
                             "used; drop these options")
        return design_cli.regressors_of(args.arms, args.id_column, spec)
    if chosen:  # a weights CSV or column: the model the design was computed for
        return design_cli.regressors_of(args.arms, args.id_column, {
            "model": args.model, "intercept": args.intercept, "coded": args.coded,
            "factors": columns, "categorical": args.categorical,
            "contrasts": args.contrasts})
    described = _RAW_COLUMNS
    if args.id_column is not None:
        from bandits.io import load_candidates

        cand = load_candidates(args.arms, id_column=args.id_column)
        return cand.X, described, list(cand.ids), None
    X = load_matrix(args.arms, "--arms")
    return X, described, design_cli.row_ids(X.shape[0]), None


# --------------------------------------------------------------------------------------
# run / replicate
# --------------------------------------------------------------------------------------

_RULES = ("compute_jt", "compute_bt", "stopping", "selection", "indices", "threshold")
#: A Python int/float literal (underscores allowed: ``1_000_000``, ``1e6``, ``.5``).
_LITERAL = r"(?:\d(?:_?\d)*(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d(?:_?\d)*)?"
#: ``[+-]LITERAL`` or ``[+-][LITERAL*]pi[/LITERAL]``: numbers are read, never evaluated
#: (an expression parser evaluated ``9**9**9`` for ever, issue 12).
_NUMBER = re.compile(rf"([+-]?)(?:({_LITERAL})|(?:({_LITERAL})\*)?pi(?:/({_LITERAL}))?)")
#: Largest count accepted from the command line: every integer up to 2**53 is exact as a
#: float, so ``1e6`` and ``1000000`` are the same count and nothing is rounded silently.
MAX_COUNT = 2**53


def _literal(text: str) -> int | float:
    try:
        return int(text)
    except ValueError:
        return float(text)


def parse_number(text: str, name: str = "value") -> int | float:
    """A number written as ``0.5``, ``1e-3``, ``1_000_000``, ``pi``, ``pi/6`` or ``2*pi/3``.

    Nothing is evaluated: the text must match the grammar above, and the value must be
    finite (``1e999`` is refused, not turned into inf).  Raises ``ValueError`` naming
    ``name``.
    """
    match = _NUMBER.fullmatch(str(text).replace(" ", ""))
    if match is None:
        raise ValueError(f"{name}: not a number: {text!r} (write e.g. 0.5, 1e6, 1_000 or "
                         "pi/6)")
    sign, lit, factor, divisor = match.groups()
    try:
        if lit is not None:
            value: int | float = _literal(lit)
        else:
            value = math.pi * (1.0 if factor is None else float(_literal(factor)))
            if divisor is not None:
                value /= float(_literal(divisor))
    except (ValueError, ZeroDivisionError, OverflowError):
        raise ValueError(f"{name}: not a finite number: {text!r}") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{name}: not a finite number: {text!r}")
    return -value if sign == "-" else value


def parse_count(text: str, name: str, low: int = 1, high: int = MAX_COUNT) -> int:
    """An integer in ``[low, high]`` written as ``1000``, ``1e6`` or ``1_000_000``; a
    fractional value (``1000.7``) is an error, never rounded."""
    value = parse_number(text, name)
    if isinstance(value, float):
        if not value.is_integer():
            raise ValueError(f"{name} must be an integer; got {text!r}")
        if abs(value) > MAX_COUNT:
            raise ValueError(f"{name} must be an integer in [{low}, {high:,}]; got {text!r}")
        value = int(value)
    if not low <= value <= high:
        raise ValueError(f"{name} must be an integer in [{low}, {high:,}]; got {text!r}")
    return value


def parse_real(text: str, name: str, low: float = -math.inf, high: float = math.inf, *,
               open_low: bool = False, open_high: bool = False) -> float:
    """A finite real number in the interval ``low .. high`` (ends open or closed)."""
    value = float(parse_number(text, name))
    if value < low or value > high or (open_low and value == low) \
            or (open_high and value == high):
        left, right = "(" if open_low else "[", ")" if open_high else "]"
        raise ValueError(f"{name} must be in {left}{low:g}, {high:g}{right}; got {text!r}")
    return value


def parse_jobs(text: str, name: str) -> int:
    """Worker processes: -1 (all cores) or 1 .. 1024 (0 is refused, not read as 'all')."""
    value = parse_count(text, name, -1, 1024)
    if value == 0:
        raise ValueError(f"{name} must be -1 (all cores) or a positive integer; got {text!r}")
    return value


def _arg_type(parse: Any, *args: Any, **kwargs: Any) -> Any:
    """An argparse ``type=`` built on a parser above: argparse then reports a bad value as
    ``argument --flag: ...`` on one line and exits with status 2."""
    def convert(text: str) -> Any:
        try:
            return parse(text, "value", *args, **kwargs)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc).removeprefix("value").lstrip(": ")) \
                from None
    convert.__name__ = parse.__name__.removeprefix("parse_")
    return convert


_COUNT = _arg_type(parse_count, 1)                    # >= 1
_INDEX = _arg_type(parse_count, 0)                    # >= 0 (seeds)
_JOBS = _arg_type(parse_jobs)
_PROB = _arg_type(parse_real, 0.0, 1.0, open_low=True, open_high=True)
_POS = _arg_type(parse_real, 0.0, open_low=True)      # > 0
_NONNEG = _arg_type(parse_real, 0.0)                  # >= 0
_REAL = _arg_type(parse_real)                         # any finite number


def _param_value(text: str) -> Any:
    """An instance parameter: int, float (``pi`` allowed), None/true/false, else a string."""
    low = text.strip().lower()
    if low in ("none", "null"):
        return None
    if low in ("true", "false"):
        return low == "true"
    try:
        return parse_number(text, "--param")
    except ValueError:
        return text


def _key_values(items: Sequence[str], what: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"{what} must be KEY=VALUE; got {item!r}")
        out[key.strip()] = value.strip()
    return out


def _option_value(opt: Any, text: str) -> Any:
    """``text`` read as a value of the registry option ``opt`` (by its declared type):
    ``none``, ``true``/``false``, integers, numbers (``pi/6`` allowed) or strings."""
    kind, low = opt.type, text.strip().lower()
    if low in ("none", "null") and ("None" in kind or opt.default is None):
        return None
    if "bool" in kind:
        if low not in ("true", "false", "1", "0", "yes", "no"):
            raise ValueError(f"{opt.name} must be true or false; got {text!r}")
        return low in ("true", "1", "yes")
    numeric = "int" in kind or "float" in kind
    if numeric:
        try:
            number = parse_number(text, opt.name)
        except ValueError:
            number = None
        if number is not None:
            if "float" not in kind and float(number) != int(number):
                raise ValueError(f"{opt.name} must be an integer; got {text!r}")
            return int(number) if "float" not in kind else (
                number if isinstance(number, int) else float(number))
        if "str" not in kind:
            raise ValueError(f"{opt.name} must be a number ({kind}); got {text!r}")
    if "str" in kind or opt.choices or not numeric:
        return _named_option(text) if kind in ("", "object") else text.strip()
    raise ValueError(f"{opt.name}: cannot read {text!r} as {kind}")  # pragma: no cover


def _named_option(value: str) -> Any:
    """A value of undeclared type: a number if it reads as one (``pi/6`` included),
    ``true``/``false``, else the string (checked by the algorithm)."""
    low = value.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    try:
        number = parse_number(value, "option")
    except ValueError:
        return value.strip()
    return number if isinstance(number, int) else float(number)


def parse_algorithm(spec: str) -> tuple[str, dict[str, Any]]:
    """``"m-lingape:selection=optimized,reg=1"`` -> ``("m-lingape", {...})``.

    The name must be registered (:mod:`bandits.registry`); each option must be one of the
    algorithm's (``oed run --help`` lists them) and is read by its declared type, e.g.
    ``rage:variant=code,eps=0.1`` or ``xy-static:method=rounding,confidence=xu``.
    """
    from bandits.registry import entry

    name, _, rest = spec.partition(":")
    e = entry(name.strip())
    pairs = _key_values([p for p in rest.split(",") if p.strip()], f"options of {e.name!r}")
    e.check_options(pairs)
    schema = {o.name: o for o in e.options}
    return e.name, {k: _option_value(schema[k], v) for k, v in pairs.items()}


def _options_for(name: str, common: dict[str, Any]) -> dict[str, Any]:
    """The command-line rule flags (``--selection``, ``--reg``, ``--S``...) apply to the
    algorithms that have those options (the GIFA family; ``--sigma`` also to the static
    and phased ones)."""
    from bandits.registry import entry, names

    e = entry(name)
    extra = sorted(k for k in common if k not in e.option_names())
    if extra:
        having = [n for n in names() if extra[0] in entry(n).option_names()]
        raise ValueError(f"--{extra[0]} is not an option of {name!r} (it applies to "
                         f"{', '.join(having)}); give {name}'s own options as "
                         f"{name}:key=value")
    return dict(common)


def _common_options(args: argparse.Namespace) -> dict[str, Any]:
    """Rule overrides and S / sigma given as flags (apply to every algorithm)."""
    opts: dict[str, Any] = {}
    for key in (*_RULES, "reg", "S", "sigma"):
        value = getattr(args, key, None)
        if value is not None:
            opts[key] = value
    return opts


def _instance(args: argparse.Namespace):
    """A registered instance (``--instance NAME``) or the user's own (``--arms FILE`` with
    ``--theta`` or per-arm ``--means``, ``--noise``, ``--m``)."""
    from bandits.replicate import instance_by_name

    if getattr(args, "arms", None) is not None:
        return _user_instance(args)
    if args.instance is None:
        raise ValueError("--instance: give a registered instance name, or your own arms "
                         "with --arms FILE and --theta (or --means)")
    params = {k: _param_value(v) for k, v in _key_values(args.param or [], "--param").items()}
    if args.m is not None:
        params["m"] = args.m
    return instance_by_name(args.instance, **params)


def _user_instance(args: argparse.Namespace):
    """The user's instance: arms with IDs from a file; ``--theta`` (linear means
    ``X theta``) or ``--means`` (one mean per arm: an unstructured instance, features
    ``I_K``); ``--noise`` is the standard deviation of a measurement."""
    from pathlib import Path

    from bandits import design_cli
    from bandits.instances import Instance
    from bandits.io import load_candidates

    if args.instance is not None or args.param:
        raise ValueError("--arms: give either --instance (with --param) or your own --arms")
    cand = load_candidates(args.arms, id_column=args.id_column, columns=args.columns,
                           **design_cli.categorical_request(args.categorical,
                                                            args.columns))
    if (args.theta is None) == (args.means is None):
        raise ValueError("--theta/--means: give exactly one: --theta (d values, a linear "
                         "model) or --means (one value per arm)")
    if args.theta is not None:
        theta = load_vector(args.theta, "--theta")
        reg = design_cli.model_regressors(cand.factors(), args.model, args.intercept,
                                          list(cand.columns), code=args.coded,
                                          categorical=cand.categorical,
                                          contrasts=args.contrasts)
        X = reg.X
        if theta.shape[0] != X.shape[1]:
            what = (f"feature columns {cand.columns}" if args.model is None
                    and not reg.intercept else f"terms {reg.terms} of the model")
            hint = ("; with an intercept (the baseline first), pass --intercept"
                    if theta.shape[0] == X.shape[1] + 1 and not reg.intercept else "")
            raise ValueError(f"--theta: {theta.shape[0]} values for {X.shape[1]} {what}"
                             f"{hint}")
    elif args.model is not None or args.intercept or args.coded or args.categorical:
        raise ValueError("--model/--intercept/--coded go with --theta (a linear model), as "
                         "does --categorical; --means gives one mean per arm")
    else:
        theta = load_vector(args.means, "--means")
        if theta.shape[0] != cand.X.shape[0]:
            raise ValueError(f"--means: {theta.shape[0]} values for {cand.X.shape[0]} arms")
        X = np.eye(cand.X.shape[0])
    return Instance(name=Path(args.arms).stem, X=X, theta=theta, sigma=args.noise,
                    m=1 if args.m is None else args.m,
                    reference=f"user file {args.arms}", extra={"ids": cand.ids})


def _add_user_instance(p: argparse.ArgumentParser, noise_flag: bool = True) -> None:
    """The flags of a user's own instance (see :func:`_user_instance`)."""
    g = p.add_argument_group("your own instance (instead of --instance)")
    g.add_argument("--arms", help="candidate file (CSV/TSV/NPY/Parquet)")
    g.add_argument("--id-column", help="column with the arms' IDs")
    g.add_argument("--columns", help="feature columns, comma-separated")
    g.add_argument("--theta", help="parameter, one value per term of the model (the "
                   "intercept first with --intercept or --model): comma-separated values or "
                   "a file (use --theta=-1,2 for a leading minus)")
    g.add_argument("--means", help="one mean per arm (values or a file): unstructured")
    from bandits import design_cli

    design_cli.add_model_options(
        g, "add a constant term (default: with --model, yes unless its terms span a "
        "constant; without --model, no; `oed experiment` adds one unless the features span "
        "a constant, so pass --intercept to rehearse its model)", prefix="with --theta: ")
    design_cli.add_categorical_option(g)
    if noise_flag:
        g.add_argument("--noise", type=_POS, default=1.0,
                       help="standard deviation of one measurement (1.0)")


def _ids(inst) -> list[str] | None:
    return (getattr(inst, "extra", None) or {}).get("ids")


def _result_dict(res, inst) -> dict[str, Any]:
    return {
        "algorithm": res.algorithm, "instance": res.instance, "seed": res.seed,
        "samples": res.samples, "stopped_by": res.stopped_by,
        "recommendation": res.recommendation.tolist(), "correct": res.correct,
        "best": sorted(int(a) for a in inst.best), "counts": res.counts.tolist(),
        "wall_time": res.wall_time,
        **({"recommendation_ids": [_ids(inst)[a] for a in res.recommendation.tolist()]}
           if _ids(inst) else {}),
    }


def format_result(res, inst=None) -> str:
    """A readable multi-line report of a :class:`bandits.RunResult`."""
    rows = [("algorithm", res.algorithm), ("instance", res.instance), ("seed", res.seed),
            ("samples", f"{res.samples:,}"),
            ("stopped_by", res.stopped_by + ("  (budget spent: the recommendation is NOT "
                                             "certified)" if res.stopped_by == "budget"
                                             else "")),
            ("recommendation", res.recommendation.tolist())]
    ids = None if inst is None else _ids(inst)
    if ids:
        rows.append(("recommended IDs", ", ".join(ids[a] for a in res.recommendation)))
    best = "" if inst is None else f"  (true top-{inst.m}: {sorted(int(a) for a in inst.best)})"
    rows += [("correct", f"{res.correct}{best}"), ("counts", res.counts.tolist()),
             ("wall_time", f"{res.wall_time * 1e3:.3f} ms")]
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k.ljust(width)}  {v}" for k, v in rows)


def _noise_note(inst: Any, specs: list[tuple[str, dict[str, Any]]]) -> None:
    """Say on stderr when an algorithm assumes less noise (``sigma``) than the simulated
    measurements have (``--noise`` or the instance's), or a bound ``S`` below the
    instance's ``||theta||``: a legitimate robustness study, but the run's delta guarantee
    does not hold then, and ``--sigma`` is easily taken for the noise of the simulation."""
    noise = getattr(inst, "sigma", None)
    theta = getattr(inst, "theta", None)
    norm = None if theta is None else float(np.linalg.norm(theta))
    for label, opts in specs:
        sigma = opts.get("sigma")
        if noise is not None and sigma is not None and sigma < noise:
            print(f"note: {label} assumes noise sigma = {sigma:g}, below the simulated "
                  f"noise {noise:g} (--noise or the instance's): its delta guarantee does "
                  "not hold in this simulation (--sigma is the noise level the algorithm "
                  "assumes)", file=sys.stderr)
        S = opts.get("S")
        if norm is not None and S is not None and S < norm:
            print(f"note: {label} assumes ||theta|| <= S = {S:g}, below the instance's "
                  f"||theta|| = {norm:.4g}: its theoretical threshold's delta guarantee "
                  "does not hold in this simulation (--S bounds the norm of theta)",
                  file=sys.stderr)


def _cmd_run(args: argparse.Namespace) -> int:
    from bandits.runner import run

    name, opts = parse_algorithm(args.algorithm)
    opts = {**_options_for(name, _common_options(args)), **opts}
    inst = _instance(args)
    _noise_note(inst, [(name, opts)])
    kwargs = {"delta": args.delta, "epsilon": args.epsilon, **opts}
    # load the jitted code first (a run capped at K + 2 pulls), so that wall_time measures
    # the run and not numba's loading of the cached machine code (or its first compile)
    with first_use_notice():
        run(name, inst, seed=args.seed, max_samples=min(args.max_samples, inst.K + 2),
            **kwargs)
    res = run(name, inst, seed=args.seed, max_samples=args.max_samples, **kwargs)
    if args.json:
        print(json.dumps(_result_dict(res, inst), indent=2))
    else:
        print(format_result(res, inst))
    return 0


def _cmd_replicate(args: argparse.Namespace) -> int:
    from bandits.replicate import label_of, replicate

    common = _common_options(args)
    specs = []
    for text in args.algorithms:
        name, opts = parse_algorithm(text)
        opts = {**_options_for(name, common), **opts}
        specs.append((label_of(name, opts), name, opts))
    if args.runs < 1:
        raise ValueError(f"--runs must be a positive integer; got {args.runs}")
    if args.first_seed < 0:
        raise ValueError(f"--first-seed must be >= 0; got {args.first_seed}")
    check_output(args.out, "--out", (".csv", ".json"))
    check_output(args.plot, "--plot", PLOT_FORMATS)
    inst = _instance(args)
    _noise_note(inst, [(label, opts) for label, _name, opts in specs])
    # compile (first use) or load the kernels once here, before the timed runs: the workers
    # then load the cached code instead of each compiling it
    from bandits.runner import run

    with first_use_notice():
        for _label, name, opts in specs:
            run(name, inst, seed=0, max_samples=min(args.max_samples, inst.K + 2),
                delta=args.delta, epsilon=args.epsilon, **opts)
    client = None
    backend = args.backend
    if args.scheduler:
        try:
            from distributed import Client
        except ImportError:
            raise ValueError("--scheduler needs dask.distributed: "
                             "pip install 'oed-bandits[dask]'") from None
        client = Client(args.scheduler)
        backend = "dask"
    try:
        table = replicate(specs, inst, args.runs,
                          seeds=range(args.first_seed, args.first_seed + args.runs),
                          n_jobs=args.jobs, backend=backend, client=client,
                          progress=args.progress, delta=args.delta, epsilon=args.epsilon,
                          max_samples=args.max_samples)
    finally:
        if client is not None:
            client.close()
    summary = table.summary()
    if args.json:
        print(json.dumps(summary.to_dict(), indent=2))
    else:
        print(f"{args.runs} runs per algorithm, delta={args.delta}, epsilon={args.epsilon}, "
              f"{table.meta['backend']} x{table.meta['n_jobs']}, "
              f"{table.meta['elapsed']:.2f} s")
        print(summary)
    if args.out:
        table.save(args.out)
        print(f"table written to {args.out}", file=sys.stderr if args.json else sys.stdout)
    if args.plot:
        from bandits.plots import boxplot_samples

        boxplot_samples(table, args.plot, log=args.log, title=args.title)
        print(f"plot written to {args.plot}", file=sys.stderr if args.json else sys.stdout)
    return 0


#: Help of the GIFA rule flags (bandits.gifa's module docstring has the formulas).
_RULE_HELP = {
    "compute_jt": "how the candidate top set J(t) is chosen: empirical (the m largest "
                  "estimated means) or ugape (the m arms j with the smallest m-th largest "
                  "B(i, j))",
    "compute_bt": "how the arm b(t) of J(t) is chosen: lucb (argmax over j in J of max over "
                  "i not in J of B(i, j)) or gifa (argmax over j in J of the m-th largest "
                  "B(i, j), i != j)",
    "stopping": "stopping rule: lucb (B(c, b) <= eps) or ugape (max over J of the "
                "m-th largest B(i, j) <= eps)",
    "selection": "which arm to pull for the pair (b, c): largest-variance, greedy (Xu et "
                 "al. Eq. 9), optimized (the l1 design of x_b - x_c, Eq. 10-12) or both",
    "indices": "confidence widths: paired (||x_i - x_j||) or individual (||x_i|| + ||x_j||)",
    "threshold": "exploration threshold: theoretical (needs S), lingape (Xu et al.), "
                 "heuristic (Reda et al.'s experiments) or lucb1",
}


def _add_sim_options(p: argparse.ArgumentParser) -> None:
    from bandits.gifa import RULE_CHOICES

    try:
        from bandits.instances import INSTANCES
        known = ", ".join(INSTANCES)
    except ImportError:  # pragma: no cover - the registry ships with the package
        known = "soare"
    p.add_argument("--instance", help=f"registered instance name ({known}), or your own "
                   "with --arms")
    _add_user_instance(p)
    p.add_argument("-p", "--param", action="append", metavar="KEY=VALUE",
                   help="instance parameter, repeatable (e.g. --param K=3 --param "
                        "omega=0.1)")
    p.add_argument("--m", type=_COUNT, default=None, help="size of the top set (instance m)")
    p.add_argument("--delta", type=_PROB, default=0.05,
                   help="error probability: a stop by the rule is right with probability at "
                   "least 1 - delta (0.05)")
    p.add_argument("--epsilon", type=_NONNEG, default=0.0, help="tolerance (0)")
    p.add_argument("--max-samples", type=_COUNT, default=10**7, help="sample budget (1e7)")
    rules = p.add_argument_group("rule overrides (for each algorithm that has the option: the "
                                 "GIFA family; --sigma every linear one; --S and --threshold "
                                 "also lingame)")
    for key in _RULES:
        rules.add_argument(f"--{key.replace('_', '-')}", dest=key,
                           choices=sorted(RULE_CHOICES[key]), default=None)
    rules.add_argument("--reg", type=_NONNEG, default=None,
                       help="regulariser V_0 = reg I (default (sigma/20)^2, the authors' "
                            "code; lingape: 1)")
    rules.add_argument("--sigma", type=_POS, default=None,
                       help="noise level the algorithm assumes (default: the instance's)")
    rules.add_argument("--S", type=_POS, default=None, dest="S",
                       help="bound on ||theta|| for the thresholds (default: the instance's)")
    for action in rules._group_actions:  # the rule flags: what each rule decides
        action.help = action.help or _RULE_HELP.get(action.dest)
    p.add_argument("--json", action="store_true", help="print JSON")


def _cmd_complexity(args: argparse.Namespace) -> int:
    """``oed complexity --instance NAME``: the complexity constants of an instance."""
    from bandits.complexity import complexity_constants, soare_constants

    inst = _instance(args)
    sigma = inst.sigma if args.sigma is None else args.sigma
    out: dict[str, Any] = {"instance": inst.name, "m": inst.m, "epsilon": args.epsilon}
    out["Reda et al. (2021) Table 2"] = complexity_constants(inst.X, inst.means, inst.m,
                                                             args.epsilon, sigma=sigma)
    theta = getattr(inst, "theta", None)
    means = np.asarray(inst.means, dtype=float)
    if inst.m == 1 and theta is not None and inst.Z is None \
            and np.count_nonzero(means == means.max()) > 1:
        # a tie for the best arm: Soare et al.'s constants are infinite, like Table 2's
        # (soare_constants refuses such a theta)
        out["Soare et al. (2014)"] = {"H_LB": float("inf"), "N_star": float("inf")}
    elif inst.m == 1 and theta is not None and inst.Z is None:
        sc = soare_constants(inst.X, theta, sigma=sigma, delta=args.delta)
        out["Soare et al. (2014)"] = {
            "H_LB": sc.H_LB, "H_LB_lower": sc.H_LB_lower, "N_star": sc.N_star,
            "rho_G": sc.rho_G, "rho_XY": sc.rho_XY, "lemma2_lower": sc.lemma2_lower,
            "lemma2_upper": sc.lemma2_upper, "oracle_weights": sc.oracle_weights}
    if args.json:
        print(json.dumps(jsonable(out), indent=2))
        return 0
    print(f"instance {inst.name}, m = {inst.m}, epsilon = {args.epsilon}")
    for section, values in out.items():
        if isinstance(values, dict):
            print(f"\n{section}")
            for key, v in values.items():
                text = (np.array2string(np.asarray(v), precision=4) if np.ndim(v)
                        else f"{v:,.6g}")
                print(f"  {key:<32} {text}")
    return 0



def _add_model_options(p: argparse.ArgumentParser) -> None:
    """``--model`` / ``--intercept`` of ``oed experiment new`` and ``plan``."""
    from bandits import design_cli

    design_cli.add_model_options(
        p, "add a constant term (the baseline response); default: added exactly when the "
        "features do not already span a constant (one-hot features do), since without it "
        "the fit forces a zero baseline and can certify a wrong set")
    design_cli.add_categorical_option(p)


def _intercept(args: argparse.Namespace) -> bool | str:
    return "auto" if args.intercept is None else args.intercept


def _cmd_experiment(args: argparse.Namespace) -> int:
    """``oed experiment new|ask|tell|observe|cancel|status|plan``: a lab experiment in a state
    file (:mod:`bandits.experiment`)."""
    from bandits import experiment as ex
    from bandits.io import write_id_table

    if args.action == "new":
        pol = ex.new_experiment(args.state, args.arms, algorithm=args.algorithm,
                                id_column=args.id_column, columns=args.columns, m=args.m,
                                delta=args.delta, sigma=args.sigma, S=args.S,
                                threshold=args.threshold, seed=args.seed,
                                max_samples=args.max_samples, force=args.force,
                                model=args.model, intercept=_intercept(args),
                                code=args.coded, categorical=args.categorical,
                                contrasts=args.contrasts)
        from bandits._core.state import read_state

        model = read_state(args.state)["experiment"]["model"]
        print(f"new experiment: {args.algorithm}, K = {len(pol.ids)} arms, m = {args.m}, "
              f"delta = {args.delta}; state in {args.state}")
        print(f"model: {model['description']}; terms {', '.join(model['terms'])}")
        return 0
    if args.action == "ask":
        ids = ex.ask(args.state, args.n)
        if not ids:
            print("no new measurement can be chosen before outstanding results are told "
                  "(oed experiment status lists them; if their results are lost, withdraw "
                  "them with oed experiment cancel)", file=sys.stderr)
        if args.out:
            write_id_table(args.out, ("id", "reward"), [(i, "") for i in ids])
            print(f"{len(ids)} measurements to run written to {args.out}")
        else:
            print("\n".join(ids))
        return 0
    if args.action in ("tell", "observe"):
        told = ex.tell(args.state, args.results, observe=args.action == "observe",
                       id_column=args.id_column, reward_column=args.reward_column)
        print(f"{told.taken} results taken")
        rejected = told.check.rejected
        if told.stopped_by is not None:
            how, label = ex.stop_phrase(told.stopped_by, told.heuristic, rejected)
            print(f"stopped after {told.samples} samples ({how}); {label}: "
                  f"{', '.join(told.recommended) or 'none'}")
            if told.unused:
                print(f"{told.unused} of these results came after the stop: recorded in the "
                      "state, not used")
        if rejected:
            print(f"model check REJECTED: {told.check.message}")
        return 0
    if args.action == "cancel":
        if (args.sheet is None) == (not args.all):
            raise ValueError("cancel: give the sheet of the lost measurements or --all "
                             "(exactly one)")
        ids = None
        if args.sheet is not None:
            ids = ex.read_ids(args.sheet, args.id_column)
        gone = ex.cancel(args.state, ids)
        print(f"{len(gone)} outstanding measurements withdrawn (the next ask asks the "
              "planned ones again)")
        return 0
    if args.action == "export":
        rows = ex.measurements(args.state)
        write_id_table(args.out, ("id", "reward"), rows)
        print(f"{len(rows)} measurements written to {args.out} (id, reward; `oed experiment "
              "observe` reads it)")
        return 0
    if args.action == "status":
        st = ex.status(args.state, simulations=args.simulations)
        if args.json:
            from dataclasses import asdict

            print(json.dumps(asdict(st), indent=2))
            return 0
        print(f"algorithm        {st.algorithm}")
        print(f"model            {st.model}")
        print(f"samples so far   {st.samples}")
        print(f"outstanding      {len(st.outstanding)}")
        label = ("recommended" if not st.model_rejected else "recommended (not certified)"
                 ) if st.stopped else "current best"
        guess = "" if st.identified else (" (a guess: the measurements do not determine the "
                                          "model yet, minimum-norm estimate)")
        print(f"{label:<16} {', '.join(st.best)}{guess}")
        rule = ex.stop_phrase("rule", st.heuristic, st.model_rejected)[0].removeprefix(
            "the stopping rule ") if st.stopped else (
            f"ended by {st.stopped_by}" if st.stopped_by else "does not hold yet")
        print(f"stopping rule    {rule}")
        print(f"model check      {'REJECTED: ' if st.model_rejected else ''}{st.model_check}")
        if not st.stopped_by:
            left = "unknown" if st.remaining is None else f"about {st.remaining}"
            print(f"still needed     {left} ({st.basis})")
        return 0
    theta = load_vector(args.theta, "--theta")
    out = ex.plan(args.arms, theta, algorithm=args.algorithm, id_column=args.id_column,
                  columns=args.columns, m=args.m, delta=args.delta, sigma=args.sigma,
                  S=args.S, runs=args.runs, model=args.model, intercept=_intercept(args),
                  code=args.coded, categorical=args.categorical,
                  contrasts=args.contrasts, max_samples=args.max_samples)
    if args.json:
        print(json.dumps(jsonable(out), indent=2))
        return 0
    print(f"K = {out['K']} arms, d = {out['d']} ({out['model']}), top {out['m']} on this "
          f"theta: {', '.join(out['top'])}")
    print("complexity constants (Réda et al. 2021, Table 2):")
    for key, v in out["constants"].items():
        print(f"  {key:<32} {v:,.6g}")
    print(f"predicted samples ({args.runs} simulated runs each):")
    for thr, v in out["simulations"].items():
        guarantee = out["guarantees"].get(thr, "")
        hit = v.get("budget_hit", 0)
        at_least = ">= " if 2 * hit > v["runs"] else ""  # the median run did not stop
        print(f"  {thr:<12} median {at_least}{v['median']:>{9 - len(at_least)},}  (min "
              f"{v['min']:,}, max {v['max']:,})  {guarantee}")
        if hit:
            print(f"  {'':<12} {hit} of {v['runs']} runs reached the simulation budget of "
                  f"{v['max_samples']:,} samples without stopping (a lower bound; raise "
                  "--max-samples)")
    return 0

def _cmd_reproduce(args: argparse.Namespace) -> int:
    from bandits.reproduce import format_rows, reproduce

    if args.name == "list":
        from bandits.reproduce import catalogue

        print(f"{'name':<16} {'runs':>5} {'time*':>7}  what")
        for e in catalogue():
            runs = "-" if e["runs"] is None else str(e["runs"])
            secs = e["seconds"]
            when = ("?" if secs is None else "< 1 s" if secs < 1
                    else f"{secs:.0f} s" if secs < 120 else f"{secs / 60:.0f} min")
            print(f"{e['name']:<16} {runs:>5} {when:>7}  {e['title']}")
        print("* default runs, 2 cores (a laptop); --runs N scales the time about linearly, "
              "--full uses the paper's runs")
        return 0
    if args.name == "all" or args.markdown:
        from bandits.reproduce.table import reproduce_all

        names = None if args.name == "all" else [args.name]
        reproduce_all(names, args.out, markdown=args.markdown, runs=args.runs, jobs=args.jobs,
                      seed=args.seed, full=args.full)
        if args.markdown:
            print(f"table written to {args.markdown}")
        return 0
    progress = sys.stderr.isatty() if args.progress is None else args.progress
    rows = reproduce(args.name, args.out, runs=args.runs, jobs=args.jobs, seed=args.seed,
                     full=args.full, progress=progress)
    print(format_rows(rows))
    print(f"\nfiles written to {args.out}/{args.name}/")
    return 0


def _cmd_subset(args: argparse.Namespace) -> int:
    """``oed subset ALGO``: regret curves of top-K subset algorithms (DART and baselines)."""
    from bandits.registry import entry
    from bandits.subsets import SubsetEnv, plot_regret, regret_curves

    check_output(args.out, "--out", (".csv",))
    check_output(args.plot, "--plot", PLOT_FORMATS)
    T = args.T
    opts = {k: _param_value(v) for k, v in _key_values(args.param or [], "--param").items()}
    for name in args.algorithms:
        entry(name).check_options(opts)
    means = None
    if args.means is not None:
        try:
            means = [float(x) for x in args.means.split(",")]
        except ValueError:
            raise ValueError(f"--means must be comma-separated numbers; got {args.means!r}"
                             ) from None
        if args.N is not None and args.N != len(means):
            raise ValueError(f"--N {args.N} but --means gives {len(means)} arm means; give "
                             "one of them, or as many means as arms")
    N = 45 if args.N is None else args.N

    def env(seed: int) -> SubsetEnv:
        return SubsetEnv.bernoulli(None if means else N, args.K, args.reward,
                                   means=means, seed=seed, rho=args.rho)

    configs = [(a, a, opts) for a in args.algorithms]
    rc = regret_curves(configs, env, T, runs=args.runs, seed=args.seed, jobs=args.jobs,
                       title=f"{args.reward} reward, N={len(means) if means else N}, "
                             f"K={args.K}")
    summ = rc.summary()
    if args.json:
        print(json.dumps(summ, indent=2))
    else:
        print(f"{'algorithm':<16} {'mean regret':>12} {'min':>12} {'max':>12} {'optimal':>8} "
              f"{'s/run':>7}")
        for lab, x in summ.items():
            print(f"{lab:<16} {x['mean']:>12,.1f} {x['min']:>12,.1f} {x['max']:>12,.1f} "
                  f"{x['correct']:>8.0%} {x['seconds'] / x['runs']:>7.2f}")
    if args.out:
        rc.to_csv(args.out)
        print(f"curves written to {args.out}", file=sys.stderr)
    if args.plot:
        plot_regret(rc, args.plot)  # saved by path=
        print(f"plot written to {args.plot}", file=sys.stderr)
    return 0


class UsageError(ValueError):
    """A command-line usage error (unknown flag, bad value of a flag)."""


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (``oed: error: ...``, status 2) like every
    other error of ``oed``, not a usage dump followed by ``SystemExit``."""

    def error(self, message: str) -> NoReturn:
        sub = self.prog.removeprefix("oed").strip()
        raise UsageError(f"{sub + ': ' if sub else ''}{message} (see oed {sub} --help)"
                         .replace("oed  --help", "oed --help"))


def _version() -> str:
    import design

    return design.__version__


def algorithms_help(family: str | None = None) -> str:
    """The registered algorithms with their options and defaults (``--help`` epilogs)."""
    from bandits.registry import REGISTRY

    lines = ["algorithms (NAME or NAME:key=value,...; defaults shown):"]
    for e in REGISTRY.values():
        if family is not None and e.family != family:
            continue
        lines.append(f"  {e.name:<15} {e.family:<9} {e.summary}")
        opts = ", ".join(o.describe() for o in e.options)
        lines.append(f"  {'':<15} {'':<9} options: {opts or '(none)'}")
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``oed`` (exposed for tests and documentation)."""
    p = _Parser(prog="oed", description="Optimal experimental design and "
                                "design-driven bandits.")
    p.add_argument("--version", action="version", version=f"oed-bandits {_version()}",
                   help="print the package version and exit")
    sub = p.add_subparsers(dest="command", required=True)

    cx = sub.add_parser("complexity", help="complexity constants of an instance "
                        "(Reda et al. Table 2, LinGapE, Soare et al. H_LB / N* / rho)")
    cx.add_argument("--instance", help="instance name (see oed run --help), or your own "
                    "with --arms")
    _add_user_instance(cx)
    cx.add_argument("-p", "--param", action="append", metavar="KEY=VALUE",
                    help="instance parameter, repeatable (e.g. --param d=5)")
    cx.add_argument("--m", type=_COUNT, default=None, help="size of the top set")
    cx.add_argument("--epsilon", type=_NONNEG, default=0.0, help="accuracy epsilon")
    cx.add_argument("--sigma", type=_POS, default=None, help="noise level (default: "
                    "the instance's)")
    cx.add_argument("--delta", type=_PROB, default=0.05,
                    help="error probability delta of the bound N* (0.05)")
    cx.add_argument("--json", action="store_true", help="print JSON")
    cx.set_defaults(func=_cmd_complexity)

    rp = sub.add_parser("reproduce", help="reproduce a published table or figure "
                        "('oed reproduce list' for the names, 'all' for every one)")
    rp.add_argument("name", help="reproduction name, 'list', or 'all'")
    rp.add_argument("--out", default="out", help="output folder (default: out)")
    rp.add_argument("--runs", type=_COUNT, default=None, help="runs per configuration")
    rp.add_argument("--jobs", type=_JOBS, default=-1, help="worker processes (-1: all cores)")
    rp.add_argument("--seed", type=_INDEX, default=0, help="first seed")
    rp.add_argument("--full", action="store_true", help="the paper's full settings")
    rp.add_argument("--markdown", default=None, metavar="PATH",
                    help="also write the published-vs-ours Markdown page (with NAME 'all': "
                         "every entry; the docs' reproduction.md)")
    rp.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                    help="print each configuration as it starts and progress bars (default: "
                         "on a terminal)")
    rp.set_defaults(func=_cmd_reproduce)

    d = sub.add_parser("demo", help="run the built-in example and print a report")
    d.add_argument("--d", type=_COUNT, default=5, help="dimension of the Soare instance")
    d.add_argument("--omega", type=_REAL, default=0.01, help="angle of the extra arm")
    d.add_argument("--n", type=_COUNT, default=100, help="budget for the rounded allocation")
    d.set_defaults(func=_cmd_demo)

    w = sub.add_parser("warmup", help="compile every jitted kernel once (numba caches the "
                       "machine code: later first calls load it in milliseconds)")
    w.add_argument("--family", action="append", default=None, metavar="NAME",
                   help="only this family, repeatable (default: all; names listed by "
                        "oed warmup --list)")
    w.add_argument("--list", action="store_true", help="list the families and exit")
    w.add_argument("--progress", action=argparse.BooleanOptionalAction, default=True,
                   help="progress bar on stderr (default: on)")
    w.set_defaults(func=_cmd_warmup)

    g = sub.add_parser("design", help="compute an optimal design with its certificate")
    g.add_argument("criterion", choices=["g", "d", "a", "i", "ds", "c", "xy", "h"],
                   help="g: min max variance; d: max det A; a: min trace A^-1; i: integrated "
                        "variance; ds: subset of parameters; c: one direction (--target); "
                        "xy: differences of arms or --targets/--decisions; h: GLM (--theta)")
    g.add_argument("--arms", required=True, help="arms file, one arm per row (CSV/TSV/NPY)")
    g.add_argument("--id-column", help="column of --arms holding the candidates' IDs (kept "
                   "as text, not a regressor); without it the IDs in the outputs are the row "
                   "numbers 0, 1, ...")
    g.add_argument("--target", help="c-optimal direction y: '1,0,-1' or a file")
    g.add_argument("--targets", help="xy: target directions Y, one per row (default: all "
                   "pairwise differences of the arms)")
    g.add_argument("--decisions", help="xy (transductive): decision set Z, one per row; "
                   "targets are its pairwise differences")
    g.add_argument("--theta", help="h: parameter theta, '3,0' or a file")
    g.add_argument("--link", default="logistic", help="h: GLM link (logistic, probit, "
                   "poisson, identity)")
    g.add_argument("--tol", type=_PROB, default=None,
                   help="certified relative gap to reach (default: 1e-6 for g/d, 1e-4 for "
                        "xy/h, the criterion's for the others)")
    g.add_argument("--method", default=None,
                   help="solver (default auto): g/d fw, fw-away, cvxpy; c highs, cvxpy; "
                        "xy/h ipm, barrier, cvxpy; a/i/ds exchange, cvxpy; with "
                        "--costs/--budget (d/a/i) barrier, cvxpy")
    g.add_argument("--max-iter", type=_COUNT, default=None,
                   help="iteration cap of the solver (default: the solver's; a capped run "
                        "says converged=false)")
    g.add_argument("--out", help="write the design here instead of printing the JSON: "
                   "x.csv -- 'id,weight' (or 'id,runs' with --exact) for the candidates to "
                   "run only, in file order; x.json -- the full JSON with provenance")
    g.add_argument("--json", help="also write the full JSON (with provenance) here")
    from bandits.design_cli import add_design_arguments

    add_design_arguments(g)
    g.set_defaults(func=_cmd_design)

    r = sub.add_parser("round", help="round design weights to integer counts")
    r.add_argument("--weights", required=True, help="design JSON from `oed design` or a file")
    r.add_argument("--n", type=_COUNT, required=True, help="number of experiments")
    r.add_argument("--arms", help="arms file, to report the efficiency lost (and, with "
                   "--id-column, the IDs)")
    r.add_argument("--id-column", help="column of --arms holding the candidates' IDs; "
                   "without it the IDs are those stored in the design JSON of --weights, "
                   "else the row numbers 0, 1, ...")
    r.add_argument("--out", help="write the runs here instead of printing the JSON: x.csv "
                   "-- 'id,runs' for the candidates with runs > 0 (integers summing to "
                   "--n), in file order; x.json -- the full JSON with provenance")
    r.add_argument("--json", help="also write the full JSON (with provenance) here")
    r.add_argument("--criterion", choices=["g", "d"], default="g",
                   help="criterion of the efficiency loss reported with --arms (g)")
    from bandits import design_cli

    design_cli.add_model_options(
        r, "add a constant term (as oed design: with --model, unless its terms span one)",
        prefix="with --arms, when --weights records no model (a weights CSV): ")
    r.add_argument("--columns", help="with --arms, when --weights records no model: the "
                   "factor columns of --arms the design was computed on (as oed design "
                   "--columns; default every column but --id-column)")
    design_cli.add_categorical_option(r)
    r.add_argument("--eps", type=_POS, default=None,
                   help="round with the (1+eps) guarantee (Caratheodory reduction + efficient "
                        "rounding; needs --arms and n >= r(eps))")
    r.add_argument("--zero-tol", type=_PROB, default=None,
                   help="weights <= ZERO_TOL x the largest count as zero (a solver's "
                   "near-zero weights; default 1e-12): efficient rounding keeps every "
                   "other candidate, so it needs --n >= their number")
    r.set_defaults(func=_cmd_round)

    from bandits.registry import names

    raw = argparse.RawDescriptionHelpFormatter
    u = sub.add_parser("run", help="simulate one run of a bandit algorithm",
                       description="Simulate one run of ALGO on a named instance.",
                       epilog=algorithms_help(), formatter_class=raw)
    u.add_argument("algorithm", metavar="ALGO",
                   help=f"{', '.join(names())} (optionally NAME:key=value,...)")
    u.add_argument("--seed", type=_INDEX, default=0,
                   help="seed of the run: the noise and the random tie-breaks (0)")
    _add_sim_options(u)
    u.set_defaults(func=_cmd_run)

    q = sub.add_parser("replicate", help="replicate runs over seeds and summarise",
                       description="Run one or several algorithms on the same seeds, print "
                                   "the summary, optionally save the table and a box plot.",
                       epilog=algorithms_help(), formatter_class=raw)
    q.add_argument("algorithms", metavar="ALGO", nargs="+",
                   help=f"algorithms: {', '.join(names())} (NAME or NAME:key=value,...)")
    q.add_argument("--runs", type=_COUNT, default=500, help="runs per algorithm (500)")
    q.add_argument("--first-seed", type=_INDEX, default=0, help="seeds are first-seed, ... (0)")
    q.add_argument("--jobs", type=_JOBS, default=-1, help="worker processes (-1: all cores)")
    q.add_argument("--backend", choices=["processes", "dask", "serial"], default="processes",
                   help="processes: a local pool of --jobs workers; dask: a dask cluster "
                        "(--scheduler); serial: in this process (same table whatever the "
                        "backend)")
    q.add_argument("--scheduler", default=None,
                   help="address of a running dask scheduler (implies --backend dask)")
    q.add_argument("--out", help="write the tidy table (.csv, or .json)")
    q.add_argument("--plot", help="write a box plot of the sample complexity (.png/.pdf/.svg)")
    q.add_argument("--log", action="store_true", help="log scale for the plot")
    q.add_argument("--title", default=None, help="plot title")
    q.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bar (default: on a terminal for >= 50 runs)")
    _add_sim_options(q)
    q.set_defaults(func=_cmd_replicate)

    sb = sub.add_parser("subset", help="top-K subset bandits (DART and baselines): regret "
                        "curves over seeds", epilog=algorithms_help("subsets"),
                        formatter_class=raw)
    sb.add_argument("algorithms", metavar="ALGO", nargs="+", choices=names("subsets"))
    sb.add_argument("--N", type=_COUNT, default=None,
                    help="number of arms (45; with --means, the number of means)")
    sb.add_argument("--K", type=_COUNT, default=2, help="subset size (2)")
    sb.add_argument("--T", type=_COUNT, default="1e6", help="horizon (1e6)")
    sb.add_argument("--reward", default="mean", choices=["mean", "quadratic", "max"],
                    help="joint reward of a subset: mean, quadratic or max of its arms' "
                         "rewards (mean)")
    sb.add_argument("--means", default=None, help="arm means 'p1,p2,...' (default U[0,1] "
                    "per run)")
    sb.add_argument("--rho", type=_REAL, default=0.0, help="correlation through a shared "
                    "latent uniform (0)")
    sb.add_argument("--runs", type=_COUNT, default=5, help="runs (seeds) per algorithm (5)")
    sb.add_argument("--seed", type=_INDEX, default=0, help="first seed")
    sb.add_argument("--jobs", type=_JOBS, default=1, help="worker processes (-1: all cores)")
    sb.add_argument("-p", "--param", action="append", metavar="KEY=VALUE",
                    help="algorithm option, repeatable (e.g. lam=0.1, c=32, v=1)")
    sb.add_argument("--out", help="write the curves (CSV: algorithm, t, mean, min, max)")
    sb.add_argument("--plot", help="write the regret figure (.png/.pdf/.svg)")
    sb.add_argument("--json", action="store_true",
                    help="print the summary as JSON instead of a table")
    for action in sb._actions:
        if action.dest == "algorithms" and not action.help:
            action.help = (f"subset algorithms: {', '.join(action.choices)} (their options "
                           "are given with -p KEY=VALUE)")
    sb.set_defaults(func=_cmd_subset)
    ex = sub.add_parser("experiment", help="run a lab experiment from a state file: new, "
                        "ask, tell, observe, cancel, status, export, plan")
    exs = ex.add_subparsers(dest="action", required=True, metavar="ACTION",
                            help="new | ask | tell | observe | cancel | status | export | plan "
                            "(see "
                            "oed experiment ACTION --help)")
    e_new = exs.add_parser("new", help="start an experiment on a candidate file")
    e_new.add_argument("--arms", required=True, help="candidates (CSV/TSV/NPY/Parquet)")
    e_new.add_argument("--id-column", help="column with the candidates' IDs")
    e_new.add_argument("--columns", help="feature columns, comma-separated (default: all "
                       "but the ID column)")
    _add_model_options(e_new)
    e_new.add_argument("--algorithm", default="m-lingape",
                       help="registered linear algorithm (default m-lingape)")
    e_new.add_argument("--m", type=_COUNT, default=1,
                       help="size of the set of best candidates to identify (default 1)")
    e_new.add_argument("--delta", type=_PROB, default=0.05,
                       help="risk: the recommended set is wrong with probability at most "
                       "delta (default 0.05)")
    e_new.add_argument("--sigma", type=_POS, default=1.0,
                       help="noise standard deviation of one measurement")
    e_new.add_argument("--S", type=_POS,
                       help="bound on ||theta|| (needed by the theoretical threshold)")
    e_new.add_argument("--threshold", help="stopping threshold of the GIFA algorithms and "
                       "LinGame: theoretical (default; delta-correct by proof, needs --S) "
                       "or heuristic (no proof, cheaper)")
    e_new.add_argument("--seed", type=_INDEX, default=0,
                       help="seed of the algorithm's tie-breaking (default 0)")
    e_new.add_argument("--max-samples", type=_COUNT,
                       help="budget of measurements: the experiment ends there, saying "
                       "so (default: none)")
    e_new.add_argument("--state", required=True, help="state file (JSON) to create")
    e_new.add_argument("--force", action="store_true", help="overwrite an existing state")
    e_ask = exs.add_parser("ask", help="the next batch of measurements")
    e_ask.add_argument("--n", type=_COUNT, default=1,
                       help="number of measurements in the batch (default 1)")
    e_ask.add_argument("--out", help="write a CSV (id, reward) to fill in")
    for name, text in (("tell", "results of asked measurements (CSV: id, reward)"),
                       ("observe", "measurements that were not asked (warm start)")):
        e_t = exs.add_parser(name, help=text)
        e_t.add_argument("results", help="CSV/TSV with an ID and a reward column")
        e_t.add_argument("--id-column", default="id",
                         help="column of the results holding the IDs (default id)")
        e_t.add_argument("--reward-column", default="reward",
                         help="column of the results holding the rewards (default reward)")
        e_t.add_argument("--state", required=True, help="state file of the experiment")
    e_ca = exs.add_parser("cancel", help="withdraw outstanding measurements whose results "
                          "are lost (nothing is learnt from them; planned ones are asked "
                          "again)")
    e_ca.add_argument("sheet", nargs="?", help="CSV/TSV with an ID column: the lost "
                      "measurements (e.g. the sheet written by ask; other columns are "
                      "ignored)")
    e_ca.add_argument("--all", action="store_true", help="withdraw every outstanding "
                      "measurement")
    e_ca.add_argument("--id-column", default="id",
                      help="column of the sheet holding the IDs (default id)")
    e_ca.add_argument("--state", required=True, help="state file of the experiment")
    e_st = exs.add_parser("status", help="best set, stopping rule, samples, estimate")
    e_st.add_argument("--simulations", type=_COUNT, default=5,
                      help="simulated runs on the current estimate behind the estimate of "
                      "the samples still needed (default 5)")
    e_st.add_argument("--json", action="store_true", help="print JSON")
    e_ex = exs.add_parser("export", help="every measurement so far as a CSV (id, reward) "
                          "that `observe` reads: to carry the data into a new experiment "
                          "(e.g. with a richer --model after a rejected model check)")
    e_ex.add_argument("--out", required=True, help="CSV file to write")
    for q in (e_ask, e_st, e_ex):
        q.add_argument("--state", required=True, help="state file of the experiment")
    e_pl = exs.add_parser("plan", help="predicted budget on a plausible theta, the "
                          "algorithm's proven threshold vs the heuristic one")
    e_pl.add_argument("--arms", required=True, help="candidates (CSV/TSV/NPY/Parquet)")
    e_pl.add_argument("--id-column", help="column with the candidates' IDs")
    e_pl.add_argument("--columns", help="feature columns, comma-separated (default: all "
                      "but the ID column)")
    _add_model_options(e_pl)
    e_pl.add_argument("--theta", required=True,
                      help="a plausible parameter, one value per term of the model (the "
                      "intercept first when one is added): values (comma-separated) or a "
                      "file")
    e_pl.add_argument("--algorithm", default="m-lingape",
                      help="registered linear algorithm (default m-lingape)")
    e_pl.add_argument("--m", type=_COUNT, default=1,
                      help="size of the set of best candidates to identify (default 1)")
    e_pl.add_argument("--delta", type=_PROB, default=0.05,
                      help="risk of a wrong set (default 0.05)")
    e_pl.add_argument("--sigma", type=_POS, default=1.0,
                      help="noise standard deviation of one measurement (default 1)")
    e_pl.add_argument("--S", type=_POS, help="bound on ||theta|| for the theoretical and "
                      "lingape thresholds (default: ||theta|| of --theta)")
    e_pl.add_argument("--runs", type=_COUNT, default=10,
                      help="simulated runs per threshold (default 10)")
    e_pl.add_argument("--max-samples", type=_COUNT, default=10**6,
                      help="budget of each simulated run (default 1000000); a run that "
                      "reaches it is reported as not stopped")
    e_pl.add_argument("--json", action="store_true", help="print JSON")
    ex.set_defaults(func=_cmd_experiment)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``oed`` console script."""
    np.set_printoptions(precision=6, suppress=True)
    from bandits.provenance import set_command

    set_command(list(sys.argv[1:] if argv is None else argv))
    try:
        args = build_parser().parse_args(argv)
        return int(args.func(args))
    except (ValueError, OSError) as exc:
        print(f"oed: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        # workers are stopped by the backends (bandits.replicate); files are only written
        # after all runs finished, so nothing is half-written
        print("oed: interrupted", file=sys.stderr)
        return 130
    finally:
        set_command(None)  # later Python calls in this process are not this command


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
