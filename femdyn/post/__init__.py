"""Post-processing and result writing: probe tables (``probes``), node tables of reactions and inputs
(``nodes``), the result folder of a run (``results``) and of the static and modal analyses
(``equilibrium``), the linear plant's files (``statespace``), the modes about a steady motion and the
Campbell diagram (``campbell``), plots (``plots``, ``run_plots``, drawn in a
child process by ``plot_child``), the viewer (``viewer``), result folders (``folders``: publish, lock,
incomplete marker, checkpoint), progress lines (``progress``) and interruption (``interrupt``)."""
