"""A tune's result as files: the tuning spec and the record of every candidate.

Both are written from measured cycles alone, in a fixed order, so the same lock, source
and budget give the same bytes; the record names no path, time or machine.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ireerv.tune import spec
from ireerv.tune.space import Tiles
from ireerv.tune.tuner import Outcome
from ireerv.util.files import atomic_write

SCHEMA = "ireerv-tuning/1"


def _verdict(result, key: str, untuned: int) -> dict[str, Any]:
    if not result.passed or key not in result.cycles:
        return {"cycles": None, "verdict": "failed"}
    cycles = result.cycles[key]
    return {"cycles": cycles, "verdict": "faster" if cycles < untuned else "not faster"}


def document(model: str, board: str, budget: int, outcome: Outcome) -> dict[str, Any]:
    chosen = dict(outcome.chosen)
    rows = []
    for d, tried in sorted(outcome.candidates.items()):
        untuned = outcome.untuned.cycles[d.key]
        tuned = outcome.tuned.cycles.get(d.key, untuned) if outcome.tuned else untuned
        rows.append({
            "dispatch": d.key, "untuned": untuned, "tuned": tuned,
            "chosen": chosen[d].as_json() if d in chosen else None,
            "candidates": [{"tiles": t.as_json(), **_verdict(r, d.key, untuned)}
                           for t, r in tried]})
    return {"schema": SCHEMA, "model": model, "board": board, "budget": budget,
            "unit": "cycles of one call",
            "untuned": outcome.untuned.total,
            "tuned": outcome.tuned.total if outcome.tuned else outcome.untuned.total,
            "dispatches": rows}


def header(model: str, board: str, budget: int, outcome: Outcome) -> str:
    tuned = outcome.tuned.total if outcome.tuned else outcome.untuned.total
    return (f"Tuned kernel configurations of {model} on {board}, written by `scons tune` "
            f"(budget {budget}).\nEach matcher takes one dispatch at exactly its loop bounds; "
            f"the board's library\nconfigures every other op.  One call: "
            f"{outcome.untuned.total:,} cycles untuned, {tuned:,} tuned.\n"
            f"Every candidate and its cycles: {board}.json beside this file.\n")


def write(folder: Path, model: str, board: str, budget: int, outcome: Outcome) -> list[Path]:
    """The spec (when a candidate won) and the record; a spec no candidate backs goes."""
    folder.mkdir(parents=True, exist_ok=True)
    spec_path, record_path = folder / f"{board}.mlir", folder / f"{board}.json"
    atomic_write(record_path, json.dumps(document(model, board, budget, outcome), indent=1)
                 + "\n")
    if not outcome.chosen:
        spec_path.unlink(missing_ok=True)
        return [record_path]
    atomic_write(spec_path, spec.render(header(model, board, budget, outcome), outcome.chosen))
    return [spec_path, record_path]


def summary(doc: dict[str, Any]) -> str:
    """The record as a table: per dispatch, untuned and tuned cycles and the winner."""
    lines = [f"tune: {doc['model']} on {doc['board']}: {doc['untuned']:,} -> "
             f"{doc['tuned']:,} cycles per call "
             f"({100 * (doc['untuned'] - doc['tuned']) / doc['untuned']:.1f}% fewer)"]
    for row in doc["dispatches"]:
        won = row["chosen"]
        tiles = Tiles.from_json(won).label() if won else "the board's library"
        lines.append(f"  {row['dispatch']:<52} {row['untuned']:>11,} {row['tuned']:>11,}  "
                     f"{tiles}")
    return "\n".join(lines)
