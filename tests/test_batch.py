"""Batches, delayed feedback, warm starts and saved state of the ask/tell policies
(issue 14), parametrised over the registry.

Every policy is on ``bandits._core.protocol.AskTellProtocol`` except the subset
algorithms (an action is a K-subset, ``SUBSETS``); the linear, static, phased and logistic
families are ``BATCHED``. Every registered name is in exactly one of the two lists. The
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
           if e.family in ("gifa", "game", "static", "phased", "logistic")]
SUBSETS = [n for n, e in REGISTRY.items() if e.family == "subsets"]
BUDGET = 200_000
#: Horizon of a fixed-horizon algorithm here (HOMER on the easy logistic example: its
#: warm-up and a part of phase 1).
HORIZON = 6_000


def budget(name: str) -> int:
    return HORIZON if entry(name).horizon else BUDGET


def stops(name: str) -> set[str]:
    """How a run of ``name`` ends when nothing goes wrong."""
    return {"commit", "horizon"} if entry(name).horizon else {entry(name).end}


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
    assert {"m-lingape", "lingifa", "lingame", "xy-static", "xy-adaptive", "rage"} <= set(
        BATCHED)
    assert {"dart", "dart-anytime", "csar", "ucb", "lints"} <= set(SUBSETS)
    assert {"homer", "war"} <= set(BATCHED)
    assert sorted(BATCHED + SUBSETS) == sorted(REGISTRY), "a family in neither list"
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


@pytest.mark.parametrize("name", BATCHED)
@pytest.mark.parametrize("cap", [5, 45])
def test_batches_never_ask_beyond_the_budget(name: str, cap: int) -> None:
    """samples + outstanding never exceeds max_samples, and a run cut by it ends by the
    budget with every told result counted (RAGE's ask(100) used to hand out the rest of its
    phase: 100 measurements under max_samples=45, 15 of them beyond the budget)."""
    inst = example(name)
    pol = make(name, seed=0, max_samples=cap)
    draw = _noisy(inst, 4)
    while not pol.done:
        arms = pol.ask(30) or list(pol.outstanding)  # [] until results arrive (LUCB)
        assert pol.samples + len(pol.outstanding) <= cap
        pol.tell(arms[:3], [draw(a) for a in arms[:3]])
        if not pol.done and pol.outstanding:
            rest = list(pol.outstanding)
            pol.tell(rest, [draw(a) for a in rest])
    assert pol.samples <= cap and pol.outstanding == []
    assert pol.stopped_by in stops(name) | {"budget"}


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


def _assert_same_end(pol, ref) -> None:
    """Two runs of a policy ended alike: the same stop, samples, counts and answer."""
    assert pol.stopped_by == ref.stopped_by and pol.samples == ref.samples
    assert np.array_equal(pol.counts, ref.counts)
    assert np.array_equal(pol.recommendation, ref.recommendation)


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
    _assert_same_end(pol, ref)
    doc = json.loads(path.read_text())
    assert doc["version"] == 1 and doc["algorithm"] == name


@pytest.mark.parametrize("name", BATCHED)
def test_cancelled_asks_leave_the_run_as_if_never_asked(name: str, tmp_path) -> None:
    """Asks whose results are lost (a dropped plate) are withdrawn by ``cancel``: a run
    that asks batches, loses some of them (all of a batch, or a part, after telling the
    rest) and continues makes exactly the asks and the end of a run that never asked
    them (an ask decides nothing on the real data: a queued arm goes back to the front of
    the queue, a look-ahead arm is dropped); the cancels replay from a saved state."""
    inst = example(name)
    draws = {k: _noisy(inst, 5) for k in ("ref", "lossy")}
    ref, pol = make(name, seed=2), make(name, seed=2)
    path = tmp_path / "state.json"
    day = 0
    while not ref.done and day < 3000:
        if day % 3 == 1:  # a lost batch: asked, then withdrawn (all, or all but 2)
            lost = pol.ask(12)
            if day % 2:
                assert pol.cancel() == lost and pol.outstanding == []
            else:
                pol.tell(lost[:2], [draws["lossy"](a) for a in lost[:2]])
                ref_part = ref.ask(2)
                assert ref_part == lost[:2]
                ref.tell(ref_part, [draws["ref"](a) for a in ref_part])
                pol.cancel(lost[2:])
                assert pol.outstanding == [] or pol.done
            if day < 8:
                pol.save(path)
                pol = load_policy(path)
        if ref.done or pol.done:
            break
        a_ref, a_pol = ref.ask(10), pol.ask(10)
        assert a_ref == a_pol
        ref.tell(a_ref, [draws["ref"](a) for a in a_ref])
        pol.tell(a_pol, [draws["lossy"](a) for a in a_pol])
        day += 1
    assert ref.done and pol.done
    _assert_same_end(pol, ref)


def test_cancel_refuses_arms_that_are_not_outstanding() -> None:
    pol = make("m-lingape")
    with pytest.raises(ValueError, match="cannot be cancelled: no ask is outstanding"):
        pol.cancel([0])
    asked = pol.ask(3)
    with pytest.raises(ValueError, match=f"arm {asked[0]} was cancelled but arm"):
        pol.cancel([asked[0]] * 4)
    with pytest.raises(ValueError, match="1.5 is not an integer arm index"):
        pol.cancel([1.5])  # never coerced to arm 1
    assert pol.outstanding == asked  # nothing changed


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


# ----------------------------------------------------------------------------------------
# the subset algorithms: an action is a K-subset, its outcome one joint reward
# ----------------------------------------------------------------------------------------

SUBSET_T = 3_000


def subset_policy(name: str, seed: int = 0, T: int = SUBSET_T):
    return policy_for(name, example(name), seed=seed, max_samples=T)


def _subset_noisy(inst, seed: int):
    """Joint rewards of the instance from another stream than the simulation's."""
    from bandits.subsets.policy import subset_reward_oracle

    return subset_reward_oracle(inst, 10_000 + seed)


