"""Compiled element kernels of the compliant contact (`library.compliant_contact`) for the
compiled right-hand side (`porthamiltonian.compile.jit`).

The three elements of a compliant contact (spring, damper, slip friction) share the
contact geometry of one evaluation. The spring's outputs kernel computes it (`spring_outputs`)
and returns it as its last value, a `SHARED` tuple; the generated code hands that tuple to the
spring's rates kernel and to the damper's and the friction's law kernels. Each kernel takes
the element's own state slice ``x`` and reference slices ``refs`` as the Python element does,
then the packed constants ``(F, I)`` of `pack` (module-level offsets below).

A state the compiled path does not handle (no closed form and an insane warm start that needs
re-charting, a failed refinement, a penetration beyond the model's range, a singular contact
matrix) is reported, not resolved: the shared tuple's status is not `OK`, or the rates are
NaN, and the caller evaluates the whole right-hand side again in Python, which re-charts,
searches globally or raises the element's error. The formulas are those of the Python
elements, through the same kernels (`porthamiltonian.kernels.contact`).

References: the kernels take them padded to one length
(`library.contact_geometry.ContactPair.padded_refs`, `Kernel.refs`), so numba compiles each
kernel once whether a body of the pair is fixed or moving: the spring's ``(pose_a, pose_b)``,
the resistors' ``(x, charts, active, pose_a, pose_b, P_a, P_b, s)``, a fixed body's pose and
momentum an empty array (the sliding-plane constraint's as the spring's).

Shared pair record (the contact-pair stage's result, `porthamiltonian.kernels.contact_pair`,
computed once per contact and evaluation by the spring's outputs kernel; its fields are read
by name, ``sh[P_DELTA]``, through the indices `P_STATUS` ... `P_LAW` below)::

    (status, culled, delta, H_12, x, c1, c2, D1, D2, H_1C, G_a, G_b, law)

``status`` is `porthamiltonian.kernels.contact.OK` or another code; ``culled`` 1.0 when the
bounding test found the bodies apart (then only ``H_12`` and ``delta``, minus the bound, are
set), 2.0 when the contact point left a bounded surface (``delta`` minus how far outside);
``x, c1, c2`` the exact contact parameters and their charts; ``law`` the packed normal law
with its stiffness at this configuration (`porthamiltonian.kernels.contact.resolve_law`).
"""

from __future__ import annotations

import math

import numpy as np
from ._njit import njit, separate

from . import borrow as _borrow
from . import closest as _kcl
from . import contact as _kc
from . import lie as _lie
from . import surfaces as _s

#: the contact chain's evaluation, rates, closed forms, bounding test and damper, called by
#: symbol (`_njit.separate`): compiled once, not again in each element kernel above them
_evaluate = separate(_kc.evaluate)
_spring_rates = separate(_kc.spring_rates)
_closed_form_extended = separate(_kcl.closed_form_extended)
_separation = separate(_kc.separation)
_damper_efforts = separate(_kc.damper_efforts)
_damper_port_efforts = separate(_kc.damper_port_efforts)

#: argument types of the element kernels (`_njit.njit`'s ``argtypes``; the generated right-hand
#: side passes the references padded to two, `Kernel.refs`): time, state, references,
#: and the tuple `spring_outputs` shares with the later kernels
_T_X_REFS = "f8, f8[::1], UniTuple(f8[::1], 2)"
_SHARED = ("Tuple((i8, f8, f8, f8[:, ::1], f8[::1], i8, i8, f8[:, :, ::1], f8[:, :, ::1], f8[:, ::1], f8[:, ::1], "
           "f8[:, ::1], f8[::1]))")

