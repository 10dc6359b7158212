"""ONNX conformance: the backend test models that ship inside the `onnx` package (old
opsets, IR 3 files, int64 and f64 types, NaN results), run on qemu-virt and checked
against their own test data."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import need_module, needs_qemu
from scons_helpers import scons

from ireerv.formats import onnx_diagnose

onnx = need_module("onnx")
DATA = Path(onnx.__file__).parent / "backend" / "test" / "data"
NEEDS_INPUTS = ("iree",)  # for the `tree` fixture (conftest.py)

SAMPLE = {  # model -> a line its run prints besides PASS
    "pytorch-converted/test_AvgPool1d": "converted: opset 6 raised to 17",
    "pytorch-converted/test_ZeroPad2d": "PASS",  # IR 3: the converter's initializer
    "pytorch-converted/test_Embedding": "PASS",  # an int64 input
    "pytorch-operator/test_operator_sqrt": "PASS",  # NaN results match NaN
    "pytorch-operator/test_operator_add_broadcast": "converted: output 0: f64 compared as f32",
    "pytorch-converted/test_PReLU_1d_multiparam": "PASS",  # a per-channel slope, opset 6
    "pytorch-converted/test_Conv1d_pad1size1": "PASS",  # a matvec-like op, two reductions
}


@pytest.mark.upstream
@needs_qemu
@pytest.mark.parametrize("name", sorted(SAMPLE))
def test_backend_models_pass_against_their_test_data(tree: Path, name: str) -> None:
    out = scons(tree, "run", f"MODEL={DATA / name}", "BOARD=qemu-virt").stdout
    assert "match the model's test data (test_data_set_0)" in out, out
    assert SAMPLE[name] in out, out


@pytest.mark.upstream
def test_a_compiler_defect_names_the_node_and_says_so(tree: Path) -> None:
    proc = scons(tree, "image", f"MODEL={DATA / 'pytorch-converted/test_ReflectionPad2d'}",
                 "BOARD=qemu-virt", check=False)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    (line,) = [ln for ln in proc.stderr.splitlines() if ln.startswith("scons: ***")]
    assert "node '1' (Pad, inputs [2, 3, 8, 8]): iree-compile failed: LLVM Translation " \
           "failed" in line
    assert "this looks like a defect of the pinned compiler, not of the model" in line


def test_diagnostics_name_the_node(tmp_path: Path) -> None:
    h = onnx.helper
    f32 = onnx.TensorProto.FLOAT
    graph = h.make_graph(
        [h.make_node("Relu", ["x"], ["r"], name="first"),
         h.make_node("Pad", ["r", "p"], ["y"], name="the_pad", mode="reflect")], "g",
        [h.make_tensor_value_info("x", f32, [1, 2, 3])],
        [h.make_tensor_value_info("y", f32, None)],
        [onnx.numpy_helper.from_array(np.array([0, 0, 1, 0, 0, 1]), "p")])
    path = tmp_path / "m.onnx"
    onnx.save(h.make_model(graph, opset_imports=[h.make_opsetid("", 17)]), str(path))
    said = "m.mlir:3:5: error: failed to legalize operation 'torch.operator' \"onnx.Pad\"\n"
    assert onnx_diagnose.node(path, said) == "node 'the_pad' (Pad, inputs [1, 2, 3], [6])"
    assert onnx_diagnose.first_error("note: x\nm.mlir:1:1: error: boom\n") == "boom"
    assert onnx_diagnose.node(path, "no operator here") is None


@pytest.mark.upstream
@needs_qemu
def test_without_test_data_an_old_model_says_what_to_add(tree: Path, tmp_path: Path) -> None:
    folder = tmp_path / "avg"
    folder.mkdir()
    (folder / "model.onnx").write_bytes(
        (DATA / "pytorch-converted/test_AvgPool1d/model.onnx").read_bytes())
    proc = scons(tree, "run", f"MODEL={folder}", "BOARD=qemu-virt", check=False)
    assert proc.returncode == 2
    assert "ONNX Runtime cannot check this model: put ONNX's test data beside it " \
           "(test_data_set_0/input_<k>.pb and output_<k>.pb" in proc.stderr
