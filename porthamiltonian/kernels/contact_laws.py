"""Compiled laws of the compliant contact, evaluated on the contact pair
(`porthamiltonian.kernels.contact_pair`): the packed normal laws (`normal_force`,
`normal_potential`, the local Hertz stiffness `local_hertz`), the spring's port efforts, the
damper with its friction-limited caps, and the slip friction's rates.
"""

from __future__ import annotations

import math

import numpy as np
from ._njit import njit

from . import borrow as _borrow
from . import hertz as _kh
from . import lie as _lie
from .curvature import curvature_rates

LAW_LINEAR = 0
LAW_HERTZ = 1
LAW_HUNT_CROSSLEY = 2
LAW_GIVEN = 3          # (code, F_e, F_d, slope, 0): evaluated in Python (a user's law)
LAW_LOCAL_HERTZ = 4    # (code, E*, a, 1.5, clip): Hunt-Crossley with k from the local curvatures
#: largest k_max / k_min of a Hertz point contact (beyond: a line contact)
HERTZ_MAX_RATIO = 1e10


@njit
def normal_force(law, delta, rate):
    """Elastic and dissipative normal forces of a packed `porthamiltonian.contact.NormalLaw`.

    Parameters
    ----------
    law : ndarray, shape (5,)
        ``(code, k, c, n, clip)``: `LAW_*` code, stiffness, damping (c [N s/m], or a [s/m]
        for Hunt-Crossley), exponent, 1.0 to clip the total force at zero; or
        ``(LAW_GIVEN, F_e, F_d, slope, 0)`` for a law evaluated in Python, returned as is; a
        `LAW_LOCAL_HERTZ` law must be resolved first (`resolve_law`, NaN otherwise).
    delta : float [m]
        Penetration.
    rate : float [m/s]
        d delta / dt.

    Returns
    -------
    F_e, F_d : float [N]
        ``F_e = k delta^n`` (0 for delta <= 0) and the dissipative force, ``c rate`` or
        ``k a delta^n rate``, limited to ``>= -F_e`` when clipped or at delta <= 0.
    slope : float [N s/m]
        ``d F_d / d rate``.
    """
    if law[0] == LAW_GIVEN:
        return law[1], law[2], law[3]
    if law[0] == LAW_LOCAL_HERTZ:   # not resolved (`resolve_law`): no stiffness here
        return np.nan, np.nan, np.nan
    k, c, n = law[1], law[2], law[3]
    dp = delta if delta > 0.0 else 0.0
    pn = dp if n == 1.0 else dp**n   # a linear law's power: pow(x, 1) is x, without pow's call
    fe = k * pn if delta > 0.0 else 0.0
    slope = k * c * pn if law[0] == LAW_HUNT_CROSSLEY else c
    fd = slope * rate
    if (law[4] != 0.0 or delta <= 0.0) and fd <= -fe and rate < 0.0:
        return fe, -fe, 0.0
    return fe, fd, slope


@njit
def normal_potential(law, delta):
    """Elastic energy ``k delta^(n+1) / (n+1)`` [J] of a packed built-in (or resolved) law, 0
    for ``delta <= 0``."""
    if not delta > 0.0:
        return 0.0
    n = law[3]
    return law[1] * delta ** (n + 1.0) / (n + 1.0)


@njit
def resolve_law(law, K):
    """The packed law with its stiffness: a `LAW_LOCAL_HERTZ` law becomes the Hunt-Crossley
    law ``(LAW_HUNT_CROSSLEY, K, a, 1.5, clip)`` of the local stiffness ``K``; any other law is
    returned as a copy."""
    out = law.copy()
    if law[0] == LAW_LOCAL_HERTZ:
        out[0] = LAW_HUNT_CROSSLEY
        out[1] = K
    return out


