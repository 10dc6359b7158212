"""Each layer of an ONNX or TFLite model with its shapes and multiply-accumulates: the
model's side of the per-layer profile.  Names are the ones the importers give the layer's
MLIR locations (ONNX: the node's name; TFLite: its operator's output tensor's name), so
the dispatches iree-compile forms can be traced back to them.

MACs count the multiply-accumulates the layer defines (output elements x reduction
length), whatever the compiler does with them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from ireerv.formats.base import LayerInfo, ModelError
from ireerv.formats.tflite_reader import TfliteError, TfliteGraph, read


def _dims(shape: Sequence[int]) -> str:
    return "x".join(str(d) for d in shape) if len(shape) else "scalar"


def _shapes(inputs: Sequence[Sequence[int] | None], outputs: Sequence[Sequence[int] | None]
            ) -> str:
    def side(shapes) -> str:
        return ", ".join("?" if s is None else _dims(s) for s in shapes)
    return f"{side(inputs)} -> {side(outputs)}"


# ONNX ------------------------------------------------------------------------------------

def _onnx_macs(op: str, ins: list, out: list | None, attrs: dict) -> int:
    """MACs of one node from its input and output shapes (None: unknown)."""
    if out is None or any(s is None for s in ins[:2]):
        return 0
    if op == "Conv" and len(ins) >= 2:  # weights: (out channels, in channels / group, k...)
        return math.prod(out) * math.prod(ins[1][1:])
    if op == "ConvTranspose" and len(ins) >= 2 and ins[0]:  # weights: (in, out / group, k...)
        return math.prod(ins[0]) * math.prod(ins[1][1:])
    if op == "MatMul" and len(ins) >= 2 and ins[0]:
        return math.prod(out) * ins[0][-1]
    if op == "Gemm" and len(ins) >= 2 and len(ins[0]) == 2:
        return math.prod(out) * ins[0][0 if attrs.get("transA") else 1]
    return 0


def _pointwise(kind: str, ins: list) -> bool:
    """A convolution with a 1x1 kernel: a matrix product, told apart in the profile."""
    if kind == "Conv" and len(ins) >= 2 and ins[1] is not None:
        return len(ins[1]) > 2 and math.prod(ins[1][2:]) == 1
    return kind == "CONV_2D" and len(ins) >= 2 and tuple(ins[1][1:3]) == (1, 1)


def onnx_layers(path: Path) -> list[LayerInfo]:
    import onnx
    from onnx import shape_inference

    try:
        graph = shape_inference.infer_shapes(onnx.load(str(path))).graph
    except Exception as err:  # the importer reports a broken file; here: no table
        raise ModelError(f"{path}: cannot read its layers ({err})") from None
    known: dict[str, list[int] | None] = {}
    for vi in [*graph.input, *graph.value_info, *graph.output]:
        dims = vi.type.tensor_type.shape.dim
        known[vi.name] = (None if any(not d.HasField("dim_value") for d in dims)
                          else [d.dim_value for d in dims])
    for init in graph.initializer:
        known[init.name] = list(init.dims)
    layers = []
    for node in graph.node:
        ins = [known.get(name) for name in node.input if name]
        outs = [known.get(name) for name in node.output]
        attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
        kind = f"{node.op_type} 1x1" if _pointwise(node.op_type, ins) else node.op_type
        layers.append(LayerInfo(node.name or node.output[0], kind, _shapes(ins, outs),
                                _onnx_macs(node.op_type, ins, outs[0] if outs else None,
                                           attrs)))
    return layers


# TFLite ----------------------------------------------------------------------------------

def _tflite_macs(graph: TfliteGraph, name: str, inputs: tuple[int, ...], out: int) -> int:
    shape = graph.tensors[out].shape
    if name in ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED") and len(inputs) >= 2:
        weights = graph.tensors[inputs[1]].shape  # OHWI, 1HW(C*M), (out, in)
        per_output = {"CONV_2D": weights[1:], "DEPTHWISE_CONV_2D": weights[1:3],
                      "FULLY_CONNECTED": weights[1:]}[name]
        return math.prod(shape) * math.prod(per_output)
    if name == "BATCH_MATMUL" and graph.tensors[inputs[0]].shape:
        return math.prod(shape) * graph.tensors[inputs[0]].shape[-1]
    return 0


def tflite_layers(path: Path) -> list[LayerInfo]:
    try:
        graph = read(path)
    except TfliteError as err:
        raise ModelError(str(err)) from None
    layers = []
    for op in graph.operators:
        ins = [graph.tensors[i].shape for i in op.inputs if i >= 0]
        outs = [graph.tensors[i].shape for i in op.outputs]
        kind = f"{op.name} 1x1" if _pointwise(op.name, ins) else op.name
        layers.append(LayerInfo(graph.tensors[op.outputs[0]].name, kind, _shapes(ins, outs),
                                _tflite_macs(graph, op.name, op.inputs, op.outputs[0])))
    return layers
