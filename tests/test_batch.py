"""Batches, delayed feedback, warm starts and saved state of the ask/tell policies
(issue 14), parametrised over the registry.

The subset family keeps its own ask/tell classes (not on
``bandits._core.protocol.AskTellProtocol``); it is listed in ``docs/architecture.md``
("What is left") and checked here to refuse ``ask(n)`` rather than answer wrongly. The
logistic family (HOMER, WAR) has Bernoulli outcomes (``_noisy`` draws them) and HOMER a
horizon instead of a stopping rule (it ends by ``"commit"`` or ``"horizon"``).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import bandits
from bandits import load_policy, reward_oracle, run
from bandits._core.protocol import AskTellProtocol
from bandits.instances import soare
from bandits.registry import REGISTRY, _load, entry, policy_for

BATCHED = [n for n, e in REGISTRY.items()
           if e.family in ("gifa", "static", "phased", "logistic")]
NOT_BATCHED = [n for n in REGISTRY if n not in BATCHED]
BUDGET = 200_000
#: Horizon of a fixed-horizon algorithm here (HOMER on the easy logistic example: its
#: warm-up and a part of phase 1).
HORIZON = 6_000


def budget(name: str) -> int:
    return HORIZON if entry(name).horizon else BUDGET


def stops(name: str) -> set[str]:
    """How a run of ``name`` ends when nothing goes wrong."""
    return {"commit", "horizon"} if entry(name).horizon else {"rule"}


def reference(name: str) -> dict:
    """Options of the simulation that the sequential policy replays exactly."""
    e = entry(name)
    return {"simulation": "per-sample"} if "simulation" in e.option_names() else {}


def example(name: str):
    """Soare et al.'s instance with omega = 0.7 (every linear algorithm stops within
    5,000 samples on it; the registry's example, omega = 0.3, takes LUCB ~90,000)."""
    if entry(name).instance != "linear":
        return _load(entry(name).example)()
    return soare(d=3, omega=0.7)


def make(name: str, seed: int = 0, max_samples: int | None = None):
    cap = budget(name) if max_samples is None else max_samples
    return policy_for(name, example(name), seed=seed, max_samples=cap)


def test_batched_names_cover_the_linear_families() -> None:
    assert {"m-lingape", "lingifa", "xy-static", "xy-adaptive", "rage"} <= set(BATCHED)
    for name in BATCHED:
        assert isinstance(make(name), AskTellProtocol)


@pytest.mark.parametrize("name", BATCHED)
@pytest.mark.parametrize("seed", [0, 3])
def test_batch_of_one_with_list_tells_replays_the_simulation(name: str, seed: int) -> None:
    """ask(1) / tell([arm], [reward]) is the sequential policy: it reproduces ``run``."""
    inst = example(name)
    res = run(name, inst, seed=seed, max_samples=budget(name), **reference(name))
    pol = make(name, seed)
    draw = reward_oracle(inst, seed)
    while not pol.done:
        arms = pol.ask(1)
        assert len(arms) == 1
        pol.tell(arms, [draw(a) for a in arms])
    assert pol.stopped_by == res.stopped_by
    assert np.array_equal(pol.recommendation, res.recommendation)
    assert np.array_equal(pol.counts, res.counts)
    assert pol.samples == res.samples


def _noisy(inst, seed: int):
    rng = np.random.default_rng(seed)
    means = np.asarray(inst.means, dtype=float)
    if not hasattr(inst, "sigma"):  # a logistic instance: Bernoulli(mu(x^T theta)) outcomes
        return lambda a: float(rng.random() < means[a])
    return lambda a: float(means[a] + inst.sigma * rng.standard_normal())


def _best(inst) -> np.ndarray:
    means = np.asarray(inst.means, dtype=float)
    return np.sort(np.argsort(-means, kind="stable")[:inst.m])


@pytest.mark.parametrize("name", BATCHED)
@pytest.mark.parametrize("n", [7, 40])
def test_batches_with_shuffled_delayed_feedback_stop_on_the_right_answer(
        name: str, n: int) -> None:
    """Daily batches of n, results told the next day in a random order and in two parts;
    the policy stops by its rule on the true best arm (seeded; the example instance is
    easy: every run of the sequential policies is right on it)."""
    inst = example(name)
    pol = make(name, seed=1)
    draw = _noisy(inst, 11)
    rng = np.random.default_rng(5)
    days = 0
    while not pol.done and days < 5000:
        arms = pol.ask(n)
        assert 1 <= len(arms) <= n
        assert pol.outstanding == arms
        order = rng.permutation(len(arms))
        half = len(arms) // 2
        for part in (order[:half], order[half:]):
            if pol.done:
                break
            pol.tell([arms[i] for i in part], [draw(arms[i]) for i in part])
        days += 1
    assert pol.done and pol.stopped_by in stops(name)
    assert np.array_equal(np.sort(pol.recommendation), _best(inst))
    assert pol.samples + len(pol.late) == int(pol.counts.sum()) + len(pol.late)


