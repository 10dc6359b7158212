"""A team's build cache: clones at different paths share one BUILD_CACHE (SCons's CacheDir)."""

from __future__ import annotations

import fcntl
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import require_input
from scons_helpers import SCONS, copy_project, scons

from ireerv.inputs import envvars, manifest
from ireerv.inputs.fetch import Fetcher
from ireerv.util import build_cache
from ireerv.util.files import sha256_file

pytestmark = pytest.mark.own_builds  # compares builds: each file built here

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
    manifest.write(entry, entry)  # what the machine that made it writes
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


def _entry_of(cache: Path, built: Path) -> Path:
    """The cache entry holding the same bytes as a built file."""
    data = built.read_bytes()
    found = [p for p in cache.rglob("*") if p.is_file() and p.suffix != build_cache.SUFFIX
             and p.stat().st_size == len(data) and p.read_bytes() == data]
    assert len(found) == 1, f"{built.name}: {found}"
    return found[0]


@pytest.mark.upstream
def test_corrupted_entries_are_rebuilt_never_used(tmp_path: Path, toolchain) -> None:
    """A truncated entry and one with four bytes flipped at the same size: both are reported,
    removed and rebuilt; the image equals the one first built."""
    cache, tree = tmp_path / "team-cache", copy_project(tmp_path / "ireerv")
    args = ("image", "MODEL=matmul", "BOARD=qemu-virt", "RUNTIME=none", f"BUILD_CACHE={cache}")
    scons(tree, *args)
    folder = tree / "build/qemu-virt/matmul-4-c"
    good = {name: (folder / name).read_bytes() for name in ("image.elf", "plain.o")}
    elf, obj = _entry_of(cache, folder / "image.elf"), _entry_of(cache, folder / "plain.o")
    data = bytearray(elf.read_bytes())
    data[100:104] = bytes(b ^ 0xFF for b in data[100:104])
    elf.write_bytes(bytes(data))
    obj.write_bytes(obj.read_bytes()[:200])
    shutil.rmtree(tree / "build")
    out = scons(tree, *args).stdout
    for name in ("image.elf", "plain.o"):
        assert f"build cache: entry for build/qemu-virt/matmul-4-c/{name} not used, removed: " \
               "content sha256" in out, out
        assert (folder / name).read_bytes() == good[name]
    shutil.rmtree(tree / "build")
    out = scons(tree, *args).stdout  # stored again, whole: retrieved
    assert "build cache:" not in out
    assert "Retrieved `build/qemu-virt/matmul-4-c/image.elf' from cache" in out, out


def test_entry_checks(tmp_path: Path) -> None:
    entry = tmp_path / "ab" / "abcdef"
    entry.parent.mkdir()
    entry.write_bytes(b"object")
    assert build_cache.entry_problem(entry) == "no recorded content hash"
    build_cache.record_path(entry).write_text(sha256_file(entry) + "\n")
    assert build_cache.entry_problem(entry) is None
    entry.write_bytes(b"objecT")
    assert "content sha256" in build_cache.entry_problem(entry)
    assert build_cache.discard(entry) and not entry.exists()


@pytest.mark.upstream
def test_a_second_build_in_one_checkout_waits(tmp_path: Path, toolchain) -> None:
    """While one build holds the checkout, another says so once, waits, then builds."""
    tree = copy_project(tmp_path / "ireerv")
    (tree / "build").mkdir()
    with open(tree / "build" / ".scons.lock", "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        proc = subprocess.Popen([*SCONS, "image", "MODEL=matmul", "BOARD=qemu-virt",
                                 "RUNTIME=none"], cwd=tree, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
        assert proc.stdout is not None
        said = [proc.stdout.readline() for _ in range(2)]
        assert said[-1] == "scons: another build is running in this checkout; waiting for it\n", \
            said
        assert not (tree / "build/qemu-virt").exists()  # nothing built while it waits
    rest = proc.stdout.read()
    assert proc.wait(timeout=600) == 0, rest
    assert (tree / "build/qemu-virt/matmul-4-c/image.elf").is_file()
