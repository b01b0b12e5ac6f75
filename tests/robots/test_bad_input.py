"""Bad robot files: each a RobotFileError naming the file, the element and the rule; a missing
mesh file a RobotFileWarning (the link keeps its inertia)."""

import warnings

import numpy as np
import pytest

from porthamiltonian.errors import ParameterError, RobotFileError, RobotFileWarning
from porthamiltonian.robots import example, load_mjcf, load_urdf

INERTIAL = '<inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>'


def _urdf(tmp_path, body, name="bad.urdf"):
    path = tmp_path / name
    path.write_text(f'<?xml version="1.0"?>\n<robot name="r">{body}</robot>\n')
    return path


def _link(name, inertial=INERTIAL, extra=""):
    return f'<link name="{name}">{inertial}{extra}</link>'


def _joint(name, parent, child, kind="revolute", axis="0 0 1"):
    return (f'<joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>'
            f'<axis xyz="{axis}"/><limit lower="-1" upper="1" effort="10" velocity="5"/></joint>')


def test_good_file_loads(tmp_path):
    d = load_urdf(_urdf(tmp_path, _link("a") + _link("b") + _joint("j", "a", "b")))
    assert [j.name for j in d.joints] == ["root_joint", "j"] and d.nv == 7


def test_not_xml(tmp_path):
    path = tmp_path / "notxml.urdf"
    path.write_text("this is <not xml")
    with pytest.raises(RobotFileError, match=r"notxml\.urdf: not a URDF file: the file is not well-formed XML"):
        load_urdf(path)


def test_not_a_robot(tmp_path):
    path = tmp_path / "mj.urdf"
    path.write_text("<mujoco/>")
    with pytest.raises(RobotFileError, match=r"mj\.urdf: not a URDF file: the root element is <mujoco>"):
        load_urdf(path)


def test_missing_parent_link(tmp_path):
    path = _urdf(tmp_path, _link("a") + _link("b") + _joint("hip", "torso", "b"))
    with pytest.raises(RobotFileError, match=r"bad\.urdf: joint 'hip' names a parent link 'torso' that is not defined"):
        load_urdf(path)


def test_cycle(tmp_path):
    body = _link("a") + _link("b") + _link("c") + _joint("ab", "a", "b") + _joint("bc", "b", "c") + _joint("ca", "c", "a")
    with pytest.raises(RobotFileError, match=r"bad\.urdf: joint '\w+' closes a cycle in the links \(.* -> .*\); the links must form a tree"):
        load_urdf(_urdf(tmp_path, body))


def test_cycle_beside_a_tree(tmp_path):
    body = (_link("r") + _link("a") + _link("b") + _link("c") + _joint("ra", "r", "a")
            + _joint("bc", "b", "c") + _joint("cb", "c", "b"))
    with pytest.raises(RobotFileError, match=r"bad\.urdf: joint '\w+' closes a cycle in the links"):
        load_urdf(_urdf(tmp_path, body))


def test_two_roots(tmp_path):
    body = _link("a") + _link("b") + _link("c") + _joint("ab", "a", "b")
    with pytest.raises(RobotFileError, match=r"bad\.urdf: the links must form one tree with one root link, got 2 .*\['a', 'c'\]"):
        load_urdf(_urdf(tmp_path, body))


@pytest.mark.parametrize("kind, rule", [("hinge", "unknown joint type 'hinge'"), ("planar", "planar joints are not supported 'planar'")])
def test_unknown_joint_type(tmp_path, kind, rule):
    path = _urdf(tmp_path, _link("a") + _link("b") + _joint("knee", "a", "b", kind=kind))
    with pytest.raises(RobotFileError, match=rf"bad\.urdf: joint 'knee': {rule}; URDF joint types read"):
        load_urdf(path)


