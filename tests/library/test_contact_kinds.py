"""One `ContactKind` registration per contact kind (issue 37, item 3).

The built-in kinds declare what they do (their events, the material fields they ignore);
a kind written here, a linear-spring point contact, is registered and then works like a
built-in one: `make_contact` with a `ContactMaterial`, `BondGraph.swap`, a model's
``--contact`` (ball-drop builds its contact from one material), save/load, and the
sweep's ignored parameters.
"""

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose

import porthamiltonian as ph
from porthamiltonian.cli import main
from porthamiltonian.contact.laws import NormalLaw, linear_damping_ratio
from porthamiltonian.errors import ModelError, ParameterError
from porthamiltonian.geometry import Plane, Sphere
from porthamiltonian.library import CONTACT_KINDS, ContactKind, ContactMaterial, Ground, RigidBody, make_contact
from porthamiltonian.library.compliant_contact import (
    ContactDamper,
    ContactParameters,
    ContactSpring,
    SlipFriction,
    contact_component,
)
from porthamiltonian.library.contact_geometry import ContactPair
from porthamiltonian.library.contact_kinds import register_contact_kind, unregister_contact_kind
from porthamiltonian.models.files import load_model
from porthamiltonian.models.registry import build_model, ignored_parameters

G = 9.81


# ---------------------------------------------------------------- a kind written in a test

def linear_point(name, body_a, surface_a, body_b, surface_b, *, stiffness=1e5, damping=0.0):
    """A frictionless linear spring-damper along the normal at the closest points."""
    pair = ContactPair(body_a, surface_a, body_b, surface_b)
    params = ContactParameters(law=NormalLaw("linear", stiffness=stiffness, damping=damping), tangential_stiffness=0.0,
                               tangential_damping=0.0, spin_stiffness=0.0, spin_damping=0.0, friction=0.0,
                               spin_friction=0.0, slip_damping=1.0, max_penetration=0.01)
    spring = ContactSpring("spring", pair, params)
    return contact_component(name, spring, ContactDamper("damper", spring), SlipFriction("slip", spring))


def _linear_point_from_material(material, body_a, body_b):
    law = material.normal
    if law is None or law.kind != "linear":
        raise ParameterError("linear_point: the material's `normal` must be a linear NormalLaw")
    m = body_a.mass
    return {"stiffness": law.stiffness,
            "damping": 2.0 * linear_damping_ratio(material.restitution) * math.sqrt(law.stiffness * m)}


@pytest.fixture
def linear_point_kind():
    kind = register_contact_kind(ContactKind(
        "linear_point", linear_point, _linear_point_from_material, material_options=("stiffness", "damping"),
        ignores=("friction", "impact_speed"), events=("touch", "release", "chart", "approach")))
    yield kind
    unregister_contact_kind("linear_point")


def _ball_drop(contact, **parameters):
    return build_model("ball-drop", contact=contact, height=0.06, **parameters)


def test_a_registered_kind_builds_from_a_material_and_runs(linear_point_kind):
    """ball-drop with the new kind: the material's k and e; at rest the ball sinks m g / k
    (the ledger closes)."""
    k = 1e5
    model = _ball_drop("linear_point", stiffness=k, restitution=0.5, mass=1.0)
    system = ph.compile(model.graph)
    spring = system.elements["contact/spring"]
    assert spring.p.law.stiffness == k and spring.p.mu == 0.0
    zeta = spring.p.law.damping / (2 * math.sqrt(k))
    assert_allclose(math.exp(-zeta * math.pi / math.sqrt(1 - zeta**2)), 0.5, rtol=1e-12)
    traj = ph.simulate(system, (0.0, 0.4), system.initial_state(), rtol=1e-9, atol=1e-12, method="DOP853")
    z = traj.state("ball.pose")[-1, 6]
    assert_allclose(0.05 - z, G / k, rtol=1e-3)       # settled to ~1e-4 of the depth after 0.4 s (e = 0.5)
    b = traj.power_budget()
    assert b.max_residual <= 1e-6 * b.scale


def test_a_registered_kind_swaps_and_saves(linear_point_kind, tmp_path):
    """swap the compliant contact of ball-drop for the new kind; the graph saves and loads,
    and the loaded one has the same right-hand side."""
    bg = _ball_drop("compliant").graph
    bg.swap("contact", make_contact("linear_point", "contact", bg["ball"], Sphere(0.05), bg["ground"], Plane(),
                                    stiffness=2e5))
    ph.save(bg, tmp_path / "swapped.json")
    loaded = ph.load(tmp_path / "swapped.json")
    s1, s2 = ph.compile(bg), ph.compile(loaded)
    x = s1.initial_state()
    x[s1.layout["ball.pose"].start + 6] = 0.0499     # 0.1 mm deep, in contact: the spring acts
    x[s1.layout["contact/spring.active"]] = 1.0
    assert s2.elements["contact/spring"].p.law.stiffness == 2e5
    assert abs(s1.rhs(0.0, x)[s1.layout["ball.P"]]).max() > 1.0
    # bit-identical: the same elements with the same parameters, saved and loaded exactly
    np.testing.assert_array_equal(s1.rhs(0.0, x), s2.rhs(0.0, x))