# ---- layout of F (floats)
SCALE, TOL, ALPHA, REG_TOL, CULL_DISTANCE, DEPTH_LIMIT, RELAX = 0, 1, 2, 3, 4, 5, 6
C_SPIN, C_T, C_SLIP, MU, MU_SPIN, K_SPIN, K_T = 7, 8, 9, 10, 11, 12, 13
LAW = 14            # 5 floats: `porthamiltonian.kernels.contact.normal_force`'s law
H_WA, H_WB, H_S1A, H_BS2 = 19, 35, 51, 67           # 4x4 each, row-major
AD_S2B, AD_S1A, MINV_A, MINV_B = 83, 119, 155, 191  # 6x6 each
B1, B2 = 227, 234                                   # surface bounds, 7 each
CHART_MARGIN = 241  # `library.contact_geometry.ContactPair.CHART_MARGIN`
SURFACES = 242                                      # F1 then F2
# ---- layout of I (ints)
MAX_ITER, CULLABLE, MOVING_A, MOVING_B, DAHL, N_F1, N_F2, N_I1, N_I2, BOUNDED = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9
I_SURFACES = 10                                     # I1 then I2
# after the surfaces in F: each surface's edges per chart (lower_u, lower_v, upper_u, upper_v;
# -inf / inf where none), `library.contact_geometry._edges`

# ---- fields of the shared pair record (module docstring), by name: the kernels read them as
# ``sh[P_DELTA]``, ``sh[P_GA]``, ... (constant indices, which numba resolves at compile time);
# the generated right-hand side reads entries 0-2 (status, culled, -bound) by position
P_STATUS, P_CULLED, P_DELTA, P_H12, P_X, P_C1, P_C2, P_D1, P_D2, P_H1C, P_GA, P_GB, P_LAW = range(13)

#: the deformation block of the spring's own state (`library.compliant_contact`)
_ACT = 6


def pack(*, scale, tol, alpha, reg_tol, cull_distance, depth_limit, relax, c_spin, c_t, c_slip, mu, mu_spin,
         k_spin, k_t, law, H_Wa, H_Wb, H_S1a, H_bS2, Ad_S2b, Ad_S1a, Minv_a, Minv_b, B1_, B2_, chart_margin, F1, I1,
         F2, I2, edges, max_iter, cullable, moving_a, moving_b, dahl):
    """``(F, I)`` of one compliant contact (called once, at compile time; not a kernel)."""
    F = np.concatenate((
        [scale, tol, alpha, reg_tol, cull_distance, depth_limit, relax, c_spin, c_t, c_slip, mu, mu_spin, k_spin,
         k_t], np.asarray(law, dtype=float), *(np.asarray(H, dtype=float).ravel() for H in (H_Wa, H_Wb, H_S1a, H_bS2)),
        *(np.asarray(A, dtype=float).ravel() for A in (Ad_S2b, Ad_S1a, Minv_a, Minv_b)),
        np.asarray(B1_, dtype=float), np.asarray(B2_, dtype=float), [chart_margin], F1, F2,
        *(np.ravel(e) for per in edges for e in per)))
    bounded = any(np.isfinite(e).any() for per in edges for e in per)
    I = np.concatenate(([max_iter, cullable, moving_a, moving_b, dahl, len(F1), len(F2), len(I1), len(I2), bounded],
                        I1, I2)).astype(np.int64)
    assert F.shape[0] == SURFACES + len(F1) + len(F2) + 4 * (len(edges[0]) + len(edges[1]))
    return F, I


@njit(inline="always")
def _mat(F, at, n):
    return F[at : at + n * n].copy().reshape(n, n)


@njit(inline="always")
def _local_mat(F, at, n):
    """The (n, n) matrix packed at ``F[at]`` (`n` a literal), copied onto the stack of the
    caller (`kernels.borrow.local`: compiled into it; it returns no part of it): `_mat`'s
    values without an array."""
    M = _borrow.local(n, n)
    for i in range(n):
        for j in range(n):
            M[i, j] = F[at + n * i + j]
    return M


@njit(inline="always")
def _view(F, at, n):
    """The (n, n) matrix packed at ``F[at]`` as a view, for the culling test, which only reads
    it. `_mat` and `_local_mat` copy for the contact chain: with views there, the compliant
    rimless wheel's BDF run (`test_compliant_feet_book_the_strike_in_their_dampers`) meets inf
    in scipy's difference table at 0.784 s, although the right-hand side leaves ``F`` unchanged
    and gives the same bits at the sand wheel's states (not traced further)."""
    return F[at : at + n * n].reshape(n, n)


