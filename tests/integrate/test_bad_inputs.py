"""Bad inputs at the API boundary: each gets a typed error naming the argument, value and rule."""

import warnings

import numpy as np
import pytest

import porthamiltonian as ph
from porthamiltonian.errors import IntegrationError, ParameterError


def msd(force=None):
    """Mass-spring-damper; `force=None` makes the effort source an external input."""
    bg = ph.BondGraph("msd")
    se = ph.Se("F", input=True) if force is None else ph.Se("F", force)
    bg.add(se, ph.Junction1("v"), ph.I("m", mass=2.0), ph.C("k", stiffness=3.0), ph.R("b", 0.5))
    for a, b in [("F", "v"), ("v", "m"), ("v", "k"), ("v", "b")]:
        bg.connect(a, b)
    return bg


@pytest.fixture(scope="module")
def system():
    return ph.compile(msd(1.0))


@pytest.fixture(scope="module")
def driven():
    return ph.compile(msd(None))


# ------------------------------------------------------------------ 1. element parameters
@pytest.mark.parametrize("make, pattern", [
    (lambda: ph.I("m", mass="heavy"), r"`m\.mass` must be numeric, got 'heavy'"),
    (lambda: ph.I("m", mass=[[1.0, 2.0], [3.0]]), r"`m\.mass` must be numeric"),
    (lambda: ph.C("k", stiffness="stiff"), r"`k\.stiffness` must be numeric, got 'stiff'"),
    (lambda: ph.C("k", compliance="soft"), r"`k\.compliance` must be numeric, got 'soft'"),
    (lambda: ph.C("k", stiffness="3.0"), r"`k\.stiffness` must be numeric, got '3\.0' \(strings"),
    (lambda: ph.R("b", "lots"), r"`b\.resistance` must be numeric, got 'lots'"),
    (lambda: ph.R("b", True), r"`b\.resistance` must be numeric, got True \(booleans"),
    (lambda: ph.TF("t", "two"), r"`t\.modulus` must be numeric, got 'two'"),
    (lambda: ph.GY("g", [[1.0, "a"]]), r"`g\.modulus` must be numeric"),
    (lambda: ph.Se("F", "one"), r"`F\.effort` must be numeric, got 'one'"),
    (lambda: ph.Sf("S", ["x"]), r"`S\.flow` must be numeric"),
    (lambda: ph.I("m", mass=1.0, dim=True), r"`dim` must be a positive integer, got True"),
    (lambda: ph.MTF("t", lambda t: np.eye(1), shape=5), r"`t\.shape` must be \(n2, n1\) with positive integer sizes, got 5"),
])
def test_element_parameters_raise_parameter_error(make, pattern):
    with pytest.raises(ParameterError, match=pattern):
        make()


# ------------------------------------------------------------------ 2. baumgarte
@pytest.mark.parametrize("value, pattern", [
    (5, r"`baumgarte` must be a pair \(alpha, beta\) of non-negative numbers .*got 5"),
    ("ab", r"`baumgarte` must be a pair .*got 'ab'"),
    ((1.0, 2.0, 3.0), r"`baumgarte` must be a pair .*got \(1\.0, 2\.0, 3\.0\)"),
    ((1.0, -2.0), r"`baumgarte\[1\]` must be >= 0, got -2\.0"),
    ((np.nan, 1.0), r"`baumgarte\[0\]` must be finite"),
])
def test_compile_checks_baumgarte(value, pattern):
    with pytest.raises(ParameterError, match=pattern):
        ph.compile(msd(1.0), baumgarte=value)


def test_compile_accepts_baumgarte_none_and_numpy_pairs():
    ph.compile(msd(1.0), baumgarte=None)  # what a model file without its own value stores
    ph.compile(msd(1.0), baumgarte=np.array([2.0, 0.0]))
    ph.compile(msd(1.0), baumgarte=(np.float32(1.0), np.int64(0)))


# ------------------------------------------------------------------ 3. user events
def _one_arg(t):
    return t


def _string(t, x):
    return "up"


