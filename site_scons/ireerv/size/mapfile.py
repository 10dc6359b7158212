"""Parse the parts of a GNU ld link map (`-Wl,-Map=FILE`) that say where bytes came from.

Two blocks are read: "Memory Configuration" (the MEMORY regions of the linker script) and
"Linker script and memory map" (output sections with their input sections, fill and COMMON
lines).  Everything else in the file (archive member reasons, discarded sections, symbol and
assignment lines, the cross reference table) is skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Literal

from ireerv.util.memory import Region


class MapFileError(ValueError):
    """The text is not a GNU ld map file, or not one this parser understands."""


@dataclass(frozen=True)
class InputFile:
    """The object an input section came from: a plain object or an archive member."""

    path: str  # object path, or the archive path when member is set; as ld printed it
    member: str | None = None

    @classmethod
    def parse(cls, text: str) -> InputFile:
        m = _ARCHIVE_MEMBER.match(text)
        if m:
            return cls(m.group(1), m.group(2))
        return cls(text)

    @property
    def archive(self) -> str | None:
        return self.path if self.member is not None else None

    @property
    def object_name(self) -> str:
        """The file name of the object: the archive member, or the object's base name."""
        if self.member is not None:
            return PurePosixPath(self.member).name
        return PurePosixPath(self.path).name

    def display(self, root: Path | None = None) -> str:
        """A name free of machine paths: "libc.a(x.o)" for members; objects relative to root.

        Absolute object paths outside root shrink to their base name, so reports from two
        build trees compare equal.
        """
        if self.member is not None:
            return f"{PurePosixPath(self.path).name}({self.member})"
        path = PurePosixPath(self.path)
        if not path.is_absolute():
            return str(path)
        if root is not None:
            try:
                return str(path.relative_to(PurePosixPath(root.as_posix())))
            except ValueError:
                pass
        return path.name


# "archive(member)"; the member itself never contains parentheses in ld's output.
_ARCHIVE_MEMBER = re.compile(r"^(.+)\(([^()]+)\)$")

InputKind = Literal["section", "fill", "common"]


@dataclass(frozen=True)
class InputSection:
    name: str  # input section name; "*fill*" for padding, "COMMON" for common symbols
    address: int
    size: int
    origin: InputFile | None  # None for fill and for sections the linker made itself
    kind: InputKind = "section"


@dataclass
class OutputSection:
    name: str
    address: int | None = None
    size: int | None = None
    load_address: int | None = None  # only when ld printed "load address"
    inputs: list[InputSection] = field(default_factory=list)


@dataclass
class MapFile:
    memory: list[Region]
    sections: list[OutputSection]

    def section(self, name: str, address: int | None = None) -> OutputSection | None:
        """The output section of that name (and address, when names repeat)."""
        found = [s for s in self.sections if s.name == name]
        if address is not None and len(found) > 1:
            found = [s for s in found if s.address == address] or found
        return found[0] if found else None


_HEX = r"0x([0-9a-fA-F]+)"
# Output section header, all on one line: ".text  0x80000000  0x3140 [load address 0x...]"
_OUT_FULL = re.compile(rf"^(\S+)\s+{_HEX}\s+{_HEX}(?:\s+load address {_HEX})?\s*$")
# Numbers of a header or input section whose name was too long for its column.
_WRAPPED = re.compile(rf"^\s+{_HEX}\s+{_HEX}(?:\s+load address {_HEX})?(?:\s+(.*?))?\s*$")
# Input section on one line: " .text.foo  0x80000000  0x10 file.o"
_IN_FULL = re.compile(rf"^ (\S+)\s+{_HEX}\s+{_HEX}(?:\s+(.*?))?\s*$")
_REGION = re.compile(rf"^(\S+)\s+{_HEX}\s+{_HEX}(?:\s+(\S+))?\s*$")

