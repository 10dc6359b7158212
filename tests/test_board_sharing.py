"""board.toml [sharing]: the figures HARTS=auto's plan predicts with, checked and turned
into bsp_config.h macros; a board of several harts has its own, and a board whose runner
copies under a memory rule brings that copy in its folder."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_boards import CLUSTER_TOML, edited, write_board

from ireerv import boards
from ireerv.boards.sharing import Sharing


def sharing_table(text: str) -> str:
    start = text.index("[sharing]")
    return text[start:text.index("\n[", start)]


def test_the_main_board_gives_its_figures() -> None:
    board = boards.board_with_role("main")
    assert board.sharing == Sharing(
        copy_in_cycles=26, write_back_cycles=24, overhead_cycles=2000, helper16=17,
        cap16={"local": 21, "fetch_bound": 20},
        busy16={"local": (16, 24, 32, 43), "fetch_bound": (16, 27, 39, 51)})
    defines = dict(re.findall(r"^#define (BSP_SHARING_\w+) (.+)$",
                              boards.config_header(board), re.M))
    assert defines["BSP_SHARING_COPY_IN_CYCLES"] == "26"
    assert defines["BSP_SHARING_CAP16_FETCH_BOUND"] == "20"
    # Indexed by harts busy: 0 unused.
    assert defines["BSP_SHARING_BUSY16_LOCAL"] == "{16, 16, 24, 32, 43}"
    assert defines["BSP_SHARING_BUSY16_LOCAL_LENGTH"] == "5"


def test_a_board_of_one_hart_needs_none(tmp_path: Path) -> None:
    text = edited(CLUSTER_TOML, "harts = 4", "harts = 1").replace(
        sharing_table(CLUSTER_TOML), "")
    text = edited(text, 'harts_default = "auto"', "harts_default = 1")
    board = boards.load_board("cluster4", write_board(tmp_path, "cluster4", text))
    assert board.sharing is None
    assert "BSP_SHARING" not in boards.config_header(board)


@pytest.mark.parametrize(("old", "new", "error"), [
    (None, "", r"4 harts need a \[sharing\] table"),
    ("helper16 = 17", "helper16 = 17\nspeed = 1", r"unknown key\(s\) speed"),
    ("copy_in_cycles = 26", 'copy_in_cycles = "26"', "'copy_in_cycles' must be an integer"),
    ("overhead_cycles = 2000", "overhead_cycles = -1", "'overhead_cycles' must be 0.."),
    ("cap16 = { local = 21, fetch_bound = 20 }", "cap16 = { local = 21 }",
     "'cap16' must be a table of local, fetch_bound"),
    ("local = [16, 24, 32, 43]", "local = [16, 24, 32, 43, 50]",
     r"busy16.local: a list of 1..4 numbers"),
    ("local = [16, 24, 32, 43]", "local = [17, 24, 32, 43]", "one hart busy takes its own"),
    ("local = [16, 24, 32, 43]", "local = [16, 24, 20, 43]", "never make a workgroup faster"),
])
def test_a_wrong_table_says_what_is_wrong(tmp_path: Path, old: str | None, new: str,
                                          error: str) -> None:
    table = sharing_table(CLUSTER_TOML)
    text = CLUSTER_TOML.replace(table, new if old is None else edited(table, old, new))
    with pytest.raises(boards.BoardError, match=error):
        boards.load_board("cluster4", write_board(tmp_path, "cluster4", text))


def test_a_board_without_its_copy_is_refused(tmp_path: Path) -> None:
    root = write_board(tmp_path, "cluster4", CLUSTER_TOML)
    (root / "cluster4" / boards.board.SHARED_COPY_HEADER).unlink()
    with pytest.raises(boards.BoardError, match="need bsp_shared_copy.h in cluster4/"):
        boards.load_board("cluster4", root)
