"""An ellipsoid rocking (frictionless) or rolling (no slip) on a floor: the stiff contact.

References derived here, not read from the product. The ellipsoid (semi-axes a, b, c, c the
smallest) rests on the end of c and rocks about its y axis, a principal axis: the motion
stays in the xz plane. While touching, its centre is at the support height

    z(theta) = sqrt(a^2 sin^2 theta + c^2 cos^2 theta),   z'(theta) the horizontal offset
                                                           of the contact point from the centre

and the potential is V = m g z(theta) ~ m g (c + (rho - c) theta^2 / 2), rho = a^2/c the
radius of curvature of the xz section at the resting point.

* Frictionless: no horizontal force, so the centre moves only vertically (x = 0):
  T = 1/2 (I_y + m z'^2) theta'^2, small oscillations omega^2 = m g (rho - c) / I_y.
* Rolling: the contact point is the instantaneous centre, at distance sqrt(z^2 + z'^2) from
  the centre: T = 1/2 (I_y + m (z^2 + z'^2)) theta'^2, omega^2 = m g (rho - c) / (I_y + m c^2).

For a finite amplitude theta0 both are one-degree-of-freedom conservative systems whose
exact period is the quadrature 4 int_0^theta0 sqrt(J(theta) / (2 (V(theta0) - V(theta)))).
"""

import functools
import math

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.integrate import quad

import porthamiltonian as ph
from porthamiltonian.lie import quaternion
from porthamiltonian.models import build_model

G = 9.81
MASS, AXES = 1.0, (0.2, 0.15, 0.1)


def inertia_y(mass, axes):
    """Solid ellipsoid about its y axis: m (a^2 + c^2) / 5."""
    a, _, c = axes
    return mass * (a * a + c * c) / 5.0


def small_oscillation_omega(mass, axes, friction):
    """Closed-form angular frequency [rad/s] of small rocking (module docstring)."""
    a, _, c = axes
    restoring = mass * G * (a * a / c - c)
    inertia = inertia_y(mass, axes) + (mass * c * c if friction == "rolling" else 0.0)
    return math.sqrt(restoring / inertia)


def exact_period(mass, axes, theta0, friction):
    """Period [s] of planar rocking from rest at theta0, by quadrature (module docstring).

    With theta = theta0 sin(phi) the integrand is regular; V(theta0) - V(theta) is written
    without cancellation as m g (a^2 - c^2) sin(theta0 - theta) sin(theta0 + theta) / (z0 + z).
    """
    a, _, c = axes
    I_y = inertia_y(mass, axes)

    def z(t):
        return math.sqrt((a * math.sin(t)) ** 2 + (c * math.cos(t)) ** 2)

    def integrand(phi):
        th = theta0 * math.sin(phi)
        half = math.sin(0.25 * math.pi - 0.5 * phi)
        drop = (mass * G * (a * a - c * c) * math.sin(2.0 * theta0 * half * half) * math.sin(theta0 + th)
                / (z(theta0) + z(th)))
        if drop <= 0.0:  # phi = pi/2 exactly: the integrand's limit multiplies cos(phi) = 0
            return 0.0
        dz = (a * a - c * c) * math.sin(th) * math.cos(th) / z(th)
        J = I_y + mass * dz * dz + (mass * z(th) ** 2 if friction == "rolling" else 0.0)
        return math.sqrt(J / (2.0 * drop)) * theta0 * math.cos(phi)

    value, err = quad(integrand, 0.0, 0.5 * math.pi, epsabs=0.0, epsrel=1e-13, limit=200)
    assert err < 1e-12 * value
    return 4.0 * value


def rocking_system(friction, tilt, spin=0.0):
    model = build_model("rocking-ellipsoid", contact="sliding_plane", friction=friction, unilateral=False,
                        tilt=tilt, spin=spin, mass=MASS, axes=AXES)
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    return model, system, system.initial_state(model.initial)


def measured_period(friction, tilt, rtol):
    """Period [s] from the zero crossings of the tilt (events located by the solver)."""
    model, system, x0 = rocking_system(friction, tilt)
    pose = system.layout["body.pose"]

    def tilt_sign(t, x):
        return quaternion.to_matrix(x[pose][:4])[0, 2]  # sin(tilt) for rotations about y

    T_guess = exact_period(MASS, AXES, tilt, friction)
    traj = ph.simulate(system, (0.0, 1.4 * T_guess), x0, method="DOP853", rtol=rtol, atol=1e-2 * rtol,
                       events=[tilt_sign])
    times = np.array([e.t for e in traj.events if e.name == "tilt_sign"])
    assert len(times) == 3  # at T/4, 3T/4, 5T/4
    return times[2] - times[0], times


