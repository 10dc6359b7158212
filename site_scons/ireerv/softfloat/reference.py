"""Host side of the soft-float bit-exactness check (softfloat/check.c).

The device program sums a hash of every result, block by block, over
deterministic operands (softfloat/operands.h); this module builds the same
operands with NumPy, computes IEEE 754 round-to-nearest-even results in
float32, and compares the sums.  NaN results count as the RISC-V canonical
NaN (0x7fc00000), which is what both libgcc and RVfplib return.  fmaf is
computed exactly: the product in float64 is exact, and the sum is rounded
to odd in float64 before the final rounding to float32.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

OPS = ("add", "sub", "mul", "div", "fma", "i2f", "u2f", "f2i", "f2u", "cmp")
BLOCK = 1 << 16
CANONICAL_NAN = 0x7FC00000
U32 = np.uint32

EDGE = [
    0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x00800000,
    0x80800000, 0x00400000, 0x3F800000, 0xBF800000, 0x3F800001, 0x3FFFFFFF, 0x40000000,
    0x3F000000, 0x33800000, 0x34000000, 0x4B800000, 0x7F000000, 0x7F7FFFFF, 0xFF7FFFFF,
    0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FC12345, 0x3EAAAAAB,
    0x0C000000, 0x1F800000, 0x5F800000, 0x72800000,
]
INT_EDGE = [
    0, 1, 0xFFFFFFFF, 0x7FFFFFFF, 0x80000000, 0x80000001, 0x01000001, 0x01000003,
    0x7FFFFFC0, 0x7FFFFFBF, 0x7FFFFF80, 0xFFFFFF80, 0xFFFFFF7F, 0xFFFFFFC0, 0x00FFFFFF,
    0xFF000001, 0x02000006, 0x02000002, 0xFE000002, 0x0000FFFF,
]
F2I_EDGE = [
    0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x3F000000, 0xBF000000, 0x3F7FFFFF,
    0x3F800000, 0xBF800000, 0x3FC00000, 0xBFC00000, 0x40200000, 0x4EFFFFFF, 0xCEFFFFFF,
    0xCF000000, 0x4B000001, 0xCB7FFFFF,
]
F2U_EDGE = [0x00000000, 0x80000000, 0x00000001, 0x3F7FFFFF, 0x3F800000, 0x4F000000,
            0x4F7FFFFF, 0x4EFFFFFF, 0x4B800001]

_LINE = re.compile(r"^SF (\w+) (edge|\d+) 0x([0-9a-f]{8})$")


class SoftFloatCheckError(ValueError):
    """The device output is not what the check program prints."""


# --------------------------------------------------------------------- operands (operands.h)


def mix(x: np.ndarray) -> np.ndarray:
    x = x.astype(U32)
    with np.errstate(over="ignore"):
        x ^= x >> U32(16)
        x *= U32(0x7FEB352D)
        x ^= x >> U32(15)
        x *= U32(0x846CA68B)
        x ^= x >> U32(16)
    return x


def _with_exp(x: np.ndarray, e: np.ndarray) -> np.ndarray:
    return (x & U32(0x807FFFFF)) | ((e.astype(U32) & U32(0xFF)) << U32(23))


def pair(r1: np.ndarray, r2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    ea = (r1 >> U32(23)) & U32(0xFF)
    d = (r2 >> U32(23)) & U32(7)
    mode = r2 & U32(3)
    with np.errstate(over="ignore"):
        x = np.where(mode == 3, _with_exp(r1, U32(119) + ((r1 >> U32(23)) & U32(15))), r1)
        y = np.select(
            [mode == 1, mode == 2, mode == 3],
            [_with_exp(r2, ea + d - U32(4)), _with_exp(r2, U32(254) - ea + d - U32(4)),
             _with_exp(r2, U32(123) + d)],
            r2,
        ).astype(U32)
    short = (r2 & U32(4)) != 0
    mask = U32(0xFFFFF800)
    return np.where(short, x & mask, x), np.where(short, y & mask, y)


def addend(a: np.ndarray, b: np.ndarray, r3: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        e = ((a >> U32(23)) & U32(0xFF)) + ((b >> U32(23)) & U32(0xFF)) \
            + ((r3 >> U32(23)) & U32(7)) - U32(131)
    return np.where((r3 & U32(1)) != 0, r3, _with_exp(r3, e))


def operands(op: str, seed: int, count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The operand words of `op` for random sets 0..count-1, as the device makes them."""
    base = (seed * 0x9E3779B9 + OPS.index(op) * 0x10000000) & 0xFFFFFFFF
    k = (np.arange(count, dtype=np.uint64) * 3 + base) & 0xFFFFFFFF
    r1, r2, r3 = (mix(k + j) for j in range(3))
    zero = np.zeros(count, U32)
    if op == "i2f":
        return (r1.view(np.int32) >> (r2 & U32(31)).astype(np.int32)).view(U32), zero, zero
    if op == "u2f":
        return r1 >> (r2 & U32(31)), zero, zero
    if op == "f2i":
        return _with_exp(r1, U32(100) + ((r1 >> U32(23)) & U32(0xFF)) % U32(58)), zero, zero
    if op == "f2u":
        r = r1 & U32(0x7FFFFFFF)
        return _with_exp(r, U32(100) + ((r >> U32(23)) & U32(0xFF)) % U32(59)), zero, zero
    a, b = pair(r1, r2)
    return a, b, addend(a, b, r3)


