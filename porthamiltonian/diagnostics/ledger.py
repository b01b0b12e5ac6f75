"""The energy ledger (power budget) of a trajectory.

For every element and in total, at every output time::

    stored        H_e(t) - H_e(0)          storages
    supplied      int P_supplied dt        sources, rheonomic (driven) constraints
    dissipated    int P_dissipated dt      resistors (>= 0)
    lost          sum of event losses      impacts, contact release, slip, mode switches
    stabilization int P_stab dt            work absorbed by constraint stabilization/drift

    residual = H(t) - H(0) - supplied + dissipated + lost + stabilization

The residual is the headline check: with exact arithmetic it is zero, so it measures the
integration error of the energy balance. Supplied/dissipated/stabilization are integrated
as extra states (quadratures) by the same solver, so they carry the same tolerance.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._options import FIXED_STEP_NAMES

__all__ = ["PowerBudget", "LedgerRow"]

KINDS = ("supplied", "dissipated", "lost", "stabilization")


@dataclass(frozen=True)
class LedgerRow:
    """One element's totals at the end of the trajectory [J]."""

    element: str
    label: str
    stored: float
    supplied: float
    dissipated: float
    lost: float
    stabilization: float


class PowerBudget:
    """Energy ledger of a trajectory (see module docstring).

    Attributes
    ----------
    t : ndarray, shape (N,)
    H : ndarray, shape (N,)
        Total stored energy.
    stored : dict
        Storage path -> H_e(t) (N,).
    entries : dict
        kind -> {element path -> cumulative energy (N,)} for supplied, dissipated, lost,
        stabilization.
    residual : ndarray, shape (N,)
    parts : dict
        Storage path -> {part name -> energy (N,)}: how a storage that reports its parts
        (`energy_parts_series(X)`: an articulated body's kinetic energy per subtree and its weight's
        potential) splits its H_e; shown under its row, not added to the totals.
    """

    def __init__(self, t, H, stored, entries, labels, parts=None, *, rtol=None, atol=None, fixed_step=False,
                 notes=()):
        self.t = t
        #: the run's tolerances (None: unknown, no residual bound) and whether its method had a
        #: fixed step (no error control); they set `residual_bound`
        self.rtol, self.atol, self.fixed_step = rtol, atol, fixed_step
        #: findings of the run's elements to report with the audit (``(code, message)``, e.g. a
        #: soil contact driven beyond the range of its law)
        self.notes = list(notes)
        self.H = H
        self.stored = stored
        self.entries = entries
        self.labels = labels
        self.parts = parts or {}
        self.supplied = self._total("supplied")
        self.dissipated = self._total("dissipated")
        self.lost = self._total("lost")
        self.stabilization = self._total("stabilization")
        self.residual = self.H - self.H[0] - self.supplied + self.dissipated + self.lost + self.stabilization
        #: output times [s] whose energies or ledger quadratures are not finite, shape (M,):
        #: a failed run's last states, or samples of a step whose interpolant is NaN (DOP853
        #: evaluates extra stages for its dense output after accepting a step; an evaluation
        #: that failed there, returned as NaN, makes the samples inside that step NaN). The
        #: ledger omits them (`_drop_non_finite`): its figures are never NaN, and `table`,
        #: `findings` and `to_dict` say which samples it left out
        self.omitted = np.zeros(0)
        self._drop_non_finite()

    def _drop_non_finite(self):
        """Drop the samples where any series is not finite (their times in `omitted`); the
        totals are cumulative states, so the samples kept are exact (a non-finite first
        sample, the reference of every figure, makes every sample non-finite). No sample
        left means the ledger is unavailable (`available`)."""
        series = [self.H, self.residual, *self.stored.values(), *(v for d in self.entries.values() for v in d.values()),
                  *(E for d in self.parts.values() for E in d.values())]
        bad = np.zeros(np.shape(self.t), dtype=bool)
        for v in series:
            bad |= ~np.isfinite(np.asarray(v, dtype=float))
        if not bad.any():
            return
        self.omitted = np.asarray(self.t[bad], dtype=float)
        keep = ~bad
        self.t, self.H, self.residual = self.t[keep], self.H[keep], self.residual[keep]
        self.stored = {p: v[keep] for p, v in self.stored.items()}
        self.entries = {kind: {p: v[keep] for p, v in d.items()} for kind, d in self.entries.items()}
        self.parts = {p: {name: E[keep] for name, E in d.items()} for p, d in self.parts.items()}
        self.supplied, self.dissipated = self.supplied[keep], self.dissipated[keep]
        self.lost, self.stabilization = self.lost[keep], self.stabilization[keep]

    def _total(self, kind):
        d = self.entries.get(kind, {})
        return np.sum(np.stack(list(d.values())), axis=0) if d else np.zeros_like(self.t)

    @classmethod
    def from_trajectory(cls, traj):
        """Build the ledger from a Trajectory (its ledger quadratures and stored energies)."""
        sysm = traj.system
        L = sysm.layout
        entries = {k: {} for k in KINDS}
        for e in L.ledger:
            col = traj.x[:, L.n_physical + e.index]
            d = entries[e.kind]
            d[e.element] = d.get(e.element, 0.0) + (col - col[0])
        labels = {p: sysm.report.flat.label(p) for p in sysm.elements}
        parts = {}
        for p, obj in sysm.elements.items():
            if hasattr(obj, "energy_parts_series"):
                parts[p] = obj.energy_parts_series(traj.x[:, L.element_slice(p)])
        return cls(traj.t, traj.hamiltonian, traj.energies, entries, labels, parts, rtol=traj.rtol, atol=traj.atol,
                   fixed_step=traj.method in FIXED_STEP_NAMES, notes=getattr(traj, "notes", ()))

    @property
    def available(self):
        """Whether the ledger has any sample (False when the first state's energies are not
        finite: `table` then says so instead of printing figures)."""
        return self.t.size > 0

    def _coverage(self):
        """The sentence saying which samples the ledger leaves out (None when it has them all)."""
        if not self.omitted.size:
            return None
        times = ", ".join(f"{t:.6g}" for t in self.omitted[:5]) + (", ..." if self.omitted.size > 5 else "")
        if not self.available:
            return f"the energy ledger is unavailable: the energies are not finite at any sample (t = {times} s)"
        return (f"the energy ledger leaves out {self.omitted.size} sample(s) whose energies are not finite "
                f"(t = {times} s): a state the run's elements could not evaluate")

    @property
    def scale(self):
        """Energy scale for relative figures: the largest ``|H|``, ``|supplied|``, ``|dissipated|``, ``|lost|`` seen."""
        if not self.available:
            return float(np.finfo(float).tiny)
        cands = [np.max(np.abs(self.H)), np.max(np.abs(self.supplied)), np.max(np.abs(self.dissipated)),
                 np.max(np.abs(self.lost)), np.max(np.abs(self.stabilization))]
        return float(max(max(cands), np.finfo(float).tiny))

    @property
    def exchanged(self):
        """The energy the trajectory moves around [J]: the largest of each storage's range of
        energy (max - min of H_e), ``|supplied|``, ``|dissipated|``, ``|lost|`` and ``|stabilization|`` (0 if
        nothing moves). Unlike `scale` it ignores energy that only sits there: a pendulum
        swinging about H = 0 (whose `scale` is then the residual itself) or a body far above
        gravity's datum are measured by what they exchange. The table reports the residual
        against both."""
        if not self.available:
            return 0.0
        moved = [float(np.ptp(H_e)) for H_e in self.stored.values()]
        moved += [float(np.max(np.abs(v))) for v in (self.supplied, self.dissipated, self.lost, self.stabilization)]
        return max(moved) if moved else 0.0

    @property
    def max_residual(self):
        """``max |residual|`` over the trajectory [J] (over the part the ledger covers:
        `omitted`; 0 when it covers no sample)."""
        return float(np.max(np.abs(self.residual))) if self.available else 0.0

    @property
    def relative_residual(self):
        """``max |residual|`` divided by `scale`."""
        return self.max_residual / self.scale

    #: the printed figures' resolution in units of eps * `scale` (see `resolution`)
    RESOLUTION_EPS = 64

    @property
    def resolution(self):
        """The smallest energy the printed ledger shows [J]: ``RESOLUTION_EPS * eps * scale``
        (64 eps, 1.4e-14 of the energy scale). The residual sums storages and quadratures of
        size up to `scale`, each carrying round-off of a few eps * scale, so a figure below this
        is round-off, not energy (a released contact's -6.7e-54 J "dissipated"); `table` and the
        HTML table print it as 0. The data (`entries`, `rows`, `to_dict`) are untouched."""
        return self.RESOLUTION_EPS * np.finfo(float).eps * self.scale

    def shown(self, value, width=0):
        """`value` [J] as the printed ledger shows it: 6 significant digits, or ``0`` below
        `resolution`; right-aligned in `width` characters."""
        return f"{'0' if abs(value) < self.resolution else f'{value:.6g}':>{width}}"

    #: the residual may reach this multiple of the tolerance scale ``rtol * scale + atol`` before
    #: the run is flagged (`residual_bound`)
    RESIDUAL_FACTOR = 100.0
    #: a fixed-step method (no error control) is flagged above this fraction of `scale`
    FIXED_STEP_RESIDUAL = 1e-2

    @property
    def residual_bound(self):
        """The largest ``max |residual|`` [J] a run with these tolerances is allowed before the
        audit flags it (None when the tolerances are unknown: a ledger built by hand).

        ``RESIDUAL_FACTOR * (rtol * scale + atol)``, and for a fixed-step method (RK4,
        discrete gradient: rtol does not control their error) the larger of that and
        ``FIXED_STEP_RESIDUAL * scale``.

        Why this bound: the residual is a sum of the stored energies and the ledger
        quadratures, which are states (or functions of states) whose local error per step the
        solver keeps below ``rtol |y| + atol``; the energies involved are at most `scale`, so
        one step's error in the balance is of order ``rtol * scale + atol`` (atol is an energy
        [J] for the quadratures). Over a run the local errors add up, partly coherently; the
        factor 100 covers that accumulation for a run resolved by its steps, and is far below
        a run whose steps do not resolve it. Measured (short runs of every registered model at
        its own solver settings, residual / (rtol * scale + atol)): at most 6.0 (hopping-leg),
        3.4 (two-ellipsoids), the others below 1.5 (benchmarks/results/ledger_audit.md has the
        table; RK4's bowl-on-table: 5.1e-3 of scale); a mass-spring-damper with k = 1e14 over 1 ms (1600 periods) gives 2900
        at RK45 rtol 1e-6 and 180 at DOP853 rtol 1e-10: flagged both times.
        """
        if self.rtol is None or self.atol is None:
            return None
        bound = self.RESIDUAL_FACTOR * (self.rtol * self.scale + self.atol)
        if self.fixed_step:
            bound = max(bound, self.FIXED_STEP_RESIDUAL * self.scale)
        return float(bound)

    def findings(self):
        """What the audit of this ledger flags: a list of ``(code, message)``, empty for a clean
        run. Codes: ``"ledger_incomplete"`` (samples with non-finite energies, left out:
        `omitted`), ``"ledger_residual"`` (the residual exceeds
        `residual_bound`),
        ``"not_passive"`` (a resistor generates energy, `passivity_violations`), and the notes
        the run's elements add (e.g. ``"soil_depth"``)."""
        out = []
        coverage = self._coverage()
        if coverage is not None:
            out.append(("ledger_incomplete", coverage))
        bound = self.residual_bound
        if bound is not None and self.available and not self.max_residual <= bound:
            k = int(np.argmax(np.abs(self.residual)))
            out.append(("ledger_residual", (
                f"the energy ledger does not close: max |residual| = {self.max_residual:.3e} J at t = {self.t[k]:.6g} s "
                f"({self.relative_residual:.3e} of the energy scale {self.scale:.4g} J) exceeds the bound "
                f"{bound:.3e} J that rtol = {self.rtol:.3g}, atol = {self.atol:.3g} allow "
                f"({self.RESIDUAL_FACTOR:g} (rtol * scale + atol)); the run is not resolved at these tolerances: "
                "tighten rtol, or use an implicit method (Radau, BDF) for a stiff model")))
        for path, t, generated in self.passivity_violations:
            out.append(("not_passive", (
                f"{self.labels.get(path, path)} is not passive: it generates energy from t = {t:.6g} s "
                f"({generated:.3g} J at most); its law must satisfy e . f >= 0")))
        out.extend(self.notes)
        return out

    #: a resistor's cumulative dissipation may fall below its running maximum by this much
    #: (relative to `scale`) before it counts as generated energy: far above the integration
    #: error of the quadrature, far below an active law's injection
    PASSIVITY_TOL = 1e-6

    @property
    def passivity_violations(self):
        """Resistors that generate energy (their dissipated energy decreases): a list of
        ``(path, t_onset, generated)``: the element, the time its first generating episode
        began, and the largest fall of its cumulative dissipation below its running maximum
        [J]. An episode counts once the fall exceeds ``PASSIVITY_TOL * scale`` (a margin over
        the quadrature's integration error); its onset is the sample where the running maximum
        it falls from was reached (the last sample before the dissipation started to fall),
        not the sample where the fall crossed the margin. Empty for passive laws; the table,
        `to_dict` and `findings` say so otherwise."""
        out = []
        tol = self.PASSIVITY_TOL * self.scale
        for path, d in self.entries.get("dissipated", {}).items():
            peak = np.maximum.accumulate(d)
            fall = peak - d
            bad = np.flatnonzero(fall > tol)
            if bad.size:
                i = bad[0]
                onset = int(np.flatnonzero(d[: i + 1] == peak[i])[-1])   # where the fall started
                out.append((path, float(self.t[onset]), float(fall.max())))
        return out

    def rows(self):
        """Per-element totals at the final time (elements whose energy or entries moved)."""
        out = []
        paths = list(dict.fromkeys(list(self.stored) + [p for d in self.entries.values() for p in d]))
        for p in paths:
            st = self.stored.get(p)
            vals = {k: float(self.entries[k][p][-1]) if p in self.entries[k] else 0.0 for k in KINDS}
            stored = float(st[-1] - st[0]) if st is not None else 0.0
            moved = st is not None and np.ptp(st) > 0
            if not (moved or any(vals.values())):
                continue  # nothing to report (the ground, an unused projection entry)
            out.append(LedgerRow(p, self.labels.get(p, p), stored, **vals))
        return out

    def table(self):
        """The ledger as a text table (energies in J, at the final time; at the last sample it
        covers: `omitted`)."""
        if not self.available:
            return f"Energy ledger unavailable: {self._coverage()}"
        head = f"{'element':<28}{'stored dH':>14}{'supplied':>14}{'dissipated':>14}{'lost':>14}{'stabilization':>15}"
        lines = [f"Energy ledger, t = {self.t[0]:.6g} .. {self.t[-1]:.6g} s  [J]", head, "-" * len(head)]

        def row(label, *values):
            return f"{label:<28}" + "".join(self.shown(v, w) for v, w in zip(values, (14, 14, 14, 14, 15)))

        for r in self.rows():
            lines.append(row(r.label, r.stored, r.supplied, r.dissipated, r.lost, r.stabilization))
            for part, E in self.parts.get(r.element, {}).items():   # its parts, not added to the total
                lines.append(f"{'  ' + part:<28.28}{self.shown(E[-1] - E[0], 14)}")
        lines.append("-" * len(head))
        lines.append(row("total", self.H[-1] - self.H[0], self.supplied[-1], self.dissipated[-1], self.lost[-1],
                         self.stabilization[-1]))
        lines.append(f"(figures below the resolution {self.resolution:.2g} J, {self.RESOLUTION_EPS} eps x the energy scale, "
                     "are round-off and show as 0)")
        lines.append(f"H(0) = {self.H[0]:.10g} J, H(end) = {self.H[-1]:.10g} J")
        lines.append(
            "residual = dH - supplied + dissipated + lost + stabilization: "
            f"max |residual| = {self.max_residual:.3e} J ({self.relative_residual:.3e} of the energy scale {self.scale:.4g} J"
            + (f", {self.max_residual / self.exchanged:.3e} of the energy exchanged {self.exchanged:.4g} J)"
               if self.exchanged > 0 else ")")
        )
        for _, message in self.findings():
            lines.append(f"WARNING: {message}")
        return "\n".join(lines)

    __str__ = table

    def _repr_html_(self):
        """The ledger as an HTML table (Jupyter's rich display)."""
        from .html import budget_html

        return budget_html(self)

    def plot(self, axes=None, **kwargs):
        """Plot H(t), supplied, dissipated (and lost, stabilization) and the residual."""
        from .plots import plot_power_budget

        return plot_power_budget(self, axes=axes, **kwargs)

    def to_dict(self):
        """Final totals and the residual as plain numbers (for reports and JSON): those of the
        samples the ledger covers (``covers_until``: its last time; ``omitted``: the times
        left out, `omitted`); None for every total when it covers no sample."""
        cover = {"covers_until": float(self.t[-1]) if self.available else None,
                 "omitted": [float(t) for t in self.omitted]}
        if not self.available:
            return {**dict.fromkeys(("H0", "H_end", "supplied", "dissipated", "lost", "stabilization", "max_residual",
                                     "relative_residual", "exchanged", "residual_bound")),
                    "elements": [], "passivity_violations": [], **cover,
                    "flags": [dict(code=c, message=m) for c, m in self.findings()]}
        return {**cover,
            "H0": float(self.H[0]),
            "H_end": float(self.H[-1]),
            "supplied": float(self.supplied[-1]),
            "dissipated": float(self.dissipated[-1]),
            "lost": float(self.lost[-1]),
            "stabilization": float(self.stabilization[-1]),
            "max_residual": self.max_residual,
            "relative_residual": self.relative_residual,
            "exchanged": self.exchanged,
            "elements": [r.__dict__ for r in self.rows()],
            "passivity_violations": [dict(element=p, t=t, generated=g) for p, t, g in self.passivity_violations],
            "residual_bound": self.residual_bound,
            "flags": [dict(code=c, message=m) for c, m in self.findings()],
        }
