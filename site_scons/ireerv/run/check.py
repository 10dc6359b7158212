"""Judge a simulation run: did it end well, print every output, and match the reference?"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ireerv.image.runner_data import RunnerDataError, RunnerOutput, parse_runner_output
from ireerv.simulators.base import RunResult

# How many mismatching elements a report shows.
SHOWN_MISMATCHES = 5


@dataclass
class Verdict:
    passed: bool
    problems: list[str] = field(default_factory=list)
    parsed: RunnerOutput | None = None


def _same(got: np.ndarray, want: np.ndarray, tolerance: float) -> np.ndarray:
    """Element-wise agreement: bit for bit for integers and at tolerance 0, else within it."""
    if np.issubdtype(want.dtype, np.floating) and tolerance > 0:
        return np.abs(got.astype(np.float64) - want.astype(np.float64)) <= tolerance
    if np.issubdtype(want.dtype, np.floating):
        width = f"u{want.dtype.itemsize}"
        return got.view(width) == want.view(width)
    return got == want


def compare(outputs: list[np.ndarray], reference: list[np.ndarray],
            tolerance: float = 0.0) -> list[str]:
    """Differences between the image's outputs and the host reference; empty when they agree."""
    if len(outputs) != len(reference):
        return [f"the image printed {len(outputs)} outputs, the reference has {len(reference)}"]
    problems = []
    for index, (got, want) in enumerate(zip(outputs, reference, strict=True)):
        if got.shape != want.shape:
            problems.append(f"output {index}: shape {got.shape}, reference {want.shape}")
            continue
        if got.dtype.itemsize != want.dtype.itemsize or got.dtype.kind != want.dtype.kind:
            problems.append(f"output {index}: type {got.dtype}, reference {want.dtype}")
            continue
        same = _same(got, want, tolerance)
        if same.all():
            continue
        bad = np.argwhere(~same)
        shown = ", ".join(
            f"[{','.join(map(str, at))}] {got[tuple(at)]!r} != {want[tuple(at)]!r}"
            for at in bad[:SHOWN_MISMATCHES]
        )
        more = f" (+{len(bad) - SHOWN_MISMATCHES} more)" if len(bad) > SHOWN_MISMATCHES else ""
        problems.append(f"output {index}: {len(bad)} of {got.size} elements differ: {shown}{more}")
    return problems


def judge(result: RunResult, reference: list[np.ndarray] | None, tolerance: float = 0.0,
          reference_problem: str = "") -> Verdict:
    """The verdict on one run: how it ended, what it printed, and the comparison.

    Without a reference (it could not be computed: `reference_problem` says why)
    the run is judged on how it ended alone, and fails."""
    problems = []
    if not result.passed:
        problems.append(f"run {result.reason.lower()}: {result.detail}")
    if reference is None:
        problems.append(reference_problem or "no host reference")
    try:
        parsed = parse_runner_output(result.program_output)
    except RunnerDataError as err:
        return Verdict(False, [*problems, f"unreadable output: {err}"])
    # A run that ended badly explains by itself why STATUS or outputs are missing.
    if parsed.status is None and result.passed:
        problems.append("the program printed no STATUS line")
    elif parsed.status is not None and not parsed.ok:
        problems.append(f"the program reported {parsed.status}")
    if not parsed.outputs:
        if result.passed:
            problems.append("the program printed no outputs")
    elif reference is not None:
        problems += compare(parsed.outputs, reference, tolerance)
    return Verdict(not problems, problems, parsed)
