"""Soft soil with memory (issue 13, acceptance 3 and 6): `SoilLaw` and `SoilContact`.

The law is checked against its own closed forms by finite differences and quadrature; the
contact against the closed forms of a foot pressed into the soil: the Bekker sinkage under a
static load, the deepest sinkage and the rebound of a drop (energy), the permanent sinkage,
the two branches of a load-unload cycle, and the ledger (plastic work booked by the element
"plastic").
"""

import math
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.integrate import quad

import porthamiltonian as ph
from porthamiltonian.contact import SoilLaw
from porthamiltonian.errors import GeometryError, ParameterError
from porthamiltonian.geometry import BSplineSurface, Ellipsoid, Plane, Point, Sphere

from .conftest import assert_ledger_closes, ball, body_on_plane, world_force, world_momenta

TIGHT = dict(rtol=1e-11, atol=1e-13, method="DOP853")
SAND = SoilLaw.terrain("dry_sand", radius=0.05)
PLATE = SoilLaw(k_phi=1528.43e3, n=1.1, k_c=0.99e3, area=0.01)
LOAM = SoilLaw.terrain("sandy_loam", area=0.02, unloading=3.0)


# ---------------------------------------------------------------- the law alone
@pytest.mark.parametrize("law", [SAND, PLATE, LOAM], ids=["sphere-sand", "plate-sand", "plate-loam"])
def test_law_derivatives_match_finite_differences(law):
    rng = np.random.default_rng(3)
    for _ in range(20):
        m = rng.uniform(1e-3, 2e-2)
        z = rng.uniform(law.permanent_sinkage(m) + 1e-4, 1.2 * m)
        h = 1e-7 * m
        dVdz = (law.potential(z + h, m) - law.potential(z - h, m)) / (2 * h)
        dVdm = (law.potential(z, m + h) - law.potential(z, m - h)) / (2 * h)
        assert_allclose(law.force(z, m), dVdz, rtol=1e-6)
        assert_allclose(law.memory_force(z, m), -dVdm, rtol=1e-6, atol=1e-9 * law.force(z, m))


@pytest.mark.parametrize("law", [SAND, PLATE, LOAM], ids=["sphere-sand", "plate-sand", "plate-loam"])
def test_law_on_the_loading_curve(law):
    m = 0.01
    N, K = law.exponent, law.stiffness
    # continuous force and energy where unloading meets loading; zero force at the imprint's floor
    assert_allclose(law.force(m, m), K * m**N, rtol=1e-13)
    assert_allclose(law.potential(m, m), K * m ** (N + 1) / (2 * law.unloading * N), rtol=1e-13)
    assert law.force(law.permanent_sinkage(m), m) == 0.0
    assert_allclose(law.force(0.5 * (m + law.permanent_sinkage(m)), m), 0.5 * K * m**N, rtol=1e-12)
    # the memory force on the loading curve is the plastic part of the loading force
    assert_allclose(law.memory_force(m, m), law.plastic_force(m), rtol=1e-12)
    # work to load virgin soil = what is stored + what the plastic flow dissipates
    work = quad(law.loading_force, 0.0, m, epsabs=0, epsrel=1e-13)[0]
    assert_allclose(work, law.potential(m, m) + law.plastic_work(m), rtol=1e-12)
    assert_allclose(quad(law.plastic_force, 0.0, m, epsabs=0, epsrel=1e-13)[0], law.plastic_work(m), rtol=1e-12)
    assert_allclose(law.static_sinkage(law.loading_force(m)), m, rtol=1e-13)


def test_bekker_constants():
    """k = k_c / b + k_phi; a plate's b defaults to sqrt(A), a sphere's to its diameter;
    a sphere's footprint integral is 2 pi R k z^(n+1) / (n+1)."""
    k = 0.99e3 / 0.1 + 1528.43e3
    assert_allclose(PLATE.stiffness, k * 0.01, rtol=1e-15)
    assert PLATE.exponent == 1.1 and SAND.exponent == pytest.approx(2.1)
    z = 0.004
    cap = quad(lambda h: (0.99e3 / 0.1 + 1528.43e3) * (z - h) ** 1.1 * 2 * math.pi * 0.05, 0.0, z, epsrel=1e-13)[0]
    assert_allclose(SAND.loading_force(z), cap, rtol=1e-12)
    assert_allclose(SoilLaw.friction_coefficient("dry_sand"), math.tan(math.radians(28.0)), rtol=1e-15)


