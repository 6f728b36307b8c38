"""Flexible bodies in case files: the ``[flexible]`` table and a body's ``beam`` table.

Schema::

    [flexible]                        # optional; settings of every beam body
    model = "fem"                     # fem (default) | rayleigh-ritz | rigid (the rigid limit)
    elements = 4                      # elements of each straight beam (default 4)
    modes = 3                         # optional: modal reduction to the lowest modes of each body
    geometric_stiffening = true       # default: true for fem bodies with nodal coordinates, false for
                                      # rayleigh-ritz, modal (modes) and rigid ones (as
                                      # ModelBuilder.add_beam's stiffening=None)
    axial = "cubic"                   # axial shape of fem beams: cubic (default; the world-vector
                                      # beams, beam.world) | linear (003's element, by carriers;
                                      # the default of modally reduced bodies)
    segments = 1                      # fem beams split into this many floating-frame segments
                                      # (default 1; large deflections: model.segments)

    [[bodies]]
    name = "leg1"
    beam = {length = 0.486, young = 70e9, density = 2332, b = 0.15, h = 0.05}
    #       or mesh = "../meshes/leg1.vtu" (a centre line, relative to the case file) instead of
    #       length; optional reference = "fixed-free" (003 section 4); a general section by
    #       area, iz (2D) or area, iy, iz, j (3D) instead of b, h; in 3D also poisson (nu) or
    #       shear (G, the shear modulus: nu = E / (2 G) - 1 in (-1, 0.5)); j at most iy + iz;
    #       segments = k overrides [flexible] segments for this body;
    #       damping = {ratio = 0.01} (modal damping ratio of every elastic mode; or a list per mode,
    #       mode 1 first, the modes beyond it undamped) or {alpha = 0.5, beta = 1e-5} (Rayleigh:
    #       D = alpha M + beta K, alpha in 1/s, beta in s) on the body's elastic coordinates
    #       (beam.damping); not for segmented links

Units are SI: lengths in m, young and shear in Pa, density in kg/m^3, area in m^2, iy, iz and j in m^4.

The body frame of a beam is the centre line's frame (origin at its first node, x1 along its chord);
joint points, loads and probes on the body are given in it. In the plane ``b`` is the width normal to
the plane and ``h`` the depth in it (003 section 8.1). In space the beam lies along the body's first
director d_1, ``h`` along the second (d_2, bending about d_3 with I_z = b h^3/12) and ``b`` along the
third (d_3, I_y = h b^3/12); a rectangle's St-Venant torsion constant J is computed from b and h
(``body.torsion_constant``, not the polar moment). A general section gives A, I_y (bending in the x1-x3
plane), I_z (bending in the x1-x2 plane, the plane of a 2D model) and J; its stresses are not known
(no outer fibres). A curved 3D mesh keeps its polyline: x1 along the chord, x2 across it towards the
nodes farthest from it, so that a planar curve lies in the x1-x2 plane with b normal to it
(``meshes.centreline_frame``); each element's section turns with it by the minimal rotation from x1
(``beam.spatial``), and such a body is embedded by carriers (``beam.spatial_ffr``: 10 model coordinates
per elastic coordinate, so keep its elements few or reduce it to modes). Rayleigh-Ritz bodies, modal reduction and
the linear axial shape are embedded by carriers in both dimensions (``beam.ffr``, ``beam.spatial_ffr``).
``Options`` can override the ``[flexible]`` settings and scale E, density,
b, h of every beam (``femdyn run --flexible``, ``femdyn sensitivity``).
"""
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from ..beam.body import BeamBody, ModesError, Section, chord_offset, torsion_constant
from ..beam.damping import Damping
from ..beam.elements import AXIAL_SHAPES
from ..integrators.settings import REPRESENTABLE
from ..io.meshes import MAX_LINES, centreline_frame, read_centreline

MODELS = ("fem", "rayleigh-ritz", "rigid")
MATERIAL = ("young", "density")
RECTANGLE = ("b", "h")
GENERAL = {2: ("area", "iz"), 3: ("area", "iy", "iz", "j")}  # a general section, by dimension
SPATIAL = ("iy", "j", "poisson", "shear")  # keys of 3D beams only
PLACEMENT = ("length", "mesh", "reference", "segments", "damping")
PARAMETERS = {"E": "young", "rho": "density", "b": "b", "h": "h"}  # sensitivity names -> keys
MAX_ELEMENTS = MAX_LINES  # elements of a straight beam (flexible.elements, femdyn --elements): 100 000
SEGMENTS = "segments"  # floating-frame segments of a link (model.segments), in [flexible] or a beam table


