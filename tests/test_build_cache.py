"""A team's build cache: clones at different paths share one BUILD_CACHE (SCons's CacheDir)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import require_input
from scons_helpers import copy_project, scons

from ireerv.inputs import envvars
from ireerv.inputs.fetch import Fetcher

OUTPUTS = ("image.elf", "image.hex", "image.map", "image.dis")
ARGS = ("image", "MODEL=matmul", "BOARD=qemu-virt", "SIZE=4")


@pytest.mark.upstream
def test_a_second_clone_retrieves_everything(tmp_path: Path, fetcher: Fetcher,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("iree", "flatcc", "iree-compiler"):
        require_input(fetcher, name)
    cache = tmp_path / "team-cache"
    first = copy_project(tmp_path / "alice" / "ireerv")
    second = copy_project(tmp_path / "bob" / "work" / "ireerv")
    scons(first, *ARGS, f"BUILD_CACHE={cache}")
    monkeypatch.setenv(envvars.BUILD_CACHE, str(cache))  # the environment variable as well
    out = scons(second, *ARGS).stdout
    built = [line for line in out.splitlines()
             if line.split(" ", 1)[0] in ("CC", "AS", "AR", "LINK", "RUNTIME", "IREE", "HEX")]
    assert built == [], "the second clone built instead of retrieving:\n" + "\n".join(built)
    retrieved = [line for line in out.splitlines() if line.startswith("Retrieved")]
    assert any("image.elf" in line for line in retrieved) and len(retrieved) > 10, out
    for name in OUTPUTS:
        ours = first / "build/qemu-virt/matmul-4" / name
        theirs = second / "build/qemu-virt/matmul-4" / name
        assert ours.read_bytes() == theirs.read_bytes(), f"{name} differs between the clones"


def test_build_cache_variables_are_checked(tmp_path: Path) -> None:
    env = {envvars.BUILD_CACHE: str(tmp_path / "b"), envvars.SHARED_CACHE: " "}
    assert envvars.build_cache(env) == str(tmp_path / "b")
    assert envvars.shared_cache(env) == ""
    (tmp_path / "file").write_text("")
    with pytest.raises(envvars.EnvVarError, match="BUILD_CACHE=.* is not a writable directory"):
        envvars.check_build_cache(tmp_path / "file" / "x")
    with pytest.raises(envvars.EnvVarError, match="SHARED_CACHE=.* is not a directory"):
        envvars.check_shared_cache(tmp_path / "missing")


def test_shared_cache_entries_are_used_in_place(tmp_path: Path, lock) -> None:
    """A read-only shared cache: its entries are read where they are, nothing is fetched."""
    from ireerv.inputs.fetch import FetchConfig, FetchError

    shared, local = tmp_path / "shared", tmp_path / "local"
    config = FetchConfig(cache_root=local, offline=True, shared_root=shared, log=lambda _: None)
    fetcher = Fetcher(lock, config)
    entry = shared / fetcher.entry("flatcc").relative_to(local)
    entry.mkdir(parents=True)
    shared.chmod(0o555)
    try:
        assert fetcher.path("flatcc") == entry
        try:  # missing there: fetched into the local cache (or refused offline)
            assert fetcher.path("cv32e40p").is_relative_to(local)
        except FetchError as err:
            assert "offline" in str(err).lower()
    finally:
        shared.chmod(0o755)
    assert not any(shared.rglob("*.lock"))
