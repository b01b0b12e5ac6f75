"""Microseconds per contact evaluation for one contact: ``python benchmarks/bench_contact.py``.

Two pairs: ellipsoid/ellipsoid (analytic surfaces) and NURBS/plane (a bicubic rational
10 x 10 dome under a tilted plane). For each: the public, validated calls a simulation makes per
right-hand side (kinematics, sliding-plane speeds and centripetal terms, contact frame and
twist split, Kry & Pai H with dH/dt), the sum of those, the warm-started Newton refinement
after a small pose change, and one global search. Best of several repeats.
"""

import timeit

import numpy as np

from porthamiltonian.contact import (
    centripetal_accelerations,
    contact_coordinate_jacobian,
    contact_coordinates,
    contact_frame,
    contact_kinematics,
    contact_pose,
    sliding_plane_rates,
    split_twist,
)
from porthamiltonian.geometry import BSplineSurface, Ellipsoid, Plane, closest_points
from porthamiltonian.lie import se3


def bicubic_dome():
    rng = np.random.default_rng(0)
    n = 10
    x, y = np.meshgrid(np.linspace(0, 1, n), np.linspace(0, 1, n), indexing="ij")
    P = np.stack((x, y, 0.3 - 0.8 * ((x - 0.5) ** 2 + (y - 0.5) ** 2)), axis=-1)
    knots = np.r_[np.zeros(4), np.linspace(0, 1, n - 2)[1:-1], np.ones(4)]
    return BSplineSurface(knots, knots, 3, 3, P, rng.uniform(0.5, 2.0, (n, n)))


def per_call_us(fun, number=2000, repeat=5):
    return min(timeit.repeat(fun, number=number, repeat=repeat)) / number * 1e6


def cases():
    """(name, S1, S2, H_12) at a separated pose."""
    flip = np.diag((1.0, -1.0, -1.0))                 # the plane faces down onto the patch
    return [
        ("ellipsoid/ellipsoid", Ellipsoid(1.0, 0.6, 0.4), Ellipsoid(0.5, 0.7, 0.3),
         se3.exp(np.array((0.3, -0.2, 0.5, 1.1, 0.6, 0.4)))),
        ("NURBS/plane", bicubic_dome(), Plane(),
         se3.make(se3.exp(np.array((0.1, 0.05, 0.0, 0, 0, 0)))[:3, :3] @ flip,
                  np.array((0.5, 0.5, 0.4)))),
    ]


def main():
    rng = np.random.default_rng(1)
    for name, S1, S2, H in cases():
        cp = closest_points(S1, S2, H)
        x, ch = cp.x, cp.charts
        T = rng.normal(size=6)
        rates = contact_kinematics(S1, S2, x, H, T, charts=ch).x_rate
        # contact coordinates of the touching pose with the same contact pair
        H0 = H.copy()
        H0[:3, 3] -= cp.distance * cp.n1
        q = contact_coordinates(S1, S2, x, H0, charts=ch)
        dq = rng.normal(size=5)
        calls = {
            "contact_kinematics": lambda: contact_kinematics(S1, S2, x, H, T, charts=ch),
            "sliding_plane_rates": lambda: sliding_plane_rates(S1, S2, x, H0, T, charts=ch),
            "centripetal_accelerations": lambda: centripetal_accelerations(S1, S2, x, rates,
                                                                           charts=ch),
            "contact_frame + split_twist": lambda: split_twist(
                T, contact_frame(S1, S2, x, H, charts=ch, alpha=0.5).H_1C),
            "contact_coordinate_jacobian": lambda: contact_coordinate_jacobian(
                S1, S2, q, charts=ch, q_rate=dq),
            "contact_pose": lambda: contact_pose(S1, S2, q, charts=ch),
        }
        print(f"{name}: Delta = {cp.distance:.4f} m, charts {ch}")
        total = 0.0
        for label, fun in calls.items():
            t = per_call_us(fun)
            total += t
            print(f"  {label:<34}{t:>9.1f} us")
        print(f"  {'all of the above':<34}{total:>9.1f} us")
        # warm-started refinement after one simulation step (pose change ~1e-3)
        steps = [se3.exp(1e-3 * rng.normal(size=6)) @ H for _ in range(20)]
        its = [closest_points(S1, S2, Hs, x0=x, charts=ch).iterations for Hs in steps]
        t = per_call_us(lambda: [closest_points(S1, S2, Hs, x0=x, charts=ch) for Hs in steps],
                        number=50) / len(steps)
        print(f"  {'closest_points, warm start':<34}{t:>9.1f} us  "
              f"({min(its)}-{max(its)} Newton iterations)")
        t0 = per_call_us(lambda: closest_points(S1, S2, H, x0=x, charts=ch))
        print(f"  {'closest_points, converged start':<34}{t0:>9.1f} us")
        tg = per_call_us(lambda: closest_points(S1, S2, H), number=5, repeat=3)
        print(f"  {'closest_points, global search':<34}{tg:>9.1f} us")


if __name__ == "__main__":
    main()
