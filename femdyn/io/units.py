"""The kind of every augmented joint coordinate of a model -- an angle (rad) or a slide (m) -- and so
the quantity and SI unit of the coordinate and of the servo input that drives it: a torque (N m) on
an angle, a force (N) on a slide (000 eq. 84: the input is the multiplier of the servo's row on the
coordinate, work-conjugate to it)."""

COORDINATES = {"angle": ("joint angle", "rad"), "slide": ("joint slide", "m")}  # kind -> quantity, unit
INPUTS = {"angle": ("servo torque", "N m"), "slide": ("servo force", "N")}


def coordinate_kind(model, coordinate):
    """"angle" or "slide": what the joint coordinate ``coordinate`` of ``model`` measures."""
    index = model.joint_coordinates[coordinate]
    return next(kind for joint in model.joints for kind, i in joint.coordinates.items() if i == index)