@pytest.mark.parametrize("friction", ["frictionless", "rolling"])
def test_small_oscillation_frequency_is_the_rigid_closed_form(friction):
    tilt, rtol = 1e-3, 1e-10
    T, times = measured_period(friction, tilt, rtol)
    omega = small_oscillation_omega(MASS, AXES, friction)
    # the frequency falls with amplitude: by 3.1e-6 (relative) at 1e-3 rad (quadrature:
    # 3.06e-4 at 1e-2 rad, quadratic in the amplitude); event times are located to ~rtol
    assert_allclose(2.0 * math.pi / T, omega, rtol=1e-5, atol=0)
    # what is left is that amplitude correction (measured 2e-10 from the quadrature)
    assert_allclose(T, exact_period(MASS, AXES, tilt, friction), rtol=1e-8, atol=0)
    # and the crossings come at T/4 from the release (symmetric oscillation)
    assert_allclose(times[0], T / 4.0, rtol=1e-8, atol=0)


def test_rolling_is_slower_than_frictionless_rocking():
    """The two closed forms differ by the factor sqrt(1 + m c^2 / I_y): here sqrt(2)."""
    ratio = small_oscillation_omega(MASS, AXES, "frictionless") / small_oscillation_omega(MASS, AXES, "rolling")
    assert_allclose(ratio, math.sqrt(2.0), rtol=1e-15, atol=0)


@pytest.mark.parametrize("friction", ["frictionless", "rolling"])
def test_large_amplitude_period_matches_the_quadrature(friction):
    tilt, rtol = 0.3, 1e-10
    T, _ = measured_period(friction, tilt, rtol)
    T_exact = exact_period(MASS, AXES, tilt, friction)
    # 0.3 rad lengthens the period by 22% (frictionless) / 18% (rolling): a nonlinear check;
    # the measurement is good to ~rtol per crossing, checked at 1e3 rtol
    assert_allclose(T, T_exact, rtol=1e-7, atol=0)
    assert T > 1.15 * 2.0 * math.pi / small_oscillation_omega(MASS, AXES, friction)


# ---------------------------------------------------------------- energy, 3D (spinning) motion
RTOL_E = 1e-9


@functools.cache
def spinning_run(friction):
    """Rocking from 0.2 rad while turning at 4 rad/s about the vertical, for 1 s (3D motion)."""
    model, system, x0 = rocking_system(friction, tilt=0.2, spin=4.0)
    traj = ph.simulate(system, (0.0, 1.0), x0, method="DOP853", rtol=RTOL_E, atol=1e-2 * RTOL_E)
    return friction, model, system, traj


@pytest.fixture(params=["frictionless", "rolling"])
def spinning(request):
    return spinning_run(request.param)


def energy_from_state(model, traj):
    """Kinetic energy of the body plus m g z of its centre, from the state alone."""
    body = model.graph["body"]
    P = traj.state("body.P")
    return 0.5 * np.einsum("ni,ij,nj->n", P, body.Minv, P) + MASS * G * traj.state("body.pose")[:, 6]


def test_bilateral_contact_conserves_energy(spinning):
    friction, model, system, traj = spinning
    assert traj.success and not traj.events
    E = energy_from_state(model, traj)
    # energy drift in units of the requested tolerance (measured ~1e-2 rtol)
    assert_allclose(E, E[0], rtol=10 * RTOL_E, atol=0)
    budget = traj.power_budget()
    assert budget.relative_residual < 10 * RTOL_E
    # the work of the Baumgarte terms has its own ledger line, and it is tiny here
    stab = budget.entries["stabilization"]
    assert "contact/constraint" in stab
    assert abs(stab["contact/constraint"][-1]) < 10 * RTOL_E * budget.scale
    # bit-exact on every CPU: no dissipative element and no event, so these integrals are sums of exact zeros
    assert_allclose(budget.dissipated[-1], 0.0, rtol=0, atol=0)
    assert_allclose(budget.lost[-1], 0.0, rtol=0, atol=0)


