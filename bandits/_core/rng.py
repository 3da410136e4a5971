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


@inner(error_model="numpy")
def standard_gamma(a: float, state: np.ndarray) -> float:
    """``Gamma(a, 1)`` for ``a >= 1`` (Marsaglia & Tsang 2000, exact rejection sampler)."""
    dd = a - 1.0 / 3.0
    c = 1.0 / np.sqrt(9.0 * dd)
    while True:
        u1 = uniform(state)  # a standard normal x (Box-Muller, as normal above)
        while u1 <= 0.0:
            u1 = uniform(state)
        x = np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * uniform(state))
        v = 1.0 + c * x
        if v <= 0.0:
            continue
        v = v * v * v
        u = uniform(state)
        x2 = x * x
        if u < 1.0 - 0.0331 * x2 * x2:
            return dd * v
        if u > 0.0 and np.log(u) < 0.5 * x2 + dd * (1.0 - v + np.log(v)):
            return dd * v


@njit(cache=True, error_model="numpy")
def binomial_split(n: int, p: float, state: np.ndarray) -> int:
    """Exact ``Binomial(n, p)`` in ``O(log n)`` draws: Devroye's order-statistic splitting.

    Of ``n`` uniforms, the ``i``-th smallest (``i = (n + 1) // 2``) is ``V ~ Beta(i, n + 1 -
    i) = G_i / (G_i + G_{n+1-i})``. If ``V <= p`` the ``i`` smallest are successes and the
    other ``n - i`` are uniform on ``(V, 1)``: success probability ``(p - V) / (1 - V)``;
    else the ``n - i`` largest are failures and the ``i - 1`` smallest are uniform on
    ``(0, V)``: success probability ``p / V``. Halve until ``n <= 16``, then Bernoulli
    draws (L. Devroye, *Non-Uniform Random Variate Generation*, 1986, X.4.3). Exact in
    distribution (rejection samplers, no approximation).
    """
    k = 0
    while n > 16:
        if p <= 0.0:
            return k
        if p >= 1.0:
            return k + n
        i = (n + 1) // 2
        g1 = standard_gamma(float(i), state)
        g2 = standard_gamma(float(n + 1 - i), state)
        v = g1 / (g1 + g2)
        if v <= p:
            k += i
            n -= i
            p = (p - v) / (1.0 - v)
        else:
            n = i - 1
            p = p / v
    for _ in range(n):
        if uniform(state) < p:
            k += 1
    return k
