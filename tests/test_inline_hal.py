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