@dataclass(frozen=True)
class Options:
    """Settings of the flexible bodies; ``None`` keeps the case file's value. ``scale`` multiplies
    beam parameters of every body: {"young" | "density" | "b" | "h": factor}."""

    model: str | None = None
    elements: int | None = None
    modes: int | None = None
    stiffening: bool | None = None
    scale: dict = field(default_factory=dict)
    segments: int | None = None

    def with_scale(self, key, factor):
        return replace(self, scale={**self.scale, key: factor})


@dataclass(frozen=True)
class Settings:
    model: str
    elements: int
    modes: int | None
    stiffening: bool
    scale: dict
    axial: str = "cubic"
    segments: int | None = None  # [flexible] segments: of the beams whose table gives none
    every_segments: int | None = None  # Options.segments: of every beam, whatever its table says


def read_settings(r, data, options, dim=2):
    """The ``[flexible]`` table merged with ``options``, for a model of ``dim`` dimensions."""
    table = r.table(data, "flexible", optional=("model", "elements", "modes", "geometric_stiffening", "axial",
                                                SEGMENTS))
    model = options.model or r.choice(table.get("model", "fem"), "flexible.model", MODELS)
    elements = options.elements or r.integer(table.get("elements", 4), "flexible.elements", 1, MAX_ELEMENTS)
    modes = options.modes if options.modes is not None else (
        r.integer(table["modes"], "flexible.modes", 0) if "modes" in table else None)
    if options.stiffening is not None:
        stiffening = options.stiffening
    else:
        stiffening = r.boolean(table.get("geometric_stiffening", model == "fem" and modes is None),
                               "flexible.geometric_stiffening")
    # modally reduced planar bodies keep 003's element by default; spatial ones the world-vector beams'
    modal = modes is not None and dim == 2
    axial = r.choice(table.get("axial", "linear" if modal else "cubic"), "flexible.axial", AXIAL_SHAPES)
    if model == "rigid":
        modes, stiffening = 0, False
    if modes is not None and stiffening:
        r.fail("flexible.geometric_stiffening", "needs nodal elastic coordinates; it cannot be combined "
               "with modes (set geometric_stiffening = false)")
    segments = r.integer(table[SEGMENTS], f"flexible.{SEGMENTS}", 1, MAX_ELEMENTS) if SEGMENTS in table else None
    return Settings(model, elements, modes, stiffening, dict(options.scale), axial, segments, options.segments)


def read_segments(r, spec, f, settings):
    """The number of floating-frame segments of the beam body of table ``spec`` (``model.segments``):
    ``Options.segments``, else the beam table's ``segments``, else ``[flexible] segments``, else 1; a
    rigid link (``flexible.model = "rigid"``) is one body."""
    own = r.integer(spec[SEGMENTS], f"{f}.{SEGMENTS}", 1, MAX_ELEMENTS) if SEGMENTS in spec else None
    if settings.model == "rigid":
        return 1
    return settings.every_segments or own or settings.segments or 1


def _check_terms(r, f, values, keys, young, density, nodes):
    """Refuse a beam whose section or element matrices the steps cannot represent: the area, the second
    moments (and J), and the elements' stiffness (E A / l, E I / l, 12 E I / l^3) and mass (rho A l,
    rho A l^3) terms must lie within ``settings.REPRESENTABLE`` -- a section so thin that its inertia
    underflows to zero, or a modulus that overflows the stiffness, is refused naming the field to change
    (the beam itself where its elements are too short or too long). ``values``: the section's area,
    smallest second moment and (3D) torsion constant; ``keys``: for each the words and the field that
    blame it (``_section``), and the section as given."""
    low, high = REPRESENTABLE
    lengths = np.linalg.norm(np.diff(nodes, axis=0), axis=1)
    short, long = lengths.min(), lengths.max()
    area, inertia = values["area"], values["inertia"]
    stiff = "young" if low <= short**3 and long <= high ** (1 / 3) else None  # else the elements' lengths
    terms = [(*keys[name], [values[name]]) for name in ("area", "inertia", "j") if name in values]
    terms += [("the axial stiffness E A / l of an element", stiff, [young * area / long, young * area / short]),
              ("the bending stiffness E I / l .. 12 E I / l^3 of an element", stiff,
               [young * inertia / long, 12.0 * young * inertia / short**3]),
              ("the mass rho A l .. rho A l^3 of an element", stiff and "density",
               [density * area * short**3, density * area * long])]
    for term, key, extremes in terms:
        outside = [x for x in extremes if not low <= x <= high]
        if outside:
            r.fail(f"{f}.{key}" if key else f, f"{term} is {outside[0]:.3g} with {keys['given']}, E = {young:g}, "
                   f"rho = {density:g} and elements {short:.3g} to {long:.3g} long: beyond what the steps represent "
                   f"({low:g} to {high:g})")


