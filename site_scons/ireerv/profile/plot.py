"""The profile as SVG: for each shown phase, a bar per component and an icicle of its stacks.

The icicle is a flame graph drawn top-down: the first row is the outermost frame, each
frame's width is its inclusive cost, children sit below their parent.  Hovering a box shows
the function and its cost (SVG <title>).
"""

from __future__ import annotations

from typing import Any
from xml.sax.saxutils import escape, quoteattr

from ..util.svg import PALETTE

WIDTH = 1000
ROW = 16
MAX_DEPTH = 24
CHAR_W = 6.0


def _tree(stacks: list[dict[str, Any]]) -> dict[str, Any]:
    root: dict[str, Any] = {"cost": 0, "children": {}}
    for s in stacks:
        node = root
        node["cost"] += s["cost"]
        for frame in s["frames"][:MAX_DEPTH]:
            node = node["children"].setdefault(frame, {"cost": 0, "children": {}})
            node["cost"] += s["cost"]
    return root


def _colour(name: str) -> str:
    return PALETTE[sum(name.encode()) % len(PALETTE)]


def _icicle(node: dict[str, Any], x: float, y: int, scale: float, unit: str,
            out: list[str]) -> int:
    depth = 0
    for name, child in sorted(node["children"].items(), key=lambda kv: -kv[1]["cost"]):
        w = child["cost"] * scale
        if w >= 0.5:
            label = escape(name if len(name) * CHAR_W < w - 4 else name[: int((w - 4) / CHAR_W)])
            out.append(f'<g><title>{escape(name)}: {child["cost"]:,} {unit}</title>'
                       f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{ROW - 1}" '
                       f'fill={quoteattr(_colour(name))}/>'
                       + (f'<text x="{x + 2:.1f}" y="{y + ROW - 4}">{label}</text>'
                          if len(label) > 2 else "") + "</g>")
            depth = max(depth, 1 + _icicle(child, x, y + ROW, scale, unit, out))
        x += w
    return depth


def render_svg(doc: dict[str, Any], phases: list[str]) -> str:
    body: list[str] = []
    y = 30
    unit = doc["unit"]
    for phase in doc["phases"]:
        if phase["name"] not in phases:
            continue
        total = phase["total"] or 1
        body.append(f'<text x="10" y="{y}" font-weight="bold">{escape(phase["name"])}: '
                    f'{phase["total"]:,} {unit}</text>')
        y += 10
        x = 10.0
        for c in phase["components"]:
            w = (WIDTH - 20) * c["self"] / total
            body.append(f'<g><title>{escape(c["name"])}: {c["self"]:,} {unit} '
                        f'({c["percent"]}%)</title><rect x="{x:.1f}" y="{y}" width="{w:.1f}" '
                        f'height="18" fill={quoteattr(_colour(c["name"]))}/>'
                        + (f'<text x="{x + 2:.1f}" y="{y + 13}">{escape(c["name"])}</text>'
                           if w > len(c["name"]) * CHAR_W + 4 else "") + "</g>")
            x += w
        y += 26
        depth = _icicle(_tree(phase["stacks"]), 10.0, y, (WIDTH - 20) / total, unit, body)
        y += depth * ROW + 30
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{y}" '
            f'viewBox="0 0 {WIDTH} {y}" font-family="sans-serif" font-size="10">'
            f'<rect width="{WIDTH}" height="{y}" fill="white"/>'
            f'<text x="10" y="16" font-size="12">profile of {escape(doc["model"])} on '
            f'{escape(doc["board"])} ({escape(unit)})</text>')
    return "\n".join([head, *body, "</svg>"]) + "\n"
