"""Size report of a linked bare-metal image: sections, components, memory regions, symbols.

Reads the ELF (section headers, program headers, symbol table) and, when given, the GNU ld
map file of the same link, which says which archive member or object every input section came
from.  Every allocated byte is counted exactly once: component totals plus the remainder row
equal the sum of the allocated sections, and the section table lists exactly the sections
`size -A` lists, with the same sizes.

Memory kinds follow Berkeley `size`: read-only or executable sections are "code" (text),
writable sections with contents are "both" (data: their initial image is stored with the code
and they occupy RAM), sections without contents are "data" (bss).  Hence code = text + data
and RAM = data + bss.  A region's "used" counts each section at its run-time address, and
initialised data a second time at its load address when that differs; .tbss is only a
template and takes no room of its own.

Attribution caveats: strings merged by the linker share addresses in the map; a shared byte
goes to the first input that lists it.  Under LTO the map names the temporary ltrans objects,
so everything compiled with LTO shows up as unattributed.

JSON schema "ireerv-size-report/1" (all sizes in bytes, addresses as integers):

    {
      "schema": "ireerv-size-report/1",
      "elf": "app.elf",                  # base names only; no machine paths
      "map": "app.map" | null,
      "totals": {"alloc": int, "code": int, "data": int,
                 "text": int, "data_init": int, "bss": int},
      "sections": [                      # exactly the sections `size -A` lists, in ELF order
        {"name": ".text", "address": int, "load_address": int, "size": int,
         "type": "PROGBITS", "memory": "code" | "both" | "data" | "none"}],
      "components": [                    # sorted by size, largest first
        {"name": "libc", "size": int, "code": int, "data": int,
         "sections": {".text": int, ...},          # bytes per output section
         "inputs": {"libc.a(x.o)": int, ...}}],    # bytes per object or archive member
      "remainder": {"name": "(remainder)", "size": int, "code": int, "data": int,
                    "sections": {...}, "inputs": {...},   # inputs: unattributed objects
                    "reserved": int,      # sections without any input: stack, heap
                    "reserved_sections": [str],
                    "fill": int,          # *fill* padding between input sections
                    "linker": int,        # input sections the linker made (no file)
                    "unattributed": int,  # inputs no component rule matched
                    "unmapped": int},     # bytes the map does not account for (all, without map)
      "regions": [
        {"name": "ROM", "origin": int, "length": int, "used": int, "free": int,
         "percent": float,
         "placements": [{"section": ".data", "as": "vma" | "lma", "address": int, "size": int}]}],
      "unplaced": [{"section": str, "as": "vma" | "lma", "address": int, "size": int}],
      "errors": [str],                    # region overflows; the build fails when not empty
      "top": int,
      "symbols": [                        # the `top` largest FUNC/OBJECT symbols, aliases merged
        {"name": str, "aliases": [str], "address": int, "size": int,
         "type": "FUNC" | "OBJECT", "section": str, "component": str | null}]
    }

sum(c["size"] for c in components) + remainder["size"] == totals["alloc"], and likewise for
"code" and "data".  Readers must check "schema" and refuse versions they do not know.
"""

from __future__ import annotations

import argparse
import bisect
import json
import sys
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from elftools.common.exceptions import ELFError
from elftools.elf.constants import SH_FLAGS
from elftools.elf.elffile import ELFFile
from elftools.elf.sections import SymbolTableSection

from ireerv.size import mapfile
from ireerv.size.mapfile import InputFile
from ireerv.size.sizeplot import write_svg  # part of this module's API

SCHEMA = "ireerv-size-report/1"
REMAINDER = "(remainder)"

Memory = Literal["code", "both", "data", "none"]
Pattern = str | tuple[str, ...]


class SizeReportError(Exception):
    """Bad input: unreadable ELF, a map file from another link, an unknown report schema."""


# --------------------------------------------------------------------------- inputs


@dataclass(frozen=True)
class Region:
    """A memory region of the board. Sections land in the region that holds their address."""

    name: str
    origin: int
    length: int

    def __post_init__(self) -> None:
        if self.length <= 0 or self.origin < 0:
            raise ValueError(f"region {self.name}: needs origin >= 0 and length > 0")

    @property
    def end(self) -> int:
        return self.origin + self.length


