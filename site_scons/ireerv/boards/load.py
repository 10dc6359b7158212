"""Load bsp/<name>/board.toml into a Board, checking every table and key."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from ireerv import simulators
from ireerv.boards.board import (
    BSP_DIR,
    DATA_PARTS,
    DEFAULT_PLACEMENT,
    MEMORY_KINDS,
    PLACED,
    REQUIRED_DEVICES,
    ROLES,
    SHARED_COPY_HEADER,
    Board,
    BoardError,
    Device,
    IreeTarget,
    MemoryRegion,
    Placement,
)
from ireerv.boards.sharing import SharingError, parse_sharing
from ireerv.paths import PROJECT_ROOT

_BOARD_RE = re.compile(r"^[a-z][a-z0-9-]*$")
_MARCH_RE = re.compile(r"^rv32[a-z]+(_[a-z0-9]+)*$")
_NAME_RE = re.compile(r"^[a-z][a-z0-9_]*$")


def list_boards(bsp_dir: Path = BSP_DIR) -> list[str]:
    return sorted(p.parent.name for p in bsp_dir.glob("*/board.toml"))


def board_with_role(role: str, bsp_dir: Path = BSP_DIR) -> Board:
    """The one board whose board.toml gives it `role` (ROLES)."""
    found = [b for b in (load_board(n, bsp_dir) for n in list_boards(bsp_dir))
             if role in b.roles]
    if len(found) != 1:
        raise BoardError(f"{len(found)} boards have the role {role!r} in their board.toml "
                         f"({', '.join(b.name for b in found) or 'none'}); one must")
    return found[0]


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


def _opt(table: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str,
         default: Any) -> Any:
    return _get(table, key, kind, where) if key in table else default


def _table(data: dict[str, Any], key: str, where: str = "board.toml") -> dict[str, Any]:
    return _get(data, key, dict, where)


def _check_keys(table: dict[str, Any], allowed: tuple[str, ...], where: str) -> None:
    unknown = sorted(set(table) - set(allowed))
    if unknown:
        raise BoardError(
            f"{where}: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(allowed)}")


def _tunings_from(data: dict[str, Any], name: str) -> str | None:
    """The board whose tunings this one borrows (`tunings_from`), or None."""
    other = _opt(data, "tunings_from", str, "board.toml", None)
    if other is not None and (other == name or not _BOARD_RE.match(other)):
        raise BoardError(f"'tunings_from' {other!r}: name another board")
    return other


def _parse(name: str, path: Path, data: dict[str, Any]) -> Board:
    _check_keys(data, ("name", "description", "harts", "harts_default", "roles", "sources",
                       "kernel_sources", "compile", "memory", "placement", "placements",
                       "devices", "iree", "simulator", "sharing", "tunings_from"),
               "board.toml")
    roles = tuple(_opt(data, "roles", list, "board.toml", []))
    if not set(roles) <= set(ROLES):
        raise BoardError(f"'roles' {list(roles)}: known roles are {', '.join(ROLES)}")
    if _get(data, "name", str, "board.toml") != name:
        raise BoardError(f"'name' is {data['name']!r} but the folder is {name!r}")
    if not _BOARD_RE.match(name):
        raise BoardError(f"board name {name!r}: use lower case letters, digits and '-'")
    harts, harts_default = _harts(data)

    comp = _table(data, "compile")
    _check_keys(comp, ("march", "link_march", "mabi"), "[compile]")
    march = _get(comp, "march", str, "[compile]")
    link_march = _get(comp, "link_march", str, "[compile]")
    for key, value in (("march", march), ("link_march", link_march)):
        if not _MARCH_RE.match(value):
            raise BoardError(f"[compile] {key} {value!r} is not a 32-bit RISC-V -march")
    mabi = _get(comp, "mabi", str, "[compile]")

    memory = _parse_memory(_table(data, "memory"))
    placement_table = _table(data, "placement")
    placement = _parse_placement(placement_table, memory)
    placements = _parse_placements(_opt(data, "placements", dict, "board.toml", {}),
                                   placement_table, memory)
    devices = _parse_devices(_table(data, "devices"))
    iree = _parse_iree(_table(data, "iree"), path.parent)
    try:
        simulator = simulators.parse_settings(data.get("simulator"), harts)
        sharing = parse_sharing(data.get("sharing"), harts)
    except (simulators.SettingsError, SharingError) as err:
        raise BoardError(str(err)) from None

    board = Board(
        name=name,
        description=_opt(data, "description", str, "board.toml", ""),
        harts=harts,
        roles=roles,
        march=march,
        link_march=link_march,
        mabi=mabi,
        memory=memory,
        placement=placement,
        devices=devices,
        iree=iree,
        simulator=simulator,
        directory=path.parent,
        sources=_sources(data, path.parent),
        kernel_sources=_sources(data, path.parent, "kernel_sources"),
        placements=placements,
        harts_default=harts_default,
        sharing=sharing,
        tunings_from=_tunings_from(data, name),
    )
    _check_hooks(board)
    return board


def _sources(data: dict[str, Any], folder: Path, key: str = "sources") -> tuple[Path, ...]:
    sources = []
    for item in _opt(data, key, list, "board.toml", []):
        src = folder / item
        if not isinstance(item, str) or not src.is_file():
            raise BoardError(f"source {item!r} not found in {folder}")
        sources.append(src)
    return tuple(sources)


def _check_hooks(board: Board) -> None:
    """The headers the runner takes from the board's folder where its board.toml needs them."""
    if board.needs_shared_copy() and not (board.directory / SHARED_COPY_HEADER).is_file():
        raise BoardError(f"its per_hart memory or staged constants need {SHARED_COPY_HEADER} "
                         f"in {board.directory.name}/: the copy that keeps its memory rule "
                         "(bsp/README.md)")


