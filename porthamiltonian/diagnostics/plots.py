"""All plotting of porthamiltonian (the only module that imports matplotlib)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .._files import atomic_file

__all__ = ["plot_power_budget", "draw_bondgraph", "plot_series", "plot_observables", "plot_planar_paths",
           "plot_limit_cycle", "plot_stride_energy", "save_figure", "draw_scene", "bondgraph_png", "figure",
           "plot_bode", "plot_sweep", "plot_center_of_pressure"]


def figure(rows=1, cols=1, **kwargs):
    """A new matplotlib figure and axes (for scripts that must not import matplotlib)."""
    return _plt().subplots(rows, cols, **kwargs)


def _plt():
    """pyplot, with the backend left as it is: a notebook's inline backend must stay, and
    without a display matplotlib itself falls back to Agg when it first resolves its default
    backend (so scripts and the command line need nothing either)."""
    import matplotlib.pyplot as plt

    return plt


def plot_power_budget(budget, axes=None, title=None, max_elements=8):
    """Three panels: stored energy (total and per storage element), the cumulative ledger
    entries (supplied, dissipated, lost at events, stabilization), and the residual. A run
    the energy audit flags (`PowerBudget.findings`) says so in red in the title ("FLAGGED:"
    and the codes) and on the residual panel, where a residual above its bound
    (`PowerBudget.residual_bound`) is drawn with the bound.

    Returns
    -------
    matplotlib.figure.Figure
    """
    plt = _plt()
    if axes is None:
        fig, axes = plt.subplots(3, 1, figsize=(8, 8), sharex=True, gridspec_kw={"height_ratios": [3, 2, 1.3]})
    else:
        fig = axes[0].figure
    ax, axl, axr = axes
    if not getattr(budget, "available", True):   # no finite sample: say so instead of plotting
        ax.text(0.5, 0.5, budget.table(), ha="center", va="center", wrap=True, transform=ax.transAxes)
        return fig
    t = budget.t
    ax.plot(t, budget.H, color="k", lw=2, label="total H(t)")
    varying = sorted(
        ((float(np.ptp(v)), p) for p, v in budget.stored.items() if np.ptp(v) > 1e-9 * max(budget.scale, 1e-300)),
        reverse=True,
    )
    for _, p in varying[:max_elements]:
        ax.plot(t, budget.stored[p], lw=1, label=budget.labels.get(p, p))
    ax.set_ylabel("stored [J]")
    ax.legend(loc="best", fontsize="small", ncol=2)
    ax.grid(alpha=0.3)
    findings = budget.findings()
    flagged = f"\nFLAGGED: {', '.join(dict.fromkeys(c for c, _ in findings))}" if findings else ""
    ax.set_title((title or "Energy ledger") + flagged, color="C3" if findings else "k")
    for name, series, style in (
        ("supplied", budget.supplied, "-"),
        ("dissipated", budget.dissipated, "-"),
        ("lost at events", budget.lost, "-"),
        ("stabilization", budget.stabilization, ":"),
    ):
        if np.any(series != 0):
            axl.plot(t, series, style, label=name)
    axl.set_ylabel("cumulative [J]")
    if axl.lines:
        axl.legend(loc="best", fontsize="small")
    axl.grid(alpha=0.3)
    axr.plot(t, budget.residual, color="k", lw=1)
    bound = budget.residual_bound
    if bound is not None and budget.max_residual > bound:   # drawn only when crossed: else it flattens the curve
        for sign in (1, -1):
            axr.axhline(sign * bound, color="C3", ls="--", lw=1, label="bound allowed by rtol, atol" if sign > 0 else None)
        axr.legend(loc="best", fontsize="small")
    if findings:
        axr.annotate("; ".join(m.split(":")[0] for _, m in findings)[:120], (0.01, 0.95), xycoords="axes fraction",
                     va="top", fontsize="small", color="C3")
    axr.set_ylabel("residual [J]")
    axr.set_xlabel("time [s]")
    axr.grid(alpha=0.3)
    axr.ticklabel_format(axis="y", style="sci", scilimits=(-2, 2))
    fig.tight_layout()
    return fig


def _axes(ax, figsize):
    """(figure, axes): new ones of `figsize`, or `ax` and its figure."""
    if ax is None:
        return _plt().subplots(figsize=figsize)
    return ax.figure, ax


def _finish(fig, ax, xlabel, ylabel, title, legend=True):
    """Labels, title, grid and legend of a one-axes figure; returns the figure."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    if legend:
        ax.legend(loc="best", fontsize="small")
    fig.tight_layout()
    return fig


