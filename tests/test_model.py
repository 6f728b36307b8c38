"""A model is built from a frozen specification (``femdyn.model.spec``): the builder collects frozen
records and ``build()`` hands one ``ModelSpec`` to ``Model``."""
import dataclasses

import numpy as np
import pytest

from femdyn.model.builder import ModelBuilder


def test_a_built_model_keeps_the_specification_it_was_built_from():
    """The records cannot be changed (frozen dataclasses, read-only arrays), and neither changing the
    caller's arrays nor adding to the builder afterwards changes the specification taken or the model
    built; the specification counts the model's coordinates (a body and the ground, one joint angle)."""
    euler, point = np.array([1.0, 2.0]), np.array([0.5, 0.0])
    b = ModelBuilder(2)
    b.add_body("arm", 1.0, euler)
    b.add_joint("pin", "revolute", "ground", "arm", point2=point, angle="theta")
    spec, model = b.spec(), b.build()
    euler[0] = point[0] = 7.0
    b.add_body("other", 1.0, [1.0, 1.0])
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.bodies[0].mass = 2.0
    with pytest.raises(ValueError, match="read-only"):
        spec.joints[0].point2[0] = 2.0
    assert [x.name for x in spec.bodies] == [x.name for x in model.bodies] == ["arm"]
    assert spec.bodies[0].euler.tolist() == model.bodies[0].euler.tolist() == [1.0, 2.0]
    assert spec.joints[0].point2.tolist() == model.joints[0].point2.tolist() == [0.5, 0.0]
    assert spec.coordinate_count() == model.n == 2 * 6 + 1
