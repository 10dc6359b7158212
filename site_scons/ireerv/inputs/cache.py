"""Atomic, cross-process safe creation of cache directories.

A cache entry is trusted once its final name exists: it is filled under a temporary
name and renamed into place only when complete, while an fcntl lock keeps two
processes from doing the same work.  A killed process leaves at most a temporary
directory, which the next holder of the lock removes.  Each entry gets its manifest
(manifest.py) just before the rename, so an entry made here always has one.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from ireerv.inputs import manifest

_TMP_MARK = ".tmp-"


def _lock_path(final: Path, lock_dir: Path | None) -> Path:
    if lock_dir is None:
        return final.parent / f".{final.name}.lock"
    # Entries of different cache areas may share a name (downloads/x, src/x).
    return lock_dir / f"{final.parent.name}-{final.name}.lock"


@contextlib.contextmanager
def file_lock(path: Path, on_wait: Callable[[], None] | None = None) -> Iterator[None]:
    """Hold an exclusive fcntl lock on `path` (created if missing).

    The lock file is never deleted: removing it would let a waiting process lock a
    file that a newcomer no longer sees.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if on_wait is not None:
                on_wait()
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def remove_tree(path: Path) -> None:
    """Remove a directory tree even where the unpacked content is read-only."""

    def onerror(func: Callable[..., object], name: str, _exc: object) -> None:
        parent = os.path.dirname(name)
        with contextlib.suppress(OSError):
            os.chmod(parent, os.stat(parent).st_mode | stat.S_IWUSR | stat.S_IXUSR)
        if os.path.isdir(name) and not os.path.islink(name):
            os.chmod(name, os.stat(name).st_mode | stat.S_IRWXU)
        func(name)

    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.exists():
        shutil.rmtree(path, onerror=onerror)


def _clean_stale(final: Path) -> None:
    # Only the lock holder creates temporary directories, so under the lock any
    # leftover one belongs to a process that died.
    for stale in final.parent.glob(f".{final.name}{_TMP_MARK}*"):
        remove_tree(stale)


@contextlib.contextmanager
def atomic_dir(
    final: Path,
    *,
    lock_dir: Path | None = None,
    on_wait: Callable[[], None] | None = None,
) -> Iterator[Path | None]:
    """Create directory `final` atomically.

    Yields None when `final` already exists (nothing to do), else a fresh empty
    directory beside `final` for the caller to fill; it is renamed to `final` when
    the block ends normally and removed when it raises (interrupts included).
    """
    final = Path(final)
    if final.is_dir():
        yield None
        return
    final.parent.mkdir(parents=True, exist_ok=True)
    with file_lock(_lock_path(final, lock_dir), on_wait):
        if final.is_dir():  # another process made it while we waited
            yield None
            return
        _clean_stale(final)
        prefix = f".{final.name}{_TMP_MARK}{os.getpid()}-"
        tmp = Path(tempfile.mkdtemp(prefix=prefix, dir=final.parent))
        try:
            yield tmp
            os.chmod(tmp, 0o755)  # mkdtemp makes it private
            manifest.write(tmp, final)
            os.rename(tmp, final)
        except BaseException:
            remove_tree(tmp)
            raise


def discard(final: Path, *, lock_dir: Path | None = None) -> None:
    """Drop a cache entry: renamed away under the lock, then removed."""
    final = Path(final)
    with file_lock(_lock_path(final, lock_dir)):
        manifest.remove(final)
        if not final.exists():
            return
        doomed = final.parent / f".{final.name}{_TMP_MARK}discarded-{os.getpid()}"
        os.rename(final, doomed)
        remove_tree(doomed)


def ensure_dir(
    final: Path,
    make: Callable[[Path], None],
    *,
    lock_dir: Path | None = None,
    on_wait: Callable[[], None] | None = None,
) -> Path:
    """Return `final`, calling `make(tmp)` to fill it first unless it already exists."""
    with atomic_dir(final, lock_dir=lock_dir, on_wait=on_wait) as tmp:
        if tmp is not None:
            make(tmp)
    return Path(final)
