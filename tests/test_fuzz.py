"""Property-based fuzzing of every public entry point and every ``oed`` command (issue 12).

One argument of a valid call is replaced by a generated value (hypothesis: integers up to
2**70, floats with NaN/inf, complex numbers, strings, None, booleans, arrays with the wrong
shape or dtype).  A reference predicate says whether the value is valid for the argument's
kind; the property is

* valid value   -> the call returns (no exception);
* invalid value -> ``ValueError`` whose message names the argument (for the command line:
  exit status 2 and one line ``oed: error: ...`` naming the flag);
* never another exception type, never a silently accepted invalid value (``seed=1.5``
  running as seed 1), never a hang: every call runs under a 10 s ``SIGALRM`` (a Python-level
  limit; hypothesis' own deadline is off because the first call of a kernel may load numba's
  cache).

Every outcome is counted by category (probes, ok, clear errors, silent, crashes, hangs);
``OED_FUZZ_REPORT=path`` writes the table as JSON (used for the before/after table of
issue 12, measured on main with ``OED_FUZZ_ISOLATE=1``, which runs each probe in a forked
child killed after 10 s so that a hang in C code is counted instead of hanging the run).
The whole file runs in well under a minute.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import numbers
import os
import select
import signal
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

TIME_LIMIT = 10  # seconds per call
EXAMPLES = int(os.environ.get("OED_FUZZ_EXAMPLES", "60"))
ISOLATE = os.environ.get("OED_FUZZ_ISOLATE") == "1"
TALLY: Counter = Counter()
FAILURES: list[str] = []

FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                suppress_health_check=list(HealthCheck))


# ----------------------------------------------------------------------------------------
# running one probe
# ----------------------------------------------------------------------------------------

class _Hang(Exception):
    pass


def _alarm(signum, frame):  # pragma: no cover - only on a hang
    raise _Hang


def _outcome(call: Callable[[], Any], name: str) -> tuple[str, str]:
    """``("ok"|"clear"|"unclear"|"crash"|"hang", detail)`` of ``call()``."""
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, TIME_LIMIT)
    try:
        call()
    except _Hang:
        return "hang", ""
    except ValueError as exc:
        msg = str(exc)
        return ("clear" if name in msg else "unclear"), f"ValueError: {msg[:200]}"
    except Exception as exc:  # noqa: BLE001 - every other type is the finding
        return "crash", f"{type(exc).__name__}: {str(exc)[:200]}"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    return "ok", ""


def _isolated(call: Callable[[], Any], name: str) -> tuple[str, str]:  # pragma: no cover
    """:func:`_outcome` in a forked child, killed after TIME_LIMIT (C-level hangs)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            res = _outcome(call, name)
        except BaseException as exc:  # noqa: BLE001
            res = ("crash", type(exc).__name__)
        os.write(w, json.dumps(res).encode())
        os._exit(0)
    os.close(w)
    ready, _, _ = select.select([r], [], [], TIME_LIMIT + 5)
    if not ready:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(r)
        return "hang", ""
    data = b""
    while chunk := os.read(r, 65536):
        data += chunk
    os.close(r)
    os.waitpid(pid, 0)
    return tuple(json.loads(data)) if data else ("crash", "child died")


def check(label: str, call: Callable[[], Any], name: str, valid: bool, value: Any) -> None:
    """Run one probe, count it, and fail the test on a wrong outcome."""
    kind, detail = (_isolated if ISOLATE else _outcome)(call, name)
    TALLY["probes"] += 1
    if valid:
        category = {"ok": "ok", "hang": "hangs"}.get(kind, "refused valid input" if kind in (
            "clear", "unclear") else "crashes")
    else:
        category = {"clear": "clear errors", "ok": "silent", "hang": "hangs"}.get(kind,
                                                                                "crashes")
    TALLY[category] += 1
    good = category in ("ok", "clear errors")
    if not good:
        FAILURES.append(f"{label}: {name}={value!r} ({'valid' if valid else 'invalid'}) -> "
                        f"{category} {detail}")
    if not ISOLATE and not os.environ.get("OED_FUZZ_REPORT"):
        assert good, FAILURES[-1]


