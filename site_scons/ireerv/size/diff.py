"""Compare two size reports (JSON): what grew, what shrank."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from ireerv.size.report import SCHEMA, SizeReportError
from ireerv.size.text import table


@dataclass(frozen=True)
class DiffRow:
    kind: Literal["total", "section", "component"]
    name: str
    old: int
    new: int

    @property
    def delta(self) -> int:
        return self.new - self.old

    @property
    def percent(self) -> float | None:
        return None if self.old == 0 else 100.0 * self.delta / self.old


@dataclass
class Diff:
    old_elf: str
    new_elf: str
    totals: list[DiffRow]
    sections: list[DiffRow]
    components: list[DiffRow]

    @property
    def changed(self) -> bool:
        return any(r.delta for r in self.totals + self.sections + self.components)

    def to_json(self) -> dict[str, Any]:
        def rows(rs: list[DiffRow]) -> list[dict[str, Any]]:
            return [
                {"name": r.name, "old": r.old, "new": r.new, "delta": r.delta, "percent": r.percent}
                for r in rs
            ]

        return {
            "schema": "ireerv-size-diff/1",
            "old": self.old_elf,
            "new": self.new_elf,
            "totals": rows(self.totals),
            "sections": rows(self.sections),
            "components": rows(self.components),
        }


def _check_schema(report: dict[str, Any], which: str) -> None:
    if not isinstance(report, dict) or report.get("schema") != SCHEMA:
        got = report.get("schema") if isinstance(report, dict) else type(report).__name__
        raise SizeReportError(f"{which} report has schema {got!r}; expected {SCHEMA!r}")


def diff(old: dict[str, Any], new: dict[str, Any]) -> Diff:
    """Compare two report JSON documents; rows sorted by absolute change, largest first."""
    _check_schema(old, "baseline")
    _check_schema(new, "new")
    try:
        return _diff(old, new)
    except (KeyError, TypeError, ValueError) as e:
        raise SizeReportError(f"malformed size report: {e!r}") from e


def _diff(old: dict[str, Any], new: dict[str, Any]) -> Diff:

    def by_name(items: Iterable[dict[str, Any]]) -> dict[str, int]:
        out: dict[str, int] = {}
        for item in items:
            out[item["name"]] = out.get(item["name"], 0) + int(item["size"])
        return out

    def rows(kind: Any, a: dict[str, int], b: dict[str, int]) -> list[DiffRow]:
        names = list(a) + [n for n in b if n not in a]
        rs = [DiffRow(kind, n, a.get(n, 0), b.get(n, 0)) for n in names]
        return sorted(rs, key=lambda r: (-abs(r.delta), r.name))

    def comps(report: dict[str, Any]) -> dict[str, int]:
        return by_name([*report["components"], report["remainder"]])

    def allocs(report: dict[str, Any]) -> dict[str, int]:
        return by_name(s for s in report["sections"] if s["memory"] != "none")

    totals = [
        DiffRow("total", k, int(old["totals"][k]), int(new["totals"][k]))
        for k in ("alloc", "code", "data")
    ]
    return Diff(
        old_elf=old.get("elf", "?"),
        new_elf=new.get("elf", "?"),
        totals=totals,
        sections=rows("section", allocs(old), allocs(new)),
        components=rows("component", comps(old), comps(new)),
    )


def format_diff(d: Diff) -> str:
    def fmt(rs: list[DiffRow]) -> list[list[object]]:
        return [
            [
                r.name,
                r.old,
                r.new,
                f"{r.delta:+d}",
                "new" if r.percent is None else f"{r.percent:+.1f}%",
            ]
            for r in rs
        ]

    out = [f"Size change: {d.old_elf} (baseline) -> {d.new_elf}", ""]
    out.append(table(["total", "old", "new", "change", "%"], fmt(d.totals), "lrrrr"))
    for title, rs in (("component", d.components), ("section", d.sections)):
        changed = [r for r in rs if r.delta]
        out.append("")
        if changed:
            out.append(table([title, "old", "new", "change", "%"], fmt(changed), "lrrrr"))
        unchanged = len(rs) - len(changed)
        out.append(f"  ({unchanged} {title}s unchanged)" if changed else f"  no {title} changed")
    return "\n".join(out) + "\n"

