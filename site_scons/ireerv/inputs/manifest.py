"""The manifest of a cache entry: what the entry held when it was made, checked before use.

A cache entry (a source tree, the toolchain, a tool built into the cache) is written
once and then only read.  Its manifest, `<entry>.manifest` beside it, is written
before the entry is renamed into place; it lists every file's sha256 and whether it
is executable, every symlink's target and every directory.

Hashing a large tree on every build would make a no-op build slow, so a full check
leaves a stamp in the local cache, keyed by the entry's path, the manifest's digest
and a stat signature of every path in the entry (size, mtime, ctime, inode).  Ordinary
tools cannot set ctime back, so an unchanged signature means unchanged content; only
a changed signature costs a new hash.

`__pycache__` directories are left out: Python writes them into the compiler wheel's
tree when its bindings are imported, and checks each file against its source's size
and mtime before using it.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

from ireerv.util.files import sha256_file

SUFFIX = ".manifest"
_FORMAT = 1
_BYTECODE = "__pycache__"
_SIGNATURE_FORMAT = 2  # stat_signature's rows: 2 is one pass, in the file system's order


def manifest_path(entry: Path) -> Path:
    return entry.parent / f"{entry.name}{SUFFIX}"


def _walk(root: Path, rel: str = "") -> Iterator[tuple[str, os.DirEntry[str]]]:
    """Every path under `root` (relative name, its directory entry), sorted, links not followed."""
    with os.scandir(root) as it:
        items = sorted((e for e in it if e.name != _BYTECODE), key=lambda e: e.name)
    for item in items:
        name = f"{rel}{item.name}"
        yield name, item
        if item.is_dir(follow_symlinks=False):
            yield from _walk(Path(item.path), f"{name}/")


def describe(root: Path) -> dict[str, str]:
    """relative path -> "dir", "link <target>" or "file <x|-> <sha256>" for a whole tree."""
    out: dict[str, str] = {}
    for name, item in _walk(root):
        if item.is_symlink():
            out[name] = f"link {os.readlink(item.path)}"
        elif item.is_dir(follow_symlinks=False):
            out[name] = "dir"
        elif item.is_file(follow_symlinks=False):
            executable = "x" if item.stat(follow_symlinks=False).st_mode & 0o111 else "-"
            out[name] = f"file {executable} {sha256_file(Path(item.path))}"
        else:
            out[name] = "other"  # archives never unpack devices or fifos; never matches
    return out


def _write_atomically(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.tmp-", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write(tree: Path, entry: Path) -> None:
    """Record what `tree` holds as the manifest of `entry` (the name `tree` will take)."""
    body = {"format": _FORMAT, "paths": describe(tree)}
    _write_atomically(manifest_path(entry), json.dumps(body, indent=0, sort_keys=True) + "\n")


def remove(entry: Path) -> None:
    manifest_path(entry).unlink(missing_ok=True)


def stat_signature(root: Path) -> str:
    """A digest of every path's name, type, mode, size, mtime, ctime and inode.

    Taken on every build that uses the entry, so it is kept cheap: the directories are
    read in the order the file system gives (the same while a directory is unchanged;
    a change to one changes its own mtime), and the stat rows are hashed at once."""
    st = os.lstat(root)
    rows = [(".", st.st_mode, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)]
    pending = [str(root)]
    while pending:
        with os.scandir(pending.pop()) as it:
            for item in it:
                if item.name == _BYTECODE:
                    continue
                st = item.stat(follow_symlinks=False)
                rows.append((item.path, st.st_mode, st.st_size, st.st_mtime_ns,
                             st.st_ctime_ns, st.st_ino))
                if stat.S_ISDIR(st.st_mode):
                    pending.append(item.path)
    return hashlib.sha256(repr(rows).encode()).hexdigest()


def first_difference(entry: Path, recorded: dict[str, str]) -> str | None:
    """The first path whose content, type or presence differs from the manifest, described."""
    actual = describe(entry)
    for name in sorted(recorded.keys() | actual.keys()):
        if name not in actual:
            return f"{name} is missing"
        if name not in recorded:
            return f"{name} is not in its manifest"
        if actual[name] != recorded[name]:
            return f"{name} differs from its manifest"
    return None


def _read(entry: Path) -> tuple[str, dict[str, str]] | str:
    """(manifest digest, recorded paths), or why the manifest cannot be used."""
    try:
        data = manifest_path(entry).read_bytes()
    except FileNotFoundError:
        return "it has no manifest"
    except OSError as err:
        return f"its manifest cannot be read ({err.strerror})"
    try:
        body = json.loads(data)
        paths = body["paths"]
        if body.get("format") != _FORMAT or not isinstance(paths, dict):
            raise ValueError
    except (ValueError, KeyError, TypeError):
        return "its manifest is not one this version writes"
    return hashlib.sha256(data).hexdigest(), paths


def _stamp(entry: Path, stamps: Path) -> Path:
    """The stamp of `entry` for this way of taking signatures: checkouts of different
    versions sharing a cache keep their own stamps, rather than hashing in turn."""
    name = f"{entry}\n{_SIGNATURE_FORMAT}"
    return stamps / hashlib.sha256(name.encode()).hexdigest()[:32]


def _save_stamp(stamp: Path, key: str) -> None:
    try:
        stamp.parent.mkdir(parents=True, exist_ok=True)
        _write_atomically(stamp, key)
    except OSError:
        pass  # no stamp: the next build checks the entry in full again


def problem(entry: Path, stamps: Path) -> str | None:
    """Why `entry` cannot be trusted, or None when it holds what its manifest records.

    `stamps` (in the local cache) remembers entries checked in full and their stat
    signatures; an entry whose signature has not changed since is not hashed again.
    """
    read = _read(entry)
    if isinstance(read, str):
        return read
    manifest_digest, recorded = read
    # Taken before hashing: a change while hashing makes the next check hash again.
    key = f"{entry}\n{manifest_digest}\n{stat_signature(entry)}\n"
    stamp = _stamp(entry, stamps)
    try:
        if stamp.read_text() == key:
            return None
    except OSError:
        pass
    difference = first_difference(entry, recorded)
    if difference is None:
        _save_stamp(stamp, key)
    return difference


def adopt(entry: Path, stamps: Path) -> None:
    """Write the manifest of an entry this machine made before entries had manifests."""
    signature = stat_signature(entry)
    write(entry, entry)
    read = _read(entry)
    if not isinstance(read, str):
        _save_stamp(_stamp(entry, stamps), f"{entry}\n{read[0]}\n{signature}\n")
