"""DC motors with gearboxes, and batteries, as components of ordinary bond-graph elements.

`dc_motor` builds the classic armature-circuit / rotor / gearbox chain::

                     R:armature   I:inductance       I:rotor  R:viscous  R:coulomb  R:gear_loss
                          |            |                 |        |          |          |
    "electric" --\\ 1 (current i) --\\ GY:torque_constant --\\ 1 (motor speed w_m) --\\ TF:gearbox --\\ "shaft"

    L di/dt = V - R i - K w_m                      (electrical mesh, 1-junction i)
    J dw_m/dt = K i - b w_m - F_c tanh(w_m / w_s) - b_g w_m - tau_out / N      (rotor, 1-junction w_m)
    w_out = w_m / N,  tau_m = tau_out / N          (gearbox TF, modulus 1/N)

Every loss is a resistor with a passive law, so the ledger splits the electrical input
(the voltage source's supplied energy) into Joule heat (R:armature), rotor viscous and
Coulomb friction, gearbox loss, magnetic and kinetic energy stored (I:inductance, I:rotor)
and the mechanical work delivered at "shaft" (whatever is bonded there books it).

Gearbox efficiency. A constant efficiency eta (loss = (1 - eta) |tau w|, proportional to the
transmitted torque) is not a one-port resistor: its loss depends on the load torque, not on
the port's own flow, and such a law is not passive for every causality (it would dissipate
nothing when the motor is back-driven at zero load, and the sign of its "loss" flips with
the direction of power flow). We therefore model the gearbox's loss as a viscous resistor on
the motor shaft, ``tau_loss = b_g w_m``, calibrated so that the efficiency is exactly `eta`
at the rated operating point given (rated output torque tau_r, rated output speed w_r):
``b_g (N w_r)^2 = (1/eta - 1) tau_r w_r``, i.e. delivering tau_r w_r costs tau_r w_r / eta.
Passive by construction (dissipation b_g w_m^2 >= 0). `gear_loss_coefficient` gives b_g.

Coulomb friction is regularized, ``F_c tanh(w / w_s)`` (passive: w tanh(w/w_s) >= 0), with
the regularization speed w_s a parameter.

`MotorConstants` holds one motor's constants (with the bus voltage that feeds it);
`go1_motor` gives Unitree-Go1-like ones, and `motor_drive` builds the whole drive of one
joint: a `VoltageSource` (an external input limited to the bus voltage: the command of a
controller such as `library.controllers.MotorPD`) on the motor's "electric" port::

    VoltageSource:source (input u, limit +-V_bus) --\\ "electric" [dc_motor "motor"] "shaft" --\\ joint
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from porthamiltonian.bondgraph.element import register_element
from porthamiltonian.bondgraph.elements import GY, TF, I, R
from porthamiltonian.bondgraph.graph import BondGraph
from porthamiltonian.bondgraph.junctions import Junction1
from porthamiltonian.errors import ParameterError

from ._checks import positive as _positive
from .actuators import JointActuator

__all__ = ["dc_motor", "gear_loss_coefficient", "battery", "VoltageSource", "MotorConstants", "go1_motor",
           "motor_drive"]


def gear_loss_coefficient(efficiency, gear_ratio, rated_torque, rated_speed):
    """Viscous coefficient b_g [N m s/rad] on the motor shaft that gives `efficiency` at the
    rated output point (module docs): ``b_g = (1/eta - 1) tau_r / (N^2 w_r)``.

    Parameters
    ----------
    efficiency : float
        eta in (0, 1].
    gear_ratio : float
        N > 0 (motor speed / output speed).
    rated_torque : float [N m]
        Output torque tau_r > 0.
    rated_speed : float [rad/s]
        Output speed w_r > 0.
    """
    eta = _positive("efficiency", efficiency)
    if eta > 1.0:
        raise ParameterError(f"`efficiency` must be in (0, 1], got {efficiency!r}")
    N = _positive("gear_ratio", gear_ratio)
    tau = _positive("rated_torque", rated_torque)
    w = _positive("rated_speed", rated_speed)
    return (1.0 / eta - 1.0) * tau / (N * N * w)


def dc_motor(name, *, resistance, inductance, torque_constant, rotor_inertia, viscous=0.0, coulomb=0.0,
             coulomb_speed=1e-2, gear_ratio=1.0, gear_loss=0.0):
    """A DC motor with a gearbox (module docs), as a component.

    Parameters
    ----------
    name : str
    resistance : float [Ohm]
        Armature resistance R > 0.
    inductance : float [H]
        Armature inductance L > 0.
    torque_constant : float [N m/A = V s/rad]
        K > 0 (the gyrator modulus: tau = K i, back emf = K w_m).
    rotor_inertia : float [kg m^2]
        J >= 0, on the motor side of the gearbox. 0 leaves the I:rotor element out: the load
        carries the rotor's inertia, as an articulated body's joint armature ``N^2 J``
        (`motor_drive` with ``rotor=False``), so the rotor is not a storage rigidly tied to
        the joint's (a constraint, which the compiled right-hand side does not cover).
    viscous : float [N m s/rad]
        Rotor viscous friction b >= 0 (motor side).
    coulomb : float [N m]
        Rotor Coulomb friction F_c >= 0 (motor side), regularized over `coulomb_speed`.
    coulomb_speed : float [rad/s]
        w_s > 0.
    gear_ratio : float
        N > 0: motor speed = N x output speed.
    gear_loss : float [N m s/rad]
        Gearbox loss b_g >= 0 as a viscous resistor on the motor shaft (see
        `gear_loss_coefficient` to set it from an efficiency).

    Returns
    -------
    BondGraph
        Exposed ports "electric" (dim 1, effort voltage [V], flow current [A], power into the
        motor) and "shaft" (dim 1, effort output torque [N m], flow output speed [rad/s],
        power out of the motor). Elements: "armature", "inductance", "torque_constant",
        "rotor", "viscous", "coulomb", "gear_loss", "gearbox" (those with zero coefficients
        are left out). State: "inductance.p" = L i [Wb], "rotor.p" = J w_m [N m s] (with a
        rotor).

    Raises
    ------
    ParameterError
        A non-positive resistance, inductance, torque constant or gear ratio, or a negative
        inertia or friction coefficient, each named.
    """
    Ra = _positive(f"{name}.resistance", resistance)
    La = _positive(f"{name}.inductance", inductance)
    K = _positive(f"{name}.torque_constant", torque_constant)
    Jr = _positive(f"{name}.rotor_inertia", rotor_inertia, zero=True)
    b = _positive(f"{name}.viscous", viscous, zero=True)
    Fc = _positive(f"{name}.coulomb", coulomb, zero=True)
    ws = _positive(f"{name}.coulomb_speed", coulomb_speed)
    N = _positive(f"{name}.gear_ratio", gear_ratio)
    bg_ = _positive(f"{name}.gear_loss", gear_loss, zero=True)
    g = BondGraph(name)
    g.add(Junction1("current"), R("armature", Ra), I("inductance", mass=La), GY("torque_constant", K),
          Junction1("speed"), TF("gearbox", 1.0 / N))
    g.connect("current", "armature")
    g.connect("current", "inductance")
    g.connect("current", ("torque_constant", "p1"))
    g.connect(("torque_constant", "p2"), "speed")
    if Jr > 0:
        g.add(I("rotor", mass=Jr))
        g.connect("speed", "rotor")
    if b > 0:
        g.add(R("viscous", b))
        g.connect("speed", "viscous")
    if Fc > 0:
        w = sp.Symbol("w")
        g.add(R("coulomb", law=Fc * sp.tanh(w / ws), variables=[w]))
        g.connect("speed", "coulomb")
    if bg_ > 0:
        g.add(R("gear_loss", bg_))
        g.connect("speed", "gear_loss")
    g.connect("speed", ("gearbox", "p1"))
    g.expose("electric", "current")
    g.expose("shaft", ("gearbox", "p2"))
    return g


@register_element
class VoltageSource(JointActuator):
    """Voltage source [V] with an optional symmetric limit (a bus voltage): the effort source
    of a motor's "electric" port. Parameters, ledger and limit as `JointActuator`."""

    type_name = "VoltageSource"