@dataclass(frozen=True)
class ComponentRule:
    """Input sections whose file matches every given pattern belong to component `name`.

    Patterns are shell patterns (fnmatch, case-sensitive); a tuple matches when any of its
    patterns does.
      archive: the archive's file name, e.g. "libc.a"; never matches a plain object.
      member:  the object's file name: the archive member, or a plain object's base name.
      path:    the whole path as the linker printed it (the archive's path for members).
    `name` may use {archive} (archive file name) and {member} (object file name), so one rule
    can give each archive its own row.  Rules are tried in order; the first match wins.
    """

    name: str
    archive: Pattern | None = None
    member: Pattern | None = None
    path: Pattern | None = None

    def __post_init__(self) -> None:
        if not self.name:
            raise ValueError("component rule needs a name")
        if self.archive is None and self.member is None and self.path is None:
            raise ValueError(f"component rule {self.name!r} has no pattern")

    def matches(self, origin: InputFile) -> bool:
        if self.archive is not None:
            if origin.archive is None:
                return False
            if not _match(PurePosixPath(origin.archive).name, self.archive):
                return False
        if self.member is not None and not _match(origin.object_name, self.member):
            return False
        return self.path is None or _match(origin.path, self.path)

    def component(self, origin: InputFile) -> str:
        archive = PurePosixPath(origin.archive).name if origin.archive else ""
        return self.name.format(archive=archive, member=origin.object_name)

    @classmethod
    def parse(cls, text: str) -> ComponentRule:
        """Parse NAME=FIELD:PATTERN[,FIELD:PATTERN...], e.g. kernel=member:matmul_lib*.o."""
        name, sep, spec = text.partition("=")
        if not sep or not spec:
            raise ValueError(f"component rule {text!r}: expected NAME=FIELD:PATTERN")
        fields: dict[str, str] = {}
        for part in spec.split(","):
            key, sep, pattern = part.partition(":")
            if not sep or key not in ("archive", "member", "path") or not pattern:
                raise ValueError(
                    f"component rule {text!r}: {part!r} is not archive:, member: or path:PATTERN"
                )
            fields[key] = pattern
        return cls(name.strip(), **fields)


def _match(value: str, pattern: Pattern) -> bool:
    patterns = (pattern,) if isinstance(pattern, str) else pattern
    return any(fnmatchcase(value, p) for p in patterns)


# libgcc objects that emulate floating point: soft-fp (GCC's current code) and the older
# fp-bit (_addsub_df.o, _df_to_si.o, ...), which some vendor toolchains still build.
SOFT_FLOAT_MEMBERS: tuple[str, ...] = tuple(
    """
    add?f3.o sub?f3.o mul?f3.o div?f3.o neg?f2.o
    eq?f2.o ne?f2.o ge?f2.o gt?f2.o le?f2.o lt?f2.o unord?f2.o cmp?f2.o
    fix?f?i.o fixuns?f?i.o float?i?f.o floatun?i?f.o floatuns?i?f.o extend?f?f2.o trunc?f?f2.o
    _*_[sdt]f.o _[sdt]f_to_*.o _*_to_[sdt]f.o
    """.split()
)
IREE_ARCHIVES: tuple[str, ...] = ("libiree_*.a", "libflatcc*.a")
LIBC_ARCHIVES: tuple[str, ...] = tuple(
    "libc.a libm.a libg.a libnosys.a libsemihost.a libdummyhost.a".split()
)


def default_rules(
    *,
    kernel: Pattern | None = None,
    control: Pattern | None = None,
    bsp: Pattern | None = None,
    app: Pattern | None = None,
) -> list[ComponentRule]:
    """The standard components; extend or reorder the list as needed.

    kernel and control are object file names (the iree-compile static library object and the
    vm-c module object); bsp and app are path patterns.  Inputs no rule matches stay
    unattributed and show up in the remainder.
    """
    rules: list[ComponentRule] = []
    if kernel is not None:
        rules.append(ComponentRule("kernel", member=kernel))
    if control is not None:
        rules.append(ComponentRule("control program", member=control))
    rules += [
        ComponentRule("iree/{archive}", archive=IREE_ARCHIVES),
        ComponentRule("libgcc soft-float", archive="libgcc.a", member=SOFT_FLOAT_MEMBERS),
        ComponentRule("libgcc", archive="libgcc.a"),
        ComponentRule("libgcc", path="*/lib/gcc/*"),  # crtbegin.o and friends
        ComponentRule("libc", archive=LIBC_ARCHIVES),
        ComponentRule("libc", path=("*/picolibc/*", "*/newlib/*")),  # crt0.o
    ]
    if bsp is not None:
        rules.append(ComponentRule("bsp", path=bsp))
    if app is not None:
        rules.append(ComponentRule("application", path=app))
    return rules


