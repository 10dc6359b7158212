"""The models bench: per model and board, one inference's cycles or instructions, per MAC,
the image, its RAM, the verdict, the soft-float share and the costliest layers, next to
published figures for other hardware.

Plan: bench/models.toml.  Table: JSON schema "ireerv-models-bench/3":

    {"schema": "ireerv-models-bench/3",
     "rows": [{"model": str, "task": str | null, "board": str, "placement": str,
               "unit": "cycles" | "instructions",
               "startup": int | null,            # start-up and the warm-up call
               "inference": int | null,          # the later call
               "macs": int | null, "per_mac": float | null,  # the model's MACs
               "code_and_data": int | null, "ram": int | null,  # ram: data + bss, no heap
               "passed": bool, "reason": str,
               "soft_float_share": float | null,  # % of the profiled inference
               "costliest": [{"name", "kind", "percent", "per_mac"}],  # per-layer profile
               "references": [{"label", "cycles", "ratio"}],  # cycle rows with a task only
               "heap_peak", "stack_peak", "peak_region", "peak", "peak_region_size"}],
     "references": [{"label": str, "source": str, "clock_hz": int | null,
                     "extra": bool,  # for the record, not the main comparison
                     "results": [{"task", "cycles"}]}]}
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ireerv.bench.table import startup_cycles
from ireerv.profile.layers import first_part, lead
from ireerv.run.record import later_call
from ireerv.tune import space

SCHEMA = "ireerv-models-bench/4"  # 2: memory peaks; 3: MACs, layers, references; 4: clocks
PLAN_FILE = Path(__file__).with_name("models.toml")
# The published figures: the best MLPerf Tiny submission per core class, with sources.
PUBLISHED_FILE = Path(__file__).with_name("published.toml")
HEAP_SECTION = ".heap"  # a reserved heap is room, not what the image needs
SOFT_FLOAT = "soft-float"  # the profile's component of the f32 routines


class ModelsPlanError(ValueError):
    """models.toml is not what the bench needs."""


@dataclass(frozen=True)
class ModelsPlan:
    boards: tuple[str, ...]
    profile_board: str
    models: tuple[tuple[str, str | None, bool], ...]  # (model, task, profile it)
    references: tuple[dict[str, Any], ...]


def _cycles(result: Mapping[str, Any], clock_hz: int | None) -> int:
    """A published result in cycles: given, or the clock over the inferences per second."""
    if "cycles" in result:
        return int(result["cycles"])
    if not clock_hz:
        raise ValueError(f"{result['task']}: inferences per second need the reference's clock_hz")
    return round(clock_hz / float(result["inferences_per_second"]))


def _reference(ref: Mapping[str, Any]) -> dict[str, Any]:
    clock = ref.get("clock_hz")
    return {"label": str(ref["label"]), "source": str(ref["source"]),
            "clock_hz": int(clock) if clock else None, "extra": bool(ref.get("extra", False)),
            "results": [{"task": str(r["task"]), "cycles": _cycles(r, clock)}
                        for r in ref["results"]]}


def load_references(path: Path = PUBLISHED_FILE) -> tuple[dict[str, Any], ...]:
    try:
        return tuple(_reference(r) for r in tomllib.loads(path.read_text())["references"])
    except (OSError, tomllib.TOMLDecodeError, KeyError, TypeError, ValueError) as err:
        raise ModelsPlanError(f"{path}: {err!r}") from None


def load_plan(path: Path = PLAN_FILE, published: Path = PUBLISHED_FILE) -> ModelsPlan:
    try:
        data = tomllib.loads(path.read_text())
        plan = ModelsPlan(
            boards=tuple(str(b) for b in data["boards"]),
            profile_board=str(data["profile_board"]),
            models=tuple((str(m["model"]), m.get("task"), bool(m.get("profile", False)))
                         for m in data["models"]),
            references=load_references(published))
    except ModelsPlanError:
        raise  # published.toml's own message names that file
    except (OSError, tomllib.TOMLDecodeError, KeyError, TypeError, ValueError) as err:
        raise ModelsPlanError(f"{path}: {err!r}") from None
    return plan


def select_boards(plan: ModelsPlan, board: str | None) -> tuple[str, ...]:
    """The plan's boards, or the one named on the command line (BOARD=), which must be one."""
    if not board:
        return plan.boards
    if board not in plan.boards:
        raise ModelsPlanError(f"models bench: BOARD={board} is not one of the plan's boards "
                              f"({', '.join(plan.boards)})")
    return (board,)


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
    layers: Mapping[str, Any] | None = None  # its per-layer profile (profile.layers)
    macs: int | None = None  # the model's multiply-accumulates per inference
    # A tuned model (`scons tune`): its run built with TUNING=none, and the tune's record.
    untuned: Mapping[str, Any] | None = None
    tuning: Mapping[str, Any] | None = None


