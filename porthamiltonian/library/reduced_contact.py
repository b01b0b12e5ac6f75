"""Reduced contact coordinates (Kry & Pai, *Continuous contact simulation for smooth surfaces*,
2003): the third contact submodel.

`ReducedContact(...)` returns a component with the ports of `CompliantContact` and
`SlidingPlaneContact` ("a", "b", bonded from the two bodies' "B" ports), so a model swaps to
it with one argument (`library.contact("reduced", ...)`). One of the two bodies must be fixed
(a `Ground`): the paper's formulation evolves one body in contact with a fixed one.

Phases (`simulate` runs them; `porthamiltonian.integrate.reduced`):

* **Free flight**: the contact is off; the bodies move under their other forces. The
  contact's "impact" event watches the signed distance (closest points, warm-started).
* **Impact**: when the distance reaches zero, Newton's law with `restitution` acts on the
  normal speed (the kinetic energy it removes is booked as lost). An impact slower than
  `rest_speed` is plastic and the contact stays on: continuous contact is established.
* **Continuous contact**: the state of the moving body is carried by the contact coordinates
  ``q = (s, t, u, v, psi)`` and their rates (`porthamiltonian.contact.reduced`), so the
  surfaces touch by construction: no stabilization, the gap stays at round-off at any step
  size. Entering, the state is moved exactly onto the contact (its residual normal speed and
  distance, solver-tolerance small, are dropped; the energy change is booked as lost).
* **Separation**: when the normal force of the reduced solve turns negative (the contact
  would pull), the body leaves with its pose and twist; also when the contact point reaches
  the edge of a bounded surface (a table's extent, a patch's side): the body leaves that
  surface, and while its would-be contact point lies beyond the edge the contact stays off.

Friction (`friction`):

* ``"frictionless"``: no tangential force.
* ``"rolling"``: no slip at all (unlimited friction), as the sliding plane's rolling mode.
* ``"coulomb"``: the paper's two regimes. Sliding: dynamic Coulomb friction ``mu N`` against
  the slip; when the slip speed falls below `slip_speed` (Kry & Pai 2003: 5 mm/s) the contact sticks:
  a tangential impulse at the contact point removes the remaining slip (its kinetic energy
  is booked as lost) and the no-slip mode follows; it slips again when the friction force
  it needs leaves the cone ``|F_t| <= mu N``, the friction force then keeping its direction
  (the slip starts against it).

``rolling_damping`` and ``spin_damping`` (0 by default, not in the paper) add a viscous moment
against rolling and spinning in continuous contact, booked as dissipated.

Outside continuous contact (and for diagnostics such as `PHSystem.multipliers`) the
element is the sliding-plane constraint of the same pair (`SlidingPlaneConstraint`, its
rolling rows for ``"rolling"``, regularized Coulomb with ``eps = slip_speed`` for
``"coulomb"``); on an exact contact state the two formulations give the same accelerations
(tests/contact/test_reduced.py).
"""

from __future__ import annotations

import numpy as np

from porthamiltonian._validate import as_finite_float
from porthamiltonian.bondgraph.element import register_element
from porthamiltonian.contact.reduced import reduced_coordinates_from, reduced_solve
from porthamiltonian.kernels import lie as _klie
from porthamiltonian.kernels import reduced as _kred
from porthamiltonian.kernels import surfaces as _ksurf
from porthamiltonian.errors import GeometryError, ModelError, ParameterError
from porthamiltonian.geometry.surface import REGULARITY_TOL
from porthamiltonian.lie import quaternion, se3

from .contact_geometry import ContactPair
from .sliding_plane_contact import _ACT, _CH, _X, SlidingPlaneConstraint, contact_component

__all__ = ["ReducedContact", "ReducedContactConstraint", "ReducedChart"]

#: how far (m, relative to 1 + |position|) the pose may be from an exact contact when the
#: continuous phase starts (an impact located by the solver, a user's initial state)
ENTRY_TOLERANCE = 1e-6


