"""May the woken harts run a model's kernels from their own scratchpads, and how?

On the cluster a core must not mix accesses to its own scratchpad with
accesses over the shared path (bsp/README.md, "The cluster's scratchpad
rule").  runtime/runner/hart_local.c lets harts 1.. run their share of a
dispatch with everything it touches in their own scratchpad: copies of the
bindings, of the dispatch state and the environment, and their stack.  That is
sound only when the kernel code, and all code it calls, reads no data of its
own (constant tables in .rodata, globals): such a read would cross the shared
path in the middle of scratchpad accesses.  check() decides that
from the relocations of the objects before they are linked: every code
section the entry points reach must be among the objects given and refer to
code only.  And it pays only for kernels bound by their data: kernels that
call soft-float routines are bound by instruction fetch, and the copies cost
them more than they save (f32 64x64 matmul on 4 harts: 21,007,605 cycles from
the harts' own scratchpads, 20,670,640 in place), so they run in place.

What the copies cost depends on what each binding is for, which the compiler
knows: entry_bindings() reads it from iree-compile's executable sources (a
read-only binding needs no write-back, a write-only one no copy-in), and
word_stores() tells whether the code stores whole words only (then a hart owns
whole words of its outputs, and writes back words rather than bytes).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ireerv.harts.dispatch_names import dispatch_macs

if TYPE_CHECKING:  # the slices' module compiles many patterns: not for every build
    from ireerv.harts.hart_slices import EntrySlices

# RISC-V relocation types (psABI).
_JUMPS = {16, 17, 18, 19, 44, 45}  # BRANCH, JAL, CALL, CALL_PLT, RVC_BRANCH, RVC_JUMP
_ADDRESSES = {23, 26, 27, 28}  # PCREL_HI20, HI20, LO12_I, LO12_S
_NO_TARGET = {24, 25, 43, 51}  # PCREL_LO12_I/S (name their HI20's label), ALIGN, RELAX

# The executable sources: entry points and the access of each binding.
_FUNC = re.compile(r"func\.func @([\w$.]+)\(")
_SUBSPAN = re.compile(r"hal\.interface\.binding\.subspan .*?\bbinding\((\d+)\)(.*)$", re.M)
_ACCESS = re.compile(r"dispatch\.tensor<(readonly|writeonly|readwrite):")

HEADER = "hart_local_check.h"
SOFT_FLOAT = "soft-float kernels are bound by instruction fetch, not data"
# iree-compile's names for a kernel's entry points: <module>_dispatch_<n>_<what>.
_DISPATCH = re.compile(r"_dispatch_\d+_")


class HartLocalError(Exception):
    """An object file that cannot be read."""


Section = tuple[str, int]  # (object path, section index)


@dataclass
class _Objects:
    code: set[Section] = field(default_factory=set)
    exported: dict[str, Section] = field(default_factory=dict)  # global code symbols
    names: dict[Section, str] = field(default_factory=dict)  # first function in a section
    # Per code section: (relocation type, symbol name, symbol's section or None if undefined).
    refs: dict[Section, list[tuple[int, str, Section | None]]] = field(default_factory=dict)
    roots: list[Section] = field(default_factory=list)
    sub_word_stores: set[Section] = field(default_factory=set)  # code that has sb or sh
    fetch_bound: set[str] = field(default_factory=set)  # objects of soft-float routines


def _read(path: Path, objects: _Objects, root: bool) -> None:
    # pyelftools is imported where an object is read: loading this module costs a build
    # that has nothing to do no import.
    from elftools.common.exceptions import ELFError
    from elftools.elf.constants import SH_FLAGS
    from elftools.elf.elffile import ELFFile
    from elftools.elf.sections import SymbolTableSection

    try:
        with path.open("rb") as stream:
            elf = ELFFile(stream)
            code = {i for i, s in enumerate(elf.iter_sections())
                    if s["sh_flags"] & SH_FLAGS.SHF_EXECINSTR}
            symtab = elf.get_section_by_name(".symtab")
            if not isinstance(symtab, SymbolTableSection):
                raise HartLocalError(f"{path}: no symbol table")
            key = str(path)
            objects.code |= {(key, i) for i in code}
            objects.sub_word_stores |= {(key, i) for i in code
                                        if _has_sub_word_store(elf.get_section(i).data())}
            dispatches = set()
            for sym in symtab.iter_symbols():
                shndx = sym["st_shndx"]
                if not isinstance(shndx, int) or shndx not in code:
                    continue
                if sym["st_info"]["type"] == "STT_FUNC":
                    objects.names.setdefault((key, shndx), sym.name)
                    if _DISPATCH.search(sym.name) and not sym.name.endswith("_library_query"):
                        dispatches.add(shndx)
                if sym["st_info"]["bind"] in ("STB_GLOBAL", "STB_WEAK") and sym.name:
                    objects.exported.setdefault(sym.name, (key, shndx))
            for section in elf.iter_sections():
                if section["sh_type"] != "SHT_RELA" or section["sh_info"] not in code:
                    continue
                refs = objects.refs.setdefault((key, section["sh_info"]), [])
                for rel in section.iter_relocations():
                    sym = symtab.get_symbol(rel["r_info_sym"])
                    shndx = sym["st_shndx"]
                    where = (key, shndx) if isinstance(shndx, int) and shndx else None
                    name = sym.name or elf.get_section(shndx).name if where else sym.name
                    refs.append((rel["r_info_type"], name, where))
            if root:
                objects.roots += [(key, i) for i in sorted(dispatches)]
    except (OSError, ELFError) as err:
        raise HartLocalError(f"{path}: cannot read the object: {err}") from None


def _has_sub_word_store(code: bytes) -> bool:
    """Whether rv32imc code holds an sb or sh (RVC has no byte or halfword stores)."""
    i = 0
    while i + 2 <= len(code):
        if code[i] & 3 != 3:
            i += 2
            continue
        word = int.from_bytes(code[i:i + 4], "little")
        if word & 0x7F == 0x23 and (word >> 12) & 7 in (0, 1):
            return True
        i += 4
    return False


def _reached(objects: _Objects) -> tuple[set[Section], str | None]:
    """The code sections the entry points reach, and the first reason they may not run locally."""
    seen: set[Section] = set()
    todo = list(objects.roots)
    while todo:
        section = todo.pop()
        if section in seen:
            continue
        seen.add(section)
        where = objects.names.get(section, Path(section[0]).name)
        for kind, name, target in objects.refs.get(section, []):
            if kind in _NO_TARGET:
                continue
            if kind not in _JUMPS | _ADDRESSES:
                return seen, f"{where}: relocation type {kind} for {name}"
            target = target or objects.exported.get(name)
            if target is None:
                return seen, f"{where} calls {name}, which is not among the checked objects"
            if target not in objects.code:
                return seen, f"{where} reads {name} (data)"
            if target[0] in objects.fetch_bound:
                return seen, f"{where} calls {name}: {SOFT_FLOAT}"
            todo.append(target)
    return seen, None


def _objects(kernel: Path, softfloat: list[Path], others: list[Path]) -> _Objects:
    objects = _Objects(fetch_bound={str(p) for p in softfloat})
    _read(kernel, objects, root=True)
    for path in [*softfloat, *others]:
        _read(path, objects, root=False)
    return objects


def check(kernel: Path, softfloat: list[Path], others: list[Path]) -> tuple[str | None, bool]:
    """(None if harts may run all the kernels from their own scratchpads, else why not;
    whether the code they reach stores whole words only)."""
    objects = _objects(kernel, softfloat, others)
    seen, reason = _reached(objects)
    return reason, not (seen & objects.sub_word_stores)


@dataclass(frozen=True)
class EntryCheck:
    """One entry point: None if harts may run it from their own scratchpads, else why not;
    whether the code it reaches stores whole words only."""

    reason: str | None
    word_stores: bool

    @property
    def mode(self) -> int:
        """The runtime's RUNNER_LOCAL_MODE_*: 1 local, 2 in place and bound by instruction
        fetch (soft-float), 0 in place because it reads data of its own."""
        if self.reason is None:
            return 1
        return 2 if self.reason.endswith(SOFT_FLOAT) else 0


def check_entries(kernel: Path, softfloat: list[Path],
                  others: list[Path]) -> dict[str, EntryCheck]:
    """check() for each entry point of the kernel object alone: one kernel that reads a table
    or calls soft-float keeps only itself in place, not every other one."""
    objects = _objects(kernel, softfloat, others)
    result = {}
    for root in list(objects.roots):
        objects.roots = [root]
        seen, reason = _reached(objects)
        result[objects.names[root]] = EntryCheck(reason, not (seen & objects.sub_word_stores))
    return result


_FUNCS = "_library_query_v0_funcs"  # a library's entry points, by ordinal


def export_order(kernel: Path) -> list[str]:
    """The entry points of the kernel object's library in ordinal order (the table its
    query returns, from that table's relocations), or [] unless it has exactly one library:
    the runtime finds an entry point's row by its ordinal, without comparing names."""
    from elftools.common.exceptions import ELFError
    from elftools.elf.elffile import ELFFile
    from elftools.elf.sections import SymbolTableSection

    try:
        with kernel.open("rb") as stream:
            elf = ELFFile(stream)
            symtab = elf.get_section_by_name(".symtab")
            if not isinstance(symtab, SymbolTableSection):
                raise HartLocalError(f"{kernel}: no symbol table")
            tables = [s for s in symtab.iter_symbols() if s.name.endswith(_FUNCS)]
            if len(tables) != 1:
                return []
            table = tables[0]
            functions = {(s["st_shndx"], s["st_value"]): s.name for s in symtab.iter_symbols()
                         if s["st_info"]["type"] == "STT_FUNC"}
            order: dict[int, str] = {}
            for section in elf.iter_sections():
                if section["sh_type"] != "SHT_RELA" or section["sh_info"] != table["st_shndx"]:
                    continue
                for rel in section.iter_relocations():
                    at = rel["r_offset"] - table["st_value"]
                    if not 0 <= at < table["st_size"]:
                        continue
                    sym = symtab.get_symbol(rel["r_info_sym"])
                    order[at // 4] = sym.name or functions[(sym["st_shndx"], rel["r_addend"])]
            return [order[i] for i in range(len(order))]
    except (OSError, ELFError, KeyError) as err:
        raise HartLocalError(f"{kernel}: cannot read its entry points: {err!r}") from None


def summary(checks: dict[str, EntryCheck]) -> tuple[str | None, bool]:
    """The first entry point's reason to stay in place (None: all may run locally), and
    whether every entry point that may run locally stores whole words only."""
    reasons = [c.reason for _, c in sorted(checks.items()) if c.reason is not None]
    return (reasons[0] if reasons else None,
            all(c.word_stores for c in checks.values() if c.reason is None))


def entry_bodies(sources: str) -> dict[str, str]:
    """Each function of iree-compile's executable sources by name: its text up to the next."""
    parts = _FUNC.split(sources)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def entry_bindings(sources: str) -> dict[str, tuple[int, int]]:
    """Per entry point of iree-compile's executable sources (`--compile-to=executable-sources`):
    the masks of its read-only and of its write-only bindings (every view of the binding so)."""
    result = {}
    for name, body in entry_bodies(sources).items():
        kinds: dict[int, set[str]] = {}
        for match in _SUBSPAN.finditer(body):
            access = _ACCESS.search(match.group(2))
            kinds.setdefault(int(match.group(1)), set()).add(
                access.group(1) if access else "readwrite")
        result[name] = (sum(1 << b for b, k in kinds.items() if k == {"readonly"}),
                        sum(1 << b for b, k in kinds.items() if k == {"writeonly"}))
    return result


def _default_mode(reason: str | None, checks: dict[str, EntryCheck]) -> int:
    """The mode all entry points share (0 if they differ): with none local, no table is made."""
    modes = {c.mode for c in checks.values()}
    if not checks:
        return int(reason is None)
    return modes.pop() if len(modes) == 1 else 0


# The fewest cycles a multiply-accumulate can take, by the dispatch's element type: an
# integer one is a multiply and an add, and a core retires at most one instruction a
# cycle; a float one on these FPU-less cores is a call of the soft-float multiply and
# add, each over 10 instructions on its fastest path (the f32 matmul: 93-96 cycles a MAC).
CYCLES_PER_MAC_FLOOR = {"i": 2, "f": 24}
_ELEMENT = re.compile(r"_([if])\d+(?:x[if]\d+)*$")


def cycles_floor(name: str) -> int:
    """Cycles the whole dispatch `name` takes at least on one hart (0: unknown): the runtime
    may share it from its first sight when even that would gain (hart_plan.c)."""
    element = _ELEMENT.search(name)
    floor = dispatch_macs(name) * CYCLES_PER_MAC_FLOOR[element.group(1)] if element else 0
    return min(floor, 0xFFFFFFFF)  # the runtime's uint32_t; a larger floor changes nothing


# Workgroup counts of slices that hold for any number of workgroups in x, y and z one
# (the runner's RUNNER_ANY_COUNT): a board's kernel (kernel_slices.py).
ANY_COUNT = 0xFFFFFFFF


def _terms(ordinals: tuple[int, ...]) -> int:
    """runner_slice_t's step_terms or length_terms: a byte per push constant, ordinal + 1."""
    if len(ordinals) > 4 or any(not 0 <= o < 255 for o in ordinals):
        raise HartLocalError(f"a slice multiplied by push constants {ordinals}: at most four "
                             "of ordinals 0 to 254")
    return sum((o + 1) << (8 * k) for k, o in enumerate(ordinals))


def header(reason: str | None, word_stores: bool = False,
           entries: dict[str, tuple[int, int]] | None = None,
           slices: dict[str, EntrySlices] | None = None,
           checks: dict[str, EntryCheck] | None = None,
           order: list[str] | None = None) -> str:
    """hart_local_check.h: whether and how harts 1.. run the kernels from their own scratchpads;
    `slices` (hart_slices.entry_slices) bounds what the workgroups touch of some bindings;
    `checks` (check_entries) decides per entry point (else `reason` for all of them); the
    table has a row per entry point of `order` (export_order), at its ordinal."""
    checks = checks or {}
    order = order or []
    local = reason is None or any(c.reason is None for c in checks.values())
    why = ("yes: the kernels read no data of their own" if reason is None
           else f"per entry point: {reason}" if local else f"no, in place: {reason}")
    lines = ["/* Generated: may woken harts run the kernels from their own scratchpads?",
             f" * {why.replace('*/', '* /')} */",
             f"#define RUNNER_HART_LOCAL {int(local)}",
             "/* 1: the kernels store whole words only (a hart owns whole output words) */",
             f"#define RUNNER_HART_LOCAL_WORD_STORES {int(word_stores)}",
             "/* The mode of entry points not in the table below */",
             f"#define RUNNER_HART_LOCAL_DEFAULT_MODE {_default_mode(reason, checks)}",
             f"/* Entry points, by ordinal in the kernel's one library ({len(order)}) */",
             f"#define RUNNER_HART_LOCAL_ENTRY_COUNT {len(order)}",
             "/* Per entry point: masks of its read-only and of its write-only bindings,",
             " * its mode (0 in place, 1 local, 2 in place and bound by instruction fetch),",
             " * its workgroup counts, its first and number of RUNNER_HART_LOCAL_SLICES,",
             " * and the fewest cycles the whole dispatch takes on one hart (0: unknown) */",
             "#define RUNNER_HART_LOCAL_ENTRIES \\"]
    table: list[str] = []
    for ordinal, name in enumerate(order):
        # Without iree-compile's bindings (no entry point runs locally) the kernel's own
        # entry points still give each dispatch's floor.
        ro, wo = (entries or {}).get(name, (0, 0))
        found = (slices or {}).get(name)
        counts = found.counts if found else (0, 0, 0)
        count = len(found.slices) if found else 0
        known = name in (entries if entries is not None else checks)
        mode = (checks[name].mode if name in checks else int(reason is None)) if known else 0
        lines.append(f"  {{{ro:#x}u, {wo:#x}u, {mode}, {{{counts[0]}, {counts[1]}, "
                     f"{counts[2]}}}, {len(table)}, {count}, {cycles_floor(name)}u}}, "
                     f"/* {ordinal}: {name} */ \\")
        for s in found.slices if found else ():
            terms = (f", {_terms(s.step_terms):#x}u, {_terms(s.length_terms):#x}u"
                     if s.step_terms or s.length_terms else "")
            table.append(f"  {{{s.binding}, {s.base}, {{{s.steps[0]}, {s.steps[1]}, "
                         f"{s.steps[2]}}}, {s.length}u, {s.constant}, {int(s.filled)}{terms}}}, \\")
    lines.append("  {0, 0, 0, {0, 0, 0}, 0, 0, 0}")
    kernels = sum(s.counts[0] == ANY_COUNT for s in (slices or {}).values())
    lines += ["/* Entry points that call a board's kernel (harts/kernel_slices.py) */",
              f"#define RUNNER_HART_LOCAL_KERNELS {kernels}"]
    lines += ["/* Workgroup (x, y, z) touches bytes [base + step . (x, y, z), + length) of",
              " * the binding, base counted from push constant `constant` (-1: none),",
              " * and writes every one of them when `filled`; a board kernel's step and",
              " * length are multiplied by push constants (a byte each, ordinal + 1):",
              " * {binding, base, step, length, constant, filled[, step_terms, length_terms]} */",
              "#define RUNNER_HART_LOCAL_SLICES \\", *table, "  {0, 0, {0, 0, 0}, 0, -1, 0}"]
    return "\n".join(lines) + "\n"
