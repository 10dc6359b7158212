"""Simulators: one module per kind behind one small interface, registered by kind."""
