"""Where a driven gait's energy goes: ledger totals by category, and the cost of transport.

The energy ledger books every element; for a driven robot the questions are coarser: how
much electrical energy the batteries gave, how much of it the motors' copper burnt (Joule
heat), how much the gearboxes and rotor friction took, how much positive mechanical work the
joints did, and how much the feet and the ground took (contact damping and slip, impacts,
soil plasticity). `categorize` sorts each element's ledger entries into those categories by
the element's type and, for the motor components' resistors, by their names in
`library.motors.dc_motor` / `battery`:

    electrical       supplied by VoltageSource elements
    joint_input      supplied by JointActuator elements (torques commanded directly)
    reference        supplied by Sf:reference of a PD controller (the moving target's power)
    joule            dissipated by R at */armature and */internal
    motor_friction   dissipated by R at */viscous and */coulomb
    gearbox          dissipated by R at */gear_loss
    controller       dissipated by R at */damper of a PD controller
    contact          dissipated by ContactDamper, SlipFriction, SpatialDamper, PointDamper
    soil             dissipated by SoilDamper, SoilSlip, PlasticFlow
    impacts          lost at events (any element)
    stabilization    absorbed by constraint stabilization (numerical; should be ~0)
    other_supplied / other_dissipated   anything else

The cost of transport is ``E / (m g d)`` (dimensionless) with E the energy spent
(`TransportEnergy.spent`): the electrical energy when the model has voltage sources; else
the positive mechanical work at the joints when the model has `joint_axis` components; else
(joints of an `ArticulatedBody` driven by PD controllers or joint sources, as
``quadruped-trot``) the net energy the drive sources supplied over the window, the ledger's
"joint_input" plus "reference" (`TransportEnergy.drive_supplied`): what the moving PD
references put into the robot, net of what the robot pushed back into them. That net count
is the energy a regenerative drive would draw; it is at most the positive work.

Where the cost goes (`cost_shares`): the ledger's balance ``supplied = dH + dissipated + lost
+ stabilization - residual`` divided by ``m g d`` splits the cost of transport exactly into one
share per category, the stored change, the supplied energy that E does not count (with a minus
sign) and the residual. Two runs' costs (e.g. the same gait on compliant ground and on soil,
`compare_transport`) then differ by the differences of their shares: the ground's
(``contact``, ``soil``, ``impacts``: the plastic and slip work on soil) and the rest
(``controller``, ...), to the two ledgers' residuals. `stride_transport` gives the same per
stride of a `StrideEnergy`.

Positive mechanical work ``sum_j int max(tau_j w_j, 0) dt`` over the joint axes
(`library.actuators.joint_axis` components): the joint powers are evaluated at the
trajectory's samples (`PHSystem.port_variables`) and integrated by the trapezoid rule, so its
accuracy is that of the sampling (O(dt^2), plus the kinks where a joint's power changes
sign); every other total is the ledger's own quadrature, at integration tolerance.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass

import numpy as np

from porthamiltonian.errors import ParameterError

__all__ = ["CATEGORIES", "GROUND", "categorize", "TransportEnergy", "transport_energy", "joint_powers", "cost_shares",
           "CostComparison", "compare_transport", "stride_transport"]

#: the categories the ground takes: the feet's contact damping and slip, the soil's plastic work,
#: viscous damping and slip, the impacts
GROUND = ("contact", "soil", "impacts")

CATEGORIES = ("electrical", "joint_input", "reference", "other_supplied", "joule", "motor_friction", "gearbox",
              "controller", "contact", "soil", "other_dissipated", "impacts", "stabilization")

_SUPPLY = (("electrical", ("VoltageSource:*",)), ("joint_input", ("JointActuator:*",)),
           ("reference", ("Sf:*reference",)))
_DISSIPATION = (("joule", ("R:*armature", "R:*internal")), ("motor_friction", ("R:*viscous", "R:*coulomb")),
                ("gearbox", ("R:*gear_loss",)), ("controller", ("R:*damper",)),
                ("contact", ("ContactDamper:*", "SlipFriction:*", "SpatialDamper:*", "PointDamper:*")),
                ("soil", ("SoilDamper:*", "SoilSlip:*", "PlasticFlow:*")))


def _match(label, table, default):
    for cat, patterns in table:
        if any(fnmatch.fnmatchcase(label, p) for p in patterns):
            return cat
    return default


def categorize(labels, supplied, dissipated, lost, stabilization):
    """Sum ledger entries by category (module docs).

    Parameters
    ----------
    labels : dict
        Element path -> "Type:path" label.
    supplied, dissipated, lost, stabilization : dict
        Element path -> energy [J] (floats or arrays of one shape).

    Returns
    -------
    dict
        Category (`CATEGORIES`) -> total [J], of the entries' shape.
    """
    out = {}

    def add(cat, v):
        out[cat] = out.get(cat, 0.0) + np.asarray(v, dtype=float)

    for path, v in supplied.items():
        add(_match(labels.get(path, path), _SUPPLY, "other_supplied"), v)
    for path, v in dissipated.items():
        add(_match(labels.get(path, path), _DISSIPATION, "other_dissipated"), v)
    for v in lost.values():
        add("impacts", v)
    for v in stabilization.values():
        add("stabilization", v)
    zero = np.zeros_like(next(iter(out.values()))) if out else 0.0
    return {c: out.get(c, zero) for c in CATEGORIES}


def joint_powers(traj, inputs=None):
    """Power tau w into every joint axis at the trajectory's samples [W].

    Parameters
    ----------
    traj : Trajectory
    inputs : None, array_like or callable, optional
        The external inputs the trajectory was simulated with (as given to `simulate`):
        needed when input sources drive the joints, else their torques read as zero.

    Returns
    -------
    dict
        Component path of a `joint_axis` -> ndarray, shape (N,): the sum over its
        `JointAxisMap` elements of the power they pass to the bodies.
    """
    system = traj.system
    flat = system.report.flat
    maps = {p: p.rsplit("/", 1)[0] for p, e in flat.elements.items() if e.type_name == "JointAxisMap"}
    out = {axis: np.zeros(traj.t.size) for axis in dict.fromkeys(maps.values())}
    for k, (t, x) in enumerate(zip(traj.t, traj.x)):
        u = None if inputs is None else (inputs(t, x) if callable(inputs) else np.asarray(inputs, dtype=float))
        pv = system.port_variables(t, x, u)
        for path, axis in maps.items():
            e, f = pv[(path, "p2")]
            out[axis][k] += float(e @ f)   # power into the map at p2 = power it passes to the body
    return out


@dataclass(frozen=True)
class TransportEnergy:
    """Energy totals of a driven motion over a time window, and its cost of transport.

    Attributes
    ----------
    t0, t1 : float [s]
    by_category : dict
        `CATEGORIES` -> energy [J] over the window.
    positive_work : float [J]
        sum over joints of int max(tau w, 0) dt (trapezoid on the samples).
    mass : float [kg]
    distance : float [m]
    g : float [m/s^2]
    stored_change : float [J]
        H(t1) - H(t0).
    residual : float [J]
        The ledger's residual over the window.
    """

    t0: float
    t1: float
    by_category: dict
    positive_work: float
    mass: float
    distance: float
    g: float
    stored_change: float
    residual: float

    @property
    def electrical(self):
        """Electrical energy supplied [J]."""
        return float(self.by_category["electrical"])

    @property
    def drive_supplied(self):
        """Net energy supplied by the mechanical drives [J]: the ledger's "joint_input"
        (JointActuator) plus "reference" (the PD controllers' moving references)."""
        return float(self.by_category["joint_input"]) + float(self.by_category["reference"])

    @property
    def spent(self):
        """The energy the cost of transport counts [J] (module docs): electrical if any, else
        the positive work at joint axes if any, else `drive_supplied`."""
        if self.electrical != 0.0:
            return self.electrical
        return self.positive_work if self.positive_work != 0.0 else self.drive_supplied

    @property
    def cost_of_transport(self):
        """E / (m g d), dimensionless, with E = `spent`."""
        return self.spent / (self.mass * self.g * self.distance)

    @property
    def mechanical_cost_of_transport(self):
        """positive work / (m g d)."""
        return self.positive_work / (self.mass * self.g * self.distance)

    def table(self):
        """A text table of the totals."""
        lines = [f"t = {self.t0:.6g} .. {self.t1:.6g} s, distance {self.distance:.6g} m, mass {self.mass:.6g} kg"]
        for c in CATEGORIES:
            v = float(self.by_category[c])
            if v != 0.0:
                lines.append(f"  {c:18s} {v:14.6g} J")
        lines.append(f"  {'positive work':18s} {self.positive_work:14.6g} J")
        lines.append(f"  {'drive supplied':18s} {self.drive_supplied:14.6g} J")
        lines.append(f"  {'stored change':18s} {self.stored_change:14.6g} J  (ledger residual {self.residual:.3g} J)")
        lines.append(f"  cost of transport  {self.cost_of_transport:.6g}  (mechanical {self.mechanical_cost_of_transport:.6g})")
        return "\n".join(lines)

    def __str__(self):
        return self.table()


def transport_energy(traj, *, mass, distance, g=9.81, t0=None, t1=None, inputs=None):
    """Totals by category and the cost of transport over [t0, t1] (module docs).

    Parameters
    ----------
    traj : Trajectory
    mass : float [kg]
        Total mass moved (> 0).
    distance : float [m]
        Distance travelled over the window (> 0; e.g. the base's forward displacement).
    g : float [m/s^2]
    t0, t1 : float, optional
        The window, snapped to the nearest samples (default the whole trajectory).
    inputs : optional
        The trajectory's external inputs (`joint_powers`).

    Raises
    ------
    ParameterError
        A non-positive mass, distance or g, or an empty window.
    """
    for key, v in (("mass", mass), ("distance", distance), ("g", g)):
        if not (np.isfinite(v) and v > 0):
            raise ParameterError(f"`{key}` must be a positive finite number, got {v!r}")
    budget = traj.power_budget()
    t = np.asarray(budget.t)
    i0 = 0 if t0 is None else int(np.argmin(np.abs(t - t0)))
    i1 = t.size - 1 if t1 is None else int(np.argmin(np.abs(t - t1)))
    if i1 <= i0:
        raise ParameterError(f"the window [{t0}, {t1}] holds no interval of the trajectory's samples")

    def window(series):
        return {p: float(np.asarray(v)[i1] - np.asarray(v)[i0]) for p, v in series.items()}

    e = budget.entries
    cats = categorize(budget.labels, window(e["supplied"]), window(e["dissipated"]), window(e["lost"]),
                      window(e["stabilization"]))
    cats = {c: float(v) for c, v in cats.items()}
    pos = 0.0
    sl = slice(i0, i1 + 1)
    for P in joint_powers(traj, inputs).values():
        pos += float(np.trapezoid(np.maximum(P[sl], 0.0), t[sl]))
    res = np.asarray(budget.residual)
    H = np.asarray(budget.H)
    return TransportEnergy(float(t[i0]), float(t[i1]), cats, pos, float(mass), float(distance), float(g),
                           float(H[i1] - H[i0]), float(res[i1] - res[i0]))


#: the categories whose energy leaves the robot (a share each in `cost_shares`)
_SINKS = ("joule", "motor_friction", "gearbox", "controller", "contact", "soil", "other_dissipated", "impacts",
          "stabilization")
_SOURCES = ("electrical", "joint_input", "reference", "other_supplied")


def cost_shares(energy):
    """The cost of transport split into shares that add up to it exactly (module docs).

    With ``S`` everything supplied, ``E`` the energy counted (`TransportEnergy.spent`) and the
    ledger's residual ``r = dH - S + D + L + stab``::

        E / (m g d) = sum over sinks of E_c / (m g d) + dH / (m g d) - (S - E) / (m g d) - r / (m g d)

    Parameters
    ----------
    energy : TransportEnergy

    Returns
    -------
    dict
        One share each [-]: the sink categories (``joule``, ..., ``controller``, ``contact``,
        ``soil``, ``impacts``, ``stabilization``), ``"stored"`` (dH), ``"not_counted"`` (minus
        the supplied energy E does not count), ``"residual"`` (minus the ledger's residual).
        Their sum is `TransportEnergy.cost_of_transport` to round-off.
    """
    scale = energy.mass * energy.g * energy.distance
    cats = energy.by_category
    supplied = sum(float(cats[c]) for c in _SOURCES)
    out = {c: float(cats[c]) / scale for c in _SINKS}
    out["stored"] = energy.stored_change / scale
    out["not_counted"] = -(supplied - energy.spent) / scale
    out["residual"] = -energy.residual / scale
    return out


@dataclass(frozen=True)
class CostComparison:
    """How the cost of transport of run `b` differs from run `a`'s (`compare_transport`).

    Attributes
    ----------
    a, b : TransportEnergy
    shares : dict
        Share name (`cost_shares`) -> share of b minus share of a [-]; they add up to
        `difference`.
    """

    a: TransportEnergy
    b: TransportEnergy
    shares: dict

    @property
    def difference(self):
        """CoT(b) - CoT(a) [-]."""
        return self.b.cost_of_transport - self.a.cost_of_transport

    @property
    def ground(self):
        """The ground's part of the difference [-]: the shares of `GROUND` (contact damping
        and slip, the soil's plastic work, damping and slip, impacts)."""
        return sum(self.shares[c] for c in GROUND)

    @property
    def rest(self):
        """Everything else that the ledgers book [-]: the drive's losses (controller, motors),
        the stored change and the supplied energy not counted."""
        return sum(v for c, v in self.shares.items() if c not in GROUND and c != "residual")

    @property
    def closure(self):
        """``difference - ground - rest`` [-]: what the two ledgers leave unbooked (their
        residuals' shares; compare with the costs themselves, the energies spent over m g d)."""
        return self.difference - self.ground - self.rest

    def table(self):
        """A text table of both runs' shares and their differences."""
        sa, sb = cost_shares(self.a), cost_shares(self.b)
        lines = [f"{'share of the cost of transport':32s} {'a':>10s} {'b':>10s} {'b - a':>10s}"]
        for c, v in self.shares.items():
            if sa[c] or sb[c]:
                lines.append(f"  {c:30s} {sa[c]:10.5f} {sb[c]:10.5f} {v:+10.5f}")
        lines.append(f"  {'cost of transport':30s} {self.a.cost_of_transport:10.5f} {self.b.cost_of_transport:10.5f} "
                     f"{self.difference:+10.5f}")
        lines.append(f"  of the difference: ground (contact, soil, impacts) {self.ground:+.5f}, the rest "
                     f"{self.rest:+.5f}, unbooked {self.closure:.3g}")
        return "\n".join(lines)

    def __str__(self):
        return self.table()


def compare_transport(a, b):
    """The difference CoT(b) - CoT(a) split by share (`cost_shares`, `CostComparison`).

    Parameters
    ----------
    a, b : TransportEnergy
        Two runs (or two strides), e.g. a gait on compliant ground (a) and on soil (b).

    Returns
    -------
    CostComparison
    """
    sa, sb = cost_shares(a), cost_shares(b)
    return CostComparison(a, b, {c: sb[c] - sa[c] for c in sa})


def stride_transport(strides, *, mass, distances, g=9.81):
    """One `TransportEnergy` per stride of a `StrideEnergy` (`studies.gait.stride_energy`).

    Parameters
    ----------
    strides : StrideEnergy
    mass : float [kg]
        Total mass moved (> 0).
    distances : array_like, shape (k,) [m]
        Distance travelled in each stride (> 0).
    g : float [m/s^2]

    Returns
    -------
    list of TransportEnergy
        Stride i: its totals by category, stored change H(t_i+1) - H(t_i), ledger residual;
        ``positive_work`` 0 (the strides hold no joint powers), so the energy counted is the
        electrical energy, else the drives' (`TransportEnergy.spent`).

    Raises
    ------
    ParameterError
        A non-positive mass or g, or `distances` not one positive number per stride.
    """
    for key, v in (("mass", mass), ("g", g)):
        if not (np.isfinite(v) and v > 0):
            raise ParameterError(f"`{key}` must be a positive finite number, got {v!r}")
    d = np.asarray(distances, dtype=float)
    k = strides.t.size - 1
    if d.shape != (k,) or not np.all(d > 0):
        raise ParameterError(f"`distances` must be {k} positive numbers (one per stride), got {d.tolist()}")
    cats = strides.by_category()
    H = np.asarray(strides.H, dtype=float)
    return [TransportEnergy(float(strides.t[i]), float(strides.t[i + 1]), {c: float(v[i]) for c, v in cats.items()},
                            0.0, float(mass), float(d[i]), float(g), float(H[i + 1] - H[i]), float(strides.residual[i]))
            for i in range(k)]
