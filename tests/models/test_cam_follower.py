"""Cam and flat-faced follower (seed 001 sec. 6.1, Fig. 7; issue 6, acceptance 2).

References (closed forms written here, not read from the product):

* the cycloidal rise-dwell-return-dwell law, ``s = h (x - sin(2 pi x) / (2 pi))`` on each
  move (x the fraction of the move), and the harmonic law of an eccentric circle,
  ``s = e (1 - cos phi)``;
* a flat face resting on a convex profile sits at the profile's support distance, so a
  dense brute-force maximum over the profile must return the law;
* Newton for the follower on its frictionless guide: the contact force is
  ``m (g + z'')``; on the eccentric circle it is ``m (g + e w^2 cos(w t))``, zero first at
  ``cos(w t) = -g / (e w^2)`` when ``e w^2 > g``;
* after lift-off the follower flies on a parabola until its face meets the circle again
  (a root found here by bracketing), and a plastic landing on a surface moving at ``v_s``
  (the driven cam, of unbounded inertia) loses ``m (v- - v_s)^2 / 2``.
"""

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.optimize import brentq

import porthamiltonian as ph
from porthamiltonian.errors import ParameterError
from porthamiltonian.models import build_model
from porthamiltonian.models.cam_follower import FOLLOWER_ANGLE, CamLaw, cam_profile, cam_surface

G = 9.81
MASS = 0.5
BASE = 0.05                                       # base radius r0 [m]
STROKE = 0.02
MOVES = (2 * math.pi / 3, math.pi / 3, 2 * math.pi / 3)  # rise, upper dwell, return [rad]
OMEGA = 2 * math.pi
ECC = 0.01                                        # eccentricity of the circular cam [m]
RTOL = 1e-9                                       # the model's solver tolerance


def cycloidal(phi):
    """Lift, speed and acceleration per unit cam angle of the model's default law [m, m/rad, m/rad^2]."""
    rise, dwell, fall = MOVES
    phi = np.mod(np.asarray(phi, dtype=float), 2 * math.pi)
    out = np.zeros((3,) + phi.shape)
    for k, p in np.ndenumerate(phi):
        if p < rise:
            x, L, sign, base = p / rise, rise, 1.0, 0.0
        elif p < rise + dwell:
            out[(0,) + k] = STROKE
            continue
        elif p < rise + dwell + fall:
            x, L, sign, base = (p - rise - dwell) / fall, fall, -1.0, STROKE
        else:
            continue
        w = 2 * math.pi * x
        out[(slice(None),) + k] = (base + sign * STROKE * (x - math.sin(w) / (2 * math.pi)),
                                   sign * STROKE * (1 - math.cos(w)) / L,
                                   sign * STROKE * 2 * math.pi * math.sin(w) / L**2)
    return out


def follower_series(model, system, traj, name):
    return np.array([model.observables[name](system, t, x) for t, x in zip(traj.t, traj.x)])


def run(model, t_end, n=None):
    """Compile and simulate a model with its own solver settings; (system, trajectory)."""
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    t_eval = None if n is None else np.linspace(0.0, t_end, n)
    traj = ph.simulate(system, (0.0, t_end), system.initial_state(model.initial), t_eval=t_eval, **model.solver)
    return system, traj


# ---------------------------------------------------------------- synthesis of the cam


def test_profile_support_is_the_motion_law():
    """The envelope construction: a flat face at angle theta0 - phi in the cam frame rests at
    r0 + s(phi); brute force over 40000 profile points (chord sag (2 pi / 4e4)^2 rho / 8 < 1e-9 m)."""
    law = CamLaw("cycloidal", STROKE, *MOVES)
    theta, P, N = cam_profile(law, BASE, 40000)
    phi = np.linspace(0.0, 2 * math.pi, 181)
    d = FOLLOWER_ANGLE - phi
    support = np.max(P @ np.stack((np.cos(d), np.sin(d))), axis=0)
    assert_allclose(support - BASE, cycloidal(phi)[0], rtol=0, atol=2e-9)
    # the normals are the unit vectors e(theta), perpendicular to the profile: central
    # differences err by ~ dtheta^2 rho' / rho = 2.5e-8 x O(1) in the cosine
    tangent = np.roll(P, -1, axis=0) - np.roll(P, 1, axis=0)
    assert_allclose(np.sum(tangent * N, axis=1) / np.linalg.norm(tangent, axis=1), 0.0, rtol=0, atol=1e-7)
    assert_allclose(N, np.stack((np.cos(theta), np.sin(theta)), axis=1), rtol=0, atol=1e-15)


