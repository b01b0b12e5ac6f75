"""Every registered model builds its contacts from one `ContactMaterial` (issue 37, item 3).

Each model is built for every contact kind it offers while `ContactKind.material_parameters`
is watched: every contact component in the graph must have been built by `make_contact`
with a material, one material per model, and its elements must carry what that material
says (friction, restitution, normal stiffness and damping), read back from the elements and
checked against the material's fields (the linear law's damping against the restitution by
the closed form of a linear spring-damper impact), with only what the kind's options may
change (the rigid kinds' friction mode, the soil's terrain friction). A model that branched
on the kind and built a contact another way would fail here, whatever its file says.
"""

import math
from collections.abc import Mapping

import numpy as np
import pytest

import porthamiltonian as ph
from porthamiltonian.contact.laws import NormalLaw
from porthamiltonian.contact.soil import SoilLaw
from porthamiltonian.errors import ParameterError
from porthamiltonian.geometry import Plane, Sphere
from porthamiltonian.library import ContactKind, ContactMaterial, Ground, RigidBody, make_contact
from porthamiltonian.library.compliant_contact import _reduced_mass
from porthamiltonian.library.contacts import contact_flag
from porthamiltonian.lie import se3
from porthamiltonian.models import MODELS, build_model


def _variants():
    """(model, kind or None): every registered model with contacts, for each kind it offers."""
    out = []
    for name, spec in sorted(MODELS.items()):
        p = spec.parameters.get("contact")
        if p is None:
            out.append((name, None))
        else:
            out += [(name, k) for k in p.choices if k not in (p.refused or {})]
    return out


def _contacts(graph):
    """The contact components of `graph` (nested ones too): graphs with an element that holds a
    contact pair."""
    out = []
    for obj in graph.elements.values():
        if isinstance(obj, ph.BondGraph):
            if any(hasattr(el, "pair") for el in obj.elements.values()):
                out.append(obj)
            else:
                out += _contacts(obj)
    return out


@pytest.fixture
def built(monkeypatch):
    """Calls of `ContactKind.material_parameters` (kind, contact name, material, options given)."""
    calls = []
    original = ContactKind.material_parameters

    def watch(self, name, material, body_a, body_b, given=()):
        calls.append((self.name, name, material, dict(given) if isinstance(given, Mapping) else {}))
        return original(self, name, material, body_a, body_b, given)

    monkeypatch.setattr(ContactKind, "material_parameters", watch)
    return calls


@pytest.mark.parametrize("model, kind", _variants(), ids=lambda v: str(v))
def test_every_contact_carries_the_models_one_material(built, model, kind):
    graph = build_model(model, **({} if kind is None else {"contact": kind})).graph
    contacts = _contacts(graph)
    if not contacts:
        assert kind is None and not built   # a model without contacts (a pendulum, a top)
        return
    by_name = {name: (k, material, given) for k, name, material, given in built}
    materials = [m for _, m, _ in by_name.values()]
    assert all(m == materials[0] for m in materials), f"{model}: more than one material {set(map(repr, materials))}"
    for component in contacts:
        assert component.name in by_name, f"{model}: contact {component.name!r} was not built from a material"
        k, material, given = by_name[component.name]
        assert kind is None or k == kind
        flag = contact_flag(component).split("/")[-1].split(".")[0]
        _check_element(k, component.elements[flag], material, given)


def _check_element(kind, element, material, given):
    """The element holding the contact flag carries what `material` says. The values the
    material sets are copied, not computed, so they compare exactly; computed ones (a
    damping from a restitution) within round-off."""
    p = element.parameters()
    if kind in ("sliding_plane", "reduced"):
        assert p["restitution"] == material.restitution
        mode = given.get("friction") or ("coulomb" if material.friction > 0 else "frictionless")
        assert p["friction"] == mode
        if mode == "coulomb":
            assert p["mu"] == material.friction
        return
    spec = p["contact"]
    if kind == "soil":   # the material's friction, or the terrain's when the model asks for it (None)
        expected = material.friction if given.get("friction", 0.0) is not None else \
            SoilLaw.friction_coefficient(given.get("terrain", "dry_sand"))
        assert spec["friction"] == expected
        return
    assert kind == "compliant", kind
    assert spec["friction"] == material.friction
    law, normal = spec["law"], material.normal
    if normal is None:   # the default Hertz law with the Hunt-Crossley damping of the restitution
        assert law["kind"] == "hunt_crossley"
        assert law["damping"] == pytest.approx(material.hunt_crossley_damping(), rel=1e-12)
    elif not isinstance(normal, NormalLaw):
        assert law["kind"] == "local_hertz"
    elif material.damping == "law":
        assert (law["kind"], law["stiffness"], law["damping"], law["exponent"]) == \
            (normal.kind, normal.stiffness, normal.damping, normal.exponent)
    elif normal.kind == "linear":   # e = exp(-zeta pi / sqrt(1 - zeta^2)), zeta = c / (2 sqrt(k m))
        assert law["stiffness"] == normal.stiffness
        zeta = law["damping"] / (2.0 * math.sqrt(law["stiffness"] * _reduced_mass(element.pair.body_a,
                                                                                   element.pair.body_b)))
        e = 0.0 if zeta >= 1.0 else math.exp(-zeta * math.pi / math.sqrt(1.0 - zeta * zeta))
        assert e == pytest.approx(material.restitution, rel=1e-12, abs=1e-15)
    else:
        assert (law["kind"], law["stiffness"]) == ("hunt_crossley", normal.stiffness)


def test_the_check_sees_a_contact_built_without_the_material(built):
    """The watch fails a model whose contact bypasses the material (a kind-specific branch)."""
    ball = RigidBody("ball", 1.0, np.full(3, 0.004))
    ground = Ground("ground")
    bg = ph.BondGraph("g")
    material = ContactMaterial(friction=0.3, restitution=0.5, normal=NormalLaw("linear", stiffness=1e4))
    bg.add(ball, ground, make_contact("compliant", "c", ball, Sphere(0.1), ground, Plane(), friction=0.7))
    assert [c.name for c in _contacts(bg)] == ["c"] and not built
    with pytest.raises(AssertionError):
        _check_element("compliant", bg.elements["c"].elements["spring"], material, {})


# ---------------------------------------------------------------- contact_flag

@pytest.mark.parametrize("kind", ["compliant", "sliding_plane", "reduced", "soil"])
def test_contact_flag_names_the_state_of_every_kind(kind):
    ball = RigidBody("ball", 1.0, np.full(3, 0.004), pose=se3.make(np.eye(3), (0.0, 0.0, 0.2)))
    ground = Ground("ground")
    c = make_contact(kind, "c", ball, Sphere(0.1), ground, Plane(), material=ContactMaterial(friction=0.3))
    flag = contact_flag(c)
    element = {"compliant": "spring", "soil": "spring", "sliding_plane": "constraint", "reduced": "constraint"}[kind]
    assert flag == f"c/{element}.active"
    assert contact_flag(c, prefix="walker/") == f"walker/c/{element}.active"


def test_contact_flag_refuses_what_is_not_a_contact():
    with pytest.raises(ParameterError, match="exactly one"):
        contact_flag(ph.BondGraph("empty"))
    with pytest.raises(ParameterError, match="`component` must be a contact component"):
        contact_flag("c/spring")