def battery(name, emf, internal_resistance, *, command=None, input=False):
    """A battery or DC bus: an ideal emf behind an internal resistance, as a component.

    ::

        Se:emf --\\ 1 --\\ "terminal"
                     |
                 R:internal

    Parameters
    ----------
    name : str
    emf : float [V]
        Open-circuit voltage > 0.
    internal_resistance : float [Ohm]
        >= 0 (0 gives an ideal bus).
    command : float or callable t -> float, optional
        A commanded voltage instead of the constant emf, limited to +-emf (a PWM bridge
        fed by the battery, averaged); ``input=True`` takes it from `simulate`'s inputs.

    Returns
    -------
    BondGraph
        Exposed port "terminal" (dim 1, power out of the battery). Elements "emf" (the
        ledger's electrical input) and "internal" (its Joule heat, when > 0).
    """
    E = _positive(f"{name}.emf", emf)
    r = _positive(f"{name}.internal_resistance", internal_resistance, zero=True)
    g = BondGraph(name)
    src = VoltageSource("emf", E if command is None else command, limit=None if command is None and not input else E,
                        input=input)
    g.add(src, Junction1("bus"))
    g.connect("emf", "bus")
    if r > 0:
        g.add(R("internal", r))
        g.connect("bus", "internal")
    g.expose("terminal", "bus")
    return g


