"""Random ellipsoid drops on soil (issues 36 and 39), from the generator of
`benchmarks/random_drops.py` (the benchmark runs a hundred; here a few fixed seeds that failed
before): the energy ledger closes at every mode switch of the soil."""

import importlib.util
import warnings
from pathlib import Path

import numpy as np
import pytest

import porthamiltonian as ph

_spec = importlib.util.spec_from_file_location(
    "random_drops", Path(__file__).resolve().parents[2] / "benchmarks" / "random_drops.py")
random_drops = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(random_drops)


def _simulate(kind, seed, t_end):
    system, x0 = random_drops.drop(kind, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ph.errors.AuditWarning)   # the assertions below say what is wrong
        return ph.simulate(system, (0.0, t_end), x0, max_nfev=400_000, **random_drops.SOLVER)


def test_a_touch_off_the_footprint_below_the_surface_stores_nothing():
    """Drop 1: the ellipsoid leaves its imprint at 0.038 s and comes down at 0.078 s 1.4 mm
    below the virgin surface but outside the law's round footprint (an ellipsoid's imprint is
    wider), rising. The spring used to start on the loading curve with V(z, z) = 2.5e-5 J, booked
    nowhere (the ledger's residual jumped by that), and the plastic element then pushed the
    foot out (not passive). Now it starts elastic on an imprint whose floor is z: V = 0."""
    traj = _simulate("soil", 1, 0.1)
    (touch,) = [e for e in traj.events if e.name == "c/spring.touch" and 0.07 < e.t < 0.08]
    assert "below the virgin surface, off the footprint" in touch.message
    i = np.flatnonzero(traj.t == touch.t)[1]    # the state after the touch (the foot rises: it releases there too)
    assert traj.energies["c/spring"][i] < 1e-15     # elastic, at the imprint's floor: nothing stored
    b = traj.power_budget()
    assert b.max_residual < 1e-7 * b.scale          # the jump was 3.3e-5 of the scale; 100 rtol here
    assert b.passivity_violations == [] and traj.status == 0


@pytest.mark.parametrize("seed", [9, 10])
def test_soil_drops_that_leaked_close_the_ledger(seed):
    """Drops 9 and 10 leaked 8.8e-4 and 4.9e-4 of the energy scale (the same touch)."""
    traj = _simulate("soil", seed, 1.0)
    b = traj.power_budget()
    assert traj.status == 0 and b.max_residual < 1e-7 * b.scale   # 100 rtol: the audit's bound


#: right-hand-side evaluations of the fixed seeds below for 1 s (measured on this branch) and
#: the budget each must fit: 3 times the measured count (a change of solver path or step
#: control may move the count by tens of percent; a stall takes 10 to 100 times more)
MEASURED = {("soil", 6): 15_561, ("soil", 13): 10_756, ("reduced", 0): 3_954, ("reduced", 34): 6_973,
            ("compliant", 1): 15_891, ("compliant", 3): 15_635}


@pytest.mark.parametrize("kind, seed", sorted(MEASURED))
def test_random_drops_that_stalled_finish_within_their_budget_and_close_the_ledger(kind, seed):
    """Soil drops 6 and 13 stalled (600,000 evaluations by t = 0.095 s and 0.55 s): right after
    a touch, on virgin soil or in an imprint, the soil's normal force is near 0 and the Dahl
    slip's relaxation rate k_t v / (mu F) reached 2.7e8 1/s (measured: the eigenvectors of the
    rates' Jacobian are the slip's entries). The Dahl speed is now capped at mu F / c_slip
    (`porthamiltonian.kernels.soil.dahl_speed`). Reduced drops 0 and 34 stalled on their
    Coulomb regimes: after a slip event the slip starts from 0 and the friction followed its
    direction, which turns at mu N / (m |slip|) (drop 0: 1e-7 s steps from t = 0.1013 s on),
    and with the start direction held up to slip_speed and then switched, drop 34 slid along
    the switch (2e-9 s steps); the friction now opposes a continuous blend of the start
    direction and the slip below slip_speed (`porthamiltonian.kernels.reduced._friction_axis`).
    Compliant drops 1 and 3 as controls (100 of 100 were clean before). Each drop must reach 1 s within 3 times its
    measured evaluations, and pass the energy audit: ledger residual below its bound (100
    (rtol scale + atol)), no element generating energy, no sinkage beyond the law's range
    (status 0, not FLAGGED)."""
    system, x0 = random_drops.drop(kind, seed)
    budget = 3 * MEASURED[kind, seed]
    traj = ph.simulate(system, (0.0, 1.0), x0, max_nfev=budget, **random_drops.SOLVER)
    assert traj.status == 0 and traj.t[-1] == 1.0, (traj.status, traj.message, traj.warnings)
    assert traj.nfev <= budget
    b = traj.power_budget()
    assert b.max_residual <= b.residual_bound and b.passivity_violations == []
