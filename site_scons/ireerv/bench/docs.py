"""The figure tables of docs/: made from the bench's JSON, never copied by hand.

`scons docs-figures` copies the bench's JSON into docs/figures/ and rewrites
every marked region of the docs pages from it:

    <!-- figures: bench.json -->
    ...generated Markdown...
    <!-- end figures -->

A test regenerates each region from the committed JSON and compares, so a
table that disagrees with the JSON it came from fails.
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
