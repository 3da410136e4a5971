"""Logistic bandits: HOMER, WAR and naive/oracle warm-ups (Mason, Jun & Jain, AAAI 2022).

* :mod:`bandits.logistic.core` -- link, ``gamma(d)``, warm-up condition (2), the MLE.
* :mod:`bandits.logistic.instances` -- :class:`LogisticInstance`, :func:`sphere`,
  :func:`circle30`.
* :mod:`bandits.logistic.warmup` -- :func:`naive_warmup`, :func:`war_warmup`,
  :func:`oracle_warmup`, :func:`run_warmup`, :class:`WarPolicy` (ask/tell WAR).
* :mod:`bandits.logistic.homer` -- :func:`run_homer`, :class:`HomerPolicy`,
  :func:`run_eps_greedy` (baseline).
* :mod:`bandits.logistic.experiments` -- Table 1, Figure 3, the regret experiment.

See ``docs/logistic.md`` for every choice the paper leaves open.
"""

from bandits.logistic.core import MLEResult, gamma, mle, mle_exists, mu, mudot, warmup_xi2
from bandits.logistic.homer import HomerPolicy, run_eps_greedy, run_homer
from bandits.logistic.instances import LogisticInstance, circle30, sphere
from bandits.logistic.warmup import (
    WarmupResult,
    WarPolicy,
    naive_warmup,
    oracle_warmup,
    run_warmup,
    war_warmup,
)

__all__ = [
    "HomerPolicy",
    "LogisticInstance",
    "MLEResult",
    "WarPolicy",
    "WarmupResult",
    "circle30",
    "gamma",
    "mle",
    "mle_exists",
    "mu",
    "mudot",
    "naive_warmup",
    "oracle_warmup",
    "run_eps_greedy",
    "run_homer",
    "run_warmup",
    "sphere",
    "war_warmup",
    "warmup_xi2",
]
