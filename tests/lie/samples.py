"""Seeded sample inputs shared by the lie tests: angles at 0, near 0, near pi and exactly pi."""

import numpy as np
import pytest

PI = np.pi

# Angles [rad] that exercise every branch: exactly 0, both sides of each small-angle series
# threshold (1e-4, 0.7, 1, 1.2), the closed forms, the near-pi branch of so3.log
# (cos < -0.6) and exactly pi.
ANGLES = {
    "0": 0.0,
    "1e-12": 1e-12,
    "1e-8": 1e-8,
    "1e-5": 1e-5,
    "9e-5": 9e-5,
    "1.1e-4": 1.1e-4,
    "1e-3": 1e-3,
    "0.1": 0.1,
    "0.69": 0.69,
    "0.71": 0.71,
    "0.99": 0.99,
    "1.19": 1.19,
    "1.21": 1.21,
    "2": 2.0,
    "2.2": 2.2,
    "3": 3.0,
    "pi-1e-3": PI - 1e-3,
    "pi-1e-6": PI - 1e-6,
    "pi-1e-9": PI - 1e-9,
    "pi": PI,
}


def unit(rng):
    v = rng.normal(size=3)
    return v / np.linalg.norm(v)


def rotvec_cases(*, include_pi=True, n_random=12, seed=20240611):
    """Return pytest params of rotation vectors: each special angle on a random axis, the
    coordinate axes at pi and near pi (each Shepperd/near-pi branch), and uniform samples
    with angle in (0, pi)."""
    rng = np.random.default_rng(seed)
    cases = []
    for name, theta in ANGLES.items():
        if theta == PI and not include_pi:
            continue
        cases.append(pytest.param(theta * unit(rng), id=f"theta={name}"))
    for k, axis in enumerate("xyz"):
        e = np.zeros(3)
        e[k] = 1.0
        cases.append(pytest.param((PI - 1e-7) * e, id=f"pi-1e-7 about {axis}"))
        if include_pi:
            cases.append(pytest.param(PI * e, id=f"pi about {axis}"))
    for i in range(n_random):
        cases.append(pytest.param(rng.uniform(0.0, PI) * unit(rng), id=f"random{i}"))
    return cases


def twist_cases(*, include_pi=True, n_random=12, seed=20240612):
    """Return pytest params of 6-vectors (phi, rho) with the rotation parts of
    `rotvec_cases` and seeded random translation parts (including a zero one)."""
    rng = np.random.default_rng(seed)
    cases = []
    for i, p in enumerate(rotvec_cases(include_pi=include_pi, n_random=n_random)):
        phi = p.values[0]
        rho = np.zeros(3) if i == 0 else 1.5 * rng.normal(size=3)
        cases.append(pytest.param(np.concatenate([phi, rho]), id=p.id))
    return cases
