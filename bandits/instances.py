"""Named, documented problem instances.

An :class:`Instance` is a small frozen dataclass: the arms ``X`` (K, d) as rows, the true
parameter ``theta`` (linear means ``X @ theta``) *or* a table of recorded rewards, the noise
level ``sigma``, the number ``m`` of arms to identify, and optional decision targets ``Z``
(transductive problems).

Instances
---------
==========================  ===========================================================
``soare``                   hard instance of Soare, Lazaric & Munos (2014), §6
``reda_classic``            top-m "classic" instance of Réda, Kaufmann & Delahaye-Duriez
                            (2021), §5 / App. A.1 (ambiguity resolved as in their code)
``random_gaussian``         random Gaussian arms, Réda et al. (2021), App. A.2 (Table 4)
``reda_random_K10_N5``      the K=10, N=5 random instance of Réda et al. (2021), Table 5
``drug_repurposing_epilepsy``  real-data instance of Réda et al. (2021), §5 (c), App. B
``from_csv``                any instance from text files of features (and rewards)
==========================  ===========================================================

:data:`INSTANCES` maps the command-line names to the constructors and
:func:`get_instance` builds one by name.
"""

from __future__ import annotations

import inspect
import io
import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Any

try:  # Python >= 3.11
    from importlib.resources.abc import Traversable
except ImportError:  # pragma: no cover - Python 3.10
    from importlib.abc import Traversable

import numpy as np

from rounding.validation import as_real_array, check_int, check_real, check_seed

__all__ = [
    "INSTANCES",
    "Instance",
    "drug_repurposing_epilepsy",
    "from_csv",
    "get_instance",
    "random_gaussian",
    "reda_classic",
    "reda_random_K10_N5",
    "soare",
]

PathLike = str | os.PathLike | Traversable

_REDA_2021 = (
    "Réda, Kaufmann & Delahaye-Duriez (2021), Top-m identification for linear bandits, "
    "AISTATS, PMLR 130"
)


# --------------------------------------------------------------------------------------
# The dataclass
# --------------------------------------------------------------------------------------


def _float_matrix(value: Any, name: str) -> np.ndarray:
    arr = as_real_array(value, name)
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"{name} must be a non-empty 2-D array; got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf")
    return arr


def _float_vector(value: Any, length: int, name: str) -> np.ndarray:
    arr = as_real_array(value, name)
    if arr.ndim != 1 or arr.shape[0] != length:
        raise ValueError(f"{name} must be a vector of length {length}; got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf")
    return arr


def _check_int(value: Any, name: str, low: int, high: int | None = None) -> int:
    """``value`` as an int in ``[low, high]`` (``high=None``: unbounded), else ValueError."""
    return check_int(value, name, low, high)


def _check_positive(value: Any, name: str) -> float:
    return check_real(value, name, 0.0, open_low=True)


def _check_m(m: Any, n_targets: int) -> int:
    m = check_int(m, "m")
    if not 1 <= m < n_targets:
        raise ValueError(
            f"m must satisfy 1 <= m < K={n_targets} (the number of arms/targets); got m={m}"
        )
    return int(m)


