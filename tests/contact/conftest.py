"""Surface pairs with their independent closest-point references, shared by the contact tests."""

from typing import Callable, NamedTuple

import numpy as np
import pytest

from porthamiltonian.lie import se3

from . import reference as ref

PAIR_NAMES = ["ellipsoid/ellipsoid", "plane/ellipsoid", "plane/torus", "nurbs/sphere"]


class Pair(NamedTuple):
    """Surfaces, a reference ``solve(H_12, charts) -> Reference`` and sample poses."""

    S1: object
    S2: object
    solve: Callable
    cases: list


@pytest.fixture(scope="session")
def pairs():
    projector = ref.PatchProjector(ref.terrain())
    E1, E2 = ref.ellipsoids()
    P, T, B = ref.ground(), ref.torus(), ref.ball()
    return {
        "ellipsoid/ellipsoid": Pair(E1, E2, lambda H, ch: ref.ellipsoid_pair(E1, E2, H, ch),
                                    ref.ellipsoid_cases(12, 21, deepest=-0.12)),
        "plane/ellipsoid": Pair(P, E1, lambda H, ch: ref.plane_ellipsoid(P, E1, H, ch),
                                ref.plane_ellipsoid_cases(12, 22)),
        "plane/torus": Pair(P, T, lambda H, ch: ref.plane_torus(P, T, H),
                            ref.plane_torus_cases(12, 23)),
        "nurbs/sphere": Pair(projector.S, B, lambda H, ch: ref.patch_ball(projector, B, H, ch),
                             ref.patch_ball_cases(12, 24, projector)),
    }


@pytest.fixture(params=PAIR_NAMES)
def pair(request, pairs):
    return pairs[request.param]


def parameter_difference(S1, S2, charts, a, b):
    """``a - b`` for parameter vectors (u1, v1, u2, v2), periodic directions wrapped."""
    out = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    for k, (S, chart) in enumerate(((S1, charts[0]), (S1, charts[0]), (S2, charts[1]),
                                    (S2, charts[1]))):
        dom = S.domain(chart)
        if dom.periodic[k % 2]:
            per = dom.period[k % 2]
            out[k] = (out[k] + 0.5 * per) % per - 0.5 * per
    return out


def moved(H, T, t):
    """``exp(t hat(T)) H``: the pose after moving with the constant frame-1 twist T for time t."""
    return se3.exp(t * np.asarray(T, dtype=float)) @ H


def shifted_to_contact(H, r):
    """The pose translated along n1 so that the same pair touches (Delta = 0)."""
    H0 = H.copy()
    H0[:3, 3] -= r.distance * r.n1
    return H0
