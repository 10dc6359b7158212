"""HARTS: its checks, the runner's WORKGROUPS/HART_CYCLES lines and the run record (no
simulator: runs are in test_images.py; the bench's harts table: test_harts_table.py)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ireerv.boards import load_board
from ireerv.boards.board import INLINE_NO_CONSTANTS
from ireerv.formats.base import ModelError
from ireerv.image import layout
from ireerv.image.key import ImageKey
from ireerv.run import runner_output
from ireerv.run.record import RunRecord

OUTPUT = """CYCLES startup 64000
CYCLES call 0 355000
CYCLES call 1 354000
WORKGROUPS 4x1x1 1x1x1
HART_CYCLES 248000 314000 317000 320000
OUTPUT 0 i32 2: 1 2
STATUS OK
"""


def test_runner_lines_parse() -> None:
    parsed = runner_output.parse_runner_output(OUTPUT)
    assert parsed.workgroups == ["4x1x1", "1x1x1"]
    assert parsed.hart_cycles == [248000, 314000, 317000, 320000]
    assert parsed.call_cycles == [355000, 354000] and parsed.ok
    one = runner_output.parse_runner_output("CYCLES call 0 5\nSTATUS OK\n")
    assert one.workgroups == [] and one.hart_cycles == []


@pytest.mark.parametrize(("harts", "runtime", "message"), [
    (0, "iree", "HARTS must be 1 to 4 on board 'cluster4', not 0"),
    (5, "iree", "HARTS must be 1 to 4 on board 'cluster4', not 5"),
    (5, "none", "HARTS must be 1 to 4 on board 'cluster4', not 5"),
])
def test_bad_harts_are_one_clear_error(harts: int, runtime: str, message: str) -> None:
    with pytest.raises(ModelError) as err:
        layout.check_harts(load_board("cluster4"), runtime, harts)
    assert str(err.value) == message


def test_images_of_several_harts_build_apart() -> None:
    qemu = load_board("qemu-virt")
    folders = set()
    for runtime in ("iree", "none"):  # the plain C version too
        for harts in (1, 4):
            assert layout.check_harts(qemu, runtime, harts) is None  # allowed
            key = ImageKey.of(model="matmul", variant="matmul-4", board="qemu-virt",
                              placement="default", size=4, default_size=4,
                              values={"RUNTIME": runtime, "HARTS": harts})
            folders.add(key.build_dir())
    assert len(folders) == 4, folders


def test_auto_takes_the_boards_harts_chosen_per_dispatch() -> None:
    cluster = load_board("cluster4")
    assert layout.parse_harts("auto", cluster) == (4, True)
    assert layout.parse_harts("AUTO", cluster) == (4, True)
    assert layout.parse_harts("2", cluster) == (2, False)
    assert layout.parse_harts(None, cluster) == (4, True)  # the board's harts_default
    assert layout.parse_harts("", cluster, "none") == (1, False)  # the plain C matmul
    assert layout.parse_harts(None, load_board("qemu-virt")) == (1, False)
    with pytest.raises(ModelError, match="HARTS must be 1 to 4 or 'auto'"):
        layout.parse_harts("some", cluster)


def _record(size: int, harts_: int, cycles: int, passed: bool = True) -> dict:
    return {"schema": "ireerv-run/2", "model": "matmul", "board": "cluster4", "size": size,
            "runtime": "iree", "passed": passed, "reason": "passed" if passed else "failed",
            "detail": "", "seconds": 1.0, "call_cycles": [cycles + 600, cycles],
            "harts": harts_, "workgroups": ["4x1x1"] if harts_ > 1 else [],
            "hart_cycles": [cycles // 2] * harts_ if harts_ > 1 else []}


def test_run_record_keeps_the_hart_count() -> None:
    record = RunRecord.from_json(_record(16, 4, 354000))
    assert record.harts == 4 and record.workgroups == ["4x1x1"]
    old = {k: v for k, v in _record(16, 1, 1).items()
           if k not in ("harts", "workgroups", "hart_cycles")}
    assert RunRecord.from_json(old).harts == 1  # records written before HARTS


def test_the_harts_library_is_merged_in_ahead_of_the_boards_library() -> None:
    from ireerv.paths import PROJECT_ROOT
    from ireerv.tune import spec

    board = load_board("cluster4")
    library = (PROJECT_ROOT / board.iree.library).read_text()
    merged = spec.merge(library, (PROJECT_ROOT / board.iree.harts_library).read_text(),
                        spec.HARTS)
    entries = merged.split("foreach_match in %variant_op\n", 1)[1].split("\n")
    assert [e.strip() for e in entries[:3]] == [
        "@harts_f32_matmul_rows -> @apply_op_config,",
        "@harts_f32_matmul_dynamic -> @apply_op_config,",
        "@match_i8_copy -> @apply_op_config,"]  # then every matcher of the library
    assert merged.count("transform.named_sequence @match_") == library.count(
        "transform.named_sequence @match_")


def test_several_harts_keep_constants_out_of_kernels() -> None:
    from ireerv.image import iree_compile

    board = load_board("cluster4")
    one, four = iree_compile.flags(board, 1), iree_compile.flags(board, 4)
    # Release images drop the kernels' export names: several harts find their kernels'
    # rows by ordinal (hart_local.export_order).
    assert iree_compile.NO_DEBUG_TABLES in one and iree_compile.NO_DEBUG_TABLES in four
    # Several harts keep constants out of the kernel object (bindings instead), and so
    # does a placement that stages constants, with any harts (the small ones kept staged).
    assert INLINE_NO_CONSTANTS in four and INLINE_NO_CONSTANTS not in one
    assert ([f for f in one if "tiles" not in f]
            == [f for f in four if "tiles" not in f and f != INLINE_NO_CONSTANTS])
    large = replace(board, placement=replace(board.placement, constants="shared"))
    assert INLINE_NO_CONSTANTS in iree_compile.flags(large, 4)
    assert INLINE_NO_CONSTANTS in iree_compile.flags(large, 1)  # small ones kept staged
    assert iree_compile.NO_DEBUG_TABLES not in iree_compile.flags(board, 1, "debug")
