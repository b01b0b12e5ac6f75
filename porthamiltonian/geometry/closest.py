"""Closest points between two posed surfaces, and point-to-surface projection.

Two bodies carry surfaces ``S1`` (frame 1) and ``S2`` (frame 2); ``H_12 = (R, d)`` is the pose
of body 2 in body 1. The generalized contact points (docs/math.md sec. 5, Duindam & Stramigioli,
*Modeling the kinematics and dynamics of compliant contact*, 2003, eqs. 6-7) are
parameters ``x = (u1, v1, u2, v2)`` in charts ``(chart1, chart2)`` that solve the four
stationarity equations::

    f1_a . (c2 - p1) = 0      a = u, v     (separation vector normal to S1)
    f1_a . (R n2)    = 0      a = u, v     (normals parallel; the antiparallel root is kept)

with ``c2 = R p2 + d`` and the signed distance ``Delta = n1 . (c2 - p1)``::

        body 2     p2 (c2 in frame 1)
      ----.-------.--------             Delta > 0: apart
              ^   | n2 = -R^T n1
              |   v
              |  Delta
        ------.----------------  S1
              p1  n1 ^  (outward)
            body 1

A local Newton iteration on ``x`` (analytic Jacobian from second derivatives, backtracking
on a scaled residual, chart switching near singular sets) refines a start that comes either
from the caller (warm start, the hot path inside a simulation) or from a global search over
surface samples (`closest_points` without ``x0``). `check_global` compares a tracked local
solution with a fresh global search, so that a tracker learns when the contact jumps
(Kry & Pai, *Continuous contact simulation for smooth surfaces*, 2003, sec. 1; Tasora & Righettini,
*Sliding contact between freeform surfaces*, 2003, sec. 4.1).

The global search samples each bounded surface once (about 2400 points per two-chart
surface, with normals and a KD-tree) and keeps the samples while the surface object lives
(a weak-keyed cache: surfaces are immutable, so the samples never go stale). Warm-started
calls never touch the samples. `check_pose` is the cheap pose validation shared with
`porthamiltonian.contact`.
"""

from __future__ import annotations

import math
import weakref
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .._validate import as_array, as_finite_float
from ..errors import GeometryError, ParameterError
from ..kernels import closest as _kclosest
from . import gauss
from .gauss import _cross, _dot
from .plane import Plane
from .surface import REGULARITY_TOL, Surface

__all__ = [
    "ClosestPoints",
    "GlobalCheck",
    "PointProjection",
    "check_global",
    "closest_points",
    "closest_points_world",
    "project_point",
]

DEFAULT_TOL = 1e-11
_EPS = float(np.finfo(float).eps)
"""Default convergence tolerance: tangential gap ``<= tol * scale`` [m] (not below its
round-off, `porthamiltonian.kernels.closest.gap_tolerance`) and normal misalignment ``<= tol``
[rad], ``scale`` being the size of the smaller finite surface."""

_ARMIJO = 1e-4
_MAX_HALVINGS = 30
_STEP_FRACTION = 0.25      # a Newton step moves a point by at most this fraction of the scale
_ALIGN_MIN = 0.5           # global candidates need normals antiparallel within 60 degrees
_N_STARTS = 4              # Newton runs from this many distinct global candidates,
_MAX_STARTS = 12           # or up to this many while none has reached a valid optimum
_SAMPLES = (48, 25)        # global-search grid per chart (u periodic over 2 pi, v over pi)
_NETWORK_SAMPLES = 9       # ... per patch of a patch network (in u and v)
_N_DIRECTIONS = 400        # directions of the separating-axis search for convex bodies


# --------------------------------------------------------------------------- results

@dataclass(frozen=True, eq=False)
class ClosestPoints:
    """Generalized contact points of two posed surfaces (docs/math.md sec. 5).

    Attributes
    ----------
    x : ndarray, shape (4,)
        Parameters ``(u1, v1, u2, v2)`` [parameter units], in `charts`.
    charts : tuple of int
        ``(chart1, chart2)``: the charts of ``S1`` and ``S2`` the parameters refer to.
    p1, n1 : ndarray, shape (3,)
        Point of ``S1`` [m] and its outward unit normal, in frame 1.
    p2, n2 : ndarray, shape (3,)
        Point of ``S2`` [m] and its outward unit normal, in frame 2.
    distance : float
        Signed distance ``Delta = n1 . (R p2 + d - p1)`` [m]; negative means penetration.
    gap_residual : float
        Largest tangential component of the separation ``R p2 + d - p1`` [m].
    normal_residual : float
        Largest tangential component of ``R n2`` (sine of the misalignment) [-].
    iterations : int
        Newton iterations of the final refinement.
    curvature_margin : float
        Smallest real part of the eigenvalues [1/m] of the 2x2 contact matrix
        ``M = L1 + R L2 R^T (I + Delta L1)`` of docs/math.md sec. 5 on the tangent plane. Zero at
        conforming contact or ``Delta = Delta_min`` (singular kinematics), negative at a
        saddle or wrong-side stationary pair, positive at a regular contact pair.
    searched_globally : bool
        True when the start came from a global search; a warm-started result is only known
        to be a local solution (use `check_global`).

    Notes
    -----
    Why the margin measures second-order optimality: with ``S = L1 (I + Delta L1)^-1 +
    R L2 R^T`` (symmetric), ``M = S (I + Delta L1)``, so when ``I + Delta L1 > 0`` the
    eigenvalues of M have the signs of those of S, and ``S > 0`` says that ``p2`` is a strict
    local minimum along S2 of the signed distance to S1. For convex bodies
    ``M = K2 (rho1 + rho2 + Delta I) K1`` with the radii of curvature ``rho = L^-1``, and
    ``rho1 + rho2 + Delta I > 0`` is the condition for a local maximum of the
    separating-axis gap (`closest_points`, Notes).

    Examples
    --------
    >>> import numpy as np
    >>> from porthamiltonian.geometry import Plane, Sphere
    >>> H = np.eye(4); H[2, 3] = 0.4                      # sphere sunk 0.1 into the plane
    >>> cp = closest_points(Plane(), Sphere(0.5), H)
    >>> round(cp.distance, 12), round(cp.curvature_margin, 12), cp.may_be_local
    (-0.1, 2.0, False)
    """

    x: np.ndarray
    charts: tuple[int, int]
    p1: np.ndarray
    n1: np.ndarray
    p2: np.ndarray
    n2: np.ndarray
    distance: float
    gap_residual: float
    normal_residual: float
    iterations: int
    curvature_margin: float
    searched_globally: bool

    @property
    def may_be_local(self) -> bool:
        """True unless the result came from a global search and is a strict local optimum."""
        return not (self.searched_globally and self.curvature_margin > 0.0)


