"""The compliant contact's compiled chain, by stage (this module gathers their names, which the
rest of the package imports from here):

- `porthamiltonian.kernels.contact_pair`: the contact-pair stage, the exact contact pair of two
  packed surfaces at the bodies' poses, computed once per contact and evaluation (`evaluate`,
  `pair_state`, `frame_and_maps`, the culling test `separation`, the outcome codes `OK`,
  `FAILED`, `NEEDS_RECHART`);
- `porthamiltonian.kernels.contact_kinematics`: Gauss-map contact kinematics (Duindam &
  Stramigioli 2003: `kinematics`), the contact frame and its rates, relative poses and twists,
  the tracked parameters' rates, the compliant spring's rates and the sliding-plane bias;
- `porthamiltonian.kernels.contact_laws`: the laws evaluated on the pair (packed normal laws,
  local Hertz stiffness, spring efforts, damper, slip friction);
- `porthamiltonian.kernels.curvature`: the relative curvature and its rates.

Notation of docs/math.md sec. 5 (Duindam & Stramigioli, *Modeling the kinematics and dynamics
of compliant contact*, 2003): surfaces S1 (frame 1) and S2 (frame 2), ``H_12 = (R, d)``.
"""

from __future__ import annotations

from .contact_pair import (  # noqa: F401 (re-exported)
    _newton,
    _closed_form,
    pair_state,
    _pair_state_by_symbol,
    frame_and_maps,
    OK,
    FAILED,
    NEEDS_RECHART,
    evaluate,
    separation,
)
from .contact_kinematics import (  # noqa: F401 (re-exported)
    SANE_MARGIN,
    CHART_STEP,
    normal_rates,
    kinematics,
    frame,
    frame_rates,
    axes_rates,
    pair_pose,
    relative_pose,
    relative_twist,
    start_is_sane,
    _chart_jacobian,
    parameter_rates,
    _tracked_rates,
    _tracked_rates_by_symbol,
    spring_rates,
    sliding_plane_bias,
)
from .contact_laws import (  # noqa: F401 (re-exported)
    LAW_LINEAR,
    LAW_HERTZ,
    LAW_HUNT_CROSSLEY,
    LAW_GIVEN,
    LAW_LOCAL_HERTZ,
    HERTZ_MAX_RATIO,
    normal_force,
    normal_potential,
    resolve_law,
    local_hertz,
    spring_outputs,
    _capped,
    _norm2,
    damper_efforts,
    damper_port_efforts,
    twist_row,
    damper_jacobian,
    _slip_rate,
    slip_rates,
    slip_jacobian,
)
from .curvature import (  # noqa: F401 (re-exported)
    COMPLEX_STEP,
    _rot,
    curvature_invariants,
    _moved,
    curvature_rates,
)
