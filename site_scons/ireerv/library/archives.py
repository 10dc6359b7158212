"""The library's two kinds of archive: the runtime (IREE's archives and our objects merged
into one) and a model's (its objects linked into one whose only global symbol is the
model's description, so two models never collide in one link)."""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path


class ArchiveError(Exception):
    """A tool that makes an archive failed."""


def _run(command: Sequence[str], stdin: str | None = None) -> str:
    proc = subprocess.run([str(c) for c in command], input=stdin, capture_output=True,
                          text=True, check=False)
    if proc.returncode:
        raise ArchiveError(f"{Path(str(command[0])).name} failed ({proc.returncode}): "
                           f"{(proc.stderr or proc.stdout).strip()[-2000:]}")
    return proc.stdout


# GCC's link-time optimisation data of the runtime's fat objects: without it the archive
# links as plain code with any linker, and no link turns LTO on by itself.
LTO_SECTIONS = (".gnu.lto_*", ".gnu.debuglto_*")


def merge(ar: Path, out: Path, archives: Sequence[Path], objects: Sequence[Path],
          objcopy: Path | None = None) -> None:
    """One deterministic archive with every member of `archives` and every object, each
    without LTO data when `objcopy` is given."""
    out.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        members = []
        for index, archive in enumerate(archives):
            folder = work / str(index)
            folder.mkdir()
            # Members of one archive may share a name: extracted one at a time by count.
            names = _run([ar, "t", archive.resolve()]).split()
            for count, name in enumerate(names):
                seen = names[:count].count(name) + 1
                proc = subprocess.run([str(ar), "xN", str(seen), str(archive.resolve()), name],
                                      cwd=folder, capture_output=True, text=True, check=False)
                if proc.returncode:
                    raise ArchiveError(f"ar x {archive.name} {name}: {proc.stderr.strip()}")
                dest = folder / f"{count:04d}-{name}"
                (folder / name).rename(dest)
                members.append(dest)
        if objcopy is not None:
            for member in members:
                _run([objcopy, *(f"--remove-section={s}" for s in LTO_SECTIONS), member])
        _run([ar, "rcD", out, *objects, *members])


def join(ld: Path, out: Path, objects: Sequence[Path]) -> None:
    """`objects` linked into one relocatable object (rv32: the toolchain's ld defaults to
    64 bits): linked whole wherever it is named, whatever the order."""
    _run([ld, "-m", "elf32lriscv", "-r", "-o", out, *objects])


def localise(ld: Path, objcopy: Path, out: Path, objects: Sequence[Path],
             keep: Sequence[str], rename: dict[str, str] | None = None) -> None:
    """`objects` linked into one relocatable object with only `keep` global (rv32: the
    toolchain's ld defaults to 64 bits)."""
    joined = out.with_suffix(".joined.o")
    join(ld, joined, objects)
    flags = [f"--keep-global-symbol={name}" for name in keep]
    flags += [f"--rename-section={old}={new}" for old, new in (rename or {}).items()]
    _run([objcopy, *flags, joined, out])
    joined.unlink()


def large_sections(readelf: Path, obj: Path, least: int) -> list[str]:
    """The object's allocated read-only sections of `least` bytes or more."""
    found = []
    for line in _run([readelf, "-S", "-W", obj]).splitlines():
        parts = line.replace("[ ", "[").split()
        if len(parts) > 6 and parts[1].startswith(".rodata") and int(parts[5], 16) >= least:
            found.append(parts[1])
    return found


def defined_globals(nm: Path, obj: Path) -> list[str]:
    """The global symbols an object defines."""
    names = []
    for line in _run([nm, "-g", "--defined-only", obj]).splitlines():
        parts = line.split()
        if len(parts) == 3:
            names.append(parts[2])
    return names
