"""Peak memory of a run, per region of the board: what the image places there (its
constants, data and bss, from the ELF) plus the high-water marks the runner measured
(the heap's and hart 0's stack), against the region's size.

Answers what users of other stacks find by trial and error: how much memory a model
needs, and (FIT=1) the smallest region and heap it runs in.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ireerv.size.analysis import analyze

# Sections that reserve memory rather than fill it: their use is what the run measured.
RESERVED = (".stack", ".heap")
ROUND = 256  # FIT's sizes are rounded up to this many bytes


@dataclass(frozen=True)
class RegionPeak:
    name: str
    size: int
    static: int  # constants, data and bss placed here
    stack: int  # hart 0's stack used, when its stack is here
    stack_reserved: int
    heap: int  # the heap's high-water mark, when the heap is here

    @property
    def peak(self) -> int:
        return self.static + self.stack + self.heap

    def to_json(self) -> dict[str, int | str]:
        return {"region": self.name, "size": self.size, "static": self.static,
                "stack": self.stack, "heap": self.heap, "peak": self.peak}


def regions_at_peak(report_regions: list[Mapping[str, Any]], placement: Any,
                    measured: Mapping[str, int], stack_used: int) -> list[RegionPeak]:
    """Each region that holds data: its static part and the measured peaks placed in it."""
    out = []
    for region in report_regions:
        static = sum(p["size"] for p in region["placements"]
                     if p["as"] == "vma" and p["section"] not in RESERVED)
        stack = stack_used if placement.stack == region["name"] else 0
        heap = measured.get("heap_peak", 0) if placement.heap == region["name"] else 0
        if static or stack or heap:
            reserved = placement.stack_size if placement.stack == region["name"] else 0
            out.append(RegionPeak(region["name"], region["length"], static, stack, reserved,
                                  heap))
    return out


def heap_room(peaks: list[RegionPeak]) -> tuple[str, int] | None:
    """The heap's region and the bytes it leaves the heap: its size less its static data
    and the reserved stack."""
    return next(((r.name, r.size - r.static - r.stack_reserved) for r in peaks if r.heap), None)


def largest_asked(measured: Mapping[str, int]) -> int:
    """The largest allocation the runtime asked for, made or refused."""
    return max(measured.get("largest_allocation", 0), measured.get("refused_allocation", 0))


def too_large(peaks: list[RegionPeak], measured: Mapping[str, int]) -> bool:
    """Whether the largest allocation asked for exceeds what the heap's region could ever
    hold."""
    room = heap_room(peaks)
    return bool(room) and largest_asked(measured) > room[1]


def describe(peaks: list[RegionPeak], measured: Mapping[str, int]) -> str:
    """One line: `spm0: 61,204 of 262,144 bytes at peak (...)` per region."""
    parts = []
    for r in peaks:
        detail = [f"static {r.static:,}"]
        if r.stack_reserved:
            detail.append(f"stack {r.stack:,} of {r.stack_reserved:,}")
        if r.heap:
            detail.append(f"heap {r.heap:,}")
        parts.append(f"{r.name}: {r.peak:,} of {r.size:,} bytes at peak ({', '.join(detail)})")
    largest = measured.get("largest_allocation")
    tail = f"; largest allocation {largest:,} bytes" if largest else ""
    if measured.get("refused_allocation"):  # the run ended RESOURCE_EXHAUSTED
        tail += f"; refused an allocation of {measured['refused_allocation']:,} bytes"
    if measured.get("weight_cache"):  # staged constants kept where the heap left room
        tail += f"; weights kept in the heap's free room {measured['weight_cache']:,} bytes"
    if too_large(peaks, measured):
        name, room = heap_room(peaks)
        tail += f", more than the {room:,} bytes {name} leaves the heap"
    return "; ".join(parts) + tail


def report(regions: list[Mapping[str, Any]], board: Any, measured: Mapping[str, int],
           stack_used: int, with_fit: bool = False) -> tuple[list[RegionPeak], list[str]]:
    """The run's peaks per region (`regions`: the size analysis's) and the lines that say
    them: where the memory went, a placement that keeps the heap out of a region it
    outgrew, and (`with_fit`) what the run needs."""
    peaks = regions_at_peak(regions, board.placement, measured, stack_used)
    lines = [f"memory: {describe(peaks, measured)}"]
    if too_large(peaks, measured):
        heap = board.placement.heap
        others = [n for n, p in sorted(board.placements.items()) if p.heap != heap]
        if others:
            lines.append(f"hint: placement {others[0]!r} keeps the heap outside {heap} "
                         f"(model.toml: placement = \"{others[0]}\", or PLACEMENT={others[0]})")
    if with_fit:
        lines.append(fit(peaks))
    return peaks, lines


def report_run(elf: Path, board: Any, measured: Mapping[str, int], stacks: list[int],
               with_fit: bool = False) -> tuple[list[RegionPeak], list[str]]:
    """report() for a run of the image `elf`: its regions from the size analysis, hart 0's
    stack from the runner's stacks."""
    regions = analyze(elf, regions=board.memory).to_json()["regions"]
    return report(regions, board, measured, stacks[0] if stacks else 0, with_fit)


def fit(peaks: list[RegionPeak]) -> str:
    """The smallest region sizes, stack and heap the run fits in (measured, rounded up)."""
    def up(n: int) -> int:
        return -(-n // ROUND) * ROUND

    parts = []
    for r in peaks:
        parts.append(f"{r.name} {up(r.peak):,} bytes")
        if r.stack_reserved:
            parts.append(f"stack_size {up(r.stack):,}")
        if r.heap:
            parts.append(f"heap_size {up(r.heap):,}")
    return "fit: the run needs " + ", ".join(parts) + f" (each rounded up to {ROUND} bytes)"
