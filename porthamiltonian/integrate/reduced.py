"""Continuous-contact phases in reduced contact coordinates (Kry & Pai, *Continuous contact
simulation for smooth surfaces*, 2003).

While a reduced contact (an element declaring the integrator phase "reduced" in its
``integrator_phases``, `library.ReducedContact`) is on, `simulate` integrates ``z = (q, dq/dt, rest)`` of the element's `ReducedChart` instead of the
system's state: the moving body's pose and momentum are functions of the contact
coordinates, so the surfaces touch by construction. Every sample is stored as a system
state (`ReducedChart.to_x`), so the trajectory, its ledger and its interpolant look the same
as in any other phase.

A phase ends at the first of these events (terminal, located by the solver on ``z``):

* ``separation``: the normal force of the reduced solve reaches zero; the contact turns off
  and the body flies (free-flight segments follow, until the element's impact event);
* ``edge``: the contact point reaches an edge of a bounded surface (a plane's extent, a
  patch's side): the body leaves the surface, the contact turns off (stages of the step that
  crosses it evaluate the surfaces extrapolated past the edge, so the event is located);
* ``stick`` ("coulomb", sliding): the slip speed falls to the element's `slip_speed`; a
  tangential impulse removes the rest of the slip (booked as lost) and no-slip follows;
* ``slip`` ("coulomb", no slip): the friction force needed leaves the cone ``mu N``;
  sliding follows, the friction force opposing a blend of its direction and the slip until
  the slip reaches `slip_speed` (then the slip itself); should the slip turn against that
  direction first, the contact sticks again (a ``stick`` event);
* the contact's chart change, when ``q`` comes within the pair's chart margin of a pole of
  its charts (`ReducedChart.chart_margin`): the element's handler re-expresses the contact
  in the farthest charts and a new phase starts there;
* any element event of the other elements, and the user's events, evaluated on the state of
  ``z``.

Energy: moving the state exactly onto the contact at the start of a phase changes it by a
solver-tolerance amount, booked as lost; friction's power goes to the contact's dissipated
entry, the work of the no-slip mode's slip relaxation to its stabilization entry
(`ReducedChart.dynamics`). The stick/slip regime of a "coulomb" contact is remembered
from phase to phase; a new contact starts stuck when its slip is below `slip_speed` and the
cone holds.
"""

from __future__ import annotations

import math

import numpy as np

from ..contact.reduced import ReducedDynamics
from ..errors import GeometryError
from .events import wrap_event
from .trajectory import EventRecord

__all__ = ["ReducedPhases"]