# ----------------------------------------------------------------------------------------
# generated values and the reference predicates of each kind of argument
# ----------------------------------------------------------------------------------------

SCALARS = st.one_of(
    st.integers(-3, 5), st.integers(-2**70, 2**70),
    st.floats(allow_nan=True, allow_infinity=True), st.floats(-2.0, 2.0),
    st.sampled_from([0.5, 1.5, 2.5, 1e-3, 0.0, 1.0, -0.0, 1e300, 2.0**63]),
    st.complex_numbers(max_magnitude=2), st.text(max_size=3), st.sampled_from(["1", "0.1"]),
    st.none(), st.booleans(), st.sampled_from([np.int64(3), np.float64(0.25), np.int32(1)]),
    st.just([1, 2]),
)


def _is_int(x: Any) -> bool:
    return isinstance(x, numbers.Integral) and not isinstance(x, (bool, np.bool_))


def _is_real(x: Any) -> bool:
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Real):
        return False
    try:
        return math.isfinite(float(x))
    except OverflowError:
        return False


def int_in(lo: int, hi: int | None, cap: int | None = None) -> Callable[[Any], bool | None]:
    """Valid: an integer in ``[lo, hi]``; ``None`` (not probed) when valid but above
    ``cap`` (a budget of 2**60 is valid, and would run for ever)."""
    def ok(x: Any) -> bool | None:
        valid = _is_int(x) and lo <= x and (hi is None or x <= hi)
        return None if valid and cap is not None and x > cap else valid
    return ok


def real_in(lo: float, hi: float, open_lo: bool = False, open_hi: bool = False):
    def ok(x: Any) -> bool:
        if not _is_real(x):
            return False
        v = float(x)
        return lo <= v <= hi and not (open_lo and v == lo) and not (open_hi and v == hi)
    return ok


def OPT_BUDGET(x: Any) -> bool:  # noqa: N802 - a predicate like the others
    """A policy's budget: None (no budget) or an integer in [1, 2**62]."""
    return x is None or bool(int_in(1, 2**62)(x))


def OPT_ITER(x: Any) -> bool | None:  # noqa: N802
    """An iteration cap: None (the default) or a positive integer (not probed above 1e4)."""
    return True if x is None else int_in(1, None, 10**4)(x)


PROB = real_in(0.0, 1.0, True, True)
POS = real_in(0.0, math.inf, True)
NONNEG = real_in(0.0, math.inf)
SEED = int_in(0, 2**63 - 1)


def arrays_like(good: np.ndarray) -> st.SearchStrategy:
    """Bad variants of a valid array (and the valid array itself)."""
    flat = good.reshape(-1, 1) if good.ndim == 1 else good.ravel()
    bad = [good + 1j, good.astype(str), flat, good[None], good[:0],
           np.where(np.arange(good.size).reshape(good.shape) == 0, np.nan, good),
           np.where(np.arange(good.size).reshape(good.shape) == 0, np.inf, good),
           None, "abc", good.tolist() + [[1.0]] if good.ndim == 2 else [*good.tolist(), "x"]]
    return st.sampled_from([("good", good), *[("bad", b) for b in bad]])


# ----------------------------------------------------------------------------------------
# the API: (label, function, valid keyword arguments, {argument: predicate})
# ----------------------------------------------------------------------------------------

