"""Rimless wheel down a slope: heel strikes, the steady gait, the stride map (issue 13).

References (written here from the mechanics, not read from the product):

* Heel strike: a plastic, no-slip impulse at the landing foot's contact point, the trailing
  foot leaving the ground, conserves the angular momentum about the landing point. With d1,
  d2 the vectors from the old and new contact points to the hub and the wheel pivoting
  about the old one before (hub velocity omega e_y x d1) and the new one after:
  (I_c + m d1 . d2) omega- = (I_c + m d2 . d2) omega+. For point feet and a point mass,
  omega+ / omega- = cos 2 alpha (McGeer 1990).
* Between strikes the stance foot rolls: its centre advances r (2 alpha) along the slope
  and the hub, L sin alpha on each side of the foot, descends by
  (2 L sin alpha + 2 r alpha) sin gamma, which is gravity's energy per stride; the kinetic
  energy before and after a strike is 1/2 J omega^2 with J = I_c + m |d|^2.
* Steady gait: omega+^2 = eta^2 (omega+^2 + K), K the stride's gain of omega^2, so
  omega*^2 = eta^2 K / (1 - eta^2), and the stride map's derivative there is eta^2.
"""

import math

import numpy as np
import pytest

import porthamiltonian as ph
from porthamiltonian.models import build_model
from porthamiltonian.models import rimless_wheel as rw
from porthamiltonian.studies import PoincareSection, fixed_point, stride_energy

G = 9.81
N, L, R, M, RHO, GAMMA = 8, 1.0, 0.02, 1.0, 0.1, 0.1   # the model's defaults
ALPHA = math.pi / N


def strike_geometry(leg=L, foot=R, alpha=ALPHA):
    """d1, d2 (in the slope's frame: x downhill, z along the normal) at a strike."""
    n = np.array((0.0, 0.0, 1.0))
    u1 = np.array((math.sin(alpha), 0.0, math.cos(alpha)))     # old stance foot (uphill) -> hub
    u2 = np.array((-math.sin(alpha), 0.0, math.cos(alpha)))    # landing foot (downhill) -> hub
    return leg * u1 + foot * n, leg * u2 + foot * n


def eta_reference(leg=L, foot=R, rho=RHO, alpha=ALPHA):
    d1, d2 = strike_geometry(leg, foot, alpha)
    return (rho ** 2 + d1 @ d2) / (rho ** 2 + d2 @ d2)


def steady_reference(leg=L, foot=R, rho=RHO, slope=GAMMA, alpha=ALPHA):
    eta = eta_reference(leg, foot, rho, alpha)
    d1, _ = strike_geometry(leg, foot, alpha)
    J = rho ** 2 + d1 @ d1
    K = 2.0 * G * math.sin(slope) * (2.0 * leg * math.sin(alpha) + 2.0 * foot * alpha) / J
    return math.sqrt(eta ** 2 * K / (1.0 - eta ** 2)), eta


@pytest.fixture(scope="module")
def run():
    model = build_model("rimless-wheel")
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    traj = ph.simulate(system, (0.0, 2.5), system.initial_state(model.initial), **model.solver)
    return model, system, traj


def speeds_at_strikes(model, system, traj):
    w = model.observables["angular speed"]
    out = []
    for t, _ in PoincareSection(rw.STRIKE).crossings(traj):
        at = np.flatnonzero(traj.t == t)
        out.append((w(system, t, traj.x[at[0]]), w(system, t, traj.x[at[-1]])))
    return np.array(out)


def test_closed_forms_match_the_mechanics():
    assert rw.impact_factor(N, L) == pytest.approx(math.cos(2 * ALPHA), abs=1e-15)
    assert rw.impact_factor(N, L, R, RHO) == pytest.approx(eta_reference(), rel=1e-14)
    w_star, _ = steady_reference()
    assert rw.steady_speed(N, L, R, RHO, GAMMA) == pytest.approx(w_star, rel=1e-13)
    # the textbook's point-foot, point-mass wheel
    textbook = math.sqrt(math.cos(2 * ALPHA) ** 2 * 4 * G / L * math.sin(GAMMA) * math.sin(ALPHA)
                         / (1 - math.cos(2 * ALPHA) ** 2))
    assert rw.steady_speed(N, L, 0.0, 0.0, GAMMA) == pytest.approx(textbook, rel=1e-13)


