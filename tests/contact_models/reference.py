"""Independent references for the compliant-contact tests.

Closed forms and quadratures derived here from first principles (not taken from
`porthamiltonian.contact.laws`), rotations from scipy. Nothing here calls the product.

Impacts (no gravity during the contact), penetration delta >= 0, approach speed v:

    linear        m delta'' + c delta' + k delta = 0,  delta(0) = 0, delta'(0) = v
                  delta = v/w_d exp(-zeta w_0 t) sin(w_d t): zero again at t_c = pi / w_d,
                  where delta' = -v exp(-zeta pi / sqrt(1 - zeta^2)) = -e v
    hertz (c = 0) 1/2 m v^2 = 1/2 m delta'^2 + 2/5 k delta^(5/2)
                  delta_max = (5 m v^2 / (4 k))^(2/5)
                  t_c = 2 int_0^delta_max d delta / delta' = 2 delta_max / v int_0^1 dx / sqrt(1 - x^(5/2))

Rigid rocking of an ellipsoid (semi-axes a, b, c) on a frictionless plane, tilt theta about
its y axis: the centre of mass keeps its horizontal position (no horizontal force), its
height is the support function h(theta) = sqrt(a^2 sin^2 theta + c^2 cos^2 theta), so

    E = 1/2 (I_y + m h'(theta)^2) theta'^2 + m g h(theta)
    T(theta_0) = 4 int_0^theta_0 sqrt((I_y + m h'^2) / (2 m g (h(theta_0) - h(theta)))) d theta
    small amplitude: omega_0^2 = m g h''(0) / I_y = 5 g (a^2 - c^2) / (c (a^2 + c^2))

Sliding sphere (radius r, force point at depth rho below the centre): the angular momentum
about the contact point, I w + m rho v, is conserved (the contact force passes through it,
gravity and the normal force are vertical), so rolling (v = w rho) ends with
v_f = v_0 / (1 + I / (m rho^2)) = 5/7 v_0 for a solid sphere with rho = r.
"""

import math

import numpy as np
from scipy.integrate import quad, solve_ivp
from scipy.spatial.transform import Rotation

G = 9.81


# ----------------------------------------------------------------- impacts
def linear_impact(m, k, c):
    """(contact time [s], restitution) of the unclipped linear spring-damper impact."""
    w0 = math.sqrt(k / m)
    zeta = c / (2.0 * math.sqrt(k * m))
    wd = w0 * math.sqrt(1.0 - zeta * zeta)
    return math.pi / wd, math.exp(-zeta * math.pi / math.sqrt(1.0 - zeta * zeta))


def hertz_impact_quadrature(m, k, v):
    """(maximum compression [m], contact duration [s]) of the undamped Hertz impact.

    The duration integral has an inverse square-root singularity at x = 1; it is integrated
    with the algebraic weight (1 - x)^(-1/2) and the smooth factor sqrt((1 - x)/(1 - x^(5/2))).
    """
    dmax = (5.0 * m * v * v / (4.0 * k)) ** 0.4

    def smooth(x):
        return math.sqrt((1.0 - x) / (1.0 - x**2.5)) if x < 1.0 else math.sqrt(1.0 / 2.5)

    integral = quad(smooth, 0.0, 1.0, weight="alg", wvar=(0.0, -0.5), epsabs=0.0, epsrel=1e-13)[0]
    return dmax, 2.0 * dmax / v * integral


def clipped_linear_impact(m, k, c, v):
    """(exit speed [m/s], time at which the contact force vanishes [s], dissipated energy [J])
    of the clipped linear law m delta'' = -max(k delta + c delta', 0), by a separate ODE solve.

    After the force reaches zero the body flies off freely (k delta + c delta' keeps
    decreasing), so the exit speed is the speed at that moment.
    """

    def rhs(t, y):
        return (y[1], -max(k * y[0] + c * y[1], 0.0) / m)

    def force_zero(t, y):
        return k * y[0] + c * y[1]

    force_zero.terminal = True
    force_zero.direction = -1.0
    t_max = 10.0 * math.pi * math.sqrt(m / k)
    sol = solve_ivp(rhs, (0.0, t_max), (0.0, v), method="DOP853", rtol=1e-12, atol=1e-15, events=force_zero)
    t_off = float(sol.t_events[0][0])
    v_out = -float(sol.y_events[0][0][1])
    return v_out, t_off, 0.5 * m * (v * v - v_out * v_out)


