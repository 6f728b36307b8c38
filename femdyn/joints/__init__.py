"""Holonomic constraints, batched by family: rigid-body orthonormality, the ground anchor, joint pairs
(one module per joint type, ``registry``), augmented joint angles and slides, the carriers of flexible
bodies, servo rows and their trajectories, and the quadratic families as one batch (``batch``, numba
``kernels``)."""