@pytest.mark.parametrize("kwargs, match", [
    (dict(k_phi=1e6, n=-0.5, area=0.01), r"`n` must be > 0, got -0.5"),
    (dict(k_phi=-1e6, n=1.0, area=0.01), r"`k_phi` must be"),
    (dict(k_phi=1e6, n=1.0), r"exactly one of `area`.*`radius`"),
    (dict(k_phi=1e6, n=1.0, area=0.01, radius=0.1), r"exactly one of `area`"),
    (dict(k_phi=1e6, n=0.5, area=0.01, unloading=1.5), r"`unloading` \(beta\) must be >= max\(1, 1/N\) = 2"),
    (dict(k_phi=1e6, n=1.0, area=0.0), r"`area` must be"),
])
def test_bad_soil_laws_are_refused(kwargs, match):
    with pytest.raises(ParameterError, match=match):
        SoilLaw(**kwargs)


def test_unknown_terrain_is_refused():
    with pytest.raises(ParameterError, match="unknown terrain 'mud'; use one of"):
        SoilLaw.terrain("mud", area=0.01)


# ---------------------------------------------------------------- a foot pressed into the soil
def test_flat_punch_sinks_to_the_bekker_sinkage_under_a_static_load():
    """A 10 kg plate (area 0.01 m^2, dry sand, overdamped by the soil's viscosity so that it
    never unloads) settles at z = (m g / (k A))^(1/n)."""
    m = 10.0
    law = SoilLaw(k_phi=1528.43e3, n=1.1, k_c=0.99e3, area=0.01, damping=1000.0)
    body, surface = ball(m, 0.1, 0.1)
    system, x0 = body_on_plane(body, surface, gravity=True, kind="soil", soil=law, friction=0.5)
    traj = ph.simulate(system, (0.0, 2.0), x0, **TIGHT)
    z = 0.1 - traj.state("ball.pose")[:, 6]
    expected = law.static_sinkage(m * 9.81)
    assert_allclose(z[-1], expected, rtol=1e-6)
    assert np.all(np.diff(z) >= -1e-12)                 # it only loaded
    assert traj.state("c/spring.soil")[-1, 1] == 1.0 and not [e for e in traj.events if "unload" in e.name]
    b = assert_ledger_closes(traj, 1e-8)
    plastic = b.entries["dissipated"]["c/plastic"][-1]
    assert_allclose(plastic, law.plastic_work(z[-1]), rtol=1e-6)


@pytest.fixture(scope="module")
def drop():
    """A 1 kg ball (R = 5 cm) on dry sand at 1 m/s, no gravity: it sinks, rebounds, leaves."""
    m, v = 1.0, 1.0
    system, x0 = body_on_plane(*ball(m, 0.05, 0.052, twist=(0, 0, 0, 0, 0, -v)), kind="soil", soil=SAND,
                               friction=0.5)
    return (m, v), system, ph.simulate(system, (0.0, 0.1), x0, dense_output=True, **TIGHT)


def test_drop_sinks_to_the_energy_closed_form_and_rebounds_at_the_law_restitution(drop):
    (m, v), _, traj = drop
    N, K = SAND.exponent, SAND.stiffness
    deepest = (0.5 * m * v * v * (N + 1) / K) ** (1 / (N + 1))   # all kinetic energy into loading work
    assert_allclose(traj.state("c/spring.soil")[-1, 0], deepest, rtol=1e-8)
    assert_allclose(world_momenta(traj)[0][-1], [0, 0, SAND.restitution() * m * v], rtol=1e-8, atol=1e-12)
    (release,) = [e for e in traj.events if e.name == "c/spring.release"]
    assert f"imprint {SAND.permanent_sinkage(deepest):.4g} m deep" in release.message
    i = np.searchsorted(traj.t, release.t)
    assert_allclose(0.05 - traj.state("ball.pose")[i, 6], SAND.permanent_sinkage(deepest), rtol=1e-8)
    b = assert_ledger_closes(traj, 1e-8)
    assert_allclose(b.entries["dissipated"]["c/plastic"][-1], SAND.plastic_work(deepest), rtol=1e-8)
    assert_allclose(b.entries["dissipated"]["c/plastic"][-1], 0.5 * m * v * v * (1 - SAND.restitution() ** 2),
                    rtol=1e-8)


