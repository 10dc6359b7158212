"""What a tune can change: the dispatches of a compiled model, and each one's candidates.

A dispatch's symbol names its op and its loop bounds in the op's own loop order
(`main_dispatch_4_conv_2d_nhwc_hwcf_1x25x5x64x1x2x32_i8xi8xi32`), so a tuned
configuration can match exactly that op of exactly those bounds.  Candidates are the
register tiles the board's library chooses among by hand (output columns by output
channels, kernel-column and channel steps for convolutions; rows by columns by k steps
for matmuls), ordered by a count of a step's instructions per multiply-accumulate, so a
budget of n tries the n that promise most.  On a board that data-tiles int8 matmuls
(cluster4-pulp) the dispatch that unpacks a matmul's int32 tiles into its consumer (the
requantisation: `unpack_elementwise_125x64_...`) is tuned too, by its vector steps.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import product
from math import log2

# The ops a tune configures, as dispatch names call them: their loop count and linalg op
# (a "matmul_like" is a generic op of one multiply-add, checked by its body too).
OPS = {
    "conv_2d_nhwc_hwcf": (7, "linalg.conv_2d_nhwc_hwcf"),  # n, oh, ow, f, kh, kw, c
    "depthwise_conv_2d_nhwc_hwc": (6, "linalg.depthwise_conv_2d_nhwc_hwc"),  # n, oh, ow, c, kh, kw
    "matmul": (3, "linalg.matmul"),  # m, n, k
    "matmul_like": (3, "linalg.generic"),
    "unpack_elementwise": (2, "linalg.generic"),  # rows, columns of the unpacked sums
}
# The layer kind each op computes, as tables name it.
KINDS = {"conv_2d_nhwc_hwcf": "convolution", "depthwise_conv_2d_nhwc_hwc": "depthwise",
         "matmul": "matmul", "matmul_like": "matmul", "unpack_elementwise": "unpack"}
_SYMBOL = re.compile(r"_dispatch_\d+_(?P<op>[a-z0-9_]+?)_(?P<dims>\d+(?:x\d+)+)"
                     r"(?:_(?P<types>[a-z0-9]+(?:x[a-z0-9]+)*))?$")
# What a step may keep in registers (31 less pointers, counters and scratch): its sums,
# and one step's operands; more spill.
MAX_SUMS = 16
MAX_OPERANDS = 24
CONV_PIPELINE = "CPUConvTileAndDecomposeExpert"
WIDTHS = range(1, 9)  # output columns (or matmul rows) a step computes
CHANNELS = (1, 2, 4)  # output channels (or matmul columns) a step computes
# An unpack's vector steps (rows, columns): around 64 elements, kws's best by hand.
UNPACK_STEPS = (1, 2, 4, 8, 16)
PEELED = "CPUDoubleTilingExpert, {enable_loop_peeling}"


class SpaceError(Exception):
    """A tuning record or a dispatch name that cannot be read."""


@dataclass(frozen=True, order=True)
class Dispatch:
    """A distinct dispatch: one op at one set of loop bounds."""

    op: str
    dims: tuple[int, ...]
    types: str = ""

    @property
    def linalg_op(self) -> str:
        return OPS[self.op][1]

    @property
    def body(self) -> str | None:
        """The multiply-add a generic op's body must be (None: a named op, or no
        contraction)."""
        if self.linalg_op != "linalg.generic" or self.op == "unpack_elementwise":
            return None
        return '"arith.mulf", "arith.addf"' if self.types.startswith("f") else \
            '"arith.muli", "arith.addi"'

    @property
    def min_inputs(self) -> int | None:
        """The fewest inputs the op has, where its bounds alone would take another op too:
        an unpack's consumer reads the sums and per-channel columns, the img2col copy of
        the same bounds (in the pack's dispatch) one input."""
        return 2 if self.op == "unpack_elementwise" else None

    @property
    def key(self) -> str:
        return f"{self.op}_{'x'.join(map(str, self.dims))}" + (f"_{self.types}"
                                                               if self.types else "")


@dataclass(frozen=True, order=True)
class Tiles:
    """One lowering configuration: IREE's three tile levels and its pipeline."""

    distribution: tuple[int, ...]
    parallel: tuple[int, ...]  # vector_common_parallel
    reduction: tuple[int, ...]  # vector_reduction
    pipeline: str

    def label(self) -> str:
        reduction = f", reduction {'x'.join(map(str, self.reduction))}" if self.reduction else ""
        return (f"workgroup {'x'.join(map(str, self.distribution))}, "
                f"parallel {'x'.join(map(str, self.parallel))}{reduction}")

    def as_json(self) -> dict[str, object]:
        return {"distribution": list(self.distribution), "parallel": list(self.parallel),
                "reduction": list(self.reduction), "pipeline": self.pipeline}

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Tiles:
        try:
            return cls(tuple(data["distribution"]), tuple(data["parallel"]),  # type: ignore[arg-type]
                       tuple(data["reduction"]), str(data["pipeline"]))  # type: ignore[arg-type]
        except (KeyError, TypeError) as err:
            raise SpaceError(f"tuning record: a configuration lacks {err}") from None


def parse_symbol(symbol: str) -> Dispatch | None:
    """The dispatch a kernel symbol computes, when it is an op a tune configures."""
    found = _SYMBOL.search(symbol)
    if not found or found["op"] not in OPS:
        return None
    dims = tuple(int(d) for d in found["dims"].split("x"))
    if len(dims) != OPS[found["op"]][0]:
        return None  # IREE dropped a unit loop from the name: not matched exactly
    return Dispatch(found["op"], dims, found["types"] or "")


def parse_key(key: str) -> Dispatch | None:
    """The dispatch a key (Dispatch.key) names."""
    return parse_symbol(f"_dispatch_0_{key}")


def _divisors(n: int, allowed) -> list[int]:
    return [d for d in allowed if d <= n and n % d == 0]


def _cost(macs: int, loads: int, sums: int, operands: int) -> float | None:
    """Instructions per MAC of a step: a multiply and an add each, its loads, 3 for the
    loop; None when its sums or one step's operands cannot stay in registers."""
    if sums > MAX_SUMS or operands > MAX_OPERANDS:
        return None
    return (2 * macs + loads + 3) / macs


def _rows(oh: int) -> list[int]:
    """Output rows per workgroup: one (many small workgroups) or all (one per channel block)."""
    return sorted({1, oh})


def _conv(d: Dispatch) -> list[tuple[float, Tiles]]:
    _, oh, ow, f, _, kw, c = d.dims
    found = []
    for tw, tf, tkw, tc in product(_divisors(ow, WIDTHS), _divisors(f, CHANNELS),
                                   _divisors(kw, (1, 2, 4)), _divisors(c, (1, 2))):
        window, weights = tw * tkw * tc, tf * tkw * tc
        cost = _cost(tw * tf * tkw * tc, window + weights, tw * tf, window + weights)
        for rows in _rows(oh) if cost is not None else ():
            found.append((cost, Tiles((0, rows, 0, 64, 0, 0, 0), (1, 1, tw, tf, 0, 0, 0),
                                      (0, 0, 0, 0, 1, tkw, tc), CONV_PIPELINE)))
    return found


def _depthwise(d: Dispatch) -> list[tuple[float, Tiles]]:
    _, oh, ow, c, _, kw = d.dims
    found = []
    for tw, tc, tkw in product(_divisors(ow, WIDTHS), _divisors(c, CHANNELS), sorted({1, kw})):
        window, weights = tw * tc * tkw, tc * tkw
        cost = _cost(tw * tc * tkw, window + weights, tw * tc, window + weights)
        for rows in _rows(oh) if cost is not None else ():
            found.append((cost, Tiles((0, rows, 0, 64, 0, 0), (1, 1, tw, tc, 0, 0),
                                      (0, 0, 0, 0, 1, tkw), CONV_PIPELINE)))
    return found


def _matmul(d: Dispatch) -> list[tuple[float, Tiles]]:
    m, n, k = d.dims
    found = []
    for tm, tn, tk in product(_divisors(m, (1, 2, 4)), _divisors(n, (1, 2, 4, 8)),
                              _divisors(k, (1, 2, 4))):
        cost = _cost(tm * tn * tk, (tm + tn) * tk, tm * tn, (tm + tn) * tk)
        if cost is not None:
            found.append((cost, Tiles((tm, 64, 0), (tm, tn, 0), (0, 0, tk), PEELED)))
    return found


def _unpack(d: Dispatch) -> list[tuple[float, Tiles]]:
    """Vector steps of rows x columns, peeled, in one workgroup (kws on cluster4-pulp:
    8 x 8 the fastest of 12 shapes, 4,744,661 cycles a call against 5,097,076); ranked by
    how far a step is from 64 elements, then from square."""
    rows, cols = d.dims
    whole = (-(-rows // 8) * 8, cols)
    found = []
    for tr, tc in product(UNPACK_STEPS, UNPACK_STEPS):
        if tr <= rows and tc <= cols:
            cost = abs(log2(tr * tc) - 6) + abs(log2(tr / tc)) / 8
            found.append((cost, Tiles(whole, (tr, tc), (), PEELED)))
    return found


_CANDIDATES = {"conv_2d_nhwc_hwcf": _conv, "depthwise_conv_2d_nhwc_hwc": _depthwise,
               "matmul": _matmul, "matmul_like": _matmul, "unpack_elementwise": _unpack}


def candidates(d: Dispatch, budget: int) -> list[Tiles]:
    """The `budget` most promising configurations of a dispatch, best first."""
    ranked = sorted(_CANDIDATES[d.op](d), key=lambda ct: (round(ct[0], 6), ct[1]))
    return [tiles for _, tiles in ranked[:budget]]
