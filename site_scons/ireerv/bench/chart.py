"""The bench chart: grouped bars per size on a log scale, ours beside the reference."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape

from ireerv.bench.table import check_schema
from ireerv.util.svg import svg_text

COLOURS = {"startup": "#4e79a7", "first_call": "#f28e2b", "later_call": "#e15759",
           "plain_c": "#59a14f"}  # fmt: skip
BAR_W = 22
PAIR_GAP = 8  # between the metrics of one size
GROUP_GAP = 36  # between sizes
LEFT, RIGHT = 70, 20
TITLE_H = 92  # title, subtitle, legend
PLOT_H = 340
HEADROOM = 44  # above the highest decade, for the value labels
BOTTOM = 64  # ratio labels, size labels, axis title
CHAR_W = 6.0


def _short(value: int) -> str:
    """A compact figure for a bar label: 64.5k, 1.20M, 31.0M."""
    if value >= 10_000_000:
        return f"{value / 1e6:.1f}M"
    if value >= 1_000_000:
        return f"{value / 1e6:.2f}M"
    if value >= 1_000:
        return f"{value / 1e3:.1f}k"
    return str(value)


def _decade_label(exp: int) -> str:
    value = 10**exp
    for unit, div in (("G", 10**9), ("M", 10**6), ("k", 10**3)):
        if value >= div:
            return f"{value // div}{unit}"
    return str(value)


@dataclass(frozen=True)
class _Frame:
    """The chart's geometry: log-scale decades lo..hi, the plot's width and its baseline."""

    lo: int
    hi: int
    group_w: int
    plot_w: int
    width: int
    y0: int  # the top decade
    base: int  # the bottom decade: the x axis

    def y_of(self, v: int) -> float:
        if v <= 0:
            return self.base
        return self.base - (math.log10(v) - self.lo) / (self.hi - self.lo) * PLOT_H


def _frame(rows: list[Mapping[str, Any]], metrics: list[tuple[str, str]]) -> _Frame:
    values = [v for row in rows for key, _ in metrics
              for v in (row["cells"][key]["ours"], row["cells"][key]["reference"])
              if v is not None and v > 0]  # fmt: skip
    lo = math.floor(math.log10(min(values))) if values else 4
    hi = math.ceil(math.log10(max(values))) if values else 8
    group_w = len(metrics) * 2 * BAR_W + (len(metrics) - 1) * PAIR_GAP
    plot_w = max(len(rows), 1) * (group_w + GROUP_GAP)
    y0 = TITLE_H + HEADROOM
    return _Frame(lo, max(hi, lo + 1), group_w, plot_w, max(LEFT + plot_w + RIGHT, 640), y0,
                  y0 + PLOT_H)


def render_svg(table: Mapping[str, Any]) -> str:
    """Grouped bars per size on a log scale: ours (solid) and the reference (pale) per metric.

    Every bar is a <rect class="bar"> with its figure as a label and a tooltip; a missing
    figure gets a grey <text class="missing"> mark instead, whose tooltip gives the reason.
    """
    check_schema(table)
    metrics = [(m["key"], m["label"]) for m in table["metrics"]]
    rows = table["rows"]
    f = _frame(rows, metrics)
    height = f.base + BOTTOM
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{f.width}" height="{height}" '
        f'viewBox="0 0 {f.width} {height}" font-family="sans-serif" font-size="11">',
        f'<rect width="{f.width}" height="{height}" fill="white"/>',
        svg_text(LEFT, 22, f"{table['model']} on {table['board']}: cycles, ours vs the reference "
              "work", size=15, weight="bold"),
        svg_text(LEFT, 40, "solid bars: ours, pale bars: the reference; ratio ours/reference "
              "under each pair; log scale", fill="#555"),
    ]  # fmt: skip
    out += _legend(metrics)
    out += _axes(f)
    for i, row in enumerate(rows):
        out += _group(f, row, metrics, LEFT + GROUP_GAP / 2 + i * (f.group_w + GROUP_GAP))
    out.append(svg_text(LEFT + f.plot_w / 2, f.base + 54, "matrix size", anchor="middle",
                     fill="#555"))  # fmt: skip
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _legend(metrics: list[tuple[str, str]]) -> list[str]:
    """One swatch per metric, then what solid and pale mean."""
    out = []
    x = float(LEFT)
    for key, label in metrics:
        out.append(f'<rect x="{x:.1f}" y="54" width="12" height="12" fill="{COLOURS[key]}"/>')
        out.append(svg_text(x + 16, 64, label))
        x += 16 + len(label) * CHAR_W + 18
    x = float(LEFT)
    for label, opacity in (("ours", 1.0), ("reference", 0.35)):
        out.append(f'<rect x="{x:.1f}" y="72" width="12" height="12" fill="#666" '
                   f'fill-opacity="{opacity}" stroke="#666"/>')  # fmt: skip
        out.append(svg_text(x + 16, 82, label))
        x += 16 + len(label) * CHAR_W + 18
    return out


def _axes(f: _Frame) -> list[str]:
    """Axes and decade grid lines."""
    out = []
    for exp in range(f.lo, f.hi + 1):
        y = f.y_of(10**exp)
        out.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{LEFT + f.plot_w}" y2="{y:.1f}" '
                   f'stroke="{"#999" if exp == f.lo else "#e3e3e3"}"/>')  # fmt: skip
        out.append(svg_text(LEFT - 6, y + 4, _decade_label(exp), anchor="end"))
    out.append(f'<line x1="{LEFT}" y1="{f.y0}" x2="{LEFT}" y2="{f.base}" stroke="#999"/>')
    mid = (f.y0 + f.base) / 2
    out.append(f'<text x="16" y="{mid:.1f}" text-anchor="middle" '
               f'transform="rotate(-90 16 {mid:.1f})">cycles (log scale)</text>')  # fmt: skip
    return out


def _group(f: _Frame, row: Mapping[str, Any], metrics: list[tuple[str, str]],
           gx: float) -> list[str]:
    """One size: a pair of bars (ours, reference) per metric, ratios below."""
    out = []
    n = row["size"]
    pair_w = 2 * BAR_W
    for j, (key, label) in enumerate(metrics):
        px = gx + j * (pair_w + PAIR_GAP)
        cell = row["cells"][key]
        for k, (who, value) in enumerate((("ours", cell["ours"]),
                                          ("reference", cell["reference"]))):  # fmt: skip
            out += _bar(f, row, key, f"N={n}, {label}, {who}", who, value, px + k * BAR_W)
        ratio = cell["ratio"]
        out.append(svg_text(px + pair_w / 2 - 1, f.base + 14,
                         "—" if ratio is None else f"{ratio:.2f}×", anchor="middle",
                         size=9, fill="#444"))  # fmt: skip
    out.append(svg_text(gx + f.group_w / 2, f.base + 32, f"N = {n} ({n}×{n} f32)",
                     anchor="middle", weight="bold"))  # fmt: skip
    return out


def _bar(f: _Frame, row: Mapping[str, Any], key: str, what: str, who: str, value: int | None,
         bx: float) -> list[str]:
    n = row["size"]
    if value is None:
        # Where the bar would be: a grey mark, why it is missing on hover.
        why = row["cells"][key]["note"] if who == "ours" else "no reference figure"
        status = row["runs"]["none" if key == "plain_c" else "iree"]["status"]
        mark = "—" if who == "reference" else {
            "failed": "— failed", "missing": "— no run"}.get(status, "—")
        lx, ly = bx + BAR_W / 2 + 3, f.base - 4
        return [f'<text class="missing" x="{lx:.1f}" y="{ly:.1f}" font-size="10" '
                f'fill="#888" transform="rotate(-90 {lx:.1f} {ly:.1f})">{escape(mark)}'
                f"<title>{escape(f'{what}: {why}')}</title></text>"]
    top = f.y_of(value)
    opacity = "1" if who == "ours" else "0.35"
    lx, ly = bx + BAR_W / 2 + 3, top - 4
    return [
        f'<rect class="bar" data-size="{n}" data-metric="{key}" data-who="{who}" '
        f'data-value="{value}" x="{bx:.1f}" y="{top:.1f}" width="{BAR_W - 2}" '
        f'height="{f.base - top:.1f}" fill="{COLOURS[key]}" fill-opacity="{opacity}" '
        f'stroke="{COLOURS[key]}"><title>{escape(f"{what}: {value:,} cycles")}'
        "</title></rect>",
        f'<text x="{lx:.1f}" y="{ly:.1f}" font-size="10" '
        f'transform="rotate(-90 {lx:.1f} {ly:.1f})">{_short(value)}</text>',
    ]
