"""The Newton matrix of a long beam against the rounding of its stored sums (``kernels.add_mass``):
at a node of the pendulum with 4096 world-vector elements the mass entries 2/dt^2 M (about 126 N/m)
are summed with stiffness entries of some 3e14 N/m, whose last bit is 0.06 N/m, so the stored matrix
keeps the mass only to about 5e-4 -- the same rounding at every node, which the slow modes (governed
by the mass) see as a wrong matrix. The mass entries are added last (``kernels.add_mass``), and the
first solve of a step refines against the stored matrix plus that sum's exact rounding (TwoSum, Knuth
1997): the matrix it solves with then holds the mass to round-off, and Newton converges quadratically
-- two iterations per step -- as on short meshes."""
import numpy as np
from shared import flexible_pendulum

from femdyn.integrators.energy_momentum import EnergyMomentum

ELEMENTS, DT = 4096, 1e-3


def test_the_refined_matrix_holds_the_mass_and_newton_converges_in_two_iterations():
    """Along a uniform shift of the elastic displacements w_k across the beam (the beam translated: its
    strains, hence its elastic forces, do not change; across it the bending stiffness 12 EI/h^3 makes
    the large entries) the exact Newton matrix is the mass part alone, 2/dt^2 M v, at
    every node not next to the pin (the first element bends). The stored sums miss it by more than
    1e-6 of its size; the stored matrix plus the recorded rounding holds it to round-off (1e-13).
    Then every one of the first 25 steps (the beam falling and bending) converges in two iterations:
    a first increment of about 4e-5 m, a second one contracted quadratically, which Hairer & Wanner's
    estimate accepts (with the stored matrix alone a quarter of the steps took three)."""
    model, setup = flexible_pendulum(ELEMENTS, axial="cubic")
    stepper = EnergyMomentum(model, DT, setup.active_rows)
    newton, system = stepper.newton, stepper.system
    taken = {}
    first_solve = newton._first_solve

    def capture(R, bound):  # the first step runs in the interpreter: its matrix and rounding
        taken.update(values=newton.lu.current.copy(), rounding=newton.rounding.copy())
        return first_solve(R, bound)

    newton._first_solve = capture
    q, v, lam, states = setup.q0, setup.v0, np.zeros(model.m), model.initial_states(setup.q0)
    iterations = []
    for k in range(25):
        r = stepper.step(k * DT, q, v, lam, states)
        q, v, lam, states = r.q, r.v, r.lam, r.states
        iterations.append(r.iterations)
        newton._first_solve = first_solve

    names, n = model.coordinate_names, model.n
    rows = [i for i, c in enumerate(names) if c[:6] in ("beam.w", "beam.s") and c[6:-1] not in ("0", "1")]
    stored, rounding = (system.pattern.csc(taken[key])[:n, :n] for key in ("values", "rounding"))
    shift = np.array([float(c.startswith("beam.w") and c.endswith("y")) for c in names])  # across the beam
    mass = (2.0 / DT**2 * (system.mass @ shift))[rows]
    size = np.abs(mass).max()
    assert np.abs((stored @ shift)[rows] - mass).max() > 1e-6 * size
    assert np.abs((stored @ shift + rounding @ shift)[rows] - mass).max() <= 1e-13 * size
    assert iterations == [2] * 25, iterations
