"""Runs: the run record and the verdict against the reference (ireerv.reference)."""