@njit
def local_hertz(F1, I1, F2, I2, x, c1, c2, D1, D2, H_12, H_1C, E_star, max_ratio):
    """Hertz stiffness of a contact from its local curvatures, and its rate per unit twist.

    ``K = K(E*, k_max, k_min)`` (`porthamiltonian.kernels.hertz.stiffness`, the exact
    elliptical solution) with ``k_max, k_min`` the principal relative curvatures at the
    generalized contact points (`curvature_invariants`). As the contact point moves over
    both surfaces, ``dK/dt = g . T_C`` for the relative twist ``T_C`` of body b w.r.t. body a
    in the contact frame; a spring storing ``V = 2/5 K delta^(5/2)`` then exerts the exact
    gradient wrench ``W_C = (2/5) delta^(5/2) g`` besides ``-K delta^(3/2)`` along the normal.

    With ``s = (k_max - k_min)/2``: ``dK/dt = (K_max + K_min)/2 d(trace)/dt + (K_max -
    K_min) ds/dt`` (partials of `stiffness`), ``ds/dt = (trace/2 d(trace)/dt - d(det)/dt) /
    (2 s)``. At a circular contact (``s <= 1e-9 trace``) the second term is dropped: it
    vanishes there (``K_max - K_min = O(s)`` and ``s^2``, a smooth function >= 0, has zero
    gradient where it vanishes), and dropping it costs at most ~1e-9 of ``dK/dt``.

    Parameters
    ----------
    F1, I1, F2, I2, x, c1, c2, D1, D2, H_12 :
        As `curvature_rates`.
    H_1C : ndarray, shape (4, 4)
        Contact frame in frame 1.
    E_star : float [Pa]
    max_ratio : float
        Largest ``k_max / k_min`` of a point contact
        (`porthamiltonian.contact.hertz.MAX_CURVATURE_RATIO`).

    Returns
    -------
    K : float [N/m^(3/2)]
    g : ndarray, shape (6,) [N/m^(3/2) per unit twist]
    ok : bool
        False where Hertz does not apply (``k_min <= 0``: conforming or concave; ratio
        beyond `max_ratio`: a line contact) or the kinematics are singular; the caller
        evaluates in Python, which raises saying so.
    """
    trace, det, g_t, g_d, s_min = curvature_rates(F1, I1, F2, I2, x, c1, c2, D1, D2, H_12)
    s = math.sqrt(max(0.25 * trace * trace - det, 0.0))
    k_max, k_min = 0.5 * trace + s, 0.5 * trace - s
    g = np.zeros(6)
    if not (s_min > 0.0 and k_min > 0.0 and k_max <= max_ratio * k_min):
        return np.nan, g, False
    K, K_max, K_min = _kh.stiffness(E_star, k_max, k_min)
    g1 = 0.5 * (K_max + K_min) * g_t
    if s > 1e-9 * trace:
        g1 += (K_max - K_min) * (0.5 * trace * g_t - g_d) / (2.0 * s)
    # T_1 = Ad(H_1C) T_C: the rate is g1 . T_1 = (Ad(H_1C)^T g1) . T_C
    return K, _lie.mtv(_lie.adjoint(H_1C), g1), True


@njit
def spring_outputs(G_a, G_b, K_t, s, F_e, W_geo):
    """Port efforts of a compliant contact's spring: the wrench ``W_C = (0, 0, K_t s, -F_e) +
    W_geo`` on the relative motion, as ``(-G_a^T W_C, G_b^T W_C)``, and the slip port's force
    ``K_t s`` (`library.compliant_contact`). ``W_geo`` is the part of the gradient of a
    stiffness that depends on the configuration (`local_hertz`; zero for a fixed law).

    ``W_C`` lives on the stack (`kernels.borrow.local`) and ``-G_a^T W_C`` is negated in place:
    the three arrays returned and no other, with the sums of `porthamiltonian.kernels.lie.mtv`
    (the same bits)."""
    W = _borrow.local(6)
    for k in range(6):
        W[k] = W_geo[k]
    for k in range(3):
        W[2 + k] += K_t[k] * s[k]
    W[5] -= F_e
    e_a = _lie.mtv(G_a, W)
    for k in range(e_a.shape[0]):
        e_a[k] = -e_a[k]
    e_s = np.empty(3)
    for k in range(3):
        e_s[k] = K_t[k] * s[k]
    return e_a, _lie.mtv(G_b, W), e_s


