"""`ArticulatedBody`: conservation laws, the lock-joint double pendulum, link ports, bad input.

References
----------
- A free-floating tree without gravity conserves its kinetic energy and its spatial momentum
  about the world origin (sum over links of Ad(H_WL)^-T M_L T_L).
- The double pendulum of `models.double_pendulum` (two `RigidBody` links held by lock joints,
  an independent formulation: redundant coordinates and multipliers), also with a point
  spring from the ground to link 2 (the spring bonds to the tree's link port unchanged).
- The energy ledger (`Trajectory.power_budget`).
"""

import numpy as np
import pytest

import porthamiltonian as ph
from porthamiltonian.library.articulated_body import ArticulatedBody
from porthamiltonian.errors import ModelError, ParameterError
from porthamiltonian.library import Frame, Ground, PointSpring
from porthamiltonian.robots.description import Joint, Link, LinkInertia, RobotDescription

from ..kernels._pinocchio_trees import description_from_pinocchio, pinocchio_robot

TIGHT = dict(rtol=1e-12, atol=1e-12, method="DOP853")


def spatial_momentum(robot, x):
    """Spatial momentum of the tree about the world origin, world coordinates (angular, linear)."""
    q, v = x[: robot.nq], x[robot.nq : robot.nq + robot.nv]
    H = robot.link_poses(q)
    T = robot.link_twists(q, v)
    out = np.zeros(6)
    for i, j in enumerate(robot.joints):
        li = robot.description.link(j.child).inertia
        from porthamiltonian.library.rigid_body import spatial_inertia

        mu = spatial_inertia(li.mass, li.inertia, li.com) @ T[i]
        R, p = H[i, :3, :3], H[i, :3, 3]
        f = R @ mu[3:]
        out += np.r_[R @ mu[:3] + np.cross(p, f), f]
    return out


@pytest.fixture(scope="module")
def go1_free():
    pytest.importorskip("pinocchio")
    d = description_from_pinocchio(pinocchio_robot("go1"), "go1")
    robot = ArticulatedBody("go1", d, gravity=(0.0, 0.0, 0.0))
    rng = np.random.default_rng(5)
    x0 = robot.state(joints={j.name: rng.uniform(-0.5, 0.5) for j in d.joints[1:]},
                     base_pose=np.r_[1.0, 0, 0, 0, 0.1, -0.2, 0.4], base_twist=rng.normal(size=6))
    x0[robot.nq + 6 : robot.nq + robot.nv] = rng.normal(size=robot.nv - 6)
    bg = ph.BondGraph("free_go1")
    bg.add(robot)
    system = ph.compile(bg)
    xi = system.initial_state({"go1.q": x0[: robot.nq], "go1.v": x0[robot.nq :]})
    traj = ph.simulate(system, (0.0, 10.0), xi, t_eval=np.linspace(0, 10, 51), **TIGHT)
    return robot, traj


def test_free_floating_tree_conserves_energy_and_spatial_momentum(go1_free):
    robot, traj = go1_free
    X = traj.state("go1")   # (N, 37)
    E = np.array([robot.energy(x) for x in X])
    h = np.array([spatial_momentum(robot, x) for x in X])
    # DOP853 at rtol 1e-12: measured 6e-14 (energy) and 4e-13 (momentum) relative; the bound is 1e-9
    assert np.abs(E - E[0]).max() < 1e-9 * E[0]
    assert np.abs(h - h[0]).max() < 1e-9 * np.abs(h[0]).max()


def test_tree_with_gravity_conserves_its_energy():
    """A fixed-base chain under its own weight: H = kinetic + weight potential is constant, and
    the ledger (no port: nothing supplied or dissipated) closes."""
    links, joints = [], []
    rng = np.random.default_rng(2)
    for k in range(6):
        links.append(Link(f"l{k}", LinkInertia(rng.uniform(0.5, 2), (0.0, 0.0, -0.2), np.diag([0.02, 0.02, 0.01]))))
        H = np.eye(4)
        H[2, 3] = -0.4 if k else 0.0
        kind = ("revolute", "spherical", "prismatic")[k % 3]
        joints.append(Joint(f"j{k}", kind, None if k == 0 else f"l{k - 1}", f"l{k}", placement=H, axis=rng.normal(size=3)))
    robot = ArticulatedBody("chain", RobotDescription("chain", tuple(links), tuple(joints)))
    x0 = robot.state(q=None)
    x0[robot.nq : robot.nq + robot.nv] = rng.normal(size=robot.nv)
    x0[0] = 0.7
    bg = ph.BondGraph("chain")
    bg.add(robot)
    system = ph.compile(bg)
    traj = ph.simulate(system, (0.0, 3.0), system.initial_state({"chain.q": x0[: robot.nq], "chain.v": x0[robot.nq :]}),
                       t_eval=np.linspace(0, 3, 31), **TIGHT)
    E = traj.hamiltonian
    assert np.abs(E - E[0]).max() < 1e-9 * max(1.0, np.abs(E).max())
    assert traj.power_budget().relative_residual < 1e-9