class PointProjection(NamedTuple):
    """Nearest point of a surface to a point.

    ``u, v, chart``: its parameters; ``point`` and ``normal`` (shape (3,)) in the surface's
    frame; ``distance``: ``|p - point|`` [m] with the sign of ``n . (p - point)`` (positive on
    the side the normal points to); ``residual``: tangential part of ``p - point`` [m], zero
    unless ``on_boundary``; ``iterations``: Newton iterations; ``on_boundary``: the nearest
    point lies on the boundary of a bounded patch (not a foot of the normal).
    """

    u: float
    v: float
    chart: int
    point: np.ndarray
    normal: np.ndarray
    distance: float
    residual: float
    iterations: int
    on_boundary: bool


class GlobalCheck(NamedTuple):
    """Outcome of `check_global`: ``is_global``, the ``local`` and ``global_solution``
    (`ClosestPoints`), ``distance_gap = local.distance - global_solution.distance`` [m] and
    ``point_gap``, the larger displacement of ``p1`` (frame 1) or ``p2`` (frame 2) [m]."""

    is_global: bool
    local: ClosestPoints
    global_solution: ClosestPoints
    distance_gap: float
    point_gap: float


# ------------------------------------------------------------------ validation helpers

def _check_surface(S, name):
    if not isinstance(S, Surface):
        hint = ("; a point has no surface to pair: `point_contact(surface, point, H_12)` gives "
                "its contact with a surface" if type(S).__name__ == "Point" else "")
        raise ParameterError(f"`{name}` must be a Surface, got {type(S).__name__}{hint}")
    return S


def _check_charts(charts, S1, S2):
    try:
        c1, c2 = charts
    except (TypeError, ValueError):
        raise ParameterError(f"`charts` must be a pair of chart indices, got {charts!r}") from None
    return S1._check_chart(c1), S2._check_chart(c2)


def _check_parameters(x, charts, S1, S2):
    """Validated ``x`` (wrapped into the domains) and charts; GeometryError outside."""
    x = as_array(x, "x", (4,)).tolist()
    c1, c2 = _check_charts(charts, S1, S2)
    out = []
    for S, chart, name, (u, v) in ((S1, c1, "S1", x[:2]), (S2, c2, "S2", x[2:])):
        dom = S._domains[chart]
        u, v = dom.wrap(u, v)
        if not dom.contains(u, v):
            raise GeometryError(f"parameters (u, v) = ({u!r}, {v!r}) of {name} = {S!r} are "
                                f"outside the domain {dom!r} of chart {chart}")
        out += [u, v]
    return out, (c1, c2)


def check_pose(H, name: str):
    """``(R, d)`` of a rigid motion as nested lists, validated cheaply for the hot path.

    Raises
    ------
    ParameterError
        If `H` is not a finite (4, 4) array with last row (0, 0, 0, 1) and an orthonormal
        rotation block with det +1 (to 1e-9).
    """
    # a Python-float check: `lie.se3.as_se3` costs ten times more and this runs per step
    try:
        arr = np.asarray(H, dtype=float)
    except (TypeError, ValueError):
        raise ParameterError(f"`{name}` must be a numeric (4, 4) array, got {H!r}") from None
    if arr.shape != (4, 4):
        raise ParameterError(f"`{name}` must have shape (4, 4), got {arr.shape}")
    rows = arr.tolist()
    R = [row[:3] for row in rows[:3]]
    d = [row[3] for row in rows[:3]]
    flat = [t for row in rows for t in row]
    if not all(map(math.isfinite, flat)):
        raise ParameterError(f"`{name}` must be finite, got {arr.tolist()}")
    if rows[3] != [0.0, 0.0, 0.0, 1.0]:
        raise ParameterError(f"`{name}` must have last row (0, 0, 0, 1), got {rows[3]}")
    cols = list(zip(*R))
    err = max(abs(_dot(cols[i], cols[j]) - (i == j)) for i in range(3) for j in range(i, 3))
    if err > 1e-9 or _dot(_cross(cols[0], cols[1]), cols[2]) <= 0.0:
        raise ParameterError(f"`{name}` must be a rigid motion: its rotation block has "
                             f"orthogonality error {err:.3g} or det <= 0")
    return R, d


def _scale(S) -> float:
    """Diagonal of the bounding box [m], or inf for an unbounded surface."""
    return _cache(S).scale


def _pair_scale(S1, S2) -> float:
    s = min(_scale(S1), _scale(S2))
    if not math.isfinite(s):
        # two unbounded surfaces: only planes are unbounded here, and two planes conform
        raise GeometryError(f"closest points of two unbounded surfaces {S1!r} and {S2!r} are "
                            f"not isolated (conforming contact)")
    return s


# --------------------------------------------------------------- per-surface samples

class _Cloud:
    """Samples of a surface for the global search: points, normals, parameters, charts and a
    KD-tree; built once per surface (kept while the surface lives)."""

    def __init__(self, S: Surface):
        box = S.bounding_box()
        self.scale = float(np.linalg.norm(box[1] - box[0])) if np.all(np.isfinite(box)) \
            else math.inf
        self.bounded = all(S.domain(c).is_bounded for c in range(S.n_charts))
        if not self.bounded:
            return
        pts, nrm, prm, chs = [], [], [], []
        for chart in range(S.n_charts):
            dom = S.domain(chart)
            n_u = _SAMPLES[0] if dom.periodic[0] else _SAMPLES[1] + 8
            n_v = _SAMPLES[0] if dom.periodic[1] else _SAMPLES[1] + 8
            if S.is_network:      # a patch is a small part of its surface
                n_u = n_v = _NETWORK_SAMPLES
            grid = S._grid(n_u, n_v, chart)
            for u, v in zip(grid[0].ravel().tolist(), grid[1].ravel().tolist()):
                D = S._derivatives(u, v, 1, chart)
                if S._regularity(D, chart) < 0.05:
                    continue
                pts.append(D[0, 0])
                nrm.append(gauss.unit_normal(D))
                prm.append((u, v))
                chs.append(chart)
        # imported here, as in Surface._bounding_box, to keep `import porthamiltonian` light
        from scipy.spatial import cKDTree

        self.points = np.array(pts)
        self.normals = np.array(nrm)
        self.params = np.array(prm)
        self.charts = np.array(chs, dtype=int)
        self.tree = cKDTree(self.points)


_CLOUDS: "weakref.WeakKeyDictionary[Surface, _Cloud]" = weakref.WeakKeyDictionary()


def _cache(S: Surface) -> _Cloud:
    cloud = _CLOUDS.get(S)
    if cloud is None:
        cloud = _CLOUDS[S] = _Cloud(S)
    return cloud


def _affine_frame(S: Surface):
    """Origin, ``f_u``, ``f_v`` and unit normal of an unbounded plane (exact projection)."""
    D = S._derivatives(0.0, 0.0, 1, 0)
    return D[0, 0], D[1, 0], D[0, 1], gauss.unit_normal(D)


