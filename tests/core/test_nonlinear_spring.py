"""Mass on a hardening spring H = p^2/(2m) + x^2/2 + x^4/4 given as a sympy Hamiltonian.

References: H is a first integral (no source, no resistor); the period is the quadrature
T = 4 int_0^A dx / sqrt(2/m (V(A) - V(x))) (see `reference.quartic_period`).
"""

import numpy as np
import pytest
import sympy as sp
from numpy.testing import assert_allclose

import porthamiltonian as ph

from .conftest import ATOL, RTOL
from .reference import quartic_period

X = sp.Symbol("x", real=True)


def hardening_oscillator(mass):
    bg = ph.BondGraph("duffing")
    bg.add(ph.Junction1("v"), ph.I("m", mass=mass), ph.C("k", energy=X**2 / 2 + X**4 / 4, state=X))
    bg.connect("v", "m")
    bg.connect("v", "k")
    return bg


def upward_zero(t, x):
    return x[1]  # the spring state x (layout: m.p, k.q)


upward_zero.direction = 1.0


@pytest.fixture(params=[(1.0, 1.0), (0.5, 2.0), (2.0, 0.3)], ids=lambda mA: f"m={mA[0]},A={mA[1]}")
def run(request):
    mass, A = request.param
    system = ph.compile(hardening_oscillator(mass))
    assert system.layout["k.q"] == slice(1, 2)
    T = quartic_period(mass, A)
    traj = ph.simulate(system, (0.0, 10.3 * T), system.initial_state({"k.q": A}), rtol=RTOL, atol=ATOL,
                       method="DOP853", events=[upward_zero])
    return mass, A, T, traj


def test_energy_is_conserved_over_ten_periods(run):
    mass, A, T, traj = run
    H0 = A**2 / 2 + A**4 / 4
    assert_allclose(traj.hamiltonian[0], H0, rtol=1e-15, atol=0)
    # the hamiltonian computed independently from the states
    p, x = traj.state("m.p"), traj.state("k.q")
    assert_allclose(traj.hamiltonian, p**2 / (2 * mass) + x**2 / 2 + x**4 / 4, rtol=1e-14, atol=0)
    drift = np.max(np.abs(traj.hamiltonian - H0)) / H0
    # measured: 1.4e-10 .. 5.2e-10 (1.4 .. 5.2 rtol) over 10 periods; bound 20 rtol
    assert drift < 20 * RTOL, f"relative energy drift {drift:.3g} = {drift / RTOL:.3g} rtol"


def test_period_equals_the_quadrature(run):
    mass, A, T, traj = run
    times = np.array([e.t for e in traj.events])
    assert times.size == 10
    # released at rest at x = A > 0: upward zero crossings at 3T/4 + n T
    # measured: <= 6e-11 relative; the bound is the brief's 1e-7
    assert_allclose(times, (np.arange(10) + 0.75) * T, rtol=1e-7, atol=0)
    assert_allclose(np.diff(times), T, rtol=1e-7, atol=0)


def test_period_is_not_the_linear_one():
    """Sanity of the reference: the hardening spring is faster than the linear one (2 pi sqrt(m))."""
    assert quartic_period(1.0, 1e-4) == pytest.approx(2 * np.pi, rel=1e-8)
    assert quartic_period(1.0, 1.0) < 2 * np.pi * 0.9


def test_symbolic_equations_use_the_hamiltonian_gradient():
    eq = ph.compile(hardening_oscillator(1.0)).symbolic_equations()
    p, x = eq.states
    assert x == X
    m = next(s for s in eq.parameters if str(s) == "m")
    assert sp.simplify(eq.rates - sp.Matrix([-X - X**3, p / m])) == sp.zeros(2, 1)
    assert sp.simplify(eq.hamiltonian - (p**2 / (2 * m) + X**2 / 2 + X**4 / 4)) == 0
