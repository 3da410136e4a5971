"""The ``oed`` command line.

Subcommands: ``demo`` (the built-in example), ``design`` (compute and certify a design
from a file of arms), ``round`` (turn weights into integer counts).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

import numpy as np

from bandits.io import design_to_dict, load_matrix, load_vector, load_weights


def _cmd_demo(args: argparse.Namespace) -> int:
    from bandits.demo import demo_report

    print(demo_report(d=args.d, omega=args.omega, n=args.n))
    return 0


def _cmd_design(args: argparse.Namespace) -> int:
    import design

    X = load_matrix(args.arms, "arms")
    if args.criterion in ("g", "d"):
        fn = design.g_optimal if args.criterion == "g" else design.d_optimal
        res = fn(X, tol=args.tol or 1e-6, method=args.method or "auto", max_iter=args.max_iter)
        out = design_to_dict(res)
        cert = design.kw_check(X, res.weights, tol=args.tol or 1e-6)
        out["certificate"] = {"max_variance": cert.max_variance, "argmax": cert.argmax,
                              "d": cert.d, "g_efficiency": cert.g_efficiency}
    elif args.criterion == "c":
        if args.target is None:
            raise ValueError("--target y is required for the c-optimal design")
        y = load_vector(args.target, "target")
        res = design.c_optimal(X, y, method=args.method or "auto")
        out = design_to_dict(res)
        cc = design.c_check(X, res.weights, y)
        out["certificate"] = {"value": cc.value, "max_response": cc.max_response,
                              "ratio": cc.ratio, "lower_bound": cc.lower_bound}
    else:  # pragma: no cover - argparse restricts the choices
        raise ValueError(f"unknown criterion {args.criterion!r}")
    text = json.dumps(out, indent=2)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text + "\n")
        print(f"{res!r}\nwritten to {args.out}")
    else:
        print(text)
    return 0


def _cmd_round(args: argparse.Namespace) -> int:
    from rounding import efficiency_loss, efficient_round

    w = load_weights(args.weights)
    counts = efficient_round(w, args.n)
    out: dict = {"n": args.n, "counts": counts.tolist()}
    if args.arms:
        X = load_matrix(args.arms, "arms")
        loss = efficiency_loss(X, w, counts, args.criterion.upper())
        out["loss"] = {"criterion": loss.criterion, "approx_value": loss.approx_value,
                       "rounded_value": loss.rounded_value, "ratio": loss.ratio,
                       "bound": loss.bound}
    print(json.dumps(out, indent=2))
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``oed`` (exposed for tests and documentation)."""
    p = argparse.ArgumentParser(prog="oed", description="Optimal experimental design and "
                                "design-driven bandits.")
    sub = p.add_subparsers(dest="command", required=True)

    d = sub.add_parser("demo", help="run the built-in example and print a report")
    d.add_argument("--d", type=int, default=5, help="dimension of the Soare instance")
    d.add_argument("--omega", type=float, default=0.01, help="angle of the extra arm")
    d.add_argument("--n", type=int, default=100, help="budget for the rounded allocation")
    d.set_defaults(func=_cmd_demo)

    g = sub.add_parser("design", help="compute an optimal design with its certificate")
    g.add_argument("criterion", choices=["g", "d", "c"])
    g.add_argument("--arms", required=True, help="arms file, one arm per row (CSV/TSV/NPY)")
    g.add_argument("--target", help="c-optimal direction y: '1,0,-1' or a file")
    g.add_argument("--tol", type=float, default=None)
    g.add_argument("--method", default=None)
    g.add_argument("--max-iter", type=int, default=None)
    g.add_argument("--out", help="write the JSON here instead of printing it")
    g.set_defaults(func=_cmd_design)

    r = sub.add_parser("round", help="round design weights to integer counts")
    r.add_argument("--weights", required=True, help="design JSON from `oed design` or a file")
    r.add_argument("--n", type=int, required=True, help="number of experiments")
    r.add_argument("--arms", help="arms file, to report the efficiency lost")
    r.add_argument("--criterion", choices=["g", "d"], default="g")
    r.set_defaults(func=_cmd_round)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``oed`` console script."""
    args = build_parser().parse_args(argv)
    np.set_printoptions(precision=6, suppress=True)
    try:
        return int(args.func(args))
    except ValueError as exc:
        print(f"oed: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