def pendulum_tree(m1=1.0, m2=1.0, L1=1.0, L2=1.0):
    rod = lambda m, L: np.diag([m * L * L / 12, m * L * L / 12, 1e-6 * m * L * L])  # noqa: E731 - as the model
    H = np.eye(4)
    H[2, 3] = -L1
    links = (Link("link1", LinkInertia(m1, (0, 0, -L1 / 2), rod(m1, L1))), Link("link2", LinkInertia(m2, (0, 0, -L2 / 2), rod(m2, L2))))
    joints = (Joint("hinge1", "revolute", None, "link1", axis=(0, 1, 0)),
              Joint("hinge2", "revolute", "link1", "link2", placement=H, axis=(0, 1, 0)))
    return RobotDescription("double_pendulum", links, joints)


@pytest.mark.parametrize("spring", [False, True], ids=["free", "spring-on-link2"])
def test_double_pendulum_as_a_tree_equals_the_lock_joint_model(spring):
    from porthamiltonian.models.double_pendulum import double_pendulum

    theta1, theta2, t_end = 1.2, -0.4, 2.0
    model = double_pendulum(theta1=theta1, theta2=theta2)
    bg_ref = model.graph
    robot = ArticulatedBody("tree", pendulum_tree(), q=[theta1, theta2])
    bg = ph.BondGraph("tree")
    bg.add(robot)
    if spring:   # the same spring on the rigid link and on the tree's link
        springs = dict(stiffness=20.0, rest_length=0.3, point_a=(0.5, 0.0, 0.2), point_b=(0.0, 0.0, -1.0))
        G_ref, l2_ref = _element(bg_ref, "ground"), _element(bg_ref, "link2")
        bg_ref.add(PointSpring("s", G_ref.frame(), l2_ref.frame(), **springs))
        bg_ref.connect(G_ref.frame().port, ("s", "a"))
        bg_ref.connect(l2_ref.frame().port, ("s", "b"))
        G = Ground("ground")
        bg.add(G, PointSpring("s", G.frame(), robot.link("link2").frame(), **springs))
        bg.connect(G.frame().port, ("s", "a"))
        bg.connect(robot.link("link2").frame().port, ("s", "b"))
    t = np.linspace(0.0, t_end, 21)
    sys_ref = ph.compile(bg_ref)
    tr_ref = ph.simulate(sys_ref, (0.0, t_end), sys_ref.initial_state(), t_eval=t, **TIGHT)
    system = ph.compile(bg)
    tr = ph.simulate(system, (0.0, t_end), system.initial_state(), t_eval=t, **TIGHT)
    from porthamiltonian.lie import quaternion

    Q, P2 = tr.state("tree.q"), tr_ref.state("link2.pose")
    for k in range(len(t)):
        H = robot.link_poses(Q[k])[1]
        H_ref = quaternion.pose_to_matrix(P2[k])
        # both at rtol 1e-12: measured 4e-13 (free) and 3e-11 (with the spring) after 2 s
        assert np.abs(H - H_ref).max() < 1e-8
    assert tr.power_budget().relative_residual < 1e-9
    if spring:
        x_end = tr.x[-1, system.layout["tree"]]
        assert robot.mirror_drift(x_end) < 1e-8   # measured 1.6e-12: the mirrors follow (q, v) to the tolerance


def _element(bg, name):
    return bg.graph.nodes[name]["obj"]


