"""The saddle-point system of one model that both time steppers solve in every step (and, at rest,
the statics and the natural modes).

The energy-momentum scheme (000 eqs. 5-7, ``energy_momentum``) and the generalized-alpha scheme
(Arnold & Bruls 2007, ``generalized_alpha``) both solve for (q_n+1, lam) by Newton's method with

    R_q   = c M q_n+1 - inertia - F + Gbar^T lam,           R_lam = s Phi(q_n+1),
    K     = [[c M - dF/dq + d(Gbar^T lam)/dq,  s Gbar^T],
             [s G(q_n+1),                      0       ]]

in the unknowns (q_n+1, lam/s): the mass factor is c = 2/dt^2 and Gbar = Gbar(q_n, q_n+1) the
discrete gradient of the constraints (000 eq. 26: (G(q_n) + G(q_n+1))/2 for the quadratic ones) for
the energy-momentum scheme; c = beta' and Gbar = G(q_n+1) for generalized-alpha, whose dF/dq also
holds gamma' dF/dv. "inertia" collects what the scheme knows from the step's start (the energy-momentum
scheme forms c M (q_n+1 - q_n) - 2/dt M v_n instead, ``energy_momentum``). The multipliers
are scaled by s = c mbar, mbar the mean positive diagonal of M, so that both blocks of K have the
same magnitude.

At rest the same system with the mass factor c = 0 is Newton's for the static equilibrium
(``statics``; K the tangent stiffness -dF/dq + d(Gbar^T lam)/dq of the continuous forms at v = 0,
``static``), and with c = -sigma the shifted pencil of the natural modes (``modes``); ``accelerations``
solves [[M, Gbar^T], [G, 0]] once for consistent accelerations and multipliers (generalized-alpha's
start, the static multipliers at rest).

``SaddleSystem`` is everything about that system that does not change over a run: the active
constraint rows, the constant mass matrix M, the quadratic constraint families as one
``AffineConstraints`` batch and the layouts of the others, the forces sorted by what the steps
evaluate, and K's fixed sparsity pattern with the KLU factorisation on it (its ordering and first pivots
chosen on the acceleration matrix of a run's consistent start: ``accelerations``, ``first_pivots``). The
pattern's entries are listed once, in the order mass; batch (tangent, Gbar^T, G); each other family
(tangent, Gbar^T, G);
the tangent of each force that depends on q_n+1; each contributor knows the places of its entries in
the CSC data array (``SparsePattern.positions``). Every Newton iteration starts from a copy of the
mass entries (``newton_values``) and each contributor adds its entries at their places, so the array
goes to KLU's refactorisation without a list of contributions to gather: the steppers' iterations
evaluate the varying forces through their ``Force`` interface and hand them, with the mass, the
constant forces and the batch, to one compiled call (``assemble``, ``kernels.assemble``); the other
families add theirs in their own kernels. Where nothing is left to the interpreter -- no families
outside the batch, no varying forces but those the loop evaluates itself, the world beams' elasticity, the
bodies' material damping, joint friction and spring-dampers (rigid bodies, quadratic joints, constant loads,
world-vector beams) -- the whole iteration runs compiled (``compiled_residual``, ``loop_force``,
``kernels.newton_loop``), also with one joint-angle family and servo families that it adds as one
(``loop_servo``).
"""

import numpy as np
import scipy.sparse as sp

from ..beam.world.elasticity import NO_STEP
from ..forces.base import Force
from ..forces.friction import Friction
from ..forces.spring_damper import SpringDamper
from ..forces.viscous import ViscousDamping
from ..joints.angle import NO_FAMILY
from ..joints.batch import NO_PLACES, NONE, AffineConstraints
from ..joints.servo import NO_SERVO, LoopServos, joinable
from ..model.jacobian import JacobianRows
from ..numerics.lazy import compiled
from ..numerics.linalg import Analyses, CsrOperator, FixedPatternLU, SingularMatrixError, operator
from ..numerics.pattern import SparsePattern
from .families import FamilyLayout, add_at
from .kept_lu import KeptLU

KERNELS = __package__ + ".kernels"


