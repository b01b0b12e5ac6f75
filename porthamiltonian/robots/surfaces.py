"""A robot's contact surfaces: collision spheres, ellipsoids and capsule ends as package surfaces,
its sphere feet, and an ellipsoid fitted to a mesh.

Only shapes with a smooth convex surface the contact kinematics handle become contacts: spheres,
ellipsoids and the two end spheres of a capsule. Boxes, cylinders, planes and meshes do not; a
user who wants one of those links to touch names a surface for it (`contact_surfaces`'s
`surfaces`), for instance the ellipsoid `fit_ellipsoid` encloses a foot mesh in.
"""

from __future__ import annotations

import numpy as np

from porthamiltonian.errors import GeometryError, ParameterError
from porthamiltonian.geometry import Ellipsoid, Sphere, Surface

__all__ = ["contact_surfaces", "feet", "fit_ellipsoid"]


def _translate(H, z):
    T = np.eye(4)
    T[2, 3] = z
    return H @ T


def _shape_surfaces(shape):
    """The (H_link_surface, Surface) pairs of one collision shape (empty for the other kinds)."""
    H = np.array(shape.placement)
    if shape.kind == "sphere":
        return [(H, Sphere(shape.size[0]))]
    if shape.kind == "ellipsoid":
        return [(H, Ellipsoid(*shape.size))]
    if shape.kind == "capsule":
        radius, length = shape.size
        return [(_translate(H, -0.5 * length), Sphere(radius)), (_translate(H, 0.5 * length), Sphere(radius))]
    return []


def contact_surfaces(description, surfaces=None):
    """The contact surfaces of each link, in the link frame.

    Parameters
    ----------
    description : RobotDescription
    surfaces : dict, optional
        ``{link name: Surface, (H_link_surface, Surface) or a list of them}``: surfaces the user
        names for a link (a foot whose collision shape is a mesh), added to the link's own.
        A bare Surface is placed at the link frame.

    Returns
    -------
    dict
        ``{link name: [(H_link_surface, Surface), ...]}`` for the links that have any, in the
        description's link order: each collision sphere (``Sphere``), ellipsoid
        (``Ellipsoid``) and the two end spheres of each capsule (centres at ``-+ length / 2``
        along the capsule's z), then the user's. ``H_link_surface`` : ndarray, shape (4, 4).

    Raises
    ------
    ParameterError
        If `surfaces` names a link the robot does not have, or gives something that is not a
        Surface or an (H, Surface) pair.
    """
    surfaces = dict(surfaces or {})
    names = {l.name for l in description.links}
    unknown = sorted(set(surfaces) - names)
    if unknown:
        raise ParameterError(f"`surfaces` names links {unknown} that robot {description.name!r} does not have")
    out = {}
    for link in description.links:
        found = [pair for shape in link.collisions for pair in _shape_surfaces(shape)]
        extra = surfaces.get(link.name, [])
        if isinstance(extra, (Surface, tuple)):
            extra = [extra]
        for item in extra:
            found.append(_user_surface(item, link.name))
        if found:
            out[link.name] = found
    return out


def _user_surface(item, link):
    if isinstance(item, Surface):
        return np.eye(4), item
    if isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], Surface):
        H = np.asarray(item[0], dtype=float)
        if H.shape != (4, 4):
            raise ParameterError(f"`surfaces[{link!r}]`: the placement must have shape (4, 4), got {H.shape}")
        return H, item[1]
    raise ParameterError(f"`surfaces[{link!r}]` must be a Surface or an (H_link_surface, Surface) pair, got {item!r}")


def _zero_pose_frames(description):
    """Each link's frame in the root link's frame with every joint at zero (free joints at identity)."""
    frames = {}
    for j in description.joints:
        frames[j.child] = np.eye(4) if j.parent is None else frames[j.parent] @ j.placement
    return frames


def feet(description):
    """A robot's sphere feet: the lowest collision sphere of each leaf link that has one.

    A leaf link is one no joint hangs from. "Lowest" is along -z of the root link's frame
    with every joint at zero (the pose URDF files draw: a quadruped standing, legs straight or
    at their drawn angles), measured at the sphere's bottom (centre height minus radius); ties
    go to the first sphere in the file. Capsule end spheres count as spheres. A leaf link with
    no sphere (a camera, a mesh foot) has no foot: name a surface for it with
    `contact_surfaces` instead.

    Parameters
    ----------
    description : RobotDescription

    Returns
    -------
    dict
        ``{link name: (H_link_surface, Sphere)}`` in the description's link order.

    Examples
    --------
    >>> from porthamiltonian.robots import example, feet, load_urdf
    >>> sorted(feet(load_urdf(example("go1"), balance_inertia=True)))   # doctest: +SKIP
    ['FL_foot', 'FR_foot', 'RL_foot', 'RR_foot']
    """
    parents = {j.parent for j in description.joints}
    frames = _zero_pose_frames(description)
    out = {}
    for link, pairs in contact_surfaces(description).items():
        if link in parents:
            continue
        spheres = [(H, s) for H, s in pairs if isinstance(s, Sphere)]
        if spheres:
            out[link] = min(spheres, key=lambda pair: (frames[link] @ pair[0])[2, 3] - pair[1].radius)
    return out


