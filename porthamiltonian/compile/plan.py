"""The evaluation plan: an ordered list of steps computing every bond variable.

Built once by `compile` from the causality report; turned into Python source by
`codegen`. Vocabulary:

- bond variables ``("e", i)`` / ``("f", i)``; ``("e*", i)`` / ``("f*", i)`` for the value a
  dependent storage imposes on a cut bond;
- unknowns u: the multipliers of cut bonds and constraint elements, and the torn variables
  of algebraic loops. Variables that depend on u are evaluated "batched": a value and a
  sensitivity matrix d(value)/du, so that the equations for u (constraint accelerations
  with Baumgarte terms, loop residuals) are assembled as ``A du = -r`` without extra passes;
- tangents: time derivatives of the variables a constraint reads (its flows), needed for
  the acceleration-level constraint. They are batched too, since they depend on the state
  rates, which depend on u.

Sign conventions: bond variables (E_i, F_i) are those of the half-arrow. An element sees
its port flow as sigma * F_i with sigma = +1 when the bond agrees with the port's
orientation, -1 otherwise. A junction at the head of a bond counts it +1, at the tail -1.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import networkx as nx
import numpy as np

from ..bondgraph.causality import CausalityReport, equation_graph
from ..bondgraph.ports import EFFORT_OUT, FLOW_OUT
from ..errors import CausalityError, ModelError
from .layout import BlockInfo, LedgerEntry, StateLayout

__all__ = ["Plan", "build_plan", "active_rows"]


def _pyname(key):
    kind, i = key[0], key[1]
    if kind == "lam":
        return None
    return {"e": "e", "f": "f", "e*": "es", "f*": "fs"}[kind] + str(i)


@dataclass
class Var:
    key: tuple
    dim: int
    name: str
    udep: bool = False
    unknown: slice | None = None  # set for unknown roots (multipliers, tears)
    tear: bool = False


@dataclass
class Step:
    """One producer: `element` computes `outputs` from `inputs`."""

    kind: str
    element: str
    outputs: list  # list of (Var, sign) — sign applies to the element-convention value
    inputs: list  # list of (Var, sign)
    data: dict = field(default_factory=dict)
    udep: bool = False
    targets: dict = field(default_factory=dict)  # var name -> python name written (tear candidates)


@dataclass
class Plan:
    """Everything the code generator and the system need (see module docstring)."""

    report: CausalityReport
    layout: StateLayout
    vars: dict
    pre_steps: list
    u_steps: list
    tangent_steps: list
    storages: list  # dicts: path, slice, refs, ports [(var_in, sign, var_out, sign, ptype) or None]
    constraints: list  # dicts: path, rows slice, slice, refs, ports [(flow var, sigma, effort var)], alpha, beta
    cuts: list  # dicts: cut, rows slice, tail var, head var, mult var, alpha
    tears: list  # Var
    sources: list  # dicts: path, var, sigma, input slice
    resistors: list  # dicts: path, ports [(E var, F var, omega)]
    n_u: int
    n_rows: int
    n_inputs: int
    input_slices: dict
    linear: bool
    refs: dict  # element path -> tuple of slices (referenced blocks)
    ref_owners: dict  # element path -> tuple of (owner path, block slice within owner's own state)
    baumgarte: tuple


def active_rows(c, x):
    """The mask (1.0 active, 0.0 not) of the rows of the plan's constraint entry `c` at state x
    (`ConstraintElement.active`)."""
    return np.asarray(c["obj"].active(x[c["slice"]]), dtype=float)


def _overrides(obj, method):
    """True if the element's class overrides a ConstraintElement default method."""
    from ..bondgraph.element import ConstraintElement

    return getattr(type(obj), method) is not getattr(ConstraintElement, method)


def _sigma(flat, node, port, bond_index):
    """Element-convention sign of the bond flow at (node, port)."""
    b = flat.bonds[bond_index]
    at_head = b.head == (node, port)
    orient = flat.port_of[(node, port)].orientation
    return 1.0 if (orient == "in") == at_head else -1.0


