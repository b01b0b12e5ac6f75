"""`porthamiltonian run two-ellipsoids` for 5 s (issue 5, acceptance 4 and 6).

One run, in-process, shared by every check (it takes about 35 s). The model's defaults:
semi-axes (0.25, 0.15, 0.1) m, lower centre at 0.35 m, upper centre at (0.12, 0, 0.75) m
tilted 0.25 rad about y, gravity 9.81 m/s^2.
"""

import json
import math

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.optimize import minimize

from porthamiltonian.cli import main
from porthamiltonian.lie import quaternion

from .reference import G, rotation_about

AXES = np.array((0.25, 0.15, 0.1))
LOWER, UPPER, TILT = np.array((0.0, 0.0, 0.35)), np.array((0.12, 0.0, 0.75)), 0.25


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("two_ellipsoids")
    code = main(["run", "two-ellipsoids", "--t-end", "5", "--out", str(out), "--no-progress"])
    summary = json.loads((out / "summary.json").read_text())
    obs = dict(np.load(out / "observables.npz"))
    return code, out, summary, obs


def first(events, name, after=-np.inf):
    return min(e["t"] for e in events if e["name"] == name and e["t"] > after)


def test_run_completes_and_saves_its_outputs(run):
    code, out, summary, obs = run
    assert code == 0 and summary["status"] == 0
    assert summary["t_end"] == 5.0 and obs["t"][-1] == 5.0
    for name in ("trajectory.npz", "trajectory.csv", "energy_budget.png", "distances.png", "contact_forces.png"):
        assert (out / name).stat().st_size > 0


def test_contact_forces_are_saved_and_balance_the_momentum(run):
    """contact_forces.npz holds every contact's forces; a contact pushes only while its
    surfaces overlap; and the impulse of the floor's normal forces minus the weights equals the
    change of the two bodies' vertical momentum, read from the saved states (measured 0.14 N s
    of 98 N s: the trapezoid rule on 5 ms samples of 30-70 ms impact pulses; 2e-3 N s over the
    first second at 1 ms samples). A contact missing or counted with the wrong sign would be
    tens of N s off."""
    _, out, _, obs = run
    f = dict(np.load(out / "contact_forces.npz"))
    t = f["t"]
    assert_allclose(t, obs["t"])
    for name, key in (("lower_floor", "Delta_lower/floor"), ("upper_lower", "Delta_upper/lower")):
        assert f[f"{name}.tangential"].shape == f[f"{name}.point"].shape == (t.size, 3)
        assert np.all(f[f"{name}.normal"][obs[key] > 1e-9] == 0.0)
    saved = np.load(out / "trajectory.npz")
    names, x = list(saved["names"]), saved["x"]

    def p_z(body):
        i, j = names.index(f"{body}.pose[0]"), names.index(f"{body}.P[3]")
        return np.array([(quaternion.to_matrix(row[i : i + 4]) @ row[j : j + 3])[2] for row in x])

    p = p_z("lower") + p_z("upper")
    impulse = np.trapezoid(f["lower_floor.normal"] + f["upper_floor.normal"], t) - 2 * G * (t[-1] - t[0])
    assert abs(impulse - (p[-1] - p[0])) < 5e-3 * 2 * G * t[-1]


def test_centres_of_pressure_are_saved_for_bodies_with_several_contacts(run):
    """The floor (two contacts) and the upper and lower bodies (two each) have a centre of
    pressure in contact_forces.npz: the normal-force-weighted mean of their contacts' points,
    recomputed here from the per-contact arrays; the floor's lies between its two contact
    points and on the floor (within the penetration) wherever both contacts push; NaN while nothing touches. (An unclipped
    damper pulls briefly at a release: that contact is left out of the centre then.)"""
    _, out, _, _ = run
    f = dict(np.load(out / "contact_forces.npz"))
    assert (out / "center_of_pressure.png").stat().st_size > 0
    for body, contacts in (("ground", ("lower_floor", "upper_floor")), ("upper", ("upper_floor", "upper_lower")),
                           ("lower", ("lower_floor", "upper_lower"))):
        # pushing forces only (a damper's pull at a release is not pressure), and blank where
        # the total is below 1e-3 of its peak (a contact's first and last instants)
        push = {c: np.maximum(f[f"{c}.normal"], 0.0) for c in contacts}
        total = sum(push.values())
        assert_allclose(f[f"{body}.total_normal"], total, rtol=1e-14)
        on = total > 1e-3 * total.max()
        assert on.any() and np.all(np.isnan(f[f"{body}.center_of_pressure"][~on]))
        weighted = sum(push[c][:, None] * np.nan_to_num(f[f"{c}.point"]) for c in contacts)
        assert_allclose(f[f"{body}.center_of_pressure"][on], weighted[on] / total[on, None], rtol=1e-12, atol=1e-15)
    pressed = f["ground.total_normal"] > 1e-3 * f["ground.total_normal"].max()     # where the centre is drawn
    pushing = (f["lower_floor.normal"] >= 0) & (f["upper_floor.normal"] >= 0) & pressed
    assert pushing.sum() > 100
    z = f["ground.center_of_pressure"][pushing, 2]
    z_points = np.stack([f[f"{c}_floor.point"][pushing, 2] for c in ("lower", "upper")])
    assert np.all((z_points.min(axis=0) - 1e-15 <= z) & (z <= z_points.max(axis=0) + 1e-15))
    # contact points sit midway into the overlap: within half the deepest impact (3.5 cm at
    # 2.2 m/s with 4000 N/m for 1 kg) of the floor
    assert np.all(np.abs(z) < 0.02)