# --------------------------------------------------------------------------- report


@dataclass(frozen=True)
class Section:
    name: str
    address: int
    load_address: int
    size: int
    type: str  # "PROGBITS", "NOBITS", ...
    memory: Memory
    tls: bool = False

    @property
    def alloc(self) -> bool:
        return self.memory != "none"


@dataclass
class Component:
    name: str
    size: int = 0
    code: int = 0
    data: int = 0
    sections: dict[str, int] = field(default_factory=dict)
    inputs: dict[str, int] = field(default_factory=dict)

    def add(self, section: Section, nbytes: int, source: str | None = None) -> None:
        if nbytes <= 0:
            return
        self.size += nbytes
        if section.memory in ("code", "both"):
            self.code += nbytes
        if section.memory in ("data", "both"):
            self.data += nbytes
        self.sections[section.name] = self.sections.get(section.name, 0) + nbytes
        if source is not None:
            self.inputs[source] = self.inputs.get(source, 0) + nbytes

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "size": self.size,
            "code": self.code,
            "data": self.data,
            "sections": dict(self.sections),
            "inputs": dict(sorted(self.inputs.items(), key=lambda kv: (-kv[1], kv[0]))),
        }


@dataclass
class Remainder(Component):
    reserved: int = 0
    reserved_sections: list[str] = field(default_factory=list)
    fill: int = 0
    linker: int = 0
    unattributed: int = 0
    unmapped: int = 0

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        out.update(
            reserved=self.reserved,
            reserved_sections=list(self.reserved_sections),
            fill=self.fill,
            linker=self.linker,
            unattributed=self.unattributed,
            unmapped=self.unmapped,
        )
        return out


@dataclass(frozen=True)
class Placement:
    section: str
    kind: Literal["vma", "lma"]  # the run-time address, or the load image's address
    address: int
    size: int

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["as"] = d.pop("kind")
        return d


@dataclass
class RegionUsage:
    region: Region
    placements: list[Placement] = field(default_factory=list)

    @property
    def used(self) -> int:
        return sum(p.size for p in self.placements)

    @property
    def percent(self) -> float:
        return round(100.0 * self.used / self.region.length, 2)

    def to_json(self) -> dict[str, Any]:
        r = self.region
        return {
            "name": r.name,
            "origin": r.origin,
            "length": r.length,
            "used": self.used,
            "free": r.length - self.used,
            "percent": self.percent,
            "placements": [p.to_json() for p in self.placements],
        }


@dataclass(frozen=True)
class Symbol:
    name: str
    address: int
    size: int
    type: str  # "FUNC" or "OBJECT"
    section: str
    component: str | None
    aliases: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "aliases": list(self.aliases)}


@dataclass
class SizeReport:
    elf: str
    map: str | None
    sections: list[Section]
    components: list[Component]
    remainder: Remainder
    regions: list[RegionUsage]
    unplaced: list[Placement]
    symbols: list[Symbol]
    top: int

    @property
    def alloc_sections(self) -> list[Section]:
        return [s for s in self.sections if s.alloc]

    def total(self, memory: str) -> int:
        """Bytes of one kind: alloc, code, data, or a Berkeley column: text, data_init, bss."""
        secs = self.alloc_sections
        if memory == "alloc":
            return sum(s.size for s in secs)
        if memory == "code":
            return sum(s.size for s in secs if s.memory in ("code", "both"))
        if memory == "data":
            return sum(s.size for s in secs if s.memory in ("data", "both"))
        kind = {"text": "code", "data_init": "both", "bss": "data"}[memory]
        return sum(s.size for s in secs if s.memory == kind)

    @property
    def totals(self) -> dict[str, int]:
        return {k: self.total(k) for k in ("alloc", "code", "data", "text", "data_init", "bss")}

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "elf": self.elf,
            "map": self.map,
            "totals": self.totals,
            "sections": [{k: v for k, v in asdict(s).items() if k != "tls"} for s in self.sections],
            "components": [c.to_json() for c in self.components],
            "remainder": self.remainder.to_json(),
            "regions": [r.to_json() for r in self.regions],
            "unplaced": [p.to_json() for p in self.unplaced],
            "errors": check_regions(self),
            "top": self.top,
            "symbols": [s.to_json() for s in self.symbols],
        }


