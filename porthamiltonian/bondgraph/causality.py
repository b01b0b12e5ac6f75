"""Sequential causality assignment (SCAP) with conflict resolution, and its readable report.

Order (Karnopp's SCAP): sources, then ideal constraints (fixed causality), then storages
(integral causality preferred), then resistors, then any bond still free. Each choice is
propagated through the junction structure (0: exactly one port receives the effort;
1: exactly one receives the flow; TF/GY and multiport resistors by their patterns).

Conflicts are resolved, not refused:

- a storage forced into derivative causality keeps integral causality and its bond is
  *cut*: both ends impose the same variable, the other variable becomes a Lagrange
  multiplier and the two imposed values are constrained to agree (enforced at
  acceleration level by the compiler);
- a resistor whose causality is left free is given its preferred causality; if that closes a
  loop of instantaneous dependencies (an algebraic loop), the compiler tears the loop and
  solves for the torn variables.

Only conflicts between sources (or ideal constraints) are refused: they are ill-posed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import networkx as nx

from ..errors import CausalityError
from .flatten import FlatGraph, flatten
from .ports import EFFORT_OUT, FLOW_OUT

__all__ = ["assign_causality", "CausalityReport", "Cut", "AlgebraicLoop", "equation_graph"]

_OPP = {EFFORT_OUT: FLOW_OUT, FLOW_OUT: EFFORT_OUT}


@dataclass(frozen=True)
class Cut:
    """A dependent storage port resolved by a Lagrange multiplier.

    Attributes
    ----------
    bond : int
        Index of the cut bond in the flat graph.
    node, port : str
        The dependent storage and its port.
    kind : {"flow", "effort"}
        The variable both ends impose (the multiplier is the other one).
    origin : str
        Path of the element whose causality imposed the conflicting variable.
    path : tuple of str
        Paths of the junctions/two-ports between the origin and the storage.
    text : str
        Explanation in words.
    """

    bond: int
    node: str
    port: str
    kind: str
    origin: str
    path: tuple
    text: str


@dataclass(frozen=True)
class AlgebraicLoop:
    """A loop of instantaneous dependencies, and the variables torn to solve it."""

    elements: tuple
    tears: tuple
    linear: bool
    text: str


@dataclass
class CausalityReport:
    """Result of `assign_causality`: roles per port, cuts, algebraic loops, and a text report.

    Attributes
    ----------
    flat : FlatGraph
        The flattened graph the roles refer to.
    roles : dict
        (element path, port) -> "effort_out" or "flow_out": what the element computes there.
    patterns : dict
        element path -> index of the chosen causal pattern (resistors and two-ports).
    cuts : list of Cut
    loops : list of AlgebraicLoop
    equations : networkx.DiGraph or None
        The `equation_graph` under these roles (kept: the compiler reads it again).
    """

    flat: FlatGraph
    roles: dict
    patterns: dict
    cuts: list = field(default_factory=list)
    loops: list = field(default_factory=list)
    decisions: list = field(default_factory=list)
    equations: object = field(default=None, repr=False, compare=False)

    def effort_end(self, i):
        """For bond i: "tail" or "head", the end whose role is to compute the effort.

        For a cut bond this is the SCAP (derivative-causality) assignment; the compiler still
        evaluates the dependent storage in integral causality (see `Cut`).
        """
        b = self.flat.bonds[i]
        return "tail" if self.roles.get(b.tail) == EFFORT_OUT else "head"

    @property
    def n_multipliers(self):
        """Number of scalar multipliers introduced by cuts."""
        return sum(self.flat.bonds[c.bond].dim for c in self.cuts)

    def summary(self):
        """One paragraph: counts of bonds, storages in integral causality, cuts and loops."""
        f = self.flat
        n_st = sum(len(e.ports()) for e in f.elements.values() if e.category == "storage")
        return (
            f"{len(f.bonds)} bonds, {len(f.elements)} elements; {n_st - len(self.cuts)} of {n_st} storage "
            f"ports in integral causality; {len(self.cuts)} dependent (resolved by multipliers); "
            f"{len(self.loops)} algebraic loop(s)."
        )

    def __str__(self):
        f = self.flat
        lines = [f"Causality of {f.name!r}: {self.summary()}"]
        lines.append("Bonds (--\\ half-arrow, | causal stroke at the end that receives the effort):")
        cut_bonds = {c.bond for c in self.cuts}
        for i, b in enumerate(f.bonds):
            t = f"{f.label(b.tail[0])}.{b.tail[1]}"
            h = f"{f.label(b.head[0])}.{b.head[1]}"
            note = "   (derivative causality: resolved by a multiplier)" if i in cut_bonds else ""
            if self.effort_end(i) == "tail":  # the head receives the effort: stroke at the head
                lines.append(f"  {b.name:>6}: {t} --\\| {h}{note}")
            else:
                lines.append(f"  {b.name:>6}: {t} |--\\ {h}{note}")
        if self.cuts:
            lines.append("Conflicts resolved by Lagrange multipliers:")
            lines += [f"  - {c.text}" for c in self.cuts]
        if self.loops:
            lines.append("Algebraic loops:")
            lines += [f"  - {lp.text}" for lp in self.loops]
        return "\n".join(lines)


class _Conflict(Exception):
    def __init__(self, node, port, role, why):
        super().__init__(why)
        self.node, self.port, self.role, self.why = node, port, role, why


def _patterns(obj):
    if obj.category == "twoport":
        base = ((EFFORT_OUT, FLOW_OUT),) if obj.kind == "TF" else ((EFFORT_OUT, EFFORT_OUT),)
        if obj.invertible():
            base = base + (((FLOW_OUT, EFFORT_OUT),) if obj.kind == "TF" else ((FLOW_OUT, FLOW_OUT),))
        return base
    if obj.category == "resistor":
        return tuple(obj.causalities())
    return None


def _integral_role(ptype):
    return EFFORT_OUT if ptype == "C" else FLOW_OUT


class _Scap:
    # Junctions keep counts of their assigned ports and of those with the special role, so
    # that their rule costs O(1) while ports are being assigned: a junction with many bonds
    # (a ground shared by every body) must not make the assignment quadratic.
    def __init__(self, flat: FlatGraph):
        self.f = flat
        self.roles: dict = {}
        self.cause: dict = {}
        self.trail: list = []
        self.ports_of = {n: [p.name for p in e.ports()] for n, e in flat.elements.items()}
        self.special = {
            n: (FLOW_OUT if e.kind == "0" else EFFORT_OUT) for n, e in flat.elements.items() if e.category == "junction"
        }
        self.n_set = dict.fromkeys(self.special, 0)
        self.n_special = dict.fromkeys(self.special, 0)

    def _count(self, node, role, delta):
        if node in self.special:
            self.n_set[node] += delta
            if role == self.special[node]:
                self.n_special[node] += delta

    # -- primitive: set one role and propagate
    def assign(self, node, port, role, cause):
        work = [(node, port, role, cause)]
        while work:
            n, p, r, c = work.pop()
            cur = self.roles.get((n, p))
            if cur is not None:
                if cur != r:
                    raise _Conflict(n, p, r, f"port {n}.{p} must both compute the {self._var(cur)} and the {self._var(r)}")
                continue
            self.roles[(n, p)] = r
            self.cause[(n, p)] = c
            self.trail.append((n, p))
            self._count(n, r, 1)
            bi = self.f.bond_at.get((n, p))
            if bi is not None:
                b = self.f.bonds[bi]
                other = b.head if (n, p) == b.tail else b.tail
                work.append((other[0], other[1], _OPP[r], (n, p)))
            if c is None or c[0] != n:
                # a role the node's own rule set implies nothing new there (the rule already
                # gave every port it determines); re-running it would cost O(ports) each time
                for q, rq in self.rule(n):
                    work.append((n, q, rq, (n, p)))

    @staticmethod
    def _var(role):
        return "effort" if role == EFFORT_OUT else "flow"

    def rule(self, node):
        """Roles implied at `node` by its causal rule; raises _Conflict."""
        obj = self.f.elements[node]
        ports = self.ports_of[node]
        cat = obj.category
        if cat == "junction":
            # 0: exactly one port where the junction computes the flow; 1: the effort
            special = self.special[node]
            other = _OPP[special]
            n_special = self.n_special[node]
            n_free = len(ports) - self.n_set[node]
            if n_special > 1:
                what = "effort" if obj.kind == "0" else "flow"
                raise _Conflict(node, ports[0], special, f"{obj.label} receives its common {what} from two bonds")
            if n_free == 0:
                if n_special == 0 and ports:
                    what = "effort" if obj.kind == "0" else "flow"
                    raise _Conflict(node, ports[0], other, f"no bond imposes the common {what} of {obj.label}")
                return []
            if n_special == 1:
                return [(p, other) for p in ports if (node, p) not in self.roles]
            if n_free == 1:
                return [(p, special) for p in ports if (node, p) not in self.roles]
            return []
        cur = [self.roles.get((node, p)) for p in ports]
        pats = _patterns(obj)
        if pats is not None:
            ok = [pt for pt in pats if all(r is None or r == pr for r, pr in zip(cur, pt))]
            if not ok:
                raise _Conflict(node, ports[0], None, f"{obj.label} cannot take the causality imposed on it")
            if len(ok) == 1:
                return [(p, pr) for p, r, pr in zip(ports, cur, ok[0]) if r is None]
            return []
        if cat in ("source", "constraint"):
            fixed = obj.role if cat == "source" else EFFORT_OUT
            for p, r in zip(ports, cur):
                if r is not None and r != fixed:
                    raise _Conflict(node, p, fixed, f"{obj.label} must impose its {self._var(fixed)}")
            return [(p, fixed) for p, r in zip(ports, cur) if r is None]
        return []

    def trial(self, assignments):
        mark = len(self.trail)
        try:
            for node, port, role in assignments:
                self.assign(node, port, role, None)
        except _Conflict as c:
            for key in self.trail[mark:]:
                self._count(key[0], self.roles.pop(key), -1)
                del self.cause[key]
            del self.trail[mark:]
            return c
        return None

    def origin(self, key):
        """Follow the causes back to the decision that set `key`: (origin node, via nodes)."""
        via = []
        seen = set()
        while self.cause.get(key) is not None and key not in seen:
            seen.add(key)
            key = self.cause[key]
            via.append(key[0])
        origin = key[0]
        path = []
        for n in via[:-1] if via and via[-1] == origin else via:
            if n != origin and (not path or path[-1] != n):
                path.append(n)
        return origin, tuple(path)


def _describe_via(flat, path):
    labels = [flat.label(n) for n in path]
    junctions = [flat.elements[n] for n in path if flat.elements[n].category == "junction"]
    if len(path) == 1 and junctions:
        j = junctions[0]
        return f"share a {j.kind}-junction ({flat.label(path[0])})"
    if not path:
        return "are bonded directly"
    return "are coupled through " + ", ".join(labels)


def assign_causality(bg_or_flat) -> CausalityReport:
    """Assign causality to a bond graph (sequential causality assignment, SCAP).

    Parameters
    ----------
    bg_or_flat : BondGraph or FlatGraph

    Returns
    -------
    CausalityReport
        Printing it gives the causal strokes and, in words, every conflict and how it was
        resolved (e.g. "I:m1 and I:m2 share a 1-junction (1:v): m2 is in derivative causality").

    Raises
    ------
    CausalityError
        When sources or ideal constraints conflict with each other (ill-posed model).
    """
    flat = bg_or_flat if isinstance(bg_or_flat, FlatGraph) else flatten(bg_or_flat)
    s = _Scap(flat)
    decisions = []
    els = flat.elements

    # 1-2. fixed causalities
    for node, obj in els.items():
        if obj.category in ("source", "constraint"):
            role = obj.role if obj.category == "source" else EFFORT_OUT
            for p in s.ports_of[node]:
                c = s.trial([(node, p, role)])
                if c is not None:
                    other = s.origin((c.node, c.port))[0] if (c.node, c.port) in s.roles else c.node
                    raise CausalityError(
                        f"{obj.label} conflicts with {els[other].label}: {c.why}. Two sources (or ideal "
                        "constraints) impose the same variable: the model is ill-posed; remove one of them"
                    )
                decisions.append((node, p, role, "fixed"))
    # 3. storages: integral preferred
    cuts = []
    for node, obj in els.items():
        if obj.category != "storage":
            continue
        for p, ptype in zip(s.ports_of[node], obj.port_types()):
            want = _integral_role(ptype)
            if (node, p) not in flat.bond_at:
                continue  # unconnected multi port: zero input
            cur = s.roles.get((node, p))
            if cur is None:
                c = s.trial([(node, p, want)])
                if c is None:
                    decisions.append((node, p, want, "integral"))
                    continue
                # where did the integral trial collide? trace the surviving assignment there
                hit = [k for k in ((c.node, q) for q in s.ports_of[c.node]) if k in s.roles]
                origin, path = s.origin(hit[0]) if hit else (c.node, ())
                path = path + (c.node,) if c.node != origin and c.node not in path else path
                c2 = s.trial([(node, p, _OPP[want])])
                if c2 is not None:
                    raise CausalityError(
                        f"{obj.label}: neither integral nor derivative causality is possible at port {p!r} "
                        f"({c.why}; {c2.why})"
                    )
                decisions.append((node, p, _OPP[want], "derivative"))
                cur = _OPP[want]
            elif cur != want:
                origin, path = s.origin((node, p))
            if cur != want:
                bi = flat.bond_at[(node, p)]
                b = flat.bonds[bi]
                kind = "flow" if want == FLOW_OUT else "effort"
                mult = "effort" if kind == "flow" else "flow"
                via = _describe_via(flat, path)
                text = (
                    f"{flat.label(origin)} and {flat.label(node)} {via}: {node} is in derivative causality; "
                    f"resolved by a Lagrange multiplier (the {mult} of bond {b.name!r}) that keeps the {kind} "
                    f"{node} imposes equal to the one imposed by {origin}"
                )
                cuts.append(Cut(bi, node, p, kind, origin, path, text))
    # 4. resistors
    for node, obj in els.items():
        if obj.category != "resistor":
            continue
        ports = s.ports_of[node]
        if all((node, p) in s.roles for p in ports):
            continue
        for pat in obj.causalities():
            if s.trial([(node, p, r) for p, r in zip(ports, pat) if (node, p) not in s.roles]) is None:
                decisions.append((node, ports[0], pat[0], "resistor"))
                break
        else:
            raise CausalityError(f"{obj.label}: none of its causal patterns is compatible with its neighbours")
    # 5. whatever is still free (junction/two-port chains)
    for i, b in enumerate(flat.bonds):
        if b.tail in s.roles:
            continue
        for role in (EFFORT_OUT, FLOW_OUT):
            if s.trial([(b.tail[0], b.tail[1], role)]) is None:
                decisions.append((b.tail[0], b.tail[1], role, "free"))
                break
        else:
            raise CausalityError(f"bond {b.name!r} admits no causality")
    patterns = {}
    for node, obj in els.items():
        pats = _patterns(obj)
        if pats is not None:
            cur = tuple(s.roles.get((node, p)) for p in s.ports_of[node])
            patterns[node] = pats.index(cur)
    report = CausalityReport(flat, dict(s.roles), patterns, cuts, decisions=decisions)
    report.equations = equation_graph(report)
    report.loops = _find_loops(report, report.equations)
    return report


# --------------------------------------------------------------------------- equations
def equation_graph(report: CausalityReport):
    """The instantaneous dependency graph of the bond variables under the assigned causality.

    Nodes are variables: ("e", i) / ("f", i) for bond i, ("e*", i) / ("f*", i) for the
    storage side of a cut bond, ("lam", path) for a constraint's multipliers, ("x",), ("t",).
    Edges go from inputs to outputs. The node attribute "producer" is the element path.

    Returns
    -------
    networkx.DiGraph
    """
    f = report.flat
    g = nx.DiGraph()
    cut_at = {(c.node, c.port): c for c in report.cuts}

    def var(kind, node, port):
        i = f.bond_at[(node, port)]
        if (node, port) in cut_at and kind == ("f" if cut_at[(node, port)].kind == "flow" else "e"):
            return (kind + "*", i)
        return (kind, i)

    def add(out, ins, producer):
        g.add_node(out, producer=producer)
        for v in ins:
            g.add_edge(v, out)

    g.add_node(("x",), producer=None)
    g.add_node(("t",), producer=None)
    for node, obj in f.elements.items():
        ports = [p.name for p in obj.ports() if (node, p.name) in f.bond_at]
        roles = [report.roles[(node, p)] for p in ports]
        cat = obj.category
        if cat == "source":
            p = ports[0]
            add(var("e" if obj.role == EFFORT_OUT else "f", node, p), [("t",)], node)
        elif cat == "storage":
            ptypes = dict(zip([p.name for p in obj.ports()], obj.port_types()))
            for p in ports:
                add(var("e" if ptypes[p] == "C" else "f", node, p), [("x",)], node)
        elif cat == "constraint":
            g.add_node(("lam", node), producer=None)
            for p in ports:
                add(var("e", node, p), [("lam", node)], node)
        elif cat == "resistor":
            ins = [var("f" if r == EFFORT_OUT else "e", node, p) for p, r in zip(ports, roles)]
            for p, r in zip(ports, roles):
                add(var("e" if r == EFFORT_OUT else "f", node, p), ins, node)
        elif cat == "twoport":
            (p1, p2), (r1, _) = ports, roles
            if obj.kind == "TF":
                src, dst = (p1, p2) if r1 == EFFORT_OUT else (p2, p1)
                add(var("f", node, dst), [var("f", node, src)], node)
                add(var("e", node, src), [var("e", node, dst)], node)
            else:
                v = "e" if r1 == EFFORT_OUT else "f"
                w = "f" if v == "e" else "e"
                add(var(v, node, p2), [var(w, node, p1)], node)
                add(var(v, node, p1), [var(w, node, p2)], node)
        elif cat == "junction":
            special = FLOW_OUT if obj.kind == "0" else EFFORT_OUT
            common, summed = ("e", "f") if obj.kind == "0" else ("f", "e")
            k = [p for p, r in zip(ports, roles) if r == special]
            if not k:
                continue
            k = k[0]
            others = [p for p in ports if p != k]
            for p in others:
                add(var(common, node, p), [var(common, node, k)], node)
            add(var(summed, node, k), [var(summed, node, p) for p in others], node)
    # cut bonds: the multiplier variable is an unknown root
    for c in report.cuts:
        lam = ("e", c.bond) if c.kind == "flow" else ("f", c.bond)
        g.add_node(lam, producer=None)
    return g


def _find_loops(report, g):
    f = report.flat
    loops = []
    for comp in nx.strongly_connected_components(g):
        if len(comp) == 1:
            v = next(iter(comp))
            if not g.has_edge(v, v):
                continue
        sub = g.subgraph(comp).copy()
        tears = []
        # tear resistor outputs first (classic resistive loops), then anything, until acyclic
        while not nx.is_directed_acyclic_graph(sub):
            cyc_nodes = set().union(*[c for c in nx.strongly_connected_components(sub) if len(c) > 1])
            cands = sorted(
                cyc_nodes,
                key=lambda v: (f.elements[g.nodes[v]["producer"]].category != "resistor", -sub.in_degree(v), str(v)),
            )
            v = cands[0]
            tears.append(v)
            sub.remove_edges_from(list(sub.in_edges(v)))
        producers = sorted({g.nodes[v]["producer"] for v in comp})
        labels = [f.label(n) for n in producers]
        # junctions and (modulated) two-ports are linear in the loop variables; resistors say
        linear = all(getattr(f.elements[n], "linear", True) for n in producers if f.elements[n].category == "resistor")
        tear_text = ", ".join(
            f"the {'effort' if v[0].startswith('e') else 'flow'} of bond {f.bonds[v[1]].name!r}" for v in tears
        )
        text = (
            f"algebraic loop through {', '.join(labels)}; torn at {tear_text}, solved at every evaluation as a "
            + ("linear system" if linear else "nonlinear system (Newton iteration)")
            + f" in {sum(f.bonds[v[1]].dim for v in tears)} unknown(s)"
        )
        loops.append(AlgebraicLoop(tuple(producers), tuple(tears), linear, text))
    return loops
