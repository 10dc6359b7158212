"""The analysis: read the ELF and the map, attribute every byte, place sections in regions."""
from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from elftools.common.exceptions import ELFError
from elftools.elf.constants import SH_FLAGS
from elftools.elf.elffile import ELFFile
from elftools.elf.sections import SymbolTableSection

from ireerv.size import mapfile
from ireerv.size.report import (
    REMAINDER,
    Component,
    Memory,
    RegionUsage,
    Remainder,
    Section,
    SectionCopy,
    SizeReport,
    SizeReportError,
    Symbol,
    hex32,
)
from ireerv.size.rules import ComponentRule, default_rules
from ireerv.util.memory import Region


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
                f"map file {map_file} puts {sec.name} at {hex32(out.address)} with "
                f"{out.size} bytes, the ELF at {hex32(sec.address)} with {sec.size} bytes: "
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
                    f"map file {map_file}: {item.name} at {hex32(item.address)} lies outside "
                    f"{sec.name}: the map belongs to another link"
                )
            start = max(item.address, claimed)
            nbytes = item.address + item.size - start
            if nbytes <= 0:
                continue
            claimed = start + nbytes
            listed += nbytes
            name = _credit(item, sec, nbytes, rules, comps, remainder, root)
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


def _credit(item: mapfile.InputSection, sec: Section, nbytes: int, rules: list[ComponentRule],
            comps: dict[str, Component], remainder: Remainder, root: Path | None) -> str:
    """Give `nbytes` of one map input to its component; returns the component's name."""
    if item.kind == "fill":
        remainder.fill += nbytes
        remainder.add(sec, nbytes)
        return REMAINDER
    if item.origin is None:
        remainder.linker += nbytes
        remainder.add(sec, nbytes, f"{item.name} (linker)")
        return REMAINDER
    source = item.origin.display(root)
    rule = next((r for r in rules if r.matches(item.origin)), None)
    if rule is None:
        remainder.unattributed += nbytes
        remainder.add(sec, nbytes, source)
        return REMAINDER
    name = rule.component(item.origin)
    comps.setdefault(name, Component(name)).add(sec, nbytes, source)
    return name


def _place(
    sections: list[Section], regions: Sequence[Region]
) -> tuple[list[RegionUsage], list[SectionCopy]]:
    """Put each allocated section (and the load image of initialised data) into a region."""
    usage = [RegionUsage(r) for r in regions]
    unplaced: list[SectionCopy] = []
    if not regions:
        return usage, unplaced
    for sec in sections:
        if not sec.alloc or sec.size == 0:
            continue
        wanted: list[SectionCopy] = []
        if not (sec.tls and sec.type == "NOBITS"):  # .tbss is a template, not memory
            wanted.append(SectionCopy(sec.name, "vma", sec.address, sec.size))
        if sec.type != "NOBITS" and sec.load_address != sec.address:
            wanted.append(SectionCopy(sec.name, "lma", sec.load_address, sec.size))
        for p in wanted:
            home = next((u for u in usage if u.region.origin <= p.address < u.region.end), None)
            if home is None:
                unplaced.append(p)
            else:
                home.placements.append(p)
    return usage, unplaced


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



