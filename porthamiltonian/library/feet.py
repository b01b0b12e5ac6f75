"""Feet: a body's soles, each with its own contact to the ground, as one component.

A foot is the set of contacts between one body and the ground through curved soles: one
sole (a sphere or ellipsoid under a leg, a NURBS sole), or several (a heel and a toe), each
a contact of the chosen kind (`library.contact`: compliant, sliding_plane, soil). The
component has the contacts' ports "a" (bond it from the foot body's "B" port) and "b" (from
the ground's), so a leg model swaps the ground model with one argument.

Soles must be strictly convex (both principal curvatures > 0 with the outward normal) where
they can touch: a contact is one point, tracked through the Gauss map, and a flat face or a
cylinder touches along a line or an area whose point is not defined. They are refused at
construction, with what to use instead (a slightly curved ellipsoid, or several soles).
The check samples every chart of the sole on a grid (a necessary condition: a sample cannot
prove convexity between its points).
"""

from __future__ import annotations

import numpy as np

from porthamiltonian.bondgraph.graph import BondGraph
from porthamiltonian.bondgraph.junctions import Junction1
from porthamiltonian.errors import ParameterError
from porthamiltonian.geometry import gauss
from porthamiltonian.geometry.surface import REGULARITY_TOL, Surface
from porthamiltonian.lie import se3

from .contacts import contact

__all__ = ["Foot", "heel_toe", "check_sole"]

#: grid points per chart side of the convexity check
SAMPLES = 12


def check_sole(name, surface):
    """Refuse a sole that is not strictly convex (module docstring).

    Raises
    ------
    ParameterError
        Not a `Surface`, or a sampled point with principal curvature k2 <= 0 (named, with
        the chart and parameters, and what to use instead).
    """
    if not isinstance(surface, Surface):
        raise ParameterError(f"sole {name!r} must be a Surface, got {surface!r}")
    for chart in range(surface.n_charts):
        dom = surface._domains[chart]
        # an unbounded chart (a plane's) is sampled on [-1, 1]^2 of its parameters
        lo, hi = np.maximum(dom.lower, -1.0), np.minimum(dom.upper, 1.0)
        for u in np.linspace(lo[0], hi[0], SAMPLES + 2)[1:-1].tolist():
            for v in np.linspace(lo[1], hi[1], SAMPLES + 2)[1:-1].tolist():
                D = surface._derivatives(u, v, 2, chart)
                if surface._regularity(D, chart) < REGULARITY_TOL:
                    continue
                k2 = gauss.principal_curvatures(D).k2
                if not k2 > 0.0:
                    raise ParameterError(
                        f"sole {name!r}: a {type(surface).__name__} is not strictly convex (principal curvature "
                        f"k2 = {k2:.3g} 1/m at (u, v) = ({u:.3g}, {v:.3g}), chart {chart}): a flat or cylindrical "
                        "sole touches along a line or an area, not at one point. Use a slightly curved sole (an "
                        "Ellipsoid with long axes, a convex NURBS patch) or several soles (heel_toe)")


def Foot(name, body, soles, ground, ground_surface, *, kind="compliant", ground_pose=None, material=None,
         **parameters):
    """A foot component: one contact of `kind` per sole between `body` and `ground`.

    Parameters
    ----------
    name : str
    body : RigidBody
        The foot's body.
    soles : dict
        Sole name -> `Surface` (at the body frame) or ``(Surface, pose)`` with the sole's
        pose (4, 4) in the body frame. Each sole's contact is named after it.
    ground : Ground or RigidBody
    ground_surface : Surface
        The ground's surface (a `Plane`, a B-spline height field, ...).
    kind : str
        Contact kind of every sole (`library.contact`).
    ground_pose : array_like (4, 4), optional
        Pose of the ground surface in the ground's frame (e.g. an inclined plane).
    material : ContactMaterial, optional
    **parameters
        The contact kind's own parameters, the same for every sole.

    Returns
    -------
    BondGraph
        Component with ports "a" (foot body) and "b" (ground).

    Raises
    ------
    ParameterError
        No soles, a sole that is not strictly convex (`check_sole`), or what `contact`
        refuses.
    """
    if not isinstance(soles, dict) or not soles:
        raise ParameterError(f"foot {name!r}: `soles` must be a non-empty dict sole name -> Surface or "
                             f"(Surface, pose), got {soles!r}")
    g = BondGraph(name)
    ja, jb = Junction1("ja", dim=6), Junction1("jb", dim=6)
    g.add(ja, jb)
    for sole, spec in soles.items():
        surface, pose = (spec, None) if isinstance(spec, Surface) else spec
        check_sole(sole, surface)
        c = contact(kind, sole, body, surface, ground, ground_surface, pose_a=pose, pose_b=ground_pose,
                    material=material, **parameters)
        g.add(c)
        g.connect(ja, (sole, "a"))
        g.connect(jb, (sole, "b"))
    g.expose("a", ja)
    g.expose("b", jb)
    return g


def heel_toe(heel, toe, *, heel_at, toe_at):
    """The `soles` of a foot with a heel and a toe: ``{"heel": (heel, pose), "toe": (toe, pose)}``.

    Parameters
    ----------
    heel, toe : Surface
        The two soles (e.g. spheres).
    heel_at, toe_at : array_like (3,) [m]
        Their centres in the foot body's frame.
    """
    return {"heel": (heel, se3.make(np.eye(3), np.asarray(heel_at, float))),
            "toe": (toe, se3.make(np.eye(3), np.asarray(toe_at, float)))}
