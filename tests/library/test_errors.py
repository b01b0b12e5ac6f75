"""Bad inputs to the rigid-body library raise clear errors that name the culprit and the fix."""

import numpy as np
import pytest

import porthamiltonian as ph
from porthamiltonian.library import Frame, Gravity, Ground, Joint, RigidBody, SpatialDamper, SpatialSpring

from .helpers import pose, rot


@pytest.fixture
def bodies():
    return RigidBody("b1", 1.0, [1.0, 1.0, 1.0]), RigidBody("b2", 1.0, [1.0, 1.0, 1.0]), RigidBody("b3", 1.0, [1.0, 1.0, 1.0])


@pytest.mark.parametrize(
    "inertia, match",
    [
        pytest.param([[1.0, 0, 0], [0, -1.0, 0], [0, 0, 1.0]], r"`b\.inertia` must be positive definite, got smallest eigenvalue -1",
                     id="indefinite"),
        pytest.param([0.0, 1.0, 1.0], r"`b\.inertia` must be positive definite", id="singular"),
        pytest.param([[1.0, 0.5, 0], [0, 1.0, 0], [0, 0, 1.0]], r"`b\.inertia` must be symmetric", id="non-symmetric"),
        pytest.param([1.0, 1.0, 3.0], r"`b\.inertia` violates the triangle inequality of principal moments \(1 \+ 1 < 3\)",
                     id="triangle"),
        # the triangle inequality applies to the principal moments, not the diagonal entries
        pytest.param(rot([0.3, 0.2, 0.1]) @ np.diag([1.0, 1.0, 2.5]) @ rot([0.3, 0.2, 0.1]).T,
                     r"triangle inequality of principal moments \(1 \+ 1 < 2\.5\)", id="triangle-rotated"),
        pytest.param([1.0, 1.0], r"`b\.inertia` must be a square matrix of shape \(3, 3\), got shape \(2,\)", id="shape"),
    ],
)
def test_bad_inertia(inertia, match):
    with pytest.raises(ph.ParameterError, match=match):
        RigidBody("b", 1.0, inertia)


def test_flat_body_on_the_triangle_boundary_is_accepted():
    # a thin plate: I3 = I1 + I2 exactly
    body = RigidBody("plate", 1.0, [1.0, 2.0, 3.0])
    # bit-exact on every CPU: with the centre of mass at the origin M[:3, :3] is the inertia plus exact zeros
    np.testing.assert_allclose(np.diag(body.M[:3, :3]), [1.0, 2.0, 3.0], rtol=0, atol=0)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        pytest.param(dict(mass=0.0), r"`b\.mass` must be > 0, got 0", id="zero-mass"),
        pytest.param(dict(mass=-1.0), r"`b\.mass` must be > 0, got -1", id="negative-mass"),
        pytest.param(dict(com=[0.0, 0.0]), r"`b\.com` must have shape \(3,\), got \(2,\)", id="com-shape"),
        pytest.param(dict(twist=[0.0, 0.0, 1.0]), r"`b\.twist` must have shape \(6,\), got \(3,\)", id="twist-shape"),
    ],
)
def test_bad_body_parameters(kwargs, match):
    args = dict(mass=1.0, inertia=[1.0, 1.0, 1.0]) | kwargs
    with pytest.raises(ph.ParameterError, match=match):
        RigidBody("b", args.pop("mass"), args.pop("inertia"), **args)


