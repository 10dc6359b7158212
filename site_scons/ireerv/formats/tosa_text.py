"""Writing TOSA (MLIR text) for the TFLite translator: values, types, constants, rescales.

IREE compiles TOSA input directly; the text written here is the TOSA 1.0 form
of the pinned compiler (operands for zero points and shapes, `values` on
constants).
"""

from __future__ import annotations

import math

import numpy as np

from ireerv.formats import requant_generic
from ireerv.formats.tflite_math import quantize_multiplier, tflite_multiply

MLIR_TYPES = {np.dtype(np.float32): "f32", np.dtype(np.int32): "i32", np.dtype(np.int8): "i8",
              np.dtype(np.int16): "i16", np.dtype(np.int64): "i64", np.dtype(np.uint8): "ui8"}
F32_MAX = 3.4028234663852886e38


def ttype(shape: tuple[int, ...], elem: str) -> str:
    dims = "x".join(str(d) for d in shape)
    return f"tensor<{dims}x{elem}>" if shape else f"tensor<{elem}>"


def _float(value: float) -> str:
    return f"{float(np.float32(value)):.9e}"


def window_pads(padding: str, size: int, k: int, s: int, d: int,
                given: tuple[int, int] = (0, 0)) -> tuple[int, int, int, int]:
    """TFLite's SAME or VALID padding of one dimension (or EXPLICIT: `given`, before and
    after), for TOSA: (output size, pad before, pad after, rows to crop at the end).

    TOSA wants the padded extent to divide exactly by the stride: trailing rows no
    output reads are dropped (first from the padding, then from the input)."""
    eff = (k - 1) * d + 1
    if padding == "SAME":
        out = -(-size // s)
        total = max((out - 1) * s + eff - size, 0)
        lo, hi = total // 2, total - total // 2
    elif padding == "EXPLICIT":
        lo, hi = given
        out = (size + lo + hi - eff) // s + 1
    else:
        out, lo, hi = -(-(size - eff + 1) // s), 0, 0
    rem = (size - 1 + lo + hi - (eff - 1)) % s
    cut = min(rem, hi)
    return out, lo, hi - cut, rem - cut


class Writer:
    """One function body: numbered SSA values and the lines that define them."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._count = 0
        self._splats: dict[tuple[str, str], str] = {}  # constants written, by value
        self._types: dict[str, str] = {}  # the type of each constant
        # The TFLite operator being written (its output tensor's name): each op carries it
        # as its MLIR location, so a dispatch can be traced back to the layers in it.
        self.location = ""

    def fresh(self) -> str:
        self._count += 1
        return f"%v{self._count}"

    def op(self, text: str, operands: list[str], types: list[str], result: str,
           attrs: str = "") -> str:
        """`%r = tosa.<text> operands {attrs} : (types) -> result`; returns %r."""
        name = self.fresh()
        attr = f" {{{attrs}}}" if attrs else ""
        self.lines.append(f"    {name} = tosa.{text} {', '.join(operands)}{attr} : "
                          f"({', '.join(types)}) -> {result}{self.loc()}")
        return name

    def bitcast(self, value: str, source: str, result: str) -> str:
        """The same bytes as another type (IREE's `iree_tensor_ext.bitcast`: no code)."""
        name = self.fresh()
        self.lines.append(f"    {name} = iree_tensor_ext.bitcast {value} : {source} -> {result}"
                          f"{self.loc()}")
        return name

    def loc(self) -> str:
        """The location suffix of the op being written (its layer), or nothing."""
        if not self.location:
            return ""
        return ' loc("' + self.location.replace("\\", "\\\\").replace('"', '\\"') + '")'

    def const(self, array: np.ndarray) -> str:
        """A tosa.const of `array` (splats shared, others as raw little-endian hex)."""
        array = np.ascontiguousarray(array)
        elem = MLIR_TYPES[array.dtype]
        shape = tuple(array.shape)
        flat = array.reshape(-1)
        if flat.size and (flat == flat[0]).all():
            item = _float(flat[0]) if elem == "f32" else str(int(flat[0]))
            value = f"dense<{item}>"
        else:
            value = f'dense<"0x{array.astype(array.dtype.newbyteorder("<")).tobytes().hex()}">'
        key = (value, ttype(shape, elem))
        if key in self._splats:
            return self._splats[key]
        name = self.fresh()
        self._types[name] = key[1]
        self.lines.append(f'    {name} = "tosa.const"() {{values = {value} : {key[1]}}} : () -> '
                          f"{key[1]}")
        self._splats[key] = name
        return name

    def scalar(self, value: float | int, elem: str) -> str:
        """A one-element tensor (zero points, shifts)."""
        dtype = {"f32": np.float32, "i32": np.int32, "i8": np.int8, "i16": np.int16}[elem]
        return self.const(np.array([value], dtype=dtype))

    def shape(self, shape: tuple[int, ...]) -> str:
        name = self.fresh()
        dims = ", ".join(str(d) for d in shape)
        self.lines.append(f"    {name} = tosa.const_shape {{values = dense<[{dims}]> : "
                          f"tensor<{len(shape)}xindex>}} : () -> !tosa.shape<{len(shape)}>")
        return name

    def reshape(self, value: str, src: str, shape: tuple[int, ...], elem: str) -> str:
        target = self.shape(shape)
        return self.op("reshape", [value, target], [src, f"!tosa.shape<{len(shape)}>"],
                       ttype(shape, elem))

    def clamp(self, value: str, typ: str, low: float, high: float, elem: str) -> str:
        if elem == "i32":  # no int32 tosa.clamp in TOSA's integer profile: min and max
            rank = typ.count("x")
            low_c, high_c = (self._per_channel([v], rank, np.int32) for v in (low, high))
            value = self.op("maximum", [value, low_c], [typ, self._type_of(low_c)], typ)
            return self.op("minimum", [value, high_c], [typ, self._type_of(high_c)], typ)
        if elem == "f32":
            attrs = f"min_val = {_float(low)} : f32, max_val = {_float(high)} : f32"
        else:
            attrs = f"min_val = {int(low)} : {elem}, max_val = {int(high)} : {elem}"
        return self.op("clamp", [value], [typ], typ, attrs)

    def _per_channel(self, values: list[int], rank: int, dtype) -> str:
        """Constants broadcast along the last axis (one per channel, or one for all)."""
        return self.const(np.array(values, dtype=dtype).reshape((1,) * (rank - 1) + (-1,)))

    def to_int8(self, value: str, shape: tuple[int, ...], reals: list[float], zero_point: int,
                limits: tuple[int, int], fold: bool = True, fixed: dict[int, int] | None = None,
                **multiply: int | bool | None) -> str:
        """int32 requantised (multiply) to int8 with its zero point, clamped to `limits`;
        `fold`: the zero point rides in the requantisation's rounding, not an add of its own.
        Where requant_generic applies (a known bound, right shifts only), one op with the
        same bits and fewer rv32 instructions; otherwise the TOSA ops.  `fixed`: channels
        whose int32 is known (channel -> value), left out of the bound."""
        offset = zero_point if fold else 0
        pairs = [quantize_multiplier(r) for r in reals]
        fixed = fixed or {}
        plan = requant_generic.plan(pairs, zero_point, fold, limits, fixed=fixed, **multiply)
        if plan is not None:
            return self.requantise(value, shape, plan)
        if fixed and multiply.get("bound") is not None:
            multiply["bound"] = max(multiply["bound"], *(abs(v) for v in fixed.values()))
        value = self.multiply(value, shape, reals, offset=offset, **multiply)
        return self.saturate(value, shape, zero_point - offset, *limits)

    def requantise(self, value: str, shape: tuple[int, ...],
                            plan: requant_generic.Requantisation) -> str:
        """The requantisation and clamp as one op (requant_generic), its columns read from
        constants; then the int8."""
        tables = {}
        for column, values in requant_generic.operands(plan, shape[-1]).items():
            const = self.const(np.array(values, dtype=np.int32))
            tables[column] = (const, self._type_of(const))
        name = self.fresh()
        self.lines += requant_generic.lines(name, value, shape, tables, self.loc())
        return self.op("cast", [name], [ttype(shape, "i32")], ttype(shape, "i8"))

    def multiply(self, value: str, shape: tuple[int, ...], reals: list[float],
                 pre_shift: int = 0, bound: int | None = None, clamped: bool = False,
                 offset: int = 0) -> str:
        """TFLite's MultiplyByQuantizedMultiplier on int32 (its double rounding), per channel
        of the last axis when several: x * 2^left, then the doubling high multiply rounded
        half up (a 32-bit tosa.rescale by 2^-31, integer code), then a right shift rounded
        half away from zero.  TOSA's DOUBLE_ROUND would say this in one op, but IREE
        refuses it.  `bound`, when known, is the largest |x|: see _multiply_bounded;
        `clamped`: every negative result ends at the same bound (a ReLU's clamp at the
        output zero point), so how negatives round does not matter.  `offset` (an output
        zero point) is added to the result."""
        pairs = [quantize_multiplier(r) for r in reals]
        rank, typ = len(shape), ttype(shape, "i32")
        left = [max(e, 0) + pre_shift for _, e in pairs]
        right = [max(-e, 0) for _, e in pairs]
        if bound is not None and max(bound << n for n in left) < 1 << 29:
            return self._multiply_bounded(value, shape, pairs, (left, right), clamped, offset)
        one = self._per_channel([0], rank, np.int32)
        if any(left):
            factor = self._per_channel([1 << n for n in left], rank, np.int32)
            value = self.op("mul", [value, factor, self.scalar(0, "i8")],
                            [typ, self._type_of(factor), ttype((1,), "i8")], typ)
        value = self._rescale(value, typ, [m for m, _ in pairs], 31)
        if not any(right):
            return self._add_scalar(value, shape, offset)
        amount = self._per_channel(right, rank, np.int32)
        magnitude = self.op("abs", [value], [typ], typ)
        rounded = self.op("arithmetic_right_shift", [magnitude, amount],
                          [typ, self._type_of(amount)], typ, "round = true")
        negated = self.op("sub", [one, rounded], [self._type_of(one), typ], typ)
        below = self.op("greater", [one, value], [self._type_of(one), typ], ttype(shape, "i1"))
        value = self.op("select", [below, negated, rounded], [ttype(shape, "i1"), typ, typ],
                        typ)
        return self._add_scalar(value, shape, offset)

    def _add_scalar(self, value: str, shape: tuple[int, ...], addend: int) -> str:
        if not addend:
            return value
        typ = ttype(shape, "i32")
        const = self._per_channel([addend], len(shape), np.int32)
        return self.op("add", [value, const], [typ, self._type_of(const)], typ)

    def multiply_int8(self, value: str, shape: tuple[int, ...], zero_point: int, real: float,
                      pre_shift: int) -> str:
        """widen, then multiply by `real`, of an int8 tensor: read from a table of its 256
        results (tflite_multiply, the same bits), a load an element instead of a multiply
        and its roundings."""
        multiplier, exponent = quantize_multiplier(real)
        table = [tflite_multiply((q - zero_point) << pre_shift, multiplier, exponent)
                 for q in range(-128, 128)]
        return self.lookup(value, shape, np.array(table, dtype=np.int32))

    def lookup(self, value: str, shape: tuple[int, ...], table: np.ndarray) -> str:
        """table[x + 128] for each element x of an int8 tensor, as int32 (a tosa.gather
        from a 256-entry constant)."""
        n, typ = math.prod(shape), ttype(shape, "i32")
        wide = self.op("cast", [value], [ttype(shape, "i8")], typ)
        offset = self._per_channel([128], len(shape), np.int32)
        index = self.op("add", [wide, offset], [typ, self._type_of(offset)], typ)
        flat = self.reshape(index, typ, (1, n), "i32")
        values = self.const(np.asarray(table, dtype=np.int32).reshape(1, 256, 1))
        found = self.op("gather", [values, flat], [ttype((1, 256, 1), "i32"),
                                                   ttype((1, n), "i32")], ttype((1, n, 1), "i32"))
        return self.reshape(found, ttype((1, n, 1), "i32"), shape, "i32")

    def _multiply_bounded(self, value: str, shape: tuple[int, ...], pairs: list[tuple[int, int]],
                          shifts: tuple[list[int], list[int]], clamped: bool,
                          offset: int) -> str:
        """The same bits in fewer rv32 instructions, for |x * 2^left| < 2^29: the high
        multiply as (2x * m + 2^31) >> 32 (only the high word of the product and its carry),
        and the rounding shift as (h + (x < 0 ? -1 : 0) + 2^(e-1)) >> e, which rounds half
        away from zero without the absolute value and the select.  The bound keeps every
        sum inside int32 (|h| <= 2^29).  Channels that shift by 0 (per-channel scales may
        mix both) keep h: their sign is masked off and their nudge is 0.  `clamped`: no
        sign term (a negative h still ends at or below 0, as with it).  `offset` joins the
        nudge as offset * 2^e (the shift floors, so it comes out whole): one add an element
        fewer.  With e <= 22 and |offset| <= 128 the sum stays inside int32."""
        left, right = shifts
        rank, typ = len(shape), ttype(shape, "i32")
        factor = self._per_channel([2 << n for n in left], rank, np.int32)
        doubled = self.op("mul", [value, factor, self.scalar(0, "i8")],
                          [typ, self._type_of(factor), ttype((1,), "i8")], typ)
        high = self._rescale(doubled, typ, [m for m, _ in pairs], 32)
        if not any(right):
            return self._add_scalar(high, shape, offset)
        folded = offset if max(right) <= 22 and abs(offset) <= 128 else 0
        nudges = [((1 << e) >> 1) + (folded << e) for e in right]
        consts = [self._per_channel(v, rank, np.int32) for v in ([31], nudges, right)]
        if clamped:
            value = self.op("add", [high, consts[1]], [typ, self._type_of(consts[1])], typ)
        else:
            sign = self.op("arithmetic_right_shift", [doubled, consts[0]],
                           [typ, self._type_of(consts[0])], typ, "round = false")
            if not all(right):
                mask = self._per_channel([-1 if e else 0 for e in right], rank, np.int32)
                sign = self.op("bitwise_and", [sign, mask], [typ, self._type_of(mask)], typ)
            nudge = self.op("add", [sign, consts[1]], [typ, self._type_of(consts[1])], typ)
            value = self.op("add", [high, nudge], [typ, typ], typ)
        value = self.op("arithmetic_right_shift", [value, consts[2]],
                        [typ, self._type_of(consts[2])], typ, "round = false")
        return self._add_scalar(value, shape, offset - folded)

    def _rescale(self, value: str, typ: str, multipliers: list[int], shift: int) -> str:
        """(value * multiplier + 2^(shift-1)) >> shift in 64 bits, per channel when several."""
        n = len(multipliers)
        mult = self.const(np.array(multipliers, dtype=np.int32))
        amount = self.const(np.full(n, shift, dtype=np.int8))
        zero = self.scalar(0, "i32")
        return self.op("rescale", [value, mult, amount, zero, zero],
                       [typ, ttype((n,), "i32"), ttype((n,), "i8"), ttype((1,), "i32"),
                        ttype((1,), "i32")], typ,
                       f"scale32 = true, rounding_mode = SINGLE_ROUND, per_channel = "
                       f"{'true' if n > 1 else 'false'}, input_unsigned = false, "
                       "output_unsigned = false")

    def _type_of(self, name: str) -> str:
        return self._types[name]

    def saturate(self, value: str, shape: tuple[int, ...], zero_point: int, low: int,
                 high: int) -> str:
        """int32 + the output zero point, clamped to [low, high], as int8."""
        typ = ttype(shape, "i32")
        value = self._add_scalar(value, shape, zero_point)
        value = self.clamp(value, typ, low, high, "i32")
        return self.op("cast", [value], [typ], ttype(shape, "i8"))

    def widen(self, value: str, shape: tuple[int, ...], zero_point: int) -> str:
        """int8 - its zero point, as int32."""
        typ = ttype(shape, "i32")
        value = self.op("cast", [value], [ttype(shape, "i8")], typ)
        zp = self._per_channel([-zero_point], len(shape), np.int32)
        return self.op("add", [value, zp], [typ, self._type_of(zp)], typ)


def module(function: str, args: list[str], results: list[str], body: list[str],
           returned: list[str]) -> str:
    """The whole MLIR module of one function."""
    params = ", ".join(f"%arg{i}: {t}" for i, t in enumerate(args))
    head = f"  func.func @{function}({params}) -> ({', '.join(results)}) {{"
    ret = f"    return {', '.join(returned)} : {', '.join(results)}"
    return "\n".join(["module {", head, *body, ret, "  }", "}", ""])
