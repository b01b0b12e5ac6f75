"""The model registry: every registered model, in every contact variant it offers, builds and
compiles, and every plot group names observables that exist and evaluate to finite values at
the initial state (the CLI plots each group after the run: a missing observable fails only
there); every numeric parameter is checked (finite, and its rule) before a model is built."""

import numpy as np
import pytest

import porthamiltonian as ph
from porthamiltonian.errors import ModelError, ParameterError
from porthamiltonian.models import MODELS, Parameter, build_model

VARIANTS = []
for name, spec in sorted(MODELS.items()):
    choices = [{}]
    if "contact" in spec.parameters:
        choices = [dict(contact=c) for c in ("compliant", "sliding_plane")]
    if name == "quadruped-trot":  # sliding_plane refused by name (the model says why)
        choices = [dict(contact="compliant")]
    if name == "four-bar-clearance":
        choices.append(dict(model="massless_link"))
    if name == "cam-follower":
        choices += [dict(cam="eccentric", contact=c) for c in ("compliant", "sliding_plane")]
    if name == "rocking-ellipsoid":
        choices += [dict(friction="rolling", contact=c) for c in ("compliant", "sliding_plane", "reduced")]
        choices.append(dict(contact="reduced"))
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


NUMERIC = [(name, pname, p) for name, spec in sorted(MODELS.items()) for pname, p in spec.parameters.items()
           if not isinstance(p.default, (str, bool))]
BREAKS = {"positive": 0.0, "nonnegative": -1e-3, "fraction": 1.5, "positive_fraction": 0.0}


def violating(p, value):
    return tuple(value for _ in p.default) if isinstance(p.default, tuple) else value


@pytest.mark.parametrize("name, pname, p", NUMERIC, ids=[f"{n}.{q}" for n, q, _ in NUMERIC])
def test_every_numeric_parameter_is_checked_before_the_model_is_built(name, pname, p):
    """A non-finite number, or one that breaks the parameter's rule, is refused with the
    model, the parameter, the rule and the value named, before the build function runs."""
    if isinstance(p.default, int):
        with pytest.raises(ParameterError, match=f"model '{name}': `{pname}` must be an integer, got 2.5"):
            build_model(name, **{pname: 2.5})
    else:
        with pytest.raises(ParameterError, match=f"model '{name}': `{pname}` must be finite, got"):
            build_model(name, **{pname: violating(p, float("nan"))})
    if p.rule is not None:
        bad = violating(p, int(BREAKS[p.rule]) if isinstance(p.default, int) else BREAKS[p.rule])
        words = {"positive": "be > 0", "nonnegative": "be >= 0", "fraction": "lie in \\[0, 1\\]",
                 "positive_fraction": "lie in \\(0, 1\\]"}[p.rule]
        with pytest.raises(ParameterError, match=f"model '{name}': `{pname}` must {words}, got"):
            build_model(name, **{pname: bad})


def test_a_parameter_rule_must_exist():
    with pytest.raises(ModelError, match="parameter rule must be one of \\['fraction', 'nonnegative', 'positive', 'positive_fraction'\\]"):
        Parameter(1.0, "kg", "mass", rule="postive")


@pytest.mark.parametrize("params, message", [
    (dict(mass=-1), "model 'rocking-ellipsoid': `mass` must be > 0, got -1.0"),
    (dict(axes=(0.2, 0.0, 0.1)), "model 'rocking-ellipsoid': `axes` must be > 0, got (0.2, 0.0, 0.1)"),
    (dict(axes=(0.2, 0.1)), "model 'rocking-ellipsoid': `axes` takes 3 numbers like (0.2, 0.15, 0.1), got (0.2, 0.1)"),
    (dict(damping_ratio=float("inf")), "model 'rocking-ellipsoid': `damping_ratio` must be finite, got inf"),
    (dict(stiffness=None), "model 'rocking-ellipsoid': `stiffness` takes numbers like 100000.0, got None"),
    (dict(stiffness="stiff"), "model 'rocking-ellipsoid': parameter 'stiffness' expects float like 100000.0, got 'stiff'"),
])
def test_parameter_messages(params, message):
    with pytest.raises(ParameterError) as info:
        build_model("rocking-ellipsoid", **params)
    assert str(info.value) == message


