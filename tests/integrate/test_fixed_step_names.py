"""The fixed-step methods are named once below the integrators (`_options.FIXED_STEP_NAMES`, for the
checks and the ledger) and mapped to their solvers in the driver: the two lists agree."""

from porthamiltonian._options import FIXED_STEP_NAMES, method_names
from porthamiltonian.integrate.simulate import FIXED_STEP_METHODS


def test_the_driver_maps_exactly_the_named_fixed_step_methods():
    assert set(FIXED_STEP_METHODS) == set(FIXED_STEP_NAMES)
    variable, fixed = method_names()
    assert fixed == sorted(FIXED_STEP_METHODS) and not set(variable) & set(fixed)