def test_the_cli_offers_a_registered_kind(linear_point_kind, tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["run", "ball-drop", "--contact", "linear_point", "--t-end", "0.05", "-p", "height=0.06",
                 "--no-progress", "--out", str(out)]) == 0
    assert main(["save", "ball-drop", "--contact", "linear_point", "--out", str(tmp_path / "m.json")]) == 0
    model = load_model(tmp_path / "m.json")
    assert ph.compile(model.graph).elements["contact/spring"].p.law.stiffness == 1e5


def test_the_viewer_draws_a_registered_kind(linear_point_kind):
    """The viewer's scene of ball-drop on the new kind: the ball's sphere and the contact, whose
    drawn force is the weight once the ball rests (e = 0.5: settled after 0.4 s)."""
    from porthamiltonian.viewer.scene import scene_from_trajectory

    model = _ball_drop("linear_point", stiffness=1e5, restitution=0.5, mass=1.0)
    system = ph.compile(model.graph)
    traj = ph.simulate(system, (0.0, 0.4), system.initial_state(), rtol=1e-9, atol=1e-12, method="DOP853")
    scene = scene_from_trajectory(traj, resolution=16)
    bodies = {b["name"]: b for b in scene.data["bodies"]}
    v = np.reshape(bodies["ball"]["meshes"][0]["vertices"], (-1, 3))
    assert_allclose(np.linalg.norm(v, axis=1), 0.05, rtol=1e-5)      # the sphere, 6 digits kept
    contacts = {c["name"]: c for c in scene.data["contacts"]}
    assert list(contacts) == ["contact"]
    # at rest the ball presses the floor (body b, the force the scene holds) with its weight
    # (settled to ~1e-4 of it, as above), and the arrow is drawn on the ball (body a, -1)
    assert_allclose(contacts["contact"]["force"][-1], [0.0, 0.0, -G], rtol=0, atol=1e-3 * G)
    assert contacts["contact"]["arrows"] == [-1]


def test_a_kinds_ignored_material_fields_are_the_sweeps_ignored_parameters(linear_point_kind):
    assert ignored_parameters("ball-drop", {"contact": "linear_point"}) == ("friction",)
    assert ignored_parameters("ball-drop", {"contact": "sliding_plane"}) == ("stiffness", "law")
    assert ignored_parameters("ball-drop", {"contact": "soil"}) == ("stiffness", "restitution", "law")
    assert ignored_parameters("ball-drop", {"contact": "compliant"}) == ()


def test_a_material_option_cannot_also_be_passed(linear_point_kind):
    ball, ground = RigidBody("ball", 1.0, [1e-3] * 3), Ground("ground")
    with pytest.raises(ParameterError, match=r"`stiffness` would override the material's"):
        make_contact("linear_point", "c", ball, Sphere(0.05), ground, Plane(), stiffness=1.0,
                     material=ContactMaterial(normal=NormalLaw("linear", stiffness=1e5)))


# ---------------------------------------------------------------- the registrations

@pytest.mark.parametrize("kind", ["sliding_plane", "reduced"])
def test_a_rolling_constraint_is_a_named_option_beside_a_material(kind):
    """A material cannot say "no slip": the rigid kinds take friction="rolling" with it, and
    keep the material's restitution; the material alone gives Coulomb's mu."""
    ball, ground = RigidBody("ball", 1.0, [1e-3] * 3), Ground("ground")
    material = ContactMaterial(friction=0.3, restitution=0.4)
    rolling = make_contact(kind, "c", ball, Sphere(0.05), ground, Plane(), material=material, friction="rolling")
    coulomb = make_contact(kind, "c", ball, Sphere(0.05), ground, Plane(), material=material)
    (r,), (c,) = ([el for el in g.elements.values() if hasattr(el, "restitution")] for g in (rolling, coulomb))
    assert (r.friction, r.restitution) == ("rolling", 0.4)
    assert (c.friction, c.mu, c.restitution) == ("coulomb", 0.3, 0.4)


@pytest.mark.parametrize("kind", ["compliant", "sliding_plane", "reduced", "soil"])
def test_a_built_in_kind_declares_the_events_its_elements_fire(kind):
    ball, ground = RigidBody("ball", 1.0, [1e-3] * 3, pose=np.diag([1.0, 1, 1, 1])), Ground("ground")
    c = make_contact(kind, "c", ball, Sphere(0.05), ground, Plane(), material=ContactMaterial())
    names = {e.name for el in c.elements.values() for e in el.events()}
    assert names == set(CONTACT_KINDS[kind].events)


def test_registration_errors_name_the_rule():
    with pytest.raises(ParameterError, match=r"`ignores` names \['stiffness'\]"):
        ContactKind("k2", linear_point, _linear_point_from_material, ignores=("stiffness",))
    with pytest.raises(ParameterError, match=r"`material_options` \['mu'\] are not options"):
        ContactKind("k2", linear_point, _linear_point_from_material, material_options=("mu",))
    with pytest.raises(ParameterError, match="lower-case identifier"):
        ContactKind("Linear Point", linear_point, _linear_point_from_material)
    with pytest.raises(ModelError, match="'compliant' is registered already"):
        register_contact_kind(ContactKind("compliant", linear_point, _linear_point_from_material))
    assert CONTACT_KINDS["compliant"].factory.__name__ == "CompliantContact"