def fit_ellipsoid(vertices, *, tol=1e-7, max_iterations=20_000):
    """The minimum-volume ellipsoid enclosing a set of points (a mesh's vertices).

    Parameters
    ----------
    vertices : array_like, shape (n, 3) [m]
        At least 4 points not on one plane.
    tol : float
        Stop when every point's distance ``M_i`` is within ``(d + 1)(1 + tol)`` and every
        supporting point's above ``(d + 1)(1 - tol)`` (Todd & Yildirim's optimality gap; the
        volume is then within a factor ``(1 + tol)^(3/2)`` of the minimum).
    max_iterations : int

    Returns
    -------
    H_link_surface : ndarray, shape (4, 4)
        The ellipsoid's frame: origin at its centre, axes along its principal axes (a proper
        rotation), in the vertices' frame.
    ellipsoid : Ellipsoid
        Semi-axes (a, b, c) [m], scaled so that every vertex lies inside or on it exactly.

    Raises
    ------
    ParameterError
        If `vertices` is not an (n, 3) array of finite numbers with n >= 4.
    GeometryError
        If the points lie on one plane (no ellipsoid of positive volume), or the iteration
        does not converge in `max_iterations`.

    Notes
    -----
    Minimum volume, not inertia-equivalent: the result encloses the mesh, so a foot never
    penetrates deeper than the ellipsoid says. Khachiyan's algorithm (Todd & Yildirim 2007,
    "On Khachiyan's algorithm for the computation of minimum-volume enclosing ellipsoids"):
    weights u on the points (the convex hull's vertices), lifted points ``Q = [P; 1]``,
    ``X = Q diag(u) Q^T``, distances ``M_i = q_i^T X^-1 q_i``; move weight to the farthest
    point or away from the nearest supporting one (Wolfe-Atwood away steps, linear convergence). The ellipsoid is
    ``(x - c)^T A (x - c) <= 1`` with ``c = P u``, ``A = (P diag(u) P^T - c c^T)^-1 / 3``.
    """
    P = np.asarray(vertices, dtype=float)
    if P.ndim != 2 or P.shape[1] != 3 or P.shape[0] < 4 or not np.all(np.isfinite(P)):
        raise ParameterError(f"`vertices` must be an (n, 3) array of finite numbers with n >= 4, got shape {P.shape}")
    P = np.unique(P, axis=0)
    centroid = P.mean(axis=0)
    spread = np.linalg.svd(P - centroid, compute_uv=False)
    if P.shape[0] < 4 or spread[2] <= 1e-12 * max(spread[0], 1e-300):
        raise GeometryError(f"`vertices` lie on one plane (singular values {spread.tolist()}): no enclosing ellipsoid of positive volume")
    from scipy.spatial import ConvexHull

    P = P[ConvexHull(P).vertices]  # only hull vertices can touch the ellipsoid
    n, d = P.shape[0], 3
    Q = np.vstack([(P - centroid).T, np.ones(n)])
    u = np.full(n, 1.0 / n)
    for _ in range(max_iterations):
        X = (Q * u) @ Q.T
        M = np.einsum("ij,ji->i", Q.T, np.linalg.solve(X, Q))
        j = int(np.argmax(M))
        support = np.flatnonzero(u > 0)
        k = int(support[np.argmin(M[support])])
        grow, shrink = M[j] / (d + 1) - 1, 1 - M[k] / (d + 1)
        if max(grow, shrink) <= tol:
            break
        if grow >= shrink:  # Khachiyan's step toward the farthest point
            step = (M[j] - d - 1) / ((d + 1) * (M[j] - 1))
            u = (1 - step) * u
            u[j] += step
        else:  # Todd-Yildirim's away step from the nearest supporting point
            step = min((d + 1 - M[k]) / ((d + 1) * (M[k] - 1)), u[k] / (1 - u[k]))
            u = (1 + step) * u
            u[k] -= step
    else:
        raise GeometryError(
            f"fit_ellipsoid: the iteration did not reach tol={tol} in {max_iterations} iterations (last gap {max(grow, shrink):.3g})"
        )
    c = (P - centroid).T @ u
    S = ((P - centroid).T * u) @ (P - centroid) - np.outer(c, c)
    A = np.linalg.inv(S) / d
    # scale so that every vertex is inside exactly (the iteration stops a hair short)
    r = P - centroid - c
    A = A / np.einsum("ij,jk,ik->i", r, A, r).max()
    eig, V = np.linalg.eigh(A)
    if np.linalg.det(V) < 0:
        V[:, 0] = -V[:, 0]
    H = np.eye(4)
    H[:3, :3], H[:3, 3] = V, centroid + c
    a, b, cc = 1.0 / np.sqrt(eig)
    return H, Ellipsoid(a, b, cc)
