"""Sensitivity of a probe's motion to the beam parameters E, rho, b, h (003 section 8.4, Figs. 12-14).

The outputs are the probe's deformed position ``x, y`` (``post.probes.probe_table``) and orientation
``theta`` = angle of d_1 + section rotation theta(X) over the time history. A parameter is scaled by
the same factor ``s`` in every beam body, and the derivative is taken by central differences with a
relative step h:

    dY/ds = p dY/dp ~ (Y(s = 1 + h) - Y(s = 1 - h)) / (2 h),

reported as the *scaled* sensitivity p dY/dp (the change of Y per relative change of p: comparable
across parameters, and defined even where the beams' values of p differ) and as the gradient dY/dp
where every beam has the same value p. The step is checked by repeating the differences with 2h: the
agreement is max_t |S_h - S_2h| / max_t |S_h|. A parameter whose perturbation changes an output by
less than ``ROUNDOFF`` (relative to max(1, |Y|), the Newton tolerance's convention) is marked
unresolved: its difference quotient is round-off, and its step check is not judged.

Runs (nominal, then +h, -h, +2h, -2h per parameter) are independent and sequential.
"""
import dataclasses
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..io import jsonfile
from ..casefile.beams import PARAMETERS, Options
from ..casefile.case import CaseError, load_case
from ..post.plots import DPI
from ..post.probes import probe_table
from ..io.tables import write_csv
from .run import checked_settings, run_case

OUTPUTS = ("x", "y", "theta")
UNITS = {"x": "m", "y": "m", "theta": "rad"}
PARAMETER_UNITS = {"E": "Pa", "rho": "kg/m^3", "b": "m", "h": "m"}
FACTORS = (1.0, -1.0, 2.0, -2.0)  # multiples of the step, in the order of the runs
POOR_AGREEMENT = 1e-2  # step check: relative difference above which the gradient is suspect
ROUNDOFF = 1e-12  # changes of an output below this (relative to max(1, |Y|)) are not resolved
FILES = ("sensitivity.csv", "sensitivity.json", "sensitivity.png")  # written by ``write_study``


class SensitivityError(RuntimeError):
    """A run of the study stopped early (Newton failure or Ctrl-C)."""


@dataclass(frozen=True)
class Plan:
    """A validated study: the nominal case (with any end-time override), its probe, the parameters
    (user names, keys of ``beams.PARAMETERS``) and the relative step."""

    case: object
    probe: tuple  # (name, body name, point)
    params: tuple
    step: float
    options: Options

    @property
    def runs(self):
        return 1 + len(FACTORS) * len(self.params)

    @property
    def steps(self):
        """Time steps of all runs together, for a progress bar."""
        return self.runs * self.case.settings.steps


@dataclass
class Parameter:
    """The sensitivities of the outputs to one parameter: ``scaled`` p dY/dp with step h and
    ``check`` with step 2h, both (T, 3) over x, y, theta; ``nominal`` the beams' common value of p
    (None where they differ); ``resolved`` (3,) whether the step moved each output above round-off."""

    name: str
    nominal: float | None
    scaled: np.ndarray
    check: np.ndarray
    resolved: np.ndarray

    @property
    def gradient(self):
        """dY/dp (T, 3), or None where the beams' values of p differ."""
        return None if self.nominal is None else self.scaled / self.nominal

    @property
    def agreement(self):
        """Step check per output (3,): max_t |S_h - S_2h| / max_t |S_h| (0 where both vanish)."""
        scale = np.abs(self.scaled).max(axis=0)
        diff = np.abs(self.scaled - self.check).max(axis=0)
        return np.divide(diff, scale, out=np.zeros(3), where=scale > 0)

    @property
    def poor(self):
        """Outputs (3,) whose step check is worse than ``POOR_AGREEMENT``."""
        return self.resolved & (self.agreement > POOR_AGREEMENT)


@dataclass
class Study:
    plan: Plan
    t: np.ndarray
    nominal: np.ndarray  # (T, 3) x, y, theta of the unperturbed run
    parameters: list


def parse_parameters(text):
    """The parameter names of a comma-separated list such as ``E,rho,b,h``; ValueError if unknown
    or repeated."""
    names = [name.strip() for name in text.split(",")]
    unknown = [name for name in names if name not in PARAMETERS]
    if unknown:
        raise ValueError(f"unknown parameter '{unknown[0]}' (known: {', '.join(PARAMETERS)})")
    if len(set(names)) != len(names):
        raise ValueError(f"a parameter is given twice in '{text}'")
    return tuple(names)


def _load(path, options, t_end):
    """The case with the flexible ``options`` and an optional end-time override."""
    case = load_case(path, options)
    if t_end is not None:
        case = dataclasses.replace(case, settings=checked_settings(case, t_end=t_end))
    return case


