"""The abstract Element and the element categories the compiler understands.

The core engine knows no physics: it knows seven categories of element and the kernels
each one provides. Physical components (rigid bodies, springs, joints, contacts) are
subclasses of these categories living in `porthamiltonian.library`.

Kernel conventions (all kernels are pure functions of their arguments, called on the hot
path without validation):

- ``t`` is the time [s], ``x`` the element's own state (its blocks concatenated, shape
  ``(n_x,)``), ``refs`` a tuple of the referenced state blocks (in the order of
  `Element.state_refs`), ``inputs``/``outputs`` tuples with one array per port (port order).
- Port variables use the element's own sign convention: with orientation "in", e . f is
  the power flowing into the element.

Categories
----------
source      Se/Sf: imposes the effort or the flow of its single port.
storage     stores energy H(x, refs) and has integral causality at every port: a "C" port
            outputs an effort y = dH/d(...), an "I" port outputs a flow. Port-Hamiltonian
            structure on the extended state z = (x, refs):
                dz/dt = J_e(z) grad H(z) + B_e(z) inputs,   outputs = B_e(z)^T grad H(z)
            (only the own part of dz/dt is integrated; referenced blocks are integrated by
            their owner).
resistor    static relation between efforts and flows, dissipating P = sum e . f >= 0.
junction    0- and 1-junctions (handled natively).
twoport     TF/GY and their modulated versions (handled natively from a modulus).
constraint  ideal constraint: receives the flows at its ports, imposes efforts
            J^T lambda; the constraint c = J f + b = 0 is enforced at acceleration level
            (dc/dt = J df/dt + beta) with Baumgarte terms on c and, if available, the gap g.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Callable, ClassVar, NamedTuple

import numpy as np

from ..errors import ModelError
from .ports import EFFORT_OUT, Port, StateBlock, StateRef, check_name

__all__ = [
    "Element",
    "SourceElement",
    "StorageElement",
    "ResistorElement",
    "TwoPortElement",
    "ConstraintElement",
    "JunctionElement",
    "EventSpec",
    "EventOutcome",
    "ELEMENT_TYPES",
    "register_element",
    "fd_jacobian",
    "Kernel",
]

#: Registry of element classes by `type_name`, used by save/load.
ELEMENT_TYPES: dict[str, type] = {}


def register_element(cls):
    """Class decorator: make an element type known to `load` by its `type_name`."""
    name = cls.type_name
    if name in ELEMENT_TYPES and ELEMENT_TYPES[name] is not cls:
        raise ModelError(f"element type name {name!r} is registered twice")
    ELEMENT_TYPES[name] = cls
    return cls


def fd_jacobian(fun, x, eps=None):
    """Central finite-difference Jacobian of ``fun`` at ``x`` (fallback for missing analytic ones).

    Parameters
    ----------
    fun : callable
        ``fun(x) -> ndarray, shape (m,)``.
    x : ndarray, shape (n,)
    eps : float, optional
        Step; default ``1e-6 * max(1, |x_i|)`` per component (error ~1e-10 relative).

    Returns
    -------
    ndarray, shape (m, n)
    """
    x = np.asarray(x, dtype=float)
    cols = []
    for i in range(x.size):
        h = (1e-6 * max(1.0, abs(x[i]))) if eps is None else eps
        xp = x.copy()
        xm = x.copy()
        xp[i] += h
        xm[i] -= h
        cols.append((np.atleast_1d(fun(xp)) - np.atleast_1d(fun(xm))) / (2 * h))
    if not cols:
        return np.zeros((np.atleast_1d(fun(x)).size, 0))
    return np.stack(cols, axis=-1)


@dataclass(frozen=True)
class EventOutcome:
    """What an event handler returns.

    Attributes
    ----------
    x : ndarray
        The element's new own state.
    lost : float
        Energy removed from the system by the state change [J] (positive = lost). It is
        entered in the ledger under the element's name.
    message : str
        Human-readable description for the trajectory's event log.
    impulse : ndarray or callable, optional
        For a constraint element: target values of its velocity residuals c right after the
        event, or a callable mapping the residuals just before to the targets (a Newton
        impact: c -> -e c). The simulator then
        applies the impulse that reaches them while keeping every other constraint's velocity
        residual unchanged (`PHSystem.apply_impulse`); the kinetic energy it removes is
        added to `lost`.
    """

    x: np.ndarray
    lost: float = 0.0
    message: str = ""
    impulse: object = None
    x_after: object = None


@dataclass(frozen=True)
class EventSpec:
    """A state event declared by an element.

    Attributes
    ----------
    name : str
        Event name (reported in the trajectory's event log as "element.name").
    function : callable
        ``function(t, x, refs) -> float``; the event fires at a zero crossing.
    direction : float
        +1 fires on increasing crossings only, -1 on decreasing, 0 on both.
    handler : callable
        ``handler(t, x, refs) -> EventOutcome``: the new own state and the energy lost.
    uses_system : bool
        If True, `function` is called as ``function(system, t, x_full)`` (for events on
        quantities only the whole system knows, such as a constraint's multiplier).
    joins_impact : callable, optional
        For a detached unilateral contact's impact event: ``joins_impact(t, x, refs) ->
        bool``, whether the contact is close enough (its stated tolerance) to take part in an
        impulse happening elsewhere now; it then joins that impulse as a simultaneous Newton
        impact, with this event's `handler` outcome (`PHSystem.apply_impulse`).
    past_start : bool
        A segment that starts with `function` already past its zero in `direction` (a
        contact released, or left detached, inside its surface) measures the crossing from
        that start value instead of from zero (`porthamiltonian.integrate.events.wrap_event`):
        the event fires when the function goes further past it (the contact coming back
        deeper than it was), or at once if it is going there at the start. Without it such
        a start could never fire in its segment (Go1's feet, released 7e-7 m inside the ground
        by another foot's impact, sank 21 cm through it, issue 33).
    """

    name: str
    function: Callable
    direction: float
    handler: Callable
    uses_system: bool = False
    joins_impact: Callable | None = None
    past_start: bool = False


class Kernel(NamedTuple):
    """A compiled kernel an element exports (`Element.kernel`) for the compiled right-hand side.

    Attributes
    ----------
    function : numba dispatcher
        A module-level kernel compiled by `porthamiltonian.kernels._njit.njit` (the generated
        code imports it by its module and name). Signatures by role, ``F, I`` always last::

            "outputs"  (t, x, refs, F, I) -> tuple, one array per port
            "rates"    (t, x, refs, inputs, F, I) -> ndarray (n_x,)
            "law"      (t, inputs, refs, F, I) -> tuple, one array per port (the first
                       causal pattern; an element exports a law kernel only if its
                       preferred pattern is the one assigned)
            "events"   (t, x, refs, F, I) -> values: the values of the event functions
                       of `Element.events`, in order (computed with the rates at every
                       evaluation, so they should cost little); a constraint element's
                       takes its multipliers too, (t, x, refs, lam, F, I) (a unilateral
                       contact's detach event is its normal multiplier's zero)

        with ``refs`` and ``inputs`` tuples of 1-D arrays, as for the Python methods.
    F : ndarray of float64, I : ndarray of int64
        The element's packed constants.
    shares : bool
        An outputs kernel whose last returned value is not a port output, or a constraint's
        terms kernel returning a fourth value: a value other kernels of the same evaluation
        read (a contact's geometry, computed once).
    reads : Element or None
        The element whose shared value this kernel takes as an argument after the others
        (before ``F, I``).
    refs : tuple of int or None
        The ``refs`` tuple the kernel takes, as positions in the element's `state_refs`, -1
        for an empty array; None: the element's references as they are. A kernel whose
        elements have a varying number of references (a contact with a fixed body has no
        pose of it) takes them padded to one length, so numba compiles it once for all of
        them (each tuple length is a separate specialization: seconds of first-run JIT).
    idle : int, tuple of int, compiled function, or None
        For a kernel that reads a contact's shared value (`reads`): what it returns while
        that value's entry 1 is 1.0, the contact culled by its bounding test (bodies provably
        apart, not touching: `porthamiltonian.kernels.compliant`). Zeros: an int, one array
        of that length (rates); a tuple, one array per entry (a law's port efforts or flows).
        Or a kernel ``(t, x, gap, F, I)`` computing it from the shared value's entry 2 alone
        (the events: `porthamiltonian.kernels.compliant.culled_events`), which `function`
        must itself return for a culled contact. The generated right-hand side then skips
        the call, or calls the cheaper kernel without the shared tuple (16 % and 7 % of an
        evaluation of the 8-foot rimless wheel on sand, whose feet are culled but
        one or two). None: always called.
    """

    function: Callable
    F: np.ndarray
    I: np.ndarray
    shares: bool = False
    reads: object = None
    refs: tuple = None
    idle: object = None

    def pad(self, refs):
        """The ``refs`` argument `function` takes, from the element's references (as the
        compiled right-hand side passes them: `refs`)."""
        if self.refs is None:
            return refs
        empty = np.zeros(0)
        return tuple(empty if k < 0 else refs[k] for k in self.refs)


class Element(ABC):
    """Abstract element of a bond graph: a name, power ports, optional state.

    Subclasses belong to exactly one category (class attribute `category`) and implement the
    kernels of that category. `type_name` is the key used by save/load.
    """

    type_name: ClassVar[str] = "Element"
    category: ClassVar[str] = ""
    #: the component whose statements the generated right-hand side writes together with this
    #: element's (one block, one compiled helper where the component repeats:
    #: `porthamiltonian.compile.codegen._Gen.component`); None: the element's path up to its
    #: last ``/`` (a contact's spring, damper and slip). The elements on one robot joint name it.
    component: str | None = None

    def __init__(self, name):
        self.name = check_name(name)

    # ----------------------------------------------------------------- declaration
    @abstractmethod
    def ports(self) -> tuple[Port, ...]:
        """The element's ports, in kernel order."""

    def port(self, name) -> Port:
        """The port called `name`; raises ModelError listing the valid names."""
        for p in self.ports():
            if p.name == name:
                return p
        names = [p.name for p in self.ports()]
        raise ModelError(f"{self.label} has no port {name!r}; its ports are {names}")

    def state_blocks(self) -> tuple[StateBlock, ...]:
        """Blocks of the state vector owned (and integrated) by this element."""
        return ()

    def state_refs(self) -> tuple[StateRef, ...]:
        """State blocks of other elements that this element reads."""
        return ()

    def events(self) -> tuple[EventSpec, ...]:
        """State events of this element."""
        return ()

    def port_bindings(self) -> dict:
        """Ports that must carry the flow of a given port of another element.

        port name -> (element, port name). An element whose equations assume that its port
        flow *is* another element's port flow (a spring reading a body's pose assumes it sees
        that body's twist) declares it here; `compile` checks the two ports are joined
        through 1-junctions with the same sign, and explains how to bond them otherwise.
        """
        return {}

    @property
    def n_states(self) -> int:
        """Size of the element's own state vector."""
        return sum(b.size for b in self.state_blocks())

    @property
    def label(self) -> str:
        """Short label "type:name" used in reports and drawings."""
        return f"{self.type_name}:{self.name}"

    def default_state(self) -> np.ndarray:
        """Default initial own state (the blocks' defaults concatenated)."""
        blocks = self.state_blocks()
        return np.concatenate([b.default for b in blocks]) if blocks else np.zeros(0)

    def initialize(self, t, x, refs):
        """Complete an initial own state from the configuration (e.g. contact points found by
        a global search). Called by `PHSystem.initial_state`; must be idempotent. Default:
        return `x` unchanged."""
        return x

    def normalize_state(self, x):
        """Project the own state onto its manifold (unit quaternions); returns a new array."""
        x = np.array(x, dtype=float)
        i = 0
        for b in self.state_blocks():
            if b.group in ("pose", "quaternion"):
                q = x[i : i + 4]
                n = np.linalg.norm(q)
                if n > 0:
                    x[i : i + 4] = q / n
            i += b.size
        return x

    def validate_state(self, x, name):
        """Check a user-given own state (e.g. unit quaternions); raise ParameterError."""
        from .._validate import as_array

        x = as_array(x, name, (self.n_states,))
        i = 0
        for b in self.state_blocks():
            if b.group in ("pose", "quaternion"):
                n = np.linalg.norm(x[i : i + 4])
                if abs(n - 1.0) > 1e-9:
                    from ..errors import ParameterError

                    raise ParameterError(
                        f"`{name}`: block {b.name!r} of {self.label} holds a quaternion of norm "
                        f"{n:.12g}; it must be a unit quaternion (|q| = 1 to 1e-9)"
                    )
            i += b.size
        return x

    def kernel(self, role):
        """The compiled kernel of `role` ("outputs", "rates", "law" or "events"), a `Kernel`, or None
        (the default: the model is then evaluated in Python). Called once, at compile time."""
        return None

    # ----------------------------------------------------------------- persistence
    def parameters(self) -> dict:
        """JSON-ready parameters; `from_parameters(name, params, resolve)` rebuilds the element."""
        from ..errors import SerializationError

        raise SerializationError(
            f"{self.label}: elements of type {type(self).__name__} cannot be saved to a file"
        )

    @classmethod
    def from_parameters(cls, name, params, resolve):
        """Rebuild from `parameters()`; `resolve(path)` returns a referenced element object."""
        return cls(name, **params)

    def copy(self):
        """A deep copy (references to other elements are copied too; see BondGraph.copy)."""
        return copy.deepcopy(self)

    def __repr__(self):
        return f"<{type(self).__name__} {self.name!r}>"


class SourceElement(Element):
    """Se or Sf: imposes one variable at its single port (orientation "out": supplies power).

    Subclasses set `role` (EFFORT_OUT for Se, FLOW_OUT for Sf) and implement `value`.
    External inputs: if `input_dim` > 0 the value is read from the input vector u.
    """

    category = "source"
    role: ClassVar[str] = EFFORT_OUT
    input_dim: int = 0

    @abstractmethod
    def value(self, t, u):
        """The imposed variable at time t (u: this source's slice of the input vector)."""

    def value_rate(self, t):
        """Time derivative of `value` (needed only when the source drives a constraint)."""
        raise ModelError(f"{self.label} cannot provide the time derivative of its value")


class StorageElement(Element):
    """Energy-storing element with integral causality at all its ports (see module docs)."""

    category = "storage"

    @abstractmethod
    def port_types(self) -> tuple[str, ...]:
        """"C" (outputs effort) or "I" (outputs flow) for each port, in port order."""

    @abstractmethod
    def energy(self, x, refs) -> float:
        """Stored energy H(x, refs) [J]."""

    @abstractmethod
    def outputs(self, t, x, refs):
        """Port outputs (efforts at C ports, flows at I ports), tuple in port order."""

    @abstractmethod
    def rates(self, t, x, refs, inputs):
        """Rate of the own state, dx/dt, shape (n_x,), given the port inputs."""

    @abstractmethod
    def input_matrix(self, t, x, refs):
        """d(dx/dt)/d(inputs), shape (n_x, sum of port dims): rates are affine in inputs."""

    def linear_matrices(self):
        """Constant matrices (A, B, C) if the storage is linear, else None (the default).

        A linear storage reads no other state and obeys, at all times,
        ``dx/dt = A x + B inputs`` and ``outputs = C x`` (shapes (n_x, n_x),
        (n_x, sum of port dims), (sum of port dims, n_x)). `compile` then assembles it with
        the rest of the graph's linear part into matrices instead of calling its kernels.
        """
        return None

    def output_jacobian(self, t, x, refs):
        """d(outputs)/dx, shape (sum of port dims, n_x). Default: finite differences."""
        return fd_jacobian(lambda z: np.concatenate(self.outputs(t, z, refs)), x)

    def output_ref_rate(self, t, x, refs, ref_rates):
        """Part of d(outputs)/dt due to the referenced blocks moving (and explicit t).

        Default: central finite difference along the referenced rates.
        """
        if not refs:
            return np.zeros(sum(p.dim for p in self.ports()))
        h = 1e-6
        rp = tuple(r + h * d for r, d in zip(refs, ref_rates))
        rm = tuple(r - h * d for r, d in zip(refs, ref_rates))
        return (np.concatenate(self.outputs(t, x, rp)) - np.concatenate(self.outputs(t, x, rm))) / (2 * h)

    def displace(self, x, dx):
        """Move the configuration blocks of the own state for a position projection.

        `dx` is the change of the own state that a constraint impulse would make (momenta);
        return the state whose configuration has moved, for one unit of time, at the velocity
        that this momentum change produces (momenta unchanged). Default: no configuration
        block, the state is returned unchanged.
        """
        return x

    # ---- analysis (not on the hot path)
    def gradient(self, x, refs):
        """grad H over the extended state z = (x, refs...), shape (n_z,). Default: FD."""
        z = np.concatenate([x, *refs]) if refs else np.asarray(x, float)
        sizes = [len(x)] + [len(r) for r in refs]
        return fd_jacobian(lambda zz: np.array([self.energy(*_split_z(zz, sizes))]), z)[0]

    def structure(self, t, x, refs):
        """(J_e, B_e) on the extended state z = (x, refs): dz/dt = J_e grad H + B_e inputs."""
        raise ModelError(f"{self.label} does not provide its structure matrices (J_e, B_e)")


def _split_z(z, sizes):
    parts = np.split(z, np.cumsum(sizes)[:-1])
    return parts[0], tuple(parts[1:])


class ResistorElement(Element):
    """Static dissipative relation between efforts and flows at its ports.

    `causalities()` lists the allowed causal patterns (tuples of EFFORT_OUT/FLOW_OUT per port)
    in order of preference; `law(k, t, inputs, refs)` evaluates pattern k.
    """

    category = "resistor"
    linear: ClassVar[bool] = False

    @abstractmethod
    def causalities(self) -> tuple[tuple[str, ...], ...]:
        """Allowed causal patterns, preferred first."""

    @abstractmethod
    def law(self, k, t, inputs, refs):
        """Outputs (tuple per port) of pattern k given the inputs (tuple per port)."""

    def linear_matrix(self, k):
        """Constant matrix M with outputs = M inputs in pattern k (ports concatenated, shape
        (sum dims, sum dims)) if the law is linear, reads no state and does not depend on
        time; else None (the default). `compile` assembles such resistors into matrices."""
        return None

    def law_jacobian(self, k, t, inputs, refs):
        """d(outputs)/d(inputs) of pattern k, shape (sum dims, sum dims). Default: FD."""
        dims = [p.dim for p in self.ports()]

        def f(z):
            parts = tuple(np.split(z, np.cumsum(dims)[:-1]))
            return np.concatenate(self.law(k, t, parts, refs))

        return fd_jacobian(f, np.concatenate(inputs))


class TwoPortElement(Element):
    """TF or GY (constant or modulated) between ports p1 (orientation in) and p2 (out).

    Transformer ("TF"):  f2 = m f1,  e1 = m^T e2      (m: shape (n2, n1))
    Gyrator ("GY"):      e2 = m f1,  e1 = m^T f2      (m: shape (n2, n1))
    Both conserve power: e1 . f1 = e2 . f2.
    """

    category = "twoport"
    kind: ClassVar[str] = "TF"

    @abstractmethod
    def modulus(self, t, refs):
        """The modulus matrix, shape (n2, n1)."""

    def modulus_rate(self, t, refs, ref_rates):
        """d(modulus)/dt given the rates of the referenced blocks. Default: central FD."""
        h = 1e-6
        rp = tuple(r + h * d for r, d in zip(refs, ref_rates))
        rm = tuple(r - h * d for r, d in zip(refs, ref_rates))
        return (self.modulus(t + h, rp) - self.modulus(t - h, rm)) / (2 * h)

    @property
    def modulated(self) -> bool:
        """True if the modulus depends on time or state."""
        return False

    def linear_matrix(self):
        """The constant modulus, shape (n2, n1), or None if it is modulated. `compile`
        assembles two-ports with a constant modulus into matrices."""
        return None if self.modulated else np.asarray(self.modulus(0.0, ()), dtype=float)

    def invertible(self) -> bool:
        """Whether the reverse causality (needs the inverse modulus) is allowed."""
        return False


class ConstraintElement(Element):
    """Ideal constraint c = J f + b = 0 on the flows at its ports (see module docs).

    Implementations provide the Jacobian J with respect to the port flows, the velocity
    bias b (rheonomic terms), the acceleration bias beta (dc/dt = J df/dt + beta, the part
    without port accelerations) and optionally the position-level gap g with dg/dt = c.
    """

    category = "constraint"
    #: Baumgarte parameters (alpha [1/s], beta [1/s]) or None for the compile default.
    stabilization: tuple[float, float] | None = None
    #: Softening gamma >= 0 (Drake, *Contact surface constraints*): the rows become dc/dt + ... + gamma lambda = 0, a
    #: compliant constraint; 0 is ideal.
    softening: float = 0.0

    @property
    @abstractmethod
    def n_constraints(self) -> int:
        """Number of scalar constraint equations (and multipliers)."""

    @abstractmethod
    def jacobian(self, t, x, refs):
        """J, shape (n_c, sum of port dims)."""

    def velocity_bias(self, t, x, refs):
        """b, shape (n_c,). Default zero (scleronomic)."""
        return np.zeros(self.n_constraints)

    @abstractmethod
    def acceleration_bias(self, t, x, refs, flows):
        """beta, shape (n_c,): dc/dt minus J df/dt."""

    def gap(self, t, x, refs):
        """Position-level gap g, shape (n_c,), with NaN rows where none exists. Default: none."""
        return np.full(self.n_constraints, np.nan)

    def terms(self, t, x, refs):
        """(J, b, g) in one call; the compiled right-hand side uses this.

        Override it when the three share expensive work (a joint computes its relative pose
        once); the default calls `jacobian`, `velocity_bias` and `gap`.
        """
        return self.jacobian(t, x, refs), self.velocity_bias(t, x, refs), self.gap(t, x, refs)

    def effort_map(self, t, x, refs, flows):
        """D, shape (n_c, sum of port dims): the port efforts are D^T lambda.

        Default (not overridden): D = J, an ideal (workless up to drift) constraint. A
        different D makes the constraint force non-associated, e.g. Coulomb friction
        proportional to a normal multiplier; the extra power lambda . (D - J) f is booked as
        dissipated in the ledger (it must be >= 0).
        """
        return None

    def active(self, x):
        """Mask of active rows, shape (n_c,), from the element's discrete state. Default all."""
        return np.ones(self.n_constraints)

    def released(self, x):
        """For an impulse at another constraint (`PHSystem.apply_impulse`): this element's own
        state with its contact released, if it is a unilateral contact now active whose first
        multiplier is its compressive normal force; None otherwise (the default: bilateral
        constraints never release)."""
        return None

    def impact_friction(self, q):
        """For an impulse (`PHSystem.apply_impulse`): the factor that scales the non-associated
        part of the first row of the effort map, D_0 - J_0, frozen at the state before the
        impulse, to the friction an impulse carries (Coulomb's mu Lambda_0 along the slip
        before it), given ``q = (D_0 - J_0) . f`` at the flows f before [W per unit of the
        first multiplier]; None if the impulse carries no friction (the default: an impulse is
        directed by J alone)."""
        return None

    def stuck_state(self, system, t, x):
        """For a contact with a stick phase: its own state at the full state x with that phase
        settled (`PHSystem.release_pulling_contacts`, after every impulse and at a run's
        start); None without one (the default)."""
        return None

    def jammed(self, x):
        """For a tangential impact (`PHSystem.release_pulling_contacts`: Painlevé's paradox): the
        own state `x` stuck, if the contact is on and sliding with a stick phase; else None (the
        default). An element that returns one also answers ``in_cone(lam)``."""
        return None

    def rates(self, t, x, refs, flows):
        """Rate of the element's own (auxiliary) state. Default: none."""
        return np.zeros(self.n_states)


class JunctionElement(Element):
    """0- or 1-junction of any dimension and any number of ports (handled natively)."""

    category = "junction"
    kind: ClassVar[str] = "0"
