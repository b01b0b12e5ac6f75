"""Joint kernels (jacobian, velocity_bias, acceleration_bias, gap) by finite differences.

For markers M (on body 1, or the ground) and N (on body 2) with relative pose
H_MN = H_WM^-1 H_WN = (R, p), the module defines the constraint velocity rows
    rotations     omega_i,   hat(omega) = dR/dt R^T      (N relative to M, in M)
    translations  (dp/dt)_i
of the locked directions. All references below are finite differences of H_MN(t) built from
the composed poses H_W1(t) H_1M(t) and H_W2(t) H_2N(t) along smooth motions
H(t) = H0 exp(t xi) exp(t eta), whose body twists and twist rates are known in closed form:
1. c = J (T1, T2) + b equals those rows, for any configuration (on or off the joint);
2. dc/dt = J (dT1/dt, dT2/dt) + beta, with beta = `acceleration_bias`;
3. on the joint manifold (gap = 0), d(gap)/dt = c, for any velocities: the position-level
   gap that Baumgarte stabilization uses is consistent with the velocity constraint;
4. along motions that respect the joint, c = 0 (the Jacobian annihilates admissible twists).
Moving markers (`motion_a`, `motion_b`) use the same closed-form motions.
"""

import numpy as np
from scipy.spatial.transform import Rotation
import pytest
from numpy.testing import assert_allclose

from porthamiltonian.library import JOINT_LOCKS, Frame, Ground, Joint, RigidBody

from .helpers import derivative, inv, pose, pose7, random_pose, random_rotation, rot, two_exp_motion, unskew

H = 2.5e-4  # 4th-order differences: truncation ~H^4 |f^(5)| / 30 < 1e-11, round-off ~1e-16 |f| / H ~ 1e-11
KINDS = [pytest.param(JOINT_LOCKS[k], id=k) for k in JOINT_LOCKS]
# custom masks, one per subset of locked rotations (with some locked translations)
MASKS = [
    pytest.param((0, 0, 0, 1, 0, 1), id="lock=tx,tz"),
    pytest.param((1, 0, 0, 0, 1, 1), id="lock=rx,ty,tz"),
    pytest.param((0, 1, 0, 0, 0, 0), id="lock=ry"),
    pytest.param((0, 0, 1, 1, 0, 0), id="lock=rz,tx"),
    pytest.param((1, 1, 0, 0, 0, 1), id="lock=rx,ry,tz"),
    pytest.param((0, 1, 1, 1, 1, 0), id="lock=ry,rz,tx,ty"),
    pytest.param((1, 0, 1, 0, 0, 0), id="lock=rx,rz"),
    pytest.param((1, 1, 1, 0, 1, 0), id="lock=rx,ry,rz,ty"),
]
SETUPS = ["fixed-markers", "moving-markers", "ground-a", "ground-a-moving"]


def rel_pose(H_W1, H_1M, H_W2, H_2N):
    return inv(H_W1 @ H_1M) @ H_W2 @ H_2N


