"""Logistic model basics: link, ``gamma(d)``, the warm-up condition (2), and the MLE.

Reference: Mason, Jun & Jain (2022), "An Experimental Design Approach for Regret
Minimization in Logistic Bandits", AAAI (below: *the paper*).

* ``mu(z) = 1 / (1 + e^{-z})``, ``mu'(z) = mu(z)(1 - mu(z)) <= 1/4``.
* ``gamma(d, t_eff, delta) = max{d + log(6(2 + t_eff)/delta), 6.1^2 log(6(2 + t_eff)/delta)}``
  (the paper, Sec. 2; Algorithm 1 writes ``gamma(d, n, delta)``).
* warm-up condition (2): ``xi_t^2 = max_s ||x_s||^2_{H_t(theta*)^{-1}} <= 1 / gamma(d)`` with
  ``H_t(theta) = sum_s mu'(x_s^T theta) x_s x_s^T``.
* the MLE (eq. 1), unregularised and unconstrained, by damped Newton on per-arm sufficient
  statistics (:func:`mle`), with an explicit outcome when it does not exist and the
  Appendix F fallback.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.linalg import get_lapack_funcs

from rounding.validation import as_count_array, as_real_array, check_probability

__all__ = [
    "MLEResult",
    "as_logistic_arms",
    "as_theta",
    "gamma",
    "mle",
    "mle_exists",
    "mu",
    "mudot",
    "warmup_xi2",
]

#: Default confidence level of the paper's Table 1 (inferred: the naive row equals
#: ``3 gamma / mu'(S)`` with ``delta = 0.05`` to 0.01%).
DELTA = 0.05
LEMMA1_CONSTANT = 6.1


def mu(z: np.ndarray | float) -> np.ndarray:
    """Logistic mean function ``1 / (1 + e^{-z})`` (vectorised, overflow-free)."""
    z = np.asarray(z, dtype=np.float64)
    e = np.exp(-np.abs(z))
    return np.where(z >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def mudot(z: np.ndarray | float) -> np.ndarray:
    """``mu'(z) = mu(z)(1 - mu(z)) = e^{-|z|} / (1 + e^{-|z|})^2`` (vectorised)."""
    e = np.exp(-np.abs(np.asarray(z, dtype=np.float64)))
    return e / (1.0 + e) ** 2


def gamma(d: int, t_eff: int, delta: float = DELTA) -> float:
    r"""``gamma(d, t_eff, delta) = max{d + log(6(2+t_eff)/delta), 6.1^2 log(6(2+t_eff)/delta)}``.

    The paper, Sec. 2 (Lemma 1); ``t_eff`` is the number of distinct arms in the design
    (``|X|`` for a warm-up on all arms, ``|X_k|`` in HOMER's phase ``k``).

    >>> round(gamma(3, 20, 0.05), 2)
    293.16
    """
    if not (isinstance(d, (int, np.integer)) and d >= 1):
        raise ValueError(f"d must be a positive integer; got {d!r}")
    if not (isinstance(t_eff, (int, np.integer)) and t_eff >= 1):
        raise ValueError(f"t_eff must be a positive integer; got {t_eff!r}")
    _check_delta(delta)
    lg = math.log(6.0 * (2 + int(t_eff)) / delta)
    return max(d + lg, LEMMA1_CONSTANT ** 2 * lg)


def _check_delta(delta: float) -> float:
    return check_probability(delta, "delta")


def as_logistic_arms(X: object, *, name: str = "X", need_span: bool = True) -> np.ndarray:
    """Validate arms for the logistic model: finite (K, d), every ``||x|| <= 1``.

    The theory (``kappa``, Lemma 7, ``mu'(||x|| S)``) needs the arms in the unit ball; arms
    outside it are *rejected* with a ``ValueError`` rather than silently rescaled (rescale
    them yourself, e.g. ``X / max ||x||``, and scale ``theta`` and ``S`` accordingly).
    """
    arr = as_real_array(X, name)
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"{name} must be a non-empty 2-D array (K, d); got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf")
    norms = np.linalg.norm(arr, axis=1)
    if np.any(norms > 1.0 + 1e-9):
        raise ValueError(f"{name}: arms must lie in the unit ball (max ||x|| = "
                         f"{norms.max():.6g} > 1); rescale X (and theta, S) first")
    if need_span and np.linalg.matrix_rank(arr) < arr.shape[1]:
        raise ValueError(f"{name}: the arms must span R^d (rank {np.linalg.matrix_rank(arr)}"
                         f" < d={arr.shape[1]})")
    return np.ascontiguousarray(arr)


