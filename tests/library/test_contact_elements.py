"""Finite-difference checks of the contact elements' kernels along prescribed motions.

Sliding-plane constraint: c = J (T_a, T_b) equals the finite-difference rate of its gap
(minus the signed distance), and dc/dt = J d(T_a, T_b)/dt + beta (the acceleration bias with
the moving contact point) equals the finite-difference rate of c, for the normal row and the
two no-slip rows, at positive and negative signed distance. Compliant contact spring: the
port efforts are the exact gradient of the stored energy (e . T = dV/dt for the normal part,
which depends on the configuration only).
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose

from porthamiltonian.contact import LocalHertzLaw
from porthamiltonian.geometry import Ellipsoid, Plane
from porthamiltonian.library import CompliantContact, Ground, RigidBody, SlidingPlaneContact
from porthamiltonian.lie import se3

from .helpers import derivative, pose7, random_pose, two_exp_motion

H = 1e-3  # step of the 4th-order differences: error ~ h^4 |f^(5)| ~ 1e-11 here


def moving_pair(rng, kind, delta0, friction="rolling"):
    """Two ellipsoids (or an ellipsoid over a plane) with smooth motions and a contact element."""
    a = RigidBody("a", 1.0, [0.1, 0.12, 0.14])
    Ea = Ellipsoid(0.3, 0.2, 0.15)
    if kind == "ellipsoids":
        b = RigidBody("b", 1.0, [0.1, 0.1, 0.1])
        Eb = Ellipsoid(0.25, 0.2, 0.18)
    else:
        b = Ground("ground")
        Eb = Plane()
    # place b's surface below a's lowest point by delta0 (along world z), then random motions
    Ha0 = random_pose(rng, 0.1)
    Ha0[:3, 3] = (0.0, 0.0, 0.0)
    R = Ha0[:3, :3]
    low = np.sqrt(sum((ax * R[2, k]) ** 2 for k, ax in enumerate((0.3, 0.2, 0.15))))
    Hb0 = np.eye(4)
    if kind == "ellipsoids":  # b's top roughly delta0 below a's lowest point
        Hb0[2, 3] = -low - delta0 - 0.18
    else:  # the ground plane is z = 0: lift a instead
        Ha0[2, 3] = low + delta0
    # slow motions: the signed distance stays within a few cm of delta0 over the checked times
    ma = two_exp_motion(Ha0, 0.05 * rng.normal(size=6), 0.05 * rng.normal(size=6))
    mb = two_exp_motion(Hb0, 0.05 * rng.normal(size=6), 0.05 * rng.normal(size=6)) if kind == "ellipsoids" else None
    return a, Ea, b, Eb, ma, mb


def refs_at(a, b, ma, mb, t):
    out = [pose7(ma(t)[0])]
    if mb is not None:
        out.append(pose7(mb(t)[0]))
    return tuple(out)


def twists_at(ma, mb, t):
    Ta, dTa = ma(t)[1], ma(t)[2]
    Tb, dTb = (mb(t)[1], mb(t)[2]) if mb is not None else (np.zeros(6), np.zeros(6))
    return (Ta, Tb), np.concatenate((dTa, dTb))


@pytest.mark.parametrize("kind", ["ellipsoids", "plane"])
@pytest.mark.parametrize("delta0", [0.02, 0.0, -0.01])
def test_sliding_plane_constraint_rates(kind, delta0):
    rng = np.random.default_rng(7 + int(1000 * abs(delta0)) + 100 * (delta0 < 0) + (kind == "plane"))
    a, Ea, b, Eb, ma, mb = moving_pair(rng, kind, delta0)
    comp = SlidingPlaneContact("c", a, Ea, b, Eb, friction="rolling", unilateral=False)
    con = comp["constraint"]
    # the element's own state holds warm starts in fixed charts (as in a simulation between chart
    # switches): the exact contact points are re-projected from them at every evaluation
    state = {}

    def own(t):
        return state["x"]

    def c_of(t):
        flows, _ = twists_at(ma, mb, t)
        J, bias, g = con.terms(t, own(t), refs_at(a, b, ma, mb, t))
        return J @ np.concatenate(flows) + bias

    def gap(t):
        return con.terms(t, own(t), refs_at(a, b, ma, mb, t))[2][0]

    for t in (0.0, 0.3):
        state["x"] = con.initialize(t, np.zeros(7), refs_at(a, b, ma, mb, t))  # global search at t
        flows, dflows = twists_at(ma, mb, t)
        x = own(t)
        refs = refs_at(a, b, ma, mb, t)
        J = con.jacobian(t, x, refs)
        beta = con.acceleration_bias(t, x, refs, flows)
        # c is the rate of the gap (penetration); measured ~1e-12
        assert_allclose(c_of(t)[0], derivative(gap, t, H), rtol=0, atol=1e-9)
        # dc/dt = J dT/dt + beta for the normal and both no-slip rows; measured ~1e-10
        assert_allclose(J @ dflows + beta, derivative(c_of, t, H), rtol=0, atol=1e-8)


def test_sliding_plane_bias_needs_the_moving_contact_point():
    """Control: dropping the terms of the moving contact point breaks the check above."""
    rng = np.random.default_rng(3)
    a, Ea, b, Eb, ma, mb = moving_pair(rng, "ellipsoids", 0.0)
    comp = SlidingPlaneContact("c", a, Ea, b, Eb, friction="rolling", unilateral=False)
    con = comp["constraint"]
    t = 0.1
    refs = refs_at(a, b, ma, mb, t)
    x = con.initialize(t, np.zeros(7), refs)
    flows, dflows = twists_at(ma, mb, t)
    st = con._state(x, refs)
    pair = con.pair
    ex, ey, n1, O = (st.H_1C[:3, k] for k in range(4))
    w1, v1 = np.split(se3.Ad(pair.H_S1a) @ flows[0], 2)          # surface 1's twist, frame 1
    w, v = np.split(pair.relative_twist_12(flows[0], flows[1], st.H_12), 2)
    dw_b, dv_b = -np.cross(w1, w), -(np.cross(w1, v) + np.cross(v1, w))
    full = con.acceleration_bias(t, x, refs, flows)
    frozen = -np.array([r @ (np.cross(dw_b, O) + dv_b) for r in (n1, ex, ey)])
    assert np.max(np.abs(full - frozen)) > 1e-3


@pytest.mark.parametrize("kind", ["ellipsoids", "plane"])
@pytest.mark.parametrize("law", ["hertz", "local"])
def test_compliant_spring_efforts_are_the_gradient_of_its_energy(kind, law):
    """Normal part (the deformation s is zero): e_a . T_a + e_b . T_b = dV/dt along a motion;
    with the stiffness from the local curvatures (`LocalHertzLaw`) V depends on the
    configuration through K too, and the efforts include its gradient."""
    rng = np.random.default_rng(11)
    a, Ea, b, Eb, ma, mb = moving_pair(rng, kind, -0.01)
    normal = dict(normal="hertz", stiffness=3e5, damping=0.0) if law == "hertz" else dict(normal=LocalHertzLaw(6e5))
    comp = CompliantContact("c", a, Ea, b, Eb, **normal)
    spring = comp["spring"]

    state = {}

    def V(t):
        return spring.energy(state["x"], refs_at(a, b, ma, mb, t))

    for t in (0.0, 0.05):
        state["x"] = spring.initialize(t, np.zeros(10), refs_at(a, b, ma, mb, t))  # warm start at t
        flows, _ = twists_at(ma, mb, t)
        x = state["x"]
        assert x[6] == 1.0  # in contact
        e = spring.outputs(t, x, refs_at(a, b, ma, mb, t))
        power = e[0] @ flows[0] + e[1] @ flows[1]
        # V ~ delta^(5/2) has large high derivatives at small penetration: a finer step (h = 1e-4,
        # stencil inside the contact); measured <= 3e-10 relative
        assert_allclose(power, derivative(V, t, 1e-4), rtol=1e-8, atol=1e-10)
