"""HTML tables of the package's objects, for Jupyter's rich display (``_repr_html_``).

Pure string building (no matplotlib, no evaluation of the system): showing an object in a
notebook never compiles, integrates or changes anything. Every text is escaped.
"""

from __future__ import annotations

from html import escape

__all__ = ["budget_html", "trajectory_html", "system_html", "bondgraph_html"]

#: rows shown of a long table (events of a trajectory, elements and bonds of a graph)
MAX_ROWS = 40


def _table(header, rows, *, caption="", numeric=()):
    """A table; columns whose index is in `numeric` are right-aligned."""
    def cell(tag, k, v):
        style = ' style="text-align:right"' if k in numeric else ' style="text-align:left"'
        return f"<{tag}{style}>{escape(str(v))}</{tag}>"

    head = "".join(cell("th", k, h) for k, h in enumerate(header))
    body = "".join("<tr>" + "".join(cell("td", k, v) for k, v in enumerate(r)) + "</tr>" for r in rows[:MAX_ROWS])
    more = (f'<tr><td colspan="{len(header)}">... {len(rows) - MAX_ROWS} more</td></tr>'
            if len(rows) > MAX_ROWS else "")
    cap = f"<caption>{escape(caption)}</caption>" if caption else ""
    return f"<table>{cap}<thead><tr>{head}</tr></thead><tbody>{body}{more}</tbody></table>"


def _g(v):
    return f"{v:.6g}"


def budget_html(budget):
    """The energy ledger of a `PowerBudget`: per element and in total [J], with the residual."""
    if not budget.available:   # no finite sample (`PowerBudget.omitted`)
        return f"<p>{escape(budget.table())}</p>"
    g = budget.shown   # round-off below the ledger's resolution shows as 0
    rows = [(r.label, g(r.stored), g(r.supplied), g(r.dissipated), g(r.lost), g(r.stabilization))
            for r in budget.rows()]
    rows.append(("total", g(budget.H[-1] - budget.H[0]), g(budget.supplied[-1]), g(budget.dissipated[-1]),
                 g(budget.lost[-1]), g(budget.stabilization[-1])))
    table = _table(["element", "stored dH [J]", "supplied [J]", "dissipated [J]", "lost [J]", "stabilization [J]"],
                   rows, caption=f"Energy ledger, t = {budget.t[0]:.6g} .. {budget.t[-1]:.6g} s",
                   numeric=range(1, 6))
    relative = (f", {budget.max_residual / budget.exchanged:.3e} of the energy exchanged"
                if budget.exchanged > 0 else "")
    note = (f"<p>H(0) = {budget.H[0]:.10g} J, H(end) = {budget.H[-1]:.10g} J; max |residual| = "
            f"{budget.max_residual:.3e} J{relative}</p>")
    warnings = "".join(f"<p><b>not passive:</b> {escape(budget.labels.get(p, p))} generates energy from t = {t:.6g} s "
                       f"({g:.3g} J at most)</p>" for p, t, g in budget.passivity_violations)
    return table + note + warnings


def trajectory_html(traj):
    """A `Trajectory`: its run (samples, span, solver, status) and its first events."""
    run = [("system", traj.system.name), ("samples", traj.t.size),
           ("t [s]", f"{traj.t[0]:.6g} .. {traj.t[-1]:.6g}"),
           ("method", f"{traj.method} (rtol {traj.rtol}, atol {traj.atol})"),
           ("rhs evaluations", traj.nfev), ("status", f"{traj.status}: {traj.message}"),
           ("events", len(traj.events))]
    out = _table(["", ""], run, caption="Trajectory")
    if traj.events:
        out += _table(["t [s]", "event", "what happened", "lost [J]"],
                      [(f"{e.t:.9g}", e.name, e.message, _g(e.lost)) for e in traj.events],
                      caption="Events", numeric=(0, 3))
    return out


def system_html(system):
    """A `PHSystem`: its state blocks, multipliers, inputs and events."""
    blocks = [(b.key, b.kind, b.stop - b.start) for b in system.layout.blocks]
    out = _table(["state block", "kind", "size"], blocks, numeric=(2,),
                 caption=(f"PHSystem {system.name!r}: {system.layout.n_physical} state numbers, "
                          f"{system.n_multipliers} multipliers/unknowns, {system.n_inputs} inputs, "
                          f"{len(system.events)} element events"))
    return out


def bondgraph_html(bg):
    """A `BondGraph`: its elements (type, ports) and bonds (tail -> head, dimension)."""
    elements = [(name, getattr(obj, "type_name", type(obj).__name__),
                 ", ".join(f"{p.name} ({p.dim})" for p in obj.ports())) for name, obj in bg.elements.items()]
    bonds = [(b.name, str(b.tail), str(b.head), b.dim) for b in bg.bonds]
    state = "frozen (compiled)" if bg.frozen else "editable"
    return (_table(["element", "type", "ports (dimension)"], elements,
                   caption=f"BondGraph {bg.name!r}: {len(elements)} elements, {len(bonds)} bonds, {state}")
            + _table(["bond", "tail", "head", "dim"], bonds, numeric=(3,)))
