r"""Online tracking of a design: which arm to pull next so that ``N_a(t) / t -> w_a``.

Three rules, each available as a jitted kernel (usable inside numba loops) and through
:func:`track`:

* ``"ratio"`` -- ``argmin_{a : w_a > 0} N_a / w_a`` (arms never pulled first, heaviest
  first).  This is the increment rule of efficient rounding, so the sequence it generates
  from zero counts is exactly :func:`rounding.incremental_allocation` (Soare et al. 2014,
  App. C; the "optimized" rule of Xu et al. 2018, Eq. 12).  Ties: lowest index.
* ``"C"`` -- C-tracking (Garivier & Kaufmann 2016, §3.1): ``argmax_a S_a(t) - N_a(t)``
  where ``S(t) = sum_{s <= t} w^{eps_s}`` is the cumulative sum of the designs projected on
  ``{w : w_a >= eps_s}``, ``eps_s = (K^2 + s)^{-1/2} / 2``.  For a fixed design
  (``cumulative=None``) ``S(t) = (t+1) w^{eps_t}`` is used.
* ``"D"`` -- D-tracking (Garivier & Kaufmann 2016, §3.1): if some arm has
  ``N_a(t) < sqrt(t) - K/2`` pull the least pulled of them (forced exploration), otherwise
  ``argmax_a t w_a - N_a(t)``.

Every rule keeps ``|N_a(t) - t w_a|`` bounded (C: ``<= K(1 + sqrt t)``; ratio: ``<= 1``
after the first ``p`` pulls, by the efficient-apportionment property).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ._validation import check_weights

__all__ = ["RULES", "track", "track_c", "track_d", "track_ratio"]

RULES = ("C", "D", "ratio")


@njit(cache=True)
def track_ratio(counts: np.ndarray, w: np.ndarray) -> int:
    """``argmin_{w_a > 0} N_a / w_a``; never-pulled support arms first, heaviest first."""
    best = -1
    best_key = np.inf
    zero_best = -1
    zero_w = -1.0
    for a in range(w.shape[0]):
        if w[a] <= 0.0:
            continue
        if counts[a] == 0:
            if w[a] > zero_w:
                zero_w = w[a]
                zero_best = a
            continue
        key = counts[a] / w[a]
        if key < best_key:
            best_key = key
            best = a
    if zero_best >= 0:
        return zero_best
    return best


@njit(cache=True)
def _project_floor(w: np.ndarray, eps: float, out: np.ndarray) -> None:
    """L-infinity projection of ``w`` onto ``{v in simplex : v_a >= eps}`` (Garivier &
    Kaufmann 2016): ``v = eps + (1 - K eps) w``... applied only when some ``w_a < eps``."""
    K = w.shape[0]
    need = False
    for a in range(K):
        if w[a] < eps:
            need = True
    if not need:
        for a in range(K):
            out[a] = w[a]
        return
    # mixture with the uniform design: the simplest projection that keeps the simplex and
    # gives every arm at least eps (eps <= 1/(2K) always holds here)
    for a in range(K):
        out[a] = eps + (1.0 - K * eps) * w[a]


@njit(cache=True)
def track_c(counts: np.ndarray, w: np.ndarray, cumulative: np.ndarray,
            buf: np.ndarray) -> int:
    """C-tracking: ``argmax_a cumulative_a - N_a``.  If ``cumulative[0] < 0`` the fixed-design
    target ``(t + 1) w^{eps_t}`` is used (``buf`` is scratch of length K)."""
    K = w.shape[0]
    t = 0
    for a in range(K):
        t += counts[a]
    if cumulative[0] < 0.0:
        eps = 0.5 / math.sqrt(K * K + t)
        _project_floor(w, eps, buf)
        for a in range(K):
            buf[a] = (t + 1) * buf[a]
    else:
        for a in range(K):
            buf[a] = cumulative[a]
    best = 0
    best_v = -np.inf
    for a in range(K):
        v = buf[a] - counts[a]
        if v > best_v:
            best_v = v
            best = a
    return best


@njit(cache=True)
def track_d(counts: np.ndarray, w: np.ndarray) -> int:
    """D-tracking: forced exploration of ``{a : N_a < sqrt(t) - K/2}``, else
    ``argmax_a t w_a - N_a``."""
    K = w.shape[0]
    t = 0
    for a in range(K):
        t += counts[a]
    thr = math.sqrt(t) - K / 2.0
    forced = -1
    for a in range(K):
        if counts[a] < thr and (forced < 0 or counts[a] < counts[forced]):
            forced = a
    if forced >= 0:
        return forced
    best = 0
    best_v = -np.inf
    for a in range(K):
        v = t * w[a] - counts[a]
        if v > best_v:
            best_v = v
            best = a
    return best


def track(counts: object, weights: object, rule: str = "C", *,
          cumulative: object = None) -> int:
    r"""The next arm to pull to track the design ``weights``.

    Parameters
    ----------
    counts : array_like of int, shape (K,)
        Pulls so far, ``N_a(t)`` (non-negative integers; may all be zero).
    weights : array_like, shape (K,)
        Target design ``w`` on the simplex.
    rule : {"C", "D", "ratio"}
        C-tracking, D-tracking (Garivier & Kaufmann 2016) or the efficient-rounding ratio
        rule ``argmin N_a / w_a`` (see the module docstring).
    cumulative : array_like, shape (K,), optional
        C-tracking only: ``sum_{s <= t} w^{eps_s}(s)`` for a design that changes over time
        (e.g. plug-in oracle weights).  Default: the fixed design ``(t+1) w^{eps_t}``.

    Returns
    -------
    int
        Arm index.

    Raises
    ------
    ValueError
        Naming ``counts``, ``weights``, ``rule`` or ``cumulative``.

    Examples
    --------
    >>> track([0, 0, 0], [0.5, 0.3, 0.2], "ratio")
    0
    >>> track([3, 1, 1], [0.5, 0.3, 0.2], "ratio")
    1
    """
    if rule not in RULES:
        raise ValueError(f"rule must be one of {RULES}; got {rule!r}")
    w = check_weights(weights, zero_tol=0.0)
    K = w.shape[0]
    try:
        c = np.asarray(counts)
    except (TypeError, ValueError):  # pragma: no cover
        raise ValueError("counts must be a 1-D integer array") from None
    if c.ndim != 1 or c.shape[0] != K:
        raise ValueError(f"counts must be a vector of length K={K}; got shape {c.shape}")
    if c.dtype == np.bool_ or not (np.issubdtype(c.dtype, np.integer)
                                   or np.issubdtype(c.dtype, np.floating)):
        raise ValueError(f"counts must hold integers; got dtype {c.dtype}")
    if not np.all(np.isfinite(c)) or np.any(c != np.round(c)) or np.any(c < 0):
        raise ValueError("counts must hold non-negative integers")
    c = c.astype(np.int64)
    if rule == "ratio":
        return int(track_ratio(c, w))
    if rule == "D":
        return int(track_d(c, w))
    if cumulative is None:
        cum = np.full(K, -1.0)
    else:
        try:
            cum = np.asarray(cumulative, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError("cumulative must be a numeric vector") from None
        if cum.shape != (K,) or not np.all(np.isfinite(cum)) or np.any(cum < 0):
            raise ValueError(f"cumulative must be a finite non-negative vector of length {K}")
    return int(track_c(c, w, cum, np.zeros(K)))
