"""Parametric surfaces in body frames: evaluation, Gauss map, curvature and charts."""

from .bezier import BezierPatch
from .bspline import BSplineSurface
from .closest import (
    ClosestPoints,
    GlobalCheck,
    PointProjection,
    check_global,
    closest_points,
    closest_points_world,
    project_point,
)
from .cylinder import Cylinder
from .domain import ParameterDomain
from .ellipsoid import Ellipsoid
from .gauss import (
    PrincipalCurvatures,
    first_fundamental_form,
    normal_derivatives,
    principal_curvatures,
    second_fundamental_form,
    shape_operator,
    unit_normal,
)
from .network import PatchNetwork
from .plane import Plane
from .point import Point, PointContact, point_contact
from .spec import surface_from_spec, surface_to_spec
from .sphere import Sphere
from .surface import REGULARITY_TOL, Surface, SupportPoint, SurfaceFrame, SurfaceSample
from .symbolic import SymbolicSurface
from .tessellate import SurfaceMesh, tessellate
from .torus import Torus

__all__ = [
    "BSplineSurface",
    "BezierPatch",
    "ClosestPoints",
    "Cylinder",
    "Ellipsoid",
    "GlobalCheck",
    "ParameterDomain",
    "PatchNetwork",
    "Plane",
    "Point",
    "PointContact",
    "PointProjection",
    "PrincipalCurvatures",
    "REGULARITY_TOL",
    "Sphere",
    "Surface",
    "SupportPoint",
    "SurfaceFrame",
    "SurfaceMesh",
    "SurfaceSample",
    "SymbolicSurface",
    "Torus",
    "check_global",
    "closest_points",
    "closest_points_world",
    "first_fundamental_form",
    "normal_derivatives",
    "principal_curvatures",
    "point_contact",
    "project_point",
    "second_fundamental_form",
    "shape_operator",
    "unit_normal",
    "tessellate",
    "surface_from_spec",
    "surface_to_spec",
]
