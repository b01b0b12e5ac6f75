"""Contacts an impulse leaves on at rest whose normal forces would pull (`PHSystem.apply_impulse`:
the acceleration-level complementarity problem of the contacts it leaves on).

Scene: a uniform bar (mass M, length L) lying level on two frictionless sliding-plane sphere
feet at its ends, at rest under gravity, its right end pulled up by a vertical spring with force
F. Both feet held, the forces are lambda_L = M g / 2 and lambda_R = (M g - 2 F) / 2: for F > M g / 2
the right foot pulls. With it released, the bar pivots on the left foot (frictionless: only the
foot's vertical acceleration is held) and, with kappa = M L^2 / (4 I_y),

    lambda_L = (M g + (kappa - 1) F) / (1 + kappa),   right end's vertical acceleration -alpha L > 0,

alpha = L (lambda_L - F) / (2 I_y) (Newton-Euler about the centre of mass; closed forms written
here, independent of the solve).

And Painlevé's rod (below): where no force is consistent, the run stops and names the paradox.
"""

import math

import numpy as np
import pytest

import porthamiltonian as ph
from porthamiltonian.geometry import Plane, Point, Sphere
from porthamiltonian.lie import quaternion, se3
from porthamiltonian.library import Gravity, Ground, PointSpring, RigidBody, SlidingPlaneContact, make_contact

M, L, W, R, G = 2.0, 0.6, 0.04, 0.02, 9.81
IY = M * (L * L + W * W) / 12.0
KAPPA = M * L * L / (4.0 * IY)
K_SPRING, REACH = 1.0e3, 0.5      # the lifting spring [N/m] and its anchor's height above the bar end [m]


def bar_on_two_feet(lift, at=L / 2):
    """(system, state): the bar at rest with both feet on, the spring pulling up with force `lift`
    [N] at the point `at` [m] of its axis (the right end by default)."""
    bar = RigidBody("bar", M, [M * W * W / 6.0, IY, IY], pose=se3.make(np.eye(3), (0.0, 0.0, R)))
    ground = Ground("ground")
    bg = ph.BondGraph("bar")
    bg.add(bar, ground, Gravity("gravity", bar, (0.0, 0.0, -G)))
    bg.connect(bar.frame().port, "gravity")
    for name, x in (("left", -L / 2), ("right", L / 2)):
        bg.add(make_contact("sliding_plane", name, bar, Sphere(R), ground, Plane(),
                            pose_a=se3.make(np.eye(3), (x, 0.0, 0.0)), friction="frictionless"))
        bg.connect(bar.frame().port, (name, "a"))
        bg.connect(ground.frame().port, (name, "b"))
    bg.add(PointSpring("lift", bar.frame(), ground.frame(), stiffness=K_SPRING, rest_length=REACH - lift / K_SPRING,
                       point_a=(at, 0.0, 0.0), point_b=(at, 0.0, R + REACH)))
    bg.connect(bar.frame().port, ("lift", "a"))
    bg.connect(ground.frame().port, ("lift", "b"))
    system = ph.compile(bg)
    return system, system.initial_state({"left/constraint.active": 1.0, "right/constraint.active": 1.0})


def normal_force(system, x, path):
    return float(system.multipliers(0.0, x)[path][0])


def test_a_foot_left_on_that_would_pull_is_released():
    lift = 0.8 * M * G
    system, x = bar_on_two_feet(lift)
    # the premise, held: the right foot pulls (round-off of the 2 x 2 solve: 1e-12 of M g)
    assert normal_force(system, x, "right/constraint") == pytest.approx((M * G - 2 * lift) / 2, rel=1e-12, abs=1e-12 * M * G)
    assert normal_force(system, x, "left/constraint") == pytest.approx(M * G / 2, rel=1e-12)
    # a plastic impact at rest at the left foot (target: zero normal velocity) leaves it on
    xn, works, released = system.apply_impulse(0.0, x, "left/constraint", np.zeros(1), work=True)
    lay = system.layout
    assert released == ["right/constraint"]
    assert xn[lay["right/constraint.active"]][0] == 0.0 and xn[lay["left/constraint.active"]][0] == 1.0
    assert np.array_equal(xn[lay["bar.pose"]], x[lay["bar.pose"]]) and not np.any(xn[lay["bar.P"]])  # nothing moved
    lam_left = (M * G + (KAPPA - 1.0) * lift) / (1.0 + KAPPA)
    assert normal_force(system, xn, "left/constraint") == pytest.approx(lam_left, rel=1e-10)
    # released, the right end rises: its vertical acceleration, from the body's rates
    alpha = L * (lam_left - lift) / (2.0 * IY)
    Pdot = system.rhs(0.0, xn)[lay["bar.P"]]
    assert Pdot[1] / IY == pytest.approx(alpha, rel=1e-10)          # the angular rate about y
    assert -alpha * L > 0.0
    assert all(w == (0.0, 0.0) for w in works.values())             # a zero impulse does no work


