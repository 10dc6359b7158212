"""Int8 convolutions written in another form with the same sums (integer sums do not
depend on their order, so the bits stay TFLite's): a form whose kernel loop is
faster, or whose weights per dispatch are fewer.  Float layers keep their form (their
sums would round differently) but may be split into groups of output channels, which
leaves every output's sum as it was."""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from ireerv.formats.tosa_text import Writer, ttype


def _unpadded(stride: tuple[int, int], dilation: tuple[int, int]) -> str:
    """Window attributes without padding (tflite_context.window's form)."""
    return (f"pad = array<i64: 0, 0, 0, 0>, stride = array<i64: {stride[0]}, {stride[1]}>, "
            f"dilation = array<i64: {dilation[0]}, {dilation[1]}>")


POINTWISE = _unpadded((1, 1), (1, 1))

# Weights per convolution dispatch, at most: on boards that stage a dispatch's weights
# into the scratchpad (cluster4, placement `large`), the staging area must fit beside
# the activations; vww's 256x256 layer (64 KiB) did not.
GROUP_BYTES = 32 * 1024
# Output channels per workgroup of the tile library's convolutions (bsp/common/iree-tiles.mlir).
CHANNEL_TILE = 64


def sum_bound(weights: np.ndarray, bias: np.ndarray, fixed: dict[int, int]) -> int:
    """The largest |int32 sum| of an int8 layer (a bias for each output) but those of the
    `fixed` outputs: each product at most 255 (an input less its zero point) x 128, plus
    the largest bias."""
    live = np.delete(bias.astype(np.int64), list(fixed))
    return 255 * 128 * (weights.size // bias.size) + int(np.abs(live).max(initial=0))


def per_output(weights: np.ndarray, kind: str) -> np.ndarray:
    """Each output channel's weights as a row: OHWI for conv2d, [KH, KW, C, M] for
    depthwise_conv2d (output c * M + m)."""
    if kind == "conv2d":
        return weights.reshape(weights.shape[0], -1)
    return weights.reshape(-1, weights.shape[2] * weights.shape[3]).T


def pruned(weights: np.ndarray, kind: str, bias: np.ndarray) -> dict[int, int]:
    """The outputs whose weights are all 0, each with its sum: its bias (whatever the
    input, and whatever its zero point)."""
    idle = np.flatnonzero(~per_output(weights, kind).any(axis=1))
    return {int(c): int(bias[c]) for c in idle}


_WINDOW = re.compile(r"pad = array<i64: (\d+), (\d+), (\d+), (\d+)>, "
                     r"stride = array<i64: (\d+), (\d+)>, dilation = array<i64: (\d+), (\d+)>")


def parse_window(attrs: str) -> tuple[int, ...]:
    """top, bottom, left, right, stride h, stride w, dilation h, dilation w."""
    return tuple(int(v) for v in _WINDOW.fullmatch(attrs).groups())


def _pad(w: Writer, x: str, shape: tuple, pads: tuple[int, ...], zero_point: int
         ) -> tuple[str, tuple]:
    """The input padded (top, bottom, left, right) with its zero point, and its shape.
    IREE copies the input into the padded buffer element by element; with a multiple of
    4 channels each pixel's bytes are copied as words (the zero point in each of a
    word's bytes): vww's copies into its padded buffers took 3.8 cycles a byte."""
    n, h, width, c = shape
    top, bottom, left, right = pads
    padded = (n, h + top + bottom, width + left + right, c)
    unit, elem = (4, "i32") if c % 4 == 0 else (1, "i8")
    fill = int.from_bytes(bytes([zero_point & 0xFF] * unit), "little", signed=True)
    words, wide = (*shape[:3], c // unit), (*padded[:3], c // unit)
    if unit > 1:
        x = w.bitcast(x, ttype(shape, "i8"), ttype(words, elem))
    if n == 1:
        y = _pad_rows(w, x, words, pads, w.scalar(fill, elem), elem)
    else:
        amounts = w.shape((0, 0, top, bottom, left, right, 0, 0))
        y = w.op("pad", [x, amounts, w.scalar(fill, elem)],
                 [ttype(words, elem), "!tosa.shape<8>", ttype((1,), elem)], ttype(wide, elem))
    if unit > 1:
        y = w.bitcast(y, ttype(wide, elem), ttype(padded, "i8"))
    return y, padded


def _pad_rows(w: Writer, x: str, words: tuple, pads: tuple[int, ...], fill: str,
              elem: str) -> str:
    """_pad of one image as rows of pixels: [H][W * K] padded by rows and by K times the
    columns, so that each row's copy into the padded buffer is one contiguous run."""
    _, h, width, k = words
    top, bottom, left, right = pads
    rows = w.reshape(x, ttype(words, elem), (h, width * k), elem)
    wide = (h + top + bottom, (width + left + right) * k)
    y = w.op("pad", [rows, w.shape((top, bottom, left * k, right * k)), fill],
             [ttype((h, width * k), elem), "!tosa.shape<4>", ttype((1,), elem)],
             ttype(wide, elem))
    return w.reshape(y, ttype(wide, elem), (1, wide[0], width + left + right, k), elem)


def faster_form(w: Writer, x: str, shape: tuple, weights: np.ndarray, attrs: str,
                zero_point: int) -> tuple[str, tuple, np.ndarray, str]:
    """An int8 conv2d's input, input shape, OHWI weights and window attributes in the
    form whose kernel loop is fastest; `zero_point` is the input's."""
    if attrs == POINTWISE and weights.shape[1:3] == (1, 1) and shape[3] % 2 == 0:
        return channel_pairs(w, x, shape, weights)
    top, bottom, left, right, sh, sw, dh, dw = parse_window(attrs)
    if sw == 2 and dw == 1 and weights.shape[2] % 2 == 0 and (shape[2] + left + right) % 2 == 0:
        return column_pairs(w, (x, zero_point), shape, weights, (top, bottom, left, right),
                            (sh, dh))
    return x, shape, weights, attrs


def fold_zero_point(w: Writer, window: tuple[str, tuple, str], kind: str, weights: np.ndarray,
                    zero_point: int, bias: np.ndarray) -> tuple[str, tuple, str, np.ndarray]:
    """An int8 convolution of input zero point zp as one of zero point 0, its bias less
    zp times each output's sum of weights: sum((x - zp) w) = sum(x w) - zp sum(w).  IREE
    adds that term itself at every output (a load and an add) from sums it keeps in
    memory.  Padding becomes explicit, with zp (a padded x then adds zp w, which the
    bias takes off as for any other).  `window`: the input, its shape, the attributes."""
    x, shape, attrs = window
    *pads, sh, sw, dh, dw = parse_window(attrs)
    sums = per_output(weights, kind).sum(axis=1, dtype=np.int64)
    folded = bias.astype(np.int64) - zero_point * sums
    if np.abs(folded).max(initial=0) >= 1 << 31:
        return x, shape, attrs, bias
    if any(pads):
        x, shape = _pad(w, x, shape, tuple(pads), zero_point)
        attrs = _unpadded((sh, sw), (dh, dw))
    return x, shape, attrs, folded.astype(np.int32)


def column_pairs(w: Writer, operands: tuple[str, int], shape: tuple, weights: np.ndarray,
                 pads: tuple[int, int, int, int], rows: tuple[int, int]
                 ) -> tuple[str, tuple, np.ndarray, str]:
    """A convolution of column stride 2 and an even kernel width over [N, H, W, C] as one
    of column stride 1 over [N, H, W/2, 2C] (each pair of columns, the same bytes read
    as one of twice the channels) with half the kernel width: the input padded first
    (with the input's zero point, which the convolution subtracts to 0).  kws's first
    layer (10x4, stride 2, one channel): the kernel's loop had its window of 12
    columns loaded as words and cut into bytes with shifts (71 instructions per 20
    MACs); now 16 byte loads, 59 instructions."""
    x, zero_point = operands
    x, padded = _pad(w, x, shape, pads, zero_point)
    folded = (padded[0], padded[1], padded[2] // 2, 2 * shape[3])
    x = w.reshape(x, ttype(padded, "i8"), folded, "i8")
    o, kh, kw, c = weights.shape
    attrs = _unpadded((rows[0], 1), (rows[1], 1))
    return x, folded, weights.reshape(o, kh, kw // 2, 2 * c), attrs


def channel_pairs(w: Writer, x: str, shape: tuple, weights: np.ndarray
                  ) -> tuple[str, tuple, np.ndarray, str]:
    """An int8 1x1 convolution as two taps of half the channels each: [N, H, W, C] read
    as [N, H, 2W, C/2] (the same bytes) under a 1x2 kernel of stride 2.  The kernel's
    loop then takes two input channels a step, each as its own byte load (a step of
    two adjacent channels loads them as one halfword and two shifts), and shares its
    branch and pointer steps between them (bsp/common/iree-tiles.mlir)."""
    n, h, width, c = shape
    paired = (n, h, 2 * width, c // 2)
    x = w.reshape(x, ttype(shape, "i8"), paired, "i8")
    return x, paired, weights.reshape(weights.shape[0], 1, 2, c // 2), _unpadded((1, 2), (1, 1))


def output_groups(weights: np.ndarray) -> int:
    """How many groups of output channels keep each group's weights within GROUP_BYTES:
    the fewest that divide the channels into whole workgroup tiles (a partial tile runs
    slow code: ad's 640 outputs in 4 groups of 160 took 10.4 instructions per MAC, in 5
    of 128 about 4).  1 when the weights fit or no such grouping exists."""
    channels = weights.shape[0]
    for groups in range(2, channels + 1) if weights.nbytes > GROUP_BYTES else ():
        per = channels // groups
        if (channels % groups == 0 and weights.nbytes // groups <= GROUP_BYTES
                and (per % CHANNEL_TILE == 0 or CHANNEL_TILE % per == 0)):
            return groups
    return 1


def grouped_conv(w: Writer, operands: tuple[str, str, str], x_shape: tuple,
                 weights: np.ndarray, bias: np.ndarray, attrs: str, out_shape: tuple,
                 groups: int, elems: tuple[str, str, str],
                 finish: Callable[[str, range], str] | None = None) -> str:
    """A conv2d as `groups` convolutions over consecutive output channels, each one's
    sums finished (`finish(sums, channels)`: an int8 layer's requantisation) and then
    concatenated: each dispatch binds only its group's weights and writes its own
    outputs (int32 sums concatenated had their requantisation fused into the next
    layer's dispatch).  Each output's sum is the same sum in the same order, so float
    layers may be grouped too.  `operands`: the input and its and the weights' zero
    points; `elems`: the input's, the sums' and the finished outputs' element types."""
    x, zx, zw = operands
    elem, acc, out_elem = elems
    per = out_shape[-1] // groups
    part = ttype((*out_shape[:-1], per), acc)
    results = []
    for g in range(groups):
        rows = range(g * per, (g + 1) * per)
        part_w = np.ascontiguousarray(weights[g * per:(g + 1) * per])
        types = [ttype(x_shape, elem), ttype(part_w.shape, elem), ttype((per,), acc),
                 ttype((1,), elem), ttype((1,), elem)]
        sums = w.op("conv2d", [x, w.const(part_w), w.const(bias[g * per:(g + 1) * per]), zx, zw],
                    types, part, f"acc_type = {acc}, {attrs}")
        results.append(finish(sums, rows) if finish else sums)
    part = ttype((*out_shape[:-1], per), out_elem)
    return w.op("concat", results, [part] * groups, ttype(out_shape, out_elem), "axis = 3 : i32")
