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

from ..bondgraph.causality import CausalityReport, equation_graph
from ..bondgraph.ports import EFFORT_OUT, FLOW_OUT
from ..errors import CausalityError, ModelError
from .layout import BlockInfo, LedgerEntry, StateLayout

__all__ = ["Plan", "build_plan"]


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
    """Build the evaluation plan. Raises CausalityError/ModelError for unsupported structures."""
    flat = report.flat
    els = flat.elements

    # ---- layout
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
    layout = StateLayout(blocks, ledger)

    # references: slices into x
    refs, ref_owners = {}, {}
    for path, obj in els.items():
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

    # ---- variables
    g = report.equations if report.equations is not None else equation_graph(report)
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

    # unknowns: cut multipliers, constraint multipliers, tears
    n_u = 0
    for c in report.cuts:
        mkey = ("e", c.bond) if c.kind == "flow" else ("f", c.bond)
        v = vars_[mkey]
        v.unknown = slice(n_u, n_u + v.dim)
        n_u += v.dim
    for path, obj in els.items():
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

    # DAG: tear variables lose their in-edges; their producers write a candidate
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

    # ---- steps
    var_step: dict = {}

    def step(kind, node, outputs, inputs, **data):
        s = Step(kind, node, outputs, inputs, data)
        for v, _ in outputs:
            var_step[v.key] = s
        return s

    cut_at = {(c.node, c.port): c for c in report.cuts}

    def bvar(kind, node, port):
        i = flat.bond_at[(node, port)]
        c = cut_at.get((node, port))
        if c is not None and kind == ("f" if c.kind == "flow" else "e"):
            return vars_[(kind + "*", i)]
        return vars_[(kind, i)]

    storages, constraints, sources, resistors = [], [], [], []
    input_slices = {}
    n_inputs = 0
    for path, obj in els.items():
        cat = obj.category
        ports = [p.name for p in obj.ports()]
        conn = [(p, flat.bond_at.get((path, p))) for p in ports]
        roles = [report.roles.get((path, p)) for p in ports]
        if cat == "source":
            (p, i), = conn
            sig = _sigma(flat, path, p, i)
            out = bvar("e" if obj.role == EFFORT_OUT else "f", path, p)
            sl = None
            if getattr(obj, "input_dim", 0):
                sl = slice(n_inputs, n_inputs + obj.input_dim)
                input_slices[path] = sl
                n_inputs += obj.input_dim
            sgn = 1.0 if obj.role == EFFORT_OUT else sig
            step("source", path, [(out, sgn)], [], input=sl)
            sources.append(dict(path=path, e=bvar("e", path, p), f=bvar("f", path, p), omega=_omega(flat, path, p, i)))
        elif cat == "storage":
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
            dims = [flat.port_of[(path, p)].dim for p in ports]
            st = step("storage_out", path, outs, [], port_index=[k for k, pi in enumerate(pinfo) if pi is not None])
            storages.append(dict(path=path, slice=layout.element_slice(path), ports=pinfo, dims=dims, step=st, obj=obj))
        elif cat == "resistor":
            pat = obj.causalities()[report.patterns[path]]
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
            step("resistor", path, outs, ins, pattern=report.patterns[path], dims=[flat.port_of[(path, p)].dim for p in ports])
            resistors.append(dict(path=path, ports=pinfo))
        elif cat == "twoport":
            (p1, i1), (p2, i2) = conn
            s1, s2 = _sigma(flat, path, p1, i1), _sigma(flat, path, p2, i2)
            pat = report.patterns[path]
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
        elif cat == "junction":
            special = FLOW_OUT if obj.kind == "0" else EFFORT_OUT
            common, summed = ("e", "f") if obj.kind == "0" else ("f", "e")
            live = [(p, i, r) for (p, i), r in zip(conn, roles) if i is not None]
            ks = [x for x in live if x[2] == special]
            if not ks:
                continue
            pk, ik, _ = ks[0]
            sk = _omega(flat, path, pk, ik)
            others = [(p, i) for p, i, _ in live if p != pk]
            for p, i in others:
                step("copy", path, [(bvar(common, path, p), 1.0)], [(bvar(common, path, pk), 1.0)])
            step(
                "sum",
                path,
                [(bvar(summed, path, pk), 1.0)],
                [(bvar(summed, path, p), -sk * _omega(flat, path, p, i)) for p, i in others],
            )
        elif cat == "constraint":
            lam = vars_[("lam", path)]
            pinfo = []
            col = 0
            for p, i in conn:
                dim = flat.port_of[(path, p)].dim
                sig = _sigma(flat, path, p, i)
                ev = bvar("e", path, p)
                step("cforce", path, [(ev, 1.0)], [(lam, 1.0)], cols=slice(col, col + dim))
                pinfo.append((bvar("f", path, p), sig, ev, _omega(flat, path, p, i)))
                col += dim
            stab = obj.stabilization if obj.stabilization is not None else baumgarte
            constraints.append(
                dict(path=path, slice=layout.element_slice(path), ports=pinfo, lam=lam, alpha=stab[0], beta=stab[1], obj=obj)
            )

    # order steps: topological order of their outputs in the DAG
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
    pre_steps = [s for s in ordered if not s.udep]
    u_steps = [s for s in ordered if s.udep]

    # ---- constraint rows
    n_rows = 0
    for c in constraints:
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
        tail = bvar(kind, *b.tail)
        head = bvar(kind, *b.head)
        mult = vars_[("e", c.bond) if c.kind == "flow" else ("f", c.bond)]
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

    # which variables constraints read: their tangents are needed
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
    nonlinear_loop = any(not lp.linear for lp in report.loops)
    nonlinear_u = nonlinear_loop or any(
        s.kind == "resistor" and not getattr(els[s.element], "linear", False) and any(v.udep for v, _ in s.inputs)
        for s in u_steps
    )
    return Plan(
        report=report, layout=layout, vars=vars_, pre_steps=pre_steps, u_steps=u_steps,
        tangent_steps=tangent_steps, storages=storages, constraints=constraints, cuts=cut_infos,
        tears=tears, sources=sources, resistors=resistors, n_u=n_u, n_rows=n_rows, n_inputs=n_inputs,
        input_slices=input_slices, linear=not nonlinear_u, refs=refs, ref_owners=ref_owners,
        baumgarte=tuple(baumgarte),
    )
