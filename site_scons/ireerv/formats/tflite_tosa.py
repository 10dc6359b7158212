"""TFLite -> TOSA: the operators of the MLPerf Tiny networks, in f32 and in int8.

Quantised models stay integer: convolutions and fully connected layers accumulate int8
x int8 in int32 and requantise as TFLite's own kernels do, with an integer multiplier
and shift and TFLite's double rounding, written with integer ops (tosa_text.Writer), so
the image matches the interpreter bit for bit where TFLite's kernels agree.
Softmax reads a table of exponentials and divides in integers (LiteRT's int8
softmax uses a float table): within one step of it (tosa_softmax.py).  Weight-only
quantised float layers get their weights dequantised here.  An operator or
type outside this set stops the import with one error naming it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ireerv.formats import (
    prescaled,
    pruned_outputs,
    requant_generic,
    tosa_layout,
    tosa_pool,
    tosa_softmax,
)
from ireerv.formats import tflite_context as context
from ireerv.formats.tflite_context import Context
from ireerv.formats.tflite_math import quantize_multiplier
from ireerv.formats.tflite_reader import Operator, TfliteError, TfliteGraph
from ireerv.formats.tosa_text import module, ttype

ADD_LEFT_SHIFT = 20  # TFLite's int8 ADD: inputs scaled up by 2^20 before the sum


def _conv_like(ctx: Context, op: Operator, kind: str, x: str, x_shape: tuple, weights: np.ndarray,
               attrs: str, out_shape: tuple, rows: list[int] | None = None) -> str:
    """conv2d / depthwise_conv2d and, for int8, the per-channel requantisation; `rows`:
    the layer's output channels these weights compute (all of them if None)."""
    tx, tw = ctx.t(op.inputs[0]), ctx.t(op.inputs[1])
    elem = context.elem_type(ctx, op, op.inputs[0])
    channels = out_shape[-1]
    quant = elem == "i8"
    acc = "i32" if quant else "f32"
    zp_x, zp_w = (tx.zero_point[0], tw.zero_point[0]) if quant else (0, 0)
    full = context.bias_data(ctx, op, ctx.t(op.outputs[0]).shape[-1]) if quant else None
    bias_data = full[rows] if full is not None and rows is not None else full
    fixed = {} if bias_data is None else tosa_layout.pruned(weights, kind, bias_data)
    bound = None if bias_data is None else tosa_layout.sum_bound(weights, bias_data, fixed)
    if bias_data is not None and zp_x and not zp_w:
        x, x_shape, attrs, bias_data = tosa_layout.fold_zero_point(
            ctx.w, (x, x_shape, attrs), kind, weights, zp_x, bias_data)
        zp_x = 0
    zx, zw = ctx.w.scalar(zp_x, elem), ctx.w.scalar(zp_w, elem)
    groups = tosa_layout.output_groups(weights) if kind == "conv2d" else 1
    group_bias = bias_data if quant else context.bias_data(ctx, op, channels, np.float32)
    if groups > 1 and group_bias is not None:
        # int8 groups requantise their own sums; float ones take the activation after.
        y = tosa_layout.grouped_conv(
            ctx.w, (x, zx, zw), x_shape, weights, group_bias, attrs, out_shape, groups,
            (elem, acc, elem),
            (lambda part, group: _requantise(ctx, op, part, (*out_shape[:-1], len(group)),
                                             group, bound, fixed, rows)) if quant else None)
        return y if quant else context.activation(ctx, op, y, op.outputs[0], ttype(out_shape, acc))
    scaling = _scaling(ctx, op, kind, weights, (bias_data, bound), rows, attrs) \
        if quant and bias_data is not None and not fixed and not zp_x and not zp_w else None
    if scaling:
        left, pairs, terms = scaling
        window = tosa_layout.parse_window(attrs)
        sums, biases = prescaled.convolution(ctx.w, kind, (x, x_shape), weights, bias_data,
                                             (window[4:6], window[6:8]), left, out_shape)
        requant = requant_generic.scaled_plan(pairs, bound=bound, left=left, biases=biases,
                                              **terms)
        return ctx.w.requantise(sums, out_shape, requant)
    bias = context.bias_value(ctx, op, bias_data, channels)
    types = [ttype(x_shape, elem), ttype(weights.shape, elem), ttype((channels,), acc),
             ttype((1,), elem), ttype((1,), elem)]
    result = ctx.w.op(kind, [x, ctx.w.const(weights), bias, zx, zw], types,
                      ttype(out_shape, acc), f"acc_type = {acc}, {attrs}")
    if not quant:
        return context.activation(ctx, op, result, op.outputs[0], ttype(out_shape, acc))
    return _requantise(ctx, op, result, out_shape, range(channels), bound, fixed, rows)