def plot_series(t, series, *, ylabel="", title="", events=(), ax=None, xlabel="time [s]"):
    """Plot named time series (dict label -> (N,) array), with vertical lines at event times.

    All series share one y axis: give them one unit, and say it in `ylabel` ("height [m]");
    `plot_observables` splits series of different units onto separate axes.
    """
    fig, ax = _axes(ax, (8, 4))
    for label, y in series.items():
        ax.plot(t, y, label=label)
    for te, name in events:
        ax.axvline(te, color="0.6", lw=0.7, ls=":")
    return _finish(fig, ax, xlabel, ylabel, title, legend=bool(series))


def plot_center_of_pressure(t, pressure, *, title="", events=(), supports=None):
    """Centre of pressure of each body's contacts: a top view (x-y in the ground plane, z up;
    one path per body, its start marked, and each body's support polygon where it stands on
    several contacts), and one panel per world coordinate (x, y, z [m]) over time, one trace
    per body, blank where the body is not pressed (NaN).

    Parameters
    ----------
    t : ndarray, shape (N,) [s]
    pressure : dict
        Body name -> centre of pressure, shape (N, 3) [m] (`center_of_pressure`).
    supports : dict, optional
        Body name -> ``(time, points)`` of `contact_forces.support_polygon`: the convex hull of
        the points (x, y) drawn dashed in the body's colour (a segment for two points).
    """
    plt = _plt()
    fig = plt.figure(figsize=(12, 6.5))
    grid = fig.add_gridspec(3, 2, width_ratios=(1.0, 1.25))
    top = fig.add_subplot(grid[:, 0])
    axes = [fig.add_subplot(grid[k, 1]) for k in range(3)]
    for k, (ax, axis) in enumerate(zip(axes, "xyz")):
        for body, cop in pressure.items():
            ax.plot(t, cop[:, k], label=body)
        for te, _ in events:
            ax.axvline(te, color="0.6", lw=0.7, ls=":")
        ax.set_ylabel(f"{axis} [m]")
        ax.grid(alpha=0.3)
        if k < 2:
            ax.tick_params(labelbottom=False)
    axes[-1].set_xlabel("time [s]")
    for body, cop in pressure.items():
        line, = top.plot(cop[:, 0], cop[:, 1], lw=1.2, label=f"{body}: centre of pressure")
        on = np.flatnonzero(np.all(np.isfinite(cop[:, :2]), axis=1))
        if on.size:
            top.plot(cop[on[0], 0], cop[on[0], 1], "o", color=line.get_color(), ms=5)
        when, points = (supports or {}).get(body, (None, np.zeros((0, 3))))
        if len(points) >= 2:
            top.plot(*_hull_outline(points[:, :2]).T, ls="--", lw=1.0, color=line.get_color(),
                     label=f"{body}: support polygon at t = {when:.3g} s")
            top.plot(points[:, 0], points[:, 1], "s", ms=4, mfc="none", color=line.get_color())
    top.set_aspect("equal", adjustable="datalim")
    top.set_xlabel("x [m]")
    top.set_ylabel("y [m]")
    top.set_title("top view (ground plane; o: first pressed)", fontsize="medium")
    top.grid(alpha=0.3)
    top.legend(loc="best", fontsize="small")
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def _hull_outline(xy):
    """The closed outline of the convex hull of points `xy` (M, 2): the hull's corners in order
    and the first again; the two extreme points for collinear ones."""
    from scipy.spatial import ConvexHull, QhullError

    try:
        corners = ConvexHull(xy).vertices
    except (QhullError, ValueError):   # collinear (two feet in a row) or fewer than 3 points
        d = xy - xy.mean(axis=0)
        u = np.linalg.svd(d)[2][0] if np.any(d) else np.array([1.0, 0.0])
        s = d @ u
        corners = [int(np.argmin(s)), int(np.argmax(s))]
    return xy[list(corners) + [corners[0]]]


def _quantity(names):
    """The quantity several series share, from their names: their common last words ("lower
    height", "upper height" -> "height"), else their common first words, else the names
    joined ("gap, depth")."""
    words = [n.split() for n in names]
    for pick in (lambda w, k: w[-k:], lambda w, k: w[:k]):
        k = 0
        while all(len(w) > k for w in words) and len({tuple(pick(w, k + 1)) for w in words}) == 1:
            k += 1
        if k:
            return " ".join(pick(words[0], k))
    return ", ".join(names)


