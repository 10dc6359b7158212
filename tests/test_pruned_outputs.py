"""Pruned output channels left out of an int8 convolution (formats/pruned_outputs.py)."""

from __future__ import annotations

from ireerv.formats import pruned_outputs, requant_generic
from ireerv.formats.tflite_math import quantize_multiplier


def test_rows_are_the_live_channels_made_a_whole_tile() -> None:
    # 8 of 16 pruned: the 8 live ones are two tiles.
    assert pruned_outputs.computed_rows(set(range(0, 16, 2)), 16) == list(range(1, 16, 2))
    # 10 of 16 pruned: 6 live, made 8 with the two lowest pruned channels.
    pruned = {0, 1, 2, 3, 4, 5, 8, 9, 12, 13}
    assert pruned_outputs.computed_rows(pruned, 16) == [0, 1, 6, 7, 10, 11, 14, 15]


def test_rows_are_none_where_leaving_channels_out_does_not_pay() -> None:
    assert pruned_outputs.computed_rows({3}, 16) is None  # under a quarter pruned
    assert pruned_outputs.computed_rows(set(range(16)), 16) is None  # none live
    assert pruned_outputs.computed_rows(set(), 16) is None
    # 1 of 3 pruned: two live channels need both pruned ones to fill a tile of 4.
    assert pruned_outputs.computed_rows({1}, 3) is None


def test_a_pruned_channels_number_is_the_one_op_requantisations() -> None:
    # The number placed for a channel left out equals what the requantisation gives the
    # same channel when it is computed as a fixed one (a layer of only pruned channels
    # has no shift to check, and still gets the one op).
    limits = (-128, 127)
    for bias in (-(1 << 30), -5, 0, 7, (1 << 30) - 5, (1 << 31) - 1):
        for real, zero_point in ((3e-8, -128), (0.0021, 4), (7e-9, -7), (0.4, 0)):
            number = pruned_outputs.pruned_outputs({0: bias}, {0: real}, zero_point,
                                                   limits)[0]
            plan = requant_generic.plan([quantize_multiplier(real)], zero_point, True,
                                        limits, bound=1000, fixed={0: bias})
            assert plan is not None and requant_generic.compute(bias, plan) == number


def test_placing_reads_a_computed_channel_or_takes_its_number() -> None:
    lines = pruned_outputs.place_lines("%p", ("%part", (6, 4)), (6, 6),
                                       ("%positions", "%numbers"), "")
    text = "\n".join(lines)
    assert "ins(%positions, %numbers : tensor<6xi32>, tensor<6xi8>)" in text
    assert "tensor.extract %part[%p_i0, %p_index] : tensor<6x4xi8>" in text
    assert text.endswith("} -> tensor<6x6xi8>")
