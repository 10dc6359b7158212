"""GNU ld script generated from a board's memory map and placement.

The symbols defined here are the contract with bsp/common/start.S and
syscalls.c:
  __stack_limit, __stack_top        hart 0's stack (grows down to the limit)
  __data_start, __data_end          .data and .tdata at run time (word aligned)
  __data_load                       where their initial values are loaded
  __rodata_start, __rodata_end,     .rodata, copied too when it runs from a
  __rodata_load                     region the loader does not fill
  __tbss_start, __tbss_end          .tbss, cleared word-wise
  __bss_start, __bss_end            .bss, cleared word-wise
  __tls_base, __tls_size, ...       hart 0's TLS block (picolibc's names)
  __heap_start, __heap_end          the heap; sbrk never goes past the end
  __constants_start, __constants_end  the model's packed constants when the placement
                                    keeps them apart from .rodata (else not defined):
                                    read only through staged copies (runner/staging.c)
  __global_pointer$                 gp, for linker relaxation
Sections `.bsp.start` (reset entry: at boot_address, else at the text
region's origin) and `.bsp.trap` (trap entry, 256-byte aligned as
CV32E40P's mtvec requires) come first; `.bsp.shared` holds words that must
be valid before start-up runs (the parked-hart mailbox), so it lives in the
text region, which the loader fills; the runtime puts the woken harts' stacks
there too (loaded as zeros, apart from hart 0's data: runner/parallel.c).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ireerv.boards.board import Board

TRAP_ALIGN = 256

# Sections that are not loaded: named here so that a link with
# --orphan-handling=error (Board.link_flags) rejects only stray loaded ones.
NOT_LOADED = (
    ".comment", ".riscv.attributes", ".gnu.attributes", ".gnu.build.attributes",
    ".debug", ".line", ".debug_srcinfo", ".debug_sfnames", ".debug_aranges",
    ".debug_pubnames", ".debug_info", ".debug_abbrev", ".debug_line", ".debug_frame",
    ".debug_str", ".debug_loc", ".debug_macinfo", ".debug_weaknames", ".debug_funcnames",
    ".debug_typenames", ".debug_varnames", ".debug_pubtypes", ".debug_ranges", ".debug_addr",
    ".debug_line_str", ".debug_loclists", ".debug_macro", ".debug_names", ".debug_rnglists",
    ".debug_str_offsets", ".debug_sup", ".stab", ".stabstr", ".stab.excl", ".stab.exclstr",
    ".stab.index", ".stab.indexstr",
)


class LinkerScriptError(Exception):
    """The board's layout cannot be expressed (for example a misaligned text region)."""


def _memory(board: Board) -> list[str]:
    lines = ["MEMORY", "{"]
    width = max(len(r.name) for r in board.memory)
    for r in board.memory:
        attrs = "rwx" if r.kind == "code" else "rw!x"
        lines.append(f"  {r.name:<{width}} ({attrs}) : ORIGIN = {r.origin:#010x}, "
                     f"LENGTH = {r.length:#x}")
    lines.append("}")
    return lines


def _text(board: Board) -> list[str]:
    p = board.placement
    region = board.region(p.text)
    if region.origin % TRAP_ALIGN:
        raise LinkerScriptError(
            f"board {board.name}: text region {region.name} must start on a "
            f"{TRAP_ALIGN}-byte boundary (trap vector)")
    if p.boot_address is None or p.boot_address == region.origin:
        # Reset at the origin: the trap entry follows on the next boundary.
        head = [
            "    KEEP(*(.bsp.start))",
            f"    . = ALIGN({TRAP_ALIGN});",
            "    KEEP(*(.bsp.trap))",
        ]
    else:
        # Trap entry at the origin, reset entry at its fixed address after it.
        head = [
            "    KEEP(*(.bsp.trap))",
            f"    . = {p.boot_address - region.origin:#x};"
            f"  /* reset address {p.boot_address:#x} */",
            "    KEEP(*(.bsp.start))",
        ]
    return [
        f"  .text {region.origin:#010x} : {{",
        *head,
        "    *(.text.unlikely .text.unlikely.*)",
        "    *(.text.startup .text.startup.*)",
        "    *(.text .text.* .gnu.linkonce.t.*)",
        f"  }} > {p.text}",
    ]


