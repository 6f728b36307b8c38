"""Fixed sparsity pattern: the (row, col) list of every contribution is turned into a CSC structure
once; afterwards each Newton iteration only refills the data array, each entry added at its place
``positions`` (duplicates summed; ``scatter.add`` for the Newton matrices, ``values`` here)."""
import numpy as np
import scipy.sparse as sp


class SparsePattern:
    def __init__(self, shape, rows, cols):
        self.shape = shape
        rows, cols = np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)
        keys, self.positions = np.unique(cols * shape[0] + rows, return_inverse=True)  # entry -> CSC place
        self.indices = (keys % shape[0]).astype(np.int32)
        counts = np.bincount(keys // shape[0], minlength=shape[1])
        self.indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
        self.nnz = keys.size

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
