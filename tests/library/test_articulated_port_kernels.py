"""The ArticulatedBody's compiled input-matrix and output-Jacobian kernels (the ones a
constraint bonded to a link, e.g. a sliding-plane foot, needs on the compiled path).

References: the input matrix against central differences of the rates in the port efforts
(the rates are affine in them); the output Jacobian times dx/dt against the central
difference of the port flows along the motion, x(t +- h) from a tight integration.
"""

import numpy as np

import porthamiltonian as ph
from porthamiltonian.kernels import articulated as _k
from porthamiltonian.library import ArticulatedBody, Ground, PointSpring  # noqa: F401
from porthamiltonian.robots.examples import quadruped


def _robot():
    robot = ArticulatedBody("robot", quadruped())
    feet = [l for l in robot.link_names if "foot" in l.lower()] or list(robot.link_names[-2:])
    for link in feet[:2]:
        robot.link(link)  # gives the link a port (and mirror blocks)
    rng = np.random.default_rng(3)
    q = robot.q0.copy()
    q[7:] += rng.uniform(-0.5, 0.5, robot.nq - 7)
    v = rng.normal(size=robot.nv)
    return robot, robot.state(q=q, v=v)


def test_input_matrix_is_the_derivative_of_the_rates_in_the_efforts():
    robot, x = _robot()
    m = sum(p.dim for p in robot.ports())
    B = robot.input_matrix(0.0, x, ())
    assert B.shape == (x.size, m)
    h = 1.0
    for k in range(m):
        e = np.zeros(m)
        e[k] = h
        fd = (_k.tree_rates_flat(x, e, robot._F, robot._I) - _k.tree_rates_flat(x, -e, robot._F, robot._I)) / (2 * h)
        # affine in the efforts: the central difference is exact up to round-off
        assert np.allclose(B[:, k], fd, rtol=1e-9, atol=1e-9)


def test_output_jacobian_gives_the_time_derivative_of_the_port_flows():
    robot, x = _robot()
    m = sum(p.dim for p in robot.ports())
    W = np.random.default_rng(5).normal(size=m)   # constant port efforts
    xd = _k.tree_rates_flat(x, W, robot._F, robot._I)
    J = robot.output_jacobian(0.0, x, ())
    from scipy.integrate import solve_ivp

    f = lambda t, z: _k.tree_rates_flat(z, W, robot._F, robot._I)

    def central(h):
        ends = [solve_ivp(f, (0.0, s * h), x, method="DOP853", rtol=1e-13, atol=1e-13).y[:, -1] for s in (1, -1)]
        y = [np.concatenate(robot.outputs(0.0, z, ())) for z in ends]
        return (y[0] - y[1]) / (2 * h)

    h = 1e-4
    fd = (4 * central(h) - central(2 * h)) / 3  # Richardson: truncation O(h^4)
    # truncation ~h^4 |y^(5)| and integration error 1e-13 / h ~ 1e-9 against flows' rates of ~500
    assert np.allclose(J @ xd, fd, rtol=1e-6, atol=1e-6)
