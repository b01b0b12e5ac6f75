"""The fixed-step RK4 solver: the classical tableau, fourth-order convergence, its Hermite
dense output locating events, and `simulate(method="RK4", step=h)` with its energy ledger."""

import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import porthamiltonian as ph
from porthamiltonian.errors import ParameterError
from porthamiltonian.integrate.fixed_step import RK4
from porthamiltonian.models import build_model


def test_one_step_is_the_classical_tableau():
    """y' = y: one step multiplies by the degree-4 Taylor polynomial of exp(h)."""
    h = 0.3
    sol = solve_ivp(lambda t, y: y, (0.0, h), [1.0], method=RK4, step=h)
    assert sol.y[0, -1] == pytest.approx(1 + h + h**2 / 2 + h**3 / 6 + h**4 / 24, rel=1e-15)
    assert sol.nfev == 5                       # four stages and the end derivative


def test_fourth_order_convergence_and_step_count():
    """Harmonic oscillator over 10 s: the error falls 16-fold per halving of the step."""
    def f(t, y):
        return np.array([y[1], -4.0 * y[0]])
    errors = []
    for h in (0.08, 0.04, 0.02):
        sol = solve_ivp(f, (0.0, 10.0), [1.0, 0.0], method=RK4, step=h)
        assert len(sol.t) == math.ceil(round(10.0 / h, 9)) + 1
        assert sol.t[-1] == 10.0
        errors.append(abs(sol.y[0, -1] - math.cos(20.0)))
    slopes = np.log2(np.array(errors[:-1]) / errors[1:])
    assert np.all(np.abs(slopes - 4.0) < 0.1), slopes


def test_dense_output_locates_events_exactly_on_a_cubic():
    """y' = 3 t^2: RK4 (Simpson's rule) and the cubic Hermite interpolant are exact, so the
    event y = 1/8 is found at t = 1/2 inside a step of 0.3."""
    def crossing(t, y):
        return y[0] - 0.125
    sol = solve_ivp(lambda t, y: [3.0 * t * t], (0.0, 0.9), [0.0], method=RK4, step=0.3, events=crossing,
                    dense_output=True)
    assert sol.t_events[0][0] == pytest.approx(0.5, abs=1e-14)
    ts = np.linspace(0.0, 0.9, 37)
    assert np.abs(sol.sol(ts)[0] - ts**3).max() < 1e-15


def test_simulate_with_rk4_keeps_the_ledger():
    """The mass-spring-damper at a fixed step: the energy balance closes to the method's
    truncation error (O(h^4)), and shrinks 16-fold when h halves."""
    model = build_model("mass-spring-damper")
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    x0 = system.initial_state(model.initial)
    residuals = []
    for h in (0.02, 0.01):
        traj = ph.simulate(system, (0.0, 5.0), x0, method="RK4", step=h)
        assert traj.method == "RK4"
        assert np.allclose(np.diff(np.unique(traj.t)), h)
        residuals.append(np.abs(traj.power_budget().residual).max())
    assert residuals[0] < 1e-7 * system.energy(x0)          # measured 6e-9 of H0
    assert 8.0 < residuals[0] / residuals[1] < 32.0, residuals


def test_step_arguments_are_checked():
    model = build_model("mass-spring-damper")
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    x0 = system.initial_state(model.initial)
    with pytest.raises(ParameterError, match="needs `step`"):
        ph.simulate(system, (0.0, 1.0), x0, method="RK4")
    with pytest.raises(ParameterError, match="fixed-step methods"):
        ph.simulate(system, (0.0, 1.0), x0, method="RK45", step=0.01)
    with pytest.raises(ParameterError, match="step"):
        ph.simulate(system, (0.0, 1.0), x0, method="RK4", step=-0.01)
    with pytest.raises(ParameterError, match="max_step"):
        ph.simulate(system, (0.0, 1.0), x0, method="RK4", step=0.01, max_step=0.1)
    with pytest.raises(ParameterError, match="step"):
        solve_ivp(lambda t, y: y, (0.0, 1.0), [1.0], method=RK4, step=math.nan)
