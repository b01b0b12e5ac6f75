"""robot-drop on soil: real robots' sphere feet on Bekker soil (round-sole law of the foot).

References: Wong's Bekker constants through the closed-form round-sole force (the default
terrain keeps every standing robot's feet within the law's range); Pinocchio's total mass of
the same URDF (the feet carry m g at rest); the energy ledger (stored kinetic + weight + joint
springs + soil, dissipated by the joint dampers, the soil's plasticity and slip) closes to the
integration tolerance.
"""

import math

import numpy as np
import pytest

import porthamiltonian as ph
from porthamiltonian.contact.soil import SoilLaw
from porthamiltonian.diagnostics.contact_forces import contact_forces, contact_names
from porthamiltonian.errors import GeometryError
from porthamiltonian.models import build_model
from porthamiltonian.models.robot_drop import ROBOTS, SOIL_TERRAIN, standing_sinkage

from .test_robot_drop import _run, _standing_equilibrium

pytest.importorskip("yourdfpy")

TIGHT = dict(method="DOP853", rtol=1e-10, atol=1e-12)
# Wong, Theory of Ground Vehicles, Table 2.3: n, k_c [N/m^(n+1)], k_phi [N/m^(n+2)]
WONG = {"sandy_loam": (0.7, 5.27e3, 1515.04e3), "dry_sand": (1.1, 0.99e3, 1528.43e3)}


def _pin_mass(robot):
    pin = pytest.importorskip("pinocchio")
    from porthamiltonian.robots import example

    return pin.computeTotalMass(pin.buildModelFromUrdf(str(example(robot)), pin.JointModelFreeFlyer()))


@pytest.mark.parametrize("robot", ROBOTS)
def test_default_terrain_keeps_standing_feet_within_the_round_sole_law(robot):
    # reference: the round-sole force 2 pi R k z^(n+1) / (n+1), k = k_c / (2 R) + k_phi, from
    # Wong's constants, at the returned sinkage equals the foot's share of Pinocchio's m g
    n, k_c, k_phi = WONG[SOIL_TERRAIN]
    found = standing_sinkage(robot)
    share = _pin_mass(robot) * 9.81 / len(found)
    for link, (z, R) in found.items():
        force = 2 * math.pi * R * (k_c / (2 * R) + k_phi) * z ** (n + 1) / (n + 1)
        # a power law and its inverse, evaluated in another order: round-off
        assert force == pytest.approx(share, rel=1e-9), link
        # within the law's range with margin: the standing foot sinks less than 0.75 of its radius
        assert z < 0.75 * R, (robot, link, z, R)


def test_dry_sand_puts_go1_beyond_the_law_which_is_why_it_is_not_the_default():
    n, k_c, k_phi = WONG["dry_sand"]
    for link, (z, R) in standing_sinkage("go1", "dry_sand").items():
        assert 2 * math.pi * R * (k_c / (2 * R) + k_phi) * z ** (n + 1) / (n + 1) == pytest.approx(
            _pin_mass("go1") * 9.81 / 4, rel=1e-9)
        assert z > R


@pytest.mark.parametrize("robot", ROBOTS)
def test_soil_drop_closes_its_ledger(robot):
    # a 1 cm drop: touchdown at 45 ms, the landing (loading, unloading) inside the 0.09 s run
    model = build_model("robot-drop", robot=robot, contact="soil", drop=0.01)
    system, tr = _run(model, 0.09, **model.solver)
    assert tr.status == 0, tr.message
    assert tr.warnings == []              # no foot sank beyond the law's range
    base = tr.state("robot.q")[:, 6]
    assert base[-1] < base[0] - 0.01      # it fell onto its feet and into the soil
    budget = tr.power_budget()
    plastic = sum(float(np.asarray(v)[-1]) for p, v in budget.entries["dissipated"].items() if p.endswith("plastic"))
    assert plastic > 1e-3                 # the soil was pressed: plastic work booked [J]
    # rtol 1e-8 (the model's solver): the ledger's residual is at the integration tolerance
    assert budget.relative_residual < 1e-6


def _soil_blocks(system):
    return {name: system.layout[f"{name}/spring.soil"] for name in contact_names(system)}