def _project_on_plane(S: Surface, X: np.ndarray):
    """Parameters, feet and normal of the projections of points X (n, 3) onto plane S."""
    o, fu, fv, n = _affine_frame(S)
    G = np.array(((fu @ fu, fu @ fv), (fu @ fv, fv @ fv)))
    uv = np.linalg.solve(G, np.stack(((X - o) @ fu, (X - o) @ fv)))
    feet = o + uv[0][:, None] * fu + uv[1][:, None] * fv
    return uv.T, feet, n


# ------------------------------------------------------------------ the local solver

class _State:
    """Everything the Newton iteration needs at one iterate (Python floats, frame 1)."""

    __slots__ = ("D1", "D2", "r", "J", "w", "c2", "Rn2", "e")


def _rotate(R, a):
    return (R[0][0] * a[0] + R[0][1] * a[1] + R[0][2] * a[2],
            R[1][0] * a[0] + R[1][1] * a[1] + R[1][2] * a[2],
            R[2][0] * a[0] + R[2][1] * a[1] + R[2][2] * a[2])


def _evaluate(S1, S2, R, d, x, charts) -> _State | None:
    """Residual, Jacobian and row weights at ``x``; None where S2 is singular."""
    D1 = S1._derivatives(x[0], x[1], 2, charts[0]).tolist()
    D2 = S2._derivatives(x[2], x[3], 2, charts[1]).tolist()
    p1, f1u, f1v = D1[0][0], D1[1][0], D1[0][1]
    f1uu, f1uv, f1vv = D1[2][0], D1[1][1], D1[0][2]
    p2, f2u, f2v = D2[0][0], D2[1][0], D2[0][1]
    f2uu, f2uv, f2vv = D2[2][0], D2[1][1], D2[0][2]
    m = _cross(f2u, f2v)
    s = math.sqrt(_dot(m, m))
    l1u, l1v = math.sqrt(_dot(f1u, f1u)), math.sqrt(_dot(f1v, f1v))
    if not (s > 0.0 and l1u > 0.0 and l1v > 0.0):
        return None
    n2 = (m[0] / s, m[1] / s, m[2] / s)
    mu = gauss._lin2(1.0, _cross(f2uu, f2v), 1.0, _cross(f2u, f2uv))
    mv = gauss._lin2(1.0, _cross(f2uv, f2v), 1.0, _cross(f2u, f2vv))
    n2u = gauss._lin2(1.0 / s, mu, -_dot(n2, mu) / s, n2)
    n2v = gauss._lin2(1.0 / s, mv, -_dot(n2, mv) / s, n2)
    Rp2 = _rotate(R, p2)
    c2 = (Rp2[0] + d[0], Rp2[1] + d[1], Rp2[2] + d[2])
    Rf2u, Rf2v = _rotate(R, f2u), _rotate(R, f2v)
    Rn2, Rn2u, Rn2v = _rotate(R, n2), _rotate(R, n2u), _rotate(R, n2v)
    e = (c2[0] - p1[0], c2[1] - p1[1], c2[2] - p1[2])
    st = _State()
    st.D1, st.D2, st.c2, st.Rn2, st.e = D1, D2, c2, Rn2, e
    st.r = (_dot(f1u, e), _dot(f1v, e), _dot(f1u, Rn2), _dot(f1v, Rn2))
    st.J = (
        (_dot(f1uu, e) - _dot(f1u, f1u), _dot(f1uv, e) - _dot(f1u, f1v),
         _dot(f1u, Rf2u), _dot(f1u, Rf2v)),
        (_dot(f1uv, e) - _dot(f1v, f1u), _dot(f1vv, e) - _dot(f1v, f1v),
         _dot(f1v, Rf2u), _dot(f1v, Rf2v)),
        (_dot(f1uu, Rn2), _dot(f1uv, Rn2), _dot(f1u, Rn2u), _dot(f1u, Rn2v)),
        (_dot(f1uv, Rn2), _dot(f1vv, Rn2), _dot(f1v, Rn2u), _dot(f1v, Rn2v)),
    )
    st.w = (1.0 / l1u, 1.0 / l1v)
    return st


def _errors(st: _State) -> tuple[float, float]:
    """Tangential gap [m] and normal misalignment [-] (unit-tangent components)."""
    r, w = st.r, st.w
    return (max(abs(r[0] * w[0]), abs(r[1] * w[1])), max(abs(r[2] * w[0]), abs(r[3] * w[1])))


def _merit(st: _State, scale: float, w) -> float:
    r = st.r
    return (((r[0] * w[0]) ** 2 + (r[1] * w[1]) ** 2) / (scale * scale)
            + (r[2] * w[0]) ** 2 + (r[3] * w[1]) ** 2)


def _place(S, u, v, chart):
    """Wrap periodic, clamp bounded parameters into the domain; True if clamped."""
    dom = S._domains[chart]
    u, v = dom.wrap(u, v)
    cu = min(max(u, float(dom.lower[0])), float(dom.upper[0]))
    cv = min(max(v, float(dom.lower[1])), float(dom.upper[1]))
    return cu, cv, (cu != u or cv != v)


class _Outcome(NamedTuple):
    """One run of the generic Newton loop (surfaces without a compiled evaluator)."""

    x: list
    charts: tuple
    state: _State | None
    iterations: int
    converged: bool
    clamped: bool


class _Local(NamedTuple):
    """A local refinement, whichever loop ran it: the iterate, its derivatives (order 2,
    ndarray or nested lists; None where a surface is singular) and what `_finish` reports."""

    x: list
    charts: tuple
    iterations: int
    converged: bool
    clamped: bool
    D1: object
    D2: object
    gap: float
    ang: float
    n1: tuple
    n2: tuple
    distance: float
    S1: tuple              # tangent curvatures (s00, s01, s11) of S1 [1/m]
    K2: tuple              # and of S2 rotated into frame 1
    valid: bool            # converged at regular points with antiparallel normals


def _solve4(J, r):
    """Solve ``J dx = -r`` (4x4, Python floats) by Gaussian elimination with partial
    pivoting; None if singular."""
    A = [[J[i][0], J[i][1], J[i][2], J[i][3], -r[i]] for i in range(4)]
    for k in range(4):
        p, big = k, abs(A[k][k])
        for i in range(k + 1, 4):
            if abs(A[i][k]) > big:
                p, big = i, abs(A[i][k])
        if big == 0.0:
            return None
        if p != k:
            A[k], A[p] = A[p], A[k]
        Ak = A[k]
        inv = 1.0 / Ak[k]
        for i in range(k + 1, 4):
            Ai = A[i]
            f = Ai[k] * inv
            for j in range(k + 1, 5):
                Ai[j] -= f * Ak[j]
    x3 = A[3][4] / A[3][3]
    x2 = (A[2][4] - A[2][3] * x3) / A[2][2]
    x1 = (A[1][4] - A[1][2] * x2 - A[1][3] * x3) / A[1][1]
    x0 = (A[0][4] - A[0][1] * x1 - A[0][2] * x2 - A[0][3] * x3) / A[0][0]
    return [x0, x1, x2, x3]


