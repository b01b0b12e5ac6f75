"""Generalized (and regular) contact kinematics of two surfaces (docs/math.md sec. 5, Duindam &
Stramigioli, *Modeling the kinematics and dynamics of compliant contact*, 2003)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import GeometryError, ParameterError
from ..kernels import contact as _kcontact
from ._local import check_pose, check_vector, pair_derivatives

__all__ = ["MAX_CONDITION", "ContactKinematics", "contact_kinematics", "kinematics_from_derivatives", "rechart"]

MAX_CONDITION = 1e10
"""Largest accepted condition number of the 2x2 contact matrix before the contact is declared
conforming (singular kinematics)."""


@dataclass(frozen=True, eq=False)
class ContactKinematics:
    """Rates of the generalized contact points for a given relative twist.

    Attributes
    ----------
    distance : float
        Signed distance ``Delta = n1 . (R p2 + d - p1)`` [m] at the given parameters.
    distance_rate : float
        ``dDelta/dt`` [m/s].
    p1_rate : ndarray, shape (3,)
        ``dp1/dt`` in frame 1 [m/s] (tangent to S1).
    p2_rate : ndarray, shape (3,)
        ``dp2/dt`` in frame 2 [m/s] (tangent to S2).
    x_rate : ndarray, shape (4,)
        ``(du1, dv1, du2, dv2)/dt`` [parameter units/s] in the charts of the call.
    condition : float
        Condition number of the 2x2 contact matrix ``L1 + R L2 R^T (I + Delta L1)``; large
        near conforming contact.
    """

    distance: float
    distance_rate: float
    p1_rate: np.ndarray
    p2_rate: np.ndarray
    x_rate: np.ndarray
    condition: float


def contact_kinematics(S1, S2, x, H_12, T_12, *, charts=(0, 0),
                       max_condition: float = MAX_CONDITION) -> ContactKinematics:
    """Velocities of the generalized contact points (Duindam & Stramigioli 2003, eq. 8).

    Parameters
    ----------
    S1, S2 : Surface
        Surfaces of body 1 and body 2, each in its body frame.
    x : array_like, shape (4,)
        Contact parameters ``(u1, v1, u2, v2)`` in `charts`, e.g. ``ClosestPoints.x``.
    H_12 : array_like, shape (4, 4)
        Pose ``(R, d)`` of body 2 in body 1.
    T_12 : array_like, shape (6,)
        Twist ``(w, v)`` of body 2 relative to body 1 expressed in frame 1:
        ``dR/dt = hat(w) R``, ``dd/dt = w x d + v`` [rad/s, m/s].
    charts : tuple of int
        ``(chart1, chart2)`` of `x`.
    max_condition : float
        Largest accepted condition number of the contact matrix.

    Returns
    -------
    ContactKinematics
        ``dDelta/dt``, ``dp1/dt`` (frame 1), ``dp2/dt`` (frame 2) and the parameter rates.
        With ``Delta = 0`` these are the regular rolling/sliding kinematics (Duindam & Stramigioli 2003, eq. 5).

    Raises
    ------
    ParameterError
        Bad shapes, non-finite input, bad chart indices.
    GeometryError
        Parameters outside a domain, a singular point of a parametrization (move to another
        chart with ``Surface.best_chart``), or a singular contact matrix (conforming contact,
        ``Delta <= Delta_min``; condition number above `max_condition`).

    Notes
    -----
    Frames and signs::

          body 2 (frame 2)        c2 = R p2 + d, n2 = -R^T n1 (frame 2)
        ------.----------
              |  Delta > 0             (w, v): body 2 relative to body 1, in frame 1,
              |                        v = velocity of the body-2 point at the origin of 1
        ------.----------  S1
              p1   n1 ^ (frame 1)
          body 1

    With ``c2 = R p2 + d`` and ``s = w x c2 + v`` (velocity of the body-2 point at c2)
    (docs/math.md sec. 5)::

        dDelta/dt = n1 . s
        [L1 + R L2 R^T (I + Delta L1)] dp1/dt = w x n1 + R L2 R^T (s - dDelta/dt n1)
        R dp2/dt = (I + Delta L1) dp1/dt + dDelta/dt n1 - s

    Everything lives in the tangent plane of S1, solved in the orthonormal basis
    ``E = (e1, e2) = (f1_u / |f1_u|, n1 x e1)``: with the 2x2 matrices ``K1 = E^T L1 E``,
    ``K2 = E^T R L2 R^T E`` (``L = F I^-1 II I^-1 F^T``)::

        (K1 + K2 (I + Delta K1)) y1 = E^T (w x n1) + K2 E^T s,     dp1/dt = E y1
        y2 = (I + Delta K1) y1 - E^T s,                             dp2/dt = R^T E y2
        (du1, dv1) = I1^-1 F1^T E y1,   (du2, dv2) = I2^-1 (R F2)^T E y2

    The formulas are exact on the solution set of the closest-point equations (``R n2 =
    -n1``, ``R p2 + d - p1 = Delta n1``) and first-order accurate near it.

    Examples
    --------
    >>> import numpy as np
    >>> from porthamiltonian.geometry import Plane, Sphere
    >>> H = np.eye(4); H[2, 3] = 1.0             # unit sphere resting on the plane z = 0
    >>> x = (0.0, 0.0, -np.pi / 2, 0.0)          # plane origin; south pole in chart 1
    >>> k = contact_kinematics(Plane(), Sphere(1.0), x, H, (0, 1.0, 0, 0, 0, 0), charts=(0, 1))
    >>> k.p1_rate.round(12).tolist(), round(k.distance_rate, 12)   # rolling about y
    ([1.0, 0.0, 0.0], 0.0)
    """
    R, d = check_pose(H_12, "H_12")
    T = check_vector(T_12, "T_12", 6)
    D1, D2 = pair_derivatives(S1, S2, x, charts, 2)
    return kinematics_from_derivatives(S1, S2, x, D1, D2, R, d, T, max_condition)


def singular_kinematics_error(S1, S2, x, distance, s_max, s_min, max_condition=MAX_CONDITION) -> GeometryError:
    """The error raised when the contact matrix is too ill-conditioned (conforming contact)."""
    cond = s_max / s_min if s_min > 0.0 else np.inf
    return GeometryError(
        f"singular contact kinematics between {S1!r} and {S2!r} at x = "
        f"{np.asarray(x, dtype=float).tolist()}: the "
        f"contact matrix L1 + R L2 R^T (I + Delta L1) has condition number {cond:.3g} "
        f"> {max_condition:g} at Delta = {distance:.6g} m (conforming contact or "
        f"Delta <= Delta_min: the contact points are not isolated)")


def kinematics_from_derivatives(S1, S2, x, D1, D2, R, d, T, max_condition=MAX_CONDITION) -> ContactKinematics:
    """`contact_kinematics` from order-2 derivative arrays already evaluated (no checks).

    `D1`, `D2` (arrays or nested lists, shape (3, 3, 3)) are those of the contact points
    (e.g. from `porthamiltonian.geometry.closest.refine`), `R`, `d` the pose H_12, `T` the
    twist as a sequence of 6 floats; `x` only enters error messages. The computation is
    `porthamiltonian.kernels.contact.kinematics`.
    """
    distance, rate, dp1, dp2, x_rate, s_max, s_min = _kcontact.kinematics(
        np.ascontiguousarray(D1, dtype=float), np.ascontiguousarray(D2, dtype=float),
        np.ascontiguousarray(R, dtype=float), np.ascontiguousarray(d, dtype=float), np.asarray(T, dtype=float))
    if not s_min > s_max / max_condition:
        raise singular_kinematics_error(S1, S2, x, distance, s_max, s_min, max_condition)
    return ContactKinematics(distance, rate, dp1, dp2, x_rate, s_max / s_min)


def rechart(S1, S2, x, charts):
    """Move contact parameters to charts far from singular sets (``Surface.best_chart``).

    Parameters
    ----------
    S1, S2 : Surface
    x : array_like, shape (4,)
        ``(u1, v1, u2, v2)`` in `charts`.
    charts : tuple of int

    Returns
    -------
    x : ndarray, shape (4,)
        The same points, in the returned charts (periodic parameters wrapped).
    charts : tuple of int

    Raises
    ------
    ParameterError, GeometryError
        Bad input, or parameters outside a domain.

    Notes
    -----
    Integrating ``x_rate`` keeps the charts fixed; call this between steps (or on an event
    ``Surface.domain(chart).distance_to_singular < chart_switch_margin``) so that the
    kinematics never meet a pole. The switch has hysteresis (see ``Surface.best_chart``).

    Examples
    --------
    >>> from porthamiltonian.geometry import Plane, Sphere
    >>> S = Sphere(1.0)
    >>> x, charts = rechart(Plane(), S, (0.0, 0.0, 0.3, -1.5), (0, 0))   # near a pole
    >>> charts, bool(np.allclose(S.point(x[2], x[3], 1), S.point(0.3, -1.5, 0)))
    ((0, 1), True)
    """
    x = check_vector(x, "x", 4)
    try:
        chart1, chart2 = charts
    except (TypeError, ValueError):
        raise ParameterError(f"`charts` must be a pair of chart indices, got {charts!r}") from None
    c1, u1, v1 = S1.best_chart(x[0], x[1], chart1)
    c2, u2, v2 = S2.best_chart(x[2], x[3], chart2)
    return np.array((u1, v1, u2, v2)), (c1, c2)
