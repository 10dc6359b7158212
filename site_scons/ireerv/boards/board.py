"""The board model: what bsp/<name>/board.toml says, checked (boards.load).

A board description is the one place that says where memory is, where each
part of the image goes, which devices sit at which address, how to compile
for the core (GCC and iree-compile alike) and how to simulate it.  C code
gets the addresses only through the generated header (boards.header); the
linker script is generated from the same data (boards.linkerscript).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from ireerv.boards.sharing import Sharing
from ireerv.paths import PROJECT_ROOT
from ireerv.simulators.base import Settings
from ireerv.util.memory import Region

BSP_DIR = PROJECT_ROOT / "bsp"
COMMON_DIR = BSP_DIR / "common"
INCLUDE_DIR = BSP_DIR / "include"
# iree-compile's option for a transform library that sets lowering configurations.
LIBRARY_FLAG = "--iree-codegen-transform-dialect-library"
# And one that rewrites or annotates the model's ops before IREE's own passes.
PREPROCESSING_FLAG = "--iree-preprocessing-transform-spec-filename"
FILE_FLAGS = (LIBRARY_FLAG, PREPROCESSING_FLAG)  # the flags that name a project file
CONFIG_HEADER = "bsp_config.h"
# The board's copy from memory a core must not mix with its own (exclusive_data) into
# the memory it may use, for the runner: in the board's folder where woken harts run from
# their own memory (per_hart) or constants are staged (a placement's `constants`).
SHARED_COPY_HEADER = "bsp_shared_copy.h"

MEMORY_KINDS = ("code", "data")
PLACED = ("text", "rodata", "data", "bss", "stack", "heap")
DATA_PARTS = ("rodata", "data", "bss", "stack", "heap")
# The name of the [placement] table among a board's placements.
DEFAULT_PLACEMENT = "default"
# Bytes up to which small constants share one resource when constants are staged.
STAGED_RESOURCE = 1024
# Devices every board must describe; start-up and the C library glue use them.
REQUIRED_DEVICES = ("console", "exit", "cycles", "wake")
# C functions built for speed start on a 4-byte boundary.  A call that lands on
# a 32-bit instruction straddling two fetch words costs a CV32E40P one more
# cycle, so unaligned, a function's cost followed the size of the code before it
# (ad: 234 cycles a call fewer aligned).  Padding lies between functions and is
# never executed.  GCC leaves functions built for size unaligned (the runner
# aligns its hot ones itself, staging.c); iree-compile aligns the kernels'
# blocks (the board's [iree] flags).
CODE_LAYOUT_FLAGS = ("-falign-functions=4",)
# A board's kernels (board.toml `kernel_sources`, called from iree-compile's code) run
# for every MAC: optimised in every build, as iree-compile's own kernels are.
KERNEL_OPT = "-O2"
# ...and their loops and branch targets start on whole words too, for the same
# reason (cluster4-pulp, a later call: kws 3,166,183 -> 3,163,778 cycles, vww
# 8,461,537 -> 8,444,388).
KERNEL_ALIGN = ("-falign-loops=4", "-falign-jumps=4", "-falign-labels=4")


class BoardError(Exception):
    """An unknown board or a board.toml that does not describe a usable board."""


@dataclass(frozen=True)
class MemoryRegion(Region):
    kind: str = "code"  # "code": may hold code; "data": data only
    # False when the loader does not fill the region (the cluster's
    # scratchpads): initialised data then needs a load address elsewhere.
    preloaded: bool = True
    # True when a core's accesses here may not be mixed with its accesses
    # anywhere else: the cluster testbench answers a scratchpad access at once
    # even while a shared-path access is outstanding, so the core takes the
    # responses in the wrong order.  Then all data (rodata, data, bss, stack,
    # heap) must live in this region, and device accesses must wait for
    # completion (BSP_IO_BARRIER).
    exclusive_data: bool = False
    # True when every core has a region like this one of its own, core h's at
    # origin + h * length (the cluster's scratchpads; this one is hart 0's).
    per_hart: bool = False


@dataclass(frozen=True)
class Placement:
    """Which region holds each part of the image, and the sizes the image reserves."""

    text: str
    rodata: str
    rodata_load: str  # where .rodata is loaded (== rodata: no copy)
    data: str
    data_load: str  # where .data's initial values are loaded (== data: no copy)
    bss: str
    stack: str
    heap: str
    stack_size: int
    heap_size: int | None  # None: the rest of the heap's region
    boot_address: int | None = None  # fixed reset address of the start-up code
    # Where the model's packed constants (its weights) go when not with .rodata: a region
    # the kernels must not read directly, so each dispatch gets staged copies of them
    # (runtime/runner/staging.c).  None: with .rodata.
    constants: str | None = None


@dataclass(frozen=True)
class Device:
    name: str
    kind: str
    address: int | None = None
    # Further integer parameters (for example an interrupt number).
    params: dict[str, int] = field(default_factory=dict)


# Several harts, or a placement that stages constants: constants become bindings,
# not data inside the kernel object (a hart running from its own scratchpad may read
# only its arguments; a staged image keeps the small ones staged once,
# runtime/runner/staging.c).  vww on cluster4 with HARTS=auto: 30,543,328 cycles a
# call without this flag (every kernel in place, all on hart 0), 28,906,555 with;
# ad on one hart: 2,872,269 without, 2,811,861 with.
INLINE_NO_CONSTANTS = "--iree-flow-inline-constants-max-byte-length=0"


@dataclass(frozen=True)
class IreeTarget:
    """The iree-compile code generation flags for this board's core."""

    triple: str
    cpu: str
    features: str
    abi: str
    index_bits: int
    extra: tuple[str, ...] = ()  # code generation choices: tile sizes, peeling, ...
    # Transform library choosing tile sizes (path relative to the project root).
    library: str | None = None
    # What images whose dispatches several harts share (HARTS > 1) change in it: matchers
    # merged in ahead of the library's (ireerv_image, tune/spec.py merge).
    harts_library: str | None = None
    # Transform spec run before IREE's own passes (path relative to the project root).
    preprocessing: str | None = None

    def flags(self, library: str | None = None) -> list[str]:
        """`library` (project-relative) stands in for the board's transform library."""
        library = library or self.library
        return [
            f"--iree-llvmcpu-target-triple={self.triple}",
            f"--iree-llvmcpu-target-cpu={self.cpu}",
            f"--iree-llvmcpu-target-cpu-features={self.features}",
            f"--iree-llvmcpu-target-abi={self.abi}",
            f"--iree-vm-target-index-bits={self.index_bits}",
            *self.extra,
            *([f"{LIBRARY_FLAG}={library}"] if library else []),
            *([f"{PREPROCESSING_FLAG}={self.preprocessing}"] if self.preprocessing else []),
        ]