def _section(r, spec, f, dim, scale, young, density, nodes):
    """The ``Section`` of a beam table -- a b x h rectangle or a general section (module docstring) --
    once its terms are representable (``_check_terms``)."""
    rectangle = [k for k in RECTANGLE if k in spec]
    general = [k for k in GENERAL[dim] if k in spec]
    if rectangle and general:
        r.fail(f"{f}.{general[0]}", f"give either b and h (a rectangle) or {', '.join(GENERAL[dim])} (a general "
               f"section), not both")
    if not rectangle and not general:
        r.fail(f, f"the section is missing: give b and h (a rectangle) or {', '.join(GENERAL[dim])}")
    if rectangle:
        b, h = (np.float64(r.number(spec[k], f"{f}.{k}", positive=True)) * scale.get(k, 1.0) if k in spec
                else r.fail(f"{f}.{k}", f"missing: a rectangle needs b and h (given: {rectangle[0]})")
                for k in RECTANGLE)
        thin = "h" if not REPRESENTABLE[0] <= h**3 <= REPRESENTABLE[1] else "b"
        keys = {"area": ("the area b h", "h" if abs(np.log(h)) > abs(np.log(b)) else "b"),
                "inertia": ("the second moment of area b h^3/12", thin), "given": f"b = {b:g}, h = {h:g}"}
        values = {"area": b * h, "inertia": b * h**3 / 12.0}
        if dim == 3:
            keys.update(inertia=("the second moment of area min(b h^3, h b^3)/12", "h" if h < b else "b"),
                        j=("the torsion constant J of the rectangle", "h" if h < b else "b"))
            values.update(inertia=min(b * h**3, h * b**3) / 12.0, j=torsion_constant(b, h))
        _check_terms(r, f, values, keys, young, density, nodes)
        return Section.rectangle(b, h)
    scaled = [k for k in RECTANGLE if k in scale]
    if scaled:
        r.fail(f, f"{scaled[0]} is varied, but this beam's section is given by {', '.join(GENERAL[dim])}, not b, h")
    given = {k: (r.number(spec[k], f"{f}.{k}", positive=True) if k in spec
                 else r.fail(f"{f}.{k}", f"missing: a general section needs {', '.join(GENERAL[dim])}"))
             for k in GENERAL[dim]}
    if dim == 3 and given["j"] > (given["iy"] + given["iz"]) * (1.0 + 1e-12):  # beyond round-off
        r.fail(f"{f}.j", f"the torsion constant j = {given['j']:g} exceeds the polar moment iy + iz = "
               f"{given['iy'] + given['iz']:g}, which bounds it for every section")
    weak = "iz" if dim == 2 or given["iz"] <= given["iy"] else "iy"
    keys = {"area": ("the area", "area"), "inertia": (f"the second moment of area {weak}", weak),
            "j": ("the torsion constant j", "j"), "given": ", ".join(f"{k} = {v:g}" for k, v in given.items())}
    values = {"area": given["area"], "inertia": given[weak], **({"j": given["j"]} if dim == 3 else {})}
    _check_terms(r, f, values, keys, young, density, nodes)
    return Section(given["area"], given["iz"], iy=given.get("iy"), j=given.get("j"))


def _shear(r, spec, f, young):
    """The shear modulus or Poisson's ratio of a 3D beam: {"shear": G} or {"poisson": nu}, nu or the
    nu = E / (2 G) - 1 that G implies with Young's modulus ``young`` in (-1, 0.5)."""
    given = [k for k in ("poisson", "shear") if k in spec]
    if len(given) == 2:
        r.fail(f"{f}.shear", "give one of poisson or shear (G = E / (2 (1 + nu))), not both")
    if not given:
        r.fail(f, "a 3D beam needs poisson (Poisson's ratio nu) or shear (the shear modulus G) for its torsion")
    if given[0] == "shear":
        shear = r.number(spec["shear"], f"{f}.shear", positive=True)
        if not young / (2.0 * shear) - 1.0 < 0.5:
            r.fail(f"{f}.shear", f"G = {shear:g} with E = {young:g} implies Poisson's ratio E / (2 G) - 1 = "
                   f"{young / (2.0 * shear) - 1.0:g}, outside (-1, 0.5): G must exceed E / 3")
        return {"shear": shear}
    nu = r.number(spec["poisson"], f"{f}.poisson")
    if not -1.0 < nu < 0.5:
        r.fail(f"{f}.poisson", f"Poisson's ratio must lie in (-1, 0.5), got {nu:g}")
    return {"poisson": nu}


