"""Torque-free asymmetric rigid body spun near its intermediate axis (Dzhanibekov effect).

References
----------
- Euler's equations about the centre of mass, I_c dw/dt = (I_c w) x w, and the attitude
  kinematics dR/dt = R hat(w), integrated independently with scipy (12 states).
- Closed form (Landau & Lifshitz sec. 37): with principal moments I1 < I2 < I3, energy
  2E = w.I w and M^2 = |I w|^2 (if M^2 < 2 E I2 exchange the labels 1 and 3), the
  intermediate component is proportional to sn(tau, k), tau = s t,
  s^2 = (I3 - I2)(M^2 - 2 E I1) / (I1 I2 I3), k^2 = (I2 - I1)(2 E I3 - M^2) / ((I3 - I2)(M^2 - 2 E I1)),
  so it changes sign (the body flips) every 2 K(k) / s.
- The centre of mass of a free body moves on a straight line at constant speed.
- Kinetic energy and the spatial momentum about the world origin are constant.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.integrate import solve_ivp
from scipy.special import ellipk

import porthamiltonian as ph
from porthamiltonian.library import RigidBody

from .helpers import pose, random_rotation, rot, skew

MASS = 2.0
PRINCIPAL = np.array([1.0, 2.0, 3.0])
HORIZON = 20.0
# the issue asks for conservation "at tight tolerance": the drift of the spatial momentum
# scales with rtol (1.3e-9 at rtol 1e-10, 1.3e-11 at rtol 1e-12, measured)
TIGHTEST = dict(rtol=1e-12, atol=1e-14, method="DOP853")

CASES = {
    # principal axes = body axes, centre of mass at the body origin
    "principal": dict(axes=np.eye(3), com=np.zeros(3)),
    # principal axes rotated in the body (products of inertia) and an offset centre of mass:
    # the spatial inertia carries both, the rotational motion must not notice
    "products+offset": dict(axes=rot([0.3, -0.5, 0.8]), com=np.array([0.1, -0.2, 0.05])),
}


def flip_period(I, w):
    """Time between two sign changes of the intermediate component (closed form)."""
    I1, I2, I3 = I
    E2 = w @ (I * w)
    M2 = np.sum((I * w) ** 2)
    if M2 < E2 * I2:
        I1, I3 = I3, I1
    s = np.sqrt((I3 - I2) * (M2 - E2 * I1) / (I1 * I2 * I3))
    k2 = (I2 - I1) * (E2 * I3 - M2) / ((I3 - I2) * (M2 - E2 * I1))
    return 2.0 * ellipk(k2) / s


@pytest.fixture(scope="module", params=list(CASES))
def spin(request):
    case = CASES[request.param]
    Q = case["axes"]  # columns: principal axes in body coordinates
    w_principal = np.array([0.1, 4.0, 0.04])  # near the intermediate axis
    w0 = Q @ w_principal
    v0 = np.array([0.3, -0.1, 0.2])
    rng = np.random.default_rng(7)
    H0 = pose(random_rotation(rng), rng.normal(size=3))
    body = RigidBody("b", MASS, Q @ np.diag(PRINCIPAL) @ Q.T, com=case["com"], pose=H0, twist=np.r_[w0, v0])
    bg = ph.BondGraph("free")
    bg.add(body)
    system = ph.compile(bg)
    P = system.layout["b.P"]
    e2 = Q[:, 1]

    def flip(t, x):
        return (body.Minv @ x[P])[:3] @ e2

    flip.direction = 0.0
    t_eval = np.linspace(0.0, HORIZON, 401)
    traj = ph.simulate(system, (0.0, HORIZON), system.initial_state(), t_eval=t_eval, events=[flip], **TIGHTEST)
    X = np.hstack((traj.state("b.pose"), traj.state("b.P")))
    ref = euler_reference(body.inertia, w0, H0[:3, :3], traj.t)
    return dict(body=body, traj=traj, X=X, ref=ref, Q=Q, w0=w0, v0=v0, H0=H0, w_principal=w_principal)


def euler_reference(I_c, w0, R0, t_eval):
    """Euler's equations plus attitude kinematics, integrated with scipy."""
    Iinv = np.linalg.inv(I_c)

    def rhs(t, y):
        w, R = y[:3], y[3:].reshape(3, 3)
        return np.concatenate((Iinv @ np.cross(I_c @ w, w), (R @ skew(w)).ravel()))

    def crossing(t, y):
        return y[:3] @ np.linalg.eigh(I_c)[1][:, 1]

    sol = solve_ivp(rhs, (0.0, t_eval[-1]), np.r_[w0, R0.ravel()], t_eval=t_eval, events=crossing,
                    rtol=1e-13, atol=1e-14, method="DOP853")
    return sol


