"""Assembled systems: build functions returning a `Model`, registered for the CLI.

`MODELS` maps CLI names to `ModelSpec` (build function, description, parameters).
"""

from . import double_pendulum, heavy_top, mass_spring_damper, two_ellipsoids
from .registry import MODELS, Model, ModelSpec, Parameter, build_model, get_model, register_model

__all__ = ["MODELS", "Model", "ModelSpec", "Parameter", "build_model", "get_model", "register_model"]
