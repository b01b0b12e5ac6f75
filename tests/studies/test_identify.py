"""Identification (issue 15, acceptance 3): the stiffness and restitution of a synthetic ball
drop (compliant, linear law, generated with known values, Gaussian noise of 1 % of the height
range added, seeded) are recovered within 2 %, and the reported standard errors cover the
truth (within two of them: a 95 % interval)."""

import numpy as np
import pytest

import porthamiltonian as ph
from porthamiltonian.errors import ParameterError
from porthamiltonian.studies import Measurement
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