def _subset_best(inst) -> np.ndarray:
    return np.sort(np.argsort(-np.asarray(inst.means, dtype=float), kind="stable")[:inst.K])


def _shuffle_keeping_twins(subsets: list, rng) -> list[int]:
    """A random telling order in which identical subsets keep their ask order (a told
    subset fills its oldest outstanding slot: twins told in swapped order would swap their
    rewards -- interchangeable samples of one subset, but no longer the simulation's
    trajectory)."""
    order = [int(i) for i in rng.permutation(len(subsets))]
    keys = [tuple(sorted(subsets[i].tolist())) for i in order]
    slots: dict = {}
    for i in sorted(order):
        slots.setdefault(tuple(sorted(subsets[i].tolist())), []).append(i)
    return [slots[k].pop(0) for k in keys]


@pytest.mark.parametrize("name", SUBSETS)
@pytest.mark.parametrize("n", [1, 10, 100])
def test_subset_batches_with_shuffled_partial_tells(name: str, n: int) -> None:
    """Batches of n, told in a random order and in two parts. A scheduled algorithm makes
    exactly the simulation's decisions at every batch size (rewards drawn in ask order from
    the simulation's stream; they are applied in decision order; identical subsets are
    told in their ask order, see ``_shuffle_keeping_twins``); LinTS's batches are
    posterior draws: with n = 1 it replays the simulation, with larger n it explores to
    the horizon with full batches and commits to the true best subset."""
    inst = example(name)
    res = run(name, inst, seed=3, max_samples=SUBSET_T)
    pol = subset_policy(name, seed=3)
    draw = reward_oracle(inst, 3)
    rng = np.random.default_rng(n)
    sizes = []
    while not pol.done:
        subsets = pol.ask(n)
        assert 1 <= len(subsets) <= n
        assert pol.outstanding == [s.tolist() for s in subsets]
        sizes.append(len(subsets))
        rewards = [draw(s) for s in subsets]
        order = _shuffle_keeping_twins(subsets, rng)
        half = len(order) // 2
        for part in (order[:half], order[half:]):
            if len(part):
                pol.tell([subsets[i] for i in part], [rewards[i] for i in part])
    assert pol.outstanding == []
    assert np.array_equal(pol.recommendation, _subset_best(inst))
    if pol.batch_rule == "schedule" or n == 1:
        assert pol.stopped_by == res.stopped_by
        assert np.array_equal(pol.recommendation, res.recommendation)
        assert np.array_equal(pol.counts, res.counts)
    else:
        assert pol.samples == SUBSET_T and pol.stopped_by == "horizon"
        assert sizes[:-1] == [n] * (len(sizes) - 1)
    if n > 1:  # batches are full but where the schedule needs an outstanding reward
        assert np.mean(sizes) > 0.6 * n
    # after the exploration: the committed subset, n times
    assert [s.tolist() for s in pol.ask(3)] == [pol.recommendation.tolist()] * 3


@pytest.mark.parametrize("name", ["dart", "csar", "ucb"])
def test_subset_batch_stops_at_the_step_the_schedule_depends_on(name: str) -> None:
    """A batch never crosses a reward-dependent step (DART's test, the end of a CSAR phase
    or UCB round): ask(n) then returns [] until the outstanding rewards are told."""
    inst = example(name)
    pol = subset_policy(name)
    draw = _subset_noisy(inst, 0)
    batches = 0
    while not pol.done:
        subsets = pol.ask(10_000)
        assert 0 < len(subsets) < 10_000
        assert pol.ask(5) == []  # the next step needs the outstanding rewards
        pol.tell(subsets, [draw(s) for s in subsets])
        batches += 1
    assert batches >= 1


