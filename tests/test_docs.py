"""The docs: the figure tables are what the committed bench JSON makes, the README stays
short, every page a link names exists, and every variable that changes an image's bytes
is described where users look for it."""

from __future__ import annotations

import re

from ireerv.bench import docs
from ireerv.boards import board_with_role
from ireerv.image import key as image_key
from ireerv.paths import PROJECT_ROOT


def test_figure_tables_agree_with_their_json() -> None:
    pages = docs.pages()
    assert {p.name for p in pages} >= {"figures.md", "harts.md", "softfloat.md", "models.md"}
    for page in pages:
        text = page.read_text()
        assert docs.update(text) == text, (
            f"docs/{page.name}: a figure table differs from the JSON it comes from; run "
            "`scons docs-figures` after `scons bench`, never edit a table by hand")


def test_every_hand_written_figure_names_its_runs() -> None:
    for page in [PROJECT_ROOT / "README.md", *sorted((PROJECT_ROOT / "docs").glob("*.md"))]:
        unmarked = docs.unmarked_figures(page.read_text())
        assert not unmarked, (
            f"{page.relative_to(PROJECT_ROOT)}: the figures of the blocks at lines {unmarked} "
            "are followed by no `<sub>Runs: <commit> (<date>)</sub>` line (docs/README.md)")


def test_a_runs_line_covers_the_block_before_it_only() -> None:
    text = ("Start-up takes 17,954 cycles.\n\n<sub>Runs: 26e381d (2026-12-06)</sub>\n\n"
            "| call | 11,823 |\n\n```\ncycles: start-up 17,954\n```\n\n"
            "<!-- figures: bench.json -->\n| 4x4 | 11,823 |\n<!-- end figures -->\n")
    assert docs.unmarked_figures(text) == [5, 7]
    assert docs.figures("1,234 and 12,345,678 but not 1234 or 1.5 or v3,9") == ["1,234",
                                                                                "12,345,678"]


def test_every_linked_page_exists() -> None:
    for page in [PROJECT_ROOT / "README.md", *sorted((PROJECT_ROOT / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([\w./-]+\.md)(?:#[\w-]+)?\)", page.read_text()):
            assert (page.parent / target).is_file(), f"{page.name} links {target}"


def test_the_readme_is_short_and_keeps_the_two_commands() -> None:
    text = (PROJECT_ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 250
    assert "./bootstrap image MODEL=matmul" in text
    assert ".venv/bin/python -m pytest -q tests" in text


def _image_variables() -> list[str]:
    """Every command-line variable an image key is made of, read from the key itself:
    its settings and the variables its rebuild arguments name (MODEL, BOARD, ...)."""
    key = image_key.ImageKey.of(model="matmul", variant="matmul",
                                board=board_with_role("main").name,
                                placement=image_key.DEFAULT_PLACEMENT, size=4, default_size=4,
                                values={})
    # Optional settings (APP, INPUT) are named only when given: not in a default key's.
    names = [arg.split("=", 1)[0] for arg in key.scons_args()]
    names += [s.variable for s in image_key.SETTINGS if s.optional]
    assert {s.variable for s in image_key.SETTINGS} <= set(names)
    return names


def test_every_image_variable_is_in_the_variables_table() -> None:
    text = (PROJECT_ROOT / "docs" / "targets.md").read_text()
    table = text[text.index("\n# Variables"):]
    first_cells = [row.split("|")[1] for row in table.splitlines() if row.startswith("| `")]
    for name in _image_variables():
        assert any(f"`{name}`" in cell for cell in first_cells), (
            f"docs/targets.md: the variables table has no row for {name}, which changes an "
            "image's bytes (ireerv/image/key.py)")


def test_every_image_variable_is_on_the_release_page() -> None:
    text = (PROJECT_ROOT / "docs" / "release.md").read_text()
    for name in _image_variables():
        assert re.search(rf"\b{name}\b", text), (
            f"docs/release.md: the manifest's configuration does not name {name}, which "
            "changes an image's bytes (ireerv/image/key.py)")


def test_the_architecture_page_lists_the_settings_in_order() -> None:
    text = (PROJECT_ROOT / "docs" / "architecture.md").read_text()
    listed = re.search(r"\(`SETTINGS`: ([A-Z_,\s]+)\)", text)
    assert listed, "docs/architecture.md: the list of SETTINGS is gone"
    assert re.split(r",\s*", listed.group(1).strip()) == [s.variable for s in image_key.SETTINGS]