# --------------------------------------------------------------------------- analysis


def analyze(
    elf: Path,
    map_file: Path | None = None,
    *,
    regions: Sequence[Region] = (),
    components: Sequence[ComponentRule] | None = None,
    top: int = 20,
    root: Path | None = None,
) -> SizeReport:
    """Build the report of one linked image.

    map_file: the GNU ld map of the same link; without it every byte is in the remainder.
    regions: the board's memory (Region, or anything with name, origin, length and end, such
    as boards.MemoryRegion); sections land in the region holding their address, and
    initialised data also in the region holding its load address.
    components: attribution rules, first match wins; default_rules() when None.
    top: how many of the largest symbols to keep.
    root: absolute object paths under it are shown relative to it (see InputFile.display).
    """
    rules = list(default_rules() if components is None else components)
    parsed = mapfile.load(map_file) if map_file is not None else None
    try:
        with elf.open("rb") as f:
            ef = ELFFile(f)
            sections, index_names = _read_sections(ef)
            raw_symbols = _read_symbols(ef, index_names)
    except OSError as e:
        raise SizeReportError(f"cannot read {elf}: {e.strerror}") from e
    except ELFError as e:
        raise SizeReportError(f"{elf} is not a valid ELF file: {e}") from e

    comps: dict[str, Component] = {}
    remainder = Remainder(REMAINDER)
    ranges: dict[str, list[tuple[int, int, str]]] = {}
    for sec in sections:
        if not sec.alloc or sec.size == 0:
            continue
        out = parsed.section(sec.name, sec.address) if parsed else None
        ranges[sec.name] = _attribute(sec, out, rules, comps, remainder, root, map_file)

    usage, unplaced = _place(sections, regions)
    symbols = _top_symbols(raw_symbols, ranges, top)
    ordered = sorted(comps.values(), key=lambda c: (-c.size, c.name))
    return SizeReport(
        elf=elf.name,
        map=map_file.name if map_file else None,
        sections=sections,
        components=ordered,
        remainder=remainder,
        regions=usage,
        unplaced=unplaced,
        symbols=symbols,
        top=top,
    )


def _read_sections(ef: ELFFile) -> tuple[list[Section], dict[int, str]]:
    """The sections `size -A` lists (BFD's view of the file) and a name for every index."""
    symtab_index = None
    hidden = {0, ef["e_shstrndx"]}
    for i, s in enumerate(ef.iter_sections()):
        if s["sh_type"] == "SHT_SYMTAB" and symtab_index is None:
            symtab_index = i
            hidden |= {i, s["sh_link"]}
    load_segments = [seg for seg in ef.iter_segments() if seg["p_type"] == "PT_LOAD"]
    out: list[Section] = []
    names: dict[int, str] = {}
    for i, s in enumerate(ef.iter_sections()):
        names[i] = s.name
        stype, flags = s["sh_type"], s["sh_flags"]
        if i in hidden or stype in ("SHT_NULL", "SHT_SYMTAB_SHNDX"):
            continue
        if (
            stype in ("SHT_REL", "SHT_RELA")
            and s["sh_link"] == symtab_index
            and s["sh_info"] != 0
            and not flags & SH_FLAGS.SHF_ALLOC
        ):
            continue  # relocations of another section; BFD makes no section of them
        if stype == "SHT_NOBITS" and flags == SH_FLAGS.SHF_WRITE:
            continue  # BFD section flags end up empty, and size skips those
        if not flags & SH_FLAGS.SHF_ALLOC:
            memory: Memory = "none"
        elif stype == "SHT_NOBITS":
            memory = "data"
        elif flags & SH_FLAGS.SHF_EXECINSTR or not flags & SH_FLAGS.SHF_WRITE:
            memory = "code"
        else:
            memory = "both"
        addr = s["sh_addr"]
        lma = addr
        if memory != "none":
            for seg in load_segments:
                if seg["p_vaddr"] <= addr < seg["p_vaddr"] + max(seg["p_memsz"], 1) and (
                    stype == "SHT_NOBITS"
                    or seg["p_offset"] <= s["sh_offset"] < seg["p_offset"] + seg["p_filesz"]
                ):
                    lma = seg["p_paddr"] + addr - seg["p_vaddr"]
                    break
        stype_name = stype[4:] if isinstance(stype, str) and stype.startswith("SHT_") else stype
        out.append(
            Section(
                s.name,
                addr,
                lma,
                s["sh_size"],
                str(stype_name),
                memory,
                bool(flags & SH_FLAGS.SHF_TLS),
            )
        )
    return out, names


