"""Board placements: [placements.<name>] in board.toml, how one is chosen, the overflow
message, and a model bigger than the cluster's scratchpad run in shared RAM."""

from __future__ import annotations

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


def test_cluster4_large_placement_keeps_data_together() -> None:
    board = boards.load_board("cluster4")
    assert board.placement_name == "default" and board.build_name == "cluster4"
    large = board.with_placement("large")
    p = large.placement
    assert {p.rodata, p.rodata_load, p.data, p.data_load, p.bss, p.stack, p.heap} == {"shared"}
    assert p.text == "shared" and p.stack_size == board.placement.stack_size
    assert large.build_name == "cluster4.large" and large.name == "cluster4"
    assert large.with_placement("large") is large


def test_choosing_a_placement() -> None:
    cluster, qemu = boards.load_board("cluster4"), boards.load_board("qemu-virt")
    assert boards.choose_placement(cluster, "", "large").placement_name == "large"
    assert boards.choose_placement(qemu, "", "large") is qemu  # its default holds it
    assert boards.choose_placement(cluster, "default", "large") is cluster  # command line wins
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


def test_overflow_advises_no_placement_that_does_not_fit_either() -> None:
    """50 MB of weights: 'large' holds them beside its 16 MiB heap in no 64 MiB."""
    board = boards.load_board("cluster4")
    ld = "ld: region `spm0' overflowed by 50201792 bytes"
    assert overflow.explain(ld, board) == (
        "the image does not fit region spm0 (board cluster4, placement 'default'): "
        "50,201,792 bytes too many; no placement of the board holds it either (50,431,168 "
        "bytes of data, beside the stack and heap that placement 'large' reserves)")


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


@pytest.mark.upstream
def test_big_model_runs_in_shared_ram_on_the_cluster(tree: Path, tmp_path: Path) -> None:
    plain = big_constant_folder(tmp_path / "bigc", "")
    failed = scons(tree, "image", f"MODEL={plain}", "BOARD=cluster4", check=False)
    assert failed.returncode != 0 and "Traceback" not in failed.stdout + failed.stderr
    assert "error: the image does not fit region spm0 (board cluster4, placement 'default')" \
           in failed.stdout and "use placement 'large'" in failed.stdout
    placed = big_constant_folder(tmp_path / "bigc-large", "large")
    out = scons(tree, "run", f"MODEL={placed}", "BOARD=cluster4").stdout
    assert "run: bigc-large on cluster4.large" in out
    assert "PASS: 1 output elements match ONNX Runtime" in out, out[-2000:]
    assert (tree / "build/cluster4.large/bigc-large/image.elf").is_file()
