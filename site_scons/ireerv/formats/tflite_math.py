"""TFLite's fixed-point arithmetic in Python: the multiplier and exponent of a real scale,
the requantisation of one int32 with them, and TFLite's rounding."""

from __future__ import annotations

import math


def quantize_multiplier(real: float) -> tuple[int, int]:
    """TFLite's QuantizeMultiplier: real = multiplier * 2^(exponent - 31), multiplier in
    [2^30, 2^31); returns (multiplier, exponent)."""
    if real == 0:
        return 0, 0
    frac, exponent = math.frexp(real)
    fixed = round(frac * (1 << 31))
    if fixed == 1 << 31:
        fixed //= 2
        exponent += 1
    if exponent < -31:  # as TFLite: too small to represent, the product is 0
        return 0, 0
    if exponent > 30:
        raise ValueError(f"requantisation scale {real:g} is too large for 32 bits")
    return fixed, exponent


def tflite_multiply(x: int, multiplier: int, exponent: int) -> int:
    """TFLite's MultiplyByQuantizedMultiplier on one int32 (its double rounding), in Python:
    what Writer.multiply computes, for tables of it (Writer.multiply_int8)."""
    x *= 1 << max(exponent, 0)
    product = x * multiplier
    nudged = product + ((1 << 30) if product >= 0 else 1 - (1 << 30))
    high = nudged // (1 << 31) if nudged >= 0 else -(-nudged // (1 << 31))
    right = max(-exponent, 0)
    mask = (1 << right) - 1
    threshold = (mask >> 1) + (1 if high < 0 else 0)
    return (high >> right) + (1 if (high & mask) > threshold else 0)


def requantise(x: int, pair: tuple[int, int], zero_point: int, limits: tuple[int, int]
               ) -> int:
    """TFLite's int8 result for one int32 sum: multiplied by (multiplier, exponent) `pair`,
    plus the output zero point, clamped to `limits`."""
    low, high = limits
    return min(max(tflite_multiply(x, *pair) + zero_point, low), high)


def round_half_away(value: float) -> int:
    """TfLiteRound: halves away from zero."""
    return int(math.copysign(math.floor(abs(value) + 0.5), value))
