"""A frictionless ellipsoid rocking on a plane, damping off (issue 5, acceptance 2 and 6).

Frictionless means no tangential force at all: friction 0 alone is not enough (the
regularized slip and the tangential damper still transmit c v), so the tangential and spin
stiffness and damping are zero too. Then the only contact force is the normal one, along
the plane normal through the contact point: the horizontal momentum and the vertical
angular momentum about the centre of mass are conserved, and with gravity and the contact
potential so is the energy. All of them are measured from the body's state with closed
forms (the penetration of an ellipsoid into a plane is its support height minus the
centre's height), not read from the product.
"""

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose

import porthamiltonian as ph
from porthamiltonian.library.contact_geometry import ContactPair

from .conftest import assert_ledger_closes, body_on_plane, contact_distance, ellipsoid, world_force, world_momenta
from .reference import (
    G,
    ellipsoid_inertia,
    lowest_point_body,
    rigid_rocking_frequency,
    rigid_rocking_period,
    rotation_about,
    rotations_of,
    support_height,
    tilt_height,
    tilt_height_slope,
)

M, AXES = 1.0, (0.2, 0.15, 0.1)
FRICTIONLESS = dict(damping=0.0, friction=0.0, tangential_stiffness=0.0, tangential_damping=0.0,
                    spin_stiffness=0.0, spin_damping=0.0)
IY = ellipsoid_inertia(M, *AXES)[1]


def rocking(k, theta0, spin=0.0, v_horizontal=(0.0, 0.0)):
    """(system, x0): the ellipsoid tilted by theta0 about y, released in quasi-static contact.

    The centre starts at the height where the spring carries m (g + z''), z'' the rigid
    motion's initial vertical acceleration, so the fast normal mode is hardly excited.
    """
    a, _, c = AXES
    hp = tilt_height_slope(theta0, a, c)
    zdd = hp * (-M * G * hp / (IY + M * hp * hp))
    height = tilt_height(theta0, a, c) - M * (G + zdd) / k
    body, surface = ellipsoid(M, AXES, rotation_about((0, 1, 0), theta0), height,
                              twist_world=(0, 0, spin, *v_horizontal, 0))
    return body_on_plane(body, surface, gravity=True, stiffness=k, **FRICTIONLESS)


def energy(traj, k):
    """Total energy from the body state: kinetic + gravity + 1/2 k delta^2 (closed-form delta)."""
    pose, P = traj.state("body.pose"), traj.state("body.P")
    R = rotations_of(pose)
    I = ellipsoid_inertia(M, *AXES)
    kinetic = 0.5 * np.sum(P[:, :3] ** 2 / I, axis=1) + 0.5 * np.sum(P[:, 3:] ** 2, axis=1) / M
    delta = support_height(R, AXES) - pose[:, 6]
    return kinetic + M * G * pose[:, 6] + 0.5 * k * np.maximum(delta, 0.0) ** 2, delta


# ---------------------------------------------------------------- conservation, 1000 periods
K_STIFF, RTOL_LONG = 1e7, 1e-6
T_LONG = 2.0  # s: 1007 periods 2 pi sqrt(m/k) of the normal contact mode


@pytest.fixture(scope="module")
def long_rocking():
    system, x0 = rocking(K_STIFF, 0.15, spin=0.3, v_horizontal=(0.05, -0.03))
    traj = ph.simulate(system, (0.0, T_LONG), x0, rtol=RTOL_LONG, atol=1e-2 * RTOL_LONG, method="DOP853")
    return system, traj


def test_long_run_covers_1000_contact_periods_in_contact(long_rocking):
    system, traj = long_rocking
    assert T_LONG / (2 * math.pi * math.sqrt(M / K_STIFF)) >= 1000
    assert traj.t[-1] == T_LONG and traj.events == []  # never released, no chart switch needed
    _, delta = energy(traj, K_STIFF)
    assert delta.min() > 0.0
    tilt = np.arccos(rotations_of(traj.state("body.pose"))[:, 2, 2])
    assert tilt.max() > 0.1 and tilt.min() < 0.02  # it does rock through upright


