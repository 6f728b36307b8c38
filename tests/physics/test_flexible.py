"""Flexible bodies under the floating frame of reference in director form (``femdyn.beam.ffr``): a free
beam conserves energy and momenta, and Kane's spin-up beam needs geometric stiffening."""
import numpy as np
import pytest
from shared import TIGHT, free_beam

from femdyn.beam.body import BeamBody, Section
from femdyn.integrators.settings import SolverSettings
from femdyn.integrators.setup import prepare
from femdyn.integrators.time_loop import simulate
from femdyn.joints.trajectories import SpinUp
from femdyn.model.builder import ModelBuilder
from femdyn.model.initial import place


@pytest.mark.parametrize("stiffening, modes", [(True, None), (False, None), (False, 4)],
                         ids=["fem-stiffening", "fem-linear", "modal"])
def test_free_flexible_body_conserves_energy_and_momenta(stiffening, modes):
    """Everything in the director form is at most quadratic (module docstring of ``flexible``), so
    the energy-momentum scheme conserves H, p and L to the Newton tolerance, for any dt."""
    model, setup = free_beam(stiffening, modes)
    r = simulate(setup, SolverSettings(2e-3, 0.2, **TIGHT))
    assert r.complete, r.message
    elastic = r.q[:, model.flexible[0].elastic]
    assert np.abs(elastic).max() > 1e-5  # the beam really bends
    assert np.ptp(r.total) <= 1e-11 * r.total.max()
    p_scale = np.sqrt(2.0 * r.kinetic.max() * model.bodies[0].mass)
    assert np.abs(r.momentum - r.momentum[0]).max() <= 1e-11 * p_scale
    assert np.abs(r.angular_momentum - r.angular_momentum[0]).max() <= 1e-11 * np.abs(r.angular_momentum[0]).max()
    assert r.residual.max() <= 1e-12


def spin_up(stiffening, t_end):
    """Kane's spin-up beam (L = 10 m, A = 4e-4 m^2, I = 2e-7 m^4, E = 70 GPa, rho = 3000 kg/m^3,
    6 rad/s reached in 15 s) clamped to a hub whose angle is prescribed by a servo."""
    beam = BeamBody.straight(10.0, 4, Section(4e-4, 2e-7), 7e10, 3000.0, axial="linear")
    b = ModelBuilder(2)
    b.add_beam("beam", beam, stiffening=stiffening)
    b.add_joint("hub", "revolute", "ground", "beam", angle="theta")
    b.add_servo_coordinate("spin", "theta", SpinUp(6.0, 15.0))
    b.set_inputs(["theta"])
    model = b.build()
    q, v = place(model, {}, {"hub": {"angle": 0.0}})
    r = simulate(prepare(model, q, v), SolverSettings(0.02, t_end))
    tip = r.q[:, model.flexible[0].elastic] @ beam.shape_at([[10.0, 0.0]])[0, 1]
    return r, tip


def test_spin_up_needs_geometric_stiffening():
    """With geometric stiffening the tip deflection of the spin-up beam stays bounded and small
    (about 0.4 m of 10 m while spinning up, then oscillating about the stretched shape); linear FFR
    diverges once the spin rate passes the first bending frequency (3.8 rad/s), the known failure of
    linear FFR for fast rotation."""
    r, tip = spin_up(True, 12.0)
    assert r.complete, r.message
    assert np.abs(tip).max() < 0.6
    r_lin, tip_lin = spin_up(False, 12.0)
    assert np.abs(tip_lin).max() > 10.0 or not r_lin.complete
