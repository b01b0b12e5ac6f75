"""The cost of transport's shares (`cost_shares`, `compare_transport`, `stride_transport`) on
ledgers written by hand: every number below is worked out in the comments."""

import numpy as np
import pytest

from porthamiltonian.errors import ParameterError
from porthamiltonian.studies.gait import StrideEnergy
from porthamiltonian.studies.transport import compare_transport, cost_shares, stride_transport

LABELS = {"pd/reference": "Sf:pd/reference", "pd/damper": "R:pd/damper", "c/plastic": "PlasticFlow:c/plastic",
          "c/slip": "SoilSlip:c/slip", "g/slip": "SlipFriction:g/slip"}
ELEMENTS = list(LABELS)


def _strides(supplied, dissipated, H):
    z = np.zeros_like(supplied)
    stored = np.zeros_like(supplied)
    residual = (np.diff(H) - supplied.sum(1) + dissipated.sum(1))
    return StrideEnergy(np.array([0.0, 0.3, 0.6]), np.asarray(H, dtype=float), ELEMENTS, LABELS, stored, supplied,
                        dissipated, z, z, residual)


def test_shares_of_hand_ledgers_and_their_difference():
    # stride 1: the reference supplies 10 J; the PD damper takes 6, the soil's plastic flow 2.5
    # and its slip 1, 0.5 J is stored (H 1 -> 1.5): closed, residual 0.
    # stride 2: 12 J supplied; 7 + 3 + 1.5 dissipated; H 1.5 -> 1.5; residual 0.5 J unbooked
    supplied = np.array([[10.0, 0, 0, 0, 0], [12.0, 0, 0, 0, 0]])
    dissipated = np.array([[0, 6.0, 2.5, 1.0, 0], [0, 7.0, 3.0, 1.5, 0]])
    strides = _strides(supplied, dissipated, [1.0, 1.5, 1.5])
    mass, g = 2.0, 10.0
    s1, s2 = stride_transport(strides, mass=mass, distances=[0.5, 0.4], g=g)
    # m g d = 10 and 8 J: CoT 1.0 and 1.5
    assert s1.cost_of_transport == pytest.approx(1.0, rel=1e-15)
    assert s2.cost_of_transport == pytest.approx(1.5, rel=1e-15)
    a = cost_shares(s1)
    assert (a["controller"], a["soil"], a["stored"], a["residual"]) == pytest.approx((0.6, 0.35, 0.05, 0.0), abs=1e-15)
    b = cost_shares(s2)
    # residual of stride 2: dH - S + D = 0 - 12 + 11.5 = -0.5 J, its share -(-0.5) / 8
    assert (b["controller"], b["soil"], b["stored"], b["residual"]) == pytest.approx((0.875, 0.5625, 0.0, 0.0625),
                                                                                     abs=1e-15)
    assert sum(b.values()) == pytest.approx(1.5, rel=1e-15)
    c = compare_transport(s1, s2)
    assert c.difference == pytest.approx(0.5, rel=1e-15)
    assert c.ground == pytest.approx(0.5625 - 0.35, abs=1e-15)        # soil plastic + slip shares
    assert c.rest == pytest.approx((0.875 - 0.6) + (0.0 - 0.05), abs=1e-15)
    assert c.closure == pytest.approx(0.0625, abs=1e-15)              # the unbooked 0.5 J over 8 J


def test_stride_transport_refuses_bad_input_by_name():
    strides = _strides(np.ones((2, 5)), np.ones((2, 5)), [0.0, 0.0, 0.0])
    with pytest.raises(ParameterError, match=r"`distances` must be 2 positive numbers \(one per stride\), got \[0.5\]"):
        stride_transport(strides, mass=1.0, distances=[0.5])
    with pytest.raises(ParameterError, match=r"`distances` must be 2 positive .* got \[0.5, -1.0\]"):
        stride_transport(strides, mass=1.0, distances=[0.5, -1.0])
    with pytest.raises(ParameterError, match=r"`mass` must be a positive finite number, got 0.0"):
        stride_transport(strides, mass=0.0, distances=[0.5, 0.5])
