"""`simulate`'s steps: what the split into named steps must keep (warnings attributed to the
caller's line, solver options by constructor).

Reference: the undamped oscillator, whose energy RK4 at h omega = 1.2 does not keep.
"""

import numpy as np
import pytest

import porthamiltonian as ph
from porthamiltonian.errors import AuditWarning
from porthamiltonian.integrate.discrete_gradient import DiscreteGradient
from porthamiltonian.integrate.dop853 import DOP853
from porthamiltonian.integrate.simulate import _checked_method, _takes

from ..core.conftest import msd_graph


def test_audit_warnings_point_at_the_callers_line():
    system = ph.compile(msd_graph(2.0, 3.0, 0.0, 0.0), jit=False)   # the Python path: no numba compile
    x0 = system.initial_state({"k.q": 0.4})
    with pytest.warns(AuditWarning) as record:
        traj = ph.simulate(system, (0.0, 10.0), x0, method="RK4", step=1.0)
    assert traj.status == 2
    assert {w.filename for w in record if issubclass(w.category, AuditWarning)} == {__file__}


def test_solver_options_follow_the_constructors():
    assert _checked_method("DOP853", None, np.inf, None) == (DOP853, None)
    assert _checked_method("discrete_gradient", 0.01, np.inf, None) == (DiscreteGradient, 0.01)
    assert _takes(DiscreteGradient, "system") and _takes(DiscreteGradient, "step")
    assert _takes("Radau", "jac") and not _takes("RK45", "jac") and not _takes(DOP853, "system")
    with pytest.raises(ph.errors.ParameterError, match=r"`step` is for the fixed-step methods"):
        _checked_method("RK45", 0.01, np.inf, None)
