"""Time the porthamiltonian.lie hot-path kernels: ``python benchmarks/bench_lie.py``.

Prints microseconds per call (best of 5 repeats), one kernel per line.
"""

import timeit

import numpy as np

from porthamiltonian.lie import quaternion, se3, so3


def main():
    rng = np.random.default_rng(0)
    phi = rng.normal(size=3)
    xi = rng.normal(size=6)
    H = se3.exp(xi)
    R = H[:3, :3]
    x = quaternion.matrix_to_pose(H)
    q = x[:4]
    T = rng.normal(size=6)
    cases = {
        "so3.exp": lambda: so3.exp(phi),
        "so3.log": lambda: so3.log(R),
        "so3.right_jacobian": lambda: so3.right_jacobian(phi),
        "so3.right_jacobian_inverse": lambda: so3.right_jacobian_inverse(phi),
        "se3.exp": lambda: se3.exp(xi),
        "se3.log": lambda: se3.log(H),
        "se3.inverse": lambda: se3.inverse(H),
        "se3.Ad": lambda: se3.Ad(H),
        "se3.Ad_wrench": lambda: se3.Ad_wrench(H),
        "se3.ad": lambda: se3.ad(T),
        "se3.right_jacobian": lambda: se3.right_jacobian(xi),
        "se3.right_jacobian_inverse": lambda: se3.right_jacobian_inverse(xi),
        "quaternion.multiply": lambda: quaternion.multiply(q, q),
        "quaternion.to_matrix": lambda: quaternion.to_matrix(q),
        "quaternion.from_matrix": lambda: quaternion.from_matrix(R),
        "quaternion.pose_rate": lambda: quaternion.pose_rate(x, T),
        "quaternion.pose_to_matrix": lambda: quaternion.pose_to_matrix(x),
    }
    for name, fn in cases.items():
        n = 20000
        best = min(timeit.repeat(fn, number=n, repeat=5)) / n
        print(f"{name:32s} {1e6 * best:7.2f} us")


if __name__ == "__main__":
    main()
