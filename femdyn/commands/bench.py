"""``femdyn bench convergence CASE``: the refinement study of ``studies.convergence`` in the time step or
in the elements of every fem beam, refused before any run where a run of it could not be carried out.
Exit code 1 if an order cannot be observed (the table and the files are written first)."""
import argparse
import math
import sys

from ..integrators.settings import SettingsError
from ..casefile.case import CaseError
from ..post.folders import mark, output_folder
from ..model.errors import ModelError
from ..studies.convergence import FILES, convergence_benchmark, study_folder
from ..studies.orders import ConvergenceError
from .arguments import flexible_options, load, out_options, positive_float, positive_int
from .output import say


def _levels(text):
    value = positive_int(text)
    if not 2 <= value <= 12:
        raise argparse.ArgumentTypeError(f"must be between 2 and 12, got {value}")
    return value


def add(commands):
    """Add the ``bench convergence`` subcommand (its arguments and handler) to ``commands``."""
    bench = commands.add_parser("bench", help="benchmarks: convergence studies",
                                description="Benchmarks that a user runs on a case.")
    studies = bench.add_subparsers(dest="study", required=True, metavar="STUDY")
    convergence = studies.add_parser(
        "convergence", help="refinement study in dt, elements or segments: errors and observed orders",
        description="Run the case at dt, dt/2, ... (or, with --refine elements, with n, 2n, ... elements "
        "per beam at one time step; with --refine segments, with k, 2k, ... floating-frame segments per "
        "link, each keeping its elements), compare the chosen outputs with a reference "
        "(Richardson extrapolation of two finer runs by default) -- in dt the largest error over the time nodes "
        "that all runs share (the servo inputs at the nodes), or at --time; in elements and segments at the end "
        "time --, print a table of errors and observed "
        "orders, and write convergence.txt, convergence.json and a log-log convergence.png. Exit code 1 "
        "if an order cannot be observed (errors at round-off, errors that do not decrease).")
    convergence.add_argument("case", metavar="CASE", help="case file (TOML)")
    convergence.add_argument("--refine", choices=("dt", "elements", "segments"), default="dt",
                             help="what is refined: the time step (default), the elements of every fem "
                             "beam, starting from --elements or the case's flexible.elements, or the "
                             "segments of every fem beam, starting from --segments or flexible.segments "
                             "(default 1), each segment with the elements per segment of the first level")
    convergence.add_argument("--quantity", nargs="+", metavar="Q",
                             help="outputs: a joint coordinate, BODY.x/.y/.z/.angle, PROBE.x/.y/.z/.angle and "
                             "on a flexible body PROBE.elastic_x/.elastic_y/.elastic_angle (a probe of the case, "
                             "e.g. the end effector), input:COORD (a servo input at the time nodes), energy_error "
                             "(default: all joint coordinates and servo inputs; the inputs alone where the servos "
                             "leave no degree of freedom)")
    convergence.add_argument("--levels", type=_levels, default=4,
                             help="number of runs dt, dt/2, ... or meshes n, 2n, ... (2 to 12, default 4)")
    convergence.add_argument("--dt", type=positive_float, nargs="+", metavar="DT",
                             help="explicit time steps instead of halving the case's dt; with --refine "
                             "elements one time step for every run (default the case's)")
    convergence.add_argument("--reference", default="richardson",
                             help="richardson (default), finest, differences, or an exact value")
    convergence.add_argument("--order", type=positive_float, metavar="P",
                             help="nominal order of the Richardson reference (default 2 in dt and in "
                             "segments, 4 in elements)")
    convergence.add_argument("--time", type=positive_float, help="compare at this time (default in dt: the largest "
                             "error over the time nodes all runs share, or the end against an exact --reference "
                             "value; in elements and segments: the end)")
    convergence.add_argument("--t-end", type=positive_float, metavar="T", help="end time (overrides solver.t_end)")
    out_options(convergence, "folder for the files (default: results/<case>_convergence, with --refine "
                "elements results/<case>_elements_convergence, with --refine segments "
                "results/<case>_segments_convergence); an existing folder is used only if it is "
                "empty or an earlier study femdyn made, unless --force")
    flexible_options(convergence)
    convergence.set_defaults(handler=handle)


def handle(args):
    case = load(args)
    reference = args.reference
    if reference not in ("richardson", "finest", "differences"):
        try:
            reference = float(reference)
        except ValueError:
            reference = float("nan")
        if not math.isfinite(reference):
            raise CaseError(args.case, "--reference", f"'{args.reference}' is not richardson, finest, "
                            "differences or a finite number")
    out = output_folder(args.out or study_folder(case.path, None if args.refine == "dt" else args.refine),
                        FILES["json"], "an earlier convergence study", published=False, force=args.force)
    study = dict(dts=args.dt)
    if args.refine in ("elements", "segments"):
        study = _element_levels(args, case)
    else:  # refuse runs that cannot be carried out before spending time on the others
        smallest = min(args.dt) if args.dt else case.settings.dt / 2 ** (args.levels - 1)
        try:
            finest = case.settings.replace(dt=smallest / 4, t_end=args.t_end or case.settings.t_end)
            finest.check_history(case.model.n)
        except SettingsError as err:
            raise CaseError(args.case, f"solver.{err.field}", f"the finest run of the study: {err.message}") from None
    try:
        convergence_benchmark(case, args.quantity, levels=args.levels, reference=reference, order=args.order,
                              time=args.time, t_end=args.t_end, folder=out, echo=say, **study,
                              log=lambda line: print(line, file=sys.stderr), progress=True)
    except ConvergenceError as err:
        print(f"error: {args.case}: {err}", file=sys.stderr)
        return 1
    except SettingsError as err:
        raise CaseError(args.case, f"solver.{err.field}", err.message) from None
    except ModelError as err:
        raise CaseError(args.case, err.field, err.message) from None
    except OSError as err:
        raise CaseError(out, "--out", f"cannot write the study ({err.strerror or err})") from None
    except CaseError:
        raise
    except ValueError as err:
        raise CaseError(args.case, "--quantity/--dt/--time/--elements", str(err)) from None
    finally:
        if (out / FILES["json"]).is_file():  # the study's folder: femdyn's, which a later study may replace
            mark(out)
    return 0


def _element_levels(args, case):
    """The meshes n, 2n, ... (n = --elements or flexible.elements) and the one time step of a study in
    elements, refused where they cannot be run."""
    if not case.model.flexible:
        raise CaseError(case.path, "--refine", f"{args.refine}: the case has no flexible (beam) bodies")
    if case.flexible.model != "fem":
        raise CaseError(case.path, "--refine", f"{args.refine} refines fem beams; the flexible bodies are "
                        f"{case.flexible.model} (add --flexible fem)")
    if args.dt and len(args.dt) > 1:
        raise CaseError(case.path, "--dt", f"with --refine {args.refine} give one time step (every run has it)")
    first = case.flexible.elements if args.refine == "elements" else args.segments or case.flexible.segments or 1
    return {args.refine: [first * 2**k for k in range(args.levels)], "dt": args.dt[0] if args.dt else None}
