"""The hopping leg (issue 13, acceptance 4): periodic hops on undamped compliant ground, the
foot's kinetic energy lost at a rigid landing, and soft soil taking exactly its plastic work
out of each hop."""

import numpy as np
import pytest
from numpy.testing import assert_allclose

import porthamiltonian as ph
from porthamiltonian.models.hopping_leg import APEX, apex_map
from porthamiltonian.models.registry import build_model
from porthamiltonian.studies import PoincareSection, fixed_point, stride_energy

TIGHT = dict(rtol=1e-11, atol=1e-13, method="DOP853")


def compiled(**params):
    return ph.compile(build_model("hopping-leg", **params).graph)


def apexes(traj):
    return [x for _, x in PoincareSection(APEX(traj.system)).crossings(traj)]


@pytest.fixture(scope="module")
def hard():
    system = compiled()
    traj = ph.simulate(system, (0.0, 0.5), system.initial_state(), events=[APEX(system)], **TIGHT)
    return system, apexes(traj)[0]


def test_undamped_hops_on_compliant_ground_repeat_from_the_apex_maps_fixed_point(hard):
    """The leg oscillates in flight, so hops from a drop differ; from the apex map's fixed
    point (same energy) the hop repeats exactly. The map of a conservative hopper preserves
    area: the multipliers' product is 1."""
    system, x_apex = hard
    amap = apex_map(system, x_apex, **TIGHT)
    gait = fixed_point(amap, amap.project(x_apex))
    assert gait.residual < 1e-9
    assert_allclose(np.prod(gait.multipliers), 1.0, rtol=1e-5)
    x0 = amap.lift(gait.z)
    traj = ph.simulate(system, (0.0, 3.2 * gait.period), x0, events=[APEX(system)], **TIGHT)
    hops = apexes(traj)
    assert len(hops) == 3
    h = system.layout["hip.pose"]
    for x in hops:
        assert_allclose(x[h][6], x0[h][6], rtol=0, atol=1e-8)
        assert_allclose(amap.project(x), gait.z, rtol=0, atol=1e-7)
    budget = traj.power_budget()
    assert budget.max_residual < 1e-9 * budget.scale
    assert all(abs(col[-1]) < 1e-12 for col in budget.entries["dissipated"].values())


def test_a_rigid_landing_loses_the_feet_kinetic_energy():
    """Sliding-plane ground, plastic: at the landing the foot stops; the ledger books its
    kinetic energy (relative to the hip, which the leg spring carries on) as lost."""
    system = compiled(contact="sliding_plane")
    traj = ph.simulate(system, (0.0, 0.2), system.initial_state(), **TIGHT)
    (impact,) = [e for e in traj.events if e.name.endswith("impact")]
    before = traj.x[np.flatnonzero(traj.t == impact.t)[0]]
    v_foot = before[system.layout["foot.P"]][5] / system.elements["foot"].mass
    lost = traj.power_budget().entries["lost"]
    total_lost = sum(col[-1] for col in lost.values())
    assert_allclose(total_lost, 0.5 * system.elements["foot"].mass * v_foot**2, rtol=1e-9)


def test_each_hop_on_soil_loses_the_plastic_work_the_soil_books():
    system = compiled(contact="soil")
    traj = ph.simulate(system, (0.0, 1.0), system.initial_state(), events=[APEX(system)], rtol=1e-10, atol=1e-12,
                       method="DOP853")
    table = stride_energy(traj, PoincareSection(APEX(system)))
    plastic = table.dissipated[:, table.elements.index("foot_contact/plastic")]
    dH = table.H[1:] - table.H[:-1]
    assert len(dH) >= 1
    assert plastic.sum() > 0.01      # the hops press the footprint deeper [J]
    assert_allclose(-dH, np.sum(table.dissipated, axis=1), rtol=0, atol=1e-7 * table.H[0])
    # nothing else dissipates: the soil's damping is 0, the motion vertical
    assert_allclose(np.sum(table.dissipated, axis=1), plastic, rtol=0, atol=1e-9 * table.H[0])


def test_an_unknown_contact_is_refused():
    with pytest.raises(ph.ParameterError, match=r"model 'hopping-leg' is not built for the reduced contact kind .*"
                                                r"`contact` must be one of the kinds it offers: compliant, "
                                                r"sliding_plane, soil"):
        build_model("hopping-leg", contact="reduced")