def _rodata(board: Board) -> list[str]:
    p = board.placement
    at = f" AT> {p.rodata_load}" if p.rodata_load != p.rodata else ""
    return [
        "  /* Input relocations: consumed by the static link, nothing is emitted. */",
        f"  .rela.dyn : {{ *(.rela.*) }} > {p.text}",
        "  /* Preloaded words that must be valid before start-up has run. */",
        "  .bsp_shared : ALIGN(8) {",
        "    KEEP(*(.bsp.shared))",
        "    . = ALIGN(8);",
        f"  }} > {p.text}",
        "  .rodata : ALIGN(8) {",
        "    *(.rodata .rodata.* .gnu.linkonce.r.*)",
        "    *(.srodata.cst16) *(.srodata.cst8) *(.srodata.cst4) *(.srodata.cst2)",
        "    *(.srodata .srodata.*)",
        "    *(.data.rel.ro .data.rel.ro.*)",
        "    . = ALIGN(4);",
        "    PROVIDE_HIDDEN(__preinit_array_start = .);",
        "    KEEP(*(.preinit_array))",
        "    PROVIDE_HIDDEN(__preinit_array_end = .);",
        "    PROVIDE_HIDDEN(__init_array_start = .);",
        "    KEEP(*(SORT_BY_INIT_PRIORITY(.init_array.*) SORT_BY_INIT_PRIORITY(.ctors.*)))",
        "    KEEP(*(.init_array .ctors))",
        "    PROVIDE_HIDDEN(__init_array_end = .);",
        "    PROVIDE_HIDDEN(__fini_array_start = .);",
        "    KEEP(*(SORT_BY_INIT_PRIORITY(.fini_array.*) SORT_BY_INIT_PRIORITY(.dtors.*)))",
        "    KEEP(*(.fini_array .dtors))",
        "    PROVIDE_HIDDEN(__fini_array_end = .);",
        "    . = ALIGN(8);",
        f"  }} > {p.rodata}{at}",
        "  __rodata_start = ADDR(.rodata);",
        "  __rodata_end = ADDR(.rodata) + SIZEOF(.rodata);",
        "  __rodata_load = LOADADDR(.rodata);",
    ]


# iree-compile's vm-c module keeps the program's constants (the weights) in arrays named
# <module>__const, <module>__const_<n>; -fdata-sections gives each its own section.
CONSTANT_SECTIONS = ".rodata.*__const .rodata.*__const_*"
# The runner's inputs (image/runner_data.py: input<n>_data, word-aligned).
INPUT_SECTIONS = ".rodata.input*_data"


def _constants(board: Board) -> list[str]:
    p = board.placement
    if not p.constants:  # nothing apart: the image stays as it was without the feature
        return []
    return [
        "  /* The model's constants, apart from .rodata: loaded in place, never copied;",
        "     the runner's test inputs after them (copied in by the runner). */",
        "  .constants : ALIGN(64) {",
        "    __constants_start = .;",
        f"    *({CONSTANT_SECTIONS})",
        "    . = ALIGN(4);",
        "    __constants_end = .;",
        f"    *({INPUT_SECTIONS})",
        f"  }} > {p.constants}",
    ]


def _stack(board: Board) -> list[str]:
    p = board.placement
    return [
        "  /* Below all data: an overflow runs off the bottom, never into the heap. */",
        "  .stack (NOLOAD) : ALIGN(16) {",
        "    __stack_limit = .;",
        f"    . += {p.stack_size:#x};",
        "    __stack_top = .;",
        f"  }} > {p.stack}",
    ]


def _data(board: Board) -> list[str]:
    p = board.placement
    at = f" AT> {p.data_load}" if p.data_load != p.data else ""
    return [
        "  .data : ALIGN(8) {",
        "    *(.data .data.* .gnu.linkonce.d.*)",
        "    . = ALIGN(8);",
        # gp reaches 2 KiB either way, but ld relaxes an access only with the
        # largest section alignment to spare.  With gp 2 KiB above the small
        # data's start, the first .sbss variables fell out of reach as soon as
        # .data grew (ad with HARTS=auto: the staging state at gp - 1,996 took
        # a lui each, 127 cycles a call); 1 KiB leaves 3 KiB above.
        "    PROVIDE(__global_pointer$ = . + 0x400);",
        "    *(.sdata .sdata.* .sdata2 .sdata2.* .gnu.linkonce.s.*)",
        "    . = ALIGN(8);",
        f"  }} > {p.data}{at}",
        "  /* .tdata loads right after .data: one copy loop covers both. */",
        "  .tdata : AT(LOADADDR(.data) + (ADDR(.tdata) - ADDR(.data))) {",
        "    *(.tdata .tdata.* .gnu.linkonce.td.*)",
        "    . = ALIGN(4);",
        f"  }} > {p.data}",
        "  __data_start = ADDR(.data);",
        "  __data_end = ADDR(.tdata) + SIZEOF(.tdata);",
        "  __data_load = LOADADDR(.data);",
        "  __tls_base = ADDR(.tdata);",
        "  __tdata_source = LOADADDR(.tdata);",
        "  __tdata_size = SIZEOF(.tdata);",
    ]