def _omega(flat, node, port, bond_index):
    """+1 if the element is at the head of the bond (power in when E.F > 0), else -1."""
    return 1.0 if flat.bonds[bond_index].head == (node, port) else -1.0


def _reachable(graph, sources, reverse=False):
    """Nodes reachable from any of `sources` (included), following edges backwards if
    `reverse`: one traversal for all sources, where `nx.descendants` per source would make
    the plan quadratic in graph size."""
    step = graph.predecessors if reverse else graph.successors
    seen = set(sources)
    work = list(seen)
    while work:
        for nxt in step(work.pop()):
            if nxt not in seen:
                seen.add(nxt)
                work.append(nxt)
    return seen


def build_plan(report: CausalityReport, *, baumgarte=(1.0, 1.0)) -> Plan:
    """Build the evaluation plan. Raises CausalityError/ModelError for unsupported structures.

    Phases, each a function of this module: the state layout and ledger (`_state_layout`),
    the slices each element references (`_references`), the bond variables (`_variables`),
    the unknowns (`_unknowns`: multipliers and loop tears), the causal graph with the tears
    cut and what depends on the unknowns (`_torn_graph`), one producer step per element
    output (`_StepBuilder`), the steps in causal order (`_ordered_steps`), the constraint
    rows (`_constraint_rows`), the steps a constraint's tangents need (`_tangent_steps`) and
    whether the unknowns enter linearly (`_unknowns_linear`).
    """
    flat = report.flat
    els = flat.elements
    layout, first_cut_entry = _state_layout(report)
    refs, ref_owners = _references(flat, layout)
    g = report.equations if report.equations is not None else equation_graph(report)
    vars_ = _variables(g, flat)
    n_u, tears = _unknowns(report, vars_)
    dag = _torn_graph(g, vars_, tears)
    steps = _StepBuilder(report, layout, vars_, baumgarte)
    for path, obj in els.items():
        steps.add(path, obj)
    pre_steps, u_steps = _ordered_steps(dag, steps.var_step, tears)
    n_rows, cut_infos = _constraint_rows(report, steps, tears, baumgarte, first_cut_entry)
    tangent_steps = _tangent_steps(report, dag, vars_, steps.constraints, cut_infos, pre_steps)
    return Plan(
        report=report, layout=layout, vars=vars_, pre_steps=pre_steps, u_steps=u_steps,
        tangent_steps=tangent_steps, storages=steps.storages, constraints=steps.constraints, cuts=cut_infos,
        tears=tears, sources=steps.sources, resistors=steps.resistors, n_u=n_u, n_rows=n_rows,
        n_inputs=steps.n_inputs, input_slices=steps.input_slices, linear=_unknowns_linear(report, u_steps),
        refs=refs, ref_owners=ref_owners, baumgarte=tuple(baumgarte),
    )


def _state_layout(report):
    """``(layout, first cut entry)``: the elements' state blocks in element order, then the
    ledger quadratures (dissipated, supplied, stabilization per element, lost per element
    with events, stabilization per cut bond, the projections'); the index of the first cut
    bond's entry."""
    els = report.flat.elements
    blocks = []
    pos = 0
    for path, obj in els.items():
        own = obj.state_blocks()
        if own and obj.category not in ("storage", "constraint"):
            raise ModelError(f"{obj.label}: only storages and constraints may own state blocks")
        for b in own:
            blocks.append(BlockInfo(path, b.name, pos, pos + b.size, b.kind, b.group))
            pos += b.size
    ledger = []
    for path, obj in els.items():
        if obj.category == "resistor":
            ledger.append(LedgerEntry(path, "dissipated", len(ledger)))
        elif obj.category == "source":
            ledger.append(LedgerEntry(path, "supplied", len(ledger)))
        elif obj.category == "constraint":
            ledger.append(LedgerEntry(path, "supplied", len(ledger)))
            ledger.append(LedgerEntry(path, "stabilization", len(ledger)))
            if _overrides(obj, "effort_map"):
                ledger.append(LedgerEntry(path, "dissipated", len(ledger)))
    for path, obj in els.items():
        if obj.events():
            ledger.append(LedgerEntry(path, "lost", len(ledger)))
    first_cut_entry = len(ledger)
    for c in report.cuts:
        ledger.append(LedgerEntry(c.node, "stabilization", len(ledger)))
    if report.cuts or any(o.category == "constraint" for o in els.values()):
        # energy changed by projections onto the constraint manifold (simulate(projection=...))
        ledger.append(LedgerEntry("projection", "stabilization", len(ledger)))
    return StateLayout(blocks, ledger), first_cut_entry


