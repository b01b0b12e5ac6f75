"""Driven mass-spring-damper: closed-form trajectory, energy ledger, symbolic state equations."""

import numpy as np
import pytest
import sympy as sp
from numpy.testing import assert_allclose
from scipy.integrate import quad

import porthamiltonian as ph
from porthamiltonian.bondgraph import T_SYMBOL

from .conftest import ATOL, RTOL, msd_graph
from .reference import driven_oscillator

M, K, B = 2.0, 3.0, 0.5
W = 1.3

FORCINGS = {
    # name: (Se value, F0, F1) with F = F0 + F1 sin(W t)
    "constant": (1.0, 1.0, 0.0),
    "sin-sympy": (0.7 * sp.sin(W * T_SYMBOL), 0.0, 0.7),
    "const+sin-sympy": (1.0 + 0.7 * sp.sin(W * T_SYMBOL), 1.0, 0.7),
}


@pytest.fixture(params=list(FORCINGS))
def forcing(request):
    return request.param, *FORCINGS[request.param]


@pytest.mark.parametrize("q0, p0", [(0.2, 0.0), (-0.1, 0.6)])
def test_trajectory_matches_closed_form(forcing, q0, p0):
    name, value, F0, F1 = forcing
    system = ph.compile(msd_graph(M, K, B, value))
    x0 = system.initial_state({"k.q": q0, "m.p": p0})
    traj = ph.simulate(system, (0.0, 10.0), x0, rtol=RTOL, atol=ATOL)
    q, v = driven_oscillator(traj.t, M, B, K, F0=F0, F1=F1, w=W, q0=q0, v0=p0 / M)
    # measured: <= 2e-10 (2 rtol) after 10 s; the bound is 100 rtol
    assert_allclose(traj.state("k.q"), q, rtol=0, atol=1e-8)
    assert_allclose(traj.state("m.p"), M * v, rtol=0, atol=1e-8)


@pytest.mark.parametrize("method, rtol, atol", [
    ("RK45", 1e-10, 1e-12),
    ("DOP853", 1e-10, 1e-12),
    ("RK23", 1e-8, 1e-10),
    ("Radau", 1e-9, 1e-11),
    ("BDF", 1e-9, 1e-11),
    ("LSODA", 1e-9, 1e-11),
])
def test_every_solve_ivp_method_reaches_the_closed_form(method, rtol, atol):
    system = ph.compile(msd_graph(M, K, B, 1.0))
    x0 = system.initial_state({"k.q": 0.2})
    traj = ph.simulate(system, (0.0, 5.0), x0, rtol=rtol, atol=atol, method=method)
    q, _ = driven_oscillator(traj.t, M, B, K, F0=1.0, q0=0.2)
    # global error of a tolerance-controlled run, in units of rtol: measured <= 2.4 (BDF);
    # the bound leaves room for scipy's step-size heuristics changing between versions
    err = np.max(np.abs(traj.state("k.q") - q))
    assert err < 100 * rtol, f"{method}: error {err:.3g} = {err / rtol:.3g} rtol"


def test_energy_ledger_closes(forcing):
    name, value, F0, F1 = forcing
    system = ph.compile(msd_graph(M, K, B, value))
    t_eval = np.linspace(0.0, 10.0, 11)
    traj = ph.simulate(system, (0.0, 10.0), system.initial_state({"k.q": 0.2}), rtol=RTOL, atol=ATOL, t_eval=t_eval)
    budget = traj.power_budget()
    H0 = 0.5 * K * 0.2**2
    assert_allclose(budget.H[0], H0, rtol=1e-15, atol=0)
    # measured: 1.2e-9 H0 for the sin forcing, 1.3e-10 H0 for the constant one
    assert budget.max_residual < 1e-8 * H0, budget.table()
    # dissipated = int b v^2 dt and supplied = int F v dt of the closed form, by quadrature
    t_out = traj.t[-len(t_eval):]
    # bit-identical on purpose: the solver reports the requested output times
    assert_allclose(t_out, t_eval, rtol=0, atol=0)

    def v(s):
        return driven_oscillator(s, M, B, K, F0=F0, F1=F1, w=W, q0=0.2)[1]

    def dissipated(t):
        return quad(lambda s: B * v(s) ** 2, 0.0, t, epsabs=1e-13, epsrel=1e-12, limit=200)[0]

    def supplied(t):
        return quad(lambda s: (F0 + F1 * np.sin(W * s)) * v(s), 0.0, t, epsabs=1e-13, epsrel=1e-12, limit=200)[0]

    assert_allclose(budget.dissipated[-len(t_eval):], [dissipated(t) for t in t_eval], rtol=1e-8, atol=1e-12)
    assert_allclose(budget.supplied[-len(t_eval):], [supplied(t) for t in t_eval], rtol=1e-8, atol=1e-12)


def test_symbolic_equations_are_the_textbook_ones():
    system = ph.compile(msd_graph(M, K, B, 1.0))
    eq = system.symbolic_equations()
    sym = {str(s): s for s in eq.parameters}
    assert set(sym) == {"m", "k", "b", "F"}
    assert {str(s): v for s, v in eq.parameters.items()} == {"m": M, "k": K, "b": B, "F": 1.0}
    p, q = eq.states
    m, k, b, F = sym["m"], sym["k"], sym["b"], sym["F"]
    textbook = sp.Matrix([F - k * q - b * p / m, p / m])
    assert sp.simplify(eq.rates - textbook) == sp.zeros(2, 1)
    # it reads the compiled plan and writes nothing into it (it once kept the storages' outputs there)
    assert all(set(st) == {"path", "obj", "slice", "ports", "dims", "step"} for st in system._plan.storages), \
        [sorted(st) for st in system._plan.storages]


def test_symbolic_equations_with_a_sympy_force():
    system = ph.compile(msd_graph(M, K, B, 0.7 * sp.sin(W * T_SYMBOL)))
    eq = system.symbolic_equations()
    sym = {str(s): s for s in eq.parameters}
    p, q = eq.states
    m, k, b = sym["m"], sym["k"], sym["b"]
    textbook = sp.Matrix([0.7 * sp.sin(W * T_SYMBOL) - k * q - b * p / m, p / m])
    assert sp.simplify(eq.rates - textbook) == sp.zeros(2, 1)


def test_symbolic_rates_evaluate_to_the_compiled_rates(rng):
    """The sympy equations with the parameter values, and the generated rhs, at random states."""
    system = ph.compile(msd_graph(M, K, B, 0.7 * sp.sin(W * T_SYMBOL)))
    eq = system.symbolic_equations()
    f = sp.lambdify([T_SYMBOL, *eq.states], eq.rates.subs(eq.parameters))
    for _ in range(5):
        t, p, q = rng.uniform(-2, 2, 3)
        x = system.initial_state({"m.p": p, "k.q": q})
        assert_allclose(system.rhs(t, x)[:2], np.ravel(f(t, p, q)), rtol=1e-14, atol=1e-14)