def _bss(board: Board) -> list[str]:
    p = board.placement
    return [
        "  /* TLS is one block: .tbss follows .tdata in the data region. */",
        "  .tbss (NOLOAD) : {",
        "    *(.tbss .tbss.* .gnu.linkonce.tb.*)",
        "    *(.tcommon)",
        f"  }} > {p.data}",
        "  /* ld lets later sections overlap .tbss; reserve its space. */",
        "  .tbss_space (NOLOAD) : {",
        "    . = ADDR(.tbss) + SIZEOF(.tbss);",
        "    . = ALIGN(4);",
        f"  }} > {p.data}",
        "  .bss (NOLOAD) : ALIGN(4) {",
        "    *(.sbss .sbss.* .gnu.linkonce.sb.*)",
        "    *(.bss .bss.* .gnu.linkonce.b.*)",
        "    *(COMMON)",
        "    . = ALIGN(4);",
        f"  }} > {p.bss}",
        "  __tbss_start = ADDR(.tbss);",
        "  __tbss_end = ADDR(.tbss_space) + SIZEOF(.tbss_space);",
        "  __tbss_size = SIZEOF(.tbss);",
        "  __tbss_offset = ADDR(.tbss) - ADDR(.tdata);",
        "  __tls_size = ADDR(.tbss) + SIZEOF(.tbss) - __tls_base;",
        "  __tls_align = MAX(ALIGNOF(.tdata), ALIGNOF(.tbss));",
        "  __bss_start = ADDR(.bss);",
        "  __bss_end = ADDR(.bss) + SIZEOF(.bss);",
    ]


def _heap(board: Board) -> list[str]:
    p = board.placement
    region = board.region(p.heap)
    if p.heap_size is None:
        # The rest of the region: nothing is placed after the heap.
        return [
            "  .heap (NOLOAD) : ALIGN(16) {",
            "    __heap_start = .;",
            f"  }} > {p.heap}",
            f"  __heap_end = {region.end:#x};  /* the end of {region.name} */",
            '  ASSERT(__heap_end > __heap_start, "no room left for the heap")',
        ]
    return [
        "  .heap (NOLOAD) : ALIGN(16) {",
        "    __heap_start = .;",
        f"    . += {p.heap_size:#x};",
        "    __heap_end = .;",
        f"  }} > {p.heap}",
    ]


def _checks() -> list[str]:
    return [
        '  ASSERT(SIZEOF(.rela.dyn) == 0, "dynamic relocations in a static image")',
        '  ASSERT((__data_load & 3) == 0, "initialised data must load word aligned")',
        '  ASSERT((__rodata_load & 3) == 0, "read-only data must load word aligned")',
        '  ASSERT(SIZEOF(.tdata) > 0 || ADDR(.tbss) == __tls_base, "TLS block not contiguous")',
        '  ASSERT((ADDR(.bsp_shared) & 3) == 0, "mailbox misaligned")',
        '  ASSERT(__tls_align <= 8, "TLS alignment above 8: woken harts cannot host it")',
    ]


def _not_loaded() -> list[str]:
    lines = []
    for name in NOT_LOADED:
        inputs = f"{name} {name}.*" if name.startswith(".debug_") else name
        lines.append(f"  {name} 0 : {{ *({inputs}) }}")
    return lines


def generate(board: Board) -> str:
    """The complete linker script for `board`."""
    out = [
        f"/* Generated from bsp/{board.name}/board.toml: do not edit. */",
        "OUTPUT_ARCH(riscv)",
        "ENTRY(_start)",
        "",
        *_memory(board),
        "",
        "SECTIONS",
        "{",
        *_text(board),
        *_constants(board),
        *_stack(board),  # first in its region: an overflow leaves the region
        *_rodata(board),
        *_data(board),
        *_bss(board),
        *_heap(board),
        *_checks(),
        *_not_loaded(),
        "  /DISCARD/ : { *(.note .note.*) *(.eh_frame .eh_frame.*) *(.eh_frame_hdr) }",
        "}",
        "",
    ]
    return "\n".join(out)