def test_contact_is_kept(spinning):
    friction, model, system, traj = spinning
    pose = traj.state("body.pose")
    R = np.array([quaternion.to_matrix(q) for q in pose[:, :4]])
    # support height along the world vertical n: the body-frame normal is R^T e_z
    n = R[:, 2, :]
    support = np.sqrt(np.sum((np.asarray(AXES) * n) ** 2, axis=1))
    # the centre is at the support height (touching) to ~rtol of the size
    assert_allclose(pose[:, 6], support, rtol=0, atol=10 * RTOL_E * AXES[0])
    gap, speed = traj.constraint_drift()["contact/constraint"]
    assert gap < 10 * RTOL_E * AXES[0] and speed < 1e-7


def test_frictionless_centre_moves_only_vertically():
    friction, model, system, traj = spinning_run("frictionless")
    body = model.graph["body"]
    pose, P = traj.state("body.pose"), traj.state("body.P")
    # no horizontal force: the horizontal position of the centre stays put (released at rest
    # horizontally); errors measured against the size
    assert_allclose(pose[:, 4:6], 0.0, rtol=0, atol=10 * RTOL_E * AXES[0])
    # the normal force passes through the contact point; its moment about the centre is
    # horizontal, so the vertical angular momentum about the centre is conserved
    L_z = np.array([(quaternion.to_matrix(p[:4]) @ (body.inertia @ (body.Minv @ Pk)[:3]))[2] for p, Pk in zip(pose, P)])
    assert_allclose(L_z, L_z[0], rtol=10 * RTOL_E, atol=0)


def test_rolling_contact_point_does_not_slip():
    friction, model, system, traj = spinning_run("rolling")
    body = model.graph["body"]
    for x in traj.x[:: max(1, len(traj.t) // 20)]:
        H = quaternion.pose_to_matrix(x[system.layout["body.pose"]])
        T = body.Minv @ x[system.layout["body.P"]]
        R = H[:3, :3]
        # lowest point of the ellipsoid: the support point p = D^2 m / |D m|, m = R^T (-e_z)
        m = -R[2, :]
        D2 = np.asarray(AXES) ** 2
        p = D2 * m / math.sqrt(np.sum(D2 * m * m))
        v_contact = R @ (T[3:] + np.cross(T[:3], p))
        # velocity of the material point at the contact, in units of rtol times the typical
        # speed (tilt rate ~1 rad/s times 0.2 m)
        assert_allclose(v_contact, 0.0, rtol=0, atol=1e3 * RTOL_E)


# ---------------------------------------------------------------- contact tracking at the start
@pytest.mark.parametrize("contact", ["compliant", "sliding_plane"])
@pytest.mark.parametrize("tilt", [0.1, 0.3, 0.7])
def test_contact_starts_outside_the_chart_switch_margin(contact, tilt):
    """The tracked contact parameters change chart when they come within the pair's
    CHART_MARGIN of a singular set of their chart (an event on the margin crossing zero
    downward). A contact that starts inside the margin never switches: at a tilt of 0.3 rad
    the rolling ellipsoid then passed 1e-7 rad from the chart's pole when upright, where the
    parameter rates blow up and the solver's steps collapsed to 1e-15 s (0.16 s of motion
    took 2400 rhs evaluations). So after `initial_state` the margin must be positive,
    whatever chart the global search happened to return."""
    model = build_model("rocking-ellipsoid", contact=contact, friction="rolling", tilt=tilt, mass=MASS, axes=AXES)
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    x0 = system.initial_state(model.initial)
    path = "contact/constraint" if contact == "sliding_plane" else "contact/spring"
    own, refs = system.element_state(path, x0)
    pair = system.elements[path].pair
    assert pair.chart_margin(pair.state(own[:4], own[4:6], refs), own[4:6]) > 0.0


# ---------------------------------------------------------------- parameters
@pytest.mark.parametrize(
    "params, match",
    [
        (dict(friction="rollin"),
         r"`friction` must be one of \('frictionless', 'rolling'\), got 'rollin'; did you mean 'rolling'\?"),
        (dict(friction="coulomb"), r"`friction` must be one of .*got 'coulomb'"),
        (dict(axes=(0.1, 0.15, 0.2)), r"`axes` must be three positive semi-axes with c the smallest"),
        (dict(contact="stiff"),
         r"unknown contact kind 'stiff'; use one of \['compliant', 'reduced', 'sliding_plane', 'soil'\]"),
    ],
)
def test_bad_parameters(params, match):
    with pytest.raises(ph.ParameterError, match=match):
        build_model("rocking-ellipsoid", **params)
