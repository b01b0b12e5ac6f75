"""`EventSpec.past_start`: an event whose segment starts past its zero in its direction (a
contact released, or left detached, inside its surface) fires when the function goes further
past its start value, and at once if it is going there at the start (issue 33: Go1's feet,
released 7e-7 m and 7e-13 m inside the ground by other feet's impacts, sank 21 cm through it
with no impact, and the robot fell over on two feet)."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from porthamiltonian.integrate.events import SegmentEvents, starts_crossing, wrap_event

G0 = -7.03e-7           # released this far inside the surface (a distance: negative is inside)
V0, ACC = 2e-3, -40.0   # leaving at 2 mm/s, pulled back in at 40 m/s^2


def rhs(t, x):
    return np.array([x[1], ACC])


def distance(t, x):
    return x[0]


def _solve(past_start):
    x0 = np.array([G0, V0])
    ev = wrap_event(distance, -1.0, True, 0.0, x0, rhs, past_start=past_start)
    return solve_ivp(rhs, (0.0, 1e-3), x0, events=[ev], method="DOP853", rtol=1e-10, atol=1e-14)


def test_a_contact_released_inside_that_comes_back_deeper_fires_where_it_passes_its_release_depth():
    """g = G0 + V0 t + ACC t^2 / 2 returns to G0 at t = -2 V0 / ACC = 1e-4 s."""
    sol = _solve(True)
    assert sol.status == 1
    np.testing.assert_allclose(sol.t_events[0][0], -2.0 * V0 / ACC, rtol=1e-8)


def test_without_past_start_it_never_fires():
    """The failure: the function starts and stays below zero, so it never crosses it."""
    sol = _solve(False)
    assert sol.status == 0 and sol.t_events[0].size == 0


def test_a_contact_left_inside_and_going_deeper_starts_crossing():
    x0 = np.array([G0, -1e-2])   # moving in at 1 cm/s
    assert starts_crossing(distance, -1.0, 0.0, x0, rhs, past_start=True)
    assert not starts_crossing(distance, -1.0, 0.0, x0, rhs)
    # leaving: not at the start (the return, if any, fires later: the test above)
    assert not starts_crossing(distance, -1.0, 0.0, np.array([G0, V0]), rhs, past_start=True)


@pytest.mark.parametrize("g0", [1e-6, -1e-12])
def test_a_start_outside_or_on_the_zero_is_not_shifted(g0):
    """A start on the side the event crosses from (outside), or on its zero (within 1e-10),
    is the ordinary start: the same wrapped values with and without `past_start`."""
    x0, x1 = np.array([g0, -1e-2]), np.array([g0 - 1e-5, -1e-2])
    a = wrap_event(distance, -1.0, True, 0.0, x0, rhs, past_start=True)
    b = wrap_event(distance, -1.0, True, 0.0, x0, rhs)
    assert a(0.0, x0) == b(0.0, x0) and a(1e-3, x1) == b(1e-3, x1)


def test_segment_events_apply_the_same_shift_bit_for_bit():
    """`SegmentEvents` evaluates the element events as one vector; the root search calls the
    scalar wrapped functions: the two agree to the bit with a shifted start among them."""
    x0 = np.array([G0, V0, 0.3, 1.0])

    def raw(t, x):
        return np.array([x[0], x[2] - 0.5 * t])

    def f(t, x):
        return np.array([x[1], ACC, -0.5, 0.0])

    wrapped = [wrap_event(lambda t, x, k=k: raw(t, x)[k], -1.0, True, 0.0, x0, f, past_start=True) for k in range(2)]
    values = SegmentEvents(raw, wrapped, 2)
    for t in (0.0, 3e-5, 1e-4, 2e-4, 0.7):
        x = x0 + t * f(0.0, x0)
        x[0] = G0 + V0 * t + 0.5 * ACC * t * t
        assert np.array_equal(values(t, x), [w(t, x) for w in wrapped])   # bit-identical by design