# ----------------------------------------------------------------- ellipsoid on a plane
def ellipsoid_inertia(m, a, b, c):
    """Principal inertia of a solid ellipsoid [kg m^2]."""
    return m / 5.0 * np.array([b * b + c * c, a * a + c * c, a * a + b * b])


def support_height(R, axes):
    """Height of the centre above the lowest point of an ellipsoid with rotation R (body to
    world): sqrt(e_z^T R diag(a^2, b^2, c^2) R^T e_z)."""
    row = np.asarray(R)[..., 2, :]
    return np.sqrt(np.einsum("...i,i,...i->...", row, np.asarray(axes, float) ** 2, row))


def lowest_point_body(R, axes):
    """Lowest point of the ellipsoid in body coordinates (support point in -z)."""
    D2 = np.asarray(axes, float) ** 2
    n = R.T @ np.array([0.0, 0.0, -1.0])
    return D2 * n / math.sqrt(float(n @ (D2 * n)))


def tilt_height(theta, a, c):
    return math.sqrt(a * a * math.sin(theta) ** 2 + c * c * math.cos(theta) ** 2)


def tilt_height_slope(theta, a, c):
    return (a * a - c * c) * math.sin(theta) * math.cos(theta) / tilt_height(theta, a, c)


def rigid_rocking_period(theta0, m, a, c, Iy, g=G):
    """Period of the rigid frictionless rocking from rest at tilt theta0 (module docstring).

    theta = theta0 sin(phi) and eps = pi/4 - phi/2 make the integrand smooth and free of
    cancellation: theta0 - theta = 2 theta0 sin^2(eps), cos(phi) = 2 sin(eps) cos(eps), and
    h(theta0)^2 - h(theta)^2 = (a^2 - c^2) sin(theta0 - theta) sin(theta0 + theta).
    """
    h0 = tilt_height(theta0, a, c)

    def f(phi):
        eps = math.pi / 4 - phi / 2
        th = theta0 * math.sin(phi)
        x = 2.0 * theta0 * math.sin(eps) ** 2
        sinc = math.sin(x) / x if x > 0.0 else 1.0
        # drop / sin(eps)^2, with drop = h(theta0) - h(theta)
        drop_s2 = (a * a - c * c) * 2.0 * theta0 * sinc * math.sin(theta0 + th) / (h0 + tilt_height(th, a, c))
        inertia = Iy + m * tilt_height_slope(th, a, c) ** 2
        return math.sqrt(inertia / (2.0 * m * g * drop_s2)) * theta0 * 2.0 * math.cos(eps)

    return 4.0 * quad(f, 0.0, math.pi / 2, epsabs=0.0, epsrel=1e-13, limit=200)[0]


def rigid_rocking_frequency(m, a, c, Iy, g=G):
    """Small-amplitude rocking frequency [rad/s] of the rigid ellipsoid (module docstring)."""
    return math.sqrt(m * g * (a * a - c * c) / c / Iy)


def rotation_about(axis, angle):
    axis = np.asarray(axis, float)
    return Rotation.from_rotvec(angle * axis / np.linalg.norm(axis)).as_matrix()


def rotations_of(poses):
    """Rotation matrices (N, 3, 3) of pose 7-vectors (qw, qx, qy, qz, px, py, pz)."""
    q = np.atleast_2d(poses)
    return Rotation.from_quat(np.column_stack((q[:, 1:4], q[:, 0]))).as_matrix()


def sliding_sphere_final_speed(v0, m, inertia, rho):
    """Rolling speed reached by a sphere launched sliding at v0 without spin (module docstring)."""
    return v0 / (1.0 + inertia / (m * rho * rho))