@register_element
class ReducedContactConstraint(SlidingPlaneConstraint):
    """The contact element of `ReducedContact` (module docstring).

    Own state: that of `SlidingPlaneConstraint` (contact parameters, charts, contact flag).
    The stick/slip regime of ``"coulomb"`` is the integrator's (it starts stuck when the slip
    is below `slip_speed` and the friction cone holds the no-slip force).
    """

    type_name = "ReducedContactConstraint"
    reduced = True
    #: `simulate` integrates the contact coordinates while it is on (`porthamiltonian.integrate.reduced`)
    integrator_phases = ("reduced",)

    def __init__(self, name, pair: ContactPair, *, friction="frictionless", mu=0.5, restitution=0.0, rest_speed=1e-3,
                 slip_speed=5e-3, max_gap=None, rolling_damping=0.0, spin_damping=0.0, slip_relax=10.0):
        if friction == "coulomb" and not as_finite_float(mu, "mu", nonnegative=True) > 0.0:
            raise ParameterError(f"`mu` must be > 0 with friction='coulomb' (use 'frictionless'), got {mu!r}")
        slip_speed = as_finite_float(slip_speed, "slip_speed", positive=True)
        super().__init__(name, pair, friction=friction, mu=mu, eps=slip_speed, restitution=restitution, unilateral=True,
                         max_gap=max_gap, rest_speed=rest_speed)
        self.slip_speed = slip_speed
        # "coulomb" sticks and slips in the reduced integrator's own phases (`integrate.reduced`):
        # one row, not the sliding plane's no-slip rows
        self._rows = (5, 3, 4) if friction == "rolling" else (5,)
        self._row_array = np.array(self._rows, dtype=np.int64)
        self.rolling_damping = as_finite_float(rolling_damping, "rolling_damping", nonnegative=True)
        self.spin_damping = as_finite_float(spin_damping, "spin_damping", nonnegative=True)
        self.slip_relax = as_finite_float(slip_relax, "slip_relax", nonnegative=True)
        if pair._moving[0] == pair._moving[1]:
            raise ModelError(
                f"reduced contact {name!r}: one of the bodies must be fixed (a Ground); got the moving bodies "
                f"{pair.body_a.name!r} and {pair.body_b.name!r} (Kry & Pai 2003 evolve one body on a fixed one: use "
                "the sliding-plane or compliant contact between two moving bodies)")

    def events(self):
        """The chart change and the impact; separation is the reduced phase's own event (the
        normal force of the reduced solve), not the multiplier's."""
        return tuple(e for e in super().events() if e.name != "detach")

    def is_active(self, own):
        return own[_ACT] > 0.5

    # ---- off the surface: a bounded surface's edge ends the contact (the body leaves it);
    # while the contact point lies beyond an edge the contact stays off and only its distance
    # (positive: the amount outside) is asked, for the impact event
    def _state(self, x, refs):
        return self.pair.state(x[_X], x[_CH], refs)

    def terms(self, t, x, refs):
        st = self._state(x, refs)
        if not st.culled:
            return super().terms(t, x, refs)
        n = len(self._rows)
        g = np.full(n, np.nan)
        g[0] = st.delta
        return np.zeros((n, 12)), np.zeros(n), g

    def acceleration_bias(self, t, x, refs, flows):
        if self._state(x, refs).culled:
            return np.zeros(len(self._rows))
        return super().acceleration_bias(t, x, refs, flows)

    def effort_map(self, t, x, refs, flows):
        if self._state(x, refs).culled:
            return None
        return super().effort_map(t, x, refs, flows)

    def rates(self, t, x, refs, flows):
        if self._state(x, refs).culled:
            return np.zeros(7)
        return super().rates(t, x, refs, flows)

    def _chart_fn(self, t, x, refs):
        st = self._state(x, refs)
        return 1.0 if st.culled else self.pair.chart_margin(st, x[_CH])

    def reduced_chart(self, system, path, t, x):
        """A `ReducedChart` of this contact at the touching state `x` of `system`."""
        return ReducedChart(self, system, path, t, x)

    def parameters(self):
        return {"pair": self.pair.parameters(), "friction": self.friction, "mu": self.mu,
                "restitution": self.restitution, "rest_speed": self.rest_speed, "slip_speed": self.slip_speed,
                "max_gap": self.max_gap, "rolling_damping": self.rolling_damping, "spin_damping": self.spin_damping,
                "slip_relax": self.slip_relax}


