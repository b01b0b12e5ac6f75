"""Model builders and fixtures shared by the core tests."""

import numpy as np
import pytest

import porthamiltonian as ph
from porthamiltonian.library import DistanceConstraint, PointMass

#: Integration tolerances of the accurate runs; errors are measured in units of RTOL.
RTOL, ATOL = 1e-10, 1e-12


def msd_graph(m=2.0, k=3.0, b=0.5, force=1.0, name="msd"):
    """Mass-spring-damper on one 1-junction, driven by an effort source.

    Equation (q spring displacement, p momentum): dp/dt = F - k q - b p/m, dq/dt = p/m.
    """
    bg = ph.BondGraph(name)
    bg.add(ph.Se("F", force), ph.Junction1("v"), ph.I("m", mass=m), ph.C("k", stiffness=k), ph.R("b", b))
    bg.connect("F", "v")
    bg.connect("v", "m")
    bg.connect("v", "k")
    bg.connect("v", "b")
    return bg


def pendulum_graph(m=1.5, g=9.81, length=2.0, theta0=np.pi / 2, rod_bond=("ball", "rod"), stabilization=None):
    """Planar pendulum: PointMass on a DistanceConstraint to the origin, gravity (0, -m g).

    theta is measured from the downward vertical; the mass starts at rest at theta0.
    `rod_bond` is the (tail, head) of the bond between the mass and the rod.
    """
    bg = ph.BondGraph("pendulum")
    r0 = [length * np.sin(theta0), -length * np.cos(theta0)]
    ball = PointMass("ball", m, dim=2, r0=r0)
    rod = DistanceConstraint("rod", ball, length, anchor=[0.0, 0.0], stabilization=stabilization)
    bg.add(ball, rod, ph.Se("gravity", [0.0, -m * g]))
    bg.connect("gravity", "ball")
    bg.connect(*rod_bond)
    return bg



def two_masses(m1, m2, k, F):
    """Two masses and a spring on one 1-junction (m2 is dependent); returns (graph, bond into m2)."""
    bg = ph.BondGraph("two_masses")
    bg.add(ph.Se("F", F), ph.Junction1("v"), ph.I("m1", mass=m1), ph.I("m2", mass=m2), ph.C("k", stiffness=k))
    bg.connect("F", "v")
    bg.connect("v", "m1")
    cut_bond = bg.connect("v", "m2")
    bg.connect("v", "k")
    return bg, cut_bond


def rc_loop(C, R1, R2, R3, R4):
    """Capacitor C in parallel with R1 and with R2 + (R3 || R4): a resistive algebraic loop."""
    bg = ph.BondGraph("rc_loop")
    bg.add(
        ph.C("C", compliance=C), ph.Junction0("top"), ph.R("R1", R1), ph.Junction1("branch"), ph.R("R2", R2),
        ph.Junction0("par"), ph.R("R3", R3), ph.R("R4", R4),
    )
    bg.connect("top", "C")
    bg.connect("top", "R1")
    bg.connect("top", "branch")
    bg.connect("branch", "R2")
    bg.connect("branch", "par")
    bg.connect("par", "R3")
    bg.connect("par", "R4")
    return bg


#: Mass [kg] and suspension damping [N s/m] of `quarter_car`.
MASS, DAMPING = 2.0, 0.1


def suspension(k, b=DAMPING, name="suspension"):
    """Component: spring C and damper R on a 1-junction, exposed as port "a"."""
    comp = ph.BondGraph(name)
    comp.add(ph.Junction1("j"), ph.C("k", stiffness=k), ph.R("b", b))
    comp.connect("j", "k")
    comp.connect("j", "b")
    comp.expose("a", "j")
    return comp


def quarter_car(k, force=0.0):
    """Mass MASS on a `suspension` component "susp", driven by Se "F": m q'' + b q' + k q = F(t)."""
    bg = ph.BondGraph("quarter_car")
    bg.add(ph.Se("F", force), ph.Junction1("v"), ph.I("m", mass=MASS), suspension(k, name="susp"))
    bg.connect("F", "v")
    bg.connect("v", "m")
    bg.connect("v", ("susp", "a"))
    return bg


@pytest.fixture
def rng():
    return np.random.default_rng(20240611)
