"""A build killed before SCons wrote its signatures: the next one trusts nothing it wrote."""

from __future__ import annotations

import hashlib
import os
import signal
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
import SCons.Node.FS
from scons_helpers import scons, scons_interrupted

from ireerv.util import build_cache, unfinished_build

pytestmark = pytest.mark.own_builds  # compares builds: each file built here

NEEDS_INPUTS = ("iree", "flatcc", "iree-compiler")  # for the `tree` fixture (conftest.py)
IMAGE_ARGS = ("image", "BOARD=qemu-virt", "MODEL=matmul", "-j1")
IMAGE = "build/qemu-virt/matmul-4/image.elf"
RUNNER = "runtime/runner/runner.c"


def _age(path: Path, seconds: float) -> None:
    then = time.time() - seconds
    os.utime(path, (then, then))


def test_a_finished_build_leaves_nothing_to_recover(tmp_path: Path) -> None:
    (tmp_path / "old.o").write_text("built")
    said: list[str] = []
    assert unfinished_build.recover(tmp_path, said.append) == 0
    unfinished_build.begin(tmp_path)
    unfinished_build.end(tmp_path)
    assert unfinished_build.recover(tmp_path, said.append) == 0
    assert (tmp_path / "old.o").exists() and not said


def test_what_an_unfinished_build_wrote_is_removed(tmp_path: Path) -> None:
    build = tmp_path / "build"
    (build / "board").mkdir(parents=True)
    for name in ("board/old.o", ".scons.lock"):
        (build / name).write_text("from a finished build")
        _age(build / name, 60)
    unfinished_build.begin(build)
    _age(build / unfinished_build.MARK_NAME, 30)
    (build / "board/runner.o").write_text("half")
    (build / "board/image.elf").write_bytes(b"")
    os.utime(build / ".scons.lock")  # opened by every build, never written
    said: list[str] = []
    assert unfinished_build.recover(build, said.append) == 2
    assert said == ["scons: the last build in this checkout did not finish; the 2 files it "
                    "wrote are removed and built again"]
    assert sorted(p.name for p in build.rglob("*")) == [".scons.lock", "board", "old.o"]
    assert unfinished_build.recover(build, said.append) == 0 and len(said) == 1


def test_a_cmake_tree_it_wrote_in_is_removed_whole(tmp_path: Path) -> None:
    runtime, untouched = tmp_path / "runtime/release", tmp_path / "runtime/debug"
    for tree in (runtime, untouched):
        (tree / "CMakeFiles").mkdir(parents=True)
        for name in ("CMakeCache.txt", "CMakeFiles/a.o", "libiree.a"):
            (tree / name).write_text("configured")
            _age(tree / name, 60)
    unfinished_build.begin(tmp_path)
    _age(tmp_path / unfinished_build.MARK_NAME, 30)
    (runtime / "CMakeFiles/a.o").write_text("rebuilt by ninja, then killed")
    assert unfinished_build.recover(tmp_path, lambda _: None) == 1
    assert not runtime.exists() and (untouched / "libiree.a").exists()


def test_the_mark_goes_once_the_signatures_are_written(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    import SCons.SConsign

    marks_seen = []
    monkeypatch.setattr(SCons.SConsign, "write",
                        lambda: marks_seen.append((tmp_path / unfinished_build.MARK_NAME).exists()))
    unfinished_build.begin(tmp_path)
    unfinished_build.end_once_signatures_written(tmp_path)
    unfinished_build.end_once_signatures_written(tmp_path)  # once, however often it is asked
    SCons.SConsign.write()
    assert marks_seen == [True] and not (tmp_path / unfinished_build.MARK_NAME).exists()


def test_a_file_from_the_build_cache_is_as_new_as_its_retrieval(tmp_path: Path) -> None:
    entry, target = tmp_path / "entry", tmp_path / "runner.o"
    entry.write_text("object")
    _age(entry, 3600)
    env = SimpleNamespace(fs=SCons.Node.FS.LocalFS())
    build_cache.VerifiedCacheDir.copy_from_cache(env, str(entry), str(target))
    assert target.read_text() == "object" and time.time() - target.stat().st_mtime < 60


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.upstream
def test_a_build_killed_in_the_link_leaves_nothing_trusted(tree: Path) -> None:
    """Edit the runner, kill the build as it links, undo the edit: the next build makes the
    image a clean build makes, byte for byte, and the one after that has nothing to do."""
    scons(tree, *IMAGE_ARGS)
    clean = _sha256(tree / IMAGE)
    runner_o = tree / "build/qemu-virt/matmul-4/runner.o"
    built_at = runner_o.stat().st_mtime_ns
    source = (tree / RUNNER).read_text()
    (tree / RUNNER).write_text(source.replace('out_cycles("startup"', 'out_cycles("start-up"'))
    status, out = scons_interrupted(tree, *IMAGE_ARGS, after=f"LINK    {IMAGE}",
                                    sig=signal.SIGKILL)
    assert status == -signal.SIGKILL and f"CC      {runner_o.relative_to(tree)}" in out, out
    assert runner_o.stat().st_mtime_ns != built_at  # the edited runner was compiled
    (tree / RUNNER).write_text(source)
    out = scons(tree, *IMAGE_ARGS).stdout
    assert _sha256(tree / IMAGE) == clean, out
    assert "the last build in this checkout did not finish" in out, out
    assert "`image' is up to date." in scons(tree, *IMAGE_ARGS).stdout
    assert not (tree / "build" / unfinished_build.MARK_NAME).exists()


@pytest.mark.upstream
def test_an_empty_image_from_a_killed_link_is_rebuilt(tree: Path) -> None:
    scons(tree, *IMAGE_ARGS)
    clean = (tree / IMAGE).read_bytes()
    unfinished_build.begin(tree / "build")  # as the killed build left it
    (tree / IMAGE).write_bytes(b"")  # the linker's output, opened and never written
    out = scons(tree, *IMAGE_ARGS).stdout
    assert "the last build in this checkout did not finish; the 1 file it wrote" in out, out
    assert (tree / IMAGE).read_bytes() == clean
