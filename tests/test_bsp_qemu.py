"""The BSP with the real cross compiler: C-only images run on QEMU with four harts.

Builds the start-up code, the C library glue and the board drivers exactly as
the board describes them (config header, linker script, flags), then checks
what the program sees and how each kind of ending is reported.  The cluster
tests at the end run the same images on the Verilator model.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import psutil
import pytest
from bare_metal import MATMUL_C, ImageBuilder, matmul_expected, matmul_inputs_header
from conftest import needs_qemu, require_input

from ireerv import boards, simulators
from ireerv.inputs.fetch import Fetcher
from ireerv.inputs.toolchain import Toolchain
from ireerv.simulators import base, verilator_cluster
from ireerv.simulators.qemu import run_qemu

TESTS = Path(__file__).resolve().parent
CHECK_C = TESTS / "bsp" / "bsp_check.c"
MODES = {"checks": 1, "exit": 2, "abort": 3, "trap": 4, "silent": 5, "hang": 6, "stack": 7,
         "wake": 8, "barrier-timeout": 9, "memory": 10}

# --------------------------------------------------------------------------- building


@pytest.fixture(scope="module")
def builder(toolchain: Toolchain, tmp_path_factory: pytest.TempPathFactory) -> ImageBuilder:
    return ImageBuilder(toolchain, tmp_path_factory.mktemp("bsp"))


@pytest.fixture(scope="module")
def qemu() -> boards.Board:
    return boards.load_board("qemu-virt")


def check_image(builder: ImageBuilder, board: boards.Board, mode: str,
                *defines: str) -> tuple[Path, Path]:
    name = "-".join([f"check-{mode}", *(d.split("=")[-1] for d in defines)])
    return builder.image(board, name, CHECK_C, [f"CHECK_MODE={MODES[mode]}", *defines])


def without_icount(args: Sequence[str]) -> list[str]:
    """QEMU arguments with -icount removed: every hart then runs in its own thread.

    Under -icount QEMU runs the harts round-robin and hands the next hart the
    CPU only after a long slice, so a short program ends before harts 1..3
    have executed one instruction; without it all four really start at once.
    """
    out = list(args)
    if "-icount" in out:
        i = out.index("-icount")
        del out[i:i + 2]
    return out


# --------------------------------------------------------------------------- QEMU


@needs_qemu
def test_start_up_duties(builder: ImageBuilder, qemu: boards.Board) -> None:
    elf, _ = check_image(builder, qemu, "checks")
    for args in (qemu.simulator.args, without_icount(qemu.simulator.args)):
        lines: list[str] = []
        result = run_qemu(elf, args=args, timeout=60, on_output=lines.append)
        assert result.passed, result.output
        assert "".join(lines) == result.output  # streamed as it came
        out = result.program_output.splitlines()
        # Four harts started; only hart 0 ran main, exactly once.
        assert [ln for ln in out if ln.startswith("MAIN")] == ["MAIN hart 0"], result.output
        checks = {ln.split()[1]: ln.split()[2] for ln in out if ln.startswith("CHECK")}
        assert checks == dict.fromkeys(
            ["data", "bss", "rodata", "constructors", "stack", "errno-tls", "counters",
             "string", "malloc", "heap-limit"], "ok"), result.output


@needs_qemu
def test_matmul_c_matches_numpy(builder: ImageBuilder, qemu: boards.Board,
                                tmp_path: Path) -> None:
    for size in (4, 16):
        header = tmp_path / f"inputs{size}.h"
        header.write_text(matmul_inputs_header(size))
        elf, _ = builder.image(qemu, f"matmul-{size}", MATMUL_C,
                               [f"MATMUL_N={size}", f'MATMUL_INPUTS="{header}"'])
        result = simulators.run_on_board(qemu, elf=elf, timeout=60)
        assert result.passed, result.output
        out = result.program_output.splitlines()
        output = [ln for ln in out if ln.startswith("OUTPUT")]
        assert len(output) == 1 and output[0].startswith(f"OUTPUT 0 f32 {size}x{size}:")
        assert output[0].split(":", 1)[1].split() == matmul_expected(size)
        calls = [ln for ln in out if ln.startswith("CYCLES call 0 ")]
        assert len(calls) == 1 and int(calls[0].split()[-1]) > size**3  # instructions
        assert "STATUS OK" in out


def matmul_team_image(builder: ImageBuilder, board: boards.Board, tmp_path: Path,
                      size: int, harts: int) -> tuple[Path, Path]:
    """The plain C matmul as RUNTIME=none HARTS=n builds it, called twice."""
    header = tmp_path / f"inputs{size}.h"
    header.write_text(matmul_inputs_header(size))
    team = [f"MATMUL_HARTS={harts}"] if harts > 1 else []
    return builder.image(board, f"matmul-{size}-h{harts}", MATMUL_C,
                         [f"MATMUL_N={size}", f'MATMUL_INPUTS="{header}"', "MATMUL_REPEAT=2",
                          *team])


def call_cycles(out: str) -> list[int]:
    return [int(ln.split()[-1]) for ln in out.splitlines() if ln.startswith("CYCLES call ")]


@needs_qemu
@pytest.mark.parametrize(("size", "harts"), [(16, 4), (6, 4), (5, 2), (16, 3)])
def test_matmul_c_split_over_harts(builder: ImageBuilder, qemu: boards.Board, tmp_path: Path,
                                   size: int, harts: int) -> None:
    """Rows in blocks over the harts (uneven too): the same bits as one hart, twice."""
    elf, _ = matmul_team_image(builder, qemu, tmp_path, size, harts)
    result = run_qemu(elf, args=without_icount(qemu.simulator.args), timeout=60)
    assert result.passed, result.output
    output = [ln for ln in result.program_output.splitlines() if ln.startswith("OUTPUT")]
    assert len(output) == 1 and output[0].split(":", 1)[1].split() == matmul_expected(size)
    assert len(call_cycles(result.program_output)) == 2


@needs_qemu
@pytest.mark.parametrize(
    ("mode", "defines", "reason", "code", "text"),
    [
        ("exit", ["CHECK_EXIT_CODE=3"], base.FAILED, 3, "exiting with 3"),
        ("exit", ["CHECK_EXIT_CODE=256"], base.FAILED, 1, "exiting with 256"),
        ("abort", [], base.FAILED, 134, "BSP: abort"),
        ("trap", [], base.CRASH, 126, "BSP TRAP hart 0: illegal instruction"),
        ("silent", [], base.FAILED, 0, ""),
        ("stack", [], base.FAILED, 125, "BSP: stack overflow"),
    ],
)
def test_endings(builder: ImageBuilder, qemu: boards.Board, mode: str, defines: list[str],
                 reason: str, code: int, text: str) -> None:
    elf, _ = check_image(builder, qemu, mode, *defines)
    result = simulators.run_on_board(qemu, elf=elf, timeout=60)
    assert (result.reason, result.exit_code) == (reason, code), result.output
    assert text in result.program_output
    if mode == "silent":
        assert result.detail == "the program exited with 0 but printed nothing"


@needs_qemu
def test_run_past_its_limit_fails(builder: ImageBuilder, qemu: boards.Board) -> None:
    elf, _ = check_image(builder, qemu, "hang")
    result = simulators.run_on_board(qemu, elf=elf, timeout=2)
    assert result.reason == base.TIMEOUT and not result.passed
    assert result.returncode is None and "hanging" in result.output


@needs_qemu
def test_wake_parked_harts(builder: ImageBuilder, qemu: boards.Board) -> None:
    elf, _ = check_image(builder, qemu, "wake")
    result = run_qemu(elf, args=without_icount(qemu.simulator.args), timeout=60)
    assert result.passed, result.output
    out = result.program_output.splitlines()
    assert "WAKE started 3" in out
    for hart in (1, 2, 3):
        assert f"WAKE hart {hart} ran {1000 + hart} errno {100 + hart}" in out
    assert "WAKE hart 0 errno 7 again -1" in out  # hart 0's errno untouched; once only


@needs_qemu
def test_progress_counts_instructions_while_it_runs(builder: ImageBuilder,
                                                   qemu: boards.Board) -> None:
    """Two reports end the endless run, however fast the machine: the count is asked once
    a second, and QEMU is stopped after the second answer."""
    elf, _ = check_image(builder, qemu, "hang")
    counts: list[int] = []

    def count(instructions: int) -> None:
        counts.append(instructions)
        if len(counts) == 2:
            for child in psutil.Process().children(recursive=True):
                if child.name().startswith("qemu-system"):
                    child.terminate()

    result = simulators.run(qemu.simulator, simulators.prepare(qemu.simulator),
                            simulators.Image(elf), timeout=300, on_progress=count)
    assert result.reason != base.TIMEOUT and not result.passed, result.reason
    assert "-qmp" not in result.command
    assert counts == sorted(counts) and counts[0] > 0  # reported, and growing


def test_ctrl_c_or_sigterm_is_reported_as_interrupted() -> None:
    from ireerv.simulators import qemu as qemu_kind

    stopped = qemu_kind.judge(["qemu-system-riscv32"], 0,
                              "CYCLES startup 1\nqemu-system-riscv32: terminating on signal 2 "
                              "from pid 7 (bash)\n", 1.0, 60)
    assert (stopped.reason, stopped.passed, stopped.program_output) == (
        base.INTERRUPTED, False, "")
    killed = verilator_cluster.judge(["Vtb"], -2, "[TB] loading\nCYCLES startup 1\n", 1.0, 60)
    assert killed.reason == base.INTERRUPTED and killed.detail == "stopped by Ctrl-C (SIGINT)"
    # A timeout around the build (SIGTERM) is no verdict on the program either: a bench
    # run it stopped was once recorded as a crash, and the next bench trusted it.
    killed = verilator_cluster.judge(["Vtb"], -15, "[TB] loading\n", 1.0, 60)
    assert killed.reason == base.INTERRUPTED and "SIGTERM" in killed.detail
    stopped = qemu_kind.judge(["qemu-system-riscv32"], 0,
                              "qemu-system-riscv32: terminating on signal 15 from pid 7\n", 1.0, 60)
    assert stopped.reason == base.INTERRUPTED


def test_testbench_progress_is_cut_out_of_the_output() -> None:
    from ireerv.simulators import progress

    shown: list[str] = []
    counts: list[int] = []
    lines = progress.TestbenchLines(shown.append, counts.append)
    # The report lands in the middle of a line the program writes byte by byte.
    for chunk in ("OUTPUT 0 f32 2: 0x4", "1[TB] progress 1000000 cyc", "les\n0 0x42\n",
                  "[TB] progress 2000000 cycles\n", "STATUS"):
        lines(chunk)
    lines.close()
    assert counts == [1000000, 2000000]
    assert "".join(shown) == "OUTPUT 0 f32 2: 0x410 0x42\nSTATUS"
    assert progress.strip_progress("a[TB] progress 5 cycles\nb\n") == "ab\n"


@needs_qemu
def test_a_missing_hart_ends_the_barrier_wait(builder: ImageBuilder, qemu: boards.Board) -> None:
    """Hart 3 skips the second barrier: hart 0 gives up after 0.1 s of mtime."""
    elf, _ = check_image(builder, qemu, "barrier-timeout", "CHECK_BARRIER_TICKS=1000000")
    result = run_qemu(elf, args=without_icount(qemu.simulator.args), timeout=60)
    assert (result.reason, result.exit_code) == (base.FAILED, 124), result.output
    assert result.detail == "exit code 124 (barrier timeout)"
    out = result.program_output
    assert "BARRIER first passed" in out and "BARRIER second passed" not in out
    assert ("BSP BARRIER TIMEOUT: hart 3 never reached the barrier of harts 0-3 "
            "within 1000000 ticks") in out


def test_missing_inputs_are_clear_errors(tmp_path: Path, qemu: boards.Board) -> None:
    with pytest.raises(base.SimulationError, match="does not exist"):
        simulators.run_on_board(qemu, elf=tmp_path / "none.elf")
    cluster = boards.load_board("cluster4")
    with pytest.raises(base.SimulationError, match="Verilator model"):
        simulators.run_on_board(cluster, elf=tmp_path / "a.elf", hex_file=tmp_path / "a.hex")
    with pytest.raises(base.SimulationError, match="not an executable file"):
        verilator_cluster.run_cluster(tmp_path / "sim", tmp_path / "a.hex", maxcycles=10)


# --------------------------------------------------------------------------- cluster


# Every board built on the cluster testbench (cluster4 and its variants): the
# same BSP checks on each.
CLUSTER_BOARDS = [name for name in boards.list_boards()
                  if boards.load_board(name).simulator.kind == "verilator-cluster"]
Cluster = tuple[boards.Board, Path]  # a cluster board and its simulator


@pytest.fixture(scope="module", params=CLUSTER_BOARDS)
def cluster(request: pytest.FixtureRequest, fetcher: Fetcher,
            tmp_path_factory: pytest.TempPathFactory) -> Cluster:
    """A cluster board and its simulator."""
    from ireerv.simulators import verilator_build as vb

    board = boards.load_board(request.param)
    tb = board.simulator.extra["testbench"]
    require_input(fetcher, "verilator")
    require_input(fetcher, tb.input)
    logs = tmp_path_factory.mktemp("verilator-logs")
    return board, vb.cluster_simulator(fetcher, tb, logs)


def run_cluster(board: boards.Board, sim: Path, hexfile: Path,
                maxcycles: int | None = None) -> base.RunResult:
    return simulators.run_on_board(board, elf=hexfile.with_suffix(".elf"), hex_file=hexfile,
                                 simulator=sim, maxcycles=maxcycles)


@pytest.mark.cluster
@pytest.mark.upstream
def test_cluster_start_up_and_matmul(builder: ImageBuilder, cluster: Cluster,
                                     tmp_path: Path) -> None:
    board, cluster_sim = cluster
    _, hexfile = check_image(builder, board, "checks")
    result = run_cluster(board, cluster_sim, hexfile, maxcycles=4_000_000)
    assert result.passed, result.output
    assert "MAIN hart 0" in result.program_output and "FAIL" not in result.program_output

    header = tmp_path / "inputs4.h"
    header.write_text(matmul_inputs_header(4))
    _, hexfile = builder.image(board, "matmul-4", MATMUL_C,
                               ["MATMUL_N=4", f'MATMUL_INPUTS="{header}"'])
    result = run_cluster(board, cluster_sim, hexfile)
    assert result.passed, result.output
    line = next(ln for ln in result.program_output.splitlines() if ln.startswith("OUTPUT"))
    assert line.split(":", 1)[1].split() == matmul_expected(4)


@pytest.mark.cluster
@pytest.mark.upstream
@pytest.mark.parametrize(
    ("mode", "reason", "code"),
    [("exit", base.FAILED, 3), ("trap", base.CRASH, 126),
     ("silent", base.FAILED, 0), ("hang", base.CYCLE_LIMIT, None)],
)
def test_cluster_endings(builder: ImageBuilder, cluster: Cluster, mode: str, reason: str,
                         code: int | None) -> None:
    board, cluster_sim = cluster
    _, hexfile = check_image(builder, board, mode)
    result = run_cluster(board, cluster_sim, hexfile, maxcycles=300_000)
    assert (result.reason, result.exit_code) == (reason, code), result.output


@pytest.mark.cluster
@pytest.mark.upstream
def test_cluster_progress(builder: ImageBuilder, cluster: Cluster) -> None:
    board, cluster_sim = cluster
    _, hexfile = check_image(builder, board, "hang")
    counts: list[int] = []
    result = simulators.run(board.simulator, cluster_sim,
                            simulators.Image(hexfile.with_suffix(".elf"), hexfile),
                            maxcycles=2_500_000, on_progress=counts.append)
    assert result.reason == base.CYCLE_LIMIT and counts == [1_000_000, 2_000_000]
    assert "progress" not in result.output and "hanging" in result.program_output


@pytest.mark.cluster
@pytest.mark.upstream
def test_cluster_wake_parked_harts(builder: ImageBuilder, cluster: Cluster) -> None:
    board, cluster_sim = cluster
    _, hexfile = check_image(builder, board, "wake")
    result = run_cluster(board, cluster_sim, hexfile, maxcycles=2_000_000)
    assert result.passed, result.output
    for hart in (1, 2, 3):
        assert f"WAKE hart {hart} ran {1000 + hart} errno {100 + hart}" in result.program_output



@pytest.mark.cluster
@pytest.mark.upstream
def test_cluster_matmul_c_split_over_harts(builder: ImageBuilder, cluster: Cluster,
                                          tmp_path: Path) -> None:
    """Bits only: speed is the bench's (this build links libgcc's soft-float)."""
    board, cluster_sim = cluster
    for harts in (1, 4):
        _, hexfile = matmul_team_image(builder, board, tmp_path, 16, harts)
        result = run_cluster(board, cluster_sim, hexfile)
        assert result.passed, result.output
        line = next(ln for ln in result.program_output.splitlines() if ln.startswith("OUTPUT"))
        assert line.split(":", 1)[1].split() == matmul_expected(16)
        assert len(call_cycles(result.program_output)) == 2


@pytest.mark.cluster
@pytest.mark.upstream
def test_cluster_missing_hart_ends_the_barrier_wait(builder: ImageBuilder,
                                                    cluster: Cluster) -> None:
    board, cluster_sim = cluster
    _, hexfile = check_image(builder, board, "barrier-timeout")
    result = run_cluster(board, cluster_sim, hexfile, maxcycles=5_000_000)
    assert (result.reason, result.exit_code) == (base.FAILED, 124), result.output
    out = result.program_output
    assert "BARRIER first passed" in out and "BARRIER second passed" not in out
    assert ("BSP BARRIER TIMEOUT: not every hart reached the barrier of harts 0-3 "
            "within 200000 ticks") in out


@needs_qemu
def test_string_functions(builder: ImageBuilder, qemu: boards.Board) -> None:
    """The BSP's word-wise memset/memcpy/memmove/memcmp/strncmp agree with byte loops."""
    elf, _ = builder.image(qemu, "string-check", TESTS / "bsp" / "string_check.c")
    result = run_qemu(elf, args=qemu.simulator.args, timeout=120)
    assert result.passed, result.output
    assert "STRING CHECKS OK" in result.output


@needs_qemu
def test_high_water_marks_of_stack_and_heap(builder: ImageBuilder, qemu: boards.Board) -> None:
    """A 6,000-byte frame and 50,000 bytes of heap given back: the marks see both."""
    elf, _ = check_image(builder, qemu, "memory")
    result = run_qemu(elf, args=qemu.simulator.args, timeout=60)
    assert result.passed, result.output
    lines = dict(ln.split(" ", 2)[1:] for ln in result.program_output.splitlines()
                 if ln.startswith("MEMORY"))
    before, peak = map(int, lines["heap"].split())
    assert peak - before >= 50_000  # the peak, though the break went back down
    used = int(lines["stack"].split()[0])
    assert 6_000 <= used < 6_000 + 1024  # the frame, printf's own and main's
