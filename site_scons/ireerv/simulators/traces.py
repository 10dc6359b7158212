"""Executed instructions of hart 0 as (pc, cost) pairs, from each simulator kind's trace.

QEMU (`-d in_asm,exec,nochain -icount shift=0`): each translated block is listed once
("IN:" and its instructions), each execution prints "Trace <cpu>: <host pointer> [..]";
with nochain every executed block prints.  Each instruction costs 1 (one instruction is one
count of QEMU's -icount clock).

Cluster (+pctrace, patches/cluster-tb-pctrace.patch): one line "<cycle> <pc>" (hex) per
instruction core 0 issues from decode.  An instruction costs the cycles until the next one
issues, so the costs of a window add up to its cycles exactly.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

_TRACE = re.compile(r"^Trace (\d+): (0x[0-9a-f]+) \[[0-9a-f]+/([0-9a-f]+)/")
_ASM = re.compile(r"^0x([0-9a-f]+):\s+[0-9a-f]+\s")


class TraceError(Exception):
    """The trace file is missing or not in the expected form."""


def qemu_instructions(path: Path, cpu: int = 0) -> Iterator[tuple[int, int]]:
    """(pc, 1) for every instruction `cpu` executed, in order."""
    blocks: dict[str, list[int]] = {}
    pending: list[int] = []
    seen = False
    try:
        f = path.open(errors="replace")
    except OSError as err:
        raise TraceError(f"cannot read QEMU log {path}: {err}") from None
    with f:
        for line in f:
            if line.startswith("0x"):
                m = _ASM.match(line)
                if m:
                    pending.append(int(m.group(1), 16))
            elif line.startswith("Trace "):
                m = _TRACE.match(line)
                if not m:
                    continue
                seen = True
                host = m.group(2)
                if pending:  # the block just translated is the one about to run
                    blocks[host] = pending
                    pending = []
                if int(m.group(1)) != cpu:
                    continue
                for pc in blocks.get(host) or (int(m.group(3), 16),):
                    yield pc, 1
            elif line.startswith("IN:"):
                pending = []
    if not seen:
        raise TraceError(f"{path} has no executed blocks (was QEMU run with -d exec?)")


def cluster_instructions(path: Path) -> Iterator[tuple[int, int]]:
    """(pc, cycles until the next instruction issues); the last costs 1."""
    previous: tuple[int, int] | None = None
    try:
        f = path.open()
    except OSError as err:
        raise TraceError(f"cannot read cluster trace {path}: {err}") from None
    with f:
        for number, line in enumerate(f, 1):
            try:
                cycle_text, pc_text = line.split()
                cycle, pc = int(cycle_text, 16), int(pc_text, 16)
            except ValueError:
                raise TraceError(f"{path}:{number}: not '<cycle> <pc>': {line.strip()!r}") from None
            if previous is not None:
                yield previous[1], cycle - previous[0]
            previous = (cycle, pc)
    if previous is None:
        raise TraceError(f"{path} is empty (was the simulator run with +pctrace?)")
    yield previous[1], 1