@njit(inline="always")
def _surfaces(F, I):
    a, b = SURFACES, SURFACES + I[N_F1]
    c, d = I_SURFACES, I_SURFACES + I[N_I1]
    return F[a:b], I[c:d], F[b : b + I[N_F2]], I[d : d + I[N_I2]]


@njit
def _outside(F, I, x, c1, c2):
    """How far the contact parameters lie outside the edges of their charts (0 inside), as
    `library.contact_geometry.ContactPair._outside`."""
    at = SURFACES + I[N_F1] + I[N_F2]
    n1 = I[I_SURFACES + 1]    # charts of surface 1 (its I[1])
    out = 0.0
    for k in range(2):
        c = c1 if k == 0 else c2
        e = at + 4 * c if k == 0 else at + 4 * n1 + 4 * c
        u, v = x[2 * k], x[2 * k + 1]
        out += max(F[e] - u, 0.0, u - F[e + 2]) + max(F[e + 1] - v, 0.0, v - F[e + 3])
    return out


@njit(inline="always")
def _poses(refs, I):
    """The kernels' pose arguments: the spring's references, padded (`ContactPair.padded_refs`: a
    fixed body's pose is an empty array)."""
    return refs[0], refs[1]


@njit(inline="always")
def _bound(F, pa, pb):
    """`porthamiltonian.kernels.contact.separation` of the pair at the moving bodies' poses."""
    return _separation(F[B1 : B1 + 7], F[B2 : B2 + 7], pa, pb, _view(F, H_WA, 4), _view(F, H_WB, 4),
                       _view(F, H_S1A, 4), _view(F, H_BS2, 4))


@njit(inline="always")
def pair_state(x, refs, F, I):
    """The shared tuple (module docstring) of a contact spring's state ``x`` (10) and its
    references (the moving bodies' poses), culled while not touching as
    `library.contact_geometry.ContactPair.state` with ``cull=True``."""
    pa, pb = _poses(refs, I)
    if x[_ACT] < 0.5 and I[CULLABLE]:   # the culling test first: most contacts of a scene end here
        bound, H12 = _bound(F, pa, pb)
        if bound > F[CULL_DISTANCE]:
            z3 = np.zeros((3, 3, 3))
            z6 = np.zeros((6, 6))
            return (_kc.OK, 1.0, -bound, H12, x[0:4].copy(), 0, 0, z3, z3, np.eye(4), z6, z6)
    F1, I1, F2, I2 = _surfaces(F, I)
    H_Wa, H_Wb, H_S1a, H_bS2 = (_local_mat(F, H_WA, 4), _local_mat(F, H_WB, 4), _local_mat(F, H_S1A, 4),
                                _local_mat(F, H_BS2, 4))
    c1 = int(round(x[4]))
    c2 = int(round(x[5]))
    if I[BOUNDED]:   # a closed form off a bounded surface: the Python path books its edge state
        H12 = _kc.pair_pose(pa, pb, H_Wa, H_Wb, H_S1a, H_bS2)
        found, xc = _closed_form_extended(F1, I1, F2, I2, H12[:3, :3].copy(), H12[:3, 3].copy(), c1, c2)
        if found and _outside(F, I, xc, c1, c2) > 0.0:
            z3 = np.zeros((3, 3, 3))
            z6 = np.zeros((6, 6))
            return (_kc.FAILED, 0.0, 0.0, H12, x[0:4].copy(), 0, 0, z3, z3, np.eye(4), z6, z6)
    (status, H12, xe, e1, e2, _, D1, D2, _, _, distance, _, _, _, H_1C, G_a, G_b) = _evaluate(
        F1, I1, F2, I2, pa, pb, H_Wa, H_Wb, x[0:4].copy(), c1, c2, F[SCALE], F[TOL], I[MAX_ITER], F[ALPHA],
        H_S1a, H_bS2, F[REG_TOL])
    if I[BOUNDED] and status == _kc.OK:
        outside = _outside(F, I, xe, e1, e2)
        if outside > 0.0:   # the contact point left a bounded surface: no contact there
            z3 = np.zeros((3, 3, 3))
            z6 = np.zeros((6, 6))
            return (_kc.OK, 2.0, -outside, H12, xe, e1, e2, z3, z3, np.eye(4), z6, z6)
    return (status, 0.0, -distance, H12, xe, e1, e2, D1, D2, H_1C, G_a, G_b)


