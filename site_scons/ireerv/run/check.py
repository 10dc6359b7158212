"""Judge a simulation run: did it end well, print every output, and match the reference?"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ireerv.run.runner_output import RunnerOutput, RunnerOutputError, parse_runner_output
from ireerv.simulators.base import CYCLE_LIMIT, TIMEOUT, RunResult

# How many mismatching elements a report shows.
SHOWN_MISMATCHES = 5


@dataclass
class Verdict:
    passed: bool
    problems: list[str] = field(default_factory=list)
    parsed: RunnerOutput | None = None
    worst: str = ""  # the element farthest from the reference, when outputs were compared


@dataclass(frozen=True)
class Rule:
    """How close an output element must be to the reference.

    Floats: |got - want| <= atol + rtol * |want| (bit for bit when both are 0).
    Integers: |got - want| <= int_step (one quantisation step for int8 outputs
    of a quantised model, 0 for the hand-written models)."""

    atol: float = 0.0
    rtol: float = 0.0
    int_step: int = 0

    def describe(self) -> str:
        if self.atol == 0 and self.rtol == 0 and self.int_step == 0:
            return "bit for bit"
        parts = ["f32 bit for bit" if self.atol == 0 and self.rtol == 0
                 else f"f32 within {self.atol:g} + {self.rtol:g} x |reference|"]
        if self.int_step:
            parts.append(f"integers within {self.int_step}")
        return ", ".join(parts)


def _same(got: np.ndarray, want: np.ndarray, rule: Rule) -> np.ndarray:
    """Element-wise agreement under `rule`.  A NaN matches any NaN (its payload bits are
    not a result); an infinity matches only the same infinity."""
    if not np.issubdtype(want.dtype, np.floating):
        return np.abs(got.astype(np.int64) - want.astype(np.int64)) <= rule.int_step
    got64, want64 = got.astype(np.float64), want.astype(np.float64)
    both_nan = np.isnan(got64) & np.isnan(want64)
    if rule.atol > 0 or rule.rtol > 0:
        with np.errstate(invalid="ignore"):  # inf - inf: NaN, never close
            close = np.abs(got64 - want64) <= rule.atol + rule.rtol * np.abs(want64)
        close &= np.isfinite(want64)  # rtol * inf would admit any value
        return both_nan | close | (got64 == want64)  # == : the same infinity
    width = f"u{want.dtype.itemsize}"
    return both_nan | (got.view(width) == want.view(width))


def worst(outputs: list[np.ndarray], reference: list[np.ndarray]) -> str:
    """Each output's element farthest from the reference and its difference, for the report."""
    parts = []
    for index, (got, want) in enumerate(zip(outputs, reference, strict=True)):
        if got.shape != want.shape or got.size == 0:
            continue
        diff = np.nan_to_num(np.abs(got.astype(np.float64) - want.astype(np.float64)),
                             nan=np.inf)
        at = np.unravel_index(int(np.argmax(diff)), diff.shape)
        parts.append(f"output {index} [{','.join(map(str, at))}]: {got[at].item()!r} vs "
                     f"{want[at].item()!r}, difference {float(diff[at]):.3g}")
    return "; ".join(parts)


def as_program_gives(reference: list[np.ndarray]) -> tuple[list[np.ndarray], list[str]]:
    """The reference's f64 outputs as f32, as iree-compile demotes them (formats.schema
    DEMOTED), and what was converted, in words."""
    converted, notes = [], []
    for index, want in enumerate(reference):
        if want.dtype == np.float64:
            want = want.astype(np.float32)
            notes.append(f"output {index}: f64 compared as f32")
        converted.append(want)
    return converted, notes


def compare(outputs: list[np.ndarray], reference: list[np.ndarray],
            tolerance: float | Rule = 0.0) -> list[str]:
    """Differences between the image's outputs and the host reference; empty when they agree."""
    if len(outputs) != len(reference):
        return [f"the image printed {len(outputs)} outputs, the reference has {len(reference)}"]
    rule = tolerance if isinstance(tolerance, Rule) else Rule(atol=tolerance)
    problems = []
    for index, (got, want) in enumerate(zip(outputs, reference, strict=True)):
        if got.shape != want.shape:
            problems.append(f"output {index}: shape {got.shape}, reference {want.shape}")
            continue
        if got.dtype.itemsize != want.dtype.itemsize or got.dtype.kind != want.dtype.kind:
            problems.append(f"output {index}: type {got.dtype}, reference {want.dtype}")
            continue
        same = _same(got, want, rule)
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


def program_problem(parsed: RunnerOutput) -> str:
    """What the program said went wrong (its STATUS, not OK), with the allocation it refused
    (release images print bare status codes)."""
    refused = parsed.memory.get("refused_allocation")
    return (f"the program reported {parsed.status}"
            + (f" (refused an allocation of {refused:,} bytes)" if refused else ""))


# The build variable that raises each limit a run can reach.
LIMIT_VARIABLES = {CYCLE_LIMIT: "MAXCYCLES=<cycles>", TIMEOUT: "TIMEOUT=<seconds>"}


def ended(result: RunResult) -> str:
    """How a run that did not pass ended and, when it reached a limit, what raises it
    (float networks on the cycle-accurate model run for hundreds of millions of cycles)."""
    raise_it = LIMIT_VARIABLES.get(result.reason)
    return (f"run {result.reason.lower()}: {result.detail}"
            + (f" ({raise_it} raises it)" if raise_it else ""))


def judge(result: RunResult, reference: list[np.ndarray] | None, tolerance: float | Rule = 0.0,
          reference_problem: str = "") -> Verdict:
    """The verdict on one run: how it ended, what it printed, and the comparison.

    Without a reference (it could not be computed: `reference_problem` says why)
    the run is judged on how it ended alone, and fails."""
    problems = []
    if not result.passed:
        problems.append(ended(result))
    if reference is None:
        problems.append(reference_problem or "no host reference")
    try:
        parsed = parse_runner_output(result.program_output)
    except RunnerOutputError as err:
        return Verdict(False, [*problems, f"unreadable output: {err}"])
    # A run that ended badly explains by itself why STATUS or outputs are missing.
    if parsed.status is None and result.passed:
        problems.append("the program printed no STATUS line")
    elif parsed.status is not None and not parsed.ok:
        problems.append(program_problem(parsed))
    if not parsed.outputs:
        if result.passed:
            problems.append("the program printed no outputs")
    elif reference is not None:
        problems += compare(parsed.outputs, reference, tolerance)
        if len(parsed.outputs) == len(reference):
            return Verdict(not problems, problems, parsed, worst(parsed.outputs, reference))
    return Verdict(not problems, problems, parsed)


def judge_app(result: RunResult) -> Verdict:
    """The verdict on an application's run (APP=): it passes when its main returns 0."""
    problems = [] if result.passed else [ended(result)]
    return Verdict(not problems, problems)
