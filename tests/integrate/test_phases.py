"""Integrator phases (`porthamiltonian.integrate.phases`): an element declares a phase by name,
`simulate` runs the registered class through the generic hook, with no case for any phase.

Reference: the undamped oscillator's closed form q0 cos(w t).
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose

import porthamiltonian as ph
from porthamiltonian.errors import ModelError
from porthamiltonian.integrate.phases import PHASES, phase_class, register_phase

M, K, Q0 = 2.0, 3.0, 0.4
W = np.sqrt(K / M)


class _ScaledSpring(ph.C):
    """A spring whose system integrates in the phase "scaled-test"."""

    integrator_phases = ("scaled-test",)


class _Scaled:
    """A phase integrating y = 2 x instead of x over the whole run (a stand-in for a
    contact's own coordinates): through the run's `run_solver`, samples mapped back."""

    def __init__(self, run, elements):
        self.seg, self.elements, self.phases_run = run, elements, 0

    def active(self, x):
        return self.elements[0][0]

    def run(self, which, t, x, t_stop):
        seg = self.seg
        self.phases_run += 1
        sol = seg.run_solver(lambda tt, y: 2.0 * seg.rhs(tt, 0.5 * y), t, 2.0 * x, t_stop, [], 0,
                             lambda y: 0.5 * np.asarray(y), seg.solver)
        if sol is None or sol.status == -1:
            return t, x, True, False
        return float(sol.t[-1]), 0.5 * np.asarray(sol.y)[:, -1], False, True


def _oscillator():
    bg = ph.BondGraph("osc")
    bg.add(ph.Junction1("v"), ph.I("m", mass=M), _ScaledSpring("k", stiffness=K))
    bg.connect("v", "m")
    bg.connect("v", "k")
    system = ph.compile(bg, jit=False)   # a short run: the Python path, no numba compile
    return system, system.initial_state({"k.q": Q0})


def test_a_registered_phase_takes_the_integration_over(monkeypatch):
    seen = []

    class Recording(_Scaled):
        def __init__(self, run, elements):
            super().__init__(run, elements)
            seen.append(self)

    monkeypatch.setitem(PHASES, "scaled-test", Recording)
    system, x0 = _oscillator()
    assert [p for p, _ in system.integrator_phases["scaled-test"]] == ["k"]
    traj = ph.simulate(system, (0.0, 3.0), x0, method="DOP853", rtol=1e-10, atol=1e-12)
    assert traj.status == 0 and seen[0].phases_run == 1
    # rtol 1e-10 over ~1.5 periods (the scaled state's atol is twice the physical one)
    assert_allclose(traj.x[:, system.layout["k.q"]].ravel(), Q0 * np.cos(W * traj.t), rtol=0, atol=1e-8 * Q0)


def test_an_unregistered_phase_is_refused_by_name():
    system, x0 = _oscillator()
    assert "scaled-test" not in PHASES
    with pytest.raises(ModelError, match=r"declare the integrator phase 'scaled-test', which no module registered"):
        ph.simulate(system, (0.0, 0.1), x0)


def test_a_taken_phase_name_is_refused(monkeypatch):
    monkeypatch.setitem(PHASES, "scaled-test", _Scaled)
    assert register_phase("scaled-test", _Scaled) is _Scaled   # the same class again: fine
    with pytest.raises(ModelError, match=r"'reduced' is already registered \(by ReducedPhases\)"):
        register_phase("reduced", _Scaled)
    assert phase_class("reduced").__name__ == "ReducedPhases"