@njit(inline="always")
def _touching(x, sh):
    return x[_ACT] > 0.5 and sh[P_CULLED] == 0.0 and sh[P_STATUS] == _kc.OK


@njit(inline="always")
def _idle(sh, F):
    """The outputs of a spring that exerts nothing (not touching, culled, or sent to Python)."""
    z = np.zeros(6)
    return z, z.copy(), np.zeros(3), sh + (F[LAW : LAW + 5].copy(),)


@njit(inline="always")
def _efforts(x, sh, F, law, F_e, W_geo, ok):
    """Port efforts of a touching spring exerting the normal force ``F_e`` [N], and the
    shared tuple ending with `law` (`spring_outputs`; the soil's, `kernels.soil`). Its reads
    of ``sh`` are borrowed (`kernels.borrow.record`): ``sh``, returned, holds the arrays, and
    only the record returned counts them."""
    r = _borrow.record(sh)
    if r[P_DELTA] > F[DEPTH_LIMIT] or not ok:   # outside the model's range: the Python path raises
        z = np.zeros(6)
        return z, z.copy(), np.zeros(3), (_kc.FAILED,) + sh[1:] + (law,)
    K_t = _borrow.local(3)
    K_t[0], K_t[1], K_t[2] = F[K_SPIN], F[K_T], F[K_T]
    e_a, e_b, e_s = _kc.spring_outputs(r[P_GA], r[P_GB], K_t, _borrow.span(x, 7, 10), F_e, W_geo)
    return e_a, e_b, e_s, sh + (law,)


@njit(argtypes=f"{_T_X_REFS}, f8[::1], i8[::1]")
def spring_outputs(t, x, refs, F, I):
    """Port efforts ``(e_a, e_b, e_slip)`` of the spring and the shared tuple (last), which
    ends with the packed normal law (a law of fixed stiffness)."""
    x, F, I, refs = *_borrow.record((x, F, I)), _borrow.record(refs)   # it returns copies only
    sh = pair_state(x, refs, F, I)
    r = _borrow.record(sh)   # the record's reads: uncounted (as in `_efforts`)
    if not _touching(x, r):
        return _idle(sh, F)
    law = F[LAW : LAW + 5].copy()
    W_geo = _borrow.local(6)
    W_geo[:] = 0.0
    return _efforts(x, sh, F, law, _kc.normal_force(law, r[P_DELTA], 0.0)[0], W_geo, True)


@njit
def spring_outputs_local(t, x, refs, F, I):
    """`spring_outputs` of a spring whose law takes its stiffness from the local curvatures
    (`porthamiltonian.contact.LocalHertzLaw`): the shared tuple ends with the law resolved
    at this configuration (`porthamiltonian.kernels.contact.resolve_law`), and the wrench
    holds the stiffness's gradient (`porthamiltonian.kernels.contact.local_hertz`). A separate
    kernel, so that contacts of fixed stiffness do not compile it."""
    sh = pair_state(x, refs, F, I)
    if not _touching(x, sh):
        return _idle(sh, F)
    F1, I1, F2, I2 = _surfaces(F, I)
    law = F[LAW : LAW + 5]
    K, g, ok = _kc.local_hertz(F1, I1, F2, I2, sh[P_X], sh[P_C1], sh[P_C2], sh[P_D1], sh[P_D2], sh[P_H12],
                               sh[P_H1C], law[1], _kc.HERTZ_MAX_RATIO)
    W_geo = 0.4 * sh[P_DELTA] ** 2.5 * g if sh[P_DELTA] > 0.0 else np.zeros(6)
    law = _kc.resolve_law(law, K)
    return _efforts(x, sh, F, law, _kc.normal_force(law, sh[P_DELTA], 0.0)[0], W_geo, ok)


