"""Run an image on a board's simulator: QEMU or the cluster's Verilator model.

Output streams to a callback as it arrives; a wall-clock timeout kills a run
that never ends.  The result says why the run ended:
  passed       the program exited with 0 and printed something
  failed       it exited with another code, or printed nothing at all
  timeout      the wall-clock limit was reached
  cycle-limit  the cluster model reached +maxcycles
  crash        the program trapped (the BSP's "BSP TRAP" report), or the
               simulator died without the program ending the run
"""

from __future__ import annotations

import codecs
import os
import re
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ireerv.boards.board import Board

OutputCallback = Callable[[str], None]

PASSED, FAILED, TIMEOUT, CYCLE_LIMIT, CRASH = "passed", "failed", "timeout", "cycle-limit", "crash"

# Printed by bsp/common/trap.c when the program traps.
TRAP_MARKER = "BSP TRAP"
# Exit codes of the BSP itself (bsp/include/bsp.h).
BSP_EXIT_CODES = {125: "stack overflow", 126: "trap", 134: "abort"}

# The cluster testbench's own lines (tb/tb_top_verilator.sv and Verilator).
_TB_SUCCESS = "[TB] CLUSTER EXIT SUCCESS"
_TB_FAILURE = re.compile(r"CLUSTER EXIT FAILURE: (-?\d+)")
_TB_CYCLE_LIMIT = re.compile(r"\[TB\] max cycle limit reached \((\d+)\)")
_TB_LINE = re.compile(r"^(\[TB\]|\[\d+\] %|%Error|%Warning|- tb/|- \S+\.sv:|Aborting\.\.\.)")


class SimulationError(Exception):
    """The run cannot start: a missing simulator, image or bad argument."""


@dataclass(frozen=True)
class RunResult:
    reason: str  # PASSED, FAILED, TIMEOUT, CYCLE_LIMIT or CRASH
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


