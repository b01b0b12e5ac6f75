"""CompiledRK23 / CompiledRK45: scipy's RK23 / RK45 with the step loop in numba.

Reference: scipy's own method on the same system (same tableau, same step-size control), and
the energy ledger. The system is a chain of three masses on springs and dampers whose first
mass is held by a PD controller tracking a periodic reference (compiled spline kernel), so
the whole right-hand side is numba.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose

import porthamiltonian as ph
from porthamiltonian.integrate.compiled_rk import CompiledRK23, CompiledRK45
from porthamiltonian.library.controllers import PeriodicReference, pd_controller


@pytest.fixture(scope="module")
def chain():
    bg = ph.BondGraph("pd_chain")
    for i in range(3):
        bg.add(ph.Junction1(f"v{i}"), ph.I(f"m{i}", mass=1.0 + i))
        bg.connect(f"v{i}", f"m{i}")
    for i in range(2):
        bg.add(ph.Junction0(f"s{i}"), ph.Junction1(f"d{i}"), ph.C(f"k{i}", stiffness=50.0 * (i + 1)), ph.R(f"b{i}", 0.3))
        bg.connect(f"v{i}", f"s{i}")
        bg.connect(f"s{i}", f"v{i + 1}")
        bg.connect(f"s{i}", f"d{i}")
        bg.connect(f"d{i}", f"k{i}")
        bg.connect(f"d{i}", f"b{i}")
    samples = np.sin(2 * np.pi * np.arange(16) / 16)[:, None] * 0.2
    pd = pd_controller("pd", 40.0, 2.0, reference=PeriodicReference(0.5, samples))
    bg.add(pd)
    bg.connect((pd, "axis"), "v0")
    system = ph.compile(bg)
    assert system.compiled == "numba"
    return system


@pytest.mark.parametrize("method, scipy_name", [(CompiledRK23, "RK23"), (CompiledRK45, "RK45")])
def test_equals_scipys_method(chain, method, scipy_name):
    x0 = chain.initial_state()
    grid = np.linspace(0.0, 2.0, 21)
    runs = [ph.simulate(chain, (0.0, 2.0), x0, method=m, rtol=1e-7, atol=1e-9, t_eval=grid, dense_output=True)
            for m in (method, scipy_name)]
    a, b = runs
    assert a.status == 0 and b.status == 0
    # the same method and step control: the step sizes agree to the round-off of the error
    # estimate, a sum of stages that cancels down to ~rtol of the state, so its round-off is
    # ~eps / rtol relative (measured: RK23 steps equal to 1e-13 s over 2 s, RK45's to 6e-9
    # relative); one acceptance could flip on it, hence the count to 1 %
    assert abs(a.nfev - b.nfev) <= 0.01 * b.nfev
    # two solutions of the same method whose steps differ by ~1e-8 relative: equal far below
    # the tolerance (measured ~1e-15 of the state's scale)
    scale = np.max(np.abs(b.x))
    assert_allclose(a.x, b.x, rtol=0, atol=1e-11 * scale)
    # the dense output is scipy's interpolant of the compiled step's stages
    ts = np.linspace(0.1, 1.9, 7)
    assert_allclose(a.sol(ts), b.sol(ts), rtol=0, atol=1e-11 * scale)
    # the ledger closes to the integration tolerance (measured 3.5e-7 (RK23), 8e-8 (RK45))
    assert a.power_budget().relative_residual < 1e-6
