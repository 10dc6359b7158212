"""TFLite files read with the flatbuffer schema's generated code (the `tflite` package).

A TfliteGraph is the first subgraph as plain Python data: tensors (shape,
element type, quantisation, constant data), operators (builtin name, tensor
indices, options) and the entry's inputs and outputs.  The translator to TOSA
and the model loader both work on it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ireerv.formats.base import ModelError

# TFLite TensorType -> (our element type name, numpy dtype).
TENSOR_TYPES = {0: ("f32", np.float32), 2: ("i32", np.int32), 7: ("i16", np.int16),
                9: ("i8", np.int8), 3: ("ui8", np.uint8), 4: ("i64", np.int64)}
ACTIVATIONS = {0: "NONE", 1: "RELU", 2: "RELU_N1_TO_1", 3: "RELU6", 4: "TANH", 5: "SIGN_BIT"}
PADDINGS = {0: "SAME", 1: "VALID"}


class TfliteError(ModelError):
    """A TFLite file that cannot be read or translated."""


@dataclass(frozen=True)
class Tensor:
    name: str
    shape: tuple[int, ...]
    dtype: str  # a key of schema.ELEMENT_TYPES, or the TFLite type's number
    scale: tuple[float, ...] = ()  # empty: not quantised
    zero_point: tuple[int, ...] = ()
    axis: int = 0  # the quantised dimension of per-channel scales
    data: np.ndarray | None = field(default=None, compare=False)  # constants only

    @property
    def quantized(self) -> bool:
        return bool(self.scale)


@dataclass(frozen=True)
class Operator:
    name: str  # the builtin operator's name, e.g. CONV_2D
    inputs: tuple[int, ...]  # tensor indices, -1 for an omitted optional input
    outputs: tuple[int, ...]
    options: dict[str, Any]


@dataclass(frozen=True)
class TfliteGraph:
    path: Path
    tensors: tuple[Tensor, ...]
    operators: tuple[Operator, ...]
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]


def _schema():
    try:
        import tflite
    except ImportError:
        raise TfliteError("TFLite models need the `tflite` package: install requirements.txt "
                          "into the virtual environment (./bootstrap --setup-only)") from None
    return tflite


def _builtin_names() -> dict[int, str]:
    ops = _schema().BuiltinOperator
    return {v: k for k, v in vars(ops).items() if not k.startswith("_") and isinstance(v, int)}


# Options tables read per operator: (builtin options class, field -> accessor).
_OPTIONS = {
    "CONV_2D": ("Conv2DOptions", ("Padding", "StrideH", "StrideW", "DilationHFactor",
                                  "DilationWFactor", "FusedActivationFunction")),
    "DEPTHWISE_CONV_2D": ("DepthwiseConv2DOptions", (
        "Padding", "StrideH", "StrideW", "DilationHFactor", "DilationWFactor",
        "DepthMultiplier", "FusedActivationFunction")),
    "FULLY_CONNECTED": ("FullyConnectedOptions", ("FusedActivationFunction", "KeepNumDims",
                                                  "WeightsFormat")),
    "AVERAGE_POOL_2D": ("Pool2DOptions", ("Padding", "StrideH", "StrideW", "FilterHeight",
                                          "FilterWidth", "FusedActivationFunction")),
    "MAX_POOL_2D": ("Pool2DOptions", ("Padding", "StrideH", "StrideW", "FilterHeight",
                                      "FilterWidth", "FusedActivationFunction")),
    "ADD": ("AddOptions", ("FusedActivationFunction",)),
    "SOFTMAX": ("SoftmaxOptions", ("Beta",)),
}


def _options(op, name: str) -> dict[str, Any]:
    if name not in _OPTIONS or op.BuiltinOptions() is None:
        return {}
    cls_name, fields = _OPTIONS[name]
    table = getattr(_schema(), cls_name)()
    table.Init(op.BuiltinOptions().Bytes, op.BuiltinOptions().Pos)
    values = {f: getattr(table, f)() for f in fields}
    if "FusedActivationFunction" in values:
        values["FusedActivationFunction"] = ACTIVATIONS.get(values["FusedActivationFunction"],
                                                            "UNKNOWN")
    if "Padding" in values:
        values["Padding"] = PADDINGS.get(values["Padding"], "UNKNOWN")
    return values


def _tensor(model, t) -> Tensor:
    kind = TENSOR_TYPES.get(t.Type())
    dtype = kind[0] if kind else f"TFLite type {t.Type()}"
    shape = tuple(int(d) for d in t.ShapeAsNumpy()) if t.ShapeLength() else ()
    q = t.Quantization()
    scale: tuple[float, ...] = ()
    zero: tuple[int, ...] = ()
    axis = 0
    if q is not None and q.ScaleLength():
        scale = tuple(float(s) for s in q.ScaleAsNumpy())
        zero = tuple(int(z) for z in q.ZeroPointAsNumpy()) if q.ZeroPointLength() else \
            (0,) * len(scale)
        axis = q.QuantizedDimension()
    data = None
    buf = model.Buffers(t.Buffer())
    if buf is not None and buf.DataLength() and kind:
        data = np.frombuffer(buf.DataAsNumpy().tobytes(), dtype=kind[1]).reshape(shape)
    return Tensor(t.Name().decode(errors="replace"), shape, dtype, scale, zero, axis, data)


def read(path: Path) -> TfliteGraph:
    """The first subgraph of a .tflite file; a clear error for anything else."""
    tflite = _schema()
    try:
        raw = Path(path).read_bytes()
    except OSError as err:
        raise TfliteError(f"{path}: cannot read ({err.strerror})") from None
    if len(raw) < 8 or raw[4:8] != b"TFL3":
        raise TfliteError(f"{path}: not a TFLite file (no TFL3 flatbuffer identifier)")
    try:
        return _graph(tflite.Model.GetRootAsModel(raw, 0), Path(path))
    except TfliteError:
        raise
    except Exception as err:  # a truncated or corrupt flatbuffer: offsets out of range
        raise TfliteError(f"{path}: not a readable TFLite model ({type(err).__name__}: "
                          f"{' '.join(str(err).split())[:200]})") from None


def _graph(model, path: Path) -> TfliteGraph:
    if model.SubgraphsLength() != 1:
        raise TfliteError(f"{path}: has {model.SubgraphsLength()} subgraphs; only models "
                          "with one are supported")
    graph = model.Subgraphs(0)
    names = _builtin_names()
    tensors = tuple(_tensor(model, graph.Tensors(i)) for i in range(graph.TensorsLength()))
    operators = []
    for i in range(graph.OperatorsLength()):
        op = graph.Operators(i)
        code = model.OperatorCodes(op.OpcodeIndex())
        number = max(code.BuiltinCode(), code.DeprecatedBuiltinCode())
        name = names.get(number, f"builtin {number}")
        if name == "CUSTOM":
            name = f"CUSTOM ({(code.CustomCode() or b'').decode(errors='replace')})"
        operators.append(Operator(name, tuple(int(x) for x in op.InputsAsNumpy()),
                                  tuple(int(x) for x in op.OutputsAsNumpy()), _options(op, name)))
    inputs = tuple(int(x) for x in graph.InputsAsNumpy())
    outputs = tuple(int(x) for x in graph.OutputsAsNumpy())
    _check_indices(path, len(tensors), inputs, outputs, operators)
    for tensor in tensors:
        if any(d < 0 for d in tensor.shape):
            raise TfliteError(f"{path}: tensor {tensor.name!r} has the shape "
                              f"{list(tensor.shape)}; dimensions cannot be negative")
    return TfliteGraph(path, tensors, tuple(operators), inputs, outputs)


def _check_indices(path: Path, count: int, inputs: tuple[int, ...], outputs: tuple[int, ...],
                   operators: list[Operator]) -> None:
    """Every tensor index names a tensor of the subgraph (-1: an operator's absent input)."""
    def bad(indices, optional: bool = False) -> list[int]:
        return [i for i in indices if not (0 <= i < count or (optional and i == -1))]

    for what, indices in (("inputs", inputs), ("outputs", outputs)):
        if bad(indices):
            raise TfliteError(f"{path}: the subgraph's {what} name tensor {bad(indices)[0]}, "
                              f"but it has tensors 0 to {count - 1}")
    for op in operators:
        wrong = bad(op.inputs, optional=True) or bad(op.outputs)
        if wrong:
            raise TfliteError(f"{path}: operator {op.name} names tensor {wrong[0]}, but the "
                              f"subgraph has tensors 0 to {count - 1}")
