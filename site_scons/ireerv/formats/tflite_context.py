"""The TFLite translator's context: the graph, the Writer and each tensor's value, and what
every operator's translation reads of them (element types, windows, activation ranges,
biases and weights)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ireerv.formats.tflite_math import round_half_away
from ireerv.formats.tflite_reader import Operator, Tensor, TfliteError, TfliteGraph
from ireerv.formats.tosa_text import F32_MAX, Writer, ttype, window_pads

QMIN, QMAX = -128, 127


@dataclass
class Context:
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


def elem_type(ctx: Context, op: Operator, index: int) -> str:
    t = ctx.t(index)
    if t.dtype == "f32" and not t.quantized:
        return "f32"
    if t.dtype == "i8" and t.quantized:
        return "i8"
    kind = f"{t.dtype}, quantised" if t.quantized else t.dtype
    raise TfliteError(f"{ctx.graph.path}: {op.name} on tensor {t.name!r} of type {kind} is not "
                      "supported (only f32, and int8 with scale and zero point)")


def window(ctx: Context, op: Operator, x: int, kh: int, kw: int) -> tuple[str, tuple, str]:
    """The input of a windowed op (cropped if TOSA needs it) and its pad/stride/dilation."""
    o, t = op.options, ctx.t(x)
    sh, sw = o["StrideH"], o["StrideW"]
    dh, dw = o.get("DilationHFactor", 1), o.get("DilationWFactor", 1)
    if o["Padding"] not in ("SAME", "VALID", "EXPLICIT"):
        raise TfliteError(f"{ctx.graph.path}: {op.name} with padding {o['Padding']}")
    given = o.get("Pads", (0, 0, 0, 0))  # EXPLICIT's (an ONNX model's): top, bottom, left, right
    _, top, bottom, crop_h = window_pads(o["Padding"], t.shape[1], kh, sh, dh, given[:2])
    _, left, right, crop_w = window_pads(o["Padding"], t.shape[2], kw, sw, dw, given[2:])
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


def bounds(ctx: Context, op: Operator) -> tuple[float, float]:
    act = op.options.get("FusedActivationFunction", "NONE")
    if act == "BOUNDS":  # an ONNX Relu or Clip: its own bounds
        return op.options["ActivationBounds"]
    if act not in _BOUNDS:
        raise TfliteError(f"{ctx.graph.path}: {op.name} with fused activation {act} is not "
                          "supported")
    return _BOUNDS[act]


def int_range(ctx: Context, op: Operator, out: int) -> tuple[int, int]:
    """TFLite's CalculateActivationRangeQuantized: the activation's bounds as int8."""
    low, high = bounds(ctx, op)
    t = ctx.t(out)
    scale, zp = t.scale[0], t.zero_point[0]
    qlow = QMIN if low == -math.inf else max(QMIN, zp + round_half_away(low / scale))
    qhigh = QMAX if high == math.inf else min(QMAX, zp + round_half_away(high / scale))
    return qlow, qhigh


def activation(ctx: Context, op: Operator, value: str, out: int, typ: str = "") -> str:
    """The fused activation of a result already in the output's type (of shape `typ`, if
    not the output's own yet): a clamp."""
    if op.options.get("FusedActivationFunction", "NONE") == "NONE":
        return value
    if ctx.t(out).quantized:
        low, high = int_range(ctx, op, out)
        return ctx.w.clamp(value, typ or ctx.typ(out), low, high, "i8")
    low, high = bounds(ctx, op)
    return ctx.w.clamp(value, typ or ctx.typ(out), max(low, -F32_MAX), min(high, F32_MAX),
                       "f32")


def bias_value(ctx: Context, op: Operator, data: np.ndarray | None, channels: int) -> str:
    """The bias operand: an int8 layer's numbers (zero point folded in), the model's, or 0."""
    if data is not None:
        return ctx.w.const(data)
    if len(op.inputs) > 2 and op.inputs[2] >= 0:
        return ctx.value(op.inputs[2])
    return ctx.w.const(np.zeros(channels, np.float32))


def bias_data(ctx: Context, op: Operator, channels: int, dtype: type = np.int32
               ) -> np.ndarray | None:
    """A layer's bias as numbers of `dtype` (zeros without one); None when not constant."""
    if len(op.inputs) < 3 or op.inputs[2] < 0:
        return np.zeros(channels, dtype)
    data = ctx.t(op.inputs[2]).data
    return None if data is None else data.astype(dtype)


def weights_of(ctx: Context, op: Operator) -> np.ndarray:
    """The constant weights; int8 weights of a float layer (TFLite's hybrid, weight-only
    quantisation) dequantised to f32 here, so the layer runs in f32."""
    tw = ctx.t(op.inputs[1])
    if tw.data is None:
        raise TfliteError(f"{ctx.graph.path}: {op.name} with non-constant weights is not "
                          "supported")
    if elem_type(ctx, op, op.inputs[0]) == "i8" or not tw.quantized:
        return tw.data
    shape = [1] * len(tw.shape)
    shape[tw.axis] = len(tw.scale)
    scale = np.asarray(tw.scale, np.float64).reshape(shape if len(tw.scale) > 1 else [1])
    zero = np.asarray(tw.zero_point, np.float64).reshape(scale.shape)
    return ((tw.data.astype(np.float64) - zero) * scale).astype(np.float32)
