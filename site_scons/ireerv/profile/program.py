"""The static side of a profile: each instruction's size and kind, symbols, components.

Instructions and symbols come from the image's `objdump -d` listing (the .dis file beside the
ELF); components from the link map, with the same rules as the size report, so a profile's
components are the size report's.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..size import mapfile
from ..size.rules import ComponentRule

# "80000004:	12029763          	bnez	t0,80000132 <__bsp_park>"
_INSN = re.compile(r"^\s*([0-9a-f]+):\t([0-9a-f]+)(?: [0-9a-f]+)*\s*\t(\S+)")
# "80000000 <_start>:"
_LABEL = re.compile(r"^([0-9a-f]+) <(.+)>:$")
_SECTION = re.compile(r"^Disassembly of section (\S+):$")
# Mnemonics that link: objdump prints rd=zero forms as j/jr/ret, so every jal/jalr links.
_CALLS = frozenset(("jal", "jalr"))
UNKNOWN = "(unknown)"
OTHER = "(other)"


class ProgramError(Exception):
    """The disassembly or map cannot be read."""


@dataclass(frozen=True)
class Program:
    """What the profile needs to know about the image's code."""

    sizes: dict[int, int]  # instruction address -> bytes (2 or 4)
    calls: frozenset[int]  # addresses of linking jumps (calls)
    starts: list[int]  # symbol addresses, sorted
    names: list[str]  # symbol names, same order
    ranges: list[tuple[int, int, str]]  # (start, end, component) from the map, sorted

    def symbol(self, address: int) -> str:
        i = bisect.bisect_right(self.starts, address) - 1
        return self.names[i] if i >= 0 else UNKNOWN

    def address_of(self, name: str) -> int | None:
        try:
            return self.starts[self.names.index(name)]
        except ValueError:
            return None

    def component(self, address: int) -> str:
        i = bisect.bisect_right(self.ranges, (address, float("inf"), "")) - 1
        if i >= 0 and self.ranges[i][0] <= address < self.ranges[i][1]:
            return self.ranges[i][2]
        return OTHER


Listing = tuple[dict[int, int], frozenset[int], dict[int, str], set[str]]


def parse_disassembly(text: str) -> Listing:
    """(sizes, calls, labels, code sections) of an `objdump -d` listing, with or without -S
    source lines."""
    sizes: dict[int, int] = {}
    calls: set[int] = set()
    labels: dict[int, str] = {}
    sections: set[str] = set()
    for line in text.splitlines():
        m = _INSN.match(line)
        if m:
            address = int(m.group(1), 16)
            sizes[address] = len(m.group(2)) // 2
            if m.group(3) in _CALLS:
                calls.add(address)
            continue
        m = _LABEL.match(line)
        if m:
            labels.setdefault(int(m.group(1), 16), m.group(2))
        elif m := _SECTION.match(line):
            sections.add(m.group(1))
    return sizes, frozenset(calls), labels, sections


def component_ranges(
    parsed: mapfile.MapFile, rules: Sequence[ComponentRule], sections: set[str]
) -> list[tuple[int, int, str]]:
    """(start, end, component) of every input section of the code `sections` the map
    attributes to a file (other sections, such as debug info, may share addresses)."""
    ranges = []
    for out in parsed.sections:
        if out.name not in sections:
            continue
        for item in out.inputs:
            if item.size <= 0 or item.origin is None or item.kind == "fill":
                continue
            rule = next((r for r in rules if r.matches(item.origin)), None)
            name = rule.component(item.origin) if rule else OTHER
            ranges.append((item.address, item.address + item.size, name))
    ranges.sort()
    return ranges


def load_program(dis: Path, map_file: Path, rules: Sequence[ComponentRule]) -> Program:
    try:
        sizes, calls, labels, sections = parse_disassembly(dis.read_text(errors="replace"))
        parsed = mapfile.load(map_file)
    except (OSError, mapfile.MapFileError) as err:
        raise ProgramError(str(err)) from None
    if not sizes:
        raise ProgramError(f"{dis} lists no instructions")
    starts = sorted(labels)
    return Program(sizes, calls, starts, [labels[a] for a in starts],
                   component_ranges(parsed, rules, sections))