_MEMORY_HEADING = "Memory Configuration"
_MAP_HEADING = "Linker script and memory map"
# Headings that end the memory map block.
_END_HEADINGS = ("Cross Reference Table",)
# Top-level statements that are not output sections.
_STATEMENT = re.compile(r"^(LOAD |START GROUP|END GROUP|OUTPUT\(|TARGET\(|INPUT\(|GROUP\()")


def load(path: Path) -> MapFile:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        raise MapFileError(f"cannot read map file {path}: {e.strerror}") from e
    try:
        return parse(text)
    except MapFileError as e:
        raise MapFileError(f"{path}: {e}") from e


def parse(text: str) -> MapFile:
    lines = text.splitlines()
    try:
        map_start = lines.index(_MAP_HEADING)
    except ValueError:
        raise MapFileError(f'no "{_MAP_HEADING}" block; is this a GNU ld map file?') from None
    memory = _parse_memory(lines[:map_start])
    sections = _parse_sections(lines[map_start + 1 :])
    return MapFile(memory=memory, sections=sections)


def _parse_memory(lines: list[str]) -> list[Region]:
    try:
        start = lines.index(_MEMORY_HEADING)
    except ValueError:
        return []
    regions = []
    for line in lines[start + 1 :]:
        if line.startswith("Name ") or not line.strip():
            if regions:
                break
            continue
        m = _REGION.match(line)
        if not m:
            break
        name, origin, length, attrs = m.groups()
        if name != "*default*":
            regions.append(Region(name, int(origin, 16), int(length, 16)))
    return regions


def _parse_sections(lines: list[str]) -> list[OutputSection]:
    sections: list[OutputSection] = []
    current: OutputSection | None = None
    # A name whose numbers ld moved to the next line: ("out" | "in", name).
    pending: tuple[str, str] | None = None

    for line in lines:
        if line in _END_HEADINGS:
            break
        if pending is not None:
            kind, name = pending
            pending = None
            m = _WRAPPED.match(line)
            if m:
                addr, size, load, rest = m.groups()
                if kind == "out":
                    current = OutputSection(name, int(addr, 16), int(size, 16), _opt_hex(load))
                    sections.append(current)
                elif current is not None and load is None:
                    current.inputs.append(_input(name, addr, size, rest))
                continue
            if kind == "out":
                # A header without numbers: an output section that ended up empty.
                current = OutputSection(name)
                sections.append(current)
        if not line.strip():
            continue
        if not line[0].isspace():
            current = None
            if _STATEMENT.match(line):
                continue
            m = _OUT_FULL.match(line)
            if m:
                name, addr, size, load = m.groups()
                current = OutputSection(name, int(addr, 16), int(size, 16), _opt_hex(load))
                sections.append(current)
            elif len(line.split()) == 1:
                pending = ("out", line.strip())
            continue
        if current is None or line[1].isspace():
            continue  # symbol, assignment and "size before relaxing" lines
        m = _IN_FULL.match(line)
        if m:
            name, addr, size, rest = m.groups()
            current.inputs.append(_input(name, addr, size, rest))
        elif len(line.split()) == 1 and not _is_pattern(line.strip()):
            pending = ("in", line.strip())
    return sections


def _input(name: str, addr: str, size: str, rest: str | None) -> InputSection:
    address, nbytes = int(addr, 16), int(size, 16)
    if name == "*fill*":
        # A fill line may carry the fill pattern where other lines carry a file name.
        return InputSection(name, address, nbytes, None, "fill")
    # "linker stubs" (long-branch veneers and the like) is ld's name for its own output.
    origin = InputFile.parse(rest) if rest and rest != "linker stubs" else None
    kind: InputKind = "common" if name == "COMMON" else "section"
    return InputSection(name, address, nbytes, origin, kind)


def _is_pattern(token: str) -> bool:
    """Input statements such as "*(.text)" or "KEEP(...)" as ld echoes them."""
    return "(" in token or (token.startswith("*") and token != "*fill*")


def _opt_hex(value: str | None) -> int | None:
    return int(value, 16) if value is not None else None
