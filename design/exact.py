"""Exact designs: ``n`` runs on the candidates, by exchange, with a certified efficiency.

An exact design puts integer counts ``n_a`` (summing to ``n``) on the candidates; its
information matrix is ``M = sum_a n_a x_a x_a^T`` (plus the information of runs already
made, ``fixed``). :func:`exact` minimises the A-, I-, D- or Ds-criterion of ``M / N``
(``N`` all runs) by exchange with rank-two updates: for D Fedorov's best-pair exchange
(Fedorov 1972) with the cross-variances kept updated, for A/I/Ds the KL exchange
(OptimalDesign's ``od_KL``; Cook & Nachtsheim 1980) ending on a full check; from several
starts: the efficient rounding (Pukelsheim & Rieder 1992) of the approximate optimum when
``n`` is at least its support size, the sequential D-greedy design (Wynn 1970), perturbed
roundings, randomised greedy and uniform random designs; then an iterated local search
(Lourenco, Martin & Stuetzle 2003) from the best design: perturbations of it exchanged
again, moved to only when better.

The approximate optimum's certified lower bound ``phi_LB <= phi*_approx <= phi*_exact``
makes ``efficiency_bound = phi_LB / phi(exact)`` a true lower bound on the exact design's
efficiency relative to the approximate optimum, and hence to the best exact design.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from design import _exact_numba as kern
from design._validation import as_arms
from design.criteria import (
    CriterionBasis,
    _as_interest,
    _i_matrix,
    _i_rows,
    a_optimal,
    criterion_basis,
    ds_optimal,
    i_optimal,
)
from design.gd import d_optimal
from design.result import DesignConvergenceWarning, DesignResult

__all__ = ["ExactDesign", "exact", "exact_value"]

_CRITERIA = ("d", "a", "i", "ds")


@dataclass(frozen=True, repr=False)
class ExactDesign:
    """An exact design of ``n`` runs with its certified efficiency.

    Attributes
    ----------
    counts : ndarray of int64, shape (K,)
        Runs per candidate (the new runs; ``fixed`` runs not included), summing to ``n``.
    n : int
        Number of new runs.
    criterion : str
        ``"D"``, ``"A"``, ``"I"`` or ``"Ds"``.
    value : float
        Criterion of ``M / N`` (all ``N`` runs, fixed ones included): ``det^{-1/d}`` for D,
        ``tr(L M^{-1}) N`` for A/I, ``det(C)^{-1/s}`` for Ds; smaller is better.
    efficiency_bound : float
        ``lower_bound / value`` with the certified lower bound of the approximate optimum: the
        efficiency of this design relative to the best approximate (hence the best exact)
        design is at least this.
    lower_bound : float
        The approximate optimum's certified lower bound.
    approximate : DesignResult
        The approximate optimal design behind the bound (and the rounding start).
    support : ndarray of int64
        Candidates with at least one new run.
    start : str
        Which start gave the returned design (``"rounding"`` or ``"largest-weights"``,
        ``"greedy"``, ``"perturbed"``, ``"random"``, ``"uniform"``; see the starts in the
        module's exchange description; when the iterated local search improved on it, the
        start it began from: the message says so).
    rounding_value : float
        Criterion of the efficient rounding of the approximate optimum (``nan`` when it was
        not a start: ``n`` below its support size, caps, or fixed runs).
    starts : int
        Number of starts tried.
    exchanges : int
        Exchanges made on the returned design's run (when the iterated local search
        improved it: D, those of the start it began from; A/I/Ds, those from the last
        perturbation it moved to).
    message : str
        What was done.
    fixed : ndarray of int64, shape (K,)
        The runs already made (``fixed``; zeros when none), which ``value`` and the
        efficiency include; the whole design is ``counts + fixed``.
    """

    counts: np.ndarray
    n: int
    criterion: str
    value: float
    efficiency_bound: float
    lower_bound: float
    approximate: DesignResult
    support: np.ndarray
    start: str
    rounding_value: float
    starts: int
    exchanges: int
    message: str
    fixed: np.ndarray

    def __repr__(self) -> str:
        items = ", ".join(f"{int(i)}: {int(self.counts[i])}" for i in self.support[:10])
        more = "" if self.support.size <= 10 else f", ... ({self.support.size - 10} more)"
        nfix = int(self.fixed.sum())
        runs = f"n={self.n}" + (f" (+{nfix} fixed runs)" if nfix else "")
        return (f"ExactDesign({self.criterion}, {runs}, value={self.value:.10g}, "
                f"efficiency >= {self.efficiency_bound:.6f}, start={self.start!r},\n"
                f"  counts ({self.support.size} candidates)={{{items}{more}}})")


def _as_count_vector(v: object, K: int, name: str) -> np.ndarray:
    try:
        arr = np.asarray(v)
    except (TypeError, ValueError) as exc:  # pragma: no cover
        raise ValueError(f"{name} must be integer counts: {exc}") from None
    if arr.ndim == 0:
        arr = np.full(K, arr)
    if arr.shape != (K,):
        raise ValueError(f"{name} must be a vector of length K={K}; got shape {arr.shape}")
    if not np.all(np.isfinite(arr.astype(float))) or np.any(arr != np.round(arr)) \
            or np.any(arr < 0):
        raise ValueError(f"{name} must be non-negative integers")
    return arr.astype(np.int64)


def exact_value(X: object, counts: object, criterion: str = "d", *, fixed: object = None,
                L: object = None, region: object = None, interest: object = None) -> float:
    """Criterion of an exact design (counts on the rows of ``X``, plus ``fixed`` runs).

    Same normalisation as :attr:`ExactDesign.value` (the information of all runs divided
    by their number); ``inf`` when the information matrix is singular.
    """
    Xa = as_arms(X)
    K, d = Xa.shape
    c = _as_count_vector(counts, K, "counts")
    crit, L_m, idx = _criterion(Xa, criterion, L, region, interest)
    _, nfix = _fixed_info(Xa, fixed)  # validates fixed
    cb = criterion_basis(Xa, crit, L_m, idx)
    return _value(cb.Q, c, _fixed_info_q(cb, fixed), nfix, crit, cb.L, cb.interest) \
        * cb.value_scale


def _criterion(Xa: np.ndarray, criterion: str, L: object, region: object, interest: object
               ) -> tuple[str, np.ndarray, np.ndarray]:
    crit = str(criterion).lower()
    d = Xa.shape[1]
    if crit not in _CRITERIA:
        raise ValueError(f"criterion must be one of {_CRITERIA}; got {criterion!r}")
    if crit != "i" and (L is not None or region is not None):
        raise ValueError("L and region are only used by criterion='i'")
    if crit != "ds" and interest is not None:
        raise ValueError("interest is only used by criterion='ds'")
    L_m = np.eye(d) if crit == "a" else (_i_matrix(Xa, L, region) if crit == "i"
                                         else np.zeros((d, d)))
    idx = np.arange(d, dtype=np.int64)
    if crit == "ds":
        if interest is None:
            raise ValueError("interest (column indices) is required for criterion='ds'")
        idx = _as_interest(interest, d)
    return crit, L_m, idx


def _fixed_info(Xa: np.ndarray, fixed: object) -> tuple[np.ndarray, int]:
    """Information matrix and number of the runs already made."""
    K, d = Xa.shape
    if fixed is None:
        return np.zeros((d, d)), 0
    arr = np.asarray(fixed)
    if arr.ndim == 2:
        rows = as_arms(arr, "fixed", need_span=False)
        if rows.shape[1] != d:
            raise ValueError(f"fixed has {rows.shape[1]} columns but the candidates have d={d}")
        return rows.T @ rows, rows.shape[0]
    c = _as_count_vector(arr, K, "fixed")
    return (Xa * c[:, None]).T @ Xa, int(c.sum())


def _fixed_info_q(cb: CriterionBasis, fixed: object) -> np.ndarray:
    """Information of the runs already made, formed in the basis ``Q`` (rows carried over
    by ``R^{-1}``; counts on the candidates' ``q_a``), never as ``R^{-T} X^T C X R^{-1}``."""
    d = cb.Q.shape[1]
    if fixed is None:
        return np.zeros((d, d))
    arr = np.asarray(fixed)
    if arr.ndim == 2:
        rows = cb.rows(np.asarray(arr, dtype=np.float64))
        return rows.T @ rows
    c = _as_count_vector(arr, cb.Q.shape[0], "fixed")
    return (cb.Q * c[:, None]).T @ cb.Q


def _fixed_counts(Xa: np.ndarray, fixed: object) -> np.ndarray:
    if fixed is None or np.asarray(fixed).ndim == 2:
        return np.zeros(Xa.shape[0], dtype=np.int64)
    return _as_count_vector(fixed, Xa.shape[0], "fixed")


def _info(X: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """``sum_a n_a x_a x_a^T`` over the support (``O(S d^2)``, not ``O(K d^2)``)."""
    sup = np.flatnonzero(counts)
    Xs = X[sup]
    return (Xs * counts[sup, None]).T @ Xs


def _logdet(Xq: np.ndarray, counts: np.ndarray, Mq: np.ndarray) -> float:
    """``log det M`` of the design's information matrix (``-inf`` when it is not PD), by
    Cholesky over its support."""
    try:
        C = np.linalg.cholesky(_info(Xq, counts) + Mq)
    except np.linalg.LinAlgError:
        return -np.inf
    return float(2.0 * np.log(np.diag(C)).sum())


def _value(Xa: np.ndarray, counts: np.ndarray, Mfix: np.ndarray, nfix: int, crit: str,
           L: np.ndarray, idx: np.ndarray) -> float:
    N = int(counts.sum()) + nfix
    M = (_info(Xa, counts) + Mfix) / N
    try:
        C = np.linalg.cholesky(M)
    except np.linalg.LinAlgError:
        return float("inf")
    d = M.shape[0]
    # numerically singular (a pivot at rounding level; on Q the scale of M is ~1): no value
    if float(np.min(np.diag(C))) ** 2 <= 1e3 * d * np.finfo(np.float64).eps * float(
            np.max(np.diag(M))):
        return float("inf")
    if crit == "d":
        return float(np.exp(-2.0 * np.log(np.diag(C)).sum() / d))
    Ci = np.linalg.inv(C)
    Minv = Ci.T @ Ci
    if crit in ("a", "i"):
        return float(np.einsum("ij,ji->", L, Minv))
    Vs = Minv[np.ix_(idx, idx)]
    sign, logdet = np.linalg.slogdet(Vs)
    return float(np.exp(logdet / idx.size)) if sign > 0 else float("inf")


def _a_value_x(cb: CriterionBasis, counts: np.ndarray, Mq: np.ndarray, nfix: int) -> float:
    """``tr((M_X / N)^{-1})`` on the original columns, from ``M_X = R^T M_Q R``:
    ``tr(R^{-1} (M_Q / N)^{-1} R^{-T})``; 0 when not needed (``cb.L_error == 0``)."""
    if cb.L_error == 0.0:
        return 0.0
    from scipy.linalg import solve_triangular

    N = int(counts.sum()) + nfix
    M = (_info(cb.Q, counts) + Mq) / N
    C = np.linalg.cholesky(M)
    # (M_Q/N)^{-1} = C^{-T} C^{-1}; tr(R^{-1} C^{-T} C^{-1} R^{-T}) = ||C^{-1} R^{-T}||_F^2
    T = solve_triangular(C, solve_triangular(cb.basis.R, np.eye(M.shape[0]), trans="T",
                                             check_finite=False), lower=True,
                         check_finite=False)
    return float(np.sum(T * T))


def _info_error(Xq: np.ndarray, counts: np.ndarray, Mq: np.ndarray) -> float:
    """``d u cond(M)`` (``u = eps / 2``) for the information ``M`` of the counts on ``Q``:
    the relative error of its Cholesky-based criterion values."""
    M = _info(Xq, counts) + Mq
    ev = np.linalg.eigvalsh(M)
    if not ev[0] > 0.0:
        return np.inf
    return float(M.shape[0] * np.finfo(np.float64).eps / 2.0 * ev[-1] / ev[0])


def _as_costs(costs: object, budget: object, K: int, n: int, cap: np.ndarray
              ) -> tuple[np.ndarray, float]:
    """``(costs, budget for the kernel)``: zeros and ``inf`` without a constraint. The
    kernel's budget is lowered by a few ulps of the largest total so that its running sums
    can never pass a total that the exactly rounded check would refuse."""
    if (costs is None) != (budget is None):
        raise ValueError("costs and budget go together (sum_a costs_a n_a <= budget)")
    if costs is None:
        return np.zeros(K), np.inf
    c = np.asarray(costs, dtype=np.float64)
    if c.shape != (K,):
        raise ValueError(f"costs must be a vector of length K={K}; got shape {c.shape}")
    if not np.all(np.isfinite(c)) or np.any(c <= 0.0):
        raise ValueError("costs must be positive and finite")
    b = float(budget)
    if not np.isfinite(b) or b <= 0.0:
        raise ValueError(f"budget must be positive and finite; got {budget!r}")
    # the cheapest n runs within the caps
    order = np.argsort(c)
    take = np.minimum(cap[order], n)
    fill = np.minimum(np.cumsum(take), n)
    per = np.diff(np.r_[0, fill])
    if int(per.sum()) < n or math.fsum(c[order] * per) > b:
        cheapest = math.fsum(c[order] * per)
        raise ValueError(f"budget={b:g} is infeasible: the {n} cheapest allowed runs cost "
                         f"{cheapest:g}")
    return np.ascontiguousarray(c), b - 4.0 * K * np.finfo(np.float64).eps * float(c.max()) * n


def _within(costs: np.ndarray, counts: np.ndarray, budget: float) -> bool:
    """``sum_a c_a n_a <= budget`` in exact rational arithmetic (over the support)."""
    from fractions import Fraction

    sup = np.flatnonzero(counts)
    total = sum((Fraction(float(costs[a])) * int(counts[a]) for a in sup), Fraction(0))
    return total <= Fraction(float(budget))


def _approximate(Xa: np.ndarray, crit: str, L: object, region: object, interest: object,
                 tol: float) -> DesignResult:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DesignConvergenceWarning)
        if crit == "d":
            return d_optimal(Xa, tol=tol)
        if crit == "a":
            return a_optimal(Xa, tol=tol)
        if crit == "i":
            return i_optimal(Xa, L=L, region=region, tol=tol)
        return ds_optimal(Xa, interest, tol=tol)


def _n_top(d: int, K: int) -> int:
    """Candidates of the KL step (the ``L`` of od_KL): those of largest variance or
    directional derivative."""
    return min(K, max(2 * d, 20))


def _cheapest_spanning(Xq: np.ndarray, n: int, cap: np.ndarray, cost_v: np.ndarray,
                       Mq: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The cheapest design of ``n`` runs within the caps whose information matrix (with the
    fixed runs' ``Mq``) is invertible: ``(basis, design)`` run counts, or None when no such
    design exists (the allowed candidates and the fixed runs do not span R^d, or need more
    than ``n`` runs to).

    ``basis``: the candidates taken by increasing cost whenever they add a direction not yet
    spanned by ``Mq`` and the candidates taken before (the greedy minimum-cost basis of the
    linear matroid, optimal by Rado-Edmonds); ``design``: the basis plus the ``n - r``
    cheapest runs still within the caps. A budget below that design's cost is infeasible for
    every nonsingular design, so it is both a start that fits any feasible budget and the
    measure of an infeasible one.
    """
    K, d = Xq.shape
    ev, V = np.linalg.eigh(Mq)
    tol = 1e-9
    span = V[:, ev > tol * max(float(ev.max()), 1.0)] if ev.size else V[:, :0]
    basis = np.zeros(K, dtype=np.int64)
    for a in np.argsort(cost_v, kind="stable"):
        if span.shape[1] == d:
            break
        if cap[a] < 1:
            continue
        x = Xq[a]
        r = x - span @ (span.T @ x)
        r -= span @ (span.T @ r)  # reorthogonalised: the rank test sees no drift
        nr = float(np.linalg.norm(r))
        if nr > tol * max(float(np.linalg.norm(x)), 1e-300):
            span = np.c_[span, r / nr]
            basis[a] = 1
    if span.shape[1] < d or int(basis.sum()) > n:
        return None
    design = basis.copy()
    left = n - int(basis.sum())
    for a in np.argsort(cost_v, kind="stable"):
        if left == 0:
            break
        add = int(min(cap[a] - design[a], left))
        if add > 0:
            design[a] += add
            left -= add
    return (basis, design) if left == 0 else None


def _no_start_error(Xq: np.ndarray, n: int, cap: np.ndarray, cost_v: np.ndarray,
                    Mq: np.ndarray, budget: float | None) -> ValueError:
    """Why no exact design was found, from the cheapest nonsingular design
    (:func:`_cheapest_spanning`): none exists within the caps, or it costs more than the
    budget; otherwise every start ended singular in the exchange (a numerically singular
    problem)."""
    cheap = _cheapest_spanning(Xq, n, cap, cost_v, Mq)
    if cheap is None:
        return ValueError(f"no exact design of n={n} runs has an invertible information "
                          "matrix within the caps/bin and the fixed runs: the allowed "
                          "candidates do not span R^d with that many runs")
    if budget is not None and not _within(cost_v, cheap[1], budget):
        cost = math.fsum(cost_v * cheap[1])
        return ValueError(f"budget={budget:g} is infeasible for a design with an invertible "
                          f"information matrix: the cheapest such design of n={n} runs "
                          f"costs {cost:g}")
    return ValueError(f"no exact design of n={n} runs with a numerically invertible "
                      "information matrix was found from any start (the candidates are "
                      "nearly dependent at float64 precision)")


MANY_RUNS = 100
"""With more than ``MANY_RUNS d`` runs (``d`` parameters) and no constraints, the exchange
starts from the efficient rounding of the approximate optimum only. The other starts cost
time proportional to ``n`` (the greedy ones add runs one by one, a uniform start needs
about ``n`` exchanges to reach a local optimum): on the 27-candidate, 10-parameter
quadratic, ``exact(X, n)`` took 0.36 s at ``n = 10^4``, 19 s at ``3 10^5`` and would
take minutes at ``10^7``; from the rounding alone it takes 2 ms at any ``n``, with a
D-efficiency bound lower by 2.5e-8 at ``n = 10^4`` (A: 5e-9; at ``n = 1000``, where all
starts are still made, the rounding alone would lose 7e-6 for A)."""


def _make_starts(Xq: np.ndarray, n: int, w: np.ndarray, cap: np.ndarray, Mq: np.ndarray,
                 ridge: float, cost_v: np.ndarray, budget_k: float, budget: float | None,
                 restarts: int, rng: np.random.Generator, plain: bool,
                 XT: np.ndarray | None = None, kind: str = "d",
                 top: np.ndarray | None = None,
                 rounding_only: bool = False) -> list[tuple[str, np.ndarray]]:
    """The starts of the exchange, each a count vector within caps and budget.

    ``rounding_only`` (``n > MANY_RUNS d`` without constraints): the rounding start alone
    (:data:`MANY_RUNS`).

    * ``"rounding"``: the efficient rounding (Pukelsheim & Rieder 1992) of the approximate
      optimum ``w`` when ``n`` is at least its support size, else ``"largest-weights"``:
      one run on each of the ``n`` candidates of largest weight (only without caps, bin
      and fixed runs, where ``w`` is the relevant optimum);
    * ``"greedy"``: the sequential D-greedy design (Wynn 1970) within caps and budget;
    * ``restarts`` times ``"perturbed"``: the first start with ``j`` random runs (``j``
      uniform in ``1..max(1, n // 3)``) moved to candidates drawn from ``w / 2 + uniform /
      2`` (candidates without a run preferred while ``n < 2 d``, where a repeated run makes
      the design nearly singular);
    * ``restarts`` times ``"random"``: a few random runs, then D-greedy (other basins: this
      start won, e.g., for 12 runs of a 10-parameter quadratic model on 500 random points);
    * ``restarts`` times ``"uniform"``: ``n`` runs on uniformly drawn candidates (distinct
      while ``n <= K``, within caps; kept if within the budget), as a plain Fedorov exchange
      starts: far from the others, they gave the best design in 9 of the 24 cells of
      ``benchmarks/bench_exact.py``.

    ``top`` (a mask of candidates, the ``"reduced"`` D exchange's :func:`_high_variance`):
    when it is at most a quarter of the candidates, the D-greedy runs of the greedy and
    randomised greedy starts are added among these candidates only (the random runs of the
    latter are drawn among all): on ``5^6`` it saves 2-20% of the call; on ``5^4`` (``top``
    half the candidates) it saved nothing and lost a better greedy start once in 30.
    """
    from rounding import efficient_round

    K, d = Xq.shape
    XT = np.ascontiguousarray(Xq.T) if XT is None else XT
    starts: list[tuple[str, np.ndarray]] = []
    ww = np.where(w > 1e-9 * w.max(), w, 0.0)
    ww /= ww.sum()

    def feasible(c: np.ndarray) -> bool:
        if np.any(c > cap):
            return False
        return budget is None or _within(cost_v, c, budget)

    if plain:
        supp = int(np.count_nonzero(ww))
        if n >= supp:
            c0 = efficient_round(ww, n)
            name = "rounding"
        else:
            c0 = np.zeros(K, dtype=np.int64)
            c0[np.argsort(-ww, kind="stable")[:n]] = 1
            name = "largest-weights"
        if feasible(c0):
            starts.append((name, c0))
        if rounding_only and starts:
            return starts
    # the D-greedy start; without a budget, when the perturbed starts do not start from
    # it, it is made in the stack of the randomised greedy ones (below: one kernel call)
    stacked = bool(starts) and budget is None
    if not stacked:
        c = np.zeros(K, dtype=np.int64)
        M0 = Mq + ridge * np.eye(d)
        if kern.greedy_fill(Xq, M0, c, cap, n, cost_v, budget_k, XT, kind):
            starts.append(("greedy", c))
    if budget is not None:  # D-greedy spends early: start also from the cheapest basis
        cheap = _cheapest_spanning(Xq, n, cap, cost_v, Mq)
        if cheap is not None and feasible(cheap[1]):
            c = cheap[0].copy()
            M0 = (Xq * c[:, None]).T @ Xq + Mq + ridge * np.eye(d)
            if kern.greedy_fill(Xq, M0, c, cap, n - int(c.sum()), cost_v, budget_k, XT,
                                kind) \
                    and feasible(c):
                starts.append(("cheapest-basis-greedy", c))
            starts.append(("cheapest", cheap[1]))
    if not starts:
        return starts
    base = starts[0][1]
    room = cap > 0
    prob = 0.5 * ww * room + 0.5 * room / room.sum()
    prob /= prob.sum()
    cmin = float(cost_v[room].min())
    runs = np.repeat(np.arange(K), base)
    # draws from prob by inversion of its cdf: what rng.choice(K, size, p=prob) does (the
    # same uniforms, the same indices), without its per-call validation of p (most of the
    # time of these starts on small candidate sets)
    cdf = prob.cumsum()
    cdf /= cdf[-1]
    for _ in range(restarts):
        j = int(rng.integers(1, max(1, n // 3) + 1))
        c = base - np.bincount(runs[rng.choice(runs.size, size=j, replace=False)],
                               minlength=K)
        draws = cdf.searchsorted(rng.random(8 * j + 16), side="right").tolist()
        need = j
        spent = float(cost_v @ c)
        added: dict[int, int] = {}  # runs added per candidate (Python ints: a short loop)
        for repeat in (False, True):  # repeated runs only if needed
            for a in draws:
                if need == 0:
                    break
                ca = int(c[a]) + added.get(a, 0)
                if ca < cap[a] and (repeat or ca == 0 or n >= 2 * d) \
                        and spent + cost_v[a] + (need - 1) * cmin <= budget_k:
                    added[a] = added.get(a, 0) + 1
                    spent += cost_v[a]
                    need -= 1
        if need == 0:
            for a, k in added.items():
                c[a] += k
            starts.append(("perturbed", c))
    # randomised greedy starts (a few random runs, then greedy): other basins
    allowed = np.flatnonzero(room)
    pre = np.zeros((restarts + stacked, K), dtype=np.int64)  # row 0: the greedy start
    for i in range(int(stacked), restarts + stacked):
        c = pre[i]
        k = int(rng.integers(1, max(2, min(n, d) // 2 + 1)))
        c[rng.choice(allowed, size=min(k, allowed.size), replace=False)] = 1
        if float(cost_v @ c) + (n - int(c.sum())) * cmin > budget_k:
            c[:] = 0
    M0 = np.matmul((pre[:, :, None] * Xq).transpose(0, 2, 1), Xq) + Mq + ridge * np.eye(d)
    rows = None if top is None or 4 * int(top.sum()) > K else np.flatnonzero(top)
    filled = kern.greedy_fills(Xq, M0, pre, cap, n, cost_v, budget_k, XT, kind, rows)
    if stacked:
        if filled[0]:
            starts.insert(1, ("greedy", pre[0]))
        pre, filled = pre[1:], filled[1:]
    starts += [("random", c) for c, ok in zip(pre, filled, strict=True) if ok]
    # uniform random designs (as a plain Fedorov exchange starts): far from the others
    pool = np.repeat(allowed, np.minimum(cap[allowed], 1 + n // K))  # within the caps
    for _ in range(restarts):
        c = np.bincount(rng.permutation(pool)[:n], minlength=K).astype(np.int64)
        if int(c.sum()) == n and feasible(c):
            starts.append(("uniform", c))
    return starts


REDUCED_FACTOR = 2
"""The reduced candidate set of the D exchange's first phase and of the D-greedy starts: the
``REDUCED_FACTOR s`` candidates of largest variance under the approximate optimum (``s``
its support size)."""
REDUCED_TIE = 1e-3
"""Variances within ``REDUCED_TIE`` (relative) of each other are one class for the reduced
set (:func:`_high_variance`): the approximate optimum is only within its tolerance, so
symmetric candidates (a grid's) differ in variance at about that level."""


def _high_variance(Xq: np.ndarray, w: np.ndarray) -> np.ndarray | None:
    """The candidates of largest variance ``d(x_a, w) = x_a^T M(w)^{-1} x_a`` under the
    approximate optimum ``w``: about ``REDUCED_FACTOR s`` of them (``s`` its support size),
    cut at the boundary between variance classes (a relative gap of more than
    :data:`REDUCED_TIE` between consecutive variances) nearest that number, so that
    symmetric candidates (a grid's, equal up to the approximate optimum's tolerance) are
    all in or all out and rounding does not choose among them (on the quadratic model's
    5-level grids: the 3-level points). A boolean mask, or None when it would be more than
    half the candidates (no saving to expect)."""
    from scipy.linalg import solve_triangular

    K = Xq.shape[0]
    sup = np.flatnonzero(w > 1e-9 * w.max())
    m = REDUCED_FACTOR * sup.size
    if 2 * m > K:
        return None
    Ws = Xq[sup]
    try:
        Lw = np.linalg.cholesky((Ws * w[sup, None]).T @ Ws)
    except np.linalg.LinAlgError:
        return None
    T = solve_triangular(Lw, Xq.T, lower=True, check_finite=False)
    v = np.einsum("ij,ij->j", T, T)
    vs = np.sort(v)[::-1]
    # class boundaries: i candidates above a relative gap of REDUCED_TIE; the one nearest m
    gaps = np.flatnonzero(vs[1:] < vs[:-1] * (1.0 - REDUCED_TIE)) + 1
    if gaps.size == 0:
        return None
    i = int(gaps[np.argmin(np.abs(gaps - m))])
    top = v >= vs[i - 1] * (1.0 - REDUCED_TIE)
    return top if 2 * int(top.sum()) <= K else None


def _exchange_stack(Xq: np.ndarray, C: np.ndarray, cap: np.ndarray, Mq: np.ndarray,
                    max_exchanges: int, refresh: int, cost_v: np.ndarray, budget_k: float,
                    XT: np.ndarray, top: np.ndarray | None, full: bool = True
                    ) -> tuple[np.ndarray, np.ndarray, int]:
    """Fedorov's exchange for D from every row of ``C`` (counts, in place, a C-contiguous
    stack; :func:`design._exact_numba.fedorov_d_starts`): ``(exchanges, log det M, K_sub)``
    per row of the end designs (``-inf``: singular), ``K_sub`` the size of the reduced
    candidate set (0 when none was used).

    With ``top`` (the ``"reduced"`` exchange: :func:`_high_variance`) the designs are first
    exchanged among a reduced candidate set (``top`` and their support points, when that is
    at most half the candidates), then, from where they ended, among all candidates: the
    same neighbourhood of the end designs (every single exchange over all candidates),
    most exchanges at ``O(K_sub S)``; ``full=False``: the reduced phase alone (where it
    applies), for designs that are only compared."""
    n_ex = np.zeros(C.shape[0], dtype=np.int64)
    logdet = np.empty(C.shape[0])
    sub = np.flatnonzero(top | C.any(axis=0)) if top is not None else None
    k_sub = 0
    if sub is not None and 2 * sub.size <= Xq.shape[0]:  # first among the reduced set
        k_sub = int(sub.size)
        Xs = np.ascontiguousarray(Xq[sub])
        Cs = np.ascontiguousarray(C[:, sub])
        kern.fedorov_d_starts(Xs, Cs, cap[sub], Mq, max_exchanges, refresh, cost_v[sub],
                              budget_k, n_ex, logdet, np.ascontiguousarray(Xs.T), resume=True)
        C[:] = 0
        C[:, sub] = Cs
        if not full:
            return n_ex, logdet, k_sub
    kern.fedorov_d_starts(Xq, C, cap, Mq, max_exchanges, refresh, cost_v, budget_k, n_ex,
                          logdet, XT, resume=True, check=k_sub > 0)
    return n_ex, logdet, k_sub


ILS_ROUNDS = 8
"""Default rounds of the D exchange's iterated local search (``exact(..., ils_rounds=)``,
:func:`_ils_d`). Measured on the 24 cells of ``benchmarks/bench_exact.py`` over seeds
0..4 against the plain exchange's best of 17 random starts at three seeds of its own
(docs/exact.md): at least its best in 17.8 of 24 cells on average without the search,
21.5-21.8 with 8 to 16 rounds of 4 perturbations (flat beyond 8), at 1.25x the time of
the whole call summed over the cells with 8 rounds, 1.4x with 12."""
ILS_BATCH = 4
"""Perturbations of the current design per round of the iterated local search
(:func:`_ils_d`), exchanged as one stack."""
ILS_BATCH_KL = 2
"""Perturbations per round of the iterated local search of A, I and Ds (each exchanged by
the KL exchange in turn, moved to at once when better: the first improvement)."""
ILS_AGREE = 4
"""The D search is skipped when at least ``ILS_AGREE`` starts ended on the best ``log det``
(within ``1e-9``; mirror images count): on the 24 cells of ``benchmarks/bench_exact.py`` at
seeds 0..4 it never improved such a design (it improved only where 1-3 starts tied), and
it saves most of its time on the small grids. Not for A/I/Ds: there the KL exchange's
starts often agree on a design the search improves (Ds: 27 against 23 of 54 improved)."""
ILS_KICK = 24
"""Most runs moved by one perturbation of the iterated local search: ``1..min(ILS_KICK, n //
2)`` runs, uniform (large moves pay: with at most 3 runs moved the search found little, with
6, 10, 24 more each time)."""


def _kick_space(cap: np.ndarray, n: int, d: int, budget_k: float
                ) -> tuple[np.ndarray, bool, bool]:
    """``(pool, spread, free)`` of :func:`_kick` for designs of ``n`` runs in ``d``
    parameters: the candidates a run may move to (cap above 0), whether only to
    candidates without a run (``n < 2 d``), whether every draw fits (no cap below ``n``,
    no budget)."""
    return (np.flatnonzero(cap > 0), n < 2 * d,
            bool(np.all(cap >= n)) and not np.isfinite(budget_k))


def _kick(c: np.ndarray, runs: np.ndarray, rng: np.random.Generator, pool: np.ndarray,
          cap: np.ndarray, cost_v: np.ndarray, budget_k: float, spread: bool, free: bool
          ) -> np.ndarray | None:
    """A perturbation of the design ``c`` (counts; ``runs`` its runs' candidates): ``j`` of
    its runs (``j`` uniform in ``1..min(ILS_KICK, n // 2)``, the runs drawn uniformly)
    moved to candidates drawn uniformly from ``pool``, in the order drawn, each taken when
    within its cap and the budget (``spread``: only candidates without a run, where a
    repeated run makes the design nearly singular; ``free``: no cap below ``n`` and no
    budget, so every draw fits). None when the draws found no room for all ``j`` runs (a
    tight cap or budget)."""
    n = runs.size
    j = int(rng.integers(1, max(1, min(ILS_KICK, n // 2)) + 1))
    out = c - np.bincount(runs[np.argsort(rng.random(n))[:j]], minlength=c.size)
    draws = pool[rng.integers(0, pool.size, 4 * j + 8)]
    if free:  # vectorised: the same choice as the loop below
        if spread:
            draws = draws[out[draws] == 0]
            _, first = np.unique(draws, return_index=True)
            draws = draws[np.sort(first)]
        if draws.size < j:
            return None
        return out + np.bincount(draws[:j], minlength=c.size)
    spent = float(cost_v @ out)
    for a in draws.tolist():
        if j == 0:
            break
        if out[a] < cap[a] and not (spread and out[a] > 0) and spent + cost_v[a] <= budget_k:
            out[a] += 1
            spent += cost_v[a]
            j -= 1
    return out if j == 0 else None


def _ils_d(Xq: np.ndarray, c0: np.ndarray, rounds: int, rng: np.random.Generator,
           cap: np.ndarray, Mq: np.ndarray, max_exchanges: int, refresh: int,
           cost_v: np.ndarray, budget_k: float, XT: np.ndarray, top: np.ndarray | None
           ) -> tuple[np.ndarray, int]:
    """Iterated local search (Lourenco, Martin & Stuetzle 2003) from the D exchange's best
    design ``c0``: each of ``rounds`` rounds perturbs the current design :data:`ILS_BATCH`
    times (:func:`_kick`: up to half its runs moved to random allowed candidates), runs the
    exchange from them as one stack (:func:`_exchange_stack`; with ``top`` only its reduced
    phase: the candidates of ``top`` and the stack's support points), and moves to the best
    end design when its exactly recomputed ``log det M`` exceeds the current one's by more
    than ``1e-9`` relative. ``(design, rounds that improved)``; ``c0`` itself when none
    did. The caller verifies the design among all candidates and keeps it only if its value
    is better than ``c0``'s."""
    allowed, spread, free = _kick_space(cap, int(c0.sum()), Xq.shape[1], budget_k)
    cur, cur_ld = c0, _logdet(Xq, c0, Mq)
    better = 0
    for _ in range(rounds):
        runs = np.repeat(np.arange(cur.size), cur)
        kicks = [k for k in (_kick(cur, runs, rng, allowed, cap, cost_v, budget_k, spread,
                                   free) for _ in range(ILS_BATCH)) if k is not None]
        if not kicks:
            continue
        C = np.ascontiguousarray(np.stack(kicks))
        _, ld, _ = _exchange_stack(Xq, C, cap, Mq, max_exchanges, refresh, cost_v, budget_k,
                                   XT, top, full=False)
        key = np.where(np.isfinite(ld), ld, -np.inf)
        for i in np.argsort(-key, kind="stable"):
            if not key[i] > cur_ld + 1e-9 * max(1.0, abs(cur_ld)):
                break
            ex = _logdet(Xq, C[i], Mq)  # the kernel's log det, confirmed exactly
            if ex > cur_ld + 1e-9 * max(1.0, abs(cur_ld)):
                cur, cur_ld = C[i].copy(), ex
                better += 1
                break
    return cur, better


def _best_d(Xq: np.ndarray, starts: list[tuple[str, np.ndarray]], cap: np.ndarray,
            Mq: np.ndarray, max_exchanges: int, refresh: int, cost_v: np.ndarray,
            budget_k: float, budget: float | None, nfix: int, value_scale: float,
            XT: np.ndarray, top: np.ndarray | None = None, ils_rounds: int = 0,
            rng: np.random.Generator | None = None
            ) -> tuple[float, str, np.ndarray, int, int, int] | None:
    """D: Fedorov's exchange from all starts as a stack (:func:`_exchange_stack`; ranked by
    their end designs' ``log det M``: the start's by Cholesky plus the log of every
    exchange's determinant ratio; designs within ``1e-9`` of the best count as tied, the
    first start wins), then the best one within the budget verified on an exactly
    recomputed state (:func:`design._exact_numba.fedorov_d`: it continues if that finds a
    gain) and valued from its counts. Then ``ils_rounds`` rounds of iterated local search
    from it (:func:`_ils_d`, drawing from ``rng``); its design, verified and valued the
    same way, replaces the kept one only if its value is lower. ``(value, start, counts,
    exchanges, K_sub, ILS rounds that improved)`` or None if every start ended singular."""
    C = np.ascontiguousarray(np.stack([c for _, c in starts]))
    n_ex, logdet, k_sub = _exchange_stack(Xq, C, cap, Mq, max_exchanges, refresh, cost_v,
                                          budget_k, XT, top)
    # by log det, ties (within 1e-9: mirror images, equal up to rounding) to the first start
    key = np.where(np.isfinite(logdet), logdet, -np.inf)
    top_ld = float(key.max())
    tied = key >= top_ld - 1e-9 * max(1.0, abs(top_ld)) if np.isfinite(top_ld) \
        else key > np.inf
    none = np.empty((0, 0)), np.empty(0, np.int64)
    best = None
    best_ld = -np.inf
    for i in np.lexsort((np.arange(key.size), -np.where(tied, top_ld, key))):
        if not np.isfinite(logdet[i]) \
                or logdet[i] <= best_ld + 1e-9 * max(1.0, abs(best_ld)):
            break  # no better than the kept design's exact log det
        c = C[i]
        if budget is not None and not _within(cost_v, c, budget):
            continue  # the kernel keeps a margin below the budget: not expected
        m, ok = kern.fedorov_d(Xq, c, cap, Mq, max_exchanges, refresh, cost_v, budget_k,
                               XT)
        if not ok or (budget is not None and not _within(cost_v, c, budget)):
            continue
        v = _value(Xq, c, Mq, nfix, "d", *none) * value_scale
        if np.isfinite(v) and (best is None or v < best[0]):
            best = (v, starts[i][0], c, int(n_ex[i] + m), k_sub, 0)
            best_ld = _logdet(Xq, c, Mq)
    if best is None or ils_rounds == 0 or rng is None or int(tied.sum()) >= ILS_AGREE:
        return best
    c, better = _ils_d(Xq, best[2], ils_rounds, rng, cap, Mq, max_exchanges, refresh,
                       cost_v, budget_k, XT, top)
    if better == 0:
        return best
    c = c.copy()
    m, ok = kern.fedorov_d(Xq, c, cap, Mq, max_exchanges, refresh, cost_v, budget_k, XT)
    if not ok or (budget is not None and not _within(cost_v, c, budget)):
        return best
    v = _value(Xq, c, Mq, nfix, "d", *none) * value_scale
    if not v < best[0]:
        return best
    return v, best[1], c, best[3], k_sub, better


def exact(X: object, n: int, criterion: str = "d", *, bin: bool = False,  # noqa: A002
          fixed: object = None, caps: object = None, L: object = None, region: object = None,
          interest: object = None, costs: object = None, budget: float | None = None,
          restarts: int = 5, seed: int | np.random.Generator | None = 0,
          tol: float = 1e-6, max_exchanges: int = 10_000,
          exchange: str = "reduced", ils_rounds: int = ILS_ROUNDS) -> ExactDesign:
    """Exact optimal design of ``n`` runs on the candidates by exchange.

    Parameters
    ----------
    X : array_like, shape (K, d)
        Candidate regressors as rows (e.g. :func:`design.model_matrix` of a grid); must span
        R^d.
    n : int
        Number of new runs; ``n + (fixed runs) >= d`` is needed for an invertible
        information matrix, whatever the approximate design's support size.
    criterion : {"d", "a", "i", "ds"}
        D (``det^{-1/d}``), A (``tr M^{-1}``), I (``tr(L M^{-1})`` with ``L`` or ``region``
        as in :func:`design.i_optimal`) or Ds (``interest`` columns), each of ``M / N``.
    bin : bool, default False
        At most one run per candidate (``n_a in {0, 1}``; OptimalDesign's ``bin``),
        counting ``fixed`` runs on the candidates.
    fixed : array_like, optional
        Runs already made (augmentation): counts per candidate (K,) or regressor rows
        (m, d) of runs anywhere. Their information is part of ``M``; they are not moved.
    caps : int or array_like (K,), optional
        Most runs allowed per candidate, counting ``fixed`` runs on it.
    costs, budget : array_like (K,) and float, optional
        Linear resource constraint ``sum_a c_a n_a <= budget`` on the new runs (costs
        positive; ``budget`` the total for the ``n`` runs). Every start is built within the
        budget (greedy with a reserve for the runs left at the cheapest cost) and the
        exchange only makes budget-feasible exchanges; the result is checked with an
        exactly rounded sum. Infeasible (the ``n`` cheapest allowed runs cost more):
        ``ValueError``. The efficiency bound is still relative to the unconstrained
        approximate optimum, so it is a true but possibly loose bound.
    L, region, interest
        Criterion parameters (see :func:`design.i_optimal`, :func:`design.ds_optimal`).
    restarts : int, default 5
        Number of perturbed starts (the rounding with a few runs moved) and, as many,
        randomised greedy starts and uniform random starts, in addition to the rounding and
        the greedy starts (``3 restarts + 2`` starts). The time is about proportional to it
        on large candidate sets; fewer starts give worse designs: on the 24 designs of
        ``benchmarks/bench_exact.py``, over 5 seeds, ours was at least the plain Fedorov
        exchange's best of 17 random starts in 14.0, 15.0, 16.6, 17.4, 17.6 and 19.2 of 24
        on average for ``restarts`` = 2, 3, 4, 5, 6, 8 without the iterated local search
        (docs/exact.md); ``ils_rounds`` spends the time better.
    seed : int or Generator, default 0
        For the randomised starts and the perturbations of the iterated local search
        (reproducible).
    ils_rounds : int, default 8
        Rounds of iterated local search after the starts (0: none). D: each round moves
        ``j`` random runs of the current best design (``j`` uniform in ``1..min(24, n //
        2)``) to random allowed candidates, 4 times, exchanges the 4 designs (as one stack;
        among the reduced candidate set where ``exchange="reduced"`` uses one) and moves to
        the best end design if its exactly recomputed ``log det M`` is higher; the design
        found is then checked among all candidates and returned only if its value is
        better than the starts' best, so the result is never worse than with
        ``ils_rounds=0`` at the same seed. Skipped when 4 or more starts ended on the same
        best ``log det`` (it never improved such a design in the benchmark). A/I/Ds: 2
        perturbations per round, each exchanged by the KL exchange, moved to at once when
        better. Caps, ``bin``, the budget and fixed runs are kept (a perturbation only
        moves runs where they fit). On the 24 designs of ``benchmarks/bench_exact.py``,
        ours at seeds 0..4 against the plain exchange's best of 17 random starts at seeds
        1..3: at least its best in 21.2 of 24 cells on average with the search (17.8
        without), the D-efficiency higher by 7e-4 on average, at 1.25x the CPU time summed
        over the cells (per call: 1.0x where skipped, 1.14-1.38x on the 5-level grids of 4-6
        factors, up to 1.8x on the small and mid 3-level grids: a few ms, 12-25 ms on 3^6);
        16 rounds: 21.7 of 24 at 1.47x, 32: 22.1 at 1.9x. A, I, Ds: values lower by 0.2-1.7%
        on average (by up to 25%, Ds) at 1.3-1.4x the time (docs/exact.md).
    tol : float, default 1e-6
        Tolerance of the approximate optimum (its certified lower bound is used). On small
        candidate sets the approximate optimum is most of the time (e.g. 15 of 24 ms for a
        28-parameter model on 729 candidates); ``tol=1e-3`` about halves it there, with an
        ``efficiency_bound`` lower by at most that much.
    max_exchanges : int, default 10000
        Cap on the exchanges per start.
    exchange : {"reduced", "fedorov"}, default "reduced"
        D only (A/I/Ds use the KL exchange). ``"fedorov"``: Fedorov's best-pair exchange
        over all (support point, candidate) pairs from every start. ``"reduced"``: the same
        exchange first among a reduced candidate set (the ``2 s`` candidates of largest
        variance under the approximate optimum, ``s`` its support size, and the starts'
        support points), then among all candidates from where that ended, so the result is
        still a local optimum for every single exchange; used without caps, bin, fixed runs
        and costs (where the approximate optimum is the relevant one) when the reduced set
        is at most half the candidates, else ``"fedorov"``. On the 5-level grids of
        ``benchmarks/bench_exact.py`` it is 2-4x faster than ``"fedorov"`` with
        equal efficiency on average over seeds (docs/exact.md).

    Returns
    -------
    ExactDesign
        Counts, value, ``efficiency_bound`` (certified), the approximate design, and which
        start won. Never worse than the efficient rounding of the approximate optimum when
        that is a start (the exchange only accepts improvements).

    Raises
    ------
    ValueError
        ``n`` not a positive integer, ``n + fixed runs < d``, ``bin``/``caps`` leaving fewer
        than ``n`` runs or no invertible design, a fixed count above its cap, bad criterion
        parameters.

    Notes
    -----
    BLAS runs on one thread throughout (:func:`design.linalg.blas_threads`): the call's
    products and triangular solves are small, and a thread pool only spins (an exact design
    on the 3^3 grid took 4.5 ms of CPU with OpenBLAS's default threads against 1.9 ms).
    """
    from design.linalg import blas_threads

    with blas_threads(1):
        return _exact(X, n, criterion, bin=bin, fixed=fixed, caps=caps, L=L, region=region,
                      interest=interest, costs=costs, budget=budget, restarts=restarts,
                      seed=seed, tol=tol, max_exchanges=max_exchanges, exchange=exchange,
                      ils_rounds=ils_rounds)


def _exact(X: object, n: int, criterion: str, *, bin: bool, fixed: object,  # noqa: A002
           caps: object, L: object, region: object, interest: object, costs: object,
           budget: float | None, restarts: int, seed: int | np.random.Generator | None,
           tol: float, max_exchanges: int, exchange: str, ils_rounds: int) -> ExactDesign:
    """:func:`exact` (BLAS limited by the caller)."""
    Xa = as_arms(X)
    K, d = Xa.shape
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer; got {n!r}")
    n = int(n)
    if isinstance(restarts, bool) or not isinstance(restarts, (int, np.integer)) \
            or restarts < 0:
        raise ValueError(f"restarts must be a non-negative integer; got {restarts!r}")
    if isinstance(max_exchanges, bool) or not isinstance(max_exchanges, (int, np.integer)) \
            or max_exchanges < 1:
        raise ValueError(f"max_exchanges must be a positive integer; got {max_exchanges!r}")
    if isinstance(ils_rounds, bool) or not isinstance(ils_rounds, (int, np.integer)) \
            or ils_rounds < 0:
        raise ValueError(f"ils_rounds must be a non-negative integer; got {ils_rounds!r}")
    if exchange not in ("reduced", "fedorov"):
        raise ValueError(f"exchange must be 'reduced' or 'fedorov'; got {exchange!r}")
    crit, L_m, idx = _criterion(Xa, criterion, L, region, interest)
    _, nfix = _fixed_info(Xa, fixed)  # validates fixed
    if n + nfix < d:
        raise ValueError(f"n={n} runs (plus {nfix} fixed) < d={d} parameters: the "
                         "information matrix cannot be invertible")
    fixed_c = _fixed_counts(Xa, fixed)
    cap = np.full(K, n, dtype=np.int64) + fixed_c  # no cap: n new runs
    if caps is not None:
        cap = _as_count_vector(caps, K, "caps")
    if bin:
        cap = np.minimum(cap, 1)
    cap = cap - fixed_c
    if np.any(cap < 0):
        k = int(np.flatnonzero(cap < 0)[0])
        raise ValueError(f"fixed has {int(fixed_c[k])} run(s) on candidate {k}, more than "
                         f"its cap of {int(cap[k] + fixed_c[k])} (caps and bin count the "
                         "fixed runs: a cap is the most runs in total); raise its cap or "
                         "drop it from the fixed runs")
    if int(cap.sum()) < n:
        raise ValueError(f"caps/bin allow only {int(cap.sum())} new runs, fewer than n={n}")
    cost_v, budget_k = _as_costs(costs, budget, K, n, cap)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    unconstrained = caps is None and not bin and fixed is None and costs is None
    approx = _approximate(Xa, crit, L, region, interest, tol)

    # work in the well-conditioned basis X = Q R (exact designs are invariant under X -> X T)
    cb = criterion_basis(Xa, crit, L_m, idx, _i_rows(Xa, L, region) if crit == "i" else None)
    Xq, Lq, idq, Mq = cb.Q, cb.L, cb.interest, _fixed_info_q(cb, fixed)
    kcrit = kern.CRIT_DS if crit == "ds" else kern.CRIT_LINEAR  # D: fedorov_d_starts
    nuis = np.setdiff1d(np.arange(d), idq) if crit == "ds" else np.empty(0, np.int64)
    XN = np.ascontiguousarray(Xq[:, nuis])
    MfixN = np.ascontiguousarray(Mq[np.ix_(nuis, nuis)])
    Lk = np.ascontiguousarray(Lq)
    refresh = max(50, 5 * d)
    ridge = 1e-8 * float(np.trace(Xq.T @ Xq)) / K

    rounding_only = unconstrained and n > MANY_RUNS * d
    XT = np.ascontiguousarray(Xq.T)  # the kernels' products X u read it column by column
    top = _high_variance(Xq, approx.weights) if crit == "d" and unconstrained \
        and exchange == "reduced" else None
    starts = _make_starts(Xq, n, approx.weights, cap, Mq, ridge, cost_v, budget_k,
                          budget, restarts, rng, caps is None and not bin and fixed is None,
                          XT, "d" if crit == "d" else ("ds" if crit == "ds" else "linear"),
                          top, rounding_only=rounding_only)
    rounding_value = float("nan")
    if starts and starts[0][0] == "rounding":
        rounding_value = _value(Xq, starts[0][1], Mq, nfix, crit, Lq, idq) * cb.value_scale
    if not starts:
        raise _no_start_error(Xq, n, cap, cost_v, Mq, budget)
    best: tuple[float, str, np.ndarray, int] | None = None
    k_sub = ils_better = 0
    if crit == "d":  # best-pair Fedorov steps with the cross-variances kept updated
        out = _best_d(Xq, starts, cap, Mq, max_exchanges, refresh, cost_v, budget_k,
                       budget if costs is not None else None, nfix, cb.value_scale, XT,
                       top, 0 if rounding_only else int(ils_rounds), rng)
        if out is not None:
            best, k_sub, ils_better = out[:4], out[4], out[5]
    n_top = _n_top(d, K)

    def kl(c: np.ndarray) -> tuple[float, int]:
        """The KL exchange from ``c`` (in place): ``(value, exchanges)``, ``inf`` when
        singular or (not expected: the kernel keeps a margin) over the budget."""
        n_ex, ok = kern.exchange(Xq, XN, Lk, c, cap, Mq, MfixN, kcrit, max_exchanges,
                                 refresh, cost_v, budget_k, n_top)
        if not ok or (costs is not None and not _within(cost_v, c, budget)):
            return float("inf"), int(n_ex)
        return _value(Xq, c, Mq, nfix, crit, Lq, idq) * cb.value_scale, int(n_ex)

    for name, c in starts if crit != "d" else []:
        c = c.copy()
        v, n_ex = kl(c)
        if np.isfinite(v) and (best is None or v < best[0]):
            best = (v, name, c, n_ex)
    if best is not None and crit != "d" and ils_rounds and not rounding_only:
        # iterated local search: ILS_BATCH_KL perturbations of the current design per
        # round, each exchanged, moved to when better (the first improvement)
        allowed, spread, free = _kick_space(cap, n, d, budget_k)
        for _ in range(int(ils_rounds) * ILS_BATCH_KL):
            c = _kick(best[2], np.repeat(np.arange(K), best[2]), rng, allowed, cap, cost_v,
                      budget_k, spread, free)
            if c is None:
                continue
            v, n_ex = kl(c)
            if v < best[0] * (1.0 - 1e-10):
                best = (v, best[1], c, n_ex)
                ils_better += 1
    if best is None:
        raise _no_start_error(Xq, n, cap, cost_v, Mq, budget)
    value, name, counts, n_ex = best
    lb = approx.lower_bound
    # the value is computed on Q with relative error <= err (the basis' perturbation and the
    # Cholesky of M_Q); dividing by value (1 + err) keeps the efficiency bound a true bound
    err = 2.0 * (cb.basis.error + _info_error(Xq, counts, Mq))
    # A/I with L given as a matrix: L_Q is the factor of an L' with ||L' - L||_2 <= delta
    # (cb.L_error), so tr(L M_X^{-1}) <= tr(L' M_X^{-1}) + delta tr(M_X^{-1})
    value_hi = value * (1.0 + err) + cb.L_error * _a_value_x(cb, counts, Mq, nfix) \
        * (1.0 + err)
    eff = lb / value_hi
    label = {"d": "D", "a": "A", "i": "I", "ds": "Ds"}[crit]
    msg = (f"{label}-exact design of {n} runs from the best of {len(starts)} starts "
           f"({name}); "
           + (f"{nfix} fixed runs included in the value; " if nfix else "")
           + (f"D exchange first among {k_sub} of {K} candidates, then all; " if k_sub else "")
           + (f"improved by iterated local search ({ils_better} moves in {ils_rounds} "
              "rounds); " if ils_better else "")
           + f"efficiency >= {eff:.6f} relative to the approximate optimum")
    return ExactDesign(
        counts=counts, n=n, criterion=label, value=value, efficiency_bound=float(eff),
        lower_bound=float(lb), approximate=approx,
        support=np.flatnonzero(counts).astype(np.int64), start=name,
        rounding_value=rounding_value, starts=len(starts), exchanges=int(n_ex), message=msg,
        fixed=fixed_c.astype(np.int64),
    )