class ReducedChart:
    """The map between a system's state ``x`` and ``z = (q, dq/dt, rest)`` for one contact in
    continuous contact, in one pair of charts.

    ``rest`` is every entry of ``x`` but the moving body's pose and momentum. In ``x`` the
    moving body's pose is ``H_W1 H_12(q) inv(G)`` and its momentum ``M Ad(G) H_2(q) dq/dt``
    (``H_W1`` the fixed surface's frame in the world, ``G`` the moving surface's frame in its
    body); the contact's own parameters follow ``q`` and its flag is on.

    Attributes
    ----------
    z0 : ndarray
        The start of the chart (`x` moved exactly onto the contact).
    x0 : ndarray
        `z0` as a state (`to_x`).
    normal_speed : float [m/s]
        The separating speed the start dropped (solver-tolerance small after an impact).
    """

    def __init__(self, element, system, path, t, x):
        pair, L = element.pair, system.layout
        self.element, self.system, self.path = element, system, path
        self.where = f"in contact {path}"
        fixed_a = not pair._moving[0]
        self.swap = not fixed_a
        moving = pair.body_b if fixed_a else pair.body_a
        self.S1, self.S2 = (pair.S1, pair.S2) if fixed_a else (pair.S2, pair.S1)
        fixed_body = pair.body_a if fixed_a else pair.body_b
        self.H_W1 = fixed_body.H_WG @ (pair.H_aS1 if fixed_a else pair.H_bS2)
        self.H_1W = se3.inverse(self.H_W1)
        G = pair.H_bS2 if fixed_a else pair.H_aS1
        self.G, self.G_inv = G, se3.inverse(G)
        self.AdG = se3.Ad(G)
        body_path = next(p for p, o in system.elements.items() if o is moving)
        self.M = moving.M
        self.Minv = moving.Minv
        self.M_s = self.AdG.T @ moving.M @ self.AdG
        self.pose, self.P = L[f"{body_path}.pose"], L[f"{body_path}.P"]
        self.own = L.element_slice(path)
        body = np.zeros(L.size, dtype=bool)
        body[self.pose] = body[self.P] = True
        self.rest = np.flatnonzero(~body)
        own_mask = np.zeros(L.size, dtype=bool)
        own_mask[self.own] = True
        self.own_in_rest = np.flatnonzero(own_mask[self.rest])   # slaved to q: no rates
        entry = {e.kind: e for e in L.ledger if e.element == path}
        self.dissipated = self.z_index(L.n_physical + entry["dissipated"].index)
        self.stabilized = self.z_index(L.n_physical + entry["stabilization"].index)
        self.template = np.array(x, dtype=float)
        self.z0, self.normal_speed = self._start(t, x)
        sides = (1, 0) if self.swap else (0, 1)
        self.edges = [pair._edges[sides[k]][self.charts[k]] for k in range(2)]
        self.x0 = self.to_x(self.z0)

    def _start(self, t, x):
        """``z`` of the exact contact nearest `x`, and the normal speed it drops."""
        el, own = self.element, x[self.own]
        st = el._state(own, self.system.element_state(self.path, x)[1])
        params, charts = np.array(st.cp.x, dtype=float), tuple(int(c) for c in st.cp.charts)
        if self.swap:
            params, charts = params[[2, 3, 0, 1]], charts[::-1]
        self.charts = charts
        H_Wm = _klie.pose_to_matrix(x[self.pose])
        H_12 = self.H_1W @ H_Wm @ self.G
        T_s = se3.Ad(self.G_inv) @ (self.Minv @ x[self.P])
        q, qd, vn = reduced_coordinates_from(self.S1, self.S2, params, H_12, T_s, charts=charts,
                                             pose_tol=ENTRY_TOLERANCE)
        return np.r_[q, qd, x[self.rest]], vn

    def z_index(self, index):
        """Position in ``z`` of the state entry `index` (one of ``rest``)."""
        return 10 + int(np.flatnonzero(self.rest == index)[0])

    def _derivatives(self, k, u, v):
        """Order-3 derivative array of side k's surface in its chart: compiled surfaces by their
        kernel, extrapolated past a bounded edge (so that a step's stages may cross it and the
        edge event is located), the others through `Surface.derivatives` (GeometryError
        outside the domain: the step is rejected and shrinks). A patch of a network is
        extrapolated at most `PatchNetwork.REACH` past its sides (GeometryError beyond: a
        polynomial patch departs quickly from its neighbour outside its domain, so a large
        step that carries the contact across a patch is shrunk and the transition approached
        from inside, as the paper does, sec. 3.5). A point where the normal is
        undefined raises GeometryError naming the surface and the point."""
        S, chart = (self.S1, self.S2)[k], self.charts[k]
        if not S._is_compiled:
            return S.derivatives(u, v, 3, chart)
        if S.is_network and not (-S.REACH <= u <= 1.0 + S.REACH and -S.REACH <= v <= 1.0 + S.REACH):
            raise GeometryError(f"the contact point is past a side of patch {chart} of {S!r} at (u, v) = "
                                f"({u:.6g}, {v:.6g}) (by more than REACH = {S.REACH:g}): the step is shrunk so that "
                                "the transition is approached from inside the patch")
        F, I = S._kernel_spec
        D = _ksurf.derivatives(F, I, float(u), float(v), 3, chart)
        if not _ksurf.regular(F, D, chart, REGULARITY_TOL):
            raise GeometryError(f"{S!r} is not regular at (u, v) = ({u:.9g}, {v:.9g}) in chart {chart} (f_u x f_v "
                                "vanishes): the reduced contact coordinates are undefined there")
        return D

    def _matrices(self, z):
        """`porthamiltonian.kernels.reduced.contact_matrices` at ``z`` (the surfaces evaluated
        once)."""
        return _kred.contact_matrices(self._derivatives(0, z[0], z[1]), self._derivatives(1, z[2], z[3]), z[4], z[5:10])

    def chart_margin(self, z):
        """The contact coordinates' distance to the nearest singular set of their charts (an
        ellipsoid's or sphere's poles) minus the pair's chart switch margin, or to a shared
        side of a patch network's patch (`PatchNetwork.transition_margin`: a patch
        transition), inf with single charts: at zero the contact point changes chart (the
        element's "chart" event, after which the phase restarts in the new charts from the
        same physical state; Kry & Pai sec. 3.5)."""
        m = np.inf
        for k, S in enumerate((self.S1, self.S2)):
            if S.is_network:
                m = min(m, S.transition_margin(z[2 * k], z[2 * k + 1], self.charts[k]))
            elif S.n_charts > 1:
                m = min(m, S.domain(self.charts[k]).distance_to_singular(z[2 * k], z[2 * k + 1], signed=True)
                        - self.element.pair.CHART_MARGIN)
        return m

    def edge_margin(self, z):
        """How far the contact point is from the nearest edge of a bounded surface (a plane's
        extent, a patch's sides; not poles or periodic directions), in parameter units; inf
        when neither surface has edges. At zero the contact leaves the surface."""
        m = np.inf
        for k in range(2):
            lo_u, lo_v, hi_u, hi_v = self.edges[k]
            u, v = z[2 * k], z[2 * k + 1]
            m = min(m, u - lo_u, v - lo_v, hi_u - u, hi_v - v)
        return m

    def to_x(self, z, active=True, matrices=None):
        """The state of the system at ``z`` (with the contact flag off when not `active`: the
        body leaves the contact)."""
        m = self._matrices(z) if matrices is None else matrices
        q = z[:5]
        x = self.template.copy()
        x[self.rest] = z[10:]
        x[self.pose] = quaternion.matrix_to_pose(self.H_W1 @ m[0] @ self.G_inv)   # a pose by construction: no check
        x[self.P] = self.M @ (self.AdG @ (m[4] @ z[5:10]))
        own = x[self.own]
        own[_X] = q[[2, 3, 0, 1]] if self.swap else q[:4]
        own[_CH] = self.charts[::-1] if self.swap else self.charts
        own[_ACT] = 1.0 if active else 0.0
        x[self.own] = own
        return x

    def dynamics(self, t, z, rhs, mode, slip_direction=None):
        """``(dz/dt, ReducedDynamics)`` at ``z``: the other forces on the moving body from the
        system's rates with this contact off (`rhs` evaluates the system), the contact from
        `reduced_solve` in `mode`; friction's power goes to the contact's dissipated ledger
        entry, the slip relaxation's to its stabilization entry. No checks here (the right-hand side): a point outside its chart raises the
        surface's GeometryError, and so does a stage at which the rest of the system has no
        rates (`rhs` gives NaN there), which the caller turns into a rejected step."""
        m = self._matrices(z)
        xd = rhs(t, self.to_x(z, active=False, matrices=m))
        if not np.all(np.isfinite(xd)):     # the system could not be evaluated at this stage (`rhs.failed` says why)
            raise GeometryError(f"the rest of the system has no rates at t = {t:.9g} s (a solver stage past the "
                                "contact's events)")
        el = self.element
        # a slide that starts from rest (the friction force left the cone, `slip_direction`
        # given) opposes the blend of that direction and the slip until the slip reaches
        # `slip_speed` (`porthamiltonian.kernels.reduced._friction_axis`, continuous there):
        # following the slip's own direction at a tiny speed makes the friction's direction
        # turn at a rate mu N / (m |slip|) (issue 36: 1e-7 s steps from a slip event on; and
        # a switch of direction at the floor, not a blend, held the slip on it); a slide from a
        # slipping state follows the slip down to round-off (its stick event fires at
        # `slip_speed`, and stages past it must evaluate)
        floor = el.slip_speed if slip_direction is not None else 1e-6 * el.slip_speed
        r = reduced_solve(m, z[5:10], self.M_s, self.AdG.T @ xd[self.P], mode=mode, mu=el.mu,
                          slip_direction=slip_direction, slip_floor=floor, where=self.where,
                          rolling_damping=el.rolling_damping, spin_damping=el.spin_damping, slip_relax=el.slip_relax)
        zd = np.empty_like(z)
        zd[:5], zd[5:10], zd[10:] = z[5:10], r.q_acc, xd[self.rest]
        zd[10 + self.own_in_rest] = 0.0
        zd[self.dissipated] += r.dissipation
        zd[self.stabilized] += r.stabilization
        return zd, r

    def stick(self, z):
        """``z`` with the slip removed by a tangential impulse at the contact point (the
        change of the rates of least kinetic energy that zeroes the slip), and the kinetic
        energy it removes [J]."""
        qd = z[5:10]
        _, _, H_C, _, H_2, _, _, _ = self._matrices(z)
        K = H_2.T @ self.M_s @ H_2
        C = H_C[3:5]
        KiC = np.linalg.solve(K, C.T)
        qd_new = qd - KiC @ np.linalg.solve(C @ KiC, C @ qd)
        out = z.copy()
        out[5:10] = qd_new
        return out, 0.5 * (qd @ K @ qd - qd_new @ K @ qd_new)


