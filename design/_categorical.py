"""Categorical factors of a regression model: their levels, codes and coded columns
(:func:`design.regressors`, treatment or sum coding)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["categorical_matrix", "first_categorical", "level_codes", "level_text",
           "split_factors"]


def first_categorical(levels: Sequence[tuple | None]) -> int:
    """Index of the first categorical factor."""
    return next(j for j, lv in enumerate(levels) if lv is not None)


def level_text(v: object) -> str:
    """A level as written in term names: text as is, numbers in short form."""
    if isinstance(v, (float, np.floating)):
        return f"{float(v):g}"
    return str(v)


def _as_number(v: object) -> float | None:
    """``v`` as a float, or None for a label that is not a number (text, bool)."""
    if isinstance(v, (bool, np.bool_)):
        return None
    try:
        x = float(v)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return x


def _object_columns(F: Any) -> np.ndarray:
    """A pandas DataFrame's columns side by side as an object array (n, k), each entry its
    own value (a label stays a label, a number a number)."""
    arr = np.empty((len(F), len(F.columns)), dtype=object)
    for j, c in enumerate(F.columns):
        arr[:, j] = np.asarray(F[c], dtype=object)
    return arr


def split_factors(F: object, categorical: Sequence[int | str] | None,
                   names: Sequence[str] | None) -> tuple[np.ndarray, list | None]:
    """Factor settings ``F`` as floats, a categorical factor as its level codes
    ``0 .. L-1``, and the levels of each factor (None for a numeric one; the whole list
    None when every factor is numeric). A column is categorical when ``categorical``
    names it or when its values are not numbers (text, a DataFrame's object, string,
    category or boolean column)."""
    cols = list(F.columns) if hasattr(F, "columns") else None
    ordered: dict[int, tuple] = {}  # a pandas Categorical's own level order
    if cols is not None:
        arr = _object_columns(F)
        for j, c in enumerate(cols):
            cat = getattr(F[c], "cat", None)
            if cat is not None:
                present = set(arr[:, j].tolist())
                lv = [v for v in cat.categories if v in present]
                nums = [_as_number(v) for v in lv]
                ordered[j] = tuple(nums) if all(v is not None for v in nums) \
                    else tuple(str(v) for v in lv)
        kinds = [np.asarray(F[c]).dtype.kind for c in cols]
    else:
        arr = np.asarray(F)
        if arr.ndim == 1:
            arr = arr[:, None]
        if arr.dtype.kind in "biuf" and not categorical:
            return np.asarray(arr, dtype=np.float64), None
        kinds = [arr.dtype.kind] * (arr.shape[1] if arr.ndim == 2 else 0)
    if arr.ndim != 2:
        raise ValueError(f"F must be a matrix of factor settings (n, k); got shape {arr.shape}")
    k = arr.shape[1]
    chosen: set[int] = set()
    for c in categorical or ():
        if isinstance(c, (int, np.integer)) and not isinstance(c, bool):
            if not 0 <= c < k:
                raise ValueError(f"categorical: column {c} is not among the {k} factors")
            chosen.add(int(c))
        elif isinstance(c, str) and names is not None and c in names:
            chosen.add(list(names).index(c))
        else:
            raise ValueError(f"categorical: {c!r} is neither a column index nor a factor "
                             f"name{'' if names is None else ' among ' + str(list(names))}")
    out = np.empty((arr.shape[0], k))
    levels: list = [None] * k
    for j in range(k):
        col = arr[:, j]
        values = None if j in chosen or kinds[j] == "b" or j in ordered \
            else [_as_number(v) for v in col]
        if values is not None and all(v is not None for v in values):
            out[:, j] = values
            continue
        lv = ordered[j] if j in ordered else _sorted_levels(col)
        if len(lv) < 2:
            name = names[j] if names is not None else f"x{j + 1}"
            raise ValueError(f"categorical factor {name!r} has a single level "
                             f"({level_text(lv[0]) if lv else 'none'}) on these "
                             "candidates: its effect cannot be estimated; drop the column")
        levels[j] = lv
        out[:, j] = _codes(col, lv, names[j] if names is not None else f"x{j + 1}", "F")
    num = [j for j in range(k) if levels[j] is None]
    if not np.all(np.isfinite(out[:, num])):
        raise ValueError("F contains NaN or inf")
    return out, None if len(num) == k else levels


def _sorted_levels(col: np.ndarray) -> tuple:
    """The distinct labels of a categorical column, sorted as R's ``factor`` sorts
    them: numerically when every label is a number, else as text."""
    nums = [_as_number(v) for v in col]
    if all(v is not None for v in nums):
        return tuple(sorted(set(nums)))
    return tuple(sorted({str(v) for v in col}))


def _codes(col: np.ndarray, lv: tuple, factor: str, name: str) -> np.ndarray:
    """The level codes of the labels ``col`` among the levels ``lv``; a label that is not
    a level is a ValueError naming it."""
    numeric = all(isinstance(v, float) for v in lv)
    index = {v: i for i, v in enumerate(lv)}
    out = np.empty(len(col))
    for i, v in enumerate(col):
        key = _as_number(v) if numeric else str(v)
        if key not in index:
            raise ValueError(f"{name}: row {i + 1} has level {v!r} of the categorical "
                             f"factor {factor!r}, which is not one of its levels "
                             f"{[level_text(x) for x in lv]}")
        out[i] = index[key]
    return out


def level_codes(F: object, levels: Sequence[tuple | None], name: str,
                 factors: Sequence[str]) -> np.ndarray:
    """Settings ``F`` (m, k) with labels in the categorical columns as floats and codes
    (:meth:`Regressors.at`), with the candidates' levels."""
    if hasattr(F, "columns"):
        arr = _object_columns(F)
    else:
        arr = np.asarray(F, dtype=object)
        if arr.ndim == 1:
            arr = arr[:, None]
    if arr.ndim != 2 or arr.shape[1] != len(levels):
        raise ValueError(f"{name} must have {len(levels)} columns (the factors of the "
                         f"model); got shape {arr.shape}")
    out = np.empty(arr.shape)
    for j, lv in enumerate(levels):
        if lv is not None:
            out[:, j] = _codes(arr[:, j], lv, factors[j], name)
            continue
        vals = [_as_number(v) for v in arr[:, j]]
        bad = next((v for v, x in zip(arr[:, j], vals, strict=True) if x is None), None)
        if bad is not None:
            raise ValueError(f"{name}: {factors[j]!r} is a numeric factor; got {bad!r}")
        out[:, j] = vals
    if not np.all(np.isfinite(out)):
        raise ValueError(f"{name} contains NaN or inf")
    return out


