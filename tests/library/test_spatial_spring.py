"""SpatialSpring and SpatialDamper: small oscillations, frame invariance, exact gradients, dissipation.

References
----------
- Linearization about the rest pose (no gravity, so the rest pose of the spring is the
  equilibrium and needs no search). With the body pose H_WB = H_eq exp(delta) (delta a body
  twist) and the spring at the body frame F, the spring coordinate is
  xi = log(H_0^-1 H_ab) = Ad(H_FB) delta exactly, so V = 1/2 delta . K_B . delta with
  K_B = Ad(H_FB)^T K Ad(H_FB) (and D_B likewise for the damper). The kinetic energy is
  1/2 T . M . T with T = d(delta)/dt to first order, so
      M delta'' + D_B delta' + K_B delta = 0,
  and the undamped angular frequencies are sqrt(eig(K_B, M)).
- V depends only on the relative pose: moving ground and body by one rigid motion X changes
  nothing.
- The efforts are the exact gradient: e_a . T_a + e_b . T_b = dV/dt along any motion,
  checked against finite differences of V (the wrench on the bodies, -e, does -dV/dt).
- A damper dissipates T_rel . D . T_rel >= 0 with T_rel the relative twist, and the ledger's
  "dissipated" entry is its time integral.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.integrate import cumulative_simpson
from scipy.linalg import eigh

import porthamiltonian as ph
from porthamiltonian.library import Ground, RigidBody, SpatialDamper, SpatialSpring

from .helpers import (
    Ad,
    TIGHT,
    derivative,
    expse3,
    inv,
    matrix7,
    pose7,
    random_pose,
    random_rotation,
    spd,
    two_exp_motion,
    unskew,
)

SEEDS = [0, 1, 2, 3]


def hanging_body(seed, damped):
    """A body on a spatial spring (and damper) to a ground frame, both at body frame F."""
    rng = np.random.default_rng(seed)
    H_WO, H_BF, H0 = random_pose(rng), random_pose(rng, 0.3), random_pose(rng, 0.5)
    K = spd(rng, 6, 20.0)
    D = spd(rng, 6, 0.3)
    Rc = random_rotation(rng)
    body = RigidBody("b", 2.0, Rc @ np.diag([0.1, 0.15, 0.2]) @ Rc.T, com=rng.normal(scale=0.1, size=3),
                     frames={"F": H_BF})
    ground = Ground("ground", frames={"O": H_WO})
    spring = SpatialSpring("k", ground.frame("O"), body.frame("F"), stiffness=K, rest=H0)
    bg = ph.BondGraph("hang")
    bg.add(ground, body, spring)
    bg.connect(ground.frame("O").port, (spring, "a"))
    bg.connect(body.frame("F").port, (spring, "b"))
    if damped:
        damper = SpatialDamper("d", ground.frame("O"), body.frame("F"), damping=D)
        bg.add(damper)
        bg.connect(ground.frame("O").port, (damper, "a"))
        bg.connect(body.frame("F").port, (damper, "b"))
    H_eq = H_WO @ H0 @ inv(H_BF)
    AdFB = Ad(inv(H_BF))
    return dict(system=ph.compile(bg), body=body, H_eq=H_eq, K_B=AdFB.T @ K @ AdFB,
                D_B=(AdFB.T @ D @ AdFB) if damped else np.zeros((6, 6)), AdFB=AdFB, D=D)


@pytest.mark.parametrize("damped", [False, True], ids=["undamped", "damped"])
@pytest.mark.parametrize("seed", SEEDS[:2])
def test_linearization_about_rest_has_the_closed_form_modes(seed, damped):
    """Finite-difference Jacobian of the compiled rhs in (delta, P) vs M s^2 + D_B s + K_B."""
    case = hanging_body(seed, damped)
    system, body = case["system"], case["body"]
    sl = system.layout["b.P"]

    def momentum_rate(delta, P):
        x = system.initial_state({"b.pose": pose7(case["H_eq"] @ expse3(delta)), "b.P": P})
        return system.rhs(0.0, x)[sl]

    assert_allclose(momentum_rate(np.zeros(6), np.zeros(6)), 0.0, rtol=0, atol=1e-12)
    h = 1e-5
    A = np.zeros((12, 12))
    A[:6, 6:] = body.Minv  # d(delta)/dt = T = M^-1 P to first order
    for i in range(6):
        e = np.zeros(6)
        e[i] = h
        A[6:, i] = (momentum_rate(e, np.zeros(6)) - momentum_rate(-e, np.zeros(6))) / (2 * h)
        A[6:, 6 + i] = (momentum_rate(np.zeros(6), e) - momentum_rate(np.zeros(6), -e)) / (2 * h)
    M = body.M
    # the independent spatial inertia about the body origin
    c, Ic = body.com, body.inertia
    C = np.array([[0, -c[2], c[1]], [c[2], 0, -c[0]], [-c[1], c[0], 0]])
    assert_allclose(M, np.block([[Ic + body.mass * C.T @ C, body.mass * C], [-body.mass * C, body.mass * np.eye(3)]]),
                    rtol=1e-14, atol=1e-15)
    A_ref = np.block([[np.zeros((6, 6)), np.linalg.inv(M)],
                      [-case["K_B"], -case["D_B"] @ np.linalg.inv(M)]])
    # central differences with h = 1e-5 on a quadratic-plus-cubic potential: error ~h^2 * 20
    assert_allclose(A, A_ref, rtol=0, atol=1e-6 * np.max(np.abs(A_ref)))
    ev = np.linalg.eigvals(A)
    ev_ref = np.linalg.eigvals(A_ref)
    key = lambda z: (round(z.imag, 6), round(z.real, 6))  # noqa: E731
    assert_allclose(sorted(ev, key=key), sorted(ev_ref, key=key), rtol=1e-6, atol=1e-8)
    if not damped:
        omega = np.sqrt(eigh(case["K_B"], M, eigvals_only=True))
        assert_allclose(np.sort(np.abs(ev.imag))[::2], omega, rtol=1e-6, atol=0)
        assert_allclose(ev.real, 0.0, rtol=0, atol=1e-6 * omega[-1])


@pytest.mark.parametrize("mode", [0, 5], ids=["slowest", "fastest"])
def test_a_small_normal_mode_oscillates_at_its_frequency(mode):
    """Simulate a small excitation of one mode: delta(t) = a phi cos(omega t) + O(a^2)."""
    case = hanging_body(0, damped=False)
    system, body = case["system"], case["body"]
    w2, Phi = eigh(case["K_B"], body.M)
    omega, phi = np.sqrt(w2[mode]), Phi[:, mode]
    a = 1e-5
    period = 2 * np.pi / omega
    t = np.linspace(0.0, 3 * period, 61)
    x0 = system.initial_state({"b.pose": pose7(case["H_eq"] @ expse3(a * phi))})
    # the tolerances act on the whole pose (|p| ~ 1 m), not on the 1e-5 deviation: tighten them
    traj = ph.simulate(system, (0.0, t[-1]), x0, t_eval=t, rtol=1e-12, atol=1e-14, method="DOP853")
    delta = []
    for x in traj.state("b.pose"):
        E = inv(case["H_eq"]) @ matrix7(x)  # exp(delta); a small rotation: log by first order + correction
        Rm = E[:3, :3]
        w = unskew(Rm)  # sin(angle) axis, = angle axis to O(a^3)
        delta.append(np.r_[w, E[:3, 3] - 0.5 * np.cross(w, E[:3, 3])])
    delta = np.array(delta)
    # nonlinear terms are O(a^2): relative to the amplitude a they are O(a) = 1e-5
    # (measured 1.6e-5 for the fastest mode)
    assert_allclose(delta, a * np.outer(np.cos(omega * t), phi), rtol=0, atol=1e-4 * a * np.max(np.abs(phi)))


@pytest.mark.parametrize("seed", SEEDS)
def test_spring_potential_is_invariant_to_the_world_frame(seed):
    rng = np.random.default_rng(seed)
    H_BF, H_WO, H0, X = random_pose(rng, 0.3), random_pose(rng), random_pose(rng, 0.5), random_pose(rng, 2.0)
    K = spd(rng, 6, 5.0)
    H_WB = H_WO @ H0 @ expse3(0.4 * rng.normal(size=6)) @ inv(H_BF)
    energies = []
    for H_world in (np.eye(4), X):
        body = RigidBody("b", 1.0, [0.1, 0.2, 0.25], frames={"F": H_BF})
        ground = Ground("ground", frames={"O": H_world @ H_WO})
        spring = SpatialSpring("k", ground.frame("O"), body.frame("F"), stiffness=K, rest=H0)
        bg = ph.BondGraph("invariance")
        bg.add(ground, body, spring)
        bg.connect(ground.frame("O").port, (spring, "a"))
        bg.connect(body.frame("F").port, (spring, "b"))
        system = ph.compile(bg)
        x = system.initial_state({"b.pose": pose7(H_world @ H_WB)})
        energies.append(system.element_energies(x)["k"])
    assert energies[0] > 1e-3  # the spring is loaded
    assert_allclose(energies[1], energies[0], rtol=1e-12, atol=0)


def two_bodies_with_spring(rng, ground_a, blocks):
    H_F1, H_F2, H0 = random_pose(rng, 0.3), random_pose(rng, 0.3), random_pose(rng, 0.5)
    if blocks:
        Kc = 2.0 * rng.normal(size=(3, 3))
        stiff = dict(rotational=spd(rng, 3, 5.0) + 2 * Kc.T @ Kc, translational=spd(rng, 3, 30.0) + 2 * Kc @ Kc.T,
                     coupling=Kc)
    else:
        stiff = dict(stiffness=spd(rng, 6, 10.0))
    a_body = Ground("ground", frames={"F": H_F1}) if ground_a else RigidBody("b1", 1.0, [0.1, 0.2, 0.25], frames={"F": H_F1})
    b_body = RigidBody("b2", 1.5, [0.2, 0.2, 0.3], frames={"F": H_F2})
    spring = SpatialSpring("k", a_body.frame("F"), b_body.frame("F"), rest=H0, **stiff)
    return spring, a_body, b_body, H_F1, H_F2, H0


@pytest.mark.parametrize("blocks", [False, True], ids=["6x6", "blocks+coupling"])
@pytest.mark.parametrize("ground_a", [False, True], ids=["body-body", "ground-body"])
@pytest.mark.parametrize("seed", SEEDS)
def test_efforts_are_the_exact_gradient_of_the_potential(seed, ground_a, blocks):
    rng = np.random.default_rng(100 + seed)
    spring, a_body, b_body, H_F1, H_F2, H0 = two_bodies_with_spring(rng, ground_a, blocks)
    K = spring.K
    if blocks:
        # the blocks come from separate matrix products: equal to round-off of the largest entry
        assert_allclose(K[:3, 3:], K[3:, :3].T, rtol=0, atol=8 * np.finfo(float).eps * np.abs(K).max())
    H_W1 = np.eye(4) if ground_a else random_pose(rng)
    # relative pose within ~1 rad of rest, where the log is well defined
    H_W2 = H_W1 @ H_F1 @ H0 @ expse3(0.8 * rng.normal(size=6) / np.sqrt(6)) @ inv(H_F2)
    T1 = np.zeros(6) if ground_a else rng.normal(size=6)
    m1 = two_exp_motion(H_W1, T1, np.zeros(6))
    m2 = two_exp_motion(H_W2, rng.normal(size=6), rng.normal(size=6))

    def refs(t):
        return (pose7(m2(t)[0]),) if ground_a else (pose7(m1(t)[0]), pose7(m2(t)[0]))

    def V(t):
        return spring.energy(np.zeros(0), refs(t))

    # independent value of V: scipy log of the relative pose, K from the blocks
    E = inv(H0) @ inv(H_W1 @ H_F1) @ H_W2 @ H_F2
    from scipy.linalg import logm

    xi_hat = np.real(logm(E))
    xi = np.r_[unskew(xi_hat[:3, :3]), xi_hat[:3, 3]]
    assert_allclose(V(0.0), 0.5 * xi @ K @ xi, rtol=1e-10, atol=0)

    e_a, e_b = spring.outputs(0.0, np.zeros(0), refs(0.0))
    T_a = Ad(inv(H_F1)) @ m1(0.0)[1]  # frame twists T_F = Ad(H_FB) T_B
    T_b = Ad(inv(H_F2)) @ m2(0.0)[1]
    dV = derivative(V, 0.0, 1e-3)
    # 4th-order differences with h = 1e-3: truncation ~1e-12 * V^(5), round-off ~1e-13 * V / h
    assert_allclose(e_a @ T_a + e_b @ T_b, dV, rtol=1e-8, atol=1e-9 * max(1.0, V(0.0)))
    # the wrench on the bodies is -e: it does work -dV/dt
    assert_allclose((-e_a) @ T_a + (-e_b) @ T_b, -dV, rtol=1e-8, atol=1e-9 * max(1.0, V(0.0)))


@pytest.mark.parametrize("seed", SEEDS)
def test_damper_dissipates_the_relative_twist_power(seed):
    rng = np.random.default_rng(200 + seed)
    H_F1, H_F2 = random_pose(rng, 0.3), random_pose(rng, 0.3)
    b1 = RigidBody("b1", 1.0, [0.1, 0.2, 0.25], frames={"F": H_F1})
    b2 = RigidBody("b2", 1.0, [0.1, 0.2, 0.25], frames={"F": H_F2})
    D = spd(rng, 6, 0.5)
    damper = SpatialDamper("d", b1.frame("F"), b2.frame("F"), damping=D)
    H_W1, H_W2 = random_pose(rng), random_pose(rng)
    T1, T2 = rng.normal(size=6), rng.normal(size=6)
    m1, m2 = two_exp_motion(H_W1, T1, np.zeros(6)), two_exp_motion(H_W2, T2, np.zeros(6))
    T_a, T_b = Ad(inv(H_F1)) @ T1, Ad(inv(H_F2)) @ T2
    e_a, e_b = damper.law(0, 0.0, (T_a, T_b), (pose7(H_W1), pose7(H_W2)))

    # relative twist of frame b w.r.t. frame a in b, from finite differences of H_ab(t)
    def H_ab(t):
        return inv(m1(t)[0] @ H_F1) @ m2(t)[0] @ H_F2

    dH = derivative(H_ab, 0.0, 1e-3)
    X = inv(H_ab(0.0)) @ dH
    T_rel = np.r_[unskew(X[:3, :3]), X[:3, 3]]
    power = e_a @ T_a + e_b @ T_b
    assert power > 0
    assert_allclose(power, T_rel @ D @ T_rel, rtol=1e-9, atol=0)
    assert_allclose(e_b, D @ T_rel, rtol=1e-9, atol=1e-12)


def test_ledger_dissipation_is_the_damper_power_integral():
    case = hanging_body(1, damped=True)
    system, body = case["system"], case["body"]
    rng = np.random.default_rng(11)
    x0 = system.initial_state({"b.pose": pose7(case["H_eq"] @ expse3(0.2 * rng.normal(size=6))),
                               "b.P": body.M @ rng.normal(size=6)})
    t = np.linspace(0.0, 2.0, 1601)
    traj = ph.simulate(system, (0.0, t[-1]), x0, t_eval=t, **TIGHT)
    budget = traj.power_budget()
    dissipated = budget.entries["dissipated"]["d"]
    X = np.hstack((traj.state("b.pose"), traj.state("b.P")))
    T_F = np.array([case["AdFB"] @ body.twist(x) for x in X])
    power = np.einsum("ni,ij,nj->n", T_F, case["D"], T_F)
    assert np.min(power) >= 0.0
    assert np.all(np.diff(dissipated) >= -1e-12)
    # Simpson on 1601 samples of a power oscillating at up to ~40 rad/s; measured 7e-9 relative
    assert_allclose(dissipated, cumulative_simpson(power, x=t, initial=0.0), rtol=0, atol=1e-7 * dissipated[-1])
    assert dissipated[-1] > 0.5 * (budget.H[0] - budget.H[-1]) > 0  # the damper took most of the energy
    assert budget.relative_residual < 10 * TIGHT["rtol"], budget.table()
