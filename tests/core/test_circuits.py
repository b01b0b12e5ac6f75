"""Series and parallel RLC circuits built from 0- and 1-junctions, against the circuit laws.

Series RLC (voltage source V, common current i = dq/dt on a 1-junction; C.q is the charge,
L.p = L i the flux linkage):   L q'' + R q' + q / C = V.
Parallel RLC (current source I0, common voltage v on a 0-junction; L.p = phi with v = dphi/dt,
C.q = C v):                    C phi'' + phi' / R + phi / L = I0.
"""

import pytest
from numpy.testing import assert_allclose

import porthamiltonian as ph

from .conftest import ATOL, RTOL
from .reference import driven_oscillator, overdamped_free


def series_rlc(Lh, C, R, V):
    bg = ph.BondGraph("series_rlc")
    bg.add(ph.Se("V", V), ph.Junction1("i"), ph.I("L", mass=Lh), ph.C("C", compliance=C), ph.R("R", R))
    bg.connect("V", "i")
    for e in ("L", "C", "R"):
        bg.connect("i", e)
    return bg


def parallel_rlc(Lh, C, R, I0):
    bg = ph.BondGraph("parallel_rlc")
    bg.add(ph.Sf("I0", I0), ph.Junction0("v"), ph.C("C", compliance=C), ph.I("L", mass=Lh), ph.R("R", R))
    bg.connect("I0", "v")
    for e in ("C", "L", "R"):
        bg.connect("v", e)
    return bg


def reference(m, b, k, F, q0, v0, t):
    if b * b < 4 * m * k:
        return driven_oscillator(t, m, b, k, F0=F, q0=q0, v0=v0)
    assert F == 0.0
    return overdamped_free(t, m, b, k, q0=q0, v0=v0)


@pytest.mark.parametrize("Lh, C, R, V, q0, i0", [
    pytest.param(0.5, 0.1, 0.4, 2.0, 0.0, 0.0, id="underdamped-step"),
    pytest.param(0.5, 0.1, 1.0, 2.0, 0.05, -0.3, id="underdamped-step-charged"),
    pytest.param(0.5, 0.1, 10.0, 0.0, 0.2, 0.0, id="overdamped-free-decay"),
])
def test_series_rlc(Lh, C, R, V, q0, i0):
    system = ph.compile(series_rlc(Lh, C, R, V))
    x0 = system.initial_state({"C.q": q0, "L.p": Lh * i0})
    traj = ph.simulate(system, (0.0, 4.0), x0, rtol=RTOL, atol=ATOL)
    q, i = reference(Lh, R, 1.0 / C, V, q0, i0, traj.t)
    # measured <= 6e-11 for these runs; the bound is 10 rtol
    assert_allclose(traj.state("C.q"), q, rtol=0, atol=1e-9)
    assert_allclose(traj.state("L.p"), Lh * i, rtol=0, atol=1e-9)
    # the capacitor's energy is q^2 / (2 C), the inductor's L i^2 / 2
    assert_allclose(traj.energies["C"], q**2 / (2 * C), rtol=0, atol=1e-9)
    assert_allclose(traj.energies["L"], 0.5 * Lh * i**2, rtol=0, atol=1e-9)


@pytest.mark.parametrize("Lh, C, R, I0, v0, iL0", [
    pytest.param(0.2, 0.05, 5.0, 1.5, 0.0, 0.0, id="underdamped-step"),
    pytest.param(0.2, 0.05, 5.0, 1.5, 0.4, 0.2, id="underdamped-step-charged"),
    pytest.param(0.2, 0.05, 0.5, 0.0, 1.0, 0.0, id="overdamped-free-decay"),
])
def test_parallel_rlc(Lh, C, R, I0, v0, iL0):
    system = ph.compile(parallel_rlc(Lh, C, R, I0))
    x0 = system.initial_state({"C.q": C * v0, "L.p": Lh * iL0})
    traj = ph.simulate(system, (0.0, 2.0), x0, rtol=RTOL, atol=ATOL)
    phi, v = reference(C, 1.0 / R, 1.0 / Lh, I0, Lh * iL0, v0, traj.t)
    # measured <= 2e-11; the bound is 10 rtol
    assert_allclose(traj.state("L.p"), phi, rtol=0, atol=1e-9)
    assert_allclose(traj.state("C.q"), C * v, rtol=0, atol=1e-9)
    # energy ledger: measured residual <= 5e-11 of the energy scale
    budget = traj.power_budget()
    assert budget.relative_residual < 1e-8, budget.table()


def test_series_rlc_steady_state_charge_is_CV():
    """After many time constants the capacitor holds C V and no current flows."""
    Lh, C, R, V = 0.5, 0.1, 2.0, 3.0
    system = ph.compile(series_rlc(Lh, C, R, V))
    traj = ph.simulate(system, (0.0, 40.0), system.initial_state(), rtol=RTOL, atol=ATOL)
    # decay rate R/(2L) = 2 1/s: exp(-80) is far below the tolerance
    assert_allclose(traj.state("C.q")[-1], C * V, rtol=1e-9, atol=0)
    assert_allclose(traj.state("L.p")[-1], 0.0, rtol=0, atol=1e-9)
