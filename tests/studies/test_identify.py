"""Identification (issue 15, acceptance 3): the stiffness and restitution of a synthetic ball
drop (compliant, linear law, generated with known values, Gaussian noise of 1 % of the height
range added, seeded) are recovered within 2 %, and the reported standard errors cover the
truth (within two of them: a 95 % interval)."""

import numpy as np
import pytest

import porthamiltonian as ph
from porthamiltonian.errors import ParameterError
from porthamiltonian.studies import Identification, Measurement
from porthamiltonian.studies.records import RunSpec, integrate, prepare, resolve_parameters

TRUTH = {"stiffness": 1e4, "restitution": 0.7}
BOUNDS = {"stiffness": (3e3, 3e4), "restitution": (0.4, 0.95)}


@pytest.fixture(scope="module")
def drop():
    t = np.linspace(0.002, 0.8, 400)   # three bounces
    prepared = prepare(RunSpec("ball-drop", resolve_parameters("ball-drop", TRUTH), t_end=0.8, samples=0))
    traj, _ = integrate(prepared, t_eval=t)
    height = prepared.model.observables["height"]
    y = np.array([height(prepared.system, traj.t[i], traj.x[i]) for i in np.searchsorted(traj.t, t)])
    noise = np.random.default_rng(1).normal(0.0, 0.01 * np.ptp(y), y.size)
    return Measurement(t, y + noise), noise


def test_recovers_stiffness_and_restitution(drop):
    data, noise = drop
    fit = ph.identify("ball-drop", data, ["stiffness", "restitution"], BOUNDS, observable="height", starts=2,
                      workers=0, progress=False)
    for name, truth in TRUTH.items():
        assert abs(fit.estimates[name] / truth - 1.0) < 0.02
        assert abs(fit.estimates[name] - truth) < 2.0 * fit.standard_errors[name]
    # the residuals are the noise: their spread is the noise's (1 % of the range), to 10 %
    assert np.std(fit.residuals) == pytest.approx(np.std(noise), rel=0.1)
    assert len(fit.starts) == 2 and all("error" not in s for s in fit.starts)


@pytest.mark.parametrize("kwargs, message", [
    (dict(parameters=["stiffness"], bounds={}), r"`bounds` must give \(lower, upper\) for every fitted parameter"),
    (dict(parameters=["stiffness"], bounds={"stiffness": (2.0, 1.0)}), r"`bounds` must be finite with lower < upper"),
    (dict(parameters=["stiffness"], bounds={"stiffness": 2.0}), r"`bounds` must map each fitted parameter to two"),
    (dict(parameters=["stiffness"], bounds={"stiffness": (1e4, 2e4)}, observable="depth"),
     r"`observable` 'depth' is not one of the model's: height, gap, vertical velocity"),
    (dict(parameters=["stifness"], bounds={"stifness": (1.0, 2.0)}), r"has no parameter 'stifness'"),
    (dict(parameters=[], bounds={}), r"`parameters` must name at least one parameter"),
])
def test_bad_input(drop, kwargs, message):
    with pytest.raises(ParameterError, match=message):
        ph.identify("ball-drop", drop[0], **{"observable": "height", **kwargs}, workers=0)


def test_bad_data():
    with pytest.raises(ParameterError, match=r"t must be increasing"):
        Measurement([0.0, 0.2, 0.1], [1.0, 2.0, 3.0])


def test_print_shows_a_summary_not_the_arrays():
    rng = np.random.default_rng(3)
    residuals = rng.normal(0.0, 1e-3, 5000)
    fit = Identification(("stiffness", "restitution"), {"stiffness": 10123.4, "restitution": 0.7012},
                         {"stiffness": 45.6, "restitution": 0.0021}, np.diag([45.6**2, 0.0021**2]), residuals,
                         0.5 * float(residuals @ residuals),
                         [{"x0": [1.0, 0.5], "cost": 1.0}, {"x0": [2.0, 0.6], "error": "RuntimeError: boom"}])
    text = str(fit)
    assert text == repr(fit)
    assert len(text.splitlines()) == 4 and len(text) < 400   # 5000 residuals, none printed
    assert "from 5000 points (2 starts, 1 failed)" in text
    assert "stiffness   = 10123.4 +/- 46 (0.45%)" in text
    assert "restitution = 0.7012 +/- 0.0021 (0.30%)" in text
    norm = np.sqrt(np.sum(residuals**2))   # independent of the repr's np.linalg.norm
    assert f"|r| = {norm:.6g}" in text and f"rms r = {norm / np.sqrt(5000):.6g}" in text
    assert f"cost |r|^2/2 = {fit.cost:.6g}" in text
