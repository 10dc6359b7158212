"""The per-layer profile: one row per dispatch of a call, named by the model's layers in it.

    {
      "schema": "ireerv-layer-profile/2",
      "model": str, "board": str, "unit": "instructions" | "cycles",
      "phase": str,                  # the call measured ("call 1")
      "total": int,                  # its cost, all of it
      "macs": int,                   # the model's multiply-accumulates per inference
      "rows": [{
        "dispatch": str,             # the kernel's symbol; "(outside dispatches)" for the rest
        "layers": [{"name": str, "kind": str, "shapes": str, "macs": int}],  # graph order
        "computes": [str],           # the layers whose MACs it computes (all or a share)
        "kind": str,                 # their kind
        "macs": int, "cost": int, "per_mac": float | null, "percent": float}],
      "kinds": [{"kind": str, "macs": int, "cost": int, "per_mac": float | null}],
      "unplaced": [str]              # layers with MACs found in no dispatch
    }

A layer's MACs count in the dispatches that do its contraction: those whose name IREE
gives a contraction kind and that hold no other layer with MACs (a layer split into
groups of output channels has several, each its share by the shape in its name), else
the first contraction holding it, however many dispatches carry its location (a residual
add fused into the next layer's dispatch carries the one before).  Cost is the
dispatch's wall cost (hart 0's, from the call that issues it to its return: staging, the
workgroup loop, the kernel with its soft-float calls, and with several harts the wait for
the others), or, in profiles without it, the kernel's inclusive cost.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ireerv.formats.base import LayerInfo
from ireerv.harts.dispatch_names import is_contraction, shape_product

SCHEMA = "ireerv-layer-profile/2"
OUTSIDE = "(outside dispatches)"


def _shares(macs: int, symbols: list[str]) -> dict[str, int]:
    """A layer's MACs over the dispatches computing it, by the shapes in their names
    (equal parts when a name gives none), adding up exactly."""
    weights = [shape_product(s) for s in symbols]
    if not all(weights):
        weights = [1] * len(symbols)
    parts = [macs * w // sum(weights) for w in weights]
    parts[-1] += macs - sum(parts)
    return dict(zip(symbols, parts, strict=True))


def _homes(dispatches: dict[str, list[str]], layers: Sequence[LayerInfo]
           ) -> dict[str, dict[str, int]]:
    """Each layer with MACs -> the dispatches that compute them -> their share."""
    with_macs = {layer.name for layer in layers if layer.macs}
    homes: dict[str, dict[str, int]] = {}
    for layer in layers:
        holders = [d for d, names in dispatches.items() if layer.name in names]
        if not (layer.macs and holders):
            continue
        contractions = [d for d in holders if is_contraction(d)]
        sole = [d for d in contractions if with_macs.intersection(dispatches[d]) == {layer.name}]
        homes[layer.name] = _shares(layer.macs, sole or [(contractions or holders)[0]])
    return homes


def _per_mac(cost: int, macs: int) -> float | None:
    return round(cost / macs, 2) if macs else None


def _row(symbol: str, members: list[LayerInfo], homed: dict[str, int], cost: int,
         total: int) -> dict[str, Any]:
    computed = [m for m in members if m.name in homed]
    kinds = list(dict.fromkeys(m.kind for m in (computed or members)))
    macs = sum(homed.values())
    return {"dispatch": symbol, "layers": [vars(m) for m in members],
            "computes": [m.name for m in computed],
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
    # A dispatch's wall cost where the profile has it (with several harts the kernel's
    # inclusive cost is hart 0's share only), else its kernel's inclusive cost.
    inclusive = {f["name"]: f["inclusive"] for f in phase["functions"]}
    inclusive.update(phase.get("dispatches") or {})
    by_name = {layer.name: layer for layer in layers}
    homes = _homes(dispatches, layers)
    total = phase["total"]
    rows = []
    for symbol, names in dispatches.items():
        members = [by_name[n] for n in by_name if n in names]  # graph order
        homed = {m.name: homes[m.name][symbol] for m in members
                 if symbol in homes.get(m.name, {})}
        cost = inclusive.get(symbol, 0)
        if cost or homed:
            rows.append(_row(symbol, members, homed, cost, total))
    rows.append(_row(OUTSIDE, [], {}, total - sum(r["cost"] for r in rows), total))
    return {"schema": SCHEMA, "model": profile["model"], "board": profile["board"],
            "unit": profile["unit"], "phase": phase_name, "total": total,
            "macs": sum(layer.macs for layer in layers), "rows": rows, "kinds": _kinds(rows),
            "unplaced": [layer.name for layer in layers if layer.macs and
                         layer.name not in homes]}


def lead(row: dict[str, Any]) -> dict[str, Any] | None:
    """The layer a row is named after: the first whose MACs it computes, else its first."""
    computed = [m for m in row["layers"] if m["name"] in row.get("computes", ())]
    return (computed or row["layers"] or [None])[0]


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
        named, others = lead(row), len(row["layers"]) - 1
        label = _short(named["name"], 36) + (f" +{others}" if others else "") \
            if named else row["dispatch"]
        per_mac = f"{row['per_mac']:6.2f}" if row["per_mac"] is not None else "     -"
        shapes = named["shapes"] if named else ""
        lines.append(f"  {label[:40]:<40} {row['kind'][:18]:<18} {row['macs']:>10,} "
                     f"{row['cost']:>12,} {per_mac} {row['percent']:5.1f}%  {shapes}")
    lines.append("  by kind: " + "; ".join(
        f"{k['kind']} {k['cost']:,}" + (f" ({k['per_mac']:.2f}/MAC)" if k["per_mac"] else "")
        for k in doc["kinds"]))
    if doc["unplaced"]:
        lines.append(f"  layers with MACs in no dispatch: {', '.join(doc['unplaced'])}")
    return "\n".join(lines)
