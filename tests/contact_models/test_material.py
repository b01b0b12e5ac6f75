"""One `ContactMaterial` for every contact kind (issue 11, acceptance 1 and 3).

A ball meets the floor head-on at speed V, without gravity: Newton's restitution is exact for
the sliding-plane contact and, by construction of the damping, for the compliant one (the
unclipped linear law: exp(-zeta pi / sqrt(1 - zeta^2)); the Hertz law as Hunt-Crossley:
the exact map at the impact speed), so both kinds built from the same material return at
e V. Misused parameters are typed errors naming the parameter and the kind.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose

import porthamiltonian as ph
from porthamiltonian.contact.laws import NormalLaw
from porthamiltonian.geometry import Plane, Sphere
from porthamiltonian.library import ContactMaterial, Ground, RigidBody, contact

from .conftest import RTOL, TIGHT, assert_ledger_closes, ball, body_on_plane, world_momenta

M, R_BALL, V, GAP = 2.0, 0.1, 0.8, 1e-3


def rebound(kind, material, t_end=0.1):
    system, x0 = body_on_plane(*ball(M, R_BALL, R_BALL + GAP, twist=(0, 0, 0, 0, 0, -V)), kind=kind, material=material)
    traj = ph.simulate(system, (0.0, t_end), x0, **TIGHT)
    p, _ = world_momenta(traj)
    return traj, p[-1] / M


@pytest.mark.parametrize("kind", ["compliant", "sliding_plane"])
@pytest.mark.parametrize("normal, e", [(None, 0.6), (NormalLaw("linear", stiffness=5e4), 0.3),
                                       (NormalLaw("hertz", stiffness=2e7), 0.6),
                                       (NormalLaw("hunt_crossley", stiffness=2e6, exponent=1.3), 0.85)])
def test_one_material_gives_both_kinds_its_restitution(kind, normal, e):
    material = ContactMaterial(friction=0.3, restitution=e, normal=normal, impact_speed=V)
    traj, v = rebound(kind, material)
    assert_allclose(v, (0.0, 0.0, e * V), rtol=0, atol=1e-6 * V)   # measured: see the closing note
    assert_ledger_closes(traj, 10 * RTOL)


def test_the_sliding_plane_ignores_the_normal_law_and_the_compliant_uses_it():
    """A stiffer law shortens the compliant contact (the ball is higher at the end) and
    changes nothing for the rigid one."""
    stiff, soft = (ContactMaterial(restitution=0.5, normal=NormalLaw("linear", stiffness=k)) for k in (1e6, 1e3))
    for kind, same in (("sliding_plane", True), ("compliant", False)):
        (a, _), (b, _) = rebound(kind, stiff), rebound(kind, soft)
        za, zb = a.state("ball.pose")[-1, 6], b.state("ball.pose")[-1, 6]
        assert bool(za == zb) is same and (same or za > zb)


@pytest.mark.parametrize("kind, parameters, match", [
    ("compliant", {"friction": 0.2}, r"compliant contact 'c': `friction` would override the material"),
    ("sliding_plane", {"mu": 0.2, "restitution": 0.1},
     r"sliding_plane contact 'c': `mu`, `restitution` would override the material"),
    ("sliding_plane", {"stiffness": 1e4}, r"sliding_plane contact 'c' takes no parameter `stiffness`; it takes "),
    ("compliant", {"mu": 0.2}, r"compliant contact 'c' takes no parameter `mu` \(did you mean `relax`\?\)|"
                               r"compliant contact 'c' takes no parameter `mu`"),
])
def test_parameter_misuse_names_the_parameter_and_the_kind(kind, parameters, match):
    ball, ground = RigidBody("ball", M, [1e-3] * 3), Ground("ground")
    with pytest.raises(ph.ParameterError, match=match):
        contact(kind, "c", ball, Sphere(R_BALL), ground, Plane(), material=ContactMaterial(), **parameters)


def test_friction_means_one_thing_per_kind_without_a_material():
    ball, ground = RigidBody("ball", M, [1e-3] * 3), Ground("ground")
    with pytest.raises(ph.ParameterError, match=r"`friction` is the Coulomb coefficient mu \(a number\), got 'coulomb'"):
        contact("compliant", "c", ball, Sphere(R_BALL), ground, Plane(), friction="coulomb")
    with pytest.raises(ph.ParameterError, match=r"`friction` is a mode .* got 0.2; the coefficient is `mu`"):
        contact("sliding_plane", "c", ball, Sphere(R_BALL), ground, Plane(), friction=0.2)


@pytest.mark.parametrize("arguments, match", [
    ({"restitution": -0.1}, r"`restitution` must be"),
    ({"restitution": 1.2}, r"`restitution` must lie in \[0, 1\], got 1.2"),
    ({"friction": -0.1}, r"`friction` must be"),
    ({"normal": "linear"}, r"`normal` must be a NormalLaw or a LocalHertzLaw, got 'linear'"),
    ({"normal": NormalLaw("linear", stiffness=1e4, damping=3.0), "damping": "restitution"},
     r"`normal` must be elastic \(damping 0, got 3.0\) with `damping` 'restitution'"),
    ({"damping": "law"}, r"`damping` 'law' takes the `normal` law's own damping: give a `normal` law"),
    ({"damping": "own"}, r"`damping` must be one of \('restitution', 'law'\) or None, got 'own'"),
    ({"restitution": 0.0, "normal": NormalLaw("hertz", stiffness=1e7)},
     r"`restitution` 0 with a hertz law and no damping of its own: a Hunt-Crossley impact returns at e = 0 only "
     r"with infinite damping"),
])
def test_material_checks_its_arguments(arguments, match):
    with pytest.raises(ph.ParameterError, match=match):
        ContactMaterial(**arguments)


def test_swap_changes_the_kind_and_keeps_the_material():
    """`BondGraph.swap` with a component of the other kind built from the same material: the
    swapped scene rebounds at the material's restitution, like one built with that kind."""
    material = ContactMaterial(friction=0.3, restitution=0.7)
    H = np.eye(4)
    H[2, 3] = R_BALL + GAP
    ball = RigidBody("ball", M, [0.4 * M * R_BALL**2] * 3, pose=H, twist=(0, 0, 0, 0, 0, -V))
    ground = Ground("ground")
    bg = ph.BondGraph("drop")
    bg.add(ball, ground, contact("compliant", "c", ball, Sphere(R_BALL), ground, Plane(), material=material))
    bg.connect(ball.frame().port, ("c", "a"))
    bg.connect(ground.frame().port, ("c", "b"))
    bg.swap("c", contact("sliding_plane", "c", ball, Sphere(R_BALL), ground, Plane(), material=material))
    system = ph.compile(bg)
    assert "c/constraint" in system.elements
    traj = ph.simulate(system, (0.0, 0.1), system.initial_state(), **TIGHT)
    p, _ = world_momenta(traj)
    assert_allclose(p[-1] / M, (0.0, 0.0, 0.7 * V), rtol=0, atol=1e-12)


