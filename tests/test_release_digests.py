"""The committed release digests: file format, comparison, one table per toolchain."""

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


def test_written_digests_match_their_release_and_keep_other_toolchains(tmp_path: Path) -> None:
    path = tmp_path / digests.FILE_NAME
    rel = _release(tmp_path / "rel")
    digests.write(path, "source", {name: "0" * 64 for name in digests.FILES})
    digests.write(path, "debian", digests.of_release(rel))
    assert digests.compare(rel, path, "debian") == []
    assert set(digests.load(path)) == {"debian", "source"}
    problems = digests.compare(rel, path, "source")
    assert problems[0].startswith("image.elf: sha256 ") and len(problems) == len(digests.FILES)


def test_a_changed_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / digests.FILE_NAME
    rel = _release(tmp_path / "rel")
    digests.write(path, "debian", digests.of_release(rel))
    (rel / "image.map").write_bytes(b"other")
    assert [p.split(":")[0] for p in digests.compare(rel, path, "debian")] == ["image.map"]


def test_a_missing_table_says_how_to_write_it(tmp_path: Path) -> None:
    rel = _release(tmp_path / "rel")
    (problem,) = digests.compare(rel, tmp_path / digests.FILE_NAME, "source")
    assert "scons release-digests TOOLCHAIN=source" in problem


def test_a_malformed_file_is_one_error(tmp_path: Path) -> None:
    path = tmp_path / digests.FILE_NAME
    path.write_text('[debian]\n"image.elf" = "abc"\n')
    with pytest.raises(digests.DigestError, match=r"\[debian\] must map file names to sha256"):
        digests.load(path)


def test_the_committed_digests_cover_every_release_file() -> None:
    tables = digests.load(paths.PROJECT_ROOT / digests.FILE_NAME)
    assert "debian" in tables
    for table in tables.values():
        assert set(table) == set(digests.FILES)