def _newton(S1, S2, R, d, x, charts, scale, tol, max_iter) -> _Outcome:
    x = list(x)
    charts = tuple(charts)
    clamped = False
    st = _evaluate(S1, S2, R, d, x, charts)
    for it in range(max_iter + 1):
        if st is None:
            return _Outcome(x, charts, None, it, False, clamped)
        gap, ang = _errors(st)
        size = (math.sqrt(_dot(st.D1[0][0], st.D1[0][0])) + math.sqrt(_dot(st.D2[0][0], st.D2[0][0]))
                + math.sqrt(_dot(d, d)))
        if gap <= _kclosest.gap_tolerance(tol, scale, size) and ang <= tol:
            return _Outcome(x, charts, st, it, True, clamped)
        if it == max_iter:
            break
        dx = _solve4(st.J, st.r)
        if dx is None or not all(map(math.isfinite, dx)):
            dx = _kclosest._damped_step(np.array(st.J), np.array(st.r)).tolist()
        # keep each point's move below a fraction of its surface's extent (a trust region
        # in space: `porthamiltonian.kernels.closest.step_limit`)
        D1, D2 = st.D1, st.D2
        m1 = gauss._lin2(dx[0], D1[1][0], dx[1], D1[0][1])
        m2 = gauss._lin2(dx[2], D2[1][0], dx[3], D2[0][1])
        lam = 1.0
        for m, S in ((m1, S1), (m2, S2)):
            move, limit = math.sqrt(_dot(m, m)), _kclosest.step_limit(S._kernel_spec[0], scale)
            if move * lam > limit:
                lam = limit / move
        w = st.w
        phi0 = _merit(st, scale, w)
        for _ in range(_MAX_HALVINGS):
            u1, v1, cl1 = _place(S1, x[0] + lam * dx[0], x[1] + lam * dx[1], charts[0])
            u2, v2, cl2 = _place(S2, x[2] + lam * dx[2], x[3] + lam * dx[3], charts[1])
            trial = [u1, v1, u2, v2]
            st_try = _evaluate(S1, S2, R, d, trial, charts)
            if st_try is not None and _merit(st_try, scale, w) <= (1.0 - _ARMIJO * lam) * phi0:
                break
            lam *= 0.5
        else:
            return _Outcome(x, charts, st, it, False, clamped)
        clamped = cl1 or cl2
        x = trial
        c1, x[0], x[1] = S1._best_chart(x[0], x[1], charts[0])
        c2, x[2], x[3] = S2._best_chart(x[2], x[3], charts[1])
        if (c1, c2) != charts:
            charts = (c1, c2)
            st = _evaluate(S1, S2, R, d, x, charts)
        else:
            st = st_try
    return _Outcome(x, charts, st, max_iter, False, clamped)


def _is_optimum(S1, K2, distance: float, convex: bool) -> bool:
    """Second-order condition of the selection rule at a stationary pair.

    Convex bodies (maximum of the separating-axis gap g(n)): the radii of curvature
    ``rho = L^-1`` satisfy ``rho1 + rho2 + Delta I > 0``, from
    ``d^2 g / d eps^2 = -Delta - t . (rho1 + rho2) t`` along ``n(eps) = n cos eps + t sin eps``.
    Other pairs (minimum along S2 of the signed distance to S1): ``I + Delta S1 > 0`` (not
    beyond a focal point) and ``S1 (I + Delta S1)^-1 + K2 > 0``.
    """
    S1 = np.array(((S1[0], S1[1]), (S1[1], S1[2])))
    K2 = np.array(((K2[0], K2[1]), (K2[1], K2[2])))
    A = np.eye(2) + distance * S1
    if convex:
        try:
            N = np.linalg.inv(S1) + np.linalg.inv(K2) + distance * np.eye(2)
        except np.linalg.LinAlgError:
            return False
        return bool(np.linalg.eigvalsh(0.5 * (N + N.T))[0] > 0.0)
    if np.linalg.eigvalsh(A)[0] <= 0.0:
        return False
    S = S1 @ np.linalg.inv(A) + K2
    return bool(np.linalg.eigvalsh(0.5 * (S + S.T))[0] > 0.0)


def _failed(x, charts, iterations, clamped, D1=None, D2=None, gap=math.nan, ang=math.nan) -> _Local:
    nan3 = (math.nan,) * 3
    return _Local(list(x), tuple(charts), iterations, False, clamped, D1, D2, gap, ang, nan3, nan3, math.nan,
                  nan3, nan3, False)


def _generic_local(S1, S2, R, d, x, charts, scale, tol, max_iter) -> _Local:
    out = _newton(S1, S2, R, d, x, charts, scale, tol, max_iter)
    st = out.state
    if st is None:
        return _failed(out.x, out.charts, out.iterations, out.clamped)
    gap, ang = _errors(st)
    if not (_regular(S1, st.D1, out.charts[0]) and _regular(S2, st.D2, out.charts[1])):
        return _failed(out.x, out.charts, out.iterations, out.clamped, st.D1, st.D2, gap, ang)
    n1 = gauss._normal_floats(st.D1[1][0], st.D1[0][1])[0]
    n2 = gauss._normal_floats(st.D2[1][0], st.D2[0][1])[0]
    S1c, K2 = _kclosest.tangent_curvatures(np.array(st.D1), np.array(st.D2), np.array(R, dtype=float))
    valid = out.converged and _dot(_cross(st.D1[1][0], st.D1[0][1]), st.Rn2) < 0.0
    return _Local(out.x, out.charts, out.iterations, out.converged, out.clamped, st.D1, st.D2, gap, ang,
                  n1, n2, _dot(n1, st.e), S1c, K2, valid)


def _compiled_local(S1, S2, R, d, x, charts, scale, tol, max_iter) -> _Local:
    (F1, I1), (F2, I2) = S1._kernel_spec, S2._kernel_spec
    R = np.asarray(R, dtype=float)
    (x, c1, c2, it, converged, clamped, ok, D1, D2, r, w, Rn2, e) = _kclosest.newton(
        F1, I1, F2, I2, R, np.asarray(d, dtype=float), np.asarray(x, dtype=float),
        int(charts[0]), int(charts[1]), float(scale), float(tol), int(max_iter))
    if not ok:
        return _failed(x.tolist(), (c1, c2), it, clamped)
    gap, ang = _kclosest.errors(r, w)
    n1, n2, distance, _, valid = _kclosest.finish(F1, F2, D1, D2, R, Rn2, e, c1, c2, REGULARITY_TOL)
    S1c, K2 = _kclosest.tangent_curvatures(D1, D2, R) if valid else ((math.nan,) * 3, (math.nan,) * 3)
    return _Local(x.tolist(), (c1, c2), it, converged, clamped, D1, D2, gap, ang, n1, n2, distance,
                  S1c, K2, converged and valid)


