"""Contact frames, the average tangent plane and the rolling/sliding split of a twist."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validate import as_finite_float
from ..errors import ParameterError
from ..geometry.gauss import unit_normal
from ..kernels import reduced as _kred
from ..lie import se3
from ._local import (
    check_pose,
    check_vector,
    frame_from,
    pair_derivatives,
    rotate,
    surface_derivatives,
)

__all__ = [
    "ROLLING_PROJECTION",
    "SLIDING_PROJECTION",
    "ContactFrame",
    "TwistSplit",
    "contact_frame",
    "patch_frame",
    "split_twist",
    "twist_projections",
]

ROLLING_PROJECTION = np.diag([1.0, 1.0, 0.0, 0.0, 0.0, 0.0])
"""Projection (6x6, contact-frame coordinates) of a twist ``(w, v)`` onto its rolling part:
rotation about an axis in the tangent plane through the frame origin."""
ROLLING_PROJECTION.flags.writeable = False

SLIDING_PROJECTION = np.diag([0.0, 0.0, 1.0, 1.0, 1.0, 1.0])
"""The complementary projection ``I - ROLLING_PROJECTION``: spin about the normal, sliding
(tangential translation) and normal approach, all at the frame origin."""
SLIDING_PROJECTION.flags.writeable = False


def patch_frame(S, u: float, v: float, chart: int = 0) -> np.ndarray:
    """Orthonormal frame of a surface at ``(u, v)`` (Kry & Pai, *Continuous contact simulation for
    smooth surfaces*, 2003, eqs. 5-6).

    Parameters
    ----------
    S : Surface
    u, v : float
        Parameters in `chart`.
    chart : int

    Returns
    -------
    H_BC : ndarray, shape (4, 4)
        Pose in the surface's body frame B: origin ``f(u, v)``, ``x = f_u / |f_u|``,
        ``z = n`` (outward normal), ``y = z x x``.

    Raises
    ------
    ParameterError
        Non-finite parameters or a bad chart.
    GeometryError
        Outside the domain, or at a singular point.

    Examples
    --------
    >>> from porthamiltonian.geometry import Sphere
    >>> patch_frame(Sphere(1.0), 0.0, 0.0)[:3].round(12).tolist()
    [[0.0, 0.0, 1.0, 1.0], [1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]]
    """
    x = check_vector((u, v), "(u, v)", 2)
    if (isinstance(chart, bool) or not isinstance(chart, (int, np.integer))
            or not 0 <= int(chart) < S.n_charts):
        raise ParameterError(f"`chart` must be an integer in {list(range(S.n_charts))}, "
                             f"got {chart!r}")
    return _kred.patch_frame(np.array(surface_derivatives(S, x[0], x[1], int(chart), 1, "S"), dtype=float))


@dataclass(frozen=True, eq=False)
class ContactFrame:
    """The contact frame C of a pair of generalized contact points, posed in both bodies.

    Attributes
    ----------
    H_1C : ndarray, shape (4, 4)
        Pose of C in body 1: origin ``p1 + alpha Delta n1``, ``z = n1``, ``x = f1_u / |f1_u|``.
    H_2C : ndarray, shape (4, 4)
        Pose of C in body 2, ``inv(H_12) H_1C``.
    distance : float
        Signed distance ``Delta`` [m].
    alpha : float
        Position of the origin between ``p1`` (0) and ``R p2 + d`` (1).
    """

    H_1C: np.ndarray
    H_2C: np.ndarray
    distance: float
    alpha: float


def contact_frame(S1, S2, x, H_12, *, charts=(0, 0), alpha: float = 0.0) -> ContactFrame:
    """Contact frame on the average tangent plane between two generalized contact points.

    Parameters
    ----------
    S1, S2 : Surface
    x : array_like, shape (4,)
        Contact parameters ``(u1, v1, u2, v2)`` in `charts` (e.g. ``ClosestPoints.x``).
    H_12 : array_like, shape (4, 4)
        Pose of body 2 in body 1.
    charts : tuple of int
    alpha : float
        Places the average tangent plane: 0 through ``p1``, 1 through ``c2 = R p2 + d``,
        0.5 midway (Duindam & Stramigioli, *Modeling the kinematics and dynamics of compliant
        contact*, 2003, sec. 5). For two compliant surfaces with normal stiffnesses
        ``k1, k2`` in series, body 1 yields ``k2 / (k1 + k2)`` of the overlap, so
        ``alpha = k2 / (k1 + k2)`` (a rigid body 1 gives 0).

    Returns
    -------
    ContactFrame

    Raises
    ------
    ParameterError
        Bad input, or `alpha` outside [0, 1].
    GeometryError
        Outside a domain or at a singular point.

    Notes
    -----
    The tangent planes at ``p1`` and ``c2`` are parallel (``n1 = -R n2``); the average one
    is a third parallel plane (Duindam & Stramigioli 2003, sec. 5)::

              c2 = R p2 + d               (alpha = 1)
        ------.-----------  S2 (here penetrating: Delta < 0)
        ......O...........  average tangent plane, O = p1 + alpha Delta n1
              | z = n1
        ------.-----------  S1
              p1                          (alpha = 0)

    Examples
    --------
    >>> import numpy as np
    >>> from porthamiltonian.geometry import Plane, Sphere
    >>> H = np.eye(4); H[2, 3] = 0.9                       # 0.1 m penetration
    >>> F = contact_frame(Plane(), Sphere(1.0), (0, 0, -np.pi / 2, 0), H, charts=(0, 1),
    ...                   alpha=0.5)
    >>> F.H_1C[:3, 3].round(12).tolist(), round(F.distance, 12)
    ([0.0, 0.0, -0.05], -0.1)
    """
    alpha = as_finite_float(alpha, "alpha")
    if not 0.0 <= alpha <= 1.0:
        raise ParameterError(f"`alpha` must lie in [0, 1], got {alpha!r}")
    R, d = check_pose(H_12, "H_12")
    D1, D2 = pair_derivatives(S1, S2, x, charts, 1)
    n1 = unit_normal(np.array(D1))
    Rp2 = rotate(R, D2[0][0])
    c2 = np.array(Rp2) + np.array(d)
    p1 = np.array(D1[0][0])
    distance = float(n1 @ (c2 - p1))
    H_1C = frame_from(p1 + alpha * distance * n1, D1[1][0], n1)
    H_21 = se3.inverse(np.asarray(H_12, dtype=float))
    return ContactFrame(H_1C, H_21 @ H_1C, distance, alpha)


@dataclass(frozen=True, eq=False)
class TwistSplit:
    """A relative twist split at the contact frame, both parts in contact-frame coordinates.

    Attributes
    ----------
    rolling : ndarray, shape (6,)
        ``(w_x, w_y, 0, 0, 0, 0)``: rotation about an axis in the tangent plane through
        the frame origin.
    sliding : ndarray, shape (6,)
        ``(0, 0, w_z, v_x, v_y, v_z)``: spin, sliding and normal approach at the origin.
    """

    rolling: np.ndarray
    sliding: np.ndarray


def split_twist(T_1, H_1C) -> TwistSplit:
    """Split a relative twist into rolling and the rest (Duindam & Stramigioli 2003, sec. 5).

    Parameters
    ----------
    T_1 : array_like, shape (6,)
        Twist of body 2 relative to body 1 in frame 1 ``(w, v)`` [rad/s, m/s].
    H_1C : array_like, shape (4, 4)
        Contact frame in body 1 (``ContactFrame.H_1C``).

    Returns
    -------
    TwistSplit
        ``rolling + sliding = Ad(inv(H_1C)) T_1`` (contact-frame coordinates).

    Raises
    ------
    ParameterError
        Bad shapes, non-finite input, or `H_1C` not a rigid motion.

    Notes
    -----
    In contact-frame coordinates (origin O on the average tangent plane, z the normal) the
    rolling twists are exactly those with ``w_z = 0`` and zero velocity of the body point at
    O, so the split is the coordinate projection ``ROLLING_PROJECTION`` and its complement
    ``SLIDING_PROJECTION``::

        T_C = Ad(inv(H_1C)) T_1 = (w_x, w_y, 0, 0, 0, 0) + (0, 0, w_z, v_x, v_y, v_z)

    A spring or damper acting through the sliding part exerts the wrench
    ``W_C = SLIDING_PROJECTION W_spring`` (the projections are symmetric), which does no
    work on any rolling twist: pure rolling does not charge it.

    Examples
    --------
    >>> import numpy as np
    >>> H_1C = np.eye(4); H_1C[2, 3] = 1.0                   # contact point at z = 1
    >>> s = split_twist((0.0, 1.0, 0.0, -1.0, 0.0, 0.0), H_1C)   # rolling about y through it
    >>> s.rolling.tolist(), s.sliding.tolist()
    ([0.0, 1.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    """
    T = np.array(check_vector(T_1, "T_1", 6))
    check_pose(H_1C, "H_1C")
    T_C = se3.Ad_inv(np.asarray(H_1C, dtype=float)) @ T
    return TwistSplit(ROLLING_PROJECTION @ T_C, SLIDING_PROJECTION @ T_C)


def twist_projections(H_1C):
    """The rolling and sliding projections in frame-1 coordinates.

    Parameters
    ----------
    H_1C : array_like, shape (4, 4)
        Contact frame in body 1.

    Returns
    -------
    P_roll, P_slide : ndarray, shape (6, 6)
        ``Ad(H_1C) P Ad(inv(H_1C))`` for ``P = ROLLING_PROJECTION`` and
        ``SLIDING_PROJECTION``: complementary (``P_roll + P_slide = I``) idempotents acting
        on twists in frame 1; their transposes act on wrenches in frame 1.

    Raises
    ------
    ParameterError
        If `H_1C` is not a rigid motion.

    Examples
    --------
    >>> import numpy as np
    >>> P_roll, P_slide = twist_projections(np.eye(4))
    >>> bool(np.allclose(P_roll + P_slide, np.eye(6)))
    True
    """
    check_pose(H_1C, "H_1C")
    H = np.asarray(H_1C, dtype=float)
    Ad, Ad_inv = se3.Ad(H), se3.Ad_inv(H)
    return Ad @ ROLLING_PROJECTION @ Ad_inv, Ad @ SLIDING_PROJECTION @ Ad_inv
