"""Jitted kernels of the logistic bandit module (numba, ``cache=True``, no object mode).

Everything works on *sufficient statistics per arm*: ``n[a]`` pulls and ``s[a]`` successes
of arm ``a`` (rows of ``X``). The logistic log-likelihood of such data is

.. math:: \\ell(\\theta) = \\sum_a s_a z_a - n_a \\log(1 + e^{z_a}),\\qquad z_a = x_a^T\\theta,

so an MLE costs ``O(K d^2)`` per Newton step whatever the number of pulls.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from bandits._core.jit import inner
from bandits._core.rng import binomial_split, standard_gamma, uniform  # noqa: F401
from bandits._core.targets import argmax_all

#: MLE status codes (:func:`mle_newton`).
MLE_CONVERGED = 0
MLE_DIVERGED = 1  # fitted probabilities saturate: the data are (quasi-)separable
MLE_MAX_ITER = 2
MLE_SINGULAR = 3  # the arms with data do not span R^d (Hessian singular at theta = 0)

#: WAR probing decisions (:func:`probe_arm`).
UNDECIDED = 0
ACCEPT = 1
REJECT = 2


# mu, mudot and softplus are one-line scalar helpers: inlined into their callers (numba's
# IR inlining), one function fewer to compile each (issue 16: the MLE's first call about
# 0.1 s less; loglik, with two call sites in mle_newton, stays a call)
@inner(error_model="numpy", inline="always")
def mu(z: float) -> float:
    """Logistic function ``1 / (1 + e^{-z})`` without overflow."""
    if z >= 0.0:
        return 1.0 / (1.0 + np.exp(-z))
    e = np.exp(z)
    return e / (1.0 + e)


@inner(error_model="numpy", inline="always")
def mudot(z: float) -> float:
    """``mu'(z) = mu(z)(1 - mu(z)) = e^{-|z|} / (1 + e^{-|z|})^2``."""
    e = np.exp(-abs(z))
    return e / ((1.0 + e) * (1.0 + e))


@inner(error_model="numpy", inline="always")
def softplus(z: float) -> float:
    """``log(1 + e^z)`` without overflow."""
    if z > 0.0:
        return z + np.log1p(np.exp(-z))
    return np.log1p(np.exp(z))


@inner(error_model="numpy")
def loglik(X: np.ndarray, n: np.ndarray, s: np.ndarray, theta: np.ndarray) -> float:
    """Log-likelihood ``sum_a s_a z_a - n_a log(1 + e^{z_a})`` of per-arm statistics."""
    K, d = X.shape
    ll = 0.0
    for a in range(K):
        if n[a] > 0.0:
            z = 0.0
            for i in range(d):
                z += X[a, i] * theta[i]
            ll += s[a] * z - n[a] * softplus(z)
    return ll