@pytest.mark.parametrize("name", SUBSETS)
def test_subset_tell_refuses_what_was_not_asked(name: str) -> None:
    pol = subset_policy(name)
    with pytest.raises(ValueError, match="without a pending ask"):
        pol.tell([0, 1], 0.5)
    subsets = pol.ask(3)
    other = next(list(c) for c in ([0, 1], [0, 2], [1, 2], [3, 4], [4, 5], [2, 5])
                 if c not in [sorted(s.tolist()) for s in subsets])
    with pytest.raises(ValueError, match="was told but"):
        pol.tell([subsets[0], other], [0.0, 0.0])
    assert pol.outstanding == [s.tolist() for s in subsets]
    with pytest.raises(ValueError, match="rewards"):
        pol.tell(subsets, [0.0] * (len(subsets) + 1))
    with pytest.raises(ValueError, match="finite"):
        pol.tell([subsets[0]], [float("nan")])
    with pytest.raises(ValueError, match="distinct arms"):
        pol.tell([[0, 0]], [0.0])
    with pytest.raises(ValueError, match="n must be"):
        pol.ask(0)
    with pytest.raises(ValueError, match="outstanding"):
        pol.observe([subsets[0]], [0.0])
    # the same subset asked twice fills its slots in order
    told = subsets[::-1]
    pol.tell(told, [0.5] * len(told))
    assert pol.outstanding == [] and pol.samples == len(subsets)


@pytest.mark.parametrize("name", SUBSETS)
def test_subset_save_and_load_resume_exactly(name: str, tmp_path) -> None:
    inst = example(name)
    draws = {k: _subset_noisy(inst, 9) for k in ("ref", "saved")}
    ref, pol = subset_policy(name, seed=4), subset_policy(name, seed=4)
    path = tmp_path / "state.json"
    day = 0
    while not ref.done:
        a_ref, a_pol = ref.ask(37), pol.ask(37)
        assert [a.tolist() for a in a_ref] == [a.tolist() for a in a_pol]
        half = len(a_ref) // 2
        ref.tell(a_ref[:half], [draws["ref"](a) for a in a_ref[:half]])
        pol.tell(a_pol[:half], [draws["saved"](a) for a in a_pol[:half]])
        if day < 5 or day % 10 == 0:
            pol.save(path)  # with outstanding subsets
            pol = load_policy(path)
        ref.tell(a_ref[half:], [draws["ref"](a) for a in a_ref[half:]])
        pol.tell(a_pol[half:], [draws["saved"](a) for a in a_pol[half:]])
        day += 1
    assert pol.done and pol.stopped_by == ref.stopped_by and pol.samples == ref.samples
    assert np.array_equal(pol.counts, ref.counts)
    assert np.array_equal(pol.recommendation, ref.recommendation)
    doc = json.loads(path.read_text())
    assert doc["algorithm"] == name and doc["arms"] == inst.N
    assert doc["arguments"]["K"] == inst.K


@pytest.mark.parametrize("name", SUBSETS)
def test_subset_cancelled_asks_are_asked_again_in_their_place(name: str, tmp_path) -> None:
    """A lost batch of subsets is withdrawn by ``cancel`` (all of it, or all but two after
    telling those): nothing is learnt, the next asks return the cancelled subsets first,
    and a scheduled algorithm makes exactly the asks (in sequence) and the end of a run
    that never lost them; the cancels replay from a saved state. LinTS's cancelled draws
    are asked again too (its posterior draws advanced its stream when they were asked)."""
    inst = example(name)
    draws = {k: _subset_noisy(inst, 6) for k in ("ref", "lossy")}
    ref, pol = subset_policy(name, seed=6), subset_policy(name, seed=6)
    path = tmp_path / "state.json"
    asked_ref: list = []
    asked_pol: list = []  # the subsets the lossy run told, in ask order
    day = 0
    while not pol.done and day < 2000:
        if day % 3 == 1:  # a lost batch: asked, then withdrawn (all, or all but 2)
            lost = pol.ask(12)
            if day % 2 or len(lost) <= 2:
                gone = pol.cancel()
            else:
                pol.tell(lost[:2], [draws["lossy"](a) for a in lost[:2]])
                asked_pol += [a.tolist() for a in lost[:2]]  # told: steps of the run
                gone = pol.cancel(lost[2:])
            assert gone == [sorted(a.tolist()) for a in lost[(0 if day % 2 or len(lost) <= 2
                                                                else 2):]]
            assert pol.outstanding == []
            again = pol.ask(len(gone))
            assert [sorted(a.tolist()) for a in again] == gone  # asked again, in order
            asked_pol += [a.tolist() for a in again]
            pol.tell(again, [draws["lossy"](a) for a in again])
            if day < 8:
                pol.save(path)
                pol = load_policy(path)
        if pol.done:
            break
        a_pol = pol.ask(10)
        asked_pol += [a.tolist() for a in a_pol]
        pol.tell(a_pol, [draws["lossy"](a) for a in a_pol])
        day += 1
    assert pol.done
    if pol.batch_rule != "schedule":
        return
    while not ref.done:  # the same schedule, never losing anything
        a_ref = ref.ask(10)
        asked_ref += [a.tolist() for a in a_ref]
        ref.tell(a_ref, [draws["ref"](a) for a in a_ref])
    # the subsets told, in ask order (the cancelled asks left out): the same schedule
    assert asked_pol == asked_ref
    _assert_same_end(pol, ref)


