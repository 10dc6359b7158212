"""The models bench chart: one horizontal bar per model and board (log scale), each cycle
row's published figures for other hardware as grey bars right below it, side by side."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ireerv.bench.models import check_schema
from ireerv.util.svg import svg_text

ROW_H, BAR_H = 24, 16
LEFT, RIGHT, TOP, BOTTOM = 230, 150, 56, 40
PLOT_W = 480
COLOURS = {"cycles": "#4e79a7", "instructions": "#f28e2b", "published": "#bab0ac"}


def _bars(data: Mapping[str, Any]) -> list[tuple[str, int | None, str]]:
    bars: list[tuple[str, int | None, str]] = []
    for r in data["rows"]:
        bars.append((f"{r['model']} on {r['board']}", r["inference"], r["unit"]))
        bars += [(f"  {p['label']}", p["cycles"], "published") for p in r["references"]]
    return bars


def _legend(data: Mapping[str, Any]) -> str:
    """Which colour is which board's count, from the rows themselves."""
    names = {"cycles": "blue", "instructions": "orange"}
    boards = {r["unit"]: r["board"] for r in data["rows"]}
    return "; ".join(f"{names.get(unit, unit)}: {board} {unit}" for unit, board in boards.items())


def render_svg(data: Mapping[str, Any]) -> str:
    check_schema(data)
    bars = _bars(data)
    values = [v for _, v, _ in bars if v]
    lo = math.floor(math.log10(min(values))) if values else 0
    hi = max(math.ceil(math.log10(max(values))), lo + 1) if values else 1
    height = TOP + ROW_H * max(len(bars), 1) + BOTTOM
    width = LEFT + PLOT_W + RIGHT

    def x_of(v: int) -> float:
        return LEFT + PLOT_W * (math.log10(v) - lo) / (hi - lo)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           svg_text(LEFT, 22, "Models: one inference (log scale)", weight="bold", size=14),
           svg_text(LEFT, 40, f"{_legend(data)}; grey: published cycles, other hardware",
                    size=11)]
    for exp in range(lo, hi + 1):
        x = x_of(10**exp)
        out.append(f'<line x1="{x:.1f}" y1="{TOP - 6}" x2="{x:.1f}" '
                   f'y2="{height - BOTTOM + 4}" stroke="#ddd"/>')
        out.append(svg_text(x, height - BOTTOM + 18, f"1e{exp}", anchor="middle", size=10))
    for i, (label, value, kind) in enumerate(bars):
        y = TOP + i * ROW_H
        out.append(svg_text(LEFT - 8, y + BAR_H - 3, label, anchor="end"))
        if not value:
            out.append(svg_text(LEFT + 4, y + BAR_H - 3, "no result", fill="#c00"))
            continue
        w = max(x_of(value) - LEFT, 1.0)
        out.append(f'<rect x="{LEFT}" y="{y}" width="{w:.1f}" height="{BAR_H}" '
                   f'fill="{COLOURS[kind]}"/>')
        out.append(svg_text(LEFT + w + 4, y + BAR_H - 3, f"{value:,}", size=11))
    out.append("</svg>")
    return "\n".join(out) + "\n"