def plot_observables(t, series, units, *, title="", events=()):
    """Time series of different units, one axes per unit (stacked, sharing the time axis).

    Parameters
    ----------
    t : (N,) array [s]
    series : dict
        name -> (N,) array.
    units : dict
        name -> unit ("m", "rad/s", "-" for a pure number). Series without one share an axes
        labelled "unit not given", which says what to add.
    title : str
    events : sequence of (t, name)
        Drawn as vertical dotted lines on every axes.

    Returns
    -------
    matplotlib.figure.Figure
        An axes per unit, in order of first appearance; its y label is the series' name and
        unit when it holds one series ("height [m]"), else their shared quantity and the unit
        ("height [m]" for "lower height" and "upper height"; `_quantity`) and a legend.
    """
    groups = {}
    for name in series:
        groups.setdefault(units.get(name) or "unit not given", []).append(name)
    fig, axes = _plt().subplots(len(groups), 1, figsize=(8, 1.2 + 2.6 * len(groups)), sharex=True, squeeze=False)
    for ax, (unit, names) in zip(axes[:, 0], groups.items()):
        one = len(names) == 1
        plot_series(t, {n: series[n] for n in names}, ylabel=f"{names[0] if one else _quantity(names)} [{unit}]",
                    events=events, ax=ax, xlabel="")
        if one:
            ax.get_legend().remove()
    axes[0, 0].set_title(title)
    axes[-1, 0].set_xlabel("time [s]")
    fig.tight_layout()
    return fig


def plot_bode(linearization, omega, *, inputs=None, outputs=None, hz=False, axes=None, title="Bode plot"):
    """Bode plot (magnitude and phase) of a linearized system's transfer functions.

    Parameters
    ----------
    linearization : Linearization
        From `PHSystem.linearize`.
    omega : array_like, shape (k,) [rad/s]
        Positive angular frequencies; the response is G(1j omega).
    inputs, outputs : str or list of str, optional
        As `porthamiltonian.compile.transfer_function` (default: every input, its
        collocated output).
    hz : bool
        Label the frequency axis in Hz (omega / 2 pi) instead of rad/s.
    axes : pair of matplotlib Axes, optional
        (magnitude, phase); new ones by default.
    title : str

    Returns
    -------
    matplotlib.figure.Figure
        Magnitude |G| (log-log, in the outputs' units per input unit) and unwrapped phase
        [deg], one line per (output, input) pair labelled "y(F) / F" (the collocated output
        of input F) or "m.p / F" (a tangent coordinate).

    Raises
    ------
    ParameterError
        `omega` not a 1-D array of positive finite frequencies, or bad names.
    """
    from ..compile.modal import transfer_function
    from ..errors import ParameterError

    omega = np.asarray(omega, dtype=float)
    if omega.ndim != 1 or omega.size == 0 or not np.all(np.isfinite(omega)) or np.any(omega <= 0):
        raise ParameterError(f"`omega` must be a 1-D array of positive finite frequencies [rad/s], got {omega!r}")
    G = transfer_function(linearization, 1j * omega, inputs, outputs)
    in_names = _names(linearization.input_names, inputs)
    out_names = _names(linearization.output_names, outputs)
    plt = _plt()
    if axes is None:
        fig, axes = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    else:
        fig = axes[0].figure
    axm, axp = axes
    f = omega / (2.0 * np.pi) if hz else omega
    for i, yo in enumerate(out_names):
        for j, ui in enumerate(in_names):
            label = f"y({yo})" if yo in linearization.output_names else yo  # collocated output, or a state
            axm.loglog(f, np.abs(G[:, i, j]), label=f"{label} / {ui}")
            axp.semilogx(f, np.degrees(np.unwrap(np.angle(G[:, i, j]))))
    axm.set_ylabel("|G|")
    axm.set_title(title)
    axm.legend(loc="best", fontsize="small")
    axm.grid(alpha=0.3, which="both")
    axp.set_ylabel("phase [deg]")
    axp.set_xlabel("frequency [Hz]" if hz else "frequency [rad/s]")
    axp.grid(alpha=0.3, which="both")
    fig.tight_layout()
    return fig


def _names(default, given):
    """Line labels of `plot_bode`: the given name or names, else the defaults."""
    if given is None:
        return list(default)
    return [given] if isinstance(given, str) else list(given)


#: marker styles of `plot_planar_paths` by event kind
EVENT_MARKERS = {"impact": ("o", "collision"), "contact": ("v", "continuous contact starts"),
                 "separation": ("^", "continuous contact ends"), "patch": ("|", "patch transition"),
                 "stick": ("s", "no-slip starts"), "slip": ("D", "slip starts")}