@pytest.mark.parametrize("robot", ROBOTS)
def test_robot_at_rest_on_soil_feet_carry_its_weight(robot):
    # reference: Pinocchio's total mass of the same URDF, times g
    mass = _pin_mass(robot)
    model = build_model("robot-drop", robot=robot, contact="soil", drop=0.001)
    system = ph.compile(model.graph)
    x0 = system.initial_state(model.initial)
    q_guess = x0[system.layout["robot.q"]]
    blocks = _soil_blocks(system)
    sinkage = standing_sinkage(robot)
    # each foot rests in an imprint the landing pressed to m = 1.3 x its static sinkage (a
    # drop loads deeper than standing does): elastic there, the footprint under the foot
    soil = {}
    for name, sl in blocks.items():
        z, _ = sinkage[name.removesuffix("-contact")]
        block = x0[sl].copy()
        block[0], block[1] = 1.3 * z, 0.0
        soil[f"{name}/spring.soil"] = block
    law = SoilLaw.terrain(SOIL_TERRAIN, radius=next(iter(sinkage.values()))[1])
    m = 1.3 * next(iter(sinkage.values()))[0]
    # the guess: feet pressed to the imprint's floor plus the elastic sinkage under m g / 4
    q_guess[6] -= 0.001 + law.permanent_sinkage(m) + mass * 9.81 / 4 / law.unloading_stiffness(m)
    x, residual = _standing_equilibrium(system, q_guess, soil)
    # the generalized accelerations [m/s^2, rad/s^2] vanish to round-off at the root
    assert residual < 1e-8
    tr = ph.simulate(system, (0.0, 0.01), x, t_eval=[0.0, 0.01], **TIGHT)
    assert tr.status == 0, tr.message
    # it is a rest state of the whole system (soil and friction states included): it stays
    assert np.abs(tr.state("robot.v")).max() < 1e-9
    weight = sum(contact_forces(tr, name).normal[0] for name in blocks)
    # sum F_z - m g = m a_com,z with |a_com,z| <= residual: 1e-8 / 9.81 relative, well inside 1e-6
    assert weight == pytest.approx(mass * 9.81, rel=1e-6)
    for name, sl in blocks.items():
        assert contact_forces(tr, name).normal[0] > 0.05 * mass * 9.81
        assert tr.x[-1, sl][1] == 0.0     # still elastic in its imprint (the mode flag: exact)


def test_a_foot_pressed_into_virgin_soil_is_refused_and_a_given_memory_accepts_it():
    model = build_model("robot-drop", robot="go1", contact="soil", drop=0.001)
    system = ph.compile(model.graph)
    q = system.initial_state(model.initial)[system.layout["robot.q"]]
    q[6] -= 0.006   # every foot 5 mm into the soil
    with pytest.raises(GeometryError, match=r"FR_foot-contact.*starts 0.005 m into virgin soil.*give the soil block's "
                                            r"memory m >= the sinkage"):
        system.initial_state({"robot.q": q})
    sl = system.layout["FR_foot-contact/spring.soil"]
    with pytest.raises(GeometryError, match=r"given memory m = 0.004 m is shallower"):
        system.initial_state({"robot.q": q, "FR_foot-contact/spring.soil": [0.004, 0.0, 0.0, 0.0, 0.0]})
    soil = {f"{n}/spring.soil": [0.006, 0.0, 0.0, 0.0, 0.0] for n in contact_names(system)}
    x = system.initial_state({"robot.q": q, **soil})
    assert x[sl][0] == 0.006   # the given block is kept as given


def test_foot_footprint_and_terrain_reach_every_foot_and_bad_ones_are_named():
    from porthamiltonian.bondgraph.flatten import flatten
    from porthamiltonian.errors import ParameterError

    for model_name in ("robot-drop", "quadruped-trot"):
        model = build_model(model_name, contact="soil", foot_footprint=0.03, terrain="clayey_soil")
        springs = [e for p, e in flatten(model.graph).elements.items() if p.endswith("-contact/spring")]
        assert len(springs) == 4
        for spring in springs:
            # the law presses a 3 cm sole of clayey soil; the contact geometry stays the 2 cm foot
            assert spring.soil == SoilLaw.terrain("clayey_soil", radius=0.03)
            assert spring.pair.S1.radius == 0.02
            # friction: the terrain's tan(phi), tan(13 deg)
            assert spring.p.mu == pytest.approx(math.tan(math.radians(13.0)), rel=1e-15)
        with pytest.raises(ParameterError, match=rf"model '{model_name}'.*`terrain`.*'moon_dust'"):
            build_model(model_name, contact="soil", terrain="moon_dust")
        with pytest.raises(ParameterError, match=r"`foot_footprint`.*-0.01"):
            build_model(model_name, contact="soil", foot_footprint=-0.01)
