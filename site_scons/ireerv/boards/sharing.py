"""The [sharing] table: what sharing a dispatch among the board's harts costs, the figures
HARTS=auto's plan (runtime/runner/hart_plan.c) predicts with, as bsp_config.h macros."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# The kernel modes the plan may share (runtime/runner/hart_local.h RUNNER_LOCAL_MODE_*):
# run from a woken hart's own memory, or in place and bound by instruction fetch.
MODES = ("local", "fetch_bound")
KEYS = ("copy_in_cycles", "write_back_cycles", "overhead_cycles", "helper16", "cap16",
        "busy16")
ONE_HART = 16  # a workgroup on one hart alone, in 16ths of itself


class SharingError(Exception):
    """A [sharing] table that does not describe a cost model."""


@dataclass(frozen=True)
class Sharing:
    copy_in_cycles: int  # per word a woken hart copies in (the harts copy in turn)
    write_back_cycles: int  # per word it writes back
    overhead_cycles: int  # waking and joining the harts for one dispatch
    helper16: int  # a woken hart's cycles per workgroup, in 16ths of hart 0's
    cap16: dict[str, int]  # per mode: m busy harts run at most cap/m each (16ths)
    # Per mode: 16ths of hart 0's cycles a workgroup takes with 1, 2, ... harts busy;
    # past the list, 16 * 16 * harts / cap16.
    busy16: dict[str, tuple[int, ...]]


def _int(table: dict[str, Any], key: str, low: int, high: int, where: str) -> int:
    value = table.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise SharingError(f"{where}: {key!r} must be an integer")
    if not low <= value <= high:
        raise SharingError(f"{where}: {key!r} must be {low}..{high}, not {value}")
    return value


def _per_mode(table: dict[str, Any], key: str) -> dict[str, Any]:
    value = table.get(key)
    if not isinstance(value, dict) or sorted(value) != sorted(MODES):
        raise SharingError(f"[sharing]: {key!r} must be a table of {', '.join(MODES)}")
    return value


def _busy(value: Any, mode: str, harts: int) -> tuple[int, ...]:
    where = f"[sharing] busy16.{mode}"
    if not isinstance(value, list) or not value or len(value) > harts:
        raise SharingError(f"{where}: a list of 1..{harts} numbers (1, 2, ... harts busy)")
    for n, item in enumerate(value, 1):
        if not isinstance(item, int) or isinstance(item, bool) or not 16 <= item <= 255:
            raise SharingError(f"{where}: with {n} harts busy, {item!r} is not 16..255")
    if value[0] != ONE_HART:
        raise SharingError(f"{where}: one hart busy takes its own time, {ONE_HART}")
    if any(b < a for a, b in zip(value, value[1:], strict=False)):
        raise SharingError(f"{where}: more harts busy never make a workgroup faster")
    return tuple(value)


def parse_sharing(table: Any, harts: int) -> Sharing | None:
    """The [sharing] table checked; a board of several harts must have one (there is no
    default: another board's figures would plan its dispatches silently wrong)."""
    if table is None:
        if harts > 1:
            raise SharingError(f"{harts} harts need a [sharing] table: what sharing a "
                               "dispatch costs (see bsp/README.md, \"Sharing work\")")
        return None
    if not isinstance(table, dict):
        raise SharingError("[sharing] must be a table")
    unknown = sorted(set(table) - set(KEYS))
    if unknown:
        raise SharingError(f"[sharing]: unknown key(s) {', '.join(unknown)}; "
                           f"allowed: {', '.join(KEYS)}")
    caps = _per_mode(table, "cap16")
    return Sharing(
        copy_in_cycles=_int(table, "copy_in_cycles", 1, 10_000, "[sharing]"),
        write_back_cycles=_int(table, "write_back_cycles", 1, 10_000, "[sharing]"),
        overhead_cycles=_int(table, "overhead_cycles", 0, 1_000_000, "[sharing]"),
        helper16=_int(table, "helper16", 16, 32, "[sharing]"),
        cap16={m: _int(caps, m, 16, 255, "[sharing] cap16") for m in MODES},
        busy16={m: _busy(v, m, harts) for m, v in _per_mode(table, "busy16").items()},
    )


def header_lines(sharing: Sharing | None) -> list[str]:
    """The table as bsp_config.h macros (none for a board of one hart).  The busy lists
    become C initialisers indexed by harts busy, 0 unused."""
    if sharing is None:
        return []
    lines = ["", "/* What sharing a dispatch among the harts costs ([sharing]) */",
             f"#define BSP_SHARING_COPY_IN_CYCLES {sharing.copy_in_cycles}",
             f"#define BSP_SHARING_WRITE_BACK_CYCLES {sharing.write_back_cycles}",
             f"#define BSP_SHARING_OVERHEAD_CYCLES {sharing.overhead_cycles}",
             f"#define BSP_SHARING_HELPER16 {sharing.helper16}"]
    for mode in MODES:
        busy = (ONE_HART, *sharing.busy16[mode])
        lines += [f"#define BSP_SHARING_CAP16_{mode.upper()} {sharing.cap16[mode]}",
                  f"#define BSP_SHARING_BUSY16_{mode.upper()}_LENGTH {len(busy)}",
                  f"#define BSP_SHARING_BUSY16_{mode.upper()} "
                  f"{{{', '.join(map(str, busy))}}}"]
    return lines
