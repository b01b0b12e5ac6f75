"""Trajectory: the outcome of `simulate` (times, states, status, events, energies, powers)."""

from __future__ import annotations

import csv
import os
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from .._files import atomic_file
from ..errors import ParameterError

if TYPE_CHECKING:
    from ..diagnostics.ledger import PowerBudget

__all__ = ["Trajectory", "EventRecord"]


@dataclass(frozen=True)
class EventRecord:
    """An event that happened during a simulation."""

    t: float
    name: str
    message: str
    lost: float
    #: the state at the event (before an element event's jump), shape (n,)
    x: np.ndarray | None = None

    def __str__(self):
        lost = f", {self.lost:.6g} J lost" if self.lost else ""
        return f"t = {self.t:.6g} s: {self.name}: {self.message}{lost}"


class Trajectory:
    """Times and states of a simulation, with the quantities derived from them.

    Attributes
    ----------
    system : PHSystem
    t : ndarray, shape (N,)
        Output times [s]; an event time appears twice (state before and after the jump).
    x : ndarray, shape (N, n)
        States (rows). Use `state(name)` for a block by name.
    status : int
        0 reached the end, 1 a terminal user event stopped it, 2 reached the end but the energy
        audit flagged the run (see `warnings`), -1 failed.
    message : str
    warnings : list of str
        What the energy audit of `simulate` found (`PowerBudget.findings`: a ledger residual
        above what the tolerances allow, an element that generates energy, a contact beyond
        the range of its law), one message each; empty for a clean run. Also raised as
        `porthamiltonian.errors.AuditWarning` warnings.
    flags : list of str
        The codes of `warnings` ("ledger_residual", "not_passive", "soil_depth", ...).
    events : list of EventRecord
    nfev, njev, nlu : int
        Right-hand side evaluations, Jacobian evaluations, LU decompositions.
    """

    def __init__(self, system, t, x, status, message, events, *, nfev=0, njev=0, nlu=0, method="", rtol=None, atol=None,
                 dense=None):
        self.system = system
        self.t = np.asarray(t, dtype=float)
        # rows contiguous: each state is handed to the compiled kernels, which would otherwise
        # compile a second specialization for strided arrays (seconds of first-run JIT)
        self.x = np.ascontiguousarray(x, dtype=float)
        self.status = status
        self.message = message
        self.events = list(events)
        self.nfev, self.njev, self.nlu = nfev, njev, nlu
        self.method, self.rtol, self.atol = method, rtol, atol
        self._dense = dense   # (t_start, t_end, OdeSolution) per segment, or None
        self.warnings, self.flags = [], []
        #: ``(code, message)`` findings of the run's elements, read by the audit
        self.notes = []

    #: `status` of a run that reached its end but was flagged by the energy audit
    FLAGGED = 2

    @property
    def success(self) -> bool:
        """True unless the integration failed (a flagged run, status 2, succeeded: see `warnings`)."""
        return self.status >= 0

    def state(self, name: str) -> np.ndarray:
        """A block of the state over time, shape (N, k) (or (N,) for a scalar block)."""
        sl = self.system.layout[name]
        out = self.x[:, sl]
        return out[:, 0] if out.shape[1] == 1 else out

    def at(self, t: float) -> np.ndarray:
        """The stored state nearest to time t (no interpolation; `sol` interpolates)."""
        return self.x[int(np.argmin(np.abs(self.t - t)))]

    def sol(self, t: ArrayLike) -> np.ndarray:
        """The state at time(s) `t` from the solver's interpolants, across events and segments.

        Parameters
        ----------
        t : float or array_like, shape (m,)
            Times within the run [s]. At an event time, the state after the event.

        Returns
        -------
        ndarray, shape (n,) or (m, n)

        Raises
        ------
        ParameterError
            Without ``simulate(..., dense_output=True)``, or for a time outside the run.
        """
        if self._dense is None:
            raise ParameterError("`sol` needs the solver's interpolants: simulate(..., dense_output=True)")
        ts = np.asarray(t, dtype=float)
        flat = np.atleast_1d(ts)
        lo, hi = self._dense[0][0], self._dense[-1][1]
        bad = flat[~((flat >= lo) & (flat <= hi))]
        if bad.size:
            raise ParameterError(f"`t` must lie within the run [{lo!r}, {hi!r}] s, got {bad[:3].tolist()}")
        starts = np.array([p[0] for p in self._dense])
        which = np.searchsorted(starts, flat, side="right") - 1
        out = np.empty((flat.size, self.x.shape[1]))
        for k in np.unique(which):
            sel = which == k
            out[sel] = self._dense[k][2](flat[sel]).T
        return out[0] if ts.ndim == 0 else out

    @cached_property
    def energies(self) -> dict[str, np.ndarray]:
        """Stored energy per storage element over time: dict path -> ndarray (N,) [J]."""
        return self.system.element_energy_series(self.x) if len(self.x) else {}

    @cached_property
    def hamiltonian(self) -> np.ndarray:
        """Total stored energy H(t), shape (N,) [J]."""
        E = self.energies
        return np.sum(np.stack(list(E.values())), axis=0) if E else np.zeros_like(self.t)

    @cached_property
    def port_powers(self) -> dict[str, np.ndarray]:
        """Power into every element through its ports over time: dict path -> ndarray (N,) [W]."""
        per = [self.system.port_powers(ti, xi) for ti, xi in zip(self.t, self.x)]
        keys = per[0].keys() if per else []
        return {k: np.array([p[k] for p in per]) for k in keys}

    def multipliers(self) -> dict[str, np.ndarray]:
        """Constraint multipliers over time: dict owner -> ndarray (N, k) (joint reactions, contact forces)."""
        if not self.system.has_constraints:   # none: no evaluation needed
            return {}
        cons, cuts = self.system.constraint_series(self.t, self.x)
        return {**{k: v[0] for k, v in cons.items()}, **cuts}

    def contact_forces(self, name):
        """Normal and tangential force, spin torque and contact point of contact component
        `name` over time (`porthamiltonian.diagnostics.contact_forces`). The first call
        computes every contact's in one pass over the samples (`contacts_forces`), kept for
        the later calls (a trajectory's samples do not change)."""
        from ..diagnostics.contact_forces import contact_names, contacts_forces

        cache = self.__dict__.setdefault("_contact_forces", {})
        if name not in cache:
            names = contact_names(self.system)
            cache.update(contacts_forces(self, names if name in names else [name]))
        return cache[name]

    def center_of_pressure(self, body, contacts=None):
        """Centre of pressure of the contacts on `body` over time, and their total normal
        force (`porthamiltonian.diagnostics.contact_forces.center_of_pressure`)."""
        from ..diagnostics.contact_forces import center_of_pressure

        return center_of_pressure(self, body, contacts)

    def view(self, path=None, *, height=540, **options):
        """The 3D viewer of this trajectory (`porthamiltonian.viewer`): a `ViewerPage` that
        displays inline in Jupyter (one offline page in an iframe) and, given `path` (a .html
        file), is also written there as a standalone file (its `path`; ``os.fspath(page)``).

        Parameters
        ----------
        path : str or path-like, optional
            Write the page there too (`porthamiltonian.viewer.write_html`).
        height : int
            Height of the inline frame [px].
        **options
            Go to `porthamiltonian.viewer.scene_from_trajectory` (``follow``, ``max_frames``, ...).

        Returns
        -------
        porthamiltonian.viewer.ViewerPage
        """
        from ..viewer import ViewerPage, scene_from_trajectory

        page = ViewerPage(scene_from_trajectory(self, **options), height=height)
        if path is not None:
            page.save(path)
        return page

    def animate(self, path, *, fps=25, speed=1.0, size=(1280, 720), renderer="auto", chart=False, caption=True,
                **options):
        """Write an animation of this trajectory to a .gif or .mp4 file, its frames drawn by the
        HTML viewer in headless Chromium (`porthamiltonian.diagnostics.animation.animate_scene`,
        which documents `fps`, `speed`, `size`, `renderer`, `chart` and `caption`; `options` go
        to `scene_from_trajectory`). Returns the path."""
        from ..diagnostics.animation import animate_scene, check_animation_path, check_animation_size
        from ..viewer import scene_from_trajectory

        check_animation_path(path)   # before the scene is built: a missing ffmpeg fails at once
        check_animation_size(size, path)
        return animate_scene(scene_from_trajectory(self, **options), path, fps=fps, speed=speed, size=size,
                             renderer=renderer, chart=chart, caption=caption)

    def power_budget(self) -> PowerBudget:
        """The energy ledger of this trajectory (see `porthamiltonian.diagnostics.PowerBudget`)."""
        from ..diagnostics.ledger import PowerBudget

        return PowerBudget.from_trajectory(self)

    def audit(self) -> list[tuple[str, str]]:
        """Audit the run by its energy ledger (`PowerBudget.findings`, with the findings of the
        elements that check their law's range, ``audit_states``) and record the findings:
        each goes to `warnings` and `flags` (once) and is raised as an `AuditWarning`; a run
        that reached its end (status 0) becomes status 2 (`FLAGGED`), its message saying why.
        `simulate` calls this at the end of every run that did not fail. Returns the findings."""
        import warnings as _warnings

        from ..errors import AuditWarning

        for path, element in self.system.elements.items():   # elements that check their law's range
            check = getattr(element, "audit_states", None)
            if check is not None and self.t.size:
                own, refs = self.system.element_state(path, self.x[-1])
                for note in check(self.t, self.x[:, self.system.layout.element_slice(path)], refs):
                    if note not in self.notes:
                        self.notes.append(note)
        found = self.power_budget().findings()
        for code, message in found:
            if message in self.warnings:
                continue
            self.warnings.append(message)
            self.flags.append(code)
            _warnings.warn(AuditWarning(f"{self.system.name}: {message}"), stacklevel=3)
        if found and self.status == 0:
            self.status = self.FLAGGED
            self.message = (f"{self.message} Flagged by the energy audit ({', '.join(dict.fromkeys(self.flags))}): "
                            + "; ".join(self.warnings))
        return found

    def constraint_drift(self) -> dict[str, tuple[float, float]]:
        """Largest ``|gap|`` and ``|velocity residual|`` over the trajectory, per constraint."""
        if not self.system.constraints:   # none: no evaluation needed
            return {}
        out = {}
        for k, (_, c, g) in self.system.constraint_series(self.t, self.x)[0].items():
            g, c = np.abs(g), np.abs(c)
            finite = np.isfinite(g)   # rows without a position-level gap are NaN
            out[k] = (float(np.max(g[finite])) if finite.any() else 0.0, float(np.max(c)) if c.size else 0.0)
        return out

    def quaternion_drift(self) -> float:
        """Largest ``| |q| - 1 |`` over all pose/quaternion blocks (embedding drift before projection)."""
        worst = 0.0
        for b in self.system.layout.blocks:
            if b.group in ("pose", "quaternion"):
                q = self.x[:, b.start : b.start + 4]
                worst = max(worst, float(np.max(np.abs(np.linalg.norm(q, axis=1) - 1.0))))
        return worst

    # ----------------------------------------------------------------- files
    def save(self, path: str | os.PathLike) -> Path:
        """Save to .npz (t, x, names, event log) or .csv (header of state names), by suffix.

        The directory must exist (it is not created): ParameterError otherwise. The file is
        written under a temporary name and renamed into place: an interruption leaves the
        previous file or none, never a truncated one.
        """
        try:
            path = Path(path)
        except TypeError:
            raise ParameterError(f"`path` must be a str or path-like, got {path!r}") from None
        names = self.system.layout.names()
        if path.suffix not in (".npz", ".csv"):
            raise ParameterError(f"`path` must end in .npz or .csv, got {path.name!r}")
        folder = path.parent
        if not folder.is_dir():
            what = "is not a directory" if folder.exists() else "does not exist"
            raise ParameterError(
                f"`path` {str(path)!r}: the directory {str(folder)!r} {what} (it is not created; make it first)"
            )
        with atomic_file(path) as tmp:   # an interruption leaves the previous file or none
            if path.suffix == ".npz":
                with open(tmp, "wb") as fh:
                    np.savez(
                        fh, t=self.t, x=self.x, names=np.array(names), status=self.status, message=self.message,
                        event_t=np.array([e.t for e in self.events]), event_name=np.array([e.name for e in self.events]),
                        event_lost=np.array([e.lost for e in self.events]),
                    )
            else:
                with open(tmp, "w", newline="") as fh:
                    w = csv.writer(fh)
                    w.writerow(["t"] + names)
                    for ti, xi in zip(self.t, self.x):
                        w.writerow([repr(float(ti))] + [repr(float(v)) for v in xi])
        return path

    def _repr_html_(self):
        """The run and its events as HTML tables (Jupyter's rich display)."""
        from ..diagnostics.html import trajectory_html

        return trajectory_html(self)

    def __repr__(self):
        return (
            f"<Trajectory of {self.system.name!r}: {self.t.size} samples, t = {self.t[0]:.4g}..{self.t[-1]:.4g} s, "
            f"status {self.status}, {len(self.events)} events, {self.nfev} rhs evaluations"
            + (f", flagged: {', '.join(dict.fromkeys(self.flags))}" if self.flags else "") + ">"
        )
