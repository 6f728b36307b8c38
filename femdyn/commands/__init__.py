"""The subcommands of ``femdyn`` (``cli``), one module each with its argument definitions (``add``) and
its handler (``handle``): ``run``, ``invert``, ``static``, ``modes``, ``linearize``, ``compare``, ``bench``
(convergence), ``mesh``, ``check``, ``sensitivity``, ``sweep``, ``map``, ``view`` and ``warm_up``
(``femdyn warm-up``). Argument types and options shared by several commands are in ``arguments``, what they
print in ``output``, the optional libraries they need in ``extras``.

A handler returns the exit code (0 done, 1 the run stopped early or its results could not be written,
130 interrupted) or raises ``casefile.reader.CaseError`` for bad input, which ``cli.main`` reports in one line
with exit code 2.
"""
