"""`solve_segment` (solve_ivp's loop, the events' values from one call) against scipy's
`solve_ivp` itself, and `SegmentEvents` against the scalar `wrap_event` functions it stands
for. The loop is solve_ivp's statement for statement, so the comparisons are bit for bit
(exact equality is the claim under test)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from porthamiltonian.integrate.events import SegmentEvents, wrap_event
from porthamiltonian.integrate.ivp import active_events, solve_segment


def _oscillators(t, y):
    """Three undamped oscillators of frequencies 1, 2.3, 4.1 rad/s: (positions, speeds)."""
    w2 = np.array([1.0, 2.3, 4.1]) ** 2
    return np.concatenate([y[3:], -w2 * y[:3]])


def _events(terminal_at=None):
    """Each position's zero crossings: one rising-only, one falling-only, one both; optionally
    one of them terminal."""
    evs = []
    for k, d in enumerate((1.0, -1.0, 0.0)):
        def g(t, y, k=k):
            return y[k]
        g.direction, g.terminal = d, k == terminal_at
        evs.append(g)
    return evs


def _same(a, b):
    assert a.status == b.status and a.nfev == b.nfev and a.message == b.message
    np.testing.assert_array_equal(a.t, b.t)
    np.testing.assert_array_equal(a.y, b.y)
    for ta, tb, ya, yb in zip(a.t_events, b.t_events, a.y_events, b.y_events):
        np.testing.assert_array_equal(ta, tb)
        np.testing.assert_array_equal(ya, yb)


@pytest.mark.parametrize("method", ["RK23", "RK45", "DOP853", "Radau"])
@pytest.mark.parametrize("terminal_at", [None, 1])
def test_same_as_solve_ivp(method, terminal_at):
    y0 = np.array([0.3, -0.2, 0.5, 1.0, 0.7, -0.4])
    te = np.linspace(0.0, 6.0, 13)
    for t_eval, dense in ((None, False), (te, False), (te, True), (None, True)):
        evs = _events(terminal_at)
        ref = solve_ivp(_oscillators, (0.0, 6.0), y0, method=method, t_eval=t_eval, dense_output=dense,
                        events=evs, rtol=1e-5, atol=1e-8)
        steps = []
        got = solve_segment(_oscillators, (0.0, 6.0), y0, method=method, t_eval=t_eval, dense_output=dense,
                            events=evs, values=lambda t, y: y[:3].copy(), on_step=lambda t, y: steps.append(t),
                            rtol=1e-5, atol=1e-8)
        _same(got, ref)
        assert sum(len(t) for t in ref.t_events) >= (1 if terminal_at is not None else 8)
        if dense:
            tt = np.linspace(0.0, float(ref.t[-1]), 37)
            np.testing.assert_array_equal(got.sol(tt), ref.sol(tt))
        assert steps and steps[-1] <= 6.0 and np.all(np.diff(steps) > 0)


def test_backward_and_scalar_events():
    """Backward time, and the events called one by one (no `values`)."""
    y0 = np.array([0.3, -0.2, 0.5, 1.0, 0.7, -0.4])
    te = np.linspace(6.0, 0.0, 7)
    ref = solve_ivp(_oscillators, (6.0, 0.0), y0, method="RK45", t_eval=te, events=_events(), rtol=1e-6)
    got = solve_segment(_oscillators, (6.0, 0.0), y0, method="RK45", t_eval=te, events=_events(), rtol=1e-6)
    _same(got, ref)


def test_active_events_rule():
    g = np.array([-1.0, 1.0, 0.0, -1.0, 1.0, -1.0])
    g_new = np.array([1.0, -1.0, 1.0, 1.0, -1.0, -2.0])
    d = np.array([1.0, -1.0, 1.0, -1.0, 0.0, 0.0])
    np.testing.assert_array_equal(active_events(g, g_new, d), [0, 1, 2, 4])


def test_segment_events_equal_wrapped():
    """The vector of `SegmentEvents` equals the wrapped scalar functions bit for bit: a start
    exactly on a zero leaving it (the round-off band), a grazing start, a nonzero start, and
    values inside and outside the band later."""
    rhs = lambda t, x: np.array([1.0, 0.0, 0.0, 0.0])          # x0 rises at unit speed
    raw_funs = [lambda t, x: x[0] - 1.0,                       # starts on its zero, rising
                lambda t, x: x[1] * x[1] - 0.0,                # grazing start (zero rate)
                lambda t, x: x[2] - 2.0]                       # far from zero
    x0 = np.array([1.0, 0.0, 0.5, 0.0])
    wrapped = [wrap_event(f, d, True, 0.0, x0, rhs) for f, d in zip(raw_funs, (-1.0, 1.0, 0.0))]
    user = lambda t, x: x[3] - 0.25
    wrapped.append(wrap_event(user, 0.0, False, 0.0, x0, rhs))
    vec = SegmentEvents(lambda t, x: np.array([f(t, x) for f in raw_funs]), wrapped, 3)
    assert wrapped[0].rule[3] > 0      # the first one has a round-off band
    held = (1e-14, x0 + [-1e-16, 0, 0, 0])   # inside the band and its window: reads as the start
    assert wrapped[0](*held) == wrapped[0].rule[1] and wrapped[0].rule[4] > held[0]
    for t, x in [(0.0, x0), held, (1e-9, x0 + [-1e-16, 1e-9, 0, 0]), (1e-9, x0 + [-1e-3, 0, 0, 0]),
                 (0.2, np.array([0.7, -0.1, 2.5, 0.3])), (0.3, np.array([1.0 - 2e-16, 0.0, 2.0, 0.25])),
                 (0.4, np.array([np.nan, np.inf, -np.inf, 0.0]))]:   # the compiled rule on non-finite values
        got = vec(t, x)
        want = np.array([float(w(t, x)) for w in wrapped])
        np.testing.assert_array_equal(got, want)


def test_simulate_fires_the_same_events_as_with_solve_ivp(monkeypatch):
    """A model with element events (the ball dropped on compliant ground: touchdown, lift-off,
    touchdown in 0.5 s), on the Python path (nothing to compile): `simulate` with
    `solve_segment` and with scipy's solve_ivp asking each event function (the loop before
    `solve_segment`) gives the same samples and the same events, bit for bit."""
    import importlib

    import porthamiltonian as ph
    from porthamiltonian.models import build_model

    sim = importlib.import_module("porthamiltonian.integrate.simulate")   # the module (the package exports the function)

    model = build_model("ball-drop")
    system = ph.compile(model.graph, jit=False)
    x0 = system.initial_state(model.initial)

    def per_event(fun, t_span, y0, *, events=(), values=None, on_step=None, **options):
        def recorder(t, y):
            on_step(t, y)
            return 1.0
        recorder.direction, recorder.terminal = 0.0, False
        return solve_ivp(fun, t_span, y0, events=list(events) + [recorder], **options)

    runs = []
    for loop in (sim.solve_segment, per_event):
        monkeypatch.setattr(sim, "solve_segment", loop)
        runs.append(ph.simulate(system, (0.0, 0.5), x0, audit=False, **model.solver))
    a, b = runs
    assert len(a.events) >= 3
    assert [(e.t, e.name) for e in a.events] == [(e.t, e.name) for e in b.events]
    np.testing.assert_array_equal(a.t, b.t)
    np.testing.assert_array_equal(a.x, b.x)
    assert a.nfev == b.nfev


SIGNALLING_NAN = np.array([0x7FF0000000000001], dtype=np.uint64).view(np.float64)[0]


def test_bdf_first_step_reads_no_unset_memory():
    """scipy's BDF allocates its difference array with ``np.empty`` and its first step
    subtracts a row it has not written (`ivp._zero_unset_differences`): with an infinity left
    in the heap there, the step raised ``RuntimeWarning: invalid value encountered in subtract``
    (an error under this suite's filter) where that memory held a signalling NaN, in some
    processes only. numpy hands a freed small block back to the next array of its size, so the
    8 x 2 difference array of a 2-state system gets the signalling NaNs freed just before; the
    run must neither warn nor change: it equals solve_ivp's own BDF to round-off (a run
    without the hazard)."""
    def fun(t, y):
        return np.array([y[1], -y[0]])

    reference = solve_ivp(fun, (0.0, 1.0), [1.0, 0.0], method="BDF", rtol=1e-8, atol=1e-10)
    for _ in range(50):
        blocks = [np.full((8, 2), SIGNALLING_NAN) for _ in range(7)]
        del blocks
        sol = solve_segment(fun, (0.0, 1.0), np.array([1.0, 0.0]), method="BDF", rtol=1e-8, atol=1e-10)
        assert sol.status == 0
        np.testing.assert_allclose(sol.y[:, -1], reference.y[:, -1], rtol=0, atol=1e-14)
