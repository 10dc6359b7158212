"""Small int8 convolutions whose weights carry the first steps of their requantisation.

requant_generic multiplies every sum by 4 (a `slli` per output) and shifts each output
channel right by its own amount (a register per channel, reloaded per register tile).
Here the weights are widened to int16 and each output channel's scaled by 2^(2 + d_c),
the bias too, so that the sums arrive as 4x * 2^d_c; with d_c = E - e_c every
channel then shifts right by the same 1 + E, an immediate (requant_generic.scaled_plan:
the same floors, so TFLite's bits).  TOSA has no int8 x int16 convolution, so these are
written in linalg.  Pointwise and depthwise layers: a conv2d of several kernel rows ran
slower so (tflite_tosa._scaling).

Only for layers of at most MAX_WEIGHT_BYTES of int8 weights: the bytes double, and a
board that stages each dispatch's weights (cluster4, placement `large`) copies them at
every call.
"""

from __future__ import annotations

import numpy as np

from ireerv.formats import requant_generic
from ireerv.formats.tosa_text import Writer, ttype

MAX_WEIGHT_BYTES = 1024
INT16 = (-(1 << 15), (1 << 15) - 1)
KINDS = {"conv2d": "linalg.conv_2d_nhwc_hwcf",
         "depthwise_conv2d": "linalg.depthwise_conv_2d_nhwc_hwc"}


def left_shifts(rows: np.ndarray, pairs: list[tuple[int, int]], bound: int,
                requant: dict) -> list[int] | None:
    """Per output channel (a row of `rows`, its weights) the left shift 2 + d_c that
    gives every channel the same right shift, or None where the layer is too large, a
    scaled weight leaves int16 or requant_generic cannot take the scaled sums
    (`requant`: the rest of its plan's arguments)."""
    if rows.size > MAX_WEIGHT_BYTES or not pairs:
        return None
    pairs = pairs * len(rows) if len(pairs) == 1 else pairs
    right = [-e for _, e in pairs]
    top = max(right)
    left = [2 + top - e for e in right]
    for row, shift in zip(rows, left, strict=True):
        low, high = int(row.min(initial=0)) << shift, int(row.max(initial=0)) << shift
        if low < INT16[0] or high > INT16[1]:
            return None
    plan = requant_generic.scaled_plan(pairs, bound=bound, left=left, **requant)
    return left if plan is not None else None


def convolution(w: Writer, kind: str, x: tuple[str, tuple], weights: np.ndarray,
                bias: np.ndarray, window: tuple[tuple[int, int], tuple[int, int]],
                left: list[int], out_shape: tuple) -> tuple[str, list[int]]:
    """The int32 sums without their bias of an unpadded convolution of zero points 0
    (TOSA's weights: OHWI, or [KH, KW, C, 1] for depthwise), each output channel c's
    times 2^left[c] (linalg, with the scaled int16 weights), and the bias scaled the
    same, for the requantisation to add: as a column beside its others the layers ran
    faster than with a tosa.add of its own (vww's 24x24 1x1 layer: 1,154,772 cycles
    against 1,178,692, one hart)."""
    value, shape = x
    shifts = np.array(left, dtype=np.int64)
    if kind == "conv2d":
        filt = (weights.astype(np.int64) << shifts[:, None, None, None]).transpose(1, 2, 3, 0)
    else:
        filt = weights[..., 0].astype(np.int64) << shifts
    filt_name = w.const(filt.astype(np.int16))
    out = ttype(out_shape, "i32")
    strides, dilations = window
    empty, zero, fill, sums = w.fresh(), w.fresh(), w.fresh(), w.fresh()
    w.lines += [
        f"    {empty} = tensor.empty() : {out}",
        f"    {zero} = arith.constant 0 : i32",
        f"    {fill} = linalg.fill ins({zero} : i32) outs({empty} : {out}) -> {out}",
        f"    {sums} = {KINDS[kind]} {{dilations = dense<[{dilations[0]}, {dilations[1]}]> : "
        f"tensor<2xi64>, strides = dense<[{strides[0]}, {strides[1]}]> : tensor<2xi64>}} "
        f"ins({value}, {filt_name} : {ttype(shape, 'i8')}, {ttype(filt.shape, 'i16')}) "
        f"outs({fill} : {out}) -> {out}{w.loc()}",
    ]
    return sums, [int(b) for b in (bias.astype(np.int64) << shifts)]
