"""Event functions at segment starts: after an event, a segment starts on the zero of the event
function that fired (or of others); these helpers decide which way such a function is going,
so that solve_ivp neither fires it again at once nor misses a crossing that starts there."""

from __future__ import annotations

import math

import numpy as np

from ..kernels._njit import njit

__all__ = ["start_trend", "starts_crossing", "wrap_event", "round_off", "SegmentEvents", "start_rule", "past_start_shift"]

#: ulps of every state entry by which `round_off` moves the state: the solver's dense output
#: an instant after a segment start carries a few ulps of rounding in each entry
ROUND_OFF_ULPS = 8.0


#: `wrap_event`: a start leaving its zero at rate r holds its leaving sign within the band for
#: this many times band / |r| after the start (then the function itself decides)
LEAVE_WINDOW = 100.0


def start_trend(fun, t_start, x_start, rhs):
    """(value, sign just after, leaves at a nonzero rate) of an event function at a segment start.

    The sign an instant later comes from two Euler predictor steps dt and 2 dt; the function
    leaves zero at a nonzero rate when it is zero at the start (within 1e-10) and
    (g(2 dt) - g0) / (g(dt) - g0) is close to 2 (a grazing start, where the rate vanishes, gives
    4 or more, round-off anything). The differences from g0, not the values: a start a few
    femtometres off zero leaving at a rate of the same order per dt gave g(2 dt) / g(dt) = 3.3
    and read as grazing (Go1's rear-left foot released 8.4e-15 m inside the ground, leaving at
    1.5e-7 m/s: no band, and its impact fired again at the start 10,000 times). A change over
    dt within the value's own rounding (`round_off`) resolves no rate: such a start grazes. A
    foot detached at zero force, its velocity zeroed to round-off (`PHSystem.come_to_rest`),
    read g(dt) - g0 = 1e-24 m as leaving into the ground, its impact fired at the instant of
    its detach, and the contact, on again and pulling, stayed on for 2 ms (Go1's trot on
    sliding-plane feet, issue 34).
    """
    return _trend(fun, t_start, x_start, rhs)[:3]


def _trend(fun, t_start, x_start, rhs):
    """`start_trend` and the rate of leaving, (g(dt) - g0) / dt (NaN where not computed)."""
    g0 = float(fun(t_start, x_start))
    if not math.isfinite(g0) or abs(g0) > 1e-10 * max(1.0, abs(g0)):   # inf: an event that cannot occur
        return g0, np.sign(g0), False, math.nan
    dt = 1e-7 * max(1.0, abs(t_start))
    f0 = rhs(t_start, x_start)
    g1 = fun(t_start + dt, x_start + dt * f0)
    g2 = fun(t_start + 2 * dt, x_start + 2 * dt * f0)
    linear = g1 != g0 and 1.5 < (g2 - g0) / (g1 - g0) < 2.5 and abs(g1 - g0) > round_off(fun, t_start, x_start)
    return g0, (np.sign(g1) if g1 != 0 else 1.0), linear, (float(g1) - g0) / dt


def past_start_shift(fun, direction, t_start, x_start, past_start):
    """The value `wrap_event` measures an event's crossing from: its value at the start where
    it is past its zero in `direction` (beyond the zero's 1e-10) and the event says so
    (`EventSpec.past_start`), else 0."""
    if not past_start or direction == 0:
        return 0.0
    g0 = float(fun(t_start, x_start))
    return g0 if math.isfinite(g0) and g0 * direction > 0 and abs(g0) > 1e-10 * max(1.0, abs(g0)) else 0.0


def _shifted(fun, shift):
    return fun if shift == 0.0 else (lambda t, x: float(fun(t, x)) - shift)


def starts_crossing(fun, direction, t_start, x_start, rhs, past_start=False):
    """True if `fun` is zero at the segment start and leaves zero at a nonzero rate in its
    event's direction (an initial condition exactly on an event surface, moving through it);
    with `past_start`, a start past the zero in that direction counts as zero
    (`past_start_shift`). A grazing start (zero rate) is left to the integration: it fires
    if the function crosses."""
    fun = _shifted(fun, past_start_shift(fun, direction, t_start, x_start, past_start))
    _, sign, linear = start_trend(fun, t_start, x_start, rhs)
    return linear and ((sign < 0 and direction <= 0) or (sign > 0 and direction >= 0))


