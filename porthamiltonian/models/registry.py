"""The model registry: named build functions with documented parameters.

A model is a build function returning a `Model`: a bond graph, its initial values, the
solver settings that suit it, and observables (named functions of the state) for plots and
reports. Models do no integration and no plotting (the CLI and examples do).
"""

from __future__ import annotations

import difflib
import inspect
import math
import re
from dataclasses import dataclass, field
from collections.abc import Sequence
from typing import Callable

import numpy as np

from porthamiltonian.errors import ModelError, ParameterError

__all__ = ["Model", "ModelSpec", "Parameter", "RULES", "register_model", "MODELS", "get_model", "build_model",
           "ignored_parameters", "ANY_CONTACT_KIND"]


#: rule name -> (test on one number, the rule in words)
RULES = {
    None: (lambda v: True, "be a finite number"),
    "positive": (lambda v: v > 0, "be > 0"),
    "nonnegative": (lambda v: v >= 0, "be >= 0"),
    "fraction": (lambda v: 0 <= v <= 1, "lie in [0, 1]"),
    "positive_fraction": (lambda v: 0 < v <= 1, "lie in (0, 1]"),
}


class _RegisteredKinds(Sequence):
    """The names of every registered contact kind, read when asked (`ANY_CONTACT_KIND`)."""

    def _names(self):
        from porthamiltonian.library.contact_kinds import CONTACT_KINDS

        return tuple(CONTACT_KINDS)

    def __getitem__(self, i):
        return self._names()[i]

    def __len__(self):
        return len(self._names())

    def __contains__(self, value):
        return value in self._names()

    def __repr__(self):
        return f"ANY_CONTACT_KIND{self._names()!r}"


#: `Parameter` choices of a model that builds its contacts from one `ContactMaterial`: every
#: registered contact kind, including those registered after the model
#: (`library.contact_kinds.register_contact_kind`)
ANY_CONTACT_KIND = _RegisteredKinds()


#: a Parameter doc's leading "kind[, kind...]:" (see `Parameter.contacts`)
_KINDS_PREFIX = re.compile(r"^\s*([a-z_]+(?:\s*,\s*[a-z_]+)*)\s*:")