@pytest.mark.parametrize("name", ["m-lingape", "lingifa", "xy-static", "xy-adaptive",
                                  "rage"])
def test_batch_fills_when_the_algorithm_can_look_ahead(name: str) -> None:
    """After the initial pulls, a batch holds n arms (look-ahead decisions), and at most the
    budget left."""
    inst = example(name)
    pol = make(name, seed=0)
    draw = _noisy(inst, 2)
    while not pol.done and pol.samples < 60:
        arms = pol.ask(10)
        pol.tell(arms, [draw(a) for a in arms])
    if not pol.done:
        assert len(pol.ask(10)) == 10


def test_unstructured_init_batch_stops_where_no_prediction_exists() -> None:
    """LUCB's V is singular until every arm is told once: ask(100) returns the K initial
    arms only (nothing can be decided without their rewards)."""
    pol = make("lucb")
    K = pol.counts.shape[0]
    assert pol.ask(100) == list(range(K))
    assert pol.ask(5) == []  # nothing more until rewards arrive


@pytest.mark.parametrize("name", BATCHED)
def test_tell_refuses_arms_that_are_not_outstanding(name: str) -> None:
    pol = make(name)
    with pytest.raises(ValueError, match="without a pending ask"):
        pol.tell(0, 1.0)
    arms = pol.ask(3)
    other = next(a for a in range(pol.counts.shape[0]) if a not in arms)
    with pytest.raises(ValueError, match="was told but"):
        pol.tell([arms[0], other], [0.0, 0.0])
    assert pol.outstanding == arms  # nothing was consumed by the refused call
    with pytest.raises(ValueError, match="rewards"):
        pol.tell(arms, [0.0])
    with pytest.raises(ValueError, match="finite|0 or 1"):
        pol.tell([arms[0]], [float("nan")])
    with pytest.raises(ValueError, match="n must be"):
        pol.ask(0)


def test_ask_without_n_keeps_its_meaning() -> None:
    pol = make("m-lingape")
    a = pol.ask()
    assert pol.ask() == a and pol.outstanding == [a]
    batch = pol.ask(2)
    assert a not in batch[:0] and pol.outstanding == [a, *batch]


@pytest.mark.parametrize("name", [n for n in BATCHED
                                  if n != "rage" and entry(n).family != "logistic"])
def test_warm_start_with_enough_data_stops_on_the_truth(name: str) -> None:
    """observe() feeds the estimate and the stopping rule: 3,000 measurements of every arm
    from the instance settle the easy example (the rule holds before any ask). RAGE is
    not in the list: warm data join its current phase, and it can only stop at the end of
    a phase that eliminates all but one arm (docs/choices.md, "Warm start"); nor are WAR
    and HOMER: their estimates are MLEs of planned designs of fresh pulls (warm data
    decide WAR's probing and fill slots of a design: tested below and in
    tests/test_logistic.py)."""
    inst = example(name)
    pol = make(name)
    K = pol.counts.shape[0]
    draw = _noisy(inst, 4)
    arms = [a for a in range(K) for _ in range(3000)]
    pol.observe(arms, [draw(a) for a in arms])
    assert pol.done and pol.stopped_by == "rule"
    assert np.array_equal(np.sort(pol.recommendation), _best(inst))


@pytest.mark.parametrize("name", BATCHED)
def test_warm_start_counts_and_saves_new_samples(name: str) -> None:
    """Historical measurements (a third of the cold runs' mean budget) are counted, and the
    runs that start from them spend fewer new samples than the cold runs on the same
    reward streams, summed over 6 seeds."""
    inst = example(name)
    K = inst.X.shape[0]

    def new_samples(seed: int, warm_n: int) -> int:
        pol = make(name, seed=seed)
        draw = _noisy(inst, 100 + seed)
        hist = [a % K for a in range(warm_n * K)]
        pol.observe(hist, [draw(a) for a in hist])
        if not pol.done:
            assert pol.samples == len(hist) and int(pol.counts.sum()) == len(hist)
        while not pol.done:
            a = pol.ask()
            pol.tell(a, draw(a))
        return pol.samples - min(len(hist), pol.samples)

    cold = [new_samples(seed, 0) for seed in range(6)]
    warm_n = max(1, int(np.mean(cold) / (3 * K)))
    warm = [new_samples(seed, warm_n) for seed in range(6)]
    assert sum(warm) < sum(cold)


