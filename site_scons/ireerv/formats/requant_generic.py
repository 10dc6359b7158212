"""TFLite's requantisation to int8 written as one linalg.generic, for the TFLite translator.

The same bits as the bounded requantisation in TOSA ops (tosa_text.Writer, its
`_multiply_bounded` and `saturate`), in fewer rv32 instructions: tosa.rescale's
64-bit add of the rounding 2^31 becomes an add and a compare for the carry, and the
doubling a shift of its own.  Here the product of x and 2m (unsigned, below 2^32)
is taken in 64 bits, which rv32 does as `mul` and `mulhsu`, and the carry is bit 31
of the low word.
"""

from __future__ import annotations

from dataclasses import dataclass

WORD = 1 << 32


@dataclass(frozen=True)
class Requantisation:
    """Per channel of the last axis (or one for all): the doubled multiplier 2m as the
    int32 of its bits, the nudge added before the right shift and the shift; then a
    constant added and the clamp."""
    doubled: list[int]
    nudges: list[int]
    shifts: list[int]
    clamped: bool  # no sign term: every negative result ends at the clamp's low bound
    after: int
    limits: tuple[int, int]

    def columns(self) -> dict[str, list[int]]:
        return {"doubled": self.doubled, "nudges": self.nudges, "shifts": self.shifts}


def plan(pairs: list[tuple[int, int]], zero_point: int, fold: bool, limits: tuple[int, int],
         pre_shift: int = 0, bound: int | None = None,
         clamped: bool = False) -> Requantisation | None:
    """The op for TFLite's (multiplier, exponent) pairs, or None where it does not apply:
    a bound of |x| below 2^29 must be known, no pair may shift left and every pair must
    shift right (the TOSA ops cover the rest).  The zero point joins the nudge as
    zero_point * 2^e when `fold` and e <= 22 (the shift floors, so it comes out whole)."""
    right = [-e for _, e in pairs]
    if bound is None or bound >= 1 << 29 or pre_shift or min(right) < 1:
        return None
    folded = zero_point if fold and max(right) <= 22 and abs(zero_point) <= 128 else 0
    return Requantisation([doubled_multiplier(m) for m, _ in pairs],
                          [((1 << e) >> 1) + (folded << e) for e in right], right, clamped,
                          zero_point - folded, limits)


def doubled_multiplier(multiplier: int) -> int:
    """2m as the int32 with its bits (m < 2^31, so 2m < 2^32)."""
    bits = (2 * multiplier) % WORD
    return bits - WORD if bits >> 31 else bits


def compute(x: int, requant: Requantisation, channel: int = 0) -> int:
    """The op on one int32 of one channel, in Python (for tests)."""
    column = {k: values[channel % len(values)] for k, values in requant.columns().items()}
    product = x * (column["doubled"] % WORD)
    total = (product >> 32) + ((product % WORD) >> 31) + column["nudges"]
    if not requant.clamped:
        total += x >> 31
    low, high = requant.limits
    return min(max((total >> column["shifts"]) + requant.after, low), high)


def lines(name: str, value: str, shape: tuple[int, ...], requant: Requantisation,
          tables: dict[str, tuple[str, str]], loc: str) -> list[str]:
    """The op's text: `%name = linalg.generic` from `value` (int32 of `shape`) to the
    clamped int32 (the int8 cast stays an op of its own: as one op with it, IREE fuses
    the requantisation into a pooling layer after it rather than into the layer before).
    `tables` names the constants of the per-channel columns (column -> (SSA name,
    type)); the other columns are constants in the body.  `loc`: the Writer's location
    suffix, as its other ops carry it."""
    rank = len(shape)
    dims = ", ".join(f"d{i}" for i in range(rank))
    same = f"affine_map<({dims}) -> ({dims})>"
    channel = f"affine_map<({dims}) -> (d{rank - 1})>"
    extent = "x".join(str(d) for d in shape)
    wide = f"tensor<{extent}xi32>"
    v = {k: f"{name}_{k}" for k in ("a", "o", "empty", "x", "m64", "p", "h64", "h", "lo",
                                     "c32", "c31", "carry", "hc", "sign", "nudged", "sum",
                                     "shifted", "moved", "placed", "raised", "floor", "ceil",
                                     "byte", "doubled", "nudges", "shifts")}
    ins, types, args, body, maps = [value], [wide], [f"{v['a']}: i32"], [], [same]
    for column, values in requant.columns().items():
        if column in tables:
            ins.append(tables[column][0])
            types.append(tables[column][1])
            args.append(f"{v[column]}: i32")
            maps.append(channel)
        else:
            body.append(f"      {v[column]} = arith.constant {values[0]} : i32")
    args.append(f"{v['o']}: i32")
    iterators = ", ".join(['"parallel"'] * rank)
    return [
        f"    {v['empty']} = tensor.empty() : {wide}",
        f"    {name} = linalg.generic {{indexing_maps = [{', '.join([*maps, same])}], "
        f"iterator_types = [{iterators}]}} ins({', '.join(ins)} : {', '.join(types)}) "
        f"outs({v['empty']} : {wide}) {{",
        f"    ^bb0({', '.join(args)}):", *body,
        *_body(v, requant),
        f"    }} -> {wide}{loc}",
    ]


def _body(v: dict[str, str], requant: Requantisation) -> list[str]:
    low, high = requant.limits
    if requant.clamped:
        nudge = [f"      {v['sum']} = arith.addi {v['hc']}, {v['nudges']} : i32"]
    else:
        nudge = [f"      {v['sign']} = arith.shrsi {v['a']}, {v['c31']} : i32",
                 f"      {v['nudged']} = arith.addi {v['sign']}, {v['nudges']} : i32",
                 f"      {v['sum']} = arith.addi {v['hc']}, {v['nudged']} : i32"]
    return [
        f"      {v['c32']} = arith.constant 32 : i64",
        f"      {v['c31']} = arith.constant 31 : i32",
        f"      {v['moved']} = arith.constant {requant.after} : i32",
        f"      {v['floor']} = arith.constant {low} : i32",
        f"      {v['ceil']} = arith.constant {high} : i32",
        f"      {v['x']} = arith.extsi {v['a']} : i32 to i64",
        f"      {v['m64']} = arith.extui {v['doubled']} : i32 to i64",
        f"      {v['p']} = arith.muli {v['x']}, {v['m64']} : i64",
        f"      {v['h64']} = arith.shrsi {v['p']}, {v['c32']} : i64",
        f"      {v['h']} = arith.trunci {v['h64']} : i64 to i32",
        f"      {v['lo']} = arith.trunci {v['p']} : i64 to i32",
        f"      {v['carry']} = arith.shrui {v['lo']}, {v['c31']} : i32",
        f"      {v['hc']} = arith.addi {v['h']}, {v['carry']} : i32", *nudge,
        f"      {v['shifted']} = arith.shrsi {v['sum']}, {v['shifts']} : i32",
        f"      {v['placed']} = arith.addi {v['shifted']}, {v['moved']} : i32",
        f"      {v['raised']} = arith.maxsi {v['placed']}, {v['floor']} : i32",
        f"      {v['byte']} = arith.minsi {v['raised']}, {v['ceil']} : i32",
        f"      linalg.yield {v['byte']} : i32",
    ]