def round_off(fun, t, x):
    """The round-off scale of an event function's value at ``(t, x)``: the largest change of
    the value when every state entry moves by `ROUND_OFF_ULPS` ulps of itself, all in one
    direction or in alternating ones (a uniform scaling leaves a unit quaternion's rotation
    unchanged; alternating signs rotate it). This is how far the value can stray when the
    solver evaluates it on its dense output a few ulps of time after ``t``. A value that is not
    finite there (an event function's "cannot occur") says nothing about the rounding: 0."""
    d = ROUND_OFF_ULPS * np.finfo(float).eps * np.abs(x)
    g0 = float(fun(t, x))
    alternating = np.where(np.arange(x.size) % 2 == 0, d, -d)
    changes = [abs(float(fun(t, x + step)) - g0) for step in (d, alternating)]
    return max((c for c in changes if math.isfinite(c)), default=0.0)


def wrap_event(fun, direction, terminal, t_start, x_start, rhs, past_start=False):
    """An event function whose value at the segment start has the sign it takes just after.

    With `past_start` (`EventSpec.past_start`), a start past the zero in the event's direction
    is measured from its start value (`past_start_shift`): the wrapped function is ``fun -
    g0``, and the rules below apply to it as to a start on its zero.

    After an event, the restarted segment begins exactly on the zero of that event's function
    (or of others); solve_ivp would see a sign change 0 -> +-, and fire again. We replace the
    value at the start time by the sign the function takes an instant later (Euler predictor).
    A grazing start (zero value, zero rate: a ball at rest exactly on the floor) counts as
    lying on the side the event's direction crosses from, so that the function's first move
    through zero in that direction fires it: the predictor cannot see the second-order motion,
    and the start value's round-off sign would otherwise decide whether the contact is made.
    A start that leaves the zero at a nonzero rate keeps its leaving sign a while longer: any
    value within the start's round-off (|g| <= |g0| + `round_off`) with the other sign
    counts as the leaving sign, so neither a first step too short to leave the round-off nor
    the solver's root search probing its dense output a few ulps of time after the start fires
    the event (the band is |g0| plus the rounding, not the larger of the two: Go1's front-left
    foot bounced off the ground at g0 = -9.3755e-13 m and the dense output 1e-15 s later read
    -9.37556e-13 m, 3e-18 m of rounding beyond |g0|, which fired its impact again at the
    same instant, 10000 times; issue 10: the rimless wheel on sand touched a foot again at the instant it left
    its imprint's floor, g0 = -6e-17 m, and stalled; later, at 1.0731579 s, DOP853 took a first
    step of 25 ms over which the foot hopped and came back down, and the root search, probing at
    9e-16 s after the start, read -1.3e-16 m of rounding with g0 = -1.0e-17 m and fired the
    touch at the start, leaving the contact active in the air). A real crossing later fires at
    most that band from its root, if it comes within `LEAVE_WINDOW` times band / rate of the
    start; later the band no longer applies and a crossing fires at its root (a root left at
    -band and restarted from, as a bouncing foot does, would otherwise carry its band into the
    next segment and the next, and the event function's own rounding, which the state's does
    not bound, beat it: Go1's front-left foot, restarted at g0 = -9.3758e-13 m and leaving at
    3.9 mm/s, read -9.37592e-13 m 3e-15 s later, 1.3e-17 m beyond g0 where 8 ulps of the state
    move it 1.0e-17 m, and fired its impact again at once). Within that window a value of the
    other sign is held whatever its size, not only within the band: a function leaving its zero
    at rate r comes back to it within 100 band / r only under an acceleration above
    r^2 / (50 band) (10^12 m/s^2 for a foot leaving at 4 cm/s with a band of 1e-17 m; where the
    band is a larger g0 and the rate small, such a return under an acceleration acc fires at
    the window's end instead of its root, at most about acc (100 band / r)^2 / 2 past it:
    1.6e-10 m for Go1's foot leaving at 1.5e-7 m/s from 8.4e-15 m inside under 10 m/s^2), and
    the solver's dense output strays further than the state's rounding near the start of a
    long step (Go1's front-left foot, bouncing off at 3.7 cm/s from g0 = -2.4e-18 m, band
    1.4e-17 m: DOP853's first step was 3.2e-4 s, over which the foot flew and landed again, and the root
    search's first probe, 4.4e-16 s after the start, read the interpolated gap as -1.5e-17 m
    where it was +1.4e-17 m; the impact fired at the start, again and again, instead of at the
    landing). Without a window (a zero rate) only the band holds.
    """
    shift = past_start_shift(fun, direction, t_start, x_start, past_start)
    fun = _shifted(fun, shift)
    g0, sign, linear, rate = _trend(fun, t_start, x_start, rhs)
    band = -1.0   # the start's round-off band (docstring); -1: none
    until = math.inf
    if abs(g0) > 1e-10 * max(1.0, abs(g0)):
        start_value = g0
    elif not linear and direction != 0:
        start_value = -np.copysign(1e-300, direction)
    else:
        start_value = np.copysign(1e-300, sign)
        if linear:
            band = abs(g0) + round_off(fun, t_start, x_start)
            if math.isfinite(rate) and rate != 0.0:
                until = t_start + LEAVE_WINDOW * band / abs(rate)

    def ev(t, x):
        if t == t_start:
            return start_value
        g = fun(t, x)
        return start_value if np.sign(g) != sign and t <= until and (abs(g) <= band or until < math.inf) else g

    ev.direction = direction
    ev.terminal = terminal
    ev.rule = (t_start, start_value, sign, band, until, shift)   # for `SegmentEvents`: the same rule on a vector
    return ev


