"""``femdyn modes --moving`` and ``femdyn modes --sweep NAME=a:b:n``: the modes of a case's mechanism
about the steady motion that its servos impose at --at (a link spinning at a servo-held speed; the
gyroscopic and centrifugal terms included, ``integrators.motion``) or the stored state of frame K of a
run (``--result DIR --frame K``), and their Campbell diagram over a
numeric field of the case (``studies.campbell``): ``motion_modes.csv``/``.json`` or ``campbell.csv``,
``campbell.json`` and ``campbell.png``, each with ``units.json`` (``post.campbell``). The options are
added to ``modes``'s parser, which hands such a call here."""
import sys

from ..integrators.modes import ModesError
from ..post.campbell import CAMPBELL, MOTION_MODES
from ..casefile.case import CaseError
from ..post.folders import default_folder, output_folder
from ..studies.campbell import sweep_values
from .arguments import nonnegative_int
from ..api.check import flexible_line
from .output import say


def add_arguments(parser):
    """Add --moving, --sweep, --observer and --frame to the ``modes`` parser."""
    parser.add_argument("--moving", action="store_true",
                        help="the modes about the steady motion the servos impose at --at (a link spinning at a "
                        "servo-held speed: gyroscopic and centrifugal terms included) instead of a static "
                        "equilibrium; frequencies in Hz and damping ratios; writes motion_modes.csv/.json")
    parser.add_argument("--sweep", metavar="NAME=a:b:n",
                        help="Campbell diagram: the modes about the steady motion for n values of the case field "
                        "NAME from a to b (a dotted path as for femdyn sweep --param, e.g. a servo's speed "
                        "servos.spin.trajectory.rate or a held coordinate initial.joints.hub.angle), followed by "
                        "their shapes (MAC); writes campbell.csv, campbell.json, campbell.png")
    parser.add_argument("--observer", metavar="BODY",
                        help="with --moving or --sweep: the body whose turning frame the modes are seen from "
                        "('world': not turning; default: the body the servos turn fastest)")
    frame_option(parser)


def frame_option(parser):
    """Add --frame K (a stored state of the run in --result) to ``parser``."""
    parser.add_argument("--frame", type=nonnegative_int, metavar="K",
                        help="with --result DIR: linearise at the state (q, v) of frame K of that run (its "
                        "states.csv; the ParaView frames' numbers, from 0), at its time, with the gyroscopic and "
                        "centrifugal terms of its motion (implies --moving; --at is not used)")


def wanted(args):
    """Whether the call is one for this module (--moving or --sweep)."""
    return bool(args.moving or args.sweep or args.frame is not None)


def handle(args, problem):
    """Run ``femdyn modes --moving`` or ``--sweep`` (module docstring) on the ``api.problem.Problem``."""
    case = problem.case
    if args.sweep and args.frame is not None:
        raise CaseError(case.path, "--frame", "a stored state of a run is one point, not a --sweep")
    if args.sweep:
        try:
            parameter, values = sweep_values(args.sweep)
        except ValueError as err:
            raise CaseError(case.path, "--sweep", str(err)) from None
    kind = "campbell" if args.sweep else "motion_modes"
    marker = CAMPBELL if args.sweep else MOTION_MODES
    out = output_folder(args.out or default_folder(case.path, kind), marker, f"an earlier {kind} folder",
                        force=args.force)
    try:
        if args.sweep:
            result = problem.campbell(parameter, values, args.count, args.at, args.servos, args.observer)
        else:
            result = problem.motion_modes(args.count, args.at, args.servos, args.result, args.observer, args.frame)
    except ModesError as err:
        print(f"error: {case.path}: {' '.join(str(err).split())}", file=sys.stderr)
        return 1
    except CaseError:  # NAME of --sweep that is not a numeric field of the case: named by its path
        raise
    except ValueError as err:
        raise CaseError(case.path, "--observer" if args.observer else "--count", str(err)) from None
    try:
        written = result.write(out, force=args.force)
    except OSError as err:
        print(f"error: {out}: cannot write the modes: {err}", file=sys.stderr)
        return 1
    if args.sweep:
        lines = [f"Campbell diagram over {parameter} [{result.unit}]: {len(values)} values, modes followed by "
                 "their shapes", f"{parameter:>24}  " + "  ".join(f"{'f' + str(k + 1) + ' [Hz]':>12}"
                                                             for k in range(result.frequency.shape[1]))]
        lines += [f"{value:>24.6g}  " + "  ".join(f"{f:>12.6g}" for f in row)
                  for value, row in zip(result.values, result.frequency)]
    else:
        at = (f"the state of frame {args.frame} of {args.result} (t = {result.motion.t:g} s)" if args.frame is not None
              else f"the steady motion at t = {args.at:g} s ({result.motion.iterations} Newton iterations)")
        lines = [f"modes about {at}, servos {args.servos}", f"{'mode':>4}  {'f [Hz]':>12}  {'damping ratio':>13}  shape"]
        lines += [f"{r['mode']:>4}  {r['frequency_hz']:>12.6g}  {r['damping_ratio']:>13.4g}  {r['summary']}"
                  for r in written]
    say("\n".join(filter(None, [flexible_line(case), *lines, f"results in {out}"])))
    return 0
