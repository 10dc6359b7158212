"""What to tell the user when an image does not fit the board's memory.

The linker's own words ("region `spm0' overflowed by 97472 bytes") name a region
but not what to do about it: a model too big for the default placement fits
one of the board's other placements.
"""

from __future__ import annotations

import re

from ireerv.boards.board import DEFAULT_PLACEMENT, Board

_OVERFLOW = re.compile(r"region `([^']+)' overflowed by (\d+) bytes")


def explain(linker_output: str, board: Board) -> str | None:
    """One line saying which region overflowed and which placement would hold the image;
    None when the output shows no overflow."""
    match = _OVERFLOW.search(linker_output)
    if not match:
        return None
    region, excess = match.group(1), int(match.group(2))
    where = f"board {board.name}, placement {board.placement_name!r}"
    others = [name for name, placement in sorted(board.placements.items())
              if name != board.placement_name and _relieves(placement, region)]
    if board.placement_name != DEFAULT_PLACEMENT:
        others = []
    need = _data_bytes(board, region, excess)
    fitting = [name for name in others if _fits(board, board.placements[name], need)]
    if fitting:
        hint = (f"; use placement {fitting[0]!r} (model.toml: placement = \"{fitting[0]}\", "
                f"or PLACEMENT={fitting[0]})")
    elif others:
        hint = (f"; no placement of the board holds it either ({need:,} bytes of data, "
                f"beside the stack and heap that placement {others[0]!r} reserves)")
    else:
        hint = "; the board has no larger placement"
    placed = board.placement
    if placed.constants:  # say what went where
        where_ = f" (constants in {placed.constants}, the rest in {placed.rodata})"
    else:
        where_ = ""
    return (f"the image does not fit region {region} ({where}): {excess:,} bytes too many"
            + where_ + hint)


def _length(board: Board, region: str) -> int:
    return next(r.length for r in board.memory if r.name == region)


def _data_bytes(board: Board, region: str, excess: int) -> int:
    """The image's constants, data and bss that were placed in `region`: what the region
    holds and what overflowed, less the stack and fixed heap reserved there."""
    here = board.placement
    reserved = (here.stack_size if here.stack == region else 0) + (
        here.heap_size or 0 if here.heap == region else 0)
    return _length(board, region) + excess - reserved


def _relieves(placement, region: str) -> bool:
    """Whether the placement takes the image's data, or at least its constants, out of
    `region`."""
    if placement.constants and placement.constants != region:
        return True
    return region not in _regions(placement)


def _fits(board: Board, placement, need: int) -> bool:
    """Whether another placement's data region (its constants' region, when it keeps them
    apart) holds `need` bytes beside its stack and its fixed heap (code that shares the
    region is not counted: a lower bound)."""
    region = placement.constants or placement.rodata
    reserved = (placement.stack_size if placement.stack == region else 0) + (
        placement.heap_size or 0 if placement.heap == region else 0)
    return need + reserved <= _length(board, region)


def _regions(placement) -> set[str]:
    return {placement.rodata, placement.data, placement.bss, placement.stack, placement.heap}
