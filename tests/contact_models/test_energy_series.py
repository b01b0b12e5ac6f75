"""The energy ledger's stored energies of compliant contacts in one compiled loop per contact
(`PHSystem.element_energy_series`, `ContactSpring.energies`,
`porthamiltonian.kernels.compliant.spring_energies`) equal the element's own `energy`
evaluated state by state (the path the ledger took before), to round-off: the same pair
state kernel and the same law potential, the tangential springs' ``1/2 K_t s^2`` summed in
another order (a few ulps)."""

import numpy as np
import pytest
from numpy.testing import assert_allclose

import porthamiltonian as ph
from porthamiltonian.contact import LocalHertzLaw
from porthamiltonian.kernels import compliant as kcompliant

from .conftest import ball, body_on_plane
from .test_bounded_surface import sliding_off
from .test_local_hertz import contact_modulus, rocking


def per_state(system, X):
    """The energies as the ledger computed them before: `element_energies` state by state."""
    per = [system.element_energies(x) for x in X]
    return {k: np.array([p[k] for p in per]) for k in per[0]}


def assert_series_is_per_state(system, traj, path="c/spring"):
    series = system.element_energy_series(traj.x)
    ref = per_state(system, traj.x)
    assert series.keys() == ref.keys()
    scale = max(np.abs(v).max() for v in ref.values())
    for k in ref:
        # a few ulps of the largest energy: the same kernels, the 1/2 K_t s^2 summed in another order
        assert_allclose(series[k], ref[k], rtol=0, atol=1e-13 * scale, err_msg=k)
    own = traj.state(path)
    touching = own[:, 6] > 0.5
    assert touching.any() and (~touching).any()     # both branches are exercised
    assert np.all(series[path][~touching] == 0.0)
    assert np.all(series[path][touching] >= 0.0) and series[path][touching].max() > 0.0   # 0 at the touch itself
    return series


def kernel_energies(system, traj, path="c/spring"):
    """The kernel's own answer (NaN where it declines), without the Python fallback."""
    spring = system.elements[path]
    (rs,) = [rs for p, _, _, rs in system._storages if p == path]
    X = np.ascontiguousarray(traj.state(path))
    series = [np.ascontiguousarray(traj.x[:, r]) for r in rs]
    pa, pb = (r if np.ndim(r) == 2 else np.zeros((len(X), 0)) for r in spring.kernel("outputs").pad(series))
    kernel = (kcompliant.spring_energies_local if isinstance(spring.p.law, LocalHertzLaw)
              else kcompliant.spring_energies)
    return kernel(X, pa, pb, *spring._packed())


def test_a_bouncing_sliding_ball_books_the_same_energies_through_the_kernel():
    body, sphere = ball(1.0, 0.05, 0.052, twist=(3.0, 0.0, 0.0, 0.5, 0.2, -1.0))
    system, x0 = body_on_plane(body, sphere, gravity=True)
    traj = ph.simulate(system, (0.0, 0.06), x0, method="RK4", step=2e-4)
    series = assert_series_is_per_state(system, traj)
    own = traj.state("c/spring")
    touching = own[:, 6] > 0.5
    assert np.abs(own[touching][:, 7:10]).max() > 0.0      # the tangential springs hold energy
    direct = kernel_energies(system, traj)
    assert np.all(np.isfinite(direct))                      # the kernel answered every sample itself
    assert_allclose(direct, series["c/spring"], rtol=0, atol=0)


def test_a_local_hertz_law_is_resolved_per_sample():
    system, traj = rocking(LocalHertzLaw(contact_modulus(5e6, 0.49, 210e9, 0.3)), t_end=0.05)
    own = traj.state("c/spring")
    if not (own[:, 6] < 0.5).any():     # the rocking body rests on the plane: add a sample apart
        x = traj.x[0].copy()
        sl = system.layout.element_slice("c/spring")
        x[sl.start + 6] = 0.0
        traj.x = np.vstack((traj.x, x))
        traj.t = np.append(traj.t, traj.t[-1])
    assert_series_is_per_state(system, traj)
    assert np.all(np.isfinite(kernel_energies(system, traj)))


def test_a_bounded_plane_falls_back_where_the_kernel_declines():
    system, x0 = sliding_off("compliant")
    traj = ph.simulate(system, (0.0, 0.15), x0, method="RK4", step=1e-3)
    direct = kernel_energies(system, traj)
    assert np.isnan(direct).any()          # off the closed form's domain: the Python path books it
    assert_series_is_per_state(system, traj)


def test_a_soil_spring_keeps_its_own_energy():
    """The soil's spring is a compliant spring with its own `energy` (and state): the series
    takes it state by state, not through the compliant kernel."""
    from .test_soil import SAND

    system, x0 = body_on_plane(*ball(1.0, 0.05, 0.052, twist=(0, 0, 0, 0.3, 0, -1.0)), kind="soil", soil=SAND,
                               friction=0.5)
    traj = ph.simulate(system, (0.0, 0.03), x0, method="RK4", step=2e-4)
    assert_series_is_per_state(system, traj)
