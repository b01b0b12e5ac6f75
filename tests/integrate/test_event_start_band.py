"""An event function restarting on its zero at round-off with the wrong sign does not fire
when the solver's first step is shorter than the time it needs to leave the round-off
(`porthamiltonian.integrate.events.wrap_event`, issue 10)."""
from __future__ import annotations

import math

import numpy as np
from scipy.integrate import solve_ivp

from porthamiltonian.integrate.events import ROUND_OFF_ULPS, round_off, wrap_event

G0, RATE = -6.245e-17, 0.098      # the rimless wheel's touch at a release: round-off, leaving at 0.098 m/s


def rhs(t, x):
    return np.array([RATE])


def gap(t, x):
    return x[0]


def test_a_falling_event_leaving_its_zero_upward_does_not_fire_within_the_round_off():
    ev = wrap_event(gap, -1.0, True, 0.0, np.array([G0]), rhs)
    assert ev(0.0, np.array([G0])) > 0.0
    # an instant later the function is still at the round-off value: the leaving sign, not G0's
    assert ev(1e-18, np.array([G0 + RATE * 1e-18])) > 0.0
    # out of the band it is the function itself
    assert ev(1e-3, np.array([G0 + RATE * 1e-3])) == G0 + RATE * 1e-3
    sol = solve_ivp(rhs, (0.0, 1e-3), [G0], events=[ev], first_step=1e-19, method="DOP853", rtol=1e-10, atol=1e-12)
    assert sol.status == 0 and sol.t_events[0].size == 0


def test_a_real_crossing_after_the_start_still_fires_at_its_root():
    """Leaving upward, turning and falling through 0 at t = 2 (g = t (2 - t) RATE + G0)."""
    def f(t, x):
        return np.array([RATE * (2.0 - 2.0 * t)])

    ev = wrap_event(gap, -1.0, True, 0.0, np.array([G0]), f)
    sol = solve_ivp(f, (0.0, 3.0), [G0], events=[ev], first_step=1e-19, method="DOP853", rtol=1e-12, atol=1e-15)
    assert sol.status == 1
    root = 1.0 + np.sqrt(1.0 + G0 / RATE)     # G0 + RATE t (2 - t) = 0
    np.testing.assert_allclose(sol.t_events[0][0], root, rtol=1e-9)


def test_the_start_value_alone_fires_at_the_first_step():
    """The failure the band prevents: a wrapper that replaces only the start's value (the
    old `wrap_event`) sees the round-off sign after a short first step and fires at once."""
    def ev(t, x):
        return 1e-300 if t == 0.0 else gap(t, x)

    ev.direction, ev.terminal = -1.0, True
    sol = solve_ivp(rhs, (0.0, 1e-3), [G0], events=[ev], first_step=1e-19, method="DOP853", rtol=1e-10, atol=1e-12)
    assert sol.status == 1 and sol.t_events[0][0] < 1e-15


def test_the_band_covers_the_rounding_of_a_state_of_order_one():
    """The solver's root search probes its dense output a few ulps of time after the start,
    where every entry of a state of order 1 carries ulps of rounding (the rimless wheel's foot
    at 1.0731579 s: g0 = -1.0e-17 m, probed 9e-16 s later: -1.3e-16 m, and the touch fired at
    the start while the foot was in the air). Such a reading is the leaving sign; a value past
    the rounding is the function itself."""
    def gap2(t, x):                 # foot height above the floor, both of order 1 m
        return x[0] - x[1]

    def rising(t, x):
        return np.array([RATE, 0.0])

    x0 = np.array([1.0, 1.0])
    ev = wrap_event(gap2, -1.0, True, 0.0, x0, rising)
    noisy = np.array([np.nextafter(1.0, 0.0), 1.0])     # one ulp of rounding below the floor
    assert gap2(9e-16, noisy) < 0.0 < ev(9e-16, noisy)
    below = np.array([1.0 - 1e-12, 1.0])                 # really below: 1e-12 m
    assert ev(1e-3, below) == gap2(1e-3, below) < 0.0


def test_the_band_is_the_start_value_plus_its_rounding():
    """Go1's front-left foot bouncing off the ground (robot-drop, sliding-plane feet) restarted
    at g0 = -9.3755e-13 m (a root the finder left on the penetrating side), leaving upward;
    the dense output 1e-15 s later read -9.37556e-13 m: |g0| plus 3e-18 m of rounding. A band of
    max(|g0|, rounding) counted that as a crossing and fired the impact again at the same
    instant, 10000 times; |g0| + rounding holds the leaving sign there."""
    def gap2(t, x):                 # foot height above the floor, both of order 0.3 m
        return x[0] - x[1]

    def rising(t, x):
        return np.array([0.0132, 0.0])

    x0 = np.array([0.3 - 9.3755e-13, 0.3])
    ev = wrap_event(gap2, -1.0, True, 0.0, x0, rising)
    g0 = gap2(0.0, x0)
    strayed = np.array([np.nextafter(x0[0], 0.0), 0.3])  # one ulp (5.6e-17 m) below the start
    assert gap2(1e-15, strayed) < g0 < 0.0
    assert ev(1e-15, strayed) > 0.0
    deeper = np.array([x0[0] - 1e-13, 0.3])   # really deeper: 1e-13 m, beyond the rounding (8 ulps of 0.3: 5e-16 m)
    assert ev(1e-3, deeper) == gap2(1e-3, deeper) < 0.0


