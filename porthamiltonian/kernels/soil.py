"""Compiled kernels of the soil contact (`library.soil_contact`): the soil's normal law
(`porthamiltonian.contact.soil.SoilLaw`, whose methods call the scalar functions here) and the
element kernels of the compiled right-hand side.

The soil contact is the compliant contact with another normal law, so its kernels are the
compliant ones (`porthamiltonian.kernels.compliant`) around the soil's force:

- the spring's outputs kernel computes the shared contact state with `compliant.pair_state`
  and exerts the soil spring's force (`spring_force`: the conservative part of Bekker's
  loading force, or the elastic branch with memory m). The shared tuple is the compliant
  one; its last entry, the packed normal law, is the linear law ``(LAW_LINEAR, F / z, c,
  1, 0)`` with the secant stiffness of the soil's *whole* normal force F at this sinkage z
  (`total_force`: Bekker's ``K z^N`` while loading, else elastic; 0 for z <= 0) and the
  soil's viscous damping c. So the damper's and the slip's kernels are the compliant ones
  unchanged: their friction limits are mu F and their normal damping c dz/dt, as in
  `SoilDamper` and `SoilSlip`;
- the spring's rates, input matrix and output jacobian are the compliant ones, extended by
  the soil block of the own state (rate 0: it changes at events only);
- `plastic_law` is the element "plastic" (`PlasticFlow`): ``plastic_force(z)`` along the
  normal while loading;
- `spring_events`: the compliant events (touch, release, chart, approach) with the soil's
  touch (into an imprint) and release (at the imprint's floor), then "unload" (the sinkage
  rate dz/dt = -(T_C)[5] from the bodies' momenta) and "yield".

References, padded as the compliant ones (`library.contact_geometry.ContactPair.padded_refs`):
the soil spring's are ``(pose_a, pose_b, P_a, P_b)`` (the compliant kernels it calls take the
poses, the first two: the same tuple type as a compliant spring's, so no new compile of
them); the resistors' are the compliant resistors' followed by the spring's soil block.

Packed constants: the compliant ``(F, I)`` of the pair (`compliant.pack`, with the linear law
of the soil's damping) and the soil's constants appended to ``F``: its last `SOIL_SIZE`
floats, at the offsets `SOIL_K`, ... from ``F.shape[0] - SOIL_SIZE`` (`pack`).
"""

from __future__ import annotations

import math

import numpy as np
from ._njit import njit

from . import borrow as _borrow
from . import compliant as _kcompliant
from . import contact as _kcontact
from . import lie as _lie
from .compliant import P_CULLED, P_DELTA, P_D2, P_GA, P_GB

# ---- the soil block at the end of F
SOIL_K, SOIL_N, SOIL_BETA, SOIL_AREA, SOIL_RADIUS = 0, 1, 2, 3, 4
SOIL_SIZE = 5
#: the soil block of the spring's own state (`library.soil_contact`): memory, mode, footprint
_M, _MODE, _FP = 10, 11, 12
#: smallest footprint radius [m] (`footprint_radius`)
MIN_FOOTPRINT = 1e-3


def pack(F, I, *, stiffness, exponent, unloading, area, radius):
    """``(F, I)`` of a soil contact: the pair's compliant ``(F, I)`` with the soil's constants
    appended to ``F`` (module docstring); ``area`` 0 for a spherical sole, ``radius`` 0 for a
    flat plate. Called once, at compile time; not a kernel."""
    block = np.array((stiffness, exponent, unloading, area, radius), dtype=float)
    return np.concatenate((F, block)), I


# ---- the soil's law: F = K z^N loading, k_u(m) (z - z_p(m)) elastic (`SoilLaw`)
@njit
def loading_force(K, N, z):
    """``K max(z, 0)^N`` [N]: Bekker's force on the loading curve at sinkage z [m]."""
    return K * max(z, 0.0) ** N


@njit
def permanent_sinkage(N, beta, m):
    """``z_p(m) = m (1 - 1 / (beta N))`` [m]: the imprint left after loading to m [m]."""
    return m * (1.0 - 1.0 / (beta * N))


