"""Boards: the board model from bsp/<name>/board.toml, its linker script and C header.

    board = boards.load_board("cluster4")
    boards.config_header(board)    # bsp_config.h
    boards.linker_script(board)    # link.ld
"""

from ireerv.boards.board import (
    CONFIG_HEADER,
    Board,
    BoardError,
    MemoryRegion,
    choose_placement,
)
from ireerv.boards.header import config_header
from ireerv.boards.linkerscript import generate as linker_script
from ireerv.boards.load import board_with_role, list_boards, load_board

__all__ = ["CONFIG_HEADER", "Board", "BoardError", "MemoryRegion", "choose_placement",
           "board_with_role", "config_header", "linker_script", "list_boards", "load_board"]
