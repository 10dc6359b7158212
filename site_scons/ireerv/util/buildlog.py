"""Run build commands with their output in a log file, failing with the command and the log."""

from __future__ import annotations

import shlex
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

LOG_TAIL_LINES = 25


class BuildError(Exception):
    """A build step failed; carries the command and the log to read."""

    def __init__(self, message: str, *, command: Sequence[str] | None = None,
                 log_path: Path | None = None) -> None:
        super().__init__(message)
        self.command = list(command) if command else None
        self.log_path = log_path


def start_log(log_path: Path, title: str) -> None:
    """Start `log_path` afresh with a `# title` line."""
    log_path.parent.mkdir(parents=True, exist_ok=True)
    log_path.write_text(f"# {title}\n")


def log_tail(log_path: Path, lines: int = LOG_TAIL_LINES) -> str:
    """The last `lines` lines of the log; empty when it cannot be read."""
    try:
        text = log_path.read_text(errors="replace").splitlines()
    except OSError:
        return ""
    return "\n".join(text[-lines:])


def run_logged(command: Sequence[str | Path], log_path: Path, *, cwd: Path | None = None,
               env: Mapping[str, str] | None = None,
               error: type[BuildError] = BuildError) -> None:
    """Run `command` with stdout and stderr appended to `log_path`; raise `error` on failure."""
    cmd = [str(part) for part in command]
    where = f"cd {shlex.quote(str(cwd))} && " if cwd is not None else ""
    with log_path.open("a") as log:
        log.write(f"$ {where}{shlex.join(cmd)}\n")
        log.flush()  # the command's output must come after this line
        try:
            result = subprocess.run(cmd, cwd=cwd, env=None if env is None else dict(env),
                                    stdout=log, stderr=subprocess.STDOUT, check=False)
        except OSError as err:
            raise error(f"cannot run {cmd[0]}: {err}", command=cmd, log_path=log_path) from err
    if result.returncode != 0:
        raise error(
            f"command failed (exit status {result.returncode}): {shlex.join(cmd)}\n"
            f"log: {log_path}\n{log_tail(log_path)}",
            command=cmd, log_path=log_path)