@pytest.mark.parametrize(
    "H, match",
    [
        pytest.param(np.diag([1.1, 1.0, 1.0, 1.0]), r"`b\.pose` must have a rotation block .* orthogonality error 0\.21 and det 1\.1",
                     id="scaled"),
        pytest.param(pose(np.array([[1.0, 0.1, 0], [0, 1.0, 0], [0, 0, 1.0]]), np.zeros(3)),
                     r"`b\.pose` must have a rotation block H\[:3, :3\] with R\^T R = I .* orthogonality error 0\.1", id="sheared"),
        pytest.param(np.diag([1.0, 1.0, -1.0, 1.0]), r"`b\.pose` .* det R = \+1, got orthogonality error 0 and det -1",
                     id="reflection"),
        pytest.param([1.1, 0, 0, 0, 0, 0, 0], r"`b\.pose` must have a unit quaternion x\[:4\] \(to 1e-06\), got norm 1\.1",
                     id="quaternion-norm"),
        pytest.param(np.eye(3), r"`b\.pose` must be a 4x4 homogeneous matrix or a pose 7-vector, got shape \(3, 3\)",
                     id="3x3"),
    ],
)
def test_bad_initial_pose(H, match):
    with pytest.raises(ph.ParameterError, match=match):
        RigidBody("b", 1.0, [1.0, 1.0, 1.0], pose=H)


def test_bad_pose_in_the_initial_state():
    bg = ph.BondGraph("m")
    bg.add(RigidBody("b", 1.0, [1.0, 1.0, 1.0]))
    system = ph.compile(bg)
    with pytest.raises(ph.ParameterError, match=r"block 'pose' of RigidBody:b holds a quaternion of norm 1\.2"):
        system.initial_state({"b.pose": [1.2, 0, 0, 0, 0, 0, 0]})


def test_bad_body_frame():
    with pytest.raises(ph.ParameterError, match=r"`b\.frames\['tip'\]` must have a rotation block"):
        RigidBody("b", 1.0, [1.0, 1.0, 1.0], frames={"tip": np.diag([2.0, 1.0, 1.0, 1.0])})
    body = RigidBody("b", 1.0, [1.0, 1.0, 1.0], frames={"tip": np.eye(4)})
    with pytest.raises(ph.ModelError, match=r"'b' has no frame 'tool'; its frames are \['B', 'tip'\]"):
        body.frame("tool")


def test_twist_bond_to_a_scalar_port(bodies):
    b1 = bodies[0]
    bg = ph.BondGraph("m")
    bg.add(b1, ph.C("k", stiffness=1.0))
    match = r"dimension mismatch: RigidBody:b1 port 'B' has dimension 6 but C:k port 'p' has dimension 1"
    with pytest.raises(ph.BondError, match=match):
        bg.connect(b1.frame().port, "k")


@pytest.mark.parametrize(
    "kwargs, match",
    [
        pytest.param(dict(kind="revolut"), r"unknown kind 'revolut'; known kinds are \[.*\] \(did you mean 'revolute'\?\)",
                     id="typo"),
        pytest.param(dict(kind="spherica"), r"unknown kind 'spherica'; .* \(did you mean 'spherical'\?\)", id="typo2"),
        pytest.param(dict(kind="revolute", lock=[1] * 6), r"give exactly one of `kind` .* or `lock`", id="both"),
        pytest.param(dict(), r"give exactly one of `kind` .* or `lock`", id="neither"),
        pytest.param(dict(lock=[0] * 6), r"`lock` must be 6 booleans with at least one True", id="nothing-locked"),
        pytest.param(dict(lock=[1] * 5), r"`lock` must be 6 booleans", id="lock-shape"),
    ],
)
def test_bad_joint_kind(bodies, kwargs, match):
    b1, b2, _ = bodies
    with pytest.raises(ph.ParameterError, match=rf"joint 'j': {match}"):
        Joint("j", b1.frame(), b2.frame(), **kwargs)


def test_joint_markers_on_the_same_body(bodies):
    b1 = bodies[0]
    with pytest.raises(ph.ModelError, match=r"joint 'j': both markers are on 'b1'"):
        Joint("j", b1.frame(), Frame(b1, "M", pose(rot([0.1, 0, 0]), [0, 0, 1.0])), kind="revolute")


def test_joint_marker_must_be_a_frame(bodies):
    b2 = bodies[1]
    with pytest.raises(ph.ParameterError, match=r"`j\.marker_a` must be a Frame"):
        Joint("j", np.eye(4), b2.frame(), kind="revolute")