class Rig:
    """Two bodies (or ground + body), markers, smooth motions and the joint under test."""

    def __init__(self, lock, setup, seed, H_W2_of=None):
        rng = np.random.default_rng(seed)
        self.ground_a = setup.startswith("ground")
        moving = setup.endswith("moving") or setup == "moving-markers"
        H_1M, H_2N = random_pose(rng, 0.5), random_pose(rng, 0.5)
        body1 = Ground("ground") if self.ground_a else RigidBody("b1", 1.0, [1.0, 1.0, 1.0])
        body2 = RigidBody("b2", 1.0, [1.0, 1.0, 1.0])
        zero = np.zeros(6)
        self.ma = two_exp_motion(H_1M, *((rng.normal(size=6), rng.normal(size=6)) if moving else (zero, zero)))
        self.mb = two_exp_motion(H_2N, *((rng.normal(size=6), rng.normal(size=6)) if moving else (zero, zero)))
        H_W1 = np.eye(4) if self.ground_a else random_pose(rng)
        H_W2 = random_pose(rng) if H_W2_of is None else H_W2_of(rng, H_W1, H_1M, H_2N)
        self.m1 = two_exp_motion(H_W1, *((zero, zero) if self.ground_a else (rng.normal(size=6), rng.normal(size=6))))
        self.m2 = two_exp_motion(H_W2, rng.normal(size=6), rng.normal(size=6))
        self.lock = np.asarray(lock, bool)
        self.joint = Joint("j", Frame(body1, "M", H_1M), Frame(body2, "N", H_2N), lock=lock,
                           motion_a=self.ma if moving else None, motion_b=self.mb if moving else None)

    def refs(self, t):
        p2 = pose7(self.m2(t)[0])
        return (p2,) if self.ground_a else (pose7(self.m1(t)[0]), p2)

    def H_MN(self, t):
        return rel_pose(self.m1(t)[0], self.ma(t)[0], self.m2(t)[0], self.mb(t)[0])

    def twists(self, t):
        return np.r_[self.m1(t)[1], self.m2(t)[1]]

    def c(self, t):
        j, refs = self.joint, self.refs(t)
        return j.jacobian(t, np.zeros(0), refs) @ self.twists(t) + j.velocity_bias(t, np.zeros(0), refs)

    def c_rate(self, t):
        j, refs = self.joint, self.refs(t)
        dT = np.r_[self.m1(t)[2], self.m2(t)[2]]
        flows = (self.m1(t)[1], self.m2(t)[1])
        return j.jacobian(t, np.zeros(0), refs) @ dT + j.acceleration_bias(t, np.zeros(0), refs, flows)

    def gap(self, t):
        return self.joint.gap(t, np.zeros(0), self.refs(t))

    def c_reference(self, t):
        """Rotation rows: omega_i; with a single locked rotation, the rate of the imaginary part
        q_i of the relative quaternion (the holonomic lock formulation), by finite differences
        of scipy's quaternion (scalar-last, made scalar-first with q_w >= 0)."""
        Hm = self.H_MN(t)
        dH = derivative(self.H_MN, t, H)
        omega = unskew(dH[:3, :3] @ Hm[:3, :3].T)
        rows = np.r_[omega, dH[:3, 3]]
        rot = np.flatnonzero(self.lock[:3])
        if rot.size == 1:
            def q_i(s):
                q = Rotation.from_matrix(self.H_MN(s)[:3, :3]).as_quat()
                return np.sign(q[3]) * q[rot[0]]

            rows[rot[0]] = derivative(q_i, t, H)
        return rows[self.lock]


def test_reference_motion_twists_are_right(rng):
    """The closed-form twist of H0 exp(t xi) exp(t eta) and its rate, by finite differences."""
    m = two_exp_motion(random_pose(rng), rng.normal(size=6), rng.normal(size=6))
    for t in (0.0, 0.37):
        Hd = derivative(lambda s: m(s)[0], t, H)
        X = inv(m(t)[0]) @ Hd
        assert_allclose(np.r_[unskew(X[:3, :3]), X[:3, 3]], m(t)[1], rtol=0, atol=1e-9)
        assert_allclose(derivative(lambda s: m(s)[1], t, H), m(t)[2], rtol=0, atol=1e-9)


@pytest.mark.parametrize("setup", SETUPS)
@pytest.mark.parametrize("lock", KINDS + MASKS)
def test_constraint_velocity_is_the_relative_velocity(lock, setup):
    rig = Rig(lock, setup, seed=sum(lock) * 7 + SETUPS.index(setup))
    assert rig.joint.n_constraints == int(np.sum(lock))
    for t in (0.0, 0.31):
        c = rig.c(t)
        assert c.shape == (int(np.sum(lock)),)
        # measured: at most 1.2e-11 over all cases (random twists of size ~2)
        assert_allclose(c, rig.c_reference(t), rtol=0, atol=1e-10)


@pytest.mark.parametrize("setup", SETUPS)
@pytest.mark.parametrize("lock", KINDS + MASKS)
def test_acceleration_bias_is_the_rate_of_the_constraint_velocity(lock, setup):
    rig = Rig(lock, setup, seed=100 + sum(lock) * 7 + SETUPS.index(setup))
    for t in (0.0, 0.31):
        # measured: at most 7e-11 (the differences of c, whose rate reaches ~10)
        assert_allclose(rig.c_rate(t), derivative(rig.c, t, H), rtol=0, atol=1e-9)


