"""Dynamics of parallel manipulators in actuated coordinates, independent of the DAE solver.

* :mod:`femdyn.reference.rrr` -- the planar 3-RRR manipulator by DeNOC twist propagation and twist
  annihilators (002 section 4).
* :mod:`femdyn.reference.stewart` -- the Stewart-Gough platform by Gauss' principle in Appell's form,
  inverse and direct dynamics from one constrained quadratic program (004 section V).
* :mod:`femdyn.reference.models` -- both as femdyn DAE models built from the same parameters, with
  consistent initial states, against which the solver is checked.

Both report near-singular Jacobians as :class:`SingularPoseError` instead of returning numbers that
have blown up.  Their trajectories start from rest by ``femdyn.joints.trajectories.smooth_start``.
"""
import numpy as np



def read_only(array):
    """A float copy of ``array`` that cannot be written to (for arrays held by frozen parameters)."""
    array = np.array(array, dtype=float)
    array.flags.writeable = False
    return array


class SingularPoseError(ValueError):
    """A Jacobian of the manipulator is (nearly) singular at the given pose.

    Attributes: ``pose`` (the pose, as text), ``matrix`` (which Jacobian), ``condition`` (its
    2-norm condition number) and ``limit`` (the threshold it exceeded).
    """

    def __init__(self, pose, matrix, condition, limit):
        self.pose, self.matrix, self.condition, self.limit = pose, matrix, condition, limit
        super().__init__(f"singular pose {pose}: cond({matrix}) = {condition:.3e} exceeds {limit:.1e}")


def check_condition(matrices, names, describe_pose, limit):
    """Raise :class:`SingularPoseError` for the first of ``matrices`` (stacked, shape (k, m, n)) whose
    2-norm condition number exceeds ``limit``; ``names`` label them, ``describe_pose()`` gives the
    pose as text for the message."""
    singular = np.linalg.svd(np.asarray(matrices, dtype=float), compute_uv=False)
    with np.errstate(divide="ignore", invalid="ignore"):
        conditions = singular[:, 0] / singular[:, -1]
    for name, condition in zip(names, conditions):
        if not condition <= limit:  # also catches inf and nan
            raise SingularPoseError(describe_pose(), name, float(condition), limit)
