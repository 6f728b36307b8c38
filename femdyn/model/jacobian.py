"""Products G(q, t) v of the constraint Jacobian of a model at chosen rows, on a sparsity pattern fixed
once: the matrix ``Model.jacobian(q, rows, t)`` builds, entry for entry in the same CSR order, through
the same compiled product (so the same numbers bit for bit), without SciPy's conversion from coordinates,
its row selection and its checks at every call -- the consistent accelerations take three such products
(``integrators.saddle``)."""
import numpy as np

from ..numerics.linalg import RowPattern


class JacobianRows:
    """G(q, t) at the rows ``rows`` (indices into the model's m rows, None: all) of ``model``, in CSR
    arrays (len(rows), n) whose entries are every family's dense blocks (explicit zeros kept) sorted by row,
    then column, as SciPy orders ``csr_matrix((data, (rows, cols)))``. Where a family lists a coordinate
    twice in one row (duplicates that SciPy sums) it falls back to ``Model.jacobian``."""

    def __init__(self, model, rows=None):
        self.model, self.rows = model, rows
        blocks = [f.rows.shape + f.dofs.shape[1:] for f in model.constraints]  # (K, rows, dofs) of each G
        r = np.concatenate([np.zeros(0, np.int64)] + [np.broadcast_to(f.rows[:, :, None], shape).ravel()
                                                      for f, shape in zip(model.constraints, blocks)])
        c = np.concatenate([np.zeros(0, np.int64)] + [np.broadcast_to(f.dofs[:, None, :], shape).ravel()
                                                      for f, shape in zip(model.constraints, blocks)])
        chosen = np.arange(model.m) if rows is None else np.asarray(rows, dtype=np.int64)
        place = -np.ones(model.m, dtype=np.int64)  # each row's place among the chosen ones, -1: not chosen
        place[chosen] = np.arange(chosen.size)
        at = place[r]
        order = np.lexsort((c, at))
        self._order = order = order[at[order] >= 0]  # the entries of the chosen rows, by row, then column
        at, c = at[order], c[order]
        self.duplicates = bool(np.any((at[1:] == at[:-1]) & (c[1:] == c[:-1])))
        self._pattern = RowPattern(at, c, (chosen.size, model.n))

    def times(self, q: np.ndarray, v: np.ndarray, t: float = 0.0) -> np.ndarray:
        """G(q, t) v at the rows, as ``Model.jacobian(q, rows, t) @ v``."""
        model = self.model
        if self.duplicates:
            return model.jacobian(q, self.rows, t) @ v
        data = np.concatenate([np.zeros(0)] + [(f.jacobian(q[f.dofs], t) if f.time_dependent else f.jacobian(q[f.dofs]))
                                               .ravel() for f in model.constraints])
        return self._pattern.times(data[self._order], v)
