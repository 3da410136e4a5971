"""Cold first-call compile time of every bandit family, side by side with another revision.

For each family one small run through the public API is timed (CPU time of the process,
``time.process_time``: not distorted by other load on the machine) in a fresh subprocess whose
``NUMBA_CACHE_DIR`` is a new empty directory (a user's very first call: every jitted
function the run needs is compiled), then the same call again in that process (the run
alone). ``compile`` is the difference: the price of the first call that users pay.

With ``--ref REV`` the same snippets run on ``git archive REV`` (extracted to a temporary
directory, imported from there) in alternation with this checkout, and the ratio
``this / ref`` is printed per family (< 1: this checkout compiles faster).

It then counts the hops of three user journeys: the number of our own Python functions
(design/, rounding/, bandits/) nested from the entry point down to the shallowest call of
a jitted kernel (the dispatch a user's call goes through before the work starts), with the
deepest chain of our own nested calls anywhere in the journey and the modules it touches.

``--families`` instead measures every family of ``oed warmup`` (``bandits.warmup.FAMILIES``)
on its own, each in two fresh interpreters sharing one new ``NUMBA_CACHE_DIR``: the CPU
seconds (``time.process_time``, not wall time: the machine may be loaded) of the family's
first call with the empty cache (``cold``: compilation) and then with the cache it left
(``warm``: loading the cached machine code), the number of compiled specialisations
(``len(dispatcher.signatures)`` summed over our kernels), the kernels with more than one,
and the heaviest kernels by exclusive compile time (numba's ``numba:compile`` events). It
ends with the CPU seconds of ``import numba`` / ``import design`` / ``import bandits`` and of
the whole ``oed demo`` (a child process, empty cache, then warm). With ``--ref REV`` each
number is also measured on that revision.

``--entries`` measures what a user's first call pays, per entry point: every registered
algorithm through ``bandits.run(name, example)`` (its registry example instance, read from
the registry of each revision, so a new algorithm is measured for free) and every public
design and rounding function of :data:`DESIGN_ENTRIES` (and the options of
:data:`RUN_VARIANTS`: G/XY-static's two allocation rules), each in a fresh interpreter with a
new empty ``NUMBA_CACHE_DIR``: ``cold`` (CPU seconds of that single first call, imports
excluded: the number issue 16's "first call under 3 s" is checked against), ``again`` (the
same call once more in that process: the run alone), ``warm`` (the first call in a second
fresh process loading the cache) and the kernels compiled, as one table sorted by cold
time (with ``--ref REV``: that revision's cold and warm and the ratio).

Usage: ``python benchmarks/bench_compile.py [--ref main] [--repeats 1] [--family gifa]
[--no-compile] [--no-hops] [--families|--entries [--only NAME] [--kernels N]]
[--runtime --ref main [--only NAME]]``.

``--runtime`` (with ``--ref``) times warm calls of the kernels changed for compile time
(best CPU seconds of several calls in one process, this checkout and the revision in
alternation) and prints the ratio: compile time is never bought with run time unseen.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from _revision import best_cpu, extract

ROOT = Path(__file__).resolve().parents[1]

#: One small run per family through names that every revision documents.
SNIPPETS: dict[str, tuple[str, str]] = {
    "gifa": ("from bandits import run\nfrom bandits.instances import reda_classic\n"
             "inst = reda_classic()",
             "run('m-lingape', inst, seed=0, max_samples=20000)"),
    "static": ("from bandits import run\nfrom bandits.instances import soare\n"
               "inst = soare(d=2)",
               "run('xy-static', inst, seed=0, max_samples=20000)"),
    "phased": ("from bandits import run\nfrom bandits.instances import soare\n"
               "inst = soare(d=2)",
               "run('rage', inst, seed=0, max_samples=20000); "
               "run('xy-adaptive', inst, seed=0, max_samples=20000)"),
    "logistic": ("from bandits.logistic import run_homer, sphere\ninst = sphere(d=2, K=6)",
                 "run_homer(inst, 3000, seed=0)"),
    "subsets": ("from bandits.subsets import SubsetEnv, run_subset\n"
                "env = SubsetEnv.bernoulli(N=6, K=2, seed=0)",
                "run_subset('dart', env, 3000, seed=0)"),
    # design: the A/I/Ds solvers, and exact designs (D, A, Ds)
    "criteria": ("import numpy as np, design\n"
                 "X = np.random.default_rng(0).normal(size=(40, 4))",
                 "design.a_optimal(X); design.i_optimal(X); design.ds_optimal(X, [0, 1])"),
    "exact": ("import numpy as np, design\n"
              "X = design.model_matrix(np.random.default_rng(0).uniform(-1, 1, (40, 2)), "
              "'quadratic')",
              "design.exact(X, 8); design.exact(X, 8, 'a'); "
              "design.exact(X, 8, 'ds', interest=[3, 4, 5])"),
}

_PROBE = """
import json, time
t0 = time.process_time()
{setup}
t1 = time.process_time()
{call}
t2 = time.process_time()
{call}
t3 = time.process_time()
import bandits
print(json.dumps({{"import": t1 - t0, "first": t2 - t1, "second": t3 - t2,
                  "file": bandits.__file__}}))
