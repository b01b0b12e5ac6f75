"""Penetration beyond the compliant contact's range stops the run and says when and how deep
(issue 17: a soft floor, k = 10 N/m, let an ellipsoid's centre reach z = -1.34 m with status
0 and no word)."""

import numpy as np

import porthamiltonian as ph

from .conftest import ball, body_on_plane


def test_sinking_through_a_soft_floor_stops_the_run_saying_when_and_how_deep():
    system, x0 = body_on_plane(*ball(1.0, 0.1, 0.3), gravity=True, stiffness=10.0, damping=0.0)
    traj = ph.simulate(system, (0.0, 2.0), x0, throw=False)
    assert traj.status == -1
    assert "ContactSpring:spring: penetration" in traj.message and "beyond the compliant contact's range" in traj.message
    limit = system.elements["c/spring"].depth_limit
    z = traj.state("ball.pose")[:, 6]
    assert 0.1 - z[-1] <= limit + 1e-9          # it stopped before the centre sank past the range
    t_fail = float(traj.message.split("at t = ")[-1].split(" s")[0])
    # free fall from 0.3 m onto the floor, then sinking: the limit is reached after the touch
    assert np.sqrt(2 * 0.2 / 9.81) < t_fail < 2.0


def test_a_normal_impact_stays_in_range():
    """The control: a 2 m/s impact on the default stiffness penetrates 2 cm, well inside."""
    system, x0 = body_on_plane(*ball(1.0, 0.1, 0.1 + 1e-3, twist=(0, 0, 0, 0, 0, -2.0)))
    traj = ph.simulate(system, (0.0, 0.1), x0)
    assert traj.status == 0
