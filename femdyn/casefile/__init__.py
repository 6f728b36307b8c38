"""The case-file front end: the TOML case format read into a ``Case`` (``case``: the model, its initial
state, solver settings, probes and output options), its reader with one-line errors (``reader``:
``CaseError``), the beam and segment tables (``beams``), servo motions (``motions``), initial states
(``initial_state``), command-line overrides (``overrides``), the arithmetic of its values
(``expressions``) and the one line said while a large model builds (``notice``)."""