@njit(cache=True, error_model="numpy")
def mle_newton(X: np.ndarray, n: np.ndarray, s: np.ndarray, theta: np.ndarray,
               tol: float, max_iter: int, z_max: float) -> tuple[int, int]:
    """Damped Newton (= IRLS with a backtracking line search) for the logistic MLE.

    ``theta`` holds the start on entry and the estimate on exit. Step ``p = H^{-1} g`` with
    ``g = sum_a (s_a - n_a mu(z_a)) x_a`` and ``H = sum_a n_a mu'(z_a) x_a x_a^T``; the step
    is halved until the log-likelihood does not decrease (Armijo, constant 1e-4). Converged
    when the Newton decrement ``g^T p`` is ``<= tol`` (the log-likelihood is then within
    about ``tol / 2`` of its supremum, by self-concordance-like quadratic convergence).

    Returns ``(status, iterations)``: :data:`MLE_CONVERGED`; :data:`MLE_DIVERGED` when some
    arm with data gets ``|x_a^T theta| > z_max`` while the log-likelihood still increases
    (its fitted probability is numerically 0 or 1: the sign of the data is being fitted
    exactly, the MLE does not exist); :data:`MLE_MAX_ITER`; :data:`MLE_SINGULAR` when the
    Hessian is not positive definite (the arms with data do not span R^d).
    """
    K, d = X.shape
    # one allocation for every work array (each allocator a kernel allocates with is one
    # more numba function compiled on the first call, issue 16): H, its Cholesky factor L,
    # the gradient g, the step p and the candidate point
    work = np.empty((2 * d + 3, d))
    H, L = work[:d], work[d:2 * d]
    g, p, cand = work[2 * d], work[2 * d + 1], work[2 * d + 2]
    ll = loglik(X, n, s, theta)
    for it in range(max_iter):
        # plain loops, no slice assignment: `a[:] = x` compiles numba's shape-mismatch
        # error message (unicode formatting, about 1 s of CPU on a first call; issue 16)
        for i in range(d):
            g[i] = 0.0
            for j in range(d):
                H[i, j] = 0.0
        zmax_seen = 0.0
        for a in range(K):
            if n[a] <= 0.0:
                continue
            z = 0.0
            for i in range(d):
                z += X[a, i] * theta[i]
            if abs(z) > zmax_seen:
                zmax_seen = abs(z)
            r = s[a] - n[a] * mu(z)
            w = n[a] * mudot(z)
            for i in range(d):
                g[i] += r * X[a, i]
                for j in range(i + 1):
                    H[i, j] += w * X[a, i] * X[a, j]
        if zmax_seen > z_max:
            return MLE_DIVERGED, it
        for i in range(d):
            for j in range(i):
                H[j, i] = H[i, j]
        # Cholesky with a relative pivot test
        for i in range(d):
            for j in range(d):
                L[i, j] = 0.0
        scale = 0.0
        for i in range(d):
            if H[i, i] > scale:  # max(scale, H_ii), spelled out (see bernstein_bounds)
                scale = H[i, i]
        ok = scale > 0.0
        for j in range(d):
            if not ok:
                break
            v = H[j, j]
            for k in range(j):
                v -= L[j, k] * L[j, k]
            if v <= 1e-13 * scale:
                ok = False
                break
            L[j, j] = np.sqrt(v)
            for i in range(j + 1, d):
                v = H[i, j]
                for k in range(j):
                    v -= L[i, k] * L[j, k]
                L[i, j] = v / L[j, j]
        if not ok:
            # singular at a large theta means saturation, at a moderate one missing span
            return (MLE_DIVERGED if zmax_seen > 0.5 * z_max else MLE_SINGULAR), it
        for i in range(d):  # forward
            v = g[i]
            for k in range(i):
                v -= L[i, k] * p[k]
            p[i] = v / L[i, i]
        for i in range(d - 1, -1, -1):  # backward
            v = p[i]
            for k in range(i + 1, d):
                v -= L[k, i] * p[k]
            p[i] = v / L[i, i]
        dec = 0.0
        for i in range(d):
            dec += g[i] * p[i]
        if dec <= tol:
            return MLE_CONVERGED, it
        t = 1.0
        while True:
            for i in range(d):
                cand[i] = theta[i] + t * p[i]
            ll_new = loglik(X, n, s, cand)
            if ll_new >= ll + 1e-4 * t * dec or t < 1e-10:
                break
            t *= 0.5
        if t < 1e-10:
            return MLE_CONVERGED, it  # no ascent possible at machine precision
        for i in range(d):
            theta[i] = cand[i]
        ll = ll_new
    return MLE_MAX_ITER, max_iter


class DesignStats(NamedTuple):
    """Per-arm statistics of one fixed design (a warm-up's planned pulls or a HOMER phase):
    the only data its estimate uses (one value at the numba boundary)."""

    n: np.ndarray
    """Outcomes recorded per arm, int64 (K,)."""
    s: np.ndarray
    """Successes per arm, int64 (K,)."""


def new_design_stats(K: int) -> DesignStats:
    """Empty statistics for ``K`` arms."""
    return DesignStats(np.zeros(K, dtype=np.int64), np.zeros(K, dtype=np.int64))


@njit(cache=True)
def design_record(st: DesignStats, arm: int, y: int) -> None:
    """The step kernel of a fixed design: record outcome ``y`` (0 or 1) of ``arm``. Called
    per pull by the per-sample simulation (:func:`design_play`) and by the ask/tell
    policies (HOMER's phases, the warm-ups' planned pulls)."""
    st.n[arm] += 1
    st.s[arm] += y


