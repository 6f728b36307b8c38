"""Fixed sparsity pattern: the (row, col) list of every contribution is turned into a CSC structure
once; afterwards each Newton iteration only refills the data array, each entry added at its place
``positions`` (duplicates summed; ``scatter.add`` for the Newton matrices, ``values`` here)."""
import numpy as np
import scipy.sparse as sp


class SparsePattern:
    """The CSC structure (``indptr``, ``indices``, ``nnz``) of the entries (``rows``, ``cols``) and the
    place of each entry in its data array (``positions``, int64). Built with one sort of the keys
    col * rows + row and a few arrays of the entries' length alive at a time (``np.unique`` with
    ``return_inverse`` held about twice as many: 40 MiB for the 8.0e5 entries of the pendulum with
    4096 beam elements, a transient peak that the allocator kept in the process's peak memory)."""

    def __init__(self, shape, rows, cols):
        self.shape = shape
        keys = np.array(cols, dtype=np.int64)  # col * rows + row, in place
        keys *= shape[0]
        keys += np.asarray(rows)
        order = np.argsort(keys)
        keys = keys[order]  # sorted
        new = np.empty(keys.size, dtype=bool)
        new[:1] = True
        np.not_equal(keys[1:], keys[:-1], out=new[1:])  # the first entry of each (row, col)
        unique = keys[new]
        del keys
        rank = np.cumsum(new)
        rank -= 1
        self.positions = np.empty_like(rank)  # entry -> CSC place
        self.positions[order] = rank
        del order, rank
        self.indices = (unique % shape[0]).astype(np.int32)
        counts = np.bincount(unique // shape[0], minlength=shape[1])
        self.indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
        self.nnz = unique.size

    def values(self, data):
        """CSC data array for the entries given in the order of (rows, cols), duplicates summed."""
        return np.bincount(self.positions, weights=data, minlength=self.nnz)

    def matrix(self, data):
        """CSC matrix with the given values for the entries in the order of (rows, cols)."""
        return self.csc(self.values(data))

    def csc(self, values):
        """CSC matrix of the CSC data array ``values`` (nnz,)."""
        return sp.csc_matrix((values, self.indices, self.indptr), shape=self.shape)


def block_entries(dofs_rows, dofs_cols, mask):
    """Global (rows, cols) of the masked local block entries of K instances: (K * nnz(mask),) each."""
    i, j = np.nonzero(mask)
    return dofs_rows[:, i].ravel(), dofs_cols[:, j].ravel()