def test_cam_surface_mid_section_is_the_profile():
    law = CamLaw("cycloidal", STROKE, *MOVES)
    n = 720  # the model's default
    theta, P, N = cam_profile(law, BASE, n)
    S = cam_surface(law, BASE, samples=n)
    for k in range(0, n, 7):
        D = S.derivatives(theta[k], 0.0, 1)
        # interpolation reproduces the data (round-off of the spline solve on 0.07 m)
        assert_allclose(D[0, 0], (*P[k], 0.0), rtol=0, atol=1e-13)
        assert_allclose(D[0, 1], (0.0, 0.0, 1.0), rtol=0, atol=1e-12)   # the crown is flat at v = 0
        # the interpolant's slope at the nodes errs most next to the jumps of the law's jerk
        # (at the ends of the moves), O(h^2): measured 2.9e-6 (1.1e-5 with 360 samples)
        assert_allclose(S.normal(theta[k], 0.0), (*N[k], 0.0), rtol=0, atol=1e-5)
    # crowned: off the mid-section the cam is lower along every direction of the face
    for u in np.linspace(0.0, 2 * math.pi, 13)[:-1]:
        n_mid = S.normal(u, 0.0)
        for v in (-0.008, 0.004):
            assert (S.point(u, v) - S.point(u, 0.0)) @ n_mid < 0.0


# ---------------------------------------------------------------- acceptance 2: the follower reproduces the law


@pytest.fixture(scope="module")
def nurbs_run():
    model = build_model("cam-follower")
    system, traj = run(model, 2 * math.pi / OMEGA, 361)  # one revolution
    return model, system, traj


def test_follower_reproduces_the_motion_law(nurbs_run):
    model, system, traj = nurbs_run
    assert traj.t[-1] == pytest.approx(2 * math.pi / OMEGA) and not traj.events
    s, ds, dds = cycloidal(OMEGA * traj.t)
    # acceptance: 1e-4 of the stroke (position) and of the stroke per radian of cam angle
    # (speed). Measured 6e-8 and 6e-6: the interpolation error of the 720-point quintic cam
    assert_allclose(follower_series(model, system, traj, "lift"), s, rtol=0, atol=1e-4 * STROKE)
    assert_allclose(follower_series(model, system, traj, "speed"), ds * OMEGA, rtol=0,
                    atol=1e-4 * STROKE * OMEGA)
    # accelerations carry the interpolation's noise (seed Fig. 7): measured 3e-3 of the peak
    a_peak = 2 * math.pi * STROKE / MOVES[0] ** 2 * OMEGA**2
    assert_allclose(follower_series(model, system, traj, "acceleration"), dds * OMEGA**2, rtol=0,
                    atol=1e-2 * a_peak)


def test_contact_force_is_newtons(nurbs_run):
    """The multiplier is the compressive normal force m (g + z''); it stays positive."""
    model, system, traj = nurbs_run
    _, _, dds = cycloidal(OMEGA * traj.t)
    lam = traj.multipliers()["contact/constraint"][:, 0]
    a_peak = 2 * math.pi * STROKE / MOVES[0] ** 2 * OMEGA**2
    # same acceleration noise as above (measured 3e-3 of m a_peak)
    assert_allclose(lam, MASS * (G + dds * OMEGA**2), rtol=0, atol=1e-2 * MASS * a_peak)
    assert lam.min() > 0.8 * MASS * G


def test_ledger_closes_and_the_drive_supplies_the_follower_energy(nurbs_run):
    model, system, traj = nurbs_run
    b = traj.power_budget()
    # frictionless, no events: the residual is integration error, measured 0.6 RTOL of the scale
    assert b.max_residual <= 10 * RTOL * b.scale, b.table()
    # bit-exact on every CPU: no dissipative element and no event, so these integrals are sums of exact zeros
    assert_allclose(b.dissipated, 0.0, rtol=0, atol=0)
    assert_allclose(b.lost, 0.0, rtol=0, atol=0)
    # the cam turns at constant speed: what the drive supplies goes into the follower,
    # m g s + m (v^2 - v0^2) / 2 by the law (its tracking error, 1e-9 m, is 5e-9 J)
    s, ds, _ = cycloidal(OMEGA * traj.t)
    work = MASS * G * s + 0.5 * MASS * (ds * OMEGA) ** 2
    assert np.ptp(work) > 0.05
    assert_allclose(b.supplied, work - work[0], rtol=0, atol=1e-7)
    # the stabilization terms do ~1e-8 of the work: the constraint holds without them
    assert np.max(np.abs(b.stabilization)) <= 1e-7 * b.scale


# ---------------------------------------------------------------- eccentric circle: lift-off above e w^2 = g


def eccentric(ratio):
    """Model and cam speed with e w^2 = ratio g."""
    omega = math.sqrt(ratio * G / ECC)
    return build_model("cam-follower", cam="eccentric", omega=omega, eccentricity=ECC, mass=MASS, g=G), omega


