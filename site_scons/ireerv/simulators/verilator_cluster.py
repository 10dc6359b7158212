"""The 4-core cluster's Verilator model: built from the pinned testbench, takes the hex image.

The testbench prints `[TB] CLUSTER EXIT SUCCESS` or `CLUSTER EXIT FAILURE: <code>`
when the program writes the exit device, and stops at `+maxcycles`.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import ireerv.simulators.base as base
from ireerv.simulators import progress, traces
from ireerv.simulators.testbench import parse as parse_testbench

KIND = "verilator-cluster"
PROGRESS_UNIT = "cycles"
KEYS = ("kind", "timeout", "maxcycles", "testbench")
CYCLE_LIMIT = True  # the testbench stops at +maxcycles
# Tracing: +pctrace=<file> (patches/cluster-tb-pctrace.patch); the hook only observes, so
# the cycles are those of a normal run.
TRACE_SOURCE = "cluster model, core 0 decode-stage trace (+pctrace)"


def traced(settings: base.Settings, trace_file: Path) -> base.Settings:
    """The settings with core 0's issued instructions written to trace_file."""
    plusargs = (f"+pctrace={trace_file.resolve()}",)
    return dataclasses.replace(settings, extra={**settings.extra, "plusargs": plusargs})


def trace_instructions(trace_file: Path):
    return traces.cluster_instructions(trace_file)


def debug_command(settings: base.Settings, simulator: Path, elf: Path, port: int) -> list[str]:
    """The testbench exposes no debug interface: the cores' debug module is not wired to a
    JTAG or remote-bitbang port, so no debugger can attach."""
    raise base.SimulationError(
        "the cluster testbench has no debug interface (the cores' debug module reaches no "
        "JTAG or remote-bitbang port); debug the same model on qemu-virt (BOARD=qemu-virt), "
        "or see cycle by cycle what core 0 ran with `scons profile`")

# The cluster testbench's own lines (tb/tb_top_verilator.sv and Verilator).
_TB_SUCCESS = "[TB] CLUSTER EXIT SUCCESS"
_TB_FAILURE = re.compile(r"CLUSTER EXIT FAILURE: (-?\d+)")
_TB_CYCLE_LIMIT = re.compile(r"\[TB\] max cycle limit reached \((\d+)\)")
_TB_LINE = re.compile(r"^(\[TB\]|\[\d+\] %|%Error|%Warning|- tb/|- \S+\.sv:|Aborting\.\.\.)")


def parse_settings(table: dict[str, Any], harts: int, timeout: float, where: str) -> base.Settings:
    maxcycles = table.get("maxcycles")
    if not isinstance(maxcycles, int) or isinstance(maxcycles, bool) or maxcycles <= 0:
        raise base.SettingsError(f"{where}: maxcycles must be a positive integer")
    bench = parse_testbench(table.get("testbench"), where)
    return base.Settings(KIND, timeout, maxcycles=maxcycles, extra={"testbench": bench})


def prepare(settings: base.Settings, fetcher: Any, log_dir: Path) -> Path:
    """The cluster model, built on demand from the pinned sources into the cache."""
    from ireerv.simulators import verilator_build  # needs the fetch layer

    return verilator_build.cluster_simulator(fetcher, settings.extra["testbench"], log_dir)


def identity(settings: base.Settings, fetcher: Any) -> str:
    """Built from pins: the cache entry's name is the key of everything it is built from."""
    from ireerv.simulators import verilator_build

    return verilator_build.cluster_simulator_entry(fetcher, settings.extra["testbench"]).name


# The testbench reads a file name plusarg into 1,024 bits: a longer name is cut short and
# the image never loads.  The simulator runs in the image's folder and is given names
# relative to it, whatever the depth of the checkout.
MAX_FILE_NAME = 128


def command(simulator: Path, hex_file: Path, maxcycles: int,
            plusargs: Sequence[str] = ()) -> list[str]:
    return [str(simulator), f"+firmware={hex_file}", f"+maxcycles={maxcycles}", *plusargs]


