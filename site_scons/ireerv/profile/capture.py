"""Run an image with tracing on (each simulator kind says how), and turn the trace into a
profile document."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from .. import simulators
from ..run.runner_output import RunnerOutputError, parse_runner_output
from ..simulators.base import Image, OutputCallback, RunResult, Settings
from ..simulators.progress import ProgressCallback
from . import analyze, report
from .program import Program


def traced_run(settings: Settings, simulator: Path, image: Image, trace_file: Path, *,
               timeout: float | None = None, maxcycles: int | None = None,
               on_output: OutputCallback | None = None,
               on_progress: ProgressCallback | None = None) -> RunResult:
    return simulators.run(simulators.traced(settings, trace_file), simulator, image,
                          timeout=timeout, maxcycles=maxcycles, on_output=on_output,
                          on_progress=on_progress)


# How many instructions pass between two progress reports of the analysis.
PROGRESS_STEP = 1 << 16


def counted(stream: Iterable[tuple[int, int]],
            on_progress: ProgressCallback | None) -> Iterator[tuple[int, int]]:
    """The trace's (pc, cost) pairs unchanged, telling on_progress the cost read so far
    (a trace of a long run takes minutes to analyse)."""
    if on_progress is None:
        yield from stream
        return
    done = 0
    for number, (pc, cost) in enumerate(stream, 1):
        done += cost
        if not number % PROGRESS_STEP:
            on_progress(done)
        yield pc, cost


def labels_and_figures(program_output: str) -> tuple[list[str], list[int]]:
    """The runner's CYCLES figures in print order, with their names."""
    try:
        parsed = parse_runner_output(program_output)
    except RunnerOutputError as err:
        raise analyze.ProfileError(f"cannot read the runner's output: {err}") from None
    labels, figures = [], []
    for name, value in (("startup", parsed.startup_cycles), ("warmup", parsed.warmup_cycles)):
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
                       program_output: str, meta: dict[str, Any],
                       on_progress: ProgressCallback | None = None) -> dict[str, Any]:
    stream = counted(simulators.trace_instructions(settings, trace_file), on_progress)
    unit, source = simulators.progress_unit(settings), simulators.trace_source(settings)
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

