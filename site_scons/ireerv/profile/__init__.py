"""Where the cycles go: per function and per component, for start-up and for each call.

program: the image's instructions, symbols and components (from the disassembly and the
link map).  trace: the executed instructions of hart 0, from QEMU's execution log or the
cluster testbench's +pctrace file.  analyze: the call stacks, the phases and the Profile with
its JSON (schema "ireerv-profile/1").  plot: the SVG.  capture: runs a board's simulator
with tracing on.
"""
