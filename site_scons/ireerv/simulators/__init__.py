"""Simulators: one module per kind behind one small interface, registered by kind.

A kind module provides:
  KIND, KEYS                 its name in board.toml and the keys of its [simulator] table
  PROGRESS_UNIT              what its progress counts ("cycles", "instructions")
  CYCLE_LIMIT                whether a run stops at a cycle limit (MAXCYCLES)
  parse_settings(table, harts, timeout, where) -> Settings   check the board's table
  prepare(settings, fetcher, log_dir) -> Path   find or build the simulator executable
  identity(settings, fetcher) -> str   which simulator runs: a run depends on it
  run(settings, simulator, image, timeout=, maxcycles=, on_output=, on_progress=) -> RunResult
  traced(settings, trace_file) -> Settings   a run that traces hart 0's instructions
  trace_instructions(trace_file) -> iterator of (pc, cost)   read that trace
  TRACE_SOURCE               what the trace is, for a profile's readers
  debug_command(settings, simulator, elf, port) -> command   stopped, a GDB stub on the port
A new kind is one module added to KINDS below.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

from ireerv.simulators import qemu, verilator_cluster
from ireerv.simulators.base import (
    Image,
    OutputCallback,
    RunResult,
    Settings,
    SettingsError,
    SimulationError,
)
from ireerv.simulators.progress import ProgressCallback

KINDS: dict[str, ModuleType] = {m.KIND: m for m in (qemu, verilator_cluster)}


def kind(name: str) -> ModuleType:
    try:
        return KINDS[name]
    except KeyError:
        raise SimulationError(f"unknown simulator kind {name!r}; known: "
                              f"{', '.join(sorted(KINDS))}") from None


def parse_settings(table: Any, harts: int, where: str = "[simulator]") -> Settings:
    """A board's [simulator] table, checked by the module of its kind."""
    if not isinstance(table, dict):
        raise SettingsError(f"{where}: missing")
    name = table.get("kind")
    if name not in KINDS:
        raise SettingsError(f"{where}: kind must be one of {', '.join(sorted(KINDS))}")
    module = KINDS[name]
    unknown = sorted(set(table) - set(module.KEYS))
    if unknown:
        raise SettingsError(f"{where}: unknown key(s) {', '.join(unknown)}")
    timeout = table.get("timeout")
    if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout <= 0:
        raise SettingsError(f"{where}: timeout must be a positive number of seconds")
    return module.parse_settings(table, harts, float(timeout), where)


def prepare(settings: Settings, fetcher: Any = None, log_dir: Path | None = None) -> Path:
    return kind(settings.kind).prepare(settings, fetcher, log_dir)


def identity(settings: Settings, fetcher: Any = None) -> str:
    return kind(settings.kind).identity(settings, fetcher)


def run(settings: Settings, simulator: Path, image: Image, *, timeout: float | None = None,
        maxcycles: int | None = None, on_output: OutputCallback | None = None,
        on_progress: ProgressCallback | None = None) -> RunResult:
    """Run `image` with the board's limits unless `timeout`/`maxcycles` override them.
    on_progress, if given, gets the count simulated so far (progress_unit) while it runs."""
    limit = timeout if timeout is not None else settings.timeout
    return kind(settings.kind).run(settings, simulator, image, timeout=limit,
                                   maxcycles=maxcycles, on_output=on_output,
                                   on_progress=on_progress)


def limits(variables: Any) -> dict[str, Any]:
    """The limits a run was given on the command line (`TIMEOUT` in seconds, `MAXCYCLES`),
    as keywords for `run`; None where not given, so the board's own hold."""
    timeout, maxcycles = variables["TIMEOUT"], variables["MAXCYCLES"]
    return {"timeout": float(timeout) if timeout else None,
            "maxcycles": int(maxcycles) if maxcycles else None}


def check_cycle_limit(settings: Settings, board_name: str) -> None:
    """Refuse a cycle limit (MAXCYCLES) for a board whose simulator cannot stop at one,
    rather than run without it."""
    if not kind(settings.kind).CYCLE_LIMIT:
        raise SettingsError(f"MAXCYCLES applies to boards with a cycle-accurate simulator; "
                            f"{board_name} has none (use TIMEOUT for a wall-clock limit)")


def progress_unit(settings: Settings) -> str:
    """What a run's progress counts: "cycles" or "instructions"."""
    return kind(settings.kind).PROGRESS_UNIT


def traced(settings: Settings, trace_file: Path) -> Settings:
    """The settings of a run that traces hart 0's instructions into trace_file."""
    return kind(settings.kind).traced(settings, trace_file)


def trace_instructions(settings: Settings, trace_file: Path):
    """(pc, cost in progress_unit) for every instruction hart 0 ran, from a traced run."""
    return kind(settings.kind).trace_instructions(trace_file)


def debug_command(settings: Settings, simulator: Path, elf: Path, port: int) -> list[str]:
    """The simulator stopped at reset with a GDB stub on 127.0.0.1:port (SimulationError
    saying why when the kind has none)."""
    return kind(settings.kind).debug_command(settings, simulator, elf, port)


def trace_source(settings: Settings) -> str:
    """What the trace is, for a profile's readers."""
    return kind(settings.kind).TRACE_SOURCE


__all__ = ["KINDS", "Image", "RunResult", "Settings", "SettingsError", "SimulationError",
           "check_cycle_limit", "identity", "kind", "parse_settings", "prepare",
           "progress_unit", "run", "run_on_board", "trace_instructions", "trace_source", "traced",
           "debug_command"]


def run_on_board(board: Any, *, elf: Path, hex_file: Path | None = None,
                 simulator: Path | None = None, timeout: float | None = None,
                 maxcycles: int | None = None,
                 on_output: OutputCallback | None = None) -> RunResult:
    """Run an image on `board`'s simulator.  Simulators built from source (the
    cluster model) must be given as `simulator`; installed ones are found."""
    settings = board.simulator
    if simulator is None:
        if settings.kind != qemu.KIND:
            raise SimulationError(f"board {board.name} needs the path of its Verilator model")
        simulator = prepare(settings)
    return run(settings, simulator, Image(Path(elf), hex_file), timeout=timeout,
               maxcycles=maxcycles, on_output=on_output)
