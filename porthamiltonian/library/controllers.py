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
"""

from __future__ import annotations

import numpy as np
from scipy.interpolate import CubicSpline

from porthamiltonian.bondgraph.elements import C, R, Sf
from porthamiltonian.bondgraph.graph import BondGraph
from porthamiltonian.bondgraph.junctions import Junction0, Junction1
from porthamiltonian.errors import ModelError, ParameterError
from porthamiltonian.kernels import signals as _signals

from ._checks import positive as _finite_positive

__all__ = ["PeriodicReference", "ReferenceSignal", "pd_controller", "FeedbackController"]


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
