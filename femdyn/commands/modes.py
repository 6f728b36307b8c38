"""``femdyn modes CASE``: the natural frequencies and mode shapes of a case's mechanism linearised at
its static equilibrium (``integrators.statics``, ``integrators.modes``), servos held or free, at the
initial configuration or at a time of a run (``--at T --result DIR``: Newton starts from the run's pose
there); the table printed with units, ``modes.csv``, ``modes.json`` and one ParaView series per mode
that animates it (``post.equilibrium``). Exit code 1 if there is no equilibrium or the linearisation is
refused (its reason on one line)."""
import sys

import numpy as np

from ..integrators.modes import ModesError
from ..integrators.statics import StaticsError
from ..casefile.case import CaseError
from ..post.equilibrium import MODES
from ..post.folders import default_folder, output_folder
from . import campbell
from .arguments import equilibrium_options, flexible_options, load_problem, out_options, positive_int
from ..api.check import flexible_line
from .output import say


def add(commands):
    """Add the ``modes`` subcommand (its arguments and handler) to ``commands``."""
    modes = commands.add_parser(
        "modes", help="natural frequencies and mode shapes of the mechanism at its static equilibrium",
        description="Find the static equilibrium of the case at --at (from its initial configuration, or from "
        "the pose of the run in --result at that time), linearise there and compute the --count lowest natural "
        "modes on the constraint manifold (servos held or free). Prints the frequencies in rad/s and Hz and "
        "each mode in words; writes modes.csv, modes.json and mode_<k>.pvd (a ParaView series animating mode "
        "k over one period). Exit code 1 if there is no equilibrium or the linearisation is refused.")
    modes.add_argument("case", metavar="CASE", help="case file (TOML)")
    modes.add_argument("--count", type=positive_int, default=6, metavar="K", help="number of modes (default 6)")
    equilibrium_options(modes)
    out_options(modes, "folder for the files (default: results/<case>_modes); an existing folder is replaced only "
                "if it is empty or an earlier modes folder (has .femdyn and modes.json), unless --force")
    modes.add_argument("--no-vtk", action="store_true", help="do not write the ParaView series")
    flexible_options(modes)
    campbell.add_arguments(modes)  # --moving, --sweep, --frame: modes about a steady motion
    modes.set_defaults(handler=handle)


def table(rows):
    """The modes as a table with units, the effector's part first (``model.participation``): the first
    probe's amplitude |a| in the mass-normalised mode [kg^-1/2], the effective mass along each world axis
    [kg] and the probe's deviation from the rigid mechanism per metre of the mode's largest motion; then
    each mode by its three most moved bodies (all probes and bodies in modes.json)."""
    probe = next(iter(rows[0].get("amplitude", {})), None) if rows else None
    axes = list(rows[0].get("effective_mass", {})) if rows else []
    head = f"  {'|a| ' + probe + ' [kg^-1/2]':>20}" if probe else ""
    head += "".join(f"  {'m_eff ' + a + ' [kg]':>13}" for a in axes)
    head += f"  {'deviation ' + probe + ' [m/m]':>22}" if probe and "deviation" in rows[0] else ""
    lines = [f"{'mode':>4}  {'omega [rad/s]':>14}  {'f [Hz]':>12}{head}  shape"]
    for r in rows:
        kind = " (zero: a free motion)" if r["zero"] else " (unstable)" if r["unstable"] else ""
        felt = f"  {np.linalg.norm(r['amplitude'][probe]):>20.4g}" if probe else ""
        felt += "".join(f"  {r['effective_mass'][a]:>13.4g}" for a in axes)
        felt += f"  {np.linalg.norm(r['deviation'][probe]['position']):>22.4g}" if probe and "deviation" in r else ""
        lines.append(f"{r['mode']:>4}  {r['omega_rad_s']:>14.6g}  {r['frequency_hz']:>12.6g}{felt}  {r['summary']}{kind}")
    if probe:
        lines.append(f"|a| {probe}: the probe's displacement in the mass-normalised mode (phi^T M phi = 1); m_eff: "
                     "the mode's effective mass along the world axis, (phi^T M r)^2 / (phi^T M phi) with r a unit "
                     f"rigid translation; deviation {probe}: the length of the probe's deviation from the rigid "
                     "mechanism per metre of the mode's largest motion (all probes in modes.csv and modes.json)")
    elif axes:
        lines.append("m_eff: the mode's effective mass along the world axis, (phi^T M r)^2 / (phi^T M phi) with r a "
                     "unit rigid translation")
    return lines


def handle(args):
    problem = load_problem(args)
    case = problem.case
    if campbell.wanted(args):
        return campbell.handle(args, problem)
    out = output_folder(args.out or default_folder(case.path, "modes"), MODES, "an earlier modes folder",
                        force=args.force)
    try:
        modes = problem.modes(args.count, args.at, args.servos, args.result)
    except (StaticsError, ModesError) as err:
        print(f"error: {case.path}: {' '.join(str(err).split())}", file=sys.stderr)
        return 1
    except CaseError:  # the case's initial state, or --result and --at
        raise
    except ValueError as err:
        raise CaseError(case.path, "--count", str(err)) from None
    try:
        rows = modes.write(out, vtk=not args.no_vtk, force=args.force)
    except OSError as err:
        print(f"error: {out}: cannot write the modes: {err}", file=sys.stderr)
        return 1
    head = (f"natural modes at the static equilibrium at t = {args.at:g} s ({modes.equilibrium.iterations} Newton "
            f"iterations), servos {args.servos}: {len(rows)} of {args.count} asked")
    say("\n".join(filter(None, [flexible_line(case), head, *table(rows), f"results in {out}"])))
    return 0
