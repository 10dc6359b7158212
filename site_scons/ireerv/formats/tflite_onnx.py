"""A float TFLite network written as ONNX (opset 17, NCHW), for an ONNX model folder
whose model.toml names a TFLite file instead of holding model.onnx:

    [onnx]
    tflite = { input = "mlperf-tiny", path = "benchmark/.../kws_ref_model_float32.tflite" }

Weights TFLite keeps in int8 (weight-only quantisation) are dequantised to f32: the
ONNX model is the float network, as an exporter would give it (with `quantize =
"int8"` the build then quantizes it like any float ONNX model).  The operators of
MLPerf Tiny's float networks: CONV_2D, DEPTHWISE_CONV_2D, AVERAGE_POOL_2D,
MAX_POOL_2D, ADD, RESHAPE, FULLY_CONNECTED, SOFTMAX; another stops with its name.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ireerv.formats.tflite_reader import Operator, Tensor, TfliteError, TfliteGraph

OPSET = 17
_ACTIVATIONS = {"NONE": None, "RELU": (0.0, None), "RELU6": (0.0, 6.0)}


def _real(t: Tensor) -> np.ndarray:
    """A constant's values in f32 (int8 weights dequantised along their axis)."""
    if not t.quantized or t.dtype == "f32":
        return t.data.astype(np.float32)
    shape = [1] * len(t.shape)
    shape[t.axis] = len(t.scale)
    scale = np.asarray(t.scale, np.float64).reshape(shape if len(t.scale) > 1 else [1])
    zero = np.asarray(t.zero_point, np.float64).reshape(scale.shape)
    return ((t.data.astype(np.float64) - zero) * scale).astype(np.float32)