def _api() -> list[tuple[str, Callable, dict, dict]]:
    import design
    import rounding
    from bandits import Policy, replicate, run
    from bandits.instances import get_instance, random_gaussian, reda_classic, soare
    from bandits.logistic import HomerPolicy, WarPolicy, mle, run_homer, sphere
    from bandits.phased import AdaptivePolicy, RagePolicy
    from bandits.static import StaticPolicy

    X = soare(d=2, omega=0.3).X
    w = np.full(X.shape[0], 1.0 / X.shape[0])
    small = reda_classic(K=4, m=1, omega=0.5)
    lx = sphere(d=2, K=4, S=2.0, seed=0)
    return [
        ("design.g_optimal", design.g_optimal, {"X": X},
         {"tol": real_in(1e-12, 1, False, True), "max_iter": OPT_ITER}),
        ("design.d_optimal", design.d_optimal, {"X": X},
         {"tol": real_in(1e-12, 1, False, True), "max_iter": OPT_ITER}),
        ("design.kw_check", design.kw_check, {"X": X, "weights": w},
         {"tol": real_in(1e-12, 1, False, True)}),
        ("design.xy_optimal", design.xy_optimal, {"X": X},
         {"tol": real_in(1e-9, 1, False, True), "max_iter": OPT_ITER}),
        ("design.c_optimal", design.c_optimal, {"X": X, "y": np.array([1.0, 0.0])},
         {"tol": real_in(1e-12, 1, False, True)}),
        ("design.h_optimal", design.h_optimal, {"X": X / 2, "theta": np.array([1.0, 0.0])},
         {"tol": real_in(1e-9, 1, False, True), "max_iter": OPT_ITER}),
        ("rounding.efficient_round", rounding.efficient_round, {"weights": w, "n": 10},
         {"n": int_in(X.shape[0], 2**53, 10**6), "zero_tol": real_in(0, 1, False, True)}),
        ("rounding.round_with_guarantee", rounding.round_with_guarantee,
         {"X": X, "weights": w, "n": 10**4, "eps": 0.5},
         {"eps": lambda e: POS(e) and 2 * (1 + e) / e <= 10**4}),  # n >= r(eps)
        ("rounding.efficiency_loss", rounding.efficiency_loss,
         {"X": X, "weights": w, "counts": np.array([3, 3, 2])}, {}),
        ("bandits.run", lambda **k: run("m-lingape", small, **k), {"max_samples": 300},
         {"seed": SEED, "delta": PROB, "epsilon": NONNEG, "max_samples": int_in(1, 2**62, 3000)}),
        ("bandits.run[xy-static]", lambda **k: run("xy-static", small, **k),
         {"max_samples": 300},
         {"seed": SEED, "delta": PROB, "max_samples": int_in(1, 2**62, 3000)}),
        ("bandits.run[rage]", lambda **k: run("rage", small, **k), {"max_samples": 300},
         {"seed": SEED, "delta": PROB, "max_samples": int_in(1, 2**62, 3000)}),
        ("bandits.run[homer]", lambda **k: run("homer", lx, **k), {"max_samples": 300},
         {"seed": SEED, "delta": PROB, "max_samples": int_in(1, 2**62, 3000)}),
        ("bandits.replicate", lambda **k: replicate("lucb", small, progress=False, **k),
         {"n_runs": 2, "n_jobs": 1, "max_samples": 300},
         {"n_runs": int_in(1, None, 5), "delta": PROB, "epsilon": NONNEG,
          "max_samples": int_in(1, 2**62, 3000)}),
        ("bandits.Policy", lambda **k: Policy("m-lingape", X, **k), {"S": 2.0},
         {"m": int_in(1, X.shape[0] - 1), "delta": PROB, "epsilon": NONNEG, "sigma": POS,
          "seed": SEED, "max_samples": int_in(1, 2**62)}),
        ("bandits.StaticPolicy", lambda **k: StaticPolicy("xy-static", X, **k), {},
         {"delta": PROB, "seed": SEED, "max_samples": int_in(1, 2**62)}),
        ("bandits.AdaptivePolicy", lambda **k: AdaptivePolicy(X, **k), {},
         {"delta": PROB, "seed": SEED, "max_samples": int_in(1, 2**62)}),
        ("bandits.RagePolicy", lambda **k: RagePolicy(X, **k), {},
         {"delta": PROB, "max_samples": OPT_BUDGET}),
        ("logistic.HomerPolicy", lambda **k: HomerPolicy(lx.X, 2.0, **k), {},
         {"delta": PROB, "eps": POS, "design_tol": PROB, "seed": SEED}),
        ("logistic.WarPolicy", lambda **k: WarPolicy(lx.X, 2.0, **k), {},
         {"delta": PROB, "seed": SEED}),
        ("logistic.run_homer", lambda **k: run_homer(lx, **k), {"T": 200},
         {"T": int_in(1, 2**62, 2000), "eps": POS, "seed": SEED, "delta": PROB}),
        ("logistic.mle", lambda **k: mle(lx.X, **k),
         {"counts": [3, 3, 3, 3], "successes": [1, 2, 1, 2]}, {}),
        ("instances.soare", soare, {"d": 3},
         {"d": int_in(2, None, 50), "omega": real_in(0, math.pi, True, True),
          "sigma": POS, "scale": POS}),
        ("instances.reda_classic", reda_classic, {"K": 4, "m": 1},
         {"K": int_in(3, None, 200), "omega": real_in(0, math.pi / 2, True), "sigma": POS}),
        ("instances.random_gaussian", random_gaussian, {"K": 5, "d": 2},
         {"K": int_in(2, None, 200), "d": int_in(1, None, 3),
          "seed": lambda x: x is None or SEED(x)}),
        ("instances.get_instance", get_instance, {"name": "soare"}, {}),
    ]


