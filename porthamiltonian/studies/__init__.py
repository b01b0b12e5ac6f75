"""Studies: analyses that run a model many times (DESIGN.md, "Studies").

`gait`: Poincaré sections, the stride map (and the time-T map of a periodically driven
gait), its fixed point and Floquet multipliers, and the energy of every stride. `records`: one run as a pure function of its `RunSpec`, its
`summary.json` and `rerun`. `sweep`: many runs on Dask as rows of a table (Parquet).
`identify`: contact parameters fitted to a measured trajectory. `transport`: a driven gait's
energy by category (electrical, Joule, gearbox, contact, soil) and its cost of transport, split
into shares (`cost_shares`) and compared between two grounds (`compare_transport`).
"""

from .gait import (FixedPoint, PeriodMap, PoincareSection, StrideEnergy, StrideMap, fixed_point, newton_fixed_point,
                   stride_energy, stride_jacobian)
from .identify import Identification, Measurement, identify
from .records import RunSpec, rerun
from .sweep import grid_points, parse_range, sweep
from .transport import (CATEGORIES, GROUND, CostComparison, TransportEnergy, categorize, compare_transport, cost_shares,
                        joint_powers, stride_transport, transport_energy)

__all__ = ["PoincareSection", "StrideMap", "PeriodMap", "FixedPoint", "StrideEnergy", "fixed_point", "newton_fixed_point",
           "stride_jacobian",
           "stride_energy", "RunSpec", "rerun", "sweep", "grid_points", "parse_range", "identify", "Measurement",
           "Identification", "CATEGORIES", "TransportEnergy", "categorize", "joint_powers", "transport_energy",
           "GROUND", "CostComparison", "compare_transport", "cost_shares", "stride_transport"]
