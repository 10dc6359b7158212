"""Board placements: [placements.<name>] in board.toml, how one is chosen, the overflow
message, and a model bigger than the cluster's scratchpad run in shared RAM."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from conftest import need_module
from scons_helpers import scons

from ireerv import boards
from ireerv.boards import overflow
from ireerv.boards.board import BSP_DIR
from ireerv.formats import ModelError, load_model

CLUSTER_TOML = (BSP_DIR / "cluster4" / "board.toml").read_text()


def test_cluster4_large_placement_stages_constants_from_shared_ram() -> None:
    board = boards.load_board("cluster4")
    assert board.placement_name == "default" and board.build_name == "cluster4"
    assert board.placement.constants is None
    large = board.with_placement("large")
    p = large.placement
    assert {p.rodata, p.data, p.bss, p.stack, p.heap} == {"spm0"}
    assert p.constants == "shared" and p.rodata_load == p.data_load == "shared"
    assert "--iree-stream-resource-max-allocation-size=1024" in large.iree_compile_flags()
    assert not any("max-allocation" in f for f in board.iree_compile_flags())
    assert "#define BSP_STAGED_CONSTANTS 1" in boards.config_header(large)
    assert "#define BSP_STAGED_CONSTANTS 0" in boards.config_header(board)
    script = boards.linker_script(large)
    assert ".constants : ALIGN(64) {" in script and "  } > shared" in script
    assert "__constants" not in boards.linker_script(board)  # default images unchanged
    assert large.build_name == "cluster4.large" and large.name == "cluster4"
    assert large.with_placement("large") is large
    shared = board.with_placement("shared").placement
    assert {shared.rodata, shared.data, shared.bss, shared.stack, shared.heap} == {"shared"}


def test_choosing_a_placement() -> None:
    cluster, qemu = boards.load_board("cluster4"), boards.load_board("qemu-virt")
    assert boards.choose_placement(cluster, "", "large").placement_name == "large"
    assert boards.choose_placement(qemu, "", "large") is qemu  # its default holds it
    assert boards.choose_placement(cluster, "default", "large") is cluster  # command line wins
    # A table names a placement per board; the boards it leaves out take their default.
    per_board = {"cluster4-pulp": "large"}
    assert boards.choose_placement(cluster, "", per_board) is cluster
    pulp = boards.load_board("cluster4-pulp")
    assert boards.choose_placement(pulp, "", per_board).placement_name == "large"
    with pytest.raises(boards.BoardError,
                       match="board qemu-virt has no placement 'large'; placements: default"):
        boards.choose_placement(qemu, "large", "")


def _board_with(tmp_path: Path, table: str) -> boards.Board:
    folder = tmp_path / "bsp" / "cluster4"
    shutil.copytree(BSP_DIR / "cluster4", folder)
    (folder / "board.toml").write_text(CLUSTER_TOML.replace("[placements.large]", table, 1))
    shutil.copytree(BSP_DIR / "common", tmp_path / "bsp" / "common")
    return boards.load_board("cluster4", tmp_path / "bsp")


@pytest.mark.parametrize("table, message", [
    ("[placements.Big]", r"\[placements.Big\]: placement names are C identifiers"),
    ("[placements.default]", r"placement names are C identifiers in lower case, not 'default'"),
    ("[placements.half]\nstack = 'shared'\n[placements.x]",
     r"\[placements.half\]: region spm0 takes all data or none"),
    ("[placements.c]\nconstants = 'spm0'\nrodata = 'shared'\ndata = 'shared'\n"
     "bss = 'shared'\nstack = 'shared'\nheap = 'shared'\n[placements.x]",
     r"\[placements.c\]: constants region spm0 must be preloaded and not exclusive_data"),
])
def test_bad_placements_are_named(tmp_path: Path, table: str, message: str) -> None:
    with pytest.raises(boards.BoardError, match=message):
        _board_with(tmp_path, table)


def test_overflow_names_the_placement_that_fits() -> None:
    board = boards.load_board("cluster4")
    ld = "ld: region `spm0' overflowed by 97472 bytes\ncollect2: error: ld returned 1"
    assert overflow.explain(ld, board) == (
        "the image does not fit region spm0 (board cluster4, placement 'default'): 97,472 "
        "bytes too many; use placement 'large' (model.toml: placement = \"large\", or "
        "PLACEMENT=large)")
    assert overflow.explain("ld: undefined reference to `f'", board) is None
    large = overflow.explain("region `shared' overflowed by 4 bytes",
                             board.with_placement("large"))
    assert large is not None and large.endswith("the board has no larger placement")
    staged = overflow.explain("region `spm0' overflowed by 4 bytes", board.with_placement("large"))
    assert staged is not None and staged.startswith(
        "the image does not fit region spm0 (board cluster4, placement 'large'): 4 bytes too "
        "many (constants in shared, the rest in spm0)")


def test_overflow_advises_no_placement_that_does_not_fit_either() -> None:
    """70 MB of weights: no placement holds them in 64 MiB of shared RAM; 50 MB fit
    'large', which keeps only the constants there."""
    board = boards.load_board("cluster4")
    ld = "ld: region `spm0' overflowed by 70201792 bytes"
    assert overflow.explain(ld, board) == (
        "the image does not fit region spm0 (board cluster4, placement 'default'): "
        "70,201,792 bytes too many; no placement of the board holds it either (70,431,168 "
        "bytes of data, beside the stack and heap that placement 'large' reserves)")
    fifty = overflow.explain("ld: region `spm0' overflowed by 50201792 bytes", board)
    assert fifty is not None and "use placement 'large'" in fifty


def test_model_toml_placement_is_checked(tmp_path: Path) -> None:
    folder = tmp_path / "m"
    shutil.copytree(Path(__file__).parents[1] / "models" / "mlp", folder)
    toml = folder / "model.toml"
    toml.write_text('placement = "large"\n' + toml.read_text())
    assert load_model(str(folder)).placement == "large"
    toml.write_text(toml.read_text().replace('"large"', '"Large!"'))
    with pytest.raises(ModelError, match="placement.*must be the name of a board placement"):
        load_model(str(folder))


# -- A model whose constants do not fit the scratchpad, on the cluster ------------------------

onnx = need_module("onnx")


def big_constant_folder(folder: Path, placement: str) -> Path:
    """288,000 bytes of int32 constants (more than core 0's 256 KiB scratchpad), summed."""
    from onnx import TensorProto, helper, numpy_helper
    values = np.random.default_rng(1).integers(-1000, 1000, (1, 72000)).astype(np.int32)
    nodes = [helper.make_node("Add", ["x", "c"], ["s"]),
             helper.make_node("ReduceSum", ["s", "axes"], ["y"], keepdims=0)]
    graph = helper.make_graph(
        nodes, "big-constant", [helper.make_tensor_value_info("x", TensorProto.INT32, [1, 1])],
        [helper.make_tensor_value_info("y", TensorProto.INT32, [1])],
        [numpy_helper.from_array(values, "c"),
         numpy_helper.from_array(np.array([1], dtype=np.int64), "axes")])
    folder.mkdir(parents=True)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
              str(folder / "model.onnx"))
    if placement:
        (folder / "model.toml").write_text(f'placement = "{placement}"\n')
    return folder


