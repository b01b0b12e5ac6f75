"""Uniform gravity as stored potential energy of a body (a C-type element on the body's pose)."""

from __future__ import annotations

import numpy as np

from porthamiltonian._validate import as_array
from porthamiltonian.bondgraph.element import StorageElement, register_element
from porthamiltonian.bondgraph.ports import Port
from porthamiltonian.errors import ParameterError
from porthamiltonian.lie import quaternion

from .rigid_body import RigidBody, _cross, _rate_map, pose_gradient

__all__ = ["Gravity"]


@register_element
class Gravity(StorageElement):
    """Potential energy V = -m g . p_com(H_WB) of a body in a uniform field g.

    Bond it to the body's frame port it is given (default "B")::

        bg.connect(body.frame("B").port, gravity)     # power flows from the body into the field

    It stores energy as a function of the body's pose (it reads the pose; it has no state of
    its own, so nothing is integrated twice) and imposes at its port the effort
    e = -W_g, the negative of the gravity wrench on the body expressed in the port frame,
    so that e . T = dV/dt (power into the potential).

    Structure on z = (pose of the body): J = 0, B = K(pose) (the pose-rate map), so
    y = K^T grad V = e.

    Parameters
    ----------
    name : str
    body : RigidBody
    g : array_like, shape (3,) [m/s^2]
        Gravitational acceleration in world coordinates (default (0, 0, -9.81)).
    frame : str
        The body frame whose port this element is bonded to (default "B").
    """

    type_name = "Gravity"

    def __init__(self, name, body, g=(0.0, 0.0, -9.81), *, frame="B"):
        super().__init__(name)
        if not isinstance(body, RigidBody):
            raise ParameterError(f"`{name}.body` must be a RigidBody, got {body!r}")
        self.body = body
        self.g = as_array(g, f"{name}.g", (3,))
        self.frame_name = frame
        self.fr = body.frame(frame)
        self._AdFB = body._Ad[frame]
        self._AdBF_T = np.linalg.inv(self._AdFB).T  # wrench from the body frame to the port frame

    def ports(self):
        return (Port("p", 6, "in", frame=self.fr.label),)

    def port_types(self):
        return ("C",)

    def port_bindings(self):
        return {"p": (self.body, self.frame_name)}

    def state_refs(self):
        return self.fr.refs()

    def _rot(self, pose):
        return quaternion.to_matrix(pose[:4])

    def energy(self, x, refs):
        pose = refs[0]
        R = self._rot(pose)
        p_com = R @ self.body.com + pose[4:]
        return -self.body.mass * float(self.g @ p_com)

    def outputs(self, t, x, refs):
        R = self._rot(refs[0])
        f_B = self.body.mass * (R.T @ self.g)
        W_B = np.concatenate((_cross(self.body.com, f_B), f_B))  # gravity wrench on the body, body frame
        # in the port frame F: W_F = Ad(H_FB)^-T W_B = Ad(H_BF)^T W_B
        return (-(self._AdBF_T @ W_B),)

    def rates(self, t, x, refs, inputs):
        return np.zeros(0)

    def input_matrix(self, t, x, refs):
        return np.zeros((0, 6))

    def output_jacobian(self, t, x, refs):
        return np.zeros((6, 0))

    def gradient(self, x, refs):
        # dV/dT_B = effort in the body frame = Ad(H_FB)^T e_F
        return pose_gradient(refs[0], self._AdFB.T @ self.outputs(0.0, x, refs)[0])

    def structure(self, t, x, refs):
        K = _rate_map(refs[0])
        return np.zeros((7, 7)), K @ np.linalg.inv(self._AdFB)

    def parameters(self):
        return {"body": self.body, "g": self.g.tolist(), "frame": self.frame_name}
