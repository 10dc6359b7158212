"""Small .tflite files written with the flatbuffer schema's builders (the `tflite` package),
without TensorFlow: one subgraph, builtin operators, f32 or int8 tensors."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import flatbuffers
import numpy as np
import tflite

TYPES = {np.dtype(np.float32): 0, np.dtype(np.int32): 2, np.dtype(np.int8): 9,
         np.dtype(np.uint8): 3}
ACT = {"NONE": 0, "RELU": 1, "RELU_N1_TO_1": 2, "RELU6": 3}
PAD = {"SAME": 0, "VALID": 1}
# builtin -> (options table, BuiltinOptions union member)
OPTIONS = {"CONV_2D": "Conv2DOptions", "DEPTHWISE_CONV_2D": "DepthwiseConv2DOptions",
           "FULLY_CONNECTED": "FullyConnectedOptions", "AVERAGE_POOL_2D": "Pool2DOptions",
           "MAX_POOL_2D": "Pool2DOptions", "ADD": "AddOptions", "SOFTMAX": "SoftmaxOptions",
           "RESHAPE": "ReshapeOptions"}


@dataclass
class _Tensor:
    name: str
    shape: tuple[int, ...]
    dtype: np.dtype
    data: np.ndarray | None
    scale: list[float] | None
    zero_point: list[int] | None
    axis: int


@dataclass
class Graph:
    tensors: list[_Tensor] = field(default_factory=list)
    ops: list[tuple[str, list[int], list[int], dict[str, Any]]] = field(default_factory=list)

    def tensor(self, name: str, shape, dtype=np.float32, data=None, scale=None,
               zero_point=None, axis: int = 0) -> int:
        arr = None if data is None else np.asarray(data, dtype=dtype).reshape(shape)
        if scale is not None and not isinstance(scale, (list, tuple)):
            scale, zero_point = [scale], [zero_point or 0]
        self.tensors.append(_Tensor(name, tuple(shape), np.dtype(dtype), arr, scale,
                                    zero_point, axis))
        return len(self.tensors) - 1

    def op(self, name: str, inputs: list[int], outputs: list[int], **options: Any) -> None:
        self.ops.append((name, inputs, outputs, options))


def _vector(b: flatbuffers.Builder, start, values, kind: str) -> int:
    start(b, len(values))
    for v in reversed(values):
        getattr(b, f"Prepend{kind}")(v)
    return b.EndVector()


def _options(b: flatbuffers.Builder, name: str, o: dict[str, Any]) -> tuple[int, int]:
    table = OPTIONS.get(name)
    if table is None:
        return 0, 0
    new_shape = None
    if name == "RESHAPE" and "new_shape" in o:
        new_shape = _vector(b, tflite.ReshapeOptionsStartNewShapeVector, o["new_shape"], "Int32")
    getattr(tflite, f"{table}Start")(b)
    add = lambda field_, value: getattr(tflite, f"{table}Add{field_}")(b, value)  # noqa: E731
    if "padding" in o:
        add("Padding", PAD[o["padding"]])
    for key, field_ in (("stride", ("StrideH", "StrideW")),
                        ("filter", ("FilterHeight", "FilterWidth"))):
        if key in o:
            add(field_[0], o[key][0])
            add(field_[1], o[key][1])
    if name in ("CONV_2D", "DEPTHWISE_CONV_2D"):
        add("DilationHFactor", 1)
        add("DilationWFactor", 1)
    if "multiplier" in o:
        add("DepthMultiplier", o["multiplier"])
    if name not in ("SOFTMAX", "RESHAPE"):
        add("FusedActivationFunction", ACT[o.get("activation", "NONE")])
    if name == "SOFTMAX":
        add("Beta", o.get("beta", 1.0))
    if new_shape is not None:
        add("NewShape", new_shape)
    return getattr(tflite, f"{table}End")(b), getattr(tflite.BuiltinOptions, table)


def _tensor(b: flatbuffers.Builder, t: _Tensor, buffer: int) -> int:
    name = b.CreateString(t.name)
    shape = _vector(b, tflite.TensorStartShapeVector, list(t.shape), "Int32")
    quant = 0
    if t.scale is not None:
        scale = _vector(b, tflite.QuantizationParametersStartScaleVector, t.scale, "Float32")
        zero = _vector(b, tflite.QuantizationParametersStartZeroPointVector, t.zero_point,
                       "Int64")
        tflite.QuantizationParametersStart(b)
        tflite.QuantizationParametersAddScale(b, scale)
        tflite.QuantizationParametersAddZeroPoint(b, zero)
        tflite.QuantizationParametersAddQuantizedDimension(b, t.axis)
        quant = tflite.QuantizationParametersEnd(b)
    tflite.TensorStart(b)
    tflite.TensorAddShape(b, shape)
    tflite.TensorAddType(b, TYPES[t.dtype])
    tflite.TensorAddBuffer(b, buffer)
    tflite.TensorAddName(b, name)
    if quant:
        tflite.TensorAddQuantization(b, quant)
    return tflite.TensorEnd(b)


def _operator(b: flatbuffers.Builder, opcode: int, op) -> int:
    name, inputs, outputs, options = op
    ins = _vector(b, tflite.OperatorStartInputsVector, inputs, "Int32")
    outs = _vector(b, tflite.OperatorStartOutputsVector, outputs, "Int32")
    table, kind = _options(b, name, options)
    tflite.OperatorStart(b)
    tflite.OperatorAddOpcodeIndex(b, opcode)
    tflite.OperatorAddInputs(b, ins)
    tflite.OperatorAddOutputs(b, outs)
    if table:
        tflite.OperatorAddBuiltinOptionsType(b, kind)
        tflite.OperatorAddBuiltinOptions(b, table)
    return tflite.OperatorEnd(b)


def _buffers(b: flatbuffers.Builder, graph: Graph) -> list[int]:
    offsets = []
    for t in [None, *graph.tensors]:  # buffer 0: the empty one, by convention
        data = None if t is None or t.data is None else t.data.astype(t.dtype).tobytes()
        vec = b.CreateByteVector(data) if data else 0
        tflite.BufferStart(b)
        if vec:
            tflite.BufferAddData(b, vec)
        offsets.append(tflite.BufferEnd(b))
    return offsets


def save(graph: Graph, path: Path, inputs: list[int], outputs: list[int]) -> Path:
    """Write `graph` as a .tflite file whose entry reads `inputs` and returns `outputs`."""
    b = flatbuffers.Builder(1024)
    names = sorted({op[0] for op in graph.ops})
    codes = []
    for name in names:
        number = getattr(tflite.BuiltinOperator, name)
        tflite.OperatorCodeStart(b)
        tflite.OperatorCodeAddBuiltinCode(b, number)
        tflite.OperatorCodeAddDeprecatedBuiltinCode(b, min(number, 127))
        tflite.OperatorCodeAddVersion(b, 1)
        codes.append(tflite.OperatorCodeEnd(b))
    tensors = [_tensor(b, t, i + 1 if t.data is not None else 0)
               for i, t in enumerate(graph.tensors)]
    ops = [_operator(b, names.index(op[0]), op) for op in graph.ops]
    t_vec = _vector(b, tflite.SubGraphStartTensorsVector, tensors, "UOffsetTRelative")
    o_vec = _vector(b, tflite.SubGraphStartOperatorsVector, ops, "UOffsetTRelative")
    i_vec = _vector(b, tflite.SubGraphStartInputsVector, inputs, "Int32")
    out_vec = _vector(b, tflite.SubGraphStartOutputsVector, outputs, "Int32")
    tflite.SubGraphStart(b)
    tflite.SubGraphAddTensors(b, t_vec)
    tflite.SubGraphAddOperators(b, o_vec)
    tflite.SubGraphAddInputs(b, i_vec)
    tflite.SubGraphAddOutputs(b, out_vec)
    subgraph = tflite.SubGraphEnd(b)
    buffers = _buffers(b, graph)
    sub_vec = _vector(b, tflite.ModelStartSubgraphsVector, [subgraph], "UOffsetTRelative")
    code_vec = _vector(b, tflite.ModelStartOperatorCodesVector, codes, "UOffsetTRelative")
    buf_vec = _vector(b, tflite.ModelStartBuffersVector, buffers, "UOffsetTRelative")
    tflite.ModelStart(b)
    tflite.ModelAddVersion(b, 3)
    tflite.ModelAddOperatorCodes(b, code_vec)
    tflite.ModelAddSubgraphs(b, sub_vec)
    tflite.ModelAddBuffers(b, buf_vec)
    b.Finish(tflite.ModelEnd(b), file_identifier=b"TFL3")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(bytes(b.Output()))
    return path
