"""Boards: bsp/<name>/board.toml loaded and checked into a Board.

A board description is the one place that says where memory is, where each
part of the image goes, which devices sit at which address, how to compile
for the core (GCC and iree-compile alike) and how to simulate it.  C code
gets the addresses only through Board.config_header(); the linker script is
generated from the same data (Board.linker_script()).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ireerv.paths import PROJECT_ROOT

BSP_DIR = PROJECT_ROOT / "bsp"
COMMON_DIR = BSP_DIR / "common"
INCLUDE_DIR = BSP_DIR / "include"
CONFIG_HEADER = "bsp_config.h"

MEMORY_KINDS = ("code", "data")
PLACED = ("text", "rodata", "data", "bss", "stack", "heap")
DATA_PARTS = ("rodata", "data", "bss", "stack", "heap")
SIMULATORS = ("qemu", "verilator-cluster")
# Devices every board must describe; start-up and the C library glue use them.
REQUIRED_DEVICES = ("console", "exit", "cycles", "wake")

_NAME_RE = re.compile(r"^[a-z][a-z0-9_]*$")
_BOARD_RE = re.compile(r"^[a-z][a-z0-9-]*$")
_MARCH_RE = re.compile(r"^rv32[a-z]+(_[a-z0-9]+)*$")


class BoardError(Exception):
    """An unknown board or a board.toml that does not describe a usable board."""


@dataclass(frozen=True)
class MemoryRegion:
    name: str
    origin: int
    length: int
    kind: str  # "code": may hold code; "data": data only
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

    @property
    def end(self) -> int:
        return self.origin + self.length


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

    def region_of(self, part: str) -> str:
        return getattr(self, part)


@dataclass(frozen=True)
class Device:
    name: str
    kind: str
    address: int | None = None
    # Further integer parameters (for example an interrupt number).
    params: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class IreeTarget:
    """The iree-compile code generation flags for this board's core."""

    triple: str
    cpu: str
    features: str
    abi: str
    index_bits: int

    def flags(self) -> list[str]:
        return [
            f"--iree-llvmcpu-target-triple={self.triple}",
            f"--iree-llvmcpu-target-cpu={self.cpu}",
            f"--iree-llvmcpu-target-cpu-features={self.features}",
            f"--iree-llvmcpu-target-abi={self.abi}",
            f"--iree-vm-target-index-bits={self.index_bits}",
        ]


@dataclass(frozen=True)
class Simulator:
    kind: str  # one of SIMULATORS
    timeout: float  # default wall-clock limit of a run, seconds
    maxcycles: int | None = None  # verilator-cluster: default +maxcycles
    binary: str | None = None  # qemu: the emulator's executable name
    args: tuple[str, ...] = ()  # qemu: machine arguments (everything but -kernel)


@dataclass(frozen=True)
class Board:
    name: str
    description: str
    harts: int
    march: str  # for compiling (with Zicsr/Zifencei)
    link_march: str  # for linking: selects the multilib
    mabi: str
    memory: tuple[MemoryRegion, ...]
    placement: Placement
    devices: dict[str, Device]
    iree: IreeTarget
    simulator: Simulator
    directory: Path
    sources: tuple[Path, ...]  # the board's own drivers

    def region(self, name: str) -> MemoryRegion:
        for region in self.memory:
            if region.name == name:
                return region
        raise BoardError(f"board {self.name}: no memory region {name!r}")

    def compile_flags(self) -> list[str]:
        return [f"-march={self.march}", f"-mabi={self.mabi}"]

    def link_flags(self) -> list[str]:
        """-march selects the multilib; a section the linker script does not place is an
        error (on the cluster it would land outside the data region)."""
        return [f"-march={self.link_march}", f"-mabi={self.mabi}", "-nostartfiles",
                "-Wl,--orphan-handling=error"]

    def iree_compile_flags(self) -> list[str]:
        return self.iree.flags()

    def bsp_sources(self) -> list[Path]:
        """Start-up code, C library glue and the board's drivers."""
        common = sorted(p for p in COMMON_DIR.iterdir() if p.suffix in (".c", ".S"))
        return [*common, *self.sources]

    def include_dirs(self) -> list[Path]:
        """The BSP's header folders; add the folder where CONFIG_HEADER is generated."""
        return [INCLUDE_DIR]

    def config_header(self) -> str:
        return _config_header(self)

    def linker_script(self) -> str:
        from ireerv.boards.linkerscript import generate

        return generate(self)


