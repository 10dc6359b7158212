"""Models through iree-compile, and whole IREE images built and run on both boards.

Compiling needs only the pinned compiler wheel.  Images need the pinned IREE
runtime source, and cluster runs the testbench, RTL and Verilator: those tests
skip, naming the missing input, when the upstream repositories cannot be reached.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import needs_qemu, require_input
from scons_helpers import scons, scons_interrupted

from ireerv import boards
from ireerv import formats as models
from ireerv.image import iree_compile, runner_data
from ireerv.inputs.fetch import Fetcher
from ireerv.run import runner_output


@pytest.mark.parametrize("name", models.mlir_models())
def test_every_model_compiles_deterministically(compiler: Path, tmp_path: Path,
                                                name: str) -> None:
    model = models.load_model(name)
    flags = iree_compile.flags(boards.load_board("cluster4"))
    digests = []
    for attempt in ("a", "b"):
        header = tmp_path / attempt / "model_module.h"
        header.parent.mkdir()
        iree_compile.compile_model(compiler, flags, model.mlir, header)
        module_h, kernel_o, kernel_h, shares_h = iree_compile.outputs(header)
        text = module_h.read_text()
        assert "#define RUNNER_MODEL_SHARES" in shares_h.read_text()
        assert "iree_status_t module_create(" in text and "EMITC_IMPLEMENTATION" in text
        assert runner_data.library_queries(kernel_h.read_text())
        assert kernel_o.read_bytes()[:4] == b"\x7fELF"
        digests.append([p.read_bytes() for p in (module_h, kernel_o, kernel_h, shares_h)])
    assert digests[0] == digests[1], "iree-compile output differs between two runs"


def test_malformed_mlir_fails_cleanly(compiler: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @f( {\n")
    header = tmp_path / "model_module.h"
    with pytest.raises(iree_compile.CompileError, match="iree-compile failed on .*bad.mlir"):
        iree_compile.compile_model(compiler, iree_compile.flags(boards.load_board("qemu-virt")),
                                   bad, header)
    assert not any(p.exists() for p in iree_compile.outputs(header))


# -- Whole images: need the pinned IREE runtime source ---------------------------------------


NEEDS_INPUTS = ("iree",)  # for the `tree` fixture (conftest.py)


@pytest.mark.upstream
@pytest.mark.parametrize("board", boards.list_boards())
def test_every_model_builds(tree: Path, board: str) -> None:
    for name in models.mlir_models():
        out = scons(tree, "image", f"MODEL={name}", f"BOARD={board}").stdout
        assert "bytes code + initialised data" in out or "is up to date" in out


@pytest.mark.upstream
def test_lean_matmul_image_is_small(tree: Path) -> None:
    scons(tree, "size-report", "MODEL=matmul", "BOARD=cluster4")
    report = json.loads((tree / "build/cluster4/matmul-4/size-report.json").read_text())
    assert report["totals"]["code"] < 256 * 1024
    named = sum(c["code"] for c in report["components"])
    padding = report["remainder"]["fill"]  # between functions aligned to 4 bytes
    assert named + padding >= 0.99 * report["totals"]["code"]


@needs_qemu
@pytest.mark.upstream
@pytest.mark.parametrize("name", models.mlir_models())
def test_every_model_matches_reference_on_qemu(tree: Path, name: str) -> None:
    out = scons(tree, "run", f"MODEL={name}", "BOARD=qemu-virt").stdout
    assert "PASS:" in out and "bit for bit" in out


@pytest.mark.upstream
def test_ctrl_c_stops_a_run_and_leaves_no_record(tree: Path) -> None:
    scons(tree, "image", "MODEL=matmul", "BOARD=qemu-virt", "SIZE=128")
    status, out = scons_interrupted(tree, "run", "MODEL=matmul", "BOARD=qemu-virt",
                                    "SIZE=128", after="CYCLES warmup")
    assert status != 0 and "Build interrupted" in out and "Traceback" not in out, out
    assert "PASS" not in out and "cycles: start-up" not in out
    assert not (tree / "build/qemu-virt/matmul-128/run.json").exists()


@pytest.mark.cluster
@pytest.mark.upstream
def test_matmul_on_the_cluster(tree: Path, fetcher: Fetcher) -> None:
    for name in ("cluster-tb", "cv32e40p", "verilator"):
        require_input(fetcher, name)
    out = scons(tree, "run", "MODEL=matmul", "BOARD=cluster4", "SIZE=4").stdout
    assert "PASS: 16 output elements match the host reference (bit for bit)" in out
    record = json.loads((tree / "build/cluster4/matmul-4/run.json").read_text())
    assert record["startup_cycles"] > 0 and len(record["call_cycles"]) == 2


def _outputs(result) -> list[bytes]:
    return [o.tobytes() for o in runner_output.parse_runner_output(result.program_output).outputs]


@pytest.mark.upstream
@needs_qemu
def test_four_harts_on_qemu_give_the_same_bits(tree: Path) -> None:
    """QEMU without -icount: every hart then runs in its own thread."""
    from dataclasses import replace

    from ireerv import simulators

    board = boards.load_board("qemu-virt")
    args = list(board.simulator.args)
    del args[args.index("-icount"):args.index("-icount") + 2]
    board = replace(board, simulator=replace(board.simulator, args=tuple(args)))
    outputs = []
    for harts in (1, 4):
        out = scons(tree, "run", "MODEL=matmul", "BOARD=qemu-virt", "SIZE=16",
                    f"HARTS={harts}").stdout
        assert "PASS: 256 output elements match the host reference (bit for bit)" in out
        suffix = "-h4" if harts > 1 else ""
        result = simulators.run_on_board(
            board, elf=tree / f"build/qemu-virt/matmul-16{suffix}/image.elf", timeout=120)
        assert result.passed, result.detail
        outputs.append(_outputs(result))
    assert outputs[0] == outputs[1] and outputs[0]
    record = json.loads((tree / "build/qemu-virt/matmul-16-h4/run.json").read_text())
    assert record["harts"] == 4 and record["workgroups"] == ["8x1x1"]
    assert len(record["hart_cycles"]) == 4


@pytest.mark.cluster
@pytest.mark.upstream
def test_several_harts_for_dispatches_of_one_workgroup_build_one_harts_image(
        tree: Path, fetcher: Fetcher) -> None:
    """The MLP's two dispatches have one workgroup each: with HARTS=auto the image is
    built as one hart's (no hook, no team), so it is as fast as HARTS=1, give or take
    the layout of its kernel object (compiled with the tiles for several harts)."""
    for name in ("cluster-tb", "cv32e40p", "verilator"):
        require_input(fetcher, name)
    out = scons(tree, "run", "MODEL=mlp", "BOARD=cluster4", "HARTS=auto").stdout
    assert "PASS: 10 output elements match the host reference (bit for bit)" in out
    assert "harts: 4, unused: every dispatch has one workgroup" in out
    # auto is cluster4's default HARTS: its folder has no suffix, one hart's has -h1
    header = tree / "build/cluster4/mlp/model_dispatches.h"
    assert "#define RUNNER_MODEL_SHARES 0" in header.read_text()
    auto = json.loads((tree / "build/cluster4/mlp/run.json").read_text())
    scons(tree, "run", "MODEL=mlp", "BOARD=cluster4", "HARTS=1")
    one = json.loads((tree / "build/cluster4/mlp-h1/run.json").read_text())
    assert auto["workgroups"] == [] and auto["harts_auto"]
    assert auto["call_cycles"][-1] <= one["call_cycles"][-1] * 1.0005


@pytest.mark.cluster
@pytest.mark.upstream
def test_four_harts_on_the_cluster(tree: Path, fetcher: Fetcher) -> None:
    for name in ("cluster-tb", "cv32e40p", "verilator"):
        require_input(fetcher, name)
    out = scons(tree, "run", "MODEL=matmul", "BOARD=cluster4", "SIZE=16", "HARTS=4").stdout
    # The reference check is bit for bit (tolerance 0), as for one hart.
    assert "PASS: 256 output elements match the host reference (bit for bit)" in out
    assert "harts: 4; workgroups per dispatch: 8x1x1" in out
    record = json.loads((tree / "build/cluster4/matmul-16-h4/run.json").read_text())
    assert record["harts"] == 4 and all(c > 0 for c in record["hart_cycles"])


@pytest.mark.upstream
@needs_qemu
@pytest.mark.parametrize(("settings", "folder", "elements"), [
    (("MODEL=qmatmul64",), "qmatmul64", 4096),
    (("MODEL=matmul", "SIZE=16", "RUNTIME=none"), "matmul-16-c", 256),
])
def test_int8_and_plain_c_with_four_harts_on_qemu(tree: Path, settings: tuple[str, ...],
                                                  folder: str, elements: int) -> None:
    """The int8 matmul of 64 (IREE) and the plain C matmul: 4 harts give 1 hart's bits."""
    from dataclasses import replace

    from ireerv import simulators

    board = boards.load_board("qemu-virt")
    args = list(board.simulator.args)
    del args[args.index("-icount"):args.index("-icount") + 2]
    board = replace(board, simulator=replace(board.simulator, args=tuple(args)))
    outputs = []
    for harts in (1, 4):
        out = scons(tree, "run", *settings, "BOARD=qemu-virt", f"HARTS={harts}").stdout
        assert f"PASS: {elements} output elements match the host reference (bit for bit)" in out
        suffix = "-h4" if harts > 1 else ""
        result = simulators.run_on_board(
            board, elf=tree / f"build/qemu-virt/{folder}{suffix}/image.elf", timeout=120)
        assert result.passed, result.detail
        outputs.append(_outputs(result))
    assert outputs[0] == outputs[1] and outputs[0]


