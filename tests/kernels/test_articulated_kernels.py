"""The recursions of `porthamiltonian.kernels.articulated` against Pinocchio and finite differences.

References
----------
- Pinocchio (``pin``), on models it builds itself: example-robot-data's URDFs read by
  ``pinocchio.buildModelFromUrdf`` with a free-flyer base, and random trees with every joint
  kind. The `RobotDescription` under test is made from the Pinocchio model in
  `_pinocchio_trees` (joint placements, axes, inertias), not by our importers.
- Central finite differences of the forward kinematics along the configuration rates.
"""

import numpy as np
import pytest

from porthamiltonian.library.articulated_body import tree_arrays
from porthamiltonian.kernels import articulated as K

from ._pinocchio_trees import (URDFS, description_from_pinocchio, pinocchio_robot, random_pinocchio_tree, to_ours,
                               v_permutation)

pin = pytest.importorskip("pinocchio")

# Pinocchio and our recursions do the same arithmetic in different orders; the relative
# differences measured are 1e-16..3e-15 (go1, solo12, anymal_c, random trees): 1e-10 is the
# issue's bound.
REL = 1e-10


def _cases():
    yield from ((k, None) for k in URDFS)
    yield from (("random", s) for s in range(6))


def _model(key, seed):
    if key == "random":
        return random_pinocchio_tree(np.random.default_rng(seed), n=4 + seed)
    return pinocchio_robot(key)


def _rel(a, b):
    return np.abs(a - b).max() / max(np.abs(b).max(), 1e-300)


@pytest.fixture(scope="module", params=list(_cases()), ids=lambda c: f"{c[0]}{'' if c[1] is None else c[1]}")
def tree(request):
    key, seed = request.param
    model = _model(key, seed)
    d = description_from_pinocchio(model)
    F, I = tree_arrays(d, np.array(model.gravity.linear))
    return dict(model=model, d=d, F=F, I=I, P=v_permutation(model, d), rng=np.random.default_rng(17 + (seed or 0)))


def _state(tree):
    model, rng = tree["model"], tree["rng"]
    qp = pin.randomConfiguration(model, -np.ones(model.nq), np.ones(model.nq))
    vp = rng.normal(size=model.nv)
    q, v = to_ours(model, tree["d"], qp, vp)
    return qp, vp, q, v


def test_mass_matrix_bias_and_forward_dynamics_match_pinocchio(tree):
    model, F, I, P = tree["model"], tree["F"], tree["I"], tree["P"]
    data = model.createData()
    n, nv = I[0], model.nv
    for _ in range(3):
        qp, vp, q, v = _state(tree)
        Mp = pin.crba(model, data, qp)
        Mp = np.triu(Mp) + np.triu(Mp, 1).T
        assert _rel(K.crba(F, I, q), P @ Mp @ P.T) < REL
        bp = pin.rnea(model, data, qp, vp, np.zeros(nv))
        assert _rel(K.rnea(F, I, q, v, np.zeros(nv), np.zeros(6 * n)), P @ bp) < REL
        taup = tree["rng"].normal(size=nv)
        ap = pin.aba(model, data, qp, vp, taup)
        qdd = np.empty(nv)
        work = [np.empty(s * n) for s in (9, 3, 9, 3, 6, 6)]
        assert K.aba(F, I, q, v, P @ taup, np.zeros(6 * n), *work, qdd)
        assert _rel(qdd, P @ ap) < REL


def test_external_wrenches_match_pinocchio(tree):
    """Link wrenches enter ABA and RNEA as Pinocchio's fext (local frames, joint i's body =
    our link i)."""
    model, d, F, I, P = tree["model"], tree["d"], tree["F"], tree["I"], tree["P"]
    data = model.createData()
    n, nv = I[0], model.nv
    qp, vp, q, v = _state(tree)
    rng = tree["rng"]
    fext_p = [pin.Force.Zero() for _ in range(model.njoints)]
    fext = np.zeros(6 * n)
    for i, j in enumerate(d.joints):
        w = rng.normal(size=6)   # (tau, f)
        fext[6 * i : 6 * i + 6] = w
        fext_p[model.getJointId(j.name)] = pin.Force(w[3:], w[:3])
    taup = rng.normal(size=nv)
    ap = pin.aba(model, data, qp, vp, taup, fext_p)
    qdd = np.empty(nv)
    K.aba(F, I, q, v, P @ taup, fext, *[np.empty(s * n) for s in (9, 3, 9, 3, 6, 6)], qdd)
    assert _rel(qdd, P @ ap) < REL
    # and RNEA is ABA's inverse with the same wrenches
    assert _rel(K.rnea(F, I, q, v, qdd, fext), P @ taup) < REL


