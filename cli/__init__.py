"""The targi-sim command line (installed as `targi_sim.cli`)."""