def plot_planar_paths(paths, *, markers=(), xlabel="x [m]", ylabel="y [m]", title="", ax=None):
    """Planar paths (e.g. a centre of mass seen from above) with their events marked.

    Parameters
    ----------
    paths : dict
        label -> (x, y), two (N,) arrays [m].
    markers : sequence of (label, x, y, kind)
        Events on the path of `label`; `kind` one of `EVENT_MARKERS` ("impact", "contact",
        "separation", "patch", "stick", "slip").
    xlabel, ylabel, title : str
    ax : matplotlib axes, optional

    Returns
    -------
    matplotlib Figure
    """
    fig, ax = _axes(ax, (7, 6))
    colors = {}
    for label, (x, y) in paths.items():
        (line,) = ax.plot(x, y, lw=1.2, label=label)
        colors[label] = line.get_color()
    seen = set()
    for label, x, y, kind in markers:
        style, name = EVENT_MARKERS[kind]
        ax.plot([x], [y], style, ms=6 if style != "|" else 9, mfc="none", color=colors[label],
                label=None if kind in seen else name)
        seen.add(kind)
    ax.set_aspect("equal", adjustable="datalim")
    return _finish(fig, ax, xlabel, ylabel, title)


def plot_limit_cycle(x, y, *, sections=(), xlabel="", ylabel="", title="", ax=None):
    """A gait in phase space: the curve (x(t), y(t)) with its section crossings marked.

    Parameters
    ----------
    x, y : (N,) arrays
        Two observables of the trajectory (e.g. an angle [rad] and its rate [rad/s]).
    sections : sequence of (x, y)
        The Poincaré section's crossings (`porthamiltonian.studies.PoincareSection`).
    xlabel, ylabel : str
        Axis labels with units.
    title : str
    ax : matplotlib axes, optional

    Returns
    -------
    matplotlib Figure
    """
    fig, ax = _axes(ax, (7, 5))
    ax.plot(x, y, lw=1.0, color="C0", label="trajectory")
    if len(sections):
        sx, sy = np.asarray(sections, dtype=float).T
        ax.plot(sx, sy, "o", mfc="none", color="C3", label="section crossings")
        ax.plot(sx[-1:], sy[-1:], "o", color="C3")
    return _finish(fig, ax, xlabel, ylabel, title)


def plot_stride_energy(energy, *, title="Energy per stride", ax=None):
    """Bars of every stride's energy by element (`porthamiltonian.studies.StrideEnergy`).

    Per stride and element: the change of stored energy (a storage releasing energy, such as
    gravity on a slope, gives a negative bar), and the energy dissipated and lost (drawn
    negative: taken out of the system), stacked by element.

    Returns
    -------
    matplotlib Figure
    """
    fig, ax = _axes(ax, (8, 5))
    k = energy.t.size - 1
    strides = np.arange(1, k + 1)
    parts = []
    for j, path in enumerate(energy.elements):
        label = energy.labels[path]
        for name, values, sign in (("stored", energy.stored, 1.0), ("supplied", energy.supplied, 1.0),
                                   ("dissipated", energy.dissipated, -1.0), ("lost", energy.lost, -1.0)):
            col = sign * values[:, j]
            if np.any(col):
                parts.append((f"{label} {name}", col))
    pos, neg = np.zeros(k), np.zeros(k)
    for i, (label, col) in enumerate(parts):
        bottom = np.where(col >= 0, pos, neg)
        ax.bar(strides, col, bottom=bottom, label=label, color=f"C{i % 10}", width=0.7)
        pos += np.maximum(col, 0.0)
        neg += np.minimum(col, 0.0)
    ax.axhline(0.0, color="k", lw=0.8)
    ax.set_xticks(strides)
    return _finish(fig, ax, "stride", "energy per stride [J]", title)


def plot_energy_flow(totals, *, title="Where the energy went", ax=None):
    """Horizontal bars of one stride's (or one window's) energy by category: what came in
    (electrical, joint torques, references) on top, where it went (Joule heat, gearbox,
    friction, controller damping, contact, soil, impacts, and the change of stored energy)
    below, each with its share of the input.

    Parameters
    ----------
    totals : TransportEnergy or dict
        A `studies.TransportEnergy`, or category -> energy [J] (`studies.categorize`, one
        stride's column of `StrideEnergy.by_category()`); a dict may add "stored change".

    Returns
    -------
    matplotlib Figure
    """
    if hasattr(totals, "by_category"):
        cats = {k: float(v) for k, v in totals.by_category.items()}
        cats["stored change"] = float(totals.stored_change)
    else:
        cats = {k: float(v) for k, v in totals.items()}
    inputs = ("electrical", "joint_input", "reference", "other_supplied")
    rows = [(k, v) for k, v in cats.items() if v != 0.0 and k != "stabilization"]
    rows.sort(key=lambda kv: (kv[0] not in inputs, -abs(kv[1])))
    total_in = sum(v for k, v in rows if k in inputs) or 1.0
    fig, ax = _axes(ax, (8, 0.45 * max(len(rows), 2) + 1.5))
    y = np.arange(len(rows))[::-1]
    colors = ["C0" if k in inputs else ("C7" if k == "stored change" else "C3") for k, _ in rows]
    ax.barh(y, [v for _, v in rows], color=colors)
    ax.set_yticks(y)
    ax.set_yticklabels([k.replace("_", " ") for k, _ in rows])
    for yi, (k, v) in zip(y, rows):
        ax.annotate(f" {v:.4g} J ({100 * v / total_in:.1f} %)", (max(v, 0.0), yi), va="center", fontsize=8)
    ax.axvline(0.0, color="k", lw=0.8)
    return _finish(fig, ax, "energy [J]", "", title, legend=False)