@dataclass(frozen=True)
class MotorConstants:
    """The constants of one geared DC motor and the bus voltage that feeds it.

    Attributes
    ----------
    resistance : float [Ohm]
        Armature resistance R.
    inductance : float [H]
        Armature inductance L.
    torque_constant : float [N m/A = V s/rad]
        K (motor side).
    rotor_inertia : float [kg m^2]
        J (motor side).
    gear_ratio : float
        N (motor speed / joint speed).
    viscous : float [N m s/rad]
        Rotor viscous friction (motor side).
    gear_loss : float [N m s/rad]
        Gearbox loss as a viscous resistor on the motor shaft (`gear_loss_coefficient`).
    bus_voltage : float [V]
        The supply: the drive's voltage is limited to +-bus_voltage.
    """

    resistance: float
    inductance: float
    torque_constant: float
    rotor_inertia: float
    gear_ratio: float
    viscous: float = 0.0
    gear_loss: float = 0.0
    bus_voltage: float = 24.0

    @property
    def stall_torque(self):
        """Joint torque at stall on the full bus voltage, ``N K V / R`` [N m] (losses aside)."""
        return self.gear_ratio * self.torque_constant * self.bus_voltage / self.resistance

    @property
    def no_load_speed(self):
        """Joint speed where the back emf equals the bus voltage, ``V / (N K)`` [rad/s]."""
        return self.bus_voltage / (self.gear_ratio * self.torque_constant)

    @property
    def reflected_inertia(self):
        """The rotor's inertia seen at the joint, ``N^2 J`` [kg m^2]."""
        return self.gear_ratio ** 2 * self.rotor_inertia


#: Go1's bus: its battery's nominal voltage [V] (Unitree Go1 specification: 21.6 V, 6 Ah)
GO1_BUS_VOLTAGE = 21.6
#: Go1's ab/ad and hip gear ratio (Unitree's published 9.1:1 planetary gearbox)
GO1_GEAR_RATIO = 9.1
#: Go1's joint torque limits [N m] and speed limits [rad/s] (its URDF, example-robot-data:
#: hip and thigh 23.7 N m, 30.1 rad/s; knee 35.55 N m, 20.06 rad/s: the knee's linkage
#: multiplies the gearbox by 35.55 / 23.7 = 30.1 / 20.06 = 1.5)
GO1_STALL_TORQUE, GO1_MAX_SPEED, GO1_KNEE_LINKAGE = 23.7, 30.1, 1.5
#: Go1's rotor inertia about its spin axis [kg m^2] (the URDF's *_rotor links: 1.11842e-4)
GO1_ROTOR_INERTIA = 1.11842e-4