@dataclass(frozen=True)
class Parameter:
    """A model parameter: default value, unit, meaning and the rule its numbers obey.

    Numbers (and each entry of a tuple) must be finite and obey `rule` (a key of `RULES`);
    `build_model` checks every value it is given, so a model never sees a negative mass or a
    NaN stiffness, even for a parameter the chosen variant does not use. A word (a string
    default) with `choices` must be one of them: a model's `contact` parameter lists the
    contact kinds it is built for, so a kind whose options do not fit the model is refused
    by name, before the model is built.

    A `doc` that begins with contact kinds and a colon (``"compliant: normal stiffness"``,
    ``"compliant, soil: friction coefficient"``) declares a parameter that only those kinds
    of the model's `contact` use (`contacts`); the others build the same model whatever its
    value, so a sweep runs the points that differ only in it once (`ignored_parameters`).
    A parameter that sets a field of the model's `ContactMaterial` says so instead
    (``material="restitution"``): the kinds that use it are those whose registration does not
    ignore that field (`library.contact_kinds.ContactKind.ignores`), so a kind registered
    later is covered too.
    """

    default: object
    unit: str
    doc: str
    rule: str | None = None
    choices: tuple | None = None
    #: value -> why the model refuses it (added to the message of a refused choice)
    refused: dict | None = None
    #: the `ContactMaterial` field this parameter sets, if any (see `contacts`)
    material: str | None = None

    def __post_init__(self):
        if self.rule not in RULES:
            raise ModelError(f"parameter rule must be one of {sorted(r for r in RULES if r)} or None, got {self.rule!r}")
        if self.material is not None:
            from porthamiltonian.library.contact_kinds import MATERIAL_FIELDS

            if self.material not in MATERIAL_FIELDS:
                raise ModelError(f"parameter `material` must be a ContactMaterial field {MATERIAL_FIELDS}, got "
                                 f"{self.material!r}")
        if self.choices is not None and (not isinstance(self.default, str) or self.default not in self.choices):
            raise ModelError(f"parameter choices {self.choices!r} apply to a word and must include the default "
                             f"{self.default!r}")

    @property
    def contacts(self):
        """The contact kinds that use this parameter (a tuple: those that use its `material`
        field, or those of the doc's prefix), or None for a parameter of every kind."""
        from porthamiltonian.library.contact_kinds import CONTACT_KINDS

        if self.material is not None:
            kinds = tuple(k for k, kind in CONTACT_KINDS.items() if kind.uses(self.material))
            return None if len(kinds) == len(CONTACT_KINDS) else kinds
        match = _KINDS_PREFIX.match(self.doc)
        kinds = tuple(k.strip() for k in match.group(1).split(",")) if match else ()
        return kinds if kinds and set(kinds) <= set(CONTACT_KINDS) else None

    def check(self, model, name, value):
        """Raise ParameterError if a numeric `value` is not finite or breaks the rule.

        A bool (Python or numpy) is not a number here: `mass=True` is refused rather than
        read as 1.0; numpy integer and float scalars are numbers. A boolean parameter takes
        only True or False.
        """
        d = self.default
        where = f"model {model!r}: `{name}`"
        if isinstance(d, bool):
            if not isinstance(value, (bool, np.bool_)):
                raise ParameterError(f"{where} must be True or False, got {value!r}")
            return
        if isinstance(d, str):
            if self.choices is not None and value not in self.choices:
                why = (self.refused or {}).get(value)
                raise ParameterError(_choice_message(model, name, value, self.choices) + (f" ({why})" if why else ""))
            return
        items = value if isinstance(d, (tuple, list)) and isinstance(value, (tuple, list, np.ndarray)) else (value,)
        if any(isinstance(v, (bool, np.bool_)) for v in items):
            raise ParameterError(f"{where} takes numbers like {d!r}, got {value!r}: a bool is not a number")
        if isinstance(d, int) and not (isinstance(value, (int, np.integer)) and not isinstance(value, bool)):
            raise ParameterError(f"{where} must be an integer, got {value!r}")
        try:
            numbers = tuple(float(v) for v in (value if isinstance(d, (tuple, list)) else (value,)))
        except (TypeError, ValueError):
            raise ParameterError(f"{where} takes numbers like {d!r}, got {value!r}") from None
        if isinstance(d, (tuple, list)) and len(numbers) != len(d):
            raise ParameterError(f"{where} takes {len(d)} numbers like {d!r}, got {value!r}")
        test, words = RULES[self.rule]
        for v in numbers:
            if not math.isfinite(v):
                raise ParameterError(f"{where} must be finite, got {value!r}")
            if not test(v):
                raise ParameterError(f"{where} must {words}, got {value if isinstance(d, (tuple, list)) else v!r}")


def _choice_message(model, name, value, choices):
    """The words of a refused choice; for a contact kind the model is not built for, that its
    contact's options do not fit that kind (rather than the option the kind's factory refuses)."""
    from porthamiltonian.library.contact_kinds import CONTACT_KINDS

    allowed = ", ".join(choices)
    if name == "contact" and value not in CONTACT_KINDS:
        close = difflib.get_close_matches(str(value), list(choices), n=1)
        return (f"model {model!r}: unknown contact kind {value!r}; use one of {sorted(CONTACT_KINDS)}"
                + (f" (did you mean {close[0]!r}?)" if close else "") + f"; this model offers {allowed}")
    if name == "contact":
        return (f"model {model!r} is not built for the {value} contact kind (its contact's options do not fit that "
                f"kind); `contact` must be one of the kinds it offers: {allowed}")
    return f"model {model!r}: `{name}` must be one of {allowed}, got {value!r}"


@dataclass
class Model:
    """What a build function returns.

    Attributes
    ----------
    graph : BondGraph
    initial : dict
        "element.block" -> value, applied to the compiled system's default state.
    t_end : float
        Default simulated time [s].
    solver : dict
        Keyword arguments for `simulate` (method, rtol, atol, max_step).
    observables : dict
        name -> f(system, t, x) -> float or array: quantities to report and plot.
    units : dict
        observable name -> its unit ("m", "rad/s"; "-" for a pure number): plots put
        observables of different units on separate axes labelled with their units, and the
        header of `observables.csv` and a run's summary carry them ("[?]" where not given).
    groups : dict
        plot title -> list of observable names drawn together (one figure per group).
    notes : str
        What the model shows.
    baumgarte : tuple
        Constraint stabilization passed to `compile`.
    inputs : callable, optional
        ``inputs(system) -> u``: the law of the external inputs (``simulate(..., inputs=u)``)
        built on the compiled system, e.g. a controller reading the state
        (`library.controllers.MotorPD`); None: the inputs keep their defaults.
    """

    graph: object
    initial: dict = field(default_factory=dict)
    t_end: float = 1.0
    solver: dict = field(default_factory=dict)
    observables: dict = field(default_factory=dict)
    units: dict = field(default_factory=dict)
    groups: dict = field(default_factory=dict)
    notes: str = ""
    baumgarte: tuple = (1.0, 1.0)
    inputs: Callable | None = None


