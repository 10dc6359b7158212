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

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ireerv.formats import tosa_layout, tosa_pool, tosa_softmax
from ireerv.formats.tflite_math import round_half_away
from ireerv.formats.tflite_reader import Operator, Tensor, TfliteError, TfliteGraph
from ireerv.formats.tosa_text import F32_MAX, Writer, module, ttype, window_pads

ADD_LEFT_SHIFT = 20  # TFLite's int8 ADD: inputs scaled up by 2^20 before the sum
QMIN, QMAX = -128, 127


@dataclass
class _Ctx:
    graph: TfliteGraph
    w: Writer = field(default_factory=Writer)
    values: dict[int, str] = field(default_factory=dict)

    def t(self, index: int) -> Tensor:
        return self.graph.tensors[index]

    def typ(self, index: int) -> str:
        t = self.t(index)
        return ttype(t.shape, t.dtype)

    def value(self, index: int) -> str:
        if index not in self.values:
            data = self.t(index).data
            if data is None:
                raise TfliteError(f"{self.graph.path}: tensor {self.t(index).name!r} is read "
                                  "before any operator writes it")
            self.values[index] = self.w.const(data)
        return self.values[index]


def _elem(ctx: _Ctx, op: Operator, index: int) -> str:
    t = ctx.t(index)
    if t.dtype == "f32" and not t.quantized:
        return "f32"
    if t.dtype == "i8" and t.quantized:
        return "i8"
    kind = f"{t.dtype}, quantised" if t.quantized else t.dtype
    raise TfliteError(f"{ctx.graph.path}: {op.name} on tensor {t.name!r} of type {kind} is not "
                      "supported (only f32, and int8 with scale and zero point)")


def _window(ctx: _Ctx, op: Operator, x: int, kh: int, kw: int) -> tuple[str, tuple, str]:
    """The input of a windowed op (cropped if TOSA needs it) and its pad/stride/dilation."""
    o, t = op.options, ctx.t(x)
    sh, sw = o["StrideH"], o["StrideW"]
    dh, dw = o.get("DilationHFactor", 1), o.get("DilationWFactor", 1)
    if o["Padding"] not in ("SAME", "VALID"):
        raise TfliteError(f"{ctx.graph.path}: {op.name} with padding {o['Padding']}")
    _, top, bottom, crop_h = window_pads(o["Padding"], t.shape[1], kh, sh, dh)
    _, left, right, crop_w = window_pads(o["Padding"], t.shape[2], kw, sw, dw)
    value, shape = ctx.value(x), t.shape
    if crop_h or crop_w:
        size = (shape[0], shape[1] - crop_h, shape[2] - crop_w, shape[3])
        value = ctx.w.op("slice", [value, ctx.w.shape((0, 0, 0, 0)), ctx.w.shape(size)],
                         [ttype(shape, t.dtype), "!tosa.shape<4>", "!tosa.shape<4>"],
                         ttype(size, t.dtype))
        shape = size
    attrs = (f"pad = array<i64: {top}, {bottom}, {left}, {right}>, "
             f"stride = array<i64: {sh}, {sw}>")
    return value, shape, attrs + f", dilation = array<i64: {dh}, {dw}>"


_BOUNDS = {"NONE": (-math.inf, math.inf), "RELU": (0.0, math.inf), "RELU6": (0.0, 6.0),
           "RELU_N1_TO_1": (-1.0, 1.0)}


def _bounds(ctx: _Ctx, op: Operator) -> tuple[float, float]:
    act = op.options.get("FusedActivationFunction", "NONE")
    if act not in _BOUNDS:
        raise TfliteError(f"{ctx.graph.path}: {op.name} with fused activation {act} is not "
                          "supported")
    return _BOUNDS[act]


def _int_range(ctx: _Ctx, op: Operator, out: int) -> tuple[int, int]:
    """TFLite's CalculateActivationRangeQuantized: the activation's bounds as int8."""
    low, high = _bounds(ctx, op)
    t = ctx.t(out)
    scale, zp = t.scale[0], t.zero_point[0]
    qlow = QMIN if low == -math.inf else max(QMIN, zp + round_half_away(low / scale))
    qhigh = QMAX if high == math.inf else min(QMAX, zp + round_half_away(high / scale))
    return qlow, qhigh


