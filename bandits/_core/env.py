"""The simulated environment: one bundled value at the numba boundary.

An :class:`Environment` is a namedtuple of arrays (numba passes it to jitted code as one
argument): Gaussian rewards ``means[arm] + sigma N(0, 1)``, or a uniformly drawn row of a
reward table (bootstrap from real data). :func:`make_environment` builds it from an
instance, :func:`pull` draws one reward from it inside jitted code, with the environment's
own generator (:mod:`bandits._core.rng`, stream 1 of the run's seed).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from bandits._core import rng as _rng

ENV_GAUSSIAN, ENV_TABLE = 0, 1


class Environment(NamedTuple):
    """Rewards of the measurement arms ``X`` (the decision targets only matter for the
    correctness of a recommendation)."""

    kind: int
    """``ENV_GAUSSIAN`` or ``ENV_TABLE``."""
    means: np.ndarray
    """Mean reward per arm, shape (K,) (the table's column means for ``ENV_TABLE``)."""
    sigma: float
    """Gaussian noise level (0 for a table)."""
    table: np.ndarray
    """Reward table, shape (n, K) (a dummy (1, 1) array for ``ENV_GAUSSIAN``)."""


def make_environment(instance) -> Environment:
    """The environment of an instance: its ``reward_table`` if it has one, else Gaussian
    rewards with means ``X theta`` and noise ``sigma``."""
    table = getattr(instance, "reward_table", None)
    if table is not None:
        table = np.ascontiguousarray(table, dtype=np.float64)
        return Environment(ENV_TABLE, np.ascontiguousarray(table.mean(axis=0)), 0.0, table)
    means = np.asarray(instance.X, dtype=np.float64) @ np.asarray(instance.theta, float)
    return Environment(ENV_GAUSSIAN, np.ascontiguousarray(means), float(instance.sigma),
                       np.zeros((1, 1)))


@njit(cache=True)
def pull(env, arm, rng) -> float:
    """One reward of ``arm`` drawn from ``env`` with the generator state ``rng``."""
    if env.kind == ENV_GAUSSIAN:
        return env.means[arm] + env.sigma * _rng.normal(rng)
    return env.table[_rng.integer(rng, env.table.shape[0]), arm]


#: A reward table's sum of ``n`` pulls is drawn pull by pull below ``TABLE_SUM_PER_PULL``
#: times the number of rows (cheaper there), above it by the multinomial of
#: :func:`pull_sum` (the same distribution).
TABLE_SUM_PER_PULL = 8


@njit(cache=True)
def pull_sum(env, arm, n, rng) -> float:
    r"""The sum of ``n`` independent rewards of ``arm``, drawn at once, with the
    distribution of ``n`` calls of :func:`pull` (not their values).

    Gaussian: :math:`\mathcal N(n \mu_a, n \sigma^2)`, one normal draw. Reward table with
    ``m`` rows: each pull reads a uniformly random row, so the row counts are
    :math:`(c_1, \dots, c_m) \sim \mathrm{Multinomial}(n; 1/m, \dots, 1/m)` and the sum is
    :math:`\sum_v c_v\, \mathrm{table}[v, a]`; the multinomial is drawn by sequential
    binomials, :math:`c_v \sim \mathrm{Bin}(n - c_1 - \dots - c_{v-1}, 1/(m - v + 1))`
    (exact, :func:`bandits._core.rng.binomial_split`), stopping when no pull is left.
    Below ``TABLE_SUM_PER_PULL * m`` pulls the rows are drawn pull by pull instead."""
    if n <= 0:
        return 0.0
    if env.kind == ENV_GAUSSIAN:
        return n * env.means[arm] + env.sigma * np.sqrt(n) * _rng.normal(rng)
    m = env.table.shape[0]
    s = 0.0
    if n < TABLE_SUM_PER_PULL * m:
        for _ in range(n):
            s += env.table[_rng.integer(rng, m), arm]
        return s
    left = n
    for v in range(m - 1):
        if left == 0:
            return s
        c = _rng.binomial_split(left, 1.0 / (m - v), rng)
        s += c * env.table[v, arm]
        left -= c
    return s + left * env.table[m - 1, arm]


def reward_oracle(instance, seed: int):
    """A function ``arm -> reward`` drawing exactly the rewards a simulation with ``seed``
    draws (stream 1), to drive an ask/tell policy in tests and examples (for a
    :class:`bandits.subsets.SubsetEnv`: ``subset -> joint reward``; for an instance with
    its own ``reward_oracle(seed)`` method, such as a
    :class:`bandits.logistic.LogisticInstance`, that method's draws)."""
    if hasattr(instance, "kind_code"):  # a SubsetEnv (no import of the family here)
        from bandits.subsets.policy import subset_reward_oracle

        return subset_reward_oracle(instance, seed)
    own = getattr(instance, "reward_oracle", None)
    if callable(own):  # an instance with its own environment (logistic: Bernoulli outcomes)
        return own(seed)
    env = make_environment(instance)
    state = _rng.make_state(int(seed), 1)

    def draw(arm: int) -> float:
        return float(pull(env, int(arm), state))

    return draw