def test_bad_input_is_a_typed_error():
    inert = LinkInertia(1.0, (0, 0, 0), np.diag([0.1, 0.1, 0.1]))
    massless_leaf = RobotDescription(
        "r", (Link("a", inert), Link("b")),
        (Joint("root", "free", None, "a"), Joint("tip", "revolute", "a", "b")),
    )
    with pytest.raises(ModelError, match="'tip'.*no mass"):
        ArticulatedBody("r", massless_leaf)
    point_on_axis = RobotDescription("r", (Link("a", LinkInertia(1.0)),), (Joint("j", "revolute", None, "a"),))
    with pytest.raises(ModelError, match="not positive definite"):
        ArticulatedBody("r", point_on_axis)
    ok = ArticulatedBody("r", RobotDescription("r", (Link("a", inert),), (Joint("root", "free", None, "a"),)))
    with pytest.raises(ModelError, match="no link 'foot'"):
        ok.link("foot")
    with pytest.raises(ModelError, match="no joint 'knee'"):
        ok.joint_port("knee")
    with pytest.raises(ModelError, match="no joint 'knee'"):
        ok.state(joints={"knee": 0.1})
    with pytest.raises(ParameterError, match="quaternion of norm"):
        ok.state(q=[2.0, 0, 0, 0, 0, 0, 0])
    with pytest.raises(ParameterError, match="RobotDescription"):
        ArticulatedBody("r", "go1.urdf")
    with pytest.raises(ModelError, match="linearization"):
        ok.structure(0.0, ok.default_state(), ())


def test_viewer_protocol_draws_links_at_their_forward_kinematics():
    from porthamiltonian.robots.examples import quadruped

    robot = ArticulatedBody("go1", quadruped())
    drawn = robot.drawn_bodies()
    names = [n for n, _ in drawn]
    assert names[0] == "go1/base" and "go1/FR_foot" in names   # a foot: its collision sphere
    assert all(shapes for _, shapes in drawn)
    rng = np.random.default_rng(0)
    Q = np.array([robot.state(joints={j.name: rng.uniform(-1, 1) for j in robot.joints if j.nq == 1},
                              base_pose=np.r_[1.0, 0, 0, 0, rng.normal(size=3)])[: robot.nq] for _ in range(3)])
    poses = robot.drawn_poses({"q": Q, "v": np.zeros((3, robot.nv))})
    assert poses.shape == (3, len(drawn), 7)
    from porthamiltonian.lie import quaternion

    for f in range(3):
        H = robot.link_poses(Q[f])
        for b, name in enumerate(names):
            i = robot.link_names.index(name.split("/")[1])
            assert np.abs(quaternion.pose_to_matrix(poses[f, b]) - H[i]).max() < 1e-12
    with pytest.raises(ModelError, match="'q'"):
        robot.drawn_poses({"v": np.zeros((1, robot.nv))})


def test_link_and_subtree_energies_sum_to_the_kinetic_energy():
    from porthamiltonian.robots.examples import quadruped

    robot = ArticulatedBody("go1", quadruped(), gravity=(0, 0, 0))
    rng = np.random.default_rng(4)
    x = robot.state(v=rng.normal(size=robot.nv))
    M = robot.mass_matrix(x[: robot.nq])
    v = x[robot.nq : robot.nq + robot.nv]
    T = 0.5 * v @ M @ v
    assert abs(robot.link_energies(x).sum() - T) < 1e-12 * T
    assert abs(robot.subtree_energies(x)[0] - T) < 1e-12 * T   # the base's subtree is the robot
    assert abs(robot.energy(x) - T) < 1e-12 * T


def test_the_energy_series_equals_the_energy_state_by_state():
    """`energies` and `energy_parts_series` (one compiled loop over the states) against the
    kinetic energy 1/2 v.M(q).v from the mass matrix (CRBA) plus the weight's potential
    -sum m_i g.c_i, state by state, with an armature on every hinge (as quadruped-trot's
    rotors); the parts add up to the energy."""
    import dataclasses

    from porthamiltonian.robots.examples import quadruped

    d = quadruped()
    d = dataclasses.replace(d, joints=tuple(dataclasses.replace(j, armature=0.01 * (k + 1)) if j.nv == 1 else j
                                            for k, j in enumerate(d.joints)))
    robot = ArticulatedBody("go1", d, gravity=(0.0, 0.0, -9.81))
    rng = np.random.default_rng(7)
    hinges = [j.name for j in robot.joints if j.nv == 1]
    X = np.array([robot.state(joints=dict(zip(hinges, rng.normal(size=len(hinges)))), v=rng.normal(size=robot.nv))
                  for _ in range(5)])
    H = robot.energies(X)
    parts = robot.energy_parts_series(X)
    for s, x in enumerate(X):
        q, v = x[: robot.nq], x[robot.nq : robot.nq + robot.nv]
        T = 0.5 * v @ robot.mass_matrix(q) @ v
        assert abs(H[s] - robot.energy(x)) < 1e-12 * T
        assert abs(sum(p[s] for k, p in parts.items() if k.startswith("kinetic")) - T) < 1e-12 * T
        assert abs(sum(p[s] for p in parts.values()) - robot.energy(x)) < 1e-12 * T
        one = robot.energy_parts(x)
        assert set(one) == set(parts) and all(abs(one[k] - parts[k][s]) <= 1e-14 * T for k in one)


