"""Reusable components: point masses, rigid bodies, springs, dampers, gravity, joints, contacts,
actuators, motors and controllers."""

from porthamiltonian.contact.materials import ContactMaterial

from .articulated_body import ArticulatedBody, LinkBody
from .compliant_contact import CompliantContact, ContactDamper, ContactSpring, SlipFriction
from .contact_geometry import ContactPair
from .contact_kinds import ContactKind, register_contact_kind
from .contacts import CONTACT_KINDS, contact, contact_flag, make_contact
from .feet import Foot, check_sole, heel_toe
from .gravity import Gravity
from .joint_elements import JointDamper, JointFriction, JointLimit, JointLimitDamper, JointSpring, add_joint_dynamics
from .joints import JOINT_LOCKS, ConstantRotation, DistanceJoint, Joint
from .placement import place_on
from .point_mass import DistanceConstraint, PointMass
from .reduced_contact import ReducedContact, ReducedContactConstraint
from .rigid_body import Frame, Ground, RigidBody, spatial_inertia
from .sliding_plane_contact import FRICTION_MODES, SlidingPlaneConstraint, SlidingPlaneContact
from .soil_contact import PlasticFlow, SoilContact, SoilDamper, SoilSlip, SoilSpring
from .springs import PointDamper, PointSpring, SpatialDamper, SpatialSpring
from .touchdown import TouchdownGuard
from .actuators import AXES, JointActuator, JointAxisMap, add_joint_axis, joint_axis, withheld_power
from .motors import MotorConstants, VoltageSource, battery, dc_motor, gear_loss_coefficient, go1_motor, motor_drive
from .controllers import FeedbackController, MotorPD, MotorServo, PeriodicReference, pd_controller
from .leg_kinematics import ThreeJointLeg, foot_reference

__all__ = [
    "PointMass", "DistanceConstraint", "ArticulatedBody", "LinkBody", "JointDamper", "JointFriction", "JointSpring", "JointLimit",
    "JointLimitDamper", "add_joint_dynamics", "RigidBody", "Ground", "Frame", "spatial_inertia", "Gravity",
    "SpatialSpring", "SpatialDamper", "PointSpring", "PointDamper", "Joint", "JOINT_LOCKS", "DistanceJoint", "ConstantRotation",
    "CompliantContact", "ContactSpring", "ContactDamper", "SlipFriction", "ContactPair",
    "SlidingPlaneContact", "SlidingPlaneConstraint", "FRICTION_MODES", "ReducedContact", "ReducedContactConstraint",
    "Foot", "heel_toe", "check_sole",
    "SoilContact", "SoilSpring", "SoilDamper", "SoilSlip", "PlasticFlow",
    "make_contact", "contact", "contact_flag", "CONTACT_KINDS", "ContactKind", "register_contact_kind", "ContactMaterial",
    "place_on", "TouchdownGuard",
    "joint_axis", "add_joint_axis", "JointAxisMap", "JointActuator", "AXES", "withheld_power",
    "dc_motor", "battery", "VoltageSource", "gear_loss_coefficient", "MotorConstants", "go1_motor", "motor_drive",
    "pd_controller", "PeriodicReference", "FeedbackController", "MotorPD", "MotorServo", "ThreeJointLeg",
    "foot_reference",
]
