"""Compile cost linear in graph size, and the assembled linear block against a closed form.

The chain: n masses m_i, neighbours joined by a spring k_i and a damper b_i in parallel, the
first mass pushed by a constant force F::

    F -> 1:v0 -> 0:s0 -> 1:v1 -> 0:s1 -> ... -> 1:v(n-1)      each 1:vi -> I:mi
                   |              |
                 1:d0 -> C:k0, R:b0 (relative velocity v0 - v1)

With momenta p, spring displacements q (q_i = x_i - x_(i+1) integrated from v_i - v_(i+1))
and D the (n-1, n) difference matrix (D v)_i = v_i - v_(i+1):

    v = M^-1 p,   dq/dt = D v,   dp/dt = -D^T (K q + B D v) + F e_0

dissipated power of damper i: b_i (D v)_i^2; supplied power F v_0.
"""

import gc
import time

import numpy as np
import pytest
from numpy.testing import assert_allclose

import porthamiltonian as ph


def chain(n, masses=None, stiffness=None, damping=None, force=1.0):
    """The n-mass chain of the module docstring (unit parameters unless given)."""
    masses = np.ones(n) if masses is None else masses
    stiffness = np.full(n - 1, 100.0) if stiffness is None else stiffness
    damping = np.full(n - 1, 0.1) if damping is None else damping
    bg = ph.BondGraph(f"chain{n}")
    bg.add(ph.Se("F", force))
    for i in range(n):
        bg.add(ph.Junction1(f"v{i}"), ph.I(f"m{i}", mass=float(masses[i])))
        bg.connect(f"v{i}", f"m{i}")
    bg.connect("F", "v0")
    for i in range(n - 1):
        bg.add(ph.Junction0(f"s{i}"), ph.Junction1(f"d{i}"))
        bg.add(ph.C(f"k{i}", stiffness=float(stiffness[i])), ph.R(f"b{i}", float(damping[i])))
        bg.connect(f"v{i}", f"s{i}")
        bg.connect(f"s{i}", f"v{i + 1}")
        bg.connect(f"s{i}", f"d{i}")
        bg.connect(f"d{i}", f"k{i}")
        bg.connect(f"d{i}", f"b{i}")
    return bg


def chain_layout(L, n):
    """State indices of the masses' momenta and the springs' elongations of the n-mass chain,
    and the difference matrix D (spring i stretches at v_i - v_(i+1))."""
    ip = np.array([L[f"m{i}.p"].start for i in range(n)])
    iq = np.array([L[f"k{i}.q"].start for i in range(n - 1)])
    D = np.zeros((n - 1, n))
    D[np.arange(n - 1), np.arange(n - 1)] = 1.0
    D[np.arange(n - 1), np.arange(1, n)] = -1.0
    return ip, iq, D


def build_and_compile_time(n, repeats=2):
    """Best wall time [s] of building and compiling the n-mass chain, with the garbage
    collector off (as `timeit` does): its full collections scale with everything the process
    holds (at the end of a whole test session, thousands of tests' objects), not with the
    graph being compiled, and made the 1000-mass chain's time per element twice the
    100-mass one's in a long session (1.4x without them)."""
    best = np.inf
    for _ in range(repeats):
        gc.collect()
        gc.disable()
        try:
            t0 = time.perf_counter()
            ph.compile(chain(n))
            best = min(best, time.perf_counter() - t0)
        finally:
            gc.enable()
    return best


def test_build_and_compile_scale_linearly():
    ph.compile(chain(10))  # imports and first-call costs out of the timing
    per_100 = build_and_compile_time(100, repeats=3) / 100
    per_1000 = build_and_compile_time(1000) / 1000
    # linear cost gives a ratio ~1 (1.4 measured); quadratic would give ~10. The bound is
    # loose because the machine may be shared (other test runs).
    assert per_1000 / per_100 < 3.0, (per_100, per_1000)