def _references(flat, layout):
    """``(refs, ref_owners)``: per element path, the slices of x of the blocks it references,
    and their ``(owner path, slice within the owner's own state)``."""
    refs, ref_owners = {}, {}
    for path, obj in flat.elements.items():
        rs, owners = [], []
        for r in obj.state_refs():
            element, block = r.element, r.block
            if hasattr(element, "stands_for_block"):   # a view of another element's blocks (a robot's link)
                element, block = element.stands_for_block(block)
            owner = flat.path(element)
            sl = layout[f"{owner}.{block}"]
            osl = layout.element_slice(owner)
            rs.append(sl)
            owners.append((owner, slice(sl.start - osl.start, sl.stop - osl.start)))
        refs[path] = tuple(rs)
        ref_owners[path] = tuple(owners)
    return refs, ref_owners


def _variables(g, flat):
    """One `Var` per node of the equation graph `g` (bond variables, imposed values of cut
    bonds, constraint multipliers), keyed as the graph's nodes."""
    els = flat.elements
    position = {path: i for i, path in enumerate(els)}
    vars_: dict = {}
    for key in g.nodes:
        if key in (("x",), ("t",)):
            continue
        if key[0] == "lam":
            dim = els[key[1]].n_constraints
            name = "lam_" + str(position[key[1]])
        else:
            dim = flat.bonds[key[1]].dim
            name = _pyname(key)
        vars_[key] = Var(key, dim, name)
    return vars_


def _unknowns(report, vars_):
    """``(n_u, tears)``: places the unknowns in u (cut multipliers, constraint multipliers,
    loop tears, in this order; their `Var.unknown` set) and lists the torn variables."""
    n_u = 0
    for c in report.cuts:
        mkey = ("e", c.bond) if c.kind == "flow" else ("f", c.bond)
        v = vars_[mkey]
        v.unknown = slice(n_u, n_u + v.dim)
        n_u += v.dim
    for path, obj in report.flat.elements.items():
        if obj.category == "constraint":
            v = vars_[("lam", path)]
            v.unknown = slice(n_u, n_u + v.dim)
            n_u += v.dim
    tears = []
    for lp in report.loops:
        for key in lp.tears:
            v = vars_[key]
            v.unknown = slice(n_u, n_u + v.dim)
            v.tear = True
            n_u += v.dim
            tears.append(v)
    return n_u, tears


def _torn_graph(g, vars_, tears):
    """The causal DAG: the equation graph `g` with each torn variable's in-edges moved to a
    candidate node ``("cand", key)`` (its producer writes a candidate). Marks every variable
    reachable from an unknown `udep`."""
    dag = g.copy() if tears else g  # (g is the report's: not modified)
    for v in tears:
        dag.remove_edges_from(list(g.in_edges(v.key)))
        dag.add_node(("cand", v.key))
        dag.add_edges_from((u, ("cand", v.key)) for u, _ in g.in_edges(v.key))
    if not nx.is_directed_acyclic_graph(dag):
        raise CausalityError("internal: the causal graph still has a cycle after tearing")
    roots_u = {k for k, v in vars_.items() if v.unknown is not None}
    udep = _reachable(dag, roots_u)
    for k in udep:
        if k in vars_:
            vars_[k].udep = True
        elif k[0] == "cand":
            vars_[k[1]].udep = True
    return dag