API = _api()


@pytest.mark.parametrize("label, fn, base, preds", API, ids=[a[0] for a in API])
def test_fuzz_scalar_arguments(label, fn, base, preds):
    """Every scalar argument: generated values, valid ones run, invalid ones are refused."""
    check(label, lambda: fn(**base), "(valid call)", True, None)
    if not preds:
        return

    @FUZZ
    @given(name=st.sampled_from(sorted(preds)), value=SCALARS)
    def probe(name, value):
        valid = preds[name](value)
        assume(valid is not None)
        check(label, lambda: fn(**{**base, name: value}), name, valid, value)

    probe()


def _array_probes() -> list[tuple[str, Callable, dict, str]]:
    import design
    import rounding
    from bandits import Policy
    from bandits.instances import Instance
    from bandits.logistic import mle

    X = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.6]])
    w = np.array([0.5, 0.25, 0.25])
    return [
        ("design.g_optimal", design.g_optimal, {"X": X}, "X"),
        ("design.kw_check", design.kw_check, {"X": X, "weights": w}, "weights"),
        ("design.c_optimal", design.c_optimal, {"X": X, "y": np.array([1.0, 0.0])}, "y"),
        ("design.xy_optimal", design.xy_optimal, {"X": X}, "X"),
        ("rounding.efficient_round", rounding.efficient_round, {"weights": w, "n": 9},
         "weights"),
        ("rounding.efficiency_loss", rounding.efficiency_loss,
         {"X": X, "weights": w, "counts": np.array([2, 1, 1])}, "counts"),
        ("bandits.Policy", lambda **k: Policy("lucb", **k), {"X": X}, "X"),
        ("bandits.Instance", lambda **k: Instance("t", **k),
         {"X": X, "theta": np.array([1.0, 0.5])}, "theta"),
        ("logistic.mle", lambda **k: mle(X / 2, **k),
         {"counts": np.array([3, 3, 3]), "successes": np.array([1, 2, 1])}, "counts"),
    ]


ARRAYS = _array_probes()