def test_ledger_shows_the_kinetic_energy_per_subtree():
    robot = ArticulatedBody("tree", pendulum_tree(), q=[1.2, -0.4])
    bg = ph.BondGraph("tree")
    bg.add(robot)
    system = ph.compile(bg)
    tr = ph.simulate(system, (0.0, 1.0), system.initial_state(), t_eval=np.linspace(0, 1, 11), **TIGHT)
    budget = tr.power_budget()
    parts = budget.parts["tree"]
    assert set(parts) == {"kinetic link1", "kinetic link2 subtree", "weight potential"}
    total = sum(parts.values())
    assert np.abs(total - budget.stored["tree"]).max() < 1e-12 * budget.scale
    assert "kinetic link2 subtree" in budget.table()


def test_linearization_and_discrete_gradient_are_refused_by_name():
    from porthamiltonian.errors import IntegrationError
    from porthamiltonian.robots.examples import chain

    robot = ArticulatedBody("c", chain(3))
    bg = ph.BondGraph("c")
    bg.add(robot)
    system = ph.compile(bg)
    x0 = system.initial_state({"c.q": [0.3, 0.2, 0.1]})
    with pytest.raises(IntegrationError, match="discrete_gradient' cannot integrate ArticulatedBody:c"):
        ph.simulate(system, (0, 0.01), x0, method="discrete_gradient", step=1e-3)
    with pytest.raises(ModelError, match="ArticulatedBody:c.*linearization"):
        system.linearize(0.0, x0)


def test_standing_state_puts_the_lowest_foot_on_the_plane():
    from porthamiltonian.robots.examples import HIPS, quadruped

    robot = ArticulatedBody("go1", quadruped())
    stand = {f"{leg}_thigh_joint": 0.8 for leg in HIPS} | {f"{leg}_calf_joint": -1.6 for leg in HIPS}
    stand["FR_calf_joint"] = -1.2   # one leg longer: it is the lowest
    x = robot.standing_state(stand, height=0.1, gap=1e-3)
    H = robot.link_poses(x[: robot.nq])
    feet = [H[robot.link_names.index(f"{leg}_foot"), 2, 3] - 0.02 for leg in HIPS]
    assert abs(min(feet) - 0.101) < 1e-12 and np.argmin(feet) == 0
    assert np.all(x[robot.nq : robot.nq + robot.nv] == 0.0)   # at rest, exactly
    fixed = ArticulatedBody("c", pendulum_tree())
    with pytest.raises(ModelError, match="not free"):
        fixed.standing_state()


def test_from_description_names_the_element_after_the_robot():
    from porthamiltonian.robots.examples import quadruped

    robot = ArticulatedBody.from_description(quadruped("go1 mini"), gravity=(0, 0, 0))
    assert robot.name == "go1_mini" and np.all(robot.gravity == 0)
    with pytest.raises(ParameterError, match="RobotDescription"):
        ArticulatedBody.from_description("go1.urdf")


def test_a_tree_with_no_port_runs_on_the_compiled_path():
    """A tree nothing is bonded to (a chain under its own weight) compiles its right-hand side
    (it used to stay on the Python path for ever: numba could not type the rates kernel's loop
    over an empty tuple of port inputs), and the compiled rates equal the Python ones."""
    from porthamiltonian.robots.examples import chain

    robot = ArticulatedBody("chain", chain(3))
    bg = ph.BondGraph("chain3")
    bg.add(robot)
    system = ph.compile(bg)
    assert system.compiled == "numba"
    rng = np.random.default_rng(5)
    j = system._jit
    for _ in range(5):
        x = system.initial_state({"chain.q": rng.uniform(-1, 1, robot.nq), "chain.v": rng.normal(size=robot.nv)})
        fast = j["fn"](0.0, x, np.zeros(0), j["F"], j["I"])[0]
        slow = system.evaluate(0.0, x)["xdot"]
        # the same kernels on both paths: equal to round-off (ABA's sums, 1e-12 of the largest rate)
        np.testing.assert_allclose(fast, slow, rtol=0, atol=1e-12 * np.abs(slow).max())