@njit(inline="always")
def _touching_state(X, PA, PB, k, F, I):
    """The shared tuple of sample ``k`` of `spring_energies` and whether the kernels give its
    energy: touching (else the energy is 0), the pair state OK and on the surfaces."""
    sh = pair_state(X[k], (PA[k], PB[k]), F, I)
    return sh, X[k, _ACT] > 0.5 and sh[P_STATUS] == _kc.OK and sh[P_CULLED] == 0.0


@njit(inline="always")
def _stored(x, law, delta, F):
    """``V(delta) + 1/2 K_t s^2`` [J]: the normal law's potential and the tangential springs'."""
    s0, s1, s2 = x[7], x[8], x[9]
    return _kc.normal_potential(law, delta) + 0.5 * (F[K_SPIN] * (s0 * s0) + F[K_T] * (s1 * s1) + F[K_T] * (s2 * s2))


@njit(prebuilt=("f8[:, ::1], f8[:, ::1], f8[:, ::1], f8[::1], i8[::1]",))
def spring_energies(X, PA, PB, F, I):
    """Stored energy [J] of a compliant contact's spring at N states (the energy ledger's
    samples: `library.compliant_contact.ContactSpring.energies`), one compiled loop.

    The energy of `ContactSpring.energy`, through the same kernels: the normal law's
    potential at the penetration of `pair_state` (`porthamiltonian.kernels.contact.normal_potential`)
    plus the tangential springs' ``1/2 K_t s^2``; zero while not touching.

    Parameters
    ----------
    X : ndarray, shape (N, 10)
        The spring's own states.
    PA, PB : ndarray, shape (N, 7) or (N, 0)
        The moving bodies' poses (a fixed body's: no columns).
    F, I : ndarray
        `pack`'s constants.

    Returns
    -------
    ndarray, shape (N,) [J]
        NaN at a touching sample the kernel declines (the pair state's status not OK, a contact
        point off a bounded surface): the caller evaluates those samples in Python, which
        re-charts, books the edge state or raises.
    """
    out = np.zeros(X.shape[0])
    law = F[LAW : LAW + 5].copy()
    for k in range(X.shape[0]):
        if X[k, _ACT] > 0.5:
            sh, ok = _touching_state(X, PA, PB, k, F, I)
            out[k] = _stored(X[k], law, sh[P_DELTA], F) if ok else np.nan
    return out


@njit
def spring_energies_local(X, PA, PB, F, I):
    """`spring_energies` of a spring whose law takes its stiffness from the local curvatures
    (`spring_outputs_local`): the law resolved at each sample's configuration; NaN also where
    Hertz does not apply there (`porthamiltonian.kernels.contact.local_hertz`). A separate
    kernel, so that contacts of fixed stiffness do not compile the curvature rates."""
    out = np.zeros(X.shape[0])
    law = F[LAW : LAW + 5]
    F1, I1, F2, I2 = _surfaces(F, I)
    for k in range(X.shape[0]):
        if X[k, _ACT] > 0.5:
            sh, ok = _touching_state(X, PA, PB, k, F, I)
            if ok:
                K, _, ok = _kc.local_hertz(F1, I1, F2, I2, sh[P_X], sh[P_C1], sh[P_C2], sh[P_D1], sh[P_D2],
                                           sh[P_H12], sh[P_H1C], law[1], _kc.HERTZ_MAX_RATIO)
            out[k] = _stored(X[k], _kc.resolve_law(law, K), sh[P_DELTA], F) if ok else np.nan
    return out


