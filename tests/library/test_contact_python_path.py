"""The contact elements' Python methods call their kind's kernels (issue 37, item 2).

A touching, tilted, spinning ellipsoid on the ground plane (compliant contact). The Python
element methods pack the Python path's pair state into the kernels' pair record
(`compliant_contact.pair_record`) and call the kernels through their compiled entry points
(`call_kernel`). References: the record's fields against the pair state they come from, and
the kernels called through numba's dispatcher (the same compiled code: bit-identical).
"""

import functools

import numpy as np
from scipy.spatial.transform import Rotation

import porthamiltonian as ph
from porthamiltonian.geometry import Ellipsoid, Plane
from porthamiltonian.kernels import compliant as kc
from porthamiltonian.library import CompliantContact, Ground, RigidBody
from porthamiltonian.library.compliant_contact import pair_record


@functools.lru_cache(maxsize=1)
def _system():
    H = np.eye(4)
    H[:3, :3] = Rotation.from_rotvec([0.3, -0.2, 0.1]).as_matrix()
    H[2, 3] = 0.2
    body = RigidBody("body", 1.2, (0.02, 0.03, 0.04), pose=H, twist=(0.4, -0.3, 2.0, 0.2, -0.1, -0.3))
    S = Ellipsoid(0.1, 0.08, 0.06)
    bg = ph.BondGraph("tilted")
    ground = Ground("ground")
    c = CompliantContact("c", body, S, ground, Plane(), friction=0.5)
    bg.add(body, ground, c)
    bg.connect(body.frame().port, ("c", "a"))
    bg.connect(ground.frame().port, ("c", "b"))
    system = ph.compile(bg, jit=False)
    x = system.initial_state()
    # lower the body until it penetrates by 1e-5 m, and give the tangential spring a deformation
    spring = system.elements["c/spring"]
    own, refs = system.element_state("c/spring", x)
    lowest = spring.distance(own, refs)
    pose = system.layout["body.pose"]
    x[pose][6] -= lowest + 1e-5
    x = system.initial_state({"body.pose": x[pose]})
    x[system.layout["c/spring.s"]] = (1e-3, 2e-5, -1e-5)
    return system, x


def _touching_contact():
    system, x = _system()
    return system, x.copy()


def test_the_python_path_calls_the_kernels_on_the_pair_record():
    system, x = _touching_contact()
    spring, damper, slip = (system.elements[f"c/{n}"] for n in ("spring", "damper", "slip"))
    own, refs = system.element_state("c/spring", x)
    assert own[6] > 0.5   # touching
    st = spring._state(own, refs)
    F, I = spring._arrays()
    sh = spring._record(st)
    # the record's fields, by name, are the pair state's (the same arrays where they already are contiguous)
    assert sh[kc.P_STATUS] == 0 and sh[kc.P_CULLED] == 0.0 and sh[kc.P_DELTA] == st.delta
    assert sh[kc.P_GA] is st.G_a and sh[kc.P_GB] is st.G_b and sh[kc.P_H12] is st.H_12
    assert tuple(sh[kc.P_C1 : kc.P_C2 + 1]) == tuple(st.cp.charts)
    np.testing.assert_array_equal(sh[kc.P_LAW], spring.p.law.packed)
    np.testing.assert_array_equal(sh[kc.P_X], st.cp.x)
    # bit-identical on purpose: the entry point is the dispatcher's compiled overload
    rng = np.random.default_rng(3)
    inputs = (rng.normal(size=6), rng.normal(size=6), rng.normal(size=3))
    pose_refs = spring._pose_args(refs)
    for _ in range(2):   # the first call goes through the dispatcher, the second through the entry point
        np.testing.assert_array_equal(spring.rates(0.0, own, refs, inputs),
                                      kc.spring_rates(0.0, own.copy(), pose_refs, inputs, sh, F, I))
        np.testing.assert_array_equal(spring.input_matrix(0.0, own, refs),
                                      kc.spring_input_matrix(0.0, own.copy(), pose_refs, sh, F, I))
    assert spring._kernel_entries[kc.spring_rates] is not None
    _, rrefs = system.element_state("c/damper", x)
    padded = tuple(np.zeros(0) if k < 0 else np.ascontiguousarray(rrefs[k]) for k in damper._slots())
    for _ in range(2):
        e = damper.law(0, 0.0, inputs[:2], rrefs)
        ref = kc.damper_law(0.0, inputs[:2], padded, sh, F, I)
        np.testing.assert_array_equal(np.concatenate(e), np.concatenate(ref))
        np.testing.assert_array_equal(slip.law_jacobian(0, 0.0, inputs[2:], rrefs),
                                      kc.friction_law_jacobian(0.0, inputs[2:], padded, sh, F, I))
    # the energy: the normal law's potential and the tangential springs' (closed form)
    s = own[7:10]
    V = spring.p.law.potential(st.delta) + 0.5 * (spring.p.k_spin * s[0] ** 2 + spring.p.k_t * (s[1] ** 2 + s[2] ** 2))
    assert abs(spring.energy(own, refs) - V) <= 1e-15 * V   # round-off: the sum's order


def test_a_culled_state_is_recorded_as_off_the_surface():
    system, x = _touching_contact()
    spring = system.elements["c/spring"]
    x[system.layout["body.pose"].start + 6] += 1.0   # 1 m up: culled by the bounding test
    x[system.layout["c/spring.active"]] = 0.0
    own, refs = system.element_state("c/spring", x)
    st = spring._state(own, refs)
    assert st.culled
    sh = pair_record(st, None, spring._arrays()[0])
    assert sh[kc.P_CULLED] == 2.0 and sh[kc.P_DELTA] == st.delta
    # the compiled events read the same values from it as from the bounding test's record (1.0)
    F, I = spring._arrays()
    culled = (sh[kc.P_STATUS], 1.0) + sh[kc.P_DELTA :]
    np.testing.assert_array_equal(kc.spring_events(0.0, own.copy(), spring._pose_args(refs), sh, F, I),
                                  kc.spring_events(0.0, own.copy(), spring._pose_args(refs), culled, F, I))
    assert not spring.rates(0.0, own, refs, (np.ones(6), np.ones(6), np.ones(3))).any()
