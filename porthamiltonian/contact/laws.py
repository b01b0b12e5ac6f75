"""Contact laws: normal force laws (linear, Hertz, Hunt-Crossley).

Pure functions and small frozen dataclasses; no bodies, no bond graphs.

Normal laws act on the penetration delta = -Delta >= 0 (Delta the signed distance) and its
rate. Each law splits into an elastic part, stored as potential energy V(delta), and a
dissipative part F_d(delta, d delta/dt) with F_d * d delta/dt >= 0::

    linear          F = k delta                 + c d(delta)/dt
    hertz           F = k delta^(3/2)           + c d(delta)/dt   (c = 0: Hertz impact)
    hunt_crossley   F = k delta^n (1 + a d(delta)/dt)

With ``clip=True`` the total normal force is clipped at zero (the contact never pulls): the
dissipative part is then max(F_d, -F_e), which is still dissipative. The unclipped linear
law is the one whose restitution has the closed form exp(-zeta pi / sqrt(1 - zeta^2)).

Whether a law acts at all is the contact's mode, switched by events where delta crosses
zero, not the sign of delta. At delta <= 0 the elastic part is zero and the dissipative part
only pushes, max(F_d, 0) (as the clip does): a contact made while approaching at speed v
carries its damping force c v from its first instant (the classical unclipped
spring-damper), so the vector field of the segment after the touch is continuous from its
start; a jump there (damping off at exactly delta = 0) made the error estimates of implicit
solvers (Radau) fail at every touch. Separating, the unclipped damper's pull stops at
delta = 0, as the release event does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._validate import as_finite_float
from ..errors import ParameterError
from ..kernels.contact import LAW_HERTZ, LAW_HUNT_CROSSLEY, LAW_LINEAR
from ..kernels.contact import normal_force as _normal_force

__all__ = [
    "NormalLaw",
    "linear_law_from_response",
    "linear_response",
    "hertz_impact",
]

_KINDS = ("linear", "hertz", "hunt_crossley")
_CODES = {"linear": LAW_LINEAR, "hertz": LAW_HERTZ, "hunt_crossley": LAW_HUNT_CROSSLEY}


@dataclass(frozen=True)
class NormalLaw:
    """A normal contact law (see module docstring).

    Parameters
    ----------
    kind : {"linear", "hertz", "hunt_crossley"}
    stiffness : float
        k [N/m for linear, N/m^(3/2) for Hertz, N/m^n for Hunt-Crossley], > 0.
    damping : float
        c [N s/m] for linear and Hertz; a [s/m] for Hunt-Crossley. >= 0.
    exponent : float
        n of Hunt-Crossley (default 1.5, Hertzian); fixed to 1 (linear) and 3/2 (Hertz).
    clip : bool
        Clip the total force at zero (no adhesion). Default False.
    """

    kind: str = "linear"
    stiffness: float = 1e4
    damping: float = 0.0
    exponent: float = 1.5
    clip: bool = False

    def __post_init__(self):
        if self.kind not in _KINDS:
            import difflib

            close = difflib.get_close_matches(str(self.kind), _KINDS, n=1)
            raise ParameterError(
                f"unknown normal law {self.kind!r}; use one of {_KINDS}" + (f" (did you mean {close[0]!r}?)" if close else "")
            )
        as_finite_float(self.stiffness, "stiffness", positive=True)
        as_finite_float(self.damping, "damping", nonnegative=True)
        n = as_finite_float(self.exponent, "exponent", positive=True)
        if self.kind == "hunt_crossley" and n < 1.0:
            raise ParameterError(f"Hunt-Crossley `exponent` must be >= 1, got {n}")
        object.__setattr__(self, "exponent", {"linear": 1.0, "hertz": 1.5}.get(self.kind, n))

    def potential(self, delta):
        """Elastic energy V(delta) [J] (zero for delta <= 0)."""
        if delta <= 0.0:
            return 0.0
        n = self.exponent
        return self.stiffness * delta ** (n + 1.0) / (n + 1.0)

    @property
    def packed(self):
        """``(code, k, c, n, clip)``, shape (5,): the law for the compiled kernels
        (`porthamiltonian.kernels.contact.normal_force`, which evaluates every law)."""
        p = self.__dict__.get("_packed")
        if p is None:
            p = np.array((_CODES[self.kind], self.stiffness, self.damping, self.exponent, float(self.clip)))
            object.__setattr__(self, "_packed", p)
        return p

    def elastic(self, delta):
        """Elastic force F_e = dV/d delta [N] (zero for delta <= 0)."""
        return _normal_force(self.packed, float(delta), 0.0)[0]

    def dissipative(self, delta, rate):
        """Dissipative force F_d(delta, d delta/dt) [N], with F_d * rate >= 0; at delta <= 0
        it only pushes (module docstring)."""
        return _normal_force(self.packed, float(delta), float(rate))[1]

    def dissipative_slope(self, delta, rate):
        """d F_d / d rate (the damper's incremental coefficient) [N s/m]."""
        return _normal_force(self.packed, float(delta), float(rate))[2]

    def penetration_at_rest(self, weight):
        """Static penetration under a normal load `weight` [N]: F_e(delta) = weight."""
        w = as_finite_float(weight, "weight", nonnegative=True)
        return (w / self.stiffness) ** (1.0 / self.exponent)


def linear_law_from_response(mass, contact_time, restitution, *, clip=False):
    """The linear law whose unclipped impact of an effective `mass` lasts `contact_time` and
    returns with coefficient `restitution` (0 < e <= 1).

    Notes
    -----
    e = exp(-zeta pi / sqrt(1 - zeta^2)) gives zeta = -ln e / sqrt(pi^2 + ln^2 e);
    t_c = pi / omega_d with omega_d = omega_0 sqrt(1 - zeta^2); k = m omega_0^2, c = 2 zeta m omega_0.
    """
    m = as_finite_float(mass, "mass", positive=True)
    tc = as_finite_float(contact_time, "contact_time", positive=True)
    e = as_finite_float(restitution, "restitution", positive=True)
    if e > 1.0:
        raise ParameterError(f"`restitution` must be in (0, 1], got {e}")
    le = math.log(e)
    zeta = -le / math.sqrt(math.pi**2 + le * le)
    wd = math.pi / tc
    w0 = wd / math.sqrt(1.0 - zeta * zeta)
    return NormalLaw("linear", stiffness=m * w0 * w0, damping=2.0 * zeta * m * w0, clip=clip)


def linear_response(mass, law):
    """(contact time [s], restitution) of an unclipped linear law for an effective mass.

    Raises ParameterError for an overdamped law (no rebound).
    """
    m = as_finite_float(mass, "mass", positive=True)
    if law.kind != "linear":
        raise ParameterError(f"closed-form response is for the linear law, got {law.kind!r}")
    w0 = math.sqrt(law.stiffness / m)
    zeta = law.damping / (2.0 * math.sqrt(law.stiffness * m))
    if zeta >= 1.0:
        raise ParameterError(f"the law is overdamped for mass {m} (zeta = {zeta:.3g}): no rebound")
    wd = w0 * math.sqrt(1.0 - zeta * zeta)
    return math.pi / wd, math.exp(-zeta * math.pi / math.sqrt(1.0 - zeta * zeta))


def hertz_impact(mass, stiffness, speed):
    """Undamped Hertz impact: (maximum compression [m], contact duration [s]).

    delta_max = (5 m v^2 / (4 k))^(2/5); t_c = 2 (delta_max / v) int_0^1 dx / sqrt(1 - x^(5/2))
    = 2.943 delta_max / v (the integral is sqrt(pi) Gamma(7/5) / Gamma(9/10)).
    """
    m = as_finite_float(mass, "mass", positive=True)
    k = as_finite_float(stiffness, "stiffness", positive=True)
    v = as_finite_float(speed, "speed", positive=True)
    dmax = (5.0 * m * v * v / (4.0 * k)) ** 0.4
    integral = math.sqrt(math.pi) * math.gamma(7.0 / 5.0) / math.gamma(9.0 / 10.0)
    return dmax, 2.0 * integral * dmax / v