class _StepBuilder:
    """The producer steps of the elements, one method per element category (`add`
    dispatches), with what the plan records per category (`storages`, `constraints`,
    `sources`, `resistors`, the inputs' slices) and the step producing each variable
    (`var_step`)."""

    def __init__(self, report, layout, vars_, baumgarte):
        self.report, self.flat, self.layout, self.vars, self.baumgarte = report, report.flat, layout, vars_, baumgarte
        self.var_step: dict = {}
        self.cut_at = {(c.node, c.port): c for c in report.cuts}
        self.storages, self.constraints, self.sources, self.resistors = [], [], [], []
        self.input_slices = {}
        self.n_inputs = 0

    def step(self, kind, node, outputs, inputs, **data):
        s = Step(kind, node, outputs, inputs, data)
        for v, _ in outputs:
            self.var_step[v.key] = s
        return s

    def bvar(self, kind, node, port):
        """The variable of the bond at ``(node, port)`` (the imposed one on a cut bond's side)."""
        i = self.flat.bond_at[(node, port)]
        c = self.cut_at.get((node, port))
        if c is not None and kind == ("f" if c.kind == "flow" else "e"):
            return self.vars[(kind + "*", i)]
        return self.vars[(kind, i)]

    def add(self, path, obj):
        """The steps of element `obj` at `path`, by its category."""
        conn = [(p.name, self.flat.bond_at.get((path, p.name))) for p in obj.ports()]
        handler = {"source": self._source, "storage": self._storage, "resistor": self._resistor,
                   "twoport": self._twoport, "junction": self._junction, "constraint": self._constraint}.get(obj.category)
        if handler is not None:
            handler(path, obj, conn)

    def _source(self, path, obj, conn):
        flat, bvar = self.flat, self.bvar
        (p, i), = conn
        sig = _sigma(flat, path, p, i)
        out = bvar("e" if obj.role == EFFORT_OUT else "f", path, p)
        sl = None
        if getattr(obj, "input_dim", 0):
            sl = slice(self.n_inputs, self.n_inputs + obj.input_dim)
            self.input_slices[path] = sl
            self.n_inputs += obj.input_dim
        sgn = 1.0 if obj.role == EFFORT_OUT else sig
        self.step("source", path, [(out, sgn)], [], input=sl)
        self.sources.append(dict(path=path, e=bvar("e", path, p), f=bvar("f", path, p), omega=_omega(flat, path, p, i)))

    def _storage(self, path, obj, conn):
        flat, bvar = self.flat, self.bvar
        ptypes = obj.port_types()
        outs, pinfo = [], []
        for (p, i), pt in zip(conn, ptypes):
            if i is None:
                pinfo.append(None)
                continue
            sig = _sigma(flat, path, p, i)
            if pt == "C":
                vo, so, vi, si = bvar("e", path, p), 1.0, bvar("f", path, p), sig
            else:
                vo, so, vi, si = bvar("f", path, p), sig, bvar("e", path, p), 1.0
            outs.append((vo, so))
            pinfo.append((vi, si, vo, so, pt))
        dims = [flat.port_of[(path, p)].dim for p, _ in conn]
        st = self.step("storage_out", path, outs, [], port_index=[k for k, pi in enumerate(pinfo) if pi is not None])
        self.storages.append(dict(path=path, slice=self.layout.element_slice(path), ports=pinfo, dims=dims, step=st,
                                  obj=obj))

    def _resistor(self, path, obj, conn):
        flat, bvar, patterns = self.flat, self.bvar, self.report.patterns
        pat = obj.causalities()[patterns[path]]
        ins, outs, pinfo = [], [], []
        for (p, i), r in zip(conn, pat):
            sig = _sigma(flat, path, p, i)
            if r == EFFORT_OUT:
                ins.append((bvar("f", path, p), sig))
                outs.append((bvar("e", path, p), 1.0))
            else:
                ins.append((bvar("e", path, p), 1.0))
                outs.append((bvar("f", path, p), sig))
            pinfo.append((bvar("e", path, p), bvar("f", path, p), _omega(flat, path, p, i)))
        self.step("resistor", path, outs, ins, pattern=patterns[path], dims=[flat.port_of[(path, p)].dim for p, _ in conn])
        self.resistors.append(dict(path=path, ports=pinfo))

    def _twoport(self, path, obj, conn):
        flat, bvar, step = self.flat, self.bvar, self.step
        (p1, i1), (p2, i2) = conn
        s1, s2 = _sigma(flat, path, p1, i1), _sigma(flat, path, p2, i2)
        pat = self.report.patterns[path]
        if obj.kind == "TF":
            if pat == 0:
                step("tf", path, [(bvar("f", path, p2), 1.0)], [(bvar("f", path, p1), 1.0)], mode="m", sign=s1 * s2)
                step("tf", path, [(bvar("e", path, p1), 1.0)], [(bvar("e", path, p2), 1.0)], mode="mT", sign=1.0)
            else:
                step("tf", path, [(bvar("f", path, p1), 1.0)], [(bvar("f", path, p2), 1.0)], mode="minv", sign=s1 * s2)
                step("tf", path, [(bvar("e", path, p2), 1.0)], [(bvar("e", path, p1), 1.0)], mode="minvT", sign=1.0)
        else:
            if pat == 0:
                step("tf", path, [(bvar("e", path, p2), 1.0)], [(bvar("f", path, p1), 1.0)], mode="m", sign=s1)
                step("tf", path, [(bvar("e", path, p1), 1.0)], [(bvar("f", path, p2), 1.0)], mode="mT", sign=s2)
            else:
                step("tf", path, [(bvar("f", path, p1), 1.0)], [(bvar("e", path, p2), 1.0)], mode="minv", sign=s1)
                step("tf", path, [(bvar("f", path, p2), 1.0)], [(bvar("e", path, p1), 1.0)], mode="minvT", sign=s2)

    def _junction(self, path, obj, conn):
        flat, bvar = self.flat, self.bvar
        roles = [self.report.roles.get((path, p)) for p, _ in conn]
        special = FLOW_OUT if obj.kind == "0" else EFFORT_OUT
        common, summed = ("e", "f") if obj.kind == "0" else ("f", "e")
        live = [(p, i, r) for (p, i), r in zip(conn, roles) if i is not None]
        ks = [x for x in live if x[2] == special]
        if not ks:
            return
        pk, ik, _ = ks[0]
        sk = _omega(flat, path, pk, ik)
        others = [(p, i) for p, i, _ in live if p != pk]
        for p, i in others:
            self.step("copy", path, [(bvar(common, path, p), 1.0)], [(bvar(common, path, pk), 1.0)])
        self.step(
            "sum",
            path,
            [(bvar(summed, path, pk), 1.0)],
            [(bvar(summed, path, p), -sk * _omega(flat, path, p, i)) for p, i in others],
        )

    def _constraint(self, path, obj, conn):
        flat, bvar = self.flat, self.bvar
        lam = self.vars[("lam", path)]
        pinfo = []
        col = 0
        for p, i in conn:
            dim = flat.port_of[(path, p)].dim
            sig = _sigma(flat, path, p, i)
            ev = bvar("e", path, p)
            self.step("cforce", path, [(ev, 1.0)], [(lam, 1.0)], cols=slice(col, col + dim))
            pinfo.append((bvar("f", path, p), sig, ev, _omega(flat, path, p, i)))
            col += dim
        stab = obj.stabilization if obj.stabilization is not None else self.baumgarte
        self.constraints.append(
            dict(path=path, slice=self.layout.element_slice(path), ports=pinfo, lam=lam, alpha=stab[0], beta=stab[1],
                 obj=obj)
        )