@pytest.mark.cluster
@pytest.mark.upstream
def test_int8_matmul_of_64_with_four_harts_on_the_cluster(tree: Path, fetcher: Fetcher) -> None:
    for name in ("cluster-tb", "cv32e40p", "verilator"):
        require_input(fetcher, name)
    # Two calls: the second shares the workgroups out by the first one's timings.
    out = scons(tree, "run", "MODEL=qmatmul64", "BOARD=cluster4", "HARTS=4", "REPEAT=2").stdout
    assert "PASS: 4096 output elements match the host reference (bit for bit)" in out
    record = json.loads((tree / "build/cluster4/qmatmul64-h4/run.json").read_text())
    assert record["harts"] == 4 and len(record["workgroups"]) == 1
    # Integer kernels that call nothing: harts 1-3 run from their own scratchpads.
    check = (tree / "build/cluster4/qmatmul64-h4/hart_local_check.h").read_text()
    assert "#define RUNNER_HART_LOCAL 1" in check


@pytest.mark.upstream
def test_matmul_releases_are_reproducible(tree: Path, tmp_path: Path) -> None:
    """Each cluster board's reference release, rebuilt in a fresh checkout: the same bytes,
    and the same as the machine that committed release-digests.toml built."""
    from ireerv.release import release

    work = tmp_path / "clean"
    release.fresh_checkout(tree, work, include_changes=False)
    for board in ("cluster4", "cluster4-pulp"):
        out = scons(work, "release-check", "MODEL=matmul", f"BOARD={board}").stdout
        assert "files identical byte for byte" in out
        assert f"files match the committed digests ([{board}.debian] in release-digests.toml)" \
            in out