# What a board can be for, named in board.toml `roles`: one board each.
#   main        the board the project is measured on: the reference release, the cap,
#               the first column of the soft-float bench
#   functional  the fast functional board: soft-float bit-exactness runs there
ROLES = ("main", "functional")


@dataclass(frozen=True)
class Board:
    name: str
    description: str
    harts: int
    roles: tuple[str, ...]  # ROLES this board plays (board.toml `roles`)
    march: str  # for compiling (with Zicsr/Zifencei)
    link_march: str  # for linking: selects the multilib
    mabi: str
    memory: tuple[MemoryRegion, ...]
    placement: Placement
    devices: dict[str, Device]
    iree: IreeTarget
    simulator: Settings  # the [simulator] table, checked by its kind
    directory: Path
    sources: tuple[Path, ...]  # the board's own drivers
    # Alternative placements ([placements.<name>] in board.toml), for example
    # one for models whose data does not fit the default's region.
    placements: dict[str, Placement] = field(default_factory=dict)
    placement_name: str = DEFAULT_PLACEMENT
    # HARTS of IREE images when the command line gives none (board.toml `harts_default`:
    # a number or "auto"); the plain C matmul's is 1.
    harts_default: str = "1"
    # What sharing a dispatch among the harts costs ([sharing]; None: one hart).
    sharing: Sharing | None = None
    # Kernels the board provides to iree-compile's code (board.toml `kernel_sources`):
    # compiled at KERNEL_OPT in every build, the other BSP sources at the profile's.
    kernel_sources: tuple[Path, ...] = ()
    # The board whose tuning of a model its images merge behind this board's own
    # (board.toml `tunings_from`; None: only its own).
    tunings_from: str | None = None

    @property
    def tuning_boards(self) -> tuple[str, ...]:
        """The boards whose tuning a model's image takes, in order: its own, then the one
        it borrows from."""
        return (self.name, self.tunings_from) if self.tunings_from else (self.name,)

    @property
    def build_name(self) -> str:
        """The board's folder name in build/: one per placement (a dot is never in a board's
        name)."""
        if self.placement_name == DEFAULT_PLACEMENT:
            return self.name
        return f"{self.name}.{self.placement_name}"

    def with_placement(self, name: str) -> Board:
        """This board with the named placement; DEFAULT_PLACEMENT is [placement] itself."""
        if name == self.placement_name:
            return self
        if name not in self.placements:
            known = ", ".join([DEFAULT_PLACEMENT, *sorted(self.placements)])
            raise BoardError(f"board {self.name} has no placement {name!r}; placements: {known}")
        return replace(self, placement=self.placements[name], placement_name=name)

    def region(self, name: str) -> MemoryRegion:
        for region in self.memory:
            if region.name == name:
                return region
        raise BoardError(f"board {self.name}: no memory region {name!r}")

    def compile_flags(self) -> list[str]:
        return [f"-march={self.march}", f"-mabi={self.mabi}", *CODE_LAYOUT_FLAGS]

    def link_flags(self) -> list[str]:
        """-march selects the multilib; a section the linker script does not place is an
        error (on the cluster it would land outside the data region)."""
        return [f"-march={self.link_march}", f"-mabi={self.mabi}", "-nostartfiles",
                "-Wl,--orphan-handling=error"]

    def iree_compile_flags(self, harts: int = 1, library: str | None = None) -> list[str]:
        # Staged constants: one resource per constant (small ones share up to
        # STAGED_RESOURCE bytes), so a dispatch's binding is the weights it reads; packed
        # into one, every binding would span all of them and nothing could be staged.
        staged = ([f"--iree-stream-resource-max-allocation-size={STAGED_RESOURCE}"]
                  if self.placement.constants else [])
        # Constants out of the kernels, as bindings: woken harts run kernels from their
        # own scratchpads, and staged images keep the small ones staged (staging.c).
        inline = [INLINE_NO_CONSTANTS] if harts > 1 or self.placement.constants else []
        return [*self.iree.flags(library), *staged, *inline]

    def bsp_sources(self) -> list[Path]:
        """Start-up code, C library glue and the board's drivers (not its kernels)."""
        common = sorted(p for p in COMMON_DIR.iterdir() if p.suffix in (".c", ".S"))
        return [*common, *self.sources]

    def needs_shared_copy(self) -> bool:
        """Whether the runner needs the board's SHARED_COPY_HEADER (in some placement)."""
        return any(r.per_hart for r in self.memory) or any(
            p.constants for p in (self.placement, *self.placements.values()))

    def include_dirs(self) -> list[Path]:
        """The BSP's header folders, the board's own last (its hooks for the runner, such as
        bsp_shared_copy.h); add the folder where CONFIG_HEADER is generated."""
        return [INCLUDE_DIR, self.directory]


def choose_placement(board: Board, requested: str, wanted: str | Mapping[str, str]) -> Board:
    """The board in the placement asked for on the command line (PLACEMENT=), else in the one
    the model asks for (model.toml `placement`, maybe per board) when the board has it: a
    board without that placement holds such models in its default one."""
    if requested:
        return board.with_placement(requested)
    if not isinstance(wanted, str):
        wanted = wanted.get(board.name, "")
    if wanted and wanted in board.placements:
        return board.with_placement(wanted)
    return board

