"""The compile for IREE's inline HAL: initialisers outlined between its two halves."""

from __future__ import annotations

from pathlib import Path

import pytest
from golden_files import check_golden

from ireerv import boards
from ireerv.image import iree_compile
from ireerv.runtime import inline_hal

# What the pinned compiler's HAL phase writes for a one-dispatch program (shortened).
HAL_PHASE = (Path(__file__).resolve().parent / "data/inline_hal_phase.mlir").read_text()


def test_each_initializer_becomes_a_call_of_its_body() -> None:
    check_golden("inline_hal_outlined.mlir", inline_hal.outline_initializers(HAL_PHASE))


def test_several_initializers_keep_their_order() -> None:
    second = HAL_PHASE.replace("  util.func public", "  util.initializer {\n"
                               "    util.global.store %c, @counter : i32\n"
                               "    util.return\n  }\n  util.func public", 1)
    text = inline_hal.outline_initializers(second)
    assert text.index("@__ireerv_initializer_0()") < text.index("@__ireerv_initializer_1()")
    assert "util.global private mutable @counter" in text  # already mutable: unchanged


def test_an_initializer_in_another_form_is_an_error() -> None:
    odd = HAL_PHASE.replace("  util.initializer {", "  util.initializer attributes {} {")
    with pytest.raises(inline_hal.InlineHalError, match="expected form"):
        inline_hal.outline_initializers(odd)


def test_flags_ask_for_the_inline_execution_model_unless_the_full_hal_is_asked_for() -> None:
    board = boards.load_board("cluster4")
    assert inline_hal.EXECUTION_FLAG in iree_compile.flags(board, 1)
    assert inline_hal.EXECUTION_FLAG in iree_compile.flags(board, 4)
    assert inline_hal.EXECUTION_FLAG not in iree_compile.flags(board, 1, hal="full")


def test_located_initializers_end_at_their_own_brace() -> None:
    """With locations printed each closing brace carries one: the body ends at its own line."""
    located = HAL_PHASE.replace("    util.return\n  }\n  util.func public",
                                '    util.return\n  } loc("m.mlir":1:1)\n'
                                '  util.initializer {\n    util.return\n  } loc("m.mlir":2:1)\n'
                                "  util.func public")
    text = inline_hal.outline_initializers(located)
    assert text.count("util.call @__ireerv_initializer_") == 2
    assert '  } loc("m.mlir":2:1)\n  util.func public' in text


def test_repeated_allocations_get_calls_of_their_own() -> None:
    """The compiler's VM CSE merges allocations of equal operands (its import is declared
    free of side effects): results and transients of equal size shared one buffer."""
    body = ("  util.func public @f() {\n"
            "    %c64 = arith.constant 64 : index\n    %c1536 = arith.constant 1536 : index\n"
            "    %b0, %s0 = hal_inline.buffer.allocate alignment(%c64) : !hal.buffer{%c1536} "
            'in !util.buffer loc("m":1:1)\n'
            "    %b1, %s1 = hal_inline.buffer.allocate alignment(%c64) : !hal.buffer{%c1536} "
            'in !util.buffer loc("m":2:1)\n'
            "    %b2, %s2 = hal_inline.buffer.allocate alignment(%c64) : !hal.buffer{%c1536} "
            "in !util.buffer\n"
            "    %b3, %s3 = hal_inline.buffer.allocate alignment(%c64) : !hal.buffer{%c64} "
            "in !util.buffer\n    util.return\n  }\n")
    text = inline_hal.distinct_allocations(HAL_PHASE + body)
    assert text.startswith(HAL_PHASE)  # the rest left as it was
    tail = text[len(HAL_PHASE):]
    assert "%__ireerv_alignment_1 = arith.constant 128 : index\n    %b1, %s1 = " in tail
    assert "%__ireerv_alignment_2 = arith.constant 256 : index\n    %b2, %s2 = " in tail
    assert 'alignment(%__ireerv_alignment_1) : !hal.buffer{%c1536} in !util.buffer loc("m":2:1)' \
        in tail
    assert "%b0, %s0 = hal_inline.buffer.allocate alignment(%c64)" in tail
    assert "%b3, %s3 = hal_inline.buffer.allocate alignment(%c64)" in tail  # another size
    assert inline_hal.distinct_allocations(text) == text
