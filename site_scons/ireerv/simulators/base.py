"""What every simulator kind shares: the run result, streaming a run, and its verdict.

A run streams its output to a callback as it arrives; a wall-clock timeout
kills a run that never ends.  The result says why the run ended:
  passed       the program exited with 0 and printed something
  failed       it exited with another code, or printed nothing at all
  timeout      the wall-clock limit was reached
  cycle-limit  the simulator's cycle limit was reached
  crash        the program trapped (the BSP's "BSP TRAP" report), or the
               simulator died without the program ending the run
  interrupted  the user pressed Ctrl-C: the simulator runs in the terminal's
               process group, so it gets the SIGINT too and stops; nothing is
               known about the program
"""

from __future__ import annotations

import codecs
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

OutputCallback = Callable[[str], None]

PASSED, FAILED, TIMEOUT, CYCLE_LIMIT, CRASH = "passed", "failed", "timeout", "cycle-limit", "crash"
INTERRUPTED = "interrupted"

# Printed by bsp/common/trap.c when the program traps.
TRAP_MARKER = "BSP TRAP"
# Exit codes of the BSP itself (bsp/include/bsp.h).
BSP_EXIT_CODES = {124: "barrier timeout", 125: "stack overflow", 126: "trap", 134: "abort"}


class SimulationError(Exception):
    """The run cannot start: a missing simulator, image or bad argument."""


class SettingsError(Exception):
    """A board's [simulator] table is wrong."""


@dataclass(frozen=True)
class Settings:
    """A board's [simulator] table, checked by its kind."""

    kind: str
    timeout: float  # default wall-clock limit of a run, seconds
    maxcycles: int | None = None  # default cycle limit, for kinds that count cycles
    binary: str | None = None  # the simulator's executable name, for installed simulators
    args: tuple[str, ...] = ()  # machine arguments (everything but the image)
    extra: dict[str, Any] = field(default_factory=dict)  # kind-specific, already checked


@dataclass(frozen=True)
class Image:
    """The files of a linked image a simulator may load."""

    elf: Path
    hex: Path | None = None

@dataclass(frozen=True)
class RunResult:
    reason: str  # PASSED, FAILED, TIMEOUT, CYCLE_LIMIT, CRASH or INTERRUPTED
    exit_code: int | None  # the program's exit code, when it reported one
    returncode: int | None  # the simulator's status; None when killed on timeout
    output: str  # everything the simulator printed
    program_output: str  # the program's text alone (testbench lines removed)
    seconds: float
    detail: str  # one line on why the run ended
    command: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        return self.reason == PASSED


def stream(
    command: Sequence[str], timeout: float, on_output: OutputCallback | None,
    cwd: Path | None = None,
) -> tuple[int | None, str, float]:
    """Run `command` (in `cwd`), streaming its merged stdout/stderr; (status or None on
    timeout, text, s)."""
    if timeout <= 0:
        raise SimulationError(f"timeout must be positive, not {timeout}")
    start = time.monotonic()
    try:
        proc = subprocess.Popen(
            list(command),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            cwd=cwd,
            # In the caller's process group: Ctrl-C in the terminal stops it too.
        )
    except OSError as err:
        raise SimulationError(f"cannot start {command[0]}: {err}") from None
    chunks: list[str] = []

    def pump() -> None:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        while True:
            data = os.read(fd, 4096)
            text = decoder.decode(data, final=not data)
            if text:
                chunks.append(text)
                if on_output is not None:
                    on_output(text)
            if not data:
                return

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    try:
        status: int | None = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        status = None
        proc.kill()  # the simulators start no processes of their own
        proc.wait()
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    reader.join(timeout=10)
    assert proc.stdout is not None
    proc.stdout.close()
    return status, "".join(chunks), time.monotonic() - start


# Signals that stop a run from outside it: no verdict on the program, no record.
STOPPING_SIGNALS = {signal.SIGINT: "Ctrl-C (SIGINT)",
                    signal.SIGTERM: "SIGTERM (a timeout or a kill from outside the build)"}


def interrupted(command: Sequence[str], status: int | None, output: str,
                seconds: float) -> RunResult | None:
    """The result of a run stopped by Ctrl-C (SIGINT) or SIGTERM, or None."""
    if status is None or -status not in STOPPING_SIGNALS:
        return None
    return RunResult(INTERRUPTED, None, status, output, "", seconds,
                     f"stopped by {STOPPING_SIGNALS[-status]}", tuple(command))


def code_detail(code: int) -> str:
    known = BSP_EXIT_CODES.get(code)
    return f"exit code {code}" + (f" ({known})" if known else "")


def finish(
    command: Sequence[str],
    status: int | None,
    output: str,
    program_output: str,
    seconds: float,
    reason: str,
    exit_code: int | None,
    detail: str,
) -> RunResult:
    if reason == PASSED and not program_output.strip():
        reason, detail = FAILED, "the program exited with 0 but printed nothing"
    if reason in (PASSED, FAILED) and TRAP_MARKER in program_output:
        reason = CRASH
        line = next(ln for ln in program_output.splitlines() if TRAP_MARKER in ln)
        detail = line.strip()
    return RunResult(reason, exit_code, status, output, program_output, seconds, detail,
                     tuple(command))
