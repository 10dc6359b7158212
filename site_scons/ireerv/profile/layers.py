"""The per-layer profile: one row per dispatch of a call, named by the model's layers in it.

    {
      "schema": "ireerv-layer-profile/1",
      "model": str, "board": str, "unit": "instructions" | "cycles",
      "phase": str,                  # the call measured ("call 1")
      "total": int,                  # its cost, all of it
      "macs": int,                   # the model's multiply-accumulates per inference
      "rows": [{
        "dispatch": str,             # the kernel's symbol; "(outside dispatches)" for the rest
        "layers": [{"name": str, "kind": str, "shapes": str, "macs": int}],  # graph order
        "kind": str,                 # the kind of the layers whose MACs it computes
        "macs": int, "cost": int, "per_mac": float | null, "percent": float}],
      "kinds": [{"kind": str, "macs": int, "cost": int, "per_mac": float | null}],
      "unplaced": [str]              # layers with MACs found in no dispatch
    }

A layer's MACs count in the one dispatch that does its contraction (the first whose name
IREE gives a contraction kind), however many dispatches carry its location; cost is the
dispatch's inclusive cost (soft-float calls included).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ireerv.formats.base import LayerInfo

SCHEMA = "ireerv-layer-profile/1"
OUTSIDE = "(outside dispatches)"
_CONTRACTIONS = ("conv", "matmul", "matvec", "mmt4d", "contract")


def _is_contraction(symbol: str) -> bool:
    return any(word in symbol for word in _CONTRACTIONS)


def _homes(dispatches: dict[str, list[str]], layers: Sequence[LayerInfo]) -> dict[str, str]:
    """Each layer with MACs -> the dispatch that computes them."""
    homes: dict[str, str] = {}
    for layer in layers:
        holders = [d for d, names in dispatches.items() if layer.name in names]
        if layer.macs and holders:
            homes[layer.name] = next((d for d in holders if _is_contraction(d)), holders[0])
    return homes


def _per_mac(cost: int, macs: int) -> float | None:
    return round(cost / macs, 2) if macs else None


def _row(symbol: str, members: list[LayerInfo], homed: list[LayerInfo], cost: int,
         total: int) -> dict[str, Any]:
    kinds = list(dict.fromkeys(m.kind for m in (homed or members)))
    macs = sum(m.macs for m in homed)
    return {"dispatch": symbol, "layers": [vars(m) for m in members],
            "kind": "+".join(kinds) or "-", "macs": macs, "cost": cost,
            "per_mac": _per_mac(cost, macs), "percent": round(100 * cost / (total or 1), 2)}


def _kinds(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    sums: dict[str, list[int]] = {}
    for row in rows:
        if row["dispatch"] != OUTSIDE:
            entry = sums.setdefault(row["kind"], [0, 0])
            entry[0] += row["macs"]
            entry[1] += row["cost"]
    return [{"kind": k, "macs": m, "cost": c, "per_mac": _per_mac(c, m)}
            for k, (m, c) in sorted(sums.items(), key=lambda kv: -kv[1][1])]


def document(profile: dict[str, Any], phase_name: str, dispatches: dict[str, list[str]],
             layers: Sequence[LayerInfo]) -> dict[str, Any]:
    """The per-layer profile of one call of a profile document (report.SCHEMA)."""
    phase = next(p for p in profile["phases"] if p["name"] == phase_name)
    inclusive = {f["name"]: f["inclusive"] for f in phase["functions"]}
    by_name = {layer.name: layer for layer in layers}
    homes = _homes(dispatches, layers)
    total = phase["total"]
    rows = []
    for symbol, names in dispatches.items():
        members = [by_name[n] for n in by_name if n in names]  # graph order
        homed = [m for m in members if homes.get(m.name) == symbol]
        cost = inclusive.get(symbol, 0)
        if cost or homed:
            rows.append(_row(symbol, members, homed, cost, total))
    rows.append(_row(OUTSIDE, [], [], total - sum(r["cost"] for r in rows), total))
    return {"schema": SCHEMA, "model": profile["model"], "board": profile["board"],
            "unit": profile["unit"], "phase": phase_name, "total": total,
            "macs": sum(layer.macs for layer in layers), "rows": rows, "kinds": _kinds(rows),
            "unplaced": [layer.name for layer in layers if layer.macs and
                         layer.name not in homes]}


def first_part(name: str) -> str:
    """A layer's name for a label: TFLite joins the names of fused ops with ';'."""
    return name.split(";")[0]


def _short(name: str, width: int) -> str:
    """A layer's name cut to `width`; TFLite's fused names keep their first part."""
    first = first_part(name)
    text = first + ("…" if first != name else "")
    return text if len(text) <= width else text[:width - 1] + "…"


def format_text(doc: dict[str, Any]) -> str:
    unit, total, macs = doc["unit"], doc["total"], doc["macs"]
    head = (f"layers: {doc['model']} on {doc['board']}, {unit} of {doc['phase']}: {total:,}"
            + (f"; {macs:,} MACs, {total / macs:.2f} per MAC" if macs else ""))
    lines = [head, f"  {'layer':<40} {'kind':<18} {'MACs':>10} {unit:>12} {'/MAC':>6} "
                   f"{'share':>6}  shapes"]
    for row in doc["rows"]:
        names = [m["name"] for m in row["layers"]]
        label = _short(names[0], 36) + (f" +{len(names) - 1}" if len(names) > 1 else "") \
            if names else row["dispatch"]
        per_mac = f"{row['per_mac']:6.2f}" if row["per_mac"] is not None else "     -"
        shapes = row["layers"][0]["shapes"] if row["layers"] else ""
        lines.append(f"  {label[:40]:<40} {row['kind'][:18]:<18} {row['macs']:>10,} "
                     f"{row['cost']:>12,} {per_mac} {row['percent']:5.1f}%  {shapes}")
    lines.append("  by kind: " + "; ".join(
        f"{k['kind']} {k['cost']:,}" + (f" ({k['per_mac']:.2f}/MAC)" if k["per_mac"] else "")
        for k in doc["kinds"]))
    if doc["unplaced"]:
        lines.append(f"  layers with MACs in no dispatch: {', '.join(doc['unplaced'])}")
    return "\n".join(lines)