def edge_operands(op: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every combination of the edge values, in the device's loop order."""
    single = {"i2f": INT_EDGE, "u2f": INT_EDGE, "f2i": F2I_EDGE, "f2u": F2U_EDGE}
    if op in single:
        a = np.array(single[op], U32)
        zero = np.full(a.size, EDGE[0], U32)
        return a, zero, zero
    e = np.array(EDGE, U32)
    n = e.size
    if op == "fma":
        i, j, k = np.meshgrid(np.arange(n), np.arange(n), np.arange(n), indexing="ij")
        return e[i.ravel()], e[j.ravel()], e[k.ravel()]
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    return e[i.ravel()], e[j.ravel()], np.full(n * n, EDGE[0], U32)


# --------------------------------------------------------------------- IEEE results


def _f32(bits: np.ndarray) -> np.ndarray:
    return bits.astype(U32).view(np.float32)


def _bits(values: np.ndarray) -> np.ndarray:
    bits = values.astype(np.float32).view(U32).copy()
    bits[np.isnan(values)] = CANONICAL_NAN
    return bits


def fmaf(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Correctly rounded float32 a*b+c: exact product, sum rounded to odd, then to float32."""
    with np.errstate(invalid="ignore", over="ignore"):
        x, y, z = (_f32(v).astype(np.float64) for v in (a, b, c))
        p = x * y  # exact: 48 significant bits
        s = p + z
        bb = s - p
        err = (p - (s - bb)) + (z - bb)  # TwoSum: s + err == p + z exactly
        even = (s.view(np.uint64) & np.uint64(1)) == 0
        fix = np.isfinite(s) & (err != 0) & even
        s = np.where(fix, np.nextafter(s, np.where(err > 0, np.inf, -np.inf)), s)
        return s.astype(np.float32)


def _cmp(a: np.ndarray, b: np.ndarray, _c: np.ndarray) -> np.ndarray:
    x, y = _f32(a), _f32(b)
    with np.errstate(invalid="ignore"):
        parts = [x < y, x <= y, x == y, x > y, x >= y, x != y, np.isnan(x) | np.isnan(y)]
    return sum((p.astype(U32) << U32(i)) for i, p in enumerate(parts)).astype(U32)


def _float_op(fn: Callable[[np.ndarray, np.ndarray], np.ndarray]):
    def run(a: np.ndarray, b: np.ndarray, _c: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            return _bits(fn(_f32(a), _f32(b)))
    return run


RESULTS: dict[str, Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]] = {
    "add": _float_op(np.add),
    "sub": _float_op(np.subtract),
    "mul": _float_op(np.multiply),
    "div": _float_op(np.divide),
    "fma": lambda a, b, c: _bits(fmaf(a, b, c)),
    "i2f": lambda a, b, c: _bits(a.view(np.int32).astype(np.float32)),
    "u2f": lambda a, b, c: _bits(a.astype(np.float32)),
    "f2i": lambda a, b, c: _f32(a).astype(np.int32).view(U32),
    "f2u": lambda a, b, c: _f32(a).astype(np.uint32),
    "cmp": _cmp,
}


def checksum(results: np.ndarray) -> int:
    index = np.arange(results.size, dtype=U32)
    with np.errstate(over="ignore"):
        terms = mix(results.astype(U32) + index * U32(0x9E3779B9))
    return int(terms.astype(np.uint64).sum() & 0xFFFFFFFF)


def expected(seed: int, count: int) -> dict[tuple[str, str], int]:
    """The sums the device must print: (op, "edge" | block number) -> checksum."""
    sums: dict[tuple[str, str], int] = {}
    for op in OPS:
        sums[(op, "edge")] = checksum(RESULTS[op](*edge_operands(op)))
        results = RESULTS[op](*operands(op, seed, count))
        for block, start in enumerate(range(0, count, BLOCK)):
            part = results[start:start + BLOCK]
            index = np.arange(start, start + part.size, dtype=U32)
            with np.errstate(over="ignore"):
                terms = mix(part + index * U32(0x9E3779B9))
            sums[(op, str(block))] = int(terms.astype(np.uint64).sum() & 0xFFFFFFFF)
    return sums


@dataclass
class CheckResult:
    checked: int  # sums compared
    mismatches: list[str]  # "add block 3" / "fma edge cases"

    @property
    def passed(self) -> bool:
        return not self.mismatches


def parse(output: str) -> dict[tuple[str, str], int]:
    sums = {}
    for line in output.splitlines():
        match = _LINE.match(line.strip())
        if match:
            sums[(match[1], match[2])] = int(match[3], 16)
    return sums


def compare(output: str, seed: int, count: int) -> CheckResult:
    """Compare the device's sums with the host's; a missing sum is a mismatch."""
    got = parse(output)
    if not got:
        raise SoftFloatCheckError("the check program printed no SF lines")
    want = expected(seed, count)
    bad = []
    for (op, where), value in want.items():
        if got.get((op, where)) != value:
            what = "edge cases" if where == "edge" else \
                f"operand sets {int(where) * BLOCK}..{min(count, (int(where) + 1) * BLOCK) - 1}"
            state = "missing" if (op, where) not in got else "differs"
            bad.append(f"{op} {what}: {state}")
    return CheckResult(len(want), bad)