@dataclass(frozen=True)
class _RawSymbol:
    name: str
    address: int
    size: int
    type: str
    section: str
    bind: str


def _read_symbols(ef: ELFFile, names: dict[int, str]) -> list[_RawSymbol]:
    table = ef.get_section_by_name(".symtab")
    if not isinstance(table, SymbolTableSection):
        return []
    alloc = {i for i, s in enumerate(ef.iter_sections()) if s["sh_flags"] & SH_FLAGS.SHF_ALLOC}
    out = []
    for sym in table.iter_symbols():
        kind = sym["st_info"]["type"]
        shndx = sym["st_shndx"]
        if kind not in ("STT_FUNC", "STT_OBJECT") or sym["st_size"] == 0:
            continue
        if not isinstance(shndx, int) or shndx not in alloc:
            continue
        out.append(
            _RawSymbol(
                sym.name,
                sym["st_value"],
                sym["st_size"],
                kind[4:],
                names[shndx],
                sym["st_info"]["bind"],
            )
        )
    return out


def _attribute(
    sec: Section,
    out: mapfile.OutputSection | None,
    rules: list[ComponentRule],
    comps: dict[str, Component],
    remainder: Remainder,
    root: Path | None,
    map_file: Path | None,
) -> list[tuple[int, int, str]]:
    """Share the bytes of one allocated section out; returns (start, end, component) ranges."""
    ranges: list[tuple[int, int, str]] = []
    listed = 0
    if out is not None:
        if (out.address, out.size) != (sec.address, sec.size):
            raise SizeReportError(
                f"map file {map_file} puts {sec.name} at {_hex(out.address)} with "
                f"{out.size} bytes, the ELF at {_hex(sec.address)} with {sec.size} bytes: "
                "the map belongs to another link"
            )
        end = sec.address + sec.size
        claimed = sec.address  # bytes below this already belong to an input
        # Merged strings (SHF_MERGE) share addresses: each byte goes to the first claimant.
        for item in sorted(out.inputs, key=lambda i: i.address):
            if item.size == 0:
                continue
            if item.address < sec.address or item.address + item.size > end:
                raise SizeReportError(
                    f"map file {map_file}: {item.name} at {_hex(item.address)} lies outside "
                    f"{sec.name}: the map belongs to another link"
                )
            start = max(item.address, claimed)
            nbytes = item.address + item.size - start
            if nbytes <= 0:
                continue
            claimed = start + nbytes
            listed += nbytes
            name = REMAINDER
            if item.kind == "fill":
                remainder.fill += nbytes
                remainder.add(sec, nbytes)
            elif item.origin is None:
                remainder.linker += nbytes
                remainder.add(sec, nbytes, f"{item.name} (linker)")
            else:
                source = item.origin.display(root)
                rule = next((r for r in rules if r.matches(item.origin)), None)
                if rule is None:
                    remainder.unattributed += nbytes
                    remainder.add(sec, nbytes, source)
                else:
                    name = rule.component(item.origin)
                    comps.setdefault(name, Component(name)).add(sec, nbytes, source)
            ranges.append((start, claimed, name))
    remainder.unmapped += sec.size - listed
    remainder.add(sec, sec.size - listed)
    if out is not None and all(item.kind == "fill" for item in out.inputs if item.size):
        # No input sections at all: space the linker script reserves (stack, heap).
        remainder.fill -= listed
        remainder.unmapped -= sec.size - listed
        remainder.reserved += sec.size
        remainder.reserved_sections.append(sec.name)
    return ranges