def _pads(size: int, k: int, s: int, padding: str) -> tuple[int, int]:
    if padding != "SAME":
        return 0, 0
    total = max((-(-size // s) - 1) * s + k - size, 0)
    return total // 2, total - total // 2


def _nchw(shape: tuple[int, ...]) -> list[int]:
    return [shape[0], shape[3], shape[1], shape[2]] if len(shape) == 4 else list(shape)


class _Writer:
    def __init__(self, graph: TfliteGraph) -> None:
        self.graph, self.nodes, self.inits = graph, [], []
        self.names = {i: f"t{i}" for i in range(len(graph.tensors))}

    def const(self, name: str, values: np.ndarray) -> str:
        from onnx import numpy_helper

        self.inits.append(numpy_helper.from_array(values, name))
        return name

    def node(self, op: str, inputs: list[str], output: str, name: str, **attrs) -> str:
        from onnx import helper

        self.nodes.append(helper.make_node(op, inputs, [output], name=name, **attrs))
        return output

    def activation(self, op: Operator, value: str, out: int, name: str) -> None:
        act = op.options.get("FusedActivationFunction", "NONE")
        if act not in _ACTIVATIONS:
            raise TfliteError(f"{self.graph.path}: {op.name} with activation {act}")
        bounds = _ACTIVATIONS[act]
        if bounds is None:  # the operator's own result is the tensor
            self.nodes[-1].output[0] = self.names[out]
        elif bounds[1] is None:
            self.node("Relu", [value], self.names[out], f"{name}_relu")
        else:
            low = self.const(f"{name}_low", np.float32(bounds[0]))
            high = self.const(f"{name}_high", np.float32(bounds[1]))
            self.node("Clip", [value, low, high], self.names[out], f"{name}_clip")

    def conv(self, op: Operator, index: int) -> None:
        g, o = self.graph, op.options
        x, w = g.tensors[op.inputs[0]], g.tensors[op.inputs[1]]
        weights = _real(w)
        if op.name == "DEPTHWISE_CONV_2D":  # [1, KH, KW, C*M] -> [C*M, 1, KH, KW]
            weights, group = np.transpose(weights, (3, 0, 1, 2)), x.shape[3]
        else:  # [O, KH, KW, I] -> [O, I, KH, KW]
            weights, group = np.transpose(weights, (0, 3, 1, 2)), 1
        kh, kw = weights.shape[2:]
        dh, dw = o.get("DilationHFactor", 1), o.get("DilationWFactor", 1)
        top, bottom = _pads(x.shape[1], (kh - 1) * dh + 1, o["StrideH"], o["Padding"])
        left, right = _pads(x.shape[2], (kw - 1) * dw + 1, o["StrideW"], o["Padding"])
        name = f"conv{index}" if group == 1 else f"dwconv{index}"
        inputs = [self.names[op.inputs[0]], self.const(f"{name}_w", np.ascontiguousarray(weights))]
        if len(op.inputs) > 2 and op.inputs[2] >= 0:
            inputs.append(self.const(f"{name}_b", _real(g.tensors[op.inputs[2]])))
        y = self.node("Conv", inputs, f"{name}_y", name, group=group,
                      kernel_shape=[kh, kw], strides=[o["StrideH"], o["StrideW"]],
                      dilations=[dh, dw], pads=[top, left, bottom, right])
        self.activation(op, y, op.outputs[0], name)

    def pool(self, op: Operator, index: int) -> None:
        o, x = op.options, self.graph.tensors[op.inputs[0]]
        kh, kw, name = o["FilterHeight"], o["FilterWidth"], f"pool{index}"
        if op.name == "AVERAGE_POOL_2D" and (kh, kw) == x.shape[1:3] and o["Padding"] == "VALID":
            y = self.node("GlobalAveragePool", [self.names[op.inputs[0]]], f"{name}_y", name)
        else:
            top, bottom = _pads(x.shape[1], kh, o["StrideH"], o["Padding"])
            left, right = _pads(x.shape[2], kw, o["StrideW"], o["Padding"])
            kind = "MaxPool" if op.name == "MAX_POOL_2D" else "AveragePool"
            y = self.node(kind, [self.names[op.inputs[0]]], f"{name}_y", name,
                          kernel_shape=[kh, kw], strides=[o["StrideH"], o["StrideW"]],
                          pads=[top, left, bottom, right])
        self.activation(op, y, op.outputs[0], name)

    def reshape(self, op: Operator, index: int) -> None:
        x, out = self.graph.tensors[op.inputs[0]], self.graph.tensors[op.outputs[0]]
        value, name = self.names[op.inputs[0]], f"reshape{index}"
        if len(x.shape) == 4 and x.shape[1:3] == (1, 1) and len(out.shape) == 2:
            self.node("Flatten", [value], self.names[op.outputs[0]], name)
            return
        if len(x.shape) == 4:  # back to TFLite's order before its reshape
            value = self.node("Transpose", [value], f"{name}_nhwc", f"{name}_t", perm=[0, 2, 3, 1])
        shape = self.const(f"{name}_shape", np.array(out.shape, np.int64))
        self.node("Reshape", [value, shape], self.names[op.outputs[0]], name)

    def dense(self, op: Operator, index: int) -> None:
        g, name = self.graph, f"dense{index}"
        inputs = [self.names[op.inputs[0]], self.const(f"{name}_w", _real(g.tensors[op.inputs[1]]))]
        if len(op.inputs) > 2 and op.inputs[2] >= 0:
            inputs.append(self.const(f"{name}_b", _real(g.tensors[op.inputs[2]])))
        y = self.node("Gemm", inputs, f"{name}_y", name, transB=1)
        self.activation(op, y, op.outputs[0], name)

    def other(self, op: Operator, index: int) -> None:
        if op.name == "SOFTMAX" and op.options.get("Beta", 1.0) == 1.0:
            self.node("Softmax", [self.names[op.inputs[0]]], self.names[op.outputs[0]],
                      f"softmax{index}", axis=-1)
        elif op.name == "ADD":
            y = self.node("Add", [self.names[i] for i in op.inputs[:2]], f"add{index}_y",
                          f"add{index}")
            self.activation(op, y, op.outputs[0], f"add{index}")
        else:
            raise TfliteError(f"{self.graph.path}: {op.name} cannot be written as ONNX")


def to_onnx(graph: TfliteGraph, name: str):
    """The ONNX model (an onnx.ModelProto) of a float TFLite graph."""
    from onnx import TensorProto, helper

    writer = _Writer(graph)
    ways = {"CONV_2D": writer.conv, "DEPTHWISE_CONV_2D": writer.conv,
            "AVERAGE_POOL_2D": writer.pool, "MAX_POOL_2D": writer.pool,
            "RESHAPE": writer.reshape, "FULLY_CONNECTED": writer.dense}
    for index, op in enumerate(graph.operators):
        ways.get(op.name, writer.other)(op, index)

    def info(i: int, label: str):
        t = graph.tensors[i]
        if t.dtype != "f32" or t.quantized:
            raise TfliteError(f"{graph.path}: {label} {t.name!r} is not f32: a float network "
                              "is written as ONNX, an int8 one runs as TFLite")
        return helper.make_tensor_value_info(writer.names[i], TensorProto.FLOAT, _nchw(t.shape))

    inputs = [info(i, "input") for i in graph.inputs]
    outputs = [info(i, "output") for i in graph.outputs]
    model = helper.make_model(helper.make_graph(writer.nodes, name, inputs, outputs,
                                                writer.inits),
                              opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 8
    model.producer_name = "ireerv tflite_onnx"
    return model


def write(tflite_file: Path, out: Path, name: str) -> Path:
    """The ONNX file of a float TFLite file; rewritten only when its bytes change (a
    model read again leaves the file, and what was built from it, alone)."""
    from ireerv.formats.tflite_reader import read

    data = to_onnx(read(tflite_file), name).SerializeToString(deterministic=True)
    if not out.is_file() or out.read_bytes() != data:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_name(out.name + ".tmp")
        tmp.write_bytes(data)
        tmp.replace(out)
    return out