@dataclass(frozen=True)
class Instance:
    """A linear (or tabulated) identification problem.

    Attributes
    ----------
    name : str
        Human-readable name, with the parameters.
    X : ndarray, shape (K, d)
        Measurement arms (features), one per row.
    theta : ndarray, shape (d,), or None
        True parameter; the mean reward of arm ``a`` is ``X[a] @ theta``.  May be ``None``
        only when ``reward_table`` is given (the rewards need not be linear in ``X``).
    sigma : float
        Standard deviation (sub-Gaussian scale) of the noise; for a tabulated instance the
        scale the algorithms assume.
    m : int
        Number of best arms to identify (1 for best-arm identification), ``1 <= m < K``.
    Z : ndarray or None
        Decision targets (rows) for transductive problems; ``None`` means ``Z = X``.
    reference : str
        Paper and section the instance comes from.
    extra : dict
        Instance-specific metadata (arm names, published constants, ...).
    reward_table : ndarray, shape (n, K), or None
        Recorded rewards: rows are samples, columns are arms.  A pull of arm ``a`` returns
        ``reward_table[r, a]`` for a uniformly random row ``r`` (independently at each pull),
        and :attr:`means` are the column means.  Takes precedence over ``theta``.

    Raises
    ------
    ValueError
        Naming the field: malformed arrays (wrong shape, NaN/inf), neither ``theta`` nor
        ``reward_table`` given, ``Z`` combined with ``reward_table``, ``sigma <= 0``, or
        ``m`` outside ``[1, K)``.
    """

    name: str
    X: np.ndarray
    theta: np.ndarray | None = None
    sigma: float = 1.0
    m: int = 1
    Z: np.ndarray | None = None
    reference: str = ""
    extra: dict = field(default_factory=dict)
    reward_table: np.ndarray | None = None

    def __post_init__(self) -> None:
        X = _float_matrix(self.X, "X")
        object.__setattr__(self, "X", X)
        K, d = X.shape
        if self.theta is None and self.reward_table is None:
            raise ValueError("theta is None and there is no reward_table: give one of them")
        if self.theta is not None:
            object.__setattr__(self, "theta", _float_vector(self.theta, d, "theta"))
        n_targets = K
        if self.Z is not None:
            if self.reward_table is not None:
                raise ValueError("Z (transductive targets) cannot be combined with reward_table")
            Z = _float_matrix(self.Z, "Z")
            if Z.shape[1] != d:
                raise ValueError(f"Z must have d={d} columns like X; got shape {Z.shape}")
            object.__setattr__(self, "Z", Z)
            n_targets = Z.shape[0]
        if self.reward_table is not None:
            table = _float_matrix(self.reward_table, "reward_table")
            if table.shape[1] != K:
                raise ValueError(
                    f"reward_table must have one column per arm (K={K}); got shape "
                    f"{table.shape} (rows are samples, columns are arms)"
                )
            object.__setattr__(self, "reward_table", table)
        object.__setattr__(self, "sigma", _check_positive(self.sigma, "sigma"))
        object.__setattr__(self, "m", _check_m(self.m, n_targets))

    @property
    def K(self) -> int:
        """Number of arms (rows of ``X``)."""
        return int(self.X.shape[0])

    @property
    def d(self) -> int:
        """Dimension of the features."""
        return int(self.X.shape[1])

    @property
    def means(self) -> np.ndarray:
        """Mean reward of every decision target.

        Column means of ``reward_table`` when there is one, else ``Z @ theta`` (or
        ``X @ theta`` when ``Z`` is None).
        """
        if self.reward_table is not None:
            return self.reward_table.mean(axis=0)
        targets = self.X if self.Z is None else self.Z
        return targets @ self.theta

    @property
    def best(self) -> np.ndarray:
        """Indices of the ``m`` targets with the largest means (ties: lower index)."""
        return np.argsort(-self.means, kind="stable")[: self.m]

    @property
    def gap(self) -> float:
        """``mu_(m) - mu_(m+1)``: the gap between the m-th and (m+1)-th largest means."""
        s = np.sort(self.means)[::-1]
        return float(s[self.m - 1] - s[self.m])


# --------------------------------------------------------------------------------------
# Synthetic instances
# --------------------------------------------------------------------------------------


def soare(d: int = 5, omega: float = 0.01, scale: float = 2.0, sigma: float = 1.0) -> Instance:
    """The hard instance of Soare, Lazaric & Munos (2014), §6.

    Arms ``e_1, ..., e_d`` and ``x_{d+1} = (cos omega, sin omega, 0, ..., 0)``, parameter
    ``theta = scale * e_1``. Arm 1 is best (mean ``scale``) and ``x_{d+1}`` is a close
    second (mean ``scale * cos omega``); the informative direction is
    ``x_1 - x_{d+1}``, almost aligned with ``e_2``, so an efficient strategy pulls ``e_2``.

    Parameters
    ----------
    d : int, default 5
        Dimension (``d >= 2``); there are ``K = d + 1`` arms.
    omega : float, default 0.01
        Angle between ``x_1`` and ``x_{d+1}``, in ``(0, pi)``.
    scale : float, default 2.0
        Norm of ``theta`` (the paper uses ``theta = 2 e_1``).
    sigma : float, default 1.0
        Gaussian noise standard deviation.
    """
    d = _check_int(d, "d", 2)
    omega = check_real(omega, "omega", 0.0, np.pi, open_low=True, open_high=True)
    scale = _check_positive(scale, "scale")
    sigma = _check_positive(sigma, "sigma")
    X = np.zeros((d + 1, d))
    X[:d] = np.eye(d)
    X[d, 0], X[d, 1] = np.cos(omega), np.sin(omega)
    theta = np.zeros(d)
    theta[0] = scale
    return Instance(
        name=f"soare(d={d}, omega={omega:g})", X=X, theta=theta, sigma=float(sigma), m=1,
        reference="Soare, Lazaric & Munos (2014), Best-arm identification in linear "
                  "bandits, NeurIPS, Section 6",
    )


