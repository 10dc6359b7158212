"""A plain SVG bar chart of a size report: one bar per component, split by its largest symbols.

Works on the report JSON (SizeReport.to_json() or a saved file), so saved reports can be drawn
again without the ELF.  Hovering a segment shows its name and size (SVG <title>).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from ireerv.util.files import atomic_write
from ireerv.util.svg import PALETTE, svg_text

BAR_AREA = 600  # the largest bar
VALUE_W = 130  # size and share
ROW_H = 24
BAR_H = 16
TOP = 56
CHAR_W = 6.2  # average glyph width at font-size 11, to decide whether a label fits
REST_COLOUR = "#d9d9d9"
REMAINDER_COLOUR = "#8c8c8c"


def render_svg(report: Any) -> str:
    """The chart as SVG text; `report` is a SizeReport or its JSON dict."""
    doc: dict[str, Any] = report.to_json() if hasattr(report, "to_json") else report
    rows = [*doc["components"], doc["remainder"]]
    total = int(doc["totals"]["alloc"]) or 1
    largest = max((int(r["size"]) for r in rows), default=0) or 1
    label_w = int(max((len(r["name"]) for r in rows), default=0) * CHAR_W) + 20
    width = label_w + BAR_AREA + VALUE_W
    bar_w = BAR_AREA - 10
    height = TOP + ROW_H * len(rows) + 30

    t = doc["totals"]
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        svg_text(10, 20, f"{doc['elf']}: {t['alloc']} bytes allocated", size=15, weight="bold"),
        svg_text(10, 38, f"code {t['code']} bytes (text {t['text']} + data {t['data_init']}), "
              f"RAM {t['data']} bytes (data {t['data_init']} + bss {t['bss']}); "
              "bars split by the largest symbols", fill="#555"),
    ]  # fmt: skip
    symbols = doc.get("symbols", [])
    for i, row in enumerate(rows):
        y = TOP + i * ROW_H
        size = int(row["size"])
        colour = REMAINDER_COLOUR if row is doc["remainder"] else PALETTE[i % len(PALETTE)]
        out.append(svg_text(label_w - 8, y + BAR_H - 4, row["name"], anchor="end"))
        x = float(label_w)
        scale = bar_w / largest
        own = [s for s in symbols if s.get("component") == row["name"]]
        used = 0
        for s in sorted(own, key=lambda s: -int(s["size"])):
            w = int(s["size"]) * scale
            tip = f"{s['name']} ({s['section']}): {s['size']} bytes"
            out.append(_rect(x, y, w, colour, tip, stroke=True))
            if w > len(s["name"]) * CHAR_W + 6:
                out.append(svg_text(x + 3, y + BAR_H - 4, s["name"], fill="white"))
            x += w
            used += int(s["size"])
        rest = size - used
        if rest > 0:
            tip = f"{row['name']}: {rest} bytes outside the listed symbols"
            fill = colour if not own else REST_COLOUR
            out.append(_rect(x, y, rest * scale, fill, tip, stroke=bool(own)))
            x += rest * scale
        pct = 100.0 * size / total
        out.append(svg_text(label_w + bar_w + 8, y + BAR_H - 4, f"{size} B  {pct:.1f}%"))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def write_svg(report: Any, path: Path) -> None:
    """Write the chart; the file appears complete or not at all."""
    atomic_write(path, render_svg(report))


def _rect(x: float, y: float, w: float, fill: str, tip: str, stroke: bool = False) -> str:
    edge = ' stroke="white" stroke-width="0.5"' if stroke else ""
    return (
        f'<rect x="{x:.2f}" y="{y}" width="{max(w, 0.0):.2f}" height="{BAR_H}" '
        f'fill="{fill}"{edge}><title>{escape(tip)}</title></rect>'
    )