def test_a_plastic_material_is_critical_damping_of_the_linear_law():
    """e = 0 on the linear law is critical damping of the reduced mass (zeta = 1, the limit of
    the restitution map): the unclipped impact is x(t) = V t exp(-omega t), omega = sqrt(k/m),
    which returns to the surface only as t -> inf, at zero speed; the rigid kind stops dead."""
    k = 5e4
    material = ContactMaterial(friction=0.3, restitution=0.0, normal=NormalLaw("linear", stiffness=k))
    assert material.normal_law(M).damping == 2.0 * np.sqrt(k * M)
    traj, v = rebound("compliant", material, t_end=0.08)
    omega, t0 = np.sqrt(k / M), GAP / V
    s = np.clip(traj.t - t0, 0.0, None)
    depth = R_BALL - traj.state("ball.pose")[:, 6]
    closed = np.where(traj.t > t0, V * s * np.exp(-omega * s), -(GAP - V * traj.t))
    # integrated at rtol 1e-10 of a 1.9 mm peak (the touch itself located to round-off)
    assert_allclose(depth, closed, rtol=0, atol=1e-9)
    assert np.all(depth[traj.t > t0 + 1e-4] > 0.0)   # it never leaves the floor
    ws = omega * s[-1]   # rising at V (omega s - 1) exp(-omega s): 4.5e-5 V at s = 78.75 ms, -> 0
    assert_allclose(v, (0.0, 0.0, V * (ws - 1.0) * np.exp(-ws)), rtol=0, atol=1e-8 * V)
    _, v_rigid = rebound("sliding_plane", material)
    assert_allclose(v_rigid, 0.0, atol=1e-9 * V)


def test_a_law_with_its_own_damping_serves_the_compliant_kind_and_restitution_the_rigid():
    """damping="law": the compliant contact uses the law as given (here undamped: it returns
    at V), the sliding plane the material's restitution (plastic here: it stops)."""
    material = ContactMaterial(friction=0.0, restitution=0.0, normal=NormalLaw("linear", stiffness=5e4), damping="law")
    assert material.normal_law(M) is material.normal
    _, v = rebound("compliant", material)
    assert_allclose(v, (0.0, 0.0, V), rtol=0, atol=1e-6 * V)
    _, v = rebound("sliding_plane", material)
    assert_allclose(v, 0.0, atol=1e-9 * V)
    damped = ContactMaterial(restitution=0.2, normal=NormalLaw("linear", stiffness=5e4, damping=40.0))
    assert damped.damping == "law" and damped.normal_law(M).damping == 40.0


def test_a_plastic_material_with_the_default_law_is_refused_by_the_compliant_kind_only():
    ball, ground = RigidBody("ball", M, [1e-3] * 3), Ground("ground")
    plastic = ContactMaterial(restitution=0.0)
    contact("sliding_plane", "c", ball, Sphere(R_BALL), ground, Plane(), material=plastic)
    with pytest.raises(ph.ParameterError, match=r"`restitution` 0 with the compliant contact's default "
                                                r"\(Hunt-Crossley\) law and no damping of its own"):
        contact("compliant", "c", ball, Sphere(R_BALL), ground, Plane(), material=plastic)
