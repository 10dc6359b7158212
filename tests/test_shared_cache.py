"""Cache entries checked against their manifests: another machine's (SHARED_CACHE) and ours.

The upstreams are real git repositories fetched by file:// URL; a cache filled by one
Fetcher plays another machine's CACHE_DIR.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from fetch_fixtures import commit, make_repo, write_gitconfig, write_lock

from ireerv.inputs import manifest
from ireerv.inputs.fetch import FetchConfig, Fetcher, FetchError
from ireerv.inputs.lock import load_lock


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(write_gitconfig(tmp_path / "gitconfig")))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for var in ("IREERV_OFFLINE", "IREERV_MIRRORS", "IREERV_CACHE", "IREERV_SHARED_CACHE"):
        monkeypatch.delenv(var, raising=False)


class Log(list[str]):
    def __call__(self, msg: str) -> None:
        self.append(msg)


@pytest.fixture
def lock(tmp_path: Path) -> Path:
    """Two git inputs, each with a source file, a script and a symlink."""
    inputs = {}
    for name in ("one", "two"):
        repo = make_repo(tmp_path / "up" / f"{name}.git")
        (repo / "link").symlink_to("main.c")
        files = {"main.c": f"int {name}(void) {{ return 1; }}\n", "run.sh": "#!/bin/sh\n"}
        sha = commit(repo, files)
        inputs[name] = {"kind": "git", "url": repo.as_uri(), "commit": sha}
    return write_lock(tmp_path, inputs)


def fetcher(lock: Path, root: Path, **config: object) -> Fetcher:
    return Fetcher(load_lock(lock), FetchConfig(cache_root=root, log=Log(), **config))  # type: ignore[arg-type]


def their_cache(tmp_path: Path, lock: Path) -> tuple[Path, dict[str, Path]]:
    """A cache filled by another machine: both inputs fetched, each with its manifest."""
    theirs = fetcher(lock, tmp_path / "theirs")
    entries = {name: theirs.path(name) for name in ("one", "two")}
    for entry in entries.values():
        assert manifest.manifest_path(entry).is_file()
    return tmp_path / "theirs", entries


def test_tampered_shared_entry_is_reported_and_fetched_locally(tmp_path: Path, lock: Path) -> None:
    shared, entries = their_cache(tmp_path, lock)
    with (entries["one"] / "main.c").open("a") as f:
        f.write("int injected;\n")
    ours = fetcher(lock, tmp_path / "ours", shared_root=shared)
    assert ours.path("two") == entries["two"]  # untampered: used in place
    one = ours.path("one")
    assert one == ours.entry("one") and one.is_relative_to(tmp_path / "ours")
    assert "injected" not in (one / "main.c").read_text()
    assert f"shared cache: {entries['one']} not used: main.c differs from its manifest; " \
           f"making it in {tmp_path / 'ours'} instead" in ours.config.log


def test_tampered_shared_entry_offline_stops(tmp_path: Path, lock: Path) -> None:
    shared, entries = their_cache(tmp_path, lock)
    (entries["one"] / "extra.h").write_text("#define X 1\n")
    remote = tmp_path / "remote" / "toolchain.lock"  # the same pins, fetched from a server
    remote.parent.mkdir()
    remote.write_text(lock.read_text().replace((tmp_path / "up").as_uri(), "https://example.invalid"))
    ours = fetcher(remote, tmp_path / "ours", shared_root=shared, offline=True)
    with pytest.raises(FetchError, match="input 'one' .* is not in the cache .* fetching is off"):
        ours.path("one")
    assert f"shared cache: {entries['one']} not used: extra.h is not in its manifest; " \
           f"making it in {tmp_path / 'ours'} instead" in ours.config.log


def test_shared_entry_without_manifest_is_not_used(tmp_path: Path, lock: Path) -> None:
    shared, entries = their_cache(tmp_path, lock)
    manifest.manifest_path(entries["two"]).unlink()
    ours = fetcher(lock, tmp_path / "ours", shared_root=shared)
    assert ours.path("two") == ours.entry("two")
    assert any(f"{entries['two']} not used: it has no manifest" in m for m in ours.config.log)


def test_same_size_and_mtime_edit_is_caught_after_a_stamp(tmp_path: Path, lock: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A second check of an unchanged entry does not hash it; an edit that keeps the size and
    sets the mtime back still changes the ctime, so it is hashed and caught."""
    shared, entries = their_cache(tmp_path, lock)
    assert fetcher(lock, tmp_path / "ours", shared_root=shared).path("one") == entries["one"]
    hashed: list[Path] = []
    original = manifest.first_difference
    monkeypatch.setattr(manifest, "first_difference",
                        lambda entry, recorded: hashed.append(entry) or original(entry, recorded))
    assert fetcher(lock, tmp_path / "ours", shared_root=shared).path("one") == entries["one"]
    assert hashed == []
    source = entries["one"] / "main.c"
    st = source.stat()
    source.write_text(source.read_text().replace("return 1", "return 7"))
    os.utime(source, ns=(st.st_atime_ns, st.st_mtime_ns))
    ours = fetcher(lock, tmp_path / "ours", shared_root=shared)
    assert ours.path("one") == ours.entry("one") and hashed == [entries["one"]]


def test_local_entries_adopted_then_checked(tmp_path: Path, lock: Path) -> None:
    """A local entry made before manifests gets one on first use; a damaged one is made again."""
    root = tmp_path / "ours"
    entry = fetcher(lock, root).path("one")
    manifest.manifest_path(entry).unlink()
    again = fetcher(lock, root)
    assert again.path("one") == entry and manifest.manifest_path(entry).is_file()
    assert f"cache: recording the manifest of {entry}" in again.config.log
    os.chmod(entry / "main.c", 0o755)
    third = fetcher(lock, root)
    assert third.path("one") == entry
    assert f"cache: {entry} not used: main.c differs from its manifest; making it again" \
           in third.config.log
    assert not os.access(entry / "main.c", os.X_OK)


def test_link_targets_and_modes_are_recorded(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a").write_text("a")
    (tree / "l").symlink_to("a")
    (tree / "__pycache__").mkdir()  # Python's own caches are left out
    manifest.write(tree, tree)
    recorded = manifest._read(tree)
    assert not isinstance(recorded, str)
    assert set(recorded[1]) == {"a", "l"} and recorded[1]["l"] == "link a"
    (tree / "l").unlink()
    (tree / "l").symlink_to("/etc/passwd")
    assert manifest.first_difference(tree, recorded[1]) == "l differs from its manifest"
    (tree / "l").unlink()
    assert manifest.first_difference(tree, recorded[1]) == "l is missing"