def test_observe_refuses_bad_arms() -> None:
    pol = make("m-lingape")
    with pytest.raises(ValueError, match="out of range"):
        pol.observe([99], [1.0])
    with pytest.raises(ValueError, match="integer"):
        pol.observe(["a"], [1.0])


@pytest.mark.parametrize("name", BATCHED)
def test_save_and_load_resume_exactly(name: str, tmp_path) -> None:
    """A run saved and reloaded on many days (outstanding asks included) asks exactly what
    the uninterrupted run asks, and ends in the same state."""
    inst = example(name)
    draws = {k: _noisy(inst, 9) for k in ("ref", "saved")}
    ref = make(name, seed=4)
    pol = make(name, seed=4)
    path = tmp_path / "state.json"
    day = 0
    while not ref.done and day < 3000:
        a_ref, a_pol = ref.ask(20), pol.ask(20)
        assert a_ref == a_pol
        half = len(a_ref) // 2
        r1 = [draws["ref"](a) for a in a_ref[:half]]
        r2 = [draws["saved"](a) for a in a_pol[:half]]
        ref.tell(a_ref[:half], r1)
        pol.tell(a_pol[:half], r2)
        if day < 5 or day % 10 == 0:  # a reload replays the whole log: not every day
            pol.save(path)  # saved with outstanding arms
            pol = load_policy(path)
        rest_ref = [draws["ref"](a) for a in a_ref[half:]]
        rest_pol = [draws["saved"](a) for a in a_pol[half:]]
        if not ref.done:
            ref.tell(a_ref[half:], rest_ref)
        if not pol.done:
            pol.tell(a_pol[half:], rest_pol)
        day += 1
    assert ref.done and pol.done
    assert pol.stopped_by == ref.stopped_by and pol.samples == ref.samples
    assert np.array_equal(pol.counts, ref.counts)
    assert np.array_equal(pol.recommendation, ref.recommendation)
    doc = json.loads(path.read_text())
    assert doc["version"] == 1 and doc["algorithm"] == name


def test_load_refuses_an_edited_log(tmp_path) -> None:
    pol = bandits.policy("m-lingape", example("m-lingape").X, m=1, sigma=1.0, S=1.0,
                         seed=0)
    arms = pol.ask(4)
    pol.tell(arms, [0.1, 0.2, 0.3, 0.4])
    path = tmp_path / "s.json"
    pol.save(path)
    doc = json.loads(path.read_text())
    doc["events"][1]["rewards"][0] = 5.0  # a different reward: a different state
    path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="does not reproduce|replay asked"):
        load_policy(path)
    path.write_text("{}")
    with pytest.raises(ValueError, match="not an oed-bandits policy state"):
        load_policy(path)


def test_save_refuses_a_policy_built_outside_the_factory(tmp_path) -> None:
    from bandits.gifa import Policy

    pol = Policy("m-lingape", example("m-lingape").X, S=1.0)
    with pytest.raises(ValueError, match="bandits.policy"):
        pol.save(tmp_path / "x.json")


@pytest.mark.parametrize("name", NOT_BATCHED)
def test_families_without_batches_refuse_ask_n(name: str) -> None:
    """Not silently one arm: ``ask(n)`` is refused by these policies' own ``ask()``."""
    e = entry(name)
    opts = {"max_samples": 3_000} if e.instance == "subset" else {"max_samples": 400_000}
    pol = policy_for(name, example(name), seed=0, **opts)
    if isinstance(pol, AskTellProtocol):  # a newer family on the protocol base
        pytest.skip(f"{name} is on the protocol base; add its family to BATCHED")
    with pytest.raises(TypeError):
        pol.ask(3)


@pytest.mark.parametrize("name", BATCHED)
def test_pipelined_feedback_one_ask_ahead_finishes(name: str) -> None:
    """The next arm is always asked before the previous result is told (one measurement
    in flight at all times): the initial pulls and phases still end, and the run stops by
    its rule on the right answer within a few times the sequential budget."""
    inst = example(name)
    seq = run(name, inst, seed=0, max_samples=budget(name)).samples
    pol = make(name, seed=0)
    draw = _noisy(inst, 3)
    late: list[int] = []
    while not pol.done and pol.samples < 5 * seq + 1000:
        arms = pol.ask(1)
        if late:
            pol.tell(late, [draw(a) for a in late])
        late = arms
    assert pol.done and pol.stopped_by in stops(name)
    assert np.array_equal(np.sort(pol.recommendation), _best(inst))
