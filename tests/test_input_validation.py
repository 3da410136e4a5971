"""Regression tests of issue 12 items 4-5: hangs, O(1) ask/tell, and input that used to be
accepted and then failed late or was silently changed.  Each test failed on main."""

from __future__ import annotations

import numpy as np
import pytest

from bandits._policy import ArmQueue
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
    q = ArmQueue.repeated(np.array([2, 0, 1]))
    assert len(q) == 3 and bool(q)
    assert [q.popleft() for _ in range(3)] == [0, 0, 2]
    assert not q and len(q) == 0
    with pytest.raises(IndexError):
        q.popleft()
