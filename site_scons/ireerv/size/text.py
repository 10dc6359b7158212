"""The size report as text: section, component, region and symbol tables."""
from __future__ import annotations

from collections.abc import Iterable, Sequence

from ireerv.size.report import SizeReport, check_regions, hex32


def table(
    headers: Sequence[str], rows: Iterable[Sequence[object]], align: str, indent: str = "  "
) -> str:
    """Fixed-width table; align has one letter per column: "l"eft or "r"ight."""
    cells = [[str(c) for c in headers]] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = []
    for r in cells:
        parts = [
            c.ljust(w) if a == "l" else c.rjust(w) for c, w, a in zip(r, widths, align, strict=True)
        ]
        lines.append(indent + "  ".join(parts).rstrip())
    return "\n".join(lines)


_MEMORY_LABEL = {"code": "code", "both": "code+data", "data": "data", "none": "-"}


def format_text(report: SizeReport) -> str:
    src = f" (map {report.map})" if report.map else " (no map file: components unknown)"
    out = [f"Size report for {report.elf}{src}", ""]
    out += _sections(report)
    out += _components(report)
    if report.regions:
        out += _regions(report)
    if report.symbols:
        out += _symbols(report)
    return "\n".join(out)


def _sections(report: SizeReport) -> list[str]:
    t = report.totals
    rows: list[list[object]] = [
        [s.name, hex32(s.address), hex32(s.load_address), s.size, _MEMORY_LABEL[s.memory]]
        for s in report.alloc_sections
    ]
    other = [s for s in report.sections if not s.alloc]
    if other:
        rows.append(
            [f"({len(other)} sections not in memory)", "", "", sum(s.size for s in other), "-"]
        )
    return [
        "Sections",
        table(["section", "address", "load addr", "size", "memory"], rows, "lrrrl"),
        f"  alloc {t['alloc']}  =  code {t['code']} (text {t['text']} + data {t['data_init']})"
        f"  |  RAM {t['data']} (data {t['data_init']} + bss {t['bss']})",
        "",
    ]


def _components(report: SizeReport) -> list[str]:
    t = report.totals
    alloc = t["alloc"] or 1
    rows: list[list[object]] = [
        [c.name, c.code, c.data, c.size, _pct(c.size, alloc)] for c in report.components
    ]
    r = report.remainder
    rows.append([r.name, r.code, r.data, r.size, _pct(r.size, alloc)])
    rows.append(["total", t["code"], t["data"], t["alloc"], _pct(t["alloc"], alloc)])
    out = [
        "Components",
        table(["component", "code", "data", "size", "%"], rows, "lrrrr"),
        f"  remainder: reserved {r.reserved} ({', '.join(r.reserved_sections) or '-'}), "
        f"fill {r.fill}, linker-made {r.linker},\n"
        f"             unattributed {r.unattributed}, not in map {r.unmapped}",
    ]
    for name, n in sorted(r.inputs.items(), key=lambda kv: (-kv[1], kv[0]))[:10]:
        out.append(f"    {n:>10}  {name}")
    return [*out, ""]


def _regions(report: SizeReport) -> list[str]:
    rows: list[list[object]] = [
        [u.region.name, hex32(u.region.origin), u.region.length, u.used,
         u.region.length - u.used, f"{u.percent:.1f}%"]
        for u in report.regions
    ]
    return [
        "Memory regions",
        table(["region", "origin", "length", "used", "free", "use"], rows, "lrrrrr"),
        *(f"  error: {e}" for e in check_regions(report)),
        "",
    ]


def _symbols(report: SizeReport) -> list[str]:
    rows: list[list[object]] = [
        [s.size, s.type, s.section, s.component or "?",
         s.name + (f" (= {', '.join(s.aliases)})" if s.aliases else "")]
        for s in report.symbols
    ]
    return [
        f"Largest symbols (top {report.top})",
        table(["size", "type", "section", "component", "name"], rows, "rllll"),
        "",
    ]


def _pct(part: int, whole: int) -> str:
    return f"{100.0 * part / whole:.1f}"



def format_summary(report: SizeReport) -> str:
    """One line: what `scons image` prints after a link."""
    t = report.totals
    return (f"image: {t['code']:,} bytes code + initialised data (text {t['text']:,}, "
            f"data {t['data_init']:,}), bss {t['bss']:,}")
