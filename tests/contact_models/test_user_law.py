"""A normal law of the user's (issue 11, acceptance 6): sympy potential or callables.

A ball meets the floor head-on without gravity. The user's law written as the built-in
Hunt-Crossley law must give the built-in's motion (a second formulation of the same law); a
purely elastic user law with no closed-form impact (V = k1 d^2 / 2 + k3 d^4 / 4) conserves
energy (restitution 1, nothing dissipated, the ledger closed); a dissipative one books its
dissipation.
"""

import numpy as np
import pytest
import sympy as sp
from numpy.testing import assert_allclose

import porthamiltonian as ph
from porthamiltonian.contact.laws import NormalLaw, UserNormalLaw
from porthamiltonian.geometry import Plane, Sphere
from porthamiltonian.library import CompliantContact, Ground, RigidBody

from .conftest import RTOL, TIGHT, assert_ledger_closes, ball, body_on_plane, world_momenta

M, R_BALL, V, GAP = 1.5, 0.1, 0.7, 1e-3
K, A, N = 3e6, 0.4, 1.5
d, r = sp.symbols("delta rate")


def impact(normal, **law):
    system, x0 = body_on_plane(*ball(M, R_BALL, R_BALL + GAP, twist=(0, 0, 0, 0, 0, -V)), normal=normal, friction=0.0,
                               **law)
    traj = ph.simulate(system, (0.0, 0.03), x0, t_eval=np.linspace(0.0, 0.03, 31), **TIGHT)
    return traj, world_momenta(traj)[0][:, 2] / M


HC_SYMPY = dict(potential=K * d ** (N + 1) / (N + 1), dissipation=K * A * d**N * r, delta=d, rate=r)
HC_CALLABLE = dict(force=lambda x: K * x**N, dissipation=lambda x, v: K * A * x**N * v)


@pytest.mark.parametrize("given", [HC_SYMPY, HC_CALLABLE], ids=["sympy", "callables"])
def test_a_user_law_equal_to_hunt_crossley_moves_like_it(given):
    ref, v_ref = impact("hunt_crossley", stiffness=K, damping=A, exponent=N)
    traj, v = impact(UserNormalLaw(**given))
    assert_allclose(v, v_ref, rtol=0, atol=1e-8 * V)
    assert_allclose(traj.state("ball.pose"), ref.state("ball.pose"), rtol=0, atol=1e-10)
    # the ledger closes as well as the built-in law's does (measured 1.4e-9 of the energy for
    # both: the integration error of this stiff impact)
    b, b_ref = traj.power_budget(), ref.power_budget()
    assert b.max_residual <= 1.1 * b_ref.max_residual + RTOL * b.scale
    assert_allclose(b.dissipated[-1], b_ref.dissipated[-1], rtol=1e-6)


def test_a_purely_elastic_user_law_conserves_energy():
    law = UserNormalLaw(potential=2e6 * d**2 / 2 + 4e12 * d**4 / 4, delta=d)
    traj, v = impact(law)
    assert_allclose(v[-1], V, rtol=1e-8)                         # restitution 1
    b = assert_ledger_closes(traj, 10 * RTOL)
    assert_allclose(b.dissipated[-1], 0.0, atol=1e-12)
    assert law.stiffness == pytest.approx(law.elastic(law.penetration_at_rest(9.81)) / law.penetration_at_rest(9.81))


@pytest.mark.parametrize("arguments, match", [
    (dict(), r"exactly one of `potential` \(sympy\) and `force` \(callable\)"),
    (dict(potential=d**2, force=lambda x: x, delta=d), r"exactly one of"),
    (dict(potential=d**2 + r, delta=d), r"`potential` may use only \['delta'\], got symbols \['rate'\]"),
    (dict(potential=d**2 + 1, delta=d), r"`potential` must vanish at delta = 0, got V\(0\) = 1"),
    (dict(potential=-(d**2), delta=d), r"the elastic force must be finite and >= 0, got -2e-06 at delta = 1e-06 m"),
    (dict(potential=d**2, dissipation=-r, delta=d, rate=r), r"must oppose the motion .* rate = -10 m/s"),
    (dict(potential=d**2, delta="delta"), r"`delta` must be the sympy Symbol"),
])
def test_bad_user_laws_are_refused(arguments, match):
    with pytest.raises(ph.ParameterError, match=match):
        UserNormalLaw(**arguments)


def test_a_law_object_holds_its_own_parameters():
    ball, ground = RigidBody("ball", M, [1e-3] * 3), Ground("ground")
    with pytest.raises(ph.ParameterError, match=r"`normal` is a law object, which holds its own `stiffness`"):
        CompliantContact("c", ball, Sphere(R_BALL), ground, Plane(), normal=NormalLaw("linear"), stiffness=5.0)