@njit(cache=True)
def bernoulli(p: float, state: np.ndarray) -> int:
    """One Bernoulli(``p``) outcome: ``uniform < p`` (the environment's draw of one pull)."""
    return 1 if uniform(state) < p else 0


@njit(cache=True)
def design_play(order: np.ndarray, p: np.ndarray, state: np.ndarray, st: DesignStats) -> None:
    """Per-sample simulation of a design: the pulls ``order`` (the ask/tell order), each
    drawn from the stream ``state`` and recorded by :func:`design_record`."""
    for i in range(order.shape[0]):
        a = order[i]
        design_record(st, a, bernoulli(p[a], state))


@njit(cache=True, error_model="numpy")
def design_draw(counts: np.ndarray, p: np.ndarray, state: np.ndarray, st: DesignStats) -> None:
    """Sufficient-statistic simulation of a design: every arm's successes drawn at once,
    ``Binomial(counts[a], p[a])`` (:func:`binomial_split`): ``O(K log n)``, the same
    distribution of ``(n, s)`` as :func:`design_play`."""
    for a in range(counts.shape[0]):
        st.n[a] += counts[a]
        st.s[a] += binomial_split(int(counts[a]), p[a], state)


@inner
def logit_abs(q: float) -> float:
    """``|mu^{-1}(q)| = |log(q / (1 - q))|`` (``inf`` at ``q`` in {0, 1})."""
    if q <= 0.0 or q >= 1.0:
        return np.inf
    return abs(np.log(q / (1.0 - q)))


@inner
def bernstein_bounds(N: int, succ: int, K: int, delta: float) -> tuple[float, float]:
    """Bounds ``[L_x, U_x]`` on ``|x^T theta*|`` from ``succ`` successes in ``N`` pulls.

    Anytime empirical-Bernstein width (Mnih, Szepesvari & Audibert 2008; Mason et al. 2022,
    Sec. 3 / Thm 4) with ``log(3 / delta_N) = log(3 K N (N + 1) / delta)``::

        W = sqrt(2 p (1 - p) log(3/delta_N) / N) + 3 log(3/delta_N) / N,   p = succ / N.

    The mean interval ``[p - W, p + W]`` (clipped to [0, 1]) is mapped through
    ``|mu^{-1}|``: if it contains 1/2 then ``L_x = 0``; otherwise ``L_x`` and ``U_x`` are the
    smaller and larger of ``|mu^{-1}|`` of its end points (``U_x = inf`` at 0 or 1).
    """
    p = succ / N
    lg = np.log(3.0 * K * N * (N + 1.0) / delta)
    W = np.sqrt(2.0 * p * (1.0 - p) * lg / N) + 3.0 * lg / N
    # max/min of two floats spelled out as the builtins' selects (``max(x, y)`` is ``y if
    # y > x else x``): the same values, without compiling their overloads (issue 16)
    lo = p - W if p - W > 0.0 else 0.0
    hi = p + W if p + W < 1.0 else 1.0
    a = logit_abs(lo)
    b = logit_abs(hi)
    U = b if b > a else a
    if lo <= 0.5 <= hi:
        return 0.0, U
    return (b if b < a else a), U


@njit(cache=True, inline="always")
def probe_decision_inner(N: int, succ: int, K: int, delta: float, Lw: float, Uw: float
                   ) -> tuple[int, float, float]:
    """WAR's stopping rule for one probed arm after ``succ`` successes in ``N`` pulls.

    Returns ``(decision, L_x, U_x)``: :data:`ACCEPT` if ``U_x < U``, else :data:`REJECT` if
    ``L_x > L``, else :data:`UNDECIDED` (:func:`bernstein_bounds`). Shared by the simulation
    (:func:`probe_arm`, which inlines it: one call site) and the ask/tell front-end
    (:class:`bandits.logistic.WarPolicy`, through :func:`probe_decision`).
    """
    lo, hi = bernstein_bounds(N, succ, K, delta)
    if hi < Uw:
        return ACCEPT, lo, hi
    if lo > Lw:
        return REJECT, lo, hi
    return UNDECIDED, lo, hi


