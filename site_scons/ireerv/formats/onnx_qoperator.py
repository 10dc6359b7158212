"""QOperator ONNX models (QLinearConv, QLinearMatMul, MatMulInteger, ConvInteger and the
com.microsoft operators ONNX Runtime's quantizer writes) rewritten into QDQ form when the
model is read: each becomes DequantizeLinear of its inputs -> the float operator ->
QuantizeLinear, the same numbers, which the integer route then reads (onnx_qdq.py).
The float operator keeps the node's name, so the profile names it.  A com.microsoft
operator outside this set stops the import with one line naming the node.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from ireerv.formats.base import ModelError

MS = "com.microsoft"


class _Rewrite:
    def __init__(self, model) -> None:
        from onnx import numpy_helper

        self.model = model
        self.consts = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
        self.nodes: list = []

    def const(self, name: str, values: np.ndarray) -> str:
        from onnx import numpy_helper

        self.model.graph.initializer.append(numpy_helper.from_array(values, name))
        self.consts[name] = values
        return name

    def node(self, op: str, inputs: list[str], outputs: list[str], name: str, **attrs) -> None:
        from onnx import helper

        self.nodes.append(helper.make_node(op, inputs, outputs, name=name, **attrs))

    def dq(self, node, value: str, scale: str, zero: str, tag: str, axis: int = 1) -> str:
        out = f"{node.name}_{tag}_dq"
        per_channel = np.size(self.consts.get(scale, 0)) > 1
        extra = {"axis": axis} if per_channel else {}
        self.node("DequantizeLinear", [value, scale, zero], [out], f"{node.name}_{tag}_dq",
                  **extra)
        return out

    def q(self, node, value: str, scale: str, zero: str) -> None:
        self.node("QuantizeLinear", [value, scale, zero], [node.output[0]], f"{node.name}_q")

    def bias(self, node, value: str, x_scale: str, w_scale: str) -> str:
        """A QLinearConv's or QGemm's int32 bias through a DequantizeLinear of its scale
        x_scale * w_scale (zero point 0)."""
        scale = np.atleast_1d(self.consts[x_scale] * self.consts[w_scale]).astype(np.float32)
        size = self.consts[value].shape[0] if value in self.consts else scale.size
        scale = np.broadcast_to(scale, (size,)).copy() if scale.size > 1 else scale[0:1]
        s = self.const(f"{node.name}_bias_scale", scale.reshape(-1) if scale.size > 1
                       else np.float32(scale[0]))
        z = self.const(f"{node.name}_bias_zero", np.zeros(scale.shape if scale.size > 1 else (),
                                                          np.int32))
        return self.dq(node, value, s, z, "bias", axis=0)


def _attrs(node, drop: tuple[str, ...] = ()) -> dict:
    from onnx import helper

    return {a.name: helper.get_attribute_value(a) for a in node.attribute if a.name not in drop}


def _conv(r: _Rewrite, node) -> None:
    i = list(node.input) + [""] * (9 - len(node.input))
    x = r.dq(node, i[0], i[1], i[2], "x")
    w = r.dq(node, i[3], i[4], i[5], "w", axis=0)
    inputs = [x, w] + ([r.bias(node, i[8], i[1], i[4])] if i[8] else [])
    r.node("Conv", inputs, [f"{node.name}_y"], node.name, **_attrs(node))
    r.q(node, f"{node.name}_y", i[6], i[7])


def _matmul(r: _Rewrite, node) -> None:
    i = list(node.input)
    a = r.dq(node, i[0], i[1], i[2], "a")
    b = r.dq(node, i[3], i[4], i[5], "b", axis=1)
    r.node("MatMul", [a, b], [f"{node.name}_y"], node.name)
    r.q(node, f"{node.name}_y", i[6], i[7])


def _gemm(r: _Rewrite, node) -> None:
    i = list(node.input) + [""] * (9 - len(node.input))
    attrs = _attrs(node)
    a = r.dq(node, i[0], i[1], i[2], "a")
    b = r.dq(node, i[3], i[4], i[5], "b", axis=0 if attrs.get("transB", 0) else 1)
    inputs = [a, b] + ([r.bias(node, i[6], i[1], i[4])] if i[6] else [])
    if not i[7]:  # no output scale: a float result
        r.node("Gemm", inputs, [node.output[0]], node.name, **attrs)
        return
    r.node("Gemm", inputs, [f"{node.name}_y"], node.name, **attrs)
    r.q(node, f"{node.name}_y", i[7], i[8])


def _integer(op: str) -> Callable[[_Rewrite, object], None]:
    """MatMulInteger / ConvInteger: int32 sums, as a float operator of the numbers less
    their zero points (scale 1), cast back to int32."""
    def rewrite(r: _Rewrite, node) -> None:
        i = list(node.input) + [""] * (4 - len(node.input))
        one = r.const(f"{node.name}_one", np.float32(1.0))
        a = r.dq(node, i[0], one, i[2], "a")
        b = r.dq(node, i[1], one, i[3], "b", axis=0)
        r.node(op, [a, b], [f"{node.name}_y"], node.name, **_attrs(node))
        r.node("Cast", [f"{node.name}_y"], [node.output[0]], f"{node.name}_cast", to=6)
    return rewrite


def _unary(op: str, drop: tuple[str, ...] = ()) -> Callable[[_Rewrite, object], None]:
    """X, x_scale, x_zp, y_scale, y_zp: one input, one output."""
    def rewrite(r: _Rewrite, node) -> None:
        i = list(node.input) + [""] * (5 - len(node.input))
        if _attrs(node).get("channels_last", 0):
            raise ModelError(f"node {node.name!r} ({node.op_type}) with channels_last")
        x = r.dq(node, i[0], i[1], i[2], "x")
        r.node(op, [x], [f"{node.name}_y"], node.name, **_attrs(node, ("channels_last",)))
        r.q(node, f"{node.name}_y", i[3], i[4])
    return rewrite


def _binary(op: str) -> Callable[[_Rewrite, object], None]:
    """A, a_scale, a_zp, B, b_scale, b_zp, c_scale, c_zp."""
    def rewrite(r: _Rewrite, node) -> None:
        i = list(node.input) + [""] * (8 - len(node.input))
        a = r.dq(node, i[0], i[1], i[2], "a")
        b = r.dq(node, i[3], i[4], i[5], "b")
        r.node(op, [a, b], [f"{node.name}_y"], node.name)
        r.q(node, f"{node.name}_y", i[6], i[7])
    return rewrite


def _concat(r: _Rewrite, node) -> None:
    i = list(node.input)
    parts = [r.dq(node, i[k], i[k + 1], i[k + 2], f"x{k // 3}") for k in range(2, len(i), 3)]
    r.node("Concat", parts, [f"{node.name}_y"], node.name, **_attrs(node))
    r.q(node, f"{node.name}_y", i[0], i[1])


REWRITES: dict[tuple[str, str], Callable[[_Rewrite, object], None]] = {
    ("", "QLinearConv"): _conv, ("", "QLinearMatMul"): _matmul,
    ("", "MatMulInteger"): _integer("MatMul"), ("", "ConvInteger"): _integer("Conv"),
    (MS, "QGemm"): _gemm, (MS, "QLinearAdd"): _binary("Add"), (MS, "QLinearMul"): _binary("Mul"),
    (MS, "QLinearAveragePool"): _unary("AveragePool"),
    (MS, "QLinearGlobalAveragePool"): _unary("GlobalAveragePool"),
    (MS, "QLinearConcat"): _concat, (MS, "QLinearSigmoid"): _unary("Sigmoid"),
    (MS, "QLinearLeakyRelu"): _unary("LeakyRelu"),
}


def is_qoperator(model) -> bool:
    return any(((n.domain if n.domain != "ai.onnx" else ""), n.op_type) in REWRITES
               for n in model.graph.node)


def to_qdq(model, path: Path) -> None:
    """Rewrite the model's QOperator nodes in place into their QDQ form."""
    if not is_qoperator(model) and not any(n.domain == MS for n in model.graph.node):
        return
    rewrite = _Rewrite(model)
    for node in model.graph.node:
        domain = node.domain if node.domain != "ai.onnx" else ""
        node.name = node.name or node.output[0]
        make = REWRITES.get((domain, node.op_type))
        if make is None and domain == MS:
            raise ModelError(f"{path}: node {node.name!r}: the ONNX operator {node.op_type} "
                             f"({MS}) cannot be imported (QOperator operators read: "
                             f"{', '.join(sorted(op for _, op in REWRITES))})")
        if make is None:
            rewrite.nodes.append(node)
            continue
        try:
            make(rewrite, node)
        except (KeyError, IndexError, ValueError) as err:
            raise ModelError(f"{path}: node {node.name!r} ({node.op_type}) cannot be read: "
                             f"{type(err).__name__}: {err}") from None
    del model.graph.node[:]
    model.graph.node.extend(rewrite.nodes)