"""


def cold_time(family: str, where: Path) -> dict:
    """Time the family's snippet in a fresh interpreter with an empty numba cache."""
    setup, call = SNIPPETS[family]
    with tempfile.TemporaryDirectory(prefix="numba-cold-") as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(where),
               "PYTHONDONTWRITEBYTECODE": "1"}
        out = subprocess.run([sys.executable, "-c", _PROBE.format(setup=setup, call=call)],
                             cwd=where, env=env, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"{family} at {where} failed:\n{out.stderr[-2000:]}")
    res = json.loads(out.stdout.strip().splitlines()[-1])
    if not res["file"].startswith(str(where)):
        raise RuntimeError(f"imported {res['file']} instead of the copy in {where}")
    res["compile"] = res["first"] - res["second"]
    return res


#: The journeys of issue 13 (the CLI one runs in-process through ``bandits.cli.main``).
JOURNEYS: dict[str, str] = {
    "design.xy_optimal(X)":
        "import numpy as np, design\n"
        "X = np.random.default_rng(0).normal(size=(20, 4))\n"
        "ENTRY = lambda: design.xy_optimal(X)",
    'bandits.run("rage", inst)':
        "import bandits\nfrom bandits.instances import soare\ninst = soare(d=3)\n"
        "ENTRY = lambda: bandits.run('rage', inst)",
    "oed replicate m-lingape lucb --instance reda-classic --runs 100 --plot f.png":
        "import os, tempfile\nfrom bandits.cli import main\n"
        "os.chdir(tempfile.mkdtemp())\n"
        "ENTRY = lambda: main(['replicate', 'm-lingape', 'lucb', '--instance', "
        "'reda-classic', '--runs', '100', '--plot', 'f.png'])",
}

_HOPS = """
import json, os, sys
{setup}
ENTRY()  # warm: compile and import everything once
ROOTS = tuple(os.path.join({root!r}, p) + os.sep for p in ("design", "rounding", "bandits"))
best = [0, []]
kernel = [10**9, []]
mods = set()
def ours(frame):
    return frame.f_code.co_filename.startswith(ROOTS)
def chain_of(frame):
    chain, f = [], frame
    while f is not None:
        if ours(f):
            chain.append(os.path.relpath(f.f_code.co_filename, {root!r}) + ":" + f.f_code.co_name)
        f = f.f_back
    return chain[::-1]
def hook(frame, event, arg):
    if event != "call" or not ours(frame):
        return
    mods.add(os.path.relpath(frame.f_code.co_filename, {root!r}))
    chain = chain_of(frame)
    if len(chain) > best[0]:
        best[0], best[1] = len(chain), chain
from numba.core.registry import CPUDispatcher
from numba.core.dispatcher import Dispatcher
base_call = Dispatcher.__mro__[-2].__call__  # the C dispatcher's tp_call
def counting_call(self, *args, **kwargs):
    chain = chain_of(sys._getframe(1))
    if chain and len(chain) < kernel[0]:
        kernel[0], kernel[1] = len(chain), chain + ["[jit] " + self.py_func.__name__]
    return base_call(self, *args, **kwargs)
CPUDispatcher.__call__ = counting_call
import io, contextlib
sys.setprofile(hook)
with contextlib.redirect_stdout(io.StringIO()):
    ENTRY()
sys.setprofile(None)
print(json.dumps({{"hops": kernel[0], "chain": kernel[1], "depth": best[0],
                  "deepest": best[1], "modules": sorted(mods)}}))
"""