@pytest.mark.parametrize("n", [2, 7, 40])
def test_assembled_chain_matches_closed_form(n):
    rng = np.random.default_rng(n)
    m = rng.uniform(0.5, 2.0, n)
    k = rng.uniform(10.0, 200.0, n - 1)
    b = rng.uniform(0.05, 1.0, n - 1)
    F = 1.7
    system = ph.compile(chain(n, m, k, b, F))
    assert "LINR_A" in system.source  # the chain runs through the assembled block
    assert "K1_outputs" not in system.source  # and not through per-element kernels

    L = system.layout
    ip, iq, D = chain_layout(L, n)
    e0 = np.eye(n)[0]
    dissipated = {path: L.n_physical + e.index for e in L.ledger for path in [e.element] if e.kind == "dissipated"}
    supplied = next(L.n_physical + e.index for e in L.ledger if e.kind == "supplied")

    for _ in range(5):
        x = rng.normal(size=L.size)
        p, q = x[ip], x[iq]
        v = p / m
        dv = D @ v
        xdot = system.rhs(0.0, x)
        assert_allclose(xdot[iq], dv, rtol=1e-12, atol=1e-12)
        assert_allclose(xdot[ip], -D.T @ (k * q + b * dv) + F * e0, rtol=1e-12, atol=1e-12)
        for i in range(n - 1):
            assert_allclose(xdot[dissipated[f"b{i}"]], b[i] * dv[i] ** 2, rtol=1e-12, atol=1e-12)
        assert_allclose(xdot[supplied], F * v[0], rtol=1e-12, atol=1e-12)
        # the full evaluation (every bond variable) agrees with the fast path
        ev = system.evaluate(0.0, x)
        # the full evaluation and the fast path compute the rates separately: equal to round-off
        assert_allclose(ev["xdot"], xdot, rtol=0, atol=4 * np.finfo(float).eps * np.abs(xdot).max())
        powers = system.port_powers(0.0, x)
        for i in range(n - 1):
            assert_allclose(powers[f"b{i}"], b[i] * dv[i] ** 2, rtol=1e-12, atol=1e-12)
        assert_allclose(powers["F"], -F * v[0], rtol=1e-12, atol=1e-12)


def test_nonlinear_elements_inside_assembled_chain():
    """Nonlinear elements between linear parts: a nonlinear spring and damper whose outputs
    feed a mass given by a callable energy, so the code alternates assembled blocks (the
    damper's input, then the mass's input, which depends on the damper's output) and
    per-element calls."""
    n = 6
    bg = chain(n)
    bg.swap("k2", ph.C("k2", energy=lambda q: 25.0 * q[0] ** 4, gradient=lambda q: np.array([100.0 * q[0] ** 3])))
    bg.swap("b2", ph.R("b2", law=lambda f: 0.1 * f + 0.3 * f**3, jacobian=lambda f: np.array([[0.1 + 0.9 * f[0] ** 2]])))
    bg.swap("m3", ph.I("m3", energy=lambda p: 0.5 * p[0] ** 2, gradient=lambda p: np.array([p[0]])))
    system = ph.compile(bg)
    assert "LIN0_A" in system.source and "LIN1_" in system.source and "LINR_A" in system.source
    rng = np.random.default_rng(3)
    L = system.layout
    ip, iq, D = chain_layout(L, n)
    for _ in range(3):
        x = rng.normal(size=L.size)
        q, dv = x[iq], D @ x[ip]
        force = 100.0 * q + 0.1 * dv
        force[2] = 100.0 * q[2] ** 3 + 0.1 * dv[2] + 0.3 * dv[2] ** 3
        xdot = system.rhs(0.0, x)
        assert_allclose(xdot[iq], dv, rtol=1e-12, atol=1e-12)
        assert_allclose(xdot[ip], -D.T @ force + np.eye(n)[0], rtol=1e-12, atol=1e-12)
        led = {e.element: L.n_physical + e.index for e in L.ledger if e.kind == "dissipated"}
        assert_allclose(xdot[led["b2"]], 0.1 * dv[2] ** 2 + 0.3 * dv[2] ** 4, rtol=1e-12, atol=1e-12)
        assert_allclose(xdot[led["b1"]], 0.1 * dv[1] ** 2, rtol=1e-12, atol=1e-12)