def _place(
    sections: list[Section], regions: Sequence[Region]
) -> tuple[list[RegionUsage], list[Placement]]:
    """Put each allocated section (and the load image of initialised data) into a region."""
    usage = [RegionUsage(r) for r in regions]
    unplaced: list[Placement] = []
    if not regions:
        return usage, unplaced
    for sec in sections:
        if not sec.alloc or sec.size == 0:
            continue
        wanted: list[Placement] = []
        if not (sec.tls and sec.type == "NOBITS"):  # .tbss is a template, not memory
            wanted.append(Placement(sec.name, "vma", sec.address, sec.size))
        if sec.type != "NOBITS" and sec.load_address != sec.address:
            wanted.append(Placement(sec.name, "lma", sec.load_address, sec.size))
        for p in wanted:
            home = next((u for u in usage if u.region.origin <= p.address < u.region.end), None)
            if home is None:
                unplaced.append(p)
            else:
                home.placements.append(p)
    return usage, unplaced


def check_regions(report: SizeReport) -> list[str]:
    """Messages for every byte outside its region; the build fails when there are any."""
    errors = []
    for u in report.regions:
        r = u.region
        for p in u.placements:
            over = p.address + p.size - r.end
            if over > 0:
                what = "load image of " if p.kind == "lma" else ""
                errors.append(
                    f"{what}{p.section} ({p.size} bytes at {_hex(p.address)}) overflows region "
                    f"{r.name} ({_hex(r.origin)}..{_hex(r.end)}) by {over} bytes"
                )
    for p in report.unplaced:
        what = "load image of " if p.kind == "lma" else ""
        errors.append(
            f"{what}{p.section} ({p.size} bytes at {_hex(p.address)}) lies outside every "
            "memory region"
        )
    return errors


def _top_symbols(
    raw: list[_RawSymbol], ranges: dict[str, list[tuple[int, int, str]]], top: int
) -> list[Symbol]:
    groups: dict[tuple[str, int, int], list[_RawSymbol]] = {}
    for s in raw:
        groups.setdefault((s.section, s.address, s.size), []).append(s)
    merged = []
    for (section, address, size), syms in groups.items():
        # One name per piece of memory: globals, then weak, then locals; public names first.
        syms.sort(key=lambda s: (_BIND_RANK.get(s.bind, 3), s.name.startswith("_"), s.name))
        names = sorted({s.name for s in syms[1:]} - {syms[0].name})
        merged.append(
            Symbol(
                syms[0].name,
                address,
                size,
                syms[0].type,
                section,
                _component_at(ranges.get(section, []), address),
                tuple(names),
            )
        )
    merged.sort(key=lambda s: (-s.size, s.name, s.address))
    return merged[: max(top, 0)]


_BIND_RANK = {"STB_GLOBAL": 0, "STB_WEAK": 1, "STB_LOCAL": 2}


def _component_at(ranges: list[tuple[int, int, str]], address: int) -> str | None:
    i = bisect.bisect_right(ranges, (address, float("inf"), "")) - 1
    if i >= 0 and ranges[i][0] <= address < ranges[i][1]:
        return ranges[i][2]
    return None


def _hex(value: int | None) -> str:
    return "?" if value is None else f"{value:#010x}"


# --------------------------------------------------------------------------- text output


def _table(
    headers: Sequence[str], rows: Iterable[Sequence[object]], align: str, indent: str = "  "
) -> str:
    """Fixed-width table; align has one letter per column: "l"eft or "r"ight."""
    cells = [[str(c) for c in headers]] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = []
    for r in cells:
        parts = [
            c.ljust(w) if a == "l" else c.rjust(w) for c, w, a in zip(r, widths, align, strict=True)
        ]
        lines.append(indent + "  ".join(parts).rstrip())
    return "\n".join(lines)


_MEMORY_LABEL = {"code": "code", "both": "code+data", "data": "data", "none": "-"}


