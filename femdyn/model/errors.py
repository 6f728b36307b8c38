"""The error of a model definition that cannot be built, and the name of the ground."""

GROUND = "ground"


class ModelError(ValueError):
    """A model definition that cannot be built; ``field`` names what is wrong."""

    def __init__(self, field, message):
        super().__init__(f"{field}: {message}")
        self.field, self.message = field, message