#: Exclusive compile CPU time per kernel from numba's ``numba:compile`` events, the part of
#: the family and entry probes that records ``kernels[name] = [seconds, compilations]``.
_LISTENER = """stack, kernels = [], {}

class Listener(event.Listener):
    def on_start(self, ev):
        stack.append([time.process_time(), 0.0])

    def on_end(self, ev):
        start, child = stack.pop()
        dt = time.process_time() - start
        if stack:
            stack[-1][1] += dt
        fn = ev.data["dispatcher"].py_func
        r = kernels.setdefault(fn.__module__ + "." + fn.__qualname__, [0.0, 0])
        r[0] += dt - child
        r[1] += 1

event.register("numba:compile", Listener())
"""


_FAMILY_PROBE = """
import json, sys, time
t0 = time.process_time()
import numba
from numba.core import event
t_numba = time.process_time() - t0
import design
t_design = time.process_time() - t0
import bandits
from bandits.warmup import FAMILIES, jitted_functions
t_import = time.process_time() - t0
{listener}
if {family!r} in FAMILIES:
    go = FAMILIES[{family!r}]
else:  # a family an older revision's `oed warmup` did not list (LinGame's)
    from bandits.warmup import _bandits
    go = _bandits({family!r}.removeprefix("bandits: "))
c0 = time.process_time()
go()
cpu = time.process_time() - c0
sigs = {{}}
for dsp in jitted_functions():
    if dsp.signatures:
        sigs[dsp.py_func.__module__ + "." + dsp.py_func.__qualname__] = len(dsp.signatures)
print(json.dumps({{"cpu": cpu, "kernels": kernels, "sigs": sigs, "import_numba": t_numba,
                  "import_design": t_design - t_numba, "import_bandits": t_import - t_design,
                  "file": bandits.__file__}}))
"""


def _run_probe(code: str, where: Path, cache: str) -> dict:
    env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(where),
           "PYTHONDONTWRITEBYTECODE": "1"}
    out = subprocess.run([sys.executable, "-c", code], cwd=where, env=env,
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"probe at {where} failed:\n{out.stderr[-2000:]}")
    res = json.loads(out.stdout.strip().splitlines()[-1])
    if not res["file"].startswith(str(where)):
        raise RuntimeError(f"imported {res['file']} instead of the copy in {where}")
    return res


def family_time(family: str, where: Path) -> dict:
    """Cold and warm first-call CPU seconds of one ``oed warmup`` family (fresh processes)."""
    code = _FAMILY_PROBE.format(family=family, listener=_LISTENER)
    with tempfile.TemporaryDirectory(prefix="numba-cold-") as cache:
        cold = _run_probe(code, where, cache)
        warm = _run_probe(code, where, cache)
    cold["warm"] = warm["cpu"]
    cold["warm_imports"] = {k: warm[k] for k in ("import_numba", "import_design",
                                                 "import_bandits")}
    return cold


def demo_cpu(where: Path) -> tuple[float, float]:
    """CPU seconds (children's user + system) of ``oed demo`` cold, then warm."""
    import resource

    def child_cpu() -> float:
        r = resource.getrusage(resource.RUSAGE_CHILDREN)
        return r.ru_utime + r.ru_stime

    out = []
    with tempfile.TemporaryDirectory(prefix="numba-cold-") as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(where),
               "PYTHONDONTWRITEBYTECODE": "1"}
        for _ in range(2):
            before = child_cpu()
            subprocess.run([sys.executable, "-m", "bandits.cli", "demo"], cwd=where, env=env,
                           capture_output=True, text=True, check=True)
            out.append(child_cpu() - before)
    return out[0], out[1]


