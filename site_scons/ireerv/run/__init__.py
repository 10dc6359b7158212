"""Runs: the run record, the verdict and the host reference."""
