"""Argument types and options shared by the subcommands: finite and positive numbers, integers, the
sensitivity and sweep parameters, ``--at``/``--result``/``--servos`` of an equilibrium, ``--out`` with
``--force``, and ``--flexible``/``--elements``/``--segments`` with the case loaded under them (``load``; as
an ``api.problem.Problem``: ``problem``).
A type refuses its text with ``argparse.ArgumentTypeError``, which the parser reports as a usage error
(exit code 2)."""
import argparse
import importlib
import math
from pathlib import Path

from ..casefile.beams import MAX_ELEMENTS, MODELS, Options
from ..casefile.case import MAX_EVERY, CaseError, load_case
from ..studies.run import check_elements


def finite_float(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text}")
    return value


def positive_float(text):
    value = finite_float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
    return value


MAX_INT = 2**53  # the largest integer option: exact as a float, far inside NumPy's int64


def positive_int(text, largest=MAX_INT):
    """An integer from 1 to ``largest``."""
    if not (text.isascii() and text.isdigit()) or len(text) > 20 or not 1 <= int(text) <= largest:
        raise argparse.ArgumentTypeError(f"must be an integer from 1 to {largest}, got {text!r}")
    return int(text)


def nonnegative_int(text):
    if not (text.isascii() and text.isdigit()) or len(text) > 20 or int(text) > MAX_INT:
        raise argparse.ArgumentTypeError(f"must be an integer from 0 to {MAX_INT}, got {text!r}")
    return int(text)


def every(text):
    """A frame interval: an integer from 1 to ``case.MAX_EVERY``."""
    return positive_int(text, MAX_EVERY)


def elements(text):
    return positive_int(text, MAX_ELEMENTS)


def relative_step(text):
    value = positive_float(text)
    if not value <= 0.1:
        raise argparse.ArgumentTypeError(f"a relative step must be at most 0.1, got {text}")
    return value


def parsed(parse):
    """The argument type that reads its text with ``parse``, whose ValueError becomes the usage error."""
    def read(text):
        try:
            return parse(text)
        except ValueError as err:
            raise argparse.ArgumentTypeError(str(err)) from None
    read.__name__ = parse.__name__
    return read


def _parsed_by(module, name):
    """``parsed`` of the function ``name`` of ``studies.<module>``, imported as the first text is read: the
    commands that take no such argument (``femdyn run``) do not import the study."""
    def read(text):
        return parsed(getattr(importlib.import_module(f"..studies.{module}", __package__), name))(text)
    read.__name__ = name
    return read


parameters = _parsed_by("sensitivity", "parse_parameters")  # sensitivity parameters E,rho,b,h
sweep_parameter = _parsed_by("sweep", "parse_parameter")  # a swept parameter NAME=SPEC


def at_option(parser):
    """--at T: the time of the loads and servo targets of a static equilibrium."""
    parser.add_argument("--at", type=finite_float, default=0.0, metavar="T",
                        help="time [s] of the loads and servo targets of the equilibrium (default 0)")


def equilibrium_options(parser):
    """--at T, --result DIR (the run whose pose at T starts Newton) and --servos held|free."""
    at_option(parser)
    parser.add_argument("--result", type=Path, metavar="DIR",
                        help="a result folder of a run of the case: the equilibrium starts from its pose at --at")
    parser.add_argument("--servos", choices=("held", "free"), default="held",
                        help="servo rows kept (held, default) or dropped (free, their inputs constant)")


def out_options(parser, help):
    """--out DIR (described by ``help``) and --force."""
    parser.add_argument("--out", type=Path, metavar="DIR", help=help)
    force_option(parser)


def force_option(parser):
    """--force: write into --out even if it is a folder that femdyn did not make (``folders.output_folder``)."""
    parser.add_argument("--force", action="store_true",
                        help="replace --out even if it is a folder femdyn did not make (one without .femdyn), "
                        "deleting all it holds (without --force such a folder is refused unless it is empty)")


def flexible_options(parser):
    """--flexible, --elements and --segments: override the case's [flexible] settings."""
    parser.add_argument("--flexible", choices=MODELS,
                        help="model of the flexible (beam) bodies: fem, rayleigh-ritz or rigid (the rigid "
                        "limit, no elastic coordinates); overrides flexible.model")
    parser.add_argument("--elements", type=elements, metavar="N",
                        help="elements of each straight fem beam (overrides flexible.elements)")
    parser.add_argument("--segments", type=elements, metavar="K",
                        help="floating-frame segments of every fem beam, for large deflections (overrides "
                        "flexible.segments and the beams' segments)")


def options(args):
    """The ``beams.Options`` of --flexible, --elements and --segments."""
    return Options(model=args.flexible, elements=args.elements, segments=args.segments)


def load(args):
    """The case with the --flexible/--elements overrides of ``args``, --elements first checked against
    the history budget (``studies.run.check_elements``)."""
    check_elements(args.case, args.flexible, args.elements)
    case = load_case(args.case, options(args))
    check_overrides(args, case)
    return case


def load_problem(args):
    """The ``api.problem.Problem`` of the case that ``load`` reads (its flexible bodies' options kept for
    the analyses that read the case again: ``invert``, ``campbell``)."""
    from ..api.problem import Problem

    return Problem.from_case(load(args), options(args))


def check_overrides(args, case):
    """Refuse --flexible/--elements/--segments where they change nothing: no beam bodies, or no fem model."""
    given = [option for option, value in (("--flexible", args.flexible), ("--elements", args.elements),
                                          ("--segments", args.segments)) if value]
    if given and not case.model.flexible:
        raise CaseError(case.path, given[0], "the case has no flexible (beam) bodies")
    for option in ("--elements", "--segments"):
        if option in given and case.flexible.model != "fem":
            raise CaseError(case.path, option, f"sets the {option[2:]} of fem beams; the flexible bodies "
                            f"are {case.flexible.model}")


def check_cluster(args):
    """Refuse ``--workers`` beside ``--scheduler`` (``sweep``, ``map``): the scheduler has its own workers."""
    if args.scheduler and args.workers:
        raise CaseError(args.case, "--workers", "sets the size of the LocalCluster; the scheduler at "
                        "--scheduler has its own workers")
