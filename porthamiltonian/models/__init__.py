"""Assembled systems: build functions returning a `Model`, registered for the CLI.

`MODELS` maps CLI names to `ModelSpec` (build function, description, parameters). Every
module of this package is imported here, so a model registers itself by living in a file
of this folder (one model per file, named after it); `files` reads and writes model files.
"""

import importlib as _importlib
import pkgutil as _pkgutil

from .registry import MODELS, RULES, Model, ModelSpec, Parameter, build_model, get_model, register_model

for _info in sorted(_pkgutil.iter_modules(__path__), key=lambda m: m.name):
    if _info.name not in ("registry", "files"):
        _importlib.import_module(f"{__name__}.{_info.name}")

from .files import load_model, save_model  # noqa: E402

__all__ = ["MODELS", "RULES", "Model", "ModelSpec", "Parameter", "build_model", "get_model", "register_model",
           "load_model", "save_model"]