def _vector(t, x):
    return np.array([x[0], x[1]])


def _nan_event(t, x):
    return float("nan")


def _star(*args):
    return args[1][0] - 1.0


@pytest.mark.parametrize("event, pattern", [
    (_one_arg, r"`events\[0\]` \('_one_arg'\) must take two positional arguments \(t, x\)"),
    (_string, r"`events\[0\]` \('_string'\) must return a real scalar .*got 'up' \(str\)"),
    (1, r"`events\[0\]` must be a callable g\(t, x\), got 1 \(int\)"),
    (_vector, r"`events\[0\]` \('_vector'\) must return a real scalar .*shape \(2,\)"),
    (_nan_event, r"`events\[0\]` \('_nan_event'\) must return a finite value, got nan"),
    (lambda t, x: True, r"`events\[0\]` \('<lambda>'\) must return a real scalar .*got True"),
])
def test_bad_user_events_are_refused_at_the_boundary(system, event, pattern):
    with pytest.raises(ParameterError, match=pattern):
        ph.simulate(system, (0.0, 1.0), system.initial_state(), events=[event])


def test_bad_event_is_named_by_its_index(system):
    with pytest.raises(ParameterError, match=r"`events\[1\]` \('_string'\)"):
        ph.simulate(system, (0.0, 1.0), system.initial_state(), events=[_star, _string])


def test_events_with_star_args_and_numpy_scalars_are_accepted(system):
    def zero_d(t, x):
        return np.asarray(x[0] - 0.1)

    def f32(t, x):
        return np.float32(x[0] - 0.1)

    traj = ph.simulate(system, (0.0, 3.0), system.initial_state(), events=[_star, zero_d, f32])
    assert traj.success


# ------------------------------------------------------------------ 4. inputs
def test_inputs_callable_with_the_wrong_size_is_refused(driven):
    assert driven.n_inputs == 1
    with pytest.raises(ParameterError, match=r"`inputs` must return u of shape \(1,\) .*got \[1\.0, 2\.0\] \(shape \(2,\)\)"):
        ph.simulate(driven, (0.0, 1.0), driven.initial_state(), inputs=lambda t, x: [1.0, 2.0])


def test_inputs_callable_with_the_wrong_signature_is_refused(driven):
    with pytest.raises(ParameterError, match=r"`inputs` must be a constant vector or a callable inputs\(t, x\)"):
        ph.simulate(driven, (0.0, 1.0), driven.initial_state(), inputs=lambda t: [1.0])


def test_inputs_returning_nan_later_is_reported_as_such(driven):
    def u(t, x):
        return [np.nan if t > 0.5 else 1.0]

    with pytest.raises(IntegrationError, match=r"input u returned nan at t = 0\.5"):
        ph.simulate(driven, (0.0, 1.0), driven.initial_state(), inputs=u)
    traj = ph.simulate(driven, (0.0, 1.0), driven.initial_state(), inputs=u, throw=False)
    assert traj.status == -1 and "input u returned nan" in traj.message


def test_good_inputs_callable_still_runs(driven):
    traj = ph.simulate(driven, (0.0, 1.0), driven.initial_state(), inputs=lambda t, x: np.array([1.0]))
    assert traj.success


# ------------------------------------------------------------------ 5. rtol floor
def test_rtol_below_scipy_floor_is_refused(system):
    with pytest.raises(ParameterError, match=r"`rtol` must be >= 100 \* machine epsilon = 2\.22e-14 .*got 1e-20"):
        ph.simulate(system, (0.0, 1.0), system.initial_state(), rtol=1e-20)


def test_rtol_at_the_floor_runs_without_scipy_warning(system):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        traj = ph.simulate(system, (0.0, 0.01), system.initial_state(), rtol=100 * np.finfo(float).eps, atol=1e-14)
    assert traj.success