#: units of the sweep table's own columns and of the named metrics (`studies.metrics.METRICS`)
_SWEEP_UNITS = {"wall_time_s": "s", "nfev": "-", "t_reached": "s", "metric.time_to_rest": "s",
                "metric.max_normal_force": "N"}
#: a series per group value: its marker, drawn hollow and smaller for each later value, so that
#: series lying on one another stay visible as nested outlines
_SWEEP_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
_SWEEP_LINES = ("-", "--", ":", "-.")


def _sweep_unit(column, units, model):
    """The unit of a sweep column or parameter: `units`, else the table's own columns
    (``ledger.*`` [J], ``wall_time_s`` [s], the named metrics), else the registered `model`'s
    parameter units and observable units (``metric.min:OBS``); None when none says."""
    if column in units:
        return units[column]
    if column.startswith("ledger."):
        return "J"
    if column in _SWEEP_UNITS:
        return _SWEEP_UNITS[column]
    if model is None:
        return None
    from porthamiltonian.models import build_model, get_model

    spec = get_model(model)
    if column in spec.parameters:
        return spec.parameters[column].unit
    kind, _, observable = column.removeprefix("metric.").partition(":")
    if column.startswith("metric.") and kind in ("min", "max"):
        return build_model(model).units.get(observable)
    return None


def _sweep_label(column, unit):
    """An axis label: the column's quantity and its unit in brackets ("[-]" for a pure number)."""
    name = column.removeprefix("ledger.").removeprefix("metric.").replace("_", " ").replace(":", " ")
    if column.startswith("ledger."):
        name = f"energy {name}"
    return f"{name} [{unit}]"


def plot_sweep(table, parameter, columns, *, group=None, title="", ax=None, units=None, model=None):
    """A sweep's results against one swept parameter: an axes per unit, a colour per value of
    `group`, a line style and a marker per column (per group value when there is one column).

    Parameters
    ----------
    table : pandas.DataFrame
        `porthamiltonian.studies.sweep`'s table; failed runs are left out.
    parameter : str
        The swept column on the x axis: numbers (log axis when they are positive and span a
        decade or more) or words (one tick per value).
    columns : sequence of str
        Result columns drawn (ledger totals [J], metrics).
    group : str, optional
        A column whose values (e.g. the contact kind) split each column into series: one
        colour and one marker per value, with a legend. Later values are drawn with smaller
        hollow markers, so series that coincide (a parameter the kind ignores) show as nested
        outlines rather than hiding one another.
    title : str
    ax : matplotlib axes, optional
        Draw there (all columns on it, so they must share one unit).
    units : dict, optional
        Column or parameter name -> unit ("-" for a pure number), overriding what is found.
    model : str, optional
        The registered model swept: its parameters' units label the x axis and its
        observables' units the ``metric.min:OBS`` / ``metric.max:OBS`` columns.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ParameterError
        Columns of several units drawn on the one `ax` given.

    Notes
    -----
    Every axis carries its quantity and unit: ``ledger.*`` in J, ``wall_time_s`` in s,
    ``metric.time_to_rest`` in s, ``metric.max_normal_force`` in N; a swept parameter of
    words (the contact kind) is labelled "[-]". A unit that neither `units`, the table's own
    columns nor `model` gives is labelled "[unit not given]", which says what to add.
    """
    from ..errors import ParameterError

    units = dict(units or {})
    ok = table[table["status"] == "ok"]
    values = list(dict.fromkeys(table[parameter]))
    numeric = all(isinstance(v, (int, float, np.number)) and not isinstance(v, bool) for v in values)
    by_unit = {}
    for col in columns:   # an unknown unit is said on the axis, as `plot_observables` does
        by_unit.setdefault(_sweep_unit(col, units, model) or "unit not given", []).append(col)
    x_unit = (_sweep_unit(parameter, units, model) or "unit not given") if numeric else "-"
    if ax is not None and len(by_unit) > 1:
        raise ParameterError(f"plot_sweep: columns of {len(by_unit)} units ({', '.join(by_unit)}) cannot share the "
                             "one `ax` given; leave `ax` out for an axes per unit")
    if ax is None:
        fig, axes = _plt().subplots(max(len(by_unit), 1), 1, figsize=(8, 1.5 + 3.0 * max(len(by_unit), 1)),
                                    sharex=True, squeeze=False)
        axes = list(axes[:, 0])
    else:
        fig, axes = ax.figure, [ax]
    groups = list(dict.fromkeys(ok[group])) if group else [None]
    for axk, (unit, cols) in zip(axes, by_unit.items()):
        for j, col in enumerate(cols):
            short = col.removeprefix("ledger.").removeprefix("metric.")
            for k, g in enumerate(groups):
                rows = ok if g is None else ok[ok[group] == g]
                x = rows[parameter].to_numpy(dtype=float) if numeric else np.array([values.index(v) for v in rows[parameter]])
                order = np.argsort(x, kind="stable")
                line = _SWEEP_LINES[j % len(_SWEEP_LINES)] if np.unique(x).size == x.size else ""   # a line only through distinct x
                # colour: the group's value; marker: the column's (the group's when one column);
                # later groups hollow and smaller, so coinciding series show as nested outlines
                marker = _SWEEP_MARKERS[(k if len(cols) == 1 else j) % len(_SWEEP_MARKERS)]
                label = short if g is None else (f"{group}={g}" if len(cols) == 1 else f"{short}, {group}={g}")
                axk.plot(x[order], rows[col].to_numpy(dtype=float)[order], ls=line, marker=marker,
                         ms=max(9.0 - 2.5 * k, 3.0), mfc="none" if k else None, mew=1.3, color=f"C{k % 10}", label=label,
                         zorder=2.0 + k)   # the smaller hollow markers on top
        one = len(cols) == 1
        axk.set_ylabel(_sweep_label(cols[0], unit) if one else f"{_quantity([_sweep_label(c, unit).split(' [')[0] for c in cols])} [{unit}]")
        axk.grid(alpha=0.3)
        if group or not one:
            axk.legend(loc="best", fontsize="small")
    if numeric and values and min(values) > 0 and max(values) >= 10 * min(values):
        axes[-1].set_xscale("log")
    if not numeric:
        axes[-1].set_xticks(range(len(values)), [str(v) for v in values])
    axes[-1].set_xlabel(f"{parameter.replace('_', ' ')} [{x_unit}]")
    axes[0].set_title(title)
    fig.tight_layout()
    return fig