def reda_classic(
    K: int = 4, m: int = 2, omega: float = np.pi / 6, sigma: float = 0.5
) -> Instance:
    r"""The "classic" top-m instance of Réda, Kaufmann & Delahaye-Duriez (2021), §5.

    An extension of Soare et al.'s hard instance to top-m identification, in dimension
    ``N = K - 1`` with ``theta = e_1``:

    .. math::

        x_1 = e_1, \quad x_a = e_1 + e_a \ (2 \le a \le m), \quad
        x_{m+1} = \cos\omega\, e_1 + \sin\omega\, e_{m+1}, \quad
        x_a = e_{a-1} \ (a > m+1),

    so ``mu = (1, ..., 1, cos omega, 0, ..., 0)`` (m ones, K - m - 1 zeros) and the
    gap ``mu_m - mu_{m+1} = 1 - cos omega``. ``omega`` is the angle between ``x_{m+1}`` and
    the span of the top arms; small ``omega`` makes the problem hard, and the informative
    arm for the direction ``x_1 - x_{m+1}`` is ``x_{m+2} = e_{m+1}``.

    **Ambiguity (resolved as in the authors' code).** The paper prints
    ``x_a = e_1 + e_a`` for *all* ``a in [m]``, which makes ``x_1 = 2 e_1`` and
    ``mu_1 = 2``; then the m = 1 instance would have gap ``2 - cos(0.1) = 1.005`` instead of
    the stated ``~0.005``.  The code (``clreda/linear-top-m``, ``Code/data.py``) builds
    ``x_1 = e_1``, which reproduces the stated gaps (``omega = pi/6``: 0.134; ``omega =
    0.1``: 0.005; ``omega = pi/3``: 0.5), so that is what this function builds.

    Parameters
    ----------
    K : int, default 4
        Number of arms, ``K >= 3``; the dimension is ``K - 1``.
    m : int, default 2
        Size of the top set, ``1 <= m <= K - 2`` (``x_{m+1}`` needs the direction
        ``e_{m+1}``, which exists in ``R^{K-1}`` only when ``m + 1 <= K - 1``).
    omega : float, default pi/6
        Angle in ``(0, pi/2]``.  The paper uses ``pi/6`` and ``pi/3`` (K=4, m=2) and
        ``0.1`` (K=3, m=1).
    sigma : float, default 0.5
        Gaussian noise standard deviation (the paper's experiments use 0.5).

    Returns
    -------
    Instance
        ``X`` of shape ``(K, K - 1)``, ``theta = e_1``.

    Examples
    --------
    >>> reda_classic(K=3, m=1, omega=0.1).X.round(4)
    array([[1.    , 0.    ],
           [0.995 , 0.0998],
           [0.    , 1.    ]])
    """
    K = _check_int(K, "K", 3)
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or not 1 <= m <= K - 2:
        raise ValueError(
            f"m must be an integer with 1 <= m <= K - 2 = {K - 2} for the classic instance "
            f"(x_(m+1) uses e_(m+1) in R^(K-1)); got m={m!r}"
        )
    m = int(m)
    om = check_real(omega, "omega", 0.0, np.pi / 2, open_low=True)
    sigma = _check_positive(sigma, "sigma")
    N = K - 1
    X = np.zeros((K, N))
    X[0, 0] = 1.0
    for a in range(2, m + 1):  # 1-based arm index a, x_a = e_1 + e_a
        X[a - 1, 0] = 1.0
        X[a - 1, a - 1] = 1.0
    X[m, 0] = np.cos(om)
    X[m, m] = np.sin(om)
    for a in range(m + 2, K + 1):  # x_a = e_{a-1}
        X[a - 1, a - 2] = 1.0
    theta = np.zeros(N)
    theta[0] = 1.0
    return Instance(
        name=f"reda_classic(K={K}, m={m}, omega={om:.6g})", X=X, theta=theta, sigma=sigma,
        m=m, reference=f"{_REDA_2021}, Section 5 and Appendix A.1 (x_1 = e_1 as in the "
                       "authors' code)",
        extra={"omega": om},
    )


