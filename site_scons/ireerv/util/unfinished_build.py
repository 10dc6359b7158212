"""A build that did not finish leaves files no signature vouches for; the next one removes them.

SCons records what it built (.sconsign.dblite, at the top of the checkout) only as
it exits.  A build killed before then (kill -9, an out-of-memory kill, a power
cut) leaves objects and images written from sources that may since have changed
back, or a link's empty output, and with their old records a later build would
trust them.  So each build marks build/ as it starts and removes the mark once
the signatures are on disk; a build that finds the mark removes every file under
build/ written since it was made, and those are built again.

A CMake build tree written since the mark (the IREE runtime's) is removed whole:
the libraries SCons takes from it would be trusted by their old records, and
single files of a configured tree cannot be removed safely (files CMake writes
as it configures are not rebuilt by Ninja).
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import SCons.SConsign

MARK_NAME = ".build-in-progress"
# Not written by a build: the lock file is only opened, the mark is the reference.
_NEVER_UNTRUSTED = {MARK_NAME, ".scons.lock"}
_CMAKE_TREE = "CMakeCache.txt"


def _written_since(path: Path, since_ns: int) -> bool:
    try:
        return path.stat(follow_symlinks=False).st_mtime_ns >= since_ns
    except FileNotFoundError:
        return False


def _files_under(folder: Path) -> list[Path]:
    return [Path(root) / name for root, _, names in os.walk(folder) for name in names]


def untrusted(build_dir: Path, since_ns: int) -> tuple[list[Path], int]:
    """What a build that started at `since_ns` may have left half-made: (the files and
    CMake trees to remove, how many files it wrote)."""
    remove: list[Path] = []
    written = 0
    for root, dirs, names in os.walk(build_dir):
        folder = Path(root)
        if _CMAKE_TREE in names:
            count = sum(_written_since(f, since_ns) for f in _files_under(folder))
            if count:
                remove.append(folder)
                written += count
            dirs[:] = []
            continue
        for name in names:
            path = folder / name
            if (folder != build_dir or name not in _NEVER_UNTRUSTED) \
                    and _written_since(path, since_ns):
                remove.append(path)
                written += 1
    return remove, written


def recover(build_dir: Path, say: Callable[[str], None] = print) -> int:
    """If the last build here did not finish, remove what it wrote (one line says so);
    the number of files it wrote."""
    mark = build_dir / MARK_NAME
    try:
        since_ns = mark.stat().st_mtime_ns
    except FileNotFoundError:
        return 0
    remove, written = untrusted(build_dir, since_ns)
    for path in remove:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)
    if written:
        say(f"scons: the last build in this checkout did not finish; the {written} "
            f"{'files it wrote are' if written != 1 else 'file it wrote is'} removed and built "
            "again")
    mark.unlink()  # last: a build killed while recovering leaves the mark for the next
    return written


def begin(build_dir: Path) -> None:
    """Mark build/ as being written; every file the build writes is as new as the mark."""
    build_dir.mkdir(parents=True, exist_ok=True)
    (build_dir / MARK_NAME).write_text(
        f"a build started at {time.strftime('%Y-%m-%d %H:%M:%S')}, process {os.getpid()}\n")


def end(build_dir: Path) -> None:
    (build_dir / MARK_NAME).unlink(missing_ok=True)


def end_once_signatures_written(build_dir: Path) -> None:
    """Remove the mark right after SCons writes its signature database: at the end of a
    build that succeeded, failed or was stopped with Ctrl-C, never before."""
    write = SCons.SConsign.write
    if getattr(write, "ends_build_in", None) is not None:
        return

    def write_then_end() -> None:
        write()
        end(build_dir)

    write_then_end.ends_build_in = build_dir  # type: ignore[attr-defined]
    SCons.SConsign.write = write_then_end
