"""Model files: a model (its bond graph with every element, contacts and surfaces included,
its initial values, simulated time, solver settings and notes) as one human-readable JSON file.

    porthamiltonian save two-ellipsoids -p friction=0.6 --out my_scene.json
    porthamiltonian run my_scene.json

A registered model's observables are Python functions and are not saved: a file runs with
the energy ledger, the contact forces and the trajectory, without the model's own plots.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from porthamiltonian._files import write_text
from porthamiltonian.bondgraph.serialize import from_json, to_json
from porthamiltonian.errors import SerializationError

from .registry import Model

__all__ = ["save_model", "load_model", "read_model_file"]

FORMAT = "porthamiltonian-model"
VERSION = 1


def save_model(model, path):
    """Write `model` (a `Model`) to a JSON file at `path`; returns the path.

    Raises
    ------
    SerializationError
        If an element cannot be saved (a Python callable in it), naming the element.
    """
    data = {"format": FORMAT, "version": VERSION, "graph": to_json(model.graph),
            "initial": {k: np.asarray(v, dtype=float).tolist() for k, v in model.initial.items()},
            "t_end": float(model.t_end), "solver": dict(model.solver),
            "baumgarte": None if model.baumgarte is None else list(model.baumgarte), "notes": model.notes}
    return write_text(path, json.dumps(data, indent=1))   # atomic: never a partial file


def load_model(path):
    """Read a model file written by `save_model`.

    The file is checked against its schema first (`read_model_file`), then its graph is
    rebuilt.

    Raises
    ------
    SerializationError
        If the file is missing, not JSON, not a model file, of a newer format version, or a
        field breaks its rule (naming the path as given, the field, the value and the rule);
        errors inside the graph as `porthamiltonian.load` reports them.
    """
    data = read_model_file(path)
    baumgarte = data["baumgarte"]
    return Model(from_json(data["graph"], source=Path(path)),
                 initial={k: np.asarray(v, dtype=float) for k, v in data["initial"].items()},
                 t_end=float(data["t_end"]), solver=dict(data["solver"]), notes=data["notes"],
                 baumgarte=None if baumgarte is None else tuple(float(b) for b in baumgarte))


#: what a model file holds, in words (the messages about a missing or unknown field say it)
HOLDS = ('a model file holds "format" ("porthamiltonian-model"), "version", "graph" (the bond graph), '
         '"t_end" and "solver", and optionally "initial", "baumgarte" and "notes"')
#: the fields of a model file and whether each is required
FIELDS = {"format": True, "version": True, "graph": True, "t_end": True, "solver": True, "initial": False,
          "baumgarte": False, "notes": False}
#: the `simulate` settings a model file's "solver" may hold, and the rule of each
SOLVER_FIELDS = {"method": "a method name (a string)", "rtol": "a finite number > 0", "atol": "a finite number > 0",
                 "max_step": "a number > 0 (Infinity for none)", "step": "a finite number > 0",
                 "first_step": "a finite number > 0", "projection": "a finite number > 0",
                 "max_events": "an integer >= 0", "check_constraints": "true or false"}


def read_model_file(path):
    """The contents of a model file, every field checked against the schema (the graph's own
    contents are checked when it is rebuilt, by `porthamiltonian.load`).

    The schema (format version 1):

    - ``format``: ``"porthamiltonian-model"``; ``version``: an integer from 1 to `VERSION`
      (a file from a newer release is refused by name, not read as far as it goes);
    - ``graph``: an object (the bond graph as `porthamiltonian.save` writes it);
    - ``t_end``: a finite number of seconds > 0;
    - ``solver``: an object whose keys are in `SOLVER_FIELDS`, each value obeying its rule;
    - ``initial`` (optional, default {}): an object "element.block" -> a finite number or a
      list of them;
    - ``baumgarte`` (optional, default null): null or two finite numbers >= 0;
    - ``notes`` (optional, default ""): a string.

    Any other key is refused (a misspelt field would otherwise be ignored silently).

    Parameters
    ----------
    path : str or Path
        The file; messages name it as given.

    Returns
    -------
    dict
        The fields, optional ones filled with their defaults.

    Raises
    ------
    SerializationError
        Naming the path, the field, the value received and the rule.
    """
    where = f"model file {str(path)!r}"
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SerializationError(f"cannot read the model file {str(path)!r}: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SerializationError(f"{str(path)!r} is not a porthamiltonian model file (expected format {FORMAT!r}); "
                                 f"{HOLDS}")
    version = data.get("version")
    if not (_is_integer(version) and version >= 1):
        raise SerializationError(f"{where}: \"version\" must be an integer >= 1, got {version!r}")
    if version > VERSION:
        raise SerializationError(f"{where} has format version {version}, newer than this release reads ("
                                 f"{_versions()}): it was written by a newer porthamiltonian; upgrade to read it")
    missing = [k for k, required in FIELDS.items() if required and k not in data]
    if missing:
        raise SerializationError(f"{where} lacks {missing}; {HOLDS}")
    unknown = sorted(set(data) - set(FIELDS))
    if unknown:
        raise SerializationError(f"{where} has unknown field(s) {unknown}; {HOLDS}")
    if not isinstance(data["graph"], dict):
        raise SerializationError(f"{where}: \"graph\" must be an object (the bond graph), got {_short(data['graph'])}")
    t_end = data["t_end"]
    if not (_is_number(t_end) and math.isfinite(t_end) and t_end > 0):
        raise SerializationError(f"{where}: \"t_end\" must be a finite number of seconds > 0, got {t_end!r}")
    _check_solver(where, data["solver"])
    initial = data.get("initial", {})
    if not isinstance(initial, dict):
        raise SerializationError(f"{where}: \"initial\" must be an object \"element.block\" -> numbers, got "
                                 f"{_short(initial)}")
    for key, value in initial.items():
        if not _finite_numbers(value):
            raise SerializationError(f"{where}: \"initial\"[{key!r}] must be a finite number or a list of them, got "
                                     f"{_short(value)}")
    baumgarte = data.get("baumgarte")
    if baumgarte is not None and not (isinstance(baumgarte, list) and len(baumgarte) == 2
                                      and _finite_numbers(baumgarte) and min(baumgarte) >= 0):
        raise SerializationError(f"{where}: \"baumgarte\" must be null or two finite numbers >= 0 (alpha, beta), got "
                                 f"{_short(baumgarte)}")
    notes = data.get("notes", "")
    if not isinstance(notes, str):
        raise SerializationError(f"{where}: \"notes\" must be a string, got {_short(notes)}")
    return {**data, "initial": initial, "baumgarte": baumgarte, "notes": notes}


def _check_solver(where, solver):
    if not isinstance(solver, dict):
        raise SerializationError(f"{where}: \"solver\" must be an object of `simulate` settings (keys "
                                 f"{', '.join(SOLVER_FIELDS)}), got {_short(solver)}")
    for key, value in solver.items():
        if key not in SOLVER_FIELDS:
            raise SerializationError(f"{where}: \"solver\" has the unknown key {key!r}; its keys are "
                                     f"{', '.join(SOLVER_FIELDS)}")
        if key == "method":
            ok = isinstance(value, str)
        elif key == "check_constraints":
            ok = isinstance(value, bool)
        elif key == "max_events":
            ok = _is_integer(value) and value >= 0
        elif key == "max_step":
            ok = _is_number(value) and value > 0
        else:
            ok = _is_number(value) and math.isfinite(value) and value > 0
        if not ok:
            raise SerializationError(f"{where}: \"solver\"[{key!r}] must be {SOLVER_FIELDS[key]}, got {_short(value)}")


def _versions():
    return "version 1" if VERSION == 1 else f"versions 1 to {VERSION}"


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_integer(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _finite_numbers(value):
    """A finite number, or a (nested) list of them."""
    if isinstance(value, list):
        return all(_finite_numbers(v) for v in value)
    return _is_number(value) and math.isfinite(value)


def _short(value):
    """`value` for a message: its repr, cut at 80 characters."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