@pytest.mark.parametrize("ratio", [0.5, 0.8, 0.95])
def test_eccentric_cam_keeps_the_follower_below_the_threshold(ratio):
    model, omega = eccentric(ratio)
    period = 2 * math.pi / omega
    system, traj = run(model, 2 * period, 201)
    assert not [e for e in traj.events if e.name.endswith("detach")]
    phi = omega * traj.t
    # harmonic law; measured 1e-11 m and 1e-10 m/s (an exact sphere, no interpolation)
    assert_allclose(follower_series(model, system, traj, "lift"), ECC * (1 - np.cos(phi)), rtol=0,
                    atol=1e-4 * 2 * ECC)
    assert_allclose(follower_series(model, system, traj, "speed"), ECC * omega * np.sin(phi), rtol=0,
                    atol=1e-4 * 2 * ECC * omega)
    lam = traj.multipliers()["contact/constraint"][:, 0]
    # forces of ~5 N: the multiplier is exact to the solver's tolerance
    assert_allclose(lam, MASS * (G + ECC * omega**2 * np.cos(phi)), rtol=0, atol=1e-6)
    b = traj.power_budget()
    assert b.max_residual <= 10 * RTOL * b.scale, b.table()


@pytest.fixture(scope="module", params=[1.05, 1.25, 2.0], ids=lambda r: f"ratio{r}")
def lift_off(request):
    model, omega = eccentric(request.param)
    system, traj = run(model, 1.5 * 2 * math.pi / omega)
    return request.param, omega, model, system, traj


def flight(omega, t_detach):
    """Landing time and speeds (follower, cam surface) of the free flight after lift-off."""
    z0, v0 = ECC * (1 - math.cos(omega * t_detach)), ECC * omega * math.sin(omega * t_detach)

    def gap(t):  # face height minus the circle's top, both measured from the base radius
        tau = t - t_detach
        return z0 + v0 * tau - 0.5 * G * tau * tau - ECC * (1 - np.cos(omega * t))

    ts = np.linspace(t_detach + 1e-4 / omega, t_detach + 2 * math.pi / omega, 20001)
    k = int(np.flatnonzero(np.diff(np.sign(gap(ts))))[0])
    t_land = brentq(gap, ts[k], ts[k + 1], xtol=1e-15, rtol=1e-15)
    return t_land, v0 - G * (t_land - t_detach), ECC * omega * math.sin(omega * t_land)


def test_follower_lifts_off_above_the_threshold(lift_off):
    ratio, omega, model, system, traj = lift_off
    names = [e.name for e in traj.events]
    assert names[:2] == ["contact/constraint.detach", "contact/constraint.impact"], names
    t_detach = math.acos(-1.0 / ratio) / omega
    # event times are roots of the dense output; measured 1e-13 s
    assert_allclose(traj.events[0].t, t_detach, rtol=0, atol=1e-9)
    t_land, _, _ = flight(omega, t_detach)
    assert_allclose(traj.events[1].t, t_land, rtol=0, atol=1e-9)   # measured 4e-12 s
    # in flight the face is above the cam (the follower is free)
    i = (traj.t > traj.events[0].t + 1e-3) & (traj.t < traj.events[1].t - 1e-3)
    d = [system.elements["contact/constraint"].distance(*system.element_state("contact/constraint", x))
         for x in traj.x[i]]
    assert i.any() and min(d) > 0.0


def test_landing_books_the_impact_loss(lift_off):
    """A plastic landing on the driven cam loses m (v- - v_s)^2 / 2; the drive's impulsive
    reaction does the rest of the follower's kinetic-energy change."""
    ratio, omega, model, system, traj = lift_off
    t_land, v_minus, v_cam = flight(omega, math.acos(-1.0 / ratio) / omega)
    impact = traj.events[1]
    assert_allclose(impact.lost, 0.5 * MASS * (v_minus - v_cam) ** 2, rtol=1e-6)
    b = traj.power_budget()
    assert b.max_residual <= 10 * RTOL * b.scale, b.table()


# ---------------------------------------------------------------- bad inputs


@pytest.mark.parametrize("kwargs, match", [
    (dict(kind="trapezoidal"), "`kind` must be 'cycloidal' or 'harmonic'"),
    (dict(rise=3.0, dwell=2.0, fall=2.0), "rise \\+ dwell \\+ fall must not exceed 2 pi"),
    (dict(rise=0.0), "`rise` and `fall` must be positive"),
    (dict(stroke=-0.01), "`stroke` must be > 0"),
])
def test_bad_motion_laws(kwargs, match):
    with pytest.raises(ParameterError, match=match):
        CamLaw(**kwargs)


def test_non_convex_cam_is_refused():
    # rho = r0 + s + s'' < 0 where the deceleration peaks: s'' = -2 pi h / beta^2 = -0.03 m
    with pytest.raises(ParameterError, match="the cam profile is not convex.*increase `base_radius`"):
        build_model("cam-follower", base_radius=0.005)


def test_unknown_cam_kind():
    with pytest.raises(ParameterError, match="`cam` must be one of \\('nurbs', 'eccentric'\\)"):
        build_model("cam-follower", cam="heart")