def families_table(args: argparse.Namespace, ref_dir: Path | None) -> None:
    """Per ``oed warmup`` family: cold / warm first-call CPU s and specialisations."""
    sys.path.insert(0, str(ROOT))
    from bandits.warmup import FAMILIES

    head = (f"{'family':<20} {'cold CPU s':>10} {'warm CPU s':>10} {'specs':>6} "
            f"{'kernels':>7}")
    if ref_dir is not None:
        head += f" | {args.ref + ': cold':>12} {'warm':>6} {'specs':>6} {'kernels':>7}"
    print(head)
    heavy, multi, imports = {}, {}, None
    totals = [0.0, 0.0, 0.0, 0.0]
    for fam in FAMILIES:
        if args.only and not any(o in fam for o in args.only):
            continue
        mine = family_time(fam, ROOT)
        imports = mine["warm_imports"]
        n_spec, n_kern = sum(mine["sigs"].values()), len(mine["sigs"])
        totals[0] += mine["cpu"]
        totals[1] += mine["warm"]
        line = (f"{fam:<20} {mine['cpu']:>10.2f} {mine['warm']:>10.3f} {n_spec:>6} "
                f"{n_kern:>7}")
        if ref_dir is not None:
            ref = family_time(fam, ref_dir)
            totals[2] += ref["cpu"]
            totals[3] += ref["warm"]
            line += (f" | {ref['cpu']:>12.2f} {ref['warm']:>6.3f} "
                     f"{sum(ref['sigs'].values()):>6} {len(ref['sigs']):>7}")
        print(line, flush=True)
        heavy[fam] = sorted(mine["kernels"].items(), key=lambda kv: -kv[1][0])[:args.kernels]
        multi[fam] = {k: n for k, n in mine["sigs"].items() if n > 1}
    line = f"{'sum (separately)':<20} {totals[0]:>10.2f} {totals[1]:>10.3f}"
    if ref_dir is not None:
        line += f" {'':>6} {'':>7} | {totals[2]:>12.2f} {totals[3]:>6.3f}"
    print(line)
    print("\nimports (CPU s, warm cache): " + ", ".join(
        f"{k.removeprefix('import_')} {v:.2f}" for k, v in imports.items()))
    if not args.only:
        cold, warm = demo_cpu(ROOT)
        line = f"oed demo, whole process (CPU s): cold {cold:.2f}, warm {warm:.2f}"
        if ref_dir is not None:
            rc, rw = demo_cpu(ref_dir)
            line += f"   ({args.ref}: cold {rc:.2f}, warm {rw:.2f})"
        print(line)
    if args.kernels:
        print("\nheaviest kernels by exclusive compile CPU s (this checkout):")
        for fam, rows in heavy.items():
            print(f"  {fam}: " + ", ".join(f"{k.rsplit('.', 1)[-1]} {v[0]:.2f}"
                                           for k, v in rows))
    print("\nkernels with more than one specialisation (this checkout): "
          + (", ".join(f"{k} x{n}" for m in multi.values() for k, n in m.items()) or "none"))


#: Budget of a measured ``bandits.run`` (fixed-horizon algorithms: their horizon).
ENTRY_BUDGET = 20_000

#: Options of ``bandits.run`` whose first call compiles other kernels than the default's,
#: measured as entries of their own (algorithm -> keyword arguments): G-static's and
#: XY-static's two allocation rules (the greedy rule and the rounded design's ratio rule),
#: whichever is the default.
RUN_VARIANTS: dict[str, tuple[str, ...]] = {
    "g-static": ("method='greedy'", "method='rounding'"),
    "xy-static": ("method='greedy'", "method='rounding'"),
}

_SMALL = ("import numpy as np, design, rounding\n"
          "X = np.random.default_rng(0).normal(size=(20, 3))\n"
          "Q = design.model_matrix(np.random.default_rng(0).uniform(-1, 1, (30, 2)), "
          "'quadratic')\n"
          "w = np.full(20, 1 / 20)")