def list_boards(bsp_dir: Path = BSP_DIR) -> list[str]:
    return sorted(p.parent.name for p in bsp_dir.glob("*/board.toml"))


def load_board(name: str, bsp_dir: Path = BSP_DIR) -> Board:
    """The board bsp/<name>/board.toml describes, checked; BoardError says what is wrong."""
    boards = list_boards(bsp_dir)
    if name not in boards:
        raise BoardError(f"unknown board {name!r}; boards: {', '.join(boards) or '(none)'}")
    path = bsp_dir / name / "board.toml"
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as err:
        raise BoardError(f"{path}: {err}") from None
    try:
        return _parse(name, path, data)
    except BoardError as err:
        raise BoardError(f"{path}: {err}") from None


# --------------------------------------------------------------------------- parsing


def _get(table: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in table:
        raise BoardError(f"{where}: missing {key!r}")
    value = table[key]
    # bool is an int in Python; never accept it where a number is meant.
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise BoardError(f"{where}: {key!r} has the wrong type ({type(value).__name__})")
    return value


def _opt(table: dict[str, Any], key: str, kind: type, where: str, default: Any) -> Any:
    return _get(table, key, kind, where) if key in table else default


def _table(data: dict[str, Any], key: str, where: str = "board.toml") -> dict[str, Any]:
    return _get(data, key, dict, where)


def _check_keys(table: dict[str, Any], allowed: tuple[str, ...], where: str) -> None:
    unknown = sorted(set(table) - set(allowed))
    if unknown:
        raise BoardError(
            f"{where}: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(allowed)}")


def _parse(name: str, path: Path, data: dict[str, Any]) -> Board:
    _check_keys(data, ("name", "description", "harts", "sources", "compile", "memory",
                       "placement", "devices", "iree", "simulator"), "board.toml")
    if _get(data, "name", str, "board.toml") != name:
        raise BoardError(f"'name' is {data['name']!r} but the folder is {name!r}")
    if not _BOARD_RE.match(name):
        raise BoardError(f"board name {name!r}: use lower case letters, digits and '-'")
    harts = _get(data, "harts", int, "board.toml")
    if not 1 <= harts <= 32:
        raise BoardError(f"'harts' must be 1..32, not {harts}")

    comp = _table(data, "compile")
    _check_keys(comp, ("march", "link_march", "mabi"), "[compile]")
    march = _get(comp, "march", str, "[compile]")
    link_march = _get(comp, "link_march", str, "[compile]")
    for key, value in (("march", march), ("link_march", link_march)):
        if not _MARCH_RE.match(value):
            raise BoardError(f"[compile] {key} {value!r} is not a 32-bit RISC-V -march")
    mabi = _get(comp, "mabi", str, "[compile]")

    memory = _parse_memory(_table(data, "memory"))
    placement = _parse_placement(_table(data, "placement"), memory)
    devices = _parse_devices(_table(data, "devices"))
    iree = _parse_iree(_table(data, "iree"))
    simulator = _parse_simulator(_table(data, "simulator"), harts)

    sources = []
    for item in _opt(data, "sources", list, "board.toml", []):
        src = path.parent / item
        if not isinstance(item, str) or not src.is_file():
            raise BoardError(f"source {item!r} not found in {path.parent}")
        sources.append(src)

    return Board(
        name=name,
        description=_opt(data, "description", str, "board.toml", ""),
        harts=harts,
        march=march,
        link_march=link_march,
        mabi=mabi,
        memory=memory,
        placement=placement,
        devices=devices,
        iree=iree,
        simulator=simulator,
        directory=path.parent,
        sources=tuple(sources),
    )


def _parse_memory(table: dict[str, Any]) -> tuple[MemoryRegion, ...]:
    regions = []
    for rname, item in table.items():
        where = f"[memory.{rname}]"
        if not _NAME_RE.match(rname):
            raise BoardError(f"{where}: region names are C identifiers in lower case")
        if not isinstance(item, dict):
            raise BoardError(f"{where}: must be a table")
        _check_keys(item, ("origin", "length", "kind", "preloaded", "exclusive_data"), where)
        region = MemoryRegion(
            name=rname,
            origin=_get(item, "origin", int, where),
            length=_get(item, "length", int, where),
            kind=_get(item, "kind", str, where),
            preloaded=_opt(item, "preloaded", bool, where, True),
            exclusive_data=_opt(item, "exclusive_data", bool, where, False),
        )
        if region.kind not in MEMORY_KINDS:
            raise BoardError(f"{where}: kind must be one of {', '.join(MEMORY_KINDS)}")
        if region.origin < 0 or region.length <= 0 or region.end > 1 << 32:
            raise BoardError(f"{where}: origin/length outside the 32-bit address space")
        if region.kind == "code" and not region.preloaded:
            raise BoardError(f"{where}: a code region must be preloaded")
        regions.append(region)
    if not regions:
        raise BoardError("[memory]: no regions")
    ordered = sorted(regions, key=lambda r: r.origin)
    for a, b in zip(ordered, ordered[1:], strict=False):
        if a.end > b.origin:
            raise BoardError(f"[memory]: regions {a.name} and {b.name} overlap")
    return tuple(regions)


def _parse_placement(table: dict[str, Any], memory: tuple[MemoryRegion, ...]) -> Placement:
    where = "[placement]"
    _check_keys(table, (*PLACED, "rodata_load", "data_load", "stack_size", "heap_size",
                        "boot_address"), where)
    by_name = {r.name: r for r in memory}
    chosen = {}
    for part in (*PLACED, "rodata_load", "data_load"):
        if part.endswith("_load") and part not in table:
            continue
        rname = _get(table, part, str, where)
        if rname not in by_name:
            raise BoardError(f"{where}: {part} in unknown region {rname!r}; "
                             f"regions: {', '.join(by_name)}")
        chosen[part] = by_name[rname]
    if chosen["text"].kind != "code":
        raise BoardError(f"{where}: text must be in a code region, not {chosen['text'].name}")
    loads = {}
    for part in ("rodata", "data"):
        region = chosen[part]
        load = chosen.get(f"{part}_load", region if region.preloaded else chosen["text"])
        if not load.preloaded:
            raise BoardError(f"{where}: {part}_load region {load.name} is not preloaded")
        loads[part] = load
    exclusive = {chosen[p].name for p in DATA_PARTS if chosen[p].exclusive_data}
    if exclusive and any(chosen[p].name not in exclusive or len(exclusive) > 1
                         for p in DATA_PARTS):
        raise BoardError(
            f"{where}: region {sorted(exclusive)[0]} takes all data or none: place "
            f"{', '.join(DATA_PARTS)} all in it")
    stack_size = _get(table, "stack_size", int, where)
    heap_size = _opt(table, "heap_size", int, where, None)
    if stack_size < 256 or stack_size % 16:
        raise BoardError(f"{where}: stack_size must be a multiple of 16, at least 256")
    if heap_size is not None and (heap_size <= 0 or heap_size % 8):
        raise BoardError(f"{where}: heap_size must be a positive multiple of 8 (or left out)")
    boot = _opt(table, "boot_address", int, where, None)
    if boot is not None:
        text = chosen["text"]
        if not text.origin <= boot < text.end or boot % 4:
            raise BoardError(f"{where}: boot_address {boot:#x} is not an aligned address in "
                             f"{text.name}")
    return Placement(
        text=chosen["text"].name,
        rodata=chosen["rodata"].name,
        rodata_load=loads["rodata"].name,
        data=chosen["data"].name,
        data_load=loads["data"].name,
        bss=chosen["bss"].name,
        stack=chosen["stack"].name,
        heap=chosen["heap"].name,
        stack_size=stack_size,
        heap_size=heap_size,
        boot_address=boot,
    )


def _parse_devices(table: dict[str, Any]) -> dict[str, Device]:
    devices = {}
    for dname, item in table.items():
        where = f"[devices.{dname}]"
        if not _NAME_RE.match(dname):
            raise BoardError(f"{where}: device names are C identifiers in lower case")
        if not isinstance(item, dict):
            raise BoardError(f"{where}: must be a table")
        params = {}
        for key, value in item.items():
            if key in ("kind", "address"):
                continue
            if not _NAME_RE.match(key) or not isinstance(value, int) or isinstance(value, bool):
                raise BoardError(f"{where}: {key!r}: device parameters are integers")
            params[key] = value
        devices[dname] = Device(
            name=dname,
            kind=_get(item, "kind", str, where),
            address=_opt(item, "address", int, where, None),
            params=params,
        )
    missing = [d for d in REQUIRED_DEVICES if d not in devices]
    if missing:
        raise BoardError(f"[devices]: missing {', '.join(missing)}")
    return devices


def _parse_iree(table: dict[str, Any]) -> IreeTarget:
    where = "[iree]"
    _check_keys(table, ("triple", "cpu", "features", "abi", "index_bits"), where)
    target = IreeTarget(
        triple=_get(table, "triple", str, where),
        cpu=_get(table, "cpu", str, where),
        features=_get(table, "features", str, where),
        abi=_get(table, "abi", str, where),
        index_bits=_get(table, "index_bits", int, where),
    )
    if target.index_bits not in (32, 64):
        raise BoardError(f"{where}: index_bits must be 32 or 64")
    return target


def _parse_simulator(table: dict[str, Any], harts: int) -> Simulator:
    where = "[simulator]"
    _check_keys(table, ("kind", "timeout", "maxcycles", "binary", "args"), where)
    kind = _get(table, "kind", str, where)
    if kind not in SIMULATORS:
        raise BoardError(f"{where}: kind must be one of {', '.join(SIMULATORS)}")
    timeout = _get(table, "timeout", (int, float), where)
    if timeout <= 0:
        raise BoardError(f"{where}: timeout must be positive")
    if kind == "qemu":
        args = _get(table, "args", list, where)
        if not all(isinstance(a, str) for a in args):
            raise BoardError(f"{where}: args must be strings")
        if "-kernel" in args:
            raise BoardError(f"{where}: args must not name the image (-kernel)")
        if "-smp" in args:
            index = args.index("-smp")
            if index + 1 >= len(args) or args[index + 1].split(",")[0] != str(harts):
                raise BoardError(f"{where}: -smp must match harts = {harts}")
        return Simulator(kind, float(timeout), binary=_get(table, "binary", str, where),
                         args=tuple(args))
    maxcycles = _get(table, "maxcycles", int, where)
    if maxcycles <= 0:
        raise BoardError(f"{where}: maxcycles must be positive")
    return Simulator(kind, float(timeout), maxcycles=maxcycles)


# --------------------------------------------------------------------------- C header


def _macro(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "_", name).upper()


def _config_header(board: Board) -> str:
    """C/assembler #defines for the board; plain hex numbers so assembly can use them too."""
    p = board.placement
    lines = [
        f"/* Generated from bsp/{board.name}/board.toml: do not edit. */",
        "#ifndef BSP_CONFIG_H",
        "#define BSP_CONFIG_H",
        "",
        f'#define BSP_BOARD_NAME "{board.name}"',
        f"#define BSP_BOARD_{_macro(board.name)} 1",
        f"#define BSP_HARTS {board.harts}",
        f"#define BSP_STACK_SIZE {p.stack_size:#x}",
        "/* 1: device and shared-memory accesses must complete before the next access */",
        f"#define BSP_IO_BARRIER {int(any(r.exclusive_data for r in board.memory))}",
        "",
        "/* Memory regions */",
    ]
    for r in board.memory:
        m = _macro(r.name)
        lines += [f"#define BSP_MEM_{m}_ORIGIN {r.origin:#010x}",
                  f"#define BSP_MEM_{m}_LENGTH {r.length:#x}"]
    lines += ["", "/* Devices */"]
    for d in board.devices.values():
        m = _macro(d.name)
        lines.append(f"#define BSP_{m}_KIND_{_macro(d.kind)} 1")
        if d.address is not None:
            lines.append(f"#define BSP_{m}_ADDR {d.address:#010x}")
        for key, value in sorted(d.params.items()):
            lines.append(f"#define BSP_{m}_{_macro(key)} {value:#x}")
    lines += ["", "#endif /* BSP_CONFIG_H */", ""]
    return "\n".join(lines)