@njit(argtypes=f"{_T_X_REFS}, UniTuple(f8[::1], 3), {_SHARED}, f8[::1], i8[::1]")
def spring_rates(t, x, refs, inputs, sh, F, I):
    """Rates of the spring's own state (10); NaN where the contact matrix is singular
    (`porthamiltonian.contact.kinematics.MAX_CONDITION`: the Python path raises)."""
    sh, inputs = _borrow.record(sh), _borrow.record(inputs)   # uncounted reads: `kernels.borrow`
    x, F, I, refs = *_borrow.record((x, F, I)), _borrow.record(refs)   # it returns a new array only
    out = np.zeros(10)
    if sh[P_CULLED] != 0.0:
        return out
    F1, I1, F2, I2 = _surfaces(F, I)
    x_rate, s_rate, s_max, s_min = _spring_rates(
        F1, I1, F2, I2, sh[P_X], sh[P_C1], sh[P_C2], sh[P_D1], sh[P_D2], sh[P_H12], sh[P_H1C], sh[P_GA], sh[P_GB],
        _local_mat(F, AD_S2B, 6), _local_mat(F, AD_S1A, 6), inputs[0], inputs[1], inputs[2], _borrow.span(x, 0, 4),
        int(round(x[4])), int(round(x[5])), F[RELAX], _borrow.span(x, 7, 10), x[_ACT] > 0.5)
    if not s_min > s_max / 1e10:
        out[:] = np.nan
        return out
    _lie.put(out, 0, x_rate)
    _lie.put(out, 7, s_rate)
    return out


@njit(inline="always")
def _limits(sh, s, F, I):
    """As `library.compliant_contact._limits`: friction limits and the stick dampers' caps."""
    Fe = _kc.normal_force(sh[P_LAW], sh[P_DELTA], 0.0)[0]
    lim_spin, lim_t = F[MU_SPIN] * Fe, F[MU] * Fe
    if not I[DAHL]:
        return lim_spin, lim_t, np.inf, np.inf
    return (lim_spin, lim_t, max(lim_spin - abs(F[K_SPIN] * s[0]), 0.0),
            max(lim_t - F[K_T] * math.sqrt(s[1] * s[1] + s[2] * s[2]), 0.0))


@njit(prebuilt=(f"f8, UniTuple(f8[::1], 2), UniTuple(f8[::1], 8), {_SHARED}, f8[::1], i8[::1]",))
def damper_law(t, inputs, refs, sh, F, I):
    """Port efforts ``(e_a, e_b)`` of the damper (refs: the spring's x, charts, flag, the
    poses, the momenta, the deformation last)."""
    sh, inputs = _borrow.record(sh), _borrow.record(inputs)   # uncounted reads: `kernels.borrow`
    F, I, refs = *_borrow.record((F, I)), _borrow.record(refs)   # it returns new arrays only
    if refs[2][0] < 0.5 or sh[P_CULLED] != 0.0:
        return np.zeros(6), np.zeros(6)
    _, _, cap_spin, cap_t = _limits(sh, refs[7], F, I)
    return _damper_port_efforts(sh[P_GA], sh[P_GB], inputs[0], inputs[1], F[C_SPIN], F[C_T], cap_spin, cap_t,
                                sh[P_LAW], sh[P_DELTA])


@njit(inline="always")
def _slip_arguments(refs, sh, F, I):
    """``(lim_spin, lim_t, c_slip, spin_speed, slide_speed)`` of the slip kernels, as
    `library.compliant_contact.SlipFriction._arguments` (refs as `damper_law`)."""
    if refs[2][0] < 0.5 or sh[P_CULLED] != 0.0:
        return 0.0, 0.0, F[C_SLIP], 0.0, 0.0
    lim_spin, lim_t, _, _ = _limits(sh, refs[7], F, I)
    if not I[DAHL]:
        return lim_spin, lim_t, F[C_SLIP], 0.0, 0.0
    T_a = np.zeros(6)
    T_b = np.zeros(6)
    if I[MOVING_A]:
        _twist_of_momentum(F, MINV_A, refs[5], T_a)
    if I[MOVING_B]:
        _twist_of_momentum(F, MINV_B, refs[6], T_b)
    G_a, G_b = sh[P_GA], sh[P_GB]
    return (lim_spin, lim_t, F[C_SLIP], abs(_kc.twist_row(G_a, G_b, T_a, T_b, 2)),
            math.hypot(_kc.twist_row(G_a, G_b, T_a, T_b, 3), _kc.twist_row(G_a, G_b, T_a, T_b, 4)))