def _rng(seed: Any) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None:
        return np.random.default_rng()
    try:
        return np.random.default_rng(check_seed(seed))
    except ValueError as exc:
        raise ValueError(f"{exc} (or None, or a numpy Generator)") from None


def random_gaussian(
    K: int,
    d: int,
    *,
    m: int = 1,
    sigma: float = 1.0,
    seed: int | np.random.Generator | None = 0,
    normalize: str | None = "spectral",
    std: float = 1.0,
    theta: Any = None,
) -> Instance:
    """Random Gaussian arms, as in Réda, Kaufmann & Delahaye-Duriez (2021), App. A.2.

    Draws a ``(K, d)`` matrix with i.i.d. ``N(0, std^2)`` entries, normalises it, and
    uses ``theta = e_1`` (so the means are the first feature of each arm).

    **Conventions of the paper's Table 4 (they disagree).** The paper says: draw from
    ``N(0, D)`` with ``D`` the *variance*, then normalise every arm (the columns of its
    ``N x K`` matrix ``X'``) to unit norm.  The authors' code
    (``compare_complexity_constants.py``) calls ``np.random.normal(0, D)``, i.e. uses ``D``
    as the *standard deviation*, and divides the whole matrix by its *spectral norm*.  Only
    the code's convention reproduces Table 4 (29.1% / 30.8% of instances with
    ``H(m-LinGapE optimized) <= H(UGapE)`` for K=10, N=5, m=4, D=0.25 / 0.5).  With
    :mod:`bandits.complexity` on 1,000 instances each we get 29.6% / 29.9% under the code's
    convention and 9.6% / 9.2% under the paper's literal one (``oed reproduce reda-table4``).

    * code convention: ``random_gaussian(K, N, std=D, normalize="spectral")`` (default);
    * paper convention: ``random_gaussian(K, N, std=sqrt(D), normalize="columns")``.

    Under either normalisation the scale ``std`` cancels out; it matters only with
    ``normalize=None``.  The code also redraws until the rank is full; Gaussian matrices
    have full rank almost surely, so this function does not.  Table 4 uses
    ``m = floor(K/3) + 1``, ``eps = 0`` and ``sigma = 1``.

    Parameters
    ----------
    K : int
        Number of arms, ``K >= 2``.
    d : int
        Dimension, ``d >= 1``.
    m : int, default 1
        Size of the top set, ``1 <= m < K``.
    sigma : float, default 1.0
        Gaussian noise standard deviation.
    seed : int, numpy Generator or None, default 0
        Source of randomness (an int gives a reproducible ``np.random.default_rng(seed)``).
    normalize : {"spectral", "columns", None}, default "spectral"
        ``"spectral"``: divide the whole matrix by its spectral norm (largest singular
        value).  ``"columns"``: the paper's "column normalisation" of its ``N x K`` matrix,
        i.e. every arm (a row here) gets unit Euclidean norm.  ``None``: no normalisation.
    std : float, default 1.0
        Standard deviation of the entries.
    theta : array_like, shape (d,), optional
        Parameter; ``None`` (default) means ``e_1``.
    """
    K = _check_int(K, "K", 2)
    d = _check_int(d, "d", 1)
    m = _check_m(m, K)
    sigma = _check_positive(sigma, "sigma")
    std = _check_positive(std, "std")
    if normalize not in ("spectral", "columns", None):
        raise ValueError(f"normalize must be 'spectral', 'columns' or None; got {normalize!r}")
    rng = _rng(seed)
    X = rng.normal(0.0, std, size=(K, d))
    if normalize == "spectral":
        X /= np.linalg.norm(X, 2)
    elif normalize == "columns":
        X /= np.linalg.norm(X, axis=1, keepdims=True)
    if theta is None:
        th = np.zeros(d)
        th[0] = 1.0
    else:
        th = _float_vector(theta, d, "theta")
    seed_txt = "Generator" if isinstance(seed, np.random.Generator) else repr(seed)
    return Instance(
        name=f"random_gaussian(K={K}, d={d}, m={m}, seed={seed_txt}, normalize={normalize}, "
             f"std={std:g})",
        X=X, theta=th, sigma=sigma, m=m,
        reference=f"{_REDA_2021}, Appendix A.2 (Table 4)",
        extra={"normalize": normalize, "std": std},
    )


