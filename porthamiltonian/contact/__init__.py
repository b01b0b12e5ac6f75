"""Contact between posed surfaces: kinematics, frames, sliding-plane and contact coordinates;
dynamics in contact coordinates (`reduced`); normal laws (`laws`), Hertz theory from materials and curvatures (`hertz`), damping from a
coefficient of restitution (`restitution`).

Pure functions on arrays. Conventions everywhere: bodies 1 and 2 with surfaces ``S1``, ``S2``
in their body frames; ``H_12 = (R, d)`` is the pose of body 2 in body 1; the relative twist
``(w, v)`` is body 2 relative to body 1 in frame 1 (``dR/dt = hat(w) R``, ``dd/dt = w x d +
v``); contact parameters ``x = (u1, v1, u2, v2)`` with ``charts = (chart1, chart2)``.
"""

from .coordinates import (
    ContactJacobian,
    contact_coordinate_jacobian,
    contact_coordinates,
    contact_pose,
)
from .frames import (
    ROLLING_PROJECTION,
    SLIDING_PROJECTION,
    ContactFrame,
    TwistSplit,
    contact_frame,
    patch_frame,
    split_twist,
    twist_projections,
)
from .hertz import effective_modulus, hertz_sphere_impact, hertz_stiffness, relative_curvature
from .kinematics import MAX_CONDITION, ContactKinematics, contact_kinematics, rechart
from .laws import LocalHertzLaw
from .materials import ContactMaterial, ElasticSolid
from .restitution import hunt_crossley_damping, hunt_crossley_restitution
from .reduced import ReducedDynamics, body_motion, reduced_coordinates_from, reduced_dynamics
from .soil import SoilLaw
from .sliding_plane import centripetal_accelerations, sliding_plane_rates

__all__ = [
    "MAX_CONDITION",
    "ROLLING_PROJECTION",
    "SLIDING_PROJECTION",
    "ContactFrame",
    "ContactJacobian",
    "ContactKinematics",
    "ContactMaterial",
    "ElasticSolid",
    "LocalHertzLaw",
    "ReducedDynamics",
    "SoilLaw",
    "TwistSplit",
    "body_motion",
    "centripetal_accelerations",
    "contact_coordinate_jacobian",
    "contact_coordinates",
    "contact_frame",
    "contact_kinematics",
    "effective_modulus",
    "hertz_sphere_impact",
    "hertz_stiffness",
    "hunt_crossley_damping",
    "hunt_crossley_restitution",
    "reduced_coordinates_from",
    "reduced_dynamics",
    "relative_curvature",
    "contact_pose",
    "patch_frame",
    "rechart",
    "sliding_plane_rates",
    "split_twist",
    "twist_projections",
]
