"""The figure tables of docs/: made from the bench's JSON, never copied by hand.

`scons docs-figures` copies the bench's JSON into docs/figures/ and rewrites
every marked region of the docs pages from it:

    <!-- figures: bench.json -->
    ...generated Markdown...
    <!-- end figures -->

A test regenerates each region from the committed JSON and compares, so a
table that disagrees with the JSON it came from fails.

A figure written by hand outside those regions (a number with thousands
separators: cycles, bytes, instructions) says which runs it came from: the
paragraph, table, list or output block holding it is followed by a line

    <sub>Runs: 11b9ae4 (2026-12-03), af5411d (2026-12-04)</sub>

naming the commits that brought its figures into the docs, newest first, so
two figures that disagree can be told apart and a stale one is seen as old.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ireerv.bench import cap, harts, models, output
from ireerv.paths import PROJECT_ROOT
from ireerv.softfloat import bench as softfloat_bench

DOCS = PROJECT_ROOT / "docs"
FIGURES = DOCS / "figures"
# JSON file -> what writes its Markdown (the same function the bench uses).
RENDERERS: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "bench.json": output.markdown,
    "harts.json": harts.markdown,
    "cap.json": cap.markdown,
    "softfloat.json": softfloat_bench.markdown,
    "models.json": models.markdown,
}
# Cycles, bytes, instructions: a whole number with thousands separators.
_FIGURE = re.compile(r"(?<![\w.,])\d{1,3}(?:,\d{3})+(?![,\d])")
_RUN = r"[0-9a-f]{7,40} \(\d{4}-\d{2}-\d{2}\)"
_RUNS = re.compile(rf"<sub>Runs: {_RUN}(?:, {_RUN})*</sub>")
_REGION = re.compile(r"(<!-- figures: ([\w.-]+) -->\n)(.*?)(<!-- end figures -->)", re.S)


class DocsError(ValueError):
    """A marked region names a JSON file that is not there or not known."""


def render(name: str, figures: Path = FIGURES) -> str:
    if name not in RENDERERS:
        raise DocsError(f"figures: {name} is not one of {', '.join(RENDERERS)}")
    path = figures / name
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError) as err:
        raise DocsError(f"figures: cannot read {path}: {err}") from None
    text = RENDERERS[name](doc).strip()
    # The tables' own top heading would break the page's outline: one level down.
    return re.sub(r"^(#+) ", r"#\1 ", text, flags=re.M) + "\n"


def update(text: str, figures: Path = FIGURES) -> str:
    """A page with every marked region made anew from its JSON."""
    return _REGION.sub(lambda m: m.group(1) + render(m.group(2), figures) + m.group(4), text)


def regions(text: str) -> list[str]:
    return [m.group(2) for m in _REGION.finditer(text)]


def pages(docs: Path = DOCS) -> list[Path]:
    """The docs pages with at least one marked region."""
    return [p for p in sorted(docs.glob("*.md")) if regions(p.read_text())]


def blocks(text: str) -> list[tuple[int, str]]:
    """The page's blocks outside the marked regions, each with its first line (from 1): runs
    of non-blank lines (a paragraph, a table, a list), a fenced block whole."""
    masked = _REGION.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    lines = masked.split("\n")
    found: list[tuple[int, str]] = []
    i = 0
    while i < len(lines):
        if not lines[i].strip():
            i += 1
            continue
        j = i + 1
        if lines[i].startswith("```"):
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            j += 1
        else:
            while j < len(lines) and lines[j].strip() and not lines[j].startswith("```"):
                j += 1
        found.append((i + 1, "\n".join(lines[i:j])))
        i = j
    return found


def figures(block: str) -> list[str]:
    return _FIGURE.findall(block)


def is_runs(block: str) -> bool:
    return bool(_RUNS.fullmatch(block.strip()))


def runs_line(runs: list[tuple[str, str]]) -> str:
    """The line naming the runs (commit, date) a block's figures came from."""
    return "<sub>Runs: " + ", ".join(f"{commit} ({date})" for commit, date in runs) + "</sub>"


def unmarked_figures(text: str) -> list[int]:
    """The first lines of the blocks holding hand-written figures that no runs line follows."""
    found = blocks(text)
    return [line for k, (line, block) in enumerate(found)
            if figures(block) and not (k + 1 < len(found) and is_runs(found[k + 1][1]))]
