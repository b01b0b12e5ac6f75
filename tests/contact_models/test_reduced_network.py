"""Contacts on patch networks (Kry & Pai sec. 3.5, patch transitions): a ball rolling across
the seams of a flat network follows analytic rolling, on a curved network it follows the
same surface given as one B-spline, with the three contact formulations; it leaves the
network at a boundary side, not at a shared one."""

import math

import numpy as np
import pytest

import porthamiltonian as ph
from porthamiltonian.geometry import BSplineSurface, PatchNetwork, Sphere
from porthamiltonian.library import Gravity, Ground, RigidBody, contact
from porthamiltonian.lie import se3

G, R, M = 9.81, 0.05, 0.2
SIDE = 0.2          # the flat network's patches [m]


def _flat_network(n=4):
    """n x n flat bicubic patches of side SIDE centred on the origin (plane z = 0)."""
    g = np.linspace(0.0, 1.0, 4)
    patches = []
    for i in range(n):
        for j in range(n):
            X, Y = np.meshgrid((i + g - n / 2) * SIDE, (j + g - n / 2) * SIDE, indexing="ij")
            patches.append(np.stack((X, Y, np.zeros_like(X)), -1))
    return PatchNetwork(patches)


def _dish():
    """A bicubic B-spline dish, 5 x 5 spans, with a ripple (curvature changes across seams)."""
    n = 8
    P = np.zeros((n, n, 3))
    for i in range(n):
        for j in range(n):
            x, y = (i - (n - 1) / 2) * 0.1, (j - (n - 1) / 2) * 0.1
            P[i, j] = (x, y, 0.3 * (x * x + y * y) + 0.01 * math.sin(7 * x))
    t = np.r_[[0.0] * 3, np.linspace(0.0, 1.0, n - 2), [1.0] * 3]
    return BSplineSurface(t, t, 3, 3, P)


def _ball_on(kind, surface, centre, twist, **law):
    bg = ph.BondGraph("ball")
    ball = RigidBody("ball", M, 0.4 * M * R * R * np.ones(3), pose=se3.make(np.eye(3), np.asarray(centre, float)),
                     twist=np.asarray(twist, float))
    ground = Ground("ground")
    bg.add(ball, ground, Gravity("gravity", ball, (0.0, 0.0, -G)),
           contact(kind, "contact", ball, Sphere(R), ground, surface, **law))
    bg.connect(ball.frame().port, "gravity")
    bg.connect(ball.frame().port, ("contact", "a"))
    bg.connect(ground.frame().port, ("contact", "b"))
    return ph.compile(bg)


@pytest.mark.parametrize("kind", ["reduced", "sliding_plane"])
def test_rolling_across_the_seams_of_a_flat_network_is_analytic_rolling(kind):
    """Rolling without slip at constant velocity diagonally over a 4 x 4 flat network: the
    centre moves at that velocity to 1e-9 m through four patch transitions (each a chart
    event when the contact point is TRANSITION_DEPTH past the seam, at the closed-form time),
    and the ledger closes."""
    v = np.array((0.6, 0.25))
    x0, y0 = -0.35, -0.3
    system = _ball_on(kind, _flat_network(), (x0, y0, R), (-v[1] / R, v[0] / R, 0.0, v[0], v[1], 0.0), friction="rolling")
    traj = ph.simulate(system, (0.0, 1.0), system.initial_state({}), rtol=1e-10, atol=1e-12)
    assert traj.status == 0, traj.message
    pose = traj.x[:, system.layout["ball.pose"]]
    assert np.abs(pose[:, 4] - (x0 + v[0] * traj.t)).max() < 1e-9      # measured 4e-11
    assert np.abs(pose[:, 5] - (y0 + v[1] * traj.t)).max() < 1e-9
    # reduced: the gap is round-off by construction; sliding plane: integration drift (3e-11 m)
    assert np.abs(pose[:, 6] - R).max() < (1e-12 if kind == "reduced" else 1e-9)
    # the plane's patches crossed: x = -0.2, 0, 0.2 and y = -0.2
    delta = PatchNetwork.TRANSITION_DEPTH * SIDE
    expected = sorted([(s - x0 + delta) / v[0] for s in (-0.2, 0.0, 0.2)] + [(-0.2 - y0 + delta) / v[1]])
    plane_changes = []
    last = None
    for e in traj.events:
        assert e.name == "contact/constraint.chart"
        patch = int(e.message.split("charts -> (")[1].split(")")[0].split(",")[1])
        if patch != last and last is not None:
            plane_changes.append(e.t)
        last = patch
    first = traj.events[0].message
    assert np.allclose(plane_changes, expected, rtol=0, atol=1e-9), (plane_changes, expected, first)
    assert last == 13                                        # patch (3, 1): x in [0.2, 0.4], y in [-0.2, 0]
    assert np.abs(traj.power_budget().residual).max() < 1e-9 * system.energy(traj.x[0])


