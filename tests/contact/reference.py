"""Independent references for closest points: closed forms and brute-force searches.

Nothing here calls `porthamiltonian.geometry.closest` or `porthamiltonian.contact`; surfaces are
only evaluated (their derivatives are tested in tests/geometry). Each reference returns the
generalized contact points with the rule of `closest_points`: for two convex bodies the
maximum over directions of the separating-axis gap, otherwise the deepest (apart: closest)
point of body 2 relative to body 1.
"""

import math
from typing import NamedTuple

import numpy as np
from scipy.optimize import minimize, root

from porthamiltonian.geometry import BSplineSurface, Ellipsoid, Plane, Sphere, Torus
from porthamiltonian.lie import se3, so3


class Reference(NamedTuple):
    """Signed distance [m]; p1, n1 in frame 1; p2, n2 in frame 2; x = (u1, v1, u2, v2) in the
    charts asked for."""

    distance: float
    p1: np.ndarray
    n1: np.ndarray
    p2: np.ndarray
    n2: np.ndarray
    x: np.ndarray


# ------------------------------------------------------------------------- surfaces

def ellipsoids():
    return (Ellipsoid(1.0, 0.6, 0.4, center=(0.05, -0.02, 0.03)),
            Ellipsoid(0.5, 0.7, 0.3, center=(0.1, 0.0, -0.05)))


def ground():
    """A tilted, offset plane (normal out of the ground)."""
    return Plane((0.1, -0.2, 0.05), (0.1, 0.2, 1.0))


def torus():
    return Torus(1.0, 0.3)


def terrain():
    """Rational bicubic patch over [0, 1]^2 covering x, y in [-1.5, 1.5]: a gentle wavy graph
    (radii of curvature above 4 m), normal up."""
    rng = np.random.default_rng(11)
    n = 8
    s = np.linspace(0.0, 1.0, n)
    X, Y = np.meshgrid(3.0 * s - 1.5, 3.0 * s - 1.5, indexing="ij")
    Z = 0.12 * np.sin(1.1 * X) * np.cos(0.8 * Y) + 0.05 * X * Y
    knots = np.r_[np.zeros(4), np.linspace(0.0, 1.0, n - 2)[1:-1], np.ones(4)]
    W = rng.uniform(0.85, 1.2, (n, n))
    return BSplineSurface(knots, knots, 3, 3, np.stack((X, Y, Z), axis=-1), W)


def ball():
    return Sphere(0.3, center=(0.02, -0.01, 0.03))


# ------------------------------------------------------------- parameter inversion

def ellipsoid_params(E, p, chart):
    """Closed-form parameters of the point p (body frame) of ellipsoid E in `chart`."""
    s = (np.asarray(p) - E.center) / np.array(E.axes)
    s0, s1, s2 = s if chart == 0 else (s[1], s[2], s[0])
    return math.atan2(s1, s0), math.atan2(s2, math.hypot(s0, s1))


def plane_params(P, p):
    o, fu, fv = P.point(0.0, 0.0), P.frame(0.0, 0.0).f_u, P.frame(0.0, 0.0).f_v
    return float((p - o) @ fu), float((p - o) @ fv)


def unit(a):
    return a / np.linalg.norm(a)


# ------------------------------------------------------------ convex: separating axis

def _support(E, m):
    """Support point of ellipsoid E in direction m (body frame): c + A^2 m / |A m|."""
    A = np.array(E.axes)
    return E.center + A * A * m / np.linalg.norm(A * m)


def _angles_to_dir(a):
    return np.array((math.cos(a[1]) * math.cos(a[0]), math.cos(a[1]) * math.sin(a[0]),
                     math.sin(a[1])))


