"""femdyn as a library: ``problem`` (``Problem``: a model with its initial state, solver settings, probes
and output options, built in Python or read from a case file by ``load``, and its analyses), their results
(``results``, ``linear``, ``campbell``, ``map``: named access, ``to_pandas``, ``write`` of the command
line's result folder), and ``sweep`` of a Python-built model on Dask. ``femdyn`` exports these names
(``femdyn.__all__``, imported on first use); this package imports none of its modules itself, so that a
command that needs ``problem`` alone (``femdyn run``) does not import the analyses' modules."""
