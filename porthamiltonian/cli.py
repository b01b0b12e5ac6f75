"""The `porthamiltonian` command: list models, run one with its energy ledger, draw its bond graph.

    porthamiltonian list
    porthamiltonian run MODEL|FILE.json|FILE.py [--t-end T] [--param name=value ...] [--out DIR] [--contact KIND]
                        [--method NAME [--step H]]
    porthamiltonian save MODEL --out FILE.json [--param name=value ...] [--contact KIND]
    porthamiltonian graph MODEL [--out DIR]
    porthamiltonian sweep MODEL -p name=a:b:logN -p name=v1,v2 [--contact K1,K2] [--workers N] [--scheduler ADDRESS] --out DIR
    porthamiltonian view OUTDIR [--out FILE.html] [--animate FILE.gif|FILE.mp4]
    porthamiltonian warmup [--models NAME,NAME,...|none]

A model file (`porthamiltonian.models.files`) holds a whole model, and a Python file may
define `build()` returning a `Model` or a `BondGraph`; `run` takes either in place of a
registered model's name.
"""

from __future__ import annotations

import argparse
import math
import os
import signal
import sys
import threading
from pathlib import Path

from . import _interrupt
from ._files import OutputWriteError, check_replaceable, check_writable, recover_leftovers, savez, staged_directory
from .errors import ParameterError, PortHamiltonianError
from .studies.records import ModelFileError

__all__ = ["main"]


def _models():
    from porthamiltonian import models

    return models


def _parse_params(items):
    out = {}
    for item in items or []:
        if "=" not in item:
            raise SystemExit(f"error: --param takes name=value, got {item!r}")
        k, v = item.split("=", 1)
        out[k.strip().replace("-", "_")] = v.strip()
    return out


def cmd_list(args):
    models = _models()
    for name in sorted(models.MODELS):
        spec = models.MODELS[name]
        print(f"{name}: {spec.description}")
        for pname, p in spec.parameters.items():
            rule = f" (must {models.RULES[p.rule][1]})" if p.rule else ""
            rule += f" (one of {', '.join(p.choices)})" if p.choices else ""
            print(f"    {pname} = {p.default!r} [{p.unit}]  {p.doc}{rule}")
    return 0


def _is_file(model):
    return str(model).endswith((".json", ".py"))


def _build(args):
    from .studies.records import load_model_file

    models = _models()
    if _is_file(args.model):
        if args.param or getattr(args, "contact", None):
            raise PortHamiltonianError("a model file's parameters are in the file: --param and --contact apply to "
                                       "registered models (save one with `porthamiltonian save MODEL -p ...`)")
        return load_model_file(args.model)
    params = _parse_params(args.param)
    if getattr(args, "contact", None):
        spec = models.get_model(args.model)
        if "contact" not in spec.parameters:
            raise PortHamiltonianError(f"model {args.model!r} has no contact to choose (no `contact` parameter)")
        params["contact"] = args.contact
    return models.build_model(args.model, **params)


