"""Uniform gravity as stored potential energy of a body (a C-type element on the body's pose)."""

from __future__ import annotations

import numpy as np

from porthamiltonian._validate import as_array
from porthamiltonian.bondgraph.element import Kernel, StorageElement, register_element
from porthamiltonian.bondgraph.ports import Port
from porthamiltonian.errors import ParameterError
from porthamiltonian.kernels import bodies as _kernels
from porthamiltonian.kernels.lie import pose_rate_map

from .rigid_body import _NO_INTS, RigidBody

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
        self._AdBF = np.linalg.inv(body._Ad[frame])  # Ad(H_BF): port-frame twist to body frame
        self._F = _kernels.pack_gravity(body.mass, self.g, body.com, body._Ad[frame], self._AdBF)

    def ports(self):
        return (Port("p", 6, "in", frame=self.fr.label),)

    def port_types(self):
        return ("C",)

    def port_bindings(self):
        return {"p": (self.body, self.frame_name)}

    def state_refs(self):
        return self.fr.refs()

    # ---- kernels (porthamiltonian.kernels.bodies on the packed parameters `_F`)
    def energy(self, x, refs):
        return _kernels.gravity_energy(self._F, refs[0])

    def outputs(self, t, x, refs):
        return (_kernels.gravity_effort(self._F, refs[0]),)

    def kernel(self, role):
        return Kernel(_kernels.gravity_outputs, self._F, _NO_INTS) if role == "outputs" else None

    def rates(self, t, x, refs, inputs):
        return np.zeros(0)

    def input_matrix(self, t, x, refs):
        return np.zeros((0, 6))

    def output_jacobian(self, t, x, refs):
        return np.zeros((6, 0))

    def gradient(self, x, refs):
        return _kernels.gravity_gradient(self._F, refs[0])

    def structure(self, t, x, refs):
        return np.zeros((7, 7)), pose_rate_map(refs[0]) @ self._AdBF

    def parameters(self):
        return {"body": self.body, "g": self.g.tolist(), "frame": self.frame_name}
