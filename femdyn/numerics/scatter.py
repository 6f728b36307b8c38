"""The compiled refill of a fixed sparsity pattern (numba, cached on disk): contributions given in the
order of the pattern's (rows, cols) entries are added at their precomputed places in the CSC data
array (``pattern.SparsePattern.positions``), duplicates summed in entry order. The module imports
numba: it is imported where the refill runs, so that the command line starts without it.
"""
from .compiled import kernel


@kernel
def add(values, at, data, factor):
    """values[at[i]] += factor data[i] for every i, in order."""
    for i in range(at.size):
        values[at[i]] += factor * data[i]
