"""Numerics under the solver: sparse LU by KLU through ctypes (``klu``, the libraries found by
``suitesparse``), CHOLMOD (``cholesky``), fixed sparsity patterns and their compiled refill and products
(``pattern``, ``scatter``, ``linalg``), director kinematics (``kinematics``), a memory of recent results
(``recent``), and the numba kernel modules imported on first use (``lazy``) as ``compiled`` declares them."""