def _declared():
    """(model, parameter, kind, uses): every parameter a contact-kind prefix declares, under
    every contact kind the model builds."""
    from porthamiltonian.library.contacts import CONTACT_KINDS

    out = []
    for name, spec in sorted(MODELS.items()):
        for pname, p in spec.parameters.items():
            if p.contacts is not None:
                out += [(name, pname, kind, kind in p.contacts) for kind in CONTACT_KINDS]
    return out


@pytest.mark.parametrize("name, pname, kind, uses", _declared(), ids=[f"{n}-{p}-{k}" for n, p, k, _ in _declared()])
def test_a_parameter_a_kind_ignores_builds_the_same_model(name, pname, kind, uses):
    """The contact kinds a parameter's doc names are the ones whose model depends on it: the
    model built at another value is the same object graph, pickled byte for byte (a bit-identical
    comparison on purpose), exactly when the kind ignores it."""
    import pickle

    from porthamiltonian.models.registry import ignored_parameters

    default = MODELS[name].parameters[pname].default
    choices = MODELS[name].parameters[pname].choices
    if choices:   # a named option (a terrain): another of its choices
        other = next(c for c in choices if c != default)
    else:
        if isinstance(default, str):
            pytest.skip(f"{name}: {pname} is a named option without declared choices (no other value to try)")
        # half the default: inside every rule a default meets (positive, fraction, restitution <= 1)
        other = (not default) if isinstance(default, bool) else (default / 2 if default else 0.5)
    try:
        a, b = build_model(name, contact=kind), build_model(name, contact=kind, **{pname: other})
    except ParameterError as exc:   # the kind not offered, or the parameter's other value refused with it
        pytest.skip(f"{name} with the {kind} contact and {pname}={other!r}: {exc}")

    def built(m):
        return pickle.dumps((m.graph, m.initial, m.solver, m.t_end, m.baumgarte))

    assert (built(a) == built(b)) is not uses
    assert (pname in ignored_parameters(name, {"contact": kind})) is not uses


def test_the_declared_parameters():
    """The prefixes in force, spelled out (a typo in a prefix would silently declare nothing)."""
    declared = {(n, p): MODELS[n].parameters[p].contacts for n, p, _, _ in _declared()}
    assert declared[("ball-drop", "stiffness")] == ("compliant",)
    assert declared[("rimless-wheel", "friction")] == ("compliant", "soil")
    assert declared[("wheel-on-plane", "unilateral")] == ("sliding_plane",)
    assert MODELS["bezier-rattleback"].parameters["mu"].contacts is None   # "coulomb:" is not a contact kind
    # a material's restitution: every kind's registration uses it but the soil's (its own law unloads)
    assert MODELS["ball-drop"].parameters["restitution"].contacts == ("compliant", "sliding_plane", "reduced")


@pytest.mark.parametrize("model, fn, kwargs, message", [
    ("compass-walker", "porthamiltonian.models.compass_walker:compass_walker", dict(contact="soil"),
     r"model 'compass-walker' is not built for the soil contact kind .* \(it has no knees"),
    ("rimless-wheel", "porthamiltonian.models.rimless_wheel:rimless_wheel", dict(contact="reduced"),
     r"model 'rimless-wheel' is not built for the reduced contact kind .* \(the wheel has a contact per foot"),
    ("quadruped-trot", "porthamiltonian.models.quadruped_trot:quadruped_trot", dict(motors=1),
     r"model 'quadruped-trot': `motors` must be True or False, got 1"),
])
def test_a_build_function_called_directly_refuses_with_the_registrys_words(model, fn, kwargs, message):
    """Called directly, not through `build_model`, a build function checks its choices by the
    registry's `Parameter` (`registry.check_parameter`): the same message, reason included."""
    import importlib

    module, name = fn.split(":")
    build = getattr(importlib.import_module(module), name)
    with pytest.raises(ph.ParameterError, match=message):
        build(**kwargs)
    with pytest.raises(ph.ParameterError, match=message):
        build_model(model, **kwargs)
