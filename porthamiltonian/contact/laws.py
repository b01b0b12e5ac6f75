"""Contact laws: normal force laws (linear, Hertz, Hunt-Crossley, Hertz from the local
curvatures).

Pure functions and small frozen dataclasses; no bodies, no bond graphs.

Normal laws act on the penetration delta = -Delta >= 0 (Delta the signed distance) and its
rate. Each law splits into an elastic part, stored as potential energy V(delta), and a
dissipative part F_d(delta, d delta/dt) with F_d * d delta/dt >= 0::

    linear          F = k delta                 + c d(delta)/dt
    hertz           F = k delta^(3/2)           + c d(delta)/dt   (c = 0: Hertz impact)
    hunt_crossley   F = k delta^n (1 + a d(delta)/dt)
    LocalHertzLaw   F = K(q) delta^(3/2) (1 + a d(delta)/dt), K from E* and the curvatures

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
from ..errors import ParameterError, SerializationError
from ..kernels.contact import LAW_GIVEN, LAW_HERTZ, LAW_HUNT_CROSSLEY, LAW_LINEAR, LAW_LOCAL_HERTZ
from ..kernels.contact import normal_force as _normal_force
from ..kernels.contact import normal_potential as _normal_potential
from .hertz import ElasticSolid, effective_modulus, hertz_impact

__all__ = [
    "LocalHertzLaw",
    "NormalLaw",
    "UserNormalLaw",
    "law_to_spec",
    "law_from_spec",
    "linear_damping_ratio",
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
        return _normal_potential(self.packed, float(delta))

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


@dataclass(frozen=True)
class LocalHertzLaw:
    """Hertz's law with its stiffness from the materials and the local curvatures of the two
    surfaces at the contact point, re-evaluated as the contact point moves.

    The compliant contact stores ``V = 2/5 K(q) delta^(5/2)`` and dissipates the Hunt-Crossley
    force ``K(q) delta^(3/2) a d(delta)/dt``, with ``K(q) = K(E*, k_max, k_min)`` the exact
    elliptical Hertz stiffness (`porthamiltonian.contact.hertz.hertz_stiffness`; Johnson,
    *Contact Mechanics*, 1985, ch. 4) of the principal relative curvatures of the two
    undeformed surfaces at the generalized contact points. Between curved bodies ``K``
    changes as the bodies roll; the spring's wrench is the exact gradient of ``V``, including
    ``(2/5) delta^(5/2) dK/dq`` (`porthamiltonian.kernels.contact.local_hertz`), so the
    energy ledger stays closed. For a sphere on a plane ``K = (4/3) E* sqrt(R)`` at every
    point, the classical Hertz law.

    Parameters
    ----------
    modulus : float [Pa]
        Contact modulus E* (`from_solids` computes it from both materials).
    damping : float [s/m]
        Hunt-Crossley a >= 0 (default 0: elastic). `ContactMaterial` sets it from a
        coefficient of restitution.
    clip : bool
        Clip the total force at zero (no adhesion). Default False.

    Notes
    -----
    Needs surfaces that the compiled kernels evaluate (built-in kinds, B-splines, sympy
    surfaces) and that have no edges, with a relative curvature that is positive definite
    at every contact (convex against convex or flat; `CompliantContact` raises otherwise,
    with the curvatures, when it happens).
    """

    modulus: float
    damping: float = 0.0
    clip: bool = False
    kind = "local_hertz"

    def __post_init__(self):
        as_finite_float(self.modulus, "modulus", positive=True)
        as_finite_float(self.damping, "damping", nonnegative=True)
        if not isinstance(self.clip, bool):
            raise ParameterError(f"`clip` must be True or False, got {self.clip!r}")

    @classmethod
    def from_solids(cls, a, b, *, damping=0.0, clip=False):
        """The law of two `porthamiltonian.contact.hertz.ElasticSolid` bodies: E* =
        1 / ((1 - nu_a^2)/E_a + (1 - nu_b^2)/E_b)."""
        for key, solid in (("a", a), ("b", b)):
            if not isinstance(solid, ElasticSolid):
                raise ParameterError(f"`{key}` must be an ElasticSolid, got {solid!r}")
        return cls(effective_modulus(a.young, a.poisson, b.young, b.poisson), damping=damping, clip=clip)

    @property
    def packed(self):
        """``(LAW_LOCAL_HERTZ, E*, a, 1.5, clip)``: resolved per configuration by
        `porthamiltonian.kernels.contact.resolve_law`."""
        return np.array((LAW_LOCAL_HERTZ, self.modulus, self.damping, 1.5, float(self.clip)))

    def reference(self, radius):
        """The Hunt-Crossley law of a sphere of `radius` [m] on a flat of this modulus, K =
        (4/3) E* sqrt(radius): the scale the compliant contact's defaults are derived from."""
        r = as_finite_float(radius, "radius", positive=True)
        return NormalLaw("hunt_crossley", stiffness=4.0 / 3.0 * self.modulus * math.sqrt(r), damping=self.damping,
                         exponent=1.5, clip=self.clip)