def test_flips_happen_with_the_closed_form_period(spin):
    body, traj = spin["body"], spin["traj"]
    flips = np.array([e.t for e in traj.events])
    T_flip = flip_period(PRINCIPAL, spin["w_principal"])
    ref = spin["ref"]
    # measured: flips at 2.708, 7.386, 12.063, 16.741 s; intervals equal 2 K / s = 4.67751 s
    # to 6e-13 relative, flip times equal the reference's to 2e-13
    assert flips.size == ref.t_events[0].size == int((HORIZON - flips[0]) // T_flip) + 1 == 4
    assert_allclose(np.diff(flips), T_flip, rtol=1e-8, atol=0)
    assert_allclose(flips, ref.t_events[0], rtol=1e-8, atol=0)


def test_rotation_matches_an_independent_integration_of_euler_equations(spin):
    body, traj, X = spin["body"], spin["traj"], spin["X"]
    ref = spin["ref"]
    w = np.array([body.twist(x)[:3] for x in X])
    R = np.array([body.pose_matrix(x)[:3, :3] for x in X])
    # measured: 1.8e-11 rad/s and 4e-12 after 20 s and four flips (each flip amplifies the
    # phase error of both integrations, run at rtol 1e-12 and 1e-13)
    assert_allclose(w, ref.y[:3].T, rtol=0, atol=1e-9 * np.linalg.norm(spin["w0"]))
    assert_allclose(R, ref.y[3:].T.reshape(-1, 3, 3), rtol=0, atol=1e-9)


def test_centre_of_mass_moves_uniformly(spin):
    body, traj, X, H0 = spin["body"], spin["traj"], spin["X"], spin["H0"]
    c = body.com
    v_com0 = H0[:3, :3] @ (spin["v0"] + np.cross(spin["w0"], c))
    expected = (H0[:3, :3] @ c + H0[:3, 3]) + traj.t[:, None] * v_com0
    p_com = np.array([(lambda H: H[:3, :3] @ c + H[:3, 3])(body.pose_matrix(x)) for x in X])
    # measured: 4e-11 m after 20 s at 0.4 m/s
    assert_allclose(p_com, expected, rtol=0, atol=1e-9)


def test_energy_and_spatial_momentum_are_conserved(spin):
    body, traj, X = spin["body"], spin["traj"], spin["X"]
    H = traj.hamiltonian
    w0, v0 = spin["w0"], spin["v0"]
    assert_allclose(H[0], 0.5 * np.r_[w0, v0] @ body.M @ np.r_[w0, v0], rtol=1e-14, atol=0)
    assert_allclose(H, H[0], rtol=1e-9, atol=0)  # measured: 4.7e-13
    L = np.array([body.momentum_world(x) for x in X])
    # independent value at t = 0: angular momentum about the origin, c x m v_com + R I_c w,
    # and linear momentum m v_com, in world coordinates
    H0 = spin["H0"]
    R0 = H0[:3, :3]
    c_W = R0 @ body.com + H0[:3, 3]
    v_com = R0 @ (v0 + np.cross(w0, body.com))
    L0 = np.r_[np.cross(c_W, MASS * v_com) + R0 @ body.inertia @ w0, MASS * v_com]
    assert_allclose(L[0], L0, rtol=1e-13, atol=1e-13)
    # measured: 8.5e-12 relative
    assert np.max(np.linalg.norm(L - L0, axis=1)) < 1e-9 * np.linalg.norm(L0)


def test_rotation_stays_orthogonal(spin):
    traj = spin["traj"]
    q = traj.state("b.pose")[:, :4]
    # the embedding: |q| stays 1 (measured 2.8e-13)
    assert traj.quaternion_drift() < 1e-10
    # the rotation of the raw quaternion through the unit-quaternion formula, without the
    # product's normalization: orthogonal to the same level
    w, v = q[:, 0], q[:, 1:]
    R = ((w**2 - np.sum(v**2, axis=1))[:, None, None] * np.eye(3) + 2 * v[:, :, None] * v[:, None, :]
         + 2 * w[:, None, None] * np.array([skew(vi) for vi in v]))
    err = np.max(np.abs(np.einsum("nji,njk->nik", R, R) - np.eye(3)))
    assert err < 1e-10
    # and the product's matrices are proper rotations
    Rp = np.array([spin["body"].pose_matrix(x)[:3, :3] for x in spin["X"]])
    assert_allclose(np.linalg.det(Rp), 1.0, rtol=0, atol=1e-12)
