"""Output of simulation results: ParaView series, CSV tables and plots."""
