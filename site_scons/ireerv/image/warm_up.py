"""Whether the runner may warm a program up before its first measured call.

The warm-up (runtime/runner/runner.c) calls the program once at start-up with every
dispatch skipped, apart from staging its constants: the runtime's lazy set-up is done
and the weight cache filled then, so the first call costs what later ones do.  That is
sound only if the program's path does not depend on what its kernels write.  A vm-c
program reads a buffer's contents only through these operations and imports; one that
names any of them is not warmed up.
"""

from __future__ import annotations

from pathlib import Path

HEADER = "model_warm_up.h"
MACRO = "RUNNER_WARM_UP"

READS_CONTENTS = (
    "vm_buffer_load_",  # vm.buffer.load.*
    "vm_buffer_compare",
    "iree_vm_buffer_hash",
    '"hal.buffer.load"',  # the full HAL's import
)


def allowed(module_text: str) -> bool:
    """Whether the control program (vm-c source) never reads a buffer's contents."""
    return not any(name in module_text for name in READS_CONTENTS)


def header(warm: bool) -> str:
    return ("/* Written by the build from the control program (image/warm_up.py). */\n"
            "/* 1: its path does not depend on what the kernels write. */\n"
            f"#define {MACRO} {1 if warm else 0}\n")


def write_header(module_header: Path, target: Path) -> None:
    target.write_text(header(allowed(module_header.read_text())))