@njit
def unloading_stiffness(K, N, beta, m):
    """``k_u(m) = beta N K m^(N-1)`` [N/m]."""
    return beta * N * K * m ** (N - 1.0)


@njit
def elastic_force(K, N, beta, z, m):
    """``k_u(m) (z - z_p(m))`` [N] above the imprint's floor, else 0; 0 without memory
    (m <= 0)."""
    if m <= 0.0:
        return 0.0
    zp = permanent_sinkage(N, beta, m)
    return unloading_stiffness(K, N, beta, m) * (z - zp) if z > zp else 0.0


@njit
def elastic_potential(K, N, beta, z, m):
    """``V(z, m) = 1/2 k_u(m) (z - z_p(m))^2`` [J] above the imprint's floor, else 0."""
    if m <= 0.0:
        return 0.0
    zp = permanent_sinkage(N, beta, m)
    return 0.5 * unloading_stiffness(K, N, beta, m) * (z - zp) ** 2 if z > zp else 0.0


@njit
def plastic_force(K, N, beta, z):
    """``K z^N (1 - (N+1) / (2 beta N))`` [N]: the plastic part of the loading force."""
    return loading_force(K, N, z) * (1.0 - (N + 1.0) / (2.0 * beta * N))


@njit
def footprint_radius(area, radius, m):
    """Radius [m] of the imprint after loading to m [m]: ``sqrt(area / pi)`` for a flat plate
    (``area > 0``), else the spherical cap's ``sqrt(2 R m - m^2)``, at least `MIN_FOOTPRINT`."""
    if area > 0.0:
        return math.sqrt(area / math.pi)
    return max(math.sqrt(max(2.0 * radius * m - m * m, 0.0)), MIN_FOOTPRINT)


@njit
def spring_force(K, N, beta, z, m, loading):
    """``(F [N], V [J])`` of the soil's spring at sinkage z with memory m: while loading the
    conservative part of Bekker's force, ``K (N+1) z^N / (2 beta N)``, and ``V(z, z) = K
    z^(N+1) / (2 beta N)``; else the elastic branch."""
    if loading:
        if z <= 0.0:
            return 0.0, 0.0
        return (loading_force(K, N, z) * (N + 1.0) / (2.0 * beta * N), K * z ** (N + 1.0) / (2.0 * beta * N))
    return elastic_force(K, N, beta, z, m), elastic_potential(K, N, beta, z, m)


@njit
def total_force(K, N, beta, z, m, loading):
    """The soil's whole normal force [N]: ``K z^N`` while loading, else elastic."""
    return loading_force(K, N, z) if loading else elastic_force(K, N, beta, z, m)


# ---- element kernels
@njit(inline="always")
def _soil(F):
    """``(K, N, beta, area, radius)`` of the soil block (module docstring)."""
    at = F.shape[0] - SOIL_SIZE
    return F[at + SOIL_K], F[at + SOIL_N], F[at + SOIL_BETA], F[at + SOIL_AREA], F[at + SOIL_RADIUS]


@njit
def spring_outputs(t, x, refs, F, I):
    """Port efforts ``(e_a, e_b, e_slip)`` of the soil spring and the shared tuple (last),
    which ends with the linear law of the soil's secant stiffness (module docstring)."""
    sh = _kcompliant.pair_state(x, (refs[0], refs[1]), F, I)
    if not _kcompliant._touching(x, sh):
        return _kcompliant._idle(sh, F)
    law = F[_kcompliant.LAW : _kcompliant.LAW + 5].copy()
    z = sh[P_DELTA]
    K, N, beta, _, _ = _soil(F)
    loading = x[_MODE] > 0.5
    law[1] = total_force(K, N, beta, z, x[_M], loading) / z if z > 0.0 else 0.0
    # a foot sinking through the soil (beyond the depth limit) goes to the Python path, which raises
    return _kcompliant._efforts(x, sh, F, law, spring_force(K, N, beta, z, x[_M], loading)[0], np.zeros(6), True)


@njit
def spring_rates(t, x, refs, inputs, sh, F, I):
    """Rates of the soil spring's own state (15): the compliant spring's, 0 on the soil block."""
    out = np.zeros(15)
    _lie.put(out, 0, _kcompliant.spring_rates(t, x, (refs[0], refs[1]), inputs, sh, F, I))
    return out


