"""One build at a time in a checkout: a second `scons` waits for the first.

Two builds writing one build/ folder corrupt each other (CMake's configure
step, half-written objects); the lock is held for the life of the process and
released by the kernel however it ends.
"""

from __future__ import annotations

import fcntl
from pathlib import Path
from typing import IO

_held: list[IO[str]] = []  # the open lock file, kept for the life of the process


def hold(build_dir: Path, say=print) -> None:
    """Take the checkout's build lock, waiting (with one line) while another build has it."""
    if _held:
        return
    build_dir.mkdir(parents=True, exist_ok=True)
    # Never written: a no-op build leaves every file of build/ as it was.
    handle = open(build_dir / ".scons.lock", "a")  # noqa: SIM115 - held until exit
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        say("scons: another build is running in this checkout; waiting for it", flush=True)
        fcntl.flock(handle, fcntl.LOCK_EX)
    _held.append(handle)
