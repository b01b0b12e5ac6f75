"""Argument checks shared by the actuation components."""

from __future__ import annotations

import numpy as np

from porthamiltonian.errors import ParameterError


def positive(name, value, *, zero=False):
    """`value` as a float if it is a finite real number > 0 (>= 0 with `zero`), else a
    ParameterError naming `name`, the value and the rule."""
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_)) \
        and np.isfinite(value) and (value >= 0 if zero else value > 0)
    if not ok:
        raise ParameterError(f"`{name}` must be a {'nonnegative' if zero else 'positive'} finite number, got {value!r}")
    return float(value)
