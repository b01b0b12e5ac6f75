"""Integration phases: regimes in which elements take the integration over.

Most of a run integrates the system's state with the chosen solver between element events
(`porthamiltonian.integrate.simulate`). Some elements integrate other coordinates in some
states: a reduced contact, while it is on, integrates its contact coordinates
(`porthamiltonian.integrate.reduced`). Such an element declares the phase by name in its
``integrator_phases`` attribute (a tuple of names); the phase's class is registered here under
that name (`register_phase`); `simulate` builds one instance per name the system's elements
declare (`PHSystem.integrator_phases`) and, before every segment, asks each whether it takes
the state over. The driver knows no phase by name.

A phase class is called as ``cls(run, elements)`` with

run : the run in segments (`simulate`'s driver), whose members a phase may use:
    ``system``, ``rhs`` (the right-hand side of the run, with its inputs, counts and budget),
    ``solver`` (solve_ivp's options), ``user_events``, ``element_events``, ``lost_index``
    (element path -> index of its "lost" ledger entry), ``records`` (the event log),
    ``status`` and ``message`` (set both to end the run: -1 failed, 1 stopped),
    ``n_events`` and ``max_events``, ``fired_at_start`` (``(event name, t)`` fired at a
    segment start), and the methods ``run_solver`` (one solve_ivp segment, its samples
    stored), ``fire`` (apply an element event) and ``record_event`` (log a jump);
elements : tuple of ``(path, element)``
    The system's elements that declare the phase.

and provides

``active(x)``
    What takes the integration over at state `x` (an object passed back to `run`), or None;
``run(which, t, x, t_stop)``
    Integrate from ``(t, x)`` to `t_stop` or the phase's first event; returns ``(t, x, stop,
    reached)``: the state to continue from (a system state), whether the run must end, and
    whether `t_stop` was reached.
"""

from __future__ import annotations

import importlib

from ..errors import ModelError

__all__ = ["PHASES", "register_phase", "phase_class", "phases_of"]

#: phase name -> phase class (module docstring), or "module:Class" for the package's own
#: phases, imported when a run first needs them (so importing the package registers nothing)
PHASES: dict = {"reduced": "porthamiltonian.integrate.reduced:ReducedPhases"}


def register_phase(name, cls):
    """Register the phase class `cls` under `name` (the name elements declare in their
    ``integrator_phases``). Registering another class under a taken name is a ModelError."""
    if not isinstance(name, str) or not name:
        raise ModelError(f"a phase name must be a non-empty str, got {name!r}")
    if name in PHASES and phase_class(name) is not cls:
        raise ModelError(f"integrator phase {name!r} is already registered (by {phase_class(name).__qualname__})")
    PHASES[name] = cls
    return cls


def phase_class(name):
    """The class registered under `name` (imported if given as "module:Class"), or None."""
    cls = PHASES.get(name)
    if isinstance(cls, str):
        module, _, attr = cls.partition(":")
        cls = PHASES[name] = getattr(importlib.import_module(module), attr)
    return cls


def phases_of(run):
    """The phase instances of a run: one per phase its system's elements declare, in the
    order of the first element declaring each. A name nothing registered is a ModelError
    naming the elements."""
    out = []
    for name, elements in run.system.integrator_phases.items():
        cls = phase_class(name)
        if cls is None:
            raise ModelError(
                f"element(s) {[p for p, _ in elements]} of system {run.system.name!r} declare the integrator phase "
                f"{name!r}, which no module registered (registered: {sorted(PHASES)}); see "
                "porthamiltonian.integrate.phases.register_phase")
        out.append(cls(run, elements))
    return out
