"""The constraint Jacobian G(q, t) of a model at chosen rows on a sparsity pattern fixed once: the matrix
``Model.jacobian(q, rows, t)`` builds, entry for entry in the same CSR order (so its products are the
same bit for bit), without SciPy's conversion from coordinates and its row selection at every call --
the consistent accelerations evaluate G three times (``integrators.saddle``)."""
import numpy as np
import scipy.sparse as sp


class JacobianRows:
    """G(q, t) at the rows ``rows`` (indices into the model's m rows, None: all) of ``model``, a CSR
    matrix (len(rows), n) whose entries are every family's dense blocks (explicit zeros kept) sorted
    by row, then column, as SciPy orders ``csr_matrix((data, (rows, cols)))``. Where a family lists a
    coordinate twice in one row (duplicates that SciPy sums) it falls back to ``Model.jacobian``."""

    def __init__(self, model, rows=None):
        self.model, self.rows = model, rows
        r = np.concatenate([np.broadcast_to(c.rows[:, :, None], c.rows.shape + c.dofs.shape[1:]).ravel()
                            for c in model.constraints]) if model.constraints else np.zeros(0, np.int64)
        c = np.concatenate([np.broadcast_to(c.dofs[:, None, :], c.rows.shape + c.dofs.shape[1:]).ravel()
                            for c in model.constraints]) if model.constraints else np.zeros(0, np.int64)
        self.duplicates = np.unique(r * model.n + c).size < r.size
        chosen = np.arange(model.m) if rows is None else np.asarray(rows, dtype=np.int64)
        place = -np.ones(model.m, dtype=np.int64)  # each row's place among the chosen ones
        place[chosen] = np.arange(chosen.size)
        keep = np.flatnonzero(place[r] >= 0)
        order = keep[np.lexsort((c[keep], place[r[keep]]))]  # the entries of the chosen rows, by row, column
        self._order, self._indices = order, c[order].astype(np.int32)
        self._indptr = np.concatenate([[0], np.cumsum(np.bincount(place[r[order]], minlength=chosen.size))]
                                      ).astype(np.int32)
        self.shape = (chosen.size, model.n)

    def __call__(self, q: np.ndarray, t: float = 0.0) -> sp.csr_matrix:
        """G(q, t) at the rows, as ``Model.jacobian(q, rows, t)``."""
        if self.duplicates:
            return self.model.jacobian(q, self.rows, t)
        data = np.concatenate([(c.jacobian(q[c.dofs], t) if c.time_dependent else c.jacobian(q[c.dofs])).ravel()
                               for c in self.model.constraints]) if self.model.constraints else np.zeros(0)
        return sp.csr_matrix((data[self._order], self._indices, self._indptr), shape=self.shape)
