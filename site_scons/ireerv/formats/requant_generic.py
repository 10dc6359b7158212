"""TFLite's requantisation to int8 written as one linalg.generic, for the TFLite translator.

The same bits as the bounded requantisation in TOSA ops (tosa_text.Writer, its
`_multiply_bounded` and `saturate`), in fewer rv32 instructions.  Those round twice:
h = (x * 2m + 2^31) >> 32, then (h + n) >> e with the nudge n.  Floors of divisions
compose, so that is one floor, (x * 2m + 2^31 + n * 2^32) >> (32 + e); doubled top and
bottom, (4x * m + 2^32 + 2n * 2^32) >> (33 + e), whose rounding terms are whole
multiples of 2^32.  So only the high word of 4x * m is needed: one `slli` and one
`mulh` (no low word, no carry), then (mulh + 1 + 2n) >> (1 + e).  |x| < 2^29 keeps 4x
inside int32.

Sums that arrive already scaled (`scaled`: a convolution whose int16 weights carry 4 *
2^d_c, formats/prescaled) need no `slli`: the high word of 4x * 2^d * m, plus the nudge
times 2^d, shifted right by 1 + e + d, is the same floor (top and bottom times 2^d).
With d_c = E - e_c every channel shifts by 1 + E: an immediate, not a column.
"""

from __future__ import annotations

from dataclasses import dataclass

from ireerv.formats.tflite_math import requantise


@dataclass(frozen=True)
class Requantisation:
    """Per channel of the last axis (or one for all): the multiplier m, the nudge
    1 + 2n added to the high word and the shift 1 + e; then a constant added and the
    clamp."""
    multipliers: list[int]
    nudges: list[int]
    shifts: list[int]
    clamped: bool  # no sign term: every negative result ends at the clamp's low bound
    after: int
    limits: tuple[int, int]
    scaled: bool = False  # the sums arrive as 4x * 2^d_c (no `slli`)
    biases: list[int] | None = None  # added to the sums first (scaled sums' biases)

    def columns(self) -> dict[str, list[int]]:
        biases = {"biases": self.biases} if self.biases is not None else {}
        return {**biases, "multipliers": self.multipliers, "nudges": self.nudges,
                "shifts": self.shifts}


def plan(pairs: list[tuple[int, int]], zero_point: int, fold: bool, limits: tuple[int, int],
         pre_shift: int = 0, bound: int | None = None, clamped: bool = False,
         fixed: dict[int, int] | None = None) -> Requantisation | None:
    """The op for TFLite's (multiplier, exponent) pairs, or None where it does not apply:
    a bound of |x| below 2^29 must be known, no pair may shift left and every pair must
    shift right by at most 30 (the TOSA ops cover the rest).  The zero point joins the
    nudge as zero_point * 2^(1+e) when `fold` and the sum stays inside int32 (the shift
    floors, so it comes out whole).  `fixed`: channels whose x is known (a pruned
    channel's sum is its bias, however large): multiplier 0, and the nudge gives TFLite's
    result for that x; the bound and the shift rules leave them out.  Sums that arrive
    scaled: scaled_plan."""
    fixed = fixed or {}
    right = [-e for c, (_, e) in enumerate(pairs) if c not in fixed]
    if bound is None or bound >= 1 << 29 or pre_shift or min(right, default=1) < 1 \
            or max(right, default=1) > 30:
        return None
    folded = zero_point if fold and _fits(bound, right, zero_point) else 0
    if not _fits(bound, right, folded):
        return None
    after = zero_point - folded
    columns = [_fixed(fixed[c], pair, zero_point, limits, after, clamped) if c in fixed
               else (pair[0], 1 + (1 << -pair[1]) + (folded << (1 - pair[1])), 1 - pair[1])
               for c, pair in enumerate(pairs)]
    multipliers, nudges, shifts = (list(column) for column in zip(*columns, strict=True))
    return Requantisation(multipliers, nudges, shifts, clamped, after, limits)