#: The public design and rounding functions, one small first call each (name -> call;
#: ``_SMALL`` sets up ``X`` (20 x 3), ``Q`` (30 x 6, a quadratic model) and ``w``).
DESIGN_ENTRIES: dict[str, str] = {
    "design.g_optimal": "design.g_optimal(X)",
    "design.d_optimal": "design.d_optimal(X)",
    "design.kw_check": "design.kw_check(X, w)",
    "design.a_optimal": "design.a_optimal(X)",
    "design.i_optimal": "design.i_optimal(X)",
    "design.ds_optimal": "design.ds_optimal(X, [0, 1])",
    "design.c_optimal": "design.c_optimal(X, X[0] - X[1])",
    "design.linear_optimal": "design.linear_optimal(X, np.diag([1.0, 2.0, 0.5]))",
    "design.criterion_check": "design.criterion_check(X, w, 'a')",
    "design.xy_optimal": "design.xy_optimal(X)",
    "design.xy_check": "design.xy_check(X, w)",
    "design.minimax_optimal": "design.minimax_optimal(X, X[:5] - X[5:10])",
    "design.h_optimal": "design.h_optimal(X, np.array([1.0, 0.5, -0.5]))",
    "design.g_optimal_hessian": "design.g_optimal_hessian(X, np.array([1.0, 0.5, -0.5]))",
    "design.two_approx_g_design": "design.two_approx_g_design(X)",
    "design.constrained_optimal": "design.constrained_optimal(X, 'd', caps=0.1)",
    "design.exact": "design.exact(Q, 8)",
    "design.exact (a)": "design.exact(Q, 8, 'a')",
    "design.exact_value": "design.exact_value(Q, np.ones(30, dtype=np.int64))",
    "design.greedy_xy_step": "design.greedy_xy_step(np.eye(3), X)",
    "rounding.efficient_round": "rounding.efficient_round(w, 50)",
    "rounding.round_with_guarantee": "rounding.round_with_guarantee(X, w, 50, 0.5)",
    "rounding.track": "rounding.track(np.zeros(20, dtype=np.int64), w)",
}

_ENTRY_PROBE = """
import json, time
t0 = time.process_time()
import numba
from numba.core import event
{setup}
t1 = time.process_time()
{listener}
t1 = time.process_time()
{call}
t2 = time.process_time()
{call}
t3 = time.process_time()
import bandits
from bandits.warmup import jitted_functions
sigs = {{}}
for dsp in jitted_functions():
    if dsp.signatures:
        sigs[dsp.py_func.__module__ + "." + dsp.py_func.__qualname__] = len(dsp.signatures)
print(json.dumps({{"setup": t1 - t0, "first": t2 - t1, "again": t3 - t2, "kernels": kernels,
                  "sigs": sigs, "file": bandits.__file__}}))
"""


def entry_points(where: Path = ROOT) -> dict[str, tuple[str, str]]:
    """name -> (setup, call) of every entry point a user calls first, read from the
    registry of the checkout at ``where`` (a new algorithm is measured for free): one
    ``bandits.run(name, example instance)`` per registered algorithm (and per option of
    :data:`RUN_VARIANTS`), then the public
    design and rounding functions of :data:`DESIGN_ENTRIES` that ``where`` has."""
    code = ("import json, design, rounding\nfrom bandits.registry import REGISTRY\n"
            "print(json.dumps({'algs': [[n, e.example] for n, e in REGISTRY.items()], "
            "'names': sorted(set(dir(design)) | {'r.' + n for n in dir(rounding)})}))")
    env = {**os.environ, "PYTHONPATH": str(where), "PYTHONDONTWRITEBYTECODE": "1"}
    out = subprocess.run([sys.executable, "-c", code], cwd=where, env=env,
                         capture_output=True, text=True, check=True)
    info = json.loads(out.stdout.strip().splitlines()[-1])
    entries: dict[str, tuple[str, str]] = {}
    for name, example in info["algs"]:
        module, _, fn = example.partition(":")
        setup = f"from bandits import run\nfrom {module} import {fn}\ninst = {fn}()"
        entries[f"run({name!r})"] = (
            setup, f"run({name!r}, inst, seed=0, max_samples={ENTRY_BUDGET})")
        for kw in RUN_VARIANTS.get(name, ()):
            entries[f"run({name!r}, {kw})"] = (
                setup, f"run({name!r}, inst, seed=0, max_samples={ENTRY_BUDGET}, {kw})")
    have = set(info["names"])
    for name, call in DESIGN_ENTRIES.items():
        module, _, fn = name.split(" ")[0].partition(".")
        if (fn if module == "design" else "r." + fn) in have:
            entries[name] = (_SMALL, call)
    return entries


