"""The integration interface of `PHSystem` (what `porthamiltonian.integrate` may use of a
compiled system): its members agree with the full evaluation, and the integrators use
nothing else.

References: `PHSystem.evaluate` (the generated Python's every quantity) and finite
differences of the rates along the impulse directions.
"""

import re
from pathlib import Path

import numpy as np
from numpy.testing import assert_allclose

import porthamiltonian as ph
import porthamiltonian.integrate as integrate

from ..core.conftest import pendulum_graph

#: private members of the compiled system and its plan
PRIVATE = re.compile(r"\.(_plan|_jit|_rhs|_u0|_storages|_fast|_event_value|_plan_path|_constraint_series)\b")


def test_the_integrators_use_only_the_public_interface():
    folder = Path(integrate.__file__).parent
    found = [f"{p.name}:{k + 1}: {line.strip()}" for p in sorted(folder.glob("*.py"))
             for k, line in enumerate(p.read_text().splitlines()) if PRIVATE.search(line)]
    assert found == []


def test_constraint_members_agree_with_the_full_evaluation():
    system = ph.compile(pendulum_graph(), jit=False)   # the Python path: nothing to compile
    x = system.initial_state()
    x[system.layout["ball.p"]] = [0.3, -0.2]   # off the constraint's velocity manifold
    t = 0.1
    ev = system.evaluate(t, x)
    (path, element, own, rows, columns), = system.constraints
    assert path == "rod" and element is system.elements["rod"] and own == system.layout.element_slice("rod")
    assert system.has_constraints
    assert_allclose(system.velocity_residuals(t, x)[rows], ev["c"]["rod"], rtol=0, atol=0)   # the same code
    G = system.impulse_directions(t, x)
    assert G.shape == (system.layout.size, system.n_multipliers)
    # an impulse Lambda moves the state by G Lambda and the residual by A Lambda (A the
    # acceleration-level matrix); forward differences: error O(h) relative
    lam = np.ones(columns.size)
    h = 1e-7
    dc = (system.velocity_residuals(t, x + h * G[:, columns] @ lam)[rows] - ev["c"]["rod"]) / h
    assert_allclose(dc, ev["A"][np.ix_(rows, columns)] @ lam, rtol=1e-5)
    assert_allclose(system.reference_rhs(t, x), system.rhs(t, x), rtol=0, atol=0)   # one code on this path


def test_storages_and_energy():
    system = ph.compile(pendulum_graph(), jit=False)
    x = system.initial_state()
    total = sum(float(obj.energy(x[own], tuple(x[r] for r in refs))) for _, obj, own, refs in system.storages)
    assert_allclose(total, system.energy(x), rtol=1e-15, atol=0)
