"""Port-Hamiltonian structure of rigid-body models at random states (the analysis path).

On the extended state z, dz/dt = (J - R) grad H + B s + G lambda must reproduce the compiled
right-hand side, with J skew and R symmetric positive semidefinite. Independent figures:
the body's Euler-Poincare block of J (MATH.md sec. 1) and the damper's dissipated power
T_F . D . T_F, and the gradient of the kinetic energy M^-1 P.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose

import porthamiltonian as ph
from porthamiltonian.library import Gravity, Ground, Joint, PointDamper, PointSpring, RigidBody, SpatialDamper, SpatialSpring

from .helpers import Ad, inv, pose7, random_pose, skew, spd

MODELS = {
    "body": (),
    "body+gravity": ("gravity",),
    "body+spring": ("spring",),
    "body+damper": ("damper",),
    "body+gravity+spring+damper": ("gravity", "spring", "damper"),
    "body+point-spring+point-damper": ("point_spring", "point_damper"),
    "body+gravity+joint": ("gravity", "joint"),
}


def model(parts, seed):
    rng = np.random.default_rng(seed)
    H_BF = random_pose(rng, 0.3)
    body = RigidBody("b", 1.5, spd(rng, 3, 0.1, cond=1.5), com=rng.normal(scale=0.2, size=3), frames={"F": H_BF})
    ground = Ground("ground", frames={"O": random_pose(rng)})
    bg = ph.BondGraph("m")
    bg.add(body, ground)
    D = spd(rng, 6, 0.4)

    def between(el):
        bg.add(el)
        bg.connect(ground.frame("O").port, (el, "a"))
        bg.connect(body.frame("F").port, (el, "b"))

    if "gravity" in parts:
        bg.add(Gravity("g", body, g=(0.0, 0.0, -9.81), frame="F"))
        bg.connect(body.frame("F").port, "g")
    if "spring" in parts:
        between(SpatialSpring("k", ground.frame("O"), body.frame("F"), stiffness=spd(rng, 6, 5.0), rest=random_pose(rng, 0.3)))
    if "damper" in parts:
        between(SpatialDamper("d", ground.frame("O"), body.frame("F"), damping=D))
    if "point_spring" in parts:
        between(PointSpring("ps", ground.frame("O"), body.frame("F"), stiffness=30.0, rest_length=0.2,
                            point_a=rng.normal(size=3), point_b=rng.normal(size=3)))
    if "point_damper" in parts:
        between(PointDamper("pd", ground.frame("O"), body.frame("F"), damping=2.0, point_b=rng.normal(size=3)))
    if "joint" in parts:
        j = Joint("j", ground.frame("O"), body.frame("F"), kind="point_on_plane")
        bg.add(j)
        bg.connect(ground.frame("B").port, (j, "a"))
        bg.connect(body.frame("B").port, (j, "b"))
    system = ph.compile(bg)
    x = system.initial_state({"b.pose": pose7(random_pose(rng)), "b.P": body.M @ rng.normal(size=6)})
    return system, body, x, D, H_BF


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("name", list(MODELS))
def test_structure_reproduces_the_compiled_rates(name, seed):
    system, body, x, D, H_BF = model(MODELS[name], seed)
    a = system.analysis(0.0, x)
    chk = a.check()
    assert chk["J_skew_error"] <= 1e-12
    assert_allclose(a.J, -a.J.T, rtol=0, atol=1e-12)
    assert_allclose(a.R, a.R.T, rtol=0, atol=1e-12)
    assert np.min(np.linalg.eigvalsh(a.R)) >= -1e-12
    # the analysis must describe the system that is integrated: same rates to round-off
    assert chk["rate_mismatch"] <= 1e-12, chk
    assert_allclose(a.structure_rates(), a.zdot, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("seed", [0, 1])
def test_body_block_is_euler_poincare(seed):
    system, body, x, D, H_BF = model((), seed)
    a = system.analysis(0.0, x)
    P = x[system.layout["b.P"]]
    idx = [a.names.index(f"b.P[{i}]") for i in range(6)]
    # Gamma(P) with Gamma(P) T = ad(T)^T P: [[hat(L), hat(p)], [hat(p), 0]]
    L, p = P[:3], P[3:]
    Gamma = np.block([[skew(L), skew(p)], [skew(p), np.zeros((3, 3))]])
    assert_allclose(a.J[np.ix_(idx, idx)], Gamma, rtol=0, atol=1e-14)
    T = body.Minv @ P
    ad_T = np.block([[skew(T[:3]), np.zeros((3, 3))], [skew(T[3:]), skew(T[:3])]])
    assert_allclose(Gamma @ T, ad_T.T @ P, rtol=1e-13, atol=1e-13)
    assert_allclose(a.grad_H[idx], T, rtol=1e-13, atol=1e-14)
    assert_allclose(a.H, 0.5 * T @ body.M @ T, rtol=1e-13, atol=0)


@pytest.mark.parametrize("seed", [0, 1])
def test_damper_dissipation_in_the_structure(seed):
    system, body, x, D, H_BF = model(("damper",), seed)
    a = system.analysis(0.0, x)
    T_F = Ad(inv(H_BF)) @ body.twist(x[system.layout.element_slice("b")])
    expected = T_F @ D @ T_F
    assert expected > 0
    assert_allclose(a.check()["dissipated_power"], expected, rtol=1e-12, atol=0)
    assert_allclose(system.port_powers(0.0, x)["d"], expected, rtol=1e-12, atol=0)


@pytest.mark.parametrize("seed", [0, 1])
def test_gravity_gradient_is_exact(seed):
    """grad V of V = -m g . (R(q/|q|) c + p) on the pose, in closed form.

    With f(q) = g . R(q) c, R(q) = (w^2 - v.v) I + 2 v v^T + 2 w hat(v) for a unit q = (w, v):
    df/dw = 2 w g.c + 2 g.(v x c), df/dv = -2 (g.c) v + 2 (g.v) c + 2 (c.v) g + 2 w (c x g);
    the normalization projects it: grad_q = (I - q q^T) grad f at |q| = 1.
    """
    system, body, x, D, H_BF = model(("gravity",), seed)
    a = system.analysis(0.0, x)
    pose = x[system.layout["b.pose"]]
    q, w, v = pose[:4], pose[0], pose[1:4]
    g = np.array([0.0, 0.0, -9.81])
    # the gravity element is bonded at frame F; its potential uses the centre of mass in B
    c = body.com
    df = np.r_[2 * w * (g @ c) + 2 * g @ np.cross(v, c),
               -2 * (g @ c) * v + 2 * (g @ v) * c + 2 * (c @ v) * g + 2 * w * np.cross(c, g)]
    grad_q = -body.mass * (np.eye(4) - np.outer(q, q)) @ df
    expected = np.r_[grad_q, -body.mass * g]
    idx = [i for i, n in enumerate(a.names) if n.startswith("g.")]
    assert len(idx) == 7
    assert_allclose(a.grad_H[idx], expected, rtol=0, atol=1e-12 * body.mass * 9.81 * (1 + np.linalg.norm(c)))
