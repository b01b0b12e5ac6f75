"""Metrics of a sweep's runs against closed forms of the ball drop (h0 = 0.25 m above the
contact height, g = 9.81 m/s^2, e = 0.7, m = 1 kg, k = 1e5 N/m)."""

import math

import numpy as np
import pytest

from porthamiltonian.errors import ParameterError
from porthamiltonian.studies import sweep
from porthamiltonian.studies.metrics import MaxNormalForce, ObservableExtreme, TimeToRest, metric

G, H0, E = 9.81, 0.25, 0.7
V1 = math.sqrt(2.0 * G * H0)


def test_rigid_drop_rest_time_and_static_force():
    """Sliding plane: the kinetic energy last exceeds 1e-3 J just before the impact whose
    incoming speed is the last above sqrt(2e-3) m/s (the 11th); at rest the normal force is mg."""
    table = sweep("ball-drop", points=[{"contact": "sliding_plane"}], t_end=1.5, samples=301, workers=0,
                  progress=False, metrics={"rest": TimeToRest(1e-3), "force": MaxNormalForce()})
    k = max(j for j in range(1, 40) if V1 * E ** (j - 1) > math.sqrt(2e-3))
    impact = V1 / G + 2.0 * V1 / G * sum(E**j for j in range(1, k))
    assert k == 11
    assert table["metric.rest"][0] == pytest.approx(impact, abs=1e-7)   # an event time: located to 1e-7 s
    assert table["metric.force"][0] == pytest.approx(G, rel=1e-9)


def test_compliant_drop_penetration():
    """Linear law: the first impact is a damped oscillator about the static load mg/k, from
    delta = 0 at speed V1; the largest penetration is its first maximum (sampled every 10 us,
    which misses the peak by far less than the tolerance)."""
    stiffness = 1e5
    table = sweep("ball-drop", points=[{"stiffness": stiffness}], t_end=0.24, samples=24001, workers=0,
                  progress=False, metrics={"gap": ObservableExtreme("gap", "min")})
    w = math.sqrt(stiffness)
    zeta = -math.log(E) / math.sqrt(math.pi**2 + math.log(E) ** 2)
    wd = w * math.sqrt(1.0 - zeta**2)
    static = G / stiffness
    t = np.linspace(0.0, math.pi / wd, 200001)
    delta = static + np.exp(-zeta * w * t) * (-static * np.cos(wd * t) + (V1 - zeta * w * static) / wd * np.sin(wd * t))
    assert -table["metric.gap"][0] == pytest.approx(delta.max(), rel=1e-6)


@pytest.mark.parametrize("name, cls", [("time_to_rest", TimeToRest), ("max_normal_force", MaxNormalForce),
                                       ("min:gap", ObservableExtreme)])
def test_metric_names(name, cls):
    assert isinstance(metric(name), cls)


def test_bad_metrics():
    with pytest.raises(ParameterError, match=r"unknown metric 'fastest'; use one of time_to_rest, max_normal_force"):
        metric("fastest")
    with pytest.raises(ParameterError, match=r"metric min:depth: model 'ball-drop' has no observable 'depth'"):
        sweep("ball-drop", {"stiffness": [1e4]}, metrics={"d": metric("min:depth")}, workers=0, progress=False)
