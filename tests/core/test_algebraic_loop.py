"""A resistive algebraic loop around a capacitor: RC decay with the hand-computed R_eq.

Circuit: capacitor C in parallel with R1 and with the branch R2 + (R3 || R4). The capacitor
sees R_eq = R1 || (R2 + R3 R4 / (R3 + R4)), so its voltage decays as v0 exp(-t / (R_eq C)).
Each resistor's dissipated energy follows from the voltage divider:
    P_R1 = v^2 / R1,  i_b = v / (R2 + R34),  P_R2 = R2 i_b^2,  P_R3 = (R34 i_b)^2 / R3, ...
and int_0^t v^2 dt = v0^2 tau / 2 (1 - exp(-2 t / tau)).
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose

import porthamiltonian as ph

from .conftest import ATOL, RTOL, rc_loop


CASES = [
    pytest.param(2.0, 1.0, 2.0, 3.0, 6.0, id="Req=0.8"),
    pytest.param(0.5, 10.0, 0.3, 1.0, 4.0, id="Req=1.02"),
    pytest.param(1e-2, 100.0, 50.0, 20.0, 20.0, id="Req=37.5"),
]


def test_report_mentions_the_algebraic_loop():
    report = ph.assign_causality(rc_loop(2.0, 1.0, 2.0, 3.0, 6.0))
    assert len(report.loops) == 1
    assert "Algebraic loops:" in str(report)
    assert "algebraic loop through" in str(report)
    loop = report.loops[0]
    assert loop.linear
    assert {"R2", "R3", "R4"} <= set(loop.elements)


@pytest.mark.parametrize("C, R1, R2, R3, R4", CASES)
def test_decay_is_exp_minus_t_over_Req_C(C, R1, R2, R3, R4):
    R34 = R3 * R4 / (R3 + R4)
    Rb = R2 + R34
    Req = R1 * Rb / (R1 + Rb)
    tau = Req * C
    v0 = 1.5
    system = ph.compile(rc_loop(C, R1, R2, R3, R4))
    t_eval = np.linspace(0.0, 3.0 * tau, 31)
    traj = ph.simulate(system, (0.0, 3.0 * tau), system.initial_state({"C.q": C * v0}),
                       rtol=RTOL, atol=ATOL * C, t_eval=t_eval)
    t = traj.t
    v = v0 * np.exp(-t / tau)
    # measured: 1.5e-10 relative (1.5 rtol)
    assert_allclose(traj.state("C.q"), C * v, rtol=1e-9, atol=0)

    budget = traj.power_budget()
    int_v2 = 0.5 * v0**2 * tau * (1.0 - np.exp(-2.0 * t / tau))
    ib2 = int_v2 / Rb**2  # int i_b^2 dt
    expected = {"R1": int_v2 / R1, "R2": R2 * ib2, "R3": R34**2 * ib2 / R3, "R4": R34**2 * ib2 / R4}
    for name, E in expected.items():
        assert_allclose(budget.entries["dissipated"][name], E, rtol=1e-8, atol=1e-12 * C * v0**2)
    assert budget.relative_residual < 1e-8, budget.table()