def categorical_matrix(F: np.ndarray, levels: Sequence[tuple | None], E: np.ndarray,
                       explicit: bool, full_first: bool, names: Sequence[str],
                       contrasts: str = "treatment",
                       absorbed: bool = False) -> tuple[np.ndarray, list[str]]:
    """Regressors (without intercept) and term names of a model with categorical factors:
    the model's monomials (``E``, :func:`design.models.model_exponents`; ``explicit``
    when they were given as exponent rows) with every categorical factor at power
    at most one, a categorical factor expanded into its coded columns: treatment, one 0/1
    column per level but the first; sum, one column per level but the last, ``+1`` there
    and ``-1`` at the last level; every level (0/1) for the first categorical factor's main
    effect when ``full_first``. ``F`` holds the level codes of the categorical columns.
    ``absorbed`` (a mixture): a term of categorical factors only is left out when its
    product with every numeric component is a term, since the components sum to one."""
    k = F.shape[1]
    cat = [j for j in range(k) if levels[j] is not None]
    if explicit and np.any(E[:, cat] > 1):
        raise ValueError("terms: a categorical factor cannot have a power above one (its "
                         "columns are 0/1)")
    first = cat[0]
    num = [i for i in range(k) if levels[i] is None]
    rows = {tuple(int(v) for v in e) for e in E}
    cols: list[np.ndarray] = []
    labels: list[str] = []
    for e in E:
        if np.any(e[cat] > 1):  # a square of a categorical factor is not a term
            continue
        if absorbed and num and not np.any(e[num]) and all(
                tuple(int(v) + (i == c) for c, v in enumerate(e)) in rows for i in num):
            continue
        base = np.ones(F.shape[0])
        for i in range(k):
            if e[i] > 0 and levels[i] is None:
                base = base * F[:, i] ** e[i]
        options = []
        for j in range(k):
            if e[j] == 1 and levels[j] is not None:
                L = len(levels[j])
                if full_first and j == first and e.sum() == 1:
                    options.append([(j, li, False) for li in range(L)])
                elif contrasts == "sum":
                    options.append([(j, li, True) for li in range(L - 1)])
                else:
                    options.append([(j, li, False) for li in range(1, L)])
        for combo in itertools.product(*options):
            col = base.copy()
            chosen = {j: li for j, li, _ in combo}
            for j, li, against_last in combo:
                dummy = (F[:, j] == li).astype(np.float64)
                if against_last:
                    dummy -= F[:, j] == len(levels[j]) - 1
                col = col * dummy
            parts = []
            for i in range(k):
                if e[i] == 0:
                    continue
                if levels[i] is None:
                    parts.append(names[i] if e[i] == 1 else f"{names[i]}^{e[i]}")
                else:
                    parts.append(f"{names[i]}[{level_text(levels[i][chosen[i]])}]")
            cols.append(col + 0.0)
            labels.append("*".join(parts))
    X0 = np.column_stack(cols) if cols else np.empty((F.shape[0], 0))
    return X0, labels
