"""The harts table of `scons bench`: cycles per call with 1..N harts sharing each dispatch,
next to the cap the cluster allows for that kind of code.

Plan: the [harts] table of bench/plan.toml: the board, the hart counts (1 first; "auto":
HARTS=auto, each dispatch choosing, compared with the board's harts' cap), the rows
(model, sizes, runtimes, kind) and `cap`, which names per kind the loop of the cap table
(`scons cap`, cap.json) that stands for it; a soft-float loop is taken as built with the
SOFTFLOAT in use.  Written as harts.json, harts.md (and harts.svg, harts_chart.py).

JSON schema "ireerv-bench-harts/2":

    {"schema": "ireerv-bench-harts/2", "board": str, "harts": [int | "auto"], "softfloat": str,
     "rows": [{"model": str, "size": int | null, "runtime": "iree" | "none", "kind": str,
               "label": str,
               "cells": {"<harts>": {"cycles": int | null,  # the last call; null: no result
                                     "speedup": float | null,  # over 1 hart
                                     "ran": bool, "passed": bool,
                                     "workgroups": [str], "hart_cycles": [int]}},
               "workgroups": [str],  # per dispatch, from the first run that has them
               "cap": {"kernel": str, "label": str, "softfloat": str | null,
                       "limit": float,  # 1/(IPC1*w)
                       "by_harts": {"<harts>": float}} | null,  # min(N, limit)
               "of_cap": float | null}],  # % of the cap reached in the last column
     "layer_kinds": [...]}  # rows marked `layers`, per layer kind (harts_layers.py)
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ireerv.bench import cap as cap_table
from ireerv.bench import harts_layers
from ireerv.bench.plan import PLAN_FILE, PlanError
from ireerv.image.layout import AUTO
from ireerv.run.record import later_call

SCHEMA = "ireerv-bench-harts/2"
RUNTIMES = {"iree": "IREE", "none": "plain C"}
Count = int | str  # a hart count, or AUTO: a column of images built with HARTS=auto


@dataclass(frozen=True)
class HartsRow:
    model: str
    size: int | None  # None: a model with static shapes
    runtime: str
    kind: str  # the key into HartsPlan.cap
    layers: bool = False  # a network: also per layer kind, from each image's profile


@dataclass(frozen=True)
class HartsPlan:
    board: str
    harts: tuple[Count, ...]  # hart counts, 1 first (the speedup's base), and AUTO
    rows: tuple[HartsRow, ...]
    cap: Mapping[str, str]  # row kind -> the cap table's loop (kernel)


def _rows(entries: Sequence[Mapping[str, Any]]) -> tuple[HartsRow, ...]:
    rows = []
    for entry in entries:
        sizes = entry.get("sizes", [None])
        for size in sizes:
            for runtime in entry.get("runtimes", ["iree"]):
                rows.append(HartsRow(str(entry["model"]), None if size is None else int(size),
                                     str(runtime), str(entry["kind"]),
                                     bool(entry.get("layers", False))))
    return tuple(rows)


def load_harts_plan(path: Path = PLAN_FILE) -> HartsPlan:
    try:
        data = tomllib.loads(path.read_text())["harts"]
        plan = HartsPlan(board=str(data["board"]),
                         harts=tuple(_count(h) for h in data["harts"]),
                         rows=_rows(data["rows"]),
                         cap={str(k): str(v) for k, v in data["cap"].items()})
    except (OSError, tomllib.TOMLDecodeError, KeyError, TypeError, ValueError,
            AttributeError) as err:
        raise PlanError(f"{path}: plan 'harts': {err!r}") from None
    counts = [h for h in plan.harts if h != AUTO]
    if not plan.harts or plan.harts[0] != 1 or any(h < 1 for h in counts):
        raise PlanError(f"{path}: plan 'harts': harts must start with 1 (the speedup's base)")
    if len(set(plan.harts)) != len(plan.harts):
        raise PlanError(f"{path}: plan 'harts': a hart count appears twice")
    for row in plan.rows:
        if row.runtime not in RUNTIMES:
            raise PlanError(f"{path}: plan 'harts': runtime {row.runtime!r} of "
                            f"{row.model!r} is not one of {', '.join(RUNTIMES)}")
        if row.kind not in plan.cap:
            raise PlanError(f"{path}: plan 'harts': kind {row.kind!r} of {row.model!r} "
                            f"has no cap loop (cap: {', '.join(plan.cap) or 'empty'})")
    return plan


def _count(value: Any) -> Count:
    if str(value).strip().lower() == AUTO:
        return AUTO
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"hart count {value!r} is neither a whole number nor {AUTO!r}")
    return value


def cap_harts(h: Count, harts: Sequence[Count]) -> int:
    """The hart count whose cap a column stands next to: AUTO may use all the plan's harts."""
    return max(c for c in harts if c != AUTO) if h == AUTO else int(h)


