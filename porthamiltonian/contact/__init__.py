"""Contact kinematics between posed surfaces: pure functions on arrays."""

from .kinematics import MAX_CONDITION, ContactKinematics, contact_kinematics

__all__ = ["MAX_CONDITION", "ContactKinematics", "contact_kinematics"]
