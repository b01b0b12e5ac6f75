"""Every registered model, in every contact variant it offers, builds and compiles, and every
plot group names observables that exist and evaluate to finite values at the initial state
(the CLI plots each group after the run: a missing observable fails only there)."""

import numpy as np
import pytest

import porthamiltonian as ph
from porthamiltonian.models import MODELS, build_model

VARIANTS = []
for name, spec in sorted(MODELS.items()):
    choices = [{}]
    if "contact" in spec.parameters:
        choices = [dict(contact=c) for c in ("compliant", "sliding_plane")]
    if name == "four-bar-clearance":
        choices.append(dict(model="massless_link"))
    if name == "cam-follower":
        choices += [dict(cam="eccentric", contact=c) for c in ("compliant", "sliding_plane")]
    if name == "rocking-ellipsoid":
        choices += [dict(friction="rolling", contact=c) for c in ("compliant", "sliding_plane")]
    VARIANTS += [(name, params) for params in choices]


@pytest.mark.parametrize("name, params", VARIANTS, ids=[f"{n}-{p}" for n, p in VARIANTS])
def test_observables_and_groups_are_consistent(name, params):
    model = build_model(name, **params)
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    x0 = system.initial_state(model.initial)
    assert model.groups, name
    for title, names in model.groups.items():
        missing = set(names) - set(model.observables)
        assert not missing, f"{name} {params}: group {title!r} names missing observables {missing}"
    for obs, f in model.observables.items():
        value = np.asarray(f(system, 0.0, x0), dtype=float)
        assert np.all(np.isfinite(value)), (name, params, obs, value)
