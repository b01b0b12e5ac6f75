"""The compiled soil contact (`porthamiltonian.kernels.soil`) against its Python elements.

References: the Python methods of the four soil elements (`library.soil_contact`), evaluated
at the same states, on seeded random perturbations of states along real soil trajectories (a
ball on dry sand, the rimless wheel on sand) that cover both modes, in and out of an imprint,
touching or not; the laws' Jacobians against central differences of the kernels; the whole
compiled right-hand side and its event values against the Python ones along the trajectories.
The soil's branches themselves are checked against their closed forms in
`tests/contact_models/test_soil.py` (through `SoilLaw`, which calls these kernels).
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose

import porthamiltonian as ph
from porthamiltonian.contact import SoilLaw
from porthamiltonian.kernels import soil as ks
from porthamiltonian.models import build_model

from ..contact_models.conftest import ball, body_on_plane
from .reference import central

SAND = SoilLaw.terrain("dry_sand", radius=0.05)
#: the soil spring's own state: flag, deformation, memory, mode, footprint
ACT, S, M, MODE, FP = 6, slice(7, 10), 10, 11, slice(12, 15)


# ---------------------------------------------------------------- the spring's law
@pytest.mark.parametrize("beta", [1.0, 5.0])
def test_spring_force_splits_bekkers_force_into_stored_and_plastic(beta):
    """While loading the spring exerts dV(z, z)/dz and the plastic flow the rest of K z^N;
    elastic, it is the branch through the loading curve's point at m."""
    K, N = SAND.stiffness, SAND.exponent
    rng = np.random.default_rng(7)
    for z in rng.uniform(1e-4, 2e-2, 20):
        F, V = ks.spring_force(K, N, beta, z, 0.0, True)
        h = 1e-7 * z
        dV = (ks.spring_force(K, N, beta, z + h, 0.0, True)[1] - ks.spring_force(K, N, beta, z - h, 0.0, True)[1]) / (2 * h)
        assert_allclose(F, dV, rtol=1e-7)
        assert_allclose(F + ks.plastic_force(K, N, beta, z), K * z**N, rtol=1e-14)
        assert_allclose(ks.total_force(K, N, beta, z, 0.0, True), K * z**N, rtol=1e-14)
        # both branches meet at z = m, in force and energy
        assert_allclose(ks.spring_force(K, N, beta, z, z, False), (K * z**N, V), rtol=1e-12)
        assert ks.total_force(K, N, beta, 0.9 * z, z, False) == ks.elastic_force(K, N, beta, 0.9 * z, z)
    assert ks.spring_force(K, N, beta, -1e-3, 0.0, True) == (0.0, 0.0)


# ---------------------------------------------------------------- the elements, state by state
def _ball_on_sand():
    body, surface = ball(1.0, 0.05, 0.052, twist=(2.0, 10.0, 1.0, 0.5, 0.0, -1.0))
    system, x0 = body_on_plane(body, surface, gravity=True, kind="soil", soil=SAND)
    traj = ph.simulate(system, (0.0, 0.06), x0, rtol=1e-6, atol=1e-9, method="Radau")
    assert {"c/spring.touch", "c/spring.unload", "c/spring.release"} <= {e.name for e in traj.events}
    return system, traj.x, "c/"


def _wheel_on_sand():
    model = build_model("rimless-wheel", contact="soil")
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    traj = ph.simulate(system, (0.0, 0.3), system.initial_state(model.initial), **model.solver)
    feet = sorted(p[: -len("spring")] for p in system.elements if p.endswith("spring"))
    return system, traj.x, feet[0]


@pytest.fixture(scope="module", params=["ball", "wheel"])
def scene(request):
    system, xs, prefix = (_ball_on_sand if request.param == "ball" else _wheel_on_sand)()
    system.compiled  # noqa: B018 - builds the compiled right-hand side now
    return system, xs, prefix


def _perturbed(system, xs, prefix, rng, n=40):
    """States of the trajectory with the soil block and the contact flag drawn at random: each
    mode, memories below and above the sinkage, footprints under the contact point or away,
    and random momenta."""
    spring = system.layout.element_slice(f"{prefix}spring")
    out = []
    for k in range(n):
        x = xs[rng.integers(len(xs))].copy()
        own, refs = system.element_state(f"{prefix}spring", x)
        el = system.elements[f"{prefix}spring"]
        st = el.pair.state(own[:4], own[4:6], refs[: el.pair.n_pose_refs])
        z = st.delta
        x[spring.start + ACT] = float(k % 4 != 0)          # mostly touching
        x[spring.start + MODE] = float(rng.uniform() < 0.5)
        x[spring.start + M] = max(z, 1e-3) * rng.uniform(0.0, 1.6) if rng.uniform() < 0.8 else 0.0
        near = rng.uniform() < 0.7
        x[spring.start + FP.start : spring.start + FP.stop] = st.cp.p2 + (rng.normal(0, 1e-4, 3) if near else [0.2, 0, 0])
        x[spring.start + S.start : spring.start + S.stop] = rng.normal(0.0, 1e-5, 3)
        for sl in system._plan.refs[f"{prefix}spring"][el.pair.n_pose_refs :]:   # the momenta
            x[sl] += rng.normal(0.0, 0.3, 6)
        out.append(x)
    return out