@njit(inline="always")
def _twist_of_momentum(F, at, P, out):
    """``out = M^-1 P`` with the 6x6 inverse mass matrix packed at ``F[at]``, read in place
    (summed as `porthamiltonian.kernels.lie.mv` sums: the bits of ``mv(_mat(F, at, 6), P)``)."""
    for i in range(6):
        acc = 0.0
        for j in range(6):
            acc += F[at + 6 * i + j] * P[j]
        out[i] = acc


@njit(prebuilt=(f"f8, UniTuple(f8[::1], 1), UniTuple(f8[::1], 8), {_SHARED}, f8[::1], i8[::1]",))
def friction_law(t, inputs, refs, sh, F, I):
    """Slip rates ``(v,)`` of the friction element (refs as `damper_law`)."""
    sh, inputs = _borrow.record(sh), _borrow.record(inputs)   # uncounted reads: `kernels.borrow`
    F, I, refs = *_borrow.record((F, I)), _borrow.record(refs)   # it returns a new array only
    lim_spin, lim_t, c_slip, spin, slide = _slip_arguments(refs, sh, F, I)
    return (_kc.slip_rates(inputs[0], lim_spin, lim_t, c_slip, spin, slide),)


@njit(argtypes="f8, f8[::1], f8, f8[::1], i8[::1]")
def culled_events(t, x, gap, F, I):
    """`spring_events` of a contact culled by its bounding test (entry 1 of the shared tuple
    1.0, ``gap`` its entry 2: minus the bound), which is neither touching (`pair_state` culls
    only then) nor near its chart's edges: the touch function's value, release and chart
    inactive (-1, +1), the approach function's value. The compiled right-hand side calls this
    instead of `spring_events` for a culled contact (`Kernel.idle`), without the shared tuple
    and its eight arrays: a culled foot of the rimless wheel on sand then costs 105 ns for
    its events, against 515 ns through `spring_events` (`porthamiltonian.kernels.soil`)."""
    out = np.empty(4)
    out[0] = -gap
    out[1] = -1.0
    out[2] = 1.0
    out[3] = -gap - F[CULL_DISTANCE]
    return out


@njit(inline="always")
def chart_margin(x, sh, F, I):
    """`ContactPair.chart_margin`: the exact contact points' smallest distance to a singular
    set of the tracked charts (own state x[4:6]) minus `CHART_MARGIN`, or a patch network's
    `transition_margin`, from the shared contact state of a pair on its surfaces (the chart
    event of the compliant and sliding-plane contacts)."""
    F1, I1, F2, I2 = _surfaces(F, I)
    xe = sh[P_X]
    return min(_surface_margin(F1, I1, x, xe, sh[P_C1], 0, F), _surface_margin(F2, I2, x, xe, sh[P_C2], 1, F))


@njit(inline="always")
def _surface_margin(Fk, Ik, x, xe, ce, k, F):
    """`chart_margin`'s term of surface `k` (inf for a surface of one chart); the exact point's
    parameters mapped to the tracked chart only where the two differ (`chart_map`'s call costs
    more than the margin)."""
    if Ik[1] <= 1:
        return np.inf
    ch = int(round(x[4 + k]))
    u, v = xe[2 * k], xe[2 * k + 1]
    if ce != ch:
        u, v = _s.chart_map(Fk, Ik, u, v, ce, ch)
    if Ik[2] == _s.ATLAS_NETWORK:     # a patch transition (`PatchNetwork.transition_margin`)
        return _s.transition_margin(Ik, u, v, ch, _s.TRANSITION_DEPTH)
    return _s.distance_to_singular(Fk, ch, u, v) - F[CHART_MARGIN]


@njit(argtypes=f"{_T_X_REFS}, {_SHARED}, f8[::1], i8[::1]")
def spring_events(t, x, refs, sh, F, I):
    """Values of the spring's event functions in the order of `ContactSpring.events` (touch,
    release, chart, approach; the last only if the pair is cullable), as the Python ones, from
    the evaluation's shared contact state (whose status is OK: the caller returned before)."""
    sh = _borrow.record(sh)   # uncounted reads: `kernels.borrow`
    x, F, I, refs = *_borrow.record((x, F, I)), _borrow.record(refs)   # it returns a new array only
    if sh[P_CULLED] == 1.0:
        return culled_events(t, x, sh[P_DELTA], F, I)
    out = np.empty(4 if I[CULLABLE] else 3)
    active = x[_ACT] > 0.5
    off_surface = sh[P_CULLED] == 2.0   # the contact point left a bounded surface (`pair_state`)
    out[0] = 1.0 if active else -sh[P_DELTA]
    out[1] = -sh[P_DELTA] if active else -1.0
    out[2] = 1.0 if off_surface else chart_margin(x, sh, F, I)
    if I[CULLABLE]:
        if active:
            out[3] = 1.0
        else:
            pa, pb = _poses(refs, I)
            out[3] = _bound(F, pa, pb)[0] - F[CULL_DISTANCE]
    return out


