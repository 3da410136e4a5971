"""Public input checks of the toolkit, for the layers built on rounding (design, bandits).

The scalar and array validators shared by every layer (one validator per kind of
argument; each raises a ``ValueError`` naming the argument): :func:`check_int`,
:func:`check_seed`, :func:`check_budget`, :func:`check_real`, :func:`check_probability`,
:func:`as_real_array`. They live in ``rounding`` because it is the leaf package.
"""

from rounding._validation import (
    MAX_BUDGET,
    MAX_SEED,
    as_count_array,
    as_real_array,
    check_budget,
    check_int,
    check_positive_int,
    check_probability,
    check_real,
    check_seed,
)

__all__ = ["MAX_BUDGET", "MAX_SEED", "as_count_array", "as_real_array", "check_budget", "check_int",
           "check_positive_int", "check_probability", "check_real", "check_seed"]
