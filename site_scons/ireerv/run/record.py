"""The run record: what one checked run of an image wrote, in one schema.

Written as JSON beside the image (`run.json`, `bench-run.json`), also for a
failed run (it then says what failed); read by the bench.

    {"schema": "ireerv-run/1",
     "model": str, "board": str, "size": int | null, "runtime": "iree" | "none",
     "harts": int (harts sharing each dispatch; 1 when absent),
     "harts_auto": bool (HARTS=auto: each dispatch chose how many of them; false when absent),
     "workgroups": [str] (per dispatch of the last call, "8x1x1"; only with harts > 1),
     "hart_cycles": [int] (per hart, cycles on its shares of the last call; harts > 1),
     "passed": bool, "problems": [str],
     "reason": "passed" | "failed" | "timeout" | "cycle-limit" | "crash", "detail": str,
     "seconds": float,
     "startup_cycles": int | null, "call_cycles": [int],
     "warmup_cycles": int | null (the warm-up call before the first measured one, which
                      fills the weight cache; null when the image has none),
     "worst": str,
     "memory": {"heap_peak": int, "largest_allocation": int,
                "refused_allocation": int (only when one was refused), "stacks": [int] (per hart),
                "regions": [{"region", "size", "static", "stack", "heap", "peak"}]}}
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ireerv.image.layout import AUTO
from ireerv.run.check import Verdict
from ireerv.run.runner_output import RunnerOutput
from ireerv.simulators.base import RunResult
from ireerv.util.files import atomic_write

SCHEMA = "ireerv-run/2"  # 2: "memory"


class RecordError(ValueError):
    """A run record that is not one: wrong schema, missing or mistyped keys."""


@dataclass(frozen=True)
class RunRecord:
    model: str
    board: str
    size: int | None
    runtime: str
    passed: bool
    reason: str
    detail: str
    seconds: float
    problems: list[str] = field(default_factory=list)
    startup_cycles: int | None = None
    call_cycles: list[int] = field(default_factory=list)
    warmup_cycles: int | None = None
    worst: str = ""  # each output's element farthest from the reference
    harts: int = 1  # harts sharing each dispatch (HARTS)
    harts_auto: bool = False  # HARTS=auto: each dispatch chose how many of them
    workgroups: list[str] = field(default_factory=list)
    hart_cycles: list[int] = field(default_factory=list)
    memory: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, image: Any, verdict: Verdict, result: RunResult,
           peaks: list[Any] = ()) -> RunRecord:
        """The record of one run of `image` (anything with model, board, size, runtime)."""
        parsed = verdict.parsed or RunnerOutput()
        return cls(model=image.model.name, board=image.board.name, size=image.size,
                   runtime=image.runtime, passed=verdict.passed, reason=result.reason,
                   detail=result.detail, seconds=round(result.seconds, 3),
                   problems=list(verdict.problems), startup_cycles=parsed.startup_cycles,
                   call_cycles=list(parsed.call_cycles),
                   warmup_cycles=parsed.warmup_cycles,
                   worst=verdict.worst, harts=getattr(image, "harts", 1),
                   harts_auto=_auto(image),
                   workgroups=list(parsed.workgroups), hart_cycles=list(parsed.hart_cycles),
                   memory={**parsed.memory, "stacks": list(parsed.stacks),
                           "regions": [p.to_json() for p in peaks]} if parsed.memory else {})

    def to_json(self) -> dict[str, Any]:
        return {"schema": SCHEMA, **asdict(self)}

    @classmethod
    def from_json(cls, data: Any, where: str = "run record") -> RunRecord:
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            raise RecordError(f"{where}: not a run record of schema {SCHEMA}")
        values = {k: v for k, v in data.items() if k != "schema"}
        try:
            record = cls(**values)
        except TypeError as err:
            raise RecordError(f"{where}: {err}") from None
        if not isinstance(record.size, (int, type(None))) or isinstance(record.size, bool):
            raise RecordError(f"{where}: size must be a whole number or null")
        return record

    def write(self, path: Path) -> None:
        atomic_write(path, json.dumps(self.to_json(), indent=2) + "\n")


def _cycle_count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 \
        else None


def first_call(record: Mapping[str, Any] | None) -> int | None:
    """The first call of a run that passed: None for a failed run or one without calls."""
    calls = record.get("call_cycles") if record and record.get("passed") is True else None
    return _cycle_count(calls[0]) if isinstance(calls, list) and calls else None


def later_call(record: Mapping[str, Any] | None) -> int | None:
    """The call every bench, docs figure and figures test counts: the last call of a run
    that passed (with REPEAT=2 the one after the call that filled the weight cache and
    chose each dispatch's harts).  None for a failed run or one without calls: a failed
    run's cycles are no figure."""
    calls = record.get("call_cycles") if record and record.get("passed") is True else None
    return _cycle_count(calls[-1]) if isinstance(calls, list) and calls else None


def _auto(image: Any) -> bool:
    key = getattr(image, "key", None)
    return bool(key and str(key.value("HARTS")) == AUTO)


def load(path: Path) -> RunRecord:
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as err:
        raise RecordError(f"cannot read run record {path}: {err}") from None
    return RunRecord.from_json(data, str(path))
