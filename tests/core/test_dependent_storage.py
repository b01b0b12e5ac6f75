"""Two masses on one 1-junction: a dependent storage resolved by a Lagrange multiplier.

Reference: both masses move with the common velocity v of the single mass M = m1 + m2 under
the same forces: M q'' = F - k q. The multiplier is the effort on the bond into m2, i.e. the
force that makes m2 follow: lambda = m2 dv/dt = m2 (F - k q) / M.
"""

import re

import numpy as np
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


def _lever(m1, m2, k, F, r, dr, rate):
    """m1, the spring and the force on one 1-junction; m2 behind a lever whose ratio r(q)
    depends on the spring's state (an MTF with a state reference): v2 = r(q) v1, m2 dependent."""
    bg = ph.BondGraph("lever")
    spring = ph.C("k", stiffness=k)
    bg.add(ph.Se("F", F), ph.Junction1("v"), ph.I("m1", mass=m1), spring, ph.Junction1("w"), ph.I("m2", mass=m2))
    lever = ph.MTF("lever", lambda t, q: np.array([[r(q[0])]]), shape=(1, 1), refs=[ph.StateRef(spring, "q")],
                   modulus_rate=(lambda t, q, qd: np.array([[dr(q[0]) * qd[0]]])) if rate else None)
    bg.add(lever)
    for a, b in [("F", "v"), ("v", "m1"), ("v", "k"), ("v", ("lever", "p1")), (("lever", "p2"), "w"), ("w", "m2")]:
        bg.connect(a, b)
    return bg


@pytest.mark.parametrize("rate", [True, False], ids=["modulus_rate", "finite-difference rate"])
def test_a_lever_whose_ratio_moves_with_the_state_brings_its_rate_into_the_multiplier(rate):
    """The multiplier that makes m2 follow reads the time derivative of v2 = r(q) v1, whose
    part r'(q) q' v1 comes from the lever's modulus rate at the rates of the state it
    references (`compile.codegen._Gen.rate_refs`, `ensure_modrate`): given, or by the
    default central difference.

    Reference: the reduced system in q, M(q) = m1 + m2 r(q)^2, Lagrange's equation
    M q'' = F - k q - M'(q) q'^2 / 2, integrated by scipy's DOP853 at rtol 1e-12. Measured:
    q within 2.1e-12 m, the momenta within 1.1e-11 kg m/s, either rate; with the modulus
    rate replaced by zero (checked by hand), q leaves the reference by 3.4e-2 m and m2's
    momentum by 0.25 kg m/s in 3 s."""
    from scipy.integrate import solve_ivp

    m1, m2, k, F, q0, v0 = 2.0, 3.0, 5.0, 1.0, 0.2, -0.4
    r, dr = (lambda q: 1.0 + 0.6 * np.sin(2.0 * q)), (lambda q: 1.2 * np.cos(2.0 * q))
    system = ph.compile(_lever(m1, m2, k, F, r, dr, rate))
    x0 = system.initial_state({"k.q": q0, "m1.p": m1 * v0, "m2.p": m2 * r(q0) * v0})
    traj = ph.simulate(system, (0.0, 3.0), x0, rtol=RTOL, atol=ATOL)

    def reduced(t, y):
        q, v = y
        M, dM = m1 + m2 * r(q) ** 2, 2.0 * m2 * r(q) * dr(q)
        return [v, (F - k * q - 0.5 * dM * v * v) / M]

    ref = solve_ivp(reduced, (0.0, 3.0), [q0, v0], dense_output=True, rtol=1e-12, atol=1e-14, method="DOP853")
    q, v = ref.sol(traj.t)
    # bound 10 RTOL, as the two masses' test above
    assert_allclose(traj.state("k.q"), q, rtol=0, atol=1e-9)
    assert_allclose(traj.state("m1.p"), m1 * v, rtol=0, atol=1e-9)
    assert_allclose(traj.state("m2.p"), m2 * r(q) * v, rtol=0, atol=1e-9)
    budget = traj.power_budget()
    assert budget.relative_residual < 1e-8, budget.table()
