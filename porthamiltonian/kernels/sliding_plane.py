"""Compiled element kernels of the sliding-plane contact constraint
(`library.sliding_plane_contact.SlidingPlaneConstraint`) for the compiled right-hand side
(`porthamiltonian.compile.jit`).

The constraint's own state (7) starts like a compliant spring's: tracked contact parameters
(4), their charts (2), the contact flag. So its geometry is the compliant contact's shared
tuple (`porthamiltonian.kernels.compliant.pair_state`, packed by
`library.contact_geometry.ContactPair.pack` without culling), computed once per evaluation
by `terms` (the first of the constraint's kernels the generated code calls), which returns it
as its last value; `acceleration_bias`, `effort_map` and `rates` take it (the ``sh``
argument: `Kernel.shares` / `Kernel.reads`). The formulas are the Python element's, through
the same kernels of `porthamiltonian.kernels.contact`.

A state the kernels do not handle (no closed form and an insane warm start, a failed
refinement, the contact point off a bounded surface, a singular contact matrix) gives NaN
terms or rates: the caller then evaluates the right-hand side in Python, which re-charts or
raises the element's error.

Packing: the pair's ``(F, I)`` followed by ``F: (mu, eps)`` and ``I: (at_F, mode, n_rows,
rows...)`` with ``at_F`` the index of ``mu`` in F and ``mode`` one of `FRICTIONLESS`,
`COULOMB`, `ROLLING`.
"""

from __future__ import annotations

import math

import numpy as np
from ._njit import njit

from . import borrow as _borrow
from . import compliant as _kcp
from . import contact as _kc
from . import lie as _lie
from .compliant import P_STATUS, P_CULLED, P_DELTA, P_H12, P_X, P_C1, P_C2, P_D1, P_D2, P_H1C, P_GA, P_GB

FRICTIONLESS, COULOMB, ROLLING = 0, 1, 2


def pack(pair_F, pair_I, mode, rows, mu, eps):
    """``(F, I)`` of a sliding-plane constraint from its pair's packing (called once, at
    compile time; not a kernel)."""
    F = np.concatenate((pair_F, [float(mu), float(eps)]))
    I = np.concatenate((pair_I, [len(pair_F), int(mode), len(rows)], np.asarray(rows, dtype=np.int64)))
    return F, I.astype(np.int64)


@njit(inline="always")
def _tail(I):
    """Index of the constraint's own ints in I (after the pair's)."""
    return _kcp.I_SURFACES + I[_kcp.N_I1] + I[_kcp.N_I2]


@njit(inline="always")
def _rows(I):
    at = _tail(I)
    return I[at + 3 : at + 3 + I[at + 2]]


@njit(inline="always")
def _handled(sh):
    """Whether the kernels handle the pair's shared tuple (exact contact points, not culled)."""
    return sh[P_STATUS] == _kc.OK and sh[P_CULLED] == 0.0


@njit(inline="always")
def _R(sh, k):
    """``R_k`` (12,): ``R_k . (T_a, T_b) = -(T_C)_k``."""
    out = np.empty(12)
    _lie.put(out, 0, sh[P_GA][k])
    _lie.put(out, 6, -sh[P_GB][k])
    return out


@njit
def terms(t, x, refs, F, I):
    """``(J, b, g, sh)`` of the active rows: the rows ``R_k``, zero velocity bias, the
    penetration as the normal row's gap (NaN for the others), and the pair's shared tuple for
    the constraint's other kernels; NaN rows where the kernels decline."""
    rows = _rows(I)
    n = rows.shape[0]
    J = np.empty((n, 12))
    g = np.full(n, np.nan)
    sh = _kcp.pair_state(x, refs, F, I)
    if not _handled(sh):
        J[:, :] = np.nan
        return J, np.zeros(n), g, sh
    for i in range(n):
        J[i] = _R(sh, rows[i])
    g[0] = sh[P_DELTA]
    return J, np.zeros(n), g, sh


@njit
def acceleration_bias(t, x, refs, flows, sh, F, I):
    """`porthamiltonian.kernels.contact.sliding_plane_bias` of the rows; NaN where the
    contact matrix is singular (`porthamiltonian.contact.kinematics.MAX_CONDITION`)."""
    sh, flows = _borrow.record(sh), _borrow.record(flows)   # uncounted reads: `kernels.borrow`
    rows = _rows(I)
    if not _handled(sh):
        return np.full(rows.shape[0], np.nan)
    bias, s_max, s_min = _kc.sliding_plane_bias(
        sh[P_D1], sh[P_D2], sh[P_H12], sh[P_H1C], _kcp._mat(F, _kcp.AD_S2B, 6), _kcp._mat(F, _kcp.AD_S1A, 6),
        flows[0], flows[1], F[_kcp.ALPHA], rows)
    if not s_min > s_max / 1e10:
        bias[:] = np.nan
    return bias