def save_figure(fig, path, dpi=120):
    """Save a figure (format by suffix, written atomically: never a partial file) and close it."""
    plt = _plt()
    path = Path(path)
    try:
        with atomic_file(path) as tmp:
            fig.savefig(tmp, dpi=dpi, format=path.suffix[1:] or None)
    finally:
        plt.close(fig)
    return path


_FONT = 9.0        # label font size [pt] at full scale
_PAD = 4.0         # padding inside a label's box [pt]
_GAP = 28.0        # least distance between two label boxes [pt]: room for a bond's arrow and stroke


def draw_bondgraph(bg, ax=None, *, causality=True, layout="auto", seed=0):
    """Draw a bond graph: element labels, half-arrows (power direction) and causal strokes.

    Components are drawn flattened (path names; a long label is split after the element type).
    Causal strokes come from `assign_causality`; a stroke sits at the end of a bond that
    receives the effort. Bonds of dependent storages (resolved by multipliers) are drawn dashed.
    Multibonds carry their dimension.

    Parameters
    ----------
    bg : BondGraph
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; by default a new figure sized so that every label has its full font
        size. On a given axes the drawing is scaled down (fonts included) to fit.
    causality : bool
        Draw the causal strokes and dash the multiplier bonds.
    layout : {"auto", "dot", "kamada_kawai", "spring"}
        Node placement. "auto" is Graphviz ``dot`` if pygraphviz is installed, else
        Kamada-Kawai. Whatever the layout, label boxes are then pushed apart until none
        overlaps (sizes estimated from the text), so labels never cover each other.
    seed : int
        Seed of the spring layout.

    Returns
    -------
    matplotlib.axes.Axes
    """
    drawing = _BondGraphDrawing(bg, causality, layout, seed)
    if ax is None:
        fig, ax = _plt().subplots(figsize=drawing.figsize)
        drawing.adjust(fig)
    return drawing.render(ax)


def bondgraph_png(bg, *, causality=True, dpi=80):
    """The drawing of `draw_bondgraph` as PNG bytes, made without pyplot: no figure is
    registered (a notebook does not show it a second time) and the backend is not touched."""
    from io import BytesIO

    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    drawing = _BondGraphDrawing(bg, causality, "auto", 0)
    fig = Figure(figsize=drawing.figsize)
    FigureCanvasAgg(fig)
    drawing.adjust(fig)
    drawing.render(fig.add_subplot())
    buffer = BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()


