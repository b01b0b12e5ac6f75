"""Contact surfaces of imported robots: sphere feet placed where Pinocchio puts the foot frames,
capsule ends in closed form, user-named surfaces, and the minimum-volume ellipsoid fit."""

import warnings

import numpy as np
import pinocchio as pin
import pytest
import trimesh

from porthamiltonian.errors import GeometryError, ParameterError
from porthamiltonian.geometry import Ellipsoid, Sphere
from porthamiltonian.robots import contact_surfaces, example, feet, fit_ellipsoid, load_mjcf, load_urdf

from .test_mjcf import TREE


def _load(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # inertia balancing of go1 and anymal_c, checked elsewhere
        return load_urdf(example(name), balance_inertia=True)


@pytest.mark.parametrize("name, links, radius", [
    ("go1", ["FR_foot", "FL_foot", "RR_foot", "RL_foot"], 0.02),
    ("a1", ["FR_foot", "FL_foot", "RR_foot", "RL_foot"], 0.02),
    ("anymal_c", ["LF_FOOT", "RF_FOOT", "LH_FOOT", "RH_FOOT"], 0.03),
])
def test_quadruped_feet(name, links, radius):
    description = _load(name)
    found = feet(description)
    assert sorted(found) == sorted(links)
    ref = pin.buildModelFromUrdf(str(example(name)))  # fixed base: the root link's frame is the world
    data = ref.createData()
    pin.framesForwardKinematics(ref, data, pin.neutral(ref))
    frames = {}
    for j in description.joints:
        frames[j.child] = np.eye(4) if j.parent is None else frames[j.parent] @ j.placement
    heights = []
    for link, (H, sphere) in found.items():
        assert isinstance(sphere, Sphere) and sphere.radius == radius
        H_root = frames[link] @ H
        oMf = data.oMf[ref.getFrameId(link)].homogeneous
        # the sphere's centre in the root frame, against Pinocchio's foot frame and the file's
        # collision origin; 1e-12 as in the placement tests
        np.testing.assert_allclose(H_root[:3, 3], oMf[:3, :3] @ H[:3, 3] + oMf[:3, 3], rtol=0, atol=1e-12)
        heights.append(H_root[2, 3] - radius)
    # the feet are the lowest points of the robot's collision spheres
    lowest = min(
        (frames[l] @ H)[2, 3] - s.radius for l, pairs in contact_surfaces(description).items() for H, s in pairs if isinstance(s, Sphere)
    )
    assert min(heights) == lowest


def test_capsule_ends_and_ellipsoid():
    surfaces = contact_surfaces(load_mjcf(TREE))
    assert sorted(surfaces) == ["foot", "hip", "knee"]
    # hip capsule fromto (0 0 0)-(0 0 -0.2) in the body frame; the link frame sits at the last anchor
    # (0.02, 0.03, -0.01): ends at (-0.02, -0.03, 0.01) and (-0.02, -0.03, -0.19)
    ends = sorted((H[:3, 3] for H, s in surfaces["hip"]), key=lambda p: p[2])
    np.testing.assert_allclose(ends, [[-0.02, -0.03, -0.19], [-0.02, -0.03, 0.01]], rtol=0, atol=1e-15)
    assert all(isinstance(s, Sphere) and s.radius == 0.03 for _, s in surfaces["hip"])
    (H, e), = surfaces["knee"]
    assert type(e) is Ellipsoid and e.axes == (0.02, 0.03, 0.1)


def test_mesh_link_takes_a_named_surface():
    description = load_urdf(example("solo12"))
    assert feet(description) == {} and "FL_FOOT" not in contact_surfaces(description)
    mesh = next(s for s in description.link("FL_FOOT").collisions if s.kind == "mesh")
    vertices = trimesh.load(mesh.mesh, force="mesh").vertices * np.asarray(mesh.size)
    H, ellipsoid = fit_ellipsoid(vertices)
    surfaces = contact_surfaces(description, {"FL_FOOT": (mesh.placement @ H, ellipsoid)})
    (H_named, named), = surfaces["FL_FOOT"]
    assert named is ellipsoid and np.array_equal(H_named, mesh.placement @ H)
    # the ellipsoid encloses the foot mesh, touching it
    values = _inside(H, ellipsoid, vertices)
    assert 1 - 1e-12 <= values.max() <= 1 + 1e-12
    with pytest.raises(ParameterError, match=r"`surfaces` names links \['paw'\] that robot 'solo' does not have"):
        contact_surfaces(description, {"paw": ellipsoid})
    with pytest.raises(ParameterError, match=r"`surfaces\['FL_FOOT'\]` must be a Surface or an \(H_link_surface, Surface\) pair"):
        contact_surfaces(description, {"FL_FOOT": [1.0]})


def _inside(H, e, points):
    local = (points - H[:3, 3]) @ H[:3, :3]
    return ((local / np.array(e.axes)) ** 2).sum(axis=1)


def test_fit_ellipsoid_recovers_an_ellipsoid():
    rng = np.random.default_rng(7)
    x = rng.normal(size=(400, 3))
    x /= np.linalg.norm(x, axis=1)[:, None]
    axes = np.array([0.3, 0.2, 0.1])
    R = pin.exp3(np.array([0.3, -0.5, 0.8]))
    c = np.array([0.1, -0.2, 0.05])
    interior = rng.uniform(-0.05, 0.05, size=(50, 3))
    points = np.vstack([(x * axes) @ R.T + c, interior @ R.T + c])
    H, e = fit_ellipsoid(points)
    # the optimality gap 1e-7 bounds the volume's error; the axes converge as its square root
    # (the optimum is flat in the weights): 1e-6 bounds them
    np.testing.assert_allclose(np.sort(e.axes), np.sort(axes), rtol=1e-6)
    np.testing.assert_allclose(H[:3, 3], c, rtol=0, atol=1e-6)
    values = _inside(H, e, points)
    assert values.max() <= 1 + 1e-12 and values.max() >= 1 - 1e-12
    assert np.linalg.det(H[:3, :3]) == pytest.approx(1.0, abs=1e-12)


def test_fit_ellipsoid_of_a_cube_is_its_circumsphere():
    cube = np.array([[i, j, k] for i in (-1, 1) for j in (-1, 1) for k in (-1, 1)], dtype=float) + [2.0, 0.0, -1.0]
    H, e = fit_ellipsoid(cube)
    np.testing.assert_allclose(e.axes, np.sqrt(3.0), rtol=1e-9)
    np.testing.assert_allclose(H[:3, 3], [2.0, 0.0, -1.0], rtol=0, atol=1e-9)


def test_fit_ellipsoid_bad_input():
    with pytest.raises(ParameterError, match=r"`vertices` must be an \(n, 3\) array of finite numbers with n >= 4, got shape \(3, 3\)"):
        fit_ellipsoid(np.eye(3))
    flat = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0], [2, 3, 0]], dtype=float)
    with pytest.raises(GeometryError, match=r"`vertices` lie on one plane"):
        fit_ellipsoid(flat)
