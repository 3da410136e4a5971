r"""Environments of top-K subset selection with a joint (possibly non-linear) reward.

``N`` arms; the learner plays a set ``a`` of ``K`` distinct arms per step and observes one
number, the joint reward :math:`r_{a,t} = f(X_{a,t})` (full-bandit feedback; Agarwal,
Aggarwal, Quinn & Umrawal, "DART", Eq. 1).

Bernoulli arms
--------------
:math:`X_{i,t} \sim \mathrm{Bernoulli}(p_i)`, with the means given or drawn
:math:`p_i \sim U[0,1]` from a seed (the paper's experiments, Section 7.3).  Since a
symmetric ``f`` (Assumption 1) of 0/1 vectors depends only on the number ``s`` of ones, every
reward is stored as a table :math:`g(s) = f(1^s 0^{K-s})`, ``s = 0..K``:

* ``"mean"``: :math:`f(x) = \frac1K\sum_i x_i`, :math:`g(s) = s/K` (Fig. 1);
* ``"quadratic"``: :math:`f(x) = x^\top A x` with ``A`` upper triangular, all entries on and
  above the diagonal equal to :math:`2/(K(K+1))` (Fig. 2, cross-selling of Wong et al.
  2003); the ``K(K+1)/2`` entries sum to one, so :math:`g(s) = s(s+1)/(K(K+1)) \in [0,1]`;
* ``"max"``: :math:`f(x) = \max_i x_i`, :math:`g(s) = 1\{s > 0\}` (Fig. 3, cascade/click);
* a user-supplied callable ``f(x: ndarray of shape (K,)) -> float``; it is evaluated on the
  ``K + 1`` vectors :math:`1^s0^{K-s}`, every value must be finite and in ``[0, 1]``, and it
  is checked to be symmetric on a few seeded random permutations (else ``ValueError``).

Correlation model (``rho`` in [0, 1])
-------------------------------------
Each step draws one shared latent :math:`U_t \sim U[0,1]`; arm ``i`` uses it with
probability ``rho`` and an independent uniform :math:`V_{i,t}` otherwise, and returns
:math:`X_{i,t} = 1\{W_{i,t} < p_i\}` for the uniform :math:`W_{i,t}` it used.  The
marginals stay Bernoulli(:math:`p_i`) and

.. math:: \operatorname{Cov}(X_i, X_j) = \rho^2\,(\min(p_i, p_j) - p_i p_j) \ge 0,

from independent arms (``rho = 0``) to comonotone arms (``rho = 1``).  Conditionally on
:math:`U_t = u` the arms are independent Bernoulli with
:math:`q_i(u) = \rho 1\{u < p_i\} + (1-\rho)p_i`, which gives the exact expected joint reward
:math:`\mu_a` used for the pseudo-regret.

Gaussian arms with shared noise (the lower-bound instance, DART Appendix A)
----------------------------------------------------------------------------
:math:`X_{i,t} = 1/2 + \varepsilon 1\{i \in a^*\} + Z_t`, :math:`Z_t \sim N(0, \sigma^2)`
shared by all arms, ``f`` the mean, ``a*`` uniform among the K-subsets,
:math:`\varepsilon = (\sigma/2)\sqrt{NK/T}` and :math:`\sigma^2 = 1/(4\log(NKT))` (Cohen et
al. 2017, Thm 5).  Every algorithm has regret at least :math:`(\sigma/8)\sqrt{NKT}` (Eq. 46).

The optimal action is the top ``K`` arms by mean (Assumption 2); ``mu_star`` is its expected
joint reward.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from bandits.subsets import _kernels as _k

__all__ = ["REWARDS", "SubsetEnv", "reward_table"]

REWARDS = ("mean", "quadratic", "max")


def reward_table(reward: str | Callable[[np.ndarray], float], K: int) -> np.ndarray:
    """The table ``g(s)``, ``s = 0..K``, of a symmetric joint reward of Bernoulli arms.

    Parameters
    ----------
    reward : {"mean", "quadratic", "max"} or callable
        A named reward or ``f(x)`` for ``x`` a 0/1 float vector of length ``K``.
    K : int
        Subset size.

    Raises
    ------
    ValueError
        Unknown name; a callable returning a non-finite value or one outside [0, 1], or one
        that is not symmetric in its arguments (Assumption 1 of DART).
    """
    s = np.arange(K + 1, dtype=float)
    if isinstance(reward, str):
        if reward == "mean":
            return s / K
        if reward == "quadratic":
            return s * (s + 1) / (K * (K + 1))
        if reward == "max":
            return (s > 0).astype(float)
        raise ValueError(f"reward must be one of {REWARDS} or a callable; got {reward!r}")
    if not callable(reward):
        raise ValueError(f"reward must be one of {REWARDS} or a callable; got {reward!r}")
    table = np.empty(K + 1)
    for c in range(K + 1):
        x = np.zeros(K)
        x[:c] = 1.0
        try:
            val = float(reward(x))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"reward({x.tolist()}) did not return a number: {exc}") from exc
        if not np.isfinite(val) or val < 0.0 or val > 1.0:
            raise ValueError(f"reward must return values in [0, 1]; reward({x.tolist()}) = "
                             f"{val!r}")
        table[c] = val
    rng = np.random.default_rng(12345)
    for _ in range(8):
        x = (rng.random(K) < 0.5).astype(float)
        val = float(reward(rng.permutation(x)))
        if not np.isfinite(val) or val < 0.0 or val > 1.0:
            raise ValueError(f"reward must return values in [0, 1]; got {val!r}")
        if abs(val - table[int(x.sum())]) > 1e-12:
            raise ValueError("reward must be symmetric in the arms (Assumption 1 of DART): "
                             f"reward of a permutation of {x.tolist()} differs")
    return table


@dataclass(frozen=True)
class SubsetEnv:
    """A top-K subset environment (see the module docstring for the models).

    Attributes
    ----------
    means : ndarray, shape (N,)
        Arm means ``p_i`` (Bernoulli: in [0, 1]).
    K : int
        Subset size, ``1 <= K < N``.
    table : ndarray, shape (K+1,)
        Joint reward as a function of the number of ones (Bernoulli arms).
    rho : float
        Correlation through the shared latent uniform (Bernoulli arms).
    kind : str
        ``"bernoulli"`` or ``"gaussian-shared"``.
    sigma : float
        Standard deviation of the shared noise (``"gaussian-shared"``).
    name : str
        Label used in tables and plots.
    """

    means: np.ndarray
    K: int
    table: np.ndarray
    rho: float = 0.0
    kind: str = "bernoulli"
    sigma: float = 0.0
    name: str = ""
    info: dict = field(default_factory=dict)

    @property
    def N(self) -> int:
        return int(self.means.size)

    @property
    def kind_code(self) -> int:
        return 0 if self.kind == "bernoulli" else 1

    @property
    def optimal(self) -> np.ndarray:
        """The optimal action: the K arms with the largest means (ties: lowest index)."""
        return np.sort(np.argsort(-self.means, kind="stable")[: self.K])

    def is_optimal(self, action) -> bool:
        """Whether the K-subset ``action`` is an optimal action: every arm of it has a mean
        at least the K-th largest mean (ties at the K-th mean: any such arms). Under
        Assumption 2 these are exactly the subsets of expected joint reward ``mu_star``;
        :attr:`optimal` is one of them (the lowest indices among ties)."""
        a = np.asarray(action, dtype=np.int64)
        if a.shape != (self.K,) or len(set(a.tolist())) != self.K or a.min() < 0 \
                or a.max() >= self.N:
            raise ValueError(f"action must be {self.K} distinct arm indices in 0..{self.N - 1}"
                             f"; got {action!r}")
        from bandits._core.exact import correct_set

        return correct_set(self.means, a, self.K, 0.0)

    def expected_reward(self, action) -> float:
        """Exact expected joint reward ``mu_a`` of a K-subset ``action``."""
        a = np.asarray(action, dtype=np.int64)
        if a.shape != (self.K,) or len(set(a.tolist())) != self.K or a.min() < 0 \
                or a.max() >= self.N:
            raise ValueError(f"action must be {self.K} distinct arm indices in 0..{self.N - 1}"
                             f"; got {action!r}")
        return float(_k.expected_joint(a, self.K, self.means, self.table, self.kind_code,
                                       self.rho, np.empty(3 * self.K + 2)))

    @property
    def mu_star(self) -> float:
        return self.expected_reward(self.optimal)

    def best_by_enumeration(self) -> tuple[np.ndarray, float]:
        """The best K-subset by enumerating all C(N, K) (small instances only)."""
        if math.comb(self.N, self.K) > 200_000:
            raise ValueError("too many subsets to enumerate")
        best, val = None, -np.inf
        for a in combinations(range(self.N), self.K):
            v = self.expected_reward(np.array(a))
            if v > val + 1e-15:
                best, val = np.array(a), v
        return best, float(val)

    # ---------------------------------------------------------------- constructors
    @classmethod
    def bernoulli(cls, N: int | None = None, K: int = 2, reward="mean", *, means=None,
                  seed: int | None = None, rho: float = 0.0, name: str | None = None
                  ) -> SubsetEnv:
        """Bernoulli arms with the given ``means`` or ``p_i ~ U[0,1]`` drawn from ``seed``.

        Parameters
        ----------
        N : int, optional
            Number of arms (required when ``means`` is not given).
        K : int
            Subset size, ``1 <= K < N``.
        reward : {"mean", "quadratic", "max"} or callable
            Joint reward (see :func:`reward_table`).
        means : array-like, optional
            Arm means in [0, 1].
        seed : int, optional
            Seed of the U[0,1] means (required when ``means`` is not given).
        rho : float
            Correlation in [0, 1] through a shared latent uniform.

        Raises
        ------
        ValueError
            ``K >= N``, ``K < 1``, means outside [0, 1] or not finite, ``rho`` outside
            [0, 1], or a bad reward.
        """
        if means is None:
            if N is None or seed is None:
                raise ValueError("give either means, or N and seed to draw U[0,1] means")
            _check_int("N", N, 2)
            means = np.random.default_rng(np.random.SeedSequence([int(seed), 7])).random(N)
        means = np.asarray(means, dtype=float)
        if means.ndim != 1 or means.size < 2:
            raise ValueError(f"means must be a vector of at least 2 arms; got shape "
                             f"{means.shape}")
        if N is not None and int(N) != means.size:
            raise ValueError(f"N = {N} does not match len(means) = {means.size}")
        if not np.all(np.isfinite(means)) or means.min() < 0 or means.max() > 1:
            raise ValueError("means must be finite and in [0, 1]")
        _check_K(K, means.size)
        rho = float(rho)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"rho must be in [0, 1]; got {rho!r}")
        table = reward_table(reward, K)
        label = reward if isinstance(reward, str) else getattr(reward, "__name__", "custom")
        return cls(means, int(K), table, rho, "bernoulli", 0.0,
                   name or f"bernoulli N={means.size} K={K} {label}"
                   + (f" rho={rho:g}" if rho else ""))

    @classmethod
    def lower_bound(cls, N: int, K: int, T: int, *, seed: int = 0, sigma: float | None = None
                    ) -> SubsetEnv:
        r"""The lower-bound instance of DART Appendix A.

        Means :math:`1/2 + \varepsilon 1\{i\in a^*\}` with ``a*`` uniform among the
        K-subsets (from ``seed``), shared Gaussian noise, mean reward,
        :math:`\varepsilon = (\sigma/2)\sqrt{NK/T}`, default
        :math:`\sigma = 1/(2\sqrt{\log(NKT)})`.  ``info["bound"]`` holds
        :math:`(\sigma/8)\sqrt{NKT}` (Eq. 46), valid for ``K <= N/2``.
        """
        _check_int("N", N, 2)
        _check_K(K, N)
        _check_int("T", T, 1)
        if 2 * K > N:
            raise ValueError(f"the lower bound needs K <= N/2; got K={K}, N={N}")
        if sigma is None:
            sigma = 1.0 / (2.0 * math.sqrt(math.log(N * K * T)))
        if not (np.isfinite(sigma) and sigma > 0):
            raise ValueError(f"sigma must be positive; got {sigma!r}")
        eps = 0.5 * sigma * math.sqrt(N * K / T)
        rng = np.random.default_rng(np.random.SeedSequence([int(seed), 11]))
        star = rng.choice(N, size=K, replace=False)
        means = np.full(N, 0.5)
        means[star] += eps
        bound = sigma / 8.0 * math.sqrt(N * K * T)
        return cls(means, int(K), np.arange(K + 1) / K, 0.0, "gaussian-shared", float(sigma),
                   f"lower-bound N={N} K={K} T={T}",
                   {"epsilon": eps, "bound": bound, "a_star": np.sort(star)})


def _check_int(name: str, value, low: int) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}; got {value!r}")


def _check_K(K, N: int) -> None:
    _check_int("K", K, 1)
    if K >= N:
        raise ValueError(f"K must be smaller than the number of arms N = {N}; got K = {K}")
