"""Safe unpacking of tar, zip (and wheel) and Debian package files.

Every member is checked before anything is written: absolute names, `..`
components, links that lead outside the target, writes through a link, and
device or fifo members are refused.  Regular files get 0644 or 0755 (exec bit
kept, nothing else), so an unpacked tree does not depend on the packer's umask.
"""

from __future__ import annotations

import datetime
import io
import os
import posixpath
import shutil
import stat
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO


class ArchiveError(Exception):
    """An archive is malformed or has a member that may not be unpacked."""


class _Tree:
    """The target directory, written member by member with safety checks."""

    def __init__(self, root: Path, archive: Path, merge: bool) -> None:
        self.root = root
        self.archive = archive
        # merge: the tree already holds other inputs; a file both provide is refused.
        self.merge = merge
        self.links: list[tuple[Path, str, str]] = []

    def _fail(self, name: str, why: str) -> ArchiveError:
        return ArchiveError(f"{self.archive.name}: member '{name}' {why}; refusing to unpack")

    def cannot_write(self, target: Path, err: OSError) -> ArchiveError:
        return ArchiveError(
            f"{self.archive.name}: cannot write {target}: {err.strerror or err}; make room "
            f"(or choose another CACHE_DIR) and run again")

    def rel(self, name: str, strip: int) -> str | None:
        """The checked relative path of a member, or None if stripping removes it."""
        if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
            raise self._fail(name, "has an absolute path")
        parts = [p for p in name.split("/") if p not in ("", ".")]
        if ".." in parts:
            raise self._fail(name, "contains '..'")
        if len(parts) <= strip:
            return None
        return "/".join(parts[strip:])

    def _target(self, rel: str, name: str) -> Path:
        # Refuse to write through a link unpacked earlier: a link that points inside
        # the tree could otherwise carry a later member outside it.
        path = self.root
        for part in rel.split("/")[:-1]:
            path = path / part
            if path.is_symlink():
                where = path.relative_to(self.root)
                raise self._fail(name, f"would be written through the link '{where}'")
            if path.exists() and not path.is_dir():
                where = path.relative_to(self.root)
                raise self._fail(name, f"needs '{where}' to be a directory")
            path.mkdir(exist_ok=True)
        target = path / rel.split("/")[-1]
        if target.is_symlink() or (target.exists() and not target.is_dir()):
            why = "overlaps a file of another input" if self.merge else "appears twice"
            raise self._fail(name, why)
        return target

    def add_dir(self, rel: str, name: str) -> None:
        target = self._target(rel, name)
        if target.exists():
            return
        target.mkdir()

    def add_file(
        self, rel: str, name: str, src: BinaryIO, executable: bool, mtime: float | None
    ) -> None:
        target = self._target(rel, name)
        if target.is_dir():
            raise self._fail(name, "is a file where a directory was unpacked")
        try:
            out = open(target, "xb")  # noqa: SIM115 (closed below, write errors told apart)
        except OSError as e:
            raise self.cannot_write(target, e) from None
        with out:
            # Read errors are the archive's; write errors (a full disk) are ours.
            while chunk := src.read(1 << 20):
                try:
                    out.write(chunk)
                    out.flush()
                except OSError as e:
                    raise self.cannot_write(target, e) from None
        os.chmod(target, 0o755 if executable else 0o644)
        if mtime is not None:
            os.utime(target, (mtime, mtime))

    def add_symlink(self, rel: str, name: str, link: str) -> None:
        if not link or link.startswith("/"):
            raise self._fail(name, f"is a link to the absolute path '{link}'")
        resolved = posixpath.normpath(posixpath.join(posixpath.dirname(rel), link))
        if resolved == ".." or resolved.startswith("../"):
            raise self._fail(name, f"is a link to '{link}', outside the tree")
        target = self._target(rel, name)
        if target.exists():
            raise self._fail(name, "is a link where a directory was unpacked")
        os.symlink(link, target)
        # The text stays inside, but the links it passes through may not: resolve the
        # whole chain against the tree as built so far (as tarfile's `data` filter does).
        self.links.append((target, name, link))
        self.check_link(target, name, link)

    def check_link(self, target: Path, name: str, link: str) -> None:
        root = os.path.realpath(self.root)
        resolved = os.path.realpath(target)
        if os.path.commonpath([root, resolved]) != root:
            raise self._fail(name, f"is a link to '{link}', which leads outside the tree "
                                   "through other links")

    def check_links(self) -> None:
        """Every link unpacked, resolved once all are in place: none may lead outside."""
        for target, name, link in self.links:
            self.check_link(target, name, link)

    def add_hardlink(self, rel: str, name: str, link_rel: str | None, link: str) -> None:
        if link_rel is None:
            raise self._fail(name, f"is a hard link to '{link}', outside the tree")
        source = self.root / link_rel
        if source.is_symlink() or not source.is_file():
            raise self._fail(name, f"is a hard link to '{link}', not to a file unpacked before it")
        target = self._target(rel, name)
        if target.is_dir():
            raise self._fail(name, "is a file where a directory was unpacked")
        shutil.copy2(source, target)  # a copy: the tree may later be copied or patched


