"""The tables of a run at its time nodes that come from the constraint multipliers: ``inputs.csv`` (the
servo inputs, actuator torques and forces) and ``reactions.csv`` (force and moment of every joint on each
of its bodies, ``model.reactions``), with the plot ``reactions.png``.

Both are written at the time nodes t_n, second order and without the step-to-step alternation of the
energy-momentum scheme's mid-point multipliers (``time_loop.node_multipliers``): a node's value is the
mean of the two steps next to it, the first and the last node's the consistent multipliers of their
state. A chunk of the run completes the nodes up to the one before its last row (that node needs the
next step), so these tables end one row before ``history.csv`` until the run is complete; a run
stopped early (a failure or a signal) keeps them so.
"""
import numpy as np

from ..model.reactions import JointReactions

INPUTS, REACTIONS = "inputs.csv", "reactions.csv"


class NodeTables:
    """The rows of ``inputs.csv`` and ``reactions.csv`` of the chunks (``time_loop.Results``) of a run
    of ``model``."""

    def __init__(self, model):
        self.model = model
        self.reactions = JointReactions(model) if model.joints else None

    def rows(self, chunk):
        """{table: columns} of the nodes that ``chunk`` completes (none for a result without nodes:
        a static equilibrium)."""
        model = self.model
        t = chunk.node_t if chunk.node_t is not None else np.zeros(0)
        lam = chunk.node_lam if chunk.node_lam is not None else np.zeros((0, model.m))
        q = chunk.node_q if chunk.node_q is not None else np.zeros((0, model.n))
        tables = {}
        if len(model.inputs):
            tables[INPUTS] = {"t": t, **{name: -lam[:, row] for name, row in zip(model.inputs, model.input_rows)}}
        if self.reactions is not None:
            tables[REACTIONS] = {"t": t, **self.reactions.columns(q, lam)}
        return tables