class ReducedPhases:
    """The reduced-coordinate phases of one run: the integrator phase "reduced"
    (`porthamiltonian.integrate.phases`; `run` is the run in segments, `elements` the reduced
    contacts)."""

    def __init__(self, run, elements):
        self.seg = run
        self.contacts = list(elements)
        self.regime = {}   # path -> ("rolling" | "sliding", slip direction or None) of "coulomb" contacts

    def active(self, x):
        """``(path, element)`` of the reduced contact that is on in `x`, or None."""
        for path, el in self.contacts:
            if el.is_active(x[self.seg.system.layout.element_slice(path)]):
                return path, el
        return None

    def run(self, contact, t, x, t_stop):
        """One phase from ``(t, x)`` to `t_stop` or its first event. Returns ``(t, x, stop,
        reached)``: `stop` when the run must end (a failure, a terminal user event), `reached`
        when the phase got to `t_stop`."""
        seg, path, el = self.seg, contact[0], contact[1]
        try:
            chart = el.reduced_chart(seg.system, path, t, x)
        except GeometryError as exc:    # not touching (a state given with the contact on), a singular point
            seg.status, seg.message = -1, f"continuous contact of {path} cannot start at t = {t:.9g} s: {exc}"
            return t, x, True, False
        lost = seg.system.energy(x) - seg.system.energy(chart.x0)
        z = chart.z0.copy()
        mode, direction, z, lost = self._regime(chart, el, path, t, z, lost)
        z[chart.z_index(seg.lost_index[path])] += lost
        cache = _Cache(chart, seg.rhs, mode, direction)
        if cache.result(t, z).force[2] < 0.0:     # pulls at once: no continuous contact here
            return t, self._separate(chart, t, z, "the normal force pulls at the start of continuous contact"), \
                False, False
        evs, kinds = self._events(chart, el, path, cache, t, z)
        solver = {k: v for k, v in seg.solver.items() if k != "jac"}   # the system's Jacobian is for x
        sol = seg.run_solver(cache.rates, t, z, t_stop, evs, len(evs) - len(seg.user_events), chart.to_x, solver)
        if sol is None or sol.status == -1:
            return t, x, True, False
        if sol.status == 0:
            return float(sol.t[-1]), chart.to_x(np.asarray(sol.y)[:, -1]), False, True
        fired = [(k, sol.t_events[k][-1]) for k in range(len(evs)) if evs[k].terminal and sol.t_events[k].size]
        k, te = min(fired, key=lambda kv: kv[1])
        ze = np.array(sol.y_events[k][-1], dtype=float)
        t, x, stop, reached = self._after(chart, cache, el, path, kinds[k], te, ze)
        if not isinstance(kinds[k], int):   # an event of the model (a terminal user event has stopped the run)
            seg.n_events += 1
            if seg.n_events > seg.max_events:
                seg.status, seg.message = -1, (
                    f"more than {seg.max_events} events by t = {te:.9g} s (last: {seg.records[-1].name}); the model "
                    "may be chattering (stick and slip of a reduced contact: check `slip_speed` and `mu`), or raise "
                    "`max_events`")
                return t, x, True, False
        return t, x, stop, reached

    # ---- regimes
    def _regime(self, chart, el, path, t, z, lost):
        """``(mode, slip direction, z, lost)`` at the start of a phase."""
        if el.friction == "frictionless":
            return "frictionless", None, z, lost
        if el.friction == "rolling":
            z, dE = chart.stick(z)
            return "rolling", None, z, lost + dE
        remembered = self.regime.get(path)
        if remembered is not None:
            return remembered[0], remembered[1], z, lost
        slip = _Cache(chart, self.seg.rhs, "frictionless", None).result(t, z).slip
        if np.hypot(*slip) >= el.slip_speed:
            self.regime[path] = ("sliding", None)
            return "sliding", None, z, lost
        z, dE = chart.stick(z)
        r = _Cache(chart, self.seg.rhs, "rolling", None).result(t, z)
        if np.hypot(*r.force[:2]) <= el.mu * r.force[2]:
            self.regime[path] = ("rolling", None)
            return "rolling", None, z, lost + dE
        direction = -r.force[:2] / np.hypot(*r.force[:2])
        self.regime[path] = ("sliding", direction)
        return "sliding", direction, z, lost + dE

    # ---- events
    def _events(self, chart, el, path, cache, t, z):
        """The phase's event functions on z and what each is (a string, or an element event,
        or a user event index)."""
        seg = self.seg
        funs, kinds = [(lambda tt, zz: cache.result(tt, zz).force[2], -1.0)], ["separation"]
        if el.friction == "coulomb" and cache.mode == "sliding":
            # the slip speed reaching slip_speed, or its component along the slip's direction
            # at the start of the phase doing so: Coulomb friction stops the slip linearly,
            # and a large step can carry it through zero and back above the threshold in one
            # step (the speed alone would not change sign at the step's ends)
            # (or, at a fixed step, with the slip's reversal seen by a stage of the step: the
            # stages' friction directions can cancel and leave the step's end value unchanged)
            slip0 = cache.result(t, z).slip
            d0 = slip0 / np.hypot(*slip0) if np.hypot(*slip0) > 0.0 else np.asarray(cache.direction)
            cache.watch_reversal(d0, el.slip_speed, latch=getattr(seg.solver["method"], "fixed_step", False))

            def slowed(tt, zz):
                sl = cache.result(tt, zz).slip
                g = min(float(np.hypot(sl[0], sl[1])), float(sl @ d0)) - el.slip_speed
                return min(g, -el.slip_speed) if tt >= cache.reversed_at else g
            funs.append((slowed, -1.0))
            kinds.append("stick")
            if cache.direction is not None:
                # below `slip_speed` the friction opposes a blend of the direction it left the
                # cone with and the slip (`ReducedChart.dynamics`); should the slip turn
                # against that direction before reaching `slip_speed`, the friction could
                # push: the contact sticks
                u = np.asarray(cache.direction, dtype=float) / np.hypot(*cache.direction)

                def reversed_(tt, zz):
                    sl = cache.result(tt, zz).slip
                    return max(float(sl @ u), float(np.hypot(sl[0], sl[1])) - el.slip_speed)
                funs.append((reversed_, -1.0))
                kinds.append("stick")
        elif el.friction == "coulomb":
            def cone(tt, zz):
                force = cache.result(tt, zz).force
                return el.mu * force[2] - float(np.hypot(force[0], force[1]))
            funs.append((cone, -1.0))
            kinds.append("slip")
        if np.isfinite(chart.edge_margin(z)):
            funs.append((lambda tt, zz: chart.edge_margin(zz), -1.0))
            kinds.append("edge")
        for b in seg.element_events:
            if b.element == path and b.name.endswith(".chart") and np.isfinite(chart.chart_margin(z)):
                # on the contact coordinates themselves (the element's function re-solves the
                # closest points, which would follow a parameter carried past a pole)
                funs.append((lambda tt, zz: chart.chart_margin(zz), -1.0))
                kinds.append(b)
                continue
            if b.element == path:   # its impact (the contact is on) and a chart event it does not need
                continue
            funs.append((lambda tt, zz, b=b: b.value(tt, chart.to_x(zz), seg.system), b.spec.direction))
            kinds.append(b)
        evs = [wrap_event(f, d, True, t, z, cache.rates) for f, d in funs]
        for k, e in enumerate(seg.user_events):
            evs.append(wrap_event(lambda tt, zz, e=e: e(tt, chart.to_x(zz)), getattr(e, "direction", 0.0),
                                   bool(getattr(e, "terminal", False)), t, z, cache.rates))
            kinds.append(k)
        return evs, kinds

    def _after(self, chart, cache, el, path, kind, te, ze):
        """Apply the event that ended a phase; ``(t, x, stop, reached)``."""
        seg = self.seg
        if kind == "separation":
            return te, self._separate(chart, te, ze, "normal force reached zero: separated"), False, False
        if kind == "edge":
            return te, self._separate(chart, te, ze, "the contact point reached the edge of a bounded surface: "
                                      "the body leaves it"), False, False
        if kind == "stick":
            zn, dE = chart.stick(ze)
            zn[chart.z_index(seg.lost_index[path])] += dE
            self.regime[path] = ("rolling", None)
            return te, self.seg.record_event(te, chart.to_x(ze), chart.to_x(zn), f"{path}.stick",
                                    f"slip below {el.slip_speed:g} m/s: sticks (no slip)", dE), False, False
        if kind == "slip":
            F_t = cache.result(te, ze).force[:2]
            self.regime[path] = ("sliding", -F_t / np.hypot(*F_t))
            x = chart.to_x(ze)
            x = self.seg.record_event(te, x, x, f"{path}.slip", "friction force left the cone: slips", 0.0)
            return te, x, False, False
        x = chart.to_x(ze)
        if isinstance(kind, int):       # a terminal user event
            e = seg.user_events[kind]
            seg.records.append(EventRecord(te, getattr(e, "__name__", "user event"), "terminal user event", 0.0, x))
            seg.records.sort(key=lambda r: r.t)
            seg.status, seg.message = 1, f"A terminal user event occurred at t = {te:.9g} s."
            return te, x, True, False
        seg.fired_at_start.add((kind.name, te))
        return te, seg.fire(kind, te, x), False, False

    def _separate(self, chart, t, z, message):
        self.regime.pop(chart.path, None)
        return self.seg.record_event(t, chart.to_x(z), chart.to_x(z, active=False), f"{chart.path}.separation",
                                     message, 0.0)