@njit
def spring_input_matrix(t, x, refs, sh, F, I):
    """``d(rates)/d(inputs)`` (15, 15): the compliant spring's, zero rows on the soil block."""
    B = np.zeros((15, 15))
    _lie.put2(B, 0, 0, _kcompliant.spring_input_matrix(t, x, (refs[0], refs[1]), sh, F, I))
    return B


@njit
def spring_output_jacobian(t, x, refs, sh, F, I):
    """``d(outputs)/d(x)`` (15, 15): the compliant spring's; the outputs do not depend on the
    soil block between events (its entries change at events only)."""
    J = np.zeros((15, 15))
    _lie.put2(J, 0, 0, _kcompliant.spring_output_jacobian(t, x, (refs[0], refs[1]), sh, F, I))
    return J


@njit(inline="always")
def _imprint(x, sh, F):
    """The imprint's depth z_p [m] under the contact point: the remembered one where the
    point lies within the footprint, else 0 (as `SoilSpring._imprint`)."""
    m = x[_M]
    if m <= 0.0 or sh[P_CULLED] != 0.0:
        return 0.0
    K, N, beta, area, radius = _soil(F)
    d = sh[P_D2][0, 0] - x[_FP : _FP + 3]    # the contact point on surface b (its frame) from the footprint's centre
    if math.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) > footprint_radius(area, radius, m):
        return 0.0
    return permanent_sinkage(N, beta, m)


@njit(inline="always")
def _sinkage_rate(refs, sh, F, I):
    """dz/dt [m/s] = -(T_C)[5], the contact twist from the moving bodies' momenta (the padded
    refs: the poses, then the momenta)."""
    T_a = np.zeros(6)
    T_b = np.zeros(6)
    if I[_kcompliant.MOVING_A]:
        T_a = _lie.mv(_kcompliant._mat(F, _kcompliant.MINV_A, 6), refs[2])
    if I[_kcompliant.MOVING_B]:
        T_b = _lie.mv(_kcompliant._mat(F, _kcompliant.MINV_B, 6), refs[3])
    return -(_lie.mv(sh[P_GB], T_b)[5] - _lie.mv(sh[P_GA], T_a)[5])


@njit
def culled_events(t, x, gap, F, I):
    """`spring_events` of a contact culled by its bounding test, as
    `porthamiltonian.kernels.compliant.culled_events`: the compliant ones (the touch function
    is the gap, as no imprint is read off the culled pair), then unload and yield inactive."""
    out = np.empty(6)
    _lie.put(out, 0, _kcompliant.culled_events(t, x, gap, F, I))
    out[4] = 1.0
    out[5] = -1.0
    return out


@njit
def spring_events(t, x, refs, sh, F, I):
    """Values of the soil spring's event functions in the order of `SoilSpring.events`: touch,
    release, chart, [approach] (the compliant ones, with the soil's touch and release), unload,
    yield, as the Python ones, from the evaluation's shared contact state."""
    sh = _borrow.record(sh)   # uncounted reads: `kernels.borrow`
    if sh[P_CULLED] == 1.0:
        return culled_events(t, x, sh[P_DELTA], F, I)
    base = _kcompliant.spring_events(t, x, (refs[0], refs[1]), sh, F, I)
    nb = base.shape[0]
    out = np.empty(nb + 2)
    _lie.put(out, 0, base)
    active = x[_kcompliant._ACT] > 0.5
    loading = x[_MODE] > 0.5
    _, N, beta, _, _ = _soil(F)
    if not active:
        out[0] = -(sh[P_DELTA] - _imprint(x, sh, F))
    zp = 0.0 if loading else permanent_sinkage(N, beta, x[_M])
    out[1] = zp - sh[P_DELTA] if active else -1.0
    touching = active and sh[P_CULLED] == 0.0
    rate = _sinkage_rate(refs, sh, F, I) if touching else 0.0
    out[nb] = rate if touching and loading else 1.0
    # yield only while sinking: at an unload the memory is set to the sinkage (z - m = 0) with the
    # rate zero to the root's accuracy, and a yield read off z - m alone fired at that instant
    # (the quadruped trot's front-left foot at 0.1198 s: rate -1.65e-17 m/s), leaving the soil
    # loading while the foot rose, its plastic force generating energy (issue 36)
    out[nb + 1] = sh[P_DELTA] - x[_M] if active and not loading and rate > 0.0 else -1.0
    return out


