"""ONNX int8 models on the integer kernels: a QDQ network written by the pinned ONNX
Runtime's quantize_static read as the TFLite translator's int8 graph, run on qemu-virt
and checked against ONNX Runtime, with no soft-float call inside a convolution."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from conftest import need_module, needs_qemu
from scons_helpers import scons

onnx = need_module("onnx")
need_module("onnxruntime")
import onnx_int8_nets as nets  # noqa: E402

from ireerv.formats import (  # noqa: E402
    ModelError,
    layers,
    load_model,
    onnx_import,
    onnx_qdq,
    onnx_qdq_nodes,
    onnx_quantize,
    quantized,
)
from ireerv.formats.onnx_int8_tosa import EXTRA  # noqa: E402
from ireerv.formats.tflite_tosa import translate  # noqa: E402

DQ_OP = "DequantizeLinear"
NEEDS_INPUTS = ("iree", "flatcc", "iree-compiler")  # for the `tree` fixture (conftest.py)


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return nets.write_forms(nets.small_conv(), tmp_path_factory.mktemp("small"))


def test_qdq_network_reads_as_int8_operators(small: dict[str, Path]) -> None:
    path = small["qdq"]
    graph = onnx_qdq_nodes.read(onnx_import.prepare(path, {}), path)
    names = [op.name for op in graph.operators]
    assert names.count("CONV_2D") == 2 and names.count("DEPTHWISE_CONV_2D") == 1
    assert "FULLY_CONNECTED" in names and "ADD" in names and "GLOBAL_AVERAGE" in names
    # Each layer's output is named after its ONNX node: the profile reads those names.
    outs = {graph.tensors[op.outputs[0]].name for op in graph.operators}
    assert {"conv0", "dw", "pw", "fc"} <= outs
    text = translate(graph, "small_conv", EXTRA)
    assert "i8xi8" not in text or "tosa.conv2d" in text
    assert 'loc("conv0")' in text


@pytest.fixture(scope="module")
def operators(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The operators' network: QDQ with a ConvTranspose, QOperator without (its quantizer
    leaves a ConvTranspose in float)."""
    folder = tmp_path_factory.mktemp("operators")
    qdq = nets.write_forms(nets.operators(), folder / "with-transpose-conv")["qdq"]
    forms = nets.write_forms(nets.operators(conv_transpose=False), folder / "plain")
    return {"qdq": qdq, "qoperator": forms["qoperator"]}


def test_operators_between_qdq_pairs_read_as_int8_operators(
        operators: dict[str, Path]) -> None:
    for form, kinds in (("qdq", {"TRANSPOSE_CONV"}), ("qoperator", {"CONV_2D"})):
        path = operators[form]
        graph = onnx_qdq_nodes.read(onnx_import.prepare(path, {}), path)
        names = [op.name for op in graph.operators]
        assert {"MUL", "LOOKUP", "CONCATENATION", "TRANSPOSE"} | kinds <= set(names), form
        assert names.count("LOOKUP") == 3  # Sigmoid, LeakyRelu, a Concat input's scale
        assert "QUANTIZE" not in names[1:] and "DEQUANTIZE" not in names[:-1]
        assert "tosa.transpose_conv2d" in translate(graph, "operators", EXTRA) or \
            form == "qoperator"


def test_transposed_convolution_counts_its_macs(operators: dict[str, Path]) -> None:
    from ireerv.formats.layer_table import onnx_layers

    found = {layer.name: layer for layer in onnx_layers(operators["qdq"])}
    assert found["up"].kind == "ConvTranspose"
    assert found["up"].macs == 8 * 8 * 8 * 4 * 2 * 2  # each input value into 4 x 2x2 outputs