@pytest.mark.parametrize("label, fn, base, name", ARRAYS, ids=[a[0] for a in ARRAYS])
def test_fuzz_array_arguments(label, fn, base, name):
    """Arrays: complex, strings, NaN/inf, wrong dimension, empty, ragged, None."""
    @FUZZ
    @given(case=arrays_like(np.asarray(base[name])))
    def probe(case):
        kind, value = case
        check(label, lambda: fn(**{**base, name: value}), name, kind == "good", value)

    probe()


@pytest.mark.parametrize("algorithm", ["xy-static", "rage", "homer", "war", "m-lingape"])
def test_fuzz_instances_and_options(algorithm):
    """A wrong kind of instance or an unknown option: ValueError naming it."""
    from bandits import run
    from bandits.instances import reda_classic
    from bandits.logistic import sphere

    lin, logi = reda_classic(K=4, m=1, omega=0.5), sphere(d=2, K=4, S=2.0, seed=0)
    right = logi if algorithm in ("homer", "war") else lin
    for bad in ("soare", None, 3, np.eye(3), logi if right is lin else lin):
        check(f"run[{algorithm}]", lambda b=bad: run(algorithm, b, max_samples=50),
              "instance", False, bad)
    check(f"run[{algorithm}]", lambda: run(algorithm, right, max_samples=50, bogus=1),
          "bogus", False, "bogus=1")


@pytest.mark.parametrize("loader", ["load_matrix", "load_vector", "load_weights"])
def test_fuzz_file_loaders(loader, tmp_path_factory):
    """Arbitrary bytes in a .csv / .npy / .json file: an array, or a ValueError naming the
    option and the file."""
    import bandits.io as bio

    tmp = tmp_path_factory.mktemp(loader)
    fn = getattr(bio, loader)

    @FUZZ
    @given(content=st.one_of(st.binary(max_size=64),
                             st.text(alphabet="0123456789.,-e \n#nai{}[]\"jwghts:", max_size=40)
                             .map(str.encode)),
           suffix=st.sampled_from([".csv", ".npy", ".json", ".txt"]))
    def probe(content, suffix):
        path = tmp / f"data{suffix}"
        path.write_bytes(content)

        def call():
            arr = fn(str(path), "--opt")
            assert np.all(np.isfinite(arr)) and arr.dtype == np.float64

        kind, detail = _outcome(call, "--opt")
        TALLY["probes"] += 1
        named = kind == "clear" and str(path) in detail
        TALLY["ok" if kind == "ok" else "clear errors" if named else
              "hangs" if kind == "hang" else "crashes"] += 1
        if kind != "ok" and not named:
            FAILURES.append(f"io.{loader}({content[:30]!r}{suffix}) -> {kind} {detail}")
        if not os.environ.get("OED_FUZZ_REPORT"):
            assert kind == "ok" or named, FAILURES[-1]

    probe()


# ----------------------------------------------------------------------------------------
# the command line
# ----------------------------------------------------------------------------------------

TEXTS = st.one_of(
    st.sampled_from(["0", "-1", "1", "2", "1.5", "1000.7", "1e6", "1_000", "1e999", "nan",
                     "inf", "9**9**9", "2**70", "pi", "pi/6", "abc", "", "0.5", "1e-300",
                     "3", "-0.1", "0x10", "1e3", "18446744073709551616"]),
    st.text(alphabet="0123456789.e-+_*/pi", min_size=1, max_size=6),
)


def _cli_value_ok(kind: str, text: str) -> bool | None:
    """Reference reading of a flag value: a decimal literal (``1_000``, ``1e6``) or pi;
    counts ``count:LOW:CAP`` are integers >= LOW up to 2**53, not probed above CAP."""
    import re

    lit = r"(?:\d(?:_?\d)*(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d(?:_?\d)*)?"
    m = re.fullmatch(rf"([+-]?)(?:({lit})|(?:({lit})\*)?pi(?:/({lit}))?)", text)
    if m is None:
        return False
    sign, a, b, c = m.groups()
    try:
        v = float(a) if a is not None else math.pi * float(b or 1) / float(c or 1)
    except ZeroDivisionError:
        return False
    v = -v if sign == "-" else v
    if not math.isfinite(v):
        return False
    if kind.startswith("count"):
        lo, cap = (int(x) for x in kind.split(":")[1:])
        if not (v.is_integer() and lo <= v <= 2**53):
            return False
        return None if v > cap else True
    return {"prob": 0 < v < 1, "pos": v > 0, "nonneg": v >= 0, "real": True,
            "eps": v >= 0.01}[kind]


