"""The harts table per layer kind: for the networks of the [harts] plan marked `layers`, the
cycles of each kind of layer with every hart count, from the per-layer profile of each image
(`scons profile`: a dispatch's wall cycles on hart 0, the wait for the other harts included).

In harts.json, key "layer_kinds":

    [{"model": str, "kind": str,           # the network, the layer kind (the model's own)
      "macs": int,                         # per inference
      "cycles": {"<harts>": int | null},   # the later call's cycles of that kind
      "speedup": {"<harts>": float | null},  # over 1 hart
      "cap": float | null,                 # the row's cap with the plan's last hart count
      "of_cap": float | null}]             # % of it reached in the last column

A network's layers without multiply-accumulates (copies, pooling, softmax) and the cycles
outside dispatches make one row of kind OTHER.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

OTHER = "other (no MACs, outside dispatches)"
Count = int | str


def _costs(doc: Mapping[str, Any] | None) -> dict[str, tuple[int, int]]:
    """kind -> (MACs, cycles) of one per-layer profile, layers without MACs as OTHER."""
    if not doc:
        return {}
    out = {k["kind"]: (k["macs"], k["cost"]) for k in doc["kinds"] if k["macs"]}
    out[OTHER] = (0, doc["total"] - sum(cost for _, cost in out.values()))
    return out


def collect(profiles: Mapping[tuple[str, str], Mapping[str, Any]], rows: Sequence[Mapping],
            harts: Sequence[Count]) -> list[dict[str, Any]]:
    """The per-kind rows of every harts-table row (`rows`, harts.collect's) whose network
    has per-layer profiles: `profiles` maps (model, str(harts)) to a layers.json."""
    out = []
    top = str(harts[-1])
    for row in rows:
        by_harts = {str(h): _costs(profiles.get((row["model"], str(h)))) for h in harts}
        base = by_harts["1"]
        if not base:
            continue
        cap = row["cap"]["by_harts"][top] if row["cap"] else None
        for kind, (macs, one) in base.items():
            cycles = {h: found[kind][1] if kind in found else None
                      for h, found in by_harts.items()}
            speedup = {h: round(one / c, 3) if one and c else None for h, c in cycles.items()}
            out.append({"model": row["model"], "kind": kind, "macs": macs, "cycles": cycles,
                        "speedup": speedup, "cap": cap,
                        "of_cap": (round(100.0 * speedup[top] / cap, 1)
                                   if cap and speedup[top] else None)})
    return out


def _num(value: int | float | None, form: str = ",") -> str:
    return "—" if value is None else format(value, form)


def markdown(kinds: Sequence[Mapping[str, Any]], harts: Sequence[Count],
             label: Mapping[Count, str]) -> list[str]:
    """The per-kind table's lines (none without per-kind rows)."""
    if not kinds:
        return []
    top = harts[-1]
    head = ["network", "layer kind", "MACs", *(label[h] for h in harts),
            *(f"speedup {h}" for h in harts[1:]), f"cap {top}", f"% of cap {top}"]
    out = ["", "Per layer kind (the networks; `scons profile` of each image, the later call: "
           "a dispatch's cycles from its issue to its return on hart 0, the other harts' "
           "share and the wait for them included):", "",
           "| " + " | ".join(head) + " |",
           "|---|---|" + "---:|" * (2 + 2 * len(harts))]
    for k in kinds:
        line = [k["model"], k["kind"], _num(k["macs"]),
                *(_num(k["cycles"][str(h)]) for h in harts),
                *("—" if k["speedup"][str(h)] is None else f"{k['speedup'][str(h)]:.2f}×"
                  for h in harts[1:]),
                "—" if k["cap"] is None else f"{k['cap']:.2f}×",
                "—" if k["of_cap"] is None else f"{k['of_cap']:.1f} %"]
        out.append("| " + " | ".join(line) + " |")
    return out
