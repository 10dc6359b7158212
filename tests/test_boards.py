"""Board descriptions: loading, validation, the generated C header and linker script."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from elftools.elf.elffile import ELFFile

from ireerv import boards
from ireerv.boards import linkerscript
from ireerv.boards.board import BSP_DIR, COMMON_DIR
from ireerv.inputs.toolchain import Toolchain

CLUSTER_TOML = (BSP_DIR / "cluster4" / "board.toml").read_text()
QEMU_TOML = (BSP_DIR / "qemu-virt" / "board.toml").read_text()


def test_list_and_unknown_board() -> None:
    # Every folder of bsp/ with a board.toml, sorted; others may sit beside these two.
    names = boards.list_boards()
    assert names == sorted(names) and {"cluster4", "qemu-virt"} <= set(names)
    with pytest.raises(boards.BoardError,
                       match=rf"unknown board 'nope'; boards: {', '.join(names)}$"):
        boards.load_board("nope")


def test_cluster4() -> None:
    b = boards.load_board("cluster4")
    assert (b.name, b.harts, b.march, b.link_march, b.mabi) == (
        "cluster4", 4, "rv32imc_zicsr_zifencei", "rv32imc", "ilp32")
    assert b.harts_default == "auto"  # HARTS of IREE images when none is given
    assert b.compile_flags() == ["-march=rv32imc_zicsr_zifencei", "-mabi=ilp32",
                                 "-falign-functions=4"]
    assert b.link_flags() == ["-march=rv32imc", "-mabi=ilp32", "-nostartfiles",
                              "-Wl,--orphan-handling=error"]
    shared, spm = b.region("shared"), b.region("spm0")
    assert (shared.origin, shared.length, shared.kind, shared.preloaded) == (
        0, 64 << 20, "code", True)
    assert (spm.origin, spm.length, spm.kind, spm.preloaded) == (
        0x18000000, 256 << 10, "data", False)
    assert spm.exclusive_data and spm.per_hart and not shared.per_hart
    p = b.placement
    assert (p.text, p.rodata, p.rodata_load, p.data, p.data_load) == (
        "shared", "spm0", "shared", "spm0", "shared")
    assert (p.bss, p.stack, p.heap, p.boot_address, p.heap_size) == (
        "spm0", "spm0", "spm0", 0x80, None)
    assert {n: d.address for n, d in b.devices.items()} == {
        "console": 0x10000000, "exit": 0x20000004, "cycles": None, "ticks": 0x15001004,
        "wake": 0x15002000, "timer": 0x15000000}
    assert b.devices["wake"].params == {"irq": 30}
    assert b.devices["timer"].params == {"irq": 29}
    assert (b.simulator.kind, b.simulator.maxcycles) == ("verilator-cluster", 400_000_000)
    assert b.iree_compile_flags() == [
        "--iree-llvmcpu-target-triple=riscv32-unknown-elf",
        "--iree-llvmcpu-target-cpu=sifive-e20",
        "--iree-llvmcpu-target-cpu-features=+m,+c,+relax",
        "--iree-llvmcpu-target-abi=ilp32",
        "--iree-vm-target-index-bits=32",
        "--align-all-blocks=2",
        "--iree-global-opt-experimental-disable-conv-generalization",
        "--iree-codegen-transform-dialect-library=bsp/common/iree-tiles.mlir",
    ]
    names = [s.name for s in b.bsp_sources()]
    assert names == ["barrier.c", "cycles.c", "fminmax.c", "harts.c", "start.S", "string.c",
                     "syscalls.c", "trap.c", "board.c"]
    assert b.sources == (BSP_DIR / "cluster4" / "board.c",)
    with pytest.raises(boards.BoardError, match="no memory region 'dram'"):
        b.region("dram")


def test_qemu_virt() -> None:
    b = boards.load_board("qemu-virt")
    assert b.harts == 4 and b.placement.boot_address == 0x80000000 and b.harts_default == "1"
    assert b.simulator.kind == "qemu" and b.simulator.binary == "qemu-system-riscv32"
    args = b.simulator.args
    assert args[args.index("-smp") + 1] == "4" and args[args.index("-icount") + 1] == "shift=0"
    assert "-kernel" not in args
    assert b.placement.data == b.placement.data_load == "ram"  # loaded in place
    assert b.placement.rodata == b.placement.rodata_load == "rom"


def test_config_header() -> None:
    text = boards.config_header(boards.load_board("cluster4"))
    defines = dict(re.findall(r"^#define (\w+) (.+)$", text, re.M))
    assert defines["BSP_HARTS"] == "4"
    assert defines["BSP_CONSOLE_ADDR"] == "0x10000000"
    assert defines["BSP_EXIT_ADDR"] == "0x20000004"
    assert defines["BSP_TICKS_ADDR"] == "0x15001004"
    assert defines["BSP_WAKE_IRQ"] == "0x1e"
    assert defines["BSP_MEM_SPM0_ORIGIN"] == "0x18000000"
    assert defines["BSP_IO_BARRIER"] == "1"
    assert defines["BSP_BOARD_NAME"] == '"cluster4"'
    assert "BSP_CYCLES_KIND_MCYCLE" in defines
    text = boards.config_header(boards.load_board("qemu-virt"))
    qemu = dict(re.findall(r"^#define (\w+) (.+)$", text, re.M))
    assert qemu["BSP_IO_BARRIER"] == "0" and qemu["BSP_EXIT_ADDR"] == "0x00100000"


def test_linker_script_text() -> None:
    script = boards.linker_script(boards.load_board("cluster4"))
    assert "shared (rwx) : ORIGIN = 0x00000000, LENGTH = 0x4000000" in script
    assert "spm0   (rw!x) : ORIGIN = 0x18000000, LENGTH = 0x40000" in script
    assert "} > spm0 AT> shared" in script  # rodata and data load from shared RAM
    assert "__heap_end = 0x18040000;" in script
    # Trap entry at the origin (mtvec resets to 0), reset entry at 0x80.
    text = script[script.index(".text 0x00000000"):]
    assert text.index("KEEP(*(.bsp.trap))") < text.index(". = 0x80;") < text.index(
        "KEEP(*(.bsp.start))")
    qemu = boards.linker_script(boards.load_board("qemu-virt"))
    head = qemu[qemu.index(".text 0x80000000"):]
    assert head.index("KEEP(*(.bsp.start))") < head.index("ALIGN(256)") < head.index(
        "KEEP(*(.bsp.trap))")
    assert "AT>" not in qemu  # everything runs where QEMU loads it


# --------------------------------------------------------------------------- validation


def write_board(root: Path, name: str, text: str) -> Path:
    (root / name).mkdir(parents=True)
    (root / "common").mkdir(exist_ok=True)  # the boards' iree-compile library
    for library in ("iree-tiles.mlir", "iree-tiles-harts.mlir"):
        shutil.copy(COMMON_DIR / library, root / "common")
    (root / name / "board.toml").write_text(text)
    (root / name / "board.c").write_text("")
    for header in (BSP_DIR / name).glob("*.h"):  # the board's hooks for the runner
        shutil.copy(header, root / name)
    return root


def edited(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


@pytest.mark.parametrize(
    ("name", "old", "new", "message"),
    [
        ("cluster4", 'name = "cluster4"', 'name = "other"', "'name' is 'other' but the folder"),
        ("cluster4", "harts = 4", 'harts = 4\ncolour = "red"', r"unknown key\(s\) colour"),
        ("cluster4", "harts = 4", "harts = true", "'harts' has the wrong type"),
        ("cluster4", "harts = 4", "harts = 64", "'harts' must be 1..32"),
        ("cluster4", 'harts_default = "auto"', 'harts_default = "all"',
         "'harts_default' must be 1..4 or \"auto\", not 'all'"),
        ("cluster4", 'harts_default = "auto"', "harts_default = 5", "'harts_default' must be 1..4"),
        ("cluster4", 'harts_default = "auto"', "harts_default = true",
         "'harts_default' has the wrong type"),
        ("cluster4", "harts = 4", "harts = [", "board.toml: "),
        ("cluster4", "harts = 4", 'harts = 4\ntunings_from = "cluster4"',
         "'tunings_from' 'cluster4': name another board"),
        ("cluster4", 'kind = "code"', 'kind = "flash"', r"\[memory.shared\]: kind must be one of"),
        ("cluster4", "origin = 0x18000000", "origin = 0x00100000",
         "regions shared and spm0 overlap"),
        ("cluster4", 'text = "shared"', 'text = "spm0"', "text must be in a code region"),
        ("cluster4", 'kind = "code"', 'kind = "code"\nper_hart = true',
         r"\[memory.shared\]: per_hart: only one region, of kind data"),
        ("cluster4", 'heap = "spm0"', 'heap = "dram"', "heap in unknown region 'dram'"),
        ("cluster4", 'data_load = "shared"', 'data_load = "spm0"',
         "data_load region spm0 is not preloaded"),
        ("cluster4", 'rodata = "spm0"', 'rodata = "shared"', "spm0 takes all data or none"),
        ("cluster4", "boot_address = 0x80 ", "boot_address = 0x08000000 ",
         "boot_address 0x8000000 is not an aligned address in shared"),
        ("cluster4", "stack_size = 0x8000", "stack_size = 100",
         "stack_size must be a multiple of 16"),
        ("cluster4", 'sources = ["board.c"]', 'sources = ["nothere.c"]',
         "source 'nothere.c' not found"),
        ("cluster4", 'kind = "verilator-cluster"', 'kind = "spice"',
         r"\[simulator\]: kind must be"),
        ("cluster4", "maxcycles = 400000000\n", "", r"\[simulator\]: maxcycles must be"),
        ("cluster4", 'features = "+m,+c,+relax"', "", r"\[iree\]: missing 'features'"),
        ("cluster4", "index_bits = 32", "index_bits = 16", "index_bits must be 32 or 64"),
        ("cluster4", 'march = "rv32imc_zicsr_zifencei"', 'march = "rv64gc"',
         "is not a 32-bit RISC-V -march"),
        ("qemu-virt", '"-smp", "4"', '"-smp", "2"', "-smp must match harts = 4"),
        ("qemu-virt", '"-icount", "shift=0"', '"-kernel", "x.elf"', "must not name the image"),
    ],
)
def test_invalid_boards(tmp_path: Path, name: str, old: str, new: str, message: str) -> None:
    source = CLUSTER_TOML if name == "cluster4" else QEMU_TOML
    root = write_board(tmp_path, name, edited(source, old, new))
    with pytest.raises(boards.BoardError, match=message) as info:
        boards.load_board(name, root)
    assert str(root / name / "board.toml") in str(info.value)


def test_missing_device(tmp_path: Path) -> None:
    text = re.sub(r"^wake = .*\n", "", CLUSTER_TOML, flags=re.M)
    root = write_board(tmp_path, "cluster4", text)
    with pytest.raises(boards.BoardError, match=r"\[devices\]: missing wake"):
        boards.load_board("cluster4", root)


def test_heap_size_and_misaligned_text(tmp_path: Path) -> None:
    text = edited(CLUSTER_TOML, "stack_size = 0x8000", "stack_size = 0x8000\nheap_size = 0x1000")
    board = boards.load_board("cluster4", write_board(tmp_path / "a", "cluster4", text))
    assert board.placement.heap_size == 0x1000
    assert ". += 0x1000;" in boards.linker_script(board)
    text = edited(QEMU_TOML, "origin = 0x80000000\nlength = 0x02000000",
                  "origin = 0x80000080\nlength = 0x01000000")
    text = edited(text, "boot_address = 0x80000000", "boot_address = 0x80000080")
    board = boards.load_board("qemu-virt", write_board(tmp_path / "b", "qemu-virt", text))
    with pytest.raises(linkerscript.LinkerScriptError, match="256-byte boundary"):
        boards.linker_script(board)


# --------------------------------------------------------------------------- with the toolchain


def link_bsp(toolchain: Toolchain, board: boards.Board, out: Path) -> Path:
    """Link the BSP with a trivial main and a checker of the generated header."""
    out.mkdir(parents=True)
    (out / boards.CONFIG_HEADER).write_text(boards.config_header(board))
    (out / "link.ld").write_text(boards.linker_script(board))
    checks = "\n".join(
        f"_Static_assert(BSP_MEM_{r.name.upper()}_ORIGIN == {r.origin:#x}u, \"origin\");"
        for r in board.memory)
    (out / "main.c").write_text(
        '#include "bsp.h"\n' + checks + "\nint main(void) { bsp_putc('x'); return 0; }\n")
    gcc = str(toolchain.tool("gcc"))
    cflags = [*board.compile_flags(), *toolchain.libc_flags(), "-Os", "-Wall", "-Werror",
              f"-I{out}", *(f"-I{d}" for d in board.include_dirs())]
    objs = []
    for src in [*board.bsp_sources(), out / "main.c"]:
        obj = out / f"{src.parent.name}-{src.stem}.o"
        subprocess.run([gcc, *cflags, "-c", str(src), "-o", str(obj)], check=True)
        objs.append(str(obj))
    elf = out / "bsp.elf"
    proc = subprocess.run(
        [gcc, *board.link_flags(), *toolchain.libc_flags(), "-T", str(out / "link.ld"),
         "-Wl,--no-warn-rwx-segments", *objs, "-o", str(elf)],
        capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return elf


def symbols(elf: Path) -> dict[str, int]:
    with elf.open("rb") as f:
        table = ELFFile(f).get_section_by_name(".symtab")
        return {s.name: s["st_value"] for s in table.iter_symbols() if s.name}


def sections(elf: Path) -> dict[str, tuple[int, int]]:
    """Section name -> (run address, load address)."""
    with elf.open("rb") as f:
        e = ELFFile(f)
        out = {}
        for sec in e.iter_sections():
            if not sec["sh_addr"]:
                continue
            load = sec["sh_addr"]
            for seg in e.iter_segments():
                if seg["p_type"] == "PT_LOAD" and seg.section_in_segment(sec):
                    load = seg["p_paddr"] + sec["sh_addr"] - seg["p_vaddr"]
            out[sec.name] = (sec["sh_addr"], load)
        return out


def test_cluster_image_layout(toolchain: Toolchain, tmp_path: Path) -> None:
    board = boards.load_board("cluster4")
    elf = link_bsp(toolchain, board, tmp_path / "c")
    sym, sec = symbols(elf), sections(elf)
    assert sym["__bsp_trap_entry"] == 0 and sym["_start"] == 0x80
    spm = (0x18000000, 0x18040000)
    assert sym["__stack_limit"] == spm[0] and sym["__stack_top"] == spm[0] + 0x8000
    for name in (".rodata", ".data"):
        run, load = sec[name]
        assert spm[0] <= run < spm[1] and load < 64 << 20, name  # copied by start-up
    assert sym["__rodata_load"] == sec[".rodata"][1] and sym["__data_load"] == sec[".data"][1]
    assert sec[".bsp_shared"][0] < 64 << 20  # the mailbox: preloaded, outside the scratchpad
    assert sym["__heap_end"] == spm[1] and sym["__stack_top"] <= sym["__rodata_start"]
    assert sym["__rodata_start"] < sym["__data_start"] <= sym["__bss_start"] < sym["__heap_start"]


def test_qemu_image_layout(toolchain: Toolchain, tmp_path: Path) -> None:
    board = boards.load_board("qemu-virt")
    elf = link_bsp(toolchain, board, tmp_path / "q")
    sym = symbols(elf)
    assert sym["_start"] == 0x80000000 and sym["__bsp_trap_entry"] % 256 == 0
    assert sym["__data_load"] == sym["__data_start"]
    assert sym["__rodata_load"] == sym["__rodata_start"]
    assert sym["__stack_limit"] == 0x82000000
    assert sym["__heap_end"] - sym["__heap_start"] == 0x1000000
