"""Symbolic state equations of scalar bond graphs (sympy), from the same evaluation plan.

Every element parameter becomes a symbol named after its element (``I("m", mass=2)`` gives
``f = p_m / m``; ``C("k", stiffness=3)`` gives ``e = k q_k``; a compliance ``C("c", compliance=..)``
gives ``e = q_c / c``), or stays a number with ``parameters="values"``. Multipliers of
dependent storages are eliminated exactly (the constraint differentiated once, without
stabilization) and algebraic loops are solved symbolically.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from ..bondgraph.elements import GY, MGY, MTF, TF, C, I
from ..bondgraph.functions import T_SYMBOL
from ..errors import ModelError

__all__ = ["SymbolicEquations", "symbolic_equations"]


@dataclass(frozen=True)
class SymbolicEquations:
    """dx/dt = rates(x, t) with `states` symbols; `parameters` maps parameter symbols to values."""

    states: list
    rates: sp.Matrix
    parameters: dict
    hamiltonian: sp.Expr

    def as_dict(self):
        """Mapping state symbol -> its rate expression."""
        return dict(zip(self.states, list(self.rates)))

    def __str__(self):
        lines = [f"d{s}/dt = {sp.simplify(r)}" for s, r in zip(self.states, self.rates)]
        if self.parameters:
            lines.append("parameters: " + ", ".join(f"{k} = {v}" for k, v in self.parameters.items()))
        return "\n".join(lines)


def _sgn(s):
    return int(round(s))


def _num(v):
    v = float(v)
    return sp.Integer(int(v)) if v.is_integer() else sp.Float(v)


def symbolic_equations(system, parameters="symbols"):
    """Build the `SymbolicEquations` of a compiled scalar system (see module docstring), in
    named steps: the state symbols (`_state_symbols`), the storages' outputs and the
    Hamiltonian (`_storage_outputs`), the plan's steps as expressions (`_step_expressions`),
    the storages' rates, and the multipliers and loop variables solved (`_solve_unknowns`).

    Raises
    ------
    ModelError
        If a bond is not scalar, or an element has no symbolic form (Python callables,
        library elements).
    """
    if parameters not in ("symbols", "values"):
        raise ModelError(f"`parameters` must be 'symbols' or 'values', got {parameters!r}")
    plan = system._plan
    for b in plan.report.flat.bonds:
        if b.dim != 1:
            raise ModelError(f"symbolic equations need scalar bonds; bond {b.name!r} has dimension {b.dim}")
    if plan.constraints:
        raise ModelError("symbolic equations do not support constraint elements (only cuts and loops)")
    params = {}

    def par(name, value):
        """A parameter: a positive symbol named after its element (kept in `params` with its
        value), or its value itself with ``parameters="values"``."""
        if parameters == "values":
            return _num(value)
        sym = sp.Symbol(name.replace("/", "_"), positive=True)
        params[sym] = float(value)
        return sym

    states, xsym = _state_symbols(plan)
    outputs, H = _storage_outputs(plan, xsym, par)
    vals, cand = _step_expressions(plan, outputs, par)
    rates = {}
    for st in plan.storages:
        (pi,) = [p for p in st["ports"] if p is not None]
        rates[st["path"]] = _sgn(pi[1]) * vals[pi[0].name]
    sol = _solve_unknowns(plan, states, xsym, rates, vals, cand)
    out = sp.Matrix([sp.simplify(sp.sympify(rates[st["path"]]).subs(sol)) for st in plan.storages])
    return SymbolicEquations(states, out, params, sp.simplify(H))


def _state_symbols(plan):
    """``(states, storage path -> symbol)``: a sympy energy's own symbol, else one named after
    the storage's state and path."""
    states, xsym = [], {}
    for st in plan.storages:
        obj = st["obj"]
        if not isinstance(obj, (C, I)):
            raise ModelError(f"{obj.label} has no symbolic form (only C, I, R, Se, Sf, TF, GY, MTF, MGY, junctions)")
        if obj.hamiltonian is not None and obj.hamiltonian.kind == "sympy":
            sym = obj.hamiltonian.symbols[0]
        else:
            sym = sp.Symbol(f"{obj._state}_{st['path'].replace('/', '_')}", real=True)
        states.append(sym)
        xsym[st["path"]] = sym
    return states, xsym


def _storage_outputs(plan, xsym, par):
    """``(storage path -> output expression, H)``: a linear storage's ``k q`` or ``q / c``
    (its energy ``y q / 2``), a sympy energy's gradient."""
    outputs, H = {}, sp.Integer(0)
    for st in plan.storages:
        obj = st["obj"]
        q = xsym[st["path"]]
        if obj.linear:
            K = obj.matrix[0, 0]
            y = par(st["path"], K) * q if obj.matrix_name == "stiffness" else q / par(st["path"], K)
            H += y * q / 2
        else:
            if obj.hamiltonian.kind != "sympy":
                raise ModelError(f"{obj.label}: a Python-callable energy has no symbolic form; use sympy")
            H += obj.hamiltonian.expr
            y = sp.diff(obj.hamiltonian.expr, q)
        outputs[st["path"]] = y
    return outputs, H


