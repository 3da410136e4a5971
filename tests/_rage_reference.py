"""A faithful numpy port of the authors' RAGE loop (``fiezt/Transductive-Linear-Bandit-Code``,
``RAGE.py``: ``algorithm`` with ``var=True``, ``optimal_allocation``, ``rounding``,
``drop_arms``), used by the two-sample test of ``variant="code"`` and by
``benchmarks/bench_rage.py``. Only the reward generator differs (numpy's ``default_rng``
instead of the legacy global ``np.random.seed``); every pull is materialised as a row, as
there."""

from __future__ import annotations

import numpy as np


def rage_py(X: np.ndarray, theta: np.ndarray, seed: int, factor: float = 10.0,
            delta: float = 0.05, Z: np.ndarray | None = None) -> tuple[int, int, bool]:
    """One run; returns ``(samples, phases, success)`` (success: the best target is the
    one left)."""
    rng = np.random.default_rng(seed)
    Z = X if Z is None else Z
    K, d = X.shape
    KZ = Z.shape[0]
    opt = int(np.argmax(Z @ theta))
    active = list(range(KZ))
    N = 0
    phase = 1
    while len(active) > 1:
        delta_t = delta / phase**2
        k = len(active)
        Zh = Z[active]
        Y = np.zeros((k * k, d))
        for i in range(k):
            Y[k * i:k * (i + 1), :] = Zh - Zh[i, :]
        design = np.ones(K) / K
        for count in range(1, 5000):
            A_inv = np.linalg.pinv(X.T @ np.diag(design) @ X)
            U, D, V = np.linalg.svd(A_inv)
            half = U @ np.diag(np.sqrt(D)) @ V.T
            rho = ((Y @ half) ** 2) @ np.ones((d, 1))
            y = Y[np.argmax(rho), :, None]
            g = ((X @ A_inv @ y) * (X @ A_inv @ y)).flatten()
            gamma = 2 / (count + 2)
            upd = -gamma * design
            upd[np.argmax(g)] += gamma
            relative = np.linalg.norm(upd) / np.linalg.norm(design)
            design += upd
            if relative < 0.01:
                break
        design[np.where(design < 1e-5)[0]] = 0
        rho = np.max(rho)
        support = np.sum((design > 0).astype(int))
        n_min = 2 * factor * support
        eps = 1 / factor
        n = max(np.ceil(8 * (2 ** (phase - 1)) ** 2 * rho * (1 + eps)
                        * np.log(2 * KZ**2 / delta_t)), n_min).astype(int)
        sidx = np.where(design > 0)[0]
        sw = design[sidx]
        nr = np.ceil((n - .5 * support) * sw)
        while nr.sum() - n != 0:
            if nr.sum() < n:
                nr[np.argmin(nr / sw)] += 1
            else:
                nr[np.argmax((nr - 1) / sw)] -= 1
        alloc = np.zeros(K)
        alloc[sidx] = nr
        alloc = alloc.astype(int)
        pulls = np.vstack([np.tile(X[i], (c, 1)) for i, c in enumerate(alloc) if c > 0])
        rewards = pulls @ theta[:, None] + rng.standard_normal((alloc.sum(), 1))
        A_inv = np.linalg.pinv(pulls.T @ pulls)
        th = np.linalg.pinv(pulls.T @ pulls) @ pulls.T @ rewards
        snapshot = active.copy()
        for i in snapshot:
            arm = Z[i, :, None]
            for j in snapshot:
                if i == j:
                    continue
                yv = Z[j, :, None] - arm
                if np.sqrt(2 * yv.T @ A_inv @ yv * np.log(2 * K**2 / delta_t)) <= yv.T @ th:
                    active.remove(i)
                    break
        phase += 1
        N += n
    return int(N), phase - 1, opt in active
