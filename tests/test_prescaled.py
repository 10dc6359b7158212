"""Small int8 convolutions whose int16 weights carry the requantisation's first steps
(formats/prescaled): the scaled sums requantise to TFLite's bits, which layers qualify,
and the linalg text."""

from __future__ import annotations

import numpy as np

from ireerv.formats import prescaled, requant_generic, tosa_text
from ireerv.formats.tflite_math import quantize_multiplier, tflite_multiply

TERMS = {"zero_point": -128, "fold": True, "limits": (-128, 127), "clamped": True}


def _pairs(seed: int, count: int) -> list[tuple[int, int]]:
    rng = np.random.default_rng(seed)
    return [quantize_multiplier(float(r))
            for r in (3.5e-3, 1e-3, 2.4e-4, 0.011, *rng.uniform(1e-4, 2e-2, count - 4))]


def test_scaled_sums_requantise_to_tflites_bits() -> None:
    """Sums that arrive times 2^(2 + E - e_c) give, with one shift for every channel, what
    TFLite's multiply gives for the unscaled sum, plus the zero point, clamped (folded
    into the nudge or added after; a low bound above the zero point too); a bias scaled
    the same may come beside them."""
    pairs = _pairs(5, 16)
    right = [-e for _, e in pairs]
    left = [2 + max(right) - e for e in right]
    bound = 300_000
    rng = np.random.default_rng(6)
    xs = [*range(-300, 3000), bound, -bound, *rng.integers(-bound, bound + 1, 400)]
    biases = [int(b) for b in rng.integers(-5000, 5000, len(pairs))]
    for zp, limits, fold, bias in ((-128, (-128, 127), True, None),
                                   (-128, (-128, 127), False, biases),
                                   (-3, (-3, 127), True, biases)):
        scaled = None if bias is None else [b << s for b, s in zip(bias, left, strict=True)]
        requant = requant_generic.scaled_plan(pairs, zp, fold, limits, bound + 5000, True,
                                              left, scaled)
        assert requant is not None and requant.scaled and len(set(requant.shifts)) == 1
        for channel, (multiplier, exponent) in enumerate(pairs):
            added = bias[channel] if bias else 0
            for x in xs:
                want = min(max(tflite_multiply(int(x) + added, multiplier, exponent) + zp,
                               limits[0]), limits[1])
                got = requant_generic.compute(int(x) << left[channel], requant, channel)
                assert got == want, (x, channel, zp)


def test_a_scaled_nudge_names_its_channels_shift() -> None:
    """Each scaled nudge is an odd number times 2^(left - 2): cluster4-pulp's spec reads a
    prescaled layer's per-channel left shift from its trailing zeros, to give its kernel
    the int8 weights (bsp/cluster4-pulp/iree-data-tiling.mlir, @ireerv_conv_q16)."""
    pairs = _pairs(5, 16)
    right = [-e for _, e in pairs]
    left = [2 + max(right) - e for e in right]
    for zp, fold in ((-128, True), (-128, False), (-3, True), (0, True)):
        requant = requant_generic.scaled_plan(pairs, zp, fold, (max(zp, -128), 127), 300_000,
                                              True, left)
        assert requant is not None
        for nudge, shift in zip(requant.nudges, left, strict=True):
            assert (nudge & -nudge).bit_length() - 1 == shift - 2, (nudge, shift, zp)


def test_scaled_sums_need_one_shift_clamped_and_room() -> None:
    pairs = _pairs(7, 4)
    right = [-e for _, e in pairs]
    left = [2 + max(right) - e for e in right]
    assert requant_generic.scaled_plan(pairs, bound=1000, left=left, **TERMS) is not None
    uneven = [left[0] + 1, *left[1:]]
    assert requant_generic.scaled_plan(pairs, bound=1000, left=uneven, **TERMS) is None
    assert requant_generic.scaled_plan(pairs, bound=1000, left=left,
                                       **{**TERMS, "clamped": False}) is None  # a sign term
    assert requant_generic.scaled_plan(pairs, bound=1 << 28, left=left, **TERMS) is None


def test_which_layers_take_int16_weights() -> None:
    """One left shift per output channel where every scaled weight fits int16; none for
    a layer of more than MAX_WEIGHT_BYTES of weights or a weight that would not fit."""
    rng = np.random.default_rng(8)
    pairs = _pairs(9, 16)
    rows = rng.integers(-3, 4, (16, 8)).astype(np.int8)
    left = prescaled.left_shifts(rows, pairs, 10_000, TERMS)
    right = [-e for _, e in pairs]
    assert left == [2 + max(right) - e for e in right]
    one = prescaled.left_shifts(rows, pairs[:1], 10_000, TERMS)  # one scale: 4x only
    assert one == [2] * 16
    big = rows.copy()
    big[int(np.argmax(left)), 0] = 127
    assert prescaled.left_shifts(big, pairs, 10_000, TERMS) is None
    wide = rng.integers(-3, 4, (16, prescaled.MAX_WEIGHT_BYTES // 16 + 1)).astype(np.int8)
    assert prescaled.left_shifts(wide, pairs, 10_000, TERMS) is None


def test_convolution_text() -> None:
    """OHWI weights become HWCF int16 scaled per output channel; the bias is scaled the
    same and added after the linalg convolution (TOSA has no int8 x int16 one)."""
    w = tosa_text.Writer()
    weights = np.arange(-8, 8, dtype=np.int8).reshape(2, 1, 2, 4)
    left = [2, 5]
    sums, biases = prescaled.convolution(w, "conv2d", ("%x", (1, 3, 8, 4)), weights,
                                         np.array([7, -9], dtype=np.int32), ((1, 2), (1, 1)),
                                         left, (1, 3, 4, 2))
    text = "\n".join(w.lines)
    filt = (weights.astype(np.int64) << np.array(left)[:, None, None, None]).transpose(1, 2, 3, 0)
    assert f'dense<"0x{filt.astype("<i2").tobytes().hex()}"> : tensor<1x2x4x2xi16>' in text
    assert "linalg.conv_2d_nhwc_hwcf {dilations = dense<[1, 1]> : tensor<2xi64>, " \
           "strides = dense<[1, 2]> : tensor<2xi64>}" in text
    assert "ins(%x, %v1 : tensor<1x3x8x4xi8>, tensor<1x2x4x2xi16>)" in text
    assert text.splitlines()[-1].startswith(f"    {sums} = linalg.conv_2d_nhwc_hwcf")
    assert biases == [7 << 2, -9 << 5]
