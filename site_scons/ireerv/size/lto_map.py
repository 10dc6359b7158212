"""Link maps of images linked with link-time optimisation, made reproducible and attributable.

With -flto, ld's map names all the code and data GCC compiled at link time by a
temporary object (/tmp/ccXXXXXX.ltrans0.ltrans.o), and the early debug info by
more temporary objects: names that change on every link and say nothing about
where the bytes came from.  After the link, each input section of that partition
is credited to the object whose symbol table defines its symbol (the section is
named after it: -ffunction-sections, -fdata-sections), found in the sections
of the link's own inputs: their LTO data has a section for each function's body,
static ones too, before any inlining, and their ordinary code (fat LTO objects)
one for each variable.  The temporary names are replaced by fixed ones.  The map is then
the same on every link, and the size report and the profile keep their
components.  Sections without a symbol of their own (merged strings and
constants) or whose symbol several inputs define stay with the partition,
named PARTITION.
"""

from __future__ import annotations

import re
import subprocess
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

PARTITION = "lto-partition.o"  # the fixed name of what stays with the partition
EARLY_DEBUG = "lto-early-debug.o"
_PARTITION_TEMP = re.compile(r"\S*cc[A-Za-z0-9]{6}\.ltrans\d+\.ltrans\.o")
_DEBUG_TEMP = re.compile(r"\S*cc[A-Za-z0-9]{6}\.debug\.temp\.o")
_INPUT_NAME = re.compile(r"^ (\.\S+)")  # an input section's name, first on its line
_LOAD = re.compile(r"^LOAD (\S+)$", re.M)
# "archive(member)" lines of the "Archive member included ..." block.
_MEMBER = re.compile(r"^(\S+\.a)\(([^()\s]+)\)(?=\s|$)", re.M)
# Section-name prefixes before the symbol's name; GCC clones add ".suffix" after it.
_PREFIXES = (".text.unlikely.", ".text.startup.", ".text.hot.", ".text.exit.", ".text.",
             ".rodata.", ".srodata.", ".data.rel.ro.", ".data.", ".sdata.", ".bss.",
             ".sbss.", ".tdata.", ".tbss.")

Sections = Callable[[str], str]  # path -> `readelf -S -W` output
_SECTION = re.compile(r"\] (\.\S+) ")  # a section's name in `readelf -S -W`
# A function's or variable's body in an object's LTO data: ".gnu.lto_<name>.<n>.<hash>".
_LTO_SECTION = re.compile(r"\] \.gnu\.lto_([A-Za-z_][\w.]*?)\.\d+\.[0-9a-f]+\s")


class LtoMapError(RuntimeError):
    """readelf could not read one of the link's inputs."""


def is_lto_map(text: str) -> bool:
    return _PARTITION_TEMP.search(text) is not None


def symbol_name(section: str) -> str | None:
    """The symbol an input section of the partition holds, without GCC's clone suffixes."""
    for prefix in _PREFIXES:
        if section.startswith(prefix):
            return section[len(prefix):].split(".", 1)[0] or None
    return None


def link_inputs(text: str) -> dict[str, set[str] | None]:
    """The project's inputs of the link: object path -> None, archive path -> members used."""
    inputs: dict[str, set[str] | None] = {}
    members: dict[str, set[str]] = defaultdict(set)
    for archive, member in _MEMBER.findall(text):
        members[archive].add(member)
    for path in _LOAD.findall(text):
        if _PARTITION_TEMP.fullmatch(path) or _DEBUG_TEMP.fullmatch(path) or path.startswith("/"):
            continue  # temporaries, and the toolchain's own libraries (absolute paths)
        inputs[path] = members.get(path, set()) if path.endswith(".a") else None
    return inputs


def symbol_origins(inputs: dict[str, set[str] | None], sections: Sections) -> dict[str, str]:
    """Symbol -> the input whose LTO data holds it, spelt as ld spells it ("x.a(m.o)" or
    "x.o"); symbols several inputs hold are left out, unless one of them is an object
    given by itself."""
    found: dict[str, set[str]] = defaultdict(set)
    for path, members in inputs.items():
        origin, used = path, members is None
        for line in sections(path).splitlines():
            if line.startswith("File: "):  # an archive's next member
                origin = line[len("File: "):].strip()
                member = _MEMBER.match(origin)
                used = member is not None and member.group(2) in (members or ())
            elif used and (name := _held_symbol(line)):
                found[name].add(origin)
    return {name: origin for name, origins in found.items()
            if (origin := _one_origin(origins)) is not None}


def _held_symbol(line: str) -> str | None:
    """The symbol a `readelf -S -W` line's section holds: a body in the LTO data, or a
    symbol's own section in the ordinary code of a fat object."""
    m = _LTO_SECTION.search(line)
    if m:
        return m.group(1).split(".", 1)[0]
    m = _SECTION.search(line)
    return symbol_name(m.group(1)) if m else None


def _one_origin(origins: set[str]) -> str | None:
    """The origin of a symbol several inputs hold: an object given by itself stands in for
    an archive's copy (as the image's HAL module does for the runtime library's)."""
    if len(origins) > 1:
        origins = {o for o in origins if not o.endswith(")")}
    return next(iter(origins)) if len(origins) == 1 else None


def _lines_with_sections(text: str) -> Iterator[tuple[str, str, bool]]:
    """(line, the input section it belongs to or "", whether it names that section's
    input) for each line of a map: ld moves a long name's numbers and input to the next
    line."""
    name = ""
    for line in text.splitlines(keepends=True):
        m = _INPUT_NAME.match(line)
        if m:
            name = m.group(1)
        elif line.strip() and not line.startswith("  "):
            name = ""
        yield line, name, bool(name) and (m is not None or line.startswith("  "))


def rewrite(text: str, origins: dict[str, str]) -> str:
    """The map with the partition's sections credited to their origins and fixed names for
    the temporary objects."""
    lines = []
    for line, name, names_input in _lines_with_sections(text):
        if _PARTITION_TEMP.search(line):
            origin = origins.get(symbol_name(name) or "") if names_input else None
            line = _PARTITION_TEMP.sub(origin or PARTITION, line)
        lines.append(_DEBUG_TEMP.sub(EARLY_DEBUG, line))
    return "".join(lines)


def readelf_runner(readelf: str) -> Sections:
    def run(path: str) -> str:
        proc = subprocess.run([readelf, "-S", "-W", path], capture_output=True, text=True,
                              check=False)
        if proc.returncode != 0:
            raise LtoMapError(f"{readelf} -S {path}: {proc.stderr.strip()}")
        return proc.stdout
    return run


def fix_map(map_path: Path, sections: Sections) -> bool:
    """Rewrite an LTO link's map in place; False (and untouched) for other links."""
    text = map_path.read_text()
    if not is_lto_map(text):
        return False
    map_path.write_text(rewrite(text, symbol_origins(link_inputs(text), sections)))
    return True


def unresolved(text: str) -> Iterable[str]:
    """Input sections left with the partition (for tests and curious readers)."""
    return (name for line, name, names_input in _lines_with_sections(text)
            if names_input and PARTITION in line)
