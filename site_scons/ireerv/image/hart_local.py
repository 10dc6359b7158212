"""May the woken harts run a model's kernels from their own scratchpads?

On the cluster a core must not mix accesses to its own scratchpad with
accesses over the shared path (bsp/README.md, "The cluster's scratchpad
rule").  runtime/runner/hart_local.c lets harts 1.. run their share of a
dispatch with everything it touches in their own scratchpad: a copy of the
bindings, of the dispatch state and the environment, and their stack.  That is
sound only when the kernel code reads no data of its own (constant tables in
.rodata, globals): such a read would cross the shared path in the middle of
scratchpad accesses.  And it pays only when the kernels are bound by their
data rather than by instruction fetch: kernels that call out (soft-float
routines) are fetch-bound, and copying costs them more than it saves (f32
64x64 matmul on 4 harts: 21,461,522 cycles from the harts' own scratchpads,
20,670,640 in place).  This module decides both from the relocations of the
kernel object before it is linked: every code section the kernel's functions
reach must be in the kernel object and refer to its code only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from elftools.common.exceptions import ELFError
from elftools.elf.constants import SH_FLAGS
from elftools.elf.elffile import ELFFile
from elftools.elf.sections import SymbolTableSection

# RISC-V relocation types (psABI).
_JUMPS = {16, 17, 18, 19, 44, 45}  # BRANCH, JAL, CALL, CALL_PLT, RVC_BRANCH, RVC_JUMP
_ADDRESSES = {23, 26, 27, 28}  # PCREL_HI20, HI20, LO12_I, LO12_S
_NO_TARGET = {24, 25, 43, 51}  # PCREL_LO12_I/S (name their HI20's label), ALIGN, RELAX

HEADER = "hart_local_check.h"
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


def _read(path: Path, objects: _Objects) -> None:
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
            objects.roots += [(key, i) for i in sorted(dispatches)]
    except (OSError, ELFError) as err:
        raise HartLocalError(f"{path}: cannot read the object: {err}") from None


def in_place_reason(kernel: Path) -> str | None:
    """None if harts may run the kernels from their own scratchpads; else why not."""
    objects = _Objects()
    _read(kernel, objects)
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
                return f"{where}: relocation type {kind} for {name}"
            target = target or objects.exported.get(name)
            if target is None:
                return f"{where} calls {name} (bound by instruction fetch, not data)"
            if target not in objects.code:
                return f"{where} reads {name} (data)"
            todo.append(target)
    return None


def header(reason: str | None) -> str:
    """hart_local_check.h: RUNNER_HART_LOCAL 1 when harts 1.. may run from their own scratchpads."""
    why = ("yes: the kernels read only their arguments and call nothing" if reason is None
           else f"no, in place: {reason}")
    return (f"/* Generated: may woken harts run the kernels from their own scratchpads?\n"
            f" * {why.replace('*/', '* /')} */\n"
            f"#define RUNNER_HART_LOCAL {int(reason is None)}\n")
