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
    """Build the `SymbolicEquations` of a compiled scalar system (see module docstring).

    Raises
    ------
    ModelError
        If a bond is not scalar, or an element has no symbolic form (Python callables,
        library elements).
    """
    if parameters not in ("symbols", "values"):
        raise ModelError(f"`parameters` must be 'symbols' or 'values', got {parameters!r}")
    plan = system._plan
    flat = plan.report.flat
    els = flat.elements
    for b in flat.bonds:
        if b.dim != 1:
            raise ModelError(f"symbolic equations need scalar bonds; bond {b.name!r} has dimension {b.dim}")
    params = {}

    def par(name, value):
        if parameters == "values":
            return _num(value)
        s = sp.Symbol(name.replace("/", "_"), positive=True)
        params[s] = float(value)
        return s

    # state symbols
    states, xsym = [], {}
    for st in plan.storages:
        obj = st["obj"]
        if not isinstance(obj, (C, I)):
            raise ModelError(f"{obj.label} has no symbolic form (only C, I, R, Se, Sf, TF, GY, MTF, MGY, junctions)")
        if obj.hamiltonian is not None and obj.hamiltonian.kind == "sympy":
            s = obj.hamiltonian.symbols[0]
        else:
            s = sp.Symbol(f"{obj._state}_{st['path'].replace('/', '_')}", real=True)
        states.append(s)
        xsym[st["path"]] = s

    vals = {}
    for v in plan.vars.values():
        if v.unknown is not None:
            vals[v.name] = sp.Symbol(f"_u_{v.name}")
    cand = {}
    H = sp.Integer(0)
    for st in plan.storages:
        obj = st["obj"]
        q = xsym[st["path"]]
        if obj.linear:
            K = obj.matrix[0, 0]
            if obj.matrix_name == "stiffness":
                k = par(st["path"], K)
                y = k * q
            else:
                c = par(st["path"], K)
                y = q / c
            H += y * q / 2
        else:
            if obj.hamiltonian.kind != "sympy":
                raise ModelError(f"{obj.label}: a Python-callable energy has no symbolic form; use sympy")
            H += obj.hamiltonian.expr
            y = sp.diff(obj.hamiltonian.expr, q)
        st["_sym_y"] = y
    storage_of = {st["path"]: st for st in plan.storages}
    for s in plan.pre_steps + plan.u_steps:
        el = s.element
        obj = els[el]
        out = {}
        if s.kind == "source":
            (v, sg), = s.outputs
            if obj.is_input:
                val = sp.Symbol(f"u_{el.replace('/', '_')}")
            elif obj.signal.kind == "constant":
                val = par(el, obj.signal._const[0])
            elif obj.signal.kind == "sympy":
                val = obj.signal.expr[0]
            else:
                raise ModelError(f"{obj.label}: a Python-callable signal has no symbolic form; use sympy in t")
            out[v.name] = _sgn(sg) * val
        elif s.kind == "storage_out":
            st = storage_of[el]
            (v, sg), = s.outputs
            out[v.name] = _sgn(sg) * st["_sym_y"]
        elif s.kind == "resistor":
            (w, si), = s.inputs
            (v, so), = s.outputs
            inp = _sgn(si) * vals[w.name]
            if obj.linear:
                r = par(el, obj.resistance[0, 0])
                val = r * inp if s.data["pattern"] == 0 else inp / r
            elif obj.law_expr is not None:
                val = obj.law_expr[0].subs(obj.law_vars[0], inp)
            else:
                raise ModelError(f"{obj.label}: a Python-callable law has no symbolic form; use sympy")
            out[v.name] = _sgn(so) * val
        elif s.kind == "tf":
            (v, _), = s.outputs
            (w, _), = s.inputs
            if isinstance(obj, (TF, GY)):
                m = par(el, obj.m[0, 0])
            elif isinstance(obj, (MTF, MGY)) and obj.expr is not None:
                m = obj.expr[0, 0]
            else:
                raise ModelError(f"{obj.label} has no symbolic modulus")
            mode, sg = s.data["mode"], s.data["sign"]
            out[v.name] = _sgn(sg) * (m * vals[w.name] if mode in ("m", "mT") else vals[w.name] / m)
        elif s.kind == "copy":
            (v, _), = s.outputs
            (w, _), = s.inputs
            out[v.name] = vals[w.name]
        elif s.kind == "sum":
            (v, _), = s.outputs
            out[v.name] = sum((_sgn(c) * vals[w.name] for w, c in s.inputs), sp.Integer(0))
        else:
            raise ModelError(f"{obj.label} has no symbolic form")
        for name, val in out.items():
            if s.targets.get(name, name) != name:
                cand[name] = val
            else:
                vals[name] = val
    rates = {}
    for st in plan.storages:
        (pi,) = [p for p in st["ports"] if p is not None]
        vi, si = pi[0], pi[1]
        rates[st["path"]] = _sgn(si) * vals[vi.name]
    unknowns = [vals[v.name] for v in plan.vars.values() if v.unknown is not None]
    eqs = []
    for v in plan.tears:
        eqs.append(sp.Eq(vals[v.name], cand[v.name]))
    xdot = {xsym[p]: r for p, r in rates.items()}
    for ci in plan.cuts:
        c = vals[ci["tail"].name] - vals[ci["head"].name]
        cdot = sum((sp.diff(c, s) * xdot[s] for s in states), sp.Integer(0)) + sp.diff(c, T_SYMBOL)
        eqs.append(sp.Eq(cdot, 0))
    if plan.constraints:
        raise ModelError("symbolic equations do not support constraint elements (only cuts and loops)")
    sol = {}
    if unknowns:
        sols = sp.solve(eqs, unknowns, dict=True)
        if not sols:
            raise ModelError("symbolic equations: could not solve for the multipliers/loop variables")
        sol = sols[0]
    out = sp.Matrix([sp.simplify(sp.sympify(rates[st["path"]]).subs(sol)) for st in plan.storages])
    return SymbolicEquations(states, out, params, sp.simplify(H))
