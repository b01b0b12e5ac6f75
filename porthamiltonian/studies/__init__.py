"""Studies: analyses that run a model many times (DESIGN.md, "Studies").

`gait`: Poincaré sections, the stride map, its fixed point and Floquet multipliers, and the
energy of every stride.
"""

from .gait import FixedPoint, PoincareSection, StrideEnergy, StrideMap, fixed_point, stride_energy, stride_jacobian

__all__ = ["PoincareSection", "StrideMap", "FixedPoint", "StrideEnergy", "fixed_point", "stride_jacobian",
           "stride_energy"]
