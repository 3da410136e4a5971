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

Usage: ``python benchmarks/bench_compile.py [--ref main] [--repeats 1] [--family gifa]
[--no-compile] [--no-hops]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

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


def hops(journey: str, where: Path) -> dict:
    """Deepest chain of our own nested Python calls in ``journey`` (warm, in-process)."""
    code = _HOPS.format(setup=JOURNEYS[journey], root=str(where))
    env = {**os.environ, "PYTHONPATH": str(where), "PYTHONDONTWRITEBYTECODE": "1"}
    out = subprocess.run([sys.executable, "-c", code], cwd=where, env=env,
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"{journey} at {where} failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def extract(ref: str, dest: Path) -> Path:
    """``git archive ref`` unpacked into ``dest`` (no worktree is registered)."""
    archive = subprocess.run(["git", "archive", ref], cwd=ROOT, capture_output=True,
                             check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return dest


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
    args = parser.parse_args()
    families = args.family or list(SNIPPETS)
    with tempfile.TemporaryDirectory(prefix="bench-ref-") as tmp:
        ref_dir = extract(args.ref, Path(tmp)) if args.ref else None
        if not args.no_compile:
            compile_table(args, families, ref_dir)
        if not args.no_hops:
            hops_table(args, ref_dir)


if __name__ == "__main__":
    main()