def _save_contact_forces(model_name, traj, out, events):
    """contact_forces.npz (per contact: normal, tangential, spin, point, normal direction; per
    body touched by two contacts or more: the centre of pressure and the summed normal force),
    a plot of the normal forces and one of the centres of pressure; nothing for a model
    without contacts. Returns the figures written."""
    from .diagnostics.contact_forces import contact_bodies, contact_names, support_polygon
    from .diagnostics.plots import plot_center_of_pressure, plot_series, save_figure

    names = contact_names(traj.system)
    if not names:
        return []
    forces = {n: traj.contact_forces(n) for n in names}
    arrays = {f"{n}.{field}": getattr(f, field) for n, f in forces.items()
              for field in ("normal", "tangential", "spin", "point", "normal_direction")}
    touched = contact_bodies(traj.system)
    pressure = {body: traj.center_of_pressure(body) for body, on in touched.items() if len(on) >= 2}
    for body, (cop, total) in pressure.items():
        arrays[f"{body}.center_of_pressure"], arrays[f"{body}.total_normal"] = cop, total
    savez(out / "contact_forces.npz", t=traj.t, **arrays)
    fig = plot_series(traj.t, {f"{n}: normal force [N]": f.normal for n, f in forces.items()},
                      ylabel="normal force [N]", title=f"{model_name}: contact normal forces", events=events)
    rigid = {n for n in forces if any(p.startswith(f"{n}/") and o.category == "constraint"
                                      for p, o in traj.system.elements.items())}
    _flag_pulling(fig.axes[0], forces, rigid=rigid, instants=traj.t, events=[e.t for e in traj.events])
    written = [save_figure(fig, out / "contact_forces.png")]
    if pressure:
        supports = {body: support_polygon(traj, body) for body in pressure}
        fig = plot_center_of_pressure(traj.t, {body: cop for body, (cop, _) in pressure.items()},
                                      title=f"{model_name}: centre of pressure of each body's contacts, world "
                                            "(blank: not pressed)", events=events, supports=supports)
        written.append(save_figure(fig, out / "center_of_pressure.png"))
    return written


#: relative size (to the largest normal force of the run) below which a pulling normal force is round-off
PULL_ROUND_OFF = 1e-9


def _flag_pulling(ax, forces, rigid=(), instants=None, events=()):
    """Say on the figure (and in the log) when a normal force pulls (< 0): a compliant law's
    damper pulls while the surfaces separate faster than its spring pushes (the law as given,
    plotted unclipped). A pull within `PULL_ROUND_OFF` of the largest normal force is the
    round-off of a rigid contact's multiplier solve (-3e-13 N on Go1's sliding-plane feet
    carrying 130 N) and is not reported. A `rigid` contact's pull at an event instant (sample
    times `instants`, event times `events`) is its force between two jumps of that instant (a
    slip changes the forces, and the detach that follows at once switches the contact off:
    -5.3 N on Go1's trotting feet) and is not reported either; a rigid contact pulling at
    any other sample was held on while pulling, and is reported as such."""
    import numpy as np

    scale = max((float(abs(f.normal).max()) for f in forces.values() if f.normal.size), default=0.0)
    at_event = np.isin(instants, events) if instants is not None else None
    pulling = {}
    for n, f in forces.items():
        pull = f.normal < -PULL_ROUND_OFF * scale
        if n in rigid and at_event is not None:
            pull &= ~at_event
        if np.any(pull):
            pulling[n] = float(f.normal[pull].min())
    if not pulling:
        return
    worst = min(pulling, key=pulling.get)
    why = ("a rigid contact held on while its force pulls (its detach did not fire)" if worst in rigid else
           "the contact law's damper pulls while the surfaces separate (plotted as the law gives it)")
    text = f"normal force < 0 (pulling) in {len(pulling)} contact(s), down to {pulling[worst]:.3g} N ({worst}): {why}"
    ax.axhline(0.0, color="k", lw=0.6)
    ax.text(0.01, 0.02, text, transform=ax.transAxes, fontsize="x-small", wrap=True, va="bottom",
            bbox={"facecolor": "white", "alpha": 0.8, "lw": 0})
    print(f"note: {text}")