@njit
def effort_map(t, x, refs, flows, sh, F, I):
    """The rows' effort map: with Coulomb friction the normal row plus the regularized
    sliding friction, ``R_5 - mu (v_x R_3 + v_y R_4) / sqrt(|v_t|^2 + eps^2)``; else the
    Jacobian itself."""
    sh, flows = _borrow.record(sh), _borrow.record(flows)   # uncounted reads: `kernels.borrow`
    rows = _rows(I)
    D = np.empty((rows.shape[0], 12))
    if not _handled(sh):
        D[:, :] = np.nan
        return D
    at = _tail(I)
    for i in range(rows.shape[0]):
        D[i] = _R(sh, rows[i])
    if I[at + 1] != COULOMB or x[6] > 1.5:   # stuck: the no-slip rows carry the friction
        return D
    vx, vy = _slip(sh, flows)
    mu, eps = F[I[at]], F[I[at] + 1]
    den = math.sqrt(vx * vx + vy * vy + eps * eps)
    D[0] -= mu * (vx * _R(sh, 3) + vy * _R(sh, 4)) / den
    return D


@njit(inline="always")
def _slip(sh, flows):
    """The slip (T_C)_3, (T_C)_4: the tangential relative velocity at the contact [m/s]."""
    T_C = _lie.mv(sh[P_GB], flows[1]) - _lie.mv(sh[P_GA], flows[0])
    return T_C[3], T_C[4]


@njit
def rates(t, x, refs, flows, sh, F, I):
    """Rates of the own state (7): the tracked parameters' (contact kinematics plus the
    relaxation toward the exact ones); NaN where the contact matrix is singular."""
    sh, flows = _borrow.record(sh), _borrow.record(flows)   # uncounted reads: `kernels.borrow`
    out = np.zeros(7)
    if not _handled(sh):
        out[:] = np.nan
        return out
    F1, I1, F2, I2 = _kcp._surfaces(F, I)
    T12 = _kc.relative_twist(sh[P_H12], _kcp._mat(F, _kcp.AD_S2B, 6), _kcp._mat(F, _kcp.AD_S1A, 6), flows[0],
                             flows[1])
    rate, s_max, s_min = _kc.parameter_rates(F1, I1, F2, I2, sh[P_X], sh[P_C1], sh[P_C2], sh[P_D1], sh[P_D2],
                                             sh[P_H12], T12, x[0:4].copy(), int(round(x[4])), int(round(x[5])),
                                             F[_kcp.RELAX])
    if not s_min > s_max / 1e10:
        out[:] = np.nan
        return out
    _lie.put(out, 0, rate)
    return out


@njit
def active(x, F, I):
    """1 on every row while the contact flag is set, else 0; with Coulomb friction the no-slip
    rows only while the contact sticks (flag 2)."""
    out = np.full(_rows(I).shape[0], 1.0 if x[6] > 0.5 else 0.0)
    if I[_tail(I) + 1] == COULOMB and x[6] < 1.5:
        out[1:] = 0.0
    return out


@njit
def events(t, x, refs, lam, flows, sh, F, I):
    """Values of a unilateral constraint's event functions in the order of
    `SlidingPlaneConstraint.events` (chart, detach, impact; with Coulomb friction also stick
    and slip), as the Python ones, from the evaluation's shared contact state, the
    constraint's multipliers `lam` (those of the same compiled evaluation: the detach event is
    the normal multiplier's zero, with no second solve) and its port flows. NaN where the
    kernels do not handle the state (the evaluation then falls back to Python, which
    re-evaluates the events)."""
    sh, flows = _borrow.record(sh), _borrow.record(flows)   # uncounted reads: `kernels.borrow`
    at = _tail(I)
    coulomb = I[at + 1] == COULOMB
    out = np.empty(5 if coulomb else 3)
    if not _handled(sh):
        out[:] = np.nan
        return out
    active = x[6] > 0.5
    out[0] = _kcp.chart_margin(x, sh, F, I)
    out[1] = lam[0] if active else 1.0
    out[2] = 1.0 if active else -sh[P_DELTA]
    if coulomb:
        out[3], out[4] = 1.0, 1.0
        if active and x[6] < 1.5:    # sliding: sticks when the slip falls below eps
            vx, vy = _slip(sh, flows)
            out[3] = math.sqrt(vx * vx + vy * vy) - F[I[at] + 1]
        elif active:                 # stuck: slips when the friction force leaves its cone
            out[4] = F[I[at]] * lam[0] - math.sqrt(lam[1] * lam[1] + lam[2] * lam[2])
    return out


@njit
def events_bilateral(t, x, refs, lam, flows, sh, F, I):
    """`events` of a bilateral constraint: its only event, the chart change."""
    sh = _borrow.record(sh)   # uncounted reads: `kernels.borrow`
    out = np.empty(1)
    out[0] = _kcp.chart_margin(x, sh, F, I) if _handled(sh) else np.nan
    return out