def _scaling(ctx: Context, op: Operator, kind: str, weights: np.ndarray,
             bias: tuple[np.ndarray, int], rows: list[int] | None, attrs: str
             ) -> tuple[list[int], list[tuple[int, int]], dict] | None:
    """formats/prescaled's left shifts for an int8 convolution of zero points 0, one
    group and no pruned outputs (`bias`: its bias and the bound of its sums), with the
    requantisation's pairs and other terms (scaled_plan's), or None
    where it does not apply: padded (padding stays a TOSA op), a depthwise multiplier,
    a conv2d of more than one kernel row (vww's first layer, 3x3 read as column pairs:
    1,943,321 cycles with int16 weights 1,985,945, one hart)."""
    one = weights.shape[1] == 1 if kind == "conv2d" else weights.shape[3] == 1
    if any(tosa_layout.parse_window(attrs)[:4]) or not one:
        return None
    data, bound = bias
    reals, terms = _terms(ctx, op, range(len(data)), rows, {})
    pairs = [quantize_multiplier(r) for r in reals]
    left = prescaled.left_shifts(tosa_layout.per_output(weights, kind), pairs, bound, terms)
    return (left, pairs, terms) if left else None


def _terms(ctx: Context, op: Operator, channels: range, rows: list[int] | None,
           known: dict[int, int]) -> tuple[list[float], dict]:
    """The requantisation's scales for output `channels` (one for all where the weights
    have one scale and no channel is `known`) and its other terms, as to_int8 takes them."""
    to = ctx.t(op.outputs[0])
    each = len(ctx.t(op.inputs[1]).scale) > 1 or known  # a known channel: its own columns
    reals = _reals(ctx, op, [rows[c] if rows else c for c in channels] if each else [0])
    low, high = context.int_range(ctx, op, op.outputs[0])
    return reals, {"zero_point": to.zero_point[0], "limits": (low, high),
                   "fold": not _pooled(ctx, op.outputs[0]), "clamped": low >= to.zero_point[0]}


def _requantise(ctx: Context, op: Operator, sums: str, shape: tuple, channels: range,
                bound: int | None, fixed: dict[int, int], rows: list[int] | None) -> str:
    """TFLite's requantisation of a convolution's int32 `sums` for output `channels` (in
    double, in_scale * w_scale[c] / out_scale); `fixed`: pruned channels' sums; `rows`:
    the layer's channel at each position (as conv_like's)."""
    known = {i: fixed[c] for i, c in enumerate(channels) if c in fixed}
    reals, terms = _terms(ctx, op, channels, rows, known)
    return ctx.w.to_int8(sums, shape, reals, fixed=known, bound=bound, **terms)


def _reals(ctx: Context, op: Operator, channels: list[int]) -> list[float]:
    """The requantisation scales of a convolution's output `channels`, in double:
    in_scale * w_scale[c] / out_scale (TFLite's)."""
    tx, tw, to = ctx.t(op.inputs[0]), ctx.t(op.inputs[1]), ctx.t(op.outputs[0])
    return [tx.scale[0] * tw.scale[c % len(tw.scale)] / to.scale[0] for c in channels]


def _pooled(ctx: Context, index: int) -> bool:
    """Is tensor `index` read by an average pool?  With the output zero point folded into
    its requantisation, iree-compile moved that requantisation out of kws's last
    convolution into the pool, which then read the int32 sums (cluster4, the first call:
    8,627,755 cycles instead of 8,230,757)."""
    return any(op.name == "AVERAGE_POOL_2D" and index in op.inputs
               for op in ctx.graph.operators)


def _conv2d(ctx: Context, op: Operator) -> None:
    tw = ctx.t(op.inputs[1])
    x, shape, attrs = context.window(ctx, op, op.inputs[0], tw.shape[1], tw.shape[2])
    weights = context.weights_of(ctx, op)
    if context.elem_type(ctx, op, op.inputs[0]) == "i8":
        x, shape, weights, attrs = tosa_layout.faster_form(
            ctx.w, x, shape, weights, attrs, ctx.t(op.inputs[0]).zero_point[0])
    out = ctx.t(op.outputs[0]).shape
    value = _without_pruned(ctx, op, (x, shape, attrs), weights, out) \
        if context.elem_type(ctx, op, op.inputs[0]) == "i8" else None
    ctx.values[op.outputs[0]] = value or _conv_like(ctx, op, "conv2d", x, shape, weights,
                                                    attrs, out)