def as_theta(theta: object, d: int, *, name: str = "theta") -> np.ndarray:
    """Validate a parameter vector: finite, length ``d``."""
    try:
        arr = np.asarray(theta, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a numeric vector: {exc}") from None
    if arr.shape[0] != d:
        raise ValueError(f"{name} must have length d={d}; got {arr.shape[0]}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf")
    return np.ascontiguousarray(arr)


def as_norm_bound(S: object, name: str = "S") -> float:
    """Validate the norm bound ``S > 0`` (finite)."""
    try:
        s = float(S)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a positive number; got {S!r}") from None
    if not (math.isfinite(s) and s > 0.0):
        raise ValueError(f"{name} must be a positive finite number; got {S!r}")
    return s


def warmup_xi2(X: object, counts: object, theta: object) -> float:
    r"""``xi^2 = max_{a: n_a > 0} ||x_a||^2_{H(theta)^{-1}}``, ``H = sum_a n_a mu'(z_a) x_a x_a^T``.

    The left side of the warm-up condition (2) of the paper (``xi_t^2 <= 1 / gamma(d)``),
    for the design with ``counts[a]`` pulls of arm ``a`` (real counts allowed: Table 1
    ignores integer effects). ``inf`` if ``H`` is singular.
    """
    Xa = np.asarray(X, dtype=np.float64)
    n = np.asarray(counts, dtype=np.float64)
    th = np.asarray(theta, dtype=np.float64)
    w = n * mudot(Xa @ th)
    H = (Xa * w[:, None]).T @ Xa
    try:
        Lc = np.linalg.cholesky(H)
    except np.linalg.LinAlgError:
        return math.inf
    used = n > 0
    Z = np.linalg.solve(Lc, Xa[used].T)
    return float(np.max(np.sum(Z * Z, axis=0)))


@dataclass(frozen=True)
class MLEResult:
    """Outcome of :func:`mle`.

    Attributes
    ----------
    theta : ndarray, shape (d,)
        The estimate (the MLE, the Appendix F fallback, or NaN when ``exists`` is False and
        ``on_separable="nan"``).
    exists : bool
        Whether the unregularised MLE of the *given* data exists (finite maximiser).
    method : str
        ``"mle"``, ``"fallback-appF"`` (success counts corrected as in Appendix F), or
        ``"none"``.
    status : int
        Newton status (:data:`MLE_CONVERGED` etc.).
    iterations : int
    """

    theta: np.ndarray
    exists: bool
    method: str
    status: int
    iterations: int


def mle_exists(X: np.ndarray, counts: np.ndarray, successes: np.ndarray) -> bool:
    """Whether the logistic MLE exists (Albert & Anderson 1984), by a linear program.

    The MLE is finite iff the arms with data span R^d and there is no ``b != 0`` with
    ``x_a^T b >= 0`` for every arm with a success and ``x_a^T b <= 0`` for every arm with a
    failure (no (quasi-)separating direction). We maximise
    ``sum_{a: s_a>0} x_a^T b - sum_{a: f_a>0} x_a^T b`` over such ``b`` in ``[-1, 1]^d``;
    the data are separable iff the optimum is positive.
    """
    from scipy.optimize import linprog

    Xa = np.asarray(X, dtype=np.float64)
    n = np.asarray(counts, dtype=np.float64)
    s = np.asarray(successes, dtype=np.float64)
    used = n > 0
    if not used.any() or np.linalg.matrix_rank(Xa[used]) < Xa.shape[1]:
        return False
    P = Xa[used & (s > 0)]
    F = Xa[used & (s < n)]
    c = -(P.sum(axis=0) - F.sum(axis=0))
    A = np.vstack([-P, F]) if len(P) and len(F) else (-P if len(P) else F)
    res = linprog(c, A_ub=A, b_ub=np.zeros(A.shape[0]), bounds=[(-1.0, 1.0)] * Xa.shape[1],
                  method="highs")
    if res.status != 0:  # pragma: no cover - the LP is always feasible and bounded
        return False
    scale = max(1.0, float(np.abs(P).sum() + np.abs(F).sum()))
    return bool(-res.fun <= 1e-9 * scale)


def appendix_f_successes(counts: np.ndarray, successes: np.ndarray) -> np.ndarray:
    """Appendix F / footnote 3: ``s_a -> 0.5`` if ``s_a = 0``, ``n_a - 0.5`` if ``s_a = n_a``.

    In one dimension (one arm), the MLE of the corrected data is ``log(p/(1-p))`` with
    ``p = (n - .5)/n`` (all ones) or ``.5/n`` (all zeros), exactly the paper's rule. In ``d``
    dimensions every arm then has ``0 < s_a < n_a``, so the corrected log-likelihood is
    coercive and its maximiser exists as soon as the arms with data span R^d.
    """
    n = np.asarray(counts, dtype=np.float64)
    s = np.asarray(successes, dtype=np.float64).copy()
    pos = n > 0
    s[pos & (s <= 0)] = 0.5
    full = pos & (s >= n)
    s[full] = n[full] - 0.5
    return s


#: MLE status codes (:func:`newton_mle`).
MLE_CONVERGED = 0
MLE_DIVERGED = 1  # fitted probabilities saturate: the data are (quasi-)separable
MLE_MAX_ITER = 2
MLE_SINGULAR = 3  # the arms with data do not span R^d (Hessian singular at theta = 0)

_POTRF, _POTRS = get_lapack_funcs(("potrf", "potrs"), (np.empty((1, 1)),))


def _loglik(z: np.ndarray, n: np.ndarray, s: np.ndarray) -> tuple[float, np.ndarray]:
    """Log-likelihood ``sum_a s_a z_a - n_a log(1 + e^{z_a})`` at the linear predictors
    ``z_a = x_a^T theta`` (``log(1 + e^z) = max(z, 0) + log1p(e^{-|z|})``: no overflow),
    and ``e^{-|z|}`` (the Newton step's ``mu`` and ``mu'`` reuse it)."""
    e = np.exp(-np.abs(z))
    return float(s @ z - n @ (np.maximum(z, 0.0) + np.log1p(e))), e


def newton_mle(X: np.ndarray, n: np.ndarray, s: np.ndarray, theta: np.ndarray,
               tol: float, max_iter: int, z_max: float) -> tuple[int, int]:
    """Damped Newton (= IRLS with a backtracking line search) for the logistic MLE.

    ``theta`` holds the start on entry and the estimate on exit. Step ``p = H^{-1} g`` with
    ``g = sum_a (s_a - n_a mu(z_a)) x_a`` and ``H = sum_a n_a mu'(z_a) x_a x_a^T`` over
    the arms with data (``n_a > 0``); the step is halved until the log-likelihood does not
    decrease (Armijo, constant 1e-4). Converged when the Newton decrement ``g^T p`` is
    ``<= tol`` (the log-likelihood is then within about ``tol / 2`` of its supremum, by
    self-concordance-like quadratic convergence), or when a step no longer increases the
    computed log-likelihood (the decrement is below its rounding: a ``tol`` of 1e-16 often
    is, and Newton would otherwise take its ``max_iter`` steps at the floor).

    Returns ``(status, iterations)``: :data:`MLE_CONVERGED`; :data:`MLE_DIVERGED` when some
    arm with data gets ``|x_a^T theta| > z_max`` while the log-likelihood still increases
    (its fitted probability is numerically 0 or 1: the sign of the data is being fitted
    exactly, the MLE does not exist); :data:`MLE_MAX_ITER`; :data:`MLE_SINGULAR` when the
    Hessian is not positive definite (a pivot of its Cholesky factor ``<= 1e-13 max_i
    H_ii``: the arms with data do not span R^d).

    numpy and LAPACK (``dpotrf``, ``dpotrs``), ``O(K d^2)`` per step: an estimate is
    computed a few times per run (a warm-up's fit, one per HOMER phase, the refits of
    epsilon-greedy), so a jitted kernel would cost its compilation (about 0.7 s of a
    first call, issue 16) for microseconds.
    """
    used = n > 0.0
    Xu, nu, su = X[used], n[used], s[used]
    z = Xu @ theta
    ll, e = _loglik(z, nu, su)
    for it in range(max_iter):
        zmax_seen = float(np.max(np.abs(z))) if z.size else 0.0
        if zmax_seen > z_max:
            return MLE_DIVERGED, it
        # mu(z) = 1 / (1 + e^{-z}) and mu'(z) = e^{-|z|} / (1 + e^{-|z|})^2 from e = e^{-|z|}
        inv = 1.0 / (1.0 + e)
        g = Xu.T @ (su - nu * np.where(z >= 0.0, inv, e * inv))
        H = (Xu.T * (nu * e * inv * inv)) @ Xu
        scale = float(np.max(np.diag(H)))
        L, info = _POTRF(H, lower=1)
        if not (scale > 0.0 and info == 0 and np.all(np.diag(L) ** 2 > 1e-13 * scale)):
            # singular at a large theta means saturation, at a moderate one missing span
            return (MLE_DIVERGED if zmax_seen > 0.5 * z_max else MLE_SINGULAR), it
        p, _ = _POTRS(L, g, lower=1)
        dec = float(g @ p)
        if dec <= tol:
            return MLE_CONVERGED, it
        t = 1.0
        while True:
            cand = theta + t * p
            z_new = Xu @ cand
            ll_new, e_new = _loglik(z_new, nu, su)
            if ll_new >= ll + 1e-4 * t * dec or t < 1e-10:
                break
            t *= 0.5
        if t < 1e-10:
            return MLE_CONVERGED, it  # no ascent possible at machine precision
        theta[:] = cand
        if ll_new <= ll:
            # accepted without a measurable ascent: the decrement is below the rounding of
            # the log-likelihood (tol = 1e-16 often is), Newton cannot improve further
            return MLE_CONVERGED, it + 1
        ll, z, e = ll_new, z_new, e_new
    return MLE_MAX_ITER, max_iter


def mle(X: object, counts: object, successes: object, *, on_separable: str = "fallback",
        tol: float = 1e-16, max_iter: int = 100, theta0: object = None) -> MLEResult:
    r"""Logistic MLE (the paper, eq. 1) from per-arm pull counts and success counts.

    ``theta_hat = argmax sum_a s_a log mu(x_a^T theta) + (n_a - s_a) log(1 - mu(x_a^T theta))``,
    unregularised and unconstrained, by damped Newton/IRLS
    (:func:`newton_mle`, decrement ``<= tol``).

    Parameters
    ----------
    X : array_like, shape (K, d)
        Arms.
    counts, successes : array_like, shape (K,)
        Pulls and successes per arm (``0 <= s_a <= n_a``).
    on_separable : {"fallback", "raise", "nan"}
        What to do when the MLE does not exist (the data are (quasi-)separable, e.g. an
        arm with only successes that no other arm counterbalances, or the arms with data do
        not span R^d): ``"fallback"`` refits after the Appendix F correction
        (:func:`appendix_f_successes`; if the arms still do not span, ``ValueError``);
        ``"raise"`` raises ``ValueError``; ``"nan"`` returns ``theta = NaN``.
    tol, max_iter
        Newton decrement tolerance and iteration cap.
    theta0 : array_like, optional
        Starting point (default 0).

    Returns
    -------
    MLEResult

    Notes
    -----
    Existence is decided exactly by the linear program of :func:`mle_exists` (not by
    watching Newton diverge), so the outcome does not depend on ``max_iter``.
    """
    if on_separable not in ("fallback", "raise", "nan"):
        raise ValueError(f"on_separable must be 'fallback', 'raise' or 'nan'; got "
                         f"{on_separable!r}")
    Xa = as_logistic_arms(X, need_span=False)
    K, d = Xa.shape
    n = as_count_array(counts, "counts", K).astype(np.float64)
    s = as_count_array(successes, "successes", K).astype(np.float64)
    if np.any(s > n):
        raise ValueError("need 0 <= successes <= counts for every arm")
    th = np.zeros(d) if theta0 is None else as_theta(theta0, d, name="theta0").copy()
    if mle_exists(Xa, n, s):
        status, it = newton_mle(Xa, n, s, th, tol, max_iter, 200.0)
        return MLEResult(theta=th, exists=True, method="mle", status=int(status),
                         iterations=int(it))
    used = n > 0
    why = ("the arms with data do not span R^d" if not used.any()
           or np.linalg.matrix_rank(Xa[used]) < d else "the data are (quasi-)separable")
    if on_separable == "raise":
        raise ValueError(f"the logistic MLE does not exist: {why}")
    if on_separable == "nan":
        return MLEResult(theta=np.full(d, np.nan), exists=False, method="none", status=-1,
                         iterations=0)
    if not used.any() or np.linalg.matrix_rank(Xa[used]) < d:
        raise ValueError(f"the logistic MLE does not exist and no fallback applies: {why}")
    s2 = appendix_f_successes(n, s)
    th = np.zeros(d)
    status, it = newton_mle(Xa, n, s2, th, tol, max_iter, 200.0)
    return MLEResult(theta=th, exists=False, method="fallback-appF", status=int(status),
                     iterations=int(it))
