"""A point mass in n dimensions that knows its position, and a rod (distance) constraint on it."""

from __future__ import annotations

import numpy as np

from porthamiltonian._validate import as_array, as_finite_float
from porthamiltonian.bondgraph.element import ConstraintElement, StorageElement, register_element
from porthamiltonian.bondgraph.ports import Port, StateBlock, StateRef
from porthamiltonian.errors import ParameterError

__all__ = ["PointMass", "DistanceConstraint"]


@register_element
class PointMass(StorageElement):
    """Point mass with position r and momentum p in R^n; one I-type port "p" (velocity).

    ``H = |p|^2 / (2 m)``. Structure on z = (r, p): dr/dt = p/m, dp/dt = e (the port effort), i.e.
    J = [[0, I], [-I, 0]], B = [0; I]. The port accepts several bonds (forces add up).

    Parameters
    ----------
    name : str
    mass : float [kg]
        Positive.
    dim : int
        Space dimension n (2 for planar, 3 for spatial).
    r0, p0 : array_like, shape (n,), optional
        Default initial position [m] and momentum [kg m/s].
    """

    type_name = "PointMass"

    def __init__(self, name, mass, *, dim=3, r0=None, p0=None):
        super().__init__(name)
        self.mass = as_finite_float(mass, f"{name}.mass", positive=True)
        if not isinstance(dim, int) or dim < 1:
            raise ParameterError(f"`{name}.dim` must be a positive integer, got {dim!r}")
        self.dim = dim
        self.r0 = np.zeros(dim) if r0 is None else as_array(r0, f"{name}.r0", (dim,))
        self.p0 = np.zeros(dim) if p0 is None else as_array(p0, f"{name}.p0", (dim,))

    def ports(self):
        return (Port("p", self.dim, "in", multi=True),)

    def port_types(self):
        return ("I",)

    def state_blocks(self):
        return (
            StateBlock("r", self.dim, "configuration", default=self.r0),
            StateBlock("p", self.dim, "energy", default=self.p0),
        )

    def energy(self, x, refs=()):
        p = x[self.dim :]
        return 0.5 * float(p @ p) / self.mass

    def outputs(self, t, x, refs):
        return (x[self.dim :] / self.mass,)

    def rates(self, t, x, refs, inputs):
        return np.concatenate((x[self.dim :] / self.mass, inputs[0]))

    def input_matrix(self, t, x, refs):
        n = self.dim
        return np.vstack((np.zeros((n, n)), np.eye(n)))

    def output_jacobian(self, t, x, refs):
        n = self.dim
        return np.hstack((np.zeros((n, n)), np.eye(n) / self.mass))

    def gradient(self, x, refs=()):
        return np.concatenate((np.zeros(self.dim), x[self.dim :] / self.mass))

    def displace(self, x, dx):
        """Position moved by dp/m (unit time); momentum unchanged."""
        out = np.array(x, dtype=float)
        out[: self.dim] += dx[self.dim :] / self.mass
        return out

    def structure(self, t, x, refs):
        n = self.dim
        J = np.block([[np.zeros((n, n)), np.eye(n)], [-np.eye(n), np.zeros((n, n))]])
        return J, self.input_matrix(t, x, refs)

    def parameters(self):
        return {"mass": self.mass, "dim": self.dim, "r0": self.r0.tolist(), "p0": self.p0.tolist()}


@register_element
class DistanceConstraint(ConstraintElement):
    """Keeps a point mass at a fixed distance from an anchor (a massless rigid rod).

    Gap ``g = |r - a| - L``; with ``n = (r - a)/|r - a|`` and v the mass velocity at the port:
    ``c = n . v = dg/dt``, and ``dc/dt = n . dv/dt + (|v|^2 - (n . v)^2) / |r - a|``.
    The multiplier is the rod tension: a positive value pulls the mass toward the anchor.
    Bond the mass to the rod (``bg.connect((mass, "p"), rod)``): the rod's equations assume
    its port flow is the mass velocity, which compile checks.

    Parameters
    ----------
    name : str
    mass : PointMass
        The constrained mass (its port "p" must be bonded to this element's port "p").
    length : float [m]
        Rod length, positive.
    anchor : array_like, shape (n,)
        Fixed anchor point [m].
    stabilization : (float, float), optional
        Baumgarte (alpha, beta) [1/s]; default: the compile option.
    """

    type_name = "DistanceConstraint"

    def __init__(self, name, mass, length, *, anchor=None, stabilization=None):
        super().__init__(name)
        if not isinstance(mass, PointMass):
            raise ParameterError(f"`{name}.mass` must be a PointMass, got {mass!r}")
        self.mass = mass
        self.length = as_finite_float(length, f"{name}.length", positive=True)
        self.anchor = np.zeros(mass.dim) if anchor is None else as_array(anchor, f"{name}.anchor", (mass.dim,))
        self.stabilization = None if stabilization is None else tuple(float(s) for s in stabilization)
        self.n = mass.dim

    @property
    def n_constraints(self):
        return 1

    def ports(self):
        return (Port("p", self.n, "in"),)

    def state_refs(self):
        return (StateRef(self.mass, "r"),)

    def port_bindings(self):
        return {"p": (self.mass, "p")}

    def _unit(self, refs):
        d = refs[0] - self.anchor
        L = np.sqrt(d @ d)
        return d / L, L

    def jacobian(self, t, x, refs):
        return self._unit(refs)[0][None, :]

    def acceleration_bias(self, t, x, refs, flows):
        n, L = self._unit(refs)
        v = flows[0]
        vn = n @ v
        return np.array([(v @ v - vn * vn) / L])

    def gap(self, t, x, refs):
        return np.array([self._unit(refs)[1] - self.length])

    def parameters(self):
        return {"mass": self.mass, "length": self.length, "anchor": self.anchor.tolist(),
                "stabilization": list(self.stabilization) if self.stabilization else None}