@pytest.mark.parametrize(
    "H_BM",
    [
        pytest.param(np.ones((4, 4)), id="not-homogeneous"),
        pytest.param(np.diag([2.0, 1.0, 1.0, 1.0]), id="scaled-rotation"),
        pytest.param(np.eye(3), id="3x3"),
    ],
)
@pytest.mark.parametrize("element", ["joint", "spring"])
def test_marker_pose_that_is_not_a_rigid_motion(bodies, H_BM, element):
    """A marker given by an invalid H_BM (a body frame built by hand) is rejected at construction."""
    b1, b2, _ = bodies
    with pytest.raises(ph.ParameterError, match=r"must have shape \(4, 4\)|must have a rotation block|bottom row"):
        if element == "joint":
            Joint("j", Frame(b1, "M", H_BM), b2.frame(), kind="revolute")
        else:
            SpatialSpring("k", Frame(b1, "M", H_BM), b2.frame(), stiffness=np.eye(6))


def joint_graph(bodies, bond_b):
    b1, b2, b3 = bodies
    joint = Joint("j", b1.frame(), b2.frame(), kind="revolute")
    bg = ph.BondGraph("m")
    bg.add(b1, b2, b3, joint)
    bg.connect(b1.frame().port, (joint, "a"))
    bond_b(bg, joint, b2, b3)
    return bg


def test_joint_port_bonded_to_the_wrong_body_at_connect(bodies):
    match = r"frame mismatch: RigidBody:b3 port 'B' is expressed in frame 'b3\.B' but Joint:j port 'b' in frame 'b2\.B'"
    with pytest.raises(ph.BondError, match=match):
        joint_graph(bodies, lambda bg, j, b2, b3: bg.connect(b3.frame().port, (j, "b")))


def test_joint_port_not_carrying_its_body_twist_at_compile(bodies):
    """Through a 0-junction the frames match, but the joint no longer sees the body's twist."""

    def via_zero_junction(bg, j, b2, b3):
        bg.add(ph.Junction0("z", dim=6))
        bg.connect(b2.frame().port, "z")
        bg.connect("z", (j, "b"))

    bg = joint_graph(bodies, via_zero_junction)
    match = (r"Joint:j port 'b' must carry the twist of RigidBody:b2 port 'B' .* "
             r"connect them: bg\.connect\(\('b2', 'B'\), \('j', 'b'\)\)")
    with pytest.raises(ph.ModelError, match=match):
        ph.compile(bg)


@pytest.mark.parametrize("element", ["joint", "spring", "damper"])
def test_port_bonded_in_the_reverse_direction(bodies, element):
    b1, b2, _ = bodies
    ground = Ground("ground")
    if element == "joint":
        el, label = Joint("e", ground.frame(), b2.frame(), kind="spherical"), "Joint:e"
    elif element == "spring":
        el, label = SpatialSpring("e", ground.frame(), b2.frame(), stiffness=np.eye(6)), "SpatialSpring:e"
    else:
        el, label = SpatialDamper("e", ground.frame(), b2.frame(), damping=np.eye(6)), "SpatialDamper:e"
    bg = ph.BondGraph("m")
    bg.add(ground, b2, el)
    bg.connect(ground.frame().port, (el, "a"))
    bg.connect((el, "b"), b2.frame().port)
    match = rf"{label} port 'b' is bonded to RigidBody:b2 port 'B' against its orientation: draw the bond from the body"
    with pytest.raises(ph.ModelError, match=match):
        ph.compile(bg)


def test_spring_port_bonded_to_another_frame_of_its_body():
    ground = Ground("ground")
    body = RigidBody("b", 1.0, [1.0, 1.0, 1.0], frames={"tip": pose(np.eye(3), [0, 0, 1.0])})
    spring = SpatialSpring("k", ground.frame(), body.frame("tip"), stiffness=np.eye(6))
    bg = ph.BondGraph("m")
    bg.add(ground, body, spring)
    bg.connect(ground.frame().port, (spring, "a"))
    match = r"frame mismatch: RigidBody:b port 'B' is expressed in frame 'b\.B' but SpatialSpring:k port 'b' in frame 'b\.tip'"
    with pytest.raises(ph.BondError, match=match):
        bg.connect(body.frame("B").port, (spring, "b"))