def _local(S1, S2, R, d, x, charts, scale, tol, max_iter) -> _Local:
    """Newton refinement from ``x`` in `charts` (already moved to the best charts).

    Surfaces with a compiled evaluator (``_kernel_spec``: every built-in kind) run the
    compiled loop of `porthamiltonian.kernels.closest`; others (`SymbolicSurface` and user
    subclasses of `Surface`) the generic loop `_newton`, which evaluates them through their
    Python ``_derivatives``.
    """
    if S1._is_compiled and S2._is_compiled:
        return _compiled_local(S1, S2, R, d, x, charts, scale, tol, max_iter)
    return _generic_local(S1, S2, R, d, x, charts, scale, tol, max_iter)


def _finish(local: _Local, searched_globally: bool) -> ClosestPoints:
    return ClosestPoints(
        x=np.array(local.x), charts=tuple(int(c) for c in local.charts), p1=np.array(local.D1[0][0]),
        n1=np.array(local.n1), p2=np.array(local.D2[0][0]), n2=np.array(local.n2),
        distance=float(local.distance), gap_residual=float(local.gap), normal_residual=float(local.ang),
        iterations=int(local.iterations), curvature_margin=_kclosest.curvature_margin(local.S1, local.K2, local.distance),
        searched_globally=searched_globally)


def _regular(S, D, chart) -> bool:
    """``S._regularity(D) >= REGULARITY_TOL`` on nested-list derivatives."""
    su, sv = S._reference_speeds[chart].tolist()
    m = _cross(D[1][0], D[0][1])
    return math.sqrt(_dot(m, m)) >= REGULARITY_TOL * su * sv


def _describe(S1, S2, local: _Local) -> str:
    x = ", ".join(f"{float(t):.6g}" for t in local.x)
    if local.D1 is None:
        res = "S2 is singular at the iterate"
    else:
        res = f"tangential gap {local.gap:.3g} m, normal misalignment {local.ang:.3g}"
    where = " (stuck on the boundary of a patch: edge contact is not supported)" \
        if local.clamped else ""
    return (f"S1 = {S1!r}, S2 = {S2!r}: after {local.iterations} iterations {res}; iterate "
            f"(u1, v1, u2, v2) = ({x}) in charts {tuple(local.charts)}{where}")


# ------------------------------------------------------------------- global search

def _fibonacci_directions(n: int) -> np.ndarray:
    k = np.arange(n) + 0.5
    z = 1.0 - 2.0 * k / n
    phi = math.pi * (3.0 - math.sqrt(5.0)) * k
    r = np.sqrt(1.0 - z * z)
    return np.stack((r * np.cos(phi), r * np.sin(phi), z), axis=1)


def _starts_convex(S1, S2, R, d):
    """Separating-axis starts for two convex closed surfaces.

    For a unit direction n (frame 1) the gap ``g(n) = min_{x2} n . x2 - max_{x1} n . x1``
    is evaluated on the samples (discrete support mappings); every stationary pair of the
    four equations is a critical point of g, and its maximum is the signed distance.
    """
    c1, c2 = _cache(S1), _cache(S2)
    X2 = c2.points @ R.T + d
    Nd = _fibonacci_directions(_N_DIRECTIONS)
    h1 = Nd @ c1.points.T          # (directions, samples): reductions along contiguous rows
    h2 = Nd @ X2.T
    i1 = np.argmax(h1, axis=1)
    i2 = np.argmin(h2, axis=1)
    k = np.arange(len(Nd))
    gap = h2[k, i2] - h1[k, i1]
    order = np.argsort(-gap)
    return [(c1.params[i1[k]], int(c1.charts[i1[k]]), c2.params[i2[k]], int(c2.charts[i2[k]]),
             X2[i2[k]]) for k in order]


def _starts_general(S1, S2, R, d):
    """Starts for the deepest (or, apart, the closest) pair of two arbitrary surfaces.

    Every sample of one surface is paired with the nearest sample of the other (or with its
    exact projection when the other is an unbounded plane); the pair's signed distance is
    estimated as ``n1 . (x2 - x1)``. Pairs whose normals are not roughly antiparallel are
    dropped. Two orders of the rest are interleaved: by how nearly the pair satisfies the
    stationarity equations (tangential separation relative to the size, plus normal
    misalignment, to 3 digits, then the estimated distance), and by the estimated distance
    alone, most negative first. The first finds the stationary pair when the samples are
    tilted; the second keeps the nearest pair among the starts when many sampled pairs look
    equally stationary (a small body far from a large one: every start may otherwise slide
    to the same saddle).
    """
    c1, c2 = _cache(S1), _cache(S2)
    blocks = []
    if c2.bounded:
        X2 = c2.points @ R.T + d
        N2 = c2.normals @ R.T
        if c1.bounded:
            _, idx = c1.tree.query(X2)
            X1, N1, P1, C1 = c1.points[idx], c1.normals[idx], c1.params[idx], c1.charts[idx]
        else:
            P1, X1, n = _project_on_plane(S1, X2)
            N1 = np.broadcast_to(n, X1.shape)
            C1 = np.zeros(len(X1), dtype=int)
        blocks.append((X1, N1, P1, C1, X2, N2, c2.params, c2.charts))
    if c1.bounded:
        X1 = c1.points
        Y1 = (X1 - d) @ R          # samples of S1 in frame 2
        if c2.bounded:
            _, idx = c2.tree.query(Y1)
            P2, C2 = c2.params[idx], c2.charts[idx]
            X2, N2 = c2.points[idx] @ R.T + d, c2.normals[idx] @ R.T
        else:
            P2, Y2, n = _project_on_plane(S2, Y1)
            X2, N2 = Y2 @ R.T + d, np.broadcast_to(R @ n, Y2.shape)
            C2 = np.zeros(len(X2), dtype=int)
        blocks.append((X1, c1.normals, c1.params, c1.charts, X2, N2, P2, C2))
    X1, N1, P1, C1, X2, N2, P2, C2 = (np.concatenate(parts) for parts in zip(*blocks))
    E = X2 - X1
    delta = np.einsum("ij,ij->i", N1, E)
    align = -np.einsum("ij,ij->i", N1, N2)
    keep = align > _ALIGN_MIN
    if not np.any(keep):
        keep = align > -1.0
    # rank by how nearly stationary the sampled pair is (separation along the normal,
    # antiparallel normals): ranking by the estimated Delta alone favours tilted pairs, from
    # which Newton can slide to the stationary pair with parallel normals on the far side
    tangential = np.linalg.norm(E - delta[:, None] * N1, axis=1) / max(_pair_scale(S1, S2), 1e-300)
    score = tangential + (1.0 - align)
    kept = np.flatnonzero(keep)
    by_score = kept[np.lexsort((delta[kept], np.round(score[kept], 3)))]
    by_distance = kept[np.argsort(delta[kept], kind="stable")]
    order = dict.fromkeys(np.ravel(np.column_stack((by_score, by_distance))).tolist())
    return [(P1[k], int(C1[k]), P2[k], int(C2[k]), X2[k]) for k in order]