def test_load_unload_cycle_traces_the_two_branches(drop):
    """The force on the ball against its sinkage: K z^N while loading (before the deepest
    point), k_u(m) (z - z_p(m)) while unloading (after)."""
    _, system, traj = drop
    (touch,), (release,) = ([e.t for e in traj.events if e.name == f"c/spring.{k}"] for k in ("touch", "release"))
    deepest = traj.state("c/spring.soil")[-1, 0]
    t = np.linspace(touch, release, 41)[1:-1]
    for ti in t:
        x = traj.sol(ti)
        z = 0.05 - x[system.layout["ball.pose"]][6]
        F = world_force(system, ti, x)[2]
        P = x[system.layout["ball.P"]][5]
        if P < 0:     # loading
            assert_allclose(F, SAND.loading_force(z), rtol=1e-6)
        else:
            assert_allclose(F, SAND.force(z, deepest), rtol=1e-6)
            assert z < deepest


def test_a_second_landing_in_the_imprint_is_elastic():
    """Under gravity the ball falls back into its own imprint: the touch is at the imprint's
    floor, no further plastic work, and it bounces back to the same height."""
    m, g = 1.0, 9.81
    body, surface = ball(m, 0.05, 0.05 + 0.002, twist=(0, 0, 0, 0, 0, -1.0))
    system, x0 = body_on_plane(body, surface, gravity=True, kind="soil", soil=SAND, friction=0.5)
    traj = ph.simulate(system, (0.0, 0.25), x0, **TIGHT)
    touches = [e for e in traj.events if e.name == "c/spring.touch"]
    assert len(touches) >= 3
    assert "virgin soil" in touches[0].message and all("in the imprint" in e.message for e in touches[1:])
    b = assert_ledger_closes(traj, 1e-8)
    plastic = b.entries["dissipated"]["c/plastic"]
    i1 = np.searchsorted(traj.t, touches[1].t)
    assert_allclose(plastic[-1], plastic[i1], rtol=1e-9)
    memory = traj.state("c/spring.soil")[:, 0]
    assert_allclose(memory[-1], memory[i1], rtol=1e-9)
    # apex heights after the first and the second bounce in the imprint are equal
    z, vz = traj.state("ball.pose")[:, 6], traj.state("ball.P")[:, 5]
    apex = [z[k] for k in range(1, len(z)) if vz[k - 1] > 0 >= vz[k]]
    assert len(apex) >= 2
    assert_allclose(apex[1], apex[0], rtol=0, atol=1e-9)


def test_a_landing_beside_the_imprint_presses_virgin_soil():
    """Thrown sideways onto a springy sand (unloading slope = loading tangent: restitution
    0.86), the ball climbs out of its imprint and lands 30 cm further on: the memory restarts
    and it loses plastic work again."""
    springy = SoilLaw.terrain("dry_sand", radius=0.05, unloading=1.0)
    body, surface = ball(1.0, 0.05, 0.052, twist=(0, 0, 0, 2.0, 0, -1.0))
    system, x0 = body_on_plane(body, surface, gravity=True, kind="soil", soil=springy, friction=0.0)
    traj = ph.simulate(system, (0.0, 0.25), x0, **TIGHT)
    touches = [e for e in traj.events if e.name == "c/spring.touch"]
    assert len(touches) >= 2 and all("virgin soil" in e.message for e in touches[:2])
    b = assert_ledger_closes(traj, 1e-8)
    plastic = b.entries["dissipated"]["c/plastic"]
    i1 = np.searchsorted(traj.t, touches[1].t)
    assert plastic[-1] - plastic[i1] > 0.2 * plastic[i1]      # a weaker impact, but plastic again
    memory = traj.state("c/spring.soil")[:, 0]
    at = np.flatnonzero(traj.t == touches[1].t)
    assert memory[at[0]] > 0.0 and memory[at[-1]] == 0.0     # the new footprint's memory starts at 0


def test_sliding_on_soil_books_plastic_and_friction_work():
    """A spinning ball thrown obliquely onto sand slides in its footprint (Dahl friction with
    the soil's force) while it sinks and rebounds: plastic and friction work, and the ledger
    closes."""
    body, surface = ball(1.0, 0.05, 0.052, twist=(5.0, 20.0, 3.0, 1.5, 0.0, -1.0))
    system, x0 = body_on_plane(body, surface, gravity=True, kind="soil", soil=SAND)
    traj = ph.simulate(system, (0.0, 0.06), x0, rtol=1e-10, atol=1e-12, method="DOP853")
    assert [e.name for e in traj.events if e.name != "c/spring.chart"] == ["c/spring.touch", "c/spring.unload",
                                                                            "c/spring.release"]
    b = assert_ledger_closes(traj, 1e-7)
    assert b.entries["dissipated"]["c/plastic"][-1] > 0.1
    assert b.entries["dissipated"]["c/slip"][-1] > 0.01