def ellipsoid_pair(E1, E2, H, charts=(0, 0)) -> Reference:
    """max over unit n of g(n) = n . (s2(-n) - s1(n)) (frame 1), closed-form supports."""
    R, d = H[:3, :3], H[:3, 3]

    def pair(n):
        p1 = _support(E1, n)
        p2 = _support(E2, -R.T @ n)
        return p1, p2, R @ p2 + d

    def g(a):
        n = _angles_to_dir(a)
        p1, _, c2 = pair(n)
        return n @ (c2 - p1)

    k = np.arange(2000) + 0.5
    z = 1.0 - 2.0 * k / 2000
    phi = math.pi * (3.0 - math.sqrt(5.0)) * k
    starts = np.stack((phi, np.arcsin(z)), axis=1)
    N = np.stack((np.cos(starts[:, 1]) * np.cos(phi), np.cos(starts[:, 1]) * np.sin(phi), z), 1)
    A1, A2 = np.array(E1.axes), np.array(E2.axes)
    M = -N @ R                                             # -R^T n, row-wise
    P1 = E1.center + A1 * A1 * N / np.linalg.norm(A1 * N, axis=1)[:, None]
    P2 = E2.center + A2 * A2 * M / np.linalg.norm(A2 * M, axis=1)[:, None]
    vals = np.einsum("ij,ij->i", N, P2 @ R.T + d - P1)
    best = None
    for i in np.argsort(vals)[-3:]:
        res = minimize(lambda a: -g(a), starts[i], method="BFGS", options={"gtol": 1e-12})
        if best is None or -res.fun > -best.fun:
            best = res
    # polish: the tangential part of c2 - p1 vanishes at the optimum
    n0 = _angles_to_dir(best.x)
    t1 = unit(np.cross(n0, (1.0, 0.0, 0.0) if abs(n0[0]) < 0.9 else (0.0, 1.0, 0.0)))
    t2 = np.cross(n0, t1)

    def dir_of(b):
        return unit(n0 + b[0] * t1 + b[1] * t2)

    def tangential(b):
        n = dir_of(b)
        p1, _, c2 = pair(n)
        e = c2 - p1
        return [e @ t1 - (e @ n) * (n @ t1), e @ t2 - (e @ n) * (n @ t2)]

    sol = root(tangential, np.zeros(2), method="hybr", options={"xtol": 1e-15})
    n = dir_of(sol.x)
    p1, p2, c2 = pair(n)
    n2 = -R.T @ n
    x = ellipsoid_params(E1, p1, charts[0]) + ellipsoid_params(E2, p2, charts[1])
    return Reference(float(n @ (c2 - p1)), p1, n, p2, n2, np.array(x))


# ------------------------------------------------------------------ closed forms

def plane_ellipsoid(P, E, H, charts=(0, 0)) -> Reference:
    """Lowest point of the ellipsoid along the plane normal, and its foot on the plane."""
    R, d = H[:3, :3], H[:3, 3]
    n = P.normal(0.0, 0.0)
    p2 = _support(E, -R.T @ n)
    c2 = R @ p2 + d
    distance = float(n @ (c2 - P.point(0.0, 0.0)))
    p1 = c2 - distance * n
    x = plane_params(P, p1) + ellipsoid_params(E, p2, charts[1])
    return Reference(distance, p1, n, p2, -R.T @ n, np.array(x))


def plane_torus(P, T, H) -> Reference:
    """Lowest point of the torus along the plane normal: on the centre circle at the angle
    opposite the in-plane part of the normal, then one tube radius further down."""
    R, d = H[:3, :3], H[:3, 3]
    n = P.normal(0.0, 0.0)
    m = R.T @ n                                   # plane normal in the torus frame
    rho = math.hypot(m[0], m[1])
    u = math.atan2(-m[1], -m[0])
    v = math.atan2(-m[2], rho)
    p2 = T.R * np.array((math.cos(u), math.sin(u), 0.0)) - T.r * m
    c2 = R @ p2 + d
    distance = float(n @ (c2 - P.point(0.0, 0.0)))
    p1 = c2 - distance * n
    x = plane_params(P, p1) + (u, v)
    return Reference(distance, p1, n, p2, -m, np.array(x))


# --------------------------------------------------------- brute force: patch + ball

class PatchProjector:
    """Brute-force projection onto a bounded one-chart patch: dense grid, then scipy."""

    def __init__(self, S, n=120):
        self.S = S
        grid = S.sample(n, n)
        self.uv = np.stack((grid.u.ravel(), grid.v.ravel()), axis=1)
        self.points = grid.points.reshape(-1, 3)
        dom = S.domain(0)
        self.bounds = list(zip(dom.lower.tolist(), dom.upper.tolist()))

    def project(self, c):
        S = self.S

        def fun(uv):
            D = S._derivatives(float(uv[0]), float(uv[1]), 1, 0)
            e = D[0, 0] - c
            return 0.5 * e @ e, np.array((D[1, 0] @ e, D[0, 1] @ e))

        order = np.argsort(np.sum((self.points - c) ** 2, axis=1))[:3]
        best = min((minimize(fun, self.uv[i], jac=True, method="L-BFGS-B", bounds=self.bounds,
                             options={"ftol": 1e-15, "gtol": 1e-13}) for i in order),
                   key=lambda res: res.fun)

        def grad(uv):
            D = S._derivatives(float(uv[0]), float(uv[1]), 2, 0)
            e = D[0, 0] - c
            g = [D[1, 0] @ e, D[0, 1] @ e]
            J = [[D[1, 0] @ D[1, 0] + D[2, 0] @ e, D[1, 0] @ D[0, 1] + D[1, 1] @ e],
                 [D[1, 0] @ D[0, 1] + D[1, 1] @ e, D[0, 1] @ D[0, 1] + D[0, 2] @ e]]
            return g, J

        sol = root(grad, best.x, jac=True, method="hybr", options={"xtol": 1e-15})
        return sol.x


