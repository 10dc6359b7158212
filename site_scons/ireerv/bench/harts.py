"""The harts table of `scons bench`: cycles per call with 1..N harts sharing each dispatch.

Plan: the [harts] table of bench/plan.toml (model, board, sizes, harts).  Rows:
one per size; cells: one per hart count, with the last call's cycles, the
speedup over one hart, the workgroups per dispatch and each hart's cycles on
its shares (from the run records).  Written as harts.json and harts.md.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ireerv.bench.plan import PLAN_FILE, PlanError
from ireerv.util.files import atomic_write

SCHEMA = "ireerv-bench-harts/1"


@dataclass(frozen=True)
class HartsPlan:
    model: str
    board: str
    sizes: tuple[int, ...]
    harts: tuple[int, ...]  # hart counts, 1 first (the speedup's base)


def load_harts_plan(path: Path = PLAN_FILE) -> HartsPlan:
    try:
        data = tomllib.loads(path.read_text())["harts"]
        plan = HartsPlan(model=str(data["model"]), board=str(data["board"]),
                         sizes=tuple(int(n) for n in data["sizes"]),
                         harts=tuple(int(h) for h in data["harts"]))
    except (OSError, tomllib.TOMLDecodeError, KeyError, TypeError, ValueError) as err:
        raise PlanError(f"{path}: plan 'harts': {err!r}") from None
    if not plan.harts or plan.harts[0] != 1 or any(h < 1 for h in plan.harts):
        raise PlanError(f"{path}: plan 'harts': harts must start with 1 (the speedup's base)")
    return plan


def _cell(record: Mapping[str, Any] | None, base: int | None) -> dict[str, Any]:
    calls = record.get("call_cycles") if record else None
    cycles = calls[-1] if calls and record.get("passed") else None
    return {"cycles": cycles,
            "speedup": round(base / cycles, 3) if base and cycles else None,
            "ran": record is not None, "passed": bool(record and record.get("passed")),
            "workgroups": list(record.get("workgroups", [])) if record else [],
            "hart_cycles": list(record.get("hart_cycles", [])) if record else []}


def collect(records: Sequence[Mapping[str, Any]], plan: HartsPlan) -> dict[str, Any]:
    """The table from the run records of every (size, harts) image of the plan."""
    by_key = {(r.get("size"), r.get("harts", 1)): r for r in records}
    rows = []
    for size in plan.sizes:
        one = _cell(by_key.get((size, 1)), None)["cycles"]
        rows.append({"size": size, "cells": {str(h): _cell(by_key.get((size, h)), one)
                                             for h in plan.harts}})
    return {"schema": SCHEMA, "model": plan.model, "board": plan.board,
            "harts": list(plan.harts), "rows": rows}


def _num(value: int | None) -> str:
    return "—" if value is None else f"{value:,}"


def markdown(table: Mapping[str, Any]) -> str:
    harts = table["harts"]
    out = [f"# Harts: {table['model']} on {table['board']}, each dispatch shared by "
           f"1..{max(harts)} harts", "", "Cycles per call (the last call) and speedup over one "
           "hart.", ""]
    head = ["N", *(f"{h} hart{'s' if h > 1 else ''}" for h in harts),
            *(f"speedup {h}" for h in harts[1:]), "workgroups"]
    out += ["| " + " | ".join(head) + " |", "|" + "---:|" * (len(head) - 1) + "---|"]
    for row in table["rows"]:
        cells = [row["cells"][str(h)] for h in harts]
        line = [f"{row['size']}×{row['size']}",
                *(_num(c["cycles"]) if c["passed"] or not c["ran"] else "FAILED"
                  for c in cells),
                *("—" if c["speedup"] is None else f"{c['speedup']:.2f}×" for c in cells[1:]),
                " ".join(next((c["workgroups"] for c in cells if c["workgroups"]), []))]
        out.append("| " + " | ".join(line) + " |")
    out += ["", "Cycles each hart spent on its shares (hart 0 first):", ""]
    for row in table["rows"]:
        for h in harts[1:]:
            spent = row["cells"][str(h)]["hart_cycles"]
            if spent:
                out.append(f"- N={row['size']}, {h} harts: {', '.join(f'{c:,}' for c in spent)}")
    return "\n".join(out) + "\n"


def write(table: Mapping[str, Any], out_dir: str | Path) -> None:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    atomic_write(out / "harts.json", json.dumps(table, indent=2) + "\n")
    atomic_write(out / "harts.md", markdown(table))