def _activation(ctx: _Ctx, op: Operator, value: str, out: int, typ: str = "") -> str:
    """The fused activation of a result already in the output's type (of shape `typ`, if
    not the output's own yet): a clamp."""
    if op.options.get("FusedActivationFunction", "NONE") == "NONE":
        return value
    if ctx.t(out).quantized:
        low, high = _int_range(ctx, op, out)
        return ctx.w.clamp(value, typ or ctx.typ(out), low, high, "i8")
    low, high = _bounds(ctx, op)
    return ctx.w.clamp(value, typ or ctx.typ(out), max(low, -F32_MAX), min(high, F32_MAX),
                       "f32")


def _bias_value(ctx: _Ctx, op: Operator, data: np.ndarray | None, channels: int) -> str:
    """The bias operand: an int8 layer's numbers (zero point folded in), the model's, or 0."""
    if data is not None:
        return ctx.w.const(data)
    if len(op.inputs) > 2 and op.inputs[2] >= 0:
        return ctx.value(op.inputs[2])
    return ctx.w.const(np.zeros(channels, np.float32))


def _bias_data(ctx: _Ctx, op: Operator, channels: int, dtype: type = np.int32
               ) -> np.ndarray | None:
    """A layer's bias as numbers of `dtype` (zeros without one); None when not constant."""
    if len(op.inputs) < 3 or op.inputs[2] < 0:
        return np.zeros(channels, dtype)
    data = ctx.t(op.inputs[2]).data
    return None if data is None else data.astype(dtype)


def _weights(ctx: _Ctx, op: Operator) -> np.ndarray:
    """The constant weights; int8 weights of a float layer (TFLite's hybrid, weight-only
    quantisation) dequantised to f32 here, so the layer runs in f32."""
    tw = ctx.t(op.inputs[1])
    if tw.data is None:
        raise TfliteError(f"{ctx.graph.path}: {op.name} with non-constant weights is not "
                          "supported")
    if _elem(ctx, op, op.inputs[0]) == "i8" or not tw.quantized:
        return tw.data
    shape = [1] * len(tw.shape)
    shape[tw.axis] = len(tw.scale)
    scale = np.asarray(tw.scale, np.float64).reshape(shape if len(tw.scale) > 1 else [1])
    zero = np.asarray(tw.zero_point, np.float64).reshape(scale.shape)
    return ((tw.data.astype(np.float64) - zero) * scale).astype(np.float32)


def _conv_like(ctx: _Ctx, op: Operator, kind: str, x: str, x_shape: tuple, weights: np.ndarray,
               attrs: str, out_shape: tuple) -> str:
    """conv2d / depthwise_conv2d and, for int8, the per-channel requantisation."""
    tx, tw = ctx.t(op.inputs[0]), ctx.t(op.inputs[1])
    elem = _elem(ctx, op, op.inputs[0])
    channels = out_shape[-1]
    quant = elem == "i8"
    acc = "i32" if quant else "f32"
    zp_x, zp_w = (tx.zero_point[0], tw.zero_point[0]) if quant else (0, 0)
    bias_data = _bias_data(ctx, op, channels) if quant else None
    fixed = {} if bias_data is None else tosa_layout.pruned(weights, kind, bias_data)
    bound = None if bias_data is None else tosa_layout.sum_bound(weights, bias_data, fixed)
    if bias_data is not None and zp_x and not zp_w:
        x, x_shape, attrs, bias_data = tosa_layout.fold_zero_point(
            ctx.w, (x, x_shape, attrs), kind, weights, zp_x, bias_data)
        zp_x = 0
    zx, zw = ctx.w.scalar(zp_x, elem), ctx.w.scalar(zp_w, elem)
    groups = tosa_layout.output_groups(weights) if kind == "conv2d" else 1
    group_bias = bias_data if quant else _bias_data(ctx, op, channels, np.float32)
    if groups > 1 and group_bias is not None:
        # int8 groups requantise their own sums; float ones take the activation after.
        y = tosa_layout.grouped_conv(
            ctx.w, (x, zx, zw), x_shape, weights, group_bias, attrs, out_shape, groups,
            (elem, acc, elem),
            (lambda part, rows: _requantise(ctx, op, part, (*out_shape[:-1], len(rows)),
                                            rows, bound, fixed)) if quant else None)
        return y if quant else _activation(ctx, op, y, op.outputs[0], ttype(out_shape, acc))
    bias = _bias_value(ctx, op, bias_data, channels)
    types = [ttype(x_shape, elem), ttype(weights.shape, elem), ttype((channels,), acc),
             ttype((1,), elem), ttype((1,), elem)]
    result = ctx.w.op(kind, [x, ctx.w.const(weights), bias, zx, zw], types,
                      ttype(out_shape, acc), f"acc_type = {acc}, {attrs}")
    if not quant:
        return _activation(ctx, op, result, op.outputs[0], ttype(out_shape, acc))
    return _requantise(ctx, op, result, out_shape, range(channels), bound, fixed)