def test_ledger_closes_to_1e6_of_the_initial_energy(run):
    _, _, summary, _ = run
    led = summary["ledger"]
    # H0: kinetic 0, gravity m g (0.35 + 0.75) with m = 1
    assert_allclose(led["H0"], G * (LOWER[2] + UPPER[2]), rtol=1e-14)
    assert led["max_residual"] < 1e-6 * led["H0"]  # measured 6.0e-7
    for row in led["elements"]:
        assert row["dissipated"] >= 0.0 and row["lost"] >= 0.0, row
    # every contact dissipates: the dampers and the slips all appear in the ledger
    damped = {r["element"] for r in led["elements"] if r["dissipated"] > 0}
    assert {f"{c}/{p}" for c in ("lower_floor", "upper_floor", "upper_lower") for p in ("damper", "slip")} <= damped


def brute_force_distance(H1, H2, axes):
    """Distance between two separated ellipsoids by minimizing over both surfaces' points."""

    def point(H, u, v):
        return H[:3, :3] @ (axes * (math.cos(v) * math.cos(u), math.cos(v) * math.sin(u), math.sin(v))) + H[:3, 3]

    def f(z):
        return float(np.sum((point(H1, z[0], z[1]) - point(H2, z[2], z[3])) ** 2))

    starts = [(u1, v1, u2, v2) for u1 in (0, 2) for v1 in (0.8, 1.4) for u2 in (0, 3) for v2 in (-1.4, -0.8)]
    best = min((minimize(f, s, method="BFGS", options={"gtol": 1e-14}) for s in starts), key=lambda r: r.fun)
    return math.sqrt(best.fun)


def test_initial_distances(run):
    _, _, _, obs = run
    H_low, H_up = np.eye(4), np.eye(4)
    H_low[:3, 3] = LOWER
    H_up[:3, :3], H_up[:3, 3] = rotation_about((0, 1, 0), TILT), UPPER
    a, _, c = AXES
    assert_allclose(obs["Delta_lower/floor"][0], LOWER[2] - c, rtol=1e-12)
    h_up = math.sqrt(a * a * math.sin(TILT) ** 2 + c * c * math.cos(TILT) ** 2)
    assert_allclose(obs["Delta_upper/floor"][0], UPPER[2] - h_up, rtol=1e-12)
    assert_allclose(obs["Delta_upper/lower"][0], brute_force_distance(H_low, H_up, AXES), rtol=1e-7)


def test_seed_sequence_of_events(run):
    """The seed's instants (b)-(f): lower lands, upper lands on it, the upper reaches the floor,
    they roll apart (in that order: seed 003 sec. 6, "(e) The black ellipsoid touches the
    ground. (f) Both ellipsoids roll away, creating a distance between them")."""
    _, _, summary, obs = run
    ev = summary["events"]
    lands = first(ev, "lower_floor/spring.touch")
    assert_allclose(lands, math.sqrt(2 * (LOWER[2] - AXES[2]) / G), rtol=1e-6)  # free fall
    assert min(e["t"] for e in ev if e["name"].endswith(".touch")) == lands  # lower first
    on_lower = first(ev, "upper_lower/spring.touch")
    on_floor = first(ev, "upper_floor/spring.touch")
    pair = [e for e in ev if e["name"] in ("upper_lower/spring.touch", "upper_lower/spring.release")]
    apart = pair[-1]
    assert apart["name"] == "upper_lower/spring.release"
    assert lands < on_lower < on_floor < apart["t"] < 5.0
    # after the last release the two stay apart, and end well apart
    t, d = obs["t"], obs["Delta_upper/lower"]
    assert np.all(d[t > apart["t"]] > 0.0) and d[-1] > 0.02
    # the sampled distances agree with the events: negative only between touch and release
    for name, key in (("lower_floor", "Delta_lower/floor"), ("upper_lower", "Delta_upper/lower")):
        touches = [e["t"] for e in ev if e["name"] == f"{name}/spring.touch"]
        releases = [e["t"] for e in ev if e["name"] == f"{name}/spring.release"]
        inside = np.zeros(t.size, bool)
        for t0 in touches:
            t1 = min([r for r in releases if r > t0], default=np.inf)
            inside |= (t > t0) & (t < t1)
        assert np.all(obs[key][~inside] >= -1e-9) and np.all(obs[key][inside] <= 1e-9)


def test_list_shows_the_model(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "two-ellipsoids:" in out and "stiffness = 4000.0 [N/m]" in out