class _BondGraphDrawing:
    """Labels, their sizes and positions [pt] of a flattened bond graph, and its causality."""

    def __init__(self, bg, causality, layout, seed):
        from ..bondgraph.causality import assign_causality
        from ..bondgraph.flatten import flatten

        self.name = bg.name
        self.flat = flat = flatten(bg)
        self.report = assign_causality(flat) if causality else None
        self.labels = {n: _node_label(flat, n, obj) for n, obj in flat.elements.items()}
        self.sizes = {n: _label_size(text) for n, text in self.labels.items()}
        self.pos = _separate(_layout(flat, self.sizes, layout, seed), self.sizes)
        xy = np.array(list(self.pos.values()))
        half = np.array(list(self.sizes.values())) / 2
        self.lo, self.hi = (xy - half).min(axis=0) - _PAD, (xy + half).max(axis=0) + _PAD
        self.figsize = tuple(np.clip((self.hi - self.lo) / 72.0 + [0.4, 1.0], 4.0, 30.0))

    def adjust(self, fig):
        """Margins of a figure of `figsize`: room for the title only."""
        fig.subplots_adjust(left=0.01, right=0.99, bottom=0.01, top=1 - 0.55 / self.figsize[1])

    def render(self, ax):
        """Draw on `ax`, scaled down (fonts included) to fit it; returns `ax`."""
        d, flat, report, pos, sizes, lo, hi = self, self.flat, self.report, self.pos, self.sizes, self.lo, self.hi
        box = ax.get_window_extent()
        size = np.array([box.width, box.height]) / ax.figure.dpi * 72.0     # the axes [pt]
        scale = min(1.0, *(size / (hi - lo)))
        # one point of the layout is `scale` points on the page: the label sizes stay true
        centre, half = (lo + hi) / 2, size / scale / 2
        ax.set_xlim(centre[0] - half[0], centre[0] + half[0])
        ax.set_ylim(centre[1] - half[1], centre[1] + half[1])
        ax.set_aspect("equal")
        ax.set_axis_off()
        cut = {c.bond for c in report.cuts} if report else set()
        for i, b in enumerate(flat.bonds):
            _draw_bond(ax, pos, sizes, b, i in cut, report.effort_end(i) if report else None, scale)
        for n, text in d.labels.items():
            ax.text(*pos[n], text, ha="center", va="center", fontsize=_FONT * scale, linespacing=1.1,
                    bbox=dict(boxstyle="round,pad=0.25", fc="white", ec="0.7"), zorder=3)
        ax.set_title(f"bond graph {d.name!r}" + ("\nred: causal strokes; dashed: multiplier bonds" if report else ""),
                     fontsize=9)
        return ax


def _node_label(flat, name, obj):
    """"Type:name" ("1" for an implicit junction); split after the type when long."""
    if ":join" in name:
        return obj.type_name
    label = flat.label(name)
    kind, _, rest = label.partition(":")
    return f"{kind}:\n{rest}" if len(label) > 24 and rest else label


def _label_size(text):
    """Estimated (width, height) [pt] of a label's box at full scale (a generous 0.62 em per
    character of the longest line, 1.2 em per line, plus the padding)."""
    lines = text.split("\n")
    return np.array([0.62 * _FONT * max(map(len, lines)), 1.2 * _FONT * len(lines)]) + 2 * _PAD


def _layout(flat, sizes, layout, seed):
    """Node positions [pt] at a scale where a bond is about one label width long (an inch at least)."""
    import networkx as nx

    g = nx.Graph()
    g.add_nodes_from(flat.elements)
    g.add_edges_from((b.tail[0], b.head[0]) for b in flat.bonds)
    if g.number_of_nodes() == 1:
        return {n: np.zeros(2) for n in g}
    if layout in ("auto", "dot"):
        try:
            return {n: np.asarray(p, float) for n, p in nx.nx_agraph.graphviz_layout(g, prog="dot").items()}
        except ImportError:
            if layout == "dot":
                raise
    if layout == "spring":
        pos = nx.spring_layout(g, seed=seed)
    else:
        pos = nx.kamada_kawai_layout(g)
    lengths = [np.linalg.norm(np.subtract(pos[u], pos[v])) for u, v in g.edges if u != v]
    typical = np.median(lengths) if lengths else 1.0
    bond = max(np.median([w for w, _ in sizes.values()]), 72.0)
    return {n: np.asarray(p, float) * bond / max(typical, 1e-12) for n, p in pos.items()}


