"""Running iree-compile, iree-opt or an importer: on one thread, with a fixed process
layout and environment (fixed_layout), and within a time limit."""

from __future__ import annotations

import subprocess
from pathlib import Path

from ireerv.util import fixed_layout


class CompileError(Exception):
    """iree-compile, iree-opt or an importer rejected its input or could not run."""


# The MLIR tools' thread pool has been seen to deadlock on a 2-core machine (every thread
# in a futex wait, no CPU used, in 1 of several hundred compiles): run them on one thread,
# and never wait for one forever.
SINGLE_THREADED = "--mlir-disable-threading"
TOOL_TIMEOUT = 1800  # seconds


def run_tool(cmd: list[str], *, cwd: Path | None = None,
             env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run iree-compile, iree-opt or an importer; a hang becomes an error, not a stuck build.
    The tool runs with a fixed process layout and environment: its output must not depend
    on where its memory lies (fixed_layout)."""
    try:
        return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd,
                              env=fixed_layout.environment(env), timeout=TOOL_TIMEOUT,
                              preexec_fn=fixed_layout.enter)
    except subprocess.TimeoutExpired:
        raise CompileError(f"{Path(cmd[0]).name} did not finish within {TOOL_TIMEOUT} s "
                           f"(command: {' '.join(cmd)}); run the build again") from None
    except OSError as err:
        raise CompileError(f"cannot run {cmd[0]}: {err}") from None
