"""Spherical pendulum: rigid body on a spherical joint vs point mass on a rod (two formulations).

A rigid body with isotropic inertia eps I about its centre of mass, hung at distance L from a
spherical joint and started without spin about the rod, keeps zero spin about the rod (it is
a symmetric top whose axial moment is eps), so its kinetic energy is
1/2 m |v|^2 + 1/2 eps |w|^2 = 1/2 (m + eps / L^2) |v|^2 with v the centre-of-mass velocity.
It is therefore *exactly* a point mass of inertia m' = m + eps / L^2 on a rod of length L,
under the gravity force m g (not m' g). The comparison holds for any eps, so eps is chosen
large enough to keep the spatial inertia well conditioned.

The two joint reactions are related through Newton's law for the centre of mass: the rod
force on the point is m' a - m g, the joint force on the body m a - m g.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.spatial.transform import Rotation

import porthamiltonian as ph
from porthamiltonian.library import DistanceConstraint, Frame, Gravity, Ground, Joint, PointMass, RigidBody

from .helpers import TIGHT, pose, random_pose

M, L, G = 1.2, 0.8, 9.81
EPS = 0.05 * M * L**2
M_POINT = M + EPS / L**2
HORIZON = 3.0

STARTS = {
    "swirl": dict(polar=1.0, azimuth=0.3, spin=[0.2, -0.5, 1.9]),
    "near-bottom": dict(polar=0.2, azimuth=-2.0, spin=[3.0, 1.0, -0.4]),
}
# where the rigid model puts its frames: the body frame at the pivot with the joint at the
# origins, or the body frame at the centre of mass with both markers offset and rotated (a
# spherical joint leaves the marker orientations free), with the pivot off the world origin
LAYOUTS = ["frame-at-pivot", "frame-at-com"]


def start(name, pivot):
    s = STARTS[name]
    th, az = s["polar"], s["azimuth"]
    r = L * np.array([np.sin(th) * np.cos(az), np.sin(th) * np.sin(az), -np.cos(th)])
    v = np.cross(s["spin"], r)
    v -= (v @ r) / (r @ r) * r  # tangent to the sphere
    return pivot + r, v


def rigid_pendulum(layout, r0, v0, pivot):
    rng = np.random.default_rng(3)
    rod = (r0 - pivot) / L  # unit vector from pivot to bob
    R0 = Rotation.align_vectors([-rod], [[0.0, 0.0, 1.0]])[0].as_matrix()  # body z points to the pivot
    w = np.cross(rod, v0) / L  # angular velocity, perpendicular to the rod: no spin about it
    if layout == "frame-at-pivot":
        com = np.array([0.0, 0.0, -L])
        H_WB = pose(R0, pivot)
        H_BM, H_WJ = np.eye(4), pose(np.eye(3), pivot)
        twist = np.r_[R0.T @ w, 0.0, 0.0, 0.0]
    else:
        com = np.zeros(3)
        H_WB = pose(R0, r0)
        H_BM = pose(random_pose(rng)[:3, :3], [0.0, 0.0, L])
        H_WJ = pose(random_pose(rng)[:3, :3], pivot)
        twist = np.r_[R0.T @ w, R0.T @ v0]
    ground = Ground("ground", frames={"pivot": H_WJ})
    bob = RigidBody("bob", M, [EPS] * 3, com=com, pose=H_WB, twist=twist)
    joint = Joint("pivot", ground.frame("pivot"), Frame(bob, "socket", H_BM), kind="spherical")
    bg = ph.BondGraph("rigid")
    bg.add(ground, bob, joint, Gravity("gravity", bob, g=(0.0, 0.0, -G)))
    bg.connect(bob.frame("B").port, "gravity")
    bg.connect(ground.frame("B").port, (joint, "a"))
    bg.connect(bob.frame("B").port, (joint, "b"))
    return ph.compile(bg), bob, joint


def point_pendulum(r0, v0, pivot):
    ball = PointMass("ball", M_POINT, dim=3, r0=r0, p0=M_POINT * v0)
    rod = DistanceConstraint("rod", ball, L, anchor=pivot)
    bg = ph.BondGraph("point")
    bg.add(ball, rod, ph.Se("weight", [0.0, 0.0, -M * G]))
    bg.connect("weight", "ball")
    bg.connect("ball", "rod")
    return ph.compile(bg)


@pytest.fixture(scope="module", params=[(s, lay) for s in STARTS for lay in LAYOUTS], ids=lambda p: "-".join(p))
def pair(request):
    name, layout = request.param
    pivot = np.array([0.0, 0.0, 0.0]) if layout == "frame-at-pivot" else np.array([0.4, -0.3, 1.5])
    r0, v0 = start(name, pivot)
    rigid, bob, joint = rigid_pendulum(layout, r0, v0, pivot)
    point = point_pendulum(r0, v0, pivot)
    t = np.linspace(0.0, HORIZON, 61)
    tr_rigid = ph.simulate(rigid, (0.0, HORIZON), rigid.initial_state(), t_eval=t, **TIGHT)
    tr_point = ph.simulate(point, (0.0, HORIZON), point.initial_state(), t_eval=t, **TIGHT)
    X = np.hstack((tr_rigid.state("bob.pose"), tr_rigid.state("bob.P")))
    com = np.array([bob.pose_matrix(x)[:3, :3] @ bob.com + bob.pose_matrix(x)[:3, 3] for x in X])
    return dict(rigid=tr_rigid, point=tr_point, bob=bob, joint=joint, X=X, com=com, pivot=pivot)


def test_bob_positions_agree(pair):
    # measured: at most 1.1e-10 m after 3 s (both at rtol 1e-10)
    assert_allclose(pair["com"], pair["point"].state("ball.r"), rtol=0, atol=1e-8 * L)
    assert_allclose(np.linalg.norm(pair["com"] - pair["pivot"], axis=1), L, rtol=1e-10, atol=0)


def test_no_spin_about_the_rod(pair):
    bob, X = pair["bob"], pair["X"]
    rod = np.array([(lambda H: H[:3, :3].T @ (pair["pivot"] - H[:3, 3]))(bob.pose_matrix(x)) for x in X])
    w = np.array([bob.twist(x)[:3] for x in X])
    assert_allclose(np.einsum("ij,ij->i", w, rod), 0.0, rtol=0, atol=1e-9)


def test_joint_force_is_newtons_law_of_the_other_formulation(pair):
    """Force on the body from the joint = rod force - (eps / L^2) a, a = (rod force - m g) / m'."""
    bob, joint, tr = pair["bob"], pair["joint"], pair["rigid"]
    lam = tr.multipliers()["pivot"]
    f_joint = []
    for ti, x, li in zip(tr.t, tr.x, lam):
        H = bob.pose_matrix(x[tr.system.layout["bob.pose"]])
        _, W_bob = joint.reactions(ti, np.zeros(0), (x[tr.system.layout["bob.pose"]],), li)
        f_joint.append(H[:3, :3] @ W_bob[3:])
    r = pair["point"].state("ball.r")
    tension = pair["point"].multipliers()["rod"][:, 0]
    f_rod = -tension[:, None] * (r - pair["pivot"]) / L  # the rod pulls the point with its tension
    gravity = np.array([0.0, 0.0, -M * G])
    accel = (f_rod + gravity) / M_POINT
    expected = M * accel - gravity
    # measured: at most 3.3e-9 N on a weight of 11.8 N
    assert_allclose(np.array(f_joint), expected, rtol=0, atol=1e-8 * M * G)


def test_energy_ledgers_close(pair):
    for tr in (pair["rigid"], pair["point"]):
        budget = tr.power_budget()
        # measured: at most 4.5e-10 (rigid, body frame at the pivot), 4e-14 (point mass)
        assert budget.relative_residual < 10 * TIGHT["rtol"], budget.table()
    # both store the same energy: kinetic 1/2 m' |v|^2 and the potential of the weight m g
    assert_allclose(pair["rigid"].hamiltonian - pair["rigid"].hamiltonian[0],
                    pair["point"].power_budget().H - pair["point"].power_budget().H[0]
                    + M * G * (pair["point"].state("ball.r")[:, 2] - pair["point"].state("ball.r")[0, 2]),
                    rtol=0, atol=1e-9 * M * G * L)