def test_lookup_table_is_onnx_runtimes(tmp_path: Path) -> None:
    """The Sigmoid's table gives what ONNX Runtime's QLinearSigmoid gives, all 256 inputs."""
    from onnx import TensorProto, helper, numpy_helper

    from ireerv.formats.onnx_qdq_ops import table
    from ireerv.reference import onnx_runtime

    scales = [numpy_helper.from_array(np.float32(v), n) for n, v in
              (("xs", 0.05), ("ys", 1 / 255))] + \
             [numpy_helper.from_array(np.int8(v), n) for n, v in (("xz", 3), ("yz", -128))]
    node = helper.make_node("QLinearSigmoid", ["x", "xs", "xz", "ys", "yz"], ["y"],
                            domain="com.microsoft")
    graph = helper.make_graph([node], "s", [helper.make_tensor_value_info(
        "x", TensorProto.INT8, (256,))], [helper.make_tensor_value_info(
            "y", TensorProto.INT8, (256,))], scales)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                    helper.make_opsetid("com.microsoft", 1)])
    onnx.save(model, str(tmp_path / "s.onnx"))
    x = np.arange(-128, 128, dtype=np.int8)
    want = onnx_runtime.compute(tmp_path / "s.onnx", ["x"], [x])[0]
    got = table(0.05, 3, 1 / 255, -128, lambda v: 1 / (1 + np.exp(-v)))
    assert (got == want).all()


def test_float_model_is_not_qdq(small: dict[str, Path]) -> None:
    assert not onnx_qdq.is_qdq(onnx.load(str(small["float"])))
    assert onnx_qdq.output_step(onnx.load(str(small["float"]))) is None
    assert 0 < onnx_qdq.output_step(onnx.load(str(small["qdq"]))) < 1


def test_node_outside_the_set_is_named(small: dict[str, Path], tmp_path: Path) -> None:
    model = onnx.load(str(small["qdq"]))
    for node in model.graph.node:
        if node.op_type == "GlobalAveragePool":
            node.op_type = "GlobalMaxPool"
    path = tmp_path / "model.onnx"
    onnx.save(model, str(path))
    with pytest.raises(onnx_qdq.NotInteger, match=r"node 'pool' \(GlobalMaxPool\)"):
        onnx_qdq_nodes.read(onnx_import.prepare(path, {}), path)


@pytest.mark.upstream
@needs_qemu
def test_qdq_network_runs_on_integers(tree: Path, small: dict[str, Path]) -> None:
    model = small["qdq"].parent
    out = scons(tree, "run", f"MODEL={model}", "BOARD=qemu-virt").stdout
    assert "PASS" in out, out[-3000:]
    scons(tree, "profile", f"MODEL={model}", "BOARD=qemu-virt")
    doc = json.loads((tree / "build/qemu-virt" / model.name / "profile.json").read_text())
    call = doc["phases"][-1]
    soft = {f["name"] for f in call["functions"] if f["component"] == "soft-float"}
    for stack in call["stacks"]:
        inside = [i for i, f in enumerate(stack["frames"]) if "conv_2d" in f]
        if inside:
            assert not soft & set(stack["frames"][inside[0]:]), stack
    rows = json.loads((tree / "build/qemu-virt" / model.name / "layers.json").read_text())
    named = {m["name"]: r for r in rows["rows"] for m in r["layers"]}
    assert named["conv0"]["kind"] == "Conv" and named["conv0"]["macs"] > 0


def test_quantize_setting_is_checked(small: dict[str, Path], tmp_path: Path) -> None:
    folder = tmp_path / "net"
    folder.mkdir()
    (folder / "model.onnx").write_bytes(small["float"].read_bytes())
    (folder / "model.toml").write_text('quantize = "int4"\n')
    with pytest.raises(ModelError, match="'quantize': must be \"int8\""):
        load_model(str(folder))
    (folder / "model.toml").write_text('quantize = "int8"\ncalibration = "calib"\n')
    with pytest.raises(ModelError, match="calibration folder .* does not exist"):
        load_model(str(folder))
    (folder / "calib").mkdir()
    for k, sample in enumerate(nets.samples((1, 2, 12, 12), count=3)):
        np.save(folder / "calib" / f"{k}.npy", sample)
    model = load_model(str(folder))
    assert model.origin.float_path == folder / "model.onnx"
    assert model.given == onnx_quantize.quantized_paths("net")[0]
    data = onnx_quantize.samples(model.inputs, ["x"], model.origin.calibration)
    assert len(data) == 3 and data[0]["x"].shape == (1, 2, 12, 12)