def _run(
    command: Sequence[str], timeout: float, on_output: OutputCallback | None
) -> tuple[int | None, str, float]:
    """Run `command`, streaming its merged stdout/stderr; (status or None on timeout, text, s)."""
    if timeout <= 0:
        raise SimulationError(f"timeout must be positive, not {timeout}")
    start = time.monotonic()
    try:
        proc = subprocess.Popen(
            list(command),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: a timeout kills all of it
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
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
    except BaseException:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        raise
    reader.join(timeout=10)
    assert proc.stdout is not None
    proc.stdout.close()
    return status, "".join(chunks), time.monotonic() - start


def _code_detail(code: int) -> str:
    known = BSP_EXIT_CODES.get(code)
    return f"exit code {code}" + (f" ({known})" if known else "")


def _finish(
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


# --------------------------------------------------------------------------- QEMU


def qemu_command(binary: str, args: Sequence[str], elf: Path) -> list[str]:
    return [binary, *args, "-kernel", str(elf)]


def run_qemu(
    elf: Path,
    *,
    binary: str = "qemu-system-riscv32",
    args: Sequence[str] = ("-machine", "virt", "-smp", "4", "-bios", "none", "-nographic",
                           "-icount", "shift=0"),
    timeout: float = 300,
    on_output: OutputCallback | None = None,
) -> RunResult:
    """Run an ELF on QEMU; the program ends the run through the SiFive test device."""
    if not Path(elf).is_file():
        raise SimulationError(f"image {elf} does not exist")
    exe = shutil.which(binary)
    if exe is None:
        raise SimulationError(f"{binary} not found on PATH (Debian package qemu-system-misc)")
    command = qemu_command(exe, args, Path(elf))
    status, output, seconds = _run(command, timeout, on_output)
    qemu_errors = [ln for ln in output.splitlines() if ln.startswith(f"{Path(binary).name}:")]
    program = "\n".join(ln for ln in output.splitlines()
                        if not ln.startswith(f"{Path(binary).name}:"))
    if output.endswith("\n"):
        program += "\n"
    if status is None:
        return _finish(command, status, output, program, seconds, TIMEOUT, None,
                       f"no exit after {timeout:g} s")
    if status < 0:
        return _finish(command, status, output, program, seconds, CRASH, None,
                       f"QEMU died on signal {-status}")
    if qemu_errors:
        return _finish(command, status, output, program, seconds, CRASH, None,
                       qemu_errors[0])
    if status == 0:
        return _finish(command, status, output, program, seconds, PASSED, 0, "exit code 0")
    # The finisher's code is 16 bits; the BSP keeps its low byte non-zero.
    return _finish(command, status, output, program, seconds, FAILED, status,
                   _code_detail(status))


# --------------------------------------------------------------------------- cluster


def cluster_command(simulator: Path, hex_file: Path, maxcycles: int) -> list[str]:
    return [str(simulator), f"+firmware={hex_file}", f"+maxcycles={maxcycles}"]


def run_cluster(
    simulator: Path,
    hex_file: Path,
    *,
    maxcycles: int,
    timeout: float = 1800,
    on_output: OutputCallback | None = None,
) -> RunResult:
    """Run a `objcopy -O verilog` image on the cluster's Verilator model."""
    simulator, hex_file = Path(simulator), Path(hex_file)
    if not (simulator.is_file() and os.access(simulator, os.X_OK)):
        raise SimulationError(f"cluster simulator {simulator} is not an executable file "
                              "(build it first: `scons simulator`)")
    if not hex_file.is_file():
        raise SimulationError(f"image {hex_file} does not exist")
    if maxcycles <= 0:
        raise SimulationError(f"maxcycles must be positive, not {maxcycles}")
    # The testbench reads +firmware with $readmemh: give it an absolute path.
    command = cluster_command(simulator.resolve(), hex_file.resolve(), maxcycles)
    status, output, seconds = _run(command, timeout, on_output)
    program = "".join(ln for ln in output.splitlines(keepends=True) if not _TB_LINE.match(ln))
    if status is None:
        return _finish(command, status, output, program, seconds, TIMEOUT, None,
                       f"no exit after {timeout:g} s")
    if _TB_SUCCESS in output and status == 0:
        return _finish(command, status, output, program, seconds, PASSED, 0, "exit code 0")
    failure = _TB_FAILURE.search(output)
    if failure:
        code = int(failure.group(1))
        return _finish(command, status, output, program, seconds, FAILED, code,
                       _code_detail(code))
    limit = _TB_CYCLE_LIMIT.search(output)
    if limit:
        return _finish(command, status, output, program, seconds, CYCLE_LIMIT, None,
                       f"cycle limit {limit.group(1)} reached")
    how = f"signal {-status}" if status < 0 else f"status {status}"
    return _finish(command, status, output, program, seconds, CRASH, None,
                   f"the simulator ended with {how} before the program exited")


# --------------------------------------------------------------------------- boards


def run_on_board(
    board: Board,
    *,
    elf: Path,
    hex_file: Path | None = None,
    simulator: Path | None = None,
    timeout: float | None = None,
    maxcycles: int | None = None,
    on_output: OutputCallback | None = None,
) -> RunResult:
    """Run an image on `board`'s simulator with the board's settings, overridable here.

    QEMU takes the ELF; the cluster takes the hex file and the path of its
    Verilator model (`simulator`), which the caller builds.
    """
    sim = board.simulator
    limit = timeout if timeout is not None else sim.timeout
    if sim.kind == "qemu":
        return run_qemu(elf, binary=sim.binary or "qemu-system-riscv32", args=sim.args,
                        timeout=limit, on_output=on_output)
    if sim.kind == "verilator-cluster":
        if simulator is None:
            raise SimulationError(f"board {board.name} needs the path of its Verilator model")
        if hex_file is None:
            raise SimulationError(f"board {board.name} runs a hex image; none given")
        cycles = maxcycles if maxcycles is not None else sim.maxcycles
        assert cycles is not None
        return run_cluster(simulator, hex_file, maxcycles=cycles, timeout=limit,
                           on_output=on_output)
    raise SimulationError(f"board {board.name}: unknown simulator kind {sim.kind!r}")