# ---------------------------------------------------------------- choosing it, bad input
def test_the_soil_kind_takes_a_materials_friction():
    body, surface = ball(1.0, 0.05, 0.06)
    system, _ = body_on_plane(body, surface, kind="soil", material=ph.library.ContactMaterial(friction=0.3))
    assert system.elements["c/spring"].p.mu == 0.3
    assert system.elements["c/spring"].soil == SAND       # the sole's radius, dry sand by default
    with pytest.raises(ParameterError, match="would override the material's"):
        body_on_plane(*ball(1.0, 0.05, 0.06), kind="soil", friction=0.3,
                      material=ph.library.ContactMaterial(friction=0.3))


def test_a_foot_starting_in_the_soil_is_refused():
    body, surface = ball(1.0, 0.05, 0.049)
    with pytest.raises(GeometryError, match=r"c/spring.*starts 0.001 m into virgin soil"):
        body_on_plane(body, surface, kind="soil")


def test_a_sole_without_a_footprint_needs_a_soil_law():
    H = np.eye(4)
    H[2, 3] = 0.1
    body = ph.library.RigidBody("ball", 1.0, [4e-3] * 3, pose=H)
    with pytest.raises(ParameterError, match=r"give `soil=SoilLaw\(..., area=A\)`.*Ellipsoid sole"):
        body_on_plane(body, Ellipsoid(0.08, 0.07, 0.06), kind="soil")


def test_a_point_foot_is_refused_whatever_the_soil_law():
    """A point has no sole: refused by name even with a soil law given (which would otherwise
    bypass the sole's footprint), on either side of the pair."""
    body = ph.library.RigidBody("ball", 1.0, [4e-3] * 3)
    ground = ph.library.Ground("ground")
    for sides in ((ground, Plane(), body, Point((0.0, 0.0, 0.0))), (body, Point((0.0, 0.0, 0.0)), ground, Plane())):
        with pytest.raises(ParameterError, match=r"soil contact 'c': a point foot \(`geometry.Point`\) has no sole"):
            ph.library.SoilContact("c", *sides, soil=SAND)


def test_a_soil_contact_survives_a_model_file(tmp_path):
    body, surface = ball(1.0, 0.05, 0.052, twist=(0, 0, 0, 0, 0, -1.0))
    bg = ph.BondGraph("soil_drop")
    ground = ph.library.Ground("ground")
    bg.add(body, ground, ph.library.contact("soil", "c", body, surface, ground, Plane(), soil=PLATE))
    bg.connect(body.frame().port, ("c", "a"))
    bg.connect(ground.frame().port, ("c", "b"))
    path = tmp_path / "soil.json"
    ph.save(bg, path)
    system, again = ph.compile(bg), ph.compile(ph.load(path))
    a = ph.simulate(system, (0.0, 0.05), system.initial_state(), **TIGHT)
    b = ph.simulate(again, (0.0, 0.05), again.initial_state(), **TIGHT)
    assert again.elements["c/spring"].soil == PLATE
    assert_allclose(b.x[-1], a.x[-1], rtol=0, atol=1e-15)


