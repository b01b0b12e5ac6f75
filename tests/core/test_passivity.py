"""The ledger flags a resistor that generates energy (issue 17: an active user law showed up
only as "dissipated = -2.1e305", unflagged)."""

import numpy as np

import porthamiltonian as ph


def msd(law=None):
    bg = ph.BondGraph("msd")
    r = ph.R("b", law=law) if law is not None else ph.R("b", 0.5)
    bg.add(ph.Junction1("v"), ph.I("m", mass=2.0), ph.C("k", stiffness=3.0), r)
    for el in ("m", "k", "b"):
        bg.connect("v", el)
    system = ph.compile(bg)
    return system, system.initial_state({"k.q": 0.2})


def test_an_active_resistor_is_flagged_with_its_first_time():
    system, x0 = msd(law=lambda f: -0.3 * f)          # e . f = -0.3 f^2 < 0: it pumps energy in
    traj = ph.simulate(system, (0.0, 5.0), x0, rtol=1e-10, atol=1e-12, t_eval=np.linspace(0, 5, 51))
    b = traj.power_budget()
    ((path, t, generated),) = b.passivity_violations
    assert path == "b" and t == 0.0   # injects from the start (issue 39: the onset was the margin crossing)
    assert np.isclose(generated, -b.entries["dissipated"]["b"].min(), rtol=1e-9)
    assert "WARNING: " in b.table() and "is not passive" in b.table()
    assert b.to_dict()["passivity_violations"][0]["element"] == "b"
    assert b.max_residual <= 1e-8 * b.scale                # the ledger itself still closes


def test_a_passive_resistor_is_not_flagged():
    system, x0 = msd()
    b = ph.simulate(system, (0.0, 5.0), x0, rtol=1e-10, atol=1e-12).power_budget()
    assert b.passivity_violations == [] and "WARNING" not in b.table()


def test_the_residual_reads_against_the_energy_exchanged():
    """Issue 17: a pendulum released horizontally about gravity's datum has H(0) = 0 and keeps
    H = 0, so `scale` (the largest |H| seen) is the integration error itself and the residual
    read "0.98 of the energy scale". `exchanged` is the energy the links trade between kinetic
    and potential (gravity's range, m g L per link here, by the closed form of a link falling
    from horizontal through the vertical), and the table reports against it too."""
    from porthamiltonian.models import build_model

    model = build_model("double-pendulum", theta1=np.pi / 2, theta2=0.0)
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    x0 = system.initial_state(model.initial)
    traj = ph.simulate(system, (0.0, 2.0), x0, **model.solver)
    b = traj.power_budget()
    assert abs(b.H[0]) < 1e-12
    assert b.scale < 1e-6                                   # the old reading's denominator
    m, g, L = 1.0, 9.81, 1.0
    assert 0.5 * m * g * L < b.exchanged <= 2.0 * m * g * L + 1e-9
    assert b.max_residual <= 1e-6 * b.exchanged
    assert "of the energy exchanged" in b.table()
    assert b.to_dict()["exchanged"] == b.exchanged
