"""Regression tests of issue 12 items 4-5: hangs, O(1) ask/tell, and input that used to be
accepted and then failed late or was silently changed.  Each test failed on main."""

from __future__ import annotations

import numpy as np
import pytest

from bandits.gifa import Policy, simulated_rewards
from bandits.instances import soare
from bandits.phased import AdaptivePolicy, RagePolicy
from bandits.static import StaticPolicy

SOARE = soare(d=3, omega=0.1)


# ----------------------------------------------------------------------------------------
# ask/tell: O(1) per step in the phase length (issue 12, item 4)
# ----------------------------------------------------------------------------------------

POLICIES = {
    "gifa": lambda: Policy("m-lingape", SOARE.X, m=1, sigma=1.0, S=2.0, seed=0),
    "static": lambda: StaticPolicy("xy-static", SOARE.X, sigma=1.0, seed=0),
    "adaptive": lambda: AdaptivePolicy(SOARE.X, sigma=1.0, seed=0),
    "rage": lambda: RagePolicy(SOARE.X, sigma=1.0),
}


@pytest.mark.parametrize("kind", sorted(POLICIES))
def test_every_policy_queue_is_an_array_read_from_a_position(kind):
    """The queue of every ask/tell policy is an ArmQueue: ``ask`` advances a read position
    in one int64 array (O(1)), never ``list.pop(0)`` (O(phase length))."""
    from bandits._core.protocol import ArmQueue

    pol = POLICIES[kind]()
    reward = simulated_rewards(SOARE, 1)
    for _ in range(200):
        if pol.done:
            break
        assert isinstance(pol._queue, ArmQueue)
        arm = pol.ask()
        pol.tell(arm, reward(arm))


def test_rage_phase_is_one_array_consumed_without_copies():
    pol = RagePolicy(SOARE.X, sigma=1.0)
    queue = pol._queue
    arms, n = queue._arms, len(queue)
    assert n > 100  # a long first phase
    reward = simulated_rewards(SOARE, 2)
    for k in range(1, 51):
        arm = pol.ask()
        pol.tell(arm, reward(arm))
        assert pol._queue is queue and queue._arms is arms and len(queue) == n - k
    # arm-block order: the phase's pulls are arms[0], arms[1], ... (np.repeat of the plan)
    assert np.all(np.diff(arms) >= 0)


def test_arm_queue_fifo():
    from bandits._core.protocol import ArmQueue

    q = ArmQueue.repeated(np.array([2, 0, 1]))
    assert len(q) == 3 and bool(q)
    assert [q.popleft() for _ in range(3)] == [0, 0, 2]
    assert not q and len(q) == 0
    with pytest.raises(IndexError):
        q.popleft()


# ----------------------------------------------------------------------------------------
# accepted, then failing late or silently changed (issue 12, item 5)
# ----------------------------------------------------------------------------------------

def _logistic():
    from bandits.logistic.instances import sphere

    return sphere(d=2, K=4, S=2.0, seed=0)


def test_homer_policy_refuses_a_negative_eps_up_front():
    from bandits.logistic.homer import HomerPolicy

    inst = _logistic()
    with pytest.raises(ValueError, match="eps"):
        HomerPolicy(inst.X, 2.0, eps=-1)
    with pytest.raises(ValueError, match="design_tol"):
        HomerPolicy(inst.X, 2.0, design_tol=0)


@pytest.mark.parametrize("algorithm", ["homer", "war"])
def test_logistic_algorithms_refuse_a_linear_instance(algorithm):
    from bandits import run

    with pytest.raises(ValueError, match="instance.*LogisticInstance"):
        run(algorithm, SOARE, max_samples=100)


@pytest.mark.parametrize("algorithm", ["m-lingape", "xy-static", "rage"])
def test_linear_algorithms_refuse_other_instances(algorithm):
    from bandits import run

    for bad in ("soare", _logistic()):
        with pytest.raises(ValueError, match="instance"):
            run(algorithm, bad)


def test_mle_refuses_fractional_counts():
    from bandits.logistic.core import mle

    inst = _logistic()
    with pytest.raises(ValueError, match="counts"):
        mle(inst.X, [2.5, 3, 3, 3], [1, 1, 1, 1])
    with pytest.raises(ValueError, match="successes"):
        mle(inst.X, [3, 3, 3, 3], [1.5, 1, 1, 1])


