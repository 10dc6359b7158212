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

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from ireerv.util.memory import Region

SCHEMA = "ireerv-size-report/1"
REMAINDER = "(remainder)"

Memory = Literal["code", "both", "data", "none"]


class SizeReportError(Exception):
    """Bad input: unreadable ELF, a map file from another link, an unknown report schema."""



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
class SectionCopy:
    """One copy of a section in memory: where it runs (vma) or where its image is loaded (lma)."""

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
    placements: list[SectionCopy] = field(default_factory=list)

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
    unplaced: list[SectionCopy]
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
                    f"{what}{p.section} ({p.size} bytes at {hex32(p.address)}) overflows region "
                    f"{r.name} ({hex32(r.origin)}..{hex32(r.end)}) by {over} bytes"
                )
    for p in report.unplaced:
        what = "load image of " if p.kind == "lma" else ""
        errors.append(
            f"{what}{p.section} ({p.size} bytes at {hex32(p.address)}) lies outside every "
            "memory region"
        )
    return errors



def hex32(value: int | None) -> str:
    return "?" if value is None else f"{value:#010x}"