def test_the_old_name_is_the_new_function():
    from porthamiltonian.library import contact

    assert contact is make_contact


# ---------------------------------------------------------------- what a material cannot express

def test_kind_options_give_each_kind_its_own_and_check_the_others():
    """One call for every kind a model offers: the built kind gets its options, the others'
    are checked (a misspelt option fails whichever kind is built)."""
    ball, ground = RigidBody("ball", 1.0, [1e-3] * 3), Ground("ground")
    material = ContactMaterial(friction=0.3, restitution=0.4)
    options = {"sliding_plane": {"friction": "rolling"}, "compliant": {"spin_friction": 0.02}}
    rigid = make_contact("sliding_plane", "c", ball, Sphere(0.05), ground, Plane(), material=material,
                         kind_options=options)
    soft = make_contact("compliant", "c", ball, Sphere(0.05), ground, Plane(), material=material, kind_options=options)
    assert rigid.elements["constraint"].friction == "rolling"
    assert soft.elements["spring"].p.mu_spin == 0.02
    for bad, match in (({"sliding_plane": {"frictoin": "rolling"}}, r"sliding_plane contact 'c' takes no parameter "
                                                                    r"`frictoin` \(did you mean `friction`\?\)"),
                       ({"slidingplane": {}}, r"`kind_options` names 'slidingplane', which is not a registered "
                                              r"contact kind .* \(did you mean 'sliding_plane'\?\)"),
                       ({"compliant": 3}, r"`kind_options\['compliant'\]` must be a mapping of options, got 3")):
        with pytest.raises(ParameterError, match=match):
            make_contact("compliant", "c", ball, Sphere(0.05), ground, Plane(), material=material, kind_options=bad)
    with pytest.raises(ParameterError, match=r"`spin_friction` given both as a parameter and in `kind_options`"):
        make_contact("compliant", "c", ball, Sphere(0.05), ground, Plane(), material=material, kind_options=options,
                     spin_friction=0.01)


@pytest.mark.parametrize("kind, depth", [("compliant", 9.81 * 2.0 / 4e4), ("sliding_plane", 0.0), ("reduced", 0.0),
                                         ("soil", 0.0)])
def test_the_depth_at_rest_is_the_normal_laws_for_a_kind_that_uses_it(kind, depth):
    material = ContactMaterial(normal=NormalLaw("linear", stiffness=4e4))
    assert CONTACT_KINDS[kind].rest_penetration(material, 9.81 * 2.0) == depth   # m g / k, as the models wrote it
    hertz = ContactMaterial(normal=NormalLaw("hertz", stiffness=1e8))
    assert_allclose(CONTACT_KINDS[kind].rest_penetration(hertz, 10.0), (1e-7) ** (2 / 3) if depth else 0.0,
                    rtol=1e-15)
    if kind == "compliant":
        with pytest.raises(ParameterError, match=r"compliant contact: the depth at rest needs the material's `normal` "
                                                 r"law of fixed stiffness \(a NormalLaw\), got None"):
            CONTACT_KINDS[kind].rest_penetration(ContactMaterial(), 10.0)


def test_an_option_given_as_none_keeps_the_kinds_own_default():
    """The soil's friction=None beside a material is its terrain's Mohr-Coulomb friction (the
    hopping leg: frictionless hard grounds, sand's friction on soil), not the material's."""
    from porthamiltonian.contact.soil import SoilLaw

    ball, ground = RigidBody("ball", 1.0, [1e-3] * 3), Ground("ground")
    material = ContactMaterial(friction=0.0)
    own = make_contact("soil", "c", ball, Sphere(0.05), ground, Plane(), material=material,
                       kind_options={"soil": dict(friction=None)})
    assert own.elements["spring"].p.mu == SoilLaw.friction_coefficient("dry_sand") > 0.5
    material_friction = make_contact("soil", "c", ball, Sphere(0.05), ground, Plane(), material=material)
    assert material_friction.elements["spring"].p.mu == 0


def test_a_rigid_kind_takes_the_materials_mu_only_when_it_slides():
    """The rigid kinds set Coulomb's mu from the material only in the "coulomb" mode: a
    rolling or frictionless contact is the same whatever the material's coefficient (so a
    model parameter that only sets it is ignored by them: `ignored_parameters`)."""
    ball, ground = RigidBody("ball", 1.0, [1e-3] * 3), Ground("ground")

    def constraint(mu, **options):
        c = make_contact("sliding_plane", "c", ball, Sphere(0.05), ground, Plane(),
                         material=ContactMaterial(friction=mu), **options)
        return c.elements["constraint"]

    assert constraint(0.3, friction="rolling").mu == constraint(100.0, friction="rolling").mu
    assert constraint(0.3, friction="frictionless").mu == constraint(0.0).mu
    assert (constraint(0.3).friction, constraint(0.3).mu) == ("coulomb", 0.3)
