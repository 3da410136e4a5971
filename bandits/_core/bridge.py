"""Brownian bridges in a strip: the exact probability that a bridge stays in a band, and
the exact conditional sampling of its midpoint given the band indicators (inner kernels,
:func:`bandits._core.jit.inner`: called from the block simulation's jitted code only).

A standard Brownian motion read at integer times is the partial-sum walk of independent
standard normals, so a reward sum ``S_a(n) = n mu_a + sigma W_a(n)`` can be simulated at
chosen times only, and the path between two drawn times is a Brownian bridge. The block
simulation of the static allocations (:mod:`bandits.static`) certifies that no stopping
test inside a block can hold when every arm's bridge stays in a band, and locates the
first stop otherwise by bisection (Beskos, Papaspiliopoulos & Roberts 2006 use the same
kind of layered construction for exact diffusion sampling).

Formulas (W a standard Brownian motion, bridge from ``x`` at time 0 to ``y`` at time
``tau``, band ``(lo, hi)`` of width ``L``; ``u = x - lo``, ``v = y - lo``):

* method of images (Feller 1971, X.5; Borodin & Salminen 2002, 1.1.15.8)::

      P(stay) = sum_{k in Z} exp(-2 k L (k L + v - u) / tau) - exp(-2 (u + k L)(v + k L) / tau)

  (``k = 0`` gives the one-barrier formula ``1 - exp(-2 u v / tau)``); every term lies in
  ``(0, 1]`` and they decay like ``exp(-2 k^2 L^2 / tau)``: used when ``L^2 >= tau``;
* eigenfunction expansion of the killed heat kernel, divided by the free kernel::

      P(stay) = (2 / L) sum_{n >= 1} sin(n pi u / L) sin(n pi v / L)
                exp(-n^2 pi^2 tau / (2 L^2)) / phi_tau(v - u)

  terms decay like ``exp(-n^2 pi^2 tau / (2 L^2))``: used when ``L^2 < tau``.
"""

from __future__ import annotations

import math

import numpy as np

from bandits._core import rng as _rng
from bandits._core.jit import inner

FLAG_STAY, FLAG_LEAVE = 1, 2


@inner
def _image_term(k: float, u: float, v: float, L: float, tau: float) -> float:
    """The ``k``-th pair of images: ``exp(-2kL(kL + v - u)/tau) - exp(-2(u + kL)(v + kL)/tau)``."""
    return (math.exp(-2.0 * k * L * (k * L + v - u) / tau)
            - math.exp(-2.0 * (u + k * L) * (v + k * L) / tau))


@inner
def strip_stay(x: float, y: float, tau: float, lo: float, hi: float) -> float:
    """Probability that a Brownian bridge from ``x`` (time 0) to ``y`` (time ``tau``) stays
    in the open band ``(lo, hi)`` (module docstring: images when ``L^2 >= tau``, else the
    eigenfunction series). ``tau = 0``: 1 if ``x`` is inside, else 0."""
    if not (lo < x < hi and lo < y < hi):
        return 0.0
    if tau <= 0.0:
        return 1.0
    L = hi - lo
    if L * L >= tau:
        p = stay_images(x - lo, y - lo, tau, L)
    else:
        p = stay_eigen(x - lo, y - lo, tau, L)
    p = 0.0 if 0.0 > p else p
    return 1.0 if 1.0 < p else p


@inner
def stay_images(u: float, v: float, tau: float, L: float) -> float:
    """The method-of-images series (``0 < u, v < L``), summed until the next pair of terms
    is below ``exp(-40)``: fast when ``L^2 / tau`` is large."""
    s = _image_term(0.0, u, v, L, tau)
    k = 1.0  # a float: one specialisation of _image_term
    while True:
        s += _image_term(k, u, v, L, tau) + _image_term(-k, u, v, L, tau)
        if 2.0 * k * k * L * L / tau > 40.0 + 4.0 * k * L * L / tau:
            return s
        k += 1.0


@inner
def stay_eigen(u: float, v: float, tau: float, L: float) -> float:
    """The eigenfunction series divided by the free kernel (``0 < u, v < L``), summed until
    the terms are below ``exp(-40)`` of the first: fast when ``tau / L^2`` is large."""
    s = 0.0
    n = 1
    c = math.pi * math.pi * tau / (2.0 * L * L)
    while True:
        s += math.sin(n * math.pi * u / L) * math.sin(n * math.pi * v / L) * math.exp(-n * n * c)
        if n * n * c > 40.0 + c:
            break
        n += 1
    free = math.exp(-(v - u) * (v - u) / (2.0 * tau)) / math.sqrt(2.0 * math.pi * tau)
    return 2.0 / L * s / free


@inner
def bridge_point(x: float, y: float, t1: float, tau: float, rng: np.ndarray) -> float:
    """``W(t1)`` of the bridge from ``x`` (time 0) to ``y`` (time ``tau``):
    ``N(x + (y - x) t1 / tau, t1 (tau - t1) / tau)``."""
    return x + (y - x) * t1 / tau + math.sqrt(t1 * (tau - t1) / tau) * _rng.normal(rng)


@inner
def split_bridge(x: float, y: float, t1: float, tau: float, lo: float, hi: float, flag: int,
                 rng: np.ndarray) -> tuple[float, int, int]:
    """The bridge's value at ``t1`` (``0 <= t1 <= tau``) and the band indicators of its two
    halves, given its ends and its indicator ``flag`` on ``(lo, hi)``:

    * ``FLAG_STAY``: the midpoint has density proportional to
      ``phi(m) P_left(m) P_right(m)`` -- drawn from the free bridge and accepted with
      probability ``P_left P_right``; both halves stay;
    * ``FLAG_LEAVE``: density proportional to ``phi(m) (1 - P_left P_right)`` -- accepted
      with that probability; then the pair of half indicators from its conditional law
      given that not both halves stay: ``(stay, leave)``, ``(leave, stay)``,
      ``(leave, leave)`` in proportion to ``P_l (1 - P_r)``, ``(1 - P_l) P_r``,
      ``(1 - P_l)(1 - P_r)``.

    A half of length 0 is the single point ``x`` (or ``y``): it stays iff that point is
    inside the band."""
    forced = t1 <= 0.0 or t1 >= tau
    while True:
        if t1 <= 0.0:
            m = x
        elif t1 >= tau:
            m = y
        else:
            m = bridge_point(x, y, t1, tau, rng)
        pl = strip_stay(x, m, t1, lo, hi)
        pr = strip_stay(m, y, tau - t1, lo, hi)
        both = pl * pr
        if flag == FLAG_STAY:
            if forced or _rng.uniform(rng) < both:
                return m, FLAG_STAY, FLAG_STAY
        elif forced or _rng.uniform(rng) < 1.0 - both:
            w1 = pl * (1.0 - pr)
            w2 = (1.0 - pl) * pr
            w3 = (1.0 - pl) * (1.0 - pr)
            u = _rng.uniform(rng) * (w1 + w2 + w3)
            if u < w1:
                return m, FLAG_STAY, FLAG_LEAVE
            if u < w1 + w2:
                return m, FLAG_LEAVE, FLAG_STAY
            return m, FLAG_LEAVE, FLAG_LEAVE