def entry_time(setup: str, call: str, where: Path) -> dict:
    """CPU seconds of one entry point's first call: ``cold`` (fresh process, empty numba
    cache), ``again`` (the same call once more in that process: the run alone) and
    ``warm`` (a fresh process loading what the cold one cached)."""
    code = _ENTRY_PROBE.format(setup=setup, call=call, listener=_LISTENER)
    with tempfile.TemporaryDirectory(prefix="numba-cold-") as cache:
        cold = _run_probe(code, where, cache)
        warm = _run_probe(code, where, cache)
    return {"cold": cold["first"], "again": cold["again"], "warm": warm["first"],
            "kernels": cold["kernels"], "sigs": cold["sigs"]}


def entries_table(args: argparse.Namespace, ref_dir: Path | None) -> None:
    """Per entry point: cold / warm first-call CPU s (and at ``--ref``), sorted by cold."""
    mine_entries = entry_points(ROOT)
    ref_entries = entry_points(ref_dir) if ref_dir is not None else {}
    rows = []
    for name, (setup, call) in mine_entries.items():
        if args.only and not any(o in name for o in args.only):
            continue
        mine = entry_time(setup, call, ROOT)
        ref = None
        if name in ref_entries:
            try:  # a call the other revision refuses (an older signature) is left out
                ref = entry_time(*ref_entries[name], ref_dir)
            except RuntimeError as exc:
                print(f"  {name} at {args.ref}: {str(exc).splitlines()[-1]}", file=sys.stderr)
        rows.append((name, mine, ref))
        print(f"  measured {name}: cold {mine['cold']:.2f}"
              + (f" ({args.ref} {ref['cold']:.2f})" if ref else ""), file=sys.stderr,
              flush=True)
    head = (f"{'entry point (first call)':<34} {'cold CPU s':>10} {'warm':>6} {'again':>6} "
            f"{'specs':>5}")
    if ref_dir is not None:
        head += f" | {args.ref + ': cold':>12} {'warm':>6} {'this/ref':>8}"
    print(head)
    for name, mine, ref in sorted(rows, key=lambda r: -r[1]["cold"]):
        line = (f"{name:<34} {mine['cold']:>10.2f} {mine['warm']:>6.2f} "
                f"{mine['again']:>6.2f} {sum(mine['sigs'].values()):>5}")
        if ref_dir is not None:
            line += (f" | {ref['cold']:>12.2f} {ref['warm']:>6.2f} "
                     f"{mine['cold'] / ref['cold']:>8.2f}" if ref else f" | {'-':>12}")
        print(line)
    if args.kernels:
        print("\nheaviest kernels by exclusive compile CPU s (this checkout):")
        for name, mine, _ in sorted(rows, key=lambda r: -r[1]["cold"]):
            top = sorted(mine["kernels"].items(), key=lambda kv: -kv[1][0])[:args.kernels]
            print(f"  {name}: " + ", ".join(f"{k.rsplit('.', 1)[-1]} {v[0]:.2f}"
                                            for k, v in top))
    multi = {k: n for _, mine, _ in rows for k, n in mine["sigs"].items() if n > 1}
    print("\nkernels with more than one specialisation in one first call (this checkout): "
          + (", ".join(f"{k} x{n}" for k, n in multi.items()) or "none"))


