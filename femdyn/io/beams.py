"""Flexible bodies in case files: the ``[flexible]`` table and a body's ``beam`` table.

Schema::

    [flexible]                        # optional; settings of every beam body
    model = "fem"                     # fem (default) | rayleigh-ritz | rigid (the rigid limit)
    elements = 4                      # elements of each straight beam (default 4)
    modes = 3                         # optional: modal reduction to the lowest modes of each body
    geometric_stiffening = true       # default: true for fem, false otherwise

    [[bodies]]
    name = "leg1"
    beam = {length = 0.486, young = 70e9, density = 2332, b = 0.15, h = 0.05}
    #       or mesh = "../meshes/leg1.vtu" (a centre line, relative to the case file) instead of
    #       length; optional reference = "fixed-free" (003 section 4)

The body frame of a beam is the centre line's frame (origin at its first node, x1 along its chord);
joint points, loads and probes on the body are given in it. ``b`` is the width normal to the plane,
``h`` the depth in the plane (003 section 8.1). ``Options`` can override the ``[flexible]`` settings
and scale E, density, b, h of every beam (``femdyn run --flexible``, ``femdyn sensitivity``).
"""
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from ..beam.body import BeamBody, ModesError, Section
from ..integrators.settings import REPRESENTABLE
from .meshes import centreline_frame, read_centreline

MODELS = ("fem", "rayleigh-ritz", "rigid")
BEAM_KEYS = (("young", "density", "b", "h"), ("length", "mesh", "reference"))
PARAMETERS = {"E": "young", "rho": "density", "b": "b", "h": "h"}  # sensitivity names -> keys
MAX_ELEMENTS = 1_000_000  # elements of a straight beam (flexible.elements, femdyn --elements)


@dataclass(frozen=True)
class Options:
    """Settings of the flexible bodies; ``None`` keeps the case file's value. ``scale`` multiplies
    beam parameters of every body: {"young" | "density" | "b" | "h": factor}."""

    model: str | None = None
    elements: int | None = None
    modes: int | None = None
    stiffening: bool | None = None
    scale: dict = field(default_factory=dict)

    def with_scale(self, key, factor):
        return replace(self, scale={**self.scale, key: factor})


@dataclass(frozen=True)
class Settings:
    model: str
    elements: int
    modes: int | None
    stiffening: bool
    scale: dict


def read_settings(r, data, options):
    """The ``[flexible]`` table merged with ``options``."""
    table = r.table(data, "flexible", optional=("model", "elements", "modes", "geometric_stiffening"))
    model = options.model or r.choice(table.get("model", "fem"), "flexible.model", MODELS)
    elements = options.elements or r.integer(table.get("elements", 4), "flexible.elements", 1, MAX_ELEMENTS)
    modes = options.modes if options.modes is not None else (
        r.integer(table["modes"], "flexible.modes", 0) if "modes" in table else None)
    if options.stiffening is not None:
        stiffening = options.stiffening
    else:
        stiffening = r.boolean(table.get("geometric_stiffening", model == "fem"), "flexible.geometric_stiffening")
    if model == "rigid":
        modes, stiffening = 0, False
    if modes is not None and stiffening:
        r.fail("flexible.geometric_stiffening", "needs nodal elastic coordinates; it cannot be combined "
               "with modes (set geometric_stiffening = false)")
    return Settings(model, elements, modes, stiffening, dict(options.scale))


def _check_terms(r, f, values, nodes):
    """Refuse a beam whose section or element matrices the steps cannot represent: the area b h, the
    second moment b h^3/12, and the elements' stiffness (E A / l, E I / l, 12 E I / l^3) and mass
    (rho A l, rho A l^3) terms must lie within ``settings.REPRESENTABLE`` -- a section so thin that its
    inertia underflows to zero, or a modulus that overflows the stiffness, is refused naming the field
    to change (the beam itself where its elements are too short or too long)."""
    b, h, young, density = values["b"], values["h"], values["young"], values["density"]
    low, high = REPRESENTABLE
    lengths = np.hypot(*np.diff(nodes, axis=0).T)
    short, long = lengths.min(), lengths.max()
    area, inertia = b * h, b * h**3 / 12.0
    thin = "h" if not low <= h**3 <= high else "b"
    stiff = "young" if low <= short**3 and long <= high ** (1 / 3) else None  # else the elements' lengths
    terms = [("the area b h", [area], "h" if abs(np.log(h)) > abs(np.log(b)) else "b"),
             ("the second moment of area b h^3/12", [inertia], thin),
             ("the axial stiffness E A / l of an element", [young * area / long, young * area / short], stiff),
             ("the bending stiffness E I / l .. 12 E I / l^3 of an element",
              [young * inertia / long, 12.0 * young * inertia / short**3], stiff),
             ("the mass rho A l .. rho A l^3 of an element", [density * area * short**3, density * area * long],
              stiff and "density")]
    for term, extremes, key in terms:
        outside = [x for x in extremes if not low <= x <= high]
        if outside:
            r.fail(f"{f}.{key}" if key else f, f"{term} is {outside[0]:.3g} with b = {b:g}, h = {h:g}, E = {young:g}, rho = "
                   f"{density:g} and elements {short:.3g} to {long:.3g} long: beyond what the steps represent "
                   f"({low:g} to {high:g})")


def read_beam(r, spec, f, settings, folder):
    """A ``BeamBody`` from a body's ``beam`` table."""
    r.table(spec, f, *BEAM_KEYS)
    values = {k: r.number(spec[k], f"{f}.{k}", positive=True) * settings.scale.get(k, 1.0)
              for k in BEAM_KEYS[0]}
    if ("length" in spec) == ("mesh" in spec):
        r.fail(f, "give exactly one of length (a straight beam) or mesh (a centre-line file)")
    if "mesh" in spec:
        path = Path(r.string(spec["mesh"], f"{f}.mesh"))
        path = path if path.is_absolute() else folder / path
        try:
            nodes = centreline_frame(read_centreline(path))[0]
        except ValueError as err:
            r.fail(f"{f}.mesh", str(err))
        straight = np.abs(nodes[:, 1]).max() <= 1e-9 * np.ptp(nodes[:, 0])
        if straight:  # re-meshed with the requested number of elements
            nodes = np.column_stack([np.linspace(0.0, nodes[-1, 0], settings.elements + 1),
                                     np.zeros(settings.elements + 1)])
    else:
        length = r.number(spec["length"], f"{f}.length", positive=True)
        nodes = np.column_stack([np.linspace(0.0, length, settings.elements + 1), np.zeros(settings.elements + 1)])
    reference = r.string(spec.get("reference", "fixed-free"), f"{f}.reference")
    _check_terms(r, f, values, nodes)
    section = Section.rectangle(values["b"], values["h"])
    options = dict(reference=reference, modes=settings.modes)
    try:
        if settings.model == "fem":
            return BeamBody(nodes, section, values["young"], values["density"], **options)
        return BeamBody.rayleigh_ritz(nodes, section, values["young"], values["density"], **options)
    except ModesError as err:
        r.fail("flexible.modes", f"at most {err.available} for {f.removesuffix('.beam')} (the elastic coordinates "
               f"its centre line has under the reference conditions '{reference}'), got {err.modes}")
    except ValueError as err:
        where = f"{f}.reference" if "reference" in str(err) else f
        r.fail(where, str(err))
