"""Model files: a model (its bond graph with every element, contacts and surfaces included,
its initial values, simulated time, solver settings and notes) as one human-readable JSON file.

    porthamiltonian save two-ellipsoids -p friction=0.6 --out my_scene.json
    porthamiltonian run my_scene.json

A registered model's observables are Python functions and are not saved: a file runs with
the energy ledger, the contact forces and the trajectory, without the model's own plots.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from porthamiltonian._files import write_text
from porthamiltonian.bondgraph.serialize import from_json, to_json
from porthamiltonian.errors import SerializationError

from .registry import Model

__all__ = ["save_model", "load_model"]

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

    Raises
    ------
    SerializationError
        If the file is missing, not JSON, or not a model file (naming the path and what is
        wrong); errors inside the graph as `porthamiltonian.load` reports them.
    """
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SerializationError(f"cannot read the model file {str(path)!r}: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SerializationError(f"{str(path)!r} is not a porthamiltonian model file (expected format {FORMAT!r})")
    missing = [k for k in ("graph", "t_end", "solver") if k not in data]
    if missing:
        raise SerializationError(f"model file {str(path)!r} lacks {missing}")
    baumgarte = data.get("baumgarte")
    return Model(from_json(data["graph"], source=path), initial={k: np.asarray(v, dtype=float) for k, v in data.get("initial", {}).items()},
                 t_end=float(data["t_end"]), solver=dict(data["solver"]), notes=data.get("notes", ""),
                 baumgarte=None if baumgarte is None else tuple(baumgarte))
