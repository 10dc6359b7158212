"""The committed release digests: file format, comparison, one table per board and toolchain."""

from __future__ import annotations

from pathlib import Path

import pytest

from ireerv import paths
from ireerv.release import digests


def _release(directory: Path, content: bytes = b"x") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    for name in digests.FILES:
        (directory / name).write_bytes(content + name.encode())
    return directory


def test_written_digests_match_their_release_and_keep_the_other_tables(tmp_path: Path) -> None:
    path = tmp_path / digests.FILE_NAME
    rel = _release(tmp_path / "rel")
    digests.write(path, "b1", "source", {name: "0" * 64 for name in digests.FILES})
    digests.write(path, "b2", "debian", {name: "1" * 64 for name in digests.FILES})
    digests.write(path, "b1", "debian", digests.of_release(rel))
    assert digests.compare(rel, path, "b1", "debian") == []
    assert set(digests.load(path)) == {"b1.debian", "b1.source", "b2.debian"}
    assert digests.boards(path) == {"b1", "b2"}
    for board, kind in (("b1", "source"), ("b2", "debian")):
        problems = digests.compare(rel, path, board, kind)
        assert problems[0].startswith("image.elf: sha256 ") and len(problems) == len(digests.FILES)


def test_a_changed_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / digests.FILE_NAME
    rel = _release(tmp_path / "rel")
    digests.write(path, "b1", "debian", digests.of_release(rel))
    (rel / "image.map").write_bytes(b"other")
    assert [p.split(":")[0] for p in digests.compare(rel, path, "b1", "debian")] == ["image.map"]


def test_a_missing_table_says_how_to_write_it(tmp_path: Path) -> None:
    rel = _release(tmp_path / "rel")
    (problem,) = digests.compare(rel, tmp_path / digests.FILE_NAME, "cluster4-pulp", "source")
    assert "no [cluster4-pulp.source] table" in problem
    assert "scons release-digests BOARD=cluster4-pulp TOOLCHAIN=source" in problem


def test_a_malformed_file_is_one_error(tmp_path: Path) -> None:
    path = tmp_path / digests.FILE_NAME
    path.write_text('[b1.debian]\n"image.elf" = "abc"\n')
    with pytest.raises(digests.DigestError, match=r"\[b1.debian\] must map file names to sha256"):
        digests.load(path)
    path.write_text('[debian]\n"image.elf" = "' + "0" * 64 + '"\n')  # a table without its board
    with pytest.raises(digests.DigestError, match=r"\[debian\] must hold one table per toolchain"):
        digests.load(path)


def test_the_committed_digests_cover_every_release_file() -> None:
    tables = digests.load(paths.PROJECT_ROOT / digests.FILE_NAME)
    assert {"cluster4.debian", "cluster4-pulp.debian"} <= set(tables)
    for table in tables.values():
        assert set(table) == set(digests.FILES)


