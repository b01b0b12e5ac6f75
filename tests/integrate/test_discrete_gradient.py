"""The discrete-gradient integrator (issue 16, acceptance 1-4): energy preserved to the
nonlinear solve's round-off at large fixed steps, the discrete power balance per step, second
order in h, momentum of a free body, constraints (spherical joint, sliding plane) and a
compliant impact through events.

References: the energy ledger and H at the samples (stored energy computed by the elements,
independently of the step), a DOP853 run at tight tolerance, the world-frame spatial momentum
of a free body (constant by Noether), and the elastic impact's closed form (restitution 1).
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose

import porthamiltonian as ph
from porthamiltonian.errors import ParameterError
from porthamiltonian.library import RigidBody
from porthamiltonian.models.heavy_top import heavy_top
from porthamiltonian.models.mass_spring_damper import mass_spring_damper
from porthamiltonian.models.rocking_ellipsoid import rocking_ellipsoid

from ..contact_models.conftest import ball, body_on_plane, world_momenta

DG = "discrete_gradient"
#: acceptance 1 and 3: relative energy error of a conservative system at a large step
ENERGY_TOL = 1e-10


def relative_energy_error(traj):
    H = traj.hamiltonian
    return float(np.max(np.abs(H - H[0])) / abs(H[0]))


def test_free_asymmetric_body_keeps_energy_and_spatial_momentum():
    """Torque-free body spun near its intermediate axis (it flips), with products of inertia
    and an offset centre of mass, 20 s at h = 10 ms: H and the world spatial momentum
    Ad(H_WB)^-T P are constant to round-off (the body momentum is carried by the coadjoint
    of each step's increment)."""
    body = RigidBody("b", 2.0, [[1.2, 0.1, 0.0], [0.1, 2.0, 0.05], [0.0, 0.05, 2.8]], com=[0.1, -0.2, 0.05],
                     twist=[0.1, 4.0, 0.04, 0.3, -0.1, 0.2])
    bg = ph.BondGraph("free")
    bg.add(body)
    system = ph.compile(bg)
    traj = ph.simulate(system, (0.0, 20.0), system.initial_state(), method=DG, step=0.01)
    assert np.unique(traj.t).size == 2001 and traj.t[-1] == 20.0
    assert relative_energy_error(traj) <= ENERGY_TOL
    L = np.array([body.momentum_world(x) for x in np.hstack((traj.state("b.pose"), traj.state("b.P")))])
    assert np.max(np.abs(L - L[0])) <= ENERGY_TOL * np.linalg.norm(L[0])
    # it does flip: the intermediate component of the body angular velocity changes sign
    w2 = (traj.state("b.P") @ body.Minv.T)[:, 1]
    assert w2.min() < -1.0 and w2.max() > 1.0


def test_heavy_top_keeps_energy_with_its_spherical_joint():
    """Heavy top (spin 100 rad/s: a radian per step) 20 s at h = 10 ms: H constant to
    ENERGY_TOL relative, the pivot stays put, the ledger closes."""
    model = heavy_top()
    system = ph.compile(model.graph)
    traj = ph.simulate(system, (0.0, 20.0), system.initial_state(model.initial), method=DG, step=0.01)
    assert relative_energy_error(traj) <= ENERGY_TOL
    assert np.max(np.abs(traj.state("top.pose")[:, 4:])) <= 1e-12     # the body origin is the pivot
    budget = traj.power_budget()
    assert budget.max_residual <= ENERGY_TOL * abs(traj.hamiltonian[0])
    assert abs(budget.stabilization[-1]) <= ENERGY_TOL * abs(traj.hamiltonian[0])


@pytest.fixture(scope="module")
def msd():
    model = mass_spring_damper()
    system = ph.compile(model.graph)
    return system, system.initial_state(model.initial)


def test_mass_spring_damper_discrete_power_balance_per_step(msd):
    """H(k+1) - H(k) = supplied_k - dissipated_k at every step of h = 0.1 to 1e-12 [J]
    (the energies here are about 0.5 J), with energy actually supplied and dissipated."""
    system, x0 = msd
    traj = ph.simulate(system, (0.0, 20.0), x0, method=DG, step=0.1)
    L = system.layout
    supplied = traj.x[:, L.n_physical + next(e.index for e in L.ledger if e.kind == "supplied")]
    dissipated = traj.x[:, L.n_physical + next(e.index for e in L.ledger if e.kind == "dissipated")]
    balance = np.diff(traj.hamiltonian) - np.diff(supplied) + np.diff(dissipated)
    assert np.max(np.abs(balance)) <= 1e-12
    assert abs(supplied[-1]) > 0.1 and dissipated[-1] > 0.1
    assert traj.power_budget().max_residual <= 1e-12


def test_mass_spring_damper_second_order_in_h(msd):
    """The state at t = 2 s against DOP853 at rtol 1e-13: the error falls 4-fold per halving."""
    system, x0 = msd
    ref = ph.simulate(system, (0.0, 2.0), x0, method="DOP853", rtol=1e-13, atol=1e-14).x[-1, : system.layout.n_physical]
    steps = (0.1, 0.05, 0.025, 0.0125)
    errors = [np.max(np.abs(ph.simulate(system, (0.0, 2.0), x0, method=DG, step=h).x[-1, : ref.size] - ref))
              for h in steps]
    slopes = np.log2(np.array(errors[:-1]) / errors[1:])
    assert np.all(np.abs(slopes - 2.0) < 0.05), slopes


def test_elastic_impact_at_a_step_longer_than_the_contact():
    """A ball (1 kg) hits a linear undamped compliant floor (k = 1e6 N/m: omega = 1000 rad/s,
    contact time pi/omega = 3.1 ms) at 1 m/s, steps of 5 ms: h omega = 5, beyond the
    stability bound of the explicit Runge-Kutta methods on an oscillation (about 3.3 for
    DOPRI5, 2.8 for RK4). Events are located inside steps on the dense output (a shorter
    discrete-gradient step), so the touch is exact (free flight) and the ball leaves at
    1 m/s: restitution 1 to round-off. RK4 at a shorter step gets it badly wrong."""
    m, k, v, gap = 1.0, 1e6, 1.0, 0.002
    system, x0 = body_on_plane(*ball(m, 0.1, 0.1 + gap, twist=(0, 0, 0, 0, 0, -v)), normal="linear", stiffness=k,
                               damping=0.0)
    h = 0.005
    assert h * np.sqrt(k / m) > 3.3
    traj = ph.simulate(system, (0.0, 0.02), x0, method=DG, step=h)
    names = [e.name for e in traj.events]
    assert names == ["c/spring.touch", "c/spring.release"]
    assert_allclose(traj.events[0].t, gap / v, rtol=1e-12)
    p, L = world_momenta(traj)
    assert_allclose(p[-1], [0.0, 0.0, m * v], rtol=0, atol=1e-13)   # restitution 1
    assert_allclose(L[-1], 0.0, atol=1e-13)
    assert relative_energy_error(traj) <= 1e-13
    rk4 = ph.simulate(system, (0.0, 0.02), x0, method="RK4", step=0.004)
    assert abs(world_momenta(rk4)[0][-1][2] / (m * v) - 1.0) > 0.1


def test_dense_output_is_an_energy_consistent_sub_step(msd):
    """Between samples the dense output is a discrete-gradient step from the step's start:
    on the undriven, undamped oscillator its energy is the samples' to round-off."""
    model = mass_spring_damper(damping=0.0, force=0.0)
    system = ph.compile(model.graph)
    traj = ph.simulate(system, (0.0, 1.0), system.initial_state(model.initial), method=DG, step=0.1,
                       dense_output=True)
    H0 = traj.hamiltonian[0]
    for t in (0.05, 0.333, 0.999):
        assert abs(system.energy(traj.sol(t)) - H0) <= 1e-15
    assert_allclose(traj.sol(traj.t[-4]), traj.x[-4], rtol=0, atol=1e-15)   # a sample is a sample


def test_rocking_ellipsoid_sliding_plane_keeps_energy_and_gap():
    """Frictionless rocking on the sliding-plane constraint (the body turns about the
    contact point, whose coordinates are states), 0.5 s (more than a rocking period) at
    h = 5 ms: H constant to ENERGY_TOL relative, the gap stays below 1e-7 m."""
    model = rocking_ellipsoid(contact="sliding_plane")
    system = ph.compile(model.graph)
    traj = ph.simulate(system, (0.0, 0.5), system.initial_state(), method=DG, step=0.005)
    assert relative_energy_error(traj) <= ENERGY_TOL
    tilt = np.array([model.observables["tilt"](system, t, x) for t, x in zip(traj.t, traj.x)])
    assert tilt.min() < -0.09 and tilt.max() > 0.09          # it rocks from side to side
    gaps = [np.max(np.abs(g)) for x in traj.x[::10] for g in system.constraint_residuals(0.0, x)["g"].values()]
    assert max(gaps) <= 1e-7


def test_bad_arguments():
    model = mass_spring_damper()
    system = ph.compile(model.graph)
    with pytest.raises(ParameterError, match="needs `step`"):
        ph.simulate(system, (0.0, 1.0), system.initial_state(model.initial), method=DG)
    with pytest.raises(ParameterError, match="`step` must be"):
        ph.simulate(system, (0.0, 1.0), system.initial_state(model.initial), method=DG, step=-0.1)
    from porthamiltonian.integrate.discrete_gradient import DiscreteGradient
    with pytest.raises(ParameterError, match="reduced contact coordinates"):
        DiscreteGradient(lambda t, y: -y, 0.0, np.ones(3), 1.0, step=0.1, system=system)


def test_pose_step_kernel_matches_the_lie_module():
    """The compiled pose update against `porthamiltonian.lie` (matrices, then back to a pose)
    on seeded random poses and screws, large rotations included."""
    from porthamiltonian.kernels.lie import pose_step
    from porthamiltonian.lie import quaternion, se3

    rng = np.random.default_rng(3)
    for scale in (1e-9, 0.1, 3.0):
        q = rng.normal(size=4)
        x = np.concatenate((q / np.linalg.norm(q), rng.normal(size=3)))
        xi = scale * rng.normal(size=6)
        mid, end, Ad2, Ad = pose_step(x, xi)
        H = quaternion.pose_to_matrix(x)
        for got, frac, Adj in ((mid, 0.5, Ad2), (end, 1.0, Ad)):
            E = se3.exp(frac * xi)
            assert_allclose(quaternion.pose_to_matrix(got), H @ E, rtol=0, atol=1e-14)
            assert_allclose(Adj, se3.Ad(E), rtol=0, atol=1e-14)
            assert abs(np.linalg.norm(got[:4]) - 1.0) <= 1e-15
        # the quaternion follows continuously (no sign flip from a matrix round trip)
        assert np.dot(end[:4], x[:4]) > 0 or scale > 1.0


def test_plastic_impact_on_the_sliding_plane_then_sliding():
    """A ball falling under gravity (v = (0.2, 0, -1) m/s) onto the frictionless
    sliding-plane constraint, h = 10 ms: the impact event is located inside a step at the
    free fall's closed-form time, the impulse removes exactly the normal kinetic energy
    (restitution 0), then the ball slides on the plane (centre height 0.1 m) with H
    constant and the ledger closed."""
    g, r, z0, vz, vx = 9.81, 0.1, 0.15, 1.0, 0.2
    system, x0 = body_on_plane(*ball(1.0, r, z0, twist=(0, 0, 0, vx, 0, -vz)), kind="sliding_plane", gravity=True,
                               friction="frictionless")
    traj = ph.simulate(system, (0.0, 1.0), x0, method=DG, step=0.01)
    (impact,) = traj.events
    t_hit = (-vz + np.sqrt(vz * vz + 2.0 * g * (z0 - r))) / g
    assert_allclose(impact.t, t_hit, rtol=1e-12)
    assert_allclose(impact.lost, 0.5 * (vz + g * t_hit) ** 2, rtol=1e-12)
    after = traj.t > impact.t
    assert_allclose(traj.state("ball.pose")[after, 6], r, rtol=0, atol=1e-12)
    H = traj.hamiltonian[after]
    assert np.max(np.abs(H - H[0])) <= 1e-13
    assert traj.power_budget().max_residual <= 1e-13