def test_forward_kinematics_match_pinocchio(tree):
    model, d, F, I = tree["model"], tree["d"], tree["F"], tree["I"]
    data = model.createData()
    qp, vp, q, v = _state(tree)
    pin.forwardKinematics(model, data, qp, vp)
    n = I[0]
    Rl, tl, Rw, pw = np.empty(9 * n), np.empty(3 * n), np.empty(9 * n), np.empty(3 * n)
    K.forward_kinematics(F, I, q, Rl, tl, Rw, pw)
    vel = np.empty(6 * n)
    K.link_velocities(F, I, Rl, tl, v, vel)
    for i, j in enumerate(d.joints):
        jid = model.getJointId(j.name)
        assert np.abs(Rw[9 * i : 9 * i + 9].reshape(3, 3) - data.oMi[jid].rotation).max() < 1e-12
        assert np.abs(pw[3 * i : 3 * i + 3] - data.oMi[jid].translation).max() < 1e-12 * max(1, np.abs(pw).max())
        Tp = data.v[jid]
        assert np.abs(vel[6 * i : 6 * i + 6] - np.r_[Tp.angular, Tp.linear]).max() < 1e-12 * max(1, np.abs(vel).max())


def _poses(F, I, q):
    n = I[0]
    Rl, tl, Rw, pw = np.empty(9 * n), np.empty(3 * n), np.empty(9 * n), np.empty(3 * n)
    K.forward_kinematics(F, I, q, Rl, tl, Rw, pw)
    return Rw.reshape(n, 3, 3), pw.reshape(n, 3), Rl, tl


@pytest.mark.parametrize("seed", range(4))
def test_link_twists_are_rates_of_the_link_poses(seed):
    """Finite differences (independent of the motion subspaces and of the configuration
    rates' formula): along q(h) = q + h dq/dt, the link twist T_i satisfies
    dR_i/dt = R_i hat(omega_i) and dp_i/dt = R_i v_i."""
    model = random_pinocchio_tree(np.random.default_rng(100 + seed), n=7)
    d = description_from_pinocchio(model)
    F, I = tree_arrays(d)
    rng = np.random.default_rng(seed)
    q, v = to_ours(model, d, pin.randomConfiguration(model, -np.ones(model.nq), np.ones(model.nq)), rng.normal(size=model.nv))
    qd = np.empty(len(q))
    K.config_rate(I, q, v, qd)
    h = 1e-6
    Rp, pp, _, _ = _poses(F, I, q + h * qd)
    Rm, pm, _, _ = _poses(F, I, q - h * qd)
    R, p, Rl, tl = _poses(F, I, q)
    vel = np.empty(6 * I[0])
    K.link_velocities(F, I, Rl, tl, v, vel)
    for i in range(I[0]):
        w, u = vel[6 * i : 6 * i + 3], vel[6 * i + 3 : 6 * i + 6]
        dR = (Rp[i] - Rm[i]) / (2 * h)
        dp = (pp[i] - pm[i]) / (2 * h)
        W = R[i].T @ dR
        # central differences: truncation h^2 |q'''| ~ 1e-12, round-off 1e-16/h ~ 1e-10
        assert np.abs(np.array([W[2, 1], W[0, 2], W[1, 0]]) - w).max() < 1e-7
        assert np.abs(R[i].T @ dp - u).max() < 1e-7


@pytest.mark.parametrize("kind,axis", [("revolute", (0.0, 0.6, 0.8)), ("prismatic", (0.6, 0.0, -0.8))])
def test_motion_subspace_of_one_axis_joints(kind, axis):
    """S = (axis, 0) for revolute, (0, axis) for prismatic: the twist of the child relative to
    the joint's rest frame, from H_J(h) by finite differences."""
    from porthamiltonian.robots.description import Joint, Link, LinkInertia, RobotDescription

    inert = LinkInertia(1.0, (0, 0, 0), np.diag([0.1, 0.2, 0.25]))
    d = RobotDescription("r", (Link("a", inert),), (Joint("j", kind, None, "a", axis=axis),))
    F, I = tree_arrays(d)
    h = 1e-6
    Rp, pp, _, _ = _poses(F, I, np.array([h]))
    Rm, pm, _, _ = _poses(F, I, np.array([-h]))
    W = (Rp[0] - Rm[0]) / (2 * h)   # at q = 0, R = I
    S = np.r_[W[2, 1], W[0, 2], W[1, 0], (pp[0] - pm[0]) / (2 * h)]
    expected = np.r_[axis, 0, 0, 0] if kind == "revolute" else np.r_[0, 0, 0, axis]
    assert np.abs(S - expected).max() < 1e-9