@njit
def spring_input_matrix(t, x, refs, sh, F, I):
    """``d(rates)/d(inputs)`` (10, 15) of the spring: without the relaxation the rates are
    linear in the twists and the slip, so the columns are the rates of unit inputs (as
    `library.compliant_contact.ContactSpring.input_matrix`); NaN where the contact matrix is
    singular."""
    B = np.zeros((10, 15))
    if sh[P_CULLED] != 0.0:
        return B
    F1, I1, F2, I2 = _surfaces(F, I)
    Ad_S2b, Ad_S1a = _mat(F, AD_S2B, 6), _mat(F, AD_S1A, 6)
    params, s = x[0:4].copy(), x[7:10].copy()
    c1, c2 = int(round(x[4])), int(round(x[5]))
    for k in range(15):
        e = np.zeros(15)
        e[k] = 1.0
        x_rate, s_rate, s_max, s_min = _spring_rates(
            F1, I1, F2, I2, sh[P_X], sh[P_C1], sh[P_C2], sh[P_D1], sh[P_D2], sh[P_H12], sh[P_H1C], sh[P_GA], sh[P_GB],
            Ad_S2b, Ad_S1a, e[0:6], e[6:12], e[12:15], params, c1, c2, 0.0, s, x[_ACT] > 0.5)
        if not s_min > s_max / 1e10:
            B[:, :] = np.nan
            return B
        for i in range(4):
            B[i, k] = x_rate[i]
        for i in range(3):
            B[7 + i, k] = s_rate[i]
    return B


@njit
def spring_output_jacobian(t, x, refs, sh, F, I):
    """``d(outputs)/d(x)`` (15, 10): the outputs depend on the own state through the
    deformation only (as `library.compliant_contact.ContactSpring.output_jacobian`)."""
    J = np.zeros((15, 10))
    if x[_ACT] < 0.5 or sh[P_CULLED] != 0.0:
        return J
    K = np.zeros((6, 3))
    K[2, 0], K[3, 1], K[4, 2] = F[K_SPIN], F[K_T], F[K_T]
    _lie.put2(J, 0, 7, -_lie.mm(sh[P_GA].T, K))
    _lie.put2(J, 6, 7, _lie.mm(sh[P_GB].T, K))
    J[12, 7], J[13, 8], J[14, 9] = F[K_SPIN], F[K_T], F[K_T]
    return J


@njit
def damper_law_jacobian(t, inputs, refs, sh, F, I):
    """``d(e_a, e_b)/d(T_a, T_b)`` (12, 12) of `damper_law`."""
    if refs[2][0] < 0.5 or sh[P_CULLED] != 0.0:
        return np.zeros((12, 12))
    _, _, cap_spin, cap_t = _limits(sh, refs[7], F, I)
    _, _, dW = _damper_efforts(sh[P_GA], sh[P_GB], inputs[0], inputs[1], F[C_SPIN], F[C_T], cap_spin, cap_t,
                               sh[P_LAW], sh[P_DELTA])
    return _kc.damper_jacobian(sh[P_GA], sh[P_GB], dW)


@njit
def friction_law_jacobian(t, inputs, refs, sh, F, I):
    """``d v_slip / d f`` (3, 3) of `friction_law`."""
    lim_spin, lim_t, c_slip, spin, slide = _slip_arguments(refs, sh, F, I)
    return _kc.slip_jacobian(inputs[0], lim_spin, lim_t, c_slip, spin, slide)