def _check_out_dir(out, replace=False):
    """Raise ParameterError unless `out` is (or can be made as) a writable directory, and,
    with `replace`, one a run may replace whole (`porthamiltonian._files.check_replaceable`):
    checked before a model is built or simulated, so a long run never ends unable to save.
    Writability is probed by creating a file (`porthamiltonian._files.check_writable`). With
    `replace`, the leftovers of a killed run into `out` are first repaired
    (`porthamiltonian._files.recover_leftovers`), with a line saying so."""
    out = Path(out)
    if replace:
        note = recover_leftovers(out)
        if note:
            print(note, file=sys.stderr)
    if out.exists():
        if not out.is_dir():
            raise ParameterError(f"`--out` {str(out)!r} is an existing file, not a directory; give a directory to "
                                 "write the results in")
        if not os.access(out, os.W_OK | os.X_OK):
            raise ParameterError(f"`--out` {str(out)!r} is a directory that is not writable")
        check_writable(out)
        if replace:
            check_replaceable(out)
            if not os.access(out.absolute().parent, os.W_OK | os.X_OK):
                raise ParameterError(f"`--out` {str(out)!r} cannot be replaced: its directory "
                                     f"{str(out.absolute().parent)!r} is not writable")
            check_writable(out.absolute().parent, f"`--out` {str(out)!r} cannot be replaced")
        return out
    parent = out.absolute().parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise ParameterError(f"`--out` {str(out)!r} cannot be created: {str(parent)!r} is a file, not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ParameterError(f"`--out` {str(out)!r} cannot be created: directory {str(parent)!r} is not writable")
    check_writable(parent, f"`--out` {str(out)!r} cannot be created")
    return out


def _make_out_dir(out):
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ParameterError(f"`--out` {str(out)!r}: cannot create the directory ({exc.strerror or exc})") from None
    return out


def _check_run_args(args):
    """The numeric and solver options of `run` and `sweep`, checked before anything is built
    (`porthamiltonian._options`, whose checks the API shares)."""
    from ._options import CLI_LABELS, check_method, check_step

    if args.method is not None:
        check_method(args.method, CLI_LABELS["method"])
    if args.step is not None:
        check_step(args.step, CLI_LABELS["step"])
    if args.t_end is not None and not (math.isfinite(args.t_end) and args.t_end > 0):
        raise ParameterError(f"`--t-end` must be a finite number of seconds > 0, got {args.t_end!r}")
    if args.samples != 0 and args.samples < 2:
        raise ParameterError(f"`--samples` must be 0 (the solver's own steps) or >= 2 (evenly spaced samples from "
                             f"0 to t_end), got {args.samples}")


def cmd_run(args):
    """Build, compile and integrate a model, print its energy ledger, write its outputs.

    The outputs are written into a hidden directory beside ``--out`` that then replaces it
    whole (`porthamiltonian._files.staged_directory`): a run into a directory used before
    leaves only its own outputs, and an interrupted run (SIGINT, SIGTERM, even SIGKILL)
    leaves the previous ones untouched. If the outputs cannot be written after the work (a
    full disk), they are written to a fallback directory (`_rescue`) and the command says
    where, exit 1.
    """
    _check_run_args(args)
    label = Path(args.model).stem if _is_file(args.model) else args.model
    out = _check_out_dir(args.out or f"out/{label}", replace=True)
    _check_animate(args)
    prepared = _prepare(args)
    _make_out_dir(out.parent)
    traj, wall = _integrate(args, prepared)
    _interrupt.check()   # an interrupt the integration swallowed: nothing is written
    budget = traj.power_budget()
    print(budget.table())
    try:
        n_figures, scene = _write_run(out, args, label, prepared, traj, wall, budget)
    except OutputWriteError as exc:
        return _rescue(exc, out, args, label, prepared, traj, wall, budget)
    print(f"saved trajectory (npz, csv), summary.json, view.json and {n_figures} figure(s) in {out}/")
    _show(scene, out, args)
    if traj.status < 0:
        print(f"FAILED: {traj.message}", file=sys.stderr)
        return 1
    if traj.warnings:   # flagged by the energy audit (status 2): a success, said on the last line
        print(f"FLAGGED ({', '.join(dict.fromkeys(traj.flags))}): " + "; ".join(traj.warnings))
    return 0


def _write_run(out, args, label, prepared, traj, wall, budget):
    """All the outputs of a run, replacing `out` whole; returns (number of figures, scene)."""
    with staged_directory(out) as stage:
        n_figures = _write_outputs(stage, args.model, prepared, traj, wall, budget)
        scene = _write_scene(stage, traj, label, args.view)
    return n_figures, scene


def rescue_directory(label):
    """The fallback directory of a run whose outputs could not be written to ``--out``:
    ``$TMPDIR/porthamiltonian-rescue/LABEL-YYYYmmdd-HHMMSS-PID`` (the system's temporary
    directory, usually another file system than the user's outputs)."""
    import tempfile
    import time

    stamp = time.strftime("%Y%m%d-%H%M%S")
    return Path(tempfile.gettempdir()) / "porthamiltonian-rescue" / f"{label}-{stamp}-{os.getpid()}"


def _rescue(exc, out, args, label, prepared, traj, wall, budget):
    """Write a finished run whose outputs failed (`exc`) into `rescue_directory`; one line on
    stderr says what failed and where the results are (or that they are lost). Returns 1."""
    fallback = rescue_directory(label)
    what = f"error: cannot write {exc.path.name!r} in {str(out)!r} ({exc.reason}); {str(out)!r} is unchanged"
    try:
        fallback.parent.mkdir(parents=True, exist_ok=True)
        _write_run(fallback, args, label, prepared, traj, wall, budget)
    except (OutputWriteError, OSError) as again:
        reason = getattr(again, "reason", None) or again.strerror or again
        print(f"{what}; the results could not be saved in {str(fallback)!r} either ({reason})", file=sys.stderr)
        return 1
    print(f"{what}; the results were saved in {str(fallback)!r} instead", file=sys.stderr)
    return 1


def _spec(args):
    """The run the arguments ask for (`porthamiltonian.studies.records.RunSpec`): every
    parameter value, defaults included, so that its summary can reproduce it."""
    from .studies.records import SOLVER_KEYS, RunSpec, model_reference, resolve_parameters

    from ._options import CLI_LABELS, check_parameter_values
    from .models.files import read_model_file

    params = _parse_params(args.param)
    if _is_file(args.model) and (params or args.contact):
        raise PortHamiltonianError("a model file's parameters are in the file: --param and --contact apply to "
                                   "registered models (save one with `porthamiltonian save MODEL -p ...`)")
    if str(args.model).endswith(".json"):
        read_model_file(args.model)   # its schema, with the path as given (the spec holds it absolute)
    if args.contact:
        if "contact" not in _models().get_model(args.model).parameters:
            raise PortHamiltonianError(f"model {args.model!r} has no contact to choose (no `contact` parameter)")
        params["contact"] = args.contact
    for name, value in params.items():
        params[name] = check_parameter_values(args.model, name, [value], CLI_LABELS)[0]
    solver = {k: getattr(args, k) for k in SOLVER_KEYS if getattr(args, k, None) is not None}
    model = model_reference(args.model)
    return RunSpec(model, resolve_parameters(model, params), args.t_end, solver, args.samples, args.max_nfev,
                   args.timeout)


def _prepare(args):
    """The prepared run (`studies.records.prepare`: model, compiled system with its compiled
    right-hand side built now, initial state, end time), its report printed."""
    from ._options import CLI_LABELS
    from .studies.records import long_run_warning, prepare

    from .kernels import _parallel

    with _parallel.ahead():   # a first run: helpers compile the contact kernels while the model is built
        prepared = prepare(_spec(args), labels=CLI_LABELS)
    print(f"model {args.model!r}: {prepared.system}")
    print(prepared.system.report.summary())
    print(f"right-hand side: {prepared.jit} ({prepared.jit_wall:.2f} s to compile or load it)")
    if prepared.model.notes:
        print(prepared.model.notes)
    warning = long_run_warning(prepared, CLI_LABELS)
    if warning:
        print(f"warning: {warning}", file=sys.stderr, flush=True)
    return prepared


def _integrate(args, prepared):
    """The trajectory (`studies.records.integrate`) and its wall time; prints the run's line
    and its events."""
    from .integrate.progress import progress_logging
    from .studies.records import integrate

    with progress_logging(not args.no_progress, force=True):   # the bar is part of the command's output
        traj, wall = integrate(prepared, progress=not args.no_progress)
    span = float(traj.t[-1] - traj.t[0])
    per_second = f" ({wall / span:.2f} s per simulated second)" if span > 0 else ""
    print(f"{traj}\nwall time {wall:.2f} s{per_second}, {traj.nfev} rhs evaluations")
    if traj.events:
        print(f"{len(traj.events)} events:")
        for e in traj.events[:40]:
            print(f"  {e}")
        if len(traj.events) > 40:
            print(f"  ... ({len(traj.events) - 40} more)")
    return traj, wall


def _write_outputs(out, name, prepared, traj, wall, budget):
    """The run's record (`studies.records.write_run`: trajectory, summary.json, observables
    npz and csv) and the figures; returns the number of figures."""
    from .diagnostics.plots import plot_observables, plot_power_budget, save_figure
    from .studies.records import write_run

    _, table = write_run(out, prepared, traj, wall, budget)
    series = {k.split(" [")[0]: v for k, v in list(table.items())[1:]}
    model = prepared.model
    figs = [save_figure(plot_power_budget(budget, title=f"{name}: energy ledger"), out / "energy_budget.png")]
    events = [(e.t, e.name) for e in traj.events]
    for title, names in (model.groups or {"observables": list(series)}).items():
        if names:
            fig = plot_observables(traj.t, {n: series[n] for n in names}, model.units, title=f"{name}: {title}",
                                   events=events)
            figs.append(save_figure(fig, out / f"{title.replace(' ', '_')}.png"))
    figs += _save_contact_forces(name, traj, out, events)
    return len(figs)


def _check_animate(args):
    if args.animate:
        from .diagnostics.animation import check_animation_path, check_animation_size

        check_animation_path(args.animate, "--animate")
        check_animation_size(_animation_options(args)["size"], args.animate)


def _write_scene(out, traj, label, html):
    """view.json (the viewer's scene, read by `porthamiltonian view`) and, with `html`,
    view.html; returns the scene."""
    from .viewer import scene_from_trajectory, write_html

    scene = scene_from_trajectory(traj, title=label)
    scene.save(out / "view.json")
    if html:
        write_html(scene, out / "view.html")
    return scene


def _show(scene, out, args):
    """Say where the viewer is, and write the animation asked for."""
    if getattr(args, "view", False):
        print(f"3D viewer: {(out / 'view.html').absolute()} (open it in a browser; ?t=SECONDS shows one time)")
    if args.animate:
        from .diagnostics.animation import animate_scene

        print(f"saved the animation {animate_scene(scene, args.animate, **_animation_options(args))}")


def cmd_warmup(args):
    """Compile the contact kernels and the built-in models' right-hand sides into numba's
    cache ahead of time (`porthamiltonian.studies.warmup.warmup`), one line per item."""
    from .studies.warmup import warmup

    names = None if args.models is None else [m for m in args.models.split(",") if m and m != "none"]
    warmup(names)
    return 0


def cmd_view(args):
    """The 3D viewer (and an animation) of a run's outputs, from its view.json."""
    from .viewer import load_scene, write_html

    folder = Path(args.outdir)
    if not folder.is_dir():
        raise ParameterError(f"`OUTDIR` {str(folder)!r} is not a directory; give the output directory of "
                             "`porthamiltonian run`")
    html = Path(args.out) if args.out else folder / "view.html"
    if html.is_dir():
        raise ParameterError(f"`--out` {str(html)!r} is a directory; give the HTML file to write")
    if not html.absolute().parent.is_dir():
        raise ParameterError(f"`--out` {str(html)!r}: no directory {str(html.absolute().parent)!r} to write it in")
    check_writable(html.absolute().parent, f"`--out` {str(html)!r}")
    _check_animate(args)
    scene = load_scene(folder / "view.json")
    print(f"3D viewer: {write_html(scene, html).absolute()} (open it in a browser; ?t=SECONDS shows one time)")
    if args.animate:
        from .diagnostics.animation import animate_scene

        print(f"saved the animation {animate_scene(scene, args.animate, **_animation_options(args))}")
    return 0


def _add_animation_options(q):
    q.add_argument("--animate", metavar="FILE", help="also write an animation, drawn by the 3D viewer in headless "
                   "Chromium (matplotlib 3D without it): FILE.gif (Pillow) or FILE.mp4 (ffmpeg)")
    q.add_argument("--fps", type=float, default=25.0, help="frames per second of the animation")
    q.add_argument("--speed", type=float, default=1.0, help="simulated seconds per second of the animation")
    q.add_argument("--animate-size", metavar="WxH", default="1280x720", help="pixels of the animation (default 1280x720)")
    q.add_argument("--animate-chart", action="store_true", help="the energy ledger's chart in the animation's frames")


def _animation_options(args):
    """`animate_scene`'s keywords from the command line; `--animate-size` must be WIDTHxHEIGHT."""
    w, sep, h = args.animate_size.partition("x")
    if not (sep and w.isdigit() and h.isdigit()):
        raise ParameterError(f"`--animate-size` must be WIDTHxHEIGHT in pixels (e.g. 1920x1080), got {args.animate_size!r}")
    return {"fps": args.fps, "speed": args.speed, "size": (int(w), int(h)), "chart": args.animate_chart}


def cmd_graph(args):
    from .bondgraph.causality import assign_causality
    from .diagnostics.plots import save_figure

    label = Path(args.model).stem if _is_file(args.model) else args.model
    out = _check_out_dir(args.out or f"out/{label}")
    model = _build(args)
    _make_out_dir(out)
    print(assign_causality(model.graph))
    ax = model.graph.draw()
    path = save_figure(ax.figure, out / "bond_graph.png")
    print(f"saved {path}")
    return 0


def cmd_save(args):
    from porthamiltonian.models.files import save_model

    out = Path(args.out)
    if out.is_dir():
        raise ParameterError(f"`--out` {str(out)!r} is a directory; give the model file to write (FILE.json)")
    _check_out_dir(out.parent)
    model = _build(args)
    try:
        print(f"saved {save_model(model, out)}")
    except OSError as exc:
        raise ParameterError(f"`--out` {str(out)!r}: cannot write the model file ({exc.strerror or exc})") from None
    return 0


def cmd_sweep(args):
    """Run a registered model (or a model file) over a grid of parameter values on Dask and
    write the table (`sweep.parquet`), a plot per swept parameter and the failure log."""
    from ._options import CLI_LABELS, check_parameter_values
    from .diagnostics.plots import plot_sweep, save_figure
    from .studies.metrics import metric
    from .studies.sweep import FAILURES, TABLE, failure_lines, parse_range, sweep

    _check_run_args(args)
    out = _check_out_dir(args.out or f"out/sweep-{Path(args.model).stem}")
    grid = {}
    for name, text in _parse_params(args.param).items():
        grid[name] = check_parameter_values(args.model, name, parse_range(name, text), CLI_LABELS)
    if args.contact:
        grid["contact"] = check_parameter_values(args.model, "contact", parse_range("--contact", args.contact),
                                                 CLI_LABELS)
    if not grid:
        raise ParameterError("`porthamiltonian sweep` needs a swept parameter: -p name=a:b:logN, -p name=v1,v2 or "
                             "--contact kind1,kind2")
    metrics = {m: metric(m) for m in args.metric or []}
    solver = {k: getattr(args, k) for k in ("method", "rtol", "atol", "max_step", "step") if getattr(args, k) is not None}
    table = sweep(args.model, grid, t_end=args.t_end, solver=solver, samples=args.samples, max_nfev=args.max_nfev,
                  timeout=args.timeout, metrics=metrics, out=out, trajectories=args.trajectories,
                  workers=args.workers, scheduler=args.scheduler, connect_timeout=args.connect_timeout,
                  progress=not args.no_progress, rerun_failed=args.rerun_failed)
    group = "contact" if "contact" in grid and len(grid["contact"]) > 1 else None
    ok = table["status"] == "ok"
    ledger = [c for c in ("ledger.dissipated", "ledger.lost", "ledger.stabilization")
              if ok.any() and table.loc[ok, c].abs().max() > 0]
    plots = 0
    for name in (n for n in grid if n != group):
        for columns, suffix, what in ((ledger, "", "energy ledger [J]"), ([f"metric.{m}" for m in metrics], "_metrics",
                                                                          "metrics")):
            if columns:
                fig = plot_sweep(table, name, columns, group=group, title=f"{args.model}: {what} against {name}",
                                 model=None if Path(args.model).suffix else args.model)
                save_figure(fig, out / f"sweep_{name}{suffix}.png")
                plots += 1
    failed = int((~ok).sum())
    print(f"{len(table)} runs, {failed} failed: {out / TABLE}, {out / FAILURES}, {plots} plot(s)")
    for line in failure_lines(table):
        print(line, file=sys.stderr)
    return 1 if failed else 0


def make_parser():
    p = argparse.ArgumentParser(prog="porthamiltonian", description="Screw bond graphs compiled to port-Hamiltonian systems.")
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list the models and their parameters")
    for name, hlp in (("run", "simulate a model (registered, or a model file) and print its energy ledger"),
                      ("graph", "draw a model's bond graph"), ("save", "write a registered model to a model file")):
        q = sub.add_parser(name, help=hlp)
        q.add_argument("model")
        q.add_argument("--param", "-p", action="append", metavar="NAME=VALUE", help="override a model parameter")
        q.add_argument("--out", "-o", required=name == "save",
                       help="the model file to write" if name == "save" else "output directory (default out/MODEL)")
        q.add_argument("--contact", help="contact model for models with contacts (compliant, sliding_plane, soil, or reduced for a body on the ground)")
        if name == "run":
            q.add_argument("--t-end", type=float, help="simulated time [s]")
            q.add_argument("--method", help="solve_ivp method (RK45, DOP853, Radau, BDF, LSODA, ...), or the "
                                            "fixed-step RK4 or discrete_gradient (with --step)")
            q.add_argument("--step", type=float, help="fixed step [s] of --method RK4 or discrete_gradient")
            q.add_argument("--rtol", type=float)
            q.add_argument("--atol", type=float)
            q.add_argument("--max-step", dest="max_step", type=float)
            q.add_argument("--max-nfev", dest="max_nfev", type=int, help="stop after this many rhs evaluations")
            q.add_argument("--timeout", type=float, help="stop after this many seconds of wall time")
            q.add_argument("--no-progress", action="store_true", help="no progress bar")
            q.add_argument("--samples", type=int, default=1001,
                           help="output samples, evenly spaced (0: the solver's own steps); events are always included")
            q.add_argument("--view", action="store_true", help="also write the 3D viewer, view.html (standalone)")
            _add_animation_options(q)
    q = sub.add_parser("view", help="write the 3D viewer (view.html) of a run's output directory")
    q.add_argument("outdir", metavar="OUTDIR", help="a directory written by `porthamiltonian run`")
    q.add_argument("--out", "-o", help="the HTML file to write (default OUTDIR/view.html)")
    _add_animation_options(q)
    q = sub.add_parser("sweep", help="run a model over a grid of parameter values on Dask (table, plots, failure log)")
    q.add_argument("model")
    q.add_argument("--param", "-p", action="append", metavar="NAME=RANGE",
                   help="swept values: a:b:linN, a:b:logN or v1,v2,... (several -p: their product)")
    q.add_argument("--contact", help="contact kinds swept, comma-separated (compliant,sliding_plane)")
    q.add_argument("--workers", type=int, help="worker processes of the local Dask cluster (default: one per core; "
                                               "0: run here, one after the other)")
    q.add_argument("--scheduler", help="address of a running Dask scheduler (tcp://host:8786) instead")
    q.add_argument("--connect-timeout", dest="connect_timeout", type=float, default=5.0,
                   help="seconds to wait for --scheduler")
    q.add_argument("--out", "-o", help="output directory (default out/sweep-MODEL); a sweep into it again resumes")
    q.add_argument("--trajectories", action="store_true", help="save each run's trajectory (npz)")
    q.add_argument("--rerun-failed", dest="rerun_failed", action="store_true",
                   help="resuming, run again the runs that failed for a reason of the model (those that failed for "
                        "a reason of the machine, a full disk or a lost worker, always are)")
    q.add_argument("--metric", action="append", metavar="NAME",
                   help="a column and a plot: time_to_rest, max_normal_force, min:OBSERVABLE or max:OBSERVABLE")
    q.add_argument("--t-end", type=float, help="simulated time [s]")
    q.add_argument("--method", help="as for `run`")
    q.add_argument("--step", type=float, help="fixed step [s] of --method RK4 or discrete_gradient")
    q.add_argument("--rtol", type=float)
    q.add_argument("--atol", type=float)
    q.add_argument("--max-step", dest="max_step", type=float)
    q.add_argument("--max-nfev", dest="max_nfev", type=int, help="stop a run after this many rhs evaluations")
    q.add_argument("--timeout", type=float, help="stop a run after this many seconds of wall time")
    q.add_argument("--samples", type=int, default=1001, help="output samples per run (0: the solver's steps)")
    q.add_argument("--no-progress", action="store_true", help="no progress bar")
    q = sub.add_parser("warmup", help="compile every built-in kernel into numba's cache ahead of time (CI images, "
                                      "clusters, Dask workers)")
    q.add_argument("--models", help="the models whose right-hand sides to compile, comma-separated (default: every "
                                    "registered model; none: the contact kernels only)")
    return p


def main(argv=None):
    """Run a command; returns the exit status: 0, 1 (a run that failed, outputs written; or
    outputs that could not be written, saved elsewhere as said), 2 (a bad argument or model),
    130 (interrupted by SIGINT, Ctrl-C) or 143 (by SIGTERM): no output written or replaced,
    wherever the signal lands (start-up, build, compile, integration, writing)."""
    command, previous = "porthamiltonian", {}
    try:
        if threading.current_thread() is threading.main_thread():
            previous = _interrupt.install()
        args = make_parser().parse_args(argv)
        command = f"porthamiltonian {args.command}"
        return {"list": cmd_list, "run": cmd_run, "graph": cmd_graph, "save": cmd_save,
                "sweep": cmd_sweep, "view": cmd_view, "warmup": cmd_warmup}[args.command](args)
    except BaseException as exc:
        return _failed(command, exc)
    finally:
        _interrupt.restore(previous)


def _failed(command, exc):
    """The exit status of a command that raised `exc` (re-raised if it is not ours to report),
    after one line on stderr. A signal received counts first, whatever error it surfaced as
    (numba's SystemError, an error of the model's code, a failed write)."""
    if isinstance(exc, SystemExit):
        raise exc
    if isinstance(exc, KeyboardInterrupt) or _interrupt.received() is not None:
        return _interrupted(command, exc)
    if isinstance(exc, OutputWriteError):
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if isinstance(exc, ModelFileError):   # the user's code raised: their traceback under our one line
        print(f"error: {exc}\n{exc.user_traceback()}", file=sys.stderr, end="")
        return 1
    if isinstance(exc, PortHamiltonianError):
        print(f"error: {exc}", file=sys.stderr)
        return 2
    raise exc


def _interrupted(command, exc):
    status = _interrupt.exit_status(exc)
    name = "" if status - 128 == signal.SIGINT else f" by {signal.Signals(status - 128).name}"
    kept = ("the finished runs are kept in the table; the same sweep into the same --out resumes"
            if command.endswith(" sweep") else "no output was written or replaced")
    print(f"\ninterrupted{name}: `{command}` stopped; {kept}", file=sys.stderr)
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
