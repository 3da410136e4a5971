"""Design-driven bandits: instances, environments, algorithms, runners.

* :func:`run` -- simulate one run of any registered algorithm on an instance.
* :func:`policy` -- the ask/tell policy of any registered algorithm, for real experiments
  (:class:`Policy` is the same for a name, and the GIFA configuration class).
* ``policy.model_check()`` -- do the measurements refute the model or the sigma the
  stopping rule assumes (:class:`ModelCheck`, :class:`ModelCheckWarning`)?
* :func:`load_policy` -- resume a policy saved by ``policy.save(path)`` (JSON).
* :func:`replicate` -- many seeds, several algorithms, a tidy :class:`ReplicationTable`.
* :mod:`bandits.registry` -- every algorithm: name, family, options, label.
* :mod:`bandits.gifa`, :mod:`bandits.static`, :mod:`bandits.phased`,
  :mod:`bandits.logistic`, :mod:`bandits.subsets` -- the families.
* :mod:`bandits.instances` -- named problem instances.
"""

import design as _design
from bandits._core.env import reward_oracle
from bandits._core.model_check import ModelCheck, ModelCheckWarning
from bandits._core.result import STOP_REASONS, RunResult
from bandits._core.state import load_policy
from bandits.gifa import ALGORITHMS, GIFA, Policy, make_algorithm
from bandits.registry import REGISTRY, policy
from bandits.replicate import ReplicationTable, replicate
from bandits.runner import run

__version__ = _design.__version__  # one version for the distribution (pyproject.toml)

__all__ = ["ALGORITHMS", "GIFA", "ModelCheck", "ModelCheckWarning", "Policy", "REGISTRY",
           "ReplicationTable", "RunResult",
           "STOP_REASONS", "load_policy", "make_algorithm", "policy", "replicate",
           "reward_oracle", "run"]