def _requantise(ctx: _Ctx, op: Operator, sums: str, shape: tuple, channels: range,
                bound: int | None, fixed: dict[int, int]) -> str:
    """TFLite's requantisation of a convolution's int32 `sums` for output `channels` (in
    double, in_scale * w_scale[c] / out_scale); `fixed`: pruned channels' sums."""
    tx, tw, to = ctx.t(op.inputs[0]), ctx.t(op.inputs[1]), ctx.t(op.outputs[0])
    known = {i: fixed[c] for i, c in enumerate(channels) if c in fixed}
    each = len(tw.scale) > 1 or known  # a known channel needs columns of its own
    scales = [tw.scale[c % len(tw.scale)] for c in channels] if each else tw.scale[:1]
    low, high = _int_range(ctx, op, op.outputs[0])
    return ctx.w.to_int8(sums, shape, [tx.scale[0] * s / to.scale[0] for s in scales],
                         to.zero_point[0], (low, high), fold=not _pooled(ctx, op.outputs[0]),
                         bound=bound, clamped=low >= to.zero_point[0], fixed=known)


def _pooled(ctx: _Ctx, index: int) -> bool:
    """Is tensor `index` read by an average pool?  With the output zero point folded into
    its requantisation, iree-compile moved that requantisation out of kws's last
    convolution into the pool, which then read the int32 sums (cluster4, the first call:
    8,627,755 cycles instead of 8,230,757)."""
    return any(op.name == "AVERAGE_POOL_2D" and index in op.inputs
               for op in ctx.graph.operators)


def _conv2d(ctx: _Ctx, op: Operator) -> None:
    tw = ctx.t(op.inputs[1])
    x, shape, attrs = _window(ctx, op, op.inputs[0], tw.shape[1], tw.shape[2])
    weights = _weights(ctx, op)
    if _elem(ctx, op, op.inputs[0]) == "i8":
        x, shape, weights, attrs = tosa_layout.faster_form(
            ctx.w, x, shape, weights, attrs, ctx.t(op.inputs[0]).zero_point[0])
    ctx.values[op.outputs[0]] = _conv_like(ctx, op, "conv2d", x, shape, weights, attrs,
                                           ctx.t(op.outputs[0]).shape)


