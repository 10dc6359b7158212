"""The board cluster4-pulp: cluster4's testbench with every core's COREV_PULP set to 1.

Its simulator is a cache entry of its own (cluster4's stays as it is), and its
cores run the CORE-V PULP instructions, here assembled with `.insn` by the
pinned binutils, which knows none of them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from bare_metal import ImageBuilder
from conftest import need_module, needs_qemu, require_input
from scons_helpers import scons
from shared_runs import SharedRuns
from test_verilator_build import assemble, run_sim
from tflite_builder import Graph, save

from ireerv import boards, simulators
from ireerv.boards.board import KERNEL_ALIGN
from ireerv.image import iree_compile
from ireerv.inputs.fetch import Fetcher
from ireerv.inputs.toolchain import Toolchain
from ireerv.paths import PROJECT_ROOT
from ireerv.run.record import later_call
from ireerv.simulators import verilator_build as vb

TESTS = Path(__file__).resolve().parent
PULP = boards.load_board("cluster4-pulp")
CLUSTER4 = boards.load_board("cluster4")


def tb_of(board: boards.Board) -> vb.Testbench:
    return board.simulator.extra["testbench"]


def test_only_the_testbench_input_and_the_iree_features_differ() -> None:
    pulp, plain = tb_of(PULP), tb_of(CLUSTER4)
    assert (pulp.input, plain.input) == ("cluster-tb-pulp", "cluster-tb")
    assert pulp.recipe() == plain.recipe()
    # GCC knows no CORE-V extension: C code stays rv32imc.
    assert (PULP.march, PULP.link_march) == (CLUSTER4.march, CLUSTER4.link_march)
    features = set(PULP.iree.features.split(","))
    assert features - set(CLUSTER4.iree.features.split(",")) == {
        "+xcvalu", "+xcvmem", "+xcvmac", "+xcvsimd"}
    assert "+xcvbi" not in features  # miscompiles branches beyond +-4 KiB
    # Data-tiled matmuls and the convolutions the spec hands over call the board's
    # kernels: flags and sources of cluster4-pulp only.
    extra = set(PULP.iree.flags()) - set(CLUSTER4.iree.flags())
    assert {f for f in extra if not f.startswith("--iree-llvmcpu-target-cpu-features=")} == {
        "--iree-global-opt-data-tiling", "--iree-opt-generalize-matmul=false",
        "--iree-llvmcpu-enable-ukernels=mmt4d", "--iree-llvmcpu-link-ukernel-bitcode=false",
        "--iree-preprocessing-transform-spec-filename=bsp/cluster4-pulp/iree-data-tiling.mlir",
        "--iree-opt-const-expr-max-size-increase-threshold=16384",
        "--iree-preprocessing-pass-pipeline=builtin.module(util.func("
        "iree-global-opt-detach-elementwise-from-named-ops))"}
    assert PULP.kernel_sources == tuple(PROJECT_ROOT / "bsp" / "cluster4-pulp" / name
                                        for name in ("mmt4d_sdotp.c", "conv_sdotp.c",
                                                     "depthwise_q8.c", "place_q8.c"))
    assert CLUSTER4.kernel_sources == ()


def test_the_data_tiling_spec_is_a_dependency_named_absolutely() -> None:
    """iree-compile runs in the image's folder: the board's files reach it as absolute
    paths, and an edit of either rebuilds the image."""
    flags = iree_compile.flags(PULP)
    spec = PROJECT_ROOT / "bsp" / "cluster4-pulp" / "iree-data-tiling.mlir"
    assert iree_compile.library_files(flags) == [
        PROJECT_ROOT / "bsp" / "common" / "iree-tiles.mlir", spec]
    assert f"--iree-preprocessing-transform-spec-filename={spec}" in map(
        iree_compile._absolute, flags)


def test_the_lock_input_is_cluster_tb_and_one_patch(fetcher: Fetcher) -> None:
    pulp, plain = fetcher.lock.input("cluster-tb-pulp"), fetcher.lock.input("cluster-tb")
    assert (pulp.url, pulp.commit, pulp.submodules) == (plain.url, plain.commit, plain.submodules)
    assert pulp.patches[:-1] == plain.patches
    assert pulp.patches[-1].file == "patches/cluster-tb-corev-pulp.patch"
    assert vb.cluster_simulator_entry(fetcher, tb_of(PULP)) != vb.cluster_simulator_entry(
        fetcher, tb_of(CLUSTER4))


# Hart 0: cv.sdotsp.b adds the dot product of four signed bytes to rd;
# 100 + (1*3 + -1*4 + 2*-5 + -2*6) = 77, 'M'.  cv.lb with post-increment
# (custom-0, funct3 000: rd = mem[rs1]; rs1 += imm) reads 'K' and steps on.
SDOTP_FIRMWARE = """\
    .globl _start