def test_default_calibration_is_sixteen_samples_of_the_generators(
        small: dict[str, Path]) -> None:
    model = quantized(load_model(str(small["float"].parent)), "int8")
    data = onnx_quantize.samples(model.inputs, ["x"], None)
    assert len(data) == onnx_quantize.SAMPLES
    assert (data[0]["x"] == model.generate_inputs(None)[0]).all()
    assert not (data[1]["x"] == data[0]["x"]).all()


def test_quantize_on_tflite_says_what_to_do(tmp_path: Path) -> None:
    from tflite_builder import Graph, save

    g = Graph()
    x = g.tensor("x", [1, 4])
    y = g.tensor("y", [1, 4])
    g.op("RELU", [x], [y])
    model = load_model(str(save(g, tmp_path / "small.tflite", [x], [y])))
    with pytest.raises(ModelError, match="TFLiteConverter"):
        quantized(model, "int8")


@pytest.mark.upstream
@needs_qemu
def test_float_model_quantized_by_the_build(tree: Path, small: dict[str, Path]) -> None:
    model = small["float"].parent
    out = scons(tree, "run", f"MODEL={model}", "BOARD=qemu-virt", "QUANTIZE=int8").stdout
    assert "PASS" in out and "QUANTIZE" in out, out[-3000:]
    assert re.search(r"against the float model over 16 calibration samples: largest "
                     r"difference [\d.e-]+, top-1 agreement \d+ of 16", out), out[-3000:]
    assert (tree / "build/qemu-virt" / f"{model.name}-int8" / "run.json").is_file()
    again = scons(tree, "image", f"MODEL={model}", "BOARD=qemu-virt", "QUANTIZE=int8").stdout
    assert "QUANTIZE " not in again and "IMPORT" not in again


def test_qoperator_network_reads_as_the_same_operators(small: dict[str, Path]) -> None:
    path = small["qoperator"]
    original = [n.op_type for n in onnx.load(str(path)).graph.node]
    assert "QLinearConv" in original and "QLinearGlobalAveragePool" in original
    graph = onnx_qdq_nodes.read(onnx_import.prepare(path, {}), path)
    names = [op.name for op in graph.operators]
    assert names.count("CONV_2D") == 2 and names.count("DEPTHWISE_CONV_2D") == 1
    assert "FULLY_CONNECTED" in names and "GLOBAL_AVERAGE" in names
    convs = {n.name for n in onnx.load(str(path)).graph.node if n.op_type == "QLinearConv"}
    assert convs <= {graph.tensors[op.outputs[0]].name for op in graph.operators}


def test_unknown_microsoft_operator_is_named(small: dict[str, Path], tmp_path: Path) -> None:
    model = onnx.load(str(small["qoperator"]))
    for node in model.graph.node:
        if node.op_type == "QLinearGlobalAveragePool":
            node.op_type, node.name = "QLinearReduceMean", "the_pool"
    path = tmp_path / "model.onnx"
    onnx.save(model, str(path))
    with pytest.raises(ModelError, match=r"node 'the_pool': the ONNX operator "
                                         r"QLinearReduceMean \(com.microsoft\) cannot be"):
        onnx_import.prepare(path, {})


def test_layer_check_names_the_convolutions(small: dict[str, Path], tmp_path: Path) -> None:
    model = load_model(str(small["qdq"].parent))
    found = layers.expose(model, tmp_path / "copy")
    nodes = {layer.node: layer.op for layer in found}
    assert nodes["conv0"] == "Conv" and nodes["fc"] == "Gemm" and nodes["pool"] != DQ_OP
    assert not any(op in ("QuantizeLinear", DQ_OP) for op in nodes.values())


