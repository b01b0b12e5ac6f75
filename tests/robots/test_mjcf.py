"""load_mjcf against MuJoCo itself, and the same robot read from URDF and from MJCF.

1. A hand-written MJCF tree (tests/robots/data/tree.xml: a free base, a body with two hinges on
   different anchors, a ref, a ball, a slide, a welded body, off-diagonal inertias, every geom
   kind): at random states, MuJoCo's own mass matrix (mj_fullM) and geom poses
   (mj_kinematics) equal those of a Pinocchio model built from the imported description.
2. Go1's URDF read by load_urdf and the same URDF compiled by MuJoCo and read by load_mjcf:
   equal joint placements, inertias and mass matrices, bolted and floating (a URDF floating
   joint, which MuJoCo reads as a free joint).
Bound 1e-12: MuJoCo and Pinocchio run the same double-precision algebra on the same numbers.
"""

import xml.etree.ElementTree as ET
from pathlib import Path

import mujoco
import numpy as np
import pinocchio as pin
import pytest

from porthamiltonian.robots import example, load_mjcf, load_urdf

from .pinmodel import mass_matrix, pinocchio_model

TREE = Path(__file__).parent / "data" / "tree.xml"
TOL = 1e-12


def _random_state(mj, rng):
    """A MuJoCo qpos with random joint values (unit quaternions for free and ball joints)."""
    q = mj.qpos0.copy()
    for j in range(mj.njnt):
        a, kind = mj.jnt_qposadr[j], mj.jnt_type[j]
        if kind == mujoco.mjtJoint.mjJNT_FREE:
            q[a:a + 3] = rng.normal(size=3)
            q[a + 3:a + 7] = rng.normal(size=4) / 1.0
            q[a + 3:a + 7] /= np.linalg.norm(q[a + 3:a + 7])
        elif kind == mujoco.mjtJoint.mjJNT_BALL:
            q[a:a + 4] = rng.normal(size=4)
            q[a:a + 4] /= np.linalg.norm(q[a:a + 4])
        else:
            q[a] += rng.uniform(-1, 1)
    return q


def _to_pinocchio(mj, model, qpos):
    """Pinocchio's q of MuJoCo's qpos, and T with v_mujoco = T v_pinocchio."""
    q = pin.neutral(model)
    T = np.zeros((mj.nv, model.nv))
    for j in range(mj.njnt):
        jid = model.getJointId(mj.joint(j).name)
        iq, iv = model.joints[jid].idx_q, model.joints[jid].idx_v
        a, d, kind = mj.jnt_qposadr[j], mj.jnt_dofadr[j], mj.jnt_type[j]
        if kind == mujoco.mjtJoint.mjJNT_FREE:
            w, x, y, z = qpos[a + 3:a + 7]
            q[iq:iq + 7] = [*qpos[a:a + 3], x, y, z, w]
            R = pin.Quaternion(w, x, y, z).toRotationMatrix()
            T[d:d + 3, iv:iv + 3] = R          # MuJoCo: linear velocity in the world
            T[d + 3:d + 6, iv + 3:iv + 6] = np.eye(3)  # angular velocity in the body, both
        elif kind == mujoco.mjtJoint.mjJNT_BALL:
            w, x, y, z = qpos[a:a + 4]
            q[iq:iq + 4] = [x, y, z, w]
            T[d:d + 3, iv:iv + 3] = np.eye(3)
        else:
            q[iq] = qpos[a] - mj.qpos0[a]  # the description measures from MuJoCo's ref
            T[d, iv] = 1.0
    return q, T


def _mujoco_mass(mj, qpos):
    data = mujoco.MjData(mj)
    data.qpos[:] = qpos
    mujoco.mj_forward(mj, data)
    M = np.zeros((mj.nv, mj.nv))
    mujoco.mj_fullM(mj, data, M)
    return M, data


def _mujoco_without_armature(mj):
    # armature enters MuJoCo's mass matrix; the description keeps it as joint data, so the
    # rigid-body comparison removes it from MuJoCo's side
    mj.dof_armature[:] = 0.0
    return mj


