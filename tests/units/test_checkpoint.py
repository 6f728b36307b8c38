"""A run given out in chunks, and a run resumed from any chunk's checkpoint, have the numbers of the run
computed in one piece, bit for bit: with both integrators, full and modified Newton, generalized-alpha's
early stop, friction states, servo inputs and flexible bodies. And the probes' angles unwrapped chunk by
chunk are those of ``np.unwrap`` of the whole series."""
import copy

import numpy as np
import pytest
from shared import CASES

from femdyn.integrators.setup import prepare
from femdyn.integrators.time_loop import CheckpointError, simulate
from femdyn.casefile.case import load_case
from femdyn.post.probes import Unwrap
from femdyn.model.reactions import JointReactions

FIELDS = ("t", "q", "v", "iterations", "residual", "kinetic", "potential", "work", "dissipation", "momentum",
          "angular_momentum", "energy_balance", "inputs", "t_mid", "node_t", "node_q", "node_lam")


class Chunks:
    """An ``output`` that asks for a chunk every ``every`` steps and keeps the chunks and checkpoints."""

    stopping = False

    def __init__(self, every):
        self.every, self.calls, self.chunks, self.checkpoints = every, 0, [], []

    def capacity(self, n):
        return 10**9

    def due(self):
        self.calls += 1
        return self.calls % self.every == 0

    def write(self, chunk, checkpoint):
        self.chunks.append(chunk)
        self.checkpoints.append(copy.deepcopy(checkpoint))


def joined(chunks, name):
    return np.concatenate([getattr(c, name) for c in chunks])


@pytest.mark.parametrize("name, changes", [
    ("nm_logo.toml", {}),
    ("rpr_figure8_friction.toml", {"t_end": 1.0}),  # servo inputs, friction
    ("3prr_sine.toml", {"t_end": 0.3}),  # generalized-alpha with the early stop, flexible links
    ("3prr_pulse.toml", {"t_end": 0.3, "newton": "modified", "early_stop": False}),
    ("double_pendulum.toml", {"newton": "modified", "t_end": 3.0}),  # a factorisation kept over steps
    ("3rrr_inverse.toml", {}),
])
def test_chunks_and_resumed_runs_equal_the_run_in_one_piece(name, changes):
    case = load_case(CASES / name)
    settings = case.settings.replace(**changes)
    setup = prepare(case.model, case.q0, case.v0, settings.initial_tolerance)
    whole = simulate(setup, settings)
    assert whole.complete and np.array_equal(whole.node_t, whole.t)  # a complete run has every node
    chunked = Chunks(7)
    last = simulate(setup, settings, output=chunked)
    assert last is chunked.chunks[-1] and len(chunked.chunks) > 5
    for field in FIELDS:
        assert np.array_equal(joined(chunked.chunks, field), getattr(whole, field)), field
    for k in (0, len(chunked.checkpoints) // 2, len(chunked.checkpoints) - 2):  # resumed from 3 checkpoints
        again = Chunks(5)
        simulate(setup, settings, output=again, resume=chunked.checkpoints[k])
        for field in FIELDS:
            assert np.array_equal(joined(chunked.chunks[: k + 1] + again.chunks, field), getattr(whole, field)), field
    assert again.chunks[-1].factorisations == whole.factorisations


def test_the_generalized_alpha_start_is_kept_in_the_checkpoint():
    """The choice of Newton's start (``GeneralizedAlpha.predictor``) and the a_n-2 of its damped extrapolation
    are part of a checkpoint's state: both choices occur in the flexible 3-PRR's checkpoints; a checkpoint
    without them (an earlier version's) resumes and completes; a choice other than 0 or 1, an a_n-2 without
    the a_n-1 before it, or one not finite or of another shape is refused as a damaged checkpoint."""
    case = load_case(CASES / "3prr_sine.toml")
    settings = case.settings.replace(t_end=0.1)
    setup = prepare(case.model, case.q0, case.v0, settings.initial_tolerance)
    chunked = Chunks(3)
    simulate(setup, settings, output=chunked)
    assert {c.solver["alpha.velocity_start"] for c in chunked.checkpoints} == {0, 1}
    assert all("alpha.a_earlier" in c.solver for c in chunked.checkpoints[1:])
    old = copy.deepcopy(chunked.checkpoints[2])
    del old.solver["alpha.velocity_start"], old.solver["alpha.a_earlier"]
    assert simulate(setup, settings, output=Chunks(5), resume=old).complete
    damages = [("alpha.velocity_start", bad) for bad in (0.5, 2, np.array([1, 0]))]
    damages += [("alpha.a_earlier", np.full(case.model.n, np.nan)), ("alpha.a_earlier", np.zeros(3)),
                ("alpha.a_previous", None)]
    for name, bad in damages:
        damaged = copy.deepcopy(chunked.checkpoints[2])
        if bad is None:
            del damaged.solver[name]
        else:
            damaged.solver[name] = bad
        with pytest.raises(CheckpointError, match=name):
            simulate(setup, settings, output=Chunks(5), resume=damaged)


def test_unwrap_in_chunks_is_unwrap_at_once():
    rng = np.random.default_rng(3)
    angles = np.angle(np.exp(1j * np.cumsum(rng.normal(0.0, 2.0, 400))))  # wrapped, with jumps near pi
    cuts = np.sort(rng.choice(np.arange(1, 400), 30, replace=False))
    unwrap = Unwrap()
    assert np.array_equal(np.concatenate([unwrap(part) for part in np.split(angles, cuts)]), np.unwrap(angles))


@pytest.mark.parametrize("name", ["stewart_gough.toml", "rpr_figure8_friction.toml", "3prr_sine.toml"])
def test_reactions_in_chunks_equal_the_reactions_at_once(name):
    """The joint reactions of a run's nodes computed a few frames at a time (1, 2, 3: the chunks of a run
    written as it goes, or resumed) are those computed at once, bit for bit (no BLAS kernel that changes
    with the number of frames)."""
    case = load_case(CASES / name)
    settings = case.settings.replace(t_end=30 * case.settings.dt)
    r = simulate(prepare(case.model, case.q0, case.v0, settings.initial_tolerance), settings)
    reactions = JointReactions(case.model)
    whole = reactions.columns(r.node_q, r.node_lam)
    for size in (1, 2, 3):
        parts = [reactions.columns(r.node_q[i: i + size], r.node_lam[i: i + size]) for i in range(0, len(r.t), size)]
        for column, values in whole.items():
            assert np.array_equal(np.concatenate([p[column] for p in parts]), values), (size, column)