def _kernel_call(system, path, role, *args, sh=None):
    """The element's kernel of `role` at its Python method's arguments (the references, third
    in every role, padded as the compiled right-hand side passes them)."""
    kern = system.elements[path].kernel(role)
    args = args[:2] + (kern.pad(args[2]),) + args[3:]
    return kern.function(*args, *(() if kern.reads is None else (sh,)), kern.F, kern.I)


def test_each_kernel_equals_its_python_element(scene):
    """Outputs, rates, input matrix, output Jacobian and event values of the spring, the laws
    of the damper, the slip and the plastic flow: kernel against Python method."""
    system, xs, prefix = scene
    rng = np.random.default_rng(11)
    spring, damper, slip, plastic = (f"{prefix}{n}" for n in ("spring", "damper", "slip", "plastic"))
    el = system.elements[spring]
    F = el.kernel("outputs").F
    seen = set()
    for x in _perturbed(system, xs, prefix, rng):
        t = 0.0
        own, refs = system.element_state(spring, x)
        *e, sh = _kernel_call(system, spring, "outputs", t, own, refs)
        if sh[0] != 0:       # the compiled path declines (the foot beyond its range): Python's turn
            continue
        ref = el.outputs(t, own, refs)
        scale = 1.0 + max(np.abs(r).max() for r in ref)
        for got, want in zip(e, ref):
            assert_allclose(got, want, rtol=1e-12, atol=1e-12 * scale)
        inputs = (rng.normal(0, 0.5, 6), rng.normal(0, 0.5, 6), rng.normal(0, 1e-3, 3))
        tol = dict(rtol=1e-12, atol=1e-12)
        assert_allclose(_kernel_call(system, spring, "rates", t, own, refs, inputs, sh=sh),
                        el.rates(t, own, refs, inputs), **tol)
        assert_allclose(_kernel_call(system, spring, "input_matrix", t, own, refs, sh=sh),
                        el.input_matrix(t, own, refs), **tol)
        assert_allclose(_kernel_call(system, spring, "output_jacobian", t, own, refs, sh=sh),
                        el.output_jacobian(t, own, refs), rtol=1e-12, atol=1e-12 * scale)
        events = _kernel_call(system, spring, "events", t, own, refs, sh=sh)
        assert_allclose(events, [s.function(t, own, refs) for s in el.events()], rtol=1e-11, atol=1e-14)
        for path, ins in ((damper, inputs[:2]), (plastic, inputs[:2]), (slip, (inputs[2] * 1e3,))):
            r_own = system.element_state(path, x)[1]
            got = _kernel_call(system, path, "law", t, ins, r_own, sh=sh)
            want = system.elements[path].law(0, t, ins, r_own)
            for g, w in zip(got, want):
                assert_allclose(g, w, rtol=1e-11, atol=1e-11 * (1.0 + np.abs(w).max()))
            assert_allclose(_kernel_call(system, path, "law_jacobian", t, ins, r_own, sh=sh),
                            system.elements[path].law_jacobian(0, t, ins, r_own), rtol=1e-11, atol=1e-9)
        if own[ACT] > 0.5 and sh[1] == 0.0:
            seen.add(("loading" if own[MODE] > 0.5 else "elastic", bool(ks._imprint(own, sh, F) > 0.0)))
        else:
            seen.add(("apart", False))
    assert {("loading", True), ("elastic", True), ("elastic", False), ("apart", False)} <= seen, seen