def _depthwise(ctx: _Ctx, op: Operator) -> None:
    tw, tx = ctx.t(op.inputs[1]), ctx.t(op.inputs[0])
    _, kh, kw, cm = tw.shape
    channels = tx.shape[3]
    # TFLite [1, KH, KW, C*M] is TOSA's [KH, KW, C, M] read in the same order.
    weights = _weights(ctx, op).reshape(kh, kw, channels, cm // channels)
    x, shape, attrs = _window(ctx, op, op.inputs[0], kh, kw)
    out = ctx.t(op.outputs[0]).shape
    ctx.values[op.outputs[0]] = _conv_like(ctx, op, "depthwise_conv2d", x, shape, weights,
                                           attrs, out)


def _fully_connected(ctx: _Ctx, op: Operator) -> None:
    """A 1x1 convolution over [N, 1, 1, C]: TOSA 1.0 has no fully_connected."""
    tx, tw, to = ctx.t(op.inputs[0]), ctx.t(op.inputs[1]), ctx.t(op.outputs[0])
    elem = _elem(ctx, op, op.inputs[0])
    if op.options.get("WeightsFormat", 0) != 0:
        raise TfliteError(f"{ctx.graph.path}: FULLY_CONNECTED with shuffled weights is not "
                          "supported")
    outs, cin = tw.shape
    batch = int(np.prod(tx.shape)) // cin
    x = ctx.w.reshape(ctx.value(op.inputs[0]), ctx.typ(op.inputs[0]), (batch, 1, 1, cin), elem)
    attrs = "pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>"
    y = _conv_like(ctx, op, "conv2d", x, (batch, 1, 1, cin),
                   _weights(ctx, op).reshape(outs, 1, 1, cin),
                   attrs, (batch, 1, 1, outs))
    ctx.values[op.outputs[0]] = ctx.w.reshape(y, ttype((batch, 1, 1, outs), elem), to.shape,
                                              elem)


def _pool(ctx: _Ctx, op: Operator) -> None:
    o, tx, to = op.options, ctx.t(op.inputs[0]), ctx.t(op.outputs[0])
    elem = _elem(ctx, op, op.inputs[0])
    if tx.quantized and (tx.scale[0], tx.zero_point[0]) != (to.scale[0], to.zero_point[0]):
        raise TfliteError(f"{ctx.graph.path}: {op.name} with different input and output "
                          "quantisation is not supported")
    if (op.name == "AVERAGE_POOL_2D" and elem == "i8"
            and (o["FilterHeight"], o["FilterWidth"]) == tx.shape[1:3]
            and to.shape[1:3] == (1, 1)):
        ctx.values[op.outputs[0]] = tosa_pool.global_average(
            ctx.w, (ctx.value(op.inputs[0]), tx.shape), ctx.typ(op.outputs[0]),
            _int_range(ctx, op, op.outputs[0]))
        return
    x, shape, attrs = _window(ctx, op, op.inputs[0], o["FilterHeight"], o["FilterWidth"])
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
    ctx.values[op.outputs[0]] = _activation(ctx, op, y, op.outputs[0])


def _add(ctx: _Ctx, op: Operator) -> None:
    a, b, out = op.inputs[0], op.inputs[1], op.outputs[0]
    ta, tb, to = ctx.t(a), ctx.t(b), ctx.t(out)
    elem = _elem(ctx, op, a)
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
            _int_range(ctx, op, out), bound=255 << ADD_LEFT_SHIFT)  # each part at most half
        return
    ctx.values[out] = _activation(ctx, op, y, out)


def _reshape(ctx: _Ctx, op: Operator) -> None:
    x, out = op.inputs[0], op.outputs[0]
    elem = _elem(ctx, op, x)
    tx, to = ctx.t(x), ctx.t(out)
    if tx.quantized and (tx.scale, tx.zero_point) != (to.scale, to.zero_point):
        raise TfliteError(f"{ctx.graph.path}: RESHAPE that changes quantisation")
    ctx.values[out] = ctx.w.reshape(ctx.value(x), ctx.typ(x), to.shape, elem)


def _to_f32(ctx: _Ctx, index: int) -> str:
    """An int8 tensor's real values, (q - zp) * scale, in f32."""
    t = ctx.t(index)
    f = ctx.w.op("cast", [ctx.value(index)], [ctx.typ(index)], ttype(t.shape, "f32"))
    zp = ctx.w.const(np.full((1,) * len(t.shape), t.zero_point[0], np.float32))
    scale = ctx.w.const(np.full((1,) * len(t.shape), t.scale[0], np.float32))
    typ, one = ttype(t.shape, "f32"), ttype((1,) * len(t.shape), "f32")
    f = ctx.w.op("sub", [f, zp], [typ, one], typ)
    return ctx.w.op("mul", [f, scale, ctx.w.scalar(0, "i8")], [typ, one, ttype((1,), "i8")], typ)