class _Cache:
    """The reduced rates at the last ``(t, z)`` (the events ask at the solver's last stage)."""

    def __init__(self, chart, rhs, mode, direction):
        self.chart, self.rhs, self.mode, self.direction = chart, rhs, mode, direction
        self.key, self.value, self.error = None, None, None
        self.d0, self.reversed_at = None, np.inf

    def watch_reversal(self, d0, threshold, latch):
        """With `latch` (a fixed-step method), remember the earliest time at which an evaluation
        of the rates (a stage) sees the slip's component along `d0` fall below `threshold`
        (`reversed_at`; inf until then)."""
        self.d0, self.threshold = (np.asarray(d0, dtype=float), threshold) if latch else (None, None)

    def _eval(self, t, z):
        key = (float(t), z.tobytes())
        if key != self.key:
            self.key, self.error = key, None
            if not np.all(np.isfinite(z)):      # a stage built from a rejected (NaN) stage
                self.value = self._nan(z)
                return self.value
            try:
                self.value = self.chart.dynamics(t, z, self.rhs, self.mode, self.direction)
            except GeometryError as exc:        # a stage outside the charts (or singular): the solver shrinks the step
                self.rhs.failed = (t, f"{type(exc).__name__}: {exc}")
                self.value, self.error = self._nan(z), exc
                return self.value
            if self.d0 is not None and float(self.value[1].slip @ self.d0) < self.threshold:
                self.reversed_at = min(self.reversed_at, float(t))
        return self.value

    def rates(self, t, z):
        return self._eval(t, np.asarray(z, dtype=float))[0]

    def result(self, t, z):
        """The `ReducedDynamics` at ``(t, z)``; the events ask it on accepted steps and their
        interpolants, where a state that cannot be evaluated is a failure of the run (its
        GeometryError is raised), not a stage to shrink away from."""
        value = self._eval(t, np.asarray(z, dtype=float))
        if self.error is not None:
            raise self.error
        return value[1]

    @staticmethod
    def _nan(z):
        nan2, nan6 = np.full(2, np.nan), np.full(6, np.nan)
        return np.full(z.shape, np.nan), ReducedDynamics(np.full(5, np.nan), np.full(3, np.nan), nan2, math.nan,
                                                         math.nan, nan6, nan6)
