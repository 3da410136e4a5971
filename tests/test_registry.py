"""The contract every registered algorithm keeps (parametrised over the registry, so a new
algorithm is tested here for free): run / replicate / ask-tell / budget / options."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import bandits
from bandits import STOP_REASONS, RunResult, replicate, reward_oracle, run
from bandits.registry import REGISTRY, _load, entry, markdown_table, policy, policy_for

NAMES = list(REGISTRY)
#: Budget that lets every example finish (fixed-horizon algorithms: their horizon).
BUDGET = {"linear": 200_000, "logistic": 400_000, "subset": 3_000}
#: Ask/tell policies fed the simulation's reward stream reproduce it for every name (an
#: algorithm with a ``simulation`` option is replayed in its ``"per-sample"`` reference
#: mode: the default mode draws per-arm sums, the same in distribution only).
REPLAYABLE = NAMES
#: Horizon of the replay of a fixed-horizon algorithm (HOMER's ask/tell loop costs tens of
#: microseconds a pull: 20,000 pulls cover its warm-up and a horizon cut inside phase 1;
#: tests/test_logistic_slow.py replays it through phase ends).
REPLAY_HORIZON = 20_000


def replay_options(name: str) -> dict:
    """Options of a run that its ask/tell policy replays exactly."""
    e = entry(name)
    opts: dict = {}
    if "simulation" in e.option_names():
        opts["simulation"] = "per-sample"
    if e.horizon:
        opts["T"] = min(budget(name), REPLAY_HORIZON)
    return opts


def example(name: str):
    return _load(entry(name).example)()


def budget(name: str) -> int:
    return BUDGET[entry(name).instance]


def test_registry_lists_every_family() -> None:
    families = {e.family for e in REGISTRY.values()}
    assert families == {"gifa", "game", "static", "phased", "logistic", "subsets"}
    assert {"dart", "homer", "rage", "m-lingape", "xy-static"} <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_run_stops_for_a_reason_in_the_closed_set(name: str) -> None:
    inst = example(name)
    res = run(name, inst, seed=1, max_samples=budget(name))
    assert isinstance(res, RunResult)
    assert res.stopped_by in STOP_REASONS
    assert res.stopped_by != "budget"  # the examples are easy: they finish within BUDGET
    assert res.samples <= budget(name)
    assert res.correct  # easy instances, right on the true means


@pytest.mark.parametrize("name", NAMES)
def test_tiny_budget_is_reported_as_a_budget_stop(name: str) -> None:
    inst = example(name)
    e = entry(name)
    tiny = getattr(inst, "N", 1) if e.instance == "subset" else 1
    opts = {"T": 10 * budget(name)} if e.horizon else {}
    res = run(name, inst, seed=0, max_samples=tiny, **opts)
    assert res.stopped_by == "budget"
    assert not res.certified


@pytest.mark.parametrize("name", NAMES)
def test_replicate_is_the_same_on_one_or_two_workers(name: str) -> None:
    inst = example(name)
    kw = {"max_samples": budget(name), "seeds": [3, 4, 5]}
    one = replicate(name, inst, n_jobs=1, **kw)
    two = replicate(name, inst, n_jobs=2, chunksize=1, **kw)
    assert one.equals(two, wall_time=False)
    assert len(one) == 3 and set(one["stopped_by"]) <= set(STOP_REASONS)


def _drive(pol, draw) -> None:
    """Ask and tell until done, with the simulation's rewards (none are drawn while a
    subset policy plays a committed subset: the simulation only counts regret there)."""
    while not pol.done:
        arm = pol.ask()
        pol.tell(arm, draw(arm) if getattr(pol, "exploring", True) else 0.0)


def _replay(name: str, seed: int, **extra: object):
    """Simulate ``name`` on its example and drive its ask/tell policy with the same
    rewards; assert they make the same run. Returns the simulated result."""
    inst = example(name)
    opts = {**replay_options(name), **extra}
    res = run(name, inst, seed=seed, max_samples=budget(name), **opts)
    opts.pop("simulation", None)
    pol = policy_for(name, inst, seed=seed, max_samples=budget(name), **opts)
    _drive(pol, reward_oracle(inst, seed))
    assert pol.stopped_by == res.stopped_by
    assert np.array_equal(pol.recommendation, res.recommendation)
    assert np.array_equal(pol.counts, res.counts)
    if entry(name).instance != "subset":
        assert pol.samples == res.samples
    return res


@pytest.mark.parametrize("name", REPLAYABLE)
@pytest.mark.parametrize("seed", [0, 7])
def test_ask_tell_policy_replays_the_simulation(name: str, seed: int) -> None:
    _replay(name, seed)


REFRESHING = [n for n in REPLAYABLE if "refresh_every" in entry(n).option_names()]


@pytest.mark.parametrize("name", REFRESHING)
def test_ask_tell_policy_replays_the_simulation_across_exact_refreshes(name: str) -> None:
    """With ``refresh_every=7`` a run crosses many exact recomputations of its
    least-squares state: the policy fed the same rewards must make the same decisions.
    (LinGame's simulation skipped them while its policy did them: runs longer than
    ``refresh_every`` pulls diverged, e.g. 1,154,848 against 1,172,055 samples on
    ``soare(d=3)``; the default examples were too short to show it.)"""
    assert _replay(name, 3, refresh_every=7).samples > 3 * 7


@pytest.mark.parametrize("name", REPLAYABLE)
def test_ask_tell_policy_with_a_budget_replays_a_budget_stop(name: str) -> None:
    inst = example(name)
    e = entry(name)
    cap = 2 * getattr(inst, "N", 0) if e.instance == "subset" else 5
    opts = {"T": 100 * cap} if e.horizon else {}
    opts.update({k: v for k, v in replay_options(name).items() if k != "T"})
    res = run(name, inst, seed=2, max_samples=cap, **opts)
    assert res.stopped_by == "budget"
    if e.horizon:  # a fixed-horizon policy has no budget: its horizon is T
        return
    opts.pop("simulation", None)
    pol = policy_for(name, inst, seed=2, max_samples=cap, **opts)
    _drive(pol, reward_oracle(inst, 2))
    assert pol.stopped_by == "budget" and pol.samples == res.samples
    assert np.array_equal(pol.counts, res.counts)


@pytest.mark.parametrize("name", NAMES)
def test_unknown_option_lists_the_valid_ones(name: str) -> None:
    inst = example(name)
    with pytest.raises(ValueError, match="unknown option") as exc:
        run(name, inst, no_such_option=1)
    for opt in entry(name).option_names():
        assert opt in str(exc.value)
    with pytest.raises(ValueError, match="unknown option"):
        policy(name, np.eye(2), no_such_option=1)


@pytest.mark.parametrize("name", NAMES)
def test_every_name_has_a_policy(name: str) -> None:
    inst = example(name)
    pol = policy_for(name, inst, seed=0, max_samples=budget(name))
    assert not pol.done and pol.ask() is not None
    if entry(name).family != "subsets":
        direct = bandits.Policy(name, inst.X, **_policy_kwargs(name, inst))
    else:
        direct = bandits.Policy(name, inst.N, K=inst.K, T=budget(name))
    assert type(direct) is type(pol)


ESTIMATING = [n for n in NAMES if entry(n).instance != "subset"]


@pytest.mark.parametrize("name", ESTIMATING)
def test_estimate_is_the_fit_of_the_used_rewards(name: str) -> None:
    """``policy.estimate()`` during a run is the fit of exactly the rewards told so far:
    least squares on the arms' mean rewards (linear; LUCB/UGapE fit each arm's mean), the
    logistic MLE (logistic); ``identified`` says whether the measured arms span."""
    from bandits.logistic.core import mle, mu

    inst = example(name)
    pol = policy_for(name, inst, seed=3, max_samples=budget(name))
    draw = reward_oracle(inst, 3)
    X = pol.features
    K, d = X.shape
    n, sums = np.zeros(K), np.zeros(K)
    for _ in range(400):
        if pol.done:
            break
        est = pol.estimate()
        seen = n > 0
        spans = seen.any() and np.linalg.matrix_rank(X[seen]) == d
        assert est.identified == spans
        if spans and entry(name).instance == "logistic":
            ref = mle(X, n.astype(int), sums.astype(int)).theta
            np.testing.assert_allclose(est.means, mu(X @ ref), rtol=1e-9, atol=1e-12)
        elif spans:  # the normal equations are fine on these small examples
            ref = np.linalg.solve((X.T * n) @ X, X.T @ sums)
            np.testing.assert_allclose(est.means, X @ ref, rtol=1e-8, atol=1e-10)
        arm = pol.ask()
        reward = draw(arm)
        pol.tell(arm, reward)  # used, also when it stops the run
        n[arm] += 1
        sums[arm] += reward
    assert np.array_equal(pol.counts, n)
    np.testing.assert_allclose(pol.arm_reward_sums, sums, rtol=1e-12, atol=1e-12)


def test_estimate_ignores_rewards_told_after_the_stop() -> None:
    inst = example("lucb")
    pol = policy_for("lucb", inst, seed=0, max_samples=budget("lucb"))
    _drive(pol, reward_oracle(inst, 0))
    before = pol.estimate()
    # unstructured: each arm's mean reward on its own
    np.testing.assert_allclose(before.means, pol.arm_reward_sums / pol.counts, rtol=1e-14)
    pol.observe(0, 1e6)
    assert pol.late and np.array_equal(pol.estimate().means, before.means)


def _policy_kwargs(name: str, inst) -> dict:
    e = entry(name)
    if e.family == "gifa":
        return {"m": inst.m, "S": float(np.linalg.norm(inst.theta)), "sigma": inst.sigma}
    if e.family == "game":
        return {"S": float(np.linalg.norm(inst.theta)), "sigma": inst.sigma}
    if e.family == "logistic":
        return {"S": inst.S}
    return {"theta": inst.theta} if name == "xy-oracle" else {}


def test_unknown_name_lists_the_registry() -> None:
    with pytest.raises(ValueError, match="known: lingape, m-lingape"):
        run("no-such-algorithm", example("rage"))
    with pytest.raises(ValueError, match="dart"):
        bandits.Policy("no-such-algorithm", np.eye(2))


def test_cli_help_lists_the_registry(capsys) -> None:
    from bandits.cli import main

    for command, family in (("run", None), ("replicate", None), ("subset", "subsets")):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        out = capsys.readouterr().out
        for name, e in REGISTRY.items():
            if family is None or e.family == family:
                assert name in out, (command, name)


def test_docs_algorithm_table_is_generated_from_the_registry() -> None:
    page = (Path(__file__).resolve().parents[1] / "docs" / "algorithms.md").read_text()
    assert markdown_table() in page, "regenerate: python -m bandits.registry > table"


def test_replication_table_accepts_every_stop_reason_and_nothing_else() -> None:
    from bandits import ReplicationTable

    rows = [{"algorithm": "a", "instance": "i", "seed": k, "samples": 1, "correct": True,
             "stopped_by": reason, "wall_time": 0.0, "recommendation": "0", "counts": "1"}
            for k, reason in enumerate(STOP_REASONS)]
    assert list(ReplicationTable.from_rows(rows)["stopped_by"]) == list(STOP_REASONS)
    rows[0]["stopped_by"] = "gave-up"
    with pytest.raises(ValueError, match="gave-up"):
        ReplicationTable.from_rows(rows)


def test_homer_commit_is_a_valid_replication_row() -> None:
    # issue 13: this crashed after the runs on stopped_by='commit'
    from bandits.registry import _example_logistic

    table = replicate("homer", _example_logistic(), 1, n_jobs=1, max_samples=12_000_000)
    assert table["stopped_by"][0] in ("commit", "horizon")


@pytest.mark.parametrize("layer", ["design", "rounding"])
def test_design_and_rounding_never_load_bandits(layer: str) -> None:
    code = (f"import sys, {layer}, pkgutil, importlib\n"
            f"for m in pkgutil.walk_packages({layer}.__path__, '{layer}.'):\n"
            f"    importlib.import_module(m.name)\n"
            "bad = sorted(m for m in sys.modules if m == 'bandits' or m.startswith('bandits.'))\n"
            "print(','.join(bad))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=Path(__file__).resolve().parents[1])
    assert out.stdout.strip() == ""


def _raw_kelvin_quadratic():
    """A quadratic response in temperature (raw kelvin, 293-333 K) and pH: a valid linear
    model whose arms have condition number 5.9e7, where the float64 least-squares kernels
    certified a wrong best condition (m-LinGapE, LinGame and RAGE, 5 of 5 seeds, with the
    optimum at 318 K and pH 6.6)."""
    import itertools

    from bandits.instances import Instance
    from design import model_matrix

    F = np.array(list(itertools.product([293.15, 303.15, 313.15, 323.15, 333.15],
                                        [5.0, 6.0, 7.0, 8.0])))
    X = model_matrix(F, "quadratic")
    mu = 50 - 0.02 * (F[:, 0] - 313.15) ** 2 - 3 * (F[:, 1] - 6.0) ** 2  # gap 2 = 2 sigma
    theta = np.linalg.lstsq(X, mu, rcond=None)[0]
    return Instance(name="kelvin", X=X, theta=theta, sigma=1.0, m=1)


LINEAR = [n for n in NAMES if entry(n).instance == "linear"]


@pytest.mark.parametrize("name", LINEAR)
def test_ill_conditioned_arms_are_refused_or_answered_right(name: str) -> None:
    """Every linear algorithm, simulated and as a policy, either refuses arms too
    ill-conditioned for float64 least squares (a ValueError naming the condition number
    and the remedy) or, when it does not use them (LUCB, UGapE: unstructured), recommends
    the true best arm. Never a certified wrong answer."""
    inst = _raw_kelvin_quadratic()
    opts = {"threshold": "heuristic"} if "threshold" in entry(name).option_names() else {}
    try:
        results = [run(name, inst, seed=s, max_samples=400_000, **opts) for s in range(3)]
    except ValueError as exc:
        assert "condition number is 5.93e+07 > 1e+06" in str(exc) and "coded" in str(exc)
        with pytest.raises(ValueError, match="condition number is 5.93e"):
            policy(name, inst.X, **opts)
        return
    for res in results:
        assert res.stopped_by != "rule" or res.correct
