"""DOP853's dense output evaluates three extra stages after a step is accepted (issue 36): a
state there that the model cannot evaluate must shorten the step, or fail the run with when
and where, never leave NaN samples inside an accepted step.

References: closed-form solutions (exp(-t), the undamped oscillator) and scipy's own DOP853,
which the guarded one must reproduce bit for bit where the extra stages are finite.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.integrate import solve_ivp
from scipy.integrate._ivp import dop853_coefficients as coef

import porthamiltonian as ph
from porthamiltonian.compile.system import PHSystem
from porthamiltonian.errors import GeometryError, IntegrationError
from porthamiltonian.integrate.dop853 import DOP853

from ..core.conftest import msd_graph

M, K = 2.0, 3.0
W = np.sqrt(K / M)
Q0 = 0.4


def _steps(ts):
    """(start, length) of the accepted steps, from the step ends of a run without t_eval."""
    ts = np.unique(ts)
    return ts[:-1], np.diff(ts)


def _poison_window(ts, k):
    """A window around the first extra stage (0.1 of step `k`) narrow enough to hold no stage
    of any step of that run (so the step's own stages and error estimate never see it)."""
    starts, hs = _steps(ts)
    te = starts[k] + coef.C[coef.N_STAGES + 1] * hs[k]   # 0.1 of the step
    w = 1e-6 * hs[k]
    stages = np.concatenate([starts[:, None] + hs[:, None] * coef.C[None, :coef.N_STAGES], (starts + hs)[:, None]], axis=1)
    assert not np.any(np.abs(stages - te) <= w)
    return te - w, te + w


def test_guarded_dop853_is_scipy_s_where_the_extra_stages_are_finite():
    """Same points, same arithmetic: bit-identical steps and interpolant (the exact
    comparison is the point of the test)."""
    fun = lambda t, y: np.array([y[1], -np.sin(y[0])])   # noqa: E731 - a pendulum
    t_eval = np.linspace(0.0, 10.0, 97)
    a = solve_ivp(fun, (0.0, 10.0), [1.0, 0.0], method="DOP853", rtol=1e-9, atol=1e-12, t_eval=t_eval)
    b = solve_ivp(fun, (0.0, 10.0), [1.0, 0.0], method=DOP853, rtol=1e-9, atol=1e-12, t_eval=t_eval)
    assert a.nfev == b.nfev
    assert np.array_equal(a.y, b.y)


def test_a_failed_extra_stage_is_interpolated_by_shorter_steps_in_solve_ivp():
    fun = lambda t, y: -y   # noqa: E731
    dry = solve_ivp(fun, (0.0, 2.0), [1.0], method=DOP853, rtol=1e-8, atol=1e-12)
    lo, hi = _poison_window(dry.t, len(dry.t) // 2)

    def poisoned(t, y):
        return np.full_like(y, np.nan) if lo <= t <= hi else -y

    t_eval = np.linspace(0.0, 2.0, 2001)
    sol = solve_ivp(poisoned, (0.0, 2.0), [1.0], method=DOP853, rtol=1e-8, atol=1e-12, t_eval=t_eval)
    assert sol.status == 0
    # the tolerance's own error (rtol 1e-8, a few steps) on exp(-t) <= 1
    assert_allclose(sol.y[0], np.exp(-t_eval), rtol=0, atol=1e-8)
    scipy_sol = solve_ivp(poisoned, (0.0, 2.0), [1.0], method="DOP853", rtol=1e-8, atol=1e-12, t_eval=t_eval)
    assert np.isnan(scipy_sol.y).any()   # the defect this guards against, in scipy's own DOP853


def test_an_interpolant_that_cannot_be_built_fails_with_when_and_where():
    """The right-hand side breaks for good at an extra stage (every later evaluation NaN): the
    step's re-integration fails too, and the interpolant raises an IntegrationError naming
    the step and the stage's time instead of returning NaN."""
    fun = lambda t, y: -y   # noqa: E731
    dry = solve_ivp(fun, (0.0, 2.0), [1.0], method=DOP853, rtol=1e-8, atol=1e-12)
    lo, hi = _poison_window(dry.t, len(dry.t) // 2)
    broken = []

    def breaking(t, y):
        if broken or lo <= t <= hi:
            broken.append(t)
            return np.full_like(y, np.nan)
        return -y

    with pytest.raises(IntegrationError, match=r"extra stage of the interpolant of the step from t = "):
        solve_ivp(breaking, (0.0, 2.0), [1.0], method=DOP853, rtol=1e-8, atol=1e-12, t_eval=np.linspace(0, 2, 2001))
    assert lo <= broken[0] <= hi


@pytest.mark.parametrize("dense", [False, True])
def test_simulate_never_samples_nan_when_an_extra_stage_fails(monkeypatch, dense):
    """Through `simulate`: an element kernel raising GeometryError (a state beyond the
    model's range) only at an extra stage of one step. Before the fix the samples in that
    step were NaN while the run went on."""
    system = ph.compile(msd_graph(M, K, 0.0, 0.0), jit=False)   # the Python path: no numba compile
    x0 = system.initial_state({"k.q": Q0})
    solver = dict(method="DOP853", rtol=1e-9, atol=1e-12)
    dry = ph.simulate(system, (0.0, 3.0), x0, **solver)
    lo, hi = _poison_window(dry.t, len(dry.t) // 2)
    rates = PHSystem.rhs

    def poisoned(self, t, x, u=None):
        if lo <= t <= hi:
            raise GeometryError("the contact point left its chart (a synthetic failure)")
        return rates(self, t, x, u)

    monkeypatch.setattr(PHSystem, "rhs", poisoned)
    t_eval = np.linspace(0.0, 3.0, 3001)
    traj = ph.simulate(system, (0.0, 3.0), x0, t_eval=t_eval, dense_output=dense, **solver)
    assert traj.status == 0
    q = traj.x[:, system.layout["k.q"]].ravel()
    # undamped oscillator q0 cos(w t); rtol 1e-9 over ~1.5 periods: 1e-8 of the amplitude
    assert_allclose(q, Q0 * np.cos(W * traj.t), rtol=0, atol=1e-8 * Q0)
    if dense:
        ts = np.linspace(0.0, 3.0, 601)
        assert_allclose(traj.sol(ts)[:, system.layout["k.q"]].ravel(), Q0 * np.cos(W * ts), rtol=0, atol=1e-8 * Q0)


def test_simulate_reports_an_interpolant_that_cannot_be_built(monkeypatch):
    """The model breaks for good at an extra stage (every later evaluation fails): the run
    fails saying when and where, the states at its accepted steps kept, none NaN."""
    system = ph.compile(msd_graph(M, K, 0.0, 0.0), jit=False)   # the Python path: no numba compile
    x0 = system.initial_state({"k.q": Q0})
    solver = dict(method="DOP853", rtol=1e-9, atol=1e-12)
    dry = ph.simulate(system, (0.0, 3.0), x0, **solver)
    lo, hi = _poison_window(dry.t, len(dry.t) // 2)
    rates, broken = PHSystem.rhs, []

    def breaking(self, t, x, u=None):
        if broken or lo <= t <= hi:
            broken.append(t)
            raise GeometryError("the contact point left its chart (a synthetic failure)")
        return rates(self, t, x, u)

    monkeypatch.setattr(PHSystem, "rhs", breaking)
    traj = ph.simulate(system, (0.0, 3.0), x0, t_eval=np.linspace(0.0, 3.0, 3001), throw=False, **solver)
    assert traj.status == -1
    assert "an extra stage of the interpolant of the step from t = " in traj.message
    # kept: the accepted steps' ends (the failing step's too: its own stages were finite)
    starts, hs = _steps(dry.t)
    k = len(dry.t) // 2
    assert np.all(np.isfinite(traj.x)) and traj.t[-1] <= starts[k] + hs[k] * (1 + 1e-12)