#: Warm run-time cases (the kernels changed for compile time must not get slower).
RUNTIME: dict[str, tuple[str, str]] = {
    "g_optimal K=5000 d=30 tol=1e-9": (
        "import numpy as np, design\nX = np.random.default_rng(0).normal(size=(5000, 30))",
        "design.g_optimal(X, tol=1e-9)"),
    "g_optimal fw-away K=2000 d=20 tol=1e-6": (
        "import numpy as np, design\nX = np.random.default_rng(1).normal(size=(2000, 20))",
        "design.g_optimal(X, method='fw-away')"),
    "d_optimal fw K=2000 d=20 tol=1e-7": (
        "import numpy as np, design\nX = np.random.default_rng(2).standard_t(3, (2000, 20))",
        "design.d_optimal(X, method='fw', tol=1e-7)"),
    "xy_optimal K=100 d=8 (4950 pairs)": (
        "import numpy as np, design\nX = np.random.default_rng(3).normal(size=(100, 8))",
        "design.xy_optimal(X)"),
    "xy_optimal K=60 d=4, 300 targets": (
        "import numpy as np, design\nrng = np.random.default_rng(4)\n"
        "X = rng.normal(size=(60, 4)); Y = rng.normal(size=(300, 4))",
        "design.xy_optimal(X, Y)"),
    "a_optimal K=2000 d=20": (
        "import numpy as np, design\nX = np.random.default_rng(5).normal(size=(2000, 20))",
        "design.a_optimal(X)"),
    "ds_optimal K=500 d=10 s=3": (
        "import numpy as np, design\nX = np.random.default_rng(6).normal(size=(500, 10))",
        "design.ds_optimal(X, [0, 1, 2])"),
    "lingape soare d=5 (1M samples)": (
        "from bandits import run\nfrom bandits.instances import soare\ninst = soare(d=5)",
        "run('lingape', inst, seed=1)"),
    "ugape reda-classic": (
        "from bandits import run\nfrom bandits.instances import reda_classic\n"
        "inst = reda_classic()", "run('ugape', inst, seed=0, max_samples=200000)"),
    "lingame soare d=3": (
        "from bandits import run\nfrom bandits.instances import soare\ninst = soare(d=3)",
        "run('lingame', inst, seed=0, max_samples=200000)"),
    "homer sphere d=3 K=10 T=20000": (
        "from bandits.logistic import run_homer, sphere\ninst = sphere(d=3, K=10)",
        "run_homer(inst, 20000, seed=0)"),
    "subsets dart/csar/lints/ucb N=20 K=4": (
        "from bandits.subsets import SubsetEnv, run_subset\n"
        "env = SubsetEnv.bernoulli(N=20, K=4, seed=0)",
        "[run_subset(a, env, 20000, seed=0) for a in ('dart', 'csar', 'lints', 'ucb')]"),
    "subsets dart/csar/lints N=30 K=5 T=300000 rho=0.3": (
        "from bandits.subsets import SubsetEnv, run_subset\n"
        "env = SubsetEnv.bernoulli(N=30, K=5, seed=1, rho=0.3)",
        "[run_subset(a, env, 300000, seed=0) for a in ('dart', 'csar', 'lints')]"),
}

def runtime_table(args: argparse.Namespace, ref_dir: Path) -> None:
    """Warm run time (CPU s, best of ``--repeats`` in one process after a first call) of
    each case here and at ``--ref``, the two processes alternating; ratio this / ref."""
    print(f"{'warm run time (CPU s)':<40} {'this':>8} {args.ref:>8} {'this/ref':>9}")
    with tempfile.TemporaryDirectory(prefix="numba-rt-") as c1, \
            tempfile.TemporaryDirectory(prefix="numba-rt-") as c2:
        for name, (setup, call) in RUNTIME.items():
            if args.only and not any(o in name for o in args.only):
                continue
            reps = max(3, args.repeats)
            mine = min(best_cpu(setup, call, reps, ROOT, c1)["cpu"] for _ in range(2))
            ref = min(best_cpu(setup, call, reps, ref_dir, c2)["cpu"] for _ in range(2))
            print(f"{name:<40} {mine:>8.3f} {ref:>8.3f} {mine / ref:>9.2f}", flush=True)