def _references(m: Measured, inference: int | None,
                references: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The published cycles of the row's task, each with ours / theirs (cycle rows only)."""
    if m.unit != "cycles" or not m.task:
        return []
    found = []
    for ref in references:
        cycles = next((r["cycles"] for r in ref["results"] if r["task"] == m.task), None)
        if cycles:
            found.append({"label": ref["label"], "cycles": cycles,
                          "ratio": round(inference / cycles, 3) if inference else None})
    return found


def _costliest(layers: Mapping[str, Any] | None, count: int = 3) -> list[dict[str, Any]]:
    if not layers:
        return []
    rows = [r for r in layers["rows"] if r["layers"]]
    return [{"name": first_part(lead(r)["name"]), "kind": r["kind"],
             "percent": r["percent"], "per_mac": r["per_mac"]}
            for r in sorted(rows, key=lambda r: -r["cost"])[:count]]


def row(m: Measured, references: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    inference = later_call(m.run)
    return {
        "model": m.model, "task": m.task, "board": m.board, "placement": m.placement,
        "unit": m.unit, "startup": startup_cycles(m.run), "inference": inference,
        "macs": m.macs,
        "per_mac": round(inference / m.macs, 2) if inference and m.macs else None,
        "code_and_data": m.size_report["totals"]["code"], "ram": _ram(m.size_report),
        "passed": bool(m.run.get("passed")), "reason": str(m.run.get("reason", "")),
        "soft_float_share": _soft_float_share(m.profile),
        "costliest": _costliest(m.layers),
        "references": _references(m, inference, references),
        **_memory(m.run.get("memory") or {}),
        **_tuning(m),
    }


def _tuning(m: Measured) -> dict[str, Any]:
    """A tuned model's untuned inference and, per layer kind, the kernel's untuned and tuned
    cycles from the tune's record (each dispatch timed on its own on the board)."""
    if not m.untuned:
        return {}
    kinds: dict[str, dict[str, Any]] = {}
    for row in (m.tuning or {}).get("dispatches", []):
        dispatch = space.parse_key(row["dispatch"])
        kind = space.KINDS[dispatch.op] if dispatch else "other"
        sums = kinds.setdefault(kind, {"kind": kind, "untuned": 0, "tuned": 0})
        sums["untuned"] += row["untuned"]
        sums["tuned"] += row["tuned"]
    return {"untuned": later_call(m.untuned), "tuning_kinds": list(kinds.values())}


def _memory(memory: Mapping[str, Any]) -> dict[str, Any]:
    """The run's measured peaks: the heap's, hart 0's stack, and the busiest data region."""
    regions = [r for r in memory.get("regions", []) if r["stack"] or r["heap"]]
    busiest = max(regions, key=lambda r: r["peak"] / r["size"], default=None)
    return {"heap_peak": memory.get("heap_peak"),
            "stack_peak": (memory.get("stacks") or [None])[0],
            "peak_region": busiest["region"] if busiest else None,
            "peak": busiest["peak"] if busiest else None,
            "peak_region_size": busiest["size"] if busiest else None}


def table(measured: Iterable[Measured],
          references: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    references = [dict(r) for r in references]
    return {"schema": SCHEMA, "rows": [row(m, references) for m in measured],
            "references": references}


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


def _per_inference(r: Mapping[str, Any]) -> str:
    if r["inference"] is None:
        return "—"
    per_mac = f" ({r['per_mac']:.2f}/MAC)" if r.get("per_mac") else ""
    return f"{r['inference']:,} {r['unit']}{per_mac}"


def _main_table(data: Mapping[str, Any]) -> list[str]:
    out = ["| model | board | placement | per inference | start-up | code + data | RAM | "
           "heap peak | stack peak | data at peak | soft-float | verdict |",
           "|---|---|---|---:|---:|---:|---:|---:|---:|---|---:|---|"]
    for r in data["rows"]:
        share = "—" if r["soft_float_share"] is None else f"{r['soft_float_share']:.1f} %"
        out.append(
            f"| {r['model']} | {r['board']} | {r['placement']} | {_per_inference(r)} | "
            f"{_num(r['startup'])} | {_num(r['code_and_data'])} | {_num(r['ram'])} | "
            f"{_num(r.get('heap_peak'))} | {_num(r.get('stack_peak'))} | {_peak(r)} | "
            f"{share} | {'pass' if r['passed'] else 'FAIL: ' + r['reason']} |")
    return out


def _layers_table(data: Mapping[str, Any]) -> list[str]:
    """The costliest layers (from the profile board's rows) and the published figures."""
    labels = [ref["label"] for ref in data["references"]]
    out = ["| model | board | per inference | costliest layers | "
           + " | ".join(labels) + " |", "|---|---|---:|---|" + "---:|" * len(labels)]
    costliest = {r["model"]: r["costliest"] for r in data["rows"] if r["costliest"]}
    for r in data["rows"]:
        if not (r["references"] or r["costliest"]):
            continue
        layers = "; ".join(f"{c['kind']} {c['percent']:.0f} %"
                           + (f" ({c['per_mac']:.1f}/MAC)" if c["per_mac"] else "")
                           for c in costliest.get(r["model"], []))
        published = {p["label"]: p for p in r["references"]}
        cells = [f"{published[label]['cycles']:,} ({published[label]['ratio']:.2f}×)"
                 if label in published and published[label]["ratio"] else "—"
                 for label in labels]
        out.append(f"| {r['model']} | {r['board']} | {_per_inference(r)} | {layers or '—'} | "
                   + " | ".join(cells) + " |")
    return out


def _tuning_table(data: Mapping[str, Any]) -> list[str]:
    """Tuned models against their untuned build, per network and per layer kind."""
    rows = [r for r in data["rows"] if r.get("untuned")]
    if not rows:
        return []
    out = ["## Tuned and untuned (`scons tune`)", "",
           "| model | board | untuned | tuned | tuned / untuned | kernel per layer kind, "
           "untuned → tuned |", "|---|---|---:|---:|---:|---|"]
    for r in rows:
        kinds = "; ".join(f"{k['kind']} {_num(k['untuned'])} → {k['tuned']:,}"
                          for k in r["tuning_kinds"]) or "—"
        ratio = f"{r['inference'] / r['untuned']:.3f}" if r["inference"] else "—"
        out.append(f"| {r['model']} | {r['board']} | {r['untuned']:,} | "
                   f"{_num(r['inference'])} | {ratio} | {kinds} |")
    return [*out, "", "Untuned: the same network built with `TUNING=none`, run in this bench. "
            "Kernel per layer kind: its dispatches' cycles in one call, each timed on its own, "
            "from the tune's record (`models/<m>/tuning/<board>.json`).", ""]


def markdown(data: Mapping[str, Any]) -> str:
    check_schema(data)
    units = {r["board"]: r["unit"] for r in data["rows"]}
    out = ["# Bench: models", "", *_main_table(data), "", "## Layers and published figures",
           "", *_layers_table(data), "", *_tuning_table(data),
           "- Per inference: the runner's later call ("
           + ", ".join(f"{unit} on {board}" for board, unit in units.items())
           + "), and per multiply-accumulate of the model. RAM: initialised data + bss (stack "
           "included, reserved heap not). Heap and stack peak: high-water marks measured in "
           "the run; data at peak: the data region at the run's peak (its constants, data and "
           "bss, the stack used and the heap's peak) against its size.",
           "- soft-float: share of the inference spent in the f32 routines (instruction "
           "profile). Costliest layers: the three largest rows of the per-layer profile "
           "(`scons profile`) on the profile board, with their share of the inference.",
           *_published_notes(data["references"]), ""]
    return "\n".join(out)


def _source(ref: Mapping[str, Any]) -> str:
    clock = ref.get("clock_hz")
    return f"{ref['label']}: {ref['source']}" + (f" ({clock / 1e6:g} MHz)" if clock else "")


def _published_notes(references: Iterable[Mapping[str, Any]]) -> list[str]:
    """The published columns' sources and clocks: the main comparison, then the extras."""
    main = [r for r in references if not r.get("extra")]
    extra = [r for r in references if r.get("extra")]
    out = []
    if main:
        out.append("- Published figures, other hardware, for scale (cycles per inference at "
                   "the submission's clock; ×: ours / published): "
                   + "; ".join(_source(r) for r in main) + ".")
    if extra:
        out.append("- Extra, for the record: " + "; ".join(_source(r) for r in extra) + ".")
    return out