def count_label(h: Count) -> str:
    return "HARTS=auto" if h == AUTO else f"{h} hart{'s' if h != 1 else ''}"


def row_label(row: HartsRow | Mapping[str, Any]) -> str:
    model, size, runtime = ((row.model, row.size, row.runtime) if isinstance(row, HartsRow)
                            else (row["model"], row["size"], row["runtime"]))
    shape = f" {size}×{size}" if size is not None else ""
    return f"{model}{shape} ({RUNTIMES.get(runtime, runtime)})"


def _cell(record: Mapping[str, Any] | None, base: int | None) -> dict[str, Any]:
    cycles = later_call(record)
    return {"cycles": cycles,
            "speedup": round(base / cycles, 3) if base and cycles else None,
            "ran": record is not None, "passed": bool(record and record.get("passed")),
            "workgroups": list(record.get("workgroups", [])) if record else [],
            "hart_cycles": list(record.get("hart_cycles", [])) if record else []}


def find_cap(doc: Mapping[str, Any] | None, kernel: str, softfloat: str,
             harts: Sequence[Count]) -> dict[str, Any] | None:
    """The cap table's loop `kernel` (built with `softfloat` if it calls soft-float):
    its limit and min(N, limit) per hart count; None without a table or that loop."""
    if not doc:
        return None
    cap_table.check_schema(doc)
    for row in doc["rows"]:
        if row["kernel"] == kernel and row["softfloat"] in (None, softfloat):
            measured = {h["n"]: h["cap"] for h in row["harts"]}
            return {"kernel": kernel, "label": row["label"], "softfloat": row["softfloat"],
                    "limit": row["limit"],
                    "by_harts": {str(h): measured.get(n, round(min(n, row["limit"]), 3))
                                 for h in harts for n in [cap_harts(h, harts)]}}
    return None


def collect(records: Sequence[Mapping[str, Any]], plan: HartsPlan,
            cap_doc: Mapping[str, Any] | None = None, softfloat: str = "rvfplib",
            profiles: Mapping[tuple[str, str], Mapping[str, Any]] | None = None
            ) -> dict[str, Any]:
    """The table from the run records of every (row, harts) image of the plan, the cap
    table (cap.json) when there is one, and the per-layer profiles of the rows marked
    `layers` ((model, str(harts)) -> layers.json)."""
    by_key = {(r.get("model"), r.get("size"), r.get("runtime", "iree"),
               AUTO if r.get("harts_auto") else r.get("harts", 1)): r for r in records}
    top = str(plan.harts[-1])
    rows = []
    for row in plan.rows:
        key = (row.model, row.size, row.runtime)
        one = _cell(by_key.get((*key, 1)), None)["cycles"]
        cells = {str(h): _cell(by_key.get((*key, h)), one) for h in plan.harts}
        found = find_cap(cap_doc, plan.cap[row.kind], softfloat, plan.harts)
        best = cells[top]["speedup"]
        rows.append({
            "model": row.model, "size": row.size, "runtime": row.runtime, "kind": row.kind,
            "label": row_label(row), "cells": cells,
            "workgroups": next((c["workgroups"] for c in cells.values() if c["workgroups"]),
                               []),
            "cap": found,
            "of_cap": (round(100.0 * best / found["by_harts"][top], 1)
                       if found and best else None)})
    return {"schema": SCHEMA, "board": plan.board, "harts": list(plan.harts),
            "softfloat": softfloat, "rows": rows,
            "layer_kinds": harts_layers.collect(profiles or {}, rows, plan.harts)}


