"""Top-K subset selection with a joint (possibly non-linear) reward: DART and baselines.

* :class:`SubsetEnv` -- Bernoulli arms (given or U[0,1] means, optional correlation) with the
  mean / quadratic / max / user-supplied joint reward, and the lower-bound instance.
* :func:`dart`, :func:`dart_anytime` -- DART (Agarwal, Aggarwal, Quinn & Umrawal).
* :func:`csar`, :func:`lints`, :func:`ucb` -- the baselines of the DART paper.
* :func:`run_subset`, :func:`regret_curves` -- one run / many seeds, with
  :class:`RegretCurves` (CSV) and :func:`plot_regret` (mean with min/max band).

See ``docs/subsets.md``.
"""

from bandits.subsets.algorithms import (
    ALGORITHMS,
    SubsetRunResult,
    checkpoints,
    csar,
    dart,
    dart_anytime,
    dart_lambda_auto,
    dart_lambda_printed,
    dart_test_epochs,
    lints,
    run_subset,
    ucb,
)
from bandits.subsets.confidence import DART_PRINTED, MATCHED, ConfidenceRule
from bandits.subsets.env import REWARDS, SubsetEnv, reward_table
from bandits.subsets.lemma3 import lemma3_expected_difference, lemma3_mean_formula
from bandits.subsets.plots import plot_regret
from bandits.subsets.runner import RegretCurves, regret_curves

__all__ = [
    "ALGORITHMS",
    "ConfidenceRule",
    "DART_PRINTED",
    "MATCHED",
    "REWARDS",
    "RegretCurves",
    "SubsetEnv",
    "SubsetRunResult",
    "checkpoints",
    "csar",
    "dart",
    "dart_anytime",
    "dart_lambda_auto",
    "dart_lambda_printed",
    "dart_test_epochs",
    "lemma3_expected_difference",
    "lemma3_mean_formula",
    "lints",
    "plot_regret",
    "regret_curves",
    "reward_table",
    "run_subset",
    "ucb",
]
