"""The bench's per-call columns: overhead, soft-float calls and where a call's cycles go.

Adds to a bench table (bench.collect) a "calls" list, one entry per size:

    {"size": int,
     "later_call": int | null,            # the last IREE call, cycles
     "plain_c": int | null,               # the plain C loop, cycles
     "overhead": int | null,              # later_call - plain_c
     "soft_float_calls": int | null,      # calls into libgcc soft-float in that call (profile)
     "soft_float_needed": int,            # what the model's arithmetic needs: N^3 mul + N^3 add
     "top_components": [[name, cycles]]}  # the profile's largest components of that call

The profile is that of the same image (profile.json, ireerv-profile/1); without one the
soft-float and component columns are null/empty.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..profile import report

TOP_COMPONENTS = 3


def _last_call(doc: Mapping[str, Any]) -> Mapping[str, Any] | None:
    calls = [p for p in doc.get("phases", []) if str(p.get("name", "")).startswith("call")]
    return calls[-1] if calls else None


def attach(table: dict[str, Any], profiles: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Add the "calls" list to `table` from its rows and the IREE images' profiles."""
    by_size: dict[int, Mapping[str, Any]] = {}
    for doc in profiles:
        if report.validate(doc) == [] and doc.get("runtime") == "iree":
            by_size[int(doc["size"])] = doc
    calls = []
    for row in table["rows"]:
        n = row["size"]
        later, plain = row["cells"]["later_call"]["ours"], row["cells"]["plain_c"]["ours"]
        phase = _last_call(by_size[n]) if n in by_size else None
        calls.append({
            "size": n,
            "later_call": later,
            "plain_c": plain,
            "overhead": later - plain if later is not None and plain is not None else None,
            "soft_float_calls": phase["soft_float_calls"] if phase else None,
            "soft_float_needed": 2 * n**3,
            "top_components": [[c["name"], c["self"]] for c in phase["components"]
                               [:TOP_COMPONENTS]] if phase else [],
        })
    table["calls"] = calls
    return table


def _num(value: int | None) -> str:
    return "—" if value is None else f"{value:,}"


def markdown(table: Mapping[str, Any]) -> str:
    """The per-call section of bench.md (empty without a "calls" list)."""
    calls = table.get("calls")
    if not calls:
        return ""
    out = ["", "## One IREE call (the last one)", "",
           "| N | later IREE call | plain C loop | overhead | soft-float calls | needed "
           "| top components (cycles) |", "| ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    for c in calls:
        top = ", ".join(f"{name} {cycles:,}" for name, cycles in c["top_components"]) or "—"
        out.append(f"| {c['size']}×{c['size']} | {_num(c['later_call'])} | "
                   f"{_num(c['plain_c'])} | {_num(c['overhead'])} | "
                   f"{_num(c['soft_float_calls'])} | {c['soft_float_needed']:,} | {top} |")
    out += ["", "- overhead: later IREE call minus the plain C loop, both on the cluster.",
            "- soft-float calls: calls into libgcc's soft-float routines during that call "
            "(`scons profile`); needed: one multiply and one add per multiply-accumulate.", ""]
    return "\n".join(out)
