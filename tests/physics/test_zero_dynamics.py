"""Zero dynamics of servo problems (femdyn.integrators.zero_dynamics): collocation, transmission zeros
against the closed form of the Euler-Bernoulli link, and the diagnosis in `femdyn check` and in the
message of a failed causal inversion."""
import subprocess
import sys

import numpy as np
import pytest
from scipy.optimize import brentq
from shared import CASES, LINK, flexible_link

from femdyn.integrators.zero_dynamics import zero_dynamics
from femdyn.casefile.beams import Options
from femdyn.casefile.case import load_case
from femdyn.studies.run import prepare_case, run_case


def link_sigma():
    """The slowest right-half-plane zero of the uniform link with hub torque input and tip output
    (Bayo 1987): with the output held, w(0) = 0 (the hub), w(L) = 0 (the tip on its ray),
    EI w''(L) = EI w'''(L) = 0 (free end), the hub moment free; EI w'''' = sigma^2 rho A w has
    w = sum c_j exp(r_j x), r = kappa (+-1 +- i), 4 kappa^4 = sigma^2 rho A / EI. The root of the real
    4x4 determinant in kappa."""
    L, A, EI, rho = LINK["length"], LINK["b"] * LINK["h"], LINK["young"] * LINK["b"] * LINK["h"] ** 3 / 12, LINK["rho"]

    def det(kappa):
        rows = []
        for r in (kappa * (1 + 1j), kappa * (-1 + 1j)):
            col = [np.exp(0 * r)] + [r**k * np.exp(r * L) for k in (0, 2, 3)]
            rows += [np.real(col), np.imag(col)]
        return np.linalg.det(np.array(rows).T) * np.exp(-2 * kappa * L)

    kappas = np.linspace(0.1, 6.0, 600) / L
    values = [det(k) for k in kappas]
    i = next(i for i in range(len(values) - 1) if values[i] * values[i + 1] < 0)
    kappa = brentq(det, kappas[i], kappas[i + 1], xtol=1e-14)
    return np.sqrt(4 * kappa**4 * EI / (rho * A))


def test_link_tip_output_is_non_minimum_phase_with_the_closed_form_zero():
    exact = link_sigma()
    errors = []
    for elements in (2, 4, 8):
        z = zero_dynamics(flexible_link("tip", elements)[1])
        assert z.collocated == [False] and not z.minimum_phase
        errors.append(abs(z.sigma[0] - exact) / exact)
    assert errors[-1] < 1e-4  # FEM zeros converge to the beam's: cubic elements, order about 4
    orders = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
    assert np.all(orders > 3.5), (errors, orders)


def test_link_hub_output_is_collocated_and_minimum_phase():
    z = zero_dynamics(flexible_link("hub", 4)[1])
    assert z.collocated == [True] and z.minimum_phase and z.sigma.size == 0
    assert np.all(z.omega2 > 0)  # the pinned link's clamped modes: oscillatory zero dynamics


def _3prr(servos):
    text = (CASES / "3prr_inverse.toml").read_text()
    start, end = text.index("[[servos]]"), text.index("[[probes]]")
    return text[:start] + servos + text[end:]


def test_3prr_platform_servos_non_minimum_phase_slider_servos_collocated(tmp_path):
    case = load_case(CASES / "3prr_inverse.toml", Options(model="fem"))
    z = zero_dynamics(prepare_case(case))
    assert z.servos == ["middle", "level"] and z.collocated == [False, False] and not z.minimum_phase
    rigid = zero_dynamics(prepare_case(load_case(CASES / "3prr_inverse.toml", Options(model="rigid"))))
    assert rigid.collocated == [True, True] and rigid.minimum_phase  # rigid links: the sliders fix the platform
    sliders = "".join(f'[[servos]]\nname = "slide{k}"\ntype = "coordinate"\ncoordinate = "s{k}"\n'
                      f'trajectory = {{ type = "harmonic", angular_speed = "2*pi", t_ramp = 0.5, sine = 0.01 }}\n\n'
                      for k in (1, 2, 3)) + '[control]\ninputs = ["s1", "s2", "s3"]\n\n'
    path = tmp_path / "sliders.toml"
    path.write_text(_3prr(sliders))
    z = zero_dynamics(prepare_case(load_case(path, Options(model="fem"))))
    assert z.collocated == [True, True, True] and z.minimum_phase


def test_check_and_failed_run_name_the_non_minimum_phase_problem(tmp_path):
    out = subprocess.run([sys.executable, "-m", "femdyn", "check", str(CASES / "3prr_inverse.toml")],
                         capture_output=True, text=True, check=True).stdout
    assert "servo middle: not collocated" in out and "non-minimum phase" in out and "sigma = " in out
    case = load_case(CASES / "3prr_inverse.toml", Options(model="fem"), {"solver.t_end": 0.2})
    run = run_case(case)
    assert not run.results.complete
    assert "non-minimum phase" in run.results.message and "whatever dt" in run.results.message
    assert run_case(load_case(CASES / "3prr_inverse.toml", Options(model="rigid"),
                              {"solver.t_end": 0.2})).results.complete