def _harts(data: dict[str, Any]) -> tuple[int, str]:
    """The board's harts, and HARTS for IREE images when the command line gives none."""
    harts = _get(data, "harts", int, "board.toml")
    if not 1 <= harts <= 32:
        raise BoardError(f"'harts' must be 1..32, not {harts}")
    default = str(_opt(data, "harts_default", (int, str), "board.toml", 1))
    if default != "auto" and not (default.isdigit() and 1 <= int(default) <= harts):
        raise BoardError(f"'harts_default' must be 1..{harts} or \"auto\", not {default!r}")
    return harts, default


def _parse_memory(table: dict[str, Any]) -> tuple[MemoryRegion, ...]:
    regions = []
    for rname, item in table.items():
        where = f"[memory.{rname}]"
        if not _NAME_RE.match(rname):
            raise BoardError(f"{where}: region names are C identifiers in lower case")
        if not isinstance(item, dict):
            raise BoardError(f"{where}: must be a table")
        _check_keys(item, ("origin", "length", "kind", "preloaded", "exclusive_data",
                           "per_hart"), where)
        origin = _get(item, "origin", int, where)
        length = _get(item, "length", int, where)
        if origin < 0 or length <= 0 or origin + length > 1 << 32:
            raise BoardError(f"{where}: origin/length outside the 32-bit address space")
        region = MemoryRegion(
            name=rname,
            origin=origin,
            length=length,
            kind=_get(item, "kind", str, where),
            preloaded=_opt(item, "preloaded", bool, where, True),
            exclusive_data=_opt(item, "exclusive_data", bool, where, False),
            per_hart=_opt(item, "per_hart", bool, where, False),
        )
        if region.kind not in MEMORY_KINDS:
            raise BoardError(f"{where}: kind must be one of {', '.join(MEMORY_KINDS)}")
        if region.kind == "code" and not region.preloaded:
            raise BoardError(f"{where}: a code region must be preloaded")
        if region.per_hart and (region.kind != "data" or any(r.per_hart for r in regions)):
            raise BoardError(f"{where}: per_hart: only one region, of kind data")
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
                        "boot_address", "constants"), where)
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
    constants = _constants(table, by_name, chosen["rodata"], where)
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
        constants=constants,
    )


def _constants(table: dict[str, Any], by_name: dict[str, MemoryRegion],
               rodata: MemoryRegion, where: str) -> str | None:
    """The region of the model's packed constants when apart from .rodata: a preloaded one
    (nothing copies them), which the kernels reach only through staged copies."""
    name = _opt(table, "constants", str, where, None)
    if name is None or name == rodata.name:
        return None
    if name not in by_name:
        raise BoardError(f"{where}: constants in unknown region {name!r}; "
                         f"regions: {', '.join(by_name)}")
    if not by_name[name].preloaded or by_name[name].exclusive_data:
        raise BoardError(f"{where}: constants region {name} must be preloaded and not "
                         "exclusive_data")
    return name


def _parse_placements(table: dict[str, Any], default: dict[str, Any],
                      memory: tuple[MemoryRegion, ...]) -> dict[str, Placement]:
    """[placements.<name>]: each changes some keys of [placement] and is checked like it."""
    placements = {}
    for pname, item in table.items():
        where = f"[placements.{pname}]"
        if not _NAME_RE.match(pname) or pname == DEFAULT_PLACEMENT:
            raise BoardError(f"{where}: placement names are C identifiers in lower case, "
                             f"not {DEFAULT_PLACEMENT!r}")
        if not isinstance(item, dict):
            raise BoardError(f"{where}: must be a table")
        merged = {**default, **item}
        if "rodata_load" not in item and "rodata" in item:
            merged.pop("rodata_load", None)  # a load address belongs to the region it left
        if "data_load" not in item and "data" in item:
            merged.pop("data_load", None)
        try:
            placements[pname] = _parse_placement(merged, memory)
        except BoardError as err:
            raise BoardError(str(err).replace("[placement]", where, 1)) from None
    return placements


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


def _library(table: dict[str, Any], board_dir: Path, where: str,
             key: str = "library") -> str | None:
    """The transform library, given relative to the board folder."""
    name = _opt(table, key, str, where, None)
    if name is None:
        return None
    path = (board_dir / name).resolve()
    if not path.is_file():
        raise BoardError(f"{where}: library {name!r} does not exist ({path})")
    try:  # project-relative, so flags and release manifests name no machine path
        return path.relative_to(PROJECT_ROOT.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def _parse_iree(table: dict[str, Any], board_dir: Path) -> IreeTarget:
    where = "[iree]"
    _check_keys(table, ("triple", "cpu", "features", "abi", "index_bits", "flags", "library",
                        "harts_library", "preprocessing"), where)
    extra = _opt(table, "flags", list, where, [])
    if not all(isinstance(f, str) and f.startswith("--") for f in extra):
        raise BoardError(f"{where}: 'flags' must be a list of iree-compile options (--name=value)")
    target = IreeTarget(
        triple=_get(table, "triple", str, where),
        cpu=_get(table, "cpu", str, where),
        features=_get(table, "features", str, where),
        abi=_get(table, "abi", str, where),
        index_bits=_get(table, "index_bits", int, where),
        extra=tuple(extra),
        library=_library(table, board_dir, where),
        harts_library=_library(table, board_dir, where, "harts_library"),
        preprocessing=_library(table, board_dir, where, "preprocessing"),
    )
    if target.index_bits not in (32, 64):
        raise BoardError(f"{where}: index_bits must be 32 or 64")
    return target
