"""QEMU (`qemu-system-riscv32`): installed from the system's packages, takes the ELF.

The program ends the run through the SiFive test device; QEMU's exit status is
the program's exit code.
"""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import ireerv.simulators.base as base
from ireerv.inputs import identity as tool_identity
from ireerv.simulators import progress, traces

KIND = "qemu"
PROGRESS_UNIT = "instructions"  # with -icount shift=0, one per instruction
DEFAULT_BINARY = "qemu-system-riscv32"
PACKAGE_HINT = "Debian package qemu-system-misc"
DEFAULT_ARGS = ("-machine", "virt", "-smp", "4", "-bios", "none", "-nographic",
                "-icount", "shift=0")  # fmt: skip
KEYS = ("kind", "timeout", "binary", "args")
# No cycle counts, and nothing stops QEMU after a given number of instructions.
CYCLE_LIMIT = False
# Tracing: the board's own arguments plus QEMU's execution log; -icount stays, so the
# counts are the instructions a normal run counts.
TRACE_ARGS = ("-d", "in_asm,exec,nochain")
TRACE_SOURCE = "QEMU -icount shift=0 execution log, hart 0"


def traced(settings: base.Settings, trace_file: Path) -> base.Settings:
    """The settings with hart 0's executed instructions logged to trace_file."""
    return dataclasses.replace(settings, args=(*settings.args, *TRACE_ARGS, "-D",
                                               str(trace_file)))


def trace_instructions(trace_file: Path):
    return traces.qemu_instructions(trace_file)


def debug_command(settings: base.Settings, simulator: Path, elf: Path, port: int) -> list[str]:
    """QEMU stopped before the first instruction, its GDB stub on 127.0.0.1:port."""
    return [*command(simulator, settings.args, elf), "-S", "-gdb", f"tcp:127.0.0.1:{port}"]




def parse_settings(table: dict[str, Any], harts: int, timeout: float, where: str) -> base.Settings:
    args = table.get("args")
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise base.SettingsError(f"{where}: args must be a list of strings")
    if "-kernel" in args:
        raise base.SettingsError(f"{where}: args must not name the image (-kernel)")
    if "-smp" in args:
        index = args.index("-smp")
        if index + 1 >= len(args) or args[index + 1].split(",")[0] != str(harts):
            raise base.SettingsError(f"{where}: -smp must match harts = {harts}")
    binary = table.get("binary", DEFAULT_BINARY)
    if not isinstance(binary, str) or not binary:
        raise base.SettingsError(f"{where}: binary must be a program name")
    return base.Settings(KIND, timeout, binary=binary, args=tuple(args))


def prepare(settings: base.Settings, fetcher: object = None, log_dir: Path | None = None) -> Path:
    """The QEMU executable on PATH."""
    exe = shutil.which(settings.binary or DEFAULT_BINARY)
    if exe is None:
        raise base.SimulationError(f"{settings.binary} not found on PATH ({PACKAGE_HINT})")
    return Path(exe)


def identity(settings: base.Settings, fetcher: object = None) -> str:
    """Installed from the system: its version says which one."""
    return tool_identity.qemu(settings.binary or DEFAULT_BINARY)


def command(simulator: Path, args: Sequence[str], elf: Path) -> list[str]:
    return [str(simulator), *args, "-kernel", str(elf)]


def judge(command: Sequence[str], status: int | None, output: str, seconds: float,
          timeout: float) -> base.RunResult:
    """How the run ended, from QEMU's status and what it printed."""
    name = Path(command[0]).name
    qemu_errors = [ln for ln in output.splitlines() if ln.startswith(f"{name}:")]
    program = "\n".join(ln for ln in output.splitlines() if not ln.startswith(f"{name}:"))
    if output.endswith("\n"):
        program += "\n"
    args = (command, status, output, program, seconds)
    for number in base.STOPPING_SIGNALS:  # QEMU stops cleanly, status 0
        if any(f"terminating on signal {int(number)}" in ln for ln in qemu_errors):
            return base.interrupted(command, -number, output, seconds)
    if status is None:
        return base.finish(*args, base.TIMEOUT, None, f"no exit after {timeout:g} s")
    if status < 0:
        return base.finish(*args, base.CRASH, None, f"QEMU died on signal {-status}")
    if qemu_errors:
        return base.finish(*args, base.CRASH, None, qemu_errors[0])
    if status == 0:
        return base.finish(*args, base.PASSED, 0, "exit code 0")
    # The finisher's code is 16 bits; the BSP keeps its low byte non-zero.
    return base.finish(*args, base.FAILED, status, base.code_detail(status))


def run(settings: base.Settings, simulator: Path, image: base.Image, *, timeout: float,
        maxcycles: int | None = None, on_output: base.OutputCallback | None = None,
        on_progress: progress.ProgressCallback | None = None) -> base.RunResult:
    if not Path(image.elf).is_file():
        raise base.SimulationError(f"image {image.elf} does not exist")
    cmd = command(simulator, settings.args, Path(image.elf))
    if on_progress is None:
        status, output, seconds = base.stream(cmd, timeout, on_output)
        return judge(cmd, status, output, seconds, timeout)
    # A QMP socket to ask for the instruction count while it runs; the judged
    # command leaves it out (a temporary path, not part of what ran).
    with tempfile.TemporaryDirectory(prefix="ireerv-qmp-") as tmp:
        sock = Path(tmp) / "qmp.sock"
        with progress.QmpInstructionCount(sock, on_progress):
            status, output, seconds = base.stream(
                [*cmd, "-qmp", f"unix:{sock},server=on,wait=off"], timeout, on_output)
    return judge(cmd, status, output, seconds, timeout)


def run_qemu(elf: Path, *, binary: str = DEFAULT_BINARY, args: Sequence[str] = DEFAULT_ARGS,
             timeout: float = 300, on_output: base.OutputCallback | None = None) -> base.RunResult:
    """Run an ELF on QEMU with explicit arguments (tests and experiments)."""
    settings = base.Settings(KIND, timeout, binary=binary, args=tuple(args))
    if not Path(elf).is_file():
        raise base.SimulationError(f"image {elf} does not exist")
    return run(settings, prepare(settings), base.Image(Path(elf)), timeout=timeout,
               on_output=on_output)