def test_feet_that_push_stay_on():
    lift = 0.3 * M * G
    system, x = bar_on_two_feet(lift)
    xn, _, released = system.apply_impulse(0.0, x, "left/constraint", np.zeros(1), work=True)
    assert released == []
    assert normal_force(system, xn, "right/constraint") == pytest.approx((M * G - 2 * lift) / 2, rel=1e-12)


def test_both_feet_released_when_lifted_by_the_middle_beyond_the_weight():
    """Lifted by its centre with F > M g, both feet pull by (M g - F) / 2 and both leave: the bar
    rises level at (F - M g) / M."""
    lift = 1.5 * M * G
    system, x = bar_on_two_feet(lift, at=0.0)
    for p in ("left/constraint", "right/constraint"):
        assert normal_force(system, x, p) == pytest.approx((M * G - lift) / 2, rel=1e-12)
    xn, _, released = system.apply_impulse(0.0, x, "left/constraint", np.zeros(1), work=True)
    assert released == ["left/constraint", "right/constraint"]
    Pdot = system.rhs(0.0, xn)[system.layout["bar.P"]]
    assert Pdot[5] / M == pytest.approx((lift - M * G) / M, rel=1e-10)
    assert abs(Pdot[1]) < 1e-12 * M * G * L


def test_a_run_starting_with_a_pulling_foot_releases_it():
    """The bar lifted at its right end, both feet on at the start: the run releases the right
    foot at t = 0 (a detach record, no energy), and the bar pivots on the left foot with the
    closed form's angular acceleration (before, the right contact pulled and held the bar level
    for the whole run: its detach event started past its zero)."""
    lift = 0.8 * M * G
    system, x0 = bar_on_two_feet(lift)
    T = 1e-4
    tr = ph.simulate(system, (0.0, T), x0, t_eval=[0.0, T], method="DOP853", rtol=1e-12, atol=1e-14)
    assert tr.status == 0, tr.message
    first = tr.events[0]
    assert (first.t, first.name, first.lost) == (0.0, "right/constraint.detach", 0.0)
    assert first.message == "released at the start: its normal force would pull"
    assert [e.name for e in tr.events] == ["right/constraint.detach"]   # the left foot stays on
    # after 0.1 ms: omega_y = alpha t to first order; the spring's force falls by its stiffness
    # times the end's rise (-alpha L t^2 / 2 = 4.4 t^2 m), relative 2.8e2 t^2: 3e-6 at 0.1 ms
    alpha = L * ((M * G + (KAPPA - 1.0) * lift) / (1.0 + KAPPA) - lift) / (2.0 * IY)
    P = tr.state("bar.P")[-1]
    assert P[1] / IY == pytest.approx(alpha * T, rel=1e-5)
    assert tr.power_budget().relative_residual < 1e-10


# ---------------------------------------------------------------- Painlevé's rod
#
# A uniform rod (mass M, length 2 l) leaning at angle theta on a plane, one end A a point foot
# on a sliding-plane contact with Coulomb friction mu, translating at speed v along the plane
# (no rotation yet). Newton-Euler in the rod's plane (Painlevé 1895), friction -mu N sign(v_A):
#
#     N = M g / (1 + 3 cos^2 theta + 3 mu sign(v_A) sin theta cos theta),
#
# positive for the end sliding away from below the centre of mass; for the end sliding toward
# it and 3 mu sin theta cos theta > 1 + 3 cos^2 theta (mu > 4/3 at best), N < 0 held, and
# released the end falls with the rod: no consistent force (the paradox).

ROD_M, ROD_L, ROD_MU, ROD_THETA = 1.0, 0.5, 2.0, math.radians(60.0)


def painleve_rod(v):
    """(system, state): the rod at ROD_THETA, its end A at the origin on the plane z = 0 (its
    contact on), translating at `v` [m/s] along x, the contact's slip speed 1e-4 m/s."""
    c, s = math.cos(ROD_THETA), math.sin(ROD_THETA)
    R = np.array([[c, 0.0, -s], [0.0, 1.0, 0.0], [s, 0.0, c]])   # body x along the rod, from A up
    inertia = ROD_M * (2 * ROD_L) ** 2 / 12.0
    rod = RigidBody("rod", ROD_M, [1e-6, inertia, inertia], pose=se3.make(R, (ROD_L * c, 0.0, ROD_L * s)),
                    twist=np.r_[0.0, 0.0, 0.0, R.T @ np.array([v, 0.0, 0.0])])
    ground = Ground("ground")
    bg = ph.BondGraph("painleve")
    bg.add(rod, ground, Gravity("gravity", rod, (0.0, 0.0, -G)))
    bg.connect(rod.frame().port, "gravity")
    bg.add(SlidingPlaneContact("end", ground, Plane(), rod, Point((-ROD_L, 0.0, 0.0)), friction="coulomb",
                               mu=ROD_MU, eps=1e-4))
    bg.connect(ground.frame().port, ("end", "a"))
    bg.connect(rod.frame().port, ("end", "b"))
    system = ph.compile(bg)
    return system, system.initial_state({"end/constraint.active": 1.0})


