"""The subcommands of ``femdyn`` (``cli``), one module each with its argument definitions (``add``) and
its handler (``handle``): ``run``, ``check``, ``compare``, ``bench`` (convergence), ``mesh``,
``sensitivity``, ``sweep``, ``map`` and ``view``. Argument types and options shared by several commands are in
``arguments``, what they print in ``output``.

A handler returns the exit code (0 done, 1 the run stopped early or its results could not be written,
130 interrupted) or raises ``io.case.CaseError`` for bad input, which ``cli.main`` reports in one line
with exit code 2.
"""