@pytest.mark.parametrize("kwargs, name", [
    ({"seed": 1.5}, "seed"), ({"max_samples": 2.5}, "max_samples"), ({"seed": True}, "seed"),
    ({"epsilon": "a"}, "epsilon"), ({"delta": "0.1"}, "delta"), ({"seed": 2**70}, "seed"),
])
@pytest.mark.parametrize("algorithm", ["m-lingape", "xy-static", "rage"])
def test_run_refuses_non_integer_seed_budget_and_non_numbers(algorithm, kwargs, name):
    from bandits import run

    with pytest.raises(ValueError, match=name):
        run(algorithm, SOARE, **kwargs)


def test_policies_refuse_float_seed_and_budget():
    with pytest.raises(ValueError, match="seed"):
        Policy("m-lingape", SOARE.X, seed=1.5)
    with pytest.raises(ValueError, match="max_samples"):
        Policy("m-lingape", SOARE.X, max_samples=2.5)
    with pytest.raises(ValueError, match="max_samples"):
        RagePolicy(SOARE.X, max_samples=2.5)


def test_complex_arrays_are_refused_not_truncated():
    import warnings

    import design
    from bandits.instances import Instance
    from rounding import efficiency_loss

    Xc = SOARE.X + 1j
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ComplexWarning: refused before any cast
        with pytest.raises(ValueError, match="X.*complex"):
            design.g_optimal(Xc)
        with pytest.raises(ValueError, match="X.*complex"):
            Instance("c", X=Xc, theta=np.ones(3))
        with pytest.raises(ValueError, match="theta.*complex"):
            Instance("c", X=SOARE.X, theta=np.ones(3) + 0j)
        with pytest.raises(ValueError, match="X.*complex"):
            Policy("m-lingape", Xc)
        with pytest.raises(ValueError, match="weights.*complex"):
            efficiency_loss(SOARE.X, np.full(4, 0.25) + 0j, np.ones(4, int))


def test_unknown_static_option_lists_the_valid_ones():
    from bandits import run

    with pytest.raises(ValueError, match="bogus.*valid options:.*method"):
        run("xy-static", SOARE, bogus=1)
    with pytest.raises(ValueError, match="bogus.*valid options"):
        run("homer", _logistic(), bogus=1, max_samples=100)


# ----------------------------------------------------------------------------------------
# command line (issue 12, items 4-5): one line on stderr, status 2, no traceback
# ----------------------------------------------------------------------------------------

def _cli(argv, capsys):
    from bandits.cli import main

    status = main(argv)
    err = capsys.readouterr().err
    return status, err


@pytest.mark.parametrize("argv, flag", [
    (["design", "g", "--arms", "ARMS", "--tol", "0"], "--tol"),
    (["subset", "dart", "--T", "1000.7"], "--T"),
    (["subset", "dart", "--T", "1000", "--jobs", "0"], "--jobs"),
    (["reproduce", "reda-table5", "--jobs", "0"], "--jobs"),
    (["run", "m-lingape", "--instance", "soare", "--seed", "1.5"], "--seed"),
    (["run", "m-lingape", "--instance", "soare", "--max-samples", "2.5"], "--max-samples"),
    (["round", "--weights", "W", "--n", "1e30"], "--n"),
    (["replicate", "m-lingape", "--instance", "soare", "--runs", "2", "--out", "OUT.xlsx"],
     "--out"),
    (["replicate", "m-lingape", "--instance", "soare", "--runs", "2", "--plot", "P.txt"],
     "--plot"),
    (["run", "xy-static:bogus=1", "--instance", "soare"], "valid options"),
    (["design", "g", "--arms", "BIN"], "--arms"),
    (["round", "--weights", "BAD.json", "--n", "5"], "--weights"),
])
def test_cli_refuses_bad_input_in_one_line(argv, flag, tmp_path, capsys):
    arms = tmp_path / "arms.csv"
    np.savetxt(arms, SOARE.X, delimiter=",")
    (tmp_path / "bin.csv").write_bytes(bytes(range(256)) * 4)
    (tmp_path / "bad.json").write_text('{"weights": [0.5, 0.5')
    (tmp_path / "w.json").write_text('{"weights": [0.5, 0.5]}')
    subst = {"ARMS": str(arms), "BIN": str(tmp_path / "bin.csv"),
             "BAD.json": str(tmp_path / "bad.json"), "W": str(tmp_path / "w.json"),
             "OUT.xlsx": str(tmp_path / "t.xlsx"), "P.txt": str(tmp_path / "p.txt")}
    status, err = _cli([subst.get(a, a) for a in argv], capsys)
    assert status == 2
    assert err.startswith("oed: error: ") and err.count("\n") == 1 and flag in err
    if "BIN" in argv or "BAD.json" in argv:  # the message names the file too
        assert ("bin.csv" in err) or ("bad.json" in err)
    assert not (tmp_path / "t.xlsx").exists() and not (tmp_path / "p.txt").exists()


