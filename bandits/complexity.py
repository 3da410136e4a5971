r"""Problem-dependent complexity constants of fully adaptive pure-exploration algorithms.

The sample-complexity bounds of LUCB, UGapE, m-LinGapE and LinGapE read
``tau <= inf{u : u > 1 + H * C_{delta,u}^2 (+ K)}`` (Réda et al. 2021, Thm 2 and Table 2)
or ``tau = O(H log(1/delta))`` (Xu et al. 2018, Thm 2); this module computes the constants
``H``.  All functions take the true means (and, for the "optimized" constants, the arms
``X`` as rows), numpy only, plus :func:`design.complexity.l1_weights_all_pairs` (the
design layer's l1 program) for the l1 weights. (Moved from ``design.complexity`` in
issue 13: these are bandit quantities.)

Arm gaps (Réda et al. 2021, §3), with ``mu_(1) >= ... >= mu_(K)`` the sorted means:

.. math::

    \Delta_k = \mu_k - \mu_{(m+1)} \ \text{if } k \text{ is in the top } m, \qquad
    \Delta_k = \mu_{(m)} - \mu_k \ \text{otherwise},

so every ``Delta_k >= mu_(m) - mu_(m+1)``, the gap at the boundary (m = 1 gives the
UGapE/LinGapE convention ``Delta_best = min_{j != best} (mu_best - mu_j)``).

Constants (Réda et al. 2021, Table 2; Xu et al. 2018, eq. 13):

* :func:`h_lucb`: ``2 sum_a max(eps/2, Delta_a)^-2``
* :func:`h_ugape`: ``2 sum_a max(eps, (eps+Delta_a)/2)^-2``
* :func:`h_mlingape_largest_variance`: ``4 sigma^2 sum_a max(eps, (eps+Delta_a)/3)^-2``
* :func:`h_mlingape_optimized`: ``sigma^2 sum_a max_{i!=j} |w*_a(i,j)| / D(i,j)^2``
* :func:`h_lingape` (Xu et al., m = 1):
  ``sum_a max_{i!=j} |w*_a(i,j)| ||w*(i,j)||_1 / D(i,j)^2``

with ``D(i,j) = max(eps, (eps+Delta_i)/3, (eps+Delta_j)/3)`` and ``w*(i,j)`` the l1-minimal
representation of ``x_i - x_j`` in the arms (:func:`l1_weights_all_pairs`).

**No strict gap.**  With ``eps = 0`` and ``mu_(m) == mu_(m+1)`` the top-m set is not
unique, no (0, m, delta)-PAC algorithm stops in finite expected time, and every constant
above has a term ``1/0``.  The functions then return ``inf`` (not an error: a batch over
random instances keeps going; test ``np.isinf``).  With ``eps > 0`` the constants are finite.

References
----------
.. [1] C. Réda, E. Kaufmann, A. Delahaye-Duriez (2021). Top-m identification for linear
   bandits. *AISTATS*, PMLR 130. Table 2, Theorem 2, Appendix A.2 (Tables 4-5).
.. [2] L. Xu, J. Honda, M. Sugiyama (2018). A fully adaptive algorithm for pure exploration
   in linear bandits. *AISTATS*, PMLR 84, 843-851. Section 6 (eqs. 10-15).
.. [3] V. Gabillon, M. Ghavamzadeh, A. Lazaric (2012). Best arm identification: a unified
   approach to fixed budget and fixed confidence. *NeurIPS* (UGapE).
.. [4] S. Kalyanakrishnan, A. Tewari, P. Auer, P. Stone (2012). PAC subset selection in
   stochastic multi-armed bandits. *ICML* (LUCB).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from design.complexity import l1_weights_all_pairs
from design.validation import as_arms, as_vector

__all__ = [
    "arm_gaps",
    "complexity_constants",
    "h_lingape",
    "h_lucb",
    "h_mlingape_largest_variance",
    "h_mlingape_optimized",
    "h_ugape",
    "l1_weights_all_pairs",
    "soare_constants",
    "lingape_rho",
]



# --------------------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------------------


def _as_means(means: Any) -> np.ndarray:
    try:
        mu = np.asarray(means, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"means must be a numeric vector: {exc}") from None
    if mu.ndim != 1:
        raise ValueError(f"means must be a 1-D vector (one mean per arm); got ndim={mu.ndim}")
    if mu.shape[0] < 2:
        raise ValueError(f"means must hold at least K=2 arms; got K={mu.shape[0]}")
    if not np.all(np.isfinite(mu)):
        raise ValueError("means contains NaN or inf")
    return mu


def _as_m(m: Any, K: int) -> int:
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)):
        raise ValueError(f"m must be an integer; got {m!r}")
    if not 1 <= int(m) < K:
        raise ValueError(f"m must satisfy 1 <= m < K={K}; got m={m}")
    return int(m)


def _as_eps(eps: Any) -> float:
    try:
        e = float(eps)
    except (TypeError, ValueError):
        raise ValueError(f"eps must be a number >= 0; got {eps!r}") from None
    if not (math.isfinite(e) and e >= 0.0):
        raise ValueError(f"eps must be a finite number >= 0; got {eps!r}")
    return e


def _as_sigma(sigma: Any) -> float:
    try:
        s = float(sigma)
    except (TypeError, ValueError):
        raise ValueError(f"sigma must be a positive number; got {sigma!r}") from None
    if not (math.isfinite(s) and s > 0.0):
        raise ValueError(f"sigma must be a positive finite number; got {sigma!r}")
    return s


def _no_strict_gap(mu: np.ndarray, m: int, eps: float) -> bool:
    s = np.sort(mu)[::-1]
    return eps == 0.0 and not s[m - 1] > s[m]


def _inv_sq(den: np.ndarray) -> np.ndarray:
    """``den ** -2``, with ``inf`` where ``den == 0`` and no warning."""
    out = np.full(den.shape, np.inf)
    pos = den > 0
    out[pos] = den[pos] ** -2.0
    return out


# --------------------------------------------------------------------------------------
# Gaps and the classical constants
# --------------------------------------------------------------------------------------


def arm_gaps(means: Any, m: int) -> np.ndarray:
    r"""Arm gaps of top-m identification (Réda, Kaufmann & Delahaye-Duriez 2021, §3).

    .. math::

        \Delta_k = \mu_k - \mu_{(m+1)} \ \text{for the top } m \text{ arms}, \qquad
        \Delta_k = \mu_{(m)} - \mu_k \ \text{otherwise},

    where ``mu_(j)`` is the j-th largest mean.  For m = 1 this is the UGapE / LinGapE
    convention (Gabillon et al. 2012; Xu et al. 2018, eq. 14):
    ``Delta_best = mu_best - mu_(2)``, ``Delta_k = mu_best - mu_k``.

    The gaps depend only on the sorted values, not on how ties are broken: an arm tied
    with the boundary gets ``Delta = 0`` whichever side it is put on.

    Parameters
    ----------
    means : array_like, shape (K,)
        True means, ``K >= 2``, finite.
    m : int
        Size of the top set, ``1 <= m < K``.

    Returns
    -------
    ndarray, shape (K,)
        Non-negative gaps, in the order of ``means``.

    Examples
    --------
    >>> arm_gaps([1.0, 1.0, 0.5, 0.0], m=2)
    array([0.5, 0.5, 0.5, 1. ])
    """
    mu = _as_means(means)
    m = _as_m(m, mu.shape[0])
    s = np.sort(mu)[::-1]
    top = mu >= s[m - 1]
    return np.where(top, mu - s[m], s[m - 1] - mu)


def _prepare(means: Any, m: int, eps: float) -> tuple[np.ndarray, int, float, np.ndarray]:
    mu = _as_means(means)
    m = _as_m(m, mu.shape[0])
    eps = _as_eps(eps)
    return mu, m, eps, arm_gaps(mu, m)


def h_lucb(means: Any, m: int, eps: float = 0.0) -> float:
    r"""Complexity constant of LUCB (Réda et al. 2021, Table 2; Kalyanakrishnan et al. 2012).

    .. math::

        H^\varepsilon(\mathrm{LUCB}, \mu) = 2 \sum_{a=1}^K
            \max\!\left(\frac{\varepsilon}{2}, \Delta_a\right)^{-2},

    with the arm gaps of :func:`arm_gaps`.  As printed in the paper it has no ``sigma^2``
    factor (unlike the linear constants); the paper compares the two directly.

    Parameters
    ----------
    means : array_like, shape (K,)
        True means.
    m : int
        Size of the top set, ``1 <= m < K``.
    eps : float, default 0
        Accuracy ``eps >= 0``.

    Returns
    -------
    float
        ``inf`` when ``eps = 0`` and ``mu_(m) == mu_(m+1)`` (no strict gap).

    Raises
    ------
    ValueError
        Naming the argument: ``means`` not a finite vector with ``K >= 2``, ``m`` not in
        ``[1, K)``, ``eps`` negative or not finite.
    """
    mu, m, eps, gaps = _prepare(means, m, eps)
    if _no_strict_gap(mu, m, eps):
        return math.inf
    return float(2.0 * np.sum(_inv_sq(np.maximum(eps / 2.0, gaps))))


def h_ugape(means: Any, m: int, eps: float = 0.0) -> float:
    r"""Complexity constant of UGapE (Réda et al. 2021, Table 2; Gabillon et al. 2012).

    .. math::

        H^\varepsilon(\mathrm{UGapE}, \mu) = 2 \sum_{a=1}^K
            \max\!\left(\varepsilon, \frac{\varepsilon + \Delta_a}{2}\right)^{-2}.

    With ``eps = 0`` this is ``8 sum_a Delta_a^-2``.  This is the constant of Réda et al.'s
    Table 5 (their code's ``compute_H_UGapE`` omits the factor 2, which is applied in the
    comparison instead).  No ``sigma^2`` factor, as printed.

    Parameters
    ----------
    means : array_like, shape (K,)
        True means.
    m : int
        Size of the top set, ``1 <= m < K``.
    eps : float, default 0
        Accuracy ``eps >= 0``.

    Returns
    -------
    float
        ``inf`` when ``eps = 0`` and ``mu_(m) == mu_(m+1)``.

    Raises
    ------
    ValueError
        As :func:`h_lucb`.
    """
    mu, m, eps, gaps = _prepare(means, m, eps)
    if _no_strict_gap(mu, m, eps):
        return math.inf
    return float(2.0 * np.sum(_inv_sq(np.maximum(eps, (eps + gaps) / 2.0))))


def h_mlingape_largest_variance(
    means: Any, m: int, eps: float = 0.0, *, sigma: float = 1.0
) -> float:
    r"""m-LinGapE constant with the largest-variance rule (Réda et al. 2021, Thm 2 (i)).

    .. math::

        H^\varepsilon(\text{m-LinGapE (1)}, \mu) = 4\sigma^2 \sum_{a=1}^K
            \max\!\left(\varepsilon, \frac{\varepsilon + \Delta_a}{3}\right)^{-2}.

    Also the constant for pulling both ``b_t`` and ``c_t``.  With ``eps = 0`` it is
    ``36 sigma^2 sum_a Delta_a^-2``.  (Réda et al. claim
    ``H(LUCB) >= H(m-LinGapE(1)) >= H(UGapE)``; with the printed constants this fails at
    ``eps = 0``, where they are 2, ``36 sigma^2`` and 8 times ``sum Delta_a^-2``.)

    Parameters
    ----------
    means : array_like, shape (K,)
        True means.
    m : int
        Size of the top set, ``1 <= m < K``.
    eps : float, default 0
        Accuracy ``eps >= 0``.
    sigma : float, default 1.0
        Sub-Gaussian noise scale (the paper's experiments use 0.5; Tables 4-5 use 1).

    Returns
    -------
    float
        ``inf`` when ``eps = 0`` and ``mu_(m) == mu_(m+1)``.

    Raises
    ------
    ValueError
        As :func:`h_lucb`, and for ``sigma <= 0``.
    """
    mu, m, eps, gaps = _prepare(means, m, eps)
    sigma = _as_sigma(sigma)
    if _no_strict_gap(mu, m, eps):
        return math.inf
    return float(4.0 * sigma**2 * np.sum(_inv_sq(np.maximum(eps, (eps + gaps) / 3.0))))


# --------------------------------------------------------------------------------------
# l1-minimal representations of all pairwise differences

def _as_l1_weights(l1_weights: Any, X: np.ndarray) -> np.ndarray:
    K = X.shape[0]
    if l1_weights is None:
        return l1_weights_all_pairs(X)
    W = np.asarray(l1_weights, dtype=np.float64)
    if W.shape != (K, K, K):
        raise ValueError(f"l1_weights must have shape (K, K, K) = {(K, K, K)}; got {W.shape}")
    if not np.all(np.isfinite(W)):
        raise ValueError("l1_weights contains NaN or inf")
    return W


def _pair_denominators(gaps: np.ndarray, eps: float) -> np.ndarray:
    """``D(i,j)^2 = max(eps, (eps+Delta_i)/3, (eps+Delta_j)/3)^2`` with ``inf`` on i == j."""
    g = (eps + gaps) / 3.0
    D = np.maximum(eps, np.maximum(g[:, None], g[None, :])) ** 2
    np.fill_diagonal(D, np.inf)
    return D


def _prepare_linear(
    X: Any, means: Any, m: int, eps: float, l1_weights: Any
) -> tuple[np.ndarray, np.ndarray, int, float, np.ndarray, np.ndarray]:
    Xa = as_arms(X, need_span=False)
    mu, m, eps, gaps = _prepare(means, m, eps)
    if mu.shape[0] != Xa.shape[0]:
        raise ValueError(
            f"means has {mu.shape[0]} entries but X has K={Xa.shape[0]} arms (rows)"
        )
    W = _as_l1_weights(l1_weights, Xa)
    return Xa, mu, m, eps, gaps, W


def h_mlingape_optimized(
    X: Any,
    means: Any,
    m: int,
    eps: float = 0.0,
    *,
    sigma: float = 1.0,
    l1_weights: Any = None,
) -> float:
    r"""m-LinGapE constant with the optimized rule (Réda et al. 2021, Thm 2 (ii), Table 2).

    .. math::

        H^\varepsilon(\text{m-LinGapE (2)}, \mu) = \sigma^2 \sum_{a=1}^K
        \max_{i \ne j} \frac{|w^\star_a(i,j)|}
        {\max\!\left(\varepsilon, \frac{\varepsilon+\Delta_i}{3},
        \frac{\varepsilon+\Delta_j}{3}\right)^2},

    with ``w*(i, j)`` the l1-minimal representation of ``x_i - x_j``
    (:func:`l1_weights_all_pairs`) and the arm gaps of :func:`arm_gaps`.

    **Range of the max.**  The paper writes ``max_{i,j in [K]}``; the pairs ``i == j``
    contribute nothing (``w*(i, i) = 0``), so the max runs over ``i != j`` (all ordered
    pairs; ``|w*(j,i)| = |w*(i,j)|``), as in the authors' ``compute_H_optimized_LinGapE``
    (pairs ``i < j``).  This reproduces Table 5: 4,545.97 (m = 3) and 32,124.01 (m = 8) on
    :func:`bandits.instances.reda_random_K10_N5` with ``eps = 0``, ``sigma = 1``.

    Note the printed formula charges arm ``a`` with ``|w*_a|``, where Xu et al.'s LinGapE
    complexity (:func:`h_lingape`) charges ``|w*_a| * ||w*||_1``; Table 5 is reproduced by
    the printed form, which is what this function computes.

    Parameters
    ----------
    X : array_like, shape (K, d)
        Arms as rows.
    means : array_like, shape (K,)
        True means (e.g. ``X @ theta``).
    m : int
        Size of the top set, ``1 <= m < K``.
    eps : float, default 0
        Accuracy ``eps >= 0``.
    sigma : float, default 1.0
        Sub-Gaussian noise scale.
    l1_weights : ndarray, shape (K, K, K), optional
        Precomputed :func:`l1_weights_all_pairs` ``(X)``; computed when omitted.

    Returns
    -------
    float
        ``inf`` when ``eps = 0`` and ``mu_(m) == mu_(m+1)``.

    Raises
    ------
    ValueError
        Naming the argument: malformed ``X``/``means``/``l1_weights``, ``len(means) != K``,
        ``m`` not in ``[1, K)``, ``eps < 0``, ``sigma <= 0``.
    """
    Xa, mu, m, eps, gaps, W = _prepare_linear(X, means, m, eps, l1_weights)
    sigma = _as_sigma(sigma)
    if _no_strict_gap(mu, m, eps):
        return math.inf
    D = _pair_denominators(gaps, eps)
    per_arm = np.max(np.abs(W) / D[:, :, None], axis=(0, 1))
    return float(sigma**2 * np.sum(per_arm))


def lingape_rho(X: Any, *, l1_weights: Any = None) -> np.ndarray:
    r"""``rho(i, j) = ||w*(i, j)||_1^2`` for all pairs (Xu, Honda & Sugiyama 2018, eq. 15).

    By Elfving's theorem ``rho(i, j) = min_lambda ||x_i - x_j||^2_{A(lambda)^{-1}}``, the
    optimal c-criterion for the direction ``x_i - x_j``; LinGapE's Lemma 1 bounds
    ``||x_i - x_j||^2_{A_t^{-1}} <= rho(i, j) / n_t(i, j)`` under the ratio rule.  (The paper
    calls ``rho`` "the optimal value of (11)", i.e. ``||w*||_1``, but uses it as the squared
    quantity; this returns the square.)

    Parameters
    ----------
    X : array_like, shape (K, d)
        Arms as rows.
    l1_weights : ndarray, shape (K, K, K), optional
        Precomputed :func:`l1_weights_all_pairs` ``(X)``.

    Returns
    -------
    ndarray, shape (K, K)
        Symmetric, zero diagonal.
    """
    Xa = as_arms(X, need_span=False)
    W = _as_l1_weights(l1_weights, Xa)
    return np.sum(np.abs(W), axis=2) ** 2


def h_lingape(X: Any, means: Any, eps: float = 0.0, *, l1_weights: Any = None) -> float:
    r"""Problem complexity ``H_eps`` of LinGapE (Xu, Honda & Sugiyama 2018, eqs. 13-15).

    Best-arm identification (m = 1), ratio ("optimized") rule (12):

    .. math::

        H_\varepsilon = \sum_{k=1}^K \max_{i \ne j}
        \frac{p^\star_k(i,j)\, \rho(i,j)}
        {\max\!\left(\varepsilon, \frac{\varepsilon+\Delta_i}{3},
        \frac{\varepsilon+\Delta_j}{3}\right)^2}
        = \sum_{k=1}^K \max_{i \ne j}
        \frac{|w^\star_k(i,j)|\, \|w^\star(i,j)\|_1}{(\cdots)^2},

    with ``p*_k(i,j) = |w*_k(i,j)| / ||w*(i,j)||_1`` (eq. 10), ``rho(i,j) = ||w*(i,j)||_1^2``
    (eq. 15, :func:`lingape_rho`) and ``Delta_i = mu* - mu_i`` for ``i != a*``,
    ``Delta_{a*} = min_{j != a*} (mu* - mu_j)`` (eq. 14, = :func:`arm_gaps` with m = 1).
    ``H_eps`` carries no noise factor: Theorem 2 bounds the stopping time by roughly
    ``8 H_eps R^2 log(K^2/delta)`` plus lower-order terms.

    **What is recoverable.**  The text extraction of the paper lost its displayed
    equations; the form above is reconstructed from the surviving text, the appendix
    derivation (Lemma 1, KKT conditions) and the authors' conventions.  The pieces (10),
    (11), (15) and the gap convention (14) are reliable; the constant ``3`` and the
    ``max(eps, .)`` form in the denominator of (13) are a reconstruction (consistent with
    Réda et al.'s Table 2, which extends this constant to top-m).  The bound of Theorem 2
    itself (eqs. 16-17, with the lower-order term ``C(H_eps, delta)`` of eq. 36) and
    Theorem 3's comparison with the XY-oracle are **not** recoverable and not implemented.
    Sanity check: for canonical arms (``X = I``) ``w*(i,j) = e_i - e_j`` and
    ``H_eps = sum_k 2 max(eps, (eps+Delta_k)/3)^-2``, the UGapE-type complexity the paper
    describes.

    Parameters
    ----------
    X : array_like, shape (K, d)
        Arms as rows.
    means : array_like, shape (K,)
        True means.
    eps : float, default 0
        Accuracy ``eps >= 0``.
    l1_weights : ndarray, shape (K, K, K), optional
        Precomputed :func:`l1_weights_all_pairs` ``(X)``.

    Returns
    -------
    float
        ``inf`` when ``eps = 0`` and the best arm is not unique.

    Raises
    ------
    ValueError
        As :func:`h_mlingape_optimized`.
    """
    Xa, mu, m, eps, gaps, W = _prepare_linear(X, means, 1, eps, l1_weights)
    if _no_strict_gap(mu, 1, eps):
        return math.inf
    D = _pair_denominators(gaps, eps)
    l1 = np.sum(np.abs(W), axis=2)
    per_arm = np.max(np.abs(W) * (l1 / D)[:, :, None], axis=(0, 1))
    return float(np.sum(per_arm))


def complexity_constants(
    X: Any, means: Any, m: int, eps: float = 0.0, *, sigma: float = 1.0
) -> dict[str, float]:
    """All the constants of this module for one instance, computing ``w*`` once.

    Parameters
    ----------
    X : array_like, shape (K, d)
        Arms as rows.
    means : array_like, shape (K,)
        True means.
    m : int
        Size of the top set, ``1 <= m < K``.
    eps : float, default 0
        Accuracy ``eps >= 0``.
    sigma : float, default 1.0
        Noise scale of the m-LinGapE constants (LUCB/UGapE have none, as printed).

    Returns
    -------
    dict
        Keys ``"gap"`` (``mu_(m) - mu_(m+1)``), ``"LUCB"``, ``"UGapE"``,
        ``"m-LinGapE (largest variance)"``, ``"m-LinGapE (optimized)"`` and, when
        ``m == 1``, ``"LinGapE (Xu et al.)"``.
    """
    Xa = as_arms(X, need_span=False)
    mu, m, eps, _ = _prepare(means, m, eps)
    sigma = _as_sigma(sigma)
    if mu.shape[0] != Xa.shape[0]:
        raise ValueError(
            f"means has {mu.shape[0]} entries but X has K={Xa.shape[0]} arms (rows)"
        )
    W = l1_weights_all_pairs(Xa)
    s = np.sort(mu)[::-1]
    out = {
        "gap": float(s[m - 1] - s[m]),
        "LUCB": h_lucb(mu, m, eps),
        "UGapE": h_ugape(mu, m, eps),
        "m-LinGapE (largest variance)": h_mlingape_largest_variance(mu, m, eps, sigma=sigma),
        "m-LinGapE (optimized)": h_mlingape_optimized(Xa, mu, m, eps, sigma=sigma,
                                                      l1_weights=W),
    }
    if m == 1:
        out["LinGapE (Xu et al.)"] = h_lingape(Xa, mu, eps, l1_weights=W)
    return out


# ----------------------------------------------------------------------------------------
# Soare, Lazaric & Munos (2014): oracle complexity H_LB, N*, rho^G and rho^XY
# ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SoareConstants:
    """The complexity quantities of Soare, Lazaric & Munos (2014), §3–4, for one instance.

    Attributes
    ----------
    H_LB : float
        ``min_lambda max_{y in Y*} ||y||^2_{Lambda^-1} / Delta(y)^2`` (Eq. 6) with
        ``Y* = {x* - x : x != x*}``, as certified by :func:`design.minimax_optimal`
        (``H_LB_lower <= H_LB_opt <= H_LB``).
    H_LB_lower : float
        Certified lower bound on the optimum (equivalence theorem).
    oracle_weights : ndarray
        The oracle design ``lambda*`` attaining ``H_LB``.
    N_star : float
        ``c^2 H_LB log_n(K^2/delta)`` (Eq. 7) at the fixed point
        ``n = c^2 H_LB log(6 n^2 K^2 / (pi^2 delta))`` with ``c = 2 sigma sqrt 2``.
    rho_G : float
        ``min_lambda max_x ||x||^2_{Lambda^-1} = d`` (Kiefer–Wolfowitz).
    rho_XY : float
        ``min_lambda max_{y in Y} ||y||^2_{Lambda^-1}`` over all differences ``Y`` (Eq. 25).
    lemma2_lower, lemma2_upper : float
        Lemma 2 (Eq. 8): ``H_LB <= 4 d / Delta_min^2`` and the lower bound
        ``max_{y in Y*} ||y||^2 / (L Delta(y)^2) <= H_LB`` with ``L = max_x ||x||^2``.
        The paper prints ``max_y ||y||^2 / (L Delta_min^2)``, which is false: on the hard
        instance (d = 5, omega = 0.01) it is 2.0e8 against ``H_LB = 1.01e4``. Its proof
        (``||y||^2_{Lambda^-1} >= ||y||^2 / gamma_max``, ``gamma_max <= L``) gives the
        per-target bound used here.
    delta_min : float
        Smallest gap ``Delta_min = min_{x != x*} (x* - x)^T theta``.
    """

    H_LB: float
    H_LB_lower: float
    oracle_weights: np.ndarray
    N_star: float
    rho_G: float
    rho_XY: float
    lemma2_lower: float
    lemma2_upper: float
    delta_min: float


def soare_constants(X: Any, theta: Any, *, sigma: float = 1.0, delta: float = 0.05,
                    tol: float = 1e-6) -> SoareConstants:
    r"""Oracle complexity ``H_LB``, ``N*``, ``rho^G`` and ``rho^XY`` (Soare et al. 2014).

    .. math::

        H_{LB} = \min_{\lambda} \max_{y \in \mathcal{Y}^*}
        \frac{\|y\|^2_{\Lambda_\lambda^{-1}}}{\Delta(y)^2},\qquad
        N^* = c^2 H_{LB} \log\frac{6 n^2 K^2}{\pi^2 \delta}\Big|_{n = N^*},\quad
        c = 2\sigma\sqrt 2 .

    ``H_LB`` is the weighted minimax design with targets ``x* - x`` and weights
    ``1/Delta(y)^2`` (:func:`design.minimax_optimal`, certified to ``tol``); ``rho^XY``
    is :func:`design.xy_optimal`; ``rho^G = d``. On the hard instance (d = 5,
    omega = 0.01, theta = 2 e_1) ``H_LB = 10,100.8`` (spec notes: 10,100.1 at d = 2 to
    10,102.1 at d = 10) and ``rho^XY = 2d``.

    Parameters
    ----------
    X : array_like, shape (K, d)
        Arms as rows, spanning ``R^d``.
    theta : array_like, shape (d,)
        True parameter; the best arm must be unique.
    sigma, delta : float
        Noise level and confidence of ``N*``.
    tol : float
        Certified relative gap of the designs.
    """
    from design.gd import g_optimal
    from design.minimax import minimax_optimal, xy_optimal

    Xa = as_arms(X)
    th = as_vector(theta, Xa.shape[1], "theta", nonzero=False)
    sigma = _as_sigma(sigma)
    if not (0.0 < float(delta) < 1.0):
        raise ValueError(f"delta must be in (0, 1); got {delta!r}")
    mu = Xa @ th
    best = int(np.argmax(mu))
    others = np.delete(np.arange(Xa.shape[0]), best)
    Y = Xa[best] - Xa[others]
    gaps = Y @ th
    if np.any(gaps <= 0):
        raise ValueError("theta: the best arm is not unique (a gap Delta(y) is 0)")
    res = minimax_optimal(Xa, Y, 1.0 / gaps**2, tol=tol)
    K, d = Xa.shape
    c2 = 8.0 * sigma**2
    n = c2 * res.value
    for _ in range(200):  # fixed point of n = c^2 H_LB log(6 n^2 K^2 / (pi^2 delta))
        new = c2 * res.value * np.log(6.0 * n**2 * K**2 / (np.pi**2 * delta))
        if abs(new - n) <= 1e-12 * n:
            break
        n = new
    L = float(np.max(np.einsum("ij,ij->i", Xa, Xa)))
    dmin = float(gaps.min())
    return SoareConstants(
        H_LB=float(res.value), H_LB_lower=float(res.lower_bound),
        oracle_weights=res.weights, N_star=float(n),
        rho_G=float(g_optimal(Xa, tol=tol).value), rho_XY=float(xy_optimal(Xa, tol=tol).value),
        lemma2_lower=float(np.max(np.einsum("ij,ij->i", Y, Y) / (L * gaps**2))),
        lemma2_upper=4.0 * d / dmin**2, delta_min=dmin,
    )