# --------------------------------------------------------------------------------------
# Instances from files
# --------------------------------------------------------------------------------------


def _read_matrix(source: PathLike, name: str) -> np.ndarray:
    """Read a numeric matrix from a text file (whitespace- or comma-separated).

    Blank lines and lines starting with ``#`` are ignored; a first line that does not parse
    as numbers is taken as a header and skipped.  Raises ``ValueError`` naming ``name`` for
    a missing/unreadable file, non-numeric content, ragged rows or NaN/inf.
    """
    try:
        if isinstance(source, (str, os.PathLike)):
            text = Path(source).read_text(encoding="utf-8")
        else:
            text = source.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{name}: cannot read {str(source)!r}: {exc}") from None
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    if not lines:
        raise ValueError(f"{name}: {str(source)!r} holds no data")
    delim = "," if "," in lines[0] else None
    try:
        [float(tok) for tok in lines[0].split(delim) if tok.strip()]
    except ValueError:
        lines = lines[1:]  # header row
        if not lines:
            raise ValueError(f"{name}: {str(source)!r} holds only a header") from None
    try:
        arr = np.loadtxt(io.StringIO("\n".join(lines)), delimiter=delim, ndmin=2,
                         dtype=np.float64)
    except ValueError as exc:
        raise ValueError(f"{name}: {str(source)!r} is not a numeric matrix: {exc}") from None
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name}: {str(source)!r} contains NaN or inf")
    return arr


def from_csv(
    path: PathLike,
    *,
    theta: Any = None,
    m: int = 1,
    sigma: float = 1.0,
    arms_as: str = "rows",
    rewards: PathLike | np.ndarray | None = None,
    name: str | None = None,
    reference: str = "",
) -> Instance:
    """Build an instance from a text file of features (and optionally of rewards).

    The files are whitespace- or comma-separated numeric matrices (``numpy.loadtxt``
    style); a non-numeric first line is skipped as a header.

    Parameters
    ----------
    path : str, path-like or importlib Traversable
        Feature matrix.  With ``arms_as="rows"`` it is ``X`` itself, shape ``(K, d)``;
        with ``arms_as="columns"`` it has shape ``(d, K)`` and is transposed (this is how
        Réda et al.'s files store arms: ``features_K10_N5.csv`` is 5 x 10).
    theta : array_like, shape (d,), optional
        True parameter (means ``X @ theta``).  Required unless ``rewards`` is given.
    m : int, default 1
        Size of the top set, ``1 <= m < K``.
    sigma : float, default 1.0
        Noise standard deviation (sub-Gaussian scale assumed by the algorithms).
    arms_as : {"rows", "columns"}, default "rows"
        Orientation of the feature file.
    rewards : path-like, Traversable or array, optional
        Reward table, shape ``(n_samples, K)``: rows are samples, columns are arms in the
        order of the arms of ``X``.  When given, the means are its column means.
    name, reference : str, optional
        Stored on the instance (default name: ``csv(<file name>)``).

    Raises
    ------
    ValueError
        Naming the argument: missing/unreadable/non-numeric file (``path`` or
        ``rewards``), NaN/inf, unknown ``arms_as``, ``theta`` of the wrong length, a
        reward table whose number of columns is not K, neither ``theta`` nor ``rewards``,
        or ``m`` outside ``[1, K)``.
    """
    if arms_as not in ("rows", "columns"):
        raise ValueError(f"arms_as must be 'rows' or 'columns'; got {arms_as!r}")
    F = _read_matrix(path, "path")
    X = F if arms_as == "rows" else F.T
    K, d = X.shape
    table = None
    if rewards is not None:
        if isinstance(rewards, np.ndarray):
            table = _float_matrix(rewards, "rewards")
        else:
            table = _read_matrix(rewards, "rewards")
        if table.shape[1] != K:
            raise ValueError(
                f"rewards must have one column per arm (K={K}, arms as {arms_as} of the "
                f"feature file); got shape {table.shape}"
            )
    if theta is None and table is None:
        raise ValueError("theta is required when no rewards table is given")
    th = None if theta is None else _float_vector(theta, d, "theta")
    m = _check_m(m, K)
    sigma = _check_positive(sigma, "sigma")
    fname = getattr(path, "name", None) or os.path.basename(str(path))
    return Instance(
        name=name or f"csv({fname})", X=X, theta=th, sigma=sigma, m=m, reference=reference,
        reward_table=table,
    )