def _from_f32(ctx: _Ctx, value: str, index: int) -> str:
    """Real values to the int8 tensor `index`: round(x / scale) + zp, saturated."""
    t = ctx.t(index)
    typ, one = ttype(t.shape, "f32"), ttype((1,) * len(t.shape), "f32")
    inv = ctx.w.const(np.full((1,) * len(t.shape), 1.0 / t.scale[0], np.float32))
    zp = ctx.w.const(np.full((1,) * len(t.shape), t.zero_point[0], np.float32))
    y = ctx.w.op("mul", [value, inv, ctx.w.scalar(0, "i8")], [typ, one, ttype((1,), "i8")], typ)
    y = ctx.w.op("add", [y, zp], [typ, one], typ)
    y = ctx.w.clamp(y, typ, QMIN, QMAX, "f32")
    return ctx.w.op("cast", [y], [typ], ttype(t.shape, "i8"))


def _softmax(ctx: _Ctx, op: Operator) -> None:
    x, out = op.inputs[0], op.outputs[0]
    elem, tx, to = _elem(ctx, op, x), ctx.t(x), ctx.t(out)
    beta = float(op.options.get("Beta", 1.0))
    if elem == "i8" and tosa_softmax.int8_fits(tx.shape, to.scale[0], to.zero_point[0]):
        ctx.values[out] = tosa_softmax.int8(ctx.w, ctx.value(x), tx.shape, tx.scale[0] * beta)
        return
    value = _to_f32(ctx, x) if elem == "i8" else ctx.value(x)
    y = tosa_softmax.f32(ctx.w, value, tx.shape, beta)
    ctx.values[out] = _from_f32(ctx, y, out) if elem == "i8" else y


def _dequantize(ctx: _Ctx, op: Operator) -> None:
    _elem(ctx, op, op.inputs[0])
    ctx.values[op.outputs[0]] = _to_f32(ctx, op.inputs[0])


def _quantize(ctx: _Ctx, op: Operator) -> None:
    x, out = op.inputs[0], op.outputs[0]
    _elem(ctx, op, out)
    if _elem(ctx, op, x) == "f32":
        ctx.values[out] = _from_f32(ctx, ctx.value(x), out)
        return
    tx, to = ctx.t(x), ctx.t(out)
    value = ctx.w.widen(ctx.value(x), tx.shape, tx.zero_point[0])
    ctx.values[out] = ctx.w.to_int8(value, to.shape, [tx.scale[0] / to.scale[0]],
                                    to.zero_point[0], (QMIN, QMAX), bound=255)


TRANSLATIONS: dict[str, Callable[[_Ctx, Operator], None]] = {
    "CONV_2D": _conv2d, "DEPTHWISE_CONV_2D": _depthwise, "FULLY_CONNECTED": _fully_connected,
    "AVERAGE_POOL_2D": _pool, "MAX_POOL_2D": _pool, "ADD": _add, "RESHAPE": _reshape,
    "SOFTMAX": _softmax, "QUANTIZE": _quantize, "DEQUANTIZE": _dequantize,
}


def unsupported(graph: TfliteGraph) -> list[str]:
    """The graph's operators the translator has no translation for, each named once."""
    return sorted({op.name for op in graph.operators if op.name not in TRANSLATIONS})


def translate(graph: TfliteGraph, function: str = "main") -> str:
    """The TOSA module of the graph: one function from its inputs to its outputs."""
    missing = unsupported(graph)
    if missing:
        raise TfliteError(f"{graph.path}: the TFLite operator{'s' if len(missing) > 1 else ''} "
                          f"{', '.join(missing)} cannot be imported (the TFLite to TOSA "
                          f"translator supports {', '.join(sorted(TRANSLATIONS))})")
    ctx = _Ctx(graph)
    for n, index in enumerate(graph.inputs):
        ctx.values[index] = f"%arg{n}"
    for op in graph.operators:
        ctx.w.location = output = graph.tensors[op.outputs[0]].name
        try:
            TRANSLATIONS[op.name](ctx, op)
        except (KeyError, IndexError, TypeError, ValueError, AttributeError) as err:
            raise TfliteError(f"{graph.path}: {op.name} (output {output!r}) cannot be "
                              f"translated: {type(err).__name__}: {err}") from None
    args = [ctx.typ(i) for i in graph.inputs]
    results = [ctx.typ(i) for i in graph.outputs]
    return module(function, args, results, ctx.w.lines, [ctx.value(i) for i in graph.outputs])
