"""Design-driven bandits: instances, environments, algorithms, runners.

* :func:`run` -- simulate one run of a named algorithm on an instance.
* :class:`Policy` -- ask/tell front-end for real experiments.
* :mod:`bandits.gifa` -- the GIFA family (LinGapE, m-LinGapE, LinGIFA, LUCB, UGapE).
* :mod:`bandits.instances` -- named problem instances.
"""

from bandits.gifa import ALGORITHMS, GIFA, Policy, RunResult, make_algorithm
from bandits.replicate import ReplicationTable, replicate
from bandits.runner import run
from design._version import __version__ as __version__  # re-exported

__all__ = ["ALGORITHMS", "GIFA", "Policy", "ReplicationTable", "RunResult",
           "make_algorithm", "replicate", "run"]
