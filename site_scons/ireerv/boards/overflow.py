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
              if name != board.placement_name and region not in _regions(placement)]
    if board.placement_name != DEFAULT_PLACEMENT:
        others = []
    hint = (f"; use placement {others[0]!r} (model.toml: placement = \"{others[0]}\", or "
            f"PLACEMENT={others[0]})" if others else "; the board has no larger placement")
    return (f"the image does not fit region {region} ({where}): {excess:,} bytes too many"
            + hint)


def _regions(placement) -> set[str]:
    return {placement.rodata, placement.data, placement.bss, placement.stack, placement.heap}
