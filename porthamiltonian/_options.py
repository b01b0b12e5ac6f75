"""Checks of a run's options, shared by `porthamiltonian run`, `sweep` and `studies.records`.

Each check takes the label the user knows the setting by (``--method`` on the command line,
``method`` in the API), so one function gives both their own wording. Nothing here runs on
the hot path: the checks happen once, before a model is built or a run starts.
"""

from __future__ import annotations

import difflib
import math

from ._validate import is_real_scalar
from .errors import ParameterError

__all__ = ["API_LABELS", "CLI_LABELS", "FIXED_STEP_NAMES", "method_names", "check_method", "check_step", "check_run_solver",
           "check_parameter_values"]

#: how a run's settings are named in the API (`simulate`, `RunSpec.solver`) and on the command line
API_LABELS = {"method": "method", "step": "step", "max_step": "max_step", "contact": "contact", "param": "{name}",
              "timeout": "timeout", "max_nfev": "max_nfev", "t_end": "t_end"}
CLI_LABELS = {"method": "--method", "step": "--step", "max_step": "--max-step", "contact": "--contact",
              "param": "-p {name}", "timeout": "--timeout", "max_nfev": "--max-nfev", "t_end": "--t-end"}


#: the names of the package's fixed-step methods (`integrate.simulate.FIXED_STEP_METHODS` maps
#: each to its solver class); named here, below the integrators, so that the checks and the
#: ledger know them without importing the driver
FIXED_STEP_NAMES = ("RK4", "discrete_gradient")


def method_names():
    """``(variable-step names, fixed-step names)``: scipy's solve_ivp methods and the
    package's fixed-step methods (`FIXED_STEP_NAMES`), each sorted."""
    from scipy.integrate._ivp.ivp import METHODS

    return sorted(METHODS), sorted(FIXED_STEP_NAMES)


def check_method(method, label="method"):
    """Raise ParameterError unless `method` names a solve_ivp method or a fixed-step method
    (the message names `label`, the value, every allowed name and the nearest ones)."""
    variable, fixed = method_names()
    if isinstance(method, str) and method in variable + fixed:
        return method
    names = variable + fixed
    close = difflib.get_close_matches(str(method), names, n=2)   # "RK54": RK4 or RK45
    raise ParameterError(f"`{label}` {method!r} is not a solve_ivp method; use one of {names}"
                         + (f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""))


def check_step(step, label="step"):
    """`step` as a float: the fixed step [s] of a fixed-step method, a finite number > 0."""
    if not (is_real_scalar(step) and math.isfinite(float(step)) and float(step) > 0):
        raise ParameterError(f"`{label}` must be a finite number of seconds > 0 (the fixed step of "
                             f"{' and '.join(method_names()[1])}), got {step!r}")
    return float(step)


def check_run_solver(solver, given=(), labels=API_LABELS):
    """The solver settings of a run, the model's merged with the run's own, checked.

    A method chosen for the run brings its own stepping: a fixed-step method drops the
    model's `max_step` and `first_step` (it steps by `step`), any other method drops the
    model's `step`; settings given for the run itself are kept, so a contradiction the user
    wrote is reported rather than resolved.

    Parameters
    ----------
    solver : dict
        The model's settings updated by the run's (keyword arguments of `simulate`).
    given : collection of str
        The keys the run itself set (the rest are the model's).
    labels : dict
        Names of the settings in messages (`API_LABELS` or `CLI_LABELS`).

    Returns
    -------
    dict
        The settings to pass to `simulate`.

    Raises
    ------
    ParameterError
        An unknown method; a fixed-step method without a step; a step for a method that
        chooses its own steps.
    """
    solver = dict(solver)
    method = check_method(solver.get("method", "RK45"), labels["method"])
    fixed = method in method_names()[1]
    if "method" in given:
        for key in (("max_step", "first_step") if fixed else ("step",)):
            if key not in given:
                solver.pop(key, None)
    whose = "" if "method" in given else " (the model's)"
    if fixed and solver.get("step") is None:
        raise ParameterError(f"`{labels['method']}` {method}{whose} steps by a fixed step: give `{labels['step']}`, "
                             "the step [s]")
    if not fixed and solver.get("step") is not None:
        raise ParameterError(f"`{labels['step']}` is for the fixed-step methods {method_names()[1]}; this run's method "
                             f"{method!r}{whose} chooses its own steps: give `{labels['method']}` RK4 or "
                             "discrete_gradient with it")
    if fixed:
        solver["step"] = check_step(solver["step"], labels["step"])
    return solver


def check_parameter_values(model, name, values, labels=API_LABELS):
    """The values of a registered model's parameter, converted from command-line text and
    checked by the registry's rules (`models.registry.Parameter.check`), as `build_model`
    does; the message is prefixed with the option (``-p restitution``, ``--contact``).

    Parameters
    ----------
    model : str
        A registered model's name (names that are not, model files and build functions,
        are left to the build).
    name : str
        The parameter.
    values : list
        Its values (numbers, or strings as typed).

    Returns
    -------
    list
        The values converted to the parameter's type.

    Raises
    ------
    ParameterError
        A value that does not convert or breaks the parameter's rule or choices.
    """
    from porthamiltonian import models
    from porthamiltonian.models.registry import _coerce

    spec = models.MODELS.get(model)
    if spec is None or name not in spec.parameters:
        return list(values)
    label = labels["contact"] if name == "contact" else labels["param"].format(name=name)
    out = []
    for value in values:
        try:
            v = _coerce(spec, name, value)
            spec.parameters[name].check(model, name, v)
        except ParameterError as exc:
            raise ParameterError(f"`{label}` {value!r}: {exc}") from None
        out.append(v)
    return out

