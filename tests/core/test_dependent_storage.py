"""Two masses on one 1-junction: a dependent storage resolved by a Lagrange multiplier.

Reference: both masses move with the common velocity v of the single mass M = m1 + m2 under
the same forces: M q'' = F - k q. The multiplier is the effort on the bond into m2, i.e. the
force that makes m2 follow: lambda = m2 dv/dt = m2 (F - k q) / M.
"""

import re

import pytest
import sympy as sp
from numpy.testing import assert_allclose

import porthamiltonian as ph

from .conftest import ATOL, RTOL, two_masses
from .reference import driven_oscillator


def test_report_names_the_derivative_causality_storage():
    bg, cut_bond = two_masses(2.0, 3.0, 5.0, 1.0)
    report = ph.assign_causality(bg)
    text = str(report)
    assert len(report.cuts) == 1 and report.cuts[0].node == "m2"
    assert re.search(r"I:m1 and I:m2 share a 1-junction.*m2 is in derivative causality", text)
    assert f"{cut_bond!r}" in text  # the multiplier is named by its bond
    system = ph.compile(bg)
    assert system.n_multipliers == 1


@pytest.mark.parametrize("m1, m2, k, F, q0, v0", [
    (2.0, 3.0, 5.0, 1.0, 0.1, 0.0),
    (0.5, 4.0, 2.0, -0.5, 0.0, 0.3),
])
def test_motion_is_that_of_the_total_mass(m1, m2, k, F, q0, v0):
    bg, cut_bond = two_masses(m1, m2, k, F)
    system = ph.compile(bg)
    x0 = system.initial_state({"k.q": q0, "m1.p": m1 * v0, "m2.p": m2 * v0})
    traj = ph.simulate(system, (0.0, 6.0), x0, rtol=RTOL, atol=ATOL)
    M = m1 + m2
    q, v = driven_oscillator(traj.t, M, 0.0, k, F0=F, q0=q0, v0=v0)
    # measured <= 5e-11 (also for the multiplier); bound 10 rtol
    assert_allclose(traj.state("k.q"), q, rtol=0, atol=1e-9)
    assert_allclose(traj.state("m1.p"), m1 * v, rtol=0, atol=1e-9)
    assert_allclose(traj.state("m2.p"), m2 * v, rtol=0, atol=1e-9)

    lam = traj.multipliers()[cut_bond][:, 0]
    assert_allclose(lam, m2 * (F - k * q) / M, rtol=0, atol=1e-9)

    budget = traj.power_budget()
    assert budget.relative_residual < 1e-8, budget.table()
    # the stabilization of a consistent start does (almost) no work
    assert abs(budget.stabilization[-1]) < 1e-10 * budget.scale


def test_symbolic_equations_eliminate_the_multiplier():
    bg, _ = two_masses(2.0, 3.0, 5.0, 1.0)
    eq = ph.compile(bg).symbolic_equations()
    sym = {str(s): s for s in eq.parameters}
    m1, m2, k, F = sym["m1"], sym["m2"], sym["k"], sym["F"]
    p1, p2, q = eq.states
    textbook = sp.Matrix([m1 * (F - k * q) / (m1 + m2), m2 * (F - k * q) / (m1 + m2), p1 / m1])
    assert sp.simplify(eq.rates - textbook) == sp.zeros(3, 1)
