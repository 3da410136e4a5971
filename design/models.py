"""Regression models on factor settings, and candidate grids for boxes and simplices.

A design problem on factor settings ``F`` (rows: experimental conditions, columns:
factors) is a design problem on the *regressors* ``X = f(F)``: :func:`model_matrix` builds
``X`` for the usual polynomial response-surface models, :func:`box_grid` and
:func:`simplex_grid` build candidate sets (R's OptimalDesign: ``Fx_cube``, ``Fx_simplex``).

Mixture (Scheffé) models on a simplex have no intercept, because the components sum to one:
``model_matrix(F, "linear", intercept=False)`` is Scheffé's linear model,
``model_matrix(F, "interactions", intercept=False)`` his quadratic model.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from design._categorical import (
    categorical_matrix,
    first_categorical,
    level_codes,
    level_text,
    split_factors,
)
from design._validation import _rank, as_arms

__all__ = ["TERMS", "Regressors", "box_grid", "coded", "model_exponents", "model_matrix",
           "model_terms", "regressors", "spans_constant",
           "simplex_grid"]

TERMS = ("linear", "interactions", "pure-quadratic", "quadratic", "cubic")
"""Named models: ``linear`` (main effects), ``interactions`` (+ two-factor interactions),
``pure-quadratic`` (main effects + squares), ``quadratic`` (full second order),
``cubic`` (full third order). An integer ``k`` is the full polynomial of degree ``k``."""


def _all_monomials(k: int, degree: int) -> list[tuple[int, ...]]:
    out: list[tuple[int, ...]] = []
    for total in range(1, degree + 1):
        for combo in itertools.combinations_with_replacement(range(k), total):
            e = [0] * k
            for i in combo:
                e[i] += 1
            out.append(tuple(e))
    return out


def model_exponents(n_factors: int, terms: str | int | Sequence[Sequence[int]] = "linear",
                    intercept: bool = True) -> np.ndarray:
    """Exponent matrix ``E`` (p, k) of the model: column ``j`` of ``X`` is ``prod_i F_i^E[j, i]``.

    ``terms`` is a name of :data:`TERMS`, an integer degree, or explicit exponent rows
    (e.g. ``[[1, 0], [0, 1], [1, 1]]``). Order: intercept, main effects, two-factor
    interactions, squares, then higher orders (for the named models).
    """
    if isinstance(n_factors, bool) or not isinstance(n_factors, (int, np.integer)) \
            or n_factors < 1:
        raise ValueError(f"n_factors must be a positive integer; got {n_factors!r}")
    k = int(n_factors)
    eye = [tuple(int(i == j) for j in range(k)) for i in range(k)]
    pairs = [tuple(int(j in (a, b)) for j in range(k))
             for a, b in itertools.combinations(range(k), 2)]
    squares = [tuple(2 * int(i == j) for j in range(k)) for i in range(k)]
    if isinstance(terms, str):
        if terms == "linear":
            rows = eye
        elif terms == "interactions":
            rows = eye + pairs
        elif terms == "pure-quadratic":
            rows = eye + squares
        elif terms == "quadratic":
            rows = eye + pairs + squares
        elif terms == "cubic":
            rows = eye + pairs + squares
            rows += [e for e in _all_monomials(k, 3) if sum(e) == 3]
        else:
            raise ValueError(f"terms must be one of {TERMS}, an integer degree or exponent "
                             f"rows; got {terms!r}")
    elif isinstance(terms, (int, np.integer)) and not isinstance(terms, bool):
        if terms < 1:
            raise ValueError(f"terms as a degree must be >= 1; got {terms}")
        rows = _all_monomials(k, int(terms))
    else:
        try:
            E = np.asarray(terms)
        except (TypeError, ValueError) as exc:  # pragma: no cover
            raise ValueError(f"terms: cannot read exponent rows: {exc}") from None
        if E.ndim != 2 or E.shape[1] != k or not np.issubdtype(E.dtype, np.integer) \
                or np.any(E < 0):
            raise ValueError(f"terms as exponent rows must be non-negative integers of shape "
                             f"(p, {k}); got {E.shape}")
        rows = [tuple(int(v) for v in r) for r in E if np.any(r > 0)]
        if len(set(rows)) != len(rows):
            raise ValueError("terms has repeated exponent rows")
    if intercept:
        rows = [tuple([0] * k)] + list(rows)
    if not rows:
        raise ValueError("the model has no term")
    return np.array(rows, dtype=np.int64).reshape(len(rows), k)


def model_terms(n_factors: int, terms: str | int | Sequence[Sequence[int]] = "linear",
                intercept: bool = True, names: Sequence[str] | None = None) -> list[str]:
    """Readable names of the columns of :func:`model_matrix` (``"1"``, ``"x1"``, ``"x1*x2"``,
    ``"x1^2"``, ...); ``names`` overrides the factor names."""
    E = model_exponents(n_factors, terms, intercept)
    if names is None:
        names = [f"x{i + 1}" for i in range(E.shape[1])]
    elif len(names) != E.shape[1]:
        raise ValueError(f"names has {len(names)} entries for {E.shape[1]} factors")
    out = []
    for e in E:
        parts = [n if p == 1 else f"{n}^{p}" for n, p in zip(names, e, strict=True) if p > 0]
        out.append("*".join(parts) if parts else "1")
    return out


def model_matrix(F: object, terms: str | int | Sequence[Sequence[int]] = "linear",
                 intercept: bool = True) -> np.ndarray:
    """Regression matrix ``X`` (n, p) of a polynomial model on factor settings ``F`` (n, k).

    Parameters
    ----------
    F : array_like, shape (n, k)
        Factor settings as rows (a 1-D array is one factor). Use coded units (e.g. each
        factor scaled to ``[-1, 1]``) so that the columns are comparably scaled; the
        A- and I-criteria depend on that scaling, G/D do not.
    terms : str, int or exponent rows
        ``"linear"`` (``1, x_i``), ``"interactions"`` (+ ``x_i x_j``), ``"pure-quadratic"``
        (+ ``x_i^2``), ``"quadratic"`` (full second order), ``"cubic"`` (full third order),
        an integer degree (full polynomial), or exponent rows (p, k).
    intercept : bool, default True
        Include the constant column. Use ``False`` for mixture (Scheffé) models.

    Returns
    -------
    ndarray, shape (n, p)
        Columns in the order of :func:`model_terms`.
    """
    try:
        Fa = np.asarray(F, dtype=np.float64) if not isinstance(F, np.ndarray) \
            else F.astype(np.float64) if F.dtype == object else F
    except (TypeError, ValueError):
        raise ValueError("F: a factor of labels (text) is categorical: build its model "
                         "with design.regressors(F, terms), which codes it") from None
    if Fa.ndim == 1:
        Fa = Fa[:, None]
    Fa = as_arms(Fa, "F", need_span=False)
    E = model_exponents(Fa.shape[1], terms, intercept)
    X = np.ones((Fa.shape[0], E.shape[0]))
    for j, e in enumerate(E):
        for i in np.flatnonzero(e):
            X[:, j] *= Fa[:, i] ** e[i]
    return X + 0.0  # no negative zeros in the output


def spans_constant(X: np.ndarray) -> bool:
    """Whether the constant vector ``1`` lies in the column span of ``X`` (K, p): then
    a model ``mu = X theta`` already has a baseline (e.g. one-hot columns, or a column of
    ones) and an intercept column would make ``X`` rank-deficient. Numerical ranks as in
    the arm-rank check (column-equilibrated, ``s_i > s_1 max(K, p) eps``)."""
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] == 0:
        return False
    return _rank(np.c_[np.ones(X.shape[0]), X]) == _rank(X)


class Regressors(NamedTuple):
    """The regressor matrix of a model on factor settings, and what it is."""

    X: np.ndarray
    """(n, p) regressors, columns in the order of ``terms``."""
    terms: list[str]
    """Readable column names (``"1"`` is the intercept)."""
    intercept: bool
    """Whether the constant column ``"1"`` was added."""
    description: str
    """One line saying which model this is (for output and result files)."""
    model: str | int | None = None
    """The ``model`` of :func:`model_matrix` (None: the factor columns as given)."""
    factors: int = 0
    """Number of factors (columns of the settings the regressors are built from)."""
    centre: np.ndarray | None = None
    """With coded factors: the candidates' centres (:func:`coded`), else None."""
    half: np.ndarray | None = None
    """With coded factors: the candidates' half-ranges, else None."""
    levels: tuple | None = None
    """Per factor: the levels of a categorical factor (a tuple, the first being the
    baseline of the treatment coding) or None for a numeric one; None when every factor
    is numeric."""
    full_first: bool = False
    """Whether the first categorical factor's main effect has one column per level (a
    model without intercept, as R's ``model.matrix(~ 0 + ...)``)."""
    factor_names: tuple[str, ...] = ()
    """The factors' names (``x1, x2, ...`` when none were given)."""
    contrasts: str = "treatment"
    """How the categorical factors are coded (``"treatment"`` or ``"sum"``)."""
    absorbed: bool = False
    """A mixture model with categorical factors whose main effects are carried by their
    products with the components (:func:`regressors`)."""

    def __repr__(self) -> str:
        """What the regressors are, not every entry of ``X`` (its shape)."""
        return (f"Regressors({self.description}: {', '.join(self.terms)}; "
                f"X {self.X.shape[0]} x {self.X.shape[1]})")

    def at(self, F: np.ndarray, name: str = "F") -> np.ndarray:
        """The same regressors at other factor settings ``F`` (m, k), e.g. the points of
        an I-optimality region or runs already made: the candidates' coding (centres and
        half-ranges, not those of ``F``), the same terms and the same intercept."""
        if self.levels is not None:
            F = level_codes(F, self.levels, name, self.factor_names)
        else:
            F = np.asarray(F, dtype=np.float64)
            if F.ndim == 1:
                F = F[:, None]
        if F.ndim != 2 or F.shape[1] != self.factors:
            raise ValueError(f"{name} must have {self.factors} columns (the factors of the "
                             f"model); got shape {F.shape}")
        if self.centre is not None:
            F = (F - self.centre) / self.half
        if self.levels is not None:
            X0 = _coded_columns(F, self.levels, self.model or "linear", self.full_first,
                                self.factor_names, self.contrasts, self.absorbed)[0]
        else:
            X0 = F if self.model is None else model_matrix(F, self.model, intercept=False)
        return np.c_[np.ones(F.shape[0]), X0] if self.intercept else X0


