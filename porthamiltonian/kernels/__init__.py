"""Compiled numerical kernels of the hot path (numba ``@njit(cache=True)``).

Pure functions on float64/int64 arrays and scalars: no Python objects, no validation (that
happens at the public API's boundary), output buffers passed in where an allocation can be
avoided. The public API (`porthamiltonian.geometry`, `porthamiltonian.contact`,
`porthamiltonian.library`) calls these same kernels after validating its arguments, so one
implementation serves both the tests of the public API and the generated right-hand side.

Modules: `lie` (quaternions, SO(3), SE(3)), `surfaces` (evaluation of the built-in surface
kinds by integer kind code and packed parameters), `closest` (closed forms, bounding tests,
warm-started Newton refinement), `contact` (Gauss-map contact kinematics, contact frame and
its rates), `bodies` (rigid-body rates, gravity, springs and dampers).
"""