_start:
    csrr t0, mhartid
    bnez t0, park
    li   a0, 100
    li   a1, 0xFE02FF01     # bytes 1, -1, 2, -2
    li   a2, 0x06FB0403     # bytes 3, 4, -5, 6
    .insn r 0x7b, 0x1, 0x54, a0, a1, a2    # cv.sdotsp.b a0, a1, a2
    li   t1, 0x10000000
    sb   a0, 0(t1)
    la   a3, text
    .insn i 0x0b, 0x0, a4, 1(a3)           # cv.lb a4, (a3), 1
    sb   a4, 0(t1)
    lb   a4, 0(a3)                          # a3 moved on by one: newline
    sb   a4, 0(t1)
    li   t1, 0x20000004
    sw   zero, 0(t1)
park:
    j    park
text:
    .byte 0x4b, 0x0a
"""


@pytest.mark.cluster
@pytest.mark.upstream
def test_the_cores_run_pulp_instructions(fetcher: Fetcher, toolchain: Toolchain,
                                         tmp_path: Path) -> None:
    require_input(fetcher, "verilator")
    require_input(fetcher, "cluster-tb-pulp")
    sim = vb.cluster_simulator(fetcher, tb_of(PULP), tmp_path / "logs")
    run = run_sim(sim, assemble(toolchain, tmp_path, "sdotp", SDOTP_FIRMWARE), 100_000)
    out = run.stdout + run.stderr
    assert run.returncode == 0 and "MK\n" in run.stdout, out


def _kernel_figures(fetcher: Fetcher, toolchain: Toolchain, tmp_path: Path, kernel: str,
                    source_name: str = ""
                    ) -> tuple[dict[str, tuple[int, int]], list[list[str]]]:
    """Run tests/bsp/<kernel>_check.c with the board's <kernel>_sdotp.c (or source_name)
    on one hart: each case's (cycles, MACs) by name, and the CYCLES lines; every output
    checked."""
    require_input(fetcher, "verilator")
    require_input(fetcher, "cluster-tb-pulp")
    sim = vb.cluster_simulator(fetcher, tb_of(PULP), tmp_path / "logs")
    source = PROJECT_ROOT / "bsp" / "cluster4-pulp" / (source_name or f"{kernel}_sdotp.c")
    elf, hexfile = ImageBuilder(toolchain, tmp_path).image(
        PULP, kernel, TESTS / "bsp" / f"{kernel}_check.c",
        [f'{kernel.upper()}_SOURCE="{source}"'], KERNEL_ALIGN)
    result = simulators.run_on_board(PULP, elf=elf, hex_file=hexfile, simulator=sim,
                                     maxcycles=40_000_000)
    assert result.passed and "MISMATCHES 0" in result.program_output, result.output
    lines = [ln.split() for ln in result.program_output.splitlines() if ln.startswith("CYCLES")]
    print("\n".join(" ".join(words) for words in lines))  # the figures, with pytest -s
    return {words[1]: (int(words[2]), int(words[4])) for words in lines}, lines


@pytest.mark.cluster
@pytest.mark.upstream
def test_the_sdotp_tile_is_exact_at_under_a_cycle_a_mac(fetcher: Fetcher, toolchain: Toolchain,
                                                      tmp_path: Path) -> None:
    """The int8 tiles with cv.sdotsp.b (bsp/cluster4-pulp/mmt4d_sdotp.c), one hart:
    64x64x64 takes 132,662 cycles, 0.51 a MAC (144,207 before its post-increment loads),
    one row by 128x128 10,971, 0.67 a MAC (the bound: 0.9, the aim for pointwise
    layers)."""
    figures, lines = _kernel_figures(fetcher, toolchain, tmp_path, "mmt4d")
    assert figures["mmt4d"][1] == 64**3 and figures["row"][1] == 128**2, lines
    for cycles, macs in figures.values():
        assert cycles <= 0.9 * macs, lines


@pytest.mark.cluster
@pytest.mark.upstream
def test_the_convolution_kernel_is_exact_at_under_a_cycle_a_mac(
        fetcher: Fetcher, toolchain: Toolchain, tmp_path: Path) -> None:
    """The int8 convolution with cv.sdotsp.b (bsp/cluster4-pulp/conv_sdotp.c), one hart, on
    each kind of layer the board's spec hands it: 8x8 outputs of 16 filters of 3x3x32 take
    125,938 cycles, 0.43 a MAC, with stride 2 133,810, 0.45 a MAC (the bound: 0.9); with
    the requantisation in the kernel (ireerv_conv_q8) 146,550, 0.50 a MAC; a pointwise
    layer of kws in rows of 5 (a tile of 4 outputs and one) 91,240, 0.89 a MAC, and
    84,750, 0.83, with clipped columns (cv.clip: no constant after the shift, the clamp
    of int8); as the spec hands it, its 25 rows of 5 in 5 of 25, with kws's columns
    (clipped and plain: no prescaling, no sign term) 65,430, 0.64 a MAC; kws's first
    layer, 16 filters of 10 x 2 taps over channel pairs (a window's row one word),
    92,930, 1.16 a MAC, with kws's columns 76,205, 0.95 (its requantisation weighs on
    40 MACs an output); an image's 3 channels in windows of 3 x 4 taps (the 4th weighs
    0: rows of 12 bytes, starting mid-word), 8 filters, stride 2 24,086 cycles for 16,128
    MACs, stride 1 21,774 for 18,432."""
    figures, lines = _kernel_figures(fetcher, toolchain, tmp_path, "conv")
    assert len(figures) == 16, lines
    for name in ("3x3", "3x3s2", "3x3q"):
        cycles, macs = figures[name]
        assert cycles <= 0.9 * macs, lines


@pytest.mark.cluster
@pytest.mark.upstream
def test_the_depthwise_kernel_is_exact(fetcher: Fetcher, toolchain: Toolchain,
                                       tmp_path: Path) -> None:
    """The int8 depthwise convolution (bsp/cluster4-pulp/depthwise_q8.c), one hart, on
    each kind the board's spec hands it, a row a call and rows in groups, every output
    checked: 3x3 over 16 channels in rows of 8 outputs take 39,930 cycles for 9,216
    MACs, 39.0 an output (half the channels here have the sign term, in C, the others
    run the hardware loops, 20 instructions an output, 18 with cv.clip, 15 words
    fetched); kws's rows of 5 over 64 channels 98,633, 44.0 an output, and in groups
    of 5 rows (`kws5`) 113,874 for 3,200 outputs, 35.6 an output.  The table is the
    kernel's 9 words a channel, packed from the translator's columns as the spec packs
    them (`pack`)."""
    figures, lines = _kernel_figures(fetcher, toolchain, tmp_path, "depthwise",
                                     "depthwise_q8.c")
    assert len(figures) == 9, lines


@pytest.mark.cluster
@pytest.mark.upstream
def test_int8_matmuls_call_the_sdotp_kernel(shared_runs: SharedRuns, fetcher: Fetcher) -> None:
    """qmatmul64 on one hart: iree-compile data-tiles the matmul and its mmt4d dispatch
    calls iree_uk_mmt4d from bsp/cluster4-pulp/mmt4d_sdotp.c.  215,976 cycles a call, 0.82
    a MAC with the packing dispatches (907,188 through LLVM's 2x4 tile), outputs bit for
    bit the host's."""
    require_input(fetcher, "verilator")
    require_input(fetcher, "cluster-tb-pulp")
    run = shared_runs.run("MODEL=qmatmul64", "BOARD=cluster4-pulp", "HARTS=1")
    record = run.record
    assert record["passed"], run.output[-2000:]
    assert "iree_uk_mmt4d" in (run.folder / "image.map").read_text()
    cycles = later_call(record)
    assert cycles is not None and cycles <= 0.9 * 64**3, cycles


@pytest.mark.cluster
@pytest.mark.upstream
def test_kws_pointwise_layers_call_the_sdotp_kernel(shared_runs: SharedRuns,
                                                    fetcher: Fetcher) -> None:
    """kws with the board's default harts: its first layer and its fully connected one
    data-tiled (bsp/cluster4-pulp/iree-data-tiling.mlir), its pointwise layers requantised
    in ireerv_conv_q8, shared by rows: 7,863,168 -> 3,793,892 cycles a call (3,983,216 with
    the pointwise layers data-tiled too), outputs bit for bit LiteRT's."""
    for name in ("verilator", "cluster-tb-pulp", "mlperf-tiny"):
        require_input(fetcher, name)
    run = shared_runs.run("MODEL=kws", "BOARD=cluster4-pulp")
    record = run.record
    assert record["passed"] and record["worst"].endswith("difference 0"), record["worst"]
    image_map = (run.folder / "image.map").read_text()
    assert "iree_uk_mmt4d" in image_map and "ireerv_conv_q8" in image_map
    cycles = later_call(record)
    assert cycles is not None and cycles <= 4_500_000, cycles


@pytest.mark.cluster
@pytest.mark.upstream
def test_ad_fully_connected_layers_call_the_row_tile(shared_runs: SharedRuns,
                                                     fetcher: Fetcher) -> None:
    """ad with the board's default harts: its int8 fully connected layers data-tiled as
    matmuls of one row (1x8x4 tiles, bsp/cluster4-pulp/iree-data-tiling.mlir), 1,683,374
    -> 798,269 cycles a call, outputs those of cluster4's image; the layers whose weights
    hart 0's weight cache cannot hold run on harts 1-3, which keep those weights in their
    own scratchpads (runtime/runner/parallel.c, delegate): 798,269 -> 375,611, below the
    board's target of 0.6 M."""
    for name in ("verilator", "cluster-tb-pulp", "mlperf-tiny"):
        require_input(fetcher, name)
    run = shared_runs.run("MODEL=ad", "BOARD=cluster4-pulp")
    record = run.record
    assert record["passed"], record["worst"]
    check = (run.folder / "hart_local_check.h").read_text()
    assert "mmt4d_1x16x32x1x8x4_i8xi8xi32" in check
    cycles = later_call(record)
    assert cycles is not None and cycles <= 600_000, cycles


def _conv(g: Graph, seed: int, x: int, shape: tuple[int, ...], out: tuple[int, ...],
          stride: int, name: str) -> int:
    """An int8 CONV_2D (SAME, RELU, per-channel weights) of filters `shape` [F, KH, KW, C]."""
    rng = np.random.default_rng(seed)
    f = shape[0]
    scales = list(rng.uniform(0.005, 0.02, f))
    w = g.tensor(f"{name}_w", shape, np.int8, rng.integers(-127, 128, int(np.prod(shape))),
                 scales, [0] * f)
    b = g.tensor(f"{name}_b", (f,), np.int32, rng.integers(-400, 400, f),
                 [0.05 * s for s in scales], [0] * f)
    y = g.tensor(name, out, np.int8, scale=0.06, zero_point=-128)
    g.op("CONV_2D", [x, w, b], [y], padding="SAME", stride=(stride, stride), activation="RELU")
    return y


def conv_kernel_net(path: Path) -> Path:
    """Every kind of convolution the board's kernel takes: 3x3 of 3 channels (padded to 4),
    3x3 of stride 2, 3x3 of 6 outputs a row (a tile and two single outputs), 1x1 of
    stride 2."""
    g = Graph()
    x = g.tensor("x", (1, 12, 12, 3), np.int8, scale=0.5, zero_point=-1)
    a = _conv(g, 21, x, (8, 3, 3, 3), (1, 12, 12, 8), 1, "rgb")
    b = _conv(g, 22, a, (16, 3, 3, 8), (1, 6, 6, 16), 2, "strided")
    c = _conv(g, 23, b, (32, 3, 3, 16), (1, 6, 6, 32), 1, "same")
    # More than 1,024 bytes of weights: int8 ones (smaller pointwise layers get int16
    # ones, formats/prescaled.py, which stay IREE's).
    d = _conv(g, 24, c, (40, 1, 1, 32), (1, 3, 3, 40), 2, "shortcut")
    return save(g, path, [x], [a, b, c, d])


def _run_exactly(tree: Path, fetcher: Fetcher, model: Path) -> Path:
    """`scons run` of a TFLite model on cluster4-pulp, its outputs LiteRT's bit for bit; the
    image's folder."""
    need_module("ai_edge_litert")
    for name in ("verilator", "cluster-tb-pulp"):
        require_input(fetcher, name)
    out = scons(tree, "run", f"MODEL={model}", "BOARD=cluster4-pulp").stdout
    assert "PASS: " in out and "difference 0" in out, out[-2000:]
    return next((tree / "build" / "cluster4-pulp").glob(f"{model.stem}*"))


@pytest.mark.cluster
@pytest.mark.upstream
def test_convolutions_call_the_board_kernel(tree: Path, fetcher: Fetcher,
                                            tmp_path: Path) -> None:
    """The spec hands the first to ireerv_conv_s8 and the others, with their
    requantisation, to ireerv_conv_q8: no convolution of IREE's own is left, and the
    outputs are LiteRT's bit for bit (resnet8: 34,377,296 -> 8,198,150 cycles a call);
    the image holds no path of the checkout."""
    folder = _run_exactly(tree, fetcher, conv_kernel_net(tmp_path / "convs.tflite"))
    image_map = (folder / "image.map").read_text()
    assert "ireerv_conv_s8" in image_map and "ireerv_conv_q8" in image_map
    assert "conv_2d_nhwc_hwcf" not in image_map
    # The kernel's dispatch comes from the board's spec, with its locations: named
    # through a link in the output folder, not by the checkout's path.
    assert str(tree).encode() not in (folder / "image.elf").read_bytes()


def requantised_net(path: Path) -> Path:
    """Layers the requantising kernel takes: a first layer of stride 2 (3 channels, windows
    of 4 taps), a small pointwise layer (int16 weights, formats/prescaled.py) and a larger one
    of int8 weights, both of 12 outputs a row (more than the mmt4d path's 6)."""
    g = Graph()
    x = g.tensor("x", (1, 24, 24, 3), np.int8, scale=0.5, zero_point=-1)
    a = _conv(g, 31, x, (8, 3, 3, 3), (1, 12, 12, 8), 2, "first")
    b = _conv(g, 32, a, (16, 1, 1, 8), (1, 12, 12, 16), 1, "prescaled")
    c = _conv(g, 33, b, (72, 1, 1, 16), (1, 12, 12, 72), 1, "pointwise")
    return save(g, path, [x], [a, b, c])


@pytest.mark.cluster
@pytest.mark.upstream
def test_requantised_convolutions_write_int8(tree: Path, fetcher: Fetcher,
                                             tmp_path: Path) -> None:
    """The layers no other path takes go to ireerv_conv_q8 with their requantisation
    (the translator's mark ireerv.requant): int8 out, no int32 sums, no convolution of
    IREE's own left, and LiteRT's outputs bit for bit (vww: 12,652,134 -> 10,768,842
    cycles a call; 9,589,034 with the kernel's dispatches shared by rows and its
    pointwise layers too)."""
    folder = _run_exactly(tree, fetcher, requantised_net(tmp_path / "requantised.tflite"))
    image_map = (folder / "image.map").read_text()
    assert "ireerv_conv_q8" in image_map and "conv_2d_nhwc_hwcf" not in image_map


def _depthwise(g: Graph, seed: int, x: int, c: int, out: tuple[int, ...], stride: int,
               activation: str, zero_point: int, name: str) -> int:
    """An int8 3x3 DEPTHWISE_CONV_2D (SAME, per-channel weights) of c channels."""
    rng = np.random.default_rng(seed)
    scales = list(rng.uniform(0.005, 0.02, c))
    w = g.tensor(f"{name}_w", (1, 3, 3, c), np.int8, rng.integers(-127, 128, 9 * c),
                 scales, [0] * c, axis=3)
    b = g.tensor(f"{name}_b", (c,), np.int32, rng.integers(-400, 400, c),
                 [0.05 * s for s in scales], [0] * c)
    y = g.tensor(name, out, np.int8, scale=0.06, zero_point=zero_point)
    g.op("DEPTHWISE_CONV_2D", [x, w, b], [y], padding="SAME", stride=(stride, stride),
         multiplier=1, activation=activation)
    return y


def depthwise_net(path: Path) -> Path:
    """Depthwise layers of the translator's int8 form (more than 1,024 bytes of weights,
    formats/prescaled.py), each reading the first: 12 rows of stride 1 after a ReLU (rows
    in groups), and 6 of stride 2 (one workgroup) without one, whose requantisation has
    the sign term and a constant after the shift, and after a ReLU of zero point -2."""
    g = Graph()
    x = g.tensor("x", (1, 12, 12, 128), np.int8, scale=0.5, zero_point=-1)
    a = _depthwise(g, 41, x, 128, (1, 12, 12, 128), 1, "RELU", -128, "relu")
    b = _depthwise(g, 42, a, 128, (1, 6, 6, 128), 2, "NONE", 3, "signed")
    c = _depthwise(g, 43, a, 128, (1, 6, 6, 128), 2, "RELU", -2, "after")
    return save(g, path, [x], [a, b, c])


@pytest.mark.cluster
@pytest.mark.upstream
@needs_qemu
def test_int8_depthwise_layers_call_the_depthwise_kernel(tree: Path, fetcher: Fetcher,
                                                         tmp_path: Path) -> None:
    """The spec hands 3x3 depthwise layers of int8 weights (the bias added before the
    requantisation) to ireerv_dw_q8 with a table of 9 words a channel made at compile
    time (vww: 7,741,012 -> 7,434,034 cycles a call): no depthwise convolution of IREE's
    own is left, and the outputs are IREE's own code's on qemu-virt bit for bit, the sign
    term's too.  Both pass against LiteRT within its tolerance, not bit for bit: where
    no ReLU clamps the negative sums, LiteRT's int8 3x3 depthwise rounds some of them 1
    higher than the translator's requantisation (board-independent; the networks' depthwise
    layers all have a ReLU)."""
    need_module("ai_edge_litert")
    for name in ("verilator", "cluster-tb-pulp"):
        require_input(fetcher, name)
    model = depthwise_net(tmp_path / "depthwise.tflite")
    outputs = {}
    for board in ("cluster4-pulp", "qemu-virt"):
        outputs[board] = tmp_path / f"{board}.npz"
        out = scons(tree, "run", f"MODEL={model}", f"BOARD={board}",
                    f"OUTPUT={outputs[board]}").stdout
        assert "PASS: " in out, out[-2000:]
    image_map = (tree / "build" / "cluster4-pulp" / "depthwise" / "image.map").read_text()
    assert "ireerv_dw_q8" in image_map and "depthwise_conv_2d" not in image_map
    kernel, iree = (np.load(outputs[b]) for b in ("cluster4-pulp", "qemu-virt"))
    assert sorted(kernel.files) == sorted(iree.files) and len(kernel.files) == 3
    for name in kernel.files:
        assert np.array_equal(kernel[name], iree[name]), name