# ------------------------------------------------------------------ 6. numbers
@pytest.mark.parametrize("kwargs, pattern", [
    (dict(first_step=-1), r"`first_step` must be > 0, got -1$"),
    (dict(first_step=0.0), r"`first_step` must be > 0, got 0\.0"),
    (dict(first_step=5.0), r"`first_step` must be <= t1 - t0 = 1\.0 .*got 5\.0"),
    (dict(max_step=True), r"`max_step` must be a positive number \(or np\.inf\), got True"),
    (dict(max_step=-0.1), r"`max_step` must be a positive number .*got -0\.1"),
    (dict(max_step="0.1"), r"`max_step` must be a positive number .*got '0\.1'"),
    (dict(rtol=True), r"`rtol` must be a real number, got True"),
    (dict(atol="1e-9"), r"`atol` must be a real number, got '1e-9'"),
    (dict(max_events=2.5), r"`max_events` must be a non-negative integer, got 2\.5"),
])
def test_bad_numbers_are_refused(system, kwargs, pattern):
    with pytest.raises(ParameterError, match=pattern):
        ph.simulate(system, (0.0, 1.0), system.initial_state(), **kwargs)


@pytest.mark.parametrize("kwargs", [
    dict(max_step=np.float32(0.1)),
    dict(max_step=np.int64(1)),
    dict(max_step=np.inf),
    dict(rtol=np.float32(1e-6), atol=np.float64(1e-9)),
    dict(first_step=np.float32(1e-3)),
    dict(max_events=np.int64(10)),
    dict(projection=None, t_eval=np.linspace(np.float32(0.0), 1.0, 5)),
])
def test_numpy_scalars_are_accepted(system, kwargs):
    traj = ph.simulate(system, (np.float32(0.0), np.int64(1)), system.initial_state(), **kwargs)
    assert traj.success


# ------------------------------------------------------------------ 7. Trajectory.save
@pytest.mark.parametrize("suffix", [".npz", ".csv"])
def test_save_into_a_missing_directory(system, tmp_path, suffix):
    traj = ph.simulate(system, (0.0, 0.1), system.initial_state())
    target = tmp_path / "missing" / f"run{suffix}"
    with pytest.raises(ParameterError, match=r"`path` .*run\.\w+'?: the directory .*missing' does not exist"):
        traj.save(target)
    assert not target.parent.exists()  # not created silently
    traj.save(tmp_path / f"run{suffix}")
    assert (tmp_path / f"run{suffix}").exists()


def test_a_failing_event_is_reported_at_the_time_it_failed(system):
    """An event function that raises at t > 0.3 s: the failure names that time, not the start
    of the segment (it used to say "near t = 0 s")."""

    def late_failure(t, x):
        if t > 0.3:
            raise ValueError("the event's model broke")
        return 1.0

    traj = ph.simulate(system, (0.0, 1.0), system.initial_state({"k.q": 0.2}), events=[late_failure], throw=False)
    assert traj.status == -1
    t_failed = float(traj.message.split("near t = ")[1].split(" s")[0])
    assert 0.3 < t_failed < 0.5 and "the event's model broke" in traj.message


def test_max_nfev_and_timeout_stop_the_run_saying_where(system):
    x0 = system.initial_state({"k.q": 0.2})
    traj = ph.simulate(system, (0.0, 100.0), x0, rtol=1e-12, atol=1e-14, max_nfev=200, throw=False)
    assert traj.status == -1 and "stopped after max_nfev = 200 right-hand-side evaluations, at t = " in traj.message
    traj = ph.simulate(system, (0.0, 1e6), x0, rtol=1e-12, atol=1e-14, timeout=0.2, throw=False)
    assert traj.status == -1 and "stopped at the timeout" in traj.message
    with pytest.raises(ParameterError, match=r"`max_nfev` must be a positive integer \(or None\), got 0"):
        ph.simulate(system, (0.0, 1.0), x0, max_nfev=0)
    with pytest.raises(ParameterError, match=r"`timeout` must be"):
        ph.simulate(system, (0.0, 1.0), x0, timeout=-1.0)


