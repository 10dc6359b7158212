"""The int8 operators an ONNX model needs beyond TFLite's, for the TFLite translator
(tflite_tosa.translate's `extra`), and the import of a QDQ model's graph through it."""

from __future__ import annotations

from pathlib import Path

from ireerv.formats import tflite_context as context
from ireerv.formats.tflite_context import Context
from ireerv.formats.tflite_reader import Operator, TfliteGraph
from ireerv.formats.tosa_text import ttype


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


EXTRA = {"TRANSPOSE": _transpose, "GLOBAL_AVERAGE": _global_average}


def write(graph: TfliteGraph, function: str, mlir: Path) -> None:
    """The graph's TOSA, written to `mlir` (whole, or not at all)."""
    from ireerv.formats.tflite_tosa import translate

    text = translate(graph, function, EXTRA)
    tmp = mlir.with_name(mlir.name + ".tmp")
    try:
        tmp.write_text(text)
        tmp.replace(mlir)
    finally:
        tmp.unlink(missing_ok=True)
