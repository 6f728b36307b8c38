"""Studies of a case: one run with its results (``run``), convergence studies and observed orders
(``convergence``, ``orders``, ``cantilever``), sensitivities of a probe's motion to beam parameters
(``sensitivity``, ``quantities``), parameter sweeps on Dask (``sweep``, ``sweep_cluster``,
``sweep_files``), the stable inversion of a servo problem (``inversion``) and the linear plant
(``linear``)."""
