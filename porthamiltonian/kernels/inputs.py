"""Kernels of the external-input sources: the "value" of a source whose value is the input u.

The compiled right-hand side passes each input source its slice of the input vector u (the
``u`` of `simulate`'s ``inputs``); these kernels return what the source imposes. Signature of
the "value" role for an input source: ``(t, u, F, I) -> (dim,)``.
"""

import numpy as np

from ._njit import njit


@njit
def input_value(t, u, F, I):
    """The input itself: shape (dim,) = u's (a copy: no kernel writes into its arguments,
    nor returns one for others to write into)."""
    return u.copy()


@njit
def limited_input(t, u, F, I):
    """The input limited to ``[-F[0], F[0]]`` (a torque or voltage limit > 0), shape u's."""
    return np.minimum(np.maximum(u, -F[0]), F[0])