@njit
def _capped(c, v, cap):
    """A damper force ``c v`` limited in magnitude to ``cap`` >= 0, and ``dF/dv``.

    ``v`` is 1 or 2 components (spin, or sliding); the derivative is ``c I`` below the cap
    and ``cap / |v| (I - v v^T / |v|^2)`` on it (the force keeps the direction of ``v``).
    """
    n = v.shape[0]
    speed = math.sqrt(_norm2(v))
    F = c * v
    dF = np.zeros((n, n))
    if c * speed <= cap:
        for i in range(n):
            dF[i, i] = c
        return F, dF
    F = (cap / speed) * v
    for i in range(n):
        for j in range(n):
            dF[i, j] = cap / speed * ((1.0 if i == j else 0.0) - v[i] * v[j] / (speed * speed))
    return F, dF


@njit
def _norm2(v):
    out = 0.0
    for k in range(v.shape[0]):
        out += v[k] * v[k]
    return out


@njit(inline="always")
def twist_row(G_a, G_b, T_a, T_b, k):
    """``T_C[k]`` of ``T_C = G_b T_b - G_a T_a``, summed as `porthamiltonian.kernels.lie.mv` sums."""
    pb = 0.0
    pa = 0.0
    for j in range(6):
        pb += G_b[k, j] * T_b[j]
    for j in range(6):
        pa += G_a[k, j] * T_a[j]
    return pb - pa


@njit(inline="always")
def _transpose_into(G, W, sign, out):
    """``out = sign G^T W`` (6), summed as `porthamiltonian.kernels.lie.mtv` sums."""
    for j in range(6):
        acc = 0.0
        for i in range(6):
            acc += G[i, j] * W[i]
        out[j] = sign * acc


@njit
def damper_port_efforts(G_a, G_b, T_a, T_b, c_spin, c_t, cap_spin, cap_t, law, delta):
    """The port efforts ``(e_a, e_b)`` of `damper_efforts` without ``dW_C / dT_C``, in scalars
    (two arrays per call, the results, against fifteen: the compiled right-hand side's damper,
    issue 33); `damper_efforts` takes its efforts from here. The force limits are those of
    `_capped`, operation for operation (the same bits)."""
    T2 = twist_row(G_a, G_b, T_a, T_b, 2)
    T3 = twist_row(G_a, G_b, T_a, T_b, 3)
    T4 = twist_row(G_a, G_b, T_a, T_b, 4)
    T5 = twist_row(G_a, G_b, T_a, T_b, 5)
    _, fd, _ = normal_force(law, delta, -T5)
    speed = math.sqrt(0.0 + T2 * T2)
    F_spin = c_spin * T2 if c_spin * speed <= cap_spin else (cap_spin / speed) * T2
    speed = math.sqrt(0.0 + T3 * T3 + T4 * T4)
    if c_t * speed <= cap_t:
        F_x, F_y = c_t * T3, c_t * T4
    else:
        F_x, F_y = (cap_t / speed) * T3, (cap_t / speed) * T4
    W = (0.0, 0.0, F_spin, F_x, F_y, -fd)
    e_a = np.empty(6)
    e_b = np.empty(6)
    _transpose_into(G_a, W, -1.0, e_a)
    _transpose_into(G_b, W, 1.0, e_b)
    return e_a, e_b


@njit(argtypes="f8[:, ::1], f8[:, ::1], f8[::1], f8[::1], f8, f8, f8, f8, f8[::1], f8")
def damper_efforts(G_a, G_b, T_a, T_b, c_spin, c_t, cap_spin, cap_t, law, delta):
    """Port efforts of a compliant contact's damper, ``W_C = -(0, 0, F_spin, F_x, F_y, F_d)``
    with ``T_C = G_b T_b - G_a T_a``: ``F_d`` the normal law's dissipative force at the
    penetration rate ``-T_C[5]``, and the tangential dampers ``c_spin w_z`` and
    ``c_t (v_x, v_y)`` each limited in magnitude to its cap (`_capped`; an infinite cap is
    the plain damper). Also ``dW_C / dT_C`` (6, 6) for `damper_jacobian`.
    """
    e_a, e_b = damper_port_efforts(G_a, G_b, T_a, T_b, c_spin, c_t, cap_spin, cap_t, law, delta)
    T_C = _lie.mv(G_b, T_b) - _lie.mv(G_a, T_a)
    _, _, slope = normal_force(law, delta, -T_C[5])
    _, dF_spin = _capped(c_spin, T_C[2:3].copy(), cap_spin)
    _, dF_t = _capped(c_t, T_C[3:5].copy(), cap_t)
    dW = np.zeros((6, 6))
    dW[2, 2] = dF_spin[0, 0]
    _lie.put2(dW, 3, 3, dF_t)
    dW[5, 5] = slope
    return e_a, e_b, dW


