"""Feet (issue 13): soles checked for strict convexity at construction, a heel-and-toe foot
with a contact per sole, and the same foot on every ground kind."""

import numpy as np
import pytest
from numpy.testing import assert_allclose

import porthamiltonian as ph
from porthamiltonian.geometry import BezierPatch, Cylinder, Ellipsoid, Plane, Sphere
from porthamiltonian.library import Foot, Gravity, Ground, RigidBody, heel_toe

R, HALF, M = 0.02, 0.1, 1.0


def foot_on_ground(kind, height=R + 0.005, **parameters):
    """A 1 kg foot with a heel and a toe 10 cm either side of its centre of mass, level."""
    H = np.eye(4)
    H[2, 3] = height
    body = RigidBody("foot", M, [1e-3, 4e-3, 4e-3], pose=H)
    ground = Ground("ground")
    soles = heel_toe(Sphere(R), Sphere(R), heel_at=(-HALF, 0, 0), toe_at=(HALF, 0, 0))
    bg = ph.BondGraph("foot")
    bg.add(body, ground, Gravity("gravity", body), Foot("sole", body, soles, ground, Plane(), kind=kind, **parameters))
    bg.connect(body.frame().port, "gravity")
    bg.connect(body.frame().port, ("sole", "a"))
    bg.connect(ground.frame().port, ("sole", "b"))
    system = ph.compile(bg)
    return system, system.initial_state()


def test_a_heel_and_toe_foot_rests_on_both_soles_with_half_the_weight_each():
    k = 1e4
    system, x0 = foot_on_ground("compliant", stiffness=k, damping=150.0)
    traj = ph.simulate(system, (0.0, 1.5), x0, rtol=1e-10, atol=1e-12, method="DOP853")
    touched = {e.name for e in traj.events if e.name.endswith("touch")}
    assert touched == {"sole/heel/spring.touch", "sole/toe/spring.touch"}
    z = traj.state("foot.pose")[-1, 6]
    assert_allclose(z, R - M * 9.81 / (2 * k), rtol=0, atol=1e-9)     # by symmetry, m g / 2 on each
    b = traj.power_budget()
    assert b.max_residual < 1e-8 * b.scale


@pytest.mark.parametrize("kind", ["sliding_plane", "soil"])
def test_the_same_foot_on_other_grounds(kind):
    """One argument swaps the ground: the rigid landing is an impact on both soles at once,
    the soil presses two footprints; each ledger closes."""
    system, x0 = foot_on_ground(kind)
    traj = ph.simulate(system, (0.0, 0.3), x0, rtol=1e-10, atol=1e-12, method="DOP853")
    b = traj.power_budget()
    assert b.max_residual < 1e-7 * b.scale
    if kind == "soil":
        assert b.entries["dissipated"]["sole/heel/plastic"][-1] > 0
        assert_allclose(b.entries["dissipated"]["sole/heel/plastic"][-1],
                        b.entries["dissipated"]["sole/toe/plastic"][-1], rtol=1e-6)
    else:
        assert sum(col[-1] for col in b.entries["lost"].values()) > 0


@pytest.mark.parametrize("sole, what", [
    (Plane(), "Plane"),
    (Cylinder(0.02, 0.05), "Cylinder"),
])
def test_a_sole_that_is_not_strictly_convex_is_refused_at_construction(sole, what):
    body, ground = RigidBody("foot", 1.0, [1e-3] * 3), Ground("ground")
    with pytest.raises(ph.ParameterError, match=rf"sole 'flat': a {what} is not strictly convex .* Use a slightly "
                                                 r"curved sole"):
        Foot("f", body, {"flat": sole}, ground, Plane())


def test_a_saddle_shaped_nurbs_sole_is_refused_and_a_dome_accepted():
    u = np.linspace(-1, 1, 4)
    # parameters ordered so that f_u x f_v points down, out of the sole, toward the ground
    dome = np.array([[[a * 0.03, b * 0.03, -0.01 * (2 - a * a - b * b)] for b in u[::-1]] for a in u])
    saddle = np.array([[[a * 0.03, b * 0.03, -0.01 * (a * a - b * b)] for b in u[::-1]] for a in u])
    body, ground = RigidBody("foot", 1.0, [1e-3] * 3), Ground("ground")
    Foot("f", body, {"dome": BezierPatch(dome)}, ground, Plane())
    with pytest.raises(ph.ParameterError, match="sole 'saddle': a BezierPatch is not strictly convex"):
        Foot("f", body, {"saddle": BezierPatch(saddle)}, ground, Plane())


def test_an_ellipsoid_sole_is_accepted_and_soles_must_be_given():
    body, ground = RigidBody("foot", 1.0, [1e-3] * 3), Ground("ground")
    Foot("f", body, {"sole": Ellipsoid(0.1, 0.04, 0.02)}, ground, Plane())
    with pytest.raises(ph.ParameterError, match="`soles` must be a non-empty dict"):
        Foot("f", body, {}, ground, Plane())
