"""What every chart of the project shares: its colours and its text element."""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

PALETTE = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1",
           "#ff9da7", "#9c755f", "#bab0ac")  # fmt: skip


def svg_text(
    x: float,
    y: float,
    s: str,
    *,
    anchor: str = "start",
    size: int | None = None,
    weight: str | None = None,
    fill: str | None = None,
) -> str:
    attrs = f' text-anchor="{anchor}"' if anchor != "start" else ""
    if size is not None:
        attrs += f' font-size="{size}"'
    if weight is not None:
        attrs += f' font-weight="{weight}"'
    if fill is not None:
        attrs += f" fill={quoteattr(fill)}"
    return f'<text x="{x:.2f}" y="{y}"{attrs}>{escape(s)}</text>'