def scaled_plan(pairs: list[tuple[int, int]], zero_point: int, fold: bool,
                limits: tuple[int, int], bound: int | None, clamped: bool,
                left: list[int], biases: list[int] | None = None) -> Requantisation | None:
    """The op for sums that arrive multiplied by 2^left[c], left[c] = 2 + d_c and e_c + d_c
    the same E for every channel (one pair: for all); None where that does not hold, the
    sums have a sign term (not `clamped`) or some sum or nudge leaves int32.  `bound`:
    of the sums before their scaling."""
    pairs = pairs * len(left) if len(pairs) == 1 else pairs
    right = [-e for _, e in pairs]
    extra = [shift - 2 for shift in left]
    tops = {e + d for e, d in zip(right, extra, strict=True)}
    if (not clamped or bound is None or len(tops) != 1 or min(extra) < 0
            or min(right) < 1 or max(right) > 30 or bound << max(left) >= 1 << 31):
        return None
    for folded in (zero_point, 0) if fold else (0,):
        nudges = [(1 + (1 << e) + (folded << (1 + e))) << d
                  for e, d in zip(right, extra, strict=True)]
        if all(2 * (bound << d) + abs(n) + 2 < 1 << 31
               for d, n in zip(extra, nudges, strict=True)):
            return Requantisation([m for m, _ in pairs], nudges, [1 + tops.pop()] * len(left),
                                  clamped, zero_point - folded, limits, scaled=True,
                                  biases=biases)
    return None


def _fixed(x: int, pair: tuple[int, int], zero_point: int, limits: tuple[int, int], after: int,
           clamped: bool) -> tuple[int, int, int]:
    """(multiplier, nudge, shift) of a channel whose x is known: 0, and a nudge that the
    shift by 1 and the add of `after` turn into TFLite's result (the sign term, there when
    not `clamped`, taken off)."""
    result = requantise(x, pair, zero_point, limits)
    sign = 0 if clamped else 2 * (x >> 31)
    return 0, 2 * (result - after) - sign, 1


def _fits(bound: int, right: list[int], folded: int) -> bool:
    """Whether the high word (|mulh(4x, m)| <= 2 * bound), the nudge and the sign term
    add up inside int32 for every channel."""
    nudge = max((1 + (1 << e) + (abs(folded) << (e + 1)) for e in right), default=0)
    return 2 * bound + nudge + 2 < 1 << 31


def compute(x: int, requant: Requantisation, channel: int = 0) -> int:
    """The op on one int32 of one channel, in Python (for tests)."""
    column = {k: values[channel % len(values)] for k, values in requant.columns().items()}
    x += column.get("biases", 0)
    total = (((x if requant.scaled else 4 * x) * column["multipliers"]) >> 32) \
        + column["nudges"]
    if not requant.clamped:
        total += 2 * (x >> 31)
    low, high = requant.limits
    return min(max((total >> column["shifts"]) + requant.after, low), high)


# The columns of the op's one form, each an operand (tensor<C x i32> over the last axis,
# a splat where one value serves every channel): the bias added first, the left
# shift before the high multiply (2, or 0 for scaled sums), the multiplier, the mask
# of the sign term (-1, or 0 where `clamped`), the nudge, the right shift, the
# constant added and the clamp's bounds.  IREE folds splat operands into the body
# (FoldScalarOrSplatConstant) before it forms dispatches, and the zero terms away:
# the code is that of a body with constants.  As operands a board's transform spec
# can hand them to a kernel of its own (the mark TAG names the op).
OPERANDS = ("biases", "lefts", "multipliers", "signs", "nudges", "shifts", "after", "low",
            "high")
TAG = "ireerv.requant"


def operands(requant: Requantisation, channels: int) -> dict[str, list[int]]:
    """Each of OPERANDS for `channels` output channels."""
    low, high = requant.limits
    given = {"biases": requant.biases or [0], "lefts": [0 if requant.scaled else 2],
             "signs": [0 if requant.clamped else -1], "after": [requant.after],
             "low": [low], "high": [high], **requant.columns()}
    return {k: given[k] * channels if len(given[k]) == 1 else given[k] for k in OPERANDS}


