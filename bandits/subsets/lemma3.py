r"""The separation identity behind DART (Lemma 3 and Appendix B of Agarwal et al.).

At epoch ``e`` an undecided arm ``u`` is played together with the accepted arms
:math:`A_e` and a completion ``C`` of :math:`K_e - 1` other undecided arms.  Lemma 3 treats
``C`` as uniform over the :math:`\binom{|N_e|-1}{K_e-1}` completions and studies

.. math:: E[Z_{ij}] = E_C[\mu_{A_e\cup\{i\}\cup C}] - E_{C'}[\mu_{A_e\cup\{j\}\cup C'}],

the expected difference of the joint-reward means credited to ``i`` and ``j``.  For the mean
reward it equals exactly

.. math:: E[Z_{ij}] = \frac{|N_e| - K_e}{|N_e| - 1}\,\frac{\Delta_{ij}}{K},

because the completions of ``i`` contain ``j`` with probability
:math:`(K_e-1)/(|N_e|-1)` (and vice versa), cancelling that share of the gap.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from bandits.subsets.env import SubsetEnv

__all__ = ["lemma3_expected_difference", "lemma3_mean_formula"]


def lemma3_expected_difference(env: SubsetEnv, i: int, j: int, undecided=None,
                               accepted=()) -> float:
    """``E[Z_ij]`` by enumerating every completion (exact; small instances).

    Parameters
    ----------
    env : SubsetEnv
    i, j : int
        Two undecided arms.
    undecided : sequence of int, optional
        :math:`N_e` (default: every arm not in ``accepted``).
    accepted : sequence of int
        :math:`A_e`, ``|A_e| < K``.
    """
    acc = [int(a) for a in accepted]
    und = [a for a in range(env.N) if a not in acc] if undecided is None \
        else [int(a) for a in undecided]
    if i not in und or j not in und or i == j:
        raise ValueError("i and j must be two distinct undecided arms")
    if set(acc) & set(und):
        raise ValueError("accepted and undecided arms must be disjoint")
    ke = env.K - len(acc)
    if not 1 <= ke <= len(und) - 1:
        raise ValueError(f"need 1 <= K - |accepted| <= |undecided| - 1; got K_e = {ke}")

    def avg(u: int) -> float:
        others = [a for a in und if a != u]
        vals = [env.expected_reward(np.array(acc + [u] + list(c)))
                for c in combinations(others, ke - 1)]
        return float(np.mean(vals))

    return avg(i) - avg(j)


def lemma3_mean_formula(means, K: int, i: int, j: int, n_undecided: int, K_e: int) -> float:
    r""":math:`\frac{|N_e| - K_e}{|N_e| - 1}\frac{p_i - p_j}{K}` (mean reward)."""
    means = np.asarray(means, dtype=float)
    return (n_undecided - K_e) / (n_undecided - 1) * (means[i] - means[j]) / K
