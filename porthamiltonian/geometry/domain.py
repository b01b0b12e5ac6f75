"""The parameter domain of one chart of a parametric surface."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError

__all__ = ["ParameterDomain"]


@dataclass(frozen=True, eq=False)
class ParameterDomain:
    """Rectangle of parameters ``lower <= (u, v) <= upper`` of one chart, with its singular set.

    Parameters
    ----------
    lower, upper : array_like, shape (2,)
        Bounds of ``(u, v)`` [parameter units]. Infinite bounds are allowed in non-periodic
        directions (an unbounded plane).
    periodic : tuple of bool, length 2
        Whether ``u`` (resp. ``v``) is periodic with period ``upper - lower``; a periodic
        direction is half-open, ``[lower, upper)``, and values outside are wrapped.
    singular_u, singular_v : tuple of float
        Values of ``u`` (resp. ``v``) on which the parametrization degenerates
        (``f_u x f_v = 0``), e.g. ``singular_v = (-pi/2, pi/2)`` for the poles of a
        latitude-longitude chart. Empty for a regular chart.

    Raises
    ------
    ParameterError
        If a bound is NaN, ``lower >= upper``, or a periodic direction has an infinite bound.

    Notes
    -----
    ``distance_to_singular`` is the distance in parameter space to the singular set; charts
    of one atlas are switched on it (``Surface.best_chart``).

    Examples
    --------
    >>> import math
    >>> d = ParameterDomain((-math.pi, -math.pi / 2), (math.pi, math.pi / 2), (True, False),
    ...                     singular_v=(-math.pi / 2, math.pi / 2))
    >>> d.contains(7.0, 0.0), d.contains(0.0, 2.0)
    (True, False)
    """

    lower: np.ndarray
    upper: np.ndarray
    periodic: tuple[bool, bool] = (False, False)
    singular_u: tuple[float, ...] = ()
    singular_v: tuple[float, ...] = ()

    def __post_init__(self):
        lower = np.array(self.lower, dtype=float)
        upper = np.array(self.upper, dtype=float)
        if lower.shape != (2,) or upper.shape != (2,):
            raise ParameterError(
                f"`lower` and `upper` must have shape (2,), got {lower.shape} and {upper.shape}"
            )
        if np.any(np.isnan(lower)) or np.any(np.isnan(upper)):
            raise ParameterError(f"domain bounds must not be NaN, got {lower} and {upper}")
        if not np.all(lower < upper):
            raise ParameterError(f"domain needs lower < upper, got lower {lower} and upper {upper}")
        periodic = tuple(bool(p) for p in self.periodic)
        if len(periodic) != 2:
            raise ParameterError(f"`periodic` must have two entries, got {self.periodic!r}")
        for k, name in enumerate("uv"):
            if periodic[k] and not (np.isfinite(lower[k]) and np.isfinite(upper[k])):
                raise ParameterError(f"periodic direction `{name}` needs finite bounds, got "
                                     f"[{lower[k]}, {upper[k]}]")
        lower.flags.writeable = False
        upper.flags.writeable = False
        object.__setattr__(self, "lower", lower)
        object.__setattr__(self, "upper", upper)
        object.__setattr__(self, "periodic", periodic)
        object.__setattr__(self, "singular_u", tuple(float(s) for s in self.singular_u))
        object.__setattr__(self, "singular_v", tuple(float(s) for s in self.singular_v))

    @property
    def period(self) -> tuple[float, float]:
        """Periods ``upper - lower`` of the periodic directions (``inf`` for the others)."""
        return tuple(float(self.upper[k] - self.lower[k]) if self.periodic[k] else math.inf
                     for k in range(2))

    @property
    def is_bounded(self) -> bool:
        """True when all four bounds are finite."""
        return bool(np.all(np.isfinite(self.lower)) and np.all(np.isfinite(self.upper)))

    def contains(self, u: float, v: float) -> bool:
        """True when ``(u, v)`` lies in the domain; periodic directions always contain it."""
        for k, x in enumerate((u, v)):
            if not self.periodic[k] and not (self.lower[k] <= x <= self.upper[k]):
                return False
        return True

    def wrap(self, u: float, v: float) -> tuple[float, float]:
        """Map periodic directions into ``[lower, upper)`` (values already inside are returned
        unchanged, bit for bit); other directions are unchanged."""
        out = [u, v]
        for k in range(2):
            lo, hi = float(self.lower[k]), float(self.upper[k])
            if self.periodic[k] and not lo <= out[k] < hi:
                x = lo + (out[k] - lo) % (hi - lo)
                # float `%` can return the period itself for tiny negative offsets
                out[k] = lo if x >= hi else x
        return out[0], out[1]

    def distance_to_singular(self, u: float, v: float, *, signed: bool = False) -> float:
        """Parameter-space distance from ``(u, v)`` to the singular set (``inf`` if none).

        Distances in periodic directions are measured modulo the period. With `signed`, a
        singular value that bounds a non-periodic direction (a pole at the end of a latitude
        range) counts negative beyond it: a solver step that carries the parameters past the
        pole still shows a sign change.
        """
        d = math.inf
        for k, (x, sing) in enumerate(((u, self.singular_u), (v, self.singular_v))):
            for s in sing:
                if signed and not self.periodic[k] and s == self.lower[k]:
                    gap = x - s
                elif signed and not self.periodic[k] and s == self.upper[k]:
                    gap = s - x
                else:
                    gap = abs(x - s)
                    if self.periodic[k]:
                        per = float(self.upper[k] - self.lower[k])
                        gap = gap % per
                        gap = min(gap, per - gap)
                d = min(d, gap)
        return d

    def __repr__(self) -> str:
        extra = ""
        if self.singular_u:
            extra += f", singular_u={self.singular_u}"
        if self.singular_v:
            extra += f", singular_v={self.singular_v}"
        return (f"ParameterDomain(lower={tuple(self.lower.tolist())}, "
                f"upper={tuple(self.upper.tolist())}, periodic={self.periodic}{extra})")
