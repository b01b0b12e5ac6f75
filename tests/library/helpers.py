"""Reference kinematics for the library tests, written independently of `porthamiltonian.lie`.

Rotations come from scipy, exponentials from `scipy.linalg.expm` of the 4x4 twist matrix,
adjoints from their textbook block formulas (MATH.md sec. 1); nothing here calls the
product's Lie-group code, so comparisons against it are comparisons against a second
implementation.
"""

import numpy as np
from scipy.linalg import expm
from scipy.spatial.transform import Rotation

#: accurate integration used by the simulation tests; errors are measured in units of RTOL
RTOL, ATOL = 1e-10, 1e-12
TIGHT = dict(rtol=RTOL, atol=ATOL, method="DOP853")


def skew(w):
    return np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])


def unskew(W):
    return 0.5 * np.array([W[2, 1] - W[1, 2], W[0, 2] - W[2, 0], W[1, 0] - W[0, 1]])


def pose(R, p):
    """4x4 homogeneous matrix from R (3, 3) and p (3,)."""
    H = np.eye(4)
    H[:3, :3] = R
    H[:3, 3] = p
    return H


def inv(H):
    R, p = H[:3, :3], H[:3, 3]
    return pose(R.T, -R.T @ p)


def twist_matrix(T):
    """4x4 matrix of a twist (omega, v)."""
    X = np.zeros((4, 4))
    X[:3, :3] = skew(T[:3])
    X[:3, 3] = T[3:]
    return X


def expse3(T):
    return expm(twist_matrix(T))


def Ad(H):
    """Twist adjoint [[R, 0], [hat(p) R, R]]."""
    R, p = H[:3, :3], H[:3, 3]
    A = np.zeros((6, 6))
    A[:3, :3] = R
    A[3:, 3:] = R
    A[3:, :3] = skew(p) @ R
    return A


def ad(T):
    """Twist Lie bracket matrix [[hat(w), 0], [hat(v), hat(w)]]."""
    A = np.zeros((6, 6))
    A[:3, :3] = skew(T[:3])
    A[3:, 3:] = skew(T[:3])
    A[3:, :3] = skew(T[3:])
    return A


def rot(rotvec):
    return Rotation.from_rotvec(rotvec).as_matrix()


def random_rotation(rng):
    return Rotation.random(random_state=rng).as_matrix()


def random_pose(rng, scale=1.0):
    return pose(random_rotation(rng), scale * rng.normal(size=3))


def pose7(H):
    """(qw, qx, qy, qz, px, py, pz) of a 4x4 pose (scipy quaternion, scalar first)."""
    x, y, z, w = Rotation.from_matrix(H[:3, :3]).as_quat()
    return np.array([w, x, y, z, *H[:3, 3]])


def matrix7(x):
    """4x4 pose of a pose 7-vector (quaternion normalized)."""
    q = np.asarray(x[:4], float)
    return pose(Rotation.from_quat([q[1], q[2], q[3], q[0]]).as_matrix(), x[4:7])


def spd(rng, n, scale, cond=4.0):
    """Random symmetric positive definite n x n matrix with eigenvalues in [scale, cond*scale]."""
    Q, _ = np.linalg.qr(rng.normal(size=(n, n)))
    return scale * (Q * rng.uniform(1.0, cond, size=n)) @ Q.T


def two_exp_motion(H0, xi, eta):
    """Smooth motion H(t) = H0 exp(t xi) exp(t eta) with its body twist and twist rate.

    H^-1 dH/dt = Ad(exp(-t eta)) xi + eta, so T(t) = Ad(exp(-t eta)) xi + eta and
    dT/dt = -ad(eta) Ad(exp(-t eta)) xi. Returns t -> (H, T, dT/dt), the signature of the
    joints' prescribed marker motions.
    """
    xi, eta = np.asarray(xi, float), np.asarray(eta, float)

    def motion(t):
        E2 = expse3(t * eta)
        Tx = Ad(inv(E2)) @ xi
        return H0 @ expse3(t * xi) @ E2, Tx + eta, -ad(eta) @ Tx

    return motion


def derivative(f, t, h):
    """Fourth-order central difference of f at t (error ~ h^4 f^(5) / 30)."""
    return (8.0 * (f(t + h) - f(t - h)) - (f(t + 2 * h) - f(t - 2 * h))) / (12.0 * h)
