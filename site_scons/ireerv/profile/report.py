"""The profile document: JSON (schema "ireerv-profile/1"), its check, and its text form.

    {
      "schema": "ireerv-profile/1",
      "model": str, "board": str, "size": int | null, "runtime": "iree" | "none",
      "unit": "instructions" | "cycles",   # QEMU -icount counts instructions
      "source": str,                       # how the trace was taken
      "elf": "image.elf",                  # base name only
      "phases": [{                         # the runner's figures in print order
        "name": "startup" | "warmup" | "call 0" | ...,
        "total": int,                      # cost of the window (see analyze.py)
        "measured": int | null,            # the runner's own figure for it
        "instructions": int,               # instructions executed in it
        "soft_float_calls": int,           # calls into libgcc soft-float from outside it
        "components": [{"name": str, "self": int, "percent": float}],   # largest first
        "functions": [{"name": str, "component": str, "self": int, "inclusive": int,
                       "calls": int}],     # by self cost, largest first
        "stacks": [{"frames": [str], "cost": int}]}]   # folded stacks, largest first
    }

Invariants: per phase, sum(functions.self) == sum(components.self) == sum(stacks.cost) ==
total; every function's inclusive >= self.  Readers check "schema".
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .analyze import Window, functions
from .program import Program

SCHEMA = "ireerv-profile/1"
_PHASE_KEYS = {"name": str, "total": int, "measured": (int, type(None)), "instructions": int,
               "soft_float_calls": int, "components": list, "functions": list, "stacks": list}


def phase_json(name: str, window: Window, program: Program,
               measured: int | None) -> dict[str, Any]:
    total = window.total
    comps = sorted(window.components.items(), key=lambda kv: (-kv[1], kv[0]))
    stacks = sorted(window.stacks.items(), key=lambda kv: (-kv[1], kv[0]))
    return {
        "name": name,
        "total": total,
        "measured": measured,
        "instructions": window.instructions,
        "soft_float_calls": window.soft_float_calls,
        "components": [{"name": c, "self": v, "percent": round(100 * v / (total or 1), 2)}
                       for c, v in comps],
        "functions": functions(window, program),
        # Per kernel: the wall cost of the dispatches that ran it (analyze.DISPATCH).
        "dispatches": dict(sorted(window.dispatches.items())),
        "stacks": [{"frames": list(k), "cost": v} for k, v in stacks],
    }


def document(meta: dict[str, Any], phases: Sequence[dict[str, Any]]) -> dict[str, Any]:
    return {"schema": SCHEMA, **meta, "phases": list(phases)}


class ProfileRecordError(ValueError):
    """A profile record that cannot be read or is not one (schema, keys, sums)."""


def load(path: Path) -> dict[str, Any]:
    """The profile document written at `path` (profile.json), checked."""
    try:
        doc = json.loads(Path(path).read_text())
    except (OSError, ValueError) as err:
        raise ProfileRecordError(f"cannot read profile record {path}: {err}") from None
    problems = validate(doc)
    if problems:
        raise ProfileRecordError(f"{path}: " + "; ".join(problems))
    return doc


def validate(doc: Any) -> list[str]:
    """Problems with a profile document; empty when it is well formed and adds up."""
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        found = doc.get("schema") if isinstance(doc, dict) else type(doc).__name__
        return [f"not an {SCHEMA} document (schema {found!r})"]
    problems = []
    for key, kind in (("model", str), ("board", str), ("unit", str), ("phases", list)):
        if not isinstance(doc.get(key), kind):
            problems.append(f"{key}: expected {kind.__name__}")
    if doc.get("unit") not in ("instructions", "cycles"):
        problems.append(f"unit: {doc.get('unit')!r} is not instructions or cycles")
    for phase in doc.get("phases") or []:
        problems += _validate_phase(phase)
    return problems


def _validate_phase(phase: Any) -> list[str]:
    if not isinstance(phase, dict):
        return ["phase: expected an object"]
    where = f"phase {phase.get('name')!r}"
    problems = [f"{where}: {key} has the wrong type" for key, kind in _PHASE_KEYS.items()
                if not isinstance(phase.get(key), kind)]
    if problems:
        return problems
    total = phase["total"]
    for part, field in (("functions", "self"), ("components", "self"), ("stacks", "cost")):
        rows = phase[part]
        if not all(isinstance(r, dict) and isinstance(r.get(field), int) for r in rows):
            problems.append(f"{where}: {part}[].{field} must be integers")
        elif sum(r[field] for r in rows) != total:
            problems.append(f"{where}: {part} add up to {sum(r[field] for r in rows)}, "
                            f"not the total {total}")
    for f in phase["functions"]:
        if isinstance(f, dict) and f.get("inclusive", -1) < f.get("self", 0):
            problems.append(f"{where}: {f.get('name')} has inclusive < self")
    return problems


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:5.1f}%" if whole else "    -"


def format_phase(phase: dict[str, Any], unit: str, top: int) -> str:
    total = phase["total"]
    measured = phase["measured"]
    head = f"{phase['name']}: {total:,} {unit}"
    if measured is not None:
        head += f" (runner: {measured:,})"
    head += f"; {phase['soft_float_calls']:,} soft-float calls"
    lines = [head, f"  {'component':<44} {'self':>12}  share"]
    for c in phase["components"]:
        lines.append(f"  {c['name']:<44} {c['self']:>12,} {_pct(c['self'], total)}")
    lines.append(f"  {'function (top ' + str(top) + ' by self)':<36} {'self':>12}  share "
                 f"{'inclusive':>12}  share {'calls':>7}  component")
    for f in phase["functions"][:top]:
        lines.append(f"  {f['name'][:36]:<36} {f['self']:>12,} {_pct(f['self'], total)} "
                     f"{f['inclusive']:>12,} {_pct(f['inclusive'], total)} {f['calls']:>7,}  "
                     f"{f['component']}")
    return "\n".join(lines)


def format_text(doc: dict[str, Any], top: int = 15,
                phases: Sequence[str] | None = None) -> str:
    size = f" N={doc['size']}" if doc.get("size") else ""
    out = [f"profile: {doc['model']}{size} on {doc['board']}, {doc['unit']} ({doc['source']})"]
    for phase in doc["phases"]:
        if phases is None or phase["name"] in phases:
            out += ["", format_phase(phase, doc["unit"], top)]
    return "\n".join(out)


def shown_phases(doc: dict[str, Any]) -> list[str]:
    """Start-up and the last call (a call after the first, when there are two)."""
    names = [p["name"] for p in doc["phases"]]
    calls = [n for n in names if n.startswith("call")]
    return [n for n in names if n == "startup"] + calls[-1:]