def _separate(pos, sizes, iterations=2000):
    """Push label boxes closer than `_GAP` apart (each pair along its axis of least overlap,
    half each way) until none is."""
    names = list(pos)
    p = np.array([pos[n] for n in names], float)
    half = np.array([sizes[n] for n in names]) / 2 + _GAP / 2
    rng = np.random.default_rng(0)
    for _ in range(iterations):
        moved = False
        for i in range(len(names)):
            d = p[i] - p[i + 1:]
            overlap = half[i] + half[i + 1:] - np.abs(d)
            for k in np.flatnonzero((overlap > 0).all(axis=1)):
                j = i + 1 + k
                axis = int(np.argmin(overlap[k]))
                sign = np.sign(d[k, axis]) or rng.choice([-1.0, 1.0])
                shift = 0.5 * overlap[k, axis] + 0.5
                p[i, axis] += sign * shift
                p[j, axis] -= sign * shift
                moved = True
        if not moved:
            break
    return dict(zip(names, p))


def _clip(center, half, direction):
    """Where the ray from `center` along unit `direction` leaves the box of half sizes `half`."""
    with np.errstate(divide="ignore"):
        t = np.min(np.where(np.abs(direction) > 1e-12, half / np.abs(direction), np.inf))
    return center + t * direction


def _draw_bond(ax, pos, sizes, bond, dashed, effort_end, scale):
    """A bond between the two label boxes: its line, half-arrow, causal stroke and dimension."""
    p0, p1 = pos[bond.tail[0]], pos[bond.head[0]]
    d = p1 - p0
    length = np.linalg.norm(d)
    if length == 0:
        return
    u = d / length
    nrm = np.array([-u[1], u[0]])
    a = _clip(p0, sizes[bond.tail[0]] / 2 + 1.5, u)
    z = _clip(p1, sizes[bond.head[0]] / 2 + 1.5, -u)
    ax.plot([a[0], z[0]], [a[1], z[1]], color="k", lw=1.2, ls="--" if dashed else "-")
    barb = z - 8.0 * u + 5.0 * nrm           # half-arrow: one barb on the left of the head end
    ax.plot([z[0], barb[0]], [z[1], barb[1]], color="k", lw=1.2)
    if effort_end is not None:
        s = z if effort_end == "tail" else a    # the stroke is at the end that receives the effort
        c1, c2 = s + 5.0 * nrm, s - 5.0 * nrm
        ax.plot([c1[0], c2[0]], [c1[1], c2[1]], color="tab:red", lw=2)
    if bond.dim > 1:
        mid = 0.5 * (a + z) - 6.0 * nrm
        ax.text(mid[0], mid[1], str(bond.dim), fontsize=7 * scale, color="0.4", ha="center", va="center")


def draw_scene(ax, bodies, frames=(), *, view="xz", floor=None, title="", frame_length=0.08):
    """Draw surfaces in a 2D view (x-z by default): outlines of their projections, contact frames.

    Parameters
    ----------
    ax : matplotlib axes
    bodies : sequence of (Surface, H_WS, color)
        Bounded surfaces posed in the world; each is sampled, projected onto the view plane
        and drawn as the outline (convex hull) of its projection.
    frames : sequence of (H_WC, color)
        Frames drawn as their projected x (thin) and z (thick) axes.
    view : {"xz", "yz", "xy"}
    floor : float, optional
        Height of a floor line to draw (for "xz"/"yz").
    """
    from scipy.spatial import ConvexHull

    idx = {"xz": (0, 2), "yz": (1, 2), "xy": (0, 1)}[view]
    for S, H, color in bodies:
        smp = S.sample(40, 24, 0)
        P = smp.points.reshape(-1, 3) @ H[:3, :3].T + H[:3, 3]
        Q = P[:, idx]
        hull = ConvexHull(Q)
        loop = np.append(hull.vertices, hull.vertices[0])
        ax.fill(Q[loop, 0], Q[loop, 1], color=color, alpha=0.35, lw=0)
        ax.plot(Q[loop, 0], Q[loop, 1], color=color, lw=1.2)
    for H, color in frames:
        o = H[:3, 3][list(idx)]
        for col, lw in ((0, 0.8), (2, 2.0)):
            d = H[:3, col][list(idx)] * frame_length
            ax.annotate("", xy=o + d, xytext=o, arrowprops=dict(arrowstyle="->", color=color, lw=lw))
    if floor is not None and view != "xy":
        xl = ax.get_xlim()
        ax.axhline(floor, color="0.3", lw=1)
        ax.set_xlim(xl)
    ax.set_aspect("equal")
    ax.set_title(title, fontsize=9)
    ax.set_xlabel(view[0] + " [m]")
    ax.set_ylabel(view[1] + " [m]")
    return ax