def _relative(plusarg: str, cwd: Path) -> str:
    """A +name=<absolute file> plusarg with the file named from `cwd`, checked for length."""
    name, sep, value = plusarg.partition("=")
    if not (sep and value.startswith("/")):
        return plusarg
    short = os.path.relpath(value, cwd)
    if len(short.encode()) > MAX_FILE_NAME:
        raise base.SimulationError(f"{name}: {short} is longer than the {MAX_FILE_NAME} "
                                   "characters the testbench reads")
    return f"{name}={short}"


def judge(command: Sequence[str], status: int | None, output: str, seconds: float,
          timeout: float) -> base.RunResult:
    """How the run ended, from the testbench's lines and the simulator's status."""
    stopped = base.interrupted(command, status, output, seconds)
    if stopped is not None:
        return stopped
    program = "".join(ln for ln in output.splitlines(keepends=True) if not _TB_LINE.match(ln))
    args = (command, status, output, program, seconds)
    if status is None:
        return base.finish(*args, base.TIMEOUT, None, f"no exit after {timeout:g} s")
    if _TB_SUCCESS in output and status == 0:
        return base.finish(*args, base.PASSED, 0, "exit code 0")
    failure = _TB_FAILURE.search(output)
    if failure:
        code = int(failure.group(1))
        return base.finish(*args, base.FAILED, code, base.code_detail(code))
    limit = _TB_CYCLE_LIMIT.search(output)
    if limit:
        limit_text = f"cycle limit {limit.group(1)} reached"
        return base.finish(*args, base.CYCLE_LIMIT, None, limit_text)
    how = f"signal {-status}" if status < 0 else f"status {status}"
    return base.finish(*args, base.CRASH, None,
                       f"the simulator ended with {how} before the program exited")


def run(settings: base.Settings, simulator: Path, image: base.Image, *, timeout: float,
        maxcycles: int | None = None, on_output: base.OutputCallback | None = None,
        on_progress: progress.ProgressCallback | None = None) -> base.RunResult:
    if image.hex is None:
        raise base.SimulationError("the cluster runs a hex image; none given")
    cycles = maxcycles if maxcycles is not None else settings.maxcycles
    assert cycles is not None
    return run_cluster(simulator, image.hex, maxcycles=cycles, timeout=timeout,
                       on_output=on_output, plusargs=settings.extra.get("plusargs", ()),
                       on_progress=on_progress)


def run_cluster(simulator: Path, hex_file: Path, *, maxcycles: int, timeout: float = 1800,
                on_output: base.OutputCallback | None = None,
                plusargs: Sequence[str] = (),
                on_progress: progress.ProgressCallback | None = None) -> base.RunResult:
    """Run a `objcopy -O verilog` image on the cluster's Verilator model.

    plusargs: more testbench options, such as the profile's +pctrace=<file>.
    on_progress: called with the cycles simulated so far, every PROGRESS_EVERY cycles."""
    simulator, hex_file = Path(simulator), Path(hex_file)
    if not (simulator.is_file() and os.access(simulator, os.X_OK)):
        raise base.SimulationError(f"cluster simulator {simulator} is not an executable file "
                              "(build it first: `scons simulator`)")
    if not hex_file.is_file():
        raise base.SimulationError(f"image {hex_file} does not exist")
    if maxcycles <= 0:
        raise base.SimulationError(f"maxcycles must be positive, not {maxcycles}")
    folder = hex_file.resolve().parent
    cmd = [_relative(arg, folder) for arg in command(simulator.resolve(), hex_file.resolve(),
                                                       maxcycles, plusargs)]
    if on_progress is None:
        status, output, seconds = base.stream(cmd, timeout, on_output, folder)
        return judge(cmd, status, output, seconds, timeout)
    lines = progress.TestbenchLines(on_output, on_progress)
    try:
        status, output, seconds = base.stream(
            [*cmd, f"+progress={progress.PROGRESS_EVERY}"], timeout, lines, folder)
    finally:
        lines.close()
    return judge(cmd, status, progress.strip_progress(output), seconds, timeout)