def _data(*parts: str) -> Traversable:
    res = resources.files("bandits") / "data"
    for p in parts:
        res = res / p
    return res


#: Drugs of the epilepsy instance, in the arm order (= column order of the feature file).
_DRUGS = (
    ("Flumazenil", 3373, "pro-convulsant"),
    ("Fipronil", 3352, "pro-convulsant"),
    ("Hydroxyzine", 5734, "anti-epileptic"),
    ("Acetazolamide", 1986, "anti-epileptic"),
    ("FG-7142", 4375, "pro-convulsant"),
    ("Topiramate", 5284627, "anti-epileptic"),
    ("DMCM", 104999, "pro-convulsant"),
    ("Diazepam", 3016, "anti-epileptic"),
    ("Pentobarbital", 4737, "anti-epileptic"),
    ("Brucine", 442021, "pro-convulsant"),
)
#: Column of the reward file holding each arm's rewards (the reward file lists the drugs in
#: the order Hydroxyzine, Acetazolamide, Pentobarbital, Topiramate, Diazepam, DMCM, Brucine,
#: Fipronil, Flumazenil, FG-7142).
_REWARD_COLUMNS = (8, 7, 0, 1, 9, 3, 5, 4, 2, 6)


def drug_repurposing_epilepsy(sigma: float = 0.5, m: int = 5) -> Instance:
    """Drug repurposing for epilepsy: the real-data instance of Réda et al. (2021), §5 (c).

    K = 10 drugs (5 known anti-epileptics, 5 known pro-convulsants), features in
    ``R^71`` (drug signatures; ``X`` has shape ``(10, 71)``, unit-norm rows, rank 10), and
    rewards from a table of 18 patient samples x 10 drugs computed by the authors'
    gene-regulatory-network simulator (cosine score, higher is better).  A pull of arm ``a``
    returns ``reward_table[r, a]`` for a uniformly random patient ``r``; the means are the
    column means, and the rewards are *not* linear in the features (``theta`` is None).
    The paper runs ``m = 5``, ``delta = 0.05``, ``eps = 0``, ``sigma = 0.5``,
    ``lambda = sigma / 20``.

    Sorted means: 0.4915, 0.4849, 0.4817, 0.4780, 0.4650 (the five anti-epileptics) |
    0.3986, 0.3968, 0.3927, 0.3826, 0.3818; ``mu_5 - mu_6 = 0.06645``.

    **Arm order.** The two data files list the drugs in *different* orders.  Arm ``a`` is
    column ``a`` of ``features_K10_N71.csv`` (drug identified by its PubChem CID in the
    authors' ``DR_Data/epilepsy_signatures.csv``); its rewards are column
    ``_REWARD_COLUMNS[a]`` of ``rewards_cosine_10drugs_18samples.csv`` (whose column order,
    checked against the simulator log, is the ``names`` list of the authors' ``main.py``).
    The stored ``reward_table`` is already reordered to the arm order, and the resulting
    means equal the authors' stored arm scores (``Results/epilepsy_.../scores_*.csv``).
    ``extra`` holds ``drug_names``, ``pubchem_cid``, ``drug_class`` and
    ``reward_file_columns``.

    Parameters
    ----------
    sigma : float, default 0.5
        Sub-Gaussian scale assumed by the algorithms (the paper's value).
    m : int, default 5
        Size of the top set, ``1 <= m < 10``.

    Data: ``bandits/data/drug_repurposing_epilepsy/`` (MIT licence of
    github.com/clreda/linear-top-m, see ``bandits/data/README.md``).
    """
    sigma = _check_positive(sigma, "sigma")
    m = _check_m(m, len(_DRUGS))
    folder = _data("drug_repurposing_epilepsy")
    F = _read_matrix(folder / "features_K10_N71.csv", "features_K10_N71.csv")
    R = _read_matrix(folder / "rewards_cosine_10drugs_18samples.csv",
                     "rewards_cosine_10drugs_18samples.csv")
    if F.shape != (71, 10) or R.shape != (18, 10):  # pragma: no cover - shipped data
        raise ValueError(f"packaged drug data has unexpected shapes {F.shape}, {R.shape}")
    return Instance(
        name=f"drug_repurposing_epilepsy(m={m})", X=F.T.copy(), theta=None, sigma=sigma, m=m,
        reference=f"{_REDA_2021}, Section 5 experiment (c) and Appendix B; data from "
                  "github.com/clreda/linear-top-m (MIT)",
        extra={
            "drug_names": [n for n, _, _ in _DRUGS],
            "pubchem_cid": [c for _, c, _ in _DRUGS],
            "drug_class": [k for _, _, k in _DRUGS],
            "reward_file_columns": list(_REWARD_COLUMNS),
            "epsilon": 0.0,
            "delta": 0.05,
        },
        reward_table=R[:, list(_REWARD_COLUMNS)].copy(),
    )


