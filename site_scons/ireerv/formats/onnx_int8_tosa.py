"""The int8 operators an ONNX model needs beyond TFLite's (transpose, a global average
with its own scale, a table lookup, Mul, Concat, ConvTranspose) for the TFLite translator
(tflite_tosa.translate's `extra`), and the import of a QDQ model's graph through it."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ireerv.formats import tflite_context as context
from ireerv.formats.tflite_context import Context
from ireerv.formats.tflite_reader import Operator, TfliteGraph
from ireerv.formats.tosa_text import ttype
from ireerv.util.files import atomic_write


def _transpose(ctx: Context, op: Operator) -> None:
    x, out = op.inputs[0], op.outputs[0]
    perms = ", ".join(str(p) for p in op.options["Perm"])
    ctx.values[out] = ctx.w.op("transpose", [ctx.value(x)], [ctx.typ(x)], ctx.typ(out),
                               f"perms = array<i32: {perms}>")


def _global_average(ctx: Context, op: Operator) -> None:
    """The mean over the plane with the output's own scale: the int32 sum requantised
    once by in_scale / (count * out_scale) (ONNX Runtime rounds the real mean once)."""
    x, out = op.inputs[0], op.outputs[0]
    tx, to = ctx.t(x), ctx.t(out)
    n, h, w, c = tx.shape
    value = ctx.w.widen(ctx.value(x), tx.shape, tx.zero_point[0])
    rows, cell = ttype((n, 1, w, c), "i32"), ttype((n, 1, 1, c), "i32")
    value = ctx.w.op("reduce_sum", [value], [ttype(tx.shape, "i32")], rows, "axis = 1 : i32")
    total = ctx.w.op("reduce_sum", [value], [rows], cell, "axis = 2 : i32")
    real = tx.scale[0] / (h * w * to.scale[0])
    ctx.values[out] = ctx.w.to_int8(total, (n, 1, 1, c), [real], to.zero_point[0],
                                    context.int_range(ctx, op, out), bound=255 * h * w)


def _lookup(ctx: Context, op: Operator) -> None:
    """table[x + 128] for each int8 x (onnx_qdq_ops.table): a gather of a constant."""
    x, out = op.inputs[0], op.outputs[0]
    shape = ctx.t(x).shape
    found = ctx.w.lookup(ctx.value(x), shape, op.options["Table"].astype(np.int32))
    ctx.values[out] = ctx.w.op("cast", [found], [ttype(shape, "i32")], ttype(shape, "i8"))


def _mul(ctx: Context, op: Operator) -> None:
    """TFLite's int8 MUL: (a - za) * (b - zb) in int32 (broadcast where a dimension is 1),
    requantised once by sa * sb / so."""
    a, b, out = op.inputs[0], op.inputs[1], op.outputs[0]
    ta, tb, to = ctx.t(a), ctx.t(b), ctx.t(out)
    wide = [ctx.w.widen(ctx.value(i), t.shape, t.zero_point[0]) for i, t in ((a, ta), (b, tb))]
    product = ctx.w.op("mul", [*wide, ctx.w.scalar(0, "i8")],
                       [ttype(ta.shape, "i32"), ttype(tb.shape, "i32"), ttype((1,), "i8")],
                       ttype(to.shape, "i32"))
    ctx.values[out] = ctx.w.to_int8(product, to.shape, [ta.scale[0] * tb.scale[0] / to.scale[0]],
                                    to.zero_point[0], context.int_range(ctx, op, out),
                                    bound=255 * 255)


def _concatenation(ctx: Context, op: Operator) -> None:
    """Its inputs (already in the output's quantisation) joined along `Axis`."""
    values = [ctx.value(i) for i in op.inputs]
    axis = f"axis = {op.options['Axis']} : i32"
    ctx.values[op.outputs[0]] = ctx.w.op("concat", values, [ctx.typ(i) for i in op.inputs],
                                         ctx.typ(op.outputs[0]), axis)


def _transpose_conv(ctx: Context, op: Operator) -> None:
    """tosa.transpose_conv2d, int8 x int8 in int32, requantised per output channel as a
    convolution is (tflite_tosa)."""
    from ireerv.formats.tflite_tosa import _requantise

    x, out = op.inputs[0], op.outputs[0]
    tx, tw, to = ctx.t(x), ctx.t(op.inputs[1]), ctx.t(out)
    channels = to.shape[-1]
    bias = context.bias_value(ctx, op, context.bias_data(ctx, op, channels), channels)
    zx, zw = ctx.w.scalar(tx.zero_point[0], "i8"), ctx.w.scalar(tw.zero_point[0], "i8")
    pads = ", ".join(str(p) for p in op.options["OutPad"])
    strides = ", ".join(str(s) for s in op.options["Stride"])
    sums = ctx.w.op("transpose_conv2d", [ctx.value(x), ctx.value(op.inputs[1]), bias, zx, zw],
                    [ctx.typ(x), ctx.typ(op.inputs[1]), ttype((channels,), "i32"),
                     ttype((1,), "i8"), ttype((1,), "i8")], ttype(to.shape, "i32"),
                    f"acc_type = i32, out_pad = array<i64: {pads}>, "
                    f"stride = array<i64: {strides}>")
    ctx.values[out] = _requantise(ctx, op, sums, to.shape, range(channels), None, {}, None)


EXTRA = {"TRANSPOSE": _transpose, "GLOBAL_AVERAGE": _global_average, "LOOKUP": _lookup,
         "MUL": _mul, "CONCATENATION": _concatenation, "TRANSPOSE_CONV": _transpose_conv}


def write(graph: TfliteGraph, function: str, mlir: Path) -> None:
    """The graph's TOSA, written to `mlir` (whole, or not at all)."""
    from ireerv.formats.tflite_tosa import translate

    atomic_write(mlir, translate(graph, function, EXTRA))
