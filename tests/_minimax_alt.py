"""First-order candidate solvers for the weighted minimax design, kept for comparison.

They were measured against the interior-point solver of :mod:`design._minimax_numba`
(see ``benchmarks/bench_xy.py`` and ``docs/xy_design.md``) and lost; they stay here,
jitted and tested, so that the comparison can be re-run. Both take explicit (already
scaled) targets ``Y`` (m, d) and arms ``X`` (K, d) and return the weights; certificates
are computed by the caller with :func:`design._minimax_solver.certify`.

* :func:`fw_smooth`: Frank–Wolfe with away steps on the log-sum-exp smoothing
  ``f_beta(lam) = V/beta log sum_j exp(beta v_j(lam) / V)`` with a continuation on
  ``beta``, exact line search (golden section on the closed-form rank-one values) and
  rank-one (Sherman–Morrison) updates of ``A^{-1}``, of ``v_j``, of ``z_ja = y_j^T A^{-1}
  x_a`` and of ``G_ab = x_a^T A^{-1} x_b``, with an exact refresh every ``refresh`` steps.
* :func:`saddle_multiplicative`: the saddle point ``min_lam max_mu sum_j mu_j v_j(lam)``
  by a multiplicative (Fellman / Torsney type, ``lam_a <- lam_a sqrt(g_a / tr)``) step in
  ``lam`` against an exponentiated-gradient step in ``mu``, with averaging of ``mu``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from design._minimax_numba import inverse_factor


@njit(cache=True)
def _exact(X: np.ndarray, Y: np.ndarray, lam: np.ndarray, Ainv: np.ndarray, v: np.ndarray,
           Z: np.ndarray, G: np.ndarray) -> bool:
    d = X.shape[1]
    Linv = np.empty((d, d))
    if not inverse_factor(X, lam, Linv):
        return False
    Ainv[:, :] = np.dot(Linv.T, Linv)
    W = np.dot(Y, Ainv)
    for j in range(Y.shape[0]):
        s = 0.0
        for i in range(d):
            s += W[j, i] * Y[j, i]
        v[j] = s
    Z[:, :] = np.dot(W, X.T)
    G[:, :] = np.dot(np.dot(X, Ainv), X.T)
    return True


@njit(cache=True)
def _lse(v: np.ndarray, beta: float, scale: float) -> float:
    m = v.shape[0]
    vmax = v.max()
    s = 0.0
    for j in range(m):
        s += np.exp(beta * (v[j] - vmax) / scale)
    return vmax + scale / beta * np.log(s)


@njit(cache=True)
def _vals_along(v: np.ndarray, za: np.ndarray, gaa: float, gam: float, out: np.ndarray
                ) -> None:
    """``v_j`` after ``lam <- (1 - gam) lam + gam e_a`` (rank-one closed form)."""
    s = gam / (1.0 - gam)
    c = s / (1.0 + s * gaa)
    sc = 1.0 / (1.0 - gam)
    for j in range(v.shape[0]):
        out[j] = (v[j] - c * za[j] * za[j]) * sc


@njit(cache=True)
def fw_smooth(X: np.ndarray, Y: np.ndarray, lam: np.ndarray, tol: float, max_iter: int,
              refresh: int) -> tuple[int, np.ndarray]:
    """Away-step Frank–Wolfe on the log-sum-exp smoothing, with continuation on beta.

    ``lam`` (on the simplex, ``A(lam)`` invertible) is updated in place. Stops when the
    Cauchy–Schwarz bound with ``mu = softmax(beta v / V)`` certifies ``tol`` (checked at
    every refresh) or after ``max_iter`` steps. Returns ``(iterations, mu)``.
    """
    K, d = X.shape
    m = Y.shape[0]
    Ainv = np.empty((d, d))
    v = np.empty(m)
    Z = np.empty((m, K))
    G = np.empty((K, K))
    p = np.empty(m)
    g = np.empty(K)
    za = np.empty(m)
    vt = np.empty(m)
    _exact(X, Y, lam, Ainv, v, Z, G)
    beta = 10.0
    it = 0
    since = 0
    while it < max_iter:
        scale = v.max()
        vmax = scale
        s = 0.0
        for j in range(m):
            p[j] = np.exp(beta * (v[j] - vmax) / scale)
            s += p[j]
        for j in range(m):
            p[j] /= s
        gtr = 0.0
        for a in range(K):
            t = 0.0
            for j in range(m):
                t += p[j] * Z[j, a] * Z[j, a]
            g[a] = t
            gtr += lam[a] * t
        # certificate with mu = p: lb = tr^2 / max g, tr = sum p v
        tr = 0.0
        for j in range(m):
            tr += p[j] * v[j]
        gm = g.max()
        if since == 0 and tr * tr / gm * (1.0 + tol) >= vmax:
            return it, p
        i_to = np.argmax(g)
        i_aw = -1
        gmin = np.inf
        for a in range(K):
            if lam[a] > 0.0 and g[a] < gmin:
                gmin = g[a]
                i_aw = a
        fw_gap = g[i_to] - gtr
        aw_gap = gtr - gmin
        # continuation: the smoothed problem is solved well enough for this beta
        if max(fw_gap, aw_gap) < 0.1 * tr / beta * np.log(m + 1.0):
            beta *= 2.0
            continue
        if fw_gap >= aw_gap:
            a = i_to
            lo, hi = 0.0, 1.0 - 1e-12
        else:
            a = i_aw
            lo, hi = -lam[a] / (1.0 - lam[a]) if lam[a] < 1.0 else -1e12, 0.0
        for j in range(m):
            za[j] = Z[j, a]
        gaa = G[a, a]
        # golden-section search of the smoothed objective along the segment
        phi = (np.sqrt(5.0) - 1.0) / 2.0
        x1 = hi - phi * (hi - lo)
        x2 = lo + phi * (hi - lo)
        _vals_along(v, za, gaa, x1, vt)
        f1 = _lse(vt, beta, scale)
        _vals_along(v, za, gaa, x2, vt)
        f2 = _lse(vt, beta, scale)
        for _ in range(40):
            if f1 < f2:
                hi = x2
                x2 = x1
                f2 = f1
                x1 = hi - phi * (hi - lo)
                _vals_along(v, za, gaa, x1, vt)
                f1 = _lse(vt, beta, scale)
            else:
                lo = x1
                x1 = x2
                f1 = f2
                x2 = lo + phi * (hi - lo)
                _vals_along(v, za, gaa, x2, vt)
                f2 = _lse(vt, beta, scale)
        gam = 0.5 * (lo + hi)
        if a == i_aw and fw_gap < aw_gap and gam <= -lam[a] / (1.0 - lam[a]) * 0.999999:
            gam = -lam[a] / (1.0 - lam[a])  # drop step
        sg = gam / (1.0 - gam)
        den = 1.0 + sg * gaa
        if not den > 1e-12:
            beta *= 2.0
            continue
        c = sg / den
        sc = 1.0 / (1.0 - gam)
        # rank-one updates of v, Z, G and lam
        for j in range(m):
            v[j] = (v[j] - c * za[j] * za[j]) * sc
        ga = G[a].copy()
        for j in range(m):
            zj = za[j]
            for b in range(K):
                Z[j, b] = (Z[j, b] - c * zj * ga[b]) * sc
        for b in range(K):
            for e in range(K):
                G[b, e] = (G[b, e] - c * ga[b] * ga[e]) * sc
        for b in range(K):
            lam[b] *= 1.0 - gam
        lam[a] += gam
        if lam[a] < 1e-14:
            lam[a] = 0.0
        it += 1
        since += 1
        if since >= refresh:
            t = lam.sum()
            for b in range(K):
                lam[b] /= t
            _exact(X, Y, lam, Ainv, v, Z, G)
            since = 0
    return it, p


@njit(cache=True)
def saddle_multiplicative(X: np.ndarray, Y: np.ndarray, lam: np.ndarray, tol: float,
                          max_iter: int, eta: float) -> tuple[int, np.ndarray]:
    """Multiplicative saddle-point iteration for ``min_lam max_mu sum_j mu_j v_j(lam)``.

    ``lam_a <- lam_a sqrt(g_a(mu))`` normalised (the multiplicative algorithm for the
    linear criterion ``tr(A^{-1} B(mu))``) and ``mu_j <- mu_j exp(eta_t v_j / V)``
    normalised with ``eta_t = eta / sqrt(t)``; the certificate uses the running average of
    ``mu``. ``lam`` is updated in place. Returns ``(iterations, mu_avg)``.
    """
    K, d = X.shape
    m = Y.shape[0]
    Ainv = np.empty((d, d))
    v = np.empty(m)
    Z = np.empty((m, K))
    G = np.empty((K, K))
    mu = np.full(m, 1.0 / m)
    mu_avg = np.zeros(m)
    g = np.empty(K)
    for it in range(1, max_iter + 1):
        if not _exact(X, Y, lam, Ainv, v, Z, G):
            return it, mu_avg
        vmax = v.max()
        for j in range(m):
            mu_avg[j] += (mu[j] - mu_avg[j]) / it
        # certificate with the averaged measure
        tr = 0.0
        for j in range(m):
            tr += mu_avg[j] * v[j]
        gm = 0.0
        for a in range(K):
            t = 0.0
            for j in range(m):
                t += mu_avg[j] * Z[j, a] * Z[j, a]
            if t > gm:
                gm = t
        if tr * tr / gm * (1.0 + tol) >= vmax:
            return it, mu_avg
        # multiplicative step in lam against the current mu
        s = 0.0
        for a in range(K):
            t = 0.0
            for j in range(m):
                t += mu[j] * Z[j, a] * Z[j, a]
            g[a] = lam[a] * np.sqrt(t)
            s += g[a]
        for a in range(K):
            lam[a] = g[a] / s
        # exponentiated-gradient step in mu
        st = eta / np.sqrt(it)
        s = 0.0
        for j in range(m):
            mu[j] *= np.exp(st * (v[j] / vmax - 1.0))
            s += mu[j]
        for j in range(m):
            mu[j] /= s
    return max_iter, mu_avg
