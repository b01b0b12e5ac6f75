"""Controllers as ports: PD / impedance control by interconnection, joint references, and user
feedback on input ports.

PD control by interconnection (`pd_controller`): a virtual spring K and damper D between the
joint and a reference joint that moves along theta_ref(t)::

                         C:spring (q = theta_ref - theta)
                              |
    Sf:reference --\\ 0 --\\ 1 (error rate v = w_ref - w) -- R:damper
    (flow w_ref)      |
                      \\--> "axis"   (effort tau, flow w: power tau w into the joint)

    tau = K (theta_ref - theta) + D (w_ref - w)

The controller is a passive port-Hamiltonian element: the spring stores 1/2 K q^2 (the
ledger's "stored" for C:spring), the damper dissipates D v^2 (R:damper), and the only
energy source is the moving reference, which supplies tau w_ref (Sf:reference, "supplied"):
a fixed target (w_ref = 0) supplies nothing, and the controller can then only give back what
its spring stored. The joint angle theta is not a state of a lock joint: the spring's state
is the tracking error q = theta_ref - theta, whose initial value the user gives (through the
joint's initial angle `angle0`).

A user controller ``u = f(t, y)`` (`FeedbackController`) closes the loop through `simulate`'s
``inputs``: y are the collocated outputs of the input sources (the flows at their ports:
joint speeds for joint actuators, currents for voltage sources), and the sources book the
supplied power u . y in the ledger.

PD control through a motor (`MotorPD`): when a joint is driven by a voltage-driven DC motor
(`library.motors.motor_drive`), the PD law acts through the motor's voltage. The controller
reads the joint's angle and speed and the motor's current from the state and commands::

    tau* = kp (theta_ref - theta) + kd (w_ref - w)          the PD's torque demand [N m]
    i*   = tau* / (N K)                                     the current that makes it [A]
    V    = R i* + K N w + k_c (i* - i)                      the voltage [V], limited to the bus

(the armature drop at i*, the back emf compensated, and an optional proportional current
loop k_c), so the electrical mesh ``L di/dt = V - R i - K N w`` becomes
``L di/dt = (R + k_c) (i* - i)``: the current follows the demand with the time constant
``L / (R + k_c)`` and the motor's torque at the joint is ``N K i``, minus what the rotor's
inertia, friction and the gearbox take. It is a signal controller on the voltage sources'
inputs (``simulate(..., inputs=controller)``): it stores nothing and dissipates nothing;
the sources book the electrical power it supplies, the applied voltage times the current.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.interpolate import CubicSpline

from porthamiltonian.bondgraph.elements import C, R, Sf
from porthamiltonian.bondgraph.graph import BondGraph
from porthamiltonian.bondgraph.junctions import Junction0, Junction1
from porthamiltonian.errors import ModelError, ParameterError
from porthamiltonian.kernels import signals as _signals

from ._checks import positive as _finite_positive

__all__ = ["PeriodicReference", "ReferenceSignal", "pd_controller", "FeedbackController", "MotorServo", "MotorPD"]


class PeriodicReference:
    """A periodic joint-space reference: a periodic cubic spline through samples of one period.

    Parameters
    ----------
    period : float [s]
        T > 0.
    samples : array_like, shape (n,) or (n, k)
        Joint positions [rad or m] at t = i T / n, i = 0..n-1 (the value at T is the first
        sample again), for k joints; n >= 4.
    n_joints : int, optional
        The number of joints k expected (checked).

    Raises
    ------
    ParameterError
        A non-positive period, fewer than 4 samples, a sample that is not finite, or a
        number of joints other than `n_joints`.

    Notes
    -----
    `position`, `velocity` and `acceleration` are the spline and its exact derivatives, so a
    PD controller's spring state (the tracking error) and its reference speed agree exactly.
    """

    def __init__(self, period, samples, *, n_joints=None):
        self.period = _finite_positive("period", period)
        s = np.asarray(samples, dtype=float)
        if s.ndim == 1:
            s = s[:, None]
        if s.ndim != 2 or s.shape[0] < 4:
            raise ParameterError(f"`samples` must have shape (n, k) with n >= 4 samples per period, got {np.shape(samples)}")
        if not np.all(np.isfinite(s)):
            bad = np.argwhere(~np.isfinite(s))[0]
            raise ParameterError(f"`samples` must be finite, got {s[tuple(bad)]} at sample {bad[0]}, joint {bad[1]}")
        if n_joints is not None and s.shape[1] != n_joints:
            raise ParameterError(f"`samples` must have {n_joints} joints (columns), got {s.shape[1]}")
        self.samples = s
        self.n_joints = s.shape[1]
        t = np.linspace(0.0, self.period, s.shape[0] + 1)
        spline = CubicSpline(t, np.vstack((s, s[:1])), bc_type="periodic", axis=0)
        #: packed spline (`porthamiltonian.kernels.signals`): [T, c.ravel()], c shape (4, n, k)
        self.packed = _signals.pack(self.period, spline.c)

    def packed_joint(self, joint):
        """The packed spline of one column `joint` (the ``F`` of a source's kernel)."""
        c = self.packed[1:].reshape(4, self.samples.shape[0], self.n_joints)[:, :, joint : joint + 1]
        return _signals.pack(self.period, c)

    def _eval(self, t, nu, joint):
        """The compiled spline (`porthamiltonian.kernels.signals.spline_series`): one formula
        for the Python methods and the compiled right-hand side."""
        ts = np.asarray(t, dtype=float)
        v = _signals.spline_series(ts.reshape(-1), self.packed, self.samples.shape[0], self.n_joints, nu)
        v = v.reshape(ts.shape + (self.n_joints,))
        return v if joint is None else v[..., joint]

    def signal(self, joint, order):
        """The order-`order` derivative of column `joint` as a source signal (a picklable
        callable whose source compiles: `ReferenceSignal`)."""
        return ReferenceSignal(self, joint, order)

    def position(self, t, joint=None):
        """theta_ref(t), shape (k,) (or a float for one `joint`) [rad or m]."""
        return self._eval(t, 0, joint)

    def velocity(self, t, joint=None):
        """d theta_ref / dt [rad/s or m/s]."""
        return self._eval(t, 1, joint)

    def acceleration(self, t, joint=None):
        """d^2 theta_ref / dt^2 [rad/s^2 or m/s^2]."""
        return self._eval(t, 2, joint)

    def __repr__(self):
        return f"PeriodicReference(period={self.period!r}, samples={self.samples.shape[0]}, joints={self.n_joints})"


class ReferenceSignal:
    """One column of a `PeriodicReference`, differentiated `order` times, as a signal ``f(t)``.

    Parameters
    ----------
    reference : PeriodicReference
    joint : int
        The column.
    order : int
        0 (position [rad or m]), 1 (speed [rad/s or m/s]) or 2 (acceleration).

    Notes
    -----
    A source (`Sf`, `Se`) whose value is such a signal exports compiled "value" and
    "value_rate" kernels (`source_kernel`; `porthamiltonian.kernels.signals`), so a model
    driven by periodic references (the PD controllers of ``quadruped-trot``) runs on the
    compiled right-hand side. Calling it in Python evaluates the same kernel.
    """

    def __init__(self, reference, joint, order):
        if not (isinstance(joint, (int, np.integer)) and 0 <= joint < reference.n_joints):
            raise ParameterError(f"`joint` must be a column of the reference (0..{reference.n_joints - 1}), got {joint!r}")
        if order not in (0, 1, 2):
            raise ParameterError(f"`order` must be 0, 1 or 2, got {order!r}")
        self.reference = reference
        self.joint = int(joint)
        self.order = int(order)
        self._F = reference.packed_joint(self.joint)
        self._I = np.array([reference.samples.shape[0], 1, self.order], dtype=np.int64)

    def __call__(self, t):
        return float(_signals.spline_value(float(t), self._F, self._I)[0])

    def source_kernel(self, role):
        """The `Kernel` of a source's "value" (this signal) or "value_rate" (its derivative)."""
        from porthamiltonian.bondgraph.element import Kernel

        fn = {"value": _signals.spline_value, "value_rate": _signals.spline_rate}.get(role)
        return None if fn is None else Kernel(fn, self._F, self._I)

    def __repr__(self):
        return f"ReferenceSignal({self.reference!r}, joint={self.joint}, order={self.order})"


def pd_controller(name, stiffness, damping, *, target=None, reference=None, joint=0, angle0=0.0):
    """PD / impedance control of one joint axis by interconnection (module docs).

    Parameters
    ----------
    name : str
    stiffness : float [N m/rad or N/m]
        K > 0.
    damping : float [N m s/rad or N s/m]
        D >= 0.
    target : float, optional
        A fixed target angle theta* (give this or `reference`).
    reference : PeriodicReference or callable, optional
        A moving target: a `PeriodicReference` (with `joint` its column) or a pair of
        callables ``(theta_ref(t), w_ref(t))``.
    joint : int
        Column of a multi-joint `PeriodicReference`.
    angle0 : float [rad or m]
        The joint's angle at t = 0 (sets the spring's initial state theta_ref(0) - angle0).

    Returns
    -------
    BondGraph
        Exposed port "axis" (dim 1): bond it to a joint axis ``bg.connect((pd, "axis"),
        (axis, "axis"))``. Elements "spring" (C, state "spring.q" the tracking error),
        "damper" (R), "reference" (Sf, the reference speed).

    Raises
    ------
    ParameterError
        Bad gains, both or neither of `target`/`reference`, a `joint` column the reference
        does not have, or a non-finite `angle0`.
    """
    K = _finite_positive(f"{name}.stiffness", stiffness)
    D = _finite_positive(f"{name}.damping", damping, zero=True)
    a0 = float(angle0)
    if not np.isfinite(a0):
        raise ParameterError(f"`{name}.angle0` must be finite, got {angle0!r}")
    if (target is None) == (reference is None):
        raise ParameterError(f"`{name}`: give exactly one of `target` (a fixed angle) or `reference` (a moving one)")
    if target is not None:
        th0 = float(target)
        if not np.isfinite(th0):
            raise ParameterError(f"`{name}.target` must be finite, got {target!r}")
        speed, accel = 0.0, None
    elif isinstance(reference, PeriodicReference):
        if not (isinstance(joint, (int, np.integer)) and 0 <= joint < reference.n_joints):
            raise ParameterError(f"`{name}.joint` must be a column of the reference (0..{reference.n_joints - 1}), got {joint!r}")
        th0 = float(reference.position(0.0, joint))
        # partials, not lambdas: a model holding the controller pickles (sweeps, model comparison)
        speed = reference.signal(int(joint), 1)
        accel = reference.signal(int(joint), 2)
    else:
        if not (isinstance(reference, tuple) and len(reference) == 2 and all(callable(f) for f in reference)):
            raise ParameterError(f"`{name}.reference` must be a PeriodicReference or a pair of callables "
                                 f"(theta_ref(t), w_ref(t)), got {reference!r}")
        th0 = float(reference[0](0.0))
        speed, accel = reference[1], None
    g = BondGraph(name)
    g.add(Sf("reference", speed, derivative=accel), Junction0("hub"), Junction1("error"),
          C("spring", stiffness=K, q0=th0 - a0))
    g.connect("reference", "hub")
    g.connect("hub", "error")
    g.connect("error", "spring")
    if D > 0:
        g.add(R("damper", D))
        g.connect("error", "damper")
    g.expose("axis", "hub")
    return g


class FeedbackController:
    """A user controller ``u = f(t, y)`` on a compiled system's input sources, for `simulate`.

    Parameters
    ----------
    system : PHSystem
    f : callable
        ``f(t, y) -> u``: y, shape (m,), the collocated outputs (the flows at the input
        sources' ports, in the order of `sources`); u, shape (m,), the commands.
    sources : sequence of str, optional
        Paths of the input sources, each of dimension 1 (default: all of the system's).

    Notes
    -----
    Pass the object as ``simulate(..., inputs=controller)``. The sources book the supplied
    power ``u . y`` (for a `JointActuator` with a limit: the applied, saturated effort
    times y). y is evaluated with the Python path of the system (`port_variables`) at each
    right-hand-side call, which assumes no direct feedthrough from u to y (true for effort
    sources on joints and motors): slower than the compiled path, exact.

    Raises
    ------
    ParameterError
        An unknown or non-scalar source; at a call, `f` returning the wrong shape or a
        non-finite value.
    """

    def __init__(self, system, f, sources=None):
        if not callable(f):
            raise ParameterError(f"`f` must be a callable f(t, y) -> u, got {f!r}")
        inputs = dict(system.inputs)
        names = list(inputs) if sources is None else list(sources)
        for p in names:
            if p not in inputs:
                raise ParameterError(f"`sources`: {p!r} is not an input source of the system; its input sources are {sorted(inputs)}")
            sl = inputs[p]
            if sl.stop - sl.start != 1:
                raise ParameterError(f"`sources`: {p!r} has dimension {sl.stop - sl.start}; a feedback controller drives scalar ports")
        if sources is None and sum(s.stop - s.start for s in inputs.values()) != system.n_inputs:
            raise ModelError("the system's inputs are not all scalar sources")
        self.system, self.f, self.sources = system, f, names
        self._slices = [inputs[p] for p in names]
        self._u0 = np.zeros(system.n_inputs)

    def outputs(self, t, x):
        """y, shape (m,): the flows at the sources' ports."""
        pv = self.system.port_variables(t, x, self._u0)
        return np.array([pv[(p, "p")][1][0] for p in self.sources])

    def __call__(self, t, x):
        y = self.outputs(t, x)
        u = np.asarray(self.f(t, y), dtype=float)
        if u.shape != (len(self.sources),):
            raise ParameterError(f"controller `f` must return shape ({len(self.sources)},) (one command per source "
                                 f"{self.sources}), got shape {u.shape}")
        if not np.all(np.isfinite(u)):
            raise ParameterError(f"controller `f` returned a non-finite command {u.tolist()} at t = {t!r}")
        out = np.zeros(self.system.n_inputs)
        for sl, v in zip(self._slices, u):
            out[sl] = v
        return out


@dataclass(frozen=True)
class MotorServo:
    """One joint of a `MotorPD`: where its drive, angle, speed and current are, and its PD law.

    Attributes
    ----------
    source : str
        Path of the drive's `VoltageSource` (an input source of dimension 1), e.g.
        ``"drive-FL_hip_joint/source"``.
    current : str
        State entry of the motor's flux linkage L i, e.g. ``"drive-FL_hip_joint/motor/inductance.p"``.
    angle : str
        State entry of the joint angle theta [rad], e.g. ``"robot.q[7]"`` (a joint of an
        `ArticulatedBody`: a lock joint's angle is not a state; drive it with `pd_controller`).
    speed : str
        State entry of the joint speed w [rad/s], e.g. ``"robot.v[6]"``.
    constants : MotorConstants
        The motor's R, L, K, N (`library.motors`).
    reference : PeriodicReference
        The joint's reference.
    column : int
        Its column in `reference`.
    kp : float [N m/rad]
        > 0.
    kd : float [N m s/rad]
        >= 0.
    """

    source: str
    current: str
    angle: str
    speed: str
    constants: object
    reference: PeriodicReference
    column: int
    kp: float
    kd: float


class MotorPD:
    """Joint PD control through voltage-driven motors, for ``simulate(..., inputs=...)`` (module docs).

    Parameters
    ----------
    system : PHSystem
    servos : sequence of MotorServo
        One per driven joint (each source at most once).
    current_gain : float [Ohm]
        k_c >= 0: the proportional current loop's gain (0, the default: the voltage law alone,
        the current settling to the demand with the electrical time constant L / R).

    Notes
    -----
    Why a voltage law and not a PD element on the joint: the motor sits between the bus and
    the joint, so the only power port the controller has is the motor's electrical port; the
    PD's spring and damper become a feedback law from the measured angle and speed (which a
    real servo drive computes from its encoder), and its energy comes from the bus, booked
    at the voltage sources. Why the back-emf and armature-drop terms: with ``V = kp e`` alone
    the motor's own back emf would add a damping ``N^2 K^2 / R`` (0.6 N m s/rad for Go1's hip,
    1.3 at the knee) and the PD's gains would have to be rescaled by the motor's constants;
    with them the joint sees the PD torque ``tau*`` (lagged by L / (R + k_c)), the same
    gains as the PD element of the torque-driven model. Why not an ideal current source: it
    would impose the inductor's current (derivative causality, L's energy a constraint)
    and hide the electrical dynamics whose Joule heat the ledger books.

    A call costs a few numpy operations on the servos' arrays and one spline evaluation per
    distinct reference (no graph walk, no port evaluation).

    Raises
    ------
    ParameterError
        A source that is not a scalar input source of the system, given twice; a state entry
        the system does not have; bad gains or constants.
    """

    def __init__(self, system, servos, *, current_gain=0.0):
        from porthamiltonian.library.motors import MotorConstants

        kc = _finite_positive("current_gain", current_gain, zero=True)
        servos = list(servos)
        if not servos:
            raise ParameterError("`servos` must name at least one MotorServo")
        inputs = dict(system.inputs)
        names = {n: i for i, n in enumerate(system.layout.names())}
        slots, seen = [], set()
        for k, sv in enumerate(servos):
            if not isinstance(sv, MotorServo):
                raise ParameterError(f"`servos[{k}]` must be a MotorServo, got {sv!r}")
            if sv.source not in inputs:
                raise ParameterError(f"`servos[{k}].source`: {sv.source!r} is not an input source of the system; its "
                                     f"input sources are {sorted(inputs)}")
            sl = inputs[sv.source]
            if sl.stop - sl.start != 1:
                raise ParameterError(f"`servos[{k}].source`: {sv.source!r} has dimension {sl.stop - sl.start}, not 1")
            if sv.source in seen:
                raise ParameterError(f"`servos[{k}].source`: {sv.source!r} is driven by two servos")
            seen.add(sv.source)
            for field in ("current", "angle", "speed"):
                if getattr(sv, field) not in names:
                    raise ParameterError(f"`servos[{k}].{field}`: the system has no state entry {getattr(sv, field)!r} "
                                         "(entries are named as in `system.layout.names()`, e.g. 'robot.q[7]')")
            if not isinstance(sv.constants, MotorConstants):
                raise ParameterError(f"`servos[{k}].constants` must be MotorConstants, got {sv.constants!r}")
            if not isinstance(sv.reference, PeriodicReference):
                raise ParameterError(f"`servos[{k}].reference` must be a PeriodicReference, got {sv.reference!r}")
            if not (isinstance(sv.column, (int, np.integer)) and 0 <= sv.column < sv.reference.n_joints):
                raise ParameterError(f"`servos[{k}].column` must be a column of its reference "
                                     f"(0..{sv.reference.n_joints - 1}), got {sv.column!r}")
            _finite_positive(f"servos[{k}].kp", sv.kp)
            _finite_positive(f"servos[{k}].kd", sv.kd, zero=True)
            slots.append(sl.start)
        self.system, self.servos, self.current_gain = system, servos, kc
        self._u = np.zeros(system.n_inputs)
        self._slots = np.array(slots, dtype=np.int64)
        self._ia, self._iw, self._ii = (np.array([names[getattr(sv, f)] for sv in servos], dtype=np.int64)
                                        for f in ("angle", "speed", "current"))
        c = [sv.constants for sv in servos]
        self._L = np.array([m.inductance for m in c])
        self._R = np.array([m.resistance for m in c])
        self._NK = np.array([m.gear_ratio * m.torque_constant for m in c])
        self._kp = np.array([float(sv.kp) for sv in servos])
        self._kd = np.array([float(sv.kd) for sv in servos])
        # each distinct reference evaluated once per call; its columns scattered to the servos
        refs = list({id(sv.reference): sv.reference for sv in servos}.values())
        self._refs = [(r.packed, r.samples.shape[0], r.n_joints) for r in refs]
        offsets = np.cumsum([0] + [r.n_joints for r in refs])
        where = {id(r): o for r, o in zip(refs, offsets)}
        self._cols = np.array([where[id(sv.reference)] + sv.column for sv in servos], dtype=np.int64)
        self._ref = np.empty((2, int(offsets[-1])))

    def _reference(self, t):
        """theta_ref and w_ref of every servo at t, shape (2, n)."""
        o = 0
        for F, n, k in self._refs:
            for nu in (0, 1):
                _signals.spline_at(float(t), F, n, k, nu, self._ref[nu, o : o + k])
            o += k
        return self._ref[:, self._cols]

    def torque_demand(self, t, x):
        """The PD torque demand tau* of every servo [N m], shape (n,)."""
        ref = self._reference(t)
        return self._kp * (ref[0] - x[self._ia]) + self._kd * (ref[1] - x[self._iw])

    def voltages(self, t, x):
        """The commanded voltages V [V], shape (n,) (before the sources' bus limit)."""
        i_star = self.torque_demand(t, x) / self._NK
        back_emf = self._NK * x[self._iw]
        return self._R * i_star + back_emf + self.current_gain * (i_star - x[self._ii] / self._L)

    def __call__(self, t, x):
        u = self._u.copy()
        u[self._slots] = self.voltages(t, x)
        return u