def test_subset_cancel_refuses_what_is_not_outstanding() -> None:
    pol = subset_policy("dart")
    with pytest.raises(ValueError, match="cannot be cancelled: no ask is outstanding"):
        pol.cancel([0, 1])
    asked = pol.ask(3)
    other = next(c for c in ([0, 1], [0, 2], [1, 2], [3, 4])
                 if c not in [sorted(a.tolist()) for a in asked])
    with pytest.raises(ValueError, match="was cancelled but"):
        pol.cancel([asked[0], other])
    with pytest.raises(ValueError, match="distinct arms"):
        pol.cancel([[0, 0]])
    assert pol.outstanding == [a.tolist() for a in asked]  # nothing changed


@pytest.mark.parametrize("name", SUBSETS)
def test_subset_warm_start(name: str) -> None:
    """observe(), by the algorithm's rule: DART and CSAR take measurements of their own
    next steps (a previous run's schedule) exactly as told ones, and keep the others in
    ``unused`` with a warning; UCB takes every subset's samples into its per-subset means
    and needs fewer new plays; LinTS updates its posterior without using the horizon."""
    inst = example(name)
    pol = subset_policy(name, seed=5)
    if pol.warm_rule == "schedule":
        # a previous run with the same seed: its first 200 steps, observed at once
        prev = subset_policy(name, seed=5)
        draw = _subset_noisy(inst, 1)
        hist = []
        for _ in range(200):
            a = prev.ask()
            r = draw(a)
            prev.tell(a, r)
            hist.append((a.tolist(), r))
        stray = [([0, 1], 0.3)]  # not the schedule's next step after these: kept unused
        order = hist
        with pytest.warns(UserWarning, match="not used"):
            pol.observe([a for a, _ in order + stray], [r for _, r in order + stray])
        assert pol.samples == prev.samples and np.array_equal(pol.counts, prev.counts)
        assert pol.unused == [[[0, 1], 0.3]]
        assert pol.ask().tolist() == prev.ask().tolist()
        return
    draw = _subset_noisy(inst, 2)
    if pol.warm_rule == "samples":
        def new_plays(warm: int, seed: int) -> int:
            p = subset_policy(name, seed=seed)
            acts = [list(a) for a in p._st.actions]
            hist = [a for a in acts for _ in range(warm)]
            p.observe(hist, [draw(a) for a in hist])
            assert p.samples == 0 and p.counts.sum() == 0
            while not p.done:
                a = p.ask()
                p.tell(a, draw(a))
            assert np.array_equal(p.recommendation, _subset_best(inst))
            return p.samples

        cold = sum(new_plays(0, s) for s in range(3))
        assert sum(new_plays(40, s) for s in range(3)) < cold
        return
    # posterior: a short horizon (T = N) commits right far more often with warm data
    def wrong(warm: int, seed: int) -> bool:
        p = subset_policy(name, seed=seed, T=inst.N)
        rng = np.random.default_rng(seed)
        hist = [np.sort(rng.choice(inst.N, inst.K, replace=False)).tolist()
                for _ in range(warm)]
        if hist:
            p.observe(hist, [draw(a) for a in hist])
        assert p.samples == 0
        while not p.done:
            a = p.ask()
            p.tell(a, draw(a))
        assert p.samples == inst.N  # the horizon is the asked plays only
        return not np.array_equal(p.recommendation, _subset_best(inst))

    cold = sum(wrong(0, s) for s in range(20))
    warm = sum(wrong(600, s) for s in range(20))
    assert warm < cold


def test_the_docs_batch_column_says_which_algorithms_batch() -> None:
    """The algorithm table (docs/algorithms.md) is generated from ``batch_rule``: every
    algorithm takes batches now, so no row says "refused"."""
    from bandits.registry import batch_rule

    for name in REGISTRY:
        assert "refused" not in batch_rule(name), name
    for name in SUBSETS:
        rule = subset_policy(name).batch_rule
        assert ("hallucinated" in batch_rule(name)) == (rule == "hallucinated"), name