def _probe(case, name):
    """The probe ``name`` of the case, or its first probe; CaseError if there is none."""
    if not case.probes:
        raise CaseError(case.path, "probes", "the case has no probes: add a [[probes]] table (name, "
                        "body, point) for the point whose motion is studied")
    if name is None:
        return case.probes[0]
    known = [p[0] for p in case.probes]
    if name not in known:
        raise CaseError(case.path, "--probe", f"unknown probe '{name}' (known: {', '.join(known)})")
    return case.probes[known.index(name)]


def plan_study(path, params, step, t_end=None, probe=None, options=None):
    """Load and check the nominal case before any run: it must have flexible bodies and a probe."""
    options = options or Options()
    case = _load(path, options, t_end)
    if not case.model.flexible:
        raise CaseError(case.path, "bodies", "the case has no flexible (beam) bodies, whose parameters "
                        f"{', '.join(PARAMETERS)} the study varies")
    if case.model.dim != 2:
        raise CaseError(case.path, "dimension", "the sensitivity study of x, y and theta is planar; for a 3D case "
                        "vary the beam parameters with femdyn sweep --param")
    return Plan(case, _probe(case, probe), tuple(params), step, options)


def probe_motion(model, q, probe):
    """x, y and orientation theta (unwrapped over time) of the ``probe`` (name, body name, point) over
    the history q (T, n): (T, 3), the columns x, y and angle of ``post.probes.probe_table``: theta = angle
    of d_1 plus, on a flexible body, the section rotation theta(X)."""
    columns = probe_table(model, [probe], q)
    return np.column_stack([columns[f"{probe[0]}.{c}"] for c in ("x", "y", "angle")])


class _Offset:
    """Forwards a run's progress to a bar over all runs, ``done`` steps in."""

    def __init__(self, bar, done):
        self.bar, self.done = bar, done

    def update(self, step, t):
        self.bar.update(self.done + step, t)


def _history(plan, options, label, progress, done):
    """Simulate the case with ``options``: the times (T,) and the probe's motion (T, 3).
    SensitivityError if the run stops early."""
    case = _load(plan.case.path, options, plan.case.settings.t_end)
    try:
        results = run_case(case, None if progress is None else _Offset(progress, done)).results
    except CaseError as err:
        raise CaseError(err.path, err.field, f"{label}: {err.message}") from None
    if not results.complete:
        raise SensitivityError(f"the run {label} stopped early: {results.message}")
    return results.t, probe_motion(case.model, results.q, plan.probe)


def _beam_values(beam, key):
    """The values (one or one per element) of beam parameter ``key`` of a ``BeamBody``."""
    h = 2.0 * beam.section.fibre
    return np.atleast_1d({"young": beam.young, "density": beam.rho, "b": beam.section.area / h, "h": h}[key])


def _common_value(case, key):
    """The value of beam parameter ``key`` shared by every beam body, or None where they differ."""
    values = np.concatenate([_beam_values(body.beam, key) for body in case.model.flexible])
    return float(values[0]) if np.allclose(values, values[0], rtol=1e-12, atol=0.0) else None


def run_study(plan, progress=None):
    """Run the plan (``progress``: an object with ``update(step, t)`` over ``plan.steps``)."""
    steps = plan.case.settings.steps
    t, nominal = _history(plan, plan.options, "with the nominal parameters", progress, 0)
    floor = ROUNDOFF * np.maximum(1.0, np.abs(nominal).max(axis=0))
    parameters, run = [], 1
    for name in plan.params:
        key = PARAMETERS[name]
        motions = []
        for k in FACTORS:
            factor = 1.0 + k * plan.step
            label = f"with {name} x {factor:.10g}"
            motions.append(_history(plan, plan.options.with_scale(key, factor), label, progress, run * steps)[1])
            run += 1
        plus, minus, plus2, minus2 = motions
        parameters.append(Parameter(
            name, _common_value(plan.case, key),
            scaled=(plus - minus) / (2.0 * plan.step), check=(plus2 - minus2) / (4.0 * plan.step),
            resolved=np.abs(plus - minus).max(axis=0) > floor))
    return Study(plan, t, nominal, parameters)


def _summary(p, i):
    """Figures of parameter ``p`` for output i: max over time and the value at the end."""
    gradient = p.gradient
    return {
        "max_abs_gradient": None if gradient is None else float(np.abs(gradient[:, i]).max()),
        "gradient_at_end": None if gradient is None else float(gradient[-1, i]),
        "max_abs_scaled": float(np.abs(p.scaled[:, i]).max()),
        "scaled_at_end": float(p.scaled[-1, i]),
        "step_agreement": float(p.agreement[i]),
        "resolved": bool(p.resolved[i]),
    }


def step_warnings(study):
    """One line per resolved output whose step check is poor."""
    plan = study.plan
    return [f"{p.name} -> {out}: the sensitivities with steps {plan.step:g} and {2 * plan.step:g} "
            f"differ by {100 * p.agreement[i]:.3g}% (of max |p dY/dp|): round-off or nonlinearity; "
            "try another --step" for p in study.parameters for i, out in enumerate(OUTPUTS) if p.poor[i]]