def ReducedContact(name, body_a, surface_a, body_b, surface_b, *, pose_a=None, pose_b=None, friction="frictionless",
                   mu=0.5, restitution=0.0, rest_speed=1e-3, slip_speed=5e-3, max_gap=None, rolling_damping=0.0,
                   spin_damping=0.0, slip_relax=10.0):
    """A contact in reduced coordinates between a moving body and a fixed one (module docstring).

    Same ports and bonding as `SlidingPlaneContact` and `CompliantContact`::

        c = ReducedContact("c", ball, Sphere(0.05), ground, Plane(), friction="coulomb", mu=0.3)

    Parameters
    ----------
    name : str
    body_a, body_b : RigidBody or Ground
        Exactly one of them a `Ground`.
    surface_a, surface_b : Surface
        Smooth and regular near the contact (the reduced coordinates are the surfaces'
        parameters); the pair must touch at isolated points (no conforming contact).
    pose_a, pose_b : array_like (4, 4), optional
        The surfaces' frames in their bodies.
    friction : {"frictionless", "rolling", "coulomb"}
    mu : float
        Coulomb coefficient ("coulomb"; > 0 there).
    restitution : float in [0, 1]
        Newton's coefficient at impacts.
    rest_speed : float [m/s]
        Impacts slower than this are plastic and establish continuous contact.
    slip_speed : float [m/s]
        "coulomb": the slip speed below which the contact sticks (Kry & Pai 2003: 5 mm/s).
    max_gap : float [m], optional
        As for `SlidingPlaneContact`: a contact initialised farther than this is an error.
    rolling_damping, spin_damping : float [N m s/rad]
        Viscous resistance to rolling and spinning in continuous contact
        (`porthamiltonian.contact.reduced.reduced_dynamics`; not in the paper, 0 by default): a
        moment against the moving body's angular velocity relative to the fixed one, which
        lets a rocking body come to rest. Its power is booked as dissipated.
    slip_relax : float [1/s]
        No slip ("rolling", and "coulomb" while stuck): the slip that the integrator's error
        leaves decays at this rate instead of persisting (the condition is held at
        acceleration level; at RK4's large steps a persisting slip made a resting bowl glide
        on). Its work is booked as stabilization. Default 10 /s: stable with RK4 up to
        0.28 s steps.

    Raises
    ------
    ParameterError
        Bad parameters (named).
    ModelError
        Both bodies moving (or both fixed).
    """
    if not isinstance(friction, str) or friction not in ("frictionless", "rolling", "coulomb"):
        raise ParameterError(
            f"reduced contact {name!r}: `friction` must be 'frictionless', 'rolling' or 'coulomb', got {friction!r} "
            "(the coefficient is `mu`)")
    pair = ContactPair(body_a, surface_a, body_b, surface_b, pose_a=pose_a, pose_b=pose_b, alpha=0.0)
    con = ReducedContactConstraint("constraint", pair, friction=friction, mu=mu, restitution=restitution,
                                   rest_speed=rest_speed, slip_speed=slip_speed, max_gap=max_gap,
                                   rolling_damping=rolling_damping, spin_damping=spin_damping,
                                   slip_relax=slip_relax)
    return contact_component(name, con)
