"""Pooling in TOSA with TFLite's int8 rounding."""

from __future__ import annotations

import numpy as np

from ireerv.formats.tosa_text import Writer, ttype


def global_average(w: Writer, x: tuple[str, tuple], out_type: str,
                   limits: tuple[int, int]) -> str:
    """TFLite's int8 average over the whole plane, exactly: the int32 sum of the raw
    values divided by the count, rounded half away from zero (TOSA's avg_pool2d rounds
    through a reciprocal multiplier instead).  `x`: the int8 input and its NHWC shape;
    `limits`: the output's clamp."""
    value, shape = x
    n, h, width, c = shape
    typ = ttype(shape, "i32")
    value = w.op("cast", [value], [ttype(shape, "i8")], typ)
    rows, cell = ttype((n, 1, width, c), "i32"), ttype((n, 1, 1, c), "i32")
    value = w.op("reduce_sum", [value], [typ], rows, "axis = 1 : i32")
    total = w.op("reduce_sum", [value], [rows], cell, "axis = 2 : i32")
    count = h * width
    half, zero, div = (w.const(np.full((1, 1, 1, 1), v, np.int32))
                       for v in (count // 2, 0, count))
    one = ttype((1, 1, 1, 1), "i32")
    up = w.op("add", [total, half], [cell, one], cell)
    down = w.op("sub", [total, half], [cell, one], cell)
    positive = w.op("greater", [total, zero], [cell, one], ttype((n, 1, 1, c), "i1"))
    value = w.op("select", [positive, up, down], [ttype((n, 1, 1, c), "i1"), cell, cell], cell)
    value = w.op("intdiv", [value, div], [cell, one], cell)
    value = w.clamp(value, cell, *limits, "i32")
    return w.op("cast", [value], [cell], out_type)