def _centre_line(r, spec, f, dim, settings, folder):
    """The nodes (n, dim) of the beam's centre line in its body frame: a straight line of
    ``settings.elements`` elements along x1 for a length or a straight mesh, else the mesh's polyline
    (``meshes.centreline_frame``)."""
    if "mesh" in spec:
        path = Path(r.string(spec["mesh"], f"{f}.mesh"))
        path = path if path.is_absolute() else folder / path
        try:
            points = read_centreline(path, dim)
        except ValueError as err:
            r.fail(f"{f}.mesh", str(err))
        chord = np.linalg.norm(points[-1] - points[0])
        if not chord > 1e-12 * np.ptp(points, axis=0).max():
            r.fail(f"{f}.mesh", f"{path}: the beam's direction is undefined: its centre line ends where it starts "
                   "(the body's x1 axis runs along the chord from the first to the last node)")
        if chord_offset(points) > 1e-9 * chord:
            return centreline_frame(points)[0]
        length = chord  # straight: re-meshed with the requested number of elements
    else:
        length = r.number(spec["length"], f"{f}.length", positive=True)
    nodes = np.zeros((settings.elements + 1, dim))
    nodes[:, 0] = np.linspace(0.0, length, settings.elements + 1)
    return nodes


def read_damping(r, spec, f):
    """The ``Damping`` of a beam table's ``damping`` key (module docstring), or None without one."""
    if "damping" not in spec:
        return None
    field = f"{f}.damping"
    table = r.table(spec["damping"], field, optional=("ratio", "alpha", "beta"))
    if "ratio" in table:
        if "alpha" in table or "beta" in table:
            r.fail(field, "give either ratio (modal damping) or alpha and beta (Rayleigh damping), not both")
        value = table["ratio"]
        ratio = (tuple(r.vector(value, f"{field}.ratio", nonnegative=True)) if isinstance(value, list)
                 else r.number(value, f"{field}.ratio", nonnegative=True))
        return Damping(ratio=ratio)
    if "alpha" not in table and "beta" not in table:
        r.fail(field, "give ratio (modal damping ratios) or alpha and beta (Rayleigh damping)")
    alpha, beta = (r.number(table.get(k, 0.0), f"{field}.{k}", nonnegative=True) for k in ("alpha", "beta"))
    return Damping(alpha=alpha, beta=beta)


def read_beam(r, spec, f, settings, folder, dim=2):
    """A ``BeamBody`` from a body's ``beam`` table in a model of ``dim`` dimensions."""
    r.mapping(spec, f)
    for key in spec:
        if dim == 2 and key in SPATIAL:
            r.fail(f"{f}.{key}", f"only for beams in 3D models (torsion and bending out of the plane); a 2D beam "
                   f"has {', '.join(RECTANGLE)} or {', '.join(GENERAL[2])}")
    r.table(spec, f, MATERIAL, (*RECTANGLE, *GENERAL[dim], *PLACEMENT, *(SPATIAL[2:] if dim == 3 else ())))
    if ("length" in spec) == ("mesh" in spec):
        r.fail(f, "give exactly one of length (a straight beam) or mesh (a centre-line file)")
    young, density = (r.number(spec[k], f"{f}.{k}", positive=True) * settings.scale.get(k, 1.0) for k in MATERIAL)
    nodes = _centre_line(r, spec, f, dim, settings, folder)
    section = _section(r, spec, f, dim, settings.scale, young, density, nodes)
    shear = _shear(r, spec, f, young) if dim == 3 else {}
    reference = r.string(spec.get("reference", "fixed-free"), f"{f}.reference")
    options = dict(reference=reference, modes=settings.modes, damping=read_damping(r, spec, f), **shear)
    try:
        if settings.model == "rayleigh-ritz":
            return BeamBody.rayleigh_ritz(nodes, section, young, density, **options)
        return BeamBody(nodes, section, young, density, axial=settings.axial, **options)
    except ModesError as err:
        r.fail("flexible.modes", f"at most {err.available} for {f.removesuffix('.beam')} (the elastic coordinates "
               f"its centre line has under the reference conditions '{reference}'), got {err.modes}")
    except ValueError as err:
        where = f"{f}.reference" if "reference" in str(err) else f
        r.fail(where, str(err))
