"""The bench table: a plan's cycles and image sizes, next to the reference figures.

collect() turns the run records of `scons run` (one JSON dict per image) and the ELF files of
those images into one table; output.write() saves it as bench.json, bench.md and bench.svg;
output.markdown() and chart.render_svg() work on the table alone, so a saved bench.json can be
drawn again.

A run that failed, or whose record is missing, still gets its row: its values are null ("—")
and the reason is kept beside them.

JSON schema "ireerv-bench/1" (cycles and bytes as integers, ratios as ours / reference):

    {
      "schema": "ireerv-bench/1",
      "model": "matmul", "board": "cluster4",
      "metrics": [{"key": "startup", "label": "runtime start-up"}, ...],
      "rows": [                                   # one per size, smallest first
        {"size": 4,
         "runs": {"iree": Run, "none": Run},     # the two images of this size
         "cells": {"startup" | "first_call" | "later_call" | "plain_c":  # startup: with
                                                    # the warm-up call, if any
                     {"ours": int | null, "reference": int | null,
                      "ratio": float | null, "note": str | null}},
         "notes": [str]}],                        # why a value is missing
      "images": [                                 # one per ELF, by size then runtime
        {"key": "4-iree", "size": 4, "runtime": "iree", "elf": "app.elf" | null,
         "status": "ok" | "missing" | "error", "reason": str | null,
         "sections": [{"name": str, "size": int, "memory": "code" | "both" | "data"}],
         "totals": {"alloc", "code", "data", "text", "data_init", "bss"} | null,
         "code_and_data": int | null, "bss": int | null,
         "reference": {"code_and_data": int, "bss": int} | null,   # IREE images only
         "ratio": {"code_and_data": float | null, "bss": float | null} | null}],
      "reference": {"source": str, "cycles": [{"size", "startup", "iree_call", "plain_c"}],
                    "image": {"code_and_data": int, "bss": int}, "notes": [str]}
    }

    Run = {"status": "passed" | "failed" | "missing", "reason": str | null,
           "seconds": float | null, "startup_cycles": int | null, "call_cycles": [int]}
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ireerv.bench.plan import RUNTIMES, Plan, load_plan, reference_json
from ireerv.run.record import first_call, later_call
from ireerv.size.analysis import analyze
from ireerv.size.report import SizeReportError

SCHEMA = "ireerv-bench/1"
RUNTIME_LABEL = {"iree": "IREE", "none": "plain C"}

# (key, label, which reference figure it is compared with)
METRICS: tuple[tuple[str, str, str], ...] = (
    ("startup", "runtime start-up", "startup"),
    ("first_call", "first IREE call", "iree_call"),
    ("later_call", "later IREE call", "iree_call"),
    ("plain_c", "plain C triple loop", "plain_c"),
)

MISSING_RUN = "no run result (the run failed or was not built)"


class BenchError(ValueError):
    """Bad input: a malformed run record, a table of another schema."""


def collect(
    results: Iterable[Mapping[str, Any]],
    images: Iterable[tuple[int, str, str | Path]],
    plan: Plan | None = None,
) -> dict[str, Any]:
    """The bench table from run records and the images' ELF files ((size, runtime, path)).

    Records of another model or board are left out; when two records name the same image,
    the later one counts.
    """
    plan = plan or load_plan()
    model, board, ref = plan.model, plan.board, plan.reference
    runs: dict[tuple[int, str], Mapping[str, Any]] = {}
    for record in results:
        if not isinstance(record, Mapping):
            raise BenchError(f"run record is a {type(record).__name__}, not a JSON object")
        if record.get("model") != model or record.get("board") != board:
            continue
        runs[(_size_of(record), _runtime_of(record))] = record

    images = list(images)
    for size, runtime, _ in images:
        if runtime not in RUNTIMES:
            raise BenchError(f"image {size}-{runtime}: the runtime is not one of "
                             f"{', '.join(RUNTIMES)}")
    order = sorted(images, key=lambda i: (i[0], RUNTIMES.index(i[1])))
    entries = [_image(n, runtime, Path(path), ref.image) for n, runtime, path in order]
    all_sizes = sorted(set(ref.cycles) | {s for s, _ in runs} | {int(i["size"]) for i in entries})
    return {
        "schema": SCHEMA,
        "model": model,
        "board": board,
        "metrics": [{"key": k, "label": label} for k, label, _ in METRICS],
        "rows": [_row(n, runs.get((n, "iree")), runs.get((n, "none")), ref.cycles.get(n, {}))
                 for n in all_sizes],
        "images": entries,
        "reference": reference_json(plan),
    }


def _size_of(record: Mapping[str, Any]) -> int:
    size = record.get("size")
    if isinstance(size, bool) or not isinstance(size, int) or size <= 0:
        raise BenchError(f"run record has no valid size: {size!r} (record {_brief(record)})")
    return size


def _runtime_of(record: Mapping[str, Any]) -> str:
    runtime = record.get("runtime")
    if runtime not in RUNTIMES:
        raise BenchError(
            f"run record has runtime {runtime!r}; expected one of {', '.join(RUNTIMES)} "
            f"(record {_brief(record)})"
        )
    return str(runtime)


def _brief(record: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={record.get(k)!r}" for k in ("model", "board", "size", "runtime"))


def _cycles(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


def startup_cycles(record: Mapping[str, Any]) -> int | None:
    """The cycles before the first call may start: start-up, and the warm-up call where
    the image makes one (runtime/runner/runner.c)."""
    startup, warm_up = _cycles(record.get("startup_cycles")), record.get("warmup_cycles")
    if startup is None or warm_up is None:
        return startup
    return None if _cycles(warm_up) is None else startup + warm_up


def _run(record: Mapping[str, Any] | None) -> dict[str, Any]:
    if record is None:
        return {"status": "missing", "reason": MISSING_RUN, "seconds": None,
                "startup_cycles": None, "call_cycles": []}  # fmt: skip
    calls = record.get("call_cycles") or []
    passed = record.get("passed") is True
    reason = None
    if not passed:
        problems = [str(p) for p in record.get("problems") or []]
        why = "; ".join(problems) or " ".join(
            str(record.get(k)) for k in ("reason", "detail") if record.get(k)
        )
        reason = f"run failed: {why or 'no reason given'}"
    seconds = record.get("seconds")
    return {
        "status": "passed" if passed else "failed",
        "reason": reason,
        "seconds": float(seconds) if isinstance(seconds, int | float) else None,
        "startup_cycles": startup_cycles(record),
        "call_cycles": [c for c in map(_cycles, calls if isinstance(calls, list) else [])
                        if c is not None],
    }  # fmt: skip


def _row(size: int, iree: Mapping[str, Any] | None, plain: Mapping[str, Any] | None,
         ref: Mapping[str, int]) -> dict[str, Any]:
    records = {"iree": iree, "none": plain}
    runs = {runtime: _run(record) for runtime, record in records.items()}
    notes: list[str] = []
    cells: dict[str, dict[str, Any]] = {}
    for key, _, ref_key in METRICS:
        runtime = "none" if key == "plain_c" else "iree"
        run = runs[runtime]
        ours, note = None, run["reason"]
        if run["status"] == "passed":
            ours, note = _value(key, run, records[runtime])
        reference = ref.get(ref_key)
        cells[key] = {"ours": ours, "reference": reference, "ratio": _ratio(ours, reference),
                      "note": note}  # fmt: skip
        if note is not None:
            text = f"{RUNTIME_LABEL[runtime]}: {note}"
            if text not in notes:
                notes.append(text)
    return {"size": size, "runs": runs, "cells": cells, "notes": notes}


def _value(key: str, run: Mapping[str, Any],
           record: Mapping[str, Any] | None) -> tuple[int | None, str | None]:
    """Our figure for one metric of a passed run, or why there is none."""
    calls = run["call_cycles"]
    if key == "startup":
        value = run["startup_cycles"]
        return value, None if value is not None else "no start-up cycle count printed"
    if key == "later_call" and len(calls) == 1:
        return None, "only one call was made"
    if not calls:
        return None, "no call cycle count printed"
    return (later_call(record) if key == "later_call" else first_call(record)), None


def _ratio(ours: int | None, reference: int | None) -> float | None:
    if ours is None or not reference:
        return None
    return round(ours / reference, 4)


def _image(size: int, runtime: str, elf: Path, reference: Mapping[str, int]) -> dict[str, Any]:
    is_iree = runtime == "iree"
    entry: dict[str, Any] = {
        "key": f"{size}-{runtime}", "size": size, "runtime": runtime, "elf": elf.name or None,
        "status": "ok", "reason": None, "sections": [], "totals": None,
        "code_and_data": None, "bss": None,
        "reference": dict(reference) if is_iree else None,
        "ratio": {"code_and_data": None, "bss": None} if is_iree else None,
    }  # fmt: skip
    if not elf.is_file():
        entry.update(status="missing", reason=f"image not built: {elf.name or elf}")
        return entry
    try:
        report = analyze(elf, None, top=0).to_json()
    except SizeReportError as err:
        entry.update(status="error", reason=str(err).replace(str(elf), elf.name))
        return entry
    totals = report["totals"]
    entry.update(
        sections=[{"name": s["name"], "size": s["size"], "memory": s["memory"]}
                  for s in report["sections"] if s["memory"] != "none"],
        totals=totals, code_and_data=totals["code"], bss=totals["bss"],
    )  # fmt: skip
    if is_iree:
        entry["ratio"] = {k: _ratio(entry[k], reference[k]) for k in reference}
    return entry


def check_schema(table: Any) -> None:
    got = table.get("schema") if isinstance(table, Mapping) else type(table).__name__
    if got != SCHEMA:
        raise BenchError(f"bench table has schema {got!r}; expected {SCHEMA!r}")
