"""Run an image with tracing on, and turn the trace into a profile document.

QEMU: the board's own arguments plus `-d in_asm,exec,nochain -D <log>`; -icount stays, so
the counts are the instructions a normal run counts.  Cluster: the board's model with
+pctrace=<file> (patches/cluster-tb-pctrace.patch); the hook only observes, so cycles are
those of a normal run.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .. import simulators
from ..run.runner_output import RunnerOutputError, parse_runner_output
from ..simulators import qemu, verilator_cluster
from ..simulators.base import Image, OutputCallback, RunResult, Settings, SimulationError
from . import analyze, report, trace
from .program import Program

QEMU_TRACE_ARGS = ("-d", "in_asm,exec,nochain")


def traced_settings(settings: Settings, trace_file: Path) -> Settings:
    """The board's simulator settings with hart 0's instruction trace going to trace_file."""
    if settings.kind == qemu.KIND:
        return dataclasses.replace(
            settings, args=(*settings.args, *QEMU_TRACE_ARGS, "-D", str(trace_file)))
    if settings.kind == verilator_cluster.KIND:
        plusargs = (f"+pctrace={trace_file.resolve()}",)
        return dataclasses.replace(settings, extra={**settings.extra, "plusargs": plusargs})
    raise SimulationError(f"no profiling for simulator kind {settings.kind!r}")


def traced_run(settings: Settings, simulator: Path, image: Image, trace_file: Path, *,
               timeout: float | None = None, maxcycles: int | None = None,
               on_output: OutputCallback | None = None) -> RunResult:
    return simulators.run(traced_settings(settings, trace_file), simulator, image,
                          timeout=timeout, maxcycles=maxcycles, on_output=on_output)


def labels_and_figures(program_output: str) -> tuple[list[str], list[int]]:
    """The runner's CYCLES figures in print order, with their names."""
    try:
        parsed = parse_runner_output(program_output)
    except RunnerOutputError as err:
        raise analyze.ProfileError(f"cannot read the runner's output: {err}") from None
    labels, figures = [], []
    for name, value in (("startup", parsed.startup_cycles), ("inputs", parsed.input_cycles)):
        if value is not None:
            labels.append(name)
            figures.append(value)
    for i, value in enumerate(parsed.call_cycles):
        labels.append(f"call {i}")
        figures.append(value)
    if not labels:
        raise analyze.ProfileError("the run printed no CYCLES lines to split the trace by")
    return labels, figures


def profile_from_trace(settings: Settings, program: Program, trace_file: Path,
                       program_output: str, meta: dict[str, Any]) -> dict[str, Any]:
    if settings.kind == qemu.KIND:
        stream = trace.qemu_instructions(trace_file)
        unit, source = "instructions", "QEMU -icount shift=0 execution log, hart 0"
    else:
        stream = trace.cluster_instructions(trace_file)
        unit, source = "cycles", "cluster model, core 0 decode-stage trace (+pctrace)"
    labels, figures = labels_and_figures(program_output)
    windows = analyze.walk(stream, program)
    phases = [report.phase_json(label, window, program, figure)
              for (label, window), figure in zip(analyze.phase_windows(windows, labels),
                                                 figures, strict=True)]
    return report.document({**meta, "unit": unit, "source": source}, phases)


def summary(doc: dict[str, Any], top: int = 3) -> dict[str, Any]:
    """What the bench shows of a profile: per phase total, soft-float calls, top components."""
    out = {}
    for phase in doc["phases"]:
        out[phase["name"]] = {
            "total": phase["total"],
            "soft_float_calls": phase["soft_float_calls"],
            "top_components": [[c["name"], c["self"]] for c in phase["components"][:top]],
        }
    return out


def phase_names(doc: dict[str, Any]) -> Sequence[str]:
    return [p["name"] for p in doc["phases"]]