def report(study):
    """The study as JSON-ready data."""
    plan = study.plan
    name, body, point = plan.probe
    flexible = dataclasses.asdict(plan.case.flexible)
    flexible.pop("scale")
    return {
        "case": str(plan.case.path),
        "probe": {"name": name, "body": body, "point": [float(x) for x in point]},
        "flexible": flexible,
        "t_end": float(study.t[-1]),
        "dt": float(study.t[1] - study.t[0]),
        "step": plan.step,
        "check_step": 2 * plan.step,
        "runs": plan.runs,
        "outputs": {out: UNITS[out] for out in OUTPUTS},
        "parameters": {
            p.name: {"key": PARAMETERS[p.name], "unit": PARAMETER_UNITS[p.name], "nominal": p.nominal,
                     "outputs": {out: _summary(p, i) for i, out in enumerate(OUTPUTS)}}
            for p in study.parameters},
        "warnings": step_warnings(study),
    }


def table(study):
    """The printed table: per parameter and output max |dY/dp| over time and dY/dp at the end, the
    same for p dY/dp, and the step check."""
    plan = study.plan
    name, body, point = plan.probe
    lines = [f"sensitivity of probe '{name}' (body {body}, point [{', '.join(f'{x:g}' for x in point)}]) "
             f"over t = 0 .. {study.t[-1]:g}: central differences, relative step {plan.step:g} "
             f"(check {2 * plan.step:g}), {plan.runs} runs; x, y in m, theta in rad, parameters in SI",
             f"{'param':<6}{'output':<8}{'max|dY/dp|':>13}{'dY/dp(end)':>13}{'max|p dY/dp|':>14}"
             f"{'p dY/dp(end)':>14}{'step check':>12}"]
    for p in study.parameters:
        for i, out in enumerate(OUTPUTS):
            s = _summary(p, i)
            g = ("-", "-") if p.gradient is None else (f"{s['max_abs_gradient']:.4g}", f"{s['gradient_at_end']:.4g}")
            check = f"{s['step_agreement']:.2g}" if p.resolved[i] else "unresolved"
            lines.append(f"{p.name:<6}{out:<8}{g[0]:>13}{g[1]:>13}{s['max_abs_scaled']:>14.4g}"
                         f"{s['scaled_at_end']:>14.4g}{check:>12}")
    if any(p.gradient is None for p in study.parameters):
        lines.append("-: the beams' values of the parameter differ; only p dY/dp (all scaled together) is defined")
    if not all(p.resolved.all() for p in study.parameters):
        lines.append(f"unresolved: the step changes the output by less than {ROUNDOFF:g} of max(1, |Y|)")
    return "\n".join(lines)


def _columns(study):
    """CSV columns: t, the nominal x, y, theta, then per parameter and output dY/dp (where defined)
    and p*dY/dp."""
    columns = {"t": study.t, **{out: study.nominal[:, i] for i, out in enumerate(OUTPUTS)}}
    for p in study.parameters:
        for i, out in enumerate(OUTPUTS):
            if p.gradient is not None:
                columns[f"d{out}/d{p.name}"] = p.gradient[:, i]
            columns[f"{p.name}*d{out}/d{p.name}"] = p.scaled[:, i]
    return columns


def _plot(path, study):
    """Bar plot: max over time of |p dY/dp| (top) and of |dY/dp| (bottom, log scale) per output."""
    from matplotlib.figure import Figure

    names = [p.name for p in study.parameters]
    fig = Figure(figsize=(10, 6))
    axes = fig.subplots(2, 3)
    for i, out in enumerate(OUTPUTS):
        scaled = [np.abs(p.scaled[:, i]).max() for p in study.parameters]
        gradient = [np.nan if p.gradient is None else np.abs(p.gradient[:, i]).max() for p in study.parameters]
        axes[0, i].bar(names, scaled, color="tab:blue")
        axes[0, i].set_title(f"{out} ({UNITS[out]})", fontsize=10)
        axes[0, i].set_ylim(bottom=0.0)
        axes[1, i].bar(names, gradient, color="tab:orange")
        if np.nanmax(gradient, initial=0.0) > 0:
            axes[1, i].set_yscale("log")
        for ax in axes[:, i]:
            ax.grid(True, axis="y", alpha=0.3)
        axes[0, i].set_ylabel(f"max |p d{out}/dp| [{UNITS[out]}]")
        axes[1, i].set_ylabel(f"max |d{out}/dp| [{UNITS[out]} / SI unit of p]")
    fig.suptitle(f"{study.plan.case.title}: sensitivity of probe '{study.plan.probe[0]}'", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)


def write_study(folder, study):
    """Write sensitivity.csv, sensitivity.json and sensitivity.png into ``folder``; returns the
    file names."""
    folder = Path(folder)
    write_csv(folder / FILES[0], _columns(study))
    (folder / FILES[1]).write_text(jsonfile.dumps(report(study)))
    _plot(folder / FILES[2], study)
    return list(FILES)