def test_energy_with_contact_potential_is_conserved(long_rocking):
    system, traj = long_rocking
    E, _ = energy(traj, K_STIFF)
    # measured drift 6e-11 J of 1.02 J, i.e. 6e-5 RTOL over 1000 periods
    assert np.max(np.abs(E - E[0])) < 1e-2 * RTOL_LONG * E[0]
    # the product's stored energy is the same function of the state (its exact distance
    # against the closed-form support height)
    assert_allclose(traj.hamiltonian, E, rtol=0, atol=1e-12 * E[0])
    assert_ledger_closes(traj, 1e-2 * RTOL_LONG)


def test_horizontal_momentum_and_vertical_angular_momentum_are_conserved(long_rocking):
    _, traj = long_rocking
    p, L = world_momenta(traj, "body")
    assert_allclose(p[0, :2], (0.05 * M, -0.03 * M), rtol=1e-14)
    assert abs(L[0, 2]) > 1e-3  # nonzero: the spin makes the check non-trivial
    # measured drifts: 4e-11 (p_x), 2e-11 (p_y), 6e-14 (L_z) over 1000 periods
    assert_allclose(p[:, :2], np.broadcast_to(p[0, :2], p[:, :2].shape), rtol=0, atol=1e-3 * RTOL_LONG)
    assert_allclose(L[:, 2], L[0, 2], rtol=0, atol=1e-5 * RTOL_LONG)


def test_distance_matches_the_support_height(long_rocking):
    system, traj = long_rocking
    _, delta = energy(traj, K_STIFF)
    idx = np.linspace(0, traj.t.size - 1, 25).astype(int)
    assert_allclose([contact_distance(system, traj.x[i]) for i in idx], -delta[idx], rtol=0, atol=1e-13)


@pytest.mark.parametrize("friction_only", [False, True], ids=["frictionless", "friction0-defaults"])
def test_frictionless_parameters_transmit_no_tangential_force(friction_only):
    """With k_t = c_t = 0 the horizontal force vanishes; friction = 0 with the defaults is the
    same frictionless contact (the defaults switch the tangential and spin springs off)."""
    R = rotation_about((1, 2, 0), 0.2)
    body, surface = ellipsoid(M, AXES, R, support_height(R, AXES) - 2e-3, twist_world=(0, 0, 1.0, 0.5, -0.2, 0))
    law = dict(stiffness=1e4, damping=0.0, friction=0.0) if friction_only else dict(stiffness=1e4, **FRICTIONLESS)
    system, x0 = body_on_plane(body, surface, gravity=True, **law)
    traj = ph.simulate(system, (0.0, 0.02), x0, rtol=1e-10, atol=1e-12, method="DOP853")
    F = np.array([world_force(system, t, x, "body") for t, x in zip(traj.t, traj.x)])
    assert F[:, 2].max() > 10.0  # the normal force is there
    assert_allclose(F[:, :2], 0.0, atol=1e-9)


def test_tangential_spring_with_zero_friction_still_drags():
    """Control for the check above: a tangential spring kept on with friction = 0 slips at once
    and, with the viscous slip law, drags with the regularized slip force c_slip v, which the
    check would see (the Dahl law slips at the sliding speed and barely charges it)."""
    R = rotation_about((1, 2, 0), 0.2)
    body, surface = ellipsoid(M, AXES, R, support_height(R, AXES) - 2e-3, twist_world=(0, 0, 1.0, 0.5, -0.2, 0))
    system, x0 = body_on_plane(body, surface, gravity=True, stiffness=1e4, damping=0.0, friction=0.0,
                               tangential_stiffness=1e4, friction_law="viscous")
    traj = ph.simulate(system, (0.0, 0.02), x0, rtol=1e-10, atol=1e-12, method="DOP853")
    F = np.array([world_force(system, t, x, "body") for t, x in zip(traj.t, traj.x)])
    assert np.abs(F[:, :2]).max() > 1.0


# ---------------------------------------------------------------- rocking frequency
THETA0 = 0.2
STIFFNESSES = (1e4, 1e5, 1e6)


