"""ContactPair: two bodies with surfaces, and the contact geometry their contact elements share.

A contact's elements (spring, damper, friction; or a sliding-plane constraint) all need the
generalized contact points of the two surfaces at the current configuration. `ContactPair`
computes them once per evaluation: a warm-started Newton refinement from the tracked
parameters (carried in the state only as warm starts), then the contact frame on the
average tangent plane and the twist maps, in one compiled call
(`porthamiltonian.kernels.contact.pair_state`). The result is cached by the exact bytes of
its inputs, so every kernel of the same evaluation gets the same object without
recomputing, and the kernels stay pure functions of their arguments.

With a surface evaluated in Python (a `SymbolicSurface`, a user subclass of `Surface`) the
refinement runs in the generic Newton loop of `porthamiltonian.geometry.closest` and only
the rest is compiled: such a contact is several times slower, and its surface must have a
single chart.

Frames: surface S1 is posed in body a by H_aS1, S2 in body b by H_bS2. "1" and "2" below are
the surface frames; H_12 is the pose of S2 in S1, T_12 the twist of S2 relative to S1 in
frame 1 (the contact library's convention).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from porthamiltonian.contact.kinematics import MAX_CONDITION, singular_kinematics_error
from porthamiltonian.errors import GeometryError, ModelError, ParameterError
from porthamiltonian.geometry import Point, Surface, closest_points, point_contact, surface_from_spec, surface_to_spec
from porthamiltonian.geometry.closest import DEFAULT_TOL, ClosestPoints, _pair_scale, _scale, refine
from porthamiltonian.geometry.surface import REGULARITY_TOL
from porthamiltonian.kernels import closest as _kclosest
from porthamiltonian.kernels import compliant as _kcompliant
from porthamiltonian.kernels import contact as _kcontact
from porthamiltonian.kernels import lie as _klie
from porthamiltonian.kernels import surfaces as _ksurfaces
from porthamiltonian.lie import se3

from .rigid_body import Ground, RigidBody, _rate_map, pose_gradient

__all__ = ["ContactPair", "ContactState"]

_EMPTY = np.zeros(0)   # the pose argument of a fixed body
_MAX_ITER = 50         # Newton iterations of the warm-started refinement
_CHART_TIE = 1e-9      # [rad] distances to the singular sets closer than this are a tie
#: `ContactPair.cull_distance` as a fraction of the pair's scale (the size of the smaller
#: surface): closer than this the contact points are tracked exactly again
CULL_FRACTION = 0.1


def _map(S, u, v, src, dst):
    """Chart map without domain checks (a solver stage may have carried (u, v) past a pole,
    where the chart's formulas still describe a surface point)."""
    return (u, v) if src == dst else S._chart_map(u, v, src, dst)


class ContactState(NamedTuple):
    """The contact geometry at one configuration.

    Attributes
    ----------
    cp : ClosestPoints
        Exact generalized contact points (parameters in `cp.charts`).
    H_12 : ndarray, shape (4, 4)
    H_1C : ndarray, shape (4, 4)
        Contact frame C in surface frame 1 (z = n1, origin on the average tangent plane).
    G_a, G_b : ndarray, shape (6, 6)
        Twist maps: the relative twist of body b w.r.t. body a in C coordinates is
        T_C = G_b T_b - G_a T_a (T_a, T_b the body twists); wrench W_C on the contact gives
        the port efforts -G_a^T W_C and G_b^T W_C.
    delta : float
        Penetration -Delta [m] (positive when the surfaces overlap).
    culled : bool
        No contact geometry: the bodies were found far apart by the bounding test
        (`ContactPair.state` with ``cull=True``; then ``delta`` is minus a lower bound of
        Delta, < -`cull_distance`), or the contact point has left a bounded surface (a
        plane's extent, a patch's edge; then ``delta`` is minus how far outside, so the
        contact releases there and cannot be made, and ``edge_delta`` is the penetration of
        the surface extended past its edge, whose energy the release books as lost). Only
        ``H_12``, ``delta`` and ``edge_delta`` are set.
    """

    cp: ClosestPoints
    H_12: np.ndarray
    H_1C: np.ndarray
    G_a: np.ndarray
    G_b: np.ndarray
    delta: float
    D: tuple | None = None  # order-2 derivative arrays of both surfaces at the contact points
    culled: bool = False  # far apart: only H_12 and delta (minus a lower bound of Delta) are set
    edge_delta: float = 0.0  # off a bounded surface: the penetration of the surface extended


def _check_point_pair(surface_a, surface_b):
    """A `Point` is only body b's partner of a compiled smooth surface (`ContactPair`)."""
    if isinstance(surface_a, Point):
        other = ("it would meet another point: two points have no contact normal" if isinstance(surface_b, Point)
                 else f"give the point as `surface_b` (with its body as `body_b`) and {surface_b!r} as `surface_a`")
        raise ParameterError(f"`surface_a` = {surface_a!r} is a point: a point meets a surface, whose normal is "
                             f"the contact's, as `surface_b`; here {other}")
    if isinstance(surface_b, Point) and isinstance(surface_a, Surface) and not surface_a._is_compiled:
        raise ModelError(f"`surface_b` = {surface_b!r} is a point and `surface_a` = {surface_a!r} is evaluated in "
                         "Python: a point's contact runs in the compiled kernels only (use a built-in surface kind)")


def _point_spec(P):
    """The JSON-ready spec of a point partner (`ContactPair.parameters`)."""
    return {"kind": "Point", "center": P.center.tolist()}


class ContactPair:
    """Two posed surfaces on two bodies (or a body and the ground), see module docstring.

    Parameters
    ----------
    body_a, body_b : RigidBody or Ground
    surface_a : Surface
        In its body frame (then moved by `pose_a`).
    surface_b : Surface or Point
        In its body frame (then moved by `pose_b`). A `porthamiltonian.geometry.Point` (a
        point foot: a sphere of radius 0) meets `surface_a` at the foot on it of the normal
        through the point, and the contact frame's normal is `surface_a`'s
        (`porthamiltonian.kernels.contact_pair.point_pair_state`; the point's two tracked
        parameters are placeholders, always 0). So `surface_a` must be a built-in (compiled)
        surface kind that is smooth where the point meets it: a point as `surface_a` (give it
        as `surface_b`), two points, or a point against a surface evaluated in Python raise
        at construction; a foot of the normal on an edge of a bounded patch (no normal there)
        raises `GeometryError` when met. The point has no curvature: the local Hertz law
        (`local_hertz`) does not apply to it.
    pose_a, pose_b : array_like, shape (4, 4), optional
        Pose of each surface in its body (default identity).
    alpha : float
        Position of the average tangent plane between the two generalized contact points:
        0 on surface a, 1 on surface b, 0.5 midway (equal stiffnesses).
    cull : bool
        Allow the bounding test (`state` with ``cull=True``) where both surfaces have a
        guaranteed bound (built-in kinds; not two planes).
    """

    def __init__(self, body_a, surface_a, body_b, surface_b, *, pose_a=None, pose_b=None, alpha=0.5, cull=True):
        for key, b in (("body_a", body_a), ("body_b", body_b)):
            if not isinstance(b, (RigidBody, Ground)):
                raise ParameterError(f"`{key}` must be a RigidBody or a Ground, got {b!r}")
        if body_a is body_b:
            raise ModelError(f"a contact needs two different bodies, got {body_a.name!r} twice")
        if isinstance(body_a, Ground) and isinstance(body_b, Ground):
            raise ModelError("a contact between two grounds does nothing")
        _check_point_pair(surface_a, surface_b)
        for key, s in (("surface_a", surface_a), ("surface_b", surface_b)):
            if isinstance(s, Point):
                continue
            if not isinstance(s, Surface):
                raise ParameterError(f"`{key}` must be a Surface, got {s!r}")
            if not s._is_compiled and s.n_charts != 1:
                raise ModelError(
                    f"`{key}` = {s!r} is evaluated in Python and has {s.n_charts} charts; contacts need "
                    "such a surface to have a single chart (or use a built-in surface kind)")
        alpha = float(alpha)
        if not 0.0 <= alpha <= 1.0:
            raise ParameterError(f"`alpha` must lie in [0, 1], got {alpha!r}")
        self.body_a, self.body_b = body_a, body_b
        self.S1, self.S2 = surface_a, surface_b
        self.H_aS1 = np.eye(4) if pose_a is None else se3.as_se3(pose_a, "pose_a")
        self.H_bS2 = np.eye(4) if pose_b is None else se3.as_se3(pose_b, "pose_b")
        self.H_S1a = se3.inverse(self.H_aS1)
        self.H_S2b = se3.inverse(self.H_bS2)
        self.alpha = alpha
        self._moving = (isinstance(body_a, RigidBody), isinstance(body_b, RigidBody))
        # constants of the compiled calls
        (self._F1, self._I1), (self._F2, self._I2) = surface_a._kernel_spec, surface_b._kernel_spec
        self._point = isinstance(surface_b, Point)
        #: the pair's length scale [m]: the smaller surface's, or for a point its partner's
        #: (1 m for an unbounded plane, as `porthamiltonian.geometry.point_contact`)
        self._scale = _pair_scale(surface_a, surface_b) if not self._point else (
            _scale(surface_a) if math.isfinite(_scale(surface_a)) else 1.0)
        self._compiled = surface_a._is_compiled and surface_b._is_compiled
        self._H_Wa = np.eye(4) if self._moving[0] else body_a.H_WG
        self._H_Wb = np.eye(4) if self._moving[1] else body_b.H_WG
        self._Ad_S1a = se3.Ad(self.H_S1a)
        self._Ad_S2b = se3.Ad(self.H_S2b)
        self._B1, self._B2 = surface_a._bound_spec, surface_b._bound_spec
        self._cull_allowed = bool(cull)
        codes = {int(self._B1[0]), int(self._B2[0])}
        self._cullable = cull and _kclosest.BOUND_NONE not in codes and codes != {_kclosest.BOUND_HALFSPACE}
        #: the bounding test skips the contact points while the bounds are this far apart [m]
        self.cull_distance = CULL_FRACTION * self._scale
        self._cache_key = None
        self._cache = None
        self._last = None   # the last exact state (a fallback warm start)
        self._local = None  # (state, modulus, local_hertz result) of the last local_hertz call
        # per surface and chart, the edges (finite bounds that are not singular sets such as
        # an ellipsoid's poles): (lower_u, lower_v, upper_u, upper_v), -inf / inf where none
        self._edges = [[S.edges(c) for c in range(S.n_charts)] for S in (surface_a, surface_b)]
        self._bounded = any(np.isfinite(e).any() for per in self._edges for e in per)
        self._networks = surface_a.is_network or surface_b.is_network

    # ---- files
    def parameters(self):
        """JSON-ready description (bodies as element references, surfaces as specs)."""
        return {"body_a": self.body_a, "surface_a": surface_to_spec(self.S1), "body_b": self.body_b,
                "surface_b": _point_spec(self.S2) if self._point else surface_to_spec(self.S2),
                "pose_a": self.H_aS1.tolist(), "pose_b": self.H_bS2.tolist(),
                "alpha": self.alpha, "cull": self._cull_allowed}

    @classmethod
    def from_parameters(cls, p):
        """Rebuild from `parameters()` (with the body references resolved)."""
        b = p["surface_b"]
        S2 = Point(b["center"]) if isinstance(b, dict) and b.get("kind") == "Point" else surface_from_spec(b)
        return cls(p["body_a"], surface_from_spec(p["surface_a"]), p["body_b"], S2,
                   pose_a=p["pose_a"], pose_b=p["pose_b"], alpha=p["alpha"], cull=p["cull"])

    # ---- declaration helpers for the elements
    def refs(self):
        from porthamiltonian.bondgraph.ports import StateRef

        out = []
        if self._moving[0]:
            out.append(StateRef(self.body_a, "pose"))
        if self._moving[1]:
            out.append(StateRef(self.body_b, "pose"))
        return tuple(out)

    def padded_refs(self, before=0, momenta=False, after=0):
        """`Kernel.refs` of a contact element whose references are ``before`` of its own, the
        moving bodies' poses (`refs`; then their momenta, `momentum_refs`, if ``momenta``),
        then ``after`` more: a slot for both bodies, -1 (an empty array) for a fixed one, so
        the compiled kernels take the same tuple whether a body is fixed or moving
        (`porthamiltonian.kernels.compliant`)."""
        out, at = list(range(before)), before
        for _ in range(2 if momenta else 1):
            for moving in self._moving:
                out.append(at if moving else -1)
                at += bool(moving)
        return tuple(out) + tuple(range(at, at + after))

    def momentum_refs(self):
        """References to the moving bodies' momenta (for `contact_twist`)."""
        from porthamiltonian.bondgraph.ports import StateRef

        return tuple(StateRef(b, "P") for b, moving in zip((self.body_a, self.body_b), self._moving) if moving)

    def contact_twist(self, st, momenta):
        """``T_C = G_b T_b - G_a T_a`` [rad/s, m/s]: the twist of body b relative to body a in
        the contact frame, from the moving bodies' momenta (`momentum_refs`)."""
        T = [np.zeros(6), np.zeros(6)]
        k = 0
        for i, (b, moving) in enumerate(zip((self.body_a, self.body_b), self._moving)):
            if moving:
                T[i] = b.Minv @ momenta[k]
                k += 1
        return st.G_b @ T[1] - st.G_a @ T[0]

    @property
    def n_pose_refs(self):
        return sum(self._moving)

    def body_poses(self, refs):
        """(H_Wa, H_Wb) from the pose references (the first refs of an element)."""
        k = 0
        if self._moving[0]:
            Ha = _klie.pose_to_matrix(refs[0])
            k = 1
        else:
            Ha = self.body_a.H_WG
        Hb = _klie.pose_to_matrix(refs[k]) if self._moving[1] else self.body_b.H_WG
        return Ha, Hb

    def H_12(self, refs):
        Ha, Hb = self.body_poses(refs)
        return _kcontact.relative_pose(self.H_S1a, self.H_bS2, Ha, Hb)

    # ---- the cached evaluation
    def state(self, params, charts, refs, cull=False):
        """The `ContactState` for tracked parameters (warm start) and body poses.

        With `cull`, a bounding test runs first (`porthamiltonian.kernels.contact.separation`):
        while it proves the surfaces more than `cull_distance` apart, no contact points are
        computed and the state is marked ``culled`` (the elements of a contact that is not
        touching ask for this).
        """
        n = self.n_pose_refs
        key = (cull, params.tobytes(), charts.tobytes()) + tuple(r.tobytes() for r in refs[:n])
        if key == self._cache_key:
            return self._cache
        pa, pb = self._pose_args(refs)
        if cull and self._cullable:
            bound, H12 = _kcontact.separation(self._B1, self._B2, pa, pb, self._H_Wa, self._H_Wb, self.H_S1a,
                                              self.H_bS2)
            if bound > self.cull_distance:
                self._cache_key, self._cache = key, ContactState(None, H12, None, None, None, -bound, None, True)
                return self._cache
        ch = (int(round(charts[0])), int(round(charts[1])))
        params = np.asarray(params, dtype=float)
        off = self._off_edge(refs, ch) if self._bounded else None
        if off is not None:
            self._cache_key, self._cache = key, off
            return off
        if self._compiled:  # one compiled call in the usual case
            res = _kcontact.evaluate(self._F1, self._I1, self._F2, self._I2, pa, pb, self._H_Wa, self._H_Wb,
                                     params, ch[0], ch[1], self._scale, DEFAULT_TOL, _MAX_ITER, self.alpha,
                                     self.H_S1a, self.H_bS2, REGULARITY_TOL)
            if res[0] == _kcontact.OK:
                st = self._as_state(res[1:])
            else:
                st = self._solve(res[1], res[0] == _kcontact.NEEDS_RECHART, params, ch)
        else:
            H12 = self.H_12(refs)
            rechart = not _kcontact.start_is_sane(self._F1, self._F2, params, ch[0], ch[1])
            st = None if rechart else self._pair_state(H12, params, ch)
            if st is None:
                st = self._solve(H12, rechart, params, ch)
        self._last = st
        if self._bounded:
            outside = self._outside(st.cp.x, st.cp.charts)
            if outside > 0.0 and self._networks:
                # a patch network's iteration runs past its boundary sides (extrapolated), and
                # from a stale start it can end there: only a global search may say "outside"
                st = self._global_state(st)
                outside = self._outside(st.cp.x, st.cp.charts)
            if outside > 0.0:   # the contact point left a bounded surface: no contact there
                st = ContactState(None, st.H_12, None, None, None, -outside, None, True)
        self._cache_key, self._cache = key, st
        return st

    def _closest(self, H12):
        """The global search for the contact pair at `H12`: `closest_points`, or for a point
        `point_contact` (the foot of the normal; `GeometryError` on an edge of a patch)."""
        if not self._point:
            return closest_points(self.S1, self.S2, H12)
        pc = point_contact(self.S1, self.S2, H12)
        return ClosestPoints(x=np.array([pc.u1, pc.v1, 0.0, 0.0]), charts=(pc.chart1, 0), p1=pc.p1, n1=pc.n1,
                             p2=pc.p2, n2=pc.n2, distance=pc.distance, gap_residual=0.0, normal_residual=0.0,
                             iterations=pc.iterations, curvature_margin=pc.margin, searched_globally=True)

    def _global_state(self, st):
        """The contact state from the global search at `st`'s pose when it finds a pair inside
        the surfaces, else `st`."""
        try:
            cp = self._closest(st.H_12)
        except GeometryError:
            return st
        if self._outside(cp.x, cp.charts) > 0.0:
            return st
        found = self._pair_state(st.H_12, cp.x, cp.charts)
        if found is None:
            return st
        self._last = found
        return found

    def _off_edge(self, refs, ch):
        """The no-contact state where a closed form puts the contact point off a bounded
        surface (a plane's extent), else None. (Without a closed form, Newton clamps to the
        edge and the state's own check, or the failure to find a regular pair, takes over.)"""
        H12 = self.H_12(refs)
        if self._point:
            return self._point_off_edge(H12, ch)
        found, x = _kclosest.closed_form_extended(self._F1, self._I1, self._F2, self._I2, H12[:3, :3].copy(),
                                                  H12[:3, 3].copy(), ch[0], ch[1])
        outside = self._outside(x, ch) if found else 0.0
        if not outside > 0.0:
            return None
        D1, _, _, _, _, _, e, _ = _kclosest._evaluate(self._F1, self._I1, self._F2, self._I2, H12[:3, :3].copy(),
                                                      H12[:3, 3].copy(), x, ch[0], ch[1])
        n1 = _kclosest.weingarten(D1)[0]
        return ContactState(None, H12, None, None, None, -outside, None, True, -float(n1 @ e))

    def _point_off_edge(self, H12, ch):
        """`_off_edge` of a point: over a bounded plane, the foot of the normal on the plane
        extended past its extent (closed form) and the point's depth below it (the energy the
        release books as lost). A point whose foot leaves a bounded curved patch has no such
        extension: None, and the foot's projection, clamped to the edge, stops the run with a
        `GeometryError` naming the edge (`point_contact`)."""
        if not (self._I1[0] == _ksurfaces.SEPARABLE and self._I1[5] == _ksurfaces.SHAPE_PLANE):
            return None
        c = H12[:3, :3] @ self.S2.center + H12[:3, 3]
        x = np.zeros(4)
        x[0], x[1] = _kclosest._plane_parameters(self._F1, c)
        outside = self._outside(x, ch)
        if not outside > 0.0:
            return None
        origin, _, _, normal = _kclosest._plane(self._F1)
        return ContactState(None, H12, None, None, None, -outside, None, True,
                            -float(np.dot(normal, c - np.array(origin))))

    def _outside(self, x, charts):
        """How far the contact parameters lie outside the bounded directions of their domains
        (0 inside; parameter units, metres for a plane's extent)."""
        out = 0.0
        for k in range(2):
            lo_u, lo_v, hi_u, hi_v = self._edges[k][int(charts[k])]
            u, v = x[2 * k], x[2 * k + 1]
            out += max(lo_u - u, 0.0, u - hi_u) + max(lo_v - v, 0.0, v - hi_v)
        return out

    def _pose_args(self, refs):
        """The kernels' pose arguments of the two bodies: pose vectors, empty for a ground."""
        pa = refs[0] if self._moving[0] else _EMPTY
        pb = refs[int(self._moving[0])] if self._moving[1] else _EMPTY
        return pa, pb

    def separation(self, refs):
        """A lower bound of the signed distance from the surfaces' bounds [m]
        (`porthamiltonian.kernels.contact.separation`; -inf where no bound applies)."""
        pa, pb = self._pose_args(refs)
        return _kcontact.separation(self._B1, self._B2, pa, pb, self._H_Wa, self._H_Wb, self.H_S1a, self.H_bS2)[0]

    def _as_state(self, res):
        (H12, x, c1, c2, it, D1, D2, n1, n2, distance, margin, gap, ang, H_1C, G_a, G_b) = res
        cp = ClosestPoints(x=x, charts=(c1, c2), p1=D1[0, 0], n1=n1, p2=D2[0, 0], n2=n2, distance=distance,
                           gap_residual=gap, normal_residual=ang, iterations=it, curvature_margin=margin,
                           searched_globally=False)
        return ContactState(cp, H12, H_1C, G_a, G_b, -distance, (D1, D2))

    def _pair_state(self, H12, x0, ch):
        """The refinement and contact frame from a start; None if it did not reach a regular
        contact pair."""
        if self._compiled:
            res = _kcontact.pair_state(self._F1, self._I1, self._F2, self._I2, H12, np.asarray(x0, dtype=float),
                                       int(ch[0]), int(ch[1]), self._scale, DEFAULT_TOL, _MAX_ITER, self.alpha,
                                       self.H_S1a, self.H_bS2, REGULARITY_TOL)
            return self._as_state((H12,) + res[1:]) if res[0] else None
        try:
            cp, D1, D2 = refine(self.S1, self.S2, H12[:3, :3], H12[:3, 3], x0, ch, max_iter=_MAX_ITER)
        except GeometryError:
            return None
        if not cp.curvature_margin > 0.0:
            return None
        D1, D2 = np.asarray(D1, dtype=float), np.asarray(D2, dtype=float)
        H_1C, G_a, G_b = _kcontact.frame_and_maps(D1, cp.n1, cp.distance, self.alpha, H12, self.H_S1a, self.H_bS2)
        return ContactState(cp, H12, H_1C, G_a, G_b, -cp.distance, (D1, D2))

    def _solve(self, H12, rechart, params, ch):
        """Exact contact points when the tracked parameters did not give them directly.

        A solver stage (a large explicit step while a body tumbles in the air) can carry the
        tracked parameters far from the contact, past a chart's singular set, or Newton may
        land on another stationary pair. The contact pair of convex bodies is unique, so any
        start that reaches a regular pair (curvature margin > 0) gives the same answer: try
        the tracked parameters re-expressed in the charts farthest from their singular sets,
        then the last solution computed, then a global search.
        """
        st = None
        if rechart:
            x0, ch0 = self.farthest_charts(params, ch)
            st = self._pair_state(H12, x0, ch0)
        if st is None and self._last is not None:
            st = self._pair_state(H12, self._last.cp.x, self._last.cp.charts)
        if st is not None:
            return st
        try:
            cp = self._closest(H12)
        except GeometryError as exc:
            raise GeometryError(
                f"contact between {self.body_a.name!r} and {self.body_b.name!r}: the contact point was lost "
                f"({exc})"
            ) from None
        st = self._pair_state(H12, cp.x, cp.charts)
        if st is None:
            raise GeometryError(
                f"contact between {self.body_a.name!r} and {self.body_b.name!r}: the contact point was lost "
                f"(the global search found {cp.x.tolist()} in charts {cp.charts}, which does not refine to a "
                f"regular contact pair: curvature margin {cp.curvature_margin:.3g} 1/m)"
            )
        return st

    def pack(self, *, cullable, depth_limit=math.inf, relax=0.0, law=(0.0,) * 5, c_spin=0.0, c_t=0.0, c_slip=0.0,
             mu=0.0, mu_spin=0.0, k_spin=0.0, k_t=0.0, dahl=False, python_surfaces=False):
        """``(F, I)`` of the pair for the compiled contact kernels (`porthamiltonian.kernels.
        compliant.pack`: its geometry, and the compliant contact's law and friction where given),
        or None where a surface is evaluated in Python, unless `python_surfaces` (the elements'
        Python path: a surface evaluated in Python is packed by its domains only, which the
        kernels after the pair state read). Called once, at compile time."""
        if not (self._compiled or python_surfaces):
            return None
        minv = [b.Minv if moving else np.zeros((6, 6)) for b, moving in zip((self.body_a, self.body_b), self._moving)]
        return _kcompliant.pack(
            scale=self._scale, tol=DEFAULT_TOL, alpha=self.alpha, reg_tol=REGULARITY_TOL,
            cull_distance=self.cull_distance, depth_limit=depth_limit, relax=relax, c_spin=c_spin, c_t=c_t,
            c_slip=c_slip, mu=mu, mu_spin=mu_spin, k_spin=k_spin, k_t=k_t, law=law, H_Wa=self._H_Wa, H_Wb=self._H_Wb,
            H_S1a=self.H_S1a, H_bS2=self.H_bS2, Ad_S2b=self._Ad_S2b, Ad_S1a=self._Ad_S1a, Minv_a=minv[0],
            Minv_b=minv[1], B1_=self._B1, B2_=self._B2, chart_margin=self.CHART_MARGIN, edges=self._edges,
            F1=self._F1, I1=self._I1, F2=self._F2, I2=self._I2, max_iter=_MAX_ITER,
            cullable=cullable and self._cullable, moving_a=self._moving[0], moving_b=self._moving[1], dahl=dahl)

    def local_hertz(self, st, modulus):
        """Hertz stiffness K [N/m^(3/2)] at the contact state `st` from the contact modulus
        and the local curvatures, and its rate per unit relative twist in the contact frame
        (`porthamiltonian.kernels.contact.local_hertz`).

        Raises
        ------
        GeometryError
            Where Hertz theory does not apply: the relative curvature is not positive
            definite (conforming or concave surfaces) or is a line contact.
        """
        if self._point:
            raise GeometryError(
                f"contact between {self.body_a.name!r} and {self.body_b.name!r}: the local Hertz stiffness needs "
                f"the curvature of both bodies, and {self.S2!r} is a point (no radius): use a law whose stiffness is "
                "given (linear, Hertz with a stated stiffness, Hunt-Crossley)")
        if self._local is not None and self._local[0] is st and self._local[1] == modulus:
            return self._local[2]   # the spring, damper and slip of one evaluation share it
        D1, D2 = st.D
        K, g, ok = _kcontact.local_hertz(self._F1, self._I1, self._F2, self._I2, np.asarray(st.cp.x, dtype=float),
                                         int(st.cp.charts[0]), int(st.cp.charts[1]), D1, D2, st.H_12, st.H_1C,
                                         float(modulus), _kcontact.HERTZ_MAX_RATIO)
        if not ok:
            trace, det = _kcontact.curvature_invariants(D1, D2, st.H_12[:3, :3].copy())
            s = math.sqrt(max(0.25 * trace * trace - det, 0.0))
            raise GeometryError(
                f"contact between {self.body_a.name!r} and {self.body_b.name!r}: the Hertz stiffness from the "
                f"local curvatures is not defined at parameters {np.round(st.cp.x, 6).tolist()}: principal relative "
                f"curvatures ({0.5 * trace + s:.6g}, {0.5 * trace - s:.6g}) 1/m must both be positive with a ratio "
                f"<= {_kcontact.HERTZ_MAX_RATIO:g} (conforming, concave or line contact)")
        self._local = (st, modulus, (K, g))
        return K, g

    def relative_twist_12(self, T_a, T_b, H12):
        """Twist of S2 relative to S1 in frame 1 from the body twists."""
        return _kcontact.relative_twist(H12, self._Ad_S2b, self._Ad_S1a, np.asarray(T_a, dtype=float),
                                        np.asarray(T_b, dtype=float))

    def _check_condition(self, st, s_max, s_min):
        if not s_min > s_max / MAX_CONDITION:
            raise singular_kinematics_error(self.S1, self.S2, st.cp.x, st.cp.distance, s_max, s_min)

    def parameter_rates(self, st, params, charts, T_a, T_b, relax=1.0):
        """d(params)/dt: the contact kinematics in the tracked charts, plus a relaxation of the
        tracked parameters toward the exact ones at rate `relax` [1/s]
        (`porthamiltonian.kernels.contact.parameter_rates`)."""
        T12 = self.relative_twist_12(T_a, T_b, st.H_12)
        c1, c2 = st.cp.charts
        rate, s_max, s_min = _kcontact.parameter_rates(
            self._F1, self._I1, self._F2, self._I2, st.cp.x, c1, c2, st.D[0], st.D[1], st.H_12, T12,
            np.asarray(params, dtype=float), int(round(charts[0])), int(round(charts[1])), float(relax))
        self._check_condition(st, s_max, s_min)
        return rate

    def spring_rates(self, st, params, charts, T_a, T_b, slip, s, active, relax=1.0):
        """Rates of a compliant spring's tracked parameters and deformation ``(phi, s_x, s_y)``
        (`porthamiltonian.kernels.contact.spring_rates`); the deformation rate is zero unless
        `active`."""
        c1, c2 = st.cp.charts
        x_rate, s_rate, s_max, s_min = _kcontact.spring_rates(
            self._F1, self._I1, self._F2, self._I2, st.cp.x, c1, c2, st.D[0], st.D[1], st.H_12, st.H_1C, st.G_a,
            st.G_b, self._Ad_S2b, self._Ad_S1a, np.asarray(T_a, dtype=float), np.asarray(T_b, dtype=float),
            np.asarray(slip, dtype=float), np.asarray(params, dtype=float), int(round(charts[0])),
            int(round(charts[1])), float(relax), np.asarray(s, dtype=float), bool(active))
        self._check_condition(st, s_max, s_min)
        return x_rate, s_rate

    def sliding_plane_bias(self, st, T_a, T_b, rows):
        """Acceleration bias of sliding-plane constraint rows (contact-frame axes 3: x, 4: y,
        5: normal), `porthamiltonian.kernels.contact.sliding_plane_bias`."""
        bias, s_max, s_min = _kcontact.sliding_plane_bias(
            st.D[0], st.D[1], st.H_12, st.H_1C, self._Ad_S2b, self._Ad_S1a, np.asarray(T_a, dtype=float),
            np.asarray(T_b, dtype=float), self.alpha, rows)
        self._check_condition(st, s_max, s_min)
        return bias

    def in_charts(self, st, charts):
        """The exact contact parameters expressed in `charts`."""
        x = np.array(st.cp.x, dtype=float)
        for k, S in enumerate((self.S1, self.S2)):
            if st.cp.charts[k] != charts[k]:
                x[2 * k], x[2 * k + 1] = _map(S, x[2 * k], x[2 * k + 1], st.cp.charts[k], charts[k])
        return x

    def initial(self, refs):
        """Parameters and charts of the global closest points at the given poses, in the
        charts farthest from their singular sets.

        Raises GeometryError if the contact points are not isolated (conforming contact:
        a cylinder or a torus lying on a plane, two planes): the contact kinematics need
        a regular contact matrix (Duindam & Stramigioli, *Modeling the kinematics and dynamics of
        compliant contact*, 2003, Theorem 1).
        """
        try:
            cp = self._closest(self.H_12(refs))
        except GeometryError as exc:
            if self._point or self.S1.is_convex or self.S2.is_convex:
                raise
            # neither surface strictly convex (a cylinder, a torus, a plane): the usual cause is
            # a conforming contact, which every start of the search reports at length
            detail = str(exc).split(": S1 = ")[0]
            raise GeometryError(
                f"contact between {self.body_a.name!r} and {self.body_b.name!r}: no isolated contact point between "
                f"{self.S1!r} and {self.S2!r} at the initial poses ({detail[:160]}). Neither surface is strictly "
                "convex, so they can touch along a line or a patch (a cylinder lying on a plane); contacts need "
                "surfaces that touch at a point: use a Sphere or an Ellipsoid, crown the surface, or tilt the body"
            ) from None
        if not cp.curvature_margin > 1e-9:
            raise GeometryError(
                f"contact between {self.body_a.name!r} and {self.body_b.name!r}: the contact points are not "
                f"isolated at the initial poses (curvature margin {cp.curvature_margin:.3g} 1/m: conforming "
                "contact along a line or a patch); use surfaces that touch at a point (crown a cylinder, tilt "
                "the body)"
            )
        x, charts = self.farthest_charts(cp.x, cp.charts)
        return x, np.array(charts, dtype=float), cp

    #: the tracked parameters change chart when they come this close [rad] to a singular
    #: set of their chart. In the lat-long atlases the distances to the two charts' poles
    #: add up to at least pi/2, so the other chart is then at least pi/2 - 0.6 = 0.97 rad
    #: away: a strict improvement with a 0.37 rad hysteresis (at pi/4 the two tie)
    CHART_MARGIN = 0.6

    def chart_margin(self, st, charts):
        """Smallest distance of the exact contact points to a singular set of the tracked
        charts, minus `CHART_MARGIN`, or for a patch network their `transition_margin` in
        the tracked patch (the event function of chart switches)."""
        ch = (int(round(charts[0])), int(round(charts[1])))
        x = self.in_charts(st, ch)
        out = np.inf
        for k, S in enumerate((self.S1, self.S2)):
            if S.is_network:    # the exact point past a shared side of the tracked patch (NaN: not a neighbour's)
                out = min(out, S.transition_margin(x[2 * k], x[2 * k + 1], ch[k]))
            elif S.n_charts > 1:
                d = S.domain(ch[k]).distance_to_singular(x[2 * k], x[2 * k + 1])
                out = min(out, d - self.CHART_MARGIN)
        return out

    @staticmethod
    def _canonical(S, u, v, c):
        """(u, v) of chart c brought inside the domain (a point past a pole is re-read
        through another chart)."""
        dom = S.domain(c)
        u, v = dom.wrap(u, v)
        if all(dom.periodic[i] or dom.lower[i] <= (u, v)[i] <= dom.upper[i] for i in range(2)) or S.n_charts == 1:
            return u, v
        other = (c + 1) % S.n_charts
        return _map(S, *_map(S, u, v, c, other), other, c)

    def farthest_charts(self, params, charts):
        """The parameters re-expressed, for each surface, in the chart whose singular set is
        farthest (no hysteresis: used when the tracker reached the switch margin; a tie to
        within `_CHART_TIE` keeps the given chart, so round-off does not pick it); for a patch
        network, in the patch that holds them."""
        x = np.array(params, dtype=float)
        out = []
        for k, S in enumerate((self.S1, self.S2)):
            c = int(round(charts[k]))
            if S.is_network:     # the patch that holds the point
                c, x[2 * k], x[2 * k + 1] = S._best_chart(x[2 * k], x[2 * k + 1], c)
                out.append(c)
                continue
            x[2 * k], x[2 * k + 1] = self._canonical(S, x[2 * k], x[2 * k + 1], c)
            best = (S.domain(c).distance_to_singular(x[2 * k], x[2 * k + 1]), c, x[2 * k], x[2 * k + 1])
            for other in range(S.n_charts):
                if other != c:
                    u, v = _map(S, x[2 * k], x[2 * k + 1], c, other)
                    d = S.domain(other).distance_to_singular(u, v)
                    if d > best[0] + _CHART_TIE:
                        best = (d, other, u, v)
            out.append(best[1])
            x[2 * k], x[2 * k + 1] = best[2], best[3]
        return x, tuple(out)

    def pose_rate_matrix(self, refs):
        """B-matrix block: pose rates of the moving bodies from the port twists (a, b)."""
        blocks = []
        for k, moving in enumerate(self._moving):
            if moving:
                pose = refs[sum(self._moving[:k])]
                blocks.append((k, _rate_map(pose)))
        B = np.zeros((7 * len(blocks), 12))
        for i, (k, K) in enumerate(blocks):
            B[7 * i : 7 * i + 7, 6 * k : 6 * k + 6] = K
        return B

    def pose_gradient(self, refs, e_a, e_b):
        """grad over the moving bodies' poses of an energy whose port efforts are e_a, e_b."""
        out = []
        if self._moving[0]:
            out.append(pose_gradient(refs[0], e_a))
        if self._moving[1]:
            out.append(pose_gradient(refs[int(self._moving[0])], e_b))
        return np.concatenate(out) if out else np.zeros(0)
