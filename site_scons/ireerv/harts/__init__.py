"""Several harts on one dispatch: what a compiled model's kernels read and write, and
whether the woken harts may run them from their own scratchpads."""