@dataclass(frozen=True)
class ModelSpec:
    """A registered model: CLI name, build function, one-line description, parameters."""

    name: str
    build: Callable
    description: str
    parameters: dict


#: name -> ModelSpec
MODELS: dict[str, ModelSpec] = {}


def register_model(name, description, **parameters):
    """Decorator registering a build function under a CLI name.

    The keyword arguments are `Parameter` objects; they must match the build function's keyword
    parameters (checked here, so the CLI never offers a parameter the function ignores).
    """

    def deco(fn):
        sig = inspect.signature(fn)
        accepted = {n for n, p in sig.parameters.items() if p.kind == p.KEYWORD_ONLY}
        if set(parameters) != accepted:
            raise ModelError(
                f"model {name!r}: documented parameters {sorted(parameters)} differ from the keyword-only "
                f"parameters of {fn.__name__}: {sorted(accepted)}"
            )
        for pname, p in parameters.items():
            if sig.parameters[pname].default != p.default:
                raise ModelError(f"model {name!r}: default of {pname!r} differs between the registry and the function")
            p.check(name, pname, p.default)
        MODELS[name] = ModelSpec(name, fn, description, dict(parameters))
        return fn

    return deco


def check_parameter(model, name, value):
    """The registry's check of one parameter (`Parameter.check`, a refused choice with its
    reason), for a build function called directly rather than through `build_model`, so the
    function states no rule of its own."""
    get_model(model).parameters[name].check(model, name, value)


def get_model(name) -> ModelSpec:
    """The registered model called `name`; ModelError suggesting the nearest name otherwise."""
    if name not in MODELS:
        close = difflib.get_close_matches(name, list(MODELS), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise ModelError(f"unknown model {name!r}{hint} Known models: {', '.join(sorted(MODELS))}")
    return MODELS[name]


def _coerce(spec, pname, value):
    p = spec.parameters[pname]
    if not isinstance(value, str):
        return value
    d = p.default
    try:
        if isinstance(d, bool):
            if value.lower() in ("1", "true", "yes", "on"):
                return True
            if value.lower() in ("0", "false", "no", "off"):
                return False
            raise ValueError(value)
        if isinstance(d, int):
            return int(value)
        if isinstance(d, float):
            return float(value)
        if isinstance(d, (tuple, list)):
            return tuple(float(v) for v in value.strip("()[]").split(","))
    except ValueError:
        raise ParameterError(
            f"model {spec.name!r}: parameter {pname!r} expects {type(d).__name__} like {d!r}, got {value!r}"
        ) from None
    return value


def build_model(name, **params) -> Model:
    """Build a registered model, checking parameter names (with suggestions), types and
    rules (`Parameter.check`)."""
    spec = get_model(name)
    out = {}
    for k, v in params.items():
        if k not in spec.parameters:
            close = difflib.get_close_matches(k, list(spec.parameters), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise ParameterError(
                f"model {name!r} has no parameter {k!r}{hint} Its parameters: {', '.join(sorted(spec.parameters))}"
            )
        out[k] = _coerce(spec, k, v)
        spec.parameters[k].check(name, k, out[k])
    return spec.build(**out)


def ignored_parameters(name, values):
    """The parameters of registered model `name` that its contact kind ignores.

    Parameters
    ----------
    name : str
        A registered model's name (any other model reference ignores nothing).
    values : dict
        name -> value; ``values["contact"]`` (or the model's default) is the contact kind.

    Returns
    -------
    tuple of str
        In the model's order: the parameters whose `Parameter.contacts` leave out the kind
        (empty for a model without a `contact` parameter).
    """
    spec = MODELS.get(name)
    if spec is None or "contact" not in spec.parameters:
        return ()
    kind = values.get("contact", spec.parameters["contact"].default)
    return tuple(n for n, p in spec.parameters.items() if p.contacts is not None and kind not in p.contacts)
