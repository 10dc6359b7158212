"""The copy of the source tree that releases, tests and tunes build in."""

from __future__ import annotations

import subprocess
from pathlib import Path

from ireerv.release import release


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


PROJECT_IGNORES = Path(__file__).resolve().parents[1] / ".gitignore"


def _project(root: Path) -> Path:
    root.mkdir()
    _git(root, "init", "-q")
    (root / ".gitignore").write_text(PROJECT_IGNORES.read_text())
    (root / "tracked.txt").write_text("committed\n")
    _git(root, "add", ".")
    _git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "start")
    return root


def test_untracked_files_come_along_and_links_stay_links(tmp_path: Path) -> None:
    root = _project(tmp_path / "project")
    (tmp_path / "elsewhere").mkdir()
    (root / "tracked.txt").write_text("changed\n")
    (root / "new.txt").write_text("new\n")
    (root / "link").symlink_to(tmp_path / "elsewhere")
    copy = tmp_path / "copy"
    release.fresh_checkout(root, copy, include_changes=True)
    assert (copy / "tracked.txt").read_text() == "changed\n"
    assert (copy / "new.txt").read_text() == "new\n"
    assert (copy / "link").is_symlink()


def test_a_linked_virtual_environment_is_not_a_change(tmp_path: Path) -> None:
    """The project's ignores take `.venv` as a folder or as a link to one."""
    root = _project(tmp_path / "project")
    (tmp_path / "venv").mkdir()
    (root / ".venv").symlink_to(tmp_path / "venv")
    assert release.source_state(root)["dirty"] is False
