"""Metrics of a run for a sweep's table: ``f(prepared, trajectory) -> float``.

Instances of module-level classes, so that they pickle to Dask workers; `metric` turns a
command-line name into one.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import ParameterError

__all__ = ["TimeToRest", "MaxNormalForce", "ObservableExtreme", "metric", "METRICS"]


class TimeToRest:
    """The first time [s] from which the kinetic energy of the bodies (rigid bodies, point
    masses and I elements) stays at or below `energy` [J] to the end of the run; NaN if it
    does not come to rest (nor a model without bodies)."""

    def __init__(self, energy=1e-4):
        if not (isinstance(energy, (int, float)) and energy > 0):
            raise ParameterError(f"`energy` of time_to_rest must be a number of joules > 0, got {energy!r}")
        self.energy = float(energy)

    def __call__(self, prepared, traj):
        from porthamiltonian.bondgraph.elements import I
        from porthamiltonian.library import PointMass, RigidBody

        kinds = (RigidBody, PointMass, I)
        paths = [p for p, e in prepared.system.elements.items() if isinstance(e, kinds)]
        if not paths:
            return math.nan
        kinetic = np.sum([traj.energies[p] for p in paths], axis=0)
        moving = np.flatnonzero(kinetic > self.energy)
        if moving.size == 0:
            return float(traj.t[0])
        last = moving[-1]
        return math.nan if last == len(traj.t) - 1 else float(traj.t[last + 1])


class MaxNormalForce:
    """The largest normal force [N] of any contact over the run (0 for a model without
    contacts)."""

    def __call__(self, prepared, traj):
        from porthamiltonian.diagnostics.contact_forces import contact_names

        forces = [float(np.max(traj.contact_forces(n).normal)) for n in contact_names(traj.system)]
        return max(forces, default=0.0)


class ObservableExtreme:
    """The minimum or maximum of a model observable over the run (in its unit); e.g. the
    largest penetration is minus the minimum of a gap."""

    def __init__(self, name, kind):
        if kind not in ("min", "max"):
            raise ParameterError(f"`kind` must be 'min' or 'max', got {kind!r}")
        self.name, self.kind = name, kind

    def __call__(self, prepared, traj):
        f = prepared.model.observables.get(self.name)
        if f is None:
            raise ParameterError(f"metric {self.kind}:{self.name}: the model has no observable {self.name!r}; its "
                                 f"observables: {', '.join(prepared.model.observables)}")
        values = np.array([f(prepared.system, t, x) for t, x in zip(traj.t, traj.x)], dtype=float)
        return float(values.min() if self.kind == "min" else values.max())


#: the metrics known by name (command line: ``--metric NAME``)
METRICS = {"time_to_rest": TimeToRest, "max_normal_force": MaxNormalForce}


def metric(name):
    """The metric a command-line name gives: one of `METRICS`, or ``min:OBSERVABLE`` /
    ``max:OBSERVABLE``.

    Raises
    ------
    ParameterError
        An unknown name (listing the known ones).
    """
    kind, _, observable = str(name).partition(":")
    if kind in ("min", "max") and observable:
        return ObservableExtreme(observable, kind)
    if name in METRICS:
        return METRICS[name]()
    raise ParameterError(f"unknown metric {name!r}; use one of {', '.join(METRICS)}, min:OBSERVABLE or "
                         "max:OBSERVABLE")