def check_schema(doc: Any) -> None:
    got = doc.get("schema") if isinstance(doc, Mapping) else type(doc).__name__
    if got != SCHEMA:
        raise PlanError(f"harts table has schema {got!r}; expected {SCHEMA!r}")


def _num(value: int | None) -> str:
    return "—" if value is None else f"{value:,}"


def _times(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}×"


def _line(row: Mapping[str, Any], harts: Sequence[Count]) -> str:
    cells = [row["cells"][str(h)] for h in harts]
    found, top = row["cap"], str(harts[-1])
    line = [row["label"],
            *(_num(c["cycles"]) if c["passed"] or not c["ran"] else "FAILED" for c in cells),
            *(_times(c["speedup"]) for c in cells[1:]),
            " ".join(row["workgroups"]) or "—",
            _times(found["by_harts"][top]) if found else "—",
            "—" if row["of_cap"] is None else f"{row['of_cap']:.1f} %"]
    return "| " + " | ".join(line) + " |"


def markdown(table: Mapping[str, Any]) -> str:
    check_schema(table)
    harts = table["harts"]
    top = harts[-1]
    counts = ", ".join(str(h) for h in harts if h != AUTO)
    out = [f"# Harts on {table['board']}: each dispatch shared by {counts} harts"
           + (" or by as many as it chooses (HARTS=auto)" if AUTO in harts else ""), "",
           "Cycles per call (the last call), speedup over one hart, and the cap the cluster "
           f"allows for the row's kind of loop with {cap_harts(top, harts)} harts "
           "(`scons cap`: min(N, 1/(IPC₁·w)))"
           + (": `auto` is HARTS=auto, each dispatch choosing how many harts it uses."
              if AUTO in harts else "."), ""]
    head = ["row", *(count_label(h) for h in harts),
            *(f"speedup {h}" for h in harts[1:]), "workgroups", f"cap {top}",
            f"% of cap {top}"]
    numbers = "|---:" * (2 * len(harts) - 1)
    out += ["| " + " | ".join(head) + " |", "|---" + numbers + "|---|---:|---:|"]
    out += [_line(row, harts) for row in table["rows"]]
    caps = {(r["kind"], r["cap"]["label"], r["cap"]["softfloat"])
            for r in table["rows"] if r["cap"]}
    out += ["", "- workgroups: per dispatch of the call (IREE with several harts); the plain C "
            "matmul splits its rows; — where every dispatch has one workgroup (the image is "
            "then built as one hart's).",
            *(f"- cap of the {kind} rows: the loop {label}"
              + (f" ({softfloat})" if softfloat else "") for kind, label, softfloat
              in sorted(caps)),
            *harts_layers.markdown(table.get("layer_kinds", []), harts,
                                   {h: count_label(h) for h in harts}),
            "", "Cycles each hart spent on its shares (hart 0 first):", ""]
    for row in table["rows"]:
        for h in harts[1:]:
            spent = row["cells"][str(h)]["hart_cycles"]
            if any(spent):  # one workgroup per dispatch: nothing shared, all zero
                out.append(f"- {row['label']}, {count_label(h)}: "
                           f"{', '.join(f'{c:,}' for c in spent)}")
    return "\n".join(out) + "\n"
