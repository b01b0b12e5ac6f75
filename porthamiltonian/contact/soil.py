"""Soft soil with memory: an elastoplastic normal law from Bekker's pressure-sinkage relation.

Pure functions of a small frozen dataclass; the contact element that uses it is
`porthamiltonian.library.SoilContact`.

Loading (virgin soil)
---------------------
Bekker's pressure-sinkage law (M. G. Bekker, "Introduction to Terrain-Vehicle Systems",
University of Michigan Press, 1969) gives the pressure under a plate of smaller side ``b``
at sinkage ``z``::

    p = (k_c / b + k_phi) z^n                                  [Pa]

The foot's force is that pressure over its footprint (the "documented equivalent" of a
pressure law for a contact that is one point):

    flat plate of area A      F(z) = k A z^n                   (a flat punch)
    spherical sole, radius R  F(z) = k 2 pi R z^(n+1) / (n+1)  (the cap's area element
                                                                2 pi R dh at depth h, small z)

with ``k = k_c / b + k_phi``. Both are ``F = K z^N``: ``K = k A, N = n`` or
``K = 2 pi R k / (n+1), N = n + 1``.

Unloading and memory
--------------------
The soil remembers the deepest sinkage ``m`` it was loaded to (per footprint). Below it the
response is elastic with the stiffer slope ``k_u = beta N K m^(N-1)`` (beta times the loading
tangent at ``m``; beta >= 1 and beta N >= 1), the straight line through the loading curve's
point at ``m``; it reaches zero force at the permanent sinkage

    z_p(m) = m (1 - 1 / (beta N))

the depth of the imprint the foot leaves. The soil's stored (recoverable) energy is

    V(z, m) = 1/2 k_u(m) (z - z_p(m))^2     for z > z_p(m), else 0

so the force ``dV/dz = k_u (z - z_p)`` is continuous everywhere and equals ``K z^N`` on the
loading curve (z = m). While the foot presses deeper than ``m`` the memory follows, ``dm/dt =
dz/dt``, and the energy released by the memory's growth, ``-dV/dm dm/dt``, is the plastic work:
on the loading curve ``-dV/dm = K m^N (1 - (N+1) / (2 beta N)) >= 0`` (``plastic_force``). So
while loading the soil stores ``V(z, z)``, whose gradient is the rest of ``K z^N``. Of
the work ``K m^(N+1) / (N+1)`` done to reach ``m``, ``V(m, m) = K m^(N+1) / (2 beta N)`` is stored
(given back by an elastic rebound) and the rest is dissipated. A foot dropped at speed ``v``
(no gravity) rebounds at ``v sqrt((N+1) / (2 beta N))`` (`restitution`).

Rates are free: the law is rate-independent; an optional viscous damping ``c dz/dt`` acts in
parallel (default 0).

The formulas of the state functions are the compiled scalar functions of
`porthamiltonian.kernels.soil`, which the methods call (one implementation for the Python
and the compiled contact).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .._validate import as_finite_float
from ..errors import ParameterError
from ..kernels import soil as _ksoil

__all__ = ["SoilLaw"]

# J. Y. Wong, "Theory of Ground Vehicles", 4th ed., Wiley, 2008, Table 2.3 (Bekker values of
# measured terrains): n [-], k_c [N/m^(n+1)], k_phi [N/m^(n+2)], cohesion c [Pa], phi [deg]
_TERRAINS = {
    "dry_sand": (1.1, 0.99e3, 1528.43e3, 1.04e3, 28.0),
    "sandy_loam": (0.7, 5.27e3, 1515.04e3, 1.72e3, 29.0),
    "clayey_soil": (0.5, 13.19e3, 692.15e3, 4.14e3, 13.0),
}


@dataclass(frozen=True)
class SoilLaw:
    """An elastoplastic soil under one foot (module docstring).

    Parameters
    ----------
    k_phi : float [N/m^(n+2)]
        Bekker's frictional modulus (> 0).
    n : float
        Sinkage exponent (> 0).
    k_c : float [N/m^(n+1)]
        Bekker's cohesive modulus (>= 0, default 0); divided by `width`.
    width : float [m]
        Bekker's b: the smaller side of the footprint (needed when k_c > 0; default: the
        plate's side sqrt(A), or the sole's diameter 2 R).
    area : float [m^2]
        Footprint of a flat plate (flat punch). Give `area` or `radius`, not both.
    radius : float [m]
        Radius of a spherical sole.
    unloading : float
        beta: the unloading slope over the loading tangent at the deepest sinkage (default 5:
        a permanent sinkage of 1 - 1/(5 N) of the deepest one). Must be >= 1 and >= 1/N.
    damping : float [N s/m]
        Viscous damping in parallel (>= 0, default 0).

    Raises
    ------
    ParameterError
        A modulus, exponent or size out of its range; both or neither of `area`, `radius`;
        `unloading` below max(1, 1/N).
    """

    k_phi: float
    n: float
    k_c: float = 0.0
    width: float | None = None
    area: float | None = None
    radius: float | None = None
    unloading: float = 5.0
    damping: float = 0.0

    def __post_init__(self):
        as_finite_float(self.k_phi, "k_phi", positive=True)
        as_finite_float(self.n, "n", positive=True)
        as_finite_float(self.k_c, "k_c", nonnegative=True)
        as_finite_float(self.damping, "damping", nonnegative=True)
        if (self.area is None) == (self.radius is None):
            raise ParameterError("soil law: give the footprint as exactly one of `area` (a flat plate, m^2) or "
                                 f"`radius` (a spherical sole, m); got area={self.area!r}, radius={self.radius!r}")
        if self.area is not None:
            as_finite_float(self.area, "area", positive=True)
        else:
            as_finite_float(self.radius, "radius", positive=True)
        if self.width is not None:
            as_finite_float(self.width, "width", positive=True)
        beta = as_finite_float(self.unloading, "unloading", positive=True)
        low = max(1.0, 1.0 / self.exponent)
        if beta < low:
            raise ParameterError(
                f"soil law: `unloading` (beta) must be >= max(1, 1/N) = {low:.6g} for the exponent N = "
                f"{self.exponent:.6g} (unloading at least as stiff as loading, permanent sinkage >= 0), got {beta!r}")

    @classmethod
    def terrain(cls, name, *, area=None, radius=None, unloading=5.0, damping=0.0):
        """A measured terrain from Wong's table ("dry_sand", "sandy_loam", "clayey_soil").

        The terrain's friction angle phi gives the contact's Coulomb coefficient tan(phi)
        (`friction_coefficient`); its cohesion is not modelled (a foot's shear limit is
        mu times its normal force).
        """
        if name not in _TERRAINS:
            raise ParameterError(f"unknown terrain {name!r}; use one of {sorted(_TERRAINS)}")
        n, k_c, k_phi, _, _ = _TERRAINS[name]
        return cls(k_phi=k_phi, n=n, k_c=k_c, area=area, radius=radius, unloading=unloading, damping=damping)

    @staticmethod
    def friction_coefficient(name):
        """tan(phi) of a terrain of `terrain` [-]."""
        if name not in _TERRAINS:
            raise ParameterError(f"unknown terrain {name!r}; use one of {sorted(_TERRAINS)}")
        return math.tan(math.radians(_TERRAINS[name][4]))

    # ---- the law F = K z^N
    @property
    def _packed(self):
        """``(K, N, beta)`` as floats, the arguments of `porthamiltonian.kernels.soil`."""
        return float(self.stiffness), float(self.exponent), float(self.unloading)

    @property
    def max_sinkage(self):
        """The deepest sinkage [m] where the law holds: a spherical sole's radius R (deeper, the
        sole's cross-section stops growing and the cap's ``z^(n+1)`` overstates the force), no
        limit (inf) for a flat plate. A run that sinks deeper is flagged by its audit
        (``soil_depth``, `library.soil_contact.SoilSpring.audit_states`)."""
        return math.inf if self.area is not None else float(self.radius)

    @property
    def exponent(self):
        """N: n for a plate, n + 1 for a spherical sole."""
        return self.n if self.area is not None else self.n + 1.0

    @property
    def b(self):
        """Bekker's width b [m]."""
        if self.width is not None:
            return self.width
        return math.sqrt(self.area) if self.area is not None else 2.0 * self.radius

    @property
    def stiffness(self):
        """K [N/m^N] of the loading curve F = K z^N."""
        k = self.k_c / self.b + self.k_phi
        if self.area is not None:
            return k * self.area
        return 2.0 * math.pi * self.radius * k / (self.n + 1.0)

    def loading_force(self, z):
        """Force on the loading curve at sinkage z >= 0 [N]."""
        K, N, _ = self._packed
        return _ksoil.loading_force(K, N, float(z))

    def static_sinkage(self, force):
        """Sinkage [m] of virgin soil under a slowly applied force [N]: (F / K)^(1/N)."""
        return (force / self.stiffness) ** (1.0 / self.exponent)

    def unloading_stiffness(self, m):
        """k_u(m) = beta N K m^(N-1) [N/m]."""
        return _ksoil.unloading_stiffness(*self._packed, float(m))

    def permanent_sinkage(self, m):
        """z_p(m) = m (1 - 1/(beta N)) [m]: the imprint left after loading to m."""
        _, N, beta = self._packed
        return _ksoil.permanent_sinkage(N, beta, float(m))

    def footprint_radius(self, m):
        """Radius [m] of the imprint after loading to m: sqrt(A / pi) for a plate, the cap's
        sqrt(2 R m - m^2) for a spherical sole (at least 1 mm, so a fresh imprint is found)."""
        return _ksoil.footprint_radius(float(self.area or 0.0), float(self.radius or 0.0), float(m))

    def restitution(self):
        """Rebound speed over impact speed of a foot on virgin soil without gravity or damping:
        sqrt((N+1) / (2 beta N))."""
        N = self.exponent
        return math.sqrt((N + 1.0) / (2.0 * self.unloading * N))

    # ---- state functions of (z, m)
    def force(self, z, m):
        """Elastic force dV/dz [N] at sinkage z with memory m (0 without memory: a foot on
        virgin soil loads it from z = m = 0, the memory growing with the sinkage)."""
        return _ksoil.elastic_force(*self._packed, float(z), float(m))

    def potential(self, z, m):
        """Stored energy V(z, m) [J]."""
        return _ksoil.elastic_potential(*self._packed, float(z), float(m))

    def memory_force(self, z, m):
        """-dV/dm [N]: the force driving the memory, whose power -dV/dm dm/dt is the plastic
        work (>= 0 where the memory grows, z >= m)."""
        if m <= 0.0 or z <= self.permanent_sinkage(m):
            return 0.0
        N, beta = self.exponent, self.unloading
        ku = self.unloading_stiffness(m)
        e = z - self.permanent_sinkage(m)
        return -(0.5 * (N - 1.0) * ku / m * e * e - ku * (1.0 - 1.0 / (beta * N)) * e)

    def plastic_force(self, z):
        """The plastic part of the loading force at sinkage z on the loading curve [N]:
        K z^N (1 - (N+1)/(2 beta N))."""
        return _ksoil.plastic_force(*self._packed, float(z))

    def plastic_work(self, m):
        """Work dissipated loading virgin soil to m [J]: K m^(N+1) (1/(N+1) - 1/(2 beta N))."""
        N = self.exponent
        return self.stiffness * m ** (N + 1.0) * (1.0 / (N + 1.0) - 1.0 / (2.0 * self.unloading * N))

    def to_spec(self):
        return {k: getattr(self, k) for k in ("k_phi", "n", "k_c", "width", "area", "radius", "unloading", "damping")}