def linear_damping_ratio(restitution):
    """Damping ratio zeta of the unclipped linear spring-damper whose impact returns with
    coefficient `restitution` e in (0, 1]: e = exp(-zeta pi / sqrt(1 - zeta^2)), so
    zeta = -ln e / sqrt(pi^2 + ln^2 e)."""
    le = math.log(restitution)
    return -le / math.sqrt(math.pi**2 + le * le)


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
    zeta = linear_damping_ratio(e)
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


class UserNormalLaw:
    """A normal contact law of the user's, with an energy function, for the compliant contact.

    Given as sympy expressions in the penetration ``delta`` (and its rate)::

        d, r = sympy.symbols("delta rate")
        UserNormalLaw(potential=2e6 * d**2.5 / 2.5 + 1e9 * d**4, dissipation=3e5 * d**1.5 * r,
                      delta=d, rate=r)

    the elastic force is the derivative of the potential (taken symbolically), so the energy
    stored is exactly the work of the force; or as Python callables::

        UserNormalLaw(force=lambda d: 2e6 * d**1.5, dissipation=lambda d, r: 3e5 * d**1.5 * r)

    whose potential is the integral of the force (`scipy.integrate.quad`, to 1e-13 relative:
    evaluated for the ledger only). The laws act as `NormalLaw` does (module docstring): zero
    for ``delta <= 0`` but the push-only damper, and the dissipative force is limited to
    ``>= -F_e`` when clipped. They are evaluated in Python (slower than the built-in kinds,
    which are compiled).

    Parameters
    ----------
    potential : sympy expression, optional
        V(delta) [J] for delta > 0, with V(0) = 0.
    force : callable, optional
        F_e(delta) [N] (instead of `potential`).
    dissipation : sympy expression or callable, optional
        F_d(delta, rate) [N] with F_d rate >= 0 (default none).
    delta, rate : sympy.Symbol
        The symbols of the expressions.
    clip : bool
        Clip the total force at zero (no adhesion).

    Raises
    ------
    ParameterError
        Neither or both of `potential` and `force`; an expression in other symbols; V(0) != 0;
        a negative or non-finite elastic force, or a dissipative force that generates power
        (F_d rate < 0), at sampled penetrations 1e-6..1e-1 m and rates -10..10 m/s.
    """

    kind = "user"

    def __init__(self, potential=None, *, force=None, dissipation=None, delta=None, rate=None, clip=False):
        if (potential is None) == (force is None):
            raise ParameterError("a user normal law takes exactly one of `potential` (sympy) and `force` (callable)")
        self.clip = bool(clip)
        if potential is not None:
            self._from_sympy(potential, dissipation, delta, rate)
        else:
            self._from_callables(force, dissipation)
        self._check()
        self.stiffness = self._secant_stiffness()

    def _from_sympy(self, potential, dissipation, delta, rate):
        import sympy as sp

        if not isinstance(delta, sp.Symbol):
            raise ParameterError(f"`delta` must be the sympy Symbol of the penetration, got {delta!r}")
        for name, expr, allowed in (("potential", potential, {delta}), ("dissipation", dissipation, {delta, rate})):
            if expr is not None and not sp.sympify(expr).free_symbols <= allowed:
                extra = sorted(map(str, sp.sympify(expr).free_symbols - allowed))
                raise ParameterError(f"`{name}` may use only {sorted(map(str, allowed - {None}))}, got symbols {extra}")
        V = sp.sympify(potential)
        self._exprs = (V, None if dissipation is None else sp.sympify(dissipation), delta, rate)
        if V.subs(delta, 0) != 0:
            raise ParameterError(f"`potential` must vanish at delta = 0, got V(0) = {V.subs(delta, 0)}")
        self._V = sp.lambdify(delta, V, "math")
        self._F = sp.lambdify(delta, sp.diff(V, delta), "math")
        if dissipation is None:
            self._D = self._S = None
        else:
            if not isinstance(rate, sp.Symbol):
                raise ParameterError(f"`rate` must be the sympy Symbol of d(delta)/dt, got {rate!r}")
            D = sp.sympify(dissipation)
            self._D = sp.lambdify((delta, rate), D, "math")
            self._S = sp.lambdify((delta, rate), sp.diff(D, rate), "math")

    def _from_callables(self, force, dissipation):
        from scipy.integrate import quad

        self._exprs = None
        if not callable(force) or not (dissipation is None or callable(dissipation)):
            raise ParameterError("`force` and `dissipation` must be callables (or use sympy `potential`)")
        self._F = lambda d: float(force(d))
        self._V = lambda d: quad(self._F, 0.0, d, epsabs=0.0, epsrel=1e-13, limit=200)[0]
        self._D = None if dissipation is None else (lambda d, r: float(dissipation(d, r)))
        self._S = None if dissipation is None else (
            lambda d, r: (self._D(d, r + 1e-7 * (1 + abs(r))) - self._D(d, r - 1e-7 * (1 + abs(r))))
            / (2e-7 * (1 + abs(r))))

    def _check(self):
        for d in (10.0**k for k in range(-6, 0)):
            fe = float(self._F(d))
            if not (math.isfinite(fe) and fe >= 0.0):
                raise ParameterError(f"user normal law: the elastic force must be finite and >= 0, got {fe!r} "
                                     f"at delta = {d:g} m")
            for r in (-10.0, -1e-2, 1e-2, 10.0):
                if self._D is not None and not self._D(d, r) * r >= 0.0:
                    raise ParameterError(f"user normal law: the dissipative force must oppose the motion "
                                         f"(F_d rate >= 0), got F_d = {self._D(d, r)!r} at delta = {d:g} m, "
                                         f"rate = {r:g} m/s")

    def _secant_stiffness(self):
        """F_e / delta at the penetration under a 1 kg weight [N/m]: the scale the compliant
        contact's defaults (tangential stiffness) take from a law."""
        d = self.penetration_at_rest(9.81)
        return self._F(d) / d

    def potential(self, delta):
        """Elastic energy V(delta) [J] (zero for delta <= 0)."""
        return float(self._V(delta)) if delta > 0.0 else 0.0

    def elastic(self, delta):
        """Elastic force F_e = dV/d delta [N] (zero for delta <= 0)."""
        return float(self._F(delta)) if delta > 0.0 else 0.0

    def dissipative(self, delta, rate):
        """Dissipative force [N], push-only at delta <= 0 and limited to >= -F_e when clipped."""
        fd = 0.0 if self._D is None else float(self._D(max(delta, 0.0), rate))
        if self.clip or delta <= 0.0:
            fd = max(fd, -self.elastic(delta))
        return fd

    def dissipative_slope(self, delta, rate):
        """d F_d / d rate [N s/m]."""
        if self._D is None:
            return 0.0
        if (self.clip or delta <= 0.0) and self.dissipative(delta, rate) == -self.elastic(delta) and rate < 0:
            return 0.0
        return float(self._S(max(delta, 0.0), rate))

    def given(self, delta, rate):
        """``(LAW_GIVEN, F_e, F_d, slope, 0)``: the law's values for the compiled kernels."""
        return np.array((LAW_GIVEN, self.elastic(delta), self.dissipative(delta, rate),
                         self.dissipative_slope(delta, rate), 0.0))

    def penetration_at_rest(self, weight):
        """Penetration where F_e = `weight` [m] (bracketed root search)."""
        from scipy.optimize import brentq

        w = as_finite_float(weight, "weight", positive=True)
        hi = 1e-6
        while self._F(hi) < w:
            hi *= 2.0
            if hi > 1e3:
                raise ParameterError(f"user normal law: the elastic force never reaches {w:g} N below 1 km")
        return brentq(lambda d: self._F(d) - w, 0.0, hi, xtol=1e-15, rtol=1e-13)

    def __repr__(self):
        return f"UserNormalLaw(clip={self.clip})"