def test_critical_slope_is_where_the_steady_gait_just_vaults():
    gc = rw.critical_slope(N, L, R, RHO)
    assert 0.0 < gc < ALPHA
    for slope, expected in ((0.999 * gc, False), (1.001 * gc, True)):
        w = rw.steady_speed(N, L, R, RHO, slope)
        assert rw.vaults(N, L, R, RHO, slope, w) is expected
    # point feet: the top of the stance is at phi = -gamma, so the steady gait vaults iff
    # 1/2 L^2 omega*^2 > g L (cos(alpha - gamma) ... measured from the strike at -alpha)
    gc0 = rw.critical_slope(N, L)
    w = rw.steady_speed(N, L, 0.0, 0.0, gc0)
    assert 0.5 * L * L * w * w == pytest.approx(G * L * (1.0 - math.cos(ALPHA - gc0)), rel=1e-9)


def test_every_strike_drops_the_speed_by_eta(run):
    model, system, traj = run
    strikes = speeds_at_strikes(model, system, traj)
    assert len(strikes) >= 3
    eta = eta_reference()
    np.testing.assert_allclose(strikes[:, 1] / strikes[:, 0], eta, rtol=1e-8)
    released = [r for r in traj.events if r.name.endswith("impact")]
    assert all("released" in r.message for r in released)    # the trailing foot left the ground


def test_stride_energy_books_gravity_and_the_strike(run):
    model, system, traj = run
    energy = stride_energy(traj, rw.STRIKE)
    j_g = energy.elements.index("gravity")
    drop = M * G * math.sin(GAMMA) * (2 * L * math.sin(ALPHA) + 2 * R * ALPHA)
    np.testing.assert_allclose(energy.stored[:, j_g], -drop, rtol=1e-9)
    strikes = speeds_at_strikes(model, system, traj)
    d1, _ = strike_geometry()
    J = M * (RHO ** 2 + d1 @ d1)
    lost = energy.lost.sum(axis=1)
    np.testing.assert_allclose(lost, 0.5 * J * (strikes[1:, 0] ** 2 - strikes[1:, 1] ** 2), rtol=1e-8)
    assert np.max(np.abs(energy.residual)) < 1e-8 * drop
    assert not energy.dissipated.any()
    assert "stride 2" in energy.table()
    assert traj.power_budget().relative_residual < 1e-9


def test_steady_gait_is_the_stride_maps_fixed_point(run):
    model, system, traj = run
    _, x_strike = PoincareSection(rw.STRIKE).crossings(traj)[0]
    smap = rw.speed_map(system, x_strike, **model.solver)
    w_star, eta = steady_reference()
    fp = fixed_point(smap, [1.1 * w_star])
    assert fp.z[0] == pytest.approx(w_star, rel=1e-6)
    assert fp.residual < 1e-9
    assert abs(fp.multipliers[0] - eta ** 2) < 1e-4
    assert fp.stable


def test_below_the_critical_slope_the_wheel_stops():
    gc = rw.critical_slope(N, L, R, RHO)
    model = build_model("rimless-wheel", slope=0.9 * gc, speed=0.3)
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    traj = ph.simulate(system, (0.0, 4.0), system.initial_state(model.initial), **model.solver)
    # it passes the first strike but never vaults the next stance: it rocks between feet 0
    # and 1, each strike taking eta of the speed, and comes to rest on both
    feet = {r.name.split("/")[0] for r in traj.events if r.name.endswith("impact")}
    assert feet == {"foot0", "foot1"}
    # the last strikes are below the rest speed: the foot that would have been released
    # does not separate, so it is restored, and the wheel stands on both feet
    active = [system.element_state(f"foot{k}/constraint", traj.x[-1])[0][6] for k in range(N)]
    assert active == [1.0, 1.0] + [0.0] * (N - 2)
    w_end = model.observables["angular speed"](system, traj.t[-1], traj.x[-1])
    assert abs(w_end) < 1e-3


