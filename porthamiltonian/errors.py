"""The exception hierarchy of porthamiltonian.

Every error raised on purpose by the package derives from `PortHamiltonianError`.
Errors about user input are also `ValueError` (or `TypeError`), so that generic
handlers keep working; errors about the order of operations are `RuntimeError`.
"""

__all__ = [
    "PortHamiltonianError",
    "ModelError",
    "BondError",
    "ParameterError",
    "CausalityError",
    "PhaseError",
    "IntegrationError",
    "GeometryError",
    "SerializationError",
    "RobotFileError",
    "RecordChangedError",
    "RecordChangedWarning",
    "ContactWarning",
    "IntegrationWarning",
    "RobotFileWarning",
    "AuditWarning",
    "AuditError",
]


class PortHamiltonianError(Exception):
    """Base class of every error raised by porthamiltonian."""


class ModelError(PortHamiltonianError, ValueError):
    """Raised when a model, an element or its input is ill-formed."""


class BondError(ModelError):
    """Raised when a bond cannot be made: unknown port, dimension or frame mismatch, port used twice."""


class ParameterError(ModelError):
    """Raised when a parameter has the wrong shape, is not finite or breaks a physical rule."""


class CausalityError(PortHamiltonianError):
    """Raised when causality cannot be assigned and the conflict cannot be resolved."""


class PhaseError(PortHamiltonianError, RuntimeError):
    """Raised when an operation is called in the wrong phase (e.g. editing a compiled graph)."""


class IntegrationError(PortHamiltonianError, RuntimeError):
    """Raised when a simulation fails: says when, where and why."""


class GeometryError(ModelError):
    """Raised for degenerate geometry: non-regular parametrization, parameters outside the domain,
    singular contact kinematics (conforming contact)."""


class SerializationError(ModelError):
    """Raised when a saved graph cannot be read back (unknown element type, bad format)."""


class RobotFileError(ModelError):
    """Raised when a robot file (URDF, MJCF) cannot be read into a kinematic tree: not XML, a
    broken link reference, a cycle, an unknown joint type, a non-physical inertia; the message
    names the file, the element and the rule."""


class RecordChangedError(PortHamiltonianError, RuntimeError):
    """Raised when a recorded run is asked again but what it ran has changed since: its model
    file's bytes or the package versions differ from the record (`studies.records.rerun`)."""


class RecordChangedWarning(UserWarning):
    """A recorded run run again, on request, although its model file or versions changed."""


class ContactWarning(UserWarning):
    """A contact set up in a way that is valid but probably not what was meant (a unilateral
    contact starting detached a hair above its surface)."""


class IntegrationWarning(UserWarning):
    """An integration that runs but will cost far more than it needs to (a stiff model on an
    explicit method)."""


class RobotFileWarning(UserWarning):
    """A robot file read with something left out that the dynamics do not need (a mesh file
    that cannot be found: the link keeps its inertia, the shape is dropped)."""


class AuditWarning(IntegrationWarning):
    """A run that reached its end but fails the energy audit: its ledger residual exceeds what
    the tolerances allow, an element generates energy it should dissipate, or a contact went
    beyond the range where its law holds (`Trajectory.warnings` lists them, status 2)."""


class AuditError(IntegrationError):
    """A run flagged by its energy audit, with ``simulate(..., audit="strict")`` (the findings
    of `AuditWarning` as an error; the trajectory is its `trajectory` attribute)."""