def _ordered_steps(dag, var_step, tears):
    """``(pre_steps, u_steps)``: the steps in the topological order of their outputs, split
    into those independent of the unknowns and those depending on them (batched); each
    step's `udep` and `targets` set (a torn variable's producer writes its candidate)."""
    tear_keys = {v.key for v in tears}
    order = []
    for k in nx.topological_sort(dag):
        if k[0] == "cand":
            order.append(k[1])  # a torn variable's producer runs where its candidate sits
        elif k in var_step and k not in tear_keys:
            order.append(k)
    seen, ordered = set(), []
    for k in order:
        s = var_step[k]
        if id(s) not in seen:
            seen.add(id(s))
            ordered.append(s)
    for s in ordered:
        s.udep = any(v.udep for v, _ in s.outputs)
        for v, _ in s.outputs:
            s.targets[v.name] = v.name + "_c" if v.tear else v.name
    return [s for s in ordered if not s.udep], [s for s in ordered if s.udep]


def _constraint_rows(report, steps, tears, baumgarte, first_cut_entry):
    """``(n_rows, cut infos)``: the rows of the unknowns' equations, constraint elements first
    (their ``rows`` set), then cut bonds (one info dict each), then loop tears. A constrained
    flow that depends on the unknowns is a CausalityError."""
    flat, els = report.flat, report.flat.elements
    n_rows = 0
    for c in steps.constraints:
        c["rows"] = slice(n_rows, n_rows + c["lam"].dim)
        n_rows += c["lam"].dim
        for fv, _, _, _ in c["ports"]:
            if fv.udep:
                raise CausalityError(
                    f"{els[c['path']].label}: the flow it constrains depends on other multipliers or on an "
                    "algebraic loop; this coupling is not supported (constrain flows set by storages)"
                )
    cut_infos = []
    for j, c in enumerate(report.cuts):
        b = flat.bonds[c.bond]
        kind = "f" if c.kind == "flow" else "e"
        tail = steps.bvar(kind, *b.tail)
        head = steps.bvar(kind, *b.head)
        mult = steps.vars[("e", c.bond) if c.kind == "flow" else ("f", c.bond)]
        for v in (tail, head):
            if v.udep:
                raise CausalityError(
                    f"{c.text}; but the imposed {c.kind}s depend on multipliers or an algebraic loop: unsupported"
                )
        cut_infos.append(
            dict(cut=c, rows=slice(n_rows, n_rows + b.dim), tail=tail, head=head, mult=mult,
                 alpha=baumgarte[0], ledger=first_cut_entry + j)
        )
        n_rows += b.dim
    for v in tears:
        n_rows += v.dim
    return n_rows, cut_infos


