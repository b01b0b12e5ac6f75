"""Tutorial: a foot on a leg dropped on the ground, with a compliant and then a stiff contact.

The code of the docs' tutorial (``docs/tutorial.md`` includes it piece by piece between the
``# [name]`` / ``# [end name]`` markers); ``tests/docs/test_tutorial.py`` runs it.

    python examples/tutorial_foot.py [--t-end 0.6]
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

import numpy as np

# [imports]
import porthamiltonian as ph
from porthamiltonian.contact.laws import NormalLaw
from porthamiltonian.geometry import Ellipsoid, Plane
from porthamiltonian.library import (
    ContactMaterial,
    Gravity,
    Ground,
    Joint,
    RigidBody,
    SpatialDamper,
    SpatialSpring,
    contact,
)
# [end imports]

# [parameters]
G = 9.81                         # [m/s^2]
LEG_MASS, LEG_LENGTH = 2.0, 0.4  # [kg], [m]: a slender rod, body frame at its centre
FOOT_MASS = 0.5                  # [kg]
SOLE = (0.10, 0.05, 0.03)        # [m]: semi-axes of the foot's ellipsoidal sole
DROP = 0.05                      # [m]: initial gap between the sole and the ground
SPEED = 0.3                      # [m/s]: initial forward speed of the whole leg
# a soft floor (1e4 N/m: 1 mm under 1 kg, the landing visible in the plots); without `normal` the
# compliant contact takes Hertz's law of rigid polymer: the leg's weight sinks it 12 um, 0.02 % of the sole's size
MATERIAL = ContactMaterial(friction=0.8, restitution=0.3, normal=NormalLaw("linear", stiffness=1e4))
# [end parameters]


@dataclass
class Leg:
    """The parts of the tutorial's model that a second contact needs."""

    graph: ph.BondGraph
    foot: RigidBody
    ground: Ground
    sole: Ellipsoid
    floor: Plane


# [bodies]
def rod_inertia(mass, length):
    """Principal inertia of a slender rod along z about its centre [kg m^2]."""
    side = mass * length**2 / 12.0
    return np.array([side, side, 1e-3 * side])


def ellipsoid_inertia(mass, axes):
    """Principal inertia of a solid ellipsoid with semi-axes (a, b, c) [kg m^2]."""
    a, b, c = axes
    return mass / 5.0 * np.array([b * b + c * c, a * a + c * c, a * a + b * b])


def pose(z):
    """An upright pose at height z [m]."""
    H = np.eye(4)
    H[2, 3] = z
    return H


def hinge(z):
    """A marker at height z [m] on a body's axis whose z axis is the world's y axis: a
    revolute joint turns about its marker's z axis, so this hinge pitches the foot."""
    H = np.eye(4)
    H[:3, :3] = [[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]]   # pi/2 about x: z_marker = -y_body
    H[2, 3] = z
    return H


def build_leg(kind="compliant"):
    """The leg, its foot, the ankle and gravity, and a contact of `kind` under the sole."""
    c = SOLE[2]
    z_foot = c + DROP                                 # the sole's lowest point DROP above the ground
    z_leg = z_foot + c + LEG_LENGTH / 2               # the leg stands on top of the foot
    twist = [0.0, 0.0, 0.0, SPEED, 0.0, 0.0]          # body twist (omega, v) [rad/s, m/s]
    leg = RigidBody("leg", LEG_MASS, rod_inertia(LEG_MASS, LEG_LENGTH), pose=pose(z_leg), twist=twist,
                    frames={"ankle": hinge(-LEG_LENGTH / 2)})
    foot = RigidBody("foot", FOOT_MASS, ellipsoid_inertia(FOOT_MASS, SOLE), pose=pose(z_foot), twist=twist,
                     frames={"ankle": hinge(c)})
    ground = Ground("ground")
    # [end bodies]

    # [elements]
    bg = ph.BondGraph("leg")
    bg.add(leg, foot, ground, Gravity("g_leg", leg, g=(0.0, 0.0, -G)), Gravity("g_foot", foot, g=(0.0, 0.0, -G)))
    ankle_a, ankle_b = leg.frame("ankle"), foot.frame("ankle")
    bg.add(Joint("ankle", ankle_a, ankle_b, kind="revolute"),
           SpatialSpring("ankle_spring", ankle_a, ankle_b, rotational=5.0),      # [N m/rad]
           SpatialDamper("ankle_damper", ankle_a, ankle_b, rotational=0.05))     # [N m s/rad]
    sole, floor = Ellipsoid(*SOLE), Plane()
    bg.add(contact(kind, "heel", foot, sole, ground, floor, material=MATERIAL))
    # [end elements]

    # [bonds]
    # Gravity acts in the body frame, the ankle spring and damper at the ankle frames: their
    # ports are bonded from the body's port of that frame. The joint and the contact take the
    # ankle and the sole as markers but act at the body frame: bond them from the "B" port.
    bg.connect(leg.frame().port, "g_leg")
    bg.connect(foot.frame().port, "g_foot")
    bg.connect(ankle_a.port, ("ankle_spring", "a"))
    bg.connect(ankle_b.port, ("ankle_spring", "b"))
    bg.connect(ankle_a.port, ("ankle_damper", "a"))
    bg.connect(ankle_b.port, ("ankle_damper", "b"))
    bg.connect(leg.frame("B").port, ("ankle", "a"))
    bg.connect(foot.frame("B").port, ("ankle", "b"))
    bg.connect(foot.frame("B").port, ("heel", "a"))
    bg.connect(ground.frame("B").port, ("heel", "b"))
    return Leg(bg, foot, ground, sole, floor)
    # [end bonds]


def swap_to_stiff(leg):
    """Replace the compliant heel by the sliding-plane constraint, keeping its bonds."""
    # [swap]
    stiff = contact("sliding_plane", "heel", leg.foot, leg.sole, leg.ground, leg.floor, material=MATERIAL)
    leg.graph.swap("heel", stiff)
    # [end swap]
    return leg.graph


def run(t_end=0.6):
    """Both variants from the same initial state: {kind: (system, trajectory)}."""
    # [run]
    leg = build_leg("compliant")
    compliant = ph.compile(leg.graph.copy("leg_compliant"))   # compile freezes its graph: keep ours editable
    stiff = ph.compile(swap_to_stiff(leg))
    runs = {}
    for kind, system in (("compliant", compliant), ("sliding_plane", stiff)):
        x0 = system.initial_state()                          # the bodies' default poses and twists
        traj = ph.simulate(system, (0.0, t_end), x0, method="RK45", rtol=1e-8, atol=1e-10)
        runs[kind] = (system, traj)
    # [end run]
    return runs


def compare(runs):
    """Print both ledgers and the totals side by side; returns the two `PowerBudget`s."""
    # [compare]
    budgets = {kind: traj.power_budget() for kind, (_, traj) in runs.items()}
    for kind, budget in budgets.items():
        print(f"--- {kind}\n{budget}\n")
    print(f"{'[J]':>14}{'compliant':>12}{'stiff':>12}")
    for line in ("supplied", "dissipated", "lost", "stabilization", "residual"):
        values = [getattr(b, line)[-1] for b in budgets.values()]
        print(f"{line:>14}" + "".join(f"{v:>12.4g}" for v in values))
    # [end compare]
    return budgets


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--t-end", type=float, default=0.6, help="simulated time [s]")
    args = parser.parse_args(argv)
    compare(run(args.t_end))


if __name__ == "__main__":
    main()
