"""Each dispatch's workgroup count as the compiled program states it, and what that
tells the runner before anything runs.

After the HAL phase of an inline-HAL compile every dispatch is a
`hal_loader.executable.dispatch ... workgroups([%x, %y, %z])`; for a model of static
shapes the three are `arith.constant`s.  When every dispatch has one workgroup there is
nothing to share, so an image with several harts (HARTS=auto or a number) installs no
dispatch hook: IREE's own loop runs the dispatches, as in an image of one hart, and the
link drops the team's code.  A count the program computes, or a compile without the HAL
phase (HAL=full), counts as "may have several".
"""

from __future__ import annotations

import re

HEADER = "dispatches.h"  # the header's name after the compile's stem: model_dispatches.h
MACRO = "RUNNER_MODEL_SHARES"
DISPATCHES = "RUNNER_MODEL_DISPATCHES"

_DISPATCH = re.compile(r"hal_loader\.executable\.dispatch\b[^\n]*?workgroups\(\[([^\]]*)\]\)")
_CONSTANT = re.compile(r"(%[\w$.-]+) = arith\.constant (-?\d+) : index\b")

Count = tuple[int, int, int] | None  # None: not a constant of the program


def workgroup_counts(hal_text: str) -> list[Count]:
    """Each dispatch's (x, y, z), in program order; None where one is not a constant.
    A name given two different constants (in two functions) is not trusted."""
    values: dict[str, int | None] = {}
    for name, value in _CONSTANT.findall(hal_text):
        values[name] = int(value) if values.get(name, int(value)) == int(value) else None
    counts: list[Count] = []
    for operands in _DISPATCH.findall(hal_text):
        names = [n.strip() for n in operands.split(",")]
        sizes = [values.get(n) for n in names]
        counts.append(tuple(sizes) if len(sizes) == 3 and None not in sizes else None)
    return counts


def may_share(counts: list[Count]) -> bool:
    """Whether any dispatch may have more than one workgroup."""
    return any(c is None or c[0] * c[1] * c[2] > 1 for c in counts)


def header(shares: bool, dispatches: int | None = None) -> str:
    """The runner's header: whether the team's dispatch hook is needed at all, and the
    program's dispatches where known (HARTS=auto plans each dispatch of a board kernel
    on its own: runtime/runner/hart_plan.c sizes its table with them)."""
    lines = ["/* Written by the build from the compiled program (harts/dispatch_counts.py). */",
             "/* 1: some dispatch may have several workgroups; 0: every one has one. */",
             f"#define {MACRO} {1 if shares else 0}"]
    if dispatches is not None:
        lines += ["/* The dispatches in the program. */",
                  f"#define {DISPATCHES} {dispatches}"]
    return "\n".join(lines) + "\n"