# For the `tree` fixture (conftest.py).
NEEDS_INPUTS = ("iree", "cluster-tb", "cv32e40p", "verilator")


@pytest.mark.cluster
@pytest.mark.upstream
def test_big_model_runs_in_shared_ram_on_the_cluster(tree: Path, tmp_path: Path) -> None:
    plain = big_constant_folder(tmp_path / "bigc", "")
    failed = scons(tree, "image", f"MODEL={plain}", "BOARD=cluster4", check=False)
    assert failed.returncode != 0 and "Traceback" not in failed.stdout + failed.stderr
    assert "error: the image does not fit region spm0 (board cluster4, placement 'default')" \
           in failed.stdout and "use placement 'large'" in failed.stdout
    # One constant larger than the scratchpad: staging cannot hold it, 'shared' runs it.
    placed = big_constant_folder(tmp_path / "bigc-shared", "shared")
    out = scons(tree, "run", f"MODEL={placed}", "BOARD=cluster4").stdout
    assert "run: bigc-shared on cluster4.shared" in out
    assert "PASS: 1 output elements match ONNX Runtime" in out, out[-2000:]
    assert (tree / "build/cluster4.shared/bigc-shared/image.elf").is_file()


def two_layer_folder(folder: Path) -> Path:
    """Two int32 MatMuls whose weights (153,600 bytes each) together exceed the scratchpad,
    each alone fitting the staging area."""
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(2)
    w1, w2 = (rng.integers(-3, 4, shape).astype(np.int32) for shape in ((128, 300), (300, 128)))
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["h"], name="first"),
             helper.make_node("MatMul", ["h", "w2"], ["y"], name="second")]
    graph = helper.make_graph(
        nodes, "two-layers", [helper.make_tensor_value_info("x", TensorProto.INT32, [1, 128])],
        [helper.make_tensor_value_info("y", TensorProto.INT32, [1, 128])],
        [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(w2, "w2")])
    folder.mkdir(parents=True)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
              str(folder / "model.onnx"))
    (folder / "model.toml").write_text('placement = "large"\n')
    return folder


@pytest.mark.cluster
@pytest.mark.upstream
def test_weights_are_staged_into_the_scratchpad(tree: Path, tmp_path: Path) -> None:
    model = two_layer_folder(tmp_path / "staged")
    out = scons(tree, "run", f"MODEL={model}", "BOARD=cluster4").stdout
    assert "run: staged on cluster4.large" in out
    assert "PASS: 128 output elements match ONNX Runtime" in out, out[-2000:]
    # The weights stay in shared RAM; the stack and the heap in core 0's scratchpad.
    layout = (tree / "build/cluster4.large/staged/image.map").read_text()
    assert re.search(r"^\.constants\s+0x0", layout, re.M), layout[:3000]
    assert re.search(r"^\.stack\s+0x18", layout, re.M)