def test_soil_over_uneven_terrain():
    """Ground given as a B-spline height field (bumps of 1 cm over 20 cm): a ball dropped on a
    slope of a bump presses a footprint, is pushed downhill (away from the bump's top) and
    the ledger closes."""
    n = 7
    xs = np.linspace(-0.3, 0.3, n)
    P = np.array([[[x, y, 0.01 * math.cos(2 * math.pi * x / 0.4) * math.cos(2 * math.pi * y / 0.4)] for y in xs]
                  for x in xs])
    knots = np.concatenate(([0.0] * 4, np.linspace(0, 1, n - 2)[1:-1], [1.0] * 4))
    terrain = BSplineSurface(knots, knots, 3, 3, P)
    H = np.eye(4)
    H[:3, 3] = (0.05, 0.0, 0.08)     # over the flank of the bump at the origin, downhill towards +x
    body = ph.library.RigidBody("ball", 1.0, [1e-3] * 3, pose=H, twist=(0, 0, 0, 0, 0, -1.0))
    bg = ph.BondGraph("terrain")
    ground = ph.library.Ground("ground")
    bg.add(body, ground, ph.library.Gravity("gravity", body),
           ph.library.contact("soil", "c", body, Sphere(0.05), ground, terrain, soil=SAND))
    bg.connect(body.frame().port, "gravity")
    bg.connect(body.frame().port, ("c", "a"))
    bg.connect(ground.frame().port, ("c", "b"))
    system = ph.compile(bg)
    traj = ph.simulate(system, (0.0, 0.08), system.initial_state(), rtol=1e-10, atol=1e-12, method="DOP853")
    assert [e.name for e in traj.events if e.name.endswith("touch")] == ["c/spring.touch"]
    b = assert_ledger_closes(traj, 1e-7)
    assert b.entries["dissipated"]["c/plastic"][-1] > 0.05
    assert traj.state("ball.P")[-1, 3] > 0.01      # pushed downhill, along +x


@pytest.mark.parametrize("reach", [0.8, 1.3])
def test_sinking_beyond_the_round_sole_is_flagged(reach):
    """Issue 36: a ball dropped with the kinetic energy that loads the soil to `reach` times
    the sole's radius (closed form: 1/2 m v^2 = K z^(N+1) / (N+1)). Beyond the radius the
    round-sole law does not hold: the run is flagged (status 2, `soil_depth`, in its warnings),
    or refused with audit="strict"; within it, nothing is said."""
    from porthamiltonian.errors import AuditError, AuditWarning

    R, m = 0.02, 1.0
    law = SoilLaw.terrain("dry_sand", radius=R)
    N, K = law.exponent, law.stiffness
    deepest = reach * R
    v = np.sqrt(2.0 * K * deepest ** (N + 1) / (N + 1) / m)
    system, x0 = body_on_plane(*ball(m, R, R + 0.001, twist=(0, 0, 0, 0, 0, -v)), kind="soil", soil=law, friction=0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AuditWarning)
        traj = ph.simulate(system, (0.0, 0.1), x0, **TIGHT)
    assert_allclose(traj.state("c/spring.soil")[:, 0].max(), deepest, rtol=1e-8)
    if reach < 1.0:
        assert traj.status == 0 and traj.flags == []
        return
    assert traj.status == 2 and traj.flags == ["soil_depth"]
    assert f"sank {deepest:.4g} m" in traj.warnings[0] and "beyond the soil law's range" in traj.warnings[0]
    with pytest.raises(AuditError, match="beyond the soil law's range"):
        ph.simulate(system, (0.0, 0.1), x0, audit="strict", **TIGHT)


def test_the_unloads_own_instant_is_no_yield(drop):
    """At an unload the memory is set to the sinkage (z - m = 0) with the sinkage rate zero to
    the root's accuracy. Read off z - m alone, the yield fired at that same instant and left
    the soil loading while the foot rose, its plastic force generating energy (the quadruped
    trot's front-left foot, rate -1.65e-17 m/s, 0.25 J generated, issue 36). The yield's
    function is read only while the foot sinks."""
    (m, _), system, traj = drop
    (unload,) = [e for e in traj.events if e.name == "c/spring.unload"]
    i = np.nonzero(traj.t == unload.t)[0][-1]   # the state after the jump: elastic, m = z
    x = traj.x[i].copy()
    soil = x[system.layout["c/spring.soil"]]
    assert soil[1] == 0.0
    k = next(k for k, b in enumerate(system.events) if b.element == "c/spring" and b.spec.name == "yield")
    P = system.layout["ball.P"].start + 5           # the ball's vertical momentum (no rotation: world z)
    z = 0.05 - x[system.layout["ball.pose"]][6]
    for rate, expected in ((1e-17, z - soil[0]), (-1e-17, -1.0), (1e-3, z - soil[0])):
        x[P] = -m * rate                              # sinking is moving down
        assert system.event_value(k, unload.t, x) == pytest.approx(expected, abs=1e-15)
    # and the drop's ledger shows no plastic flow after the unload: the foot rose elastic
    # (exactly: an elastic soil's plastic rate is the literal zero, which every step adds)
    plastic = traj.power_budget().entries["dissipated"]["c/plastic"]
    assert np.all(np.diff(plastic[i:]) == 0.0)