def _closed_form(S1, S2, R, d, scale, tol, max_iter):
    """The pair from `porthamiltonian.kernels.closest.closed_form` (confirmed by the Newton
    refinement, zero iterations), or None where no closed form applies."""
    if not (S1._is_compiled and S2._is_compiled):
        return None
    found, x = _kclosest.closed_form(*S1._kernel_spec, *S2._kernel_spec, R, d, 0, 0)
    if not found:
        return None
    x = x.tolist()
    c1, x[0], x[1] = S1._best_chart(x[0], x[1], 0)
    c2, x[2], x[3] = S2._best_chart(x[2], x[3], 0)
    out = _local(S1, S2, R.tolist(), d.tolist(), x, (c1, c2), scale, tol, max_iter)
    return _finish(out, True) if out.valid else None


def _global(S1, S2, R, d, scale, tol, max_iter) -> ClosestPoints:
    res = _closed_form(S1, S2, R, d, scale, tol, max_iter)
    return res if res is not None else _search(S1, S2, R, d, scale, tol, max_iter)


def _search(S1, S2, R, d, scale, tol, max_iter) -> ClosestPoints:
    """The global search from sampled starts (`closest_points`, Notes)."""
    convex = S1.is_convex and S1.is_closed and S2.is_convex and S2.is_closed
    for name, S in (("S1", S1), ("S2", S2)):
        if not (_cache(S).bounded or isinstance(S, Plane)):
            raise GeometryError(f"the global search needs bounded parameter domains or a plane, "
                                f"but {name} = {S!r} is unbounded; pass a warm start `x0`")
    candidates = _starts_convex(S1, S2, R, d) if convex else _starts_general(S1, S2, R, d)
    Rl, dl = R.tolist(), d.tolist()
    chosen, tried, results = [], [], []
    for uv1, ch1, uv2, ch2, X2 in candidates:
        if len(chosen) >= (_N_STARTS if results else _MAX_STARTS):
            break
        if any(np.linalg.norm(X2 - Y) < 0.1 * scale for Y in chosen):
            continue
        chosen.append(X2)
        x = [float(uv1[0]), float(uv1[1]), float(uv2[0]), float(uv2[1])]
        ch1, x[0], x[1] = S1._best_chart(x[0], x[1], ch1)
        ch2, x[2], x[3] = S2._best_chart(x[2], x[3], ch2)
        out = _local(S1, S2, Rl, dl, x, (ch1, ch2), scale, tol, max_iter)
        tried.append(out)
        if out.valid:
            res = _finish(out, True)
            if _is_optimum(out.S1, out.K2, res.distance, convex):
                results.append(res)
    if not results:
        detail = "; ".join(_describe(S1, S2, out) for out in tried) or "no candidate pairs"
        raise GeometryError(f"closest_points: the global search found no valid contact pair "
                            f"(converged, antiparallel normals, second-order optimal): "
                            f"{detail}")
    if convex:
        return max(results, key=lambda res: res.distance)
    return min(results, key=lambda res: res.distance)


# ----------------------------------------------------------------------- public API

def closest_points(S1: Surface, S2: Surface, H_12, *, x0=None, charts=(0, 0),
                   tol: float = DEFAULT_TOL, max_iter: int = 50) -> ClosestPoints:
    """Generalized contact points (closest or deepest pair) of two posed surfaces.

    Parameters
    ----------
    S1, S2 : Surface
        Surfaces of body 1 and body 2, each in its own body frame.
    H_12 : array_like, shape (4, 4)
        Pose of body 2 in body 1, ``x_1 = R x_2 + d``.
    x0 : array_like, shape (4,), optional
        Warm start ``(u1, v1, u2, v2)`` in `charts`: only the local Newton refinement runs
        (the hot path). Without it a global search picks the start.
    charts : tuple of int
        ``(chart1, chart2)`` of `x0`; ignored without `x0`.
    tol : float
        Convergence tolerance, relative: tangential gap ``<= tol * scale`` [m] and normal
        misalignment ``<= tol``, ``scale`` being the bounding-box diagonal of the smaller
        bounded surface.
    max_iter : int
        Newton iterations per start.

    Returns
    -------
    ClosestPoints
        Parameters (possibly in other charts than `charts`: charts switch near singular
        sets), points and normals in their body frames, signed distance, residuals.

    Raises
    ------
    ParameterError
        If an argument has the wrong type or shape, or is not finite.
    GeometryError
        If `x0` is outside a domain, the iteration does not converge (the message names the
        surfaces, the residual and the iterate), converges to parallel instead of
        antiparallel normals or onto a singular point, or the global search finds no
        valid pair (e.g. conforming contact: two planes, a cylinder lying on a plane).

    Notes
    -----
    Newton on the stationarity equations (module docstring) with the analytic Jacobian::

        d/dx1_b [f1_a . e]   = f1_ab . e - f1_a . f1_b      e = R p2 + d - p1
        d/dx2_b [f1_a . e]   = f1_a . R f2_b
        d/dx1_b [f1_a . Rn2] = f1_ab . R n2
        d/dx2_b [f1_a . Rn2] = f1_a . R n2_b

    with backtracking on ``|gap / scale|^2 + |misalignment|^2`` (rows scaled by ``1/|f1_a|``),
    each step limited to move each point by at most a quarter of its surface's extent, and
    at least of ``scale`` (`porthamiltonian.kernels.closest.step_limit`), periodic parameters wrapped,
    bounded ones clamped, and charts switched by ``Surface.best_chart``.

    Which stationary pair is the contact (global search):

    - both surfaces convex and closed (absolutely convex bodies, Duindam & Stramigioli 2003, Theorem 1): the
      pair maximizing ``Delta``, i.e. the separating-axis solution: the Euclidean distance
      when apart, minus the minimum translation depth when penetrating. Starts come from
      discrete support mappings over 400 directions.
    - otherwise (planes, tori, open patches): the pair minimizing ``Delta`` among strict
      local minima (``curvature_margin > 0``): the Euclidean closest pair when apart, the
      deepest penetration when penetrating. Starts come from pairing each sample of one
      surface with the nearest sample of the other (or its projection onto a plane).

    The two rules agree whenever the penetration is shallow compared with the radii of
    curvature (one local optimum nearby); they differ only for deep interpenetration. A plane
    with an ellipsoid or sphere (either order) and two spheres have the pair in closed form
    (`porthamiltonian.kernels.closest.closed_form`): no search runs for them.

    Examples
    --------
    >>> import numpy as np
    >>> from porthamiltonian.geometry import Plane, Sphere
    >>> H = np.eye(4); H[2, 3] = 1.5                      # sphere centre 1.5 above the plane
    >>> cp = closest_points(Plane(), Sphere(1.0), H)
    >>> round(cp.distance, 12), cp.p1.round(12).tolist()
    (0.5, [0.0, 0.0, 0.0])
    >>> closest_points(Plane(), Sphere(1.0), H, x0=cp.x, charts=cp.charts).iterations
    0
    """
    S1 = _check_surface(S1, "S1")
    S2 = _check_surface(S2, "S2")
    R, d = check_pose(H_12, "H_12")
    tol = as_finite_float(tol, "tol", positive=True)
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 1:
        raise ParameterError(f"`max_iter` must be an integer >= 1, got {max_iter!r}")
    scale = _pair_scale(S1, S2)
    if x0 is None:
        return _global(S1, S2, np.array(R), np.array(d), scale, tol, int(max_iter))
    x, charts = _check_parameters(x0, charts, S1, S2)
    return refine(S1, S2, R, d, x, charts, tol=tol, max_iter=int(max_iter))[0]