def _tangent_steps(report, dag, vars_, constraints, cut_infos, pre_steps):
    """The steps (independent of the unknowns) whose outputs the constrained flows depend on:
    their time derivatives are needed at acceleration level. A constraint whose flows depend
    on no state is a CausalityError (ill-posed)."""
    flat = report.flat
    need = set()
    for c in constraints:
        need |= {fv.key for fv, _, _, _ in c["ports"]}
    for ci in cut_infos:
        need |= {ci["tail"].key, ci["head"].key}
    anc = _reachable(dag, need, reverse=True)
    tangent_steps = [s for s in pre_steps if any(v.key in anc for v, _ in s.outputs)]
    from_state = _reachable(dag, [("x",)])
    for key in need:
        if key not in from_state and key in vars_:
            what = [c["path"] for c in constraints if key in {fv.key for fv, _, _, _ in c["ports"]}]
            raise CausalityError(
                f"constraint {what[0] if what else 'on bond ' + flat.bonds[key[1]].name} is driven by sources only "
                "(its flows do not depend on any state): the model is ill-posed"
            )
    return tangent_steps


def _unknowns_linear(report, u_steps):
    """Whether the unknowns' equations are linear: no nonlinear algebraic loop, and no
    nonlinear resistor fed by a variable that depends on the unknowns."""
    els = report.flat.elements
    nonlinear_loop = any(not lp.linear for lp in report.loops)
    nonlinear_u = nonlinear_loop or any(
        s.kind == "resistor" and not getattr(els[s.element], "linear", False) and any(v.udep for v, _ in s.inputs)
        for s in u_steps
    )
    return not nonlinear_u