def law_to_spec(law):
    """A normal law as a JSON-ready dict (model files): a built-in law by its parameters, a
    user law by its sympy expressions (as strings) and symbol names.

    Raises
    ------
    SerializationError
        For a user law given as Python callables (code is not saved).
    """
    if isinstance(law, LocalHertzLaw):
        return {"kind": "local_hertz", "modulus": float(law.modulus), "damping": float(law.damping),
                "clip": bool(law.clip)}
    if isinstance(law, NormalLaw):
        return {"kind": law.kind, "stiffness": float(law.stiffness), "damping": float(law.damping),
                "exponent": float(law.exponent), "clip": bool(law.clip)}
    if isinstance(law, UserNormalLaw) and law._exprs is not None:
        V, D, d, r = law._exprs
        return {"kind": "user", "potential": str(V), "dissipation": None if D is None else str(D),
                "delta": str(d), "rate": None if r is None else str(r), "clip": law.clip}
    raise SerializationError(f"{law!r} was given as Python callables, which are not saved to files; give it as "
                             "sympy expressions (`potential`, `dissipation`)")


def law_from_spec(spec):
    """Rebuild a normal law from `law_to_spec` output."""
    if not isinstance(spec, dict) or "kind" not in spec:
        raise SerializationError(f"a normal law spec is a dict with a 'kind', got {spec!r}")
    if spec["kind"] == "local_hertz":
        return LocalHertzLaw(**{k: v for k, v in spec.items() if k != "kind"})
    if spec["kind"] != "user":
        return NormalLaw(**spec)
    import sympy as sp

    d = sp.Symbol(spec["delta"])
    r = None if spec.get("rate") is None else sp.Symbol(spec["rate"])
    names = {spec["delta"]: d} | ({spec["rate"]: r} if r is not None else {})
    D = None if spec.get("dissipation") is None else sp.sympify(spec["dissipation"], locals=names)
    return UserNormalLaw(potential=sp.sympify(spec["potential"], locals=names), dissipation=D, delta=d, rate=r,
                         clip=spec.get("clip", False))
