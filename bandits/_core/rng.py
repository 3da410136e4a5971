"""A tiny reproducible random number generator for jitted code (splitmix64).

The state is a one-element ``uint64`` array owned by whoever draws from it, so the policy's
tie-breaking stream and the environment's reward stream are independent and a run is
reproducible from its seed in any process, whatever else uses numba's global RNG.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bandits._core.jit import inner
from rounding.validation import check_seed

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


def make_state(seed: int, stream: int = 0) -> np.ndarray:
    """A generator state for ``seed`` (an integer in [0, 2**63 - 1], else ValueError)
    and sub-stream ``stream``."""
    sequence = np.random.SeedSequence([check_seed(seed), int(stream)])
    return sequence.generate_state(1, dtype=np.uint64).astype(np.uint64)


@inner
def next_u64(state: np.ndarray) -> np.uint64:
    """Next 64-bit output of splitmix64 (Steele, Lea & Flood 2014)."""
    state[0] += _GOLDEN
    z = state[0]
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def uniform(state: np.ndarray) -> float:
    """Uniform draw in [0, 1) with 53 random bits."""
    return float(next_u64(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def normal(state: np.ndarray) -> float:
    """Standard normal draw (Box–Muller)."""
    u1 = uniform(state)
    while u1 <= 0.0:
        u1 = uniform(state)
    u2 = uniform(state)
    return np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * u2)


@njit(cache=True)
def integer(state: np.ndarray, n: int) -> int:
    """Uniform integer in ``{0, ..., n-1}``."""
    return int(uniform(state) * n)


@inner
def argmax_random_ties(vals: np.ndarray, rng: np.ndarray, sign: float) -> int:
    """Index of the largest ``sign * vals[a]``, uniformly at random among ties; entries with
    ``sign * vals[a] = -inf`` are excluded (returns -1 if all are). One generator draw per
    tie met (reservoir sampling), none when the maximum is unique. ``sign = -1`` gives the
    smallest entry with ``+inf`` excluded (multiplying by +-1 is exact, so both directions
    are one implementation: GIFA's choices and LinGame's). ``sign`` has no default: a call
    that omits it would compile a second specialisation (issue 16)."""
    arg = -1
    best = -np.inf
    cnt = 0
    for a in range(vals.shape[0]):
        v = sign * vals[a]
        if v == -np.inf:
            continue
        if v > best:
            best, arg, cnt = v, a, 1
        elif v == best:
            cnt += 1
            if integer(rng, cnt) == 0:
                arg = a
    return arg
