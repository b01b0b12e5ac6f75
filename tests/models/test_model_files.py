"""Every registered model variant saved to a JSON file and loaded back (issue 11,
acceptance 5): contacts with their surfaces, laws and parameters included, the loaded graph
simulates identically (same states, bit for bit) over a short run with events."""

import json

import numpy as np
import pytest

import porthamiltonian as ph
from porthamiltonian.bondgraph.serialize import from_json, to_json
from porthamiltonian.models import MODELS, build_model

EXTRA = {
    "four-bar-clearance": [dict(model="massless_link")],
    "cam-follower": [dict(cam="eccentric", contact="compliant")],
    "rocking-ellipsoid": [dict(friction="rolling", contact="sliding_plane")],
}
VARIANTS = [(name, params) for name, spec in sorted(MODELS.items())
            for params in ([dict(contact=c) for c in ("compliant", "sliding_plane")]
                           if "contact" in spec.parameters else [{}]) + EXTRA.get(name, [])]


def run(graph, model, t_end):
    system = ph.compile(graph, baumgarte=model.baumgarte)
    solver = dict(model.solver)
    return ph.simulate(system, (0.0, t_end), system.initial_state(model.initial), throw=False,
                       t_eval=np.linspace(0.0, t_end, 5), **solver)


@pytest.mark.parametrize("name, params", VARIANTS, ids=[f"{n}-{'-'.join(map(str, p.values()))}" for n, p in VARIANTS])
def test_saved_and_loaded_model_simulates_identically(name, params):
    model = build_model(name, **params)
    text = json.dumps(to_json(model.graph))              # what `save` writes
    loaded = from_json(json.loads(text))
    t_end = min(0.3, model.t_end)
    a, b = run(model.graph, model, t_end), run(loaded, model, t_end)
    assert a.status == b.status and a.message == b.message
    assert np.array_equal(a.t, b.t) and np.array_equal(a.x, b.x)
    assert [(e.t, e.name) for e in a.events] == [(e.t, e.name) for e in b.events]


def test_a_user_law_from_callables_is_not_saved():
    from porthamiltonian.contact.laws import UserNormalLaw
    from porthamiltonian.geometry import Plane, Sphere
    from porthamiltonian.library import CompliantContact, Ground, RigidBody

    ball, ground = RigidBody("ball", 1.0, [1e-3] * 3), Ground("ground")
    bg = ph.BondGraph("g")
    bg.add(ball, ground, CompliantContact("c", ball, Sphere(0.1), ground, Plane(),
                                          normal=UserNormalLaw(force=lambda d: 1e4 * d)))
    with pytest.raises(ph.SerializationError, match=r"given as Python callables, which are not saved"):
        to_json(bg)