#: Réda et al. (2021), Table 5 (eps = 0, sigma = 1): published constants per m.
_TABLE5 = {
    3: {"H_mlingape_optimized": 4545.97, "H_ugape": 5047.76, "gap": 0.075},
    8: {"H_mlingape_optimized": 32124.01, "H_ugape": 27622.18, "gap": 0.029},
}


def reda_random_K10_N5(m: int = 3) -> Instance:
    """The random K=10, N=5 instance of Réda et al. (2021), App. A.2, Table 5 and Fig. 3.

    Ten arms in ``R^5`` drawn as in :func:`random_gaussian` (code convention, D = 0.5,
    spectral norm 1), ``theta = e_1`` so the means are the first features, ``sigma = 1``,
    ``eps = 0``.  The paper uses ``m = 3`` (gap 0.075) and ``m = 8`` (gap 0.029); for
    these, ``extra["table5"]`` holds the published constants
    ``H(m-LinGapE optimized)`` and ``H(UGapE)`` (see :mod:`bandits.complexity`).

    Sorted means: 0.3347, 0.1876, 0.0596, -0.0159, -0.0273, -0.1148, -0.1281, -0.1532,
    -0.1822, -0.2034.

    Parameters
    ----------
    m : int, default 3
        Size of the top set, ``1 <= m < 10``.

    Data: ``bandits/data/topm_random_K10_N5/features_K10_N5.csv`` (5 x 10, arms are
    columns; MIT licence of github.com/clreda/linear-top-m).
    """
    m = _check_m(m, 10)
    theta = np.zeros(5)
    theta[0] = 1.0
    inst = from_csv(
        _data("topm_random_K10_N5", "features_K10_N5.csv"), theta=theta, m=m, sigma=1.0,
        arms_as="columns", name=f"reda_random_K10_N5(m={m})",
        reference=f"{_REDA_2021}, Appendix A.2, Table 5 and Figure 3",
    )
    extra: dict[str, Any] = {"epsilon": 0.0}
    if m in _TABLE5:
        extra["table5"] = dict(_TABLE5[m])
    return replace(inst, extra=extra)


# --------------------------------------------------------------------------------------
# Registry
# --------------------------------------------------------------------------------------

#: Instance constructors by command-line name.
INSTANCES: dict[str, Callable[..., Instance]] = {
    "soare": soare,
    "reda-classic": reda_classic,
    "random-gaussian": random_gaussian,
    "drug-repurposing": drug_repurposing_epilepsy,
    "reda-random-k10-n5": reda_random_K10_N5,
}


def get_instance(name: str, **kwargs: Any) -> Instance:
    """Build a registered instance by name (see :data:`INSTANCES`).

    Names are case-insensitive and ``_`` is read as ``-``.  Keyword arguments are passed
    to the constructor; unknown ones raise ``ValueError`` listing the accepted ones.

    Examples
    --------
    >>> get_instance("reda-classic", K=3, m=1, omega=0.1).means.round(3)
    array([1.   , 0.995, 0.   ])
    """
    if not isinstance(name, str):
        raise ValueError(f"name must be a string; got {name!r}")
    key = name.strip().lower().replace("_", "-")
    if key not in INSTANCES:
        raise ValueError(f"name: unknown instance {name!r}; known: {', '.join(INSTANCES)}")
    fn = INSTANCES[key]
    params = inspect.signature(fn).parameters
    unknown = sorted(set(kwargs) - set(params))
    if unknown:
        raise ValueError(
            f"{', '.join(unknown)}: not a parameter of instance {key!r}; accepted: "
            f"{', '.join(params)}"
        )
    missing = [p for p, v in params.items() if v.default is inspect.Parameter.empty
               and v.kind in (v.POSITIONAL_OR_KEYWORD, v.KEYWORD_ONLY) and p not in kwargs]
    if missing:
        raise ValueError(f"{', '.join(missing)}: required by instance {key!r}")
    return fn(**kwargs)
