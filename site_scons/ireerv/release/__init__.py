"""Hermetic, reproducible release builds."""