def on_joint(lock):
    """H_W2(rng, H_W1, H_1M, H_2N) placing N on the joint manifold of `lock` relative to M."""
    lock = np.asarray(lock, bool)
    rot_locked = np.flatnonzero(lock[:3])

    def place(rng, H_W1, H_1M, H_2N):
        p = rng.normal(size=3)
        p[lock[3:]] = 0.0
        if rot_locked.size == 3:
            R = np.eye(3)
        elif rot_locked.size == 2:
            k = ({0, 1, 2} - set(rot_locked.tolist())).pop()
            axis = np.zeros(3)
            axis[k] = rng.uniform(-2.5, 2.5)
            R = rot(axis)
        elif rot_locked.size == 1:  # zero twist about the locked axis: a pure swing
            axis = rng.normal(size=3)
            axis[rot_locked[0]] = 0.0
            R = rot(axis)
        else:
            R = random_rotation(rng)
        return H_W1 @ H_1M @ pose(R, p) @ inv(H_2N)

    return place


@pytest.mark.parametrize("setup", SETUPS)
@pytest.mark.parametrize("lock", KINDS + MASKS)
def test_gap_rate_is_the_constraint_velocity_on_the_joint(lock, setup):
    """At a configuration satisfying the joint, with arbitrary (violating) velocities."""
    rig = Rig(lock, setup, seed=200 + sum(lock) * 7 + SETUPS.index(setup), H_W2_of=on_joint(lock))
    assert_allclose(rig.gap(0.0), 0.0, rtol=0, atol=1e-12)
    assert np.max(np.abs(rig.c(0.0))) > 0.1  # the motion leaves the joint
    # measured: at most 3.5e-12 where it holds
    assert_allclose(derivative(rig.gap, 0.0, H), rig.c(0.0), rtol=0, atol=1e-10)


@pytest.mark.parametrize("kind", list(JOINT_LOCKS))
def test_admissible_motions_satisfy_the_velocity_constraint(kind, rng):
    """Body 2 follows body 1 through the joint's free coordinates: c = 0 and gap = 0 all along."""
    lock = np.asarray(JOINT_LOCKS[kind], bool)
    H_1M, H_2N = random_pose(rng, 0.5), random_pose(rng, 0.5)
    b1, b2 = RigidBody("b1", 1.0, [1.0, 1.0, 1.0]), RigidBody("b2", 1.0, [1.0, 1.0, 1.0])
    joint = Joint("j", Frame(b1, "M", H_1M), Frame(b2, "N", H_2N), kind=kind)
    free = ~lock
    rot_free = np.where(free[:3], rng.normal(size=3), 0.0)
    tr_free = np.where(free[3:], rng.normal(size=3), 0.0)
    m1 = two_exp_motion(random_pose(rng), rng.normal(size=6), rng.normal(size=6))

    def H_W2(t):
        # N moves relative to M only through the free coordinates: rotation about the free
        # axes (all three, one or none), translation along the free axes of M
        return m1(t)[0] @ H_1M @ pose(rot((0.2 + t) * rot_free), (t + t**2) * tr_free) @ inv(H_2N)

    for t in (0.0, 0.4):
        refs = (pose7(m1(t)[0]), pose7(H_W2(t)))
        X = inv(H_W2(t)) @ derivative(H_W2, t, H)
        T2 = np.r_[unskew(X[:3, :3]), X[:3, 3]]
        c = joint.jacobian(t, np.zeros(0), refs) @ np.r_[m1(t)[1], T2]
        assert_allclose(joint.gap(t, np.zeros(0), refs), 0.0, rtol=0, atol=1e-12)
        assert_allclose(c, 0.0, rtol=0, atol=1e-10)


@pytest.mark.parametrize("setup", SETUPS)
@pytest.mark.parametrize("lock", KINDS)
def test_fused_terms_equal_the_separate_kernels(lock, setup):
    """The compiled rhs calls `terms`; it must return what the tested kernels return."""
    rig = Rig(lock, setup, seed=300 + sum(lock) * 7 + SETUPS.index(setup))
    for t in (0.0, 0.31):
        j, refs = rig.joint, rig.refs(t)
        J, b, g = j.terms(t, np.zeros(0), refs)
        assert_allclose(J, j.jacobian(t, np.zeros(0), refs), rtol=0, atol=1e-15)
        assert_allclose(b, j.velocity_bias(t, np.zeros(0), refs), rtol=0, atol=1e-15)
        assert_allclose(g, j.gap(t, np.zeros(0), refs), rtol=0, atol=1e-15)
