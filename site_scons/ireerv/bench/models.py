"""The models bench: per model and board, one inference's cycles or instructions, the image,
its RAM, the verdict and the soft-float share, next to published figures for other hardware.

Plan: bench/models.toml.  Table: JSON schema "ireerv-models-bench/1":

    {"schema": "ireerv-models-bench/1",
     "rows": [{"model": str, "task": str | null, "board": str, "placement": str,
               "unit": "cycles" | "instructions", "startup": int | null,
               "inference": int | null,          # the later call
               "code_and_data": int | null, "ram": int | null,  # ram: data + bss, no heap
               "passed": bool, "reason": str,
               "soft_float_share": float | null,  # % of the profiled inference
               "reference_cycles": int | null, "ratio": float | null}],  # cluster rows only
     "reference": {"source": str, "results": [{"task", "inferences_per_second", "cycles"}]}}
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA = "ireerv-models-bench/2"  # 2: the measured memory peaks
PLAN_FILE = Path(__file__).with_name("models.toml")
HEAP_SECTION = ".heap"  # a reserved heap is room, not what the image needs
SOFT_FLOAT = "soft-float"  # the profile's component of the f32 routines


class ModelsPlanError(ValueError):
    """models.toml is not what the bench needs."""


@dataclass(frozen=True)
class ModelsPlan:
    boards: tuple[str, ...]
    profile_board: str
    models: tuple[tuple[str, str | None, bool], ...]  # (model, task, profile it)
    reference: dict[str, Any]


def load_plan(path: Path = PLAN_FILE) -> ModelsPlan:
    try:
        data = tomllib.loads(path.read_text())
        ref = data["reference"]
        plan = ModelsPlan(
            boards=tuple(str(b) for b in data["boards"]),
            profile_board=str(data["profile_board"]),
            models=tuple((str(m["model"]), m.get("task"), bool(m.get("profile", False)))
                         for m in data["models"]),
            reference={"source": str(ref["source"]),
                       "results": [{"task": str(r["task"]),
                                    "inferences_per_second": float(r["inferences_per_second"]),
                                    "cycles": int(r["cycles"])} for r in ref["results"]]})
    except (OSError, tomllib.TOMLDecodeError, KeyError, TypeError, ValueError) as err:
        raise ModelsPlanError(f"{path}: {err!r}") from None
    return plan


def _ram(size_report: Mapping[str, Any]) -> int:
    heap = sum(s["size"] for s in size_report["sections"] if s["name"] == HEAP_SECTION)
    return size_report["totals"]["data"] - heap


def _soft_float_share(profile: Mapping[str, Any] | None) -> float | None:
    if not profile:
        return None
    call = [p for p in profile["phases"] if p["name"].startswith("call ")][-1]
    self_count = sum(c["self"] for c in call["components"] if c["name"] == SOFT_FLOAT)
    return round(100.0 * self_count / call["total"], 2) if call["total"] else None


@dataclass(frozen=True)
class Measured:
    """What one image of the plan produced."""

    model: str
    task: str | None
    board: str
    placement: str
    unit: str
    run: Mapping[str, Any]  # its run record (ireerv-run/2)
    size_report: Mapping[str, Any]
    profile: Mapping[str, Any] | None = None


def row(m: Measured, reference: Mapping[str, Any]) -> dict[str, Any]:
    calls = m.run.get("call_cycles") or []
    inference = calls[-1] if calls else None
    ref = next((r["cycles"] for r in reference["results"] if r["task"] == m.task), None)
    ref = ref if m.unit == "cycles" else None
    return {
        "model": m.model, "task": m.task, "board": m.board, "placement": m.placement,
        "unit": m.unit, "startup": m.run.get("startup_cycles"), "inference": inference,
        "code_and_data": m.size_report["totals"]["code"], "ram": _ram(m.size_report),
        "passed": bool(m.run.get("passed")), "reason": str(m.run.get("reason", "")),
        "soft_float_share": _soft_float_share(m.profile),
        "reference_cycles": ref,
        "ratio": round(inference / ref, 3) if ref and inference else None,
        **_memory(m.run.get("memory") or {}),
    }


def _memory(memory: Mapping[str, Any]) -> dict[str, Any]:
    """The run's measured peaks: the heap's, hart 0's stack, and the busiest data region."""
    regions = [r for r in memory.get("regions", []) if r["stack"] or r["heap"]]
    busiest = max(regions, key=lambda r: r["peak"] / r["size"], default=None)
    return {"heap_peak": memory.get("heap_peak"),
            "stack_peak": (memory.get("stacks") or [None])[0],
            "peak_region": busiest["region"] if busiest else None,
            "peak": busiest["peak"] if busiest else None,
            "peak_region_size": busiest["size"] if busiest else None}


def table(measured: Iterable[Measured], reference: Mapping[str, Any]) -> dict[str, Any]:
    return {"schema": SCHEMA, "rows": [row(m, reference) for m in measured],
            "reference": dict(reference)}


def check_schema(data: Mapping[str, Any]) -> None:
    if data.get("schema") != SCHEMA:
        raise ModelsPlanError(f"not a models bench table ({data.get('schema')!r}, "
                              f"expected {SCHEMA!r})")


def _peak(r: Mapping[str, Any]) -> str:
    if r.get("peak") is None:
        return "—"
    return f"{r['peak_region']}: {r['peak']:,} of {r['peak_region_size']:,}"


def _num(value: int | float | None) -> str:
    return "—" if value is None else f"{value:,}"


def markdown(data: Mapping[str, Any]) -> str:
    check_schema(data)
    out = ["# Bench: models", "",
           "| model | board | placement | per inference | start-up | code + data | RAM | "
           "heap peak | stack peak | data at peak | soft-float | verdict | "
           "published (other hardware) |",
           "|---|---|---|---:|---:|---:|---:|---:|---:|---|---:|---|---:|"]
    for r in data["rows"]:
        share = "—" if r["soft_float_share"] is None else f"{r['soft_float_share']:.1f} %"
        published = ("—" if r["reference_cycles"] is None else
                     f"{r['reference_cycles']:,} ({r['ratio']:.2f}×)" if r["ratio"] else
                     f"{r['reference_cycles']:,}")
        inference = "—" if r["inference"] is None else f"{r['inference']:,} {r['unit']}"
        out.append(
            f"| {r['model']} | {r['board']} | {r['placement']} | "
            f"{inference} | {_num(r['startup'])} | "
            f"{_num(r['code_and_data'])} | {_num(r['ram'])} | {_num(r.get('heap_peak'))} | "
            f"{_num(r.get('stack_peak'))} | {_peak(r)} | {share} | "
            f"{'pass' if r['passed'] else 'FAIL: ' + r['reason']} | {published} |")
    ref = data["reference"]
    out += ["", f"- Published figures: {ref['source']}; other hardware, for scale only: "
            + "; ".join(f"{r['task']} {r['inferences_per_second']} inferences/s, about "
                        f"{r['cycles']:,} cycles" for r in ref["results"]) + ".",
            "- Per inference: the runner's later call ("
            + ", ".join(f"{unit} on {board}" for board, unit in
                        {r["board"]: r["unit"] for r in data["rows"]}.items())
            + "). RAM: initialised data + bss (stack included, reserved heap not). Heap and "
            "stack peak: high-water marks measured in the run; data at peak: the data region "
            "at the run's peak (its constants, data and bss, the stack used and the heap's peak) "
            "against its size.",
            "- soft-float: share of the inference spent in the f32 routines (instruction "
            "profile); ×: ours / published.", ""]
    return "\n".join(out)
