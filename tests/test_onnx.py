"""ONNX models: read with `onnx`, imported inside the build, run on QEMU, checked by ONNX Runtime.

The models are made here with onnx.helper, small enough to run in a few
seconds on QEMU.  Reading and preparing them needs only the `onnx` package;
the import needs the pinned compiler wheel; the runs need the pinned IREE
runtime source and QEMU.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import numpy as np
import pytest
from conftest import need_module, needs_qemu
from scons_helpers import scons

from ireerv.formats import ModelError, load_model, onnx_import
from ireerv.formats.imported import DEFAULT_ATOL, DEFAULT_RTOL
from ireerv.reference import onnx_runtime
from ireerv.release import release
from ireerv.run import check

onnx = need_module("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

F32 = TensorProto.FLOAT


def _weights(name: str, shape: tuple[int, ...], seed: int, scale: float = 0.3):
    values = np.random.default_rng(seed).standard_normal(shape).astype(np.float32) * scale
    return numpy_helper.from_array(values, name)


def _save(path: Path, nodes, name: str, inputs, outputs, weights, opset: int = 11) -> Path:
    graph = helper.make_graph(nodes, name, inputs, outputs, weights)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    onnx.checker.check_model(model)
    path.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(path))
    return path


def conv_net(path: Path) -> Path:
    """Conv, Relu, MaxPool, Flatten, Gemm, Softmax at opset 11, dynamic batch, quoted name."""
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("Flatten", ["p"], ["f"]),
             helper.make_node("Gemm", ["f", "g", "gb"], ["logits"]),
             helper.make_node("Softmax", ["logits"], ["y"], axis=1)]
    return _save(path, nodes, "conv-net",
                 [helper.make_tensor_value_info("x", F32, ["batch", 1, 6, 6])],
                 [helper.make_tensor_value_info("y", F32, ["batch", 10])],
                 [_weights("w", (4, 1, 3, 3), 1), _weights("b", (4,), 2),
                  _weights("g", (36, 10), 3, 0.1), _weights("gb", (10,), 4)])


def pool_net(path: Path) -> Path:
    """Depthwise Conv, AveragePool, Add (two inputs), Reshape, MatMul, Relu."""
    shape = numpy_helper.from_array(np.array([1, 8], dtype=np.int64), "shape")
    nodes = [helper.make_node("Conv", ["x", "dw"], ["d"], group=2, pads=[1, 1, 1, 1]),
             helper.make_node("AveragePool", ["d"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("Add", ["p", "bias"], ["a"]),
             helper.make_node("Reshape", ["a", "shape"], ["f"]),
             helper.make_node("MatMul", ["f", "m"], ["mm"]),
             helper.make_node("Relu", ["mm"], ["y"])]
    return _save(path, nodes, "pool_net",
                 [helper.make_tensor_value_info("x", F32, [1, 2, 4, 4]),
                  helper.make_tensor_value_info("bias", F32, [1, 2, 2, 2])],
                 [helper.make_tensor_value_info("y", F32, [1, 5])],
                 [shape, _weights("m", (8, 5), 5), _weights("dw", (2, 1, 3, 3), 7)], opset=13)


def qdq_net(path: Path) -> Path:
    """QuantizeLinear/DequantizeLinear around a MatMul; an int8 and an f32 output."""
    scale = numpy_helper.from_array(np.array(0.3, dtype=np.float32), "s")
    zero = numpy_helper.from_array(np.array(3, dtype=np.int8), "z")
    wq = np.random.default_rng(6).integers(-100, 100, (12, 6)).astype(np.int8)
    wscale = numpy_helper.from_array(np.array(0.02, dtype=np.float32), "ws")
    wzero = numpy_helper.from_array(np.array(0, dtype=np.int8), "wz")
    oscale = numpy_helper.from_array(np.array(0.5, dtype=np.float32), "os")
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["xq"]),
             helper.make_node("DequantizeLinear", ["xq", "s", "z"], ["xd"]),
             helper.make_node("DequantizeLinear", ["wq", "ws", "wz"], ["wd"]),
             helper.make_node("MatMul", ["xd", "wd"], ["mm"]),
             helper.make_node("QuantizeLinear", ["mm", "os", "z"], ["yq"]),
             helper.make_node("DequantizeLinear", ["yq", "os", "z"], ["y"])]
    return _save(path, nodes, "qdq_net",
                 [helper.make_tensor_value_info("x", F32, [2, 12])],
                 [helper.make_tensor_value_info("yq", TensorProto.INT8, [2, 6]),
                  helper.make_tensor_value_info("y", F32, [2, 6])],
                 [scale, zero, numpy_helper.from_array(wq, "wq"), wscale, wzero, oscale],
                 opset=13)


def seq_folder(folder: Path) -> Path:
    """A model folder: a named dynamic dimension sized by model.toml, a tighter tolerance."""
    nodes = [helper.make_node("Relu", ["x"], ["r"]),
             helper.make_node("Add", ["r", "x"], ["y"])]
    _save(folder / "model.onnx", nodes, "seq",
          [helper.make_tensor_value_info("x", F32, ["batch", "seq"])],
          [helper.make_tensor_value_info("y", F32, ["batch", "seq"])], [], opset=17)
    (folder / "model.toml").write_text(
        'description = "relu plus input"\ntolerance = 0.0\nrtol = 0.0\n[dims]\nseq = 7\n'
        '[[inputs]]\ngenerator = { kind = "randint", low = -9, high = 9, seed = 4 }\n')
    return folder


# -- Reading and preparing: the `onnx` package only ------------------------------------------


def test_signature_comes_from_the_file(tmp_path: Path) -> None:
    model = load_model(str(conv_net(tmp_path / "conv.onnx")))
    assert model.function == "conv_net" and model.name == "conv"  # graph "conv-net"
    assert [(s.shape, s.dtype) for s in model.inputs] == [((1, 1, 6, 6), "f32")]
    assert model.origin.outputs[0].shape == (1, 10)
    assert (model.tolerance, model.rtol) == (DEFAULT_ATOL, DEFAULT_RTOL)
    prepared = onnx_import.prepare(model.source, {})
    assert onnx_import._opset(prepared) == onnx_import.TARGET_OPSET


def test_model_folder_overrides(tmp_path: Path) -> None:
    model = load_model(str(seq_folder(tmp_path / "seq")))
    assert model.inputs[0].shape == (1, 7)
    assert model.inputs[0].generator["low"] == -9
    assert (model.tolerance, model.rtol) == (0.0, 0.0)


def test_unsized_dynamic_dimension_is_one_clear_error(tmp_path: Path) -> None:
    folder = seq_folder(tmp_path / "seq")
    (folder / "model.toml").write_text("")
    with pytest.raises(ModelError, match=r"input 'x' has a dynamic dimension 1 \(seq\); "
                                         r"give its size in model.toml \(\[dims\] seq"):
        load_model(str(folder))


def test_model_toml_typo_is_named(tmp_path: Path) -> None:
    folder = seq_folder(tmp_path / "seq")
    (folder / "model.toml").write_text("tolerence = 0.1\n")
    with pytest.raises(ModelError, match="key 'tolerence': unknown key; did you mean "
                                         "'tolerance'"):
        load_model(str(folder))


def test_unsupported_input_type_and_bad_file(tmp_path: Path) -> None:
    nodes = [helper.make_node("Identity", ["x"], ["y"])]
    path = _save(tmp_path / "u8.onnx", nodes, "u8",
                 [helper.make_tensor_value_info("x", TensorProto.UINT8, [4])],
                 [helper.make_tensor_value_info("y", TensorProto.UINT8, [4])], [])
    with pytest.raises(ModelError, match="input 'x' has element type uint8, which is not "
                                         "supported"):
        load_model(str(path))
    (tmp_path / "junk.onnx").write_bytes(b"\xff\x00not a model")
    with pytest.raises(ModelError, match="not a readable ONNX model"):
        load_model(str(tmp_path / "junk.onnx"))


def test_comparison_rule_and_worst_element() -> None:
    want = [np.array([1.0, 100.0], np.float32), np.array([5, -3], np.int8)]
    got = [np.array([1.00005, 100.09], np.float32), np.array([6, -3], np.int8)]
    rule = check.Rule(atol=1e-4, rtol=1e-3, int_step=1)
    assert check.compare(got, want, rule) == []
    assert check.worst(got, want).startswith("output 0 [1]: 100.0")
    assert "output 1 [0]: 6 vs 5, difference 1" in check.worst(got, want)
    assert check.compare(got, want, check.Rule(atol=1e-4, rtol=1e-4, int_step=1))
    assert check.compare(got, want, check.Rule(atol=1e-4, rtol=1e-3))  # int8 bit for bit


def test_onnx_runtime_reference(tmp_path: Path) -> None:
    model = load_model(str(seq_folder(tmp_path / "seq")))
    x, = model.generate_inputs(None)
    out, = onnx_runtime.compute(model.source, ["x"], [x])
    assert np.array_equal(out, np.maximum(x, 0) + x)


# -- The import: the pinned compiler wheel --------------------------------------------------


def test_import_writes_plain_func(wheel: Path, tmp_path: Path) -> None:
    model = load_model(str(conv_net(tmp_path / "conv.onnx")))
    mlir = tmp_path / "out" / "model.mlir"
    onnx_import.import_model(model.origin, wheel, mlir)
    located = mlir.read_text()
    text = re.sub(r" loc\([^)]*\)", "", located)  # the nodes' names, for the profile
    assert 'func.func @conv_net(%arg0: tensor<1x1x6x6xf32>) -> tensor<1x10xf32>' in text
    assert 'loc("x")' in located
    assert "torch." not in text
    assert sorted(p.name for p in mlir.parent.iterdir()) == \
        ["model.mlir", "model.onnx", "model.torch.mlir"]


def test_unknown_operator_is_named(wheel: Path, tmp_path: Path) -> None:
    nodes = [helper.make_node("Relu", ["x"], ["r"]),
             helper.make_node("Frobnicate", ["r"], ["y"], domain="com.example")]
    graph = helper.make_graph(nodes, "odd", [helper.make_tensor_value_info("x", F32, [2])],
                              [helper.make_tensor_value_info("y", F32, [2])])
    path = tmp_path / "odd.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                      helper.make_opsetid("com.example", 1)]),
              str(path))
    mlir = tmp_path / "out" / "model.mlir"
    with pytest.raises(onnx_import.OnnxError, match="the ONNX operator Frobnicate cannot be "
                                                    "imported"):
        onnx_import.import_model(load_model(str(path)).origin, wheel, mlir)
    assert not mlir.parent.exists() or not any(mlir.parent.iterdir())


# -- Whole runs on QEMU against ONNX Runtime -------------------------------------------------



NEEDS_INPUTS = ("iree",)  # for the `tree` fixture (conftest.py)


@pytest.mark.upstream
@needs_qemu
@pytest.mark.parametrize("make", [conv_net, pool_net, qdq_net], ids=lambda f: f.__name__)
def test_run_on_qemu_against_onnx_runtime(tree: Path, tmp_path: Path, make) -> None:
    path = make(tmp_path / f"{make.__name__}.onnx")
    out = scons(tree, "run", f"MODEL={path}", "BOARD=qemu-virt").stdout
    assert "match ONNX Runtime" in out and "PASS:" in out, out[-2000:]
    assert "worst element: output" in out
    again = scons(tree, "image", f"MODEL={path}", "BOARD=qemu-virt").stdout
    assert "IMPORT" not in again and "IREE " not in again  # a no-op rebuild does nothing


@pytest.mark.upstream
@needs_qemu
def test_model_folder_runs_bit_for_bit(tree: Path, tmp_path: Path) -> None:
    folder = seq_folder(tmp_path / "seq")
    out = scons(tree, "run", f"MODEL={folder}", "BOARD=qemu-virt").stdout
    assert "PASS: 7 output elements match ONNX Runtime (f32 bit for bit" in out, out[-2000:]


def mm_folder(folder: Path, weights: np.ndarray) -> Path:
    """A MatMul ('mm') whose weights are external data, in `weights.bin` beside the file."""
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")], "mm",
        [helper.make_tensor_value_info("x", F32, [2, 3])],
        [helper.make_tensor_value_info("y", F32, [2, 4])],
        [numpy_helper.from_array(weights, "w")])
    folder.mkdir(parents=True)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
              str(folder / "model.onnx"), save_as_external_data=True,
              all_tensors_to_one_file=True, location="weights.bin", size_threshold=0)
    return folder


def test_external_data_is_a_file_of_the_model_and_of_its_release(tmp_path: Path) -> None:
    folder = mm_folder(tmp_path / "mm", np.arange(12, dtype=np.float32).reshape(3, 4))
    weights = folder / "weights.bin"
    model = load_model(str(folder))
    assert model.data_files == (weights,)
    assert release.data_files(model.given, model.data_files) == {
        "weights.bin": hashlib.sha256(weights.read_bytes()).hexdigest()}


@pytest.mark.upstream
@needs_qemu
def test_an_edit_of_external_data_rebuilds_the_image(tree: Path, tmp_path: Path) -> None:
    folder = mm_folder(tmp_path / "mm", np.arange(12, dtype=np.float32).reshape(3, 4))
    out = scons(tree, "run", f"MODEL={folder}", "BOARD=qemu-virt").stdout
    assert "PASS: 8 output elements match ONNX Runtime" in out, out[-2000:]
    (folder / "weights.bin").write_bytes((5 - np.arange(12, dtype=np.float32)).tobytes())
    out = scons(tree, "run", f"MODEL={folder}", "BOARD=qemu-virt").stdout
    assert "IMPORT" in out and "PASS: 8 output elements match ONNX Runtime" in out, out[-2000:]


# -- MLIR as the importer writes it, given as MODEL= ------------------------------------------


def importer_mlir(wheel: Path, tmp_path: Path) -> Path:
    """The importer's own output for pool_net, with a quoted, non-C entry name."""
    model = load_model(str(pool_net(tmp_path / "pool.onnx")))
    mlir = tmp_path / "imported" / "model.mlir"
    onnx_import.import_model(model.origin, wheel, mlir)
    torch_mlir = mlir.with_suffix(".torch.mlir")
    path = tmp_path / "pool-imported.mlir"
    path.write_text(torch_mlir.read_text().replace("func.func @pool_net(",
                                                   'func.func @"pool-net"('))
    return path


def test_importer_mlir_is_read_by_the_compiler(wheel: Path, tmp_path: Path) -> None:
    path = importer_mlir(wheel, tmp_path)
    assert '@"pool-net"(%arg0: !torch.vtensor<[1,2,4,4],f32>' in path.read_text()
    model = load_model(str(path))
    assert (model.origin, model.function) == ("pool-net", "pool_net")
    assert [(s.shape, s.dtype) for s in model.inputs] == [((1, 2, 4, 4), "f32"),
                                                          ((1, 2, 2, 2), "f32")]
    broken = tmp_path / "broken.mlir"
    broken.write_text('func.func @"x"(%a: !torch.vtensor<[1,4],f32>\n')
    with pytest.raises(ModelError, match=r"broken.mlir: not valid MLIR: .*expected"):
        load_model(str(broken))


@pytest.mark.upstream
@needs_qemu
def test_importer_mlir_runs_on_qemu(wheel: Path, tree: Path, tmp_path: Path) -> None:
    path = importer_mlir(wheel, tmp_path)
    out = scons(tree, "run", f"MODEL={path}", "BOARD=qemu-virt").stdout
    assert "LOWER" in out and "PASS: 5 output elements match the host reference" in out, \
        out[-2000:]
