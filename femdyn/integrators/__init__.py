"""Solvers of a model's equations: the energy-momentum and generalized-alpha steppers
(``energy_momentum``, ``generalized_alpha``) run by the time loop (``time_loop``: ``simulate``, the
history ``Results``) on a prepared initial state (``setup``) with Newton's method (``newton``) on the
saddle-point system (``saddle``, numba ``kernels``), the solver settings (``settings``), the summary's
checks (``diagnostics``), static equilibria (``statics``), natural modes (``modes``), the linear plant
(``linearize``), the linearisation about a steady motion (``motion``) and its modes over a parameter
(``campbell``), the zero dynamics of a servo problem (``zero_dynamics``) and its stable inversion
(``inversion``)."""
