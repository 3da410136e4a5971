"""Logistic bandit instances and the Bernoulli environment.

* :func:`sphere` -- ``K`` arms uniform on the unit sphere of R^d, ``theta*`` uniform on the
  sphere scaled to norm ``S`` (the paper's Table 1: ``d = 3``, ``K = 20``, ``S`` in 2, 4, 8).
* :func:`circle30` -- Appendix G: ``x_i = (cos(2 pi i / 30), sin(2 pi i / 30))``,
  ``i = 0..29``, ``theta* = (3, 0)``.

Rewards are Bernoulli with mean ``mu(x^T theta*)`` (:class:`LogisticInstance.means`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from bandits.logistic.core import as_logistic_arms, as_norm_bound, as_theta, mu, mudot
from rounding.validation import check_seed

__all__ = ["LogisticInstance", "circle30", "sphere"]


@dataclass(frozen=True)
class LogisticInstance:
    """A logistic bandit: arms ``X`` (rows, ``||x|| <= 1``), ``theta*`` and the bound ``S``.

    Attributes
    ----------
    X : ndarray, shape (K, d)
    theta : ndarray, shape (d,)
    S : float
        Known bound on ``||theta*||`` used by the algorithms (default ``||theta*||``).
    name : str
    m : int
        Always 1 (best arm), for compatibility with the runners.
    """

    X: np.ndarray
    theta: np.ndarray
    S: float = 0.0
    name: str = "logistic"
    m: int = 1
    info: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        X = as_logistic_arms(self.X)
        th = as_theta(self.theta, X.shape[1])
        S = float(np.linalg.norm(th)) if self.S in (0, 0.0, None) else as_norm_bound(self.S)
        if S <= 0.0:
            raise ValueError("S must be > 0 (theta* = 0 gives S = 0: pass S explicitly)")
        if np.linalg.norm(th) > S * (1 + 1e-9):
            raise ValueError(f"||theta|| = {np.linalg.norm(th):.6g} exceeds S = {S:.6g}")
        object.__setattr__(self, "X", X)
        object.__setattr__(self, "theta", th)
        object.__setattr__(self, "S", S)

    @property
    def d(self) -> int:
        """Dimension."""
        return int(self.X.shape[1])

    @property
    def K(self) -> int:
        """Number of arms."""
        return int(self.X.shape[0])

    @property
    def means(self) -> np.ndarray:
        """``mu(x_a^T theta*)`` per arm."""
        return mu(self.X @ self.theta)

    @property
    def variances(self) -> np.ndarray:
        """``mu'(x_a^T theta*)`` per arm."""
        return mudot(self.X @ self.theta)

    @property
    def best(self) -> int:
        """Index of the best arm ``argmax x^T theta*``."""
        return int(np.argmax(self.X @ self.theta))

    def reward_oracle(self, seed: int):
        """``arm -> outcome``: Bernoulli(``mu(x^T theta*)``) outcomes, one ``uniform < p``
        draw per pull from the environment's stream (stream 1 of ``seed``): the outcomes
        that the per-sample simulations (``simulation="per-sample"``) draw in the ask/tell
        order (:func:`bandits.reward_oracle` returns this)."""
        from bandits._core import rng as _rng
        from bandits.logistic._kernels import bernoulli

        p = self.means
        state = _rng.make_state(int(seed), 1)

        def draw(arm: int) -> int:
            return int(bernoulli(float(p[int(arm)]), state))

        return draw

    @property
    def kappa0(self) -> float:
        """``kappa_0 = max_a 1 / mu'(x_a^T theta*)``."""
        return float(1.0 / self.variances.min())


def _unit_rows(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    Z = rng.normal(size=(n, d))
    return Z / np.linalg.norm(Z, axis=1)[:, None]


def sphere(d: int = 3, K: int = 20, S: float = 2.0, seed: int = 0) -> LogisticInstance:
    """``K`` arms and ``theta*/S`` drawn uniformly on the unit sphere of R^d (Gaussian draws
    normalised), ``||theta*|| = S``: the paper's Table 1 setup (``d = 3, K = 20``).

    The draw is a pure function of ``seed`` (numpy ``default_rng``): arms first, then
    ``theta*``. Raises ``ValueError`` for ``S <= 0``, ``d < 1`` or ``K < d``.
    """
    S = as_norm_bound(S)
    if not (isinstance(d, (int, np.integer)) and d >= 1):
        raise ValueError(f"d must be a positive integer; got {d!r}")
    if not (isinstance(K, (int, np.integer)) and K >= d):
        raise ValueError(f"K must be an integer >= d={d}; got {K!r}")
    seed = check_seed(seed)
    rng = np.random.default_rng(seed)
    X = _unit_rows(rng, int(K), int(d))
    theta = S * _unit_rows(rng, 1, int(d))[0]
    return LogisticInstance(X=X, theta=theta, S=S, name=f"sphere-d{d}-K{K}-S{S:g}-seed{seed}",
                            info={"seed": int(seed)})


def circle30(theta: tuple[float, float] = (3.0, 0.0)) -> LogisticInstance:
    """Appendix G / Figure 3: 30 equispaced unit vectors, ``theta* = (3, 0)``."""
    ang = 2.0 * np.pi * np.arange(30) / 30.0
    X = np.column_stack([np.cos(ang), np.sin(ang)])
    return LogisticInstance(X=X, theta=np.asarray(theta, dtype=float), name="circle30")
