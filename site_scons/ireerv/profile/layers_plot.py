"""The per-layer profile as SVG: one bar per row (a dispatch and its layers), its length
the row's cost, coloured by layer kind, labelled with cost per MAC."""

from __future__ import annotations

from typing import Any
from xml.sax.saxutils import escape, quoteattr

from ..util.svg import PALETTE
from .layers import first_part, lead

WIDTH = 1000
LABEL = 300  # the left column: layer names
ROW = 18


def _colour(kind: str) -> str:
    return PALETTE[sum(kind.encode()) % len(PALETTE)]


def _bar(row: dict[str, Any], y: int, scale: float, unit: str) -> str:
    names = [m["name"] for m in row["layers"]] or [row["dispatch"]]
    named = lead(row)
    label = first_part(named["name"] if named else names[0])[:48] + (
        f" +{len(names) - 1}" if len(names) > 1 else "")
    width = row["cost"] * scale
    per_mac = f", {row['per_mac']:.2f}/MAC" if row["per_mac"] is not None else ""
    note = f"{row['cost']:,} {unit}{per_mac} ({row['percent']}%)"
    return (f'<g><title>{escape(row["dispatch"])}: {escape("; ".join(names))}\n{note}</title>'
            f'<text x="10" y="{y + 13}">{escape(label)}</text>'
            f'<rect x="{LABEL}" y="{y}" width="{width:.1f}" height="{ROW - 3}" '
            f'fill={quoteattr(_colour(row["kind"]))}/>'
            f'<text x="{LABEL + width + 4:.1f}" y="{y + 13}">{escape(row["kind"])} '
            f'{escape(note)}</text></g>')


def render_svg(doc: dict[str, Any]) -> str:
    rows = doc["rows"]
    top = max([r["cost"] for r in rows] + [1])
    scale = (WIDTH - LABEL - 260) / top
    body = [_bar(row, 30 + i * ROW, scale, doc["unit"]) for i, row in enumerate(rows)]
    height = 40 + len(rows) * ROW
    macs = f", {doc['macs']:,} MACs" if doc["macs"] else ""
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
            f'viewBox="0 0 {WIDTH} {height}" font-family="sans-serif" font-size="10">'
            f'<rect width="{WIDTH}" height="{height}" fill="white"/>'
            f'<text x="10" y="16" font-size="12">layers of {escape(doc["model"])} on '
            f'{escape(doc["board"])}: {doc["total"]:,} {escape(doc["unit"])} per call'
            f'{macs}</text>')
    return "\n".join([head, *body, "</svg>"]) + "\n"