def _without_pruned(ctx: Context, op: Operator, window: tuple[str, tuple, str],
                    weights: np.ndarray, out: tuple) -> str | None:
    """An int8 conv2d that computes only its live output channels and places the pruned
    ones' numbers (pruned_outputs); None where that does not apply."""
    bias = context.bias_data(ctx, op, out[-1])
    pruned = {} if bias is None else tosa_layout.pruned(weights, "conv2d", bias)
    rows = pruned_outputs.computed_rows(pruned, out[-1])
    if rows is None:
        return None
    part = (*out[:-1], len(rows))
    value = _conv_like(ctx, op, "conv2d", *window[:2], weights[rows], window[2], part, rows)
    skipped = {c: pruned[c] for c in sorted(set(pruned) - set(rows))}
    reals = dict(zip(skipped, _reals(ctx, op, list(skipped)), strict=True))
    numbers = pruned_outputs.pruned_outputs(skipped, reals, ctx.t(op.outputs[0]).zero_point[0],
                                            context.int_range(ctx, op, op.outputs[0]))
    positions = {c: i for i, c in enumerate(rows)}
    return pruned_outputs.place(ctx.w, (value, part), out,
                                [positions.get(c, -1) for c in range(out[-1])],
                                [numbers.get(c, 0) for c in range(out[-1])])