@njit(cache=True)
def probe_decision(N: int, succ: int, K: int, delta: float, Lw: float, Uw: float
                   ) -> tuple[int, float, float]:
    """Python entry of :func:`probe_decision_inner` (the ask/tell policy's call; compiled
    on its first call, not by a simulation's)."""
    return probe_decision_inner(N, succ, K, delta, Lw, Uw)


@njit(cache=True)
def probe_arm(p: float, K: int, delta: float, Lw: float, Uw: float, state: np.ndarray,
              max_pulls: int) -> tuple[int, int, int, float, float]:
    """WAR optimistic probing of one arm (Mason et al. 2022, Algorithm 2, line 6).

    Pull the arm (success probability ``p``) until ``Accept = {U_x < U}`` or
    ``Reject = {L_x > L}`` (:func:`probe_decision`), or ``max_pulls``. Returns
    ``(N, successes, decision, L_x, U_x)``.
    """
    succ = 0
    for N in range(1, max_pulls + 1):
        if uniform(state) < p:
            succ += 1
        dec, lo, hi = probe_decision_inner(N, succ, K, delta, Lw, Uw)
        if dec != UNDECIDED or N == max_pulls:
            return N, succ, dec, lo, hi
    return 0, 0, UNDECIDED, 0.0, np.inf


@njit(cache=True)
def eps_greedy(X: np.ndarray, theta_star: np.ndarray, explore_cdf: np.ndarray, c_eps: float,
               T: int, refit_ratio: float, checkpoints: np.ndarray, state: np.ndarray,
               counts: np.ndarray, succ: np.ndarray, regret_out: np.ndarray) -> int:
    """Epsilon-greedy on the MLE with design-based exploration (the regret baseline).

    At time ``t`` (1-based) explore with probability ``eps_t = min(1, c_eps d / t)`` by
    drawing an arm from ``explore_cdf`` (the G-optimal design of the arms), otherwise pull
    ``argmax_a x_a^T theta_hat``. ``theta_hat`` is refitted (damped Newton, Appendix F
    correction of all-0/all-1 arms so that it always exists) whenever ``t`` has grown by
    the factor ``refit_ratio`` since the last fit. Writes the cumulative pseudo-regret at
    the (sorted) ``checkpoints`` into ``regret_out``; returns the number of refits.
    """
    K, d = X.shape
    means = np.empty(K)
    best = -np.inf
    for a in range(K):
        z = 0.0
        for i in range(d):
            z += X[a, i] * theta_star[i]
        means[a] = mu(z)
        best = max(best, means[a])
    theta = np.zeros(d)
    th = np.empty(d)
    s_adj = np.empty(K)
    next_fit = float(2 * d)
    fitted = False
    refits = 0
    reg = 0.0
    c = 0
    for t in range(1, T + 1):
        if fitted and t >= next_fit:
            for a in range(K):
                s_adj[a] = succ[a]
                if counts[a] > 0.0:
                    if succ[a] == 0.0:
                        s_adj[a] = 0.5
                    elif succ[a] == counts[a]:
                        s_adj[a] = counts[a] - 0.5
            for i in range(d):
                th[i] = theta[i]
            status, _ = mle_newton(X, counts, s_adj, th, 1e-10, 100, 60.0)
            if status == MLE_CONVERGED or status == MLE_MAX_ITER:
                for i in range(d):
                    theta[i] = th[i]
            refits += 1
            next_fit = max(next_fit * refit_ratio, next_fit + 1.0)
        elif not fitted and t >= next_fit:
            fitted = True
            next_fit = float(t)
        eps = min(1.0, c_eps * d / t)
        if not fitted or uniform(state) < eps:
            u = uniform(state)
            arm = K - 1
            for a in range(K):
                if u < explore_cdf[a]:
                    arm = a
                    break
        else:
            arm = argmax_all(X, theta)
        counts[arm] += 1.0
        if uniform(state) < means[arm]:
            succ[arm] += 1.0
        reg += best - means[arm]
        while c < checkpoints.shape[0] and checkpoints[c] == t:
            regret_out[c] = reg
            c += 1
    return refits