def coded(F: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Factor settings in coded units: ``(F - centre) / half_range`` per column, so that
    each factor spans ``[-1, 1]`` (a constant column is only centred). Returns the coded
    settings, the centres and the half-ranges (``F = centre + half_range * coded``).

    Coding is a reparametrisation of a full polynomial model (its regressors become
    ``X T`` for an invertible ``T``): G- and D-optimal designs and every identification
    problem on the arms are unchanged, while the conditioning of ``X`` improves by orders of
    magnitude (a quadratic in raw temperatures 293-333 K has ``cond(X) = 6e7``; coded, 4).
    """
    F = np.asarray(F, dtype=np.float64)
    lo, hi = F.min(axis=0), F.max(axis=0)
    centre = (lo + hi) / 2
    half = np.where(hi > lo, (hi - lo) / 2, 1.0)
    return (F - centre) / half, centre, half


def regressors(F: object, model: str | int | None = None,
               intercept: bool | str | None = None,
               names: Sequence[str] | None = None, *, code: bool = False,
               source: str = "the columns",
               categorical: Sequence[int | str] | None = None,
               contrasts: str = "treatment") -> Regressors:
    """The regressors of a model on factor settings ``F`` (n, k), as the CLI builds them.

    Parameters
    ----------
    F : array_like or pandas DataFrame, shape (n, k)
        Factor settings (rows: candidates).
    model : str or int, optional
        A model of :func:`model_matrix` (``"linear"``, ``"quadratic"``, ..., a degree).
        Without it the columns of ``F`` are the regressors as given.
    intercept : bool, ``"auto"`` or None
        Add the constant column: ``True``, ``False``, ``"auto"`` (add it exactly when the
        constant is not already in the span of the other regressors,
        :func:`spans_constant`: a response with a baseline is then still a linear model),
        or None: ``"auto"`` with a ``model``, ``False`` without (``oed design``'s default:
        a model gets its constant term unless its terms already span one, as a Scheffé
        mixture model does; columns given as regressors are taken as they are).
        ``True`` when the constant is already in the span is a ValueError (the
        regressors would be rank-deficient).
    names : sequence of str, optional
        Factor names for ``terms`` (default: the column names of a pandas DataFrame, else
        ``x1, x2, ...``).
    code : bool, default False
        Build the model on the factors in coded units (:func:`coded`: each factor mapped
        to ``[-1, 1]``); the description says so and gives the coding.
    source : str, default "the columns"
        What the columns of ``F`` are called in the description of a model without
        ``model`` (``"<source> as regressors"``).
    categorical : sequence of int or str, optional
        Factors whose values are labels, not numbers (column indices, or names of
        ``names`` / the DataFrame's columns), e.g. a catalyst or a supplier. A column of
        text (or a non-numeric column of a DataFrame) is categorical without being named
        here; name a numeric column to treat its values as labels (e.g. batch 1, 2, 3).
        A categorical factor enters by **treatment coding**: its levels sorted (numbers
        numerically, text alphabetically, as R's ``factor``; a pandas Categorical keeps
        its own order of categories), the first one the baseline, one 0/1 column per
        other level (``catalyst[Pt]``). In a model, a
        categorical factor appears wherever a numeric one would at power one (its main
        effect and its interactions, e.g. ``temp*catalyst[Pt]`` in ``"interactions"``
        and ``"quadratic"``), never squared. Without an intercept, the first categorical
        factor's main effect has a column for every level (R's ``~ 0 + ...``), so the
        model keeps one mean per level. G-, D- and exact D-optimal designs do not depend
        on the coding (it is a reparametrisation); A-, I- and Ds-criteria do, as for any
        parametrisation (docs/choices.md).
    contrasts : {"treatment", "sum"}, default "treatment"
        The coding of the categorical factors: ``"treatment"`` (above: R's
        ``contr.treatment``) or ``"sum"`` (effect coding, R's ``contr.sum``, JMP's
        default): one column per level but the last, ``+1`` at that level and ``-1`` at
        the last, so each effect is a level's deviation from the mean of the levels.

    Returns
    -------
    Regressors
        ``X``, the term names, whether the intercept was added, a description, and what
        :meth:`Regressors.at` needs to build the same regressors at other settings.

    Raises
    ------
    ValueError
        ``intercept=True`` onto terms that span a constant; ``code`` without an intercept;
        a ``model`` whose terms are linearly dependent on these candidates (fewer
        candidates than terms, or e.g. the full quadratic on a mixture: the message names
        the first dependent term and its expression in the earlier ones).
    """
    if names is None and hasattr(F, "columns"):  # a DataFrame: its column names
        names = [str(c) for c in F.columns]
    F, levels = split_factors(F, categorical, names)
    if names is not None and len(names) != F.shape[1]:
        raise ValueError(f"names has {len(names)} entries for {F.shape[1]} factors")
    fn = list(names) if names is not None else [f"x{j + 1}" for j in range(F.shape[1])]
    numeric = [j for j in range(F.shape[1]) if levels is None or levels[j] is None]
    coding = ""
    centre = half = None
    if code:
        Fc, c_num, h_num = coded(F[:, numeric])
        F = F.copy()
        F[:, numeric] = Fc
        centre, half = np.zeros(F.shape[1]), np.ones(F.shape[1])
        centre[numeric], half[numeric] = c_num, h_num
        coding = ("; factors coded to [-1, 1]: " + ", ".join(
            f"{fn[j]} = {c:.6g} + {h:.6g} * coded" for j, c, h in zip(numeric, c_num, h_num,
                                                                       strict=True)))
    if intercept not in (None, True, False, "auto"):
        raise ValueError(f"intercept must be True, False, 'auto' or None; got {intercept!r}")
    terms: str | int | None = None
    if model is not None:
        terms = int(model) if str(model).isdigit() else model
        k = F.shape[1]
        desc = f"{model} model in {k} factor{'' if k == 1 else 's'}"
    else:
        desc = f"{source} as regressors"
    if contrasts not in ("treatment", "sum"):
        raise ValueError(f"contrasts must be 'treatment' or 'sum'; got {contrasts!r}")
    sums = F[:, numeric].sum(axis=1)
    mixture = len(numeric) > 1 and bool(np.ptp(sums) <= 1e-9 * max(1.0, np.abs(sums).max()))
    # in a mixture the components sum to one, so a categorical factor's main effect is the
    # sum of its products with the components: with those products in the model it is
    # carried by them (Cornell 2002, combined mixture-process models), not repeated
    absorbed = mixture and model is not None and levels is not None
    if levels is not None:
        X0, labels = _coded_columns(F, levels, terms or "linear", False, fn, contrasts,
                                    absorbed)
    elif model is not None:
        X0 = model_matrix(F, terms, intercept=False)
        labels = model_terms(F.shape[1], terms, False, names=names)
    else:
        X0 = F
        labels = list(fn)
    if intercept is None:
        intercept = "auto" if model is not None else False
    spanned = spans_constant(X0) if intercept in (True, "auto") or levels is not None \
        else False
    if intercept is True and spanned:
        why = (f"{X0.shape[0]} candidates for {X0.shape[1]} terms: the regressors span "
               "every vector of means" if _rank(X0) >= X0.shape[0]
               else "e.g. one-hot or mixture columns")
        raise ValueError("intercept: the constant is already in the span of the "
                         f"regressors {labels} ({why}); an intercept column would make "
                         "them rank-deficient")
    add = intercept is True or (intercept == "auto" and not spanned)
    full_first = levels is not None and not add and not spanned
    if full_first:  # no intercept: the first categorical factor keeps all its levels
        X0, labels = _coded_columns(F, levels, terms or "linear", True, fn, contrasts,
                                    absorbed)
    if code and not add and not spans_constant(X0):
        raise ValueError("code: coding centres the factors, which puts a constant into a "
                         "model without an intercept (a different model); use it with an "
                         "intercept")
    X = np.c_[np.ones(F.shape[0]), X0] if add else X0
    terms_out = (["1"] if add else []) + labels
    if model is not None:
        _check_identifiable(X, terms_out, str(model), mixture)
    if model is None:
        desc += " plus an intercept" if add else ", no intercept added"
        if intercept == "auto" and spanned:
            desc += " (the constant is in their span)"
    elif not add:
        desc += ", no intercept"
    if levels is not None:
        def coding_of(j: int, lv: tuple) -> str:
            if full_first and j == first_categorical(levels):
                return "one mean per level"
            if contrasts == "sum":
                return f"sum coding, {level_text(lv[-1])} = minus the others"
            return f"baseline {level_text(lv[0])}"

        desc += "; categorical: " + ", ".join(
            f"{fn[j]} ({', '.join(level_text(v) for v in lv)}; {coding_of(j, lv)})"
            for j, lv in enumerate(levels) if lv is not None)
    return Regressors(X, terms_out, bool(add), desc + coding, terms, F.shape[1], centre, half,
                      None if levels is None else tuple(levels), full_first, tuple(fn),
                      contrasts, absorbed)


def _coded_columns(F: np.ndarray, levels: Sequence[tuple | None],
                   terms: str | int | Sequence[Sequence[int]], full_first: bool,
                   names: Sequence[str], contrasts: str, absorbed: bool
                   ) -> tuple[np.ndarray, list[str]]:
    """:func:`design._categorical.categorical_matrix` on the monomials of ``terms``."""
    E = model_exponents(F.shape[1], terms, intercept=False)
    explicit = not isinstance(terms, (str, int, np.integer))
    return categorical_matrix(F, levels, E, explicit, full_first, names, contrasts, absorbed)


def _check_identifiable(X: np.ndarray, terms: Sequence[str], model: str,
                        mixture: bool) -> None:
    """ValueError naming ``model`` when its regressors ``X`` are rank-deficient on the
    candidates (column-equilibrated rank as in the arm-rank check): no design, and no
    amount of data on these candidates, estimates the model. The message names the first
    term (in the order of ``terms``) that is a linear combination of the terms before it
    on every candidate, and gives that combination (least squares on the earlier terms)."""
    if X.shape[0] == 0:
        return
    rank = _rank(X)
    if rank >= X.shape[1]:
        return
    if X.shape[0] < X.shape[1]:
        raise ValueError(f"model: the {model} model has {X.shape[1]} terms and there are only "
                         f"{X.shape[0]} candidates: it cannot be estimated from them; use a "
                         "smaller model or more candidates")
    j = next(j for j in range(1, X.shape[1] + 1) if _rank(X[:, :j]) < j) - 1
    coef = np.linalg.lstsq(X[:, :j], X[:, j], rcond=None)[0]
    big = np.abs(coef) > 1e-9 * max(1.0, float(np.abs(coef).max()))
    parts = [("- " if c < 0 else "+ ") + ("" if np.isclose(abs(c), 1.0) else f"{abs(c):.4g} ")
             + t for c, t, b in zip(coef, terms[:j], big, strict=True) if b]
    combination = " ".join(parts).removeprefix("+ ") if parts else "0"
    hint = ("; the factors sum to a constant (a mixture): its second-order model is "
            "Scheffé's, model 'interactions' without an intercept" if mixture else "")
    raise ValueError(
        f"model: the {model} model's {X.shape[1]} terms have rank {rank} on these "
        f"{X.shape[0]} candidates, so it cannot be estimated from them: "
        f"{terms[j]} = {combination} on every candidate{hint}; drop terms, or add "
        "candidates that separate them")


def box_grid(levels: int | Sequence[int | Sequence[float]], n_factors: int | None = None,
             *, low: float = -1.0, high: float = 1.0) -> np.ndarray:
    """Full factorial grid of a box: every combination of the factor levels.

    Parameters
    ----------
    levels : int or sequence
        Levels per factor: an integer (that many equally spaced levels in ``[low, high]``)
        or explicit level values, one entry per factor; a single integer with
        ``n_factors`` gives every factor that many levels (``box_grid(3, 2)``: the 3^2
        grid on ``[-1, 1]^2``). A factor whose level values are text (e.g. ``["Pd",
        "Pt", "Ni"]``) is categorical: the grid is then an object array, the labels kept,
        which :func:`regressors` codes.
    n_factors : int, optional
        Number of factors when ``levels`` is a single integer.
    low, high : float
        Range of the factors given by a number of levels (default coded units ``[-1, 1]``).

    Returns
    -------
    ndarray, shape (prod n_levels, k)
        Rows in lexicographic order (the first factor varies slowest); float64, or object
        with a categorical factor.
    """
    if not (np.isfinite(low) and np.isfinite(high) and low < high):
        raise ValueError(f"low < high must be finite; got low={low}, high={high}")
    if isinstance(levels, (int, np.integer)) and not isinstance(levels, bool):
        if n_factors is None:
            raise ValueError("n_factors is required when levels is a single integer")
        if isinstance(n_factors, bool) or not isinstance(n_factors, (int, np.integer)) \
                or n_factors < 1:
            raise ValueError(f"n_factors must be a positive integer; got {n_factors!r}")
        levels = [int(levels)] * int(n_factors)
    elif n_factors is not None and len(levels) != n_factors:
        raise ValueError(f"levels has {len(levels)} entries but n_factors={n_factors}")
    axes = []
    for i, lev in enumerate(levels):
        if isinstance(lev, (int, np.integer)) and not isinstance(lev, bool):
            if lev < 2:
                raise ValueError(f"levels[{i}] must be >= 2 levels; got {lev}")
            axes.append(np.linspace(low, high, int(lev)))
        elif isinstance(lev, str):
            raise ValueError(f"levels[{i}] must be a number of levels or a sequence of "
                             f"level values; got the text {lev!r}")
        elif any(isinstance(x, str) for x in lev):  # a categorical factor: its labels
            labels = [str(x) for x in lev]
            if not labels or len(set(labels)) != len(labels):
                raise ValueError(f"levels[{i}] must be distinct labels; got {labels}")
            axes.append(np.array(labels, dtype=object))
        else:
            v = np.asarray(lev, dtype=np.float64).ravel()
            if v.size < 1 or not np.all(np.isfinite(v)):
                raise ValueError(f"levels[{i}] must be finite level values")
            if np.unique(v).size != v.size:
                raise ValueError(f"levels[{i}] has repeated values")
            axes.append(v)
    if not axes:
        raise ValueError("levels is empty")
    if any(a.dtype == object for a in axes):  # labels: the grid of indices, then values
        idx = np.meshgrid(*[np.arange(a.size) for a in axes], indexing="ij")
        out = np.empty((idx[0].size, len(axes)), dtype=object)
        for j, (a, m) in enumerate(zip(axes, idx, strict=True)):
            out[:, j] = a[m.ravel()]
        return out
    mesh = np.meshgrid(*axes, indexing="ij")
    return np.stack([m.ravel() for m in mesh], axis=1)


def simplex_grid(n_components: int, m: int) -> np.ndarray:
    """The ``{q, m}`` simplex lattice: mixtures with proportions in ``{0, 1/m, ..., 1}``.

    All ``binom(q + m - 1, m)`` points ``x >= 0``, ``sum x = 1``, ``m x`` integer
    (Scheffé 1958), for mixture experiments; combine with
    ``model_matrix(..., intercept=False)``.
    """
    for name, v, lo in (("n_components", n_components, 2), ("m", m, 1)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
            raise ValueError(f"{name} must be an integer >= {lo}; got {v!r}")
    q, m = int(n_components), int(m)
    # stars and bars: q - 1 bar positions among m + q - 1 slots
    pts = []
    for bars in itertools.combinations(range(m + q - 1), q - 1):
        edges = (-1, *bars, m + q - 1)
        pts.append([edges[i + 1] - edges[i] - 1 for i in range(q)])
    return np.array(pts, dtype=np.float64) / m