def refine(S1: Surface, S2: Surface, R, d, x0, charts, *, tol: float = DEFAULT_TOL, max_iter: int = 50):
    """Warm-started Newton refinement without argument checks (the hot path of simulations).

    Parameters
    ----------
    R, d : sequences
        Rotation (3x3, nested lists or array) and translation of H_12.
    x0 : sequence of 4 floats, inside the domains of `charts`.
    charts : tuple of int

    Returns
    -------
    (ClosestPoints, D1, D2)
        The result of `closest_points` with a warm start, and the order-2 derivative arrays
        of both surfaces at the solution, in ``ClosestPoints.charts``, for kinematics
        evaluated at the same point without re-evaluating the surfaces: ndarrays of shape
        (3, 3, 3) for surfaces with a compiled evaluator, nested lists otherwise.

    Raises
    ------
    GeometryError
        As `closest_points` (no convergence, parallel normals, singular point).
    """
    R = [list(map(float, row)) for row in R]
    d = [float(v) for v in d]
    x = [float(v) for v in x0]
    c1, x[0], x[1] = S1._best_chart(x[0], x[1], charts[0])
    c2, x[2], x[3] = S2._best_chart(x[2], x[3], charts[1])
    out = _local(S1, S2, R, d, x, (c1, c2), _pair_scale(S1, S2), tol, int(max_iter))
    if not out.converged:
        raise GeometryError(f"closest_points did not converge from the warm start: "
                            f"{_describe(S1, S2, out)}")
    if not out.valid:
        raise GeometryError(f"closest_points converged to parallel normals (not a contact "
                            f"pair) or onto a singular point: {_describe(S1, S2, out)}")
    return _finish(out, False), out.D1, out.D2


def closest_points_world(S1: Surface, S2: Surface, H_W1, H_W2, **kwargs) -> ClosestPoints:
    """`closest_points` for bodies posed in a common frame W: ``H_12 = inv(H_W1) H_W2``.

    Parameters
    ----------
    H_W1, H_W2 : array_like, shape (4, 4)
        Poses of bodies 1 and 2 in W.
    **kwargs
        Passed to `closest_points`.

    Returns
    -------
    ClosestPoints
        Points and normals in their body frames, as from `closest_points`.

    Raises
    ------
    ParameterError, GeometryError
        As `closest_points`.

    Examples
    --------
    >>> import numpy as np
    >>> from porthamiltonian.geometry import Sphere
    >>> H_W1, H_W2 = np.eye(4), np.eye(4)
    >>> H_W2[0, 3] = 3.0
    >>> round(closest_points_world(Sphere(1.0), Sphere(0.5), H_W1, H_W2).distance, 12)
    1.5
    """
    R1, d1 = check_pose(H_W1, "H_W1")
    R2, d2 = check_pose(H_W2, "H_W2")
    H_1W = np.eye(4)
    H_1W[:3, :3] = np.array(R1).T
    H_1W[:3, 3] = -H_1W[:3, :3] @ np.array(d1)
    return closest_points(S1, S2, H_1W @ np.asarray(H_W2, dtype=float), **kwargs)


def check_global(S1: Surface, S2: Surface, H_12, local: ClosestPoints, *, atol: float = 1e-9,
                 tol: float = DEFAULT_TOL) -> GlobalCheck:
    """Compare a (tracked, warm-started) local solution with a fresh global search.

    Parameters
    ----------
    S1, S2 : Surface
    H_12 : array_like, shape (4, 4)
        Pose of body 2 in body 1 at which `local` was computed.
    local : ClosestPoints
        The local solution.
    atol : float
        Largest accepted difference of distance and of contact points [m].
    tol : float
        Convergence tolerance of the global search.

    Returns
    -------
    GlobalCheck
        ``is_global`` is False when the global search finds another pair (the contact has
        jumped: re-initialize the tracker from ``global_solution``).

    Raises
    ------
    ParameterError, GeometryError
        As `closest_points` without a warm start.

    Examples
    --------
    >>> import numpy as np
    >>> from porthamiltonian.geometry import Plane, Torus
    >>> H = np.eye(4); H[:3, :3] = [[1, 0, 0], [0, 0.8, -0.6], [0, 0.6, 0.8]]; H[2, 3] = 1.0
    >>> tracked = closest_points(Plane(), Torus(1.0, 0.3), H)
    >>> check_global(Plane(), Torus(1.0, 0.3), H, tracked).is_global
    True
    """
    if not isinstance(local, ClosestPoints):
        raise ParameterError(f"`local` must be a ClosestPoints, got {type(local).__name__}")
    atol = as_finite_float(atol, "atol", positive=True)
    glob = closest_points(S1, S2, H_12, tol=tol)
    gap = local.distance - glob.distance
    point_gap = max(float(np.linalg.norm(local.p1 - glob.p1)),
                    float(np.linalg.norm(local.p2 - glob.p2)))
    return GlobalCheck(abs(gap) <= atol and point_gap <= atol, local, glob, gap, point_gap)


# ---------------------------------------------------------------- point projection