def _is_executable(mode: int) -> bool:
    return bool(mode & 0o111)


def _extract_tarfile(tf: tarfile.TarFile, tree: _Tree, strip: int) -> None:
    for member in tf:
        rel = tree.rel(member.name, strip)
        if rel is None:
            if member.isfile() or member.issym() or member.islnk():
                raise tree._fail(member.name, f"lies above the {strip} directories to strip")
            continue
        if member.isdir():
            tree.add_dir(rel, member.name)
        elif member.isfile():
            src = tf.extractfile(member)
            assert src is not None
            with src:
                tree.add_file(rel, member.name, src, _is_executable(member.mode), member.mtime)
        elif member.issym():
            tree.add_symlink(rel, member.name, member.linkname)
        elif member.islnk():
            # Hard-link names are archive paths, so they are stripped the same way.
            tree.add_hardlink(rel, member.name, tree.rel(member.linkname, strip), member.linkname)
        else:
            raise tree._fail(member.name, "is a device, fifo or other special file")
    tree.check_links()


def _extract_zipfile(zf: zipfile.ZipFile, tree: _Tree, strip: int) -> None:
    for info in zf.infolist():
        rel = tree.rel(info.filename, strip)
        mode = info.external_attr >> 16  # Unix mode, when the packer was a Unix tool
        if rel is None:
            if not info.is_dir():
                raise tree._fail(info.filename, f"lies above the {strip} directories to strip")
            continue
        kind = stat.S_IFMT(mode)
        if info.is_dir() or kind == stat.S_IFDIR:
            tree.add_dir(rel, info.filename)
        elif kind == stat.S_IFLNK:
            tree.add_symlink(rel, info.filename, zf.read(info).decode())
        elif kind in (0, stat.S_IFREG):
            mtime = _zip_mtime(info)
            with zf.open(info) as src:
                tree.add_file(rel, info.filename, src, _is_executable(mode), mtime)
        else:
            raise tree._fail(info.filename, "is a device, fifo or other special file")
    tree.check_links()


def _zip_mtime(info: zipfile.ZipInfo) -> float | None:
    try:
        return datetime.datetime(*info.date_time).timestamp()
    except ValueError:
        return None


class _Slice(io.RawIOBase):
    """A read-only window onto part of a file (an `ar` member), seekable for tarfile."""

    def __init__(self, f: BinaryIO, start: int, size: int) -> None:
        self._f, self._start, self._size, self._pos = f, start, size, 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._pos, io.SEEK_END: self._size}[whence]
        self._pos = max(0, min(self._size, base + offset))
        return self._pos

    def readinto(self, b: bytearray | memoryview) -> int:  # type: ignore[override]
        n = min(len(b), self._size - self._pos)
        if n <= 0:
            return 0
        self._f.seek(self._start + self._pos)
        data = self._f.read(n)
        b[: len(data)] = data
        self._pos += len(data)
        return len(data)


