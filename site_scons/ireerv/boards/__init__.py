"""Boards: the board model from board.toml, its linker script and C header."""
