"""scons layer-check: the first layer of an ONNX model whose output differs on the device."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import need_module, needs_qemu
from scons_helpers import scons
from tflite_builder import Graph, save

onnx = need_module("onnx")
NEEDS_INPUTS = ("iree", "flatcc", "iree-compiler")  # for the `tree` fixture (conftest.py)


def three_layers(folder: Path) -> Path:
    """Add (exact in f32), Exp (the device's soft-float exp is one ulp off in places),
    Relu; checked with a zero tolerance."""
    h, f32 = onnx.helper, onnx.TensorProto.FLOAT
    nodes = [h.make_node("Add", ["x", "x"], ["doubled"], name="double"),
             h.make_node("Exp", ["doubled"], ["e"], name="the_exp"),
             h.make_node("Relu", ["e"], ["y"], name="relu")]
    graph = h.make_graph(nodes, "layers", [h.make_tensor_value_info("x", f32, [1, 16])],
                         [h.make_tensor_value_info("y", f32, [1, 16])])
    folder.mkdir(parents=True)
    onnx.save(h.make_model(graph, opset_imports=[h.make_opsetid("", 17)]),
              str(folder / "model.onnx"))
    values = [round(0.1 * i, 1) for i in range(1, 17)]
    (folder / "model.toml").write_text(
        f'tolerance = 0.0\nrtol = 0.0\n[[inputs]]\ngenerator = {{ kind = "values", '
        f'values = {values} }}\n')
    return folder


@pytest.mark.upstream
@needs_qemu
def test_the_first_differing_layer_is_named(tree: Path, tmp_path: Path) -> None:
    model = three_layers(tmp_path / "net")
    out = scons(tree, "layer-check", f"MODEL={model}", "BOARD=qemu-virt").stdout
    assert "layer check: the first layer that differs is node 'the_exp' (Exp, output 'e'): " \
           "output 0: 1 of 16 elements differ" in out, out
    assert "2 of 3 layer outputs differ" in out  # the Relu after it too; the Add not


@pytest.mark.upstream
@needs_qemu
def test_tflite_layers_are_checked_against_litert(tree: Path, tmp_path: Path) -> None:
    g = Graph()
    x, a, y = g.tensor("x", (1, 8)), g.tensor("twice", (1, 8)), g.tensor("y", (1, 8))
    g.op("ADD", [x, x], [a], activation="NONE")
    g.op("ADD", [a, a], [y], activation="NONE")
    folder = tmp_path / "two"
    folder.mkdir()
    save(g, folder / "model.tflite", [x], [y])
    out = scons(tree, "layer-check", f"MODEL={folder}", "BOARD=qemu-virt").stdout
    assert "layer check: all 2 layer outputs match" in out, out


@pytest.mark.upstream
def test_mlir_models_are_refused_plainly(tree: Path) -> None:
    proc = scons(tree, "layer-check", "MODEL=matmul", check=False)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "matmul is a mlir model; the layer check takes ONNX and TFLite models" in proc.stderr