def test_zero_axis(tmp_path):
    path = _urdf(tmp_path, _link("a") + _link("b") + _joint("knee", "a", "b", axis="0 0 0"))
    with pytest.raises(RobotFileError, match=r"bad\.urdf: joint 'knee' <axis xyz='0 0 0'>: a joint axis must have non-zero length"):
        load_urdf(path)


def test_negative_mass(tmp_path):
    inertial = '<inertial><mass value="-2"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>'
    path = _urdf(tmp_path, _link("a") + _link("shin", inertial) + _joint("knee", "a", "shin"))
    with pytest.raises(RobotFileError, match=r"bad\.urdf: link 'shin' <inertial>: mass must be finite and >= 0 kg, got -2\.0"):
        load_urdf(path)


@pytest.mark.parametrize("moments", ["-0.01 0.01 0.01", "0.01 0.01 0.05"])
def test_non_physical_inertia(tmp_path, moments):
    ixx, iyy, izz = moments.split()
    inertial = f'<inertial><mass value="1"/><inertia ixx="{ixx}" iyy="{iyy}" izz="{izz}" ixy="0" ixz="0" iyz="0"/></inertial>'
    path = _urdf(tmp_path, _link("a") + _link("shin", inertial) + _joint("knee", "a", "shin"))
    with pytest.raises(RobotFileError, match=r"bad\.urdf: link 'shin' <inertial>: non-physical inertia: .*triangle inequality"):
        load_urdf(path)


def test_balanced_inertia_warns_and_loads(tmp_path):
    inertial = '<inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.05" ixy="0" ixz="0" iyz="0"/></inertial>'
    path = _urdf(tmp_path, _link("a") + _link("shin", inertial) + _joint("knee", "a", "shin"))
    with pytest.warns(RobotFileWarning, match=r"link 'shin' <inertial>: principal moments break the triangle inequality by 0\.03"):
        d = load_urdf(path, balance_inertia=True)
    # the two smaller moments each raised by half the excess 0.03: (0.025, 0.025, 0.05)
    np.testing.assert_allclose(d.link("shin").inertia.inertia, np.diag([0.025, 0.025, 0.05]), rtol=0, atol=1e-15)


def test_massless_link_with_inertia(tmp_path):
    inertial = '<inertial><mass value="0"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>'
    path = _urdf(tmp_path, _link("a") + _link("shin", inertial) + _joint("knee", "a", "shin"))
    with pytest.raises(RobotFileError, match=r"link 'shin' <inertial>: a link of zero mass must have zero rotational inertia"):
        load_urdf(path)


def test_zero_inertia_below_a_moving_joint(tmp_path):
    # a massless leaf on a revolute joint: nothing resists the joint, the mass matrix is singular
    path = _urdf(tmp_path, _link("a") + '<link name="tip"/>' + _joint("wrist", "a", "tip"))
    with pytest.raises(RobotFileError, match=r"bad\.urdf: joint 'wrist' \(revolute\) moves zero inertia along \[0\.0\]: the links below it \(mass 0 kg\)"):
        load_urdf(path)


def test_point_mass_on_its_own_axis(tmp_path):
    # a point mass on the joint axis: mass, but zero inertia about the axis
    inertial = '<inertial><origin xyz="0 0 0.3"/><mass value="1"/><inertia ixx="0" iyy="0" izz="0" ixy="0" ixz="0" iyz="0"/></inertial>'
    path = _urdf(tmp_path, _link("a") + _link("bob", inertial) + _joint("spin", "a", "bob"))
    with pytest.raises(RobotFileError, match=r"joint 'spin' \(revolute\) moves zero inertia"):
        load_urdf(path)