def test_compliant_feet_book_the_strike_in_their_dampers():
    model = build_model("rimless-wheel", contact="compliant")
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    pose = rw.strike_pose(system, N, GAMMA)
    traj = ph.simulate(system, (0.0, 2.0), system.initial_state(model.initial), events=[pose], **model.solver)
    energy = stride_energy(traj, pose)
    assert energy.t.size >= 3
    # per stride: gravity supplies its closed-form drop (critically damped feet do not
    # bounce, so the footprints are the stiff wheel's, up to the feet's sinkage and
    # tangential deflection, ~1e-4 m) and the feet's dampers and slip take out
    # what the rigid wheel loses at its strike; nothing is booked as an impact loss
    drop = M * G * math.sin(GAMMA) * (2 * L * math.sin(ALPHA) + 2 * R * ALPHA)
    np.testing.assert_allclose(energy.stored[:, energy.elements.index("gravity")], -drop, rtol=1e-3)
    resistors = [j for j, p in enumerate(energy.elements) if p.endswith(("/damper", "/slip"))]
    assert np.all(energy.dissipated[:, resistors].sum(axis=1) > 0.2 * drop)
    assert not any(p.endswith("constraint") for p in energy.elements)
    assert np.max(np.abs(energy.residual)) < 1e-6 * drop


@pytest.mark.parametrize("params, match", [
    (dict(spokes=4), "spokes"),
    (dict(spokes=8.5), "spokes"),
    (dict(foot=0.5), "foot"),
    (dict(contact="reduced"), "contact"),
])
def test_bad_parameters_are_refused(params, match):
    with pytest.raises(ph.ParameterError, match=match):
        build_model("rimless-wheel", **params)


def test_gait_plots_label_their_axes_with_units(run):
    import matplotlib.pyplot as plt

    from porthamiltonian.diagnostics.plots import plot_limit_cycle, plot_stride_energy

    model, system, traj = run
    energy = stride_energy(traj, rw.STRIKE)
    fig = plot_stride_energy(energy)
    ax = fig.axes[0]
    assert ax.get_ylabel() == "energy per stride [J]"
    assert len(ax.get_xticks()) == energy.t.size - 1
    plt.close(fig)
    angle = [model.observables["stance angle"](system, t, x) for t, x in zip(traj.t, traj.x)]
    speed = [model.observables["angular speed"](system, t, x) for t, x in zip(traj.t, traj.x)]
    fig = plot_limit_cycle(angle, speed, sections=[(0.0, 1.0)], xlabel="stance angle [rad]",
                           ylabel="angular speed [rad/s]")
    assert fig.axes[0].get_xlabel() == "stance angle [rad]"
    assert fig.axes[0].get_ylabel() == "angular speed [rad/s]"
    plt.close(fig)


def test_one_argument_swaps_rigid_feet_for_feet_in_sand():
    """The same wheel with contact='soil': its strides lose no energy at impacts (a foot in
    sand has no rigid impact) but plastic work in the sand, booked per foot; the rigid
    wheel's strides lose theirs at the strikes and dissipate nothing (issue 13,
    acceptance 5). Each stride's ledger closes."""
    tables = {}
    for kind in ("sliding_plane", "soil"):
        model = build_model("rimless-wheel", contact=kind)
        system = ph.compile(model.graph, baumgarte=model.baumgarte)
        section = rw.strike_pose(system, 8, 0.1)
        traj = ph.simulate(system, (0.0, 1.7), system.initial_state(model.initial), events=[section], rtol=1e-8,
                           atol=1e-10, method="DOP853")
        tables[kind] = table = stride_energy(traj, PoincareSection(section))
        assert table.t.size >= 3
        assert np.all(np.abs(table.residual) < 1e-6 * table.H[0])
    rigid, sand = tables["sliding_plane"], tables["soil"]
    assert np.all(rigid.lost.sum(axis=1) > 0.5) and np.all(rigid.dissipated == 0.0)
    plastic = [j for j, p in enumerate(sand.elements) if p.endswith("/plastic")]
    assert np.all(sand.dissipated[:, plastic].sum(axis=1) > 0.1)
    assert np.all(sand.lost.sum(axis=1) < 0.1 * sand.dissipated.sum(axis=1))