def _step_expressions(plan, outputs, par):
    """``(vals, cand)``: every bond variable's expression (the unknowns as symbols ``_u_<name>``)
    from the plan's steps in order, and the computed values of torn variables (`cand`, whose
    equality with their symbols closes an algebraic loop)."""
    els = plan.report.flat.elements
    vals = {v.name: sp.Symbol(f"_u_{v.name}") for v in plan.vars.values() if v.unknown is not None}
    cand = {}
    for s in plan.pre_steps + plan.u_steps:
        for name, val in _STEP.get(s.kind, _no_form)(s, els[s.element], vals, outputs, par).items():
            if s.targets.get(name, name) != name:
                cand[name] = val
            else:
                vals[name] = val
    return vals, cand


def _source(s, obj, vals, outputs, par):
    (v, sg), = s.outputs
    if obj.is_input:
        val = sp.Symbol(f"u_{s.element.replace('/', '_')}")
    elif obj.signal.kind == "constant":
        val = par(s.element, obj.signal._const[0])
    elif obj.signal.kind == "sympy":
        val = obj.signal.expr[0]
    else:
        raise ModelError(f"{obj.label}: a Python-callable signal has no symbolic form; use sympy in t")
    return {v.name: _sgn(sg) * val}


def _storage_out(s, obj, vals, outputs, par):
    (v, sg), = s.outputs
    return {v.name: _sgn(sg) * outputs[s.element]}


def _resistor(s, obj, vals, outputs, par):
    (w, si), = s.inputs
    (v, so), = s.outputs
    inp = _sgn(si) * vals[w.name]
    if obj.linear:
        r = par(s.element, obj.resistance[0, 0])
        val = r * inp if s.data["pattern"] == 0 else inp / r
    elif obj.law_expr is not None:
        val = obj.law_expr[0].subs(obj.law_vars[0], inp)
    else:
        raise ModelError(f"{obj.label}: a Python-callable law has no symbolic form; use sympy")
    return {v.name: _sgn(so) * val}


def _twoport(s, obj, vals, outputs, par):
    (v, _), = s.outputs
    (w, _), = s.inputs
    if isinstance(obj, (TF, GY)):
        m = par(s.element, obj.m[0, 0])
    elif isinstance(obj, (MTF, MGY)) and obj.expr is not None:
        m = obj.expr[0, 0]
    else:
        raise ModelError(f"{obj.label} has no symbolic modulus")
    mode, sg = s.data["mode"], s.data["sign"]
    return {v.name: _sgn(sg) * (m * vals[w.name] if mode in ("m", "mT") else vals[w.name] / m)}


def _copy(s, obj, vals, outputs, par):
    (v, _), = s.outputs
    (w, _), = s.inputs
    return {v.name: vals[w.name]}


def _sum(s, obj, vals, outputs, par):
    (v, _), = s.outputs
    return {v.name: sum((_sgn(c) * vals[w.name] for w, c in s.inputs), sp.Integer(0))}


def _no_form(s, obj, vals, outputs, par):
    raise ModelError(f"{obj.label} has no symbolic form")


#: a plan step's kind -> its expressions (`_step_expressions`); any other kind has no symbolic form
_STEP = {"source": _source, "storage_out": _storage_out, "resistor": _resistor, "tf": _twoport, "copy": _copy,
         "sum": _sum}


def _solve_unknowns(plan, states, xsym, rates, vals, cand):
    """The multipliers and loop variables solved: a torn variable equals its computed value,
    and a cut's constraint holds differentiated once along the rates (no stabilization)."""
    unknowns = [vals[v.name] for v in plan.vars.values() if v.unknown is not None]
    if not unknowns:
        return {}
    eqs = [sp.Eq(vals[v.name], cand[v.name]) for v in plan.tears]
    xdot = {xsym[p]: r for p, r in rates.items()}
    for ci in plan.cuts:
        c = vals[ci["tail"].name] - vals[ci["head"].name]
        cdot = sum((sp.diff(c, s) * xdot[s] for s in states), sp.Integer(0)) + sp.diff(c, T_SYMBOL)
        eqs.append(sp.Eq(cdot, 0))
    sols = sp.solve(eqs, unknowns, dict=True)
    if not sols:
        raise ModelError("symbolic equations: could not solve for the multipliers/loop variables")
    return sols[0]
