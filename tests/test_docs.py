"""The docs: the figure tables are what the committed bench JSON makes, the README stays
short, and every page a link names exists."""

from __future__ import annotations

import re

from ireerv.bench import docs
from ireerv.paths import PROJECT_ROOT


def test_figure_tables_agree_with_their_json() -> None:
    pages = docs.pages()
    assert {p.name for p in pages} >= {"figures.md", "harts.md", "softfloat.md", "models.md"}
    for page in pages:
        text = page.read_text()
        assert docs.update(text) == text, (
            f"docs/{page.name}: a figure table differs from the JSON it comes from; run "
            "`scons docs-figures` after `scons bench`, never edit a table by hand")


def test_every_linked_page_exists() -> None:
    for page in [PROJECT_ROOT / "README.md", *sorted((PROJECT_ROOT / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([\w./-]+\.md)(?:#[\w-]+)?\)", page.read_text()):
            assert (page.parent / target).is_file(), f"{page.name} links {target}"


def test_the_readme_is_short_and_keeps_the_two_commands() -> None:
    text = (PROJECT_ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 250
    assert "./bootstrap image MODEL=matmul" in text
    assert ".venv/bin/python -m pytest -q tests" in text