@njit
def damper_jacobian(G_a, G_b, dW):
    """``d(e_a, e_b) / d(T_a, T_b)`` (12, 12) of `damper_efforts`: ``G^T dW G`` with
    ``G = (-G_a, G_b)``."""
    G = np.empty((6, 12))
    _lie.put2(G, 0, 0, -G_a)
    _lie.put2(G, 0, 6, G_b)
    return G.T @ (dW @ G)


@njit
def _slip_rate(force, limit, c_slip, speed):
    """Magnitude of a slip rate along the force: the Dahl term ``speed min(force / limit, 1)``
    plus the excess ``max(force - limit, 0) / c_slip`` (`slip_rates`)."""
    if force == 0.0:
        return 0.0
    r = speed * (force / limit if force < limit else 1.0)
    if force > limit:
        r += (force - limit) / c_slip
    return r


@njit
def slip_rates(f, lim_spin, lim_t, c_slip, spin_speed, slide_speed):
    """Slip rates ``(spin, x, y)`` of the spring's anchor for its force ``f = (torque, f_x,
    f_y)``, along the force.

    Each is the sum of a Dahl term ``speed min(|f| / limit, 1)`` (the anchor slips in
    proportion to the relative speed of the surfaces, so that in steady sliding the spring
    holds exactly the friction limit; never faster than the surfaces slide; zero at rest)
    and a regularized Coulomb excess ``max(|f| - limit, 0) / c_slip`` (which alone, with
    zero speeds, is the viscous slip law, and which unloads the spring when the limit drops,
    as it does to zero at a release). The dissipation ``f . v_slip`` is >= 0.
    """
    out = np.zeros(3)
    r = _slip_rate(abs(f[0]), lim_spin, c_slip, spin_speed)
    out[0] = r if f[0] > 0.0 else -r
    ft = math.sqrt(f[1] * f[1] + f[2] * f[2])
    if ft > 0.0:
        r = _slip_rate(ft, lim_t, c_slip, slide_speed)
        out[1] = r * f[1] / ft
        out[2] = r * f[2] / ft
    return out


@njit
def slip_jacobian(f, lim_spin, lim_t, c_slip, spin_speed, slide_speed):
    """``d v_slip / d f`` (3, 3) of `slip_rates`: for a rate ``r(|f|)`` along ``f``, the
    tangential block is ``r' u u^T + (r / |f|) (I - u u^T)``, ``u = f / |f|``."""
    J = np.zeros((3, 3))
    tau = abs(f[0])
    J[0, 0] = (spin_speed / lim_spin if tau < lim_spin else 0.0) + (1.0 / c_slip if tau > lim_spin else 0.0)
    ft = math.sqrt(f[1] * f[1] + f[2] * f[2])
    if ft == 0.0:
        J[1, 1] = J[2, 2] = slide_speed / lim_t if lim_t > 0.0 else 0.0
        return J
    dr = (slide_speed / lim_t if ft < lim_t else 0.0) + (1.0 / c_slip if ft > lim_t else 0.0)
    ratio = _slip_rate(ft, lim_t, c_slip, slide_speed) / ft
    u = (f[1] / ft, f[2] / ft)
    for i in range(2):
        for j in range(2):
            J[1 + i, 1 + j] = (dr - ratio) * u[i] * u[j] + (ratio if i == j else 0.0)
    return J
