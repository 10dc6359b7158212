"""QDQ ONNX models read as the TFLite translator's graph, so that they run on the same
integer kernels as TFLite's int8 models (tflite_tosa.py).

A DequantizeLinear -> {Conv, ConvTranspose, Gemm, MatMul} -> [Relu | Clip] ->
QuantizeLinear chain becomes one int8 operator (CONV_2D, DEPTHWISE_CONV_2D,
TRANSPOSE_CONV or FULLY_CONNECTED) whose input, weights, int32 bias and output carry
the Q/DQ nodes' scales and zero points; the pooling, Add, Mul, Concat, the reshapes,
Transpose, Sigmoid, LeakyRelu and Softmax between Q/DQ pairs become int8 operators.
uint8 tensors are read as int8 with 128 taken off their values and zero points (the
same real numbers).  Activations are NHWC inside (transposes where ONNX's NCHW meets an
operator that cares); each operator's output tensor is named after its ONNX node, which
the per-layer profile reads.  The requantisation is TFLite's (an integer multiplier);
ONNX Runtime's uses a float one: within one integer step of it.

onnx_qdq_nodes.py translates the nodes.  A node outside this set raises NotInteger,
naming it; the model then takes IREE's
importer as a float model does (onnx_import.py).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np

from ireerv.formats.base import ModelError
from ireerv.formats.tflite_reader import Operator, Tensor

Q, DQ = "QuantizeLinear", "DequantizeLinear"
ACTIVATIONS = ("Relu", "Clip")
TO_NHWC, TO_NCHW = (0, 2, 3, 1), (0, 3, 1, 2)


class NotInteger(ModelError):
    """A QDQ model that the integer route does not take (the node is named)."""


def is_qdq(model) -> bool:
    """Whether a model carries Q/DQ nodes (a QDQ-quantized one)."""
    return any(node.op_type in (Q, DQ) for node in model.graph.node)


def _int8(values: np.ndarray) -> np.ndarray:
    """int8 or uint8 numbers as int8 (uint8 less 128: the same real values)."""
    if values.dtype == np.uint8:
        return (values.astype(np.int16) - 128).astype(np.int8)
    if values.dtype != np.int8:
        raise TypeError(f"element type {values.dtype}")
    return values


class Reader:
    """One pass over the (prepared) model's nodes, in order, writing the graph."""

    def __init__(self, model, path: Path) -> None:
        from onnx import numpy_helper

        self.path = path
        graph = model.graph
        self.consts = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
        for node in graph.node:
            if node.op_type == "Constant":
                self.consts[node.output[0]] = numpy_helper.to_array(node.attribute[0].t)
        self.shapes = {vi.name: tuple(d.dim_value for d in vi.type.tensor_type.shape.dim)
                       for vi in [*graph.input, *graph.value_info, *graph.output]}
        self.consumers: dict[str, list] = defaultdict(list)
        for node in graph.node:
            for name in node.input:
                self.consumers[name].append(node)
        self.outputs = [vi.name for vi in graph.output]
        self.tensors: list[Tensor] = []
        self.ops: list[Operator] = []
        self.acts: dict[str, tuple[int, bool]] = {}  # int8 tensors: (index, is NHWC)
        self.floats: dict[str, int] = {}
        self.weights: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray, int]] = {}
        self.fused: set[str] = set()  # outputs taken by the operator before them

    # tensors ------------------------------------------------------------------------------

    def add(self, tensor: Tensor) -> int:
        self.tensors.append(tensor)
        return len(self.tensors) - 1

    def op(self, name: str, inputs: list[int], outputs: list[int], **options) -> None:
        self.ops.append(Operator(name, tuple(inputs), tuple(outputs), options))

    def qparams(self, node) -> tuple[np.ndarray, np.ndarray, int]:
        """A Q/DQ node's scales, zero points (int8) and axis."""
        scale = np.atleast_1d(self.consts[node.input[1]]).astype(np.float64)
        if len(node.input) > 2 and node.input[2]:
            zero = np.atleast_1d(self.consts[node.input[2]])
        else:
            zero = np.zeros(scale.shape, np.uint8)
        axis = next((a.i for a in node.attribute if a.name == "axis"), 1)
        return scale, zero, axis

    def act_tensor(self, name: str, shape: tuple[int, ...], qnode) -> Tensor:
        scale, zero, _ = self.qparams(qnode)
        if len(scale) != 1:
            raise NotInteger(f"{self.path}: {qnode.name!r}: a per-channel activation")
        zero8 = int(_int8(zero.astype(zero.dtype))[0])
        return Tensor(name, shape, "i8", (float(scale[0]),), (zero8,))

    def nhwc(self, name: str) -> int:
        """An int8 activation in NHWC (transposed once if it is NCHW)."""
        index, is_nhwc = self.acts[name]
        if is_nhwc or len(self.tensors[index].shape) != 4:
            return index
        moved = self.permute(index, TO_NHWC)
        self.acts[name] = (moved, True)
        return moved

    def plain(self, name: str) -> int:
        """An int8 activation in ONNX's own layout."""
        index, is_nhwc = self.acts[name]
        return self.permute(index, TO_NCHW) if is_nhwc else index

    def permute(self, index: int, perm: tuple[int, ...]) -> int:
        t = self.tensors[index]
        shape = tuple(t.shape[p] for p in perm)
        out = self.add(Tensor(t.name + "_t", shape, t.dtype, t.scale, t.zero_point))
        # Moving only dimensions of size 1 keeps the order of the bytes: a reshape.
        kept = [p for p in perm if t.shape[p] != 1]
        if kept == sorted(kept):
            self.op("RESHAPE", [index], [out])
        else:
            self.op("TRANSPOSE", [index], [out], Perm=perm)
        return out

    # chains -------------------------------------------------------------------------------

    def output_q(self, node) -> tuple[object, tuple[float, float] | None]:
        """The QuantizeLinear a compute node's result goes to, through an activation if
        one sits between them, and that activation's real bounds."""
        name, bounds = node.output[0], None
        users = self.consumers[name]
        if len(users) == 1 and users[0].op_type in ACTIVATIONS:
            bounds = self.activation_bounds(users[0])
            self.fused.add(users[0].name)
            name, users = users[0].output[0], self.consumers[users[0].output[0]]
        if len(users) != 1 or users[0].op_type != Q or name in self.outputs:
            raise NotInteger(f"{self.path}: node {node.name!r} ({node.op_type}): its result "
                             "is not quantized by one QuantizeLinear")
        self.fused.add(users[0].name)
        return users[0], bounds

    def activation_bounds(self, node) -> tuple[float, float]:
        if node.op_type == "Relu":
            return 0.0, float("inf")
        low = float(self.consts[node.input[1]]) if len(node.input) > 1 and node.input[1] \
            else -float("inf")
        high = float(self.consts[node.input[2]]) if len(node.input) > 2 and node.input[2] \
            else float("inf")
        return low, high

    def result(self, node, shape: tuple[int, ...], nhwc: bool) -> tuple[int, dict]:
        """The int8 output tensor of a compute node (named after the node) and the
        options of its fused activation."""
        qnode, bounds = self.output_q(node)
        index = self.add(self.act_tensor(node.name, shape, qnode))
        self.acts[qnode.output[0]] = (index, nhwc)
        if bounds is None:
            return index, {"FusedActivationFunction": "NONE"}
        return index, {"FusedActivationFunction": "BOUNDS", "ActivationBounds": bounds}

    def const_weights(self, node, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        if name not in self.weights:
            raise NotInteger(f"{self.path}: node {node.name!r} ({node.op_type}): input "
                             f"{name!r} is not a constant through a DequantizeLinear")
        return self.weights[name]


def node_attrs(node) -> dict:
    from onnx import helper

    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def bias_tensor(r: Reader, node, name: str | None, x: Tensor, w_scale: np.ndarray,
          channels: int) -> int:
    """The int32 bias at scale x_scale * w_scale[c] (rescaled if given at another)."""
    if not name:
        return -1
    data, scale, zero, _ = r.const_weights(node, name)
    if data.dtype != np.int32 or zero.any():
        raise NotInteger(f"{r.path}: node {node.name!r}: bias {name!r} is not int32 with "
                         "zero point 0")
    want = x.scale[0] * np.broadcast_to(w_scale, (channels,))
    have = np.broadcast_to(scale, (channels,))
    if not np.allclose(have, want, rtol=1e-6, atol=0):
        data = np.round(data.astype(np.float64) * have / want).astype(np.int32)
    return r.add(Tensor(name, (channels,), "i32", tuple(want), (0,) * channels, 0,
                        data.astype(np.int32)))


def weights_tensor(r: Reader, node, name: str, data: np.ndarray, scale: np.ndarray,
                    zero: np.ndarray, axis: int) -> int:
    if len(set(zero.tolist())) > 1:
        raise NotInteger(f"{r.path}: node {node.name!r}: weights with per-channel zero points")
    scales = tuple(float(s) for s in scale)
    return r.add(Tensor(name, data.shape, "i8", scales, (int(zero[0]),) * len(scales), axis,
                        data))


def output_step(model) -> float | None:
    """The largest quantisation step of a QDQ model's float outputs (the scales of the
    DequantizeLinear nodes that write them), or None for a model without Q/DQ nodes: the
    integer route's results may differ from ONNX Runtime's by one step."""
    from onnx import numpy_helper

    if not is_qdq(model):
        return None
    consts = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    outputs = {vi.name for vi in model.graph.output}
    steps = [float(np.max(consts[n.input[1]])) for n in model.graph.node
             if n.op_type == DQ and n.output[0] in outputs and n.input[1] in consts]
    return max(steps, default=None)


def layer_outputs(graph) -> dict[str, object]:
    """A QDQ graph's layers as the integer route computes them: each QuantizeLinear's
    output, by the node whose result it quantizes (through a Relu or Clip): the Conv or
    MatMul, never the Q/DQ node around it.  What the check compares, int8 for int8."""
    made_by = {out: node for node in graph.node for out in node.output}
    found = {}
    for node in graph.node:
        if node.op_type != Q or node.input[0] not in made_by:
            continue
        maker = made_by[node.input[0]]
        if maker.op_type in ACTIVATIONS and maker.input[0] in made_by:
            maker = made_by[maker.input[0]]
        if maker.op_type not in (Q, DQ):
            found[node.output[0]] = maker
    return found
