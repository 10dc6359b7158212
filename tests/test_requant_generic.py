"""The int8 requantisation written as one op (formats/requant_generic): TFLite's bits,
and the text the translator writes for it."""

from __future__ import annotations

import numpy as np

from ireerv.formats import requant_generic, tosa_text
from ireerv.formats.tosa_text import quantize_multiplier, tflite_multiply


def test_one_op_requantisation_is_tflites() -> None:
    """The requantisation as one op (the high word of x * 2m and bit 31 of the low word,
    the nudge with the zero point folded in, the shift, the clamp) gives TFLite's bits
    plus the zero point, clamped, for every |x| < 2^29, per channel."""
    rng = np.random.default_rng(13)
    reals = [0.5 - 1e-9, 0.25, 3.5e-3, 1e-7, *rng.uniform(1e-6, 0.49, 30)]
    pairs = [quantize_multiplier(float(r)) for r in reals]
    for zp, limits, fold in ((-128, (-128, 127), True), (5, (-128, 127), False),
                             (-3, (-3, 127), True)):
        requant = requant_generic.plan(pairs, zp, fold, limits, bound=(1 << 29) - 1)
        assert requant is not None
        xs = [*range(-300, 300), (1 << 29) - 1, 1 - (1 << 29),
              *rng.integers(1 - (1 << 29), 1 << 29, 300)]
        for channel, (multiplier, exponent) in enumerate(pairs):
            for x in xs:
                want = min(max(tflite_multiply(int(x), multiplier, exponent) + zp,
                               limits[0]), limits[1])
                assert requant_generic.compute(int(x), requant, channel) == want, (x, channel)
    # Left shifts, shifts of 0 and unknown bounds stay with the TOSA ops.
    assert requant_generic.plan([quantize_multiplier(2.0)], 0, True, (-128, 127), bound=9) is None
    assert requant_generic.plan([quantize_multiplier(0.75)], 0, True, (-128, 127),
                                bound=9) is None
    assert requant_generic.plan(pairs, 0, True, (-128, 127)) is None


def test_one_op_requantisation_text() -> None:
    """Per-channel columns are read beside x; a column the same for every channel is a
    constant of the body; the clamped value is int32 and the int8 cast an op of its own."""
    w = tosa_text.Writer()
    w.to_int8("%x", (1, 2, 2, 2), [0.25, 0.125], -128, (-128, 127), bound=1000)
    text = "\n".join(w.lines)
    assert text.count("linalg.generic") == 1
    # One multiplier 2^30 for both (2m = 2^31), nudges and shifts per channel.
    assert "ins(%x, %v1, %v2 : tensor<1x2x2x2xi32>, tensor<2xi32>, tensor<2xi32>)" in text
    assert "_doubled = arith.constant -2147483648 : i32" in text
    assert text.rstrip().endswith("-> tensor<1x2x2x2xi8>")
    assert "tosa.cast" in text and "tosa.rescale" not in text