@pytest.mark.parametrize("seed", range(4))
def test_tree_mass_matrix_equals_mujoco(seed):
    rng = np.random.default_rng(seed)
    mj = _mujoco_without_armature(mujoco.MjModel.from_xml_path(str(TREE)))
    description = load_mjcf(TREE)
    model, _ = pinocchio_model(description)
    qpos = _random_state(mj, rng)
    q, T = _to_pinocchio(mj, model, qpos)
    M_mj, _ = _mujoco_mass(mj, qpos)
    M_ours = mass_matrix(description, q)
    np.testing.assert_allclose(M_ours, T.T @ M_mj @ T, rtol=0, atol=TOL * np.abs(M_mj).max())


@pytest.mark.parametrize("seed", range(4))
def test_tree_geom_poses_equal_mujoco(seed):
    rng = np.random.default_rng(seed)
    mj = mujoco.MjModel.from_xml_path(str(TREE))
    description = load_mjcf(TREE)
    model, link_frame = pinocchio_model(description)
    qpos = _random_state(mj, rng)
    q, _ = _to_pinocchio(mj, model, qpos)
    _, data = _mujoco_mass(mj, qpos)
    pdata = model.createData()
    pin.forwardKinematics(model, pdata, q)
    checked = 0
    for link in description.links:
        jid, H_link = link_frame[link.name]
        H_W = pdata.oMi[jid].homogeneous @ H_link
        for shape in link.visuals + link.collisions:
            g = mj.geom(shape.name).id
            H_geom = H_W @ shape.placement
            np.testing.assert_allclose(H_geom[:3, 3], data.geom_xpos[g], rtol=0, atol=TOL * 10)
            np.testing.assert_allclose(H_geom[:3, :3], data.geom_xmat[g].reshape(3, 3), rtol=0, atol=TOL * 10)
            checked += 1
    assert checked == 5  # every body geom; the world's floor is not part of the robot


def test_tree_conversion_data():
    d = load_mjcf(TREE)
    kinds = {j.name: j.kind for j in d.joints}
    assert kinds == {"root": "free", "hip_x": "continuous", "hip_y": "revolute", "knee": "spherical",
                     "foot_weld": "fixed", "slide": "prismatic"}
    # two joints in body "hip": a massless link between them
    assert d.joint("hip_x").child == "hip/hip_x" and d.joint("hip_y").parent == "hip/hip_x"
    assert d.link("hip/hip_x").inertia.mass == 0.0
    hip_x, hip_y, slide = d.joint("hip_x"), d.joint("hip_y"), d.joint("slide")
    assert (hip_x.damping, hip_x.friction, hip_x.armature) == (0.3, 0.05, 0.01)
    ref, deg = np.deg2rad(15), np.pi / 180
    np.testing.assert_allclose([hip_y.lower, hip_y.upper, hip_y.rest], [-60 * deg - ref, 90 * deg - ref, 30 * deg - ref], rtol=0, atol=1e-15)
    assert hip_y.stiffness == 4.0
    np.testing.assert_allclose([slide.lower, slide.upper], [-0.15, 0.15], rtol=0, atol=1e-15)
    np.testing.assert_allclose(slide.axis, np.array([0.3, 0.4, 0.5]) / np.linalg.norm([0.3, 0.4, 0.5]), rtol=0, atol=1e-15)
    shapes = {s.name: (s.kind, s.size) for l in d.links for s in l.collisions + l.visuals}
    assert shapes["hip_capsule"] == ("capsule", (0.03, 0.2))
    assert shapes["slider_cylinder"] == ("cylinder", (0.04, 0.06))
    assert shapes["base_box"] == ("box", (0.4, 0.2, 0.1))
    assert "base_box" in {s.name for s in d.link("base").visuals}  # contype = conaffinity = 0
    assert "floor" not in shapes
    np.testing.assert_allclose(d.mass, 5 + 1.2 + 0.6 + 0.1 + 0.8, rtol=1e-15)


