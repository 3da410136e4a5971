r"""Does the model hold on the measurements? The check behind a real experiment's certificate.

Every linear identification algorithm certifies its set under two assumptions: the mean
reward of arm ``a`` is ``x_a^T theta`` (the model), and a measurement's noise has standard
deviation at most ``sigma`` (the value given). On a real experiment neither is known to
hold, and when one fails the stopping rule can certify a wrong set: a linear model of a
response with an interior optimum (a yield peaking at 80 C) ranks a corner first, and
stops there on as few as one measurement per candidate. The measurements can refute both
assumptions. With ``n_a`` measurements of arm ``a`` (mean ``ybar_a``, within-arm sum of
squares ``SS_a``), ``k`` arms measured, ``N = sum_a n_a`` and ``r`` the rank of the
measured arms' features, under the model with Gaussian noise of standard deviation
``sigma`` (the classical decomposition of the residual sum of squares into lack of fit and
pure error: Draper & Smith, *Applied Regression Analysis*, 3rd ed., Sec. 2.1):

.. math:: \mathrm{LOF} = \sum_a n_a (\bar y_a - x_a^\top\hat\theta)^2 \sim
          \sigma^2 \chi^2_{k - r}, \qquad
          \mathrm{PE} = \sum_a SS_a \sim \sigma^2 \chi^2_{N - k},

independent, with ``theta_hat`` the least-squares fit of the arm means weighted by ``n_a``
(the policy's :meth:`estimate`). The check reports both upper-tail p-values (a noise
smaller than ``sigma`` is allowed: the algorithms assume at most ``sigma``) and, when both
have degrees of freedom, the ``sigma``-free F statistic ``(LOF / (k - r)) / (PE / (N -
k))``. It *rejects* when either p-value is below ``alpha`` (default ``1e-4``: a check is
made after every batch of an experiment, so a correct model must almost never be rejected,
while the misspecifications that certify a wrong set are refuted at p-values far below it,
e.g. ``1e-8`` to ``1e-166`` in ``tests/test_model_check.py`` and the lab-screen
tutorial). The measurements of an adaptive algorithm are not a fixed design, but at the
stop the p-values were found close to uniform under a correct model (``docs/choices.md``,
"The model check"). A rejection means the certificate's assumptions are refuted, so the
stop is not a certificate. Sub-Gaussian noise of variance proxy ``sigma^2`` has a variance
at most ``sigma^2``, so the mean of each statistic is at most its degrees of freedom times
``sigma^2`` there too; the p-values are exact for Gaussian noise.

The within-arm sums of squares are accumulated by Welford's update (no cancellation for
rewards far from 0).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: The default level of the check.
MODEL_CHECK_ALPHA = 1e-4


class ModelCheckWarning(UserWarning):
    """The measurements reject the model (or the noise level) a stopping rule assumed:
    its set is not certified."""


@dataclass(frozen=True)
class ModelCheck:
    """The outcome of :meth:`AskTellProtocol.model_check` (module docstring).

    Attributes
    ----------
    lack_of_fit, lack_of_fit_df, lack_of_fit_p
        ``LOF / sigma^2``, ``k - r`` and its chi-square upper-tail p-value (NaN without
        degrees of freedom: no more measured arms than the model's rank).
    pure_error, pure_error_df, pure_error_p
        ``PE / sigma^2``, ``N - k`` and its p-value (NaN without repeated measurements).
    f_statistic, f_p
        ``(LOF / (k - r)) / (PE / (N - k))`` and its F upper-tail p-value (free of
        ``sigma``), NaN unless both have degrees of freedom.
    sigma, alpha
        The noise level checked and the level of the tests.
    rejected : bool
        A p-value below ``alpha``.
    message : str
        One sentence for a person: what was found, what to do.
    """

    lack_of_fit: float
    lack_of_fit_df: int
    lack_of_fit_p: float
    pure_error: float
    pure_error_df: int
    pure_error_p: float
    f_statistic: float
    f_p: float
    sigma: float
    alpha: float
    rejected: bool
    message: str

    @property
    def possible(self) -> bool:
        """Whether any test had degrees of freedom."""
        return self.lack_of_fit_df > 0 or self.pure_error_df > 0


def _p_text(p: float) -> str:
    return "< 1e-300" if p == 0.0 else f"= {p:.2g}"


def check_model(X: np.ndarray, counts: np.ndarray, means: np.ndarray, within_ss: np.ndarray,
                sigma: float, alpha: float = MODEL_CHECK_ALPHA) -> ModelCheck:
    """The lack-of-fit and pure-error tests of the module docstring.

    Parameters
    ----------
    X : ndarray (K, d)
        The model's features of every arm.
    counts, means, within_ss : ndarray (K,)
        Measurements per arm, their mean and their within-arm sum of squared deviations
        from it (ignored where ``counts`` is 0).
    sigma : float
        The noise standard deviation the stopping rule assumes.
    alpha : float
        Level of each test, in (0, 1).
    """
    from scipy import stats

    if not (isinstance(alpha, (float, int)) and 0.0 < alpha < 1.0):
        raise ValueError(f"alpha must be in (0, 1); got {alpha!r}")
    if not (math.isfinite(sigma) and sigma > 0.0):
        raise ValueError(f"sigma must be positive and finite; got {sigma!r}")
    n = np.asarray(counts, dtype=np.float64)
    seen = n > 0
    k, N = int(seen.sum()), int(n.sum())
    lof = lof_df = 0
    lof_stat = lof_p = f_stat = f_p = math.nan
    rank = 0
    if k:
        root = np.sqrt(n[seen])
        rows = np.asarray(X, dtype=np.float64)[seen] * root[:, None]
        target = np.asarray(means, dtype=np.float64)[seen] * root
        theta, _, rank, _ = np.linalg.lstsq(rows, target, rcond=None)
        resid = target - rows @ theta  # sqrt(n_a) (ybar_a - x_a^T theta_hat)
        lof = float(resid @ resid)
        lof_df = k - int(rank)
    pe = float(np.sum(np.asarray(within_ss, dtype=np.float64)[seen])) if k else 0.0
    pe_df = N - k
    s2 = sigma * sigma
    if lof_df > 0:
        lof_stat = lof / s2
        lof_p = float(stats.chi2.sf(lof_stat, lof_df))
    pe_stat = pe_p = math.nan
    if pe_df > 0:
        pe_stat = pe / s2
        pe_p = float(stats.chi2.sf(pe_stat, pe_df))
    if lof_df > 0 and pe_df > 0 and pe > 0.0:
        f_stat = (lof / lof_df) / (pe / pe_df)
        f_p = float(stats.f.sf(f_stat, lof_df, pe_df))
    lof_bad = lof_df > 0 and lof_p < alpha
    pe_bad = pe_df > 0 and pe_p < alpha
    if pe_bad:
        message = (f"the repeated measurements scatter more than sigma = {sigma:g} allows "
                   f"(pure-error SD {math.sqrt(pe / pe_df):.3g} on {pe_df} df, p "
                   f"{_p_text(pe_p)}): the stopping rule's widths are too narrow; use a "
                   "larger sigma")
    elif lof_bad:
        fit = ""
        if not math.isnan(f_p):
            fit = f", and free of sigma: F = {f_stat:.3g}, p {_p_text(f_p)}"
        message = (f"the measured means depart from the model (lack of fit {lof_stat:.4g} "
                   f"on {lof_df} df with sigma = {sigma:g}, p {_p_text(lof_p)}{fit}): "
                   "use a richer model (more terms, e.g. a quadratic) or a larger sigma")
    elif lof_df <= 0 and pe_df <= 0:
        message = (f"no check possible yet: {k} candidates measured for {int(rank)} "
                   "parameters, none twice")
    else:
        parts = []
        if lof_df > 0:
            parts.append(f"lack of fit p {_p_text(lof_p)} ({lof_df} df)")
        if pe_df > 0:
            parts.append(f"noise p {_p_text(pe_p)} ({pe_df} df)")
        message = f"consistent with the model and sigma = {sigma:g}: {', '.join(parts)}"
        if lof_df <= 0:
            message += (f"; the model itself is not checked: the {k} candidates measured "
                        f"are no more than its {int(rank)} parameters (measure others to "
                        "test it)")
    return ModelCheck(float(lof_stat), int(lof_df), float(lof_p), float(pe_stat), int(pe_df),
                      float(pe_p), float(f_stat), float(f_p), float(sigma), float(alpha),
                      bool(lof_bad or pe_bad), message)