def lines(name: str, value: str, shape: tuple[int, ...], tables: dict[str, tuple[str, str]],
          loc: str) -> list[str]:
    """The op's text: `%name = linalg.generic` from `value` (int32 of `shape`) to the
    clamped int32 (the int8 cast stays an op of its own: as one op with it, IREE fuses
    the requantisation into a pooling layer after it rather than into the layer before).
    `tables` names the constants of OPERANDS (column -> (SSA name, type)).  `loc`: the
    Writer's location suffix, as its other ops carry it."""
    rank = len(shape)
    dims = ", ".join(f"d{i}" for i in range(rank))
    same = f"affine_map<({dims}) -> ({dims})>"
    channel = f"affine_map<({dims}) -> (d{rank - 1})>"
    extent = "x".join(str(d) for d in shape)
    wide = f"tensor<{extent}xi32>"
    v = {k: f"{name}_{k}" for k in ("a", "o", "empty", "c31", "c32", "biased", "x4", "x",
                                     "m64", "p", "h64", "h", "sign", "masked", "twice",
                                     "nudged", "sum", "shifted", "placed", "raised", "byte",
                                     *OPERANDS)}
    ins = [value, *(tables[k][0] for k in OPERANDS)]
    types = [wide, *(tables[k][1] for k in OPERANDS)]
    args = [f"{v[k]}: i32" for k in ("a", *OPERANDS, "o")]
    maps = [same, *[channel] * len(OPERANDS), same]
    iterators = ", ".join(['"parallel"'] * rank)
    return [
        f"    {v['empty']} = tensor.empty() : {wide}",
        f"    {name} = linalg.generic {{indexing_maps = [{', '.join(maps)}], "
        f"iterator_types = [{iterators}]}} ins({', '.join(ins)} : {', '.join(types)}) "
        f"outs({v['empty']} : {wide}) attrs = {{{TAG}}} {{",
        f"    ^bb0({', '.join(args)}):", *_body(v),
        f"    }} -> {wide}{loc}",
    ]


def _body(v: dict[str, str]) -> list[str]:
    return [
        f"      {v['c31']} = arith.constant 31 : i32",
        f"      {v['c32']} = arith.constant 32 : i64",
        f"      {v['biased']} = arith.addi {v['a']}, {v['biases']} : i32",
        f"      {v['x4']} = arith.shli {v['biased']}, {v['lefts']} : i32",
        f"      {v['x']} = arith.extsi {v['x4']} : i32 to i64",
        f"      {v['m64']} = arith.extsi {v['multipliers']} : i32 to i64",
        f"      {v['p']} = arith.muli {v['x']}, {v['m64']} : i64",
        f"      {v['h64']} = arith.shrsi {v['p']}, {v['c32']} : i64",
        f"      {v['h']} = arith.trunci {v['h64']} : i64 to i32",
        f"      {v['sign']} = arith.shrsi {v['biased']}, {v['c31']} : i32",
        f"      {v['masked']} = arith.andi {v['sign']}, {v['signs']} : i32",
        f"      {v['twice']} = arith.addi {v['masked']}, {v['masked']} : i32",
        f"      {v['nudged']} = arith.addi {v['twice']}, {v['nudges']} : i32",
        f"      {v['sum']} = arith.addi {v['h']}, {v['nudged']} : i32",
        f"      {v['shifted']} = arith.shrsi {v['sum']}, {v['shifts']} : i32",
        f"      {v['placed']} = arith.addi {v['shifted']}, {v['after']} : i32",
        f"      {v['raised']} = arith.maxsi {v['placed']}, {v['low']} : i32",
        f"      {v['byte']} = arith.minsi {v['raised']}, {v['high']} : i32",
        f"      linalg.yield {v['byte']} : i32",
    ]