def ar_members(f: BinaryIO, name: str) -> Iterator[tuple[str, int, int]]:
    """(member name, data offset, size) for each member of a Unix `ar` archive."""
    if f.read(8) != b"!<arch>\n":
        raise ArchiveError(f"{name}: not an ar archive (a .deb file starts with '!<arch>')")
    while True:
        header = f.read(60)
        if not header:
            return
        if len(header) != 60 or header[58:60] != b"`\n":
            raise ArchiveError(f"{name}: truncated or corrupt ar member header")
        member = header[0:16].decode("ascii", "replace").strip().rstrip("/")
        try:
            size = int(header[48:58].decode("ascii").strip())
        except ValueError:
            raise ArchiveError(f"{name}: corrupt size in ar member '{member}'") from None
        offset = f.tell()
        yield member, offset, size
        f.seek(offset + size + (size & 1))  # members are 2-byte aligned


def extract_deb(deb: Path, dest: Path, *, merge: bool = False) -> None:
    """Unpack the data of a Debian package (what `dpkg-deb -x` would) into `dest`."""
    tree = _Tree(dest, deb, merge)
    with open(deb, "rb") as f:
        for member, offset, size in ar_members(f, deb.name):
            if not member.startswith("data.tar"):
                continue
            if member.endswith(".zst"):
                raise ArchiveError(f"{deb.name}: zstd-compressed data ({member}) is not supported")
            try:
                with tarfile.open(fileobj=_Slice(f, offset, size), mode="r:*") as tf:  # type: ignore[arg-type]
                    _extract_tarfile(tf, tree, 0)
            except (tarfile.TarError, EOFError, OSError) as e:
                raise ArchiveError(f"{deb.name}: cannot read {member}: {e}") from e
            return
    raise ArchiveError(f"{deb.name}: no data.tar member; is it a Debian package?")


def deb_version(deb: Path) -> str | None:
    """The Version field of a Debian package's control file (None if it cannot be read)."""
    with open(deb, "rb") as f:
        for member, offset, size in ar_members(f, deb.name):
            if not member.startswith("control.tar") or member.endswith(".zst"):
                continue
            try:
                with tarfile.open(fileobj=_Slice(f, offset, size), mode="r:*") as tf:  # type: ignore[arg-type]
                    for info in tf:
                        if info.name.lstrip("./") == "control" and info.isfile():
                            text = tf.extractfile(info).read().decode("utf-8", "replace")  # type: ignore[union-attr]
                            for line in text.splitlines():
                                if line.startswith("Version:"):
                                    return line.split(":", 1)[1].strip()
            except (tarfile.TarError, EOFError, OSError):
                return None
    return None


_TAR_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.xz", ".txz", ".tar.bz2", ".tbz2", ".tbz")
_ZIP_SUFFIXES = (".zip", ".whl")


def extract(archive: Path, dest: Path, *, strip: int = 0, merge: bool = False) -> None:
    """Unpack `archive` into the existing directory `dest`, chosen by file name.

    strip drops that many leading path components (like `tar --strip-components`);
    merge allows `dest` to hold other content already (directories are shared, a
    file both provide is refused).
    """
    name = archive.name.lower()
    tree = _Tree(dest, archive, merge)
    try:
        if name.endswith(".deb"):
            if strip:
                raise ArchiveError(f"{archive.name}: 'strip' does not apply to Debian packages")
            extract_deb(archive, dest, merge=merge)
        elif name.endswith(_ZIP_SUFFIXES):
            with zipfile.ZipFile(archive) as zf:
                _extract_zipfile(zf, tree, strip)
        elif name.endswith(_TAR_SUFFIXES):
            with tarfile.open(archive, mode="r:*") as tf:
                _extract_tarfile(tf, tree, strip)
        else:
            raise ArchiveError(
                f"{archive.name}: unknown archive type "
                "(supported: .tar.gz, .tar.xz, .tar.bz2, .zip, .whl, .deb)"
            )
    except ArchiveError:
        raise
    except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError) as e:
        raise ArchiveError(f"{archive.name}: cannot unpack: {e}") from e
