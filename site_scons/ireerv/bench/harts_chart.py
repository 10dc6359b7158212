"""The harts chart: per row of the harts table, the speedup with each hart count above one
(bars, linear scale), the cap of that row's kind of loop marked across each bar."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from ireerv.bench import harts
from ireerv.bench.harts import RUNTIMES, check_schema
from ireerv.util.files import atomic_write
from ireerv.util.svg import svg_text

COLOURS = {"iree": "#4e79a7", "none": "#59a14f"}
CAP_COLOUR = "#e15759"
BAR_W, GROUP_GAP = 22, 26
LEFT, RIGHT, TOP, PLOT_H, BOTTOM = 64, 20, 96, 300, 150
STEP = 0.25  # between grid lines


def _top(rows: Sequence[Mapping[str, Any]], counts: Sequence[harts.Count]) -> float:
    values = [1.0]
    for row in rows:
        values += [row["cells"][str(h)]["speedup"] or 0.0 for h in counts]
        if row["cap"]:
            values += list(row["cap"]["by_harts"].values())
    return math.ceil(max(values) * 1.1 / STEP) * STEP


def _bar(row: Mapping[str, Any], h: harts.Count, x: float, y_of, base: float,
         opacity: float) -> list[str]:
    cell, found = row["cells"][str(h)], row["cap"]
    out = []
    what = f"{row['label']}, {harts.count_label(h)}"
    if cell["speedup"] is None:
        why = "failed" if cell["ran"] else "no run"
        out.append(svg_text(x + BAR_W / 2, base - 6, "—", anchor="middle", fill="#888"))
        out[-1] = out[-1].replace("</text>", f"<title>{escape(f'{what}: {why}')}</title></text>")
    else:
        speedup = cell["speedup"]
        top = y_of(speedup)
        out.append(f'<rect class="bar" data-row="{escape(row["label"])}" data-harts="{h}" '
                   f'data-value="{speedup}" x="{x:.1f}" y="{top:.1f}" '
                   f'width="{BAR_W - 2}" height="{base - top:.1f}" '
                   f'fill="{COLOURS.get(row["runtime"], "#999")}" '
                   f'fill-opacity="{opacity}">'
                   f"<title>{escape(what)}: {speedup:.2f}× faster than 1 hart"
                   "</title></rect>")
        out.append(svg_text(x + BAR_W / 2 - 1, top - 4, f"{speedup:.2f}",
                            anchor="middle", size=9))
    if found:
        cy = y_of(found["by_harts"][str(h)])
        out.append(f'<line class="cap" data-harts="{h}" x1="{x - 2:.1f}" y1="{cy:.1f}" '
                   f'x2="{x + BAR_W:.1f}" y2="{cy:.1f}" stroke="{CAP_COLOUR}" '
                   f'stroke-width="2.5"><title>{escape(f"{what}: cap ")}'
                   f'{found["by_harts"][str(h)]:.2f}×</title></line>')
    return out


def _legend(counts: Sequence[harts.Count]) -> list[str]:
    out, x = [], float(LEFT)
    for runtime, label in RUNTIMES.items():
        out.append(f'<rect x="{x:.1f}" y="54" width="12" height="12" '
                   f'fill="{COLOURS[runtime]}"/>')
        out.append(svg_text(x + 16, 64, label))
        x += 16 + len(label) * 6.5 + 18
    out.append(f'<line x1="{x:.1f}" y1="60" x2="{x + 14:.1f}" y2="60" stroke="{CAP_COLOUR}" '
               'stroke-width="2.5"/>')
    out.append(svg_text(x + 18, 64, "cap of the row's loop (scons cap)"))
    out.append(svg_text(LEFT, 82, "bars left to right: " + ", ".join(
        harts.count_label(h) for h in counts[1:]) + " (pale to solid)", fill="#555"))
    return out


def render_svg(table: Mapping[str, Any]) -> str:
    """One group of bars per row; a red tick across each bar at that hart count's cap."""
    check_schema(table)
    counts, rows = table["harts"], table["rows"]
    more = [h for h in counts if h != 1]
    group_w = max(len(more), 1) * BAR_W
    plot_w = max(len(rows), 1) * (group_w + GROUP_GAP)
    width, height = max(LEFT + plot_w + RIGHT, 640), TOP + PLOT_H + BOTTOM
    top, base = _top(rows, counts), TOP + PLOT_H

    def y_of(v: float) -> float:
        return base - min(v, top) / top * PLOT_H

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           svg_text(LEFT, 22, f"Harts on {table['board']}: speedup over one hart, next to "
                    "the cap", size=15, weight="bold"),
           svg_text(LEFT, 40, "the cap: min(N, 1/(IPC₁·w)) of the loop standing for the "
                    f"row's kind (soft-float: {table['softfloat']})", fill="#555"),
           *_legend(counts)]
    for i in range(int(round(top / STEP)) + 1):
        v = i * STEP
        y = y_of(v)
        out.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{LEFT + plot_w}" y2="{y:.1f}" '
                   f'stroke="{"#999" if v in (0, 1) else "#e3e3e3"}"/>')
        out.append(svg_text(LEFT - 6, y + 4, f"{v:.2f}×", anchor="end", size=10))
    mid = TOP + PLOT_H / 2
    out.append(f'<text x="16" y="{mid:.1f}" text-anchor="middle" '
               f'transform="rotate(-90 16 {mid:.1f})">speedup over 1 hart</text>')
    for g, row in enumerate(rows):
        gx = LEFT + GROUP_GAP / 2 + g * (group_w + GROUP_GAP)
        for j, h in enumerate(more):
            out += _bar(row, h, gx + j * BAR_W, y_of, base, 1.0 if h == more[-1] else 0.55)
        lx, ly = gx + group_w / 2 + 4, base + 8
        out.append(f'<text x="{lx:.1f}" y="{ly:.1f}" font-size="10" text-anchor="end" '
                   f'transform="rotate(-90 {lx:.1f} {ly:.1f})">{escape(row["label"])}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def write(table: Mapping[str, Any], out_dir: str | Path) -> None:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    atomic_write(out / "harts.json", json.dumps(table, indent=2) + "\n")
    atomic_write(out / "harts.md", harts.markdown(table))
    atomic_write(out / "harts.svg", render_svg(table))