def test_quaternion_rates_keep_the_norm_and_match_the_twist():
    """Spherical and free joints: dq/dt = 1/2 q (x) (0, omega) (|q| a first integral) and the
    free joint's position rate R v."""
    from porthamiltonian.lie import quaternion as Q

    I = np.array([1, 7, 6, -1, 4, 0, 0], dtype=np.int64)
    rng = np.random.default_rng(3)
    q = np.r_[Q.normalize(rng.normal(size=4)), rng.normal(size=3)]
    v = rng.normal(size=6)
    qd = np.empty(7)
    K.config_rate(I, q, v, qd)
    assert abs(q[:4] @ qd[:4]) < 1e-15
    R = Q.to_matrix(q[:4])
    assert np.abs(qd[4:] - R @ v[3:]).max() < 1e-14
    # dR/dt = R hat(omega) from the quaternion rate
    h = 1e-6
    W = R.T @ (Q.to_matrix(q[:4] + h * qd[:4]) - Q.to_matrix(q[:4] - h * qd[:4])) / (2 * h)
    assert np.abs(np.array([W[2, 1], W[0, 2], W[1, 0]]) - v[:3]).max() < 1e-8


def test_energy_is_half_v_M_v_plus_the_weight(tree):
    F, I = tree["F"], tree["I"]
    qp, vp, q, v = _state(tree)
    M = K.crba(F, I, q)
    n = I[0]
    R, p, _, _ = _poses(F, I, q)
    V = K.weight_potential(F, I, R.ravel(), p.ravel())
    # the weight's potential from the description: -sum m g . (p + R c)
    g = F[:3]
    V_ref = 0.0
    for i, j in enumerate(tree["d"].joints):
        li = tree["d"].link(j.child).inertia
        V_ref -= li.mass * g @ (p[i] + R[i] @ li.com)
    assert abs(V - V_ref) < 1e-12 * max(1.0, abs(V_ref))
    assert abs(K.energy(F, I, q, v) - (0.5 * v @ M @ v + V_ref)) < 1e-12 * max(1.0, abs(v @ M @ v))


def test_singular_articulated_inertia_is_reported():
    """A revolute joint moving a point mass on its own axis: ABA returns False and nan rates."""
    from porthamiltonian.robots.description import Joint, Link, LinkInertia, RobotDescription

    d = RobotDescription("r", (Link("a", LinkInertia(1.0)),), (Joint("j", "revolute", None, "a"),))
    F, I = tree_arrays(d)
    qdd = np.empty(1)
    ok = K.aba(F, I, np.zeros(1), np.zeros(1), np.ones(1), np.zeros(6), *[np.empty(s) for s in (9, 3, 9, 3, 6, 6)], qdd)
    assert not ok and np.isnan(qdd[0])


def _ported(tree, rng):
    """The tree with ports: every third link (and the last) and two one-dof joints (or fewer),
    its own state at a random (q, v) with random mirror blocks (the input matrix must not read
    them)."""
    model, d, F, I = tree["model"], tree["d"], tree["F"], tree["I"]
    n = I[0]
    links = sorted(set(range(0, n, 3)) | {n - 1})
    joints = [i for i, j in enumerate(d.joints) if j.nv == 1][:2]
    Ip = np.concatenate([I, [len(links), *links, len(joints), *joints]]).astype(np.int64)
    qp, vp, q, v = _state(tree)
    x = np.concatenate([q, v, rng.normal(size=13 * len(links))])
    return Ip, qp, x, links, joints


def test_input_matrix_equals_probed_rates(tree):
    """Second formulation: the rates are affine in the port efforts, so column k of the input
    matrix is rates(W = e_k) - rates(W = 0), each from one articulated-body pass
    (`tree_rates_flat`, no mass matrix). The closed form (CRBA + Cholesky) must agree to
    round-off: measured 1e-16..2e-15 relative; 1e-10 is the issue's bound."""
    F = tree["F"]
    Ip, _, x, _, _ = _ported(tree, tree["rng"])
    B = K.tree_input_matrix(0.0, x, (), F, Ip)
    m = B.shape[1]
    r0 = K.tree_rates_flat(x, np.zeros(m), F, Ip)
    probed = np.stack([K.tree_rates_flat(x, np.eye(m)[k], F, Ip) - r0 for k in range(m)], axis=1)
    assert _rel(B, probed) < REL


