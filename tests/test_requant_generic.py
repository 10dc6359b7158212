"""The int8 requantisation written as one op (formats/requant_generic): TFLite's bits,
and the text the translator writes for it."""

from __future__ import annotations

import numpy as np

from ireerv.formats import requant_generic, tosa_text
from ireerv.formats.tflite_math import quantize_multiplier, tflite_multiply


def test_one_op_requantisation_is_tflites() -> None:
    """The requantisation as one op (the high word of 4x * m, the nudge with the zero
    point folded in, the shift, the clamp) gives TFLite's bits plus the zero point,
    clamped, for every |x| < 2^29, per channel."""
    rng = np.random.default_rng(13)
    reals = [0.5 - 1e-9, 0.25, 3.5e-3, 1e-7, *rng.uniform(1e-6, 0.49, 30)]
    pairs = [quantize_multiplier(float(r)) for r in reals]
    wide = [p for p in pairs if p[1] > -20]  # shifts that leave room for the zero point
    for chosen, zp, limits, fold, bound in ((pairs, -128, (-128, 127), True, (1 << 29) - 1),
                                            (wide, -128, (-128, 127), True, (1 << 20) - 1),
                                            (pairs, 5, (-128, 127), False, (1 << 29) - 1),
                                            (wide, -3, (-3, 127), True, (1 << 24) - 1)):
        requant = requant_generic.plan(chosen, zp, fold, limits, bound=bound)
        assert requant is not None
        # The zero point rides in the nudge where the sum stays inside int32.
        assert (requant.after == 0) == (chosen is wide), (zp, bound)
        xs = [*range(-300, 300), bound, -bound, *rng.integers(-bound, bound + 1, 300)]
        for channel, (multiplier, exponent) in enumerate(chosen):
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
    """Every column is an operand beside x, in requant_generic.OPERANDS' order: one the same
    for every channel a splat constant (IREE folds it into the body, the code of a body
    constant), the others raw; the op carries the mark a board's spec finds it by; the
    clamped value is int32 and the int8 cast an op of its own."""
    w = tosa_text.Writer()
    w.to_int8("%x", (1, 2, 2, 2), [0.25, 0.125], -128, (-128, 127), bound=1000)
    text = "\n".join(w.lines)
    assert text.count("linalg.generic") == 1
    # biases 0, lefts 2, one multiplier 2^30 for both, the sign term in, nudges and
    # shifts per channel, after 0 (the zero point rides in the nudges), the clamp.
    assert "ins(%x, %v1, %v2, %v3, %v4, %v5, %v6, %v1, %v7, %v8 : " in text
    for value in ("dense<0>", "dense<2>", "dense<1073741824>", "dense<-1>", "dense<-128>",
                  "dense<127>"):
        assert f"{{values = {value} : tensor<2xi32>}}" in text, value
    assert f"attrs = {{{requant_generic.TAG}}}" in text
    assert text.rstrip().endswith("-> tensor<1x2x2x2xi8>")
    assert "tosa.cast" in text and "tosa.rescale" not in text


def test_the_columns_of_each_form() -> None:
    """operands(): a clamped plan's sign mask 0 and a scaled one's left shift 0 and biases,
    each column as long as the channels."""
    pairs = [quantize_multiplier(0.25), quantize_multiplier(0.125)]
    plain = requant_generic.plan(pairs, -128, True, (-128, 127), bound=1000, clamped=True)
    assert plain is not None
    columns = requant_generic.operands(plain, 2)
    assert list(columns) == list(requant_generic.OPERANDS)
    assert columns["lefts"] == [2, 2] and columns["signs"] == [0, 0]
    assert columns["biases"] == [0, 0] and columns["low"] == [-128, -128]
    scaled = requant_generic.scaled_plan(pairs, -128, True, (-128, 127), 1000, True, [3, 2],
                                         biases=[5, 6])
    assert scaled is not None
    columns = requant_generic.operands(scaled, 2)
    assert columns["lefts"] == [0, 0] and columns["biases"] == [5, 6]


def test_pruned_channels_give_tflites_result() -> None:
    """A channel with no weights (its sum is its bias, here far beyond the bound, and its
    scale may shift left or be 0) is left out of the bound: multiplier 0 and a nudge
    that gives TFLite's result for that bias, with or without the sign term."""
    pairs = [quantize_multiplier(r) for r in (3.5e-3, 0.75, 0.0, 1e-3, 2e-9)]
    fixed = {1: -(1 << 30), 2: 123_456, 4: (1 << 31) - 1}
    for zp, limits, clamped in ((-128, (-128, 127), True), (5, (-128, 127), False),
                                (-3, (-3, 127), True)):
        requant = requant_generic.plan(pairs, zp, True, limits, bound=1 << 20, clamped=clamped,
                                       fixed=fixed)
        assert requant is not None
        for channel, x in fixed.items():
            want = min(max(tflite_multiply(x, *pairs[channel]) + zp, limits[0]), limits[1])
            assert requant.multipliers[channel] == 0
            assert requant_generic.compute(x, requant, channel) == want, channel
        for x in (-(1 << 20), -7, 0, 9, 1 << 20):
            for channel in (0, 3):
                if clamped and x < 0:
                    continue  # clamped: every negative result ends at the low bound anyway
                want = min(max(tflite_multiply(x, *pairs[channel]) + zp, limits[0]), limits[1])
                assert requant_generic.compute(x, requant, channel) == want, (x, channel)
    # Without them the left shift of channel 1 and the bias of 2^30 keep the TOSA ops.
    assert requant_generic.plan(pairs, -128, True, (-128, 127), bound=1 << 30) is None