def painleve_force(sign, eps=1e-4, v=1.0):
    """Painlevé's N with the contact's smoothed Coulomb law: mu v / sqrt(v^2 + eps^2) at slip
    speed v (1 - 5e-9 of mu here, which moves N by 1.5e-8 near the paradox)."""
    c, s = math.cos(ROD_THETA), math.sin(ROD_THETA)
    mu = ROD_MU * v / math.hypot(v, eps)
    return ROD_M * G / (1.0 + 3.0 * c * c + 3.0 * mu * sign * s * c)


def test_painleves_rod_sliding_away_carries_the_closed_form_force():
    system, x = painleve_rod(1.0)
    assert normal_force(system, x, "end/constraint") == pytest.approx(painleve_force(+1), rel=1e-12)
    tr = ph.simulate(system, (0.0, 1e-3), x, method="DOP853", rtol=1e-10, atol=1e-12)
    assert tr.status == 0 and not tr.events


def test_painleves_rod_sliding_in_stops_the_run_at_the_start_naming_the_paradox():
    system, x = painleve_rod(-1.0)
    pull = painleve_force(-1)
    assert pull < 0.0
    assert normal_force(system, x, "end/constraint") == pytest.approx(pull, rel=1e-12)
    tr = ph.simulate(system, (0.0, 1e-3), x, throw=False)
    assert tr.status == -1 and tr.message.startswith("at the start: at t = 0 s the contacts on at rest (end/constraint)")
    # the forces it names: held (the paradox's N), and frictionless (M g / (1 + 3 cos^2 theta))
    push = ROD_M * G / (1.0 + 3.0 * math.cos(ROD_THETA) ** 2)
    assert f"pull ({pull:.4g} N)" in tr.message and f"push ({push:.4g} N)" in tr.message
    assert "Painlevé's paradox, friction coefficient 2" in tr.message
    assert list(tr.t) == [0.0]


def test_painleves_rod_sliding_in_is_stopped_by_a_tangential_impact_after_an_impulse():
    """After an impulse (here a plastic one at rest, which takes nothing), the same paradox is
    resolved by a tangential impact (Génot & Brogliato's dynamic jam): the impulse P at A that
    stops the slip and keeps the normal velocity, with the rod's contact mobility (centre
    velocity P / M, spin (r x P) / I, I = M l^2 / 3, r from the centre to A):

        spin w = 3 sin(theta) v / (4 l),  P_n = -(3/4) M sin(theta) cos(theta) v,
        P_t = M v (3 sin^2(theta) / 4 - 1),

    inside the cone here (|P_t| = 0.4375 <= 2 x 0.3248), so the contact sticks; its kinetic
    energy loss is booked with the impulse."""
    v = -1.0
    system, x = painleve_rod(v)
    lay = system.layout
    s, c = math.sin(ROD_THETA), math.cos(ROD_THETA)
    P_n, P_t = -0.75 * ROD_M * s * c * v, ROD_M * v * (0.75 * s * s - 1.0)
    assert P_n > 0.0 and abs(P_t) <= ROD_MU * P_n              # the premise: inside the cone
    xn, works, released = system.apply_impulse(0.0, x, "end/constraint", np.zeros(3), work=True)
    pose, P = xn[lay["rod.pose"]], xn[lay["rod.P"]]
    Rot = quaternion.to_matrix(pose[:4])
    inertia = ROD_M * (2 * ROD_L) ** 2 / 12.0
    w = Rot @ (P[:3] / np.array([1e-6, inertia, inertia]))
    V = Rot @ P[3:] / ROD_M
    assert w[1] == pytest.approx(3.0 * s * v / (4.0 * ROD_L), rel=1e-10)
    np.testing.assert_allclose(V, (v + P_t / ROD_M, 0.0, P_n / ROD_M), rtol=0, atol=1e-10)
    r = np.array([-ROD_L * c, 0.0, -ROD_L * s])               # centre -> A
    np.testing.assert_allclose(V + np.cross(w, r), 0.0, rtol=0, atol=1e-10)   # A at rest
    lost = 0.5 * ROD_M * v * v - (0.5 * ROD_M * V @ V + 0.5 * inertia * w[1] ** 2)
    assert works["end/constraint"][1] == pytest.approx(lost, rel=1e-9)
    # stuck afterwards, its forces consistent: pushing, inside the cone
    assert xn[lay["end/constraint.active"]][0] == 2.0 and released == []
    lam = system.multipliers(0.0, xn)["end/constraint"]
    assert lam[0] > 0.0 and math.hypot(lam[1], lam[2]) <= ROD_MU * lam[0]