def hops(journey: str, where: Path) -> dict:
    """Deepest chain of our own nested Python calls in ``journey`` (warm, in-process)."""
    code = _HOPS.format(setup=JOURNEYS[journey], root=str(where))
    env = {**os.environ, "PYTHONPATH": str(where), "PYTHONDONTWRITEBYTECODE": "1"}
    out = subprocess.run([sys.executable, "-c", code], cwd=where, env=env,
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"{journey} at {where} failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def compile_table(args: argparse.Namespace, families: list[str], ref_dir: Path | None
                  ) -> None:
    """Print the cold compile time per family (and the ratio to ``--ref``)."""
    head = f"{'family':<9} {'this: compile s':>16} {'first call s':>13}"
    if ref_dir is not None:
        head += f" {args.ref + ': compile s':>18} {'ratio this/ref':>15}"
    print(head)
    for fam in families:
        mine, theirs = [], []
        for _ in range(max(1, args.repeats)):
            mine.append(cold_time(fam, ROOT))
            if ref_dir is not None:
                theirs.append(cold_time(fam, ref_dir))
        best = min(mine, key=lambda r: r["compile"])
        line = f"{fam:<9} {best['compile']:>16.2f} {best['first']:>13.2f}"
        if theirs:
            ref_best = min(theirs, key=lambda r: r["compile"])
            line += (f" {ref_best['compile']:>18.2f} "
                     f"{best['compile'] / ref_best['compile']:>15.2f}")
        print(line, flush=True)


def hops_table(args: argparse.Namespace, ref_dir: Path | None) -> None:
    """Print the hop count and modules touched per journey (and those at ``--ref``)."""
    print()
    head = f"{'journey':<78} {'hops':>5} {'depth':>6} {'modules':>8}"
    if ref_dir is not None:
        head += f" {args.ref + ': hops':>12} {'depth':>6} {'modules':>8}"
    print(head)
    for name in JOURNEYS:
        mine = hops(name, ROOT)
        line = (f"{name:<78} {mine['hops']:>5} {mine['depth']:>6} "
                f"{len(mine['modules']):>8}")
        theirs = hops(name, ref_dir) if ref_dir is not None else None
        if theirs is not None:
            line += (f" {theirs['hops']:>12} {theirs['depth']:>6} "
                     f"{len(theirs['modules']):>8}")
        print(line, flush=True)
        if args.chains:
            print("    this: " + " -> ".join(mine["chain"]))
            if theirs is not None:
                print("    ref:  " + " -> ".join(theirs["chain"]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref", help="another revision to compare with (e.g. main)")
    parser.add_argument("--repeats", type=int, default=1, help="cold runs per family (min)")
    parser.add_argument("--family", action="append", choices=sorted(SNIPPETS),
                        help="only these families (repeatable)")
    parser.add_argument("--no-compile", action="store_true", help="skip the compile times")
    parser.add_argument("--no-hops", action="store_true", help="skip the hop counts")
    parser.add_argument("--chains", action="store_true", help="print each deepest chain")
    parser.add_argument("--families", action="store_true",
                        help="cold/warm CPU and specialisations per `oed warmup` family")
    parser.add_argument("--entries", action="store_true",
                        help="cold/warm CPU of the first call of every entry point")
    parser.add_argument("--runtime", action="store_true",
                        help="warm run time of the changed kernels, this vs --ref")
    parser.add_argument("--only", action="append",
                        help="with --families/--entries/--runtime: only the names containing this")
    parser.add_argument("--kernels", type=int, default=0,
                        help="with --families/--entries: list the N heaviest kernels")
    args = parser.parse_args()
    families = args.family or list(SNIPPETS)
    with tempfile.TemporaryDirectory(prefix="bench-ref-") as tmp:
        ref_dir = extract(args.ref, Path(tmp)) if args.ref else None
        if args.runtime:
            if ref_dir is None:
                parser.error("--runtime needs --ref")
            runtime_table(args, ref_dir)
            return
        if args.families:
            families_table(args, ref_dir)
            return
        if args.entries:
            entries_table(args, ref_dir)
            return
        if not args.no_compile:
            compile_table(args, families, ref_dir)
        if not args.no_hops:
            hops_table(args, ref_dir)


if __name__ == "__main__":
    main()