def _go1_for_mujoco(tmp_path, floating):
    """Go1's URDF without its meshes (MuJoCo reads no .dae) and with MuJoCo's compiler told to
    keep every link (fusestatic off) and to take inertias from the file only; `floating` adds a
    ``world`` link and a floating joint to the base, which MuJoCo reads as a free joint."""
    tree = ET.parse(example("go1"))
    root = tree.getroot()
    for link in root.iter("link"):
        for element in list(link):
            if element.tag in ("visual", "collision") and element.find("geometry/mesh") is not None:
                link.remove(element)
        if link.get("name") == "base":
            # Go1's `base` (1e-6 kg) has all six entries 1e-6 (moments (0, 0, 3e-6)), which
            # MuJoCo's compiler refuses; both readers get the same physical replacement
            link.find("inertial/inertia").attrib.update(ixy="0", ixz="0", iyz="0")
    for gazebo in root.findall("gazebo"):
        root.remove(gazebo)
    mujoco_element = ET.SubElement(root, "mujoco")
    ET.SubElement(mujoco_element, "compiler", fusestatic="false", discardvisual="false", inertiafromgeom="false")
    if floating:
        ET.SubElement(root, "link", name="world")
        joint = ET.SubElement(root, "joint", name="float", type="floating")
        ET.SubElement(joint, "parent", link="world")
        ET.SubElement(joint, "child", link="base")
    path = tmp_path / "go1.urdf"
    tree.write(path)
    return path


def _random_q(model, rng):
    q = pin.neutral(model)
    for jid in range(1, model.njoints):
        j = model.joints[jid]
        if j.nq == 7:
            quat = rng.normal(size=4)
            q[j.idx_q:j.idx_q + 7] = [*rng.normal(size=3), *(quat / np.linalg.norm(quat))]
        else:
            q[j.idx_q] = rng.uniform(-1, 1)
    return q


@pytest.mark.parametrize("floating", [False, True])
def test_go1_urdf_and_mjcf_agree(tmp_path, floating):
    path = _go1_for_mujoco(tmp_path, floating)
    from_urdf = load_urdf(path, floating_base=False)
    from_mjcf = load_mjcf(path)
    if floating:
        assert from_mjcf.joints[0].name == "float" and from_mjcf.joints[0].kind == "free"
        assert from_urdf.joint("float").kind == "free"
    m_u, _ = pinocchio_model(from_urdf)
    m_m, _ = pinocchio_model(from_mjcf)
    names = list(m_u.names[1:])
    assert sorted(names) == sorted(m_m.names[1:]) and len(names) == 12 + floating
    for name in names:
        a, b = m_u.getJointId(name), m_m.getJointId(name)
        np.testing.assert_allclose(m_m.jointPlacements[b].homogeneous, m_u.jointPlacements[a].homogeneous, rtol=0, atol=TOL)
        np.testing.assert_allclose(m_m.inertias[b].matrix(), m_u.inertias[a].matrix(), rtol=0, atol=TOL)

    def coordinates(model, kind):
        out = []
        for name in names:
            j = model.joints[model.getJointId(name)]
            start, size = (j.idx_q, j.nq) if kind == "q" else (j.idx_v, j.nv)
            out += list(range(start, start + size))
        return out

    rng = np.random.default_rng(3)
    for _ in range(5):
        q_u = _random_q(m_u, rng)
        q_m = np.zeros(m_m.nq)
        q_m[coordinates(m_m, "q")] = q_u[coordinates(m_u, "q")]
        M_u = mass_matrix(from_urdf, q_u)
        M_m = mass_matrix(from_mjcf, q_m)
        v_u, v_m = coordinates(m_u, "v"), coordinates(m_m, "v")
        np.testing.assert_allclose(M_m[np.ix_(v_m, v_m)], M_u[np.ix_(v_u, v_u)], rtol=0, atol=TOL * np.abs(M_u).max())