def test_mimic_refused_by_name(tmp_path):
    body = (_link("a") + _link("b") + _link("c") + _joint("lead", "a", "b")
            + '<joint name="follow" type="revolute"><parent link="b"/><child link="c"/><axis xyz="0 0 1"/>'
              '<limit lower="-1" upper="1" effort="1" velocity="1"/><mimic joint="lead" multiplier="2"/></joint>')
    with pytest.raises(RobotFileError, match=r"bad\.urdf: joint 'follow' <mimic joint='lead'>: mimic joints are refused"):
        load_urdf(_urdf(tmp_path, body))
    assert load_urdf(_urdf(tmp_path, body), mimic="independent").joint("follow").kind == "revolute"
    with pytest.raises(ParameterError, match=r"`mimic` must be 'raise' or 'independent', got 'couple'"):
        load_urdf(_urdf(tmp_path, body), mimic="couple")


def test_missing_mesh_warns_and_keeps_inertia(tmp_path):
    visual = '<visual><geometry><mesh filename="package://nowhere/meshes/shin.stl"/></geometry></visual>'
    path = _urdf(tmp_path, _link("a") + _link("shin", extra=visual) + _joint("knee", "a", "shin"))
    with pytest.warns(RobotFileWarning, match=r"bad\.urdf: link 'shin' <visual> mesh 'package://nowhere/meshes/shin.stl' not found"):
        d = load_urdf(path)
    assert d.link("shin").visuals == () and d.link("shin").inertia.mass == 1.0


def test_package_meshes_resolved():
    d = load_urdf(example("solo12"))
    meshes = [s.mesh for l in d.links for s in l.visuals + l.collisions if s.kind == "mesh"]
    assert len(meshes) >= 17
    for mesh in meshes:
        assert mesh.startswith("/") and mesh.endswith(".stl")


def test_example_unknown_name():
    with pytest.raises(ParameterError, match=r"`name` must be one of the installed example robots \[.*'go1'.*\], got 'cassie'"):
        example("cassie")


def test_mjcf_refused_by_mujoco(tmp_path):
    path = tmp_path / "bad.xml"
    path.write_text("<mujoco><worldbody><body><joint type='hinge' axis='0 0 0'/></body></worldbody></mujoco>")
    with pytest.raises(RobotFileError, match=r"bad\.xml: MuJoCo's compiler refused the file: .*"):
        load_mjcf(path)
    path.write_text("not xml <")
    with pytest.raises(RobotFileError, match=r"bad\.xml: MuJoCo's compiler refused the file"):
        load_mjcf(path)


def test_mjcf_spring_on_ball_refused(tmp_path):
    path = tmp_path / "ball.xml"
    path.write_text("<mujoco><worldbody><body><joint name='shoulder' type='ball' stiffness='3'/>"
                    "<inertial pos='0 0 0' mass='1' diaginertia='1 1 1'/></body></worldbody></mujoco>")
    with pytest.raises(RobotFileError, match=r"ball\.xml: joint 'shoulder': a spring on a ball joint is not representable"):
        load_mjcf(path)


def test_talos_mimic_refused_by_default():
    with pytest.raises(RobotFileError, match=r"talos_reduced\.urdf: joint '\w+' <mimic joint='gripper_\w+_joint'>: mimic joints are refused"):
        load_urdf(example("talos"))


def test_package_found_through_ros_package_path(tmp_path, monkeypatch):
    share = tmp_path / "share"
    (share / "legs" / "meshes").mkdir(parents=True)
    (share / "legs" / "meshes" / "shin.stl").write_text("solid shin\nendsolid shin\n")
    robot_dir = tmp_path / "elsewhere"
    robot_dir.mkdir()
    visual = '<visual><geometry><mesh filename="package://legs/meshes/shin.stl" scale="2 2 2"/></geometry></visual>'
    path = _urdf(robot_dir, _link("a") + _link("shin", extra=visual) + _joint("knee", "a", "shin"))
    with pytest.warns(RobotFileWarning, match="not found"):
        load_urdf(path)
    monkeypatch.setenv("ROS_PACKAGE_PATH", str(share))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RobotFileWarning)
        shape, = load_urdf(path).link("shin").visuals
    assert shape.mesh == str((share / "legs" / "meshes" / "shin.stl").resolve()) and shape.size == (2.0, 2.0, 2.0)
