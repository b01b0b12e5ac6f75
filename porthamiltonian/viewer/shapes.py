"""Shapes as the viewer draws them: triangle meshes of `Shape` (primitives and mesh files), and
the shapes that stand for a body without visuals (its inertia, segments between its frames).

The drawing protocol
--------------------
A storage element that moves bodies says how to draw them with two methods, which the scene
(`porthamiltonian.viewer.scene_from_trajectory`) calls on every element that has them:

``element.drawn_bodies() -> list[tuple[str, tuple[Shape, ...]]]``
    Each drawn body's name and its visual shapes (`porthamiltonian.robots.description.Shape`)
    placed in the body's own frame.
``element.drawn_poses(states) -> ndarray, shape (n_frames, n_bodies, 7)``
    The bodies' world poses ``[qw, qx, qy, qz, px, py, pz]`` (in `drawn_bodies` order), given
    ``states``: the element's own state block names (without the element's path) mapped to
    arrays (n_frames, block size) from the trajectory. An element without a state (the
    ground) returns one frame, shape (1, n_bodies, 7): it does not move.

A shape whose colour is the default grey of ``DEFAULT_RGBA`` (whatever its alpha) has no colour
of its own and is drawn in its body's colour (the legend's); one with an alpha below 1 is drawn
translucent.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import ParameterError
from ..robots.description import Shape

__all__ = ["DEFAULT_RGBA", "inertia_shape", "segment_radius", "segment_shape", "shape_mesh", "MAX_MESH_FACES"]

#: a shape with this rgba takes its body's colour
DEFAULT_RGBA = Shape("sphere", (1.0,)).rgba
#: opacity of the equivalent-inertia ellipsoid (translucent, so the segments show through it)
INERTIA_ALPHA = 0.25
#: a mesh file with more triangles is decimated (vertex clustering) to at most this many
MAX_MESH_FACES = 20000


def _frame_from_z(p, q):
    """A placement at the midpoint of p-q with its z axis along q - p."""
    d = np.asarray(q, float) - np.asarray(p, float)
    z = d / np.linalg.norm(d)
    helper = np.array([1.0, 0.0, 0.0]) if abs(z[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    x = np.cross(helper, z)
    x /= np.linalg.norm(x)
    H = np.eye(4)
    H[:3, :3] = np.column_stack((x, np.cross(z, x), z))
    H[:3, 3] = 0.5 * (np.asarray(p, float) + np.asarray(q, float))
    return H


def segment_shape(p, q, radius, rgba=DEFAULT_RGBA, name="segment"):
    """A thin cylinder from point `p` to point `q` (shape (3,) [m], in one frame), of `radius` [m].

    Returns None when the points coincide (closer than 1e-9 m).
    """
    length = float(np.linalg.norm(np.asarray(q, float) - np.asarray(p, float)))
    if length < 1e-9:
        return None
    return Shape("cylinder", (radius, length), _frame_from_z(p, q), rgba=rgba, name=name)


def segment_radius(ellipsoid):
    """Radius [m] of a body's segments: a quarter of its inertia ellipsoid's smallest
    semi-axis, at most 4 % of its largest (a rod's segments stay thin)."""
    return float(min(0.25 * min(ellipsoid.size), 0.04 * max(ellipsoid.size)))


def inertia_shape(mass, inertia, com, alpha=INERTIA_ALPHA):
    """The ellipsoid of uniform density with the body's mass and rotational inertia.

    Its semi-axes along the principal axes are ``a_i = sqrt(5 (I_j + I_k - I_i) / (2 m))``
    (a solid ellipsoid has ``I_i = m (a_j^2 + a_k^2) / 5``); a principal moment pair that
    leaves a semi-axis zero (a rod) gets one hundredth of the largest, so that it is drawn.

    Parameters
    ----------
    mass : float [kg]
    inertia : array_like, shape (3, 3) [kg m^2]
        About the centre of mass, in the body frame.
    com : array_like, shape (3,) [m]
    alpha : float
        The shape's opacity.
    """
    moments, axes = np.linalg.eigh(np.asarray(inertia, float))
    if np.linalg.det(axes) < 0:
        axes[:, 2] *= -1.0
    total = moments.sum()
    semi = np.sqrt(np.maximum(5.0 * (total - 2.0 * moments) / (2.0 * mass), 0.0))
    semi = np.maximum(semi, 0.01 * semi.max())
    H = np.eye(4)
    H[:3, :3], H[:3, 3] = axes, com
    return Shape("ellipsoid", tuple(semi), H, rgba=DEFAULT_RGBA[:3] + (alpha,), name="inertia")


# ------------------------------------------------------------------ triangle meshes

def _grid(n_u, n_v, point, normal):
    """Vertices, normals and faces of a (u, v) grid closed in u: u in [0, 2 pi), v in [0, pi]."""
    u = np.linspace(0.0, 2.0 * math.pi, n_u, endpoint=False)
    v = np.linspace(0.0, math.pi, n_v)
    U, V = np.meshgrid(u, v, indexing="ij")
    P, N = point(U.ravel(), V.ravel()), normal(U.ravel(), V.ravel())
    faces = []
    for i in range(n_u):
        i2 = (i + 1) % n_u
        for j in range(n_v - 1):
            a, b, c, d = i * n_v + j, i2 * n_v + j, i2 * n_v + j + 1, i * n_v + j + 1
            faces += _quad(a, b, c, d, j, n_v)
    return P, N, np.array(faces, dtype=np.int64)


def _quad(a, b, c, d, j, n_v):
    """The two triangles of a grid cell, without the degenerate one at a pole (v = 0 or pi:
    a and b, or c and d, are the same point)."""
    return ([(a, b, c)] if j > 0 else []) + ([(a, c, d)] if j < n_v - 2 else [])


def _unit(v):
    return v / np.maximum(np.linalg.norm(v, axis=1), 1e-300)[:, None]


def _sphere_dir(U, V):
    return np.column_stack((np.sin(V) * np.cos(U), np.sin(V) * np.sin(U), -np.cos(V)))


def _ellipsoid(a, n):
    semi = np.asarray(a, float)
    return _grid(n, max(3, n // 2), lambda U, V: _sphere_dir(U, V) * semi, lambda U, V: _unit(_sphere_dir(U, V) / semi))


def _capsule(r, length, n):
    # v in [0, pi]: the lower half sphere (v < pi/2) shifted down, the upper one up; the seam
    # at v = pi/2 is duplicated so the side is a straight band
    half = n // 4 + 1
    v = np.concatenate((np.linspace(0.0, 0.5 * math.pi, half), np.linspace(0.5 * math.pi, math.pi, half)))
    u = np.linspace(0.0, 2.0 * math.pi, n, endpoint=False)
    U, V = np.meshgrid(u, v, indexing="ij")
    d = _sphere_dir(U.ravel(), V.ravel())
    shift = np.where(np.arange(V.size) % len(v) < half, -0.5 * length, 0.5 * length)
    P = r * d + np.column_stack((np.zeros_like(shift), np.zeros_like(shift), shift))
    nv = len(v)
    faces = []
    for i in range(n):
        i2 = (i + 1) % n
        for j in range(nv - 1):
            a, b, c, e = i * nv + j, i2 * nv + j, i2 * nv + j + 1, i * nv + j + 1
            faces += _quad(a, b, c, e, j, nv)
    return P, d, np.array(faces, dtype=np.int64)


def _cylinder(r, length, n):
    u = np.linspace(0.0, 2.0 * math.pi, n, endpoint=False)
    ring = np.column_stack((np.cos(u), np.sin(u), np.zeros(n)))
    h = np.array([0.0, 0.0, 0.5 * length])
    side_p = np.concatenate((r * ring - h, r * ring + h))
    side_n = np.concatenate((ring, ring))
    faces = [(i, (i + 1) % n, n + (i + 1) % n) for i in range(n)] + [(i, n + (i + 1) % n, n + i) for i in range(n)]
    P, N = [side_p], [side_n]
    for sign in (-1.0, 1.0):
        base = sum(len(p) for p in P)
        P.append(np.concatenate(([sign * h], r * ring + sign * h)))
        N.append(np.tile([0.0, 0.0, sign], (n + 1, 1)))
        for i in range(n):
            a, b = base + 1 + i, base + 1 + (i + 1) % n
            faces.append((base, b, a) if sign < 0 else (base, a, b))
    return np.concatenate(P), np.concatenate(N), np.array(faces, dtype=np.int64)


def _box(size):
    half = 0.5 * np.asarray(size, float)
    P, N, faces = [], [], []
    for axis in range(3):
        for sign in (-1.0, 1.0):
            n = np.zeros(3)
            n[axis] = sign
            a, b = [k for k in range(3) if k != axis]
            corners = []
            for sa, sb in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
                c = np.zeros(3)
                c[axis], c[a], c[b] = sign * half[axis], sa * half[a], sb * half[b]
                corners.append(c)
            base = len(P)
            P += corners
            N += [n] * 4
            quad = [(base, base + 1, base + 2), (base, base + 2, base + 3)]
            # counter-clockwise seen from outside
            if np.dot(np.cross(corners[1] - corners[0], corners[2] - corners[0]), n) < 0:
                quad = [(i, k, j) for i, j, k in quad]
            faces += quad
    return np.array(P), np.array(N), np.array(faces, dtype=np.int64)


def _cluster(vertices, faces, max_faces):
    """Vertex clustering (Rossignac & Borrel 1993): vertices merged on a grid whose cell grows
    until at most `max_faces` non-degenerate triangles remain."""
    lo, hi = vertices.min(axis=0), vertices.max(axis=0)
    cell = float(np.max(hi - lo)) / max(8.0, math.sqrt(max_faces / 2.0))
    while True:
        keys = np.floor((vertices - lo) / cell).astype(np.int64)
        _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
        inverse = inverse.ravel()
        sums = np.zeros((len(first), 3))
        np.add.at(sums, inverse, vertices)
        merged = sums / np.bincount(inverse)[:, None]
        f = inverse[faces]
        f = f[(f[:, 0] != f[:, 1]) & (f[:, 1] != f[:, 2]) & (f[:, 0] != f[:, 2])]
        if len(f):
            f = f[np.sort(np.unique(np.sort(f, axis=1), axis=0, return_index=True)[1])]
        if len(f) <= max_faces:
            return merged, f
        cell *= 1.5


def _mesh_file(shape, max_faces):
    try:
        import trimesh
    except ImportError:
        raise ParameterError(f"shape {shape.name or shape.mesh!r}: drawing a mesh file needs trimesh "
                             "(pip install 'porthamiltonian[viewer]')") from None
    try:
        mesh = trimesh.load(shape.mesh, force="mesh")
    except Exception as exc:  # trimesh raises many kinds (ValueError, KeyError, OSError...)
        raise ParameterError(f"shape {shape.name!r}: cannot read the mesh file {shape.mesh!r}: {exc}") from None
    scale = np.asarray(shape.size if len(shape.size) == 3 else (1.0, 1.0, 1.0), float)
    vertices = np.asarray(mesh.vertices, float) * scale
    faces = np.asarray(mesh.faces, np.int64)
    if len(faces) == 0:
        raise ParameterError(f"shape {shape.name!r}: the mesh file {shape.mesh!r} has no triangles")
    if len(faces) > max_faces:
        vertices, faces = _cluster(vertices, faces, max_faces)
    normals = np.asarray(trimesh.Trimesh(vertices, faces, process=False).vertex_normals, float)
    return vertices, normals, faces


def shape_mesh(shape, resolution=32, max_faces=MAX_MESH_FACES):
    """A shape as a triangle mesh in its link's frame (the shape's placement applied).

    Parameters
    ----------
    shape : Shape
    resolution : int
        Points around a round shape.
    max_faces : int
        A mesh file with more triangles is decimated by vertex clustering to at most this many.

    Returns
    -------
    vertices, normals : ndarray, shape (n, 3)
    faces : ndarray of int, shape (m, 3)

    Notes
    -----
    A plane (unbounded) is drawn as a 2 m square about its origin; the ground planes of
    contacts are drawn by the scene, sized to the motion.

    Raises
    ------
    ParameterError
        A mesh file trimesh cannot read, or without triangles (or trimesh missing).
    """
    s, kind = shape.size, shape.kind
    if kind == "sphere":
        P, N, F = _ellipsoid((s[0],) * 3, resolution)
    elif kind == "ellipsoid":
        P, N, F = _ellipsoid(s, resolution)
    elif kind == "cylinder":
        P, N, F = _cylinder(s[0], s[1], resolution)
    elif kind == "capsule":
        P, N, F = _capsule(s[0], s[1], resolution)
    elif kind == "box":
        P, N, F = _box(s)
    elif kind == "plane":
        P, N, F = _box((2.0, 2.0, 0.0))
        P, N, F = P[-4:], N[-4:], F[-2:] - (len(P) - 4)
    else:
        P, N, F = _mesh_file(shape, max_faces)
    R, p = shape.placement[:3, :3], shape.placement[:3, 3]
    return P @ R.T + p, N @ R.T, F