def test_gravity_bonded_to_another_body(bodies):
    b1, b2, _ = bodies
    bg = ph.BondGraph("m")
    g = Gravity("g", b1)
    bg.add(b1, b2, g)
    with pytest.raises(ph.BondError, match=r"frame mismatch: RigidBody:b2 port 'B' .* but Gravity:g port 'p' in frame 'b1\.B'"):
        bg.connect(b2.frame().port, g)
    with pytest.raises(ph.ParameterError, match=r"`g2\.body` must be a RigidBody"):
        Gravity("g2", Ground("ground"))


@pytest.mark.parametrize(
    "kwargs, match",
    [
        pytest.param(dict(stiffness=np.eye(6) + np.triu(np.ones((6, 6)), 1)), r"`k\.stiffness` must be symmetric", id="non-symmetric"),
        pytest.param(dict(stiffness=-np.eye(6)), r"`k\.stiffness` must be positive semidefinite, got eigenvalue -1", id="negative"),
        pytest.param(dict(rotational=1.0, translational=1.0, coupling=5.0), r"`k\.stiffness` must be positive semidefinite",
                     id="coupling-too-strong"),
        pytest.param(dict(stiffness=np.eye(6), translational=1.0), r"`k\.stiffness`: give `stiffness` or the blocks, not both",
                     id="both"),
        pytest.param(dict(stiffness=np.eye(6), rest=np.ones((4, 4))), r"`k\.rest` must have bottom row \[0, 0, 0, 1\]", id="rest"),
    ],
)
def test_bad_spring(bodies, kwargs, match):
    b1, b2, _ = bodies
    with pytest.raises(ph.ParameterError, match=match):
        SpatialSpring("k", b1.frame(), b2.frame(), **kwargs)


def test_bad_damper_and_same_body(bodies):
    b1, b2, _ = bodies
    with pytest.raises(ph.ParameterError, match=r"`d\.damping` must be symmetric"):
        SpatialDamper("d", b1.frame(), b2.frame(), damping=np.eye(6) + np.triu(np.ones((6, 6)), 1))
    with pytest.raises(ph.ModelError, match=r"'k': frames a and b are on the same body 'b1'"):
        SpatialSpring("k", b1.frame(), b1.frame(), stiffness=np.eye(6))


def test_joint_bonded_from_its_marker_frame_names_the_body_port():
    """A joint acts at its markers but is expressed in the body frame: the error says to bond
    from the body's "B" port (not to insert an MTF)."""
    ground = Ground("ground")
    body = RigidBody("b", 1.0, [1.0, 1.0, 1.0], frames={"hinge": pose(np.eye(3), [0, 0, 0.5])})
    joint = Joint("j", ground.frame(), body.frame("hinge"), kind="revolute")
    bg = ph.BondGraph("m")
    bg.add(ground, body, joint)
    bg.connect(ground.frame().port, (joint, "a"))
    match = (r"frame mismatch: RigidBody:b port 'hinge' is expressed in frame 'b\.hinge' but Joint:j port 'b' in "
             r"frame 'b\.B'; bond RigidBody:b port 'B', which is in frame 'b\.B', instead: "
             r"bg\.connect\(\('b', 'B'\), \('j', 'b'\)\)$")
    with pytest.raises(ph.BondError, match=match):
        bg.connect(body.frame("hinge").port, (joint, "b"))
    bg.connect(body.frame("B").port, (joint, "b"))   # the fix the message gives is accepted


def test_port_bonded_to_another_body_names_the_frame_it_needs(bodies):
    match = (r"frame mismatch: RigidBody:b3 port 'B' is expressed in frame 'b3\.B' but Joint:j port 'b' in frame "
             r"'b2\.B'; no port of RigidBody:b3 is in frame 'b2\.B' and none of Joint:j in frame 'b3\.B': bond Joint:j "
             r"port 'b' from a port in frame 'b2\.B'")
    with pytest.raises(ph.BondError, match=match):
        joint_graph(bodies, lambda bg, j, b2, b3: bg.connect(b3.frame().port, (j, "b")))