def _cli_commands(tmp: str) -> list[tuple[str, list[str], dict[str, str]]]:
    arms = os.path.join(tmp, "arms.csv")
    np.savetxt(arms, np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.6]]), delimiter=",")
    wts = os.path.join(tmp, "w.json")
    with open(wts, "w") as fh:
        json.dump({"weights": [0.5, 0.25, 0.25]}, fh)
    inst = ["--instance", "reda-classic", "-p", "K=4", "-p", "omega=0.5", "--m", "1"]
    return [
        ("design", ["design", "g", "--arms", arms],
         {"--tol": "prob", "--max-iter": "count:1:100000"}),
        ("round", ["round", "--weights", wts, "--n", "10000", "--arms", arms],
         {"--n": "count:3:100000", "--eps": "eps"}),
        ("run", ["run", "m-lingape", *inst, "--max-samples", "300"],
         {"--seed": "count:0:9007199254740992", "--delta": "prob", "--epsilon": "nonneg",
          "--max-samples": "count:1:3000", "--sigma": "pos"}),
        ("replicate", ["replicate", "lucb", *inst, "--runs", "2", "--jobs", "1",
                       "--backend", "serial", "--max-samples", "300"],
         {"--runs": "count:1:3", "--first-seed": "count:0:9007199254740992", "--delta": "prob"}),
        ("complexity", ["complexity", "--instance", "reda-classic", "-p", "K=4"],
         {"--delta": "prob", "--epsilon": "nonneg", "--sigma": "pos"}),
        ("subset", ["subset", "dart", "--N", "6", "--K", "2", "--T", "500", "--runs", "1"],
         {"--T": "count:6:3000", "--N": "count:3:50", "--runs": "count:1:2"}),
    ]


@pytest.mark.parametrize("command", ["design", "round", "run", "replicate", "complexity",
                                     "subset"])
def test_fuzz_cli(command, tmp_path_factory):
    """Every command, one flag value generated: exit 0, or exit 2 with one line naming the
    flag; never a traceback (an exception out of main) or a hang."""
    from bandits.cli import main

    tmp = str(tmp_path_factory.mktemp(command))
    label, argv, flags = next(c for c in _cli_commands(tmp) if c[0] == command)

    def invoke(args: list[str], flag: str) -> None:
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            status = main(args)
        text = err.getvalue()
        if status != 0:
            if status != 2 or not text.startswith("oed: error: ") or text.count("\n") != 1:
                raise RuntimeError(f"status {status}, stderr {text!r}")
            raise ValueError(text)

    check(f"oed {label}", lambda: invoke(argv, ""), "(valid call)", True, None)

    @FUZZ
    @given(flag=st.sampled_from(sorted(flags)), text=TEXTS)
    def probe(flag, text):
        args = [*argv, f"{flag}={text}"]
        valid = _cli_value_ok(flags[flag], text)
        assume(valid is not None)
        check(f"oed {label}", lambda: invoke(args, flag), flag.lstrip("-"), valid, text)

    probe()


def test_fuzz_report():
    """Writes the tally (OED_FUZZ_REPORT=path); in a normal run, asserts none went wrong."""
    path = os.environ.get("OED_FUZZ_REPORT")
    if path:
        with open(path, "w") as fh:
            json.dump({"tally": dict(TALLY), "failures": FAILURES}, fh, indent=1)
    assert not FAILURES or path, FAILURES
