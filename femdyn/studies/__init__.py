"""Studies of a case: one run with its results (``run``), convergence studies and observed orders
(``convergence``, ``orders``, ``cantilever``), sensitivities of a probe's motion to beam parameters
(``sensitivity``, ``quantities``), parameter sweeps on Dask (``sweep``, ``sweep_cluster``,
``sweep_files``), workspace maps on Dask (``map_plan``, ``map_pose``, ``map_point``, ``map_files``), the
stable inversion of a servo problem (``inversion``), the linear plant (``linear``) and the modes about a
steady motion over a parameter (``campbell``)."""