class SaddleSystem:
    """The saddle-point system of ``model`` (module docstring); ``active_rows`` selects the
    independent constraint rows (None: all)."""

    def __init__(self, model, active_rows=None):
        self.model, self.n = model, model.n
        self.active = np.arange(model.m) if active_rows is None else np.asarray(active_rows)
        position = -np.ones(model.m, dtype=np.int64)  # place of each row among the active ones, -1: dropped
        position[self.active] = np.arange(self.active.size)
        self.size = model.n + self.active.size
        self._all_active = self.active.size == model.m  # the rows are distinct: all of them
        self.mass = model.mass_matrix.tocoo()
        diagonal = self.mass.diagonal()
        positive = diagonal[diagonal > 0]
        self.mbar = positive.mean() if positive.size else 1.0  # the multipliers' scale is c mbar

        rows, cols = [self.mass.row], [self.mass.col]
        quadratic, others = AffineConstraints.split(model.constraints)
        self.affine = AffineConstraints(quadratic, model.n, model.m)
        self.affine.place(position, model.n, rows, cols)
        self.families = [FamilyLayout(c, position, model.n, rows, cols) for c in others]
        self.servos = sorted({label for fam in self.families if fam.servo for label in fam.c.labels})
        self._servo_families = [fam for fam in self.families if fam.servo]

        self.forces = model.forces
        self.varying = [k for k, f in enumerate(self.forces) if f.tangent_mask is not None]  # depend on q_n+1
        self.constant = [k for k, f in enumerate(self.forces) if f.tangent_mask is None]
        # the forces whose work a step evaluates: the constant ones and the non-conservative varying ones
        # (a conservative varying force, a discrete gradient, does no work: ``worked_potential``)
        self.worked = [k not in self.varying or not f.conservative for k, f in enumerate(self.forces)]
        self.varying_worked = [k for k in self.varying if self.worked[k]]
        self._worked = [k for k, w in enumerate(self.worked) if w]
        self.dissipative = [k for k, f in enumerate(self.forces) if f.dissipative]
        self._invariant = bool(self.constant) and all(self.forces[k].invariant for k in self.constant)
        self._invariant_forces = {}  # force index: its vector (``applied``)
        # the forces with an internal state that a step advances (``Force.advance``, ``continuous_advance``)
        self.advancing = [k for k, f in enumerate(self.forces) if type(f).advance is not Force.advance]
        self.advancing_continuous = [k for k, f in enumerate(self.forces)
                                     if type(f).continuous_advance is not Force.continuous_advance]
        for k in self.varying:
            f = self.forces[k]
            i, j = f.tangent_pattern()
            rows.append(f.dofs[:, i].ravel())
            cols.append(f.dofs[:, j].ravel())
        self.pattern = SparsePattern((self.size,) * 2, np.concatenate(rows), np.concatenate(cols))
        bounds = np.cumsum([0] + [len(r) for r in rows])  # the groups of entries appended above

        def places(first, count):
            return self.pattern.positions[bounds[first] : bounds[first + count]]

        self._mass_at, self._batch_at = places(0, 1), places(1, 3)
        for k, fam in enumerate(self.families):
            fam.at = places(4 + 3 * k, 3)
            if fam.compiled:
                fam.places = fam.c.places(fam)
        self._force_at = {k: places(4 + 3 * len(self.families) + i, 1) for i, k in enumerate(self.varying)}
        # KLU's analyses of the pattern, shared by the run's LU and those of the consistent accelerations
        self.analyses = Analyses(self.pattern.indptr, self.pattern.indices)
        self.lu = KeptLU(self.pattern.indptr, self.pattern.indices, self.analyses)
        # ``assemble``'s fixed arguments: where the varying forces' values and tangents go (their
        # coordinates, where each force's values begin, their Newton-matrix places; in ``varying`` order)
        # (the places in int32: half the bytes of the largest index array that an iteration reads, 590 k places
        # at N = 4096 beam elements)
        def join(parts, dtype=np.int64):
            return np.concatenate(parts).astype(dtype) if parts else NO_PLACES.astype(dtype)

        self._varying_at = (join([self.forces[k].dofs.ravel() for k in self.varying]),
                            np.cumsum([0] + [self.forces[k].dofs.size for k in self.varying]).astype(np.int64),
                            join([self._force_at[k] for k in self.varying], np.int32))
        self._kernels = None  # ``KERNELS``, looked up on the first call of ``assemble``
        self._jacobian = None  # G at the active rows (``JacobianRows``), made on the first ``constraint_acceleration``
        # the whole Newton iteration is compiled (``kernels.newton_loop``) where the residual is: no
        # families outside the batch but those the loop adds itself (a family of joint angles, servo families
        # that it adds as one: ``loop_family``, ``loop_servo``), no
        # varying force but those it evaluates itself (the world beams' elasticity, ``loop_force``); M in
        # CSR arrays for it (its products are those of ``mass_operator`` bit for bit where M is diagonal, as
        # for rigid bodies, or a ``CsrOperator``)
        # and after it one viscous damping (``forces.viscous``: the bodies' material damping), one joint
        # friction (``forces.friction``) and one set of spring-dampers (``forces.spring_damper``), which the
        # loop evaluates with the kernels of the interpreted steps (``damper_arguments``, ``friction_arguments``,
        # ``spring_arguments``)
        def one(method):  # the varying force with the loop's ``method``, None where there is none or several
            found = [k for k in self.varying if hasattr(self.forces[k], method)]
            return found[0] if len(found) == 1 else None

        looped, self._damper, self._friction, self._springs = (one(m) for m in (
            "loop_arguments", "damper_arguments", "friction_arguments", "spring_arguments"))
        # those three as one set (issue 37): a model with any of them passes all three, an absent one as an
        # instance of none (``_no_forces``: the types of any, zero instances), a model with none None for each,
        # so that the loop has two machine codes for them (of each kind of beams), not one per combination
        present = (self._damper, self._friction, self._springs)
        self._loop_forces = None if present == (None,) * 3 else [
            (k, none if k is None else self.forces[k]) for k, none in zip(present, _no_forces())]
        self._looped = None if looped is None else self.forces[looped]
        angles = [k for k, fam in enumerate(self.families) if not fam.servo and hasattr(fam.c, "loop_arguments")]
        servos = [k for k, fam in enumerate(self.families) if fam.servo and fam.compiled]
        self._looped_families = (angles[0] if angles else None, servos)
        first = [not angles or k < angles[0] for k in servos]  # added before the joint angles
        joined = bool(servos) and len(set(first)) == 1 and joinable([self.families[k].c for k in servos])
        self._loop_servos = LoopServos([self.families[k].c for k in servos], [self.families[k].places for k in servos],
                                       first[0]) if joined else None
        self.compiled_residual = len(self.families) == min(len(angles), 1) + len(servos) \
            and (not servos or joined) and self.varying == [
                k for k in (looped, self._damper, self._friction, self._springs) if k is not None]
        self.mass_operator = CsrOperator(self.mass) if self.compiled_residual and self.varying else operator(self.mass)
        self.batch_arguments = (self._batch_at, *self.affine.arguments)  # its places in the matrix, then its data
        mass = sp.csr_matrix(self.mass)
        mass.sum_duplicates()
        self.mass_csr = (mass.indptr.astype(np.int32), mass.indices.astype(np.int32), mass.data.astype(np.float64))

    def loop_force(self, qa_local: list | None, tangents_first: bool, dt: float = 0.0,
                   velocity: tuple | None = None, states: list | None = None) -> tuple:
        """``kernels.newton_loop``'s arguments of the varying forces (``compiled_residual``): where their
        tangents go (before the batch's entries with ``tangents_first``, else after them), their
        coordinates and Newton-matrix places, the beams' ``loop_arguments`` (``NO_STEP`` without them), then the
        damping's ``damper_arguments`` for a step of length ``dt`` from its start ``qa_local`` (the varying
        forces' local coordinates, in ``varying`` order), or, with ``qa_local`` None, their continuous forms,
        the damping's at generalized-alpha's v = v~ + gamma' (q - q~) with ``velocity`` = (v~, q~, gamma') (n,),
        (n,), float; the friction's ``friction_arguments`` from its slip in the forces' ``states`` at the step's
        start, the spring-dampers' ``spring_arguments`` as the damping's -- all three where the model has any of
        them, those of an instance of none for an absent one (``_loop_forces``), else None each, whose code the
        kernels leave out (numba prunes its branches before typing: ``kernels.newton_loop``)."""
        kernels = self._kernels
        if kernels is None:
            kernels = self._kernels = compiled(KERNELS)
        F_at, _, dF_at = self._varying_at
        force = NO_STEP if self._looped is None else self._looped.loop_arguments(None if qa_local is None else
                                                                                 qa_local[0])
        later = kernels.TANGENTS_LATER if self.families else kernels.TANGENTS_LAST  # after the family's
        head = (kernels.TANGENTS_FIRST if tangents_first else later, F_at, dF_at, *force)
        if self._loop_forces is None:
            return (*head, None, None, None)
        (_, damper), (k, friction), (_, springs) = self._loop_forces
        slip = NONE if k is None else states[k]
        if qa_local is None:
            v, q, gamma_p = velocity
            return (*head, damper.damper_arguments(dt, velocity=(v[damper.dofs[0]], q[damper.dofs[0]], gamma_p)),
                    friction.friction_arguments(slip),
                    springs.spring_arguments(dt, velocity=(v[springs.dofs], q[springs.dofs], gamma_p)))
        local = dict(zip(self.varying, qa_local))
        qa = [np.zeros(f.dofs.shape) if j is None else local[j] for j, f in self._loop_forces]
        return (*head, damper.damper_arguments(dt, qa[0][0]), friction.friction_arguments(slip, qa[1][:, 0]),
                springs.spring_arguments(dt, qa[2]))

    def loop_family(self, starts: list, qa: np.ndarray | None = None) -> tuple:
        """``kernels.newton_loop``'s ``family``: the joint-angle family's ``loop_arguments`` (``starts``
        from ``begin_step``, ``qa`` the step's start, None for the continuous forms), or ``NO_FAMILY``."""
        angle = self._looped_families[0]
        fam = None if angle is None else self.families[angle]
        return NO_FAMILY if fam is None else fam.c.loop_arguments(starts[1 + angle], qa, fam.places)

    def loop_servo(self, starts: list) -> tuple:
        """``kernels.newton_loop``'s ``servo``: the servo families as one (``LoopServos.loop_arguments``, their
        targets at the step's end from ``begin_step``'s ``starts``), or ``NO_SERVO``."""
        servos = self._looped_families[1]
        return NO_SERVO if not servos else self._loop_servos.loop_arguments([starts[1 + k] for k in servos])

    @property
    def factorisations(self):
        """Newton matrices factorised so far (pivoting factorisations and refactorisations)."""
        return self.lu.factorizations + self.lu.refactorizations

    def newton_values(self, mass_factor):
        """A new CSC data array of the Newton matrix holding ``mass_factor`` M, to which the other
        contributions are added (a new array each time: ``KeptLU`` keeps the arrays it factored)."""
        return np.bincount(self._mass_at, weights=mass_factor * self.mass.data, minlength=self.pattern.nnz)

    def add_tangent(self, values, k, data, factor=1.0):
        """Adds ``factor`` times the tangent ``data`` of varying force k (in its ``tangent_pattern``
        order) to the CSC data ``values``."""
        add_at(values, self._force_at[k], data, factor)

    def scatter(self, dofs, values):
        """Local values (K, k) at ``dofs`` (K, k) summed into a vector of the n coordinates."""
        return np.bincount(dofs.ravel(), weights=values.ravel(), minlength=self.n)

    def applied(self, qa, qb, t, dt, states, which):
        """The discrete forces Fbar(qa, qb, t, dt) (n,) of the forces ``which`` (indices) with their
        ``states``, a new array, summed in the order of ``which``; at qa = qb the continuous forces of
        the constant ones. An ``invariant`` force (gravity) is scattered into a vector once and that
        vector added after."""
        F = np.zeros(self.n)
        for k in which:
            f = self.forces[k]
            fixed = self._invariant_forces.get(k) if f.invariant else None
            if fixed is None:
                q_a = qa[f.dofs]
                fixed = self.scatter(f.dofs, f.discrete_force(q_a, q_a if qb is qa else qb[f.dofs], t, dt, states[k]))
                if f.invariant:
                    self._invariant_forces[k] = fixed
            F += fixed
        return F

    def continuous_forces(self, q, v, t, dt, states, which, values=None, velocity_factor=0.0):
        """The continuous forces F(q, v, t) (n,) of the forces ``which`` (indices of varying forces where
        ``values`` is given); with the CSC data ``values`` of a Newton matrix, their entries
        -(dF/dq + velocity_factor dF/dv) are added to it (velocity_factor = gamma' for
        generalized-alpha, 0 where v does not follow q)."""
        F = np.zeros(self.n)
        for k in which:
            f = self.forces[k]
            q_f, v_f = q[f.dofs], v[f.dofs]
            if values is not None:
                F_f, dF_dq, dF_dv = f.continuous_tangents(q_f, v_f, t, dt, states[k])
                if dF_dv is not None and velocity_factor:
                    dF_dq = dF_dq + velocity_factor * dF_dv
                self.add_tangent(values, k, dF_dq, -1.0)
            else:
                F_f = f.continuous_force(q_f, v_f, t, dt, states[k])
            F += self.scatter(f.dofs, F_f)
        return F

    @staticmethod
    def stacked(parts):
        """The varying forces' local values or tangents ``parts`` (in the order of ``varying``) as one
        flat array, the order of ``assemble``'s places."""
        if len(parts) == 1:
            return parts[0].ravel()
        return np.concatenate([p.ravel() for p in parts]) if parts else NONE

    def assemble(self, values, qb, lam, starts, mass_factor, inertia, constant, F, dF, scale, tangent,
                 tangents_first, qa=None):
        """A Newton iteration's residual R (size,) and, with ``values`` (the CSC data holding
        mass_factor M, ``newton_values``; None: the residual only), its matrix entries in place:

            R[:n] = mass_factor M (qb - qa) - inertia - constant - F,  F the varying forces' values (``stacked``),

        the constraints' part at q_n+1 = qb (``constrain``: ``starts`` from ``begin_step``, ``lam`` all m multipliers,
        ``tangent`` the factor of d(Gbar^T lam)/dq, ``qa`` the step's start, or None for qb itself and the mass term
        mass_factor M qb) and -dF, the varying forces' tangents (``stacked``), added to ``values`` before the
        constraints' entries (``tangents_first``) or after them. One compiled call for the forces and the batch
        (``kernels.assemble``, the same numbers as ``applied``, ``constrain`` and ``add_tangent``); the families
        outside the batch in their own calls. Returns R."""
        kernels = self._kernels
        if kernels is None:
            kernels = self._kernels = compiled(KERNELS)
        F_at, F_bounds, dF_at = self._varying_at
        if values is None:
            where, data, at = kernels.TANGENTS_LATER, NONE, NO_PLACES
        else:
            where = kernels.TANGENTS_FIRST if tangents_first else \
                kernels.TANGENTS_LATER if self.families else kernels.TANGENTS_LAST
            data, at = values, self._batch_at
        R = np.empty(self.size)
        Mq = self.mass_operator @ (qb if qa is None else qb - qa)
        kernels.assemble(R, data, qb, lam, Mq, mass_factor, inertia, constant, F, F_at, F_bounds,
                         dF, dF_at, where, NONE if starts[0] is None else starts[0], scale, tangent, at,
                         *self.affine.arguments)
        if self.families:
            self._constrain_families(R, starts, qb if qa is None else qa, qb, lam, scale,
                                     None if values is None else tangent, values)
            if where == kernels.TANGENTS_LATER and values is not None:
                add_at(values, dF_at, dF, -1.0)
        return R

    def static(self, q, lam, t, states, starts, scale, mass_factor=0.0, tangents=True, v=None):
        """The static residual at rest, R = (-F(q, 0, t) + Gbar^T lam, scale Phi(q, t)), and (with
        ``tangents``, else None) the CSC data of [[mass_factor M + K, scale Gbar^T], [scale G, 0]],
        K = -dF/dq + d(Gbar^T lam)/dq the tangent stiffness; ``starts`` from
        ``begin_step(q, t, midpoint=False)`` hold the servo targets at t. The continuous forms at v = 0
        with no step (dt = inf): a damper's force vanishes, a load is taken at t; with ``v`` (n,) the
        forces and their dF/dq at that velocity instead (a moving state, ``motion``)."""
        values = self.newton_values(mass_factor) if tangents else None
        F = self.continuous_forces(q, np.zeros(self.n) if v is None else v, t, np.inf, states, self.varying, values)
        R = np.empty(self.size)
        R[: self.n] = -(self.applied(q, q, t, np.inf, states, self.constant) + F)
        self.constrain(R, starts, q, q, lam, scale, 2.0 if tangents else None, values)
        return R, values

    def accelerations(self, q, starts, applied, constraint_acceleration, kept=False):
        """The accelerations a (n,) and multipliers lam (m, zero on dropped rows) of
        M a + Gbar^T lam = ``applied``, G a = ``constraint_acceleration`` (active rows) at q, ``starts``
        from ``begin_step(q, t, midpoint=False)``; one sparse solve (not finite where the system is
        singular). KLU on the Newton matrix's fixed pattern, as every solve of the system (SciPy's
        SuperLU filled the saddle matrix of the 4096-element pendulum to 2.9 GB), factored anew with one
        step of refinement, its ordering chosen among the pattern's ``analyses``: with ``kept``, by the
        run's ``KeptLU`` where that has no factorisation yet (``first_pivots``: the Newton matrices take
        their first pivots from this one), else by an LU of its own. At rest with the
        constraints' accelerations zero, lam are the constraint forces of the instant of release, the
        static multipliers where q is an equilibrium (a = 0)."""
        s, lam = self.mbar, np.zeros(self.model.m)
        values = self._acceleration_matrix(q, starts)
        rhs = np.concatenate([applied, s * constraint_acceleration])
        try:  # factored anew each call: its numbers depend on this matrix alone, as in a resumed run
            if kept and not self.lu.refactorable:
                lu = self.lu
                lu.start(values)
            else:
                lu = FixedPatternLU(self.pattern.indptr, self.pattern.indices, self.analyses)
                lu.factor(values)
            x = lu.solve(rhs, refine=1)
        except SingularMatrixError:
            x = np.full(self.size, np.nan)
        lam[self.active] = s * x[self.n :]
        return x[: self.n], lam

    def _acceleration_matrix(self, q, starts):
        """The CSC data of [[M, s G^T], [s G, 0]] at q (s = mbar; ``starts`` from
        ``begin_step(q, t, midpoint=False)``): ``accelerations``' matrix."""
        values = self.newton_values(1.0)
        self.constrain(np.zeros(self.size), starts, q, q, np.zeros(self.model.m), self.mbar, 0.0, values)
        return values

    def first_pivots(self, q: np.ndarray, t: float) -> None:
        """The run's Newton LU (``lu``) factored on the acceleration matrix at (q, t) where it has no
        factorisation (``KeptLU.start``; nothing where that matrix is singular): what the consistent start
        of a run does (``accelerations`` with ``kept``), for a stepper that starts without it, so that its
        first Newton matrix is refactorised with the same pivots."""
        if not self.lu.refactorable:
            try:
                self.lu.start(self._acceleration_matrix(q, self.begin_step(q, t, midpoint=False)))
            except SingularMatrixError:
                pass

    def constraint_acceleration(self, q, v, t, dt):
        """d/dt (G v + dPhi/dt) at fixed accelerations for the active rows: one-sided difference
        along (q + s v, t + s), s = 0, eps, 2 eps with eps = dt/100 (three points, exact for the
        quadratic, time-independent rows)."""
        model, active, eps = self.model, self.active, 1e-2 * dt
        if self._jacobian is None:
            self._jacobian = JacobianRows(model, active)

        def velocity_residual(s):
            qs = q + s * v
            return self._jacobian.times(qs, v, t + s) + model.phi_time_derivative(qs, t + s)[active]

        return (-3.0 * velocity_residual(0.0) + 4.0 * velocity_residual(eps) - velocity_residual(2 * eps)) / (2 * eps)

    def consistent(self, t, q, v, states, dt, kept=False):
        """Consistent accelerations vd (n,) and multipliers lam (m) at (q, v, t) (``accelerations``, with
        ``kept`` as there):
        M vd + G^T lam = F(q, v, t), G vd = -d/dt(G) v - d^2 Phi/dt^2, the forces in their continuous
        forms with the ``states`` (``dt``: the step a force may need, e.g. friction's return map).
        Generalized-alpha's start, and the multipliers of a run at its first and last time node
        (``time_loop``). Not finite where the system is singular."""
        starts = self.begin_step(q, t, midpoint=False)
        applied = self.applied(q, q, t, dt, states, self.constant) + self.continuous_forces(
            q, v, t, dt, states, self.varying)
        return self.accelerations(q, starts, applied, -self.constraint_acceleration(q, v, t, dt), kept)

    def worked_potential(self, q, states):
        """The potential energy at q of the forces whose work a step evaluates (``worked``): the
        share V(qb) - V(qa) of the work. The others' potential enters only the energy of the run's
        history (``Model.potential_history``), so the steps do not evaluate it."""
        total = 0
        for k in self._worked:
            f = self.forces[k]
            total += f.potential(q[f.dofs], states[k])
        return total

    def servo_inputs(self, lam):
        """Generalised forces B^T u (n,) of the servo inputs u = -lam along the Boolean input matrix
        B (000 eq. 84)."""
        F = np.zeros(self.n)
        for fam in self._servo_families:
            F -= fam.forces(1.0, lam)
        return F

    def active_multipliers(self, lam):
        """A copy of the multipliers ``lam`` (m,) with those of the dropped rows zero: where Newton starts."""
        if self._all_active:
            return np.array(lam, dtype=np.float64)
        start = np.zeros(self.model.m)
        start[self.active] = lam[self.active]
        return start

    def advanced(self, qa, qb, states):
        """The forces' internal states at the end of a step from qa to qb (``Force.advance``; with qa
        None, of generalized-alpha's step that ends at qb, ``Force.continuous_advance``), a new list."""
        new = list(states)
        for k in self.advancing if qa is not None else self.advancing_continuous:
            f = self.forces[k]
            new[k] = f.advance(qa[f.dofs], qb[f.dofs], states[k]) if qa is not None else \
                f.continuous_advance(qb[f.dofs], states[k])
        return new

    def worked_forces(self, F, lam, forces=None):
        """F plus the ``forces`` (n,) of the worked varying forces (None where there are none) and the
        servo inputs' forces B^T u (``servo_inputs``): what a step's work takes (F itself where nothing
        is added)."""
        if forces is not None:
            F = F + forces
        return F + self.servo_inputs(lam) if self._servo_families else F

    def begin_step(self, qa, t_end, midpoint=True):
        """What the constraints reuse over the step from qa to time ``t_end``: G(qa) of the affine
        batch, then each other family's ``begin_step``. Without ``midpoint`` (Gbar = G(q_n+1),
        generalized-alpha) only the servo families need one (their trajectory at ``t_end``); the
        others get None, and so does the batch."""
        if midpoint:
            return [self.affine.jacobian(qa)] + [fam.c.begin_step(qa[fam.c.dofs], t_end) for fam in self.families]
        return [None] + [fam.c.begin_step(qa[fam.c.dofs], t_end) if fam.servo else None for fam in self.families]

    def constrain(self, R, starts, qa, qb, lam, scale, tangent=None, values=None):
        """The constraints' part of the residual and of the Newton matrix at q_n+1 = qb: adds Gbar^T lam
        to R[:n], writes ``scale`` Phi(qb) into the active multiplier rows of R, and with ``tangent``
        (else the residual only) adds the constraints' entries to the CSC data ``values`` (batch, then
        families: the tangent d(Gbar^T lam)/dqb times ``tangent``, scale Gbar, scale G).
        ``starts`` from ``begin_step``; ``lam`` holds all m multipliers; ``qa is qb``: the continuous
        forms at qb (each family evaluated with one array for both, see ``JointAngle``)."""
        self.affine.contribute(starts[0], qb, lam, R, scale, tangent, values, self._batch_at)
        self._constrain_families(R, starts, qa, qb, lam, scale, tangent, values)

    def _constrain_families(self, R, starts, qa, qb, lam, scale, tangent, values):
        """``constrain`` for the families outside the batch."""
        R_q = R[: self.n]
        same = qa is qb
        for fam, start in zip(self.families, starts[1:]):
            c = fam.c
            if fam.compiled:
                c.contribute(start, qa, qb, lam, R, scale, tangent, values, fam.places)
                continue
            q_b = qb[c.dofs]
            phi, G, Gbar, T = c.linearize(start, q_b if same else qa[c.dofs], q_b, lam[c.rows])
            R_q += fam.forces(Gbar, lam)
            R[fam.phi_at] = scale * phi[fam.phi_keep]
            if tangent is not None:
                fam.add(values, scale, tangent, Gbar, G, T)


def _no_forces() -> tuple:
    """A viscous damping, a joint friction and a set of spring-dampers of no instances: their loop arguments
    (``SaddleSystem.loop_force``) are typed as any's, and the kernels run none (``kernels.newton_loop``)."""
    no_dofs = np.zeros((0, 1), np.int64)
    return (ViscousDamping(NO_PLACES, NO_PLACES, NO_PLACES, NONE, NO_PLACES, sp.csr_matrix((0, 0))),
            Friction(no_dofs, (), NONE, NONE),
            SpringDamper(no_dofs, (), np.zeros((0, 3)), np.zeros((0, 3)), NONE, NONE, NONE))
