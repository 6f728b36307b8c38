"""The subcommands of ``femdyn`` (``cli``), one module each with its argument definitions (``add``) and
its handler (``handle``): ``run``, ``invert``, ``static``, ``modes``, ``linearize``, ``compare``, ``bench``
(convergence), ``mesh``, ``check``, ``sensitivity``, ``sweep``, ``map``, ``view`` and ``warm_up``
(``femdyn warm-up``), with ``campbell`` for ``modes --moving`` and ``modes --sweep``. Argument types and
options shared by several commands are in ``arguments``, what they print in ``output``, the optional
libraries they need in ``extras``. The commands that analyse a case (``run``, ``static``, ``modes``,
``campbell``, ``linearize``, ``invert``) are thin clients of ``api.problem.Problem``: they read the case
into one (``arguments.load_problem``), call its analysis and its result's ``write``, and keep to parsing,
printing, progress, signals and exit codes.

A handler returns the exit code (0 done, 1 the run stopped early or its results could not be written,
130 interrupted) or raises ``casefile.reader.CaseError`` for bad input, which ``cli.main`` reports in one line
with exit code 2.
"""