def _project_newton(S, p, u, v, chart, scale, tol, max_iter):
    """Damped Newton on ``0.5 |f(u, v) - p|^2`` with the bounds of a patch as an active set.

    Returns ``(u, v, chart, D, iterations, converged, on_boundary)``.
    """
    p = p.tolist()
    for it in range(max_iter + 1):
        dom = S._domains[chart]
        D = S._derivatives(u, v, 2, chart).tolist()
        f, fu, fv = D[0][0], D[1][0], D[0][1]
        e = (f[0] - p[0], f[1] - p[1], f[2] - p[2])
        g = (_dot(fu, e), _dot(fv, e))
        # a bound is active when the descent direction -g points out of the domain
        active = [not dom.periodic[k] and ((x <= dom.lower[k] and g[k] > 0.0)
                                           or (x >= dom.upper[k] and g[k] < 0.0))
                  for k, x in enumerate((u, v))]
        lengths = (math.sqrt(_dot(fu, fu)), math.sqrt(_dot(fv, fv)))
        if all(active[k] or (lengths[k] > 0.0 and abs(g[k]) / lengths[k] <= tol * scale)
               for k in range(2)):
            return u, v, chart, D, it, True, any(active)
        if it == max_iter:
            break
        H = np.array(((_dot(fu, fu) + _dot(D[2][0], e), _dot(fu, fv) + _dot(D[1][1], e)),
                      (_dot(fu, fv) + _dot(D[1][1], e), _dot(fv, fv) + _dot(D[0][2], e))))
        free = [k for k in range(2) if not active[k]]
        Hf = H[np.ix_(free, free)]
        lo = np.linalg.eigvalsh(Hf)[0]
        if lo <= 1e-12 * max(1.0, float(np.abs(Hf).max())):
            # not convex here: shift to positive definite (a Levenberg-Marquardt step)
            Hf = Hf + (abs(lo) + 1e-6 * float(np.trace(np.abs(Hf))) + 1e-300) * np.eye(len(free))
        step = np.zeros(2)
        step[free] = -np.linalg.solve(Hf, np.array(g)[free])
        m = gauss._lin2(step[0], fu, step[1], fv)
        move = math.sqrt(_dot(m, m))
        lam = min(1.0, _STEP_FRACTION * scale / move) if move > 0.0 else 1.0
        phi0 = _dot(e, e)
        slope = float(np.dot(g, step))
        for _ in range(_MAX_HALVINGS):
            un, vn, _ = _place(S, u + lam * step[0], v + lam * step[1], chart)
            fn = S._derivatives(un, vn, 0, chart)[0, 0].tolist()
            en = (fn[0] - p[0], fn[1] - p[1], fn[2] - p[2])
            # Armijo, with the round-off of phi itself allowed: at the solution the decrease
            # a step can make is below the noise of |e|^2, and the test would reject it
            if _dot(en, en) <= phi0 + 2.0 * _ARMIJO * lam * slope + 8.0 * _EPS * phi0:
                break
            lam *= 0.5
        else:
            return u, v, chart, D, it, False, any(active)
        chart, u, v = S._best_chart(un, vn, chart)
    return u, v, chart, D, max_iter, False, False


def project_point(S: Surface, p, *, uv0=None, chart: int = 0, tol: float = DEFAULT_TOL,
                  max_iter: int = 50) -> PointProjection:
    """Nearest point of a surface to a point (foot of the normal), global or warm-started.

    Parameters
    ----------
    S : Surface
    p : array_like, shape (3,)
        The point, in the surface's frame [m].
    uv0 : array_like, shape (2,), optional
        Warm start ``(u, v)`` in `chart`; without it the nearest samples of the surface (or
        the exact foot on an unbounded plane) start the iteration.
    chart : int
        Chart of `uv0`.
    tol : float
        Tangential residual ``<= tol * scale`` [m] (scale: bounding-box diagonal, 1 m for an
        unbounded plane).
    max_iter : int
        Newton iterations per start.

    Returns
    -------
    PointProjection

    Raises
    ------
    ParameterError
        Bad shapes or non-finite input.
    GeometryError
        If the iteration does not converge, ends at a singular point, or the surface is
        unbounded and not a plane (and no `uv0` is given).

    Notes
    -----
    Minimizes ``0.5 |f(u, v) - p|^2``: gradient ``g_a = f_a . (f - p)``, Hessian
    ``f_a . f_b + f_ab . (f - p)`` (shifted to be positive definite when it is not), with
    backtracking; on a plane the first step is exact. The bounds of a bounded patch are an
    active set, so the result may be a boundary point (``on_boundary``).

    Examples
    --------
    >>> from porthamiltonian.geometry import Sphere
    >>> pr = project_point(Sphere(1.0), (0.0, 0.0, 3.0))
    >>> round(pr.distance, 12), pr.point.round(12).tolist()
    (2.0, [0.0, 0.0, 1.0])
    """
    S = _check_surface(S, "S")
    p = as_array(p, "p", (3,))
    tol = as_finite_float(tol, "tol", positive=True)
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 1:
        raise ParameterError(f"`max_iter` must be an integer >= 1, got {max_iter!r}")
    cloud = _cache(S)
    scale = cloud.scale if math.isfinite(cloud.scale) else 1.0
    if uv0 is not None:
        uv = as_array(uv0, "uv0", (2,))
        u, v, chart = S._check_point(float(uv[0]), float(uv[1]), chart)
        starts = [(u, v, chart)]
    elif cloud.bounded:
        k = min(3, len(cloud.points))
        _, idx = cloud.tree.query(p, k=k)
        starts = [(float(cloud.params[i][0]), float(cloud.params[i][1]), int(cloud.charts[i]))
                  for i in np.atleast_1d(idx)]
    elif isinstance(S, Plane):
        uv, _, _ = _project_on_plane(S, p[None, :])
        starts = [(float(uv[0, 0]), float(uv[0, 1]), 0)]
    else:
        raise GeometryError(f"project_point needs a bounded surface or a plane for the global "
                            f"start; {S!r} is unbounded: pass `uv0`")
    runs = []
    for u, v, ch in starts:
        ch, u, v = S._best_chart(u, v, ch)
        runs.append(_project_newton(S, p, u, v, ch, scale, tol, int(max_iter)))
    done = [run for run in runs if run[5]]
    if not done:
        u, v, ch, _, its, _, _ = runs[0]
        raise GeometryError(f"project_point did not converge on {S!r} for p = {p.tolist()}: "
                            f"iterate (u, v) = ({u:.6g}, {v:.6g}) in chart {ch} after {its} "
                            f"iterations")
    u, v, ch, D, its, _, edge = min(done, key=lambda run: float(np.sum((np.array(run[3][0][0])
                                                                     - p) ** 2)))
    Da = np.array(D)
    S._require_regular(Da, u, v, ch)
    n = gauss.unit_normal(Da)
    f = Da[0, 0]
    e = p - f
    tangential = e - (n @ e) * n
    distance = math.copysign(float(np.linalg.norm(e)), float(n @ e))
    return PointProjection(u, v, ch, f, n, distance, float(np.linalg.norm(tangential)), its, edge)