@pytest.fixture(scope="module")
def rocking_periods():
    """Measured periods (two consecutive ones) per stiffness, from the upright crossings."""
    a, _, c = AXES
    T_rigid = rigid_rocking_period(THETA0, M, a, c, IY)
    out = {}
    for k in STIFFNESSES:
        system, x0 = rocking(k, THETA0)
        pose = system.layout["body.pose"]

        def tilt(t, x):
            R = rotations_of(x[pose])[0]
            return math.atan2(R[0, 2], R[2, 2])

        tilt.direction = -1.0
        traj = ph.simulate(system, (0.0, 2.3 * T_rigid), x0, rtol=1e-7, atol=1e-9, method="DOP853", events=[tilt])
        times = [e.t for e in traj.events if e.name == "tilt"]
        assert len(times) == 3 and len(traj.events) == 3
        assert_ledger_closes(traj, 1e-6)
        out[k] = np.diff(times)
    return T_rigid, out


def test_rigid_reference_tends_to_the_small_amplitude_frequency():
    a, _, c = AXES
    w0 = rigid_rocking_frequency(M, a, c, IY)
    assert_allclose(w0 ** 2, 5 * G * (a * a - c * c) / (c * (a * a + c * c)), rtol=1e-14)
    # the amplitude correction is ~2.75 theta0^2 (11 % at 0.2 rad): 3e-10 at 1e-5 rad
    assert_allclose(rigid_rocking_period(1e-5, M, a, c, IY), 2 * math.pi / w0, rtol=1e-9)


def test_rocking_period_converges_to_the_rigid_one(rocking_periods):
    T_rigid, periods = rocking_periods
    a, _, c = AXES
    T_small = 2 * math.pi / rigid_rocking_frequency(M, a, c, IY)
    errors = []
    for k in STIFFNESSES:
        # two consecutive periods agree: the motion is periodic, the fast mode not excited
        assert_allclose(periods[k][1], periods[k][0], rtol=1e-4)
        errors.append(periods[k][0] / T_rigid - 1.0)
    # measured 7.2e-3, 6.6e-4, 6.5e-5: the compliant correction is O((w_rock / w_contact)^2) ~ 1/k
    ratios = np.array(errors[1:]) / np.array(errors[:-1])
    assert_allclose(ratios, 0.1, rtol=0.3)
    assert abs(errors[-1]) < 1e-4
    # the finite-amplitude reference matters: it differs from the linear period by 11 %
    assert abs(T_rigid / T_small - 1.0) > 1e3 * abs(errors[-1])


# ---------------------------------------------------------------- chart choice at the start
@pytest.mark.parametrize("penetration", [0.0, 1e-5, 1e-4, 1e-3])
@pytest.mark.parametrize("theta0", [0.1, 0.3, 0.5])
def test_initial_chart_leaves_room_before_the_switch(theta0, penetration):
    """The chart of the tracked contact point must start farther than CHART_MARGIN from its
    poles: the chart switch is an event on that margin crossing downward, so a start inside
    the margin is never switched and the tracker runs into the pole."""
    a, b, c = AXES
    R = rotation_about((0, 1, 0), theta0)
    body, surface = ellipsoid(M, AXES, R, support_height(R, AXES) - penetration)
    system, x0 = body_on_plane(body, surface, stiffness=1e4)
    own, _ = system.element_state("c/spring", x0)
    p = lowest_point_body(R, AXES)
    # parametric latitude of the contact point in each chart: chart 0 has its poles on +-z,
    # chart 1 on +-x (Ellipsoid docstring)
    latitude = {0: math.asin(np.clip(p[2] / c, -1, 1)), 1: math.asin(np.clip(p[0] / a, -1, 1))}
    chart = int(round(own[4]))
    assert math.pi / 2 - abs(latitude[chart]) > ContactPair.CHART_MARGIN


def test_rocking_through_upright_from_a_large_tilt():
    """Released at 0.3 rad, the ellipsoid rocks through upright twice within 0.45 s."""
    system, x0 = rocking(1e4, 0.3)
    traj = ph.simulate(system, (0.0, 0.45), x0, rtol=1e-8, atol=1e-10, method="DOP853")
    tilt = np.arccos(rotations_of(traj.state("body.pose"))[:, 2, 2])
    assert traj.t[-1] == 0.45 and tilt.min() < 0.01
    assert_ledger_closes(traj, 1e-6)
