"""The cluster testbench's own programs (its sw/ folder) on every cluster board.

Built with the pinned cross toolchain from the fetched testbench: its start-up,
vectors, handlers and linker script, with picolibc glue of ours
(tests/bsp/tb_picolibc.c) in place of its newlib system calls.  Every program
passes on every board, and prints the same on each as on cluster4: the cores'
PULP extensions change nothing a plain rv32imc program sees but `misa` and
`mimpid`, which hello-world checks.  One test per variant board runs every program
on it and on cluster4 itself (whose runs it compares with), so cluster4 needs none
of its own.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import require_input

from ireerv import boards
from ireerv.inputs.fetch import Fetcher
from ireerv.inputs.toolchain import Toolchain
from ireerv.simulators import verilator_build as vb

GLUE = Path(__file__).resolve().parent / "bsp" / "tb_picolibc.c"
PLAIN = "cluster4"
VARIANTS = [name for name in boards.list_boards() if name != PLAIN
            and boards.load_board(name).simulator.kind == "verilator-cluster"]
PROGRAMS = ("barrier-skew-demo", "dma-demo", "hello-world", "latency-test", "reduction-demo",
            "scratchpad-demo", "shared-memory-demo", "tiled-matmul-demo")
START = ("bsp/crt0.S", "bsp/handlers.S", "bsp/vectors.S")
# hello-world's `misa` and `mimpid`: the core sets misa's X bit and reads mimpid
# as 1 with COREV_PULP=1 (cv32e40p_cs_registers.sv), where the program's checks
# (written for COREV_PULP=0; -DPULP selects its misa) still expect 0.
MIMPID_ERROR = "EROR: CSR MIMPID reads as 0x1"


def collapsed(text: str) -> str:
    """The four harts print the same text at once, mostly a character each in
    turn ("EEEERRRR"): runs of one character made one ("EROR")."""
    return "".join(c for i, c in enumerate(text) if i == 0 or text[i - 1] != c)


def build(toolchain: Toolchain, tb: Path, out: Path, program: str, pulp: bool) -> Path:
    """The program's `objcopy -O verilog` image, built as the testbench's Makefile does."""
    gcc = [str(toolchain.tool("gcc")), "-Os", "-mabi=ilp32", *map(str, toolchain.libc_flags())]
    compile_ = [*gcc, "-march=rv32imc_zicsr_zifencei", "-I", str(tb / "bsp"), "-I",
                str(tb / "sw"), "-c"]
    objects = []
    for source in (*(tb / s for s in START), GLUE, tb / "sw" / f"{program}.c"):
        obj = out / f"{program}-{source.name}.o"
        defines = ["-DPULP"] if pulp and source.name == "hello-world.c" else []
        subprocess.run([*compile_, *defines, str(source), "-o", str(obj)], check=True,
                       capture_output=True)
        objects.append(str(obj))
    elf, hexfile = out / f"{program}.elf", out / f"{program}.hex"
    # Linked for rv32imc: the multilib of picolibc and libgcc (board.toml link_march).
    subprocess.run([*gcc, "-march=rv32imc", "-nostartfiles", "-o", str(elf), *objects,
                    "-T", str(tb / "bsp" / "link.ld"), "-lc", "-lgcc"],
                   check=True, capture_output=True)
    subprocess.run([toolchain.tool("objcopy"), "-O", "verilog", elf, hexfile], check=True)
    return hexfile


def run(sim: Path, hexfile: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sim, f"+firmware={hexfile.name}", "+maxcycles=20000000"],
                          cwd=hexfile.parent, capture_output=True, text=True, timeout=600)


@pytest.mark.cluster
@pytest.mark.upstream
@pytest.mark.parametrize("board_name", VARIANTS)
def test_testbench_programs(board_name: str, fetcher: Fetcher, toolchain: Toolchain,
                            tmp_path: Path) -> None:
    board = boards.load_board(board_name)
    tb = board.simulator.extra["testbench"]
    require_input(fetcher, "verilator")
    tree = require_input(fetcher, tb.input)
    sim = vb.cluster_simulator(fetcher, tb, tmp_path / "logs")
    pulp = "+xcvsimd" in board.iree.features  # cores with the PULP extensions
    plain = boards.load_board(PLAIN).simulator.extra["testbench"]
    plain_sim = vb.cluster_simulator(fetcher, plain, tmp_path / "logs")
    for program in PROGRAMS:
        hexfile = build(toolchain, tree, tmp_path, program, pulp=False)
        result, on_plain = run(sim, hexfile), run(plain_sim, hexfile)
        assert on_plain.returncode == 0 and "[TB] CLUSTER EXIT SUCCESS" in on_plain.stdout, \
            f"{program} on {PLAIN}: {on_plain.stdout[-2000:]}{on_plain.stderr[-2000:]}"
        if pulp and program == "hello-world":
            # Built for COREV_PULP=0 it fails; built with -DPULP, on mimpid alone.
            (tmp_path / "pulp").mkdir()
            again = run(sim, build(toolchain, tree, tmp_path / "pulp", program, pulp=True))
            assert result.returncode != 0 and again.returncode != 0, again.stdout
            assert MIMPID_ERROR in collapsed(again.stdout), again.stdout
            assert "CSR MISA" not in collapsed(again.stdout), again.stdout
            continue
        assert result.returncode == 0 and "[TB] CLUSTER EXIT SUCCESS" in result.stdout, \
            f"{program}: {result.stdout[-2000:]}{result.stderr[-2000:]}"
        assert result.stdout == on_plain.stdout, program
