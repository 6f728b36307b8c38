"""``femdyn sensitivity CASE``: the sensitivity study of ``studies.sensitivity`` (003 section 8.4), its
table printed and its files published into a result folder. Exit code 1 if a run stops early."""
import sys

from ..casefile.beams import PARAMETERS
from ..post.folders import default_folder, output_folder, publish
from ..post.interrupt import Interrupted
from ..post.progress import Progress
from ..studies.run import check_elements
from ..studies.sensitivity import (
    FILES,
    SensitivityError,
    plan_study,
    run_study,
    step_warnings,
    table,
    write_study,
)
from .arguments import (
    check_overrides,
    flexible_options,
    options,
    out_options,
    parameters,
    positive_float,
    relative_step,
)
from ..api.check import flexible_line
from .output import say


def add(commands):
    """Add the ``sensitivity`` subcommand (its arguments and handler) to ``commands``."""
    sensitivity = commands.add_parser(
        "sensitivity", help="gradients of a probe's motion w.r.t. the beam parameters E, rho, b, h",
        description="Central differences of the first probe's (or --probe's) deformed position x, y and "
        "orientation theta over time with respect to E, rho, b, h, each scaled by 1 +- STEP in every beam "
        "body (003 section 8.4), checked against the step 2 STEP. Prints a table and writes "
        "sensitivity.csv (time histories of dY/dp and p dY/dp), sensitivity.json and a bar plot "
        "sensitivity.png. Exit code 1 if a run stops early.")
    sensitivity.add_argument("case", metavar="CASE", help="case file (TOML) with beam bodies and a probe")
    sensitivity.add_argument("--params", type=parameters, default=tuple(PARAMETERS), metavar="P,P,..",
                             help=f"parameters, comma-separated, of {', '.join(PARAMETERS)} (default: all)")
    sensitivity.add_argument("--step", type=relative_step, default=1e-4, metavar="H",
                             help="relative step of the central differences (default 1e-4, at most 0.1)")
    sensitivity.add_argument("--probe", metavar="NAME", help="probe to study (default: the first)")
    sensitivity.add_argument("--t-end", type=positive_float, metavar="T", help="end time (overrides solver.t_end)")
    out_options(sensitivity, "folder for the files (default: results/<case>_sensitivity); an existing "
                "folder is replaced only if it is empty or an earlier study (has .femdyn and "
                "sensitivity.json), unless --force")
    flexible_options(sensitivity)
    sensitivity.add_argument("--quiet", action="store_true", help="no progress bar")
    sensitivity.set_defaults(handler=handle)


def handle(args):
    check_elements(args.case, args.flexible, args.elements)
    plan = plan_study(args.case, args.params, args.step, args.t_end, args.probe, options(args))
    check_overrides(args, plan.case)
    out = folder(args, plan)
    try:
        with Progress(plan.steps, f"{plan.case.path.stem} sensitivity", enabled=not args.quiet) as bar:
            study = run_study(plan, bar)
    except SensitivityError as err:
        if args.signals.seen:  # the run that a signal stopped
            raise Interrupted(args.signals.signum) from None
        print(f"error: {plan.case.path}: {err}", file=sys.stderr)
        return 1
    return publish_study(out, plan, study)


def folder(args, plan):
    """The folder of a sensitivity study (--out or ``results/<case>_sensitivity``), checked before any
    run (``post.folders.output_folder``)."""
    return output_folder(args.out or default_folder(plan.case.path, "sensitivity"), FILES[1],
                         "an earlier sensitivity study", force=args.force)


def publish_study(out, plan, study):
    """Publish a sensitivity study into ``out``, print its table and the step-check warnings."""
    try:
        files = publish(out, lambda folder: write_study(folder, study))
    except OSError as err:
        print(f"error: {out}: cannot write the study: {err}", file=sys.stderr)
        return 1
    say("\n".join([table(study), flexible_line(plan.case), f"results in {out}: {', '.join(files)}"]))
    for line in step_warnings(study):
        print(f"warning: {line}", file=sys.stderr)
    return 0
