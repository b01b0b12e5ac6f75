"""The ball drop's first rebound against a second formulation.

Sliding plane: Newton's law, the ball rises to e^2 h0 above the contact height (h0 = height -
radius). Compliant: the rebound speed is that of the 1-D impact m delta'' = m g - F(delta,
delta') from delta = 0 at sqrt(2 g h0) until delta returns to 0, integrated here by scipy
(gravity acts during the contact, so the rebound is a little below e: 0.594 for e = 0.6 at
k = 1e5 N/m), with F the linear law (c = 2 zeta sqrt(k m), zeta = -ln e / sqrt(pi^2 + ln^2 e))
or Hunt-Crossley (k delta^1.5 (1 + d delta'), d mapped from e at the impact speed). The
energy ledger closes in every variant.
"""

import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import porthamiltonian as ph
from porthamiltonian.contact.restitution import hunt_crossley_damping
from porthamiltonian.errors import ParameterError
from porthamiltonian.models import build_model

G, H0, E = 9.81, 0.25, 0.6   # default height 0.3 m, radius 0.05 m, mass 1 kg


def _compliant_rebound_apex(law, k):
    v1 = math.sqrt(2.0 * G * H0)
    if law == "linear":
        zeta = -math.log(E) / math.sqrt(math.pi**2 + math.log(E) ** 2)
        force = lambda d, r: k * d + 2.0 * zeta * math.sqrt(k) * r   # noqa: E731
    else:
        a = hunt_crossley_damping(E, v1)
        force = lambda d, r: k * max(d, 0.0) ** 1.5 * (1.0 + a * r)   # noqa: E731
    released = lambda t, y: y[0] if t > 0 else 1.0   # noqa: E731
    released.terminal, released.direction = True, -1
    sol = solve_ivp(lambda t, y: (y[1], G - force(y[0], y[1])), (0.0, 1.0), (0.0, v1), events=released,
                    method="DOP853", rtol=1e-12, atol=1e-15)
    return sol.y_events[0][0][1] ** 2 / (2.0 * G)


@pytest.mark.parametrize("variant", [dict(contact="compliant", law="linear", stiffness=1e5),
                                     dict(contact="compliant", law="hunt_crossley", stiffness=1e7),
                                     dict(contact="sliding_plane")])
def test_first_rebound_height(variant):
    e = E
    model = build_model("ball-drop", restitution=e, **variant)
    system = ph.compile(model.graph)
    # t_end: after the first apex (0.226 s fall + 0.14 s rise), before the second impact (0.50 s)
    traj = ph.simulate(system, (0.0, 0.45), system.initial_state(model.initial), t_eval=np.linspace(0, 0.45, 45001),
                       **model.solver)
    gap = np.array([model.observables["gap"](system, t, x) for t, x in zip(traj.t, traj.x)])
    apex = gap[np.argmin(gap):].max()   # sampled every 10 us: the parabola's peak to g dt^2 / 8 ~ 1e-10 m
    expected = e * e * H0 if variant["contact"] == "sliding_plane" else _compliant_rebound_apex(variant["law"],
                                                                                               variant["stiffness"])
    assert apex == pytest.approx(expected, rel=1e-6)
    assert traj.power_budget().relative_residual < 1e-7


@pytest.mark.parametrize("params, message", [
    (dict(law="hertz"), r"`law` must be one of \('linear', 'hunt_crossley'\), got 'hertz'"),
    (dict(height=0.04), r"`height` must exceed `radius` = 0.05"),
    (dict(restitution=1.5), r"`restitution` must lie in \[0, 1\], got 1.5"),
    (dict(restitution=0.0, law="hunt_crossley"), r"`restitution` 0 with a hunt_crossley law and no damping of its "
                                                 r"own: a Hunt-Crossley impact returns at e = 0 only with infinite"),
])
def test_bad_parameters(params, message):
    with pytest.raises(ParameterError, match=message):
        build_model("ball-drop", **params)
