"""The per-layer profile: dispatches traced back to the model's layers through IREE's
locations, with each layer's multiply-accumulates counted from the model itself."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from conftest import need_module, needs_qemu
from scons_helpers import scons
from tflite_builder import Graph, save

from ireerv.formats.base import LayerInfo
from ireerv.harts import dispatch_names
from ireerv.profile import dispatch_map, layers, layers_plot

onnx = need_module("onnx")
NEEDS_INPUTS = ("iree", "flatcc", "iree-compiler")  # for the `tree` fixture (conftest.py)

FLOW = '''module {
  stream.executable private @board_kernels {
    stream.executable.export public @conv_s8 workgroups(%arg0: index loc("spec.mlir":3:4)) {
    } loc("spec.mlir":2:3)
  } loc("spec.mlir":1:2)
  flow.executable private @main_dispatch_0 {
    flow.executable.export public @main_dispatch_0_conv_4x4x8x3x3_f32 workgroups() {
    } loc("stem")
    builtin.module {
      func.func @main_dispatch_0_conv_4x4x8x3x3_f32() {
        %cst = arith.constant 0.0 : f32 loc("earlier")
        %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<8xf32>) -> tensor<8xf32> loc("x")
        %2 = linalg.conv_2d_nhwc_hwcf ins(%a, %b) outs(%1) -> tensor<8xf32> \
loc(fused["stem", callsite("model.mlir":3:4 at "model.mlir":1:2)])
        %3 = linalg.generic {indexing_maps = []} ins(%2) outs(%1) {
        ^bb0(%in: f32 loc("stem"), %out: f32 loc("x")):
          %4 = arith.maximumf %in, %cst : f32 loc(callsite("act \\"1\\"" at "model.mlir":1:2))
          linalg.yield %4 : f32 loc("act \\"1\\"")
        } -> tensor<8xf32> loc(fused["act \\"1\\"", "stem"])
        return loc(unknown)
      }
    }
  } loc("stem")
  flow.executable private @main_dispatch_1 {
    flow.executable.export public @main_dispatch_1_matvec_like_3x64_f32 workgroups() {
    }
    %0 = linalg.matvec ins(%a, %b) outs(%c) -> tensor<3xf32> loc("head")
  }
  util.func public @main() {
    %5 = flow.dispatch @main_dispatch_1::@main_dispatch_1_matvec_like_3x64_f32(%0) : \
(tensor<64xf32>) -> tensor<3xf32> loc(callsite("head" at "model.mlir":5:6))
    %6 = flow.dispatch @main_dispatch_1::@main_dispatch_1_matvec_like_3x64_f32(%5) : \
(tensor<64xf32>) -> tensor<3xf32> loc(callsite("head2" at "model.mlir":7:8))
    %7 = flow.dispatch @board_kernels::@conv_s8[%c8](%6) : (tensor<3xf32>) -> tensor<8xi32> \
loc(callsite("spec.mlir":9:10 at callsite("body" at "model.mlir":9:1)))
    %8 = flow.dispatch @board_kernels::@conv_s8[%c8](%7) : (tensor<8xi32>) -> tensor<8xi32> \
loc(callsite("spec.mlir":9:10 at callsite("tail" at "model.mlir":9:2)))
  }
}
'''


def test_dispatches_name_the_layers_they_compute() -> None:
    found = dispatch_map.dispatch_layers(FLOW)
    # Constants, fills and block arguments carry other layers' locations: not counted.
    # One executable for two identical layers: the second one's call site names it.
    # A board's kernel holds no layer's ops: its call sites name its layers.
    assert found == {"main_dispatch_0_conv_4x4x8x3x3_f32": ["stem", 'act "1"'],
                     "main_dispatch_1_matvec_like_3x64_f32": ["head", "head2"],
                     "conv_s8": ["body", "tail"]}


def _profile(costs: dict[str, int], total: int) -> dict:
    functions = [{"name": n, "inclusive": c} for n, c in costs.items()]
    return {"model": "net", "board": "qemu-virt", "unit": "instructions",
            "phases": [{"name": "call 1", "total": total, "functions": functions}]}


def test_rows_count_macs_once_and_add_up() -> None:
    table = [LayerInfo("stem", "Conv", "1x6x6x2 -> 1x4x4x8", 2304),
             LayerInfo('act "1"', "Relu", "1x4x4x8 -> 1x4x4x8", 0),
             LayerInfo("head", "Gemm", "1x128 -> 1x3", 384),
             LayerInfo("lost", "MatMul", "1x4 -> 1x4", 16)]
    mapping = {"d0_slow_memcpy": ["stem"], "d1_conv_x": ["stem", 'act "1"'],
               "d2_matvec_like_x": ["head"]}
    doc = layers.document(_profile({"d1_conv_x": 9216, "d2_matvec_like_x": 1152,
                                    "other": 100}, 10468), "call 1", mapping, table)
    rows = {r["dispatch"]: r for r in doc["rows"]}
    assert "d0_slow_memcpy" not in rows  # never ran and computes nothing
    assert rows["d1_conv_x"]["macs"] == 2304 and rows["d1_conv_x"]["per_mac"] == 4.0
    assert [m["name"] for m in rows["d1_conv_x"]["layers"]] == ["stem", 'act "1"']
    assert rows["d1_conv_x"]["kind"] == "Conv"
    assert rows[layers.OUTSIDE]["cost"] == 100
    assert sum(r["cost"] for r in doc["rows"]) == doc["total"]
    assert doc["macs"] == 2704 and doc["unplaced"] == ["lost"]
    assert {k["kind"]: k["per_mac"] for k in doc["kinds"]} == {"Conv": 4.0, "Gemm": 3.0}
    text = layers.format_text(doc)
    assert "stem +1" in text and "10,468" in text and "lost" in text
    assert layers_plot.render_svg(doc).startswith("<svg")


def test_a_dispatchs_wall_cost_stands_for_its_kernels_share() -> None:
    """With several harts the profile has each dispatch's wall cost (analyze.DISPATCH):
    that, not the kernel's inclusive cost on hart 0, is the layer's."""
    table = [LayerInfo("stem", "Conv", "1x6x6x2 -> 1x4x4x8", 2304)]
    profile = _profile({"d1_conv_x": 4000, "other": 6000}, 10000)
    profile["phases"][0]["dispatches"] = {"d1_conv_x": 9216}
    doc = layers.document(profile, "call 1", {"d1_conv_x": ["stem"]}, table)
    rows = {r["dispatch"]: r for r in doc["rows"]}
    assert rows["d1_conv_x"]["cost"] == 9216 and rows["d1_conv_x"]["per_mac"] == 4.0
    assert rows[layers.OUTSIDE]["cost"] == 784


def test_a_layer_split_into_channel_groups_shares_its_macs() -> None:
    # Output channels in two groups (48 and 16), then a residual add fused into the
    # next layer's dispatch, which so carries the grouped layer's location too.
    table = [LayerInfo("wide", "CONV_2D", "1x4x4x8 -> 1x4x4x64", 8192),
             LayerInfo("next", "CONV_2D 1x1", "1x4x4x64 -> 1x4x4x64", 65536)]
    mapping = {"d0_conv_2d_nhwc_hwcf_1x4x4x48x1x1x8_i8": ["wide"],
               "d1_conv_2d_nhwc_hwcf_1x4x4x16x1x1x8_i8": ["wide"],
               "d2_conv_2d_nhwc_hwcf_1x4x4x64x1x1x64_i8": ["wide", "next"]}
    costs = {"d0_conv_2d_nhwc_hwcf_1x4x4x48x1x1x8_i8": 24576,
             "d1_conv_2d_nhwc_hwcf_1x4x4x16x1x1x8_i8": 8192,
             "d2_conv_2d_nhwc_hwcf_1x4x4x64x1x1x64_i8": 262144}
    doc = layers.document(_profile(costs, 294912), "call 1", mapping, table)
    macs = [(r["computes"], r["macs"], r["per_mac"]) for r in doc["rows"][:3]]
    assert macs == [(["wide"], 6144, 4.0), (["wide"], 2048, 4.0), (["next"], 65536, 4.0)]
    text = layers.format_text(doc)
    assert "  next +1 " in text and "1x4x4x64 -> 1x4x4x64" in text


def test_a_dispatch_name_gives_its_contraction_macs() -> None:
    """The loop bounds IREE writes into a contraction's name are its MACs; other
    dispatches (an elementwise add, a name without bounds) have none."""
    assert dispatch_names.dispatch_macs("main_dispatch_3_conv_2d_nhwc_hwcf_1x4x4x16x1x1x8_i8") \
        == 4 * 4 * 16 * 8
    assert dispatch_names.dispatch_macs("m_dispatch_0_matmul_like_125x64x64_i8xi8xi32") \
        == 125 * 64 * 64
    assert dispatch_names.dispatch_macs("m_dispatch_1_elementwise_25x5x64_i8") == 0
    assert dispatch_names.dispatch_macs("m_dispatch_2_matmul") == 0


def onnx_net(folder: Path) -> Path:
    """Conv (3x3, pads 1) -> Relu -> Flatten -> Gemm, every node named."""
    h, f32 = onnx.helper, onnx.TensorProto.FLOAT
    rng = np.random.default_rng(3)
    weights = [h.make_tensor("w", f32, [4, 2, 3, 3], rng.standard_normal(72).tolist()),
               h.make_tensor("fc", f32, [64, 3], rng.standard_normal(192).tolist())]
    nodes = [h.make_node("Conv", ["x", "w"], ["c"], name="stem_conv", pads=[1, 1, 1, 1]),
             h.make_node("Relu", ["c"], ["r"], name="stem_relu"),
             h.make_node("Flatten", ["r"], ["f"], name="flatten"),
             h.make_node("Gemm", ["f", "fc"], ["y"], name="classifier")]
    graph = h.make_graph(nodes, "net", [h.make_tensor_value_info("x", f32, [1, 2, 4, 4])],
                         [h.make_tensor_value_info("y", f32, [1, 3])], weights)
    folder.mkdir(parents=True)
    onnx.save(h.make_model(graph, opset_imports=[h.make_opsetid("", 17)]),
              str(folder / "model.onnx"))
    return folder


def tflite_net(path: Path) -> Path:
    """CONV_2D -> DEPTHWISE_CONV_2D -> RESHAPE -> FULLY_CONNECTED, f32."""
    rng = np.random.default_rng(4)
    g = Graph()
    x = g.tensor("x", (1, 6, 6, 2))
    w = g.tensor("w", (4, 3, 3, 2), data=rng.standard_normal(72) * 0.3)
    c = g.tensor("conv_out", (1, 4, 4, 4))
    g.op("CONV_2D", [x, w, g.tensor("b", (4,), data=np.zeros(4))], [c], padding="VALID",
         stride=(1, 1), activation="RELU")
    dw = g.tensor("dw", (1, 3, 3, 4), data=rng.standard_normal(36) * 0.3)
    d = g.tensor("depthwise_out", (1, 4, 4, 4))
    g.op("DEPTHWISE_CONV_2D", [c, dw, g.tensor("db", (4,), data=np.zeros(4))], [d],
         padding="SAME", stride=(1, 1), multiplier=1, activation="NONE")
    flat = g.tensor("flat", (1, 64))
    g.op("RESHAPE", [d, g.tensor("shape", (2,), np.int32, [1, 64])], [flat],
         new_shape=[1, 64])
    y = g.tensor("dense_out", (1, 3))
    g.op("FULLY_CONNECTED", [flat, g.tensor("fw", (3, 64), data=rng.standard_normal(192))],
         [y])
    return save(g, path, [x], [y])


def _rows(tree: Path, model: Path, build: str) -> dict[str, dict]:
    out = scons(tree, "profile", f"MODEL={model}", "BOARD=qemu-virt").stdout
    assert "layers: " in out, out[-3000:]
    doc = json.loads((tree / "build/qemu-virt" / build / "layers.json").read_text())
    assert doc["schema"] == layers.SCHEMA
    assert sum(r["cost"] for r in doc["rows"]) == doc["total"]
    return {m["name"]: r for r in doc["rows"] for m in r["layers"]}


@pytest.mark.upstream
@needs_qemu
def test_onnx_layers_by_node_name(tree: Path, tmp_path: Path) -> None:
    rows = _rows(tree, onnx_net(tmp_path / "named"), "named")
    # Conv: 4 x 4 x 4 outputs, 2 x 3 x 3 each; Gemm: 3 outputs of 64.
    assert rows["stem_conv"]["macs"] == 4 * 4 * 4 * 2 * 3 * 3
    assert rows["stem_conv"]["kind"] == "Conv" and rows["stem_conv"]["cost"] > 0
    assert rows["stem_relu"] is rows["stem_conv"]  # fused into the conv's dispatch
    assert rows["classifier"]["macs"] == 3 * 64 and rows["classifier"]["kind"] == "Gemm"


@pytest.mark.upstream
@needs_qemu
def test_tflite_layers_by_output_tensor(tree: Path, tmp_path: Path) -> None:
    rows = _rows(tree, tflite_net(tmp_path / "small.tflite"), "small")
    assert rows["conv_out"]["macs"] == 4 * 4 * 4 * 3 * 3 * 2
    assert rows["depthwise_out"]["macs"] == 4 * 4 * 4 * 3 * 3
    assert rows["depthwise_out"]["kind"] == "DEPTHWISE_CONV_2D"
    assert rows["dense_out"]["macs"] == 3 * 64