@njit
def dahl_speed(speed, limit, c_slip):
    """The sliding speed [m/s or rad/s] that drives the soil's Dahl slip term: ``min(speed,
    limit / c_slip)``.

    The compliant contact's Dahl term slips the anchor at ``speed |f| / limit`` below the
    limit (`porthamiltonian.kernels.contact.slip_rates`): a relaxation rate ``k_t speed /
    limit`` that diverges as the normal force, and with it the limit ``mu F``, goes to 0. A
    foot on soil spends long phases at a vanishing force (touching virgin soil, whose force
    grows as z^N with N = n + 1 = 2.1 for dry sand under a round sole; touching down in an
    imprint; rising to its floor), and explicit solvers then crawl (issue 36: random drop 6
    stalled at 0.095 s with slip modes of 2.7e8 1/s). With the speed capped at ``limit /
    c_slip`` the Dahl rate is at most ``|f| / c_slip``, the slip damping's own rate, so the
    slip's stiffness stays at most ``k_t / c_slip`` (1000 1/s at the default slip damping of
    k_t times 1 ms) at any normal force. Where ``limit >= c_slip speed`` nothing changes;
    below it the steady sliding force is ``c_slip speed``, less than the viscous friction
    law's ``limit + c_slip speed``. The slip stays along the force: dissipation >= 0."""
    return min(speed, limit / c_slip)


@njit(inline="always")
def _slip_arguments(refs, sh, F, I):
    """The compliant slip's ``(lim_spin, lim_t, c_slip, spin_speed, slide_speed)`` with the
    speeds capped by `dahl_speed`."""
    lim_spin, lim_t, c_slip, spin, slide = _kcompliant._slip_arguments(refs, sh, F, I)
    return lim_spin, lim_t, c_slip, dahl_speed(spin, lim_spin, c_slip), dahl_speed(slide, lim_t, c_slip)


@njit
def slip_law(t, inputs, refs, sh, F, I):
    """Slip rates ``(v,)`` of the soil's friction element: the compliant one's
    (`porthamiltonian.kernels.compliant.friction_law`) with the Dahl speeds of `dahl_speed`
    (refs: the compliant resistors', then the soil block)."""
    sh, inputs = _borrow.record(sh), _borrow.record(inputs)   # uncounted reads: `kernels.borrow`
    return (_kcontact.slip_rates(inputs[0], *_slip_arguments(refs, sh, F, I)),)


@njit
def slip_law_jacobian(t, inputs, refs, sh, F, I):
    """``d v_slip / d f`` (3, 3) of `slip_law` (the capped speeds do not depend on f)."""
    return _kcontact.slip_jacobian(inputs[0], *_slip_arguments(refs, sh, F, I))


@njit
def plastic_law(t, inputs, refs, sh, F, I):
    """Port efforts ``(e_a, e_b)`` of the element "plastic": ``plastic_force(z)`` along the
    normal while loading, nothing elastic or not touching (refs: the compliant resistors', then
    the soil block)."""
    sh = _borrow.record(sh)   # uncounted reads: `kernels.borrow`
    soil_block = refs[8]
    if refs[2][0] < 0.5 or sh[P_CULLED] != 0.0 or soil_block[1] < 0.5:
        return np.zeros(6), np.zeros(6)
    K, N, beta, _, _ = _soil(F)
    f = plastic_force(K, N, beta, sh[P_DELTA])
    return f * sh[P_GA][5], -f * sh[P_GB][5]


@njit
def plastic_law_jacobian(t, inputs, refs, sh, F, I):
    """``d(e_a, e_b)/d(T_a, T_b)`` (12, 12) of `plastic_law`: zero (rate-independent)."""
    return np.zeros((12, 12))
