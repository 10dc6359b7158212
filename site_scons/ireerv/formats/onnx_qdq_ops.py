"""More ONNX nodes of a QDQ model as the translator's int8 operators (onnx_qdq_nodes.py
has the contractions, pools, Add and the reshapes): Mul, Concat, Sigmoid, LeakyRelu,
Transpose and ConvTranspose, each between a DequantizeLinear and a QuantizeLinear.

Where ONNX Runtime's CPU provider fuses the node into a QLinear operator that reads a
table (QLinearSigmoid, QLinearLeakyRelu, and QLinearConcat for an input of other
quantisation), the table here is the same: each of the 256 inputs dequantised, the
function taken in f32 and the result quantised, rounded half to even (LOOKUP, read with
a gather).  Mul (QLinearMul computes in f32) multiplies the integers less their zero
points and requantises the product once: within one step.  ConvTranspose accumulates in
int32 and requantises per output channel, as the convolutions do.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ireerv.formats.onnx_qdq import (
    TO_NHWC,
    NotInteger,
    Reader,
    bias_tensor,
    node_attrs,
    weights_tensor,
)
from ireerv.formats.tflite_reader import Tensor


def table(scale_in: float, zero_in: int, scale_out: float, zero_out: int,
          function: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """ONNX Runtime's lookup table of a unary QLinear operator on int8: q in -128..127
    dequantised in f32, `function` applied in f32, quantised back (half to even)."""
    q = np.arange(-128, 128, dtype=np.int32)
    real = (q - zero_in).astype(np.float32) * np.float32(scale_in)
    with np.errstate(over="ignore"):  # exp's overflow gives the limit, as in f32 on the host
        y = function(real).astype(np.float32) / np.float32(scale_out)
    return np.clip(np.rint(y) + zero_out, -128, 127).astype(np.int8)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return (np.float32(1) / (np.float32(1) + np.exp(-x))).astype(np.float32)


def _lookup(r: Reader, node, function: Callable[[np.ndarray], np.ndarray]) -> None:
    index, nhwc = r.acts[node.input[0]]
    t = r.tensors[index]
    out, act = r.result(node, t.shape, nhwc)
    if act["FusedActivationFunction"] != "NONE":
        raise NotInteger(f"{r.path}: node {node.name!r}: an activation after {node.op_type}")
    o = r.tensors[out]
    values = table(t.scale[0], t.zero_point[0], o.scale[0], o.zero_point[0], function)
    r.op("LOOKUP", [index], [out], Table=values)


def _leaky_relu(r: Reader, node) -> None:
    alpha = np.float32(node_attrs(node).get("alpha", 0.01))
    _lookup(r, node, lambda x: np.where(x >= 0, x, x * alpha))


def _requantised(r: Reader, index: int, want: Tensor) -> int:
    """`index` in `want`'s quantisation (a LOOKUP table, QLinearConcat's), or itself."""
    t = r.tensors[index]
    if (t.scale, t.zero_point) == (want.scale, want.zero_point):
        return index
    out = r.add(Tensor(t.name + "_q", t.shape, "i8", want.scale, want.zero_point))
    values = table(t.scale[0], t.zero_point[0], want.scale[0], want.zero_point[0],
                   lambda x: x)
    r.op("LOOKUP", [index], [out], Table=values)
    return out


def _layout(r: Reader, names: list[str]) -> tuple[list[int], bool]:
    """The int8 inputs of an elementwise node, all NHWC if any is a 4-D NHWC one."""
    nhwc = any(r.acts[n][1] for n in names)
    return [r.nhwc(n) if nhwc else r.plain(n) for n in names], nhwc


def _mul(r: Reader, node) -> None:
    (a, b), nhwc = _layout(r, list(node.input[:2]))
    sa, sb = r.tensors[a].shape, r.tensors[b].shape
    if len(sa) != len(sb):
        raise NotInteger(f"{r.path}: node {node.name!r} (Mul) of tensors of ranks "
                         f"{len(sa)} and {len(sb)}")
    shape = tuple(max(x, y) for x, y in zip(sa, sb, strict=True))
    out, act = r.result(node, shape, nhwc)
    r.op("MUL", [a, b], [out], **act)


def _concat(r: Reader, node) -> None:
    parts, nhwc = _layout(r, list(node.input))
    rank = len(r.tensors[parts[0]].shape)
    axis = node_attrs(node)["axis"] % rank
    if nhwc and rank == 4:
        axis = TO_NHWC.index(axis)
    shape = list(r.tensors[parts[0]].shape)
    shape[axis] = sum(r.tensors[p].shape[axis] for p in parts)
    out, act = r.result(node, tuple(shape), nhwc)
    if act["FusedActivationFunction"] != "NONE":
        raise NotInteger(f"{r.path}: node {node.name!r}: an activation after a Concat")
    parts = [_requantised(r, p, r.tensors[out]) for p in parts]
    r.op("CONCATENATION", parts, [out], Axis=axis)


def _transpose(r: Reader, node) -> None:
    x = r.plain(node.input[0])
    tx = r.tensors[x]
    perm = tuple(node_attrs(node).get("perm", range(len(tx.shape) - 1, -1, -1)))
    moved = r.add(Tensor(node.name, tuple(tx.shape[p] for p in perm), "i8", tx.scale,
                         tx.zero_point))
    r.op("TRANSPOSE", [x], [moved], Perm=perm)
    users = r.consumers[node.output[0]]
    if not (len(users) == 1 and users[0].op_type == "QuantizeLinear"):
        r.acts[node.output[0]] = (moved, False)  # on the int8 tensor itself (QOperator)
        return
    qnode, bounds = r.output_q(node)
    if bounds is not None:
        raise NotInteger(f"{r.path}: node {node.name!r}: an activation after a Transpose")
    want = r.act_tensor(node.name + "_q", r.tensors[moved].shape, qnode)
    r.acts[qnode.output[0]] = (_requantised(r, moved, want), False)


def _conv_transpose(r: Reader, node) -> None:
    a = node_attrs(node)
    if a.get("group", 1) != 1 or set(a.get("dilations", [1, 1])) != {1} or \
            a.get("auto_pad", b"NOTSET") not in (b"NOTSET", "NOTSET") or "output_shape" in a:
        raise NotInteger(f"{r.path}: node {node.name!r} (ConvTranspose) with groups, "
                         "dilations, auto_pad or output_shape")
    x = r.nhwc(node.input[0])
    data, scale, zero, _ = r.const_weights(node, node.input[1])
    if data.ndim != 4:
        raise NotInteger(f"{r.path}: node {node.name!r} (ConvTranspose) is not "
                         "two-dimensional")
    outs = data.shape[1]
    # ONNX's [C_in, C_out, KH, KW] as TOSA's [C_out, KH, KW, C_in].
    weights = np.ascontiguousarray(np.transpose(data, (1, 2, 3, 0)))
    w = weights_tensor(r, node, node.input[1], weights, scale, zero, 0)
    b = bias_tensor(r, node, node.input[2] if len(node.input) > 2 else None, r.tensors[x],
                    scale, outs)
    pads = a.get("pads", [0, 0, 0, 0])
    extra = a.get("output_padding", [0, 0])
    n, _, oh, ow = r.shapes[node.output[0]]
    out, act = r.result(node, (n, oh, ow, outs), True)
    r.op("TRANSPOSE_CONV", [x, w, b], [out], Stride=tuple(a.get("strides", [1, 1])),
         OutPad=(-pads[0], extra[0] - pads[2], -pads[1], extra[1] - pads[3]), **act)


HANDLERS: dict[str, Callable[[Reader, object], None]] = {
    "Mul": _mul, "Concat": _concat, "Sigmoid": lambda r, node: _lookup(r, node, _sigmoid),
    "LeakyRelu": _leaky_relu, "Transpose": _transpose, "ConvTranspose": _conv_transpose,
}
