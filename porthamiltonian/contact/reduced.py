"""Dynamics in Kry & Pai's reduced contact coordinates (Kry & Pai, *Continuous contact simulation
for smooth surfaces*, 2003, sec. 3.3-3.5).

Body 1 is fixed (the ground, a table) and carries the surface S1; body 2 moves and carries
S2 (the convention of `porthamiltonian.contact.coordinates`: ``H_12`` is the pose of body 2
in body 1). While the two touch at one point, the contact coordinates ``q = (s, t, u, v,
psi)`` and their rates are a complete state of body 2: its pose is ``contact_pose(q)`` and
its body twist ``T = H_2(q) dq/dt``, so the surfaces touch by construction, whatever the
integrator's error (Kry & Pai 2003, sec. 1: "reduced coordinates confine integration errors to the
constraint manifold").

Newton-Euler for body 2 in its body frame, with body momentum ``P = M T``::

    M dT/dt = b + W_c,     b = ad(T)^T M T + W_ext      (the rate of P without the contact)
    dT/dt = H_2 d2q/dt2 + dH_2/dt dq/dt

The contact wrench ``W_c`` is a force at the contact point, ``F`` in the contact frame C1
of body 1 (origin at the contact point, ``z1`` the outward normal of S1, pointing into body
2): ``W_c = Ad(G)^T (0, F)`` with ``G = inv(H_1C1) H_12`` the pose of body 2 in C1. The
unknowns are ``d2q/dt2`` and the force components the contact mode leaves free:

=================  ===========================  ==========================================
mode               force ``F`` in C1             equations (unknowns)
=================  ===========================  ==========================================
``frictionless``   ``(0, 0, N)``                 6 Newton-Euler rows (5 + 1)
``sliding``        ``N (-mu s/|s|, 1)``          6 Newton-Euler rows (5 + 1); dynamic Coulomb
``rolling``        ``(F_x, F_y, N)``             6 rows + 2 no-slip rows (5 + 3)
=================  ===========================  ==========================================

where ``s`` is the slip velocity: the velocity of the material point of body 2 at the
contact point relative to body 1, in C1 (rows 3, 4 of ``H_C dq/dt``; row 5, the normal
speed, is zero identically). No-slip keeps ``d/dt (H_C dq/dt)[3:5] = 0``:
``H_C[3:5] d2q/dt2 = -dH_C/dt[3:5] dq/dt``. This is the paper's block elimination
(eqs. 18-20) written as one small square solve, with the force kept as an unknown so the
normal force (separation when it turns negative) and the friction force (stick when it
stays in the cone) come out of the same solve. In the frictionless mode the Newton-Euler
rows projected on ``H_2`` give the paper's ``H^T M H d2q/dt2 = H^T (b - M dH/dt dq/dt)``.

Power: the contact force does work ``F . (s, 0)`` on body 2, which is ``-mu N |s|`` while
sliding and zero otherwise (no slip, or no tangential force), the `dissipation` of
`ReducedDynamics`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validate import as_finite_float, as_spd
from ..errors import GeometryError, ParameterError
from ..lie import se3
from ._local import check_pose, check_vector
from ..kernels import reduced as _kred
from .coordinates import _check_q, contact_coordinate_jacobian, contact_coordinates, contact_pose

__all__ = ["MODES", "ReducedDynamics", "reduced_dynamics", "reduced_solve", "body_motion", "reduced_coordinates_from"]

#: contact modes of `reduced_dynamics`
MODES = ("frictionless", "sliding", "rolling")
_MODE_CODES = {"frictionless": _kred.FRICTIONLESS, "sliding": _kred.SLIDING, "rolling": _kred.ROLLING}
_NO_DIRECTION = np.zeros(2)


@dataclass(frozen=True, eq=False)
class ReducedDynamics:
    """The result of `reduced_dynamics` at one state.

    Attributes
    ----------
    q_acc : ndarray, shape (5,)
        ``d2q/dt2``.
    force : ndarray, shape (3,) [N]
        Contact force on body 2 in the contact frame C1: tangential ``(F_x, F_y)`` and
        normal ``N`` (positive pushes the bodies apart; negative means the contact would pull,
        so it separates).
    slip : ndarray, shape (2,) [m/s]
        Slip velocity of body 2 on body 1 in C1.
    dissipation : float [W]
        Power taken by friction while sliding, ``-F_t . slip = mu N |slip|`` (zero in the other
        modes: rolling keeps the slip at zero, up to the integrator's drift), plus that of the
        rolling and spinning resistance.
    stabilization : float [W]
        Power taken by the relaxation of the slip in the rolling mode (`slip_relax`): the
        stick force's work on the slip the integrator's error leaves.
    twist : ndarray, shape (6,)
        Body twist of body 2, ``H_2 dq/dt`` [rad/s, m/s].
    twist_rate : ndarray, shape (6,)
        ``dT/dt = H_2 d2q/dt2 + dH_2/dt dq/dt``.
    """

    q_acc: np.ndarray
    force: np.ndarray
    slip: np.ndarray
    dissipation: float
    stabilization: float
    twist: np.ndarray
    twist_rate: np.ndarray


def _mode(mode, mu):
    if mode not in MODES:
        raise ParameterError(f"`mode` must be one of {', '.join(MODES)}; got {mode!r}")
    mu = as_finite_float(mu, "mu", nonnegative=True)
    if mode == "sliding" and mu == 0.0:
        raise ParameterError("`mu` must be positive in the 'sliding' mode (mu = 0 is the 'frictionless' mode)")
    return mu


def reduced_dynamics(S1, S2, q, q_rate, M, b, *, charts=(0, 0), mode="frictionless", mu=0.0,
                     slip_direction=None, slip_floor=0.0, max_condition=1e12, rolling_damping=0.0,
                     spin_damping=0.0, slip_relax=0.0) -> ReducedDynamics:
    """Contact-coordinate accelerations and contact force of body 2 touching fixed body 1.

    Parameters
    ----------
    S1, S2 : Surface
        Surface of the fixed body 1 and of the moving body 2, each in its body frame.
    q, q_rate : array_like, shape (5,)
        Contact coordinates ``(s, t, u, v, psi)`` in `charts` and their rates.
    M : array_like, shape (6, 6)
        Spatial inertia of body 2 about its body frame, for twists ``(omega, v)``
        (`library.rigid_body.spatial_inertia`), symmetric positive definite.
    b : array_like, shape (6,)
        Rate of body 2's body momentum without the contact: ``ad(T)^T M T + W_ext``, with
        ``W_ext`` the body-frame wrench of every other force (gravity, springs...) [N m, N].
    charts : tuple of int
    mode : {"frictionless", "sliding", "rolling"}
        Module docstring. ``"sliding"`` needs a slip velocity above `slip_floor` or a
        `slip_direction`.
    mu : float
        Coefficient of dynamic friction (``"sliding"``; > 0 there).
    slip_direction : array_like, shape (2,), optional
        ``"sliding"``: the direction of the slip in C1 to blend in while the slip speed is below
        `slip_floor` (leaving the no-slip mode the slip starts from zero, against the
        friction force that the cone could no longer hold).
    slip_floor : float [m/s]
        Below this slip speed ``"sliding"`` opposes the blend ``slip + (slip_floor - |slip|)
        u`` of the slip and the unit `slip_direction` u (u at rest, continuous at the floor);
        without a `slip_direction`, a slip at or below it is an error.
    max_condition : float
        Largest accepted condition number of the square system (conforming contact, where
        the contact point is not isolated, makes it singular: Kry & Pai 2003, sec. 3.2).
    rolling_damping, spin_damping : float [N m s/rad]
        Viscous resistance to rolling and to spinning: a moment on body 2 at the contact,
        ``-(c_r w_x, c_r w_y, c_s w_z)`` in C1 with ``w`` its angular velocity relative to body
        1 (not in the paper: real contacts have a finite patch that resists rolling, which is
        what lets a rocking body come to rest; 0 by default). Its power is dissipated.
    slip_relax : float [1/s]
        ``"rolling"``: the no-slip condition asks ``d(slip)/dt = -slip_relax slip``, so that
        a slip left by the integrator's error decays (0: ``d(slip)/dt = 0``).

    Returns
    -------
    ReducedDynamics

    Raises
    ------
    ParameterError
        Bad shapes, non-finite values, an unknown mode, ``mu <= 0`` while sliding.
    GeometryError
        Outside a surface's domain, a singular point, a singular system, or sliding with no
        slip (the direction of the friction force is undefined: that state is rolling).

    Examples
    --------
    A unit ball resting on the plane z = 0 under gravity: no acceleration, the normal force
    carries its weight.

    >>> import numpy as np
    >>> from porthamiltonian.geometry import Plane, Sphere
    >>> M = np.diag([0.4, 0.4, 0.4, 1.0, 1.0, 1.0])          # m = 1 kg, I = 2/5 m r^2
    >>> r = reduced_dynamics(Plane(), Sphere(1.0), (0.0, 0.0, -np.pi / 2, 0.0, 0.0), np.zeros(5), M,
    ...                      (0, 0, 0, 0, 0, -9.81), charts=(0, 1))
    >>> bool(np.abs(r.q_acc).max() < 1e-15), round(float(r.force[2]), 12)
    (True, 9.81)
    """
    mu = _mode(mode, mu)
    M = as_spd(M, "M", 6)
    b = np.array(check_vector(b, "b", 6))
    qd = np.array(check_vector(q_rate, "q_rate", 5))
    if slip_direction is not None:
        slip_direction = np.array(check_vector(slip_direction, "slip_direction", 2))
        if not np.hypot(*slip_direction) > 0.0:
            raise ParameterError(f"`slip_direction` must be a non-zero 2-vector, got {slip_direction.tolist()}")
    c_roll = as_finite_float(rolling_damping, "rolling_damping", nonnegative=True)
    c_spin = as_finite_float(spin_damping, "spin_damping", nonnegative=True)
    relax = as_finite_float(slip_relax, "slip_relax", nonnegative=True)
    q, D1, D2 = _check_q(q, charts, S1, S2, 3)
    q = np.array(q)
    return reduced_solve(_kred.contact_matrices(D1, D2, q[4], qd), qd, M, b, mode=mode, mu=mu,
                         slip_direction=slip_direction, slip_floor=slip_floor, max_condition=max_condition,
                         where=f"between {S1!r} and {S2!r} at q = {q.tolist()}", rolling_damping=c_roll,
                         spin_damping=c_spin, slip_relax=relax)


def reduced_solve(matrices, q_rate, M, b, *, mode, mu, slip_direction=None, slip_floor=0.0, max_condition=1e12,
                  where="", rolling_damping=0.0, spin_damping=0.0, slip_relax=0.0):
    """`reduced_dynamics` from the contact matrices of `porthamiltonian.kernels.reduced.
    contact_matrices`, without checks: the hot path of the reduced contact
    (`library.reduced_contact.ReducedChart`). The compiled solve's status is raised as a
    GeometryError naming the state (`where`)."""
    H_12, H_1C, H_C, _, H_2, dH_C, _, dH_2 = matrices
    direction = _NO_DIRECTION if slip_direction is None else np.asarray(slip_direction, dtype=float)
    status, q_acc, force, slip, dissipation, stabilization, T, T_rate, cond = _kred.solve(
        H_12, H_1C, H_C, H_2, dH_C, dH_2, q_rate, M, b, _MODE_CODES[mode], float(mu), direction, float(slip_floor),
        float(max_condition), float(rolling_damping), float(spin_damping), float(slip_relax))
    if status == _kred.SINGULAR:
        raise GeometryError(f"singular reduced contact system ({mode}) {where}: condition number {cond:.3g} > "
                            f"{max_condition:g} (conforming contact: the contact point is not isolated)")
    if status == _kred.NO_SLIP_DIRECTION:
        raise GeometryError(f"sliding with no slip {where}: the friction force has no direction (give "
                            "`slip_direction`, or use the 'rolling' mode)")
    return ReducedDynamics(q_acc, force, slip, float(dissipation), float(stabilization), T, T_rate)


def body_motion(S1, S2, q, q_rate, *, charts=(0, 0)):
    """Pose ``H_12`` (4x4) and body twist ``T = H_2 dq/dt`` of body 2 at contact coordinates.

    Examples
    --------
    >>> import numpy as np
    >>> from porthamiltonian.geometry import Plane, Sphere
    >>> H, T = body_motion(Plane(), Sphere(1.0), (0.0, 0.0, -np.pi / 2, 0.0, 0.0),
    ...                    (1.0, 0.0, 1.0, 0.0, 0.0), charts=(0, 1))
    >>> R = H[:3, :3]                                   # rolling along +x, about +y
    >>> H[:3, 3].round(12).tolist(), (R @ T[:3]).round(12).tolist(), (R @ T[3:]).round(12).tolist()
    ([0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0])
    """
    qd = check_vector(q_rate, "q_rate", 5)
    Jc = contact_coordinate_jacobian(S1, S2, q, charts=charts)
    return contact_pose(S1, S2, q, charts=charts), Jc.H_2 @ np.array(qd)


def reduced_coordinates_from(S1, S2, x, H_12, T, *, charts=(0, 0), pose_tol=1e-9):
    """Contact coordinates, their rates and the dropped normal speed of a touching body 2.

    Parameters
    ----------
    S1, S2 : Surface
    x : array_like, shape (4,)
        Contact parameters ``(s, t, u, v)`` where the surfaces touch (closest points at zero
        distance).
    H_12 : array_like, shape (4, 4)
        Pose of body 2 in body 1.
    T : array_like, shape (6,)
        Body twist of body 2.
    charts : tuple of int
    pose_tol : float
        How far (relative to ``1 + |d|``, entrywise) the pose of the computed coordinates may
        be from `H_12`: the surfaces must touch at `x`.

    Returns
    -------
    q : ndarray, shape (5,)
    q_rate : ndarray, shape (5,)
        The solution of the five rows of ``H_C dq/dt = T_C`` that keep contact (``T_C`` the
        twist in the contact frame C1).
    normal_speed : float [m/s]
        What ``q_rate`` cannot carry: the speed of body 2's contact point along ``z1`` (positive
        separating). Entering continuous contact drops it: the caller books the kinetic energy
        it carried as lost (an inelastic normal impact).

    Raises
    ------
    ParameterError, GeometryError
        Bad input, a singular point, or a pose whose contact frames do not coincide.
    """
    T = np.array(check_vector(T, "T", 6))
    R, d = check_pose(H_12, "H_12")
    H = np.eye(4)
    H[:3, :3], H[:3, 3] = R, d
    q = contact_coordinates(S1, S2, x, H, charts=charts)
    off = contact_pose(S1, S2, q, charts=charts) - H
    scale = 1.0 + float(np.abs(H[:3, 3]).max())
    if not float(np.abs(off).max()) <= pose_tol * scale:
        raise GeometryError(
            f"the surfaces do not touch at x = {np.asarray(x, float).tolist()} in charts {tuple(charts)}: the "
            f"pose of contact coordinates {q.tolist()} differs from H_12 by {float(np.abs(off).max()):.3g} "
            f"(> pose_tol = {pose_tol:g} times 1 + |d|)")
    Jc = contact_coordinate_jacobian(S1, S2, q, charts=charts)
    T_C = se3.Ad(se3.inverse(Jc.H_1C) @ H) @ T
    q_rate = np.linalg.solve(Jc.H_C[:5], T_C[:5])
    return q, q_rate, float(T_C[5])
