"""A model's pinned files are fetched with the build's own settings (CACHE_DIR, OFFLINE of
the command line), never with the IREERV_* variables' cache behind the build's back."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from conftest import require_input
from scons_helpers import scons

from ireerv.inputs import manifest
from ireerv.inputs.fetch import Fetcher

NEEDS_INPUTS = ("mlperf-tiny",)


def _snapshot(root: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(root)): (p.lstat().st_size, p.lstat().st_mtime_ns)
            for p in root.rglob("*")}


@pytest.mark.upstream
def test_tflite_input_offline_uses_cache_dir(tree: Path, fetcher: Fetcher, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """IREERV_CACHE names a cache holding the model's input, CACHE_DIR an empty one and
    OFFLINE=yes: the build stops naming the input missing from CACHE_DIR, reads nothing
    from the other cache and runs no git fetch."""
    entry = require_input(fetcher, "mlperf-tiny")
    other = tmp_path / "other-cache"
    shutil.copytree(entry, other / "src" / entry.name, symlinks=True)
    if manifest.manifest_path(entry).is_file():
        shutil.copy(manifest.manifest_path(entry), other / "src")
    before = _snapshot(other)
    calls = tmp_path / "git-calls"
    wrapper = tmp_path / "bin" / "git"
    wrapper.parent.mkdir()
    wrapper.write_text(f'#!/bin/sh\necho "$*" >> {calls}\nexec {shutil.which("git")} "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{wrapper.parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("IREERV_CACHE", str(other))
    # No git mirror configured: offline, the upstream is out of reach.
    (tmp_path / "gitconfig").write_text("")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    empty = tmp_path / "empty-cache"
    empty.mkdir()
    proc = scons(tree, "image", "MODEL=kws", "BOARD=qemu-virt", f"CACHE_DIR={empty}",
                 "OFFLINE=yes", check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 2, out
    assert "input 'mlperf-tiny' (git https://github.com/mlcommons/tiny" in out, out
    assert f"is not in the cache {empty} and fetching is off" in out, out
    assert "Traceback" not in out
    assert _snapshot(other) == before
    assert not any(" fetch " in f" {line} " for line in
                   (calls.read_text().splitlines() if calls.exists() else [])), calls.read_text()