def format_text(report: SizeReport) -> str:
    t = report.totals
    alloc = t["alloc"] or 1
    src = f" (map {report.map})" if report.map else " (no map file: components unknown)"
    out = [f"Size report for {report.elf}{src}", ""]

    out.append("Sections")
    rows: list[list[object]] = [
        [s.name, _hex(s.address), _hex(s.load_address), s.size, _MEMORY_LABEL[s.memory]]
        for s in report.alloc_sections
    ]
    other = [s for s in report.sections if not s.alloc]
    if other:
        rows.append(
            [f"({len(other)} sections not in memory)", "", "", sum(s.size for s in other), "-"]
        )
    out.append(_table(["section", "address", "load addr", "size", "memory"], rows, "lrrrl"))
    out.append(
        f"  alloc {t['alloc']}  =  code {t['code']} (text {t['text']} + data {t['data_init']})"
        f"  |  RAM {t['data']} (data {t['data_init']} + bss {t['bss']})"
    )
    out.append("")

    out.append("Components")
    rows = [[c.name, c.code, c.data, c.size, _pct(c.size, alloc)] for c in report.components]
    r = report.remainder
    rows.append([r.name, r.code, r.data, r.size, _pct(r.size, alloc)])
    rows.append(["total", t["code"], t["data"], t["alloc"], _pct(t["alloc"], alloc)])
    out.append(_table(["component", "code", "data", "size", "%"], rows, "lrrrr"))
    out.append(
        f"  remainder: reserved {r.reserved} ({', '.join(r.reserved_sections) or '-'}), "
        f"fill {r.fill}, linker-made {r.linker},\n"
        f"             unattributed {r.unattributed}, not in map {r.unmapped}"
    )
    for name, n in sorted(r.inputs.items(), key=lambda kv: (-kv[1], kv[0]))[:10]:
        out.append(f"    {n:>10}  {name}")
    out.append("")

    if report.regions:
        out.append("Memory regions")
        rows = [
            [
                u.region.name,
                _hex(u.region.origin),
                u.region.length,
                u.used,
                u.region.length - u.used,
                f"{u.percent:.1f}%",
            ]
            for u in report.regions
        ]
        out.append(_table(["region", "origin", "length", "used", "free", "use"], rows, "lrrrrr"))
        out += [f"  error: {e}" for e in check_regions(report)]
        out.append("")

    if report.symbols:
        out.append(f"Largest symbols (top {report.top})")
        rows = [
            [
                s.size,
                s.type,
                s.section,
                s.component or "?",
                s.name + (f" (= {', '.join(s.aliases)})" if s.aliases else ""),
            ]
            for s in report.symbols
        ]
        out.append(_table(["size", "type", "section", "component", "name"], rows, "rllll"))
        out.append("")
    return "\n".join(out)


def _pct(part: int, whole: int) -> str:
    return f"{100.0 * part / whole:.1f}"


# --------------------------------------------------------------------------- diff


@dataclass(frozen=True)
class DiffRow:
    kind: Literal["total", "section", "component"]
    name: str
    old: int
    new: int

    @property
    def delta(self) -> int:
        return self.new - self.old

    @property
    def percent(self) -> float | None:
        return None if self.old == 0 else 100.0 * self.delta / self.old


@dataclass
class Diff:
    old_elf: str
    new_elf: str
    totals: list[DiffRow]
    sections: list[DiffRow]
    components: list[DiffRow]

    @property
    def changed(self) -> bool:
        return any(r.delta for r in self.totals + self.sections + self.components)

    def to_json(self) -> dict[str, Any]:
        def rows(rs: list[DiffRow]) -> list[dict[str, Any]]:
            return [
                {"name": r.name, "old": r.old, "new": r.new, "delta": r.delta, "percent": r.percent}
                for r in rs
            ]

        return {
            "schema": "ireerv-size-diff/1",
            "old": self.old_elf,
            "new": self.new_elf,
            "totals": rows(self.totals),
            "sections": rows(self.sections),
            "components": rows(self.components),
        }


def _check_schema(report: dict[str, Any], which: str) -> None:
    if not isinstance(report, dict) or report.get("schema") != SCHEMA:
        got = report.get("schema") if isinstance(report, dict) else type(report).__name__
        raise SizeReportError(f"{which} report has schema {got!r}; expected {SCHEMA!r}")


def diff(old: dict[str, Any], new: dict[str, Any]) -> Diff:
    """Compare two report JSON documents; rows sorted by absolute change, largest first."""
    _check_schema(old, "baseline")
    _check_schema(new, "new")
    try:
        return _diff(old, new)
    except (KeyError, TypeError, ValueError) as e:
        raise SizeReportError(f"malformed size report: {e!r}") from e


