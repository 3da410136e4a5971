"""Warm-up designs for logistic bandits: naive (eq. 5), WAR (Algorithm 2) and the oracle.

A warm-up pulls arm ``a`` ``n_a`` times so that the warm-up condition (2) of Mason, Jun &
Jain (2022) holds, ``max_a ||x_a||^2_{H(theta*)^{-1}} <= 1 / gamma(d)`` with
``H = sum_a n_a mu'(x_a^T theta*) x_a x_a^T``, and returns the MLE of those samples (a
delta-valid estimate, Definition 1). All three use the same recipe: a design
``lambda`` minimising ``g(lambda) = max_x ||x||^2_{H_lambda^{-1}}`` for some *surrogate*
variances ``v_a <= mu'(x_a^T theta*)``, ``H_lambda = sum_a lambda_a v_a x_a x_a^T``, then
``n_a = ceil(lambda_a g gamma)``:

=========  ==================================================  ==========================
warm-up    surrogate ``v_a``                                   needs
=========  ==================================================  ==========================
naive      ``mu'(||x_a|| S)`` (eq. 5)                          ``S``
WAR        ``mu'^pes(x_a) = min_{theta in C} mu'(x_a^T theta)`` ``S`` and probing samples
oracle     ``mu'(x_a^T theta*)`` (``g*``, eq. 4)               ``theta*`` (reference only)
=========  ==================================================  ==========================

Table 1 of the paper reports ``g gamma`` ("ignoring the integer effect"):
:attr:`WarmupResult.total_continuous`. ``gamma = gamma(d, |X|, delta)`` with
``t_eff = |X|`` (the naive row of Table 1 is ``3 gamma(3, 20, 0.05) / mu'(S)`` to 0.01%).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from bandits._core import rng as _rng
from bandits.logistic import _kernels as kern
from bandits.logistic.core import (
    DELTA,
    _check_delta,
    as_logistic_arms,
    as_norm_bound,
    as_theta,
    gamma,
    mle,
    mu,
    mudot,
)
from design.gd import two_approx_g_design  # Algorithm 3 (re-exported here)
from rounding.validation import check_seed

__all__ = [
    "WarPolicy",
    "WarmupResult",
    "check_told",
    "g_design",
    "interleaved_order",
    "naive_warmup",
    "oracle_warmup",
    "run_warmup",
    "relaxed_plan",
    "two_approx_g_design",
    "war_warmup",
]


@dataclass(frozen=True)
class WarmupResult:
    """A warm-up allocation (and, if sampled, its MLE).

    Attributes
    ----------
    method : str
        ``"naive"``, ``"war"`` or ``"oracle"``.
    weights : ndarray, shape (K,)
        The design ``lambda``.
    g : float
        Its criterion ``max_x ||x||^2_{H_lambda^{-1}}`` under the surrogate variances.
    gamma : float
        ``gamma(d, |X|, delta)``.
    counts : ndarray of int64, shape (K,)
        ``ceil(lambda_a g gamma)`` (pulls of the planning stage).
    total_continuous : float
        ``g gamma``: the planning samples without integer effects (the paper's Table 1).
    probe_samples : int
        Samples spent by WAR's optimistic probing (0 for naive and oracle).
    surrogate : ndarray, shape (K,)
        The variances ``v_a`` used in the design.
    theta_hat : ndarray or None
        MLE of the planning samples (None if not sampled).
    info : dict
        Method-specific details (WAR: ``L, U, r``, stages, accepted/rejected arms, ...).
    """

    method: str
    weights: np.ndarray
    g: float
    gamma: float
    counts: np.ndarray
    total_continuous: float
    probe_samples: int = 0
    surrogate: np.ndarray = field(default_factory=lambda: np.empty(0))
    theta_hat: np.ndarray | None = None
    info: dict = field(default_factory=dict)

    @property
    def total(self) -> int:
        """Planning pulls with integer effects, ``sum_a ceil(lambda_a g gamma)``."""
        return int(self.counts.sum())


def g_design(X: np.ndarray, v: np.ndarray, tol: float = 1e-6):
    """``min_lambda max_x ||x||^2_{(sum_a lambda_a v_a x_a x_a^T)^{-1}}`` (certified).

    Solved by :func:`design.minimax.minimax_optimal` with measurement rows
    ``sqrt(v_a) x_a`` and targets ``x_a``. Returns the :class:`design.result.DesignResult`.
    """
    from design.minimax import minimax_optimal

    Xs = X * np.sqrt(v)[:, None]
    return minimax_optimal(Xs, X, tol=tol)


def _finish(method: str, X: np.ndarray, v: np.ndarray, delta: float, **extra) -> WarmupResult:
    res = g_design(X, v)
    gam = gamma(X.shape[1], X.shape[0], delta)
    w = res.weights
    counts = np.ceil(w * res.value * gam - 1e-9).astype(np.int64)
    info = {"design_gap": res.gap, **extra.pop("info", {})}
    return WarmupResult(method=method, weights=w, g=float(res.value), gamma=gam, counts=counts,
                        total_continuous=float(res.value * gam), surrogate=v, info=info,
                        **extra)


def naive_warmup(X: object, S: float, *, delta: float = DELTA) -> WarmupResult:
    r"""Naive warm-up (the paper, eq. 5): variances ``mu'(||x|| S)`` (worst case over ``B(S)``).

    ``g^naive = min_lambda max_x ||x||^2_{(H^naive_lambda)^{-1}}``,
    ``H^naive_lambda = sum_x lambda_x mu'(||x|| S) x x^T``; pull ``ceil(lambda_x g gamma)``.
    For unit-norm arms ``g^naive = d / mu'(S)`` (Kiefer–Wolfowitz), so Table 1's naive row
    is ``d gamma / mu'(S)``.
    """
    Xa = as_logistic_arms(X)
    S = as_norm_bound(S)
    _check_delta(delta)
    v = mudot(np.linalg.norm(Xa, axis=1) * S)
    return _finish("naive", Xa, v, delta)


def oracle_warmup(X: object, theta: object, *, delta: float = DELTA) -> WarmupResult:
    r"""Oracle warm-up (reference): ``g* = min_lambda max_x ||x||^2_{H_lambda(theta*)^{-1}}``
    (the paper, eq. 4) with the *true* ``theta*``; pull ``ceil(lambda*_x g* gamma)``."""
    Xa = as_logistic_arms(X)
    th = as_theta(theta, Xa.shape[1])
    _check_delta(delta)
    return _finish("oracle", Xa, mudot(Xa @ th), delta)


# ----------------------------------------------------------------------------------------
# Algorithm 3: 2-approximate G-optimal design (Todd's initial support + Wolfe/away steps)
# ----------------------------------------------------------------------------------------


# ----------------------------------------------------------------------------------------
# WAR: confidence-set computations
# ----------------------------------------------------------------------------------------


def _lp_max_ball(c: np.ndarray, A: np.ndarray, b: np.ndarray, S: float,
                 max_cuts: int = 60, rtol: float = 1e-6) -> float:
    """Upper bound on ``max c^T theta`` s.t. ``A theta <= b``, ``||theta|| <= S``.

    Kelley's cutting planes: LP over the polytope and tangent half-spaces of the ball
    (``±S e_j``, ``c/||c|| theta <= S``, then a cut at each LP solution outside the ball).
    Every LP value is a valid upper bound (the feasible set is relaxed), so the returned
    value is conservative even if ``max_cuts`` is reached; it is exact to ``rtol`` when
    the last solution is inside the ball.
    """
    from scipy.optimize import linprog

    d = c.shape[0]
    nc = np.linalg.norm(c)
    if nc == 0.0:
        return 0.0
    cuts = [np.eye(d), -np.eye(d), (c / nc)[None, :]]
    best = S * nc
    for _ in range(max_cuts):
        Cm = np.vstack(cuts)
        Au = np.vstack([A, Cm]) if A.size else Cm
        bu = np.concatenate([b, np.full(Cm.shape[0], S)]) if A.size else np.full(Cm.shape[0], S)
        res = linprog(-c, A_ub=Au, b_ub=bu, bounds=[(None, None)] * d, method="highs")
        if res.status == 2:  # infeasible relaxation: empty set
            return -math.inf
        if res.status != 0:  # pragma: no cover
            return best
        best = min(best, -res.fun)
        th = res.x
        nt = np.linalg.norm(th)
        if nt <= S * (1.0 + rtol):
            return best
        cuts.append((th / nt)[None, :])
    return best


def _feasible(A: np.ndarray, b: np.ndarray) -> bool:
    from scipy.optimize import linprog

    res = linprog(np.zeros(A.shape[1]), A_ub=A, b_ub=b, bounds=[(None, None)] * A.shape[1],
                  method="highs")
    return res.status != 2


class _ConfidenceSet:
    """``C_m = {theta in B(S): |x_i^T theta| in [L_i, U_i] for every probed arm i}``.

    Pessimistic side: ``max_{theta in C} |x^T theta|`` (``mu'^pes = mu'`` of it, Algorithm 2
    line 13). ``C`` is a union over sign patterns of the arms with ``L_i > 0`` of convex
    sets ``{||theta|| <= S, s_i x_i^T theta >= L_i, |x_j^T theta| <= U_j}``; by default
    (``exact=True``) a branch and bound over the patterns (first sign fixed, ``C = -C``)
    bounds every subtree by :func:`_lp_max_ball` over its constraints so far and is exact
    at the leaves; past ``max_nodes`` LPs it returns the bound of the unexplored subtrees
    (conservative). ``exact=False`` drops the lower bounds (one convex problem): valid but
    looser -- on Table 1's instances at ``S = 2`` it leaves ``max |x^T theta|`` at about
    ``S`` and WAR at the naive count (8,349 vs 8,377; exact 6,772, paper 6,536).

    Optimistic side (removal test, Algorithm 2 line 10): ``min_{theta in C} |x^T theta|
    >= L/r`` is certified when ``{0 <= x^T theta <= L/r} ∩ C`` is empty (``C = -C``). ``C``
    is a union over sign patterns of the arms with ``L_i > 0`` of polytopes ∩ ball; a
    depth-first search over the signs prunes infeasible partial patterns with LPs over
    the polytope ∩ an outer polyhedral approximation of the ball (box and
    ``|x_j^T theta| <= S ||x_j||``). Relaxing only ever keeps an arm that could have been
    removed (more probing, never an invalid warm-up); the search gives up (keeps the arm)
    after ``max_nodes`` LPs.
    """

    def __init__(self, X: np.ndarray, S: float, max_nodes: int = 4096) -> None:
        self.X = X
        self.S = S
        self.lo = np.zeros(X.shape[0])
        self.hi = np.full(X.shape[0], math.inf)
        self.max_nodes = max_nodes
        d = X.shape[1]
        nr = np.linalg.norm(X, axis=1)
        self._outer_A = np.vstack([np.eye(d), -np.eye(d), X, -X])
        self._outer_b = np.concatenate([np.full(2 * d, S), S * nr, S * nr])

    def update(self, a: int, lo: float, hi: float) -> None:
        self.lo[a] = max(self.lo[a], lo)
        self.hi[a] = min(self.hi[a], hi)

    def _upper_rows(self) -> tuple[np.ndarray, np.ndarray]:
        idx = np.flatnonzero(np.isfinite(self.hi))
        A = np.vstack([self.X[idx], -self.X[idx]])
        return A, np.concatenate([self.hi[idx], self.hi[idx]])

    def max_abs(self, x: np.ndarray, exact: bool = True) -> float:
        """``max_{theta in C} |x^T theta|`` (at most ``S ||x||``); an upper bound when
        ``exact=False`` (lower bounds dropped) or the branch and bound hits ``max_nodes``."""
        A, b = self._upper_rows()
        cap = self.S * float(np.linalg.norm(x))
        split = np.flatnonzero(self.lo > 0.0) if exact else np.empty(0, dtype=np.int64)

        def bound(A: np.ndarray, b: np.ndarray) -> float:  # C = -C: both signs of x
            return max(_lp_max_ball(x, A, b, self.S), _lp_max_ball(-x, A, b, self.S))

        best = [-math.inf]
        nodes = [0]

        def dfs(k: int, A: np.ndarray, b: np.ndarray, ub: float) -> None:
            if ub <= best[0]:
                return
            if k == split.shape[0] or nodes[0] >= self.max_nodes:
                best[0] = ub  # a leaf (exact) or an unexplored subtree (its bound)
                return
            i = split[k]
            for sgn in ((1.0,) if k == 0 else (1.0, -1.0)):  # s_i x_i^T theta >= L_i
                A2 = np.vstack([A, -sgn * self.X[i][None, :]]) if A.size else \
                    -sgn * self.X[i][None, :]
                b2 = np.concatenate([b, [-self.lo[i]]])
                nodes[0] += 1
                dfs(k + 1, A2, b2, bound(A2, b2))

        dfs(0, A, b, bound(A, b))
        return float(min(max(best[0], 0.0), cap))

    def certified_far(self, x: np.ndarray, nu: float) -> bool:
        """True if every ``theta in C`` has ``|x^T theta| >= nu`` (sound, see class doc)."""
        A0, b0 = self._upper_rows()
        base_A = np.vstack([self._outer_A, A0, -x[None, :], x[None, :]])
        base_b = np.concatenate([self._outer_b, b0, [0.0], [nu]])
        split = np.flatnonzero(self.lo > 0.0)
        nodes = [0]

        def dfs(k: int, A: np.ndarray, b: np.ndarray) -> bool:  # True: a feasible leaf
            nodes[0] += 1
            if nodes[0] > self.max_nodes:
                return True
            if not _feasible(A, b):
                return False
            if k == split.shape[0]:
                return True
            i = split[k]
            for sgn in (1.0, -1.0):
                row = -sgn * self.X[i][None, :]  # sgn x_i^T theta >= lo_i
                if dfs(k + 1, np.vstack([A, row]), np.concatenate([b, [-self.lo[i]]])):
                    return True
            return False

        return not dfs(0, base_A, base_b)


class _WarProbing:
    """WAR (Algorithm 2) as a step machine, shared by :func:`war_warmup` (simulation) and
    :class:`WarPolicy` (real experiment): whoever drives it does the pulls.

    ``next_stage()`` closes the previous stage (stop test, then removal, line 10) and opens
    the next one (Algorithm 3 design on ``S_set``); it returns the support arms that are
    still undecided, in index order -- each must be probed until
    :func:`bandits.logistic._kernels.probe_decision` decides (or a pull cap) and reported
    with ``record`` -- or ``None`` once probing is over. ``plan()`` is the pessimistic
    planning stage (lines 12-14) -> :class:`WarmupResult` (not sampled).
    """

    def __init__(self, X: np.ndarray, S: float, *, L: float, U: float, r: float,
                 delta: float, max_stages: int, pessimistic: str = "exact") -> None:
        S = as_norm_bound(S)
        _check_delta(delta)
        if pessimistic not in ("exact", "relaxed"):
            raise ValueError("pessimistic must be 'exact' or 'relaxed'; "
                             f"got {pessimistic!r}")
        self.pessimistic = pessimistic
        if not (0.0 < L < U and math.isfinite(U)):
            raise ValueError(f"need 0 < L < U < inf; got L={L!r}, U={U!r}")
        if not r > 1.0:
            raise ValueError(f"r must be > 1; got {r!r}")
        self.X = X
        self.K = X.shape[0]
        self.L, self.U, self.r = float(L), float(U), float(r)
        self.delta = float(delta)
        self.max_stages = int(max_stages)
        self.cs = _ConfidenceSet(X, S)
        self.decision = np.zeros(self.K, dtype=np.int64)
        self.probe_n = np.zeros(self.K, dtype=np.int64)
        self.active = np.ones(self.K, dtype=bool)
        self.stages = 0
        self.finished = False
        self._idx: np.ndarray | None = None
        self._support: np.ndarray | None = None

    def record(self, a: int, N: int, decision: int, lo: float, hi: float) -> None:
        """Arm ``a`` was probed ``N`` times and got ``decision`` with bounds ``[lo, hi]``."""
        self.probe_n[a] = N
        self.decision[a] = decision
        self.cs.update(a, lo, hi)

    def _close_stage(self) -> None:
        idx, support = self._idx, self._support
        self._idx = self._support = None
        if idx is None or support is None:
            return
        if np.all(self.decision[support] == kern.ACCEPT):
            self.finished = True
            return
        nu = self.L / self.r
        for a in idx:
            if self.cs.certified_far(self.X[a], nu):
                self.active[a] = False
        # safety: a rejected arm always satisfies the test; if nothing was removed
        # (LP search budget hit), drop the rejected support arms to guarantee progress
        rej = support[self.decision[support] == kern.REJECT]
        self.active[rej] = False

    def next_stage(self) -> np.ndarray | None:
        """Close the current stage, open the next; its arms to probe, or None when done."""
        self._close_stage()
        if self.finished or self.stages >= self.max_stages:
            self.finished = True
            return None
        idx = np.flatnonzero(self.active)
        if idx.size == 0:
            self.finished = True
            return None
        self.stages += 1
        w = two_approx_g_design(self.X[idx])
        support = idx[w > 0]
        self._idx, self._support = idx, support
        # a decided arm reuses its accept/reject result: no new samples
        return support[self.decision[support] == kern.UNDECIDED]

    def plan(self) -> WarmupResult:
        """Pessimistic planning: ``mu'^pes`` over ``C_m`` and the design ``n_x`` (not sampled)."""
        cs, X = self.cs, self.X
        exact = self.pessimistic == "exact"
        vmax = np.array([cs.max_abs(X[a], exact=exact) for a in range(self.K)])
        out = _finish("war", X, mudot(vmax), self.delta, info={
            "L": self.L, "U": self.U, "r": self.r, "stages": self.stages,
            "pessimistic": self.pessimistic, "delta": self.delta,
            "accepted": np.flatnonzero(self.decision == kern.ACCEPT),
            "rejected": np.flatnonzero(self.decision == kern.REJECT),
            "probe_counts": self.probe_n.copy(), "lower": cs.lo.copy(),
            "upper": cs.hi.copy(), "max_abs_pes": vmax})
        return WarmupResult(**{**out.__dict__, "probe_samples": int(self.probe_n.sum())})


def relaxed_plan(X: np.ndarray, S: float, war: WarmupResult) -> WarmupResult:
    """The planning stage of a finished WAR run recomputed with ``pessimistic="relaxed"``:
    the same probing bounds ``info["lower"], info["upper"]``, lower bounds dropped."""
    cs = _ConfidenceSet(X, S)
    cs.lo[:] = war.info["lower"]
    cs.hi[:] = war.info["upper"]
    vmax = np.array([cs.max_abs(x, exact=False) for x in X])
    return _finish("war", X, mudot(vmax), war.info.get("delta", DELTA))


def war_warmup(X: object, S: float, theta: object, *, L: float = 1.0, U: float = 2.0,
               r: float = 2.0, delta: float = DELTA, seed: int = 0,
               max_pulls_per_arm: int = 10**7, max_stages: int = 100,
               pessimistic: str = "exact") -> WarmupResult:
    r"""WAR, "Warmup by Accepts and Rejects" (the paper, Algorithm 2).

    *Optimistic probing.* ``S_set <- X``; at stage ``m``: a 2-approximate G-optimal design
    on ``S_set`` (Algorithm 3, :func:`two_approx_g_design`); pull every support arm not yet
    decided until ``Accept = {U_x < U}`` or ``Reject = {L_x > L}`` with anytime
    empirical-Bernstein bounds (:func:`bandits.logistic._kernels.bernstein_bounds`, union
    bound ``delta_N = delta / (|X| N (N+1))``); a decided arm is never pulled again. Stop
    when the whole support is accepted (or ``S_set`` is empty); otherwise remove from
    ``S_set`` the arms with ``mu'^opt_m(x) <= mu'(L/r)``, i.e. certified
    ``min_{theta in C_m} |x^T theta| >= L/r`` (line 10).

    *Pessimistic planning.* ``mu'^pes(x) = mu'(max_{theta in C_m} |x^T theta|)`` over all
    arms (``pessimistic="exact"``: over ``C_m`` with its lower bounds, by branch and bound
    over sign patterns; ``"relaxed"``: lower bounds dropped, see :class:`_ConfidenceSet`),
    then the
    design of :func:`g_design` with these variances (line 13; we use the certified
    minimax solver instead of Frank–Wolfe with ``2/(k+2)`` steps, App. E.1) and
    ``n_x = ceil(lambda_x gamma g^WAR)`` pulls (line 14), and the MLE of those pulls only.

    Parameters
    ----------
    X : array_like, shape (K, d)
        Arms in the unit ball.
    S : float
        Known bound on ``||theta*||``.
    theta : array_like, shape (d,)
        The true ``theta*`` -- used *only* to simulate the Bernoulli pulls.
    L, U, r : float
        WAR's thresholds (not given in the paper; defaults ``L = 1, U = 2, r = 2`` are the
        values of its 1-d intuition, Sec. 3; Theorem 5 needs ``U <= 2.399``).
    delta : float
        Confidence (default 0.05).
    seed : int
        Seeds the reward streams (probing: stream 1, planning: stream 2).
    pessimistic : {"exact", "relaxed"}
        How ``max_{theta in C_m} |x^T theta|`` is computed: over ``C_m`` as the paper
        defines it (default), or over the convex relaxation without the lower bounds
        ``|x_i^T theta| >= L_i`` (a looser, still valid, pessimistic variance; at ``S = 2``
        in Table 1 it leaves WAR at the naive count).

    Returns
    -------
    WarmupResult
        ``probe_samples`` counts the probing pulls; ``info`` has ``L, U, r``, ``stages``,
        ``accepted``, ``rejected``, ``probe_counts``, ``lower``/``upper`` (the bounds
        ``L_x, U_x``).
    """
    Xa = as_logistic_arms(X)
    th = as_theta(theta, Xa.shape[1])
    war = _WarProbing(Xa, S, L=L, U=U, r=r, delta=delta, max_stages=max_stages,
                      pessimistic=pessimistic)
    p = mu(Xa @ th)
    state = _rng.make_state(seed, 1)
    while (todo := war.next_stage()) is not None:
        for a in todo:
            N, _, dec, lo, hi = kern.probe_arm(float(p[a]), war.K, war.delta, war.L, war.U,
                                               state, max_pulls_per_arm)
            war.record(int(a), N, dec, lo, hi)
    return war.plan()


def run_warmup(method: str, instance, *, delta: float = DELTA, seed: int = 0,
               sample: bool = True, **options: object) -> WarmupResult:
    """Run a warm-up on a :class:`bandits.logistic.LogisticInstance` and (``sample=True``)
    draw its planning pulls and fit the MLE (Appendix F fallback if it does not exist)."""
    X, S, th = instance.X, instance.S, instance.theta
    if method == "naive":
        res = naive_warmup(X, S, delta=delta)
    elif method == "oracle":
        res = oracle_warmup(X, th, delta=delta)
    elif method == "war":
        res = war_warmup(X, S, th, delta=delta, seed=seed, **options)  # type: ignore[arg-type]
    else:
        raise ValueError(f"warm-up must be 'naive', 'war' or 'oracle'; got {method!r}")
    if not sample:
        return res
    state = _rng.make_state(seed, 2)
    succ = np.zeros(X.shape[0], dtype=np.int64)
    kern.draw_counts(res.counts, mu(X @ th), state, succ)
    return _fit_warmup(res, X, succ)


def _fit_warmup(res: WarmupResult, X: np.ndarray, succ: np.ndarray) -> WarmupResult:
    """The warm-up's MLE of its planning pulls ``res.counts`` with ``succ`` successes."""
    fit = mle(X, res.counts, succ)
    info = {**res.info, "mle_exists": fit.exists, "mle_method": fit.method}
    return WarmupResult(**{**res.__dict__, "theta_hat": fit.theta, "info": info})


def interleaved_order(counts: np.ndarray) -> list[int]:
    """The pulls of an allocation in a deterministic interleaved order (ask/tell policies):
    arm ``a``'s ``j``-th pull at position ``(j + 1/2) / n_a``, ties by arm index."""
    pos = [((j + 0.5) / int(c), a) for a, c in enumerate(counts) for j in range(int(c))]
    pos.sort()
    return [a for _, a in pos]


def check_told(pending: int | None, arm: object, reward: object) -> int:
    """Validate a ``tell(arm, reward)`` of an ask/tell policy; returns the outcome 0 or 1."""
    if pending is None:
        raise ValueError("tell() without a pending ask(): call ask() first")
    if isinstance(arm, bool) or not isinstance(arm, (int, np.integer)) or int(arm) != pending:
        raise ValueError(f"arm {arm!r} was told but arm {pending} was asked")
    if isinstance(reward, (bool, np.bool_)):
        return int(reward)
    if not isinstance(reward, (int, float, np.integer, np.floating)) or reward not in (0, 1):
        raise ValueError(f"reward must be 0 or 1; got {reward!r}")
    return int(reward)


class WarPolicy:
    """Ask/tell WAR warm-up (Algorithm 2) for a real experiment with Bernoulli outcomes.

    >>> pol = WarPolicy(X, S=4.0)                               # doctest: +SKIP
    >>> while not pol.done:                                      # doctest: +SKIP
    ...     arm = pol.ask(); pol.tell(arm, outcome(arm))         # outcome in {0, 1}
    >>> pol.result.theta_hat, pol.recommendation                 # doctest: +SKIP

    Runs the same step machine as :func:`war_warmup` (``_WarProbing``) with the same
    stopping rule (:func:`bandits.logistic._kernels.probe_decision`). ``phase`` is
    ``"probing"`` (each undecided support arm of a stage is asked until it is accepted or
    rejected, arms in index order), then ``"planning"``: :attr:`plan` (a
    :class:`WarmupResult`, its ``counts`` = :attr:`allocation`) is the planned warm-up,
    whose pulls are asked in :func:`interleaved_order`; after the last one the policy is
    ``done`` (``stopped_by = "rule"``), :attr:`result` is the plan with the MLE of the
    planning pulls (``theta_hat``, as :func:`run_warmup`) and :attr:`recommendation` the
    arm maximising ``x^T theta_hat``. Fed the outcomes the simulation draws, it makes the
    decisions of :func:`run_warmup` ``("war", ...)``. ``seed`` does not influence any
    decision (WAR is deterministic given the outcomes); it is kept for symmetry with
    :func:`war_warmup` and recorded in ``result.info["seed"]``.
    """

    def __init__(self, X: object, S: float, *, delta: float = DELTA, L: float = 1.0,
                 U: float = 2.0, r: float = 2.0, seed: int = 0,
                 max_pulls_per_arm: int = 10**7, max_stages: int = 100,
                 pessimistic: str = "exact") -> None:
        self.X = as_logistic_arms(X)
        self._war = _WarProbing(self.X, S, L=L, U=U, r=r, delta=delta,
                                max_stages=max_stages, pessimistic=pessimistic)
        self.seed = check_seed(seed)
        self.max_pulls_per_arm = int(max_pulls_per_arm)
        K = self.X.shape[0]
        self._counts = np.zeros(K, dtype=np.int64)
        self._succ = np.zeros(K, dtype=np.int64)  # planning successes only
        self._todo: list[int] = []
        self._n = self._s = 0  # pulls/successes of the arm being probed
        self._queue: list[int] = []
        self._i = 0
        self._pending: int | None = None
        self.phase = "probing"
        self.plan: WarmupResult | None = None
        self.result: WarmupResult | None = None
        self.done = False
        self.stopped_by: str | None = None
        self._next_probe()

    def _next_probe(self) -> None:
        while not self._todo:
            todo = self._war.next_stage()
            if todo is None:
                self._start_planning()
                return
            self._todo = [int(a) for a in todo]
        self._n = self._s = 0

    def _start_planning(self) -> None:
        self.phase = "planning"
        self.plan = self._war.plan()
        self._queue = interleaved_order(self.plan.counts)
        self._i = 0

    @property
    def samples(self) -> int:
        """Number of outcomes told so far (probing and planning)."""
        return int(self._counts.sum())

    @property
    def counts(self) -> np.ndarray:
        """Pulls per arm so far (probing and planning)."""
        return self._counts.copy()

    @property
    def allocation(self) -> np.ndarray | None:
        """The planned warm-up pulls per arm (None while probing)."""
        return None if self.plan is None else self.plan.counts.copy()

    @property
    def stages(self) -> int:
        """Probing stages opened so far."""
        return self._war.stages

    @property
    def recommendation(self) -> int | None:
        """Estimated best arm ``argmax_a x_a^T theta_hat`` (None until done)."""
        if self.result is None:
            return None
        return int(np.argmax(self.X @ self.result.theta_hat))

    def ask(self) -> int:
        """The next arm to pull. Raises RuntimeError once the warm-up is done."""
        if self.done:
            raise RuntimeError("the WAR warm-up is done; read policy.result / "
                               "policy.recommendation")
        if self._pending is None:
            self._pending = self._todo[0] if self.phase == "probing" else self._queue[self._i]
        return self._pending

    def tell(self, arm: int, reward: float) -> None:
        """Report the Bernoulli outcome (0 or 1) of the arm returned by :meth:`ask`."""
        y = check_told(self._pending, arm, reward)
        a = int(arm)
        self._pending = None
        self._counts[a] += 1
        if self.phase == "probing":
            self._n += 1
            self._s += y
            war = self._war
            dec, lo, hi = kern.probe_decision(self._n, self._s, war.K, war.delta, war.L,
                                              war.U)
            if dec != kern.UNDECIDED or self._n >= self.max_pulls_per_arm:
                war.record(a, self._n, dec, lo, hi)
                self._todo.pop(0)
                self._next_probe()
            return
        self._succ[a] += y
        self._i += 1
        if self._i == len(self._queue):
            assert self.plan is not None
            res = _fit_warmup(self.plan, self.X, self._succ)
            self.result = WarmupResult(**{**res.__dict__,
                                          "info": {**res.info, "seed": self.seed}})
            self.phase = "done"
            self.done = True
            self.stopped_by = "rule"


def run_war(instance, *, delta: float = DELTA, seed: int = 0, max_samples: int = 10**7,
            **options: object):
    """Simulate WAR alone (the ``"war"`` algorithm of :func:`bandits.run`): probing, then
    the planned allocation, then ``argmax x^T theta_hat`` for the MLE of its pulls.

    Within ``max_samples`` the run stops by its rule (``stopped_by="rule"``). When WAR
    needs more pulls than that, the ask/tell :class:`WarPolicy` is fed the outcomes the
    simulation draws (probing: stream 1 in pull order, as :func:`war_warmup`; planning:
    stream 2 arm by arm, as :func:`run_warmup`) and stopped after ``max_samples`` pulls; the
    recommendation is then ``argmax x^T theta_hat`` for the MLE of every pull made
    (Appendix F fallback; the pulled arm with the best success rate when no MLE exists), an
    uncertified estimate (``stopped_by="budget"``). Options: those of :func:`war_warmup`.

    Returns
    -------
    bandits.RunResult
    """
    import time

    from bandits._core.exact import correct_set, exact_means
    from bandits._core.result import RunResult

    t0 = time.perf_counter()
    wu = run_warmup("war", instance, delta=delta, seed=seed, **options)
    mu_exact = exact_means(instance)
    if wu.total + wu.probe_samples > max_samples:
        return _war_cut(instance, delta=delta, seed=seed, max_samples=max_samples, t0=t0,
                        mu_exact=mu_exact, **options)
    rec = np.array([int(np.argmax(instance.X @ wu.theta_hat))])
    return RunResult(algorithm="war", instance=getattr(instance, "name", "logistic"),
                     seed=int(seed), samples=wu.total + wu.probe_samples, recommendation=rec,
                     correct=correct_set(mu_exact, rec, 1, 0.0),
                     counts=wu.counts + wu.info["probe_counts"], stopped_by="rule",
                     wall_time=time.perf_counter() - t0,
                     extra={"warmup": wu, "theta_hat": wu.theta_hat})


def _war_cut(instance, *, delta: float, seed: int, max_samples: int, t0: float, mu_exact,
             **options: object):
    """A WAR run cut by ``max_samples`` (see :func:`run_war`)."""
    import time

    from bandits._core.exact import correct_set
    from bandits._core.result import RunResult
    from bandits.logistic.core import mle, mu

    X = instance.X
    p = mu(X @ instance.theta)
    pol = WarPolicy(X, instance.S, delta=delta, seed=seed, **options)  # type: ignore[arg-type]
    probe_state = _rng.make_state(int(seed), 1)
    plan_state = _rng.make_state(int(seed), 2)
    planned: list[list[int]] | None = None
    used = np.zeros(X.shape[0], dtype=np.int64)
    succ = np.zeros(X.shape[0], dtype=np.int64)
    while pol.samples < max_samples and not pol.done:
        a = pol.ask()
        if pol.phase == "probing":
            y = int(_rng.uniform(probe_state) < p[a])
        else:
            if planned is None:
                assert pol.plan is not None
                planned = [[int(_rng.uniform(plan_state) < p[b]) for _ in range(int(n))]
                           for b, n in enumerate(pol.plan.counts)]
            y = planned[a][used[a]]
            used[a] += 1
        succ[a] += y
        pol.tell(a, y)
    counts = pol.counts
    try:
        theta_hat = mle(X, counts, succ).theta
        rec = np.array([int(np.argmax(X @ theta_hat))])
    except ValueError:  # too few pulls for any MLE: best empirical success rate
        theta_hat = None
        rate = np.where(counts > 0, succ / np.maximum(counts, 1), -np.inf)
        rec = np.array([int(np.argmax(rate))])
    return RunResult(algorithm="war", instance=getattr(instance, "name", "logistic"),
                     seed=int(seed), samples=pol.samples, recommendation=rec,
                     correct=correct_set(mu_exact, rec, 1, 0.0), counts=counts,
                     stopped_by="budget", wall_time=time.perf_counter() - t0,
                     extra={"theta_hat": theta_hat})