def test_a_return_crossing_after_the_leaving_window_fires_at_its_root():
    """A foot bouncing off at g0 = -1e-12 m (a root left at -band by the previous segment),
    rising at 1 cm/s and falling back through 0 at about 10 us: the crossing is far outside
    the start's window (`LEAVE_WINDOW` band / rate = 1e-8 s), so it fires at the function's
    root, not 1e-12 m below it where the band would hold the leaving sign (the band carried
    from segment to segment until rounding beat it: Go1's bouncing foot fired again at once)."""
    g0, rate, a = -1e-12, 0.01, 1000.0          # g = g0 + rate t - a t^2

    def falling(t, x):
        return np.array([rate - 2.0 * a * t])

    ev = wrap_event(gap, -1.0, True, 0.0, np.array([g0]), falling)
    sol = solve_ivp(falling, (0.0, 2e-5), [g0], events=[ev], method="DOP853", rtol=1e-13, atol=1e-20)
    root = (rate + math.sqrt(rate * rate + 4.0 * a * g0)) / (2.0 * a)
    assert sol.status == 1
    # the band alone would fire 1e-12 m / 0.01 m/s = 1e-10 s late; brentq's tolerance is 1e-15 s
    assert abs(sol.t_events[0][0] - root) < 1e-13


def test_round_off_is_the_value_change_under_ulps_of_every_entry():
    """g = x0 x1 - 1 at (1, 1): moving both entries up by d = 8 eps changes g by 2 d + d^2,
    alternately by -d^2; the larger is the round-off scale."""
    d = ROUND_OFF_ULPS * np.finfo(float).eps
    got = round_off(lambda t, x: x[0] * x[1] - 1.0, 0.0, np.array([1.0, 1.0]))
    np.testing.assert_allclose(got, 2 * d + d * d, rtol=1e-12)


def test_round_off_ignores_values_that_are_not_finite():
    """An event function that cannot occur away from the start (inf) has no rounding to
    measure: a band of inf would hold the leaving sign for ever."""
    assert round_off(lambda t, x: 0.0 if x[0] == 1.0 else math.inf, 0.0, np.array([1.0])) == 0.0


def test_within_the_leaving_window_the_other_sign_is_held_beyond_the_band():
    """Go1's front-left foot bouncing off the ground at 3.7 cm/s from g0 = -2.446e-18 m
    (robot-drop, sliding-plane feet): the root search probed the dense output of a 3.2e-4 s
    first step 4.4e-16 s after the start and read -1.49e-17 m, beyond the band (|g0| plus the
    state's rounding) but well inside the leaving window, where the foot cannot be back: the
    leaving sign is held (before, the impact fired at the start, 1999 times). A value of the
    other sign after the window is the function itself, and a real landing later fires at its
    root."""
    g0, rate, a = -2.446e-18, 0.037, 9.81 * 25.0     # rises, then falls back through 0 at about 0.3 ms

    def flight(t, x):
        return np.array([rate - 2.0 * a * t])

    x0 = np.array([g0])
    ev = wrap_event(gap, -1.0, True, 0.0, x0, flight)
    _, _, band, until, _ = ev.rule[1:]
    stray = np.array([-1.49e-17])
    assert gap(4.4e-16, stray) < -band < 0.0 and 4.4e-16 < until
    assert ev(4.4e-16, stray) > 0.0
    assert ev(2.0 * until, stray) == gap(2.0 * until, stray) < 0.0
    sol = solve_ivp(flight, (0.0, 1e-3), x0, events=[ev], first_step=3.2e-4, method="DOP853", rtol=1e-12,
                    atol=1e-15)
    root = (rate + math.sqrt(rate * rate + 4.0 * a * g0)) / (2.0 * a)
    assert sol.status == 1
    np.testing.assert_allclose(sol.t_events[0][0], root, rtol=1e-9)


def test_a_start_just_off_zero_leaving_slowly_is_a_leaving_start():
    """Go1's rear-left foot, released by another foot's impact 8.4e-15 m inside the ground and
    leaving it at 1.5e-7 m/s (robot-drop, sliding-plane feet, 10 cm): over the predictor's
    1e-7 s the gap moves by 1.5e-14 m, the order of g0, so g(2 dt) / g(dt) is 3.3, not 2, and
    the start read as grazing (no band): the first probe's -8.4e-15 m fired the impact at the
    start, 10,000 times. Measured from g0 the motion is linear: a leaving start, held."""
    g0, rate = -8.4e-15, 1.5e-7

    def leaving(t, x):
        return np.array([rate])

    ev = wrap_event(gap, -1.0, True, 0.0, np.array([g0]), leaving)
    _, start_value, sign, band, until, _ = ev.rule
    assert start_value > 0.0 and sign > 0.0 and band >= abs(g0)
    assert ev(1e-15, np.array([g0])) > 0.0
    sol = solve_ivp(leaving, (0.0, 1e-3), [g0], events=[ev], method="DOP853", rtol=1e-12, atol=1e-20)
    assert sol.status == 0 and sol.t_events[0].size == 0