CURVED = {   # kind: (contact law, start depth [m], ledger bound / H, path bound [m])
    "reduced": (dict(friction="frictionless"), 0.0, 1e-9, 1e-8),                  # measured 4e-10 m
    "sliding_plane": (dict(friction="frictionless"), 0.0, 1e-9, 1e-8),            # measured 4e-10 m
    # a stiff spring with Coulomb friction: its ledger at rtol 1e-10 through 250 stick/slip
    # events is 7e-9 of H on both surfaces, its paths agree to 1.4e-8 m
    "compliant": (dict(stiffness=1e5, damping=0.0, friction=0.3), 1e-4, 2e-8, 1e-7),
}


@pytest.mark.parametrize("kind", list(CURVED))
def test_a_curved_network_is_the_surface_it_was_split_from(kind):
    """A ball sliding and spinning over a rippled dish for 2 s: on the 25-patch network
    (several patch transitions; the compliant spring's tangential deformation re-expressed
    at each) it moves as on the single B-spline it was split from; the ledger closes."""
    law, depth, ledger, bound = CURVED[kind]
    B = _dish()
    p0, n0 = B.point(0.3, 0.4), B.normal(0.3, 0.4)
    v = np.array((0.4, 0.3, 0.0))
    v -= (v @ n0) * n0
    t_eval = np.linspace(0.0, 2.0, 21)
    centres = {}
    for name, S in (("bspline", B), ("network", PatchNetwork.from_bspline(B))):
        system = _ball_on(kind, S, p0 + (R - depth) * n0, (0.0, 0.0, 3.0, *v), **law)
        traj = ph.simulate(system, (0.0, 2.0), system.initial_state({}), rtol=1e-10, atol=1e-12, dense_output=True)
        assert traj.status == 0, traj.message
        assert np.abs(traj.power_budget().residual).max() < ledger * system.energy(traj.x[0])
        if name == "network":
            assert sum(e.name.endswith(".chart") for e in traj.events) >= 5
        centres[name] = traj.sol(t_eval)[:, system.layout["ball.pose"]][:, 4:7]
    assert np.abs(centres["network"] - centres["bspline"]).max() < bound


def test_a_ball_leaves_a_network_at_its_boundary():
    """Rolling off the flat network's outer side (x = 0.4), not at the seams before it: the
    contact separates on the edge event at the closed-form time."""
    v = 1.0
    system = _ball_on("reduced", _flat_network(), (0.05, 0.1, R), (0.0, v / R, 0.0, v, 0.0, 0.0), friction="rolling")
    traj = ph.simulate(system, (0.0, 0.45), system.initial_state({}), rtol=1e-10, atol=1e-12)
    leave = [e for e in traj.events if e.name == "contact/constraint.separation"]
    assert len(leave) == 1 and "edge" in leave[0].message
    assert leave[0].t == pytest.approx((0.4 - 0.05) / v, rel=1e-9)
