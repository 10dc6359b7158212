"""Softmax over the last axis in TOSA: in f32, and for int8 in integers only.

An int8 softmax reads each input's difference from its row's largest as an index
into a table of exponentials (2^16 exp(beta * scale * d), rounded), sums them in
int32 and divides: each probability in 1/256 steps, rounded half up.  LiteRT
computes the same from a float table; the two agree within one step.  No
soft-float call remains (kws on cluster4: the f32 softmax of 12 logits took
73,961 cycles)."""

from __future__ import annotations

import math

import numpy as np

from ireerv.formats.tosa_text import Writer, ttype

_ONE = 1 << 16    # the table's 1.0
_LONGEST = 4096   # elements a row: their sum stays below 2^31 with room


def int8_fits(shape: tuple[int, ...], out_scale: float, out_zero_point: int) -> bool:
    """Whether an int8 softmax has the output LiteRT's kernels require (1/256, -128)
    and rows short enough for the integer form."""
    return math.isclose(out_scale, 1 / 256) and out_zero_point == -128 and shape[-1] <= _LONGEST


def int8(w: Writer, x: str, shape: tuple[int, ...], scale_beta: float) -> str:
    """int8 probabilities of the int8 logits `x` (input scale times beta: `scale_beta`)."""
    rank, count = len(shape), int(np.prod(shape))
    typ, reduced = ttype(shape, "i32"), ttype((*shape[:-1], 1), "i32")
    axis = f"axis = {rank - 1} : i32"
    value = w.op("cast", [x], [ttype(shape, "i8")], typ)
    top = w.op("reduce_max", [value], [typ], reduced, axis)
    d = w.op("sub", [value, top], [typ, reduced], typ)
    offset = w.const(np.full((1,) * rank, 255, np.int32))
    index = w.op("add", [d, offset], [typ, ttype((1,) * rank, "i32")], typ)
    flat = w.reshape(index, typ, (1, count), "i32")
    exps = np.round(_ONE * np.exp(scale_beta * (np.arange(256) - 255.0)))
    table = w.const(exps.astype(np.int32).reshape(1, 256, 1))
    e = w.op("gather", [table, flat], [ttype((1, 256, 1), "i32"), ttype((1, count), "i32")],
             ttype((1, count, 1), "i32"))
    e = w.reshape(e, ttype((1, count, 1), "i32"), shape, "i32")
    total = w.op("reduce_sum", [e], [typ], reduced, axis)
    one = ttype((1,) * rank, "i32")
    steps = w.op("mul", [e, w.const(np.full((1,) * rank, 256, np.int32)), w.scalar(0, "i8")],
                 [typ, one, ttype((1,), "i8")], typ)
    half = w.op("arithmetic_right_shift", [total, w.const(np.ones((1,) * rank, np.int32))],
                [reduced, one], reduced, "round = false")
    steps = w.op("add", [steps, half], [typ, reduced], typ)
    q = w.op("intdiv", [steps, total], [typ, reduced], typ)
    q = w.op("add", [q, w.const(np.full((1,) * rank, -128, np.int32))], [typ, one], typ)
    q = w.clamp(q, typ, -128, 127, "i32")
    return w.op("cast", [q], [typ], ttype(shape, "i8"))


def f32(w: Writer, value: str, shape: tuple[int, ...], beta: float) -> str:
    """f32 probabilities of the f32 logits `value`."""
    typ, axis = ttype(shape, "f32"), len(shape) - 1
    reduced = ttype((*shape[:-1], 1), "f32")
    shift = w.scalar(0, "i8")
    top = w.op("reduce_max", [value], [typ], reduced, f"axis = {axis} : i32")
    d = w.op("sub", [value, top], [typ, reduced], typ)
    if beta != 1.0:
        b = w.const(np.full((1,) * len(shape), beta, np.float32))
        d = w.op("mul", [d, b, shift], [typ, ttype((1,) * len(shape), "f32"),
                                        ttype((1,), "i8")], typ)
    e = w.op("exp", [d], [typ], typ)
    total = w.op("reduce_sum", [e], [typ], reduced, f"axis = {axis} : i32")
    inv = w.op("reciprocal", [total], [reduced], reduced)
    return w.op("mul", [e, inv, shift], [typ, reduced, ttype((1,), "i8")], typ)
