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
from bandits._core.protocol import ArmQueue, AskTellProtocol, Estimate
from bandits._core.validate import SIMULATIONS as _SIMULATIONS
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
from rounding.validation import check_budget, check_seed

__all__ = [
    "SIMULATIONS",
    "WarPolicy",
    "WarmupResult",
    "check_outcome",
    "g_design",
    "interleaved_order",
    "naive_warmup",
    "oracle_warmup",
    "prefix_counts",
    "run_warmup",
    "relaxed_plan",
    "sample_warmup",
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


#: Largest planned warm-up (pulls) that :func:`_finish` turns into int64 counts; a larger
#: plan is refused instead of overflowing the cast (which silently gave negative counts).
MAX_PLANNED_PULLS = 2.0 ** 62

#: What sets the warm-up's variances ``v`` of each method (named in its errors).
_VARIANCE_SOURCE = {"naive": "S (the variances are mu'(||x|| S))",
                    "oracle": "theta (the variances are mu'(x^T theta))",
                    "war": "S (the pessimistic variances mu' over the confidence set, |x^T theta| "
                           "<= ||x|| S)"}
#: The remedy named by both refusals of :func:`_finish`.
_MODERATE_THETA = ("the logistic warm-ups need moderate ||theta|| (mu'(S) >= e^-S / 4): use "
                   "coded (centred, scaled) features, which keep ||theta|| small")


def _finish(method: str, X: np.ndarray, v: np.ndarray, delta: float, **extra) -> WarmupResult:
    source = _VARIANCE_SOURCE[method]
    informative = v > 0.0
    if not informative.any() or np.linalg.matrix_rank(X[informative]) < X.shape[1]:
        raise ValueError(
            f"{source}: the {method} warm-up's variances mu' underflow to 0 in float64 for "
            f"{int(np.sum(~informative))} of {v.size} arms and the others do not span R^d, "
            f"so it would need infinitely many pulls; {_MODERATE_THETA}")
    res = g_design(X, v)
    gam = gamma(X.shape[1], X.shape[0], delta)
    total = res.value * gam
    if not total <= MAX_PLANNED_PULLS:
        raise ValueError(
            f"{source}: the {method} warm-up plans {total:.3g} pulls (g = {res.value:.3g}, "
            f"gamma = {gam:.3g}, min mu' = {v.min():.3g}), more than "
            f"{MAX_PLANNED_PULLS:.3g}: no experiment can run it; {_MODERATE_THETA}")
    w = res.weights
    counts = np.ceil(w * res.value * gam - 1e-9).astype(np.int64)
    info = {"design_gap": res.gap, **extra.pop("info", {})}
    return WarmupResult(method=method, weights=w, g=float(res.value), gamma=gam, counts=counts,
                        total_continuous=float(total), surrogate=v, info=info, **extra)


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
        #: ``[arm, N]`` per probed arm, in probing order (a horizon cut takes a prefix).
        self.sequence: list[list[int]] = []
        self.active = np.ones(self.K, dtype=bool)
        self.stages = 0
        self.finished = False
        self._idx: np.ndarray | None = None
        self._support: np.ndarray | None = None

    def record(self, a: int, N: int, decision: int, lo: float, hi: float) -> None:
        """Arm ``a`` was probed ``N`` times and got ``decision`` with bounds ``[lo, hi]``."""
        self.probe_n[a] = N
        self.sequence.append([int(a), int(N)])
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
            "probe_counts": self.probe_n.copy(), "probe_sequence": list(self.sequence),
            "lower": cs.lo.copy(),
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
    return _probe(war, mu(Xa @ th), _rng.make_state(seed, 1), max_pulls_per_arm)


def _probe(war: _WarProbing, p: np.ndarray, state: np.ndarray, max_pulls: int
           ) -> WarmupResult:
    """WAR's optimistic probing simulated pull by pull from ``state`` (each probed arm until
    :func:`bandits.logistic._kernels.probe_decision` decides, by
    :func:`bandits.logistic._kernels.probe_arm`), then the planning stage (not sampled)."""
    while (todo := war.next_stage()) is not None:
        for a in todo:
            N, _, dec, lo, hi = kern.probe_arm(float(p[a]), war.K, war.delta, war.L, war.U,
                                               state, max_pulls)
            war.record(int(a), N, dec, lo, hi)
    return war.plan()


#: How a simulation draws the outcomes of a fixed design (warm-up plan, HOMER phase): the
#: toolkit's one set of simulation modes (``bandits._core.validate.SIMULATIONS``).
SIMULATIONS = _SIMULATIONS


def check_simulation(simulation: object) -> str:
    """``simulation`` must be one of :data:`SIMULATIONS`."""
    if simulation not in SIMULATIONS:
        raise ValueError(f"simulation must be one of {list(SIMULATIONS)}; got {simulation!r}")
    return str(simulation)


def run_warmup(method: str, instance, *, delta: float = DELTA, seed: int = 0,
               sample: bool = True, simulation: str = "sufficient",
               state: np.ndarray | None = None, **options: object) -> WarmupResult:
    """Run a warm-up on a :class:`bandits.logistic.LogisticInstance` and (``sample=True``)
    draw its planning pulls and fit the MLE (Appendix F fallback if it does not exist).

    ``simulation="sufficient"`` (default) draws each arm's planned successes at once,
    ``Binomial(n_a, p_a)`` on stream 2 (WAR's probing is sequential: one draw per pull on
    stream 1); ``"per-sample"`` (the reference) draws every pull, probing and planning, in
    the ask/tell order (:func:`interleaved_order` for the plan) from the environment's
    stream 1 -- ``state`` if given (HOMER continues it into its phases) -- so that
    :class:`WarPolicy` / :class:`bandits.logistic.HomerPolicy` fed
    :func:`bandits.reward_oracle` replay it. The MLE uses only ``(n_a, s_a)``, so both modes
    give the same distribution of the result.
    """
    check_simulation(simulation)
    X, S, th = instance.X, instance.S, instance.theta
    per_sample = simulation == "per-sample"
    env = (state if state is not None else _rng.make_state(seed, 1)) if per_sample else None
    if method == "naive":
        res = naive_warmup(X, S, delta=delta)
    elif method == "oracle":
        res = oracle_warmup(X, th, delta=delta)
    elif method == "war":
        if per_sample:
            opts = dict(options)
            max_pulls = int(opts.pop("max_pulls_per_arm", 10**7))  # type: ignore[call-overload]
            war = _WarProbing(as_logistic_arms(X), S, delta=delta, **{  # type: ignore[arg-type]
                "L": 1.0, "U": 2.0, "r": 2.0, "max_stages": 100, **opts})
            res = _probe(war, mu(X @ th), env, max_pulls)  # type: ignore[arg-type]
        else:
            res = war_warmup(X, S, th, delta=delta, seed=seed, **options)  # type: ignore[arg-type]
    else:
        raise ValueError(f"warm-up must be 'naive', 'war' or 'oracle'; got {method!r}")
    if not sample:
        return res
    return sample_warmup(res, instance, seed=seed, simulation=simulation, state=env)


def sample_warmup(res: WarmupResult, instance, *, seed: int, simulation: str,
                  state: np.ndarray | None = None) -> WarmupResult:
    """Draw the planned pulls of a warm-up ``res`` (see :func:`run_warmup` for the modes;
    ``state``: the environment's stream of a per-sample run) and fit their MLE."""
    X = instance.X
    st = kern.new_design_stats(X.shape[0])
    p = mu(X @ instance.theta)
    if check_simulation(simulation) == "per-sample":
        env = state if state is not None else _rng.make_state(seed, 1)
        kern.design_play(interleaved_order(res.counts), p, env, st)
    else:
        kern.design_draw(res.counts, p, _rng.make_state(seed, 2), st)
    return _fit_warmup(res, X, st)


def _fit_warmup(res: WarmupResult, X: np.ndarray, st: kern.DesignStats) -> WarmupResult:
    """The warm-up's MLE of its planning pulls (``st``: per-arm pulls and successes)."""
    fit = mle(X, st.n, st.s)
    info = {**res.info, "mle_exists": fit.exists, "mle_method": fit.method}
    return WarmupResult(**{**res.__dict__, "theta_hat": fit.theta, "info": info})


def interleaved_order(counts: np.ndarray) -> np.ndarray:
    """The pulls of an allocation in a deterministic interleaved order (ask/tell policies):
    arm ``a``'s ``j``-th pull at position ``(j + 1/2) / n_a``, ties by arm index (int64
    array; :func:`bandits.logistic._kernels.interleaved_prefix` counts a prefix of it
    without listing it)."""
    c = np.asarray(counts, dtype=np.int64).ravel()
    arms = np.repeat(np.arange(c.shape[0], dtype=np.int64), c)
    starts = np.repeat(np.cumsum(c) - c, c)
    pos = (np.arange(arms.shape[0], dtype=np.int64) - starts + 0.5) / c[arms]
    return arms[np.lexsort((arms, pos))]


def _below(n: np.ndarray, tau: float, strict: bool) -> np.ndarray:
    """``#{j < n_a: (j + 1/2) / n_a < tau}`` per arm (``<=`` when not ``strict``), by the
    float test itself (the estimate ``ceil(tau n - 1/2)`` corrected by at most a step)."""
    j = np.clip(np.ceil(tau * n - 0.5), 0, n).astype(np.int64)
    before = (lambda k: (k - 0.5) / n >= tau) if strict else (lambda k: (k - 0.5) / n > tau)
    inside = (lambda k: (k + 0.5) / n < tau) if strict else (lambda k: (k + 0.5) / n <= tau)
    while np.any(down := (j > 0) & before(j)):
        j -= down
    while np.any(up := (j < n) & inside(j)):
        j += up
    return j


def prefix_counts(counts: np.ndarray, use: int) -> np.ndarray:
    """Pulls per arm among the first ``use`` of :func:`interleaved_order`, without listing
    them: the ``use``-th position ``v`` by bisection over the bit patterns of the float
    positions (ordered as the floats, for positive ones; 64 steps of ``O(K)``), then every
    pull before ``v`` and, at ``v``, the ties by arm index."""
    c = np.asarray(counts, dtype=np.int64)
    if use >= int(c.sum()):
        return c.copy()
    out = np.zeros(c.shape[0], dtype=np.int64)
    if use <= 0:
        return out
    pulled = c > 0
    n = c[pulled]
    lo, hi = np.float64(0.0).view(np.int64), np.float64(1.0).view(np.int64)
    while hi - lo > 1:  # the smallest position v with #{positions <= v} >= use
        mid = lo + (hi - lo) // 2
        if int(_below(n, float(np.int64(mid).view(np.float64)), False).sum()) >= use:
            hi = mid
        else:
            lo = mid
    v = float(np.int64(hi).view(np.float64))
    below = _below(n, v, True)
    ties = np.flatnonzero(_below(n, v, False) > below)[: use - int(below.sum())]
    below[ties] += 1
    out[pulled] = below
    return out


def check_outcome(reward: object) -> int:
    """A Bernoulli outcome: 0 or 1 (bools and the floats 0.0 / 1.0 accepted), else a
    ValueError naming the reward."""
    if isinstance(reward, (bool, np.bool_)):
        return int(reward)
    if not isinstance(reward, (int, float, np.integer, np.floating)) or reward not in (0, 1):
        raise ValueError(f"reward must be 0 or 1 (a Bernoulli outcome); got {reward!r}")
    return int(reward)


def _check_outcomes(arm: object, reward: object) -> None:
    """Every reward of a ``tell``/``observe`` call is 0 or 1 (the protocol base checks the
    arms and the lengths)."""
    if isinstance(arm, (int, np.integer)) or isinstance(reward, (str, bytes)) \
            or not hasattr(reward, "__len__"):
        check_outcome(reward)
        return
    for r in reward:  # type: ignore[union-attr]
        check_outcome(r)


class BernoulliProtocol(AskTellProtocol):
    """The ask/tell protocol with Bernoulli outcomes (the logistic family): rewards are
    checked to be 0 or 1 before anything changes, and ``ask(n)`` never asks for more than
    the budget left (``_budget``: ``max_samples`` or the horizon ``T``, None for none)."""

    _budget: int | None = None

    def tell(self, arm, reward) -> None:  # noqa: D102 - documented on the base
        _check_outcomes(arm, reward)
        super().tell(arm, reward)

    def observe(self, arm, reward) -> None:  # noqa: D102 - documented on the base
        _check_outcomes(arm, reward)
        super().observe(arm, reward)

    def _ask_batch(self, n: int) -> list[int]:
        if self._budget is not None:
            n = max(0, min(n, self._budget - self._t - len(self._pending_list())))
        return super()._ask_batch(n)

    def _predict(self, arm: int) -> float | None:
        return None  # no hallucinated outcomes: look-ahead is the family's own rule

    X: np.ndarray

    @property
    def features(self) -> np.ndarray:
        return self.X

    def estimate(self) -> Estimate:
        """The logistic MLE from every outcome used so far (:func:`mle`, Appendix F's
        correction where the data are separable); ``means`` are the success probabilities
        ``mu(x_a^T theta_hat)``. NaN (``identified`` False) while the arms measured so far
        do not span ``R^d``."""
        K, d = self.X.shape
        n = np.asarray(self.counts).astype(np.int64)
        if not n.any() or np.linalg.matrix_rank(self.X[n > 0]) < d:
            return Estimate(np.full(d, np.nan), np.full(K, np.nan), False)
        successes = np.rint(self._arm_sums()).astype(np.int64)
        theta = mle(self.X, n, successes, on_separable="fallback").theta
        return Estimate(theta, mu(self.X @ theta), True)


class WarPolicy(BernoulliProtocol):
    """Ask/tell WAR warm-up (Algorithm 2) for a real experiment with Bernoulli outcomes.

    >>> pol = WarPolicy(X, S=4.0)                               # doctest: +SKIP
    >>> while not pol.done:                                      # doctest: +SKIP
    ...     arms = pol.ask(10); pol.tell(arms, outcomes(arms))   # outcomes in {0, 1}
    >>> pol.result.theta_hat, pol.recommendation                 # doctest: +SKIP

    Runs the step machine of :func:`war_warmup` (``_WarProbing``) with its stopping rule
    (:func:`bandits.logistic._kernels.probe_decision`, the kernel the simulation's
    ``probe_arm`` calls per pull). ``phase`` is ``"probing"`` (each undecided support arm
    of a stage is asked until it is accepted or rejected, arms in index order), then
    ``"planning"``: :attr:`plan` (a :class:`WarmupResult`, its ``counts`` =
    :attr:`allocation`) is the planned warm-up, whose pulls are asked in
    :func:`interleaved_order` and recorded by
    :func:`bandits.logistic._kernels.design_record`; after the last one the policy is
    ``done`` (``stopped_by = "warm-up"``: a delta-valid fit, not a certified best arm),
    :attr:`result` is the plan with the MLE of the
    planning pulls and :attr:`recommendation` the arm maximising ``x^T theta_hat``. Fed
    :func:`bandits.reward_oracle`, it replays ``run_war(..., simulation="per-sample")``.

    **Batches** (``ask(n)``): while probing, the next pull of the current arm and then the
    stage's other undecided arms, the least-asked first (the anytime empirical-Bernstein
    bounds hold at every sample size, so each arm's decision is made on its outcomes in
    the order they are told); an outcome told after its arm was decided is counted and not
    used. While planning, the next ``n`` pulls of the allocation. Nothing beyond the
    allocation can be asked before its outcomes arrive.

    **Warm start** (``observe``): while probing, a measured arm that is not decided adds
    the outcome to its probing statistics (it is decided as soon as the bounds allow, and
    probed from there if it is in a stage's support); while planning, it fills a slot of
    the allocation (an extra point of the design if the arm's slots are full). Outcomes of
    decided arms during probing are counted and not used.

    ``max_samples`` (default none) stops the policy after that many outcomes
    (``stopped_by = "budget"``, :attr:`recommendation` ``argmax x^T theta_hat`` for the
    MLE of every outcome, as :func:`run_war`). ``seed`` does not influence any decision
    (WAR is deterministic given the outcomes); it is recorded in ``result.info["seed"]``.
    """

    def __init__(self, X: object, S: float, *, delta: float = DELTA, L: float = 1.0,
                 U: float = 2.0, r: float = 2.0, seed: int = 0,
                 max_pulls_per_arm: int = 10**7, max_stages: int = 100,
                 pessimistic: str = "exact", max_samples: int | None = None) -> None:
        self.X = as_logistic_arms(X)
        self._war = _WarProbing(self.X, S, L=L, U=U, r=r, delta=delta,
                                max_stages=max_stages, pessimistic=pessimistic)
        self.seed = check_seed(seed)
        self.max_pulls_per_arm = check_budget(max_pulls_per_arm, "max_pulls_per_arm")
        self._budget = None if max_samples is None else check_budget(max_samples,
                                                                     "max_samples")
        K = self.X.shape[0]
        self._counts = np.zeros(K, dtype=np.int64)
        self._succ_all = np.zeros(K, dtype=np.int64)  # every outcome (budget estimate)
        self._probe = kern.new_design_stats(K)  # probing outcomes per undecided arm
        self._design = kern.new_design_stats(K)  # planning outcomes
        self._todo: list[int] = []
        self._queue = ArmQueue()
        self.phase = "probing"
        self.plan: WarmupResult | None = None
        self.result: WarmupResult | None = None
        self._budget_rec: int | None = None
        self._next_stage()
        self._refill()

    # ---- probing -------------------------------------------------------------------

    def _decided(self, a: int) -> bool:
        """Apply the probing rule to arm ``a``'s statistics; True once it is decided."""
        n, succ = int(self._probe.n[a]), int(self._probe.s[a])
        if n == 0:
            return False
        war = self._war
        dec, lo, hi = kern.probe_decision(n, succ, war.K, war.delta, war.L, war.U)
        if dec == kern.UNDECIDED and n < self.max_pulls_per_arm:
            return False
        war.record(a, n, dec, lo, hi)
        self._probe.n[a] = self._probe.s[a] = 0  # a capped arm is probed afresh later
        return True

    def _next_stage(self) -> None:
        """Open stages until one has an undecided arm (arms with warm-start statistics are
        checked first), else start planning."""
        while not self._todo:
            todo = self._war.next_stage()
            if todo is None:
                self._start_planning()
                return
            self._todo = [int(a) for a in todo if not self._decided(int(a))]

    def _start_planning(self) -> None:
        self.phase = "planning"
        self.plan = self._war.plan()
        self._queue = ArmQueue(interleaved_order(self.plan.counts))

    def _probe_look_ahead(self, k: int, pending: list[int]) -> list[int]:
        """Up to ``k`` more probing pulls: the stage's undecided arms, least asked first."""
        if self.phase != "probing" or not self._todo:
            return []
        load = {a: 0 for a in self._todo}
        for a in pending:
            if a in load:
                load[a] += 1
        out = []
        for _ in range(k):
            a = min(self._todo, key=lambda b: load[b])  # first in stage order on ties
            out.append(a)
            load[a] += 1
        return out

    def _look_ahead(self, k: int) -> list[int]:
        return self._probe_look_ahead(k, [a for a, _ in self._pending_list()])

    def _refill(self) -> None:
        if self.phase == "probing":
            self._queue = ArmQueue(self._todo[:1])

    # ---- the step ------------------------------------------------------------------

    def _observe(self, arm: int, reward: float) -> None:
        a, y = int(arm), int(reward)
        self._t += 1
        self._counts[a] += 1
        self._succ_all[a] += y
        if self.phase == "probing":
            war = self._war
            if a in self._todo or (war.decision[a] == kern.UNDECIDED and war.probe_n[a] == 0):
                kern.design_record(self._probe, a, y)
                if a in self._todo and self._decided(a):
                    self._todo.remove(a)
                    self._next_stage()
            self._refill()
        elif self.phase == "planning":
            kern.design_record(self._design, a, y)
            if not self._queue and self._outstanding == 0:
                self._finish()
        if not self.done and self._budget is not None and self._t >= self._budget:
            self._stop_on_budget()

    def _finish(self) -> None:
        assert self.plan is not None
        res = _fit_warmup(self.plan, self.X, self._design)
        self.result = WarmupResult(**{**res.__dict__, "info": {**res.info, "seed": self.seed}})
        self.phase = "done"
        self.done = True
        self.stopped_by = "warm-up"
        self._queue = ArmQueue()

    def _stop_on_budget(self) -> None:
        """The budget is spent before the warm-up ends: ``argmax x^T theta_hat`` for the
        MLE of every outcome (the pulled arm with the best success rate if none exists)."""
        counts, succ = self._counts, self._succ_all
        try:
            theta_hat = mle(self.X, counts, succ).theta
            self._budget_rec = int(np.argmax(self.X @ theta_hat))
        except ValueError:
            rate = np.where(counts > 0, succ / np.maximum(counts, 1), -np.inf)
            self._budget_rec = int(np.argmax(rate))
        self.done = True
        self.stopped_by = "budget"
        self._queue = ArmQueue()

    # ---- read-outs -----------------------------------------------------------------

    @property
    def allocation(self) -> np.ndarray | None:
        """The planned warm-up pulls per arm (None while probing)."""
        return None if self.plan is None else self.plan.counts.copy()

    @property
    def stages(self) -> int:
        """Probing stages opened so far."""
        return self._war.stages

    @property
    def recommendation(self) -> np.ndarray | None:  # type: ignore[override]
        """Estimated best arm ``[argmax_a x_a^T theta_hat]`` (None until done)."""
        if self.result is not None:
            return np.array([int(np.argmax(self.X @ self.result.theta_hat))])
        if self._budget_rec is not None:
            return np.array([self._budget_rec])
        return None


def run_war(instance, *, delta: float = DELTA, seed: int = 0, max_samples: int = 10**7,
            simulation: str = "sufficient", **options: object):
    """Simulate WAR alone (the ``"war"`` algorithm of :func:`bandits.run`): probing, then
    the planned allocation, then ``argmax x^T theta_hat`` for the MLE of its pulls.

    Within ``max_samples`` the run stops by its rule (``stopped_by="warm-up"``: the fit is
    delta-valid, Mason et al. Definition 1; the recommendation is not certified).
    ``simulation``: see :func:`run_warmup` (``"per-sample"`` is the reference that
    :class:`WarPolicy` fed :func:`bandits.reward_oracle` replays). When WAR needs more
    pulls than ``max_samples``, the run is the :class:`WarPolicy` fed the per-sample
    outcomes and stopped after ``max_samples`` pulls (in both modes); the recommendation
    is then ``argmax x^T theta_hat`` for the MLE of every pull made (Appendix F fallback;
    the pulled arm with the best success rate when no MLE exists), an uncertified
    estimate (``stopped_by="budget"``). Options: those of :func:`war_warmup`.

    Returns
    -------
    bandits.RunResult
    """
    import time

    from bandits._core.exact import correct_set, exact_means
    from bandits._core.result import RunResult

    check_simulation(simulation)
    t0 = time.perf_counter()
    wu = run_warmup("war", instance, delta=delta, seed=seed, simulation=simulation, **options)
    mu_exact = exact_means(instance)
    if wu.total + wu.probe_samples > max_samples:
        pol = WarPolicy(instance.X, instance.S, delta=delta, seed=seed,
                        max_samples=max_samples, **options)  # type: ignore[arg-type]
        draw = instance.reward_oracle(seed)
        while not pol.done:
            a = pol.ask()
            pol.tell(a, draw(a))
        rec = pol.recommendation
        assert rec is not None
        return RunResult(algorithm="war", instance=getattr(instance, "name", "logistic"),
                         seed=int(seed), samples=pol.samples, recommendation=rec,
                         correct=correct_set(mu_exact, rec, 1, 0.0), counts=pol.counts,
                         stopped_by="budget", wall_time=time.perf_counter() - t0,
                         extra={"simulation": "per-sample"})
    rec = np.array([int(np.argmax(instance.X @ wu.theta_hat))])
    return RunResult(algorithm="war", instance=getattr(instance, "name", "logistic"),
                     seed=int(seed), samples=wu.total + wu.probe_samples, recommendation=rec,
                     correct=correct_set(mu_exact, rec, 1, 0.0),
                     counts=wu.counts + wu.info["probe_counts"], stopped_by="warm-up",
                     wall_time=time.perf_counter() - t0,
                     extra={"warmup": wu, "theta_hat": wu.theta_hat,
                            "simulation": simulation})