def patch_ball(projector, B, H, charts=(0, 0)) -> Reference:
    """Deepest point of a ball over a patch: the ball point nearest to the patch is on the
    segment from the centre to its projection."""
    S = projector.S
    R, d = H[:3, :3], H[:3, 3]
    c = R @ B.center + d
    u, v = projector.project(c)
    p1 = S.point(u, v)
    n1 = S.normal(u, v)
    distance = float(n1 @ (c - p1)) - B.radius
    p2 = B.center - B.radius * (R.T @ n1)
    x = (u, v) + ellipsoid_params(B, p2, charts[1])
    return Reference(distance, p1, n1, p2, -R.T @ n1, np.array(x))


# ------------------------------------------------------------------ random poses

def random_rotation(rng):
    return so3.exp(rng.normal(size=3) * 1.5)


def pose(R, d):
    return se3.make(np.asarray(R, dtype=float), np.asarray(d, dtype=float))


def tilted_rotation(rng, lo_deg, hi_deg):
    """A rotation whose z axis makes an angle in [lo, hi] degrees with +z."""
    tilt = math.radians(rng.uniform(lo_deg, hi_deg))
    axis = np.array((math.cos(a := rng.uniform(0, 2 * math.pi)), math.sin(a), 0.0))
    return so3.exp(tilt * axis) @ so3.exp(np.array((0.0, 0.0, rng.uniform(-math.pi, math.pi))))


# ------------------------------------------------------------------ pose sets

def ellipsoid_cases(n, seed, *, deepest=-0.2):
    """n poses of the ellipsoid pair, alternately apart and penetrating (translated along the
    contact normal from a random pose); returns (H, Reference) pairs with Delta > deepest."""
    E1, E2 = ellipsoids()
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        H = pose(random_rotation(rng), unit(rng.normal(size=3)) * rng.uniform(0.5, 1.9))
        r = ellipsoid_pair(E1, E2, H)
        H[:3, 3] += (_target(rng, len(out)) - r.distance) * r.n1
        r = ellipsoid_pair(E1, E2, H)
        if r.distance > deepest:
            out.append((H, r))
    return out


def _target(rng, k):
    """Alternately a penetration (down to 0.12 m) and a gap (up to 0.4 m)."""
    return -rng.uniform(0.0, 0.12) if k % 2 else rng.uniform(0.0, 0.4)


def _lift(P, R, p2_world_offset, target, rng):
    """Translation placing body 2 (rotation R, reference point R p2) so that its lowest point
    is at signed height `target` above the plane P, shifted randomly along the plane."""
    n = P.normal(0.0, 0.0)
    f = P.frame(0.0, 0.0)
    along = rng.uniform(-1.0, 1.0) * f.f_u + rng.uniform(-1.0, 1.0) * f.f_v
    return P.point(0.0, 0.0) + along + (target - n @ p2_world_offset) * n


def plane_ellipsoid_cases(n, seed):
    P, E = ground(), ellipsoids()[0]
    rng = np.random.default_rng(seed)
    out = []
    for k in range(n):
        R = random_rotation(rng)
        p2 = _support(E, -R.T @ P.normal(0.0, 0.0))
        H = pose(R, _lift(P, R, R @ p2, _target(rng, k), rng))
        out.append((H, plane_ellipsoid(P, E, H)))
    return out


def plane_torus_cases(n, seed):
    P, T = ground(), torus()
    rng = np.random.default_rng(seed)
    out = []
    for k in range(n):
        R = P.frame(0.0, 0.0)
        R = np.column_stack((R.f_u, R.f_v, R.normal)) @ tilted_rotation(rng, 15.0, 75.0)
        H0 = pose(R, np.zeros(3))
        low = plane_torus(P, T, H0).p2
        H = pose(R, _lift(P, R, R @ low, _target(rng, k), rng))
        out.append((H, plane_torus(P, T, H)))
    return out


def patch_ball_cases(n, seed, projector):
    S, B = projector.S, ball()
    rng = np.random.default_rng(seed)
    out = []
    for k in range(n):
        u, v = rng.uniform(0.2, 0.8, 2)
        c = S.point(u, v) + (B.radius + _target(rng, k)) * S.normal(u, v)
        R = random_rotation(rng)
        H = pose(R, c - R @ B.center)
        out.append((H, patch_ball(projector, B, H)))
    return out
