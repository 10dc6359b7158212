"""Pruned output channels left out of an int8 convolution's multiply-accumulates.

A pruned output channel (every weight 0) sums to its bias whatever the input, so its int8
output is one number: TFLite's requantisation of that bias.  vww's 1x1 layers from its
sixth on have 4 of 64 up to 234 of 256 such channels, and each cost as many MACs as a
live one.  A layer where at least a quarter of the channels are pruned computes only
the live ones (with a few pruned ones, which its requantisation treats as constants, to
make their number a multiple of TILE), then places every output channel: a computed
one from the convolution's result, a pruned one its number.  The outputs are the same
bits: each computed channel's sum is the same sum.
"""

from __future__ import annotations

import math
from collections.abc import Collection

import numpy as np

from ireerv.formats.tflite_math import quantize_multiplier, requantise
from ireerv.formats.tosa_layout import CHANNEL_TILE
from ireerv.formats.tosa_text import Writer, ttype

TILE = 4  # output channels a kernel's register tile holds (the board's tiles)
# The op's mark: a board's transform spec can hand it to a kernel of its own.
TAG = "ireerv.place"


def computed_rows(pruned: Collection[int], channels: int) -> list[int] | None:
    """The output channels to compute, in order, or None where leaving the others out
    does not pay: fewer than a quarter of them pruned, or none live."""
    live = [c for c in range(channels) if c not in pruned]
    if not live or 4 * (channels - len(live)) < channels:
        return None
    # More than a workgroup's channels: whole workgroups (a partial one runs slow code).
    tile = TILE if len(live) <= CHANNEL_TILE else CHANNEL_TILE
    rows = sorted(live + sorted(pruned)[:-len(live) % tile])
    return rows if len(rows) < channels else None


def pruned_outputs(biases: dict[int, int], reals: dict[int, float], zero_point: int,
                   limits: tuple[int, int]) -> dict[int, int]:
    """Each pruned channel's int8 output: its bias requantised as TFLite does (`reals`:
    in_scale * w_scale[c] / out_scale), plus the zero point, clamped to `limits`."""
    return {c: requantise(bias, quantize_multiplier(reals[c]), zero_point, limits)
            for c, bias in biases.items()}


def place(w: Writer, part: tuple[str, tuple[int, ...]], shape: tuple[int, ...],
          positions: list[int], numbers: list[int]) -> str:
    """The int8 output of `shape` whose channel c is channel positions[c] of `part`
    (value, shape), or numbers[c] where positions[c] is -1.  The op places rows of
    pixels, between two reshapes: over NHWC, IREE made vww's five such ops one
    dispatch of dynamic shape, and on cluster4-pulp vww took 7,357,898 cycles a later
    call, 7,215,468 so (hart 0 waiting in the harts' barrier 759,160 -> 379,377)."""
    value, part_shape = part
    pixels = math.prod(shape[:-1])
    rows = w.reshape(value, ttype(part_shape, "i8"), (pixels, part_shape[-1]), "i8")
    columns = (w.const(np.array(positions, np.int32)), w.const(np.array(numbers, np.int8)))
    name = w.fresh()
    w.lines += place_lines(name, (rows, (pixels, part_shape[-1])), (pixels, shape[-1]),
                           columns, w.loc())
    return w.reshape(name, ttype((pixels, shape[-1]), "i8"), shape, "i8")


def place_lines(name: str, part: tuple[str, tuple[int, ...]], shape: tuple[int, ...],
                columns: tuple[str, str], loc: str) -> list[str]:
    """`%name = linalg.generic`: the int8 output of `shape` (channels last) whose channel
    c is channel positions[c] of `part` (the computed channels: SSA name, shape), or
    values[c] where positions[c] is -1.  `columns`: the constants positions (i32) and
    values (i8), one per output channel."""
    value, part_shape = part
    positions, values = columns
    channels, rank = shape[-1], len(shape)
    out = f"tensor<{'x'.join(str(d) for d in shape)}xi8>"
    computed = f"tensor<{'x'.join(str(d) for d in part_shape)}xi8>"
    dims = ", ".join(f"d{i}" for i in range(rank))
    channel = f"affine_map<({dims}) -> (d{rank - 1})>"
    iterators = ", ".join(['"parallel"'] * rank)
    v = {k: f"{name}_{k}" for k in ("empty", "p", "k", "o", "c0", "live", "at", "index",
                                     "read", "byte")}
    axes = [f"{name}_i{i}" for i in range(rank - 1)]
    return [
        f"    {v['empty']} = tensor.empty() : {out}",
        f"    {name} = linalg.generic {{indexing_maps = [{channel}, {channel}, "
        f"affine_map<({dims}) -> ({dims})>], iterator_types = "
        f"[{iterators}]}} ins({positions}, {values} : "
        f"tensor<{channels}xi32>, tensor<{channels}xi8>) outs({v['empty']} : {out}) "
        f"attrs = {{{TAG}}} {{",
        f"    ^bb0({v['p']}: i32, {v['k']}: i8, {v['o']}: i8):",
        *(f"      {a} = linalg.index {i} : index" for i, a in enumerate(axes)),
        f"      {v['c0']} = arith.constant 0 : i32",
        f"      {v['live']} = arith.cmpi sge, {v['p']}, {v['c0']} : i32",
        f"      {v['at']} = arith.maxsi {v['p']}, {v['c0']} : i32",
        f"      {v['index']} = arith.index_cast {v['at']} : i32 to index",
        f"      {v['read']} = tensor.extract {value}[{', '.join(axes)}, {v['index']}] "
        f": {computed}",
        f"      {v['byte']} = arith.select {v['live']}, {v['read']}, {v['k']} : i8",
        f"      linalg.yield {v['byte']} : i8",
        f"    }} -> {out}{loc}",
    ]
