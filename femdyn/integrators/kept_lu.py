"""The LU of a run's Newton matrices (``KeptLU``): KLU on the fixed pattern, with what a resumed run needs
to factor the same matrices again."""
import numpy as np

from ..numerics.linalg import FixedPatternLU


class KeptLU(FixedPatternLU):
    """The LU of the Newton matrices, able to save and rebuild its factorisation for a resumed run
    (``time_loop.Checkpoint``). KLU's numbers depend on the run so far: the ordering is chosen on the
    first matrix (the acceleration matrix of the run's start, ``start``, or else its first Newton matrix),
    the pivots on the last pivoting factorisation, and every refactorisation reuses them.
    So the values of those matrices are kept (references to the arrays factored; a copy of a pivoting one
    that compiled code factored between others, ``klu.factor``), and
    ``restore`` factors them again in the same order: the first (same ordering), the last pivoting one
    with pivoting forced (same pivots), the current one by refactorisation (same factors) -- the solves
    after a resume are then those of the run that did not stop, bit for bit."""

    first = pivoted = current = None
    started = False  # whether ``first`` gave the pivots alone (``start``)
    # Pivots chosen anew without row scaling (``FixedPatternLU.unscaled_repivots``): on the pendulum of 4096
    # beam elements the first re-pivot of the run (in its first step, simplified Newton) filled L + U with
    # 1.2e8 entries in 37 s with KLU's row scaling, against 4.1e5 entries in 0.04 s unscaled; the
    # first matrix's candidates are factored scaled, and unscaled only where that outgrows KLU's
    # allocation (``FixedPatternLU._choose_ordering``: either scaling fills some first matrix 1e8-fold).
    unscaled_repivots = True

    def __init__(self, indptr, indices, analyses=None):
        super().__init__(indptr, indices, analyses)
        self._seen = 0  # the pivoting factorisations that ``pivoted`` has followed

    def _follow(self, values):
        """``pivoted`` after a factorisation of ``values``: those values where it pivoted, the copy
        that compiled code made of the last pivoting one's (``klu.factor``) where one came before."""
        if self.factorizations != self._seen:
            self.pivoted = values if self.counts[2] else self._pivoted.copy()
            self._seen = self.factorizations

    def refactored(self, values):
        """Records that compiled code (``kernels.newton_loop``, ``stepping``) factored the values
        ``values`` last, refactorised or with pivots chosen anew, as ``factor`` records its own."""
        self._Ax = self.current = values
        self._follow(values)

    def factor(self, values):
        values = np.ascontiguousarray(values, dtype=np.float64)
        super().factor(values)
        if self.first is None:
            self.first = values
        self._follow(values)
        self.current = values

    def start(self, values: np.ndarray) -> None:
        """The first pivots from a matrix on the pattern that is not a Newton matrix: ``factor`` of
        ``values`` (the ordering chosen on them), not counted among the Newton matrices' factorisations.
        The run's acceleration matrix [[M, s G^T], [s G, 0]] at its start (``SaddleSystem.accelerations``),
        which the consistent start solves anyway: the first Newton matrix, c M + K in its upper block, is
        then refactorised with those pivots inside the compiled iteration instead of choosing the ordering
        among two factorisations of its own in the interpreter (KLU pivots anew where the refactorisation
        is refused, ``numerics.klu.factor``). SingularMatrixError where that matrix is singular (a
        massless part that the constraints do not hold): nothing is chosen then, and the first Newton
        matrix chooses as before."""
        fresh = self.first is None
        self.factor(values)
        self.started = self.started or fresh
        self.factorizations = self._seen = self.factorizations - 1

    def state(self):
        if self.first is None:
            return {}
        return {"lu.first": self.first, "lu.pivoted": self.pivoted, "lu.current": self.current,
                "lu.pivoted_first": self.pivoted is self.first, "lu.refactored": self.current is not self.pivoted,
                "lu.factorizations": self.factorizations, "lu.refactorizations": self.refactorizations,
                "lu.scale": self._common.scale, "lu.started": self.started}

    def restore(self, state):
        if "lu.first" not in state:
            return
        for name in ("lu.first", "lu.pivoted", "lu.current"):  # read from a file: KLU reads as many values
            if np.shape(state[name]) != self.pattern[1].shape:
                raise ValueError(f"{name} holds {np.shape(state[name])} values, the Newton matrix {self.pattern[1].shape}")
        (self.start if state.get("lu.started", False) else self.factor)(state["lu.first"])
        self._common.scale = int(state.get("lu.scale", self._common.scale))  # rows unscaled if the run had turned scaling off
        if not state["lu.pivoted_first"]:
            self.refactor_rcond_drop = np.inf  # the refactorisation is refused: pivots chosen anew
            try:
                self.factor(state["lu.pivoted"])
            finally:
                del self.refactor_rcond_drop
        if state["lu.refactored"]:
            self.factor(state["lu.current"])
        self.factorizations = self._seen = int(state["lu.factorizations"])
        self.refactorizations = int(state["lu.refactorizations"])