def _diff(old: dict[str, Any], new: dict[str, Any]) -> Diff:

    def by_name(items: Iterable[dict[str, Any]]) -> dict[str, int]:
        out: dict[str, int] = {}
        for item in items:
            out[item["name"]] = out.get(item["name"], 0) + int(item["size"])
        return out

    def rows(kind: Any, a: dict[str, int], b: dict[str, int]) -> list[DiffRow]:
        names = list(a) + [n for n in b if n not in a]
        rs = [DiffRow(kind, n, a.get(n, 0), b.get(n, 0)) for n in names]
        return sorted(rs, key=lambda r: (-abs(r.delta), r.name))

    def comps(report: dict[str, Any]) -> dict[str, int]:
        return by_name([*report["components"], report["remainder"]])

    def allocs(report: dict[str, Any]) -> dict[str, int]:
        return by_name(s for s in report["sections"] if s["memory"] != "none")

    totals = [
        DiffRow("total", k, int(old["totals"][k]), int(new["totals"][k]))
        for k in ("alloc", "code", "data")
    ]
    return Diff(
        old_elf=old.get("elf", "?"),
        new_elf=new.get("elf", "?"),
        totals=totals,
        sections=rows("section", allocs(old), allocs(new)),
        components=rows("component", comps(old), comps(new)),
    )


def format_diff(d: Diff) -> str:
    def fmt(rs: list[DiffRow]) -> list[list[object]]:
        return [
            [
                r.name,
                r.old,
                r.new,
                f"{r.delta:+d}",
                "new" if r.percent is None else f"{r.percent:+.1f}%",
            ]
            for r in rs
        ]

    out = [f"Size change: {d.old_elf} (baseline) -> {d.new_elf}", ""]
    out.append(_table(["total", "old", "new", "change", "%"], fmt(d.totals), "lrrrr"))
    for title, rs in (("component", d.components), ("section", d.sections)):
        changed = [r for r in rs if r.delta]
        out.append("")
        if changed:
            out.append(_table([title, "old", "new", "change", "%"], fmt(changed), "lrrrr"))
        unchanged = len(rs) - len(changed)
        out.append(f"  ({unchanged} {title}s unchanged)" if changed else f"  no {title} changed")
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- command line


def _region(text: str) -> Region:
    try:
        name, origin, length = text.split(":")
        return Region(name, int(origin, 0), int(length, 0))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME:ORIGIN:LENGTH") from None


def _rule(text: str) -> ComponentRule:
    try:
        return ComponentRule.parse(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m ireerv.size.sizereport",
        description="Size report of a linked image. Exit status 1 when a memory region "
        "overflows, 2 on bad input.",
    )
    p.add_argument("elf", type=Path)
    p.add_argument("--map", type=Path, help="GNU ld map file of the same link")
    p.add_argument("--json", type=Path, help="write the report as JSON here")
    p.add_argument("--svg", type=Path, help="write a bar chart of the components here")
    p.add_argument("--top", type=int, default=20, help="how many symbols to list (20)")
    p.add_argument("--baseline", type=Path, help="report JSON to compare against")
    p.add_argument(
        "--region",
        type=_region,
        action="append",
        default=[],
        metavar="NAME:ORIGIN:LENGTH",
        help="memory region (repeatable); default: the map's MEMORY regions",
    )
    p.add_argument("--kernel", help="object file name pattern of the generated kernel")
    p.add_argument("--control", help="object file name pattern of the vm-c module")
    p.add_argument("--bsp", help="path pattern of board support objects")
    p.add_argument("--app", help="path pattern of application objects")
    p.add_argument(
        "--rule",
        type=_rule,
        action="append",
        default=[],
        metavar="NAME=FIELD:PATTERN",
        help="extra component rule, tried before the standard ones (repeatable)",
    )
    args = p.parse_args(argv)

    rules = args.rule + default_rules(
        kernel=args.kernel, control=args.control, bsp=args.bsp, app=args.app
    )
    try:
        regions = args.region
        if not regions and args.map is not None:
            regions = [Region(m.name, m.origin, m.length) for m in mapfile.load(args.map).memory]
        report = analyze(args.elf, args.map, regions=regions, components=rules, top=args.top)
        doc = report.to_json()
        text = format_text(report)
        if args.baseline is not None:
            try:
                baseline = json.loads(args.baseline.read_text(encoding="utf-8"))
            except (OSError, ValueError) as e:
                raise SizeReportError(f"cannot read baseline {args.baseline}: {e}") from e
            text += "\n" + format_diff(diff(baseline, doc))
        if args.json is not None:
            _write_atomic(args.json, json.dumps(doc, indent=2) + "\n")
        if args.svg is not None:
            write_svg(doc, args.svg)
    except (SizeReportError, mapfile.MapFileError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    errors = doc["errors"]
    for e in errors:
        print(f"error: {e}", file=sys.stderr)
    return 1 if errors else 0


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


if __name__ == "__main__":
    sys.exit(main())