@njit
def start_rule(g, t, start_value, sign, band, until):
    """`wrap_event`'s rule on a vector of raw event values `g` (shape (m,)) at time `t`, away
    from the segment's start time: an entry with the other sign than the one it leaves its
    start's zero with (`sign`), at a time within its leaving window (``t <= until``), reads as
    its `start_value` (with no window, ``until = inf``, only within its start's round-off
    band, ``|g| <= band``); a band of -1 (none) keeps every value. Compiled: it runs at every step. Returns a new array, shape (m,)."""
    out = np.empty(g.size)
    for k in range(g.size):
        held = np.sign(g[k]) != sign[k] and t <= until[k] and (abs(g[k]) <= band[k] or until[k] < np.inf)
        out[k] = start_value[k] if held else g[k]
    return out


class SegmentEvents:
    """The values of a segment's event functions at once (`porthamiltonian.integrate.ivp`).

    The first ``m`` of the wrapped functions `wrapped` (`wrap_event`) wrap the entries of one
    vector function ``raw(t, x) -> ndarray, shape (m,)`` (the element events' values,
    `PHSystem.event_values`); `values` applies their start rules to that vector with numpy and
    calls the others (user events) one by one. ``values(t, x)[k] == wrapped[k](t, x)`` bit for
    bit, which `solve_segment` relies on: the root search calls the scalar functions.

    Parameters
    ----------
    raw : callable
        ``raw(t, x) -> ndarray, shape (m,)``.
    wrapped : list of callables
        `wrap_event` functions, the first ``m`` of them wrapping ``raw(t, x)[k]``.
    m : int
        How many of `wrapped` wrap `raw`.
    """

    def __init__(self, raw, wrapped, m):
        self.raw, self.wrapped, self.m = raw, list(wrapped), m
        rules = [e.rule for e in self.wrapped[:m]]
        self.t_start = rules[0][0] if rules else None
        self.start_value = np.array([r[1] for r in rules], dtype=float)
        self.sign = np.array([r[2] for r in rules], dtype=float)
        self.band = np.array([r[3] for r in rules], dtype=float)
        self.until = np.array([r[4] for r in rules], dtype=float)
        self.shift = np.array([r[5] for r in rules], dtype=float)
        self.others = self.wrapped[m:]

    def __call__(self, t, x):
        """All the wrapped functions' values at ``(t, x)``, shape (len(wrapped),)."""
        if self.m == 0:
            head = np.empty(0)
        elif t == self.t_start:
            head = self.start_value.copy()
        else:
            head = start_rule(np.asarray(self.raw(t, x), dtype=float) - self.shift, float(t), self.start_value,
                              self.sign, self.band, self.until)
        if not self.others:
            return head
        return np.concatenate([head, [float(e(t, x)) for e in self.others]])