def go1_motor(*, knee=False, electrical_time_constant=5e-4, efficiency=0.9, viscous=0.0):
    """Unitree-Go1-like motor constants (a single-phase DC equivalent of its joint motor).

    Sources and assumptions:

    * from Unitree's data (the URDF of example-robot-data, the Go1 specification): the gear
      ratio 9.1 (x 1.5 at the knee: the URDF's knee torque and speed limits are 1.5 x and
      1 / 1.5 x those of the hip), the joint torque at stall 23.7 N m (35.55 at the knee),
      the joint's top speed 30.1 rad/s (20.06 at the knee), the rotor's inertia 1.11842e-4
      kg m^2 and the 21.6 V battery;
    * derived: the torque constant K so that the no-load speed on 21.6 V is the top speed,
      ``K = V / (N w_max)`` = 0.0789 V s/rad, and the resistance so that the stall torque on
      21.6 V is 23.7 N m, ``R = N K V / tau_stall`` = 0.653 Ohm (the same motor at the knee:
      1.5 N gives 35.55 N m and 20.07 rad/s);
    * assumed (not published): the electrical time constant L / R (default 0.5 ms, typical
      of such outrunner motors), the gearbox efficiency (default 0.9 at the rated point
      one third of the stall torque at half the top speed, `gear_loss_coefficient`) and the
      rotor's viscous friction (default none).

    Parameters
    ----------
    knee : bool
        The knee's drive (gear ratio 9.1 x 1.5) instead of the ab/ad and hip drives'.
    electrical_time_constant : float [s]
        L / R > 0.
    efficiency : float
        Gearbox efficiency in (0, 1] at the rated point.
    viscous : float [N m s/rad]
        Rotor viscous friction (motor side) >= 0.

    Returns
    -------
    MotorConstants
    """
    tau_e = _positive("electrical_time_constant", electrical_time_constant)
    b = _positive("viscous", viscous, zero=True)
    N0, V = GO1_GEAR_RATIO, GO1_BUS_VOLTAGE
    K = V / (N0 * GO1_MAX_SPEED)
    R = N0 * K * V / GO1_STALL_TORQUE
    N = N0 * (GO1_KNEE_LINKAGE if knee else 1.0)
    scale = GO1_KNEE_LINKAGE if knee else 1.0
    bg_ = gear_loss_coefficient(efficiency, N, GO1_STALL_TORQUE * scale / 3.0, GO1_MAX_SPEED / scale / 2.0)
    return MotorConstants(resistance=R, inductance=tau_e * R, torque_constant=K, rotor_inertia=GO1_ROTOR_INERTIA,
                          gear_ratio=N, viscous=b, gear_loss=bg_, bus_voltage=V)


def motor_drive(name, constants, *, rotor=True):
    """One joint's drive: a voltage source limited to the bus on a `dc_motor` (module docs).

    Parameters
    ----------
    name : str
    constants : MotorConstants
    rotor : bool
        The rotor's inertia as the motor's I:rotor (True), or left to the load (False): give
        the joint the armature ``constants.reflected_inertia`` (an articulated body's joint,
        `RobotDescription` joints' ``armature``); its kinetic energy is then booked with the
        load's (the same energy: N^2 J w^2 / 2 = J w_m^2 / 2).

    Returns
    -------
    BondGraph
        Elements "source" (`VoltageSource`, an external input: ``simulate(..., inputs=)``
        gives its commanded voltage [V], applied limited to +-``constants.bus_voltage``) and
        the component "motor" (`dc_motor`); exposed port "shaft" (the motor's: effort the
        joint torque [N m], flow the joint speed [rad/s], power into the joint). State
        "motor/inductance.p" = L i (and "motor/rotor.p" = J w_m with `rotor`).
    """
    if not isinstance(constants, MotorConstants):
        raise ParameterError(f"`{name}.constants` must be MotorConstants, got {constants!r}")
    c = constants
    _positive(f"{name}.bus_voltage", c.bus_voltage)
    motor = dc_motor("motor", resistance=c.resistance, inductance=c.inductance, torque_constant=c.torque_constant,
                     rotor_inertia=c.rotor_inertia if rotor else 0.0, viscous=c.viscous, gear_ratio=c.gear_ratio, gear_loss=c.gear_loss)
    g = BondGraph(name)
    g.add(VoltageSource("source", input=True, limit=c.bus_voltage), motor)
    g.connect("source", (motor, "electric"))
    g.expose("shaft", (motor, "shaft"))
    return g
