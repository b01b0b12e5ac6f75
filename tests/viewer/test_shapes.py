"""The viewer's shapes against independent computations: the inertia ellipsoid's mesh has the
body's inertia (trimesh's mass properties of the drawn triangles), segments end at their
points, mesh files are read and decimated, and the drawing protocol's shapes."""

import numpy as np
import pytest

from porthamiltonian.library import Ground, RigidBody
from porthamiltonian.lie import quaternion, so3
from porthamiltonian.robots.description import Shape
from porthamiltonian.viewer.shapes import MAX_MESH_FACES, inertia_shape, segment_shape, shape_mesh

trimesh = pytest.importorskip("trimesh")


def _mass_properties(shape, resolution):
    P, _, F = shape_mesh(shape, resolution)
    return trimesh.Trimesh(P, F, process=True)


def test_the_inertia_ellipsoid_has_the_bodys_mass_properties():
    R = so3.exp(np.array([0.3, -0.7, 0.2]))
    inertia = R @ np.diag([0.83, 0.80, 0.05]) @ R.T   # a physical body (0.80 + 0.05 >= 0.83)
    com = np.array([0.1, -0.2, -0.125])
    mass = 10.0
    mesh = _mass_properties(inertia_shape(mass, inertia, com), 96)
    assert mesh.is_watertight
    mesh.density = mass / mesh.volume
    # a 96 x 48 tessellation: the polyhedron's moments are within 0.3 % of the ellipsoid's
    np.testing.assert_allclose(mesh.center_mass, com, atol=1e-9)
    np.testing.assert_allclose(mesh.moment_inertia, inertia, atol=3e-3 * np.abs(inertia).max())


def test_a_segment_ends_at_its_points_with_its_radius():
    p, q = np.array([0.1, 0.2, 0.3]), np.array([-0.4, 0.5, 1.3])
    P, N, F = shape_mesh(segment_shape(p, q, 0.02), 24)
    axis = (q - p) / np.linalg.norm(q - p)
    s = (P - p) @ axis
    np.testing.assert_allclose([s.min(), s.max()], [0.0, np.linalg.norm(q - p)], atol=1e-12)
    radial = np.linalg.norm((P - p) - s[:, None] * axis, axis=1)
    assert radial.max() == pytest.approx(0.02, abs=1e-12)
    assert segment_shape(p, p, 0.02) is None


@pytest.mark.parametrize("shape, volume", [
    (Shape("box", (0.2, 0.3, 0.4)), 0.2 * 0.3 * 0.4),
    (Shape("cylinder", (0.1, 0.5)), np.pi * 0.01 * 0.5),
    (Shape("capsule", (0.1, 0.5)), np.pi * 0.01 * 0.5 + 4.0 / 3.0 * np.pi * 1e-3),
    (Shape("sphere", (0.2,)), 4.0 / 3.0 * np.pi * 0.008),
    (Shape("ellipsoid", (0.2, 0.1, 0.3)), 4.0 / 3.0 * np.pi * 0.006),
])
def test_primitives_are_closed_outward_meshes_of_their_volume(shape, volume):
    mesh = _mass_properties(shape, 128)
    assert mesh.is_watertight
    # inscribed in the shape on a 128 x 64 grid: each radius short by up to du^2/8 + dv^2/8
    # (6e-4), the volume by about three times that (0 for the box)
    assert mesh.volume == pytest.approx(volume, rel=2e-3)
    assert mesh.volume > 0      # outward faces


def test_mesh_files_are_read_scaled_placed_and_decimated(tmp_path):
    sphere = trimesh.creation.icosphere(subdivisions=6, radius=0.5)    # 81920 triangles
    path = tmp_path / "ball.stl"
    sphere.export(path)
    H = np.eye(4)
    H[:3, 3] = (1.0, 2.0, 3.0)
    P, N, F = shape_mesh(Shape("mesh", (2.0, 2.0, 2.0), H, mesh=str(path)))
    assert len(sphere.faces) > MAX_MESH_FACES >= len(F) > MAX_MESH_FACES / 10
    r = np.linalg.norm(P[np.unique(F)] - H[:3, 3], axis=1)
    # vertex clustering averages vertices of a cell: they sit just inside the scaled sphere
    np.testing.assert_allclose(r, 1.0, atol=0.02)
    decimated = trimesh.Trimesh(P, F)
    assert decimated.volume == pytest.approx(4.0 / 3.0 * np.pi, rel=0.03)


def test_an_unreadable_mesh_file_is_a_parameter_error(tmp_path):
    from porthamiltonian.errors import ParameterError

    bad = tmp_path / "bad.stl"
    bad.write_text("not a mesh")
    with pytest.raises(ParameterError, match="bad.stl"):
        shape_mesh(Shape("mesh", (1.0, 1.0, 1.0), mesh=str(bad)))


def test_the_drawing_protocol_of_rigid_bodies_and_ground():
    H = np.eye(4)
    H[:3, 3] = (0.0, 0.0, -1.0)
    leg = RigidBody("leg", 10.0, np.diag((0.83, 0.83, 0.05)), com=(0.0, 0.0, -0.125), frames={"foot": H})
    ((name, shapes),) = leg.drawn_bodies()
    assert name == "leg" and [s.name for s in shapes] == ["inertia", "segment", "segment"]
    ends = []
    for s in shapes[1:]:
        P, _, _ = shape_mesh(s, 16)
        ends.append(sorted([P[:, 2].min(), P[:, 2].max()]))
    np.testing.assert_allclose(sorted(ends), [[-1.0, -0.125], [-0.125, 0.0]], atol=1e-12)
    rows = np.array([[2.0, 0.0, 0.0, 0.0, 1.0, 2.0, 3.0], [0.0, 0.0, 0.0, 3.0, 0.0, 0.0, 0.0]])
    poses = leg.drawn_poses({"pose": rows, "P": np.zeros((2, 6))})
    assert poses.shape == (2, 1, 7)
    np.testing.assert_allclose(np.linalg.norm(poses[:, 0, :4], axis=1), 1.0, atol=1e-15)
    ground = Ground("ground")
    assert ground.drawn_bodies() == [("ground", ())]
    np.testing.assert_allclose(ground.drawn_poses({}), [[[1.0, 0, 0, 0, 0, 0, 0]]], atol=0)
    np.testing.assert_allclose(quaternion.to_matrix(ground.drawn_poses({})[0, 0, :4]), np.eye(3), atol=1e-15)
