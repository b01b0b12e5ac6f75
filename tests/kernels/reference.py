"""Independent references shared by the kernel tests: hat maps, the Hamilton product, random
poses and motions, and the pose along the exponential of a twist (scipy's expm)."""

import numpy as np
import scipy.linalg
from scipy.spatial.transform import Rotation


def hat3(w):
    return np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])


def hat4(T):
    X = np.zeros((4, 4))
    X[:3, :3] = hat3(T[:3])
    X[:3, 3] = T[3:]
    return X


def hamilton(p, q):
    pw, pv = p[0], p[1:]
    qw, qv = q[0], q[1:]
    return np.concatenate([[pw * qw - pv @ qv], pw * qv + qw * pv + np.cross(pv, qv)])


def random_quaternion(rng):
    """A nonzero, non-unit quaternion (the kernels normalize where they must)."""
    return rng.normal(size=4) * rng.uniform(0.5, 2.0)


def random_pose(rng):
    return np.concatenate([random_quaternion(rng), rng.normal(size=3)])


def random_motion(rng):
    H = np.eye(4)
    H[:3, :3] = Rotation.random(random_state=rng).as_matrix()
    H[:3, 3] = rng.normal(size=3)
    return H


def pose_along_twist(x0, T, t):
    """Pose at t of H(t) = H0 expm(t hat(T)), with the quaternion q0 ⊗ exp(t omega / 2)."""
    omega = T[:3]
    theta = np.linalg.norm(omega)
    q_step = np.r_[np.cos(0.5 * t * theta), np.sin(0.5 * t * theta) * omega / theta]
    H0 = np.eye(4)
    H0[:3, :3] = Rotation.from_quat(x0[:4], scalar_first=True).as_matrix()
    H0[:3, 3] = x0[4:]
    H = H0 @ scipy.linalg.expm(t * hat4(T))
    return np.concatenate([hamilton(x0[:4], q_step), H[:3, 3]])


def pose_matrix(x):
    """H = [[R(q/|q|), p], [0, 1]] of a pose vector, with scipy's rotation."""
    H = np.eye(4)
    H[:3, :3] = Rotation.from_quat(x[:4], scalar_first=True).as_matrix()
    H[:3, 3] = x[4:]
    return H


def adjoint(H):
    """Ad(H) = [[R, 0], [hat(p) R, R]]."""
    R, p = H[:3, :3], H[:3, 3]
    A = np.zeros((6, 6))
    A[:3, :3] = R
    A[3:, 3:] = R
    A[3:, :3] = hat3(p) @ R
    return A


def central(f, x, h=1e-7):
    """Jacobian of `f` at `x` by central differences of step `h`, column by column."""
    cols = []
    for j in range(x.size):
        e = np.zeros_like(x)
        e[j] = h
        cols.append((f(x + e) - f(x - e)) / (2 * h))
    return np.array(cols).T
