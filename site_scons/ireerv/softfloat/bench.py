"""The soft-float micro-benchmark table (softfloat/bench.c), every choice on both boards.

collect() turns the programs' outputs into one table (JSON-ready); markdown()
prints it next to the reference work's figures.  Per call = (cycles of the
loop - cycles of the integer baseline loop) / calls.  On qemu-virt the
counter counts instructions.

JSON schema "ireerv-softfloat-bench/2":
    {"schema", "boards": [str], "choices": [str], "ops": [[key, label]],
     "main": the board the reference was measured on, "units": {board: "cycles" | ...},
     "per_call": {board: {choice: {"normal" | "special": {op: float}}}},
     "harts": {board: {choice: {"1": float, "<n>": float, "speedup": float}}},
     "reference": {op: int}, "reference_source": str}
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

SCHEMA = "ireerv-softfloat-bench/2"  # 2: units per board and the main board
OPS: tuple[tuple[str, str], ...] = (
    ("add", "add"), ("sub", "subtract"), ("mul", "multiply"), ("div", "divide"),
    ("madd", "multiply + add (two calls)"), ("fma", "fmaf"), ("i2f", "int32 → f32"),
    ("f2i", "f32 → int32"), ("lt", "compare <"), ("eq", "compare =="),
)
REFERENCE = {"add": 222, "mul": 441, "div": 583, "i2f": 193}
REFERENCE_SOURCE = "the reference work (CORE-V GCC 14.1 libgcc, cycles on the cluster)"
SETS = ("normal", "special")

_SFB = re.compile(r"^SFB (\w+) (\w+) (\d+) (\d+) (\d+)$")
_SFH = re.compile(r"^SFH (\d+) (\d+) (\d+)$")


class SoftFloatBenchError(ValueError):
    """A bench output without the lines the program prints."""


def parse(output: str) -> tuple[dict[str, dict[str, float]], dict[str, float]]:
    """Per-call figures by set and op, and per-multiply-add figures by hart count."""
    per_call: dict[str, dict[str, float]] = {}
    harts: dict[str, float] = {}
    for line in output.splitlines():
        line = line.strip()
        if m := _SFB.match(line):
            cycles, base, calls = int(m[3]), int(m[4]), int(m[5])
            per_call.setdefault(m[1], {})[m[2]] = round((cycles - base) / calls, 2)
        elif m := _SFH.match(line):
            harts[m[1]] = round(int(m[2]) / int(m[3]), 2)
    if not per_call:
        raise SoftFloatBenchError("the bench printed no SFB lines")
    if "1" in harts and len(harts) > 1:
        n = max(harts, key=int)
        harts["speedup"] = round(int(n) * harts["1"] / harts[n], 2)
    return per_call, harts


def collect(runs: Mapping[tuple[str, str], str], units: Mapping[str, str],
            main: str) -> dict[str, Any]:
    """runs: (board, choice) -> the bench program's output; units: board -> what its
    simulator counts; main: the board the reference figures were measured on."""
    boards = sorted({b for b, _ in runs}, key=lambda b: (b != main, b))
    choices = list(dict.fromkeys(c for _, c in runs))
    table: dict[str, Any] = {
        "schema": SCHEMA, "boards": boards, "choices": choices, "ops": [list(o) for o in OPS],
        "main": main, "units": {b: units[b] for b in boards},
        "per_call": {}, "harts": {}, "reference": REFERENCE,
        "reference_source": REFERENCE_SOURCE,
    }
    for (board, choice), output in runs.items():
        per_call, harts = parse(output)
        table["per_call"].setdefault(board, {})[choice] = per_call
        table["harts"].setdefault(board, {})[choice] = harts
    return table


def _num(value: float | None) -> str:
    return "—" if value is None else f"{value:,.1f}"


def _ops_table(table: Mapping[str, Any], board: str, set_name: str, unit: str) -> list[str]:
    choices = table["choices"]
    figures = table["per_call"].get(board, {})
    head = ["operation", *(f"{c}" for c in choices)]
    show_ref = board == table["main"] and set_name == "normal"
    if show_ref:
        head.append("reference")
    if "libgcc" in choices and len(choices) > 1:
        head.append("best vs libgcc")
    lines = [f"{unit} per call, {set_name} operands, {board}:", "",
             "| " + " | ".join(head) + " |", "|---" + "|---:" * (len(head) - 1) + "|"]
    for key, label in table["ops"]:
        values = [figures.get(c, {}).get(set_name, {}).get(key) for c in choices]
        row = [label, *(_num(v) for v in values)]
        if show_ref:
            row.append(_num(table["reference"].get(key)))
        if "libgcc" in choices and len(choices) > 1:
            base = values[choices.index("libgcc")]
            others = [v for c, v in zip(choices, values, strict=True) if c != "libgcc" and v]
            row.append(f"{base / min(others):.2f}×" if base and others else "—")
        lines.append("| " + " | ".join(row) + " |")
    return lines + [""]


def markdown(table: Mapping[str, Any]) -> str:
    lines: list[str] = ["## Soft-float micro-benchmark", ""]
    for board in table["boards"]:
        unit = table["units"][board]
        for set_name in SETS:
            lines += _ops_table(table, board, set_name, unit)
    for board in table["boards"]:
        harts = table["harts"].get(board, {})
        counts = sorted({k for h in harts.values() for k in h if k.isdigit()}, key=int)
        if len(counts) < 2 or table["units"][board] != "cycles":  # instructions: no speed-up
            continue
        lines += [f"Multiply-add loop on {board}, cycles per multiply-add on each hart:", "",
                  "| choice | " + " | ".join(f"{n} hart(s)" for n in counts)
                  + " | speed-up N·T₁/T_N |", "|---" + "|---:" * (len(counts) + 1) + "|"]
        for choice, figs in harts.items():
            lines.append(f"| {choice} | " + " | ".join(_num(figs.get(n)) for n in counts)
                         + f" | {figs.get('speedup', '—')}× |")
        lines.append("")
    lines.append(f"Reference: {table['reference_source']}.")
    return "\n".join(lines) + "\n"
