"""Jitted environments and the simulation loop of the fully adaptive algorithms."""

from __future__ import annotations

from numba import njit

from bandits._core import rng as _rng
from bandits._core.lsq import T, refresh, update
from bandits.gifa._kernels import OUT_ARM1, OUT_ARM2, OUT_STOP, decide

ENV_GAUSSIAN, ENV_TABLE = 0, 1
STOPPED_BY_RULE, STOPPED_BY_BUDGET = 0, 1


@njit(cache=True)
def pull(env_kind, means, env_sigma, table, arm, rng) -> float:
    """One reward: ``means[arm] + env_sigma N(0, 1)`` (Gaussian) or a uniformly drawn row of
    the reward table (bootstrap from real data)."""
    if env_kind == ENV_GAUSSIAN:
        return means[arm] + env_sigma * _rng.normal(rng)
    return table[_rng.integer(rng, table.shape[0]), arm]


@njit(cache=True)
def simulate(X, lam, Vinv, P, diag, bvec, counts, stats, cfg, f, ratios, rng_pol, rng_env,
             env_kind, means, env_sigma, table, init, max_samples, refresh_every,
             mu, ind, inJ, J, buf, out) -> int:
    """Run a GIFA algorithm against a simulated environment until it stops or the budget of
    ``max_samples`` pulls is spent. Returns STOPPED_BY_RULE or STOPPED_BY_BUDGET; the
    recommendation is left in ``J``.

    The sequence decide -> pull -> update is exactly the one the ask/tell front-end
    (:class:`bandits.gifa.Policy`) performs, so both give the same trajectory for the same
    rewards and seed.
    """
    K = X.shape[0]
    if init:
        for a in range(K):
            if stats[T] >= max_samples:
                return STOPPED_BY_BUDGET
            r = pull(env_kind, means, env_sigma, table, a, rng_env)
            update(X, lam, Vinv, P, diag, bvec, counts, stats, a, r, refresh_every)
        # exact state after the initialisation (V singular with lam = 0, or badly
        # conditioned updates from V^-1 = I / lam with a tiny lam)
        refresh(X, lam, Vinv, P, diag, counts, stats)
    while True:
        if stats[T] >= max_samples:
            decide(X, P, diag, bvec, counts, stats, cfg, f, ratios, rng_pol, mu, ind, inJ, J,
                   buf, out)
            return STOPPED_BY_BUDGET
        decide(X, P, diag, bvec, counts, stats, cfg, f, ratios, rng_pol, mu, ind, inJ, J,
               buf, out)
        if out[OUT_STOP] == 1:
            return STOPPED_BY_RULE
        a = out[OUT_ARM1]
        r = pull(env_kind, means, env_sigma, table, a, rng_env)
        update(X, lam, Vinv, P, diag, bvec, counts, stats, a, r, refresh_every)
        a2 = out[OUT_ARM2]
        if a2 >= 0 and stats[T] < max_samples:
            r = pull(env_kind, means, env_sigma, table, a2, rng_env)
            update(X, lam, Vinv, P, diag, bvec, counts, stats, a2, r, refresh_every)
