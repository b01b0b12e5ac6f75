"""SO(3) and SE(3) for screw theory: hat, vee, exp, log, adjoints, Jacobians, quaternions.

The three modules share function names (``exp``, ``log``, ...), so they are used as
namespaces::

    from porthamiltonian.lie import se3, so3, quaternion
    H_WC = H_WB @ se3.exp(dt * T_WB_B)

Conventions: docs/math.md sec. 1 (twists ``(omega, v)``, wrenches ``(tau, f)``, ``H_AB`` maps
B coordinates to A, scalar-first Hamilton quaternions).
"""

from . import quaternion, se3, so3

__all__ = ["so3", "se3", "quaternion"]