@pytest.mark.parametrize("t_eval", [None, np.linspace(0.0, 2.0, 21)])
def test_a_failure_inside_the_solver_keeps_the_accepted_steps(t_eval):
    """Issue 17: an exception raised inside solve_ivp (here a user law that refuses large
    flows) lost the whole segment; the accepted steps up to the failure are kept and the
    message names the time of the last one."""
    def law(f):
        v = float(np.ravel(f)[0])
        if abs(v) > 0.05:
            raise ValueError(f"flow {v:.3g} outside the calibrated range")
        return -0.8 * f                                  # active: the oscillation grows

    bg = ph.BondGraph("msd")
    bg.add(ph.Junction1("v"), ph.I("m", mass=2.0), ph.C("k", stiffness=3.0), ph.R("b", law=law))
    for el in ("m", "k", "b"):
        bg.connect("v", el)
    system = ph.compile(bg)
    x0 = system.initial_state({"k.q": 0.02})
    traj = ph.simulate(system, (0.0, 20.0), x0, method="DOP853", throw=False, t_eval=t_eval)
    assert traj.status == -1
    assert "outside the calibrated range" in traj.message
    assert traj.t[-1] > 1.0 and len(traj.t) >= 5            # not only the t = 0 sample
    assert f"the last accepted step ends at t = {traj.t[-1]:.9g} s" in traj.message
    # the kept steps are the solution: the energy grows as the active law pumps it
    H = np.array([system.energy(x) for x in traj.x])
    assert H[-1] > H[0]
    assert np.all(np.diff(traj.t) > 0)


def test_a_stiff_model_on_an_explicit_method_warns_early():
    """Issue 17: a stiff contact (1e12 N/m on 1 kg, resting at its equilibrium penetration
    m g / k: a normal mode of sqrt(k/m) = 1e6 rad/s) with RK45 would take millions of
    evaluations per simulated second and said nothing; after STIFF_CHECK_AT evaluations
    simulate estimates the fastest mode (power iteration on the Jacobian) and says so, naming
    the rate (at least the normal mode's) and the implicit methods. A non-stiff run says nothing."""
    from porthamiltonian.errors import IntegrationWarning
    from porthamiltonian.geometry import Plane, Sphere
    from porthamiltonian.library import Gravity, Ground, RigidBody, contact

    pose = np.eye(4)
    pose[2, 3] = 0.1 - 9.81 / 1e12                 # resting at the equilibrium penetration
    ball = RigidBody("ball", 1.0, [0.004] * 3, pose=pose)
    ground = Ground("ground")
    bg = ph.BondGraph("stiff")
    bg.add(ball, ground, Gravity("gravity", ball),
           contact("compliant", "c", ball, Sphere(0.1), ground, Plane(), normal="linear", stiffness=1e12, damping=0.0))
    bg.connect(ball.frame().port, "gravity")
    bg.connect(ball.frame().port, ("c", "a"))
    bg.connect(ground.frame().port, ("c", "b"))
    system = ph.compile(bg)
    with pytest.warns(IntegrationWarning, match=r"stiff for RK45 .* fastest mode has a rate of") as rec:
        traj = ph.simulate(system, (0.0, 1.0), system.initial_state(), method="RK45", max_nfev=4000, throw=False)
    assert traj.status == -1 and "max_nfev" in traj.message
    msg = str(rec[0].message)
    rate = float(msg.split("a rate of ")[1].split(" ")[0])
    assert 1e6 <= rate < 1e8 and "'Radau' or 'BDF'" in msg

    bg = ph.BondGraph("msd")
    bg.add(ph.Junction1("v"), ph.I("m", mass=2.0), ph.C("k", stiffness=3.0), ph.R("b", 0.5))
    for el in ("m", "k", "b"):
        bg.connect("v", el)
    system = ph.compile(bg)
    with warnings.catch_warnings():
        warnings.simplefilter("error", IntegrationWarning)
        traj = ph.simulate(system, (0.0, 200.0), system.initial_state({"k.q": 0.2}), rtol=1e-12, atol=1e-14)
    assert traj.nfev > 3000
