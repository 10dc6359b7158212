"""What the generic runner (runtime/runner/runner.c) prints, parsed: OUTPUT, CYCLES,
WORKGROUPS, HART_CYCLES and STATUS lines."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np


class RunnerOutputError(ValueError):
    """The runner printed something that cannot be read."""


@dataclass
class RunnerOutput:
    """The lines the runner printed, parsed. `status` is "OK" on success."""

    outputs: list[np.ndarray] = field(default_factory=list)
    startup_cycles: int | None = None
    warmup_cycles: int | None = None  # the warm-up call, where the image has one
    call_cycles: list[int] = field(default_factory=list)
    status: str | None = None
    workgroups: list[str] = field(default_factory=list)  # per dispatch of the last call: "8x1x1"
    hart_cycles: list[int] = field(default_factory=list)  # per hart: cycles on its shares
    # MEMORY lines: "heap_peak", "largest_allocation", "refused_allocation" (bytes), and
    # each hart's stack used.
    memory: dict[str, int] = field(default_factory=dict)
    stacks: list[int] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status == "OK"


_OUTPUT_LINE = re.compile(r"OUTPUT (\d+) ([a-z]+)(\d+) (scalar|\d+(?:x\d+)*):(.*)\Z")
_CYCLES_LINE = re.compile(r"CYCLES (startup|warmup|call \d+) (\d+)\Z")
_WORKGROUPS_LINE = re.compile(r"WORKGROUPS((?: \d+x\d+x\d+)*)\Z")
_HART_CYCLES_LINE = re.compile(r"HART_CYCLES((?: \d+)+)\Z")
_MEMORY_LINE = re.compile(r"MEMORY (\w+)(?: (\d+))? (\d+)\Z")


def _output_dtype(kind: str, bits: int) -> tuple[np.dtype, bool]:
    """The NumPy dtype of a printed output and whether its values are hex bit patterns."""
    if kind == "f" and bits in (16, 32, 64):
        return np.dtype(f"<u{bits // 8}"), True  # viewed as float afterwards
    if kind == "i" and bits in (8, 16, 32, 64):
        return np.dtype(f"int{bits}"), False
    if kind == "u" and bits in (8, 16, 32, 64):
        return np.dtype(f"uint{bits}"), False
    if kind == "b" and bits == 8:
        return np.dtype(np.bool_), False
    if kind in ("bf", "x") and bits in (8, 16, 32, 64):
        return np.dtype(f"<u{bits // 8}"), True  # raw bits: no NumPy type
    raise RunnerOutputError(f"runner printed an unknown dtype {kind}{bits}")


def parse_runner_output(text: str) -> RunnerOutput:
    """Parse the runner's OUTPUT/CYCLES/STATUS lines; other lines are ignored."""
    result = RunnerOutput()
    for raw in text.splitlines():
        line = raw.strip()
        if match := _OUTPUT_LINE.match(line):
            index, kind, bits, shape_text, values = match.groups()
            if int(index) != len(result.outputs):
                raise RunnerOutputError(f"output {index} out of order: {line!r}")
            dtype, is_hex = _output_dtype(kind, int(bits))
            shape = () if shape_text == "scalar" else tuple(int(d) for d in shape_text.split("x"))
            try:
                numbers = [int(v, 16) if is_hex else int(v) for v in values.split()]
            except ValueError:  # cut short (a cycle limit mid-line): no output, said plainly
                raise RunnerOutputError(f"output {index} was cut short: {line[-60:]!r}") from None
            array = np.array(numbers, dtype=dtype)
            if kind == "f":
                array = array.view(f"<f{int(bits) // 8}")
            if array.size != int(np.prod(shape)):
                raise RunnerOutputError(f"output {index} has {array.size} values for shape {shape}")
            result.outputs.append(array.reshape(shape))
        elif match := _CYCLES_LINE.match(line):
            what, count = match.group(1), int(match.group(2))
            if what == "startup":
                result.startup_cycles = count
            elif what == "warmup":
                result.warmup_cycles = count
            else:
                result.call_cycles.append(count)
        elif match := _WORKGROUPS_LINE.match(line):
            result.workgroups = match.group(1).split()
        elif match := _HART_CYCLES_LINE.match(line):
            result.hart_cycles = [int(c) for c in match.group(1).split()]
        elif match := _MEMORY_LINE.match(line):
            what, index, count = match.group(1), match.group(2), int(match.group(3))
            if what == "stack" and index is not None:
                result.stacks.append(count)
            else:
                result.memory[what] = count
        elif line.startswith("STATUS "):
            result.status = line[len("STATUS ") :]
    return result