def test_rates_reading_the_outputs_kinematics_equal_the_rates_computing_them(tree):
    """The rates kernel the compiled right-hand side calls reads the forward kinematics and link
    velocities its outputs kernel shares (`tree_rates_read`, `tree_outputs_shared`); it does
    the same operations on the same values as `tree_rates`, which computes them itself: equal
    to the bit. The shared ports equal `tree_outputs_flat`'s, also to the bit."""
    F = tree["F"]
    Ip, _, x, _, _ = _ported(tree, tree["rng"])
    m = K.tree_input_matrix(0.0, x, (), F, Ip).shape[1]
    inputs = (tree["rng"].normal(size=m),)
    y, sh = K.tree_outputs_shared(x, F, Ip)
    assert sh[0] == 0
    np.testing.assert_array_equal(y, K.tree_outputs_flat(x, F, Ip))
    np.testing.assert_array_equal(K.tree_rates_read(0.0, x, (), inputs, sh, F, Ip),
                                  K.tree_rates(0.0, x, (), inputs, F, Ip))


def test_input_matrix_matches_pinocchio_crba_and_joint_jacobians(tree):
    """Against Pinocchio: dv/dt's block is M^-1 J_k^T with Pinocchio's `crba` and its joint
    Jacobians in the joint's LOCAL frame (`computeJointJacobians`, rows (v, omega) swapped to
    ours); the mirrored twists' block is J_i M^-1 J_k^T."""
    model, d, F, P = tree["model"], tree["d"], tree["F"], tree["P"]
    data = model.createData()
    Ip, qp, x, links, joints = _ported(tree, tree["rng"])
    nq, nv = Ip[1], Ip[2]
    B = K.tree_input_matrix(0.0, x, (), F, Ip)
    Mp = pin.crba(model, data, qp)
    Mp = np.triu(Mp) + np.triu(Mp, 1).T
    pin.computeJointJacobians(model, data, qp)
    swap = np.r_[3, 4, 5, 0, 1, 2]

    def jac(i):   # our link i's body Jacobian from Pinocchio's (6 x nv, our orders)
        Jp = pin.getJointJacobian(model, data, model.getJointId(d.joints[i].name), pin.LOCAL)
        return Jp[swap] @ P.T

    M = P @ Mp @ P.T
    cols = [jac(i).T for i in links] + [np.eye(nv)[:, [sum(j.nv for j in d.joints[:i])]] for i in joints]
    JT = np.concatenate(cols, axis=1)
    Y = np.linalg.solve(M, JT)
    assert _rel(B[nq : nq + nv], Y) < REL
    for k, i in enumerate(links):
        row = nq + nv + 13 * k
        assert np.abs(B[row : row + 7]).max() == 0.0      # the mirrored pose does not depend on W
        assert _rel(B[row + 7 : row + 13], jac(i) @ Y) < REL
    assert np.abs(B[:nq]).max() == 0.0                   # nor do the configuration rates


def test_an_inertia_moves_to_the_parent_as_the_dense_transform_moves_it():
    """`_add_to_parent`'s 3x3 block formula against the dense ``X^T Ia X`` with
    X = [[R^T, 0], [-R^T hat(t), R^T]] built by numpy, for random rotations, offsets and
    symmetric positive inertias (the recursions pass only symmetric ones); added to what the
    parent already holds. Bound: 1e-13 of the entries' scale (32 products summed in another
    order; measured <= 4e-16)."""
    from scipy.spatial.transform import Rotation

    rng = np.random.default_rng(7)
    for _ in range(20):
        R = Rotation.random(random_state=rng).as_matrix()
        t = rng.normal(size=3)
        G = rng.normal(size=(6, 6))
        Ia = G @ G.T + 6.0 * np.eye(6)
        hat = np.array([[0.0, -t[2], t[1]], [t[2], 0.0, -t[0]], [-t[1], t[0], 0.0]])
        X = np.block([[R.T, np.zeros((3, 3))], [-R.T @ hat, R.T]])
        IA = rng.normal(size=(3, 6, 6))
        expected = IA[1] + X.T @ Ia @ X
        K._add_to_parent(R.ravel().copy(), 0, t, Ia, np.empty((6, 6)), np.empty((6, 6)), IA, 1)
        np.testing.assert_allclose(IA[1], expected, rtol=0, atol=1e-13 * np.abs(expected).max())