@pytest.mark.upstream
@needs_qemu
def test_layer_check_passes_on_the_inline_hal(tree: Path, small: dict[str, Path]) -> None:
    """Its copy's results and transients take 1,536 bytes each: the compiler's CSE had
    merged their allocations, and 7 of conv0's values came out wrong (runtime/inline_hal)."""
    out = scons(tree, "layer-check", f"MODEL={small['qdq'].parent}", "BOARD=qemu-virt").stdout
    assert "all 8 layer outputs match" in out, out[-3000:]


@pytest.mark.upstream
@needs_qemu
def test_operators_run_on_integers(tree: Path, operators: dict[str, Path]) -> None:
    """Every layer within one step of ONNX Runtime's (layer-check), and both forms run."""
    qdq = operators["qdq"].parent
    out = scons(tree, "layer-check", f"MODEL={qdq}", "BOARD=qemu-virt").stdout
    assert "all 13 layer outputs match" in out, out[-3000:]
    for model in (qdq, operators["qoperator"].parent):
        out = scons(tree, "run", f"MODEL={model}", "BOARD=qemu-virt").stdout
        assert "PASS" in out and "note:" not in out, out[-3000:]


@pytest.mark.upstream
@needs_qemu
def test_dynamic_quantization_contracts_on_integers(tree: Path, tmp_path: Path) -> None:
    """ConvInteger and MatMulInteger (quantize_dynamic's) go to IREE's importer: their
    contractions are i8 x i8 -> i32; the run-time scales stay f32, as in ONNX Runtime."""
    (tmp_path / "dynamic").mkdir()
    model = nets.dynamic(tmp_path / "float.onnx", tmp_path / "dynamic" / "model.onnx").parent
    ops = {n.op_type for n in onnx.load(str(model / "model.onnx")).graph.node}
    assert {"ConvInteger", "MatMulInteger", "DynamicQuantizeLinear"} <= ops
    scons(tree, "profile", f"MODEL={model}", "BOARD=qemu-virt")
    doc = json.loads((tree / "build/qemu-virt/dynamic/profile.json").read_text())
    names = " ".join(f["name"] for f in doc["phases"][-1]["functions"])
    assert "reduction_4x8x8x2x3x3_i8xi8xi32" in names, names  # the ConvInteger
    assert "matvec_like_5x256_i8xi8xi32" in names, names  # the MatMulInteger
    out = scons(tree, "run", f"MODEL={model}", "BOARD=qemu-virt").stdout
    assert "PASS" in out, out[-3000:]


@pytest.mark.upstream
@needs_qemu
def test_qoperator_network_runs_on_integers(tree: Path, small: dict[str, Path]) -> None:
    model = small["qoperator"].parent
    out = scons(tree, "run", f"MODEL={model}", "BOARD=qemu-virt").stdout
    assert "PASS" in out and "note:" not in out, out[-3000:]


def test_float_tflite_written_as_onnx_gives_its_numbers(tmp_path: Path) -> None:
    from test_layer_profile import tflite_net

    from ireerv.formats import tflite_onnx
    from ireerv.reference import litert, onnx_runtime

    tflite_file = tflite_net(tmp_path / "net.tflite")
    onnx_file = tflite_onnx.write(tflite_file, tmp_path / "net.onnx", "net")
    x = np.random.default_rng(3).standard_normal((1, 6, 6, 2)).astype(np.float32)
    want = litert.compute(tflite_file, [x])[0]
    got = onnx_runtime.compute(onnx_file, ["t0"], [np.transpose(x, (0, 3, 1, 2)).copy()])[0]
    assert np.allclose(got, want, atol=1e-5)
    first = onnx_file.read_bytes()
    tflite_onnx.write(tflite_file, onnx_file, "net")  # the same bytes: the file left alone
    assert onnx_file.read_bytes() == first