def test_jacobians_match_differences_of_the_kernels(scene):
    """The laws' Jacobians (damper, slip, plastic flow) against central differences of their
    kernels in the inputs; the spring's input matrix and output Jacobian against differences
    of its rates in the inputs and of its outputs in the deformation."""
    system, xs, prefix = scene
    rng = np.random.default_rng(12)
    spring = f"{prefix}spring"
    checked = 0
    for x in _perturbed(system, xs, prefix, rng, n=16):
        own, refs = system.element_state(spring, x)
        *_, sh = _kernel_call(system, spring, "outputs", 0.0, own, refs)
        if sh[0] != 0 or own[ACT] < 0.5 or sh[1] != 0.0:
            continue
        checked += 1
        for name in ("damper", "plastic"):
            r_own = system.element_state(f"{prefix}{name}", x)[1]
            T = rng.normal(0, 0.5, 12)

            def law(T, name=name, r_own=r_own):
                e = _kernel_call(system, f"{prefix}{name}", "law", 0.0, (T[:6], T[6:]), r_own, sh=sh)
                return np.concatenate(e)

            J = _kernel_call(system, f"{prefix}{name}", "law_jacobian", 0.0, (T[:6], T[6:]), r_own, sh=sh)
            assert_allclose(J, central(law, T, 1e-7), rtol=1e-5, atol=1e-5 * (1 + np.abs(J).max()))
        r_slip = system.element_state(f"{prefix}slip", x)[1]
        f = rng.normal(0, 2.0, 3)
        J = _kernel_call(system, f"{prefix}slip", "law_jacobian", 0.0, (f,), r_slip, sh=sh)
        Jd = central(lambda y: _kernel_call(system, f"{prefix}slip", "law", 0.0, (y,), r_slip, sh=sh)[0], f, 1e-7)
        assert_allclose(J, Jd, rtol=1e-5, atol=1e-5 * (1 + np.abs(J).max()))
        u = rng.normal(0, 0.5, 15)
        B = _kernel_call(system, spring, "input_matrix", 0.0, own, refs, sh=sh)
        Bd = central(lambda v: _kernel_call(system, spring, "rates", 0.0, own, refs, (v[:6], v[6:12], v[12:]), sh=sh),
                     u, 1e-6)
        assert_allclose(B, Bd, rtol=1e-6, atol=1e-6 * (1 + np.abs(B).max()))

        def outputs(s):
            y = own.copy()
            y[S] = s
            return np.concatenate(_kernel_call(system, spring, "outputs", 0.0, y, refs)[:3])

        J = _kernel_call(system, spring, "output_jacobian", 0.0, own, refs, sh=sh)
        assert_allclose(J[:, S], central(outputs, own[S], 1e-8), rtol=1e-6, atol=1e-6 * (1 + np.abs(J).max()))
    assert checked >= 3


# ---------------------------------------------------------------- the whole right-hand side
def test_compiled_rhs_and_events_equal_the_python_ones_along_the_trajectory(scene):
    """The compiled right-hand side and its event values at states of the trajectory (airborne,
    loading, elastic) and at their perturbations (in an imprint), against the Python path."""
    system, xs, prefix = scene
    assert system.compiled == "numba", system.compiled
    assert system._jit["events"]
    j = system._jit
    states = list(xs[:: max(1, len(xs) // 30)]) + _perturbed(system, xs, prefix, np.random.default_rng(13), n=20)
    handled = 0
    for x in states:
        ref = system._rhs(0.0, x, system._u0, False)
        xdot, status, values, _, _, _ = j["fn"](0.0, x, system._u0, j["F"], j["I"])
        if status:
            continue
        handled += 1
        np.testing.assert_allclose(xdot, ref, rtol=1e-12, atol=1e-12 * (1.0 + np.abs(ref).max()))
        for k, b in enumerate(system.events):
            assert values[k] == pytest.approx(b.value(0.0, x, system), rel=1e-11, abs=1e-14), b.name
    assert handled >= 0.9 * len(states)


# ---------------------------------------------------------------- the slip's Dahl speed
def test_the_soils_slip_stays_non_stiff_as_its_friction_limit_vanishes():
    """The compliant Dahl slip's d(v_slip)/df is speed / limit below the limit, unbounded as
    the normal force (and the limit mu F) goes to 0; with the soil's capped speed
    (`dahl_speed`) it stays at most 1 / c_slip (below the limit the Dahl term's capped
    speed / limit, above it the Coulomb excess's 1 / c_slip), the slip stays along the force (dissipation >= 0) and a
    limit above c_slip * speed leaves the compliant law unchanged."""
    from porthamiltonian.kernels import contact as kc
    c_slip, speed = 3.0, 0.8
    rng = np.random.default_rng(3)
    for limit in (1e-12, 1e-6, 1e-2, 1.0, 2.3, 10.0):
        for f in rng.normal(size=(20, 3)) * limit * rng.uniform(0.1, 3.0):
            lims = (limit, limit)    # spin, tangential
            speeds = tuple(ks.dahl_speed(s, lim, c_slip) for s, lim in zip((0.3 * speed, speed), lims))
            J = kc.slip_jacobian(f, *lims, c_slip, *speeds)
            assert np.linalg.norm(J, 2) <= 1.0 / c_slip * (1 + 1e-12)
            v = kc.slip_rates(f, *lims, c_slip, *speeds)
            assert f[0] * v[0] >= 0.0 and f[1:] @ v[1:] >= 0.0
            if limit >= c_slip * speed:   # 10.0 only: the compliant law itself, the same call (bit-identical)
                assert speeds == (0.3 * speed, speed)
                assert np.array_equal(v, kc.slip_rates(f, *lims, c_slip, 0.3 * speed, speed))
    # the uncapped law at a vanishing limit: stiff (what stalled the soil drops)
    J = kc.slip_jacobian(np.array((0.0, 1e-13, 0.0)), 1e-12, 1e-12, c_slip, 0.0, speed)
    assert J[1, 1] == speed / 1e-12