def _depthwise(ctx: Context, op: Operator) -> None:
    tw, tx = ctx.t(op.inputs[1]), ctx.t(op.inputs[0])
    _, kh, kw, cm = tw.shape
    channels = tx.shape[3]
    # TFLite [1, KH, KW, C*M] is TOSA's [KH, KW, C, M] read in the same order.
    weights = context.weights_of(ctx, op).reshape(kh, kw, channels, cm // channels)
    x, shape, attrs = context.window(ctx, op, op.inputs[0], kh, kw)
    out = ctx.t(op.outputs[0]).shape
    ctx.values[op.outputs[0]] = _conv_like(ctx, op, "depthwise_conv2d", x, shape, weights,
                                           attrs, out)


def _fully_connected(ctx: Context, op: Operator) -> None:
    """A 1x1 convolution over [N, 1, 1, C]: TOSA 1.0 has no fully_connected."""
    tx, tw, to = ctx.t(op.inputs[0]), ctx.t(op.inputs[1]), ctx.t(op.outputs[0])
    elem = context.elem_type(ctx, op, op.inputs[0])
    if op.options.get("WeightsFormat", 0) != 0:
        raise TfliteError(f"{ctx.graph.path}: FULLY_CONNECTED with shuffled weights is not "
                          "supported")
    outs, cin = tw.shape
    batch = int(np.prod(tx.shape)) // cin
    x = ctx.w.reshape(ctx.value(op.inputs[0]), ctx.typ(op.inputs[0]), (batch, 1, 1, cin), elem)
    attrs = "pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>"
    y = _conv_like(ctx, op, "conv2d", x, (batch, 1, 1, cin),
                   context.weights_of(ctx, op).reshape(outs, 1, 1, cin),
                   attrs, (batch, 1, 1, outs))
    ctx.values[op.outputs[0]] = ctx.w.reshape(y, ttype((batch, 1, 1, outs), elem), to.shape,
                                              elem)


def _pool(ctx: Context, op: Operator) -> None:
    o, tx, to = op.options, ctx.t(op.inputs[0]), ctx.t(op.outputs[0])
    elem = context.elem_type(ctx, op, op.inputs[0])
    if tx.quantized and (tx.scale[0], tx.zero_point[0]) != (to.scale[0], to.zero_point[0]):
        raise TfliteError(f"{ctx.graph.path}: {op.name} with different input and output "
                          "quantisation is not supported")
    if (op.name == "AVERAGE_POOL_2D" and elem == "i8"
            and (o["FilterHeight"], o["FilterWidth"]) == tx.shape[1:3]
            and to.shape[1:3] == (1, 1)):
        ctx.values[op.outputs[0]] = tosa_pool.global_average(
            ctx.w, (ctx.value(op.inputs[0]), tx.shape), ctx.typ(op.outputs[0]),
            context.int_range(ctx, op, op.outputs[0]))
        return
    x, shape, attrs = context.window(ctx, op, op.inputs[0], o["FilterHeight"], o["FilterWidth"])
    attrs = attrs.rsplit(", dilation", 1)[0]
    attrs = f"kernel = array<i64: {o['FilterHeight']}, {o['FilterWidth']}>, {attrs}"
    if op.name == "MAX_POOL_2D":
        y = ctx.w.op("max_pool2d", [x], [ttype(shape, elem)], ctx.typ(op.outputs[0]), attrs)
    else:
        zp = tx.zero_point[0] if tx.quantized else 0
        z = ctx.w.scalar(zp, elem)
        acc = "i32" if elem == "i8" else "f32"
        y = ctx.w.op("avg_pool2d", [x, z, z], [ttype(shape, elem), ttype((1,), elem),
                                               ttype((1,), elem)],
                     ctx.typ(op.outputs[0]), f"acc_type = {acc}, {attrs}")
    ctx.values[op.outputs[0]] = context.activation(ctx, op, y, op.outputs[0])


def _add(ctx: Context, op: Operator) -> None:
    a, b, out = op.inputs[0], op.inputs[1], op.outputs[0]
    ta, tb, to = ctx.t(a), ctx.t(b), ctx.t(out)
    elem = context.elem_type(ctx, op, a)
    if len(ta.shape) != len(tb.shape):
        raise TfliteError(f"{ctx.graph.path}: ADD of tensors of rank {len(ta.shape)} and "
                          f"{len(tb.shape)} is not supported")
    if elem == "f32":
        y = ctx.w.op("add", [ctx.value(a), ctx.value(b)], [ctx.typ(a), ctx.typ(b)], ctx.typ(out))
    else:
        # TFLite's int8 ADD: each input less its zero point, times 2^20, to the common
        # scale 2 * max(sa, sb) (read from a table of its 256 values); the int32 sum
        # requantised to the output.
        twice = 2 * max(ta.scale[0], tb.scale[0])
        parts = [ctx.w.multiply_int8(ctx.value(i), t.shape, t.zero_point[0], t.scale[0] / twice,
                                     ADD_LEFT_SHIFT) for i, t in ((a, ta), (b, tb))]
        total = ctx.w.op("add", parts, [ttype(ta.shape, "i32"), ttype(tb.shape, "i32")],
                         ttype(to.shape, "i32"))
        ctx.values[out] = ctx.w.to_int8(
            total, to.shape, [twice / ((1 << ADD_LEFT_SHIFT) * to.scale[0])], to.zero_point[0],
            context.int_range(ctx, op, out), bound=255 << ADD_LEFT_SHIFT)  # each part at most half
        return
    ctx.values[out] = context.activation(ctx, op, y, out)


def _reshape(ctx: Context, op: Operator) -> None:
    x, out = op.inputs[0], op.outputs[0]
    elem = context.elem_type(ctx, op, x)
    tx, to = ctx.t(x), ctx.t(out)
    if tx.quantized and (tx.scale, tx.zero_point) != (to.scale, to.zero_point):
        raise TfliteError(f"{ctx.graph.path}: RESHAPE that changes quantisation")
    ctx.values[out] = ctx.w.reshape(ctx.value(x), ctx.typ(x), to.shape, elem)


def _to_f32(ctx: Context, index: int) -> str:
    """An int8 tensor's real values, (q - zp) * scale, in f32."""
    t = ctx.t(index)
    f = ctx.w.op("cast", [ctx.value(index)], [ctx.typ(index)], ttype(t.shape, "f32"))
    zp = ctx.w.const(np.full((1,) * len(t.shape), t.zero_point[0], np.float32))
    scale = ctx.w.const(np.full((1,) * len(t.shape), t.scale[0], np.float32))
    typ, one = ttype(t.shape, "f32"), ttype((1,) * len(t.shape), "f32")
    f = ctx.w.op("sub", [f, zp], [typ, one], typ)
    return ctx.w.op("mul", [f, scale, ctx.w.scalar(0, "i8")], [typ, one, ttype((1,), "i8")], typ)


def _from_f32(ctx: Context, value: str, index: int) -> str:
    """Real values to the int8 tensor `index`: round(x / scale) + zp, saturated."""
    t = ctx.t(index)
    typ, one = ttype(t.shape, "f32"), ttype((1,) * len(t.shape), "f32")
    inv = ctx.w.const(np.full((1,) * len(t.shape), 1.0 / t.scale[0], np.float32))
    zp = ctx.w.const(np.full((1,) * len(t.shape), t.zero_point[0], np.float32))
    y = ctx.w.op("mul", [value, inv, ctx.w.scalar(0, "i8")], [typ, one, ttype((1,), "i8")], typ)
    y = ctx.w.op("add", [y, zp], [typ, one], typ)
    y = ctx.w.clamp(y, typ, context.QMIN, context.QMAX, "f32")
    return ctx.w.op("cast", [y], [typ], ttype(t.shape, "i8"))


def _softmax(ctx: Context, op: Operator) -> None:
    x, out = op.inputs[0], op.outputs[0]
    elem, tx, to = context.elem_type(ctx, op, x), ctx.t(x), ctx.t(out)
    beta = float(op.options.get("Beta", 1.0))
    if elem == "i8" and tosa_softmax.int8_fits(tx.shape, to.scale[0], to.zero_point[0]):
        ctx.values[out] = tosa_softmax.int8(ctx.w, ctx.value(x), tx.shape, tx.scale[0] * beta)
        return
    value = _to_f32(ctx, x) if elem == "i8" else ctx.value(x)
    y = tosa_softmax.f32(ctx.w, value, tx.shape, beta)
    ctx.values[out] = _from_f32(ctx, y, out) if elem == "i8" else y


def _dequantize(ctx: Context, op: Operator) -> None:
    context.elem_type(ctx, op, op.inputs[0])
    ctx.values[op.outputs[0]] = _to_f32(ctx, op.inputs[0])


def _quantize(ctx: Context, op: Operator) -> None:
    x, out = op.inputs[0], op.outputs[0]
    context.elem_type(ctx, op, out)
    if context.elem_type(ctx, op, x) == "f32":
        ctx.values[out] = _from_f32(ctx, ctx.value(x), out)
        return
    tx, to = ctx.t(x), ctx.t(out)
    value = ctx.w.widen(ctx.value(x), tx.shape, tx.zero_point[0])
    ctx.values[out] = ctx.w.to_int8(value, to.shape, [tx.scale[0] / to.scale[0]],
                                    to.zero_point[0], (context.QMIN, context.QMAX), bound=255)


TRANSLATIONS: dict[str, Callable[[Context, Operator], None]] = {
    "CONV_2D": _conv2d, "DEPTHWISE_CONV_2D": _depthwise, "FULLY_CONNECTED": _fully_connected,
    "AVERAGE_POOL_2D": _pool, "MAX_POOL_2D": _pool, "ADD": _add, "RESHAPE": _reshape,
    "SOFTMAX": _softmax, "QUANTIZE": _quantize, "DEQUANTIZE": _dequantize,
}


def unsupported(graph: TfliteGraph) -> list[str]:
    """The graph's operators the translator has no translation for, each named once."""
    return sorted({op.name for op in graph.operators if op.name not in TRANSLATIONS})


def translate(graph: TfliteGraph, function: str = "main",
              extra: dict[str, Callable[[Context, Operator], None]] | None = None) -> str:
    """The TOSA module of the graph: one function from its inputs to its outputs; `extra`:
    translations of operators beyond TFLite's (an ONNX model's, onnx_int8_tosa.py)."""
    translations = {**TRANSLATIONS, **(extra or {})}
    missing = sorted({op.name for op in graph.operators if op.name not in translations})
    if missing:
        raise TfliteError(f"{graph.path}: the TFLite operator{'s' if len(missing) > 1 else ''} "
                          f"{', '.join(missing)} cannot be imported (the TFLite to TOSA "
                          f"translator supports {', '.join(sorted(TRANSLATIONS))})")
    ctx = Context(graph)
    for n, index in enumerate(graph.inputs):
        ctx.values[index] = f"%arg{n}"
    for op in graph.operators:
        ctx.w.location = output = graph.tensors[op.outputs[0]].name
        try:
            translations[op.name](ctx, op)
        except (KeyError, IndexError, TypeError, ValueError, AttributeError) as err:
            raise TfliteError(f"{graph.path}: {op.name} (output {output!r}) cannot be "
                              f"translated: {type(err).__name__}: {err}") from None
    args = [ctx.typ(i) for i in graph.inputs]
    results = [ctx.typ(i) for i in graph.outputs]
    return module(function, args, results, ctx.w.lines, [ctx.value(i) for i in graph.outputs])