@pytest.mark.parametrize("argv", [
    ["run", "m-lingape", "--instance", "reda-classic", "-p", "omega=9**9**9"],
    ["subset", "dart", "--T", "9**9**9"],
])
def test_cli_numbers_are_read_not_evaluated(argv):
    """On main these never returned (the parser evaluated 9**9**9): a subprocess with a
    generous time limit, so a regression fails instead of hanging the suite."""
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "bandits.cli", *argv], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.startswith("oed: error: ") and proc.stderr.count("\n") == 1
    assert "9**9**9" in proc.stderr


def test_parse_number_grammar():
    from bandits.cli import parse_count, parse_number

    assert parse_number("1_000_000", "x") == 1_000_000
    assert parse_number("1e6", "x") == 1e6
    assert parse_number("2*pi/3", "x") == pytest.approx(2 * np.pi / 3)
    assert parse_count("1e6", "--T") == 1_000_000
    for bad in ("9**9**9", "1e999", "2**10", "pi/0", "0x10", "1e6.5", "nan", "inf"):
        with pytest.raises(ValueError, match="x"):
            parse_number(bad, "x")
    for bad in ("1000.7", "0", "1e300", "-3"):
        with pytest.raises(ValueError, match="--T"):
            parse_count(bad, "--T")


# ----------------------------------------------------------------------------------------
# replicate: start method and Ctrl-C (issue 12, item 5)
# ----------------------------------------------------------------------------------------

def test_replicate_workers_are_never_forked_from_the_caller(monkeypatch):
    """The pool uses forkserver (or spawn): the caller, multi-threaded by numba/BLAS, never
    calls fork() itself.  Same table as the serial run."""
    import os

    from bandits import replicate
    from bandits.instances import get_instance
    from bandits.replicate import START_METHOD, worker_context

    assert START_METHOD in ("forkserver", "spawn")
    assert worker_context().get_start_method() == START_METHOD
    inst = get_instance("reda-classic")
    serial = replicate("m-lingape", inst, 4, n_jobs=1, progress=False)

    def no_fork():  # pragma: no cover - called only on a regression
        raise AssertionError("replicate forked the calling process")

    monkeypatch.setattr(os, "fork", no_fork)
    parallel = replicate("m-lingape", inst, 4, n_jobs=2, progress=False)
    assert parallel.equals(serial, wall_time=False)


@pytest.mark.parametrize("backend, wait", [("processes", 6.0), ("dask", 12.0),
                                           ("dask", "start-up")])
def test_ctrl_c_during_replicate_exits_quickly_and_cleanly(backend, wait, tmp_path):
    """Ctrl-C (SIGINT to the whole process group, as a terminal sends it) while the workers
    run, or while dask's workers start (as soon as our cluster's scratch folder exists):
    status 130, the single line
    'oed: interrupted' (dask's workers used to print their own tracebacks and teardown
    logs when the interrupt reached them, most often while they started), no table
    written, no lock files left (TMPDIR is tmp_path).  20 s is a generous bound (main
    needed 41-52 s), not a speed assertion."""
    import os
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "table.csv"
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "bandits.cli", "replicate", "m-lingape", "--instance", "soare",
         "--runs", "5000", "--jobs", "2", "--backend", backend, "--out", str(out),
         "--no-progress"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        env=env, cwd=tmp_path)
    if wait == "start-up":
        deadline = time.monotonic() + 120
        while not any(scratch.glob("oed-dask-*")):
            assert proc.poll() is None and time.monotonic() < deadline, "no dask start-up"
            time.sleep(0.02)
    else:
        time.sleep(wait)
    assert proc.poll() is None, "the replication finished before the interrupt"
    # during dask's start-up the interrupt is held back until the cluster is up (it cannot
    # be interrupted cleanly), which takes longer on a busy machine
    bound = 60 if wait == "start-up" else 20
    t0 = time.monotonic()
    os.killpg(proc.pid, signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=bound)
    except subprocess.TimeoutExpired:  # pragma: no cover - a regression
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"oed replicate did not exit within {bound} s of Ctrl-C")
    assert time.monotonic() - t0 < bound
    assert proc.returncode == 130
    assert err == "oed: interrupted\n"
    assert not out.exists()
    assert sorted(p.name for p in scratch.rglob("*")) == []
