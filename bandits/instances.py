"""Named, documented problem instances.

An :class:`Instance` is a small frozen dataclass: the arms ``X`` (K, d) as rows, the true
parameter ``theta`` (linear means ``X @ theta``), the noise level ``sigma``, the number
``m`` of arms to identify, and optional decision targets ``Z`` (transductive problems).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Instance:
    """A linear identification problem.

    Attributes
    ----------
    name : str
        Human-readable name, with the parameters.
    X : ndarray, shape (K, d)
        Measurement arms, one per row.
    theta : ndarray, shape (d,)
        True parameter; the mean reward of arm ``a`` is ``X[a] @ theta``.
    sigma : float
        Standard deviation of the Gaussian noise.
    m : int
        Number of best arms to identify (1 for best-arm identification).
    Z : ndarray or None
        Decision targets (rows) for transductive problems; ``None`` means ``Z = X``.
    reference : str
        Paper and section the instance comes from.
    """

    name: str
    X: np.ndarray
    theta: np.ndarray
    sigma: float = 1.0
    m: int = 1
    Z: np.ndarray | None = None
    reference: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def means(self) -> np.ndarray:
        """Mean reward of every decision target (rows of ``Z``, or of ``X``)."""
        targets = self.X if self.Z is None else self.Z
        return targets @ self.theta

    @property
    def best(self) -> np.ndarray:
        """Indices of the ``m`` targets with the largest means (ties: lower index)."""
        return np.argsort(-self.means, kind="stable")[: self.m]


def soare(d: int = 5, omega: float = 0.01, scale: float = 2.0, sigma: float = 1.0) -> Instance:
    """The hard instance of Soare, Lazaric & Munos (2014), §6.

    Arms ``e_1, ..., e_d`` and ``x_{d+1} = (cos omega, sin omega, 0, ..., 0)``, parameter
    ``theta = scale * e_1``. Arm 1 is best (mean ``scale``) and ``x_{d+1}`` is a close
    second (mean ``scale * cos omega``); the informative direction is
    ``x_1 - x_{d+1}``, almost aligned with ``e_2``, so an efficient strategy pulls ``e_2``.

    Parameters
    ----------
    d : int, default 5
        Dimension (``d >= 2``); there are ``K = d + 1`` arms.
    omega : float, default 0.01
        Angle between ``x_1`` and ``x_{d+1}``, in ``(0, pi)``.
    scale : float, default 2.0
        Norm of ``theta`` (the paper uses ``theta = 2 e_1``).
    sigma : float, default 1.0
        Gaussian noise standard deviation.
    """
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 2:
        raise ValueError(f"d must be an integer >= 2; got {d!r}")
    if not (0.0 < float(omega) < np.pi):
        raise ValueError(f"omega must be in (0, pi); got {omega!r}")
    if not (np.isfinite(scale) and scale > 0):
        raise ValueError(f"scale must be a positive number; got {scale!r}")
    if not (np.isfinite(sigma) and sigma > 0):
        raise ValueError(f"sigma must be a positive number; got {sigma!r}")
    X = np.zeros((d + 1, d))
    X[:d] = np.eye(d)
    X[d, 0], X[d, 1] = np.cos(omega), np.sin(omega)
    theta = np.zeros(d)
    theta[0] = scale
    return Instance(
        name=f"soare(d={d}, omega={omega:g})", X=X, theta=theta, sigma=float(sigma), m=1,
        reference="Soare, Lazaric & Munos (2014), Best-arm identification in linear "
                  "bandits, NeurIPS, Section 6",
    )
