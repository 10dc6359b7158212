"""Fetching pinned inputs into the cache, against real servers, repositories and archives."""

from __future__ import annotations

import multiprocessing
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import needs_tool
from fetch_fixtures import (
    FileServer,
    Member,
    closed_port_url,
    commit,
    git,
    make_repo,
    make_wheel,
    set_gitlink,
    sha256,
    tar_bytes,
    tree_files,
    write_gitconfig,
    write_lock,
    zip_bytes,
)

from ireerv.inputs import archive, cache
from ireerv.inputs.fetch import FetchConfig, Fetcher, FetchError
from ireerv.inputs.fetch_common import mirror_url
from ireerv.inputs.lock import load_lock


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Keep the user's git config and the project's fetch settings out of the tests."""
    gitconfig = write_gitconfig(tmp_path / "gitconfig")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(gitconfig))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for var in ("IREERV_OFFLINE", "IREERV_MIRRORS", "IREERV_CACHE"):
        monkeypatch.delenv(var, raising=False)
    return gitconfig


@pytest.fixture
def server() -> Iterator[FileServer]:
    srv = FileServer()
    yield srv
    srv.stop()


class Log(list[str]):
    def __call__(self, msg: str) -> None:
        self.append(msg)


def fetcher(lock_path: Path, cache_root: Path, **config: object) -> Fetcher:
    config.setdefault("log", Log())
    return Fetcher(load_lock(lock_path), FetchConfig(cache_root=cache_root, **config))  # type: ignore[arg-type]


def leftovers(cache_root: Path) -> list[str]:
    """Temporary names left in the cache: there must be none after any fetch."""
    return [str(p) for p in cache_root.rglob("*.tmp-*")]


HELLO = tar_bytes(
    [
        Member("hello-1.0/", "dir", mode=0o755),
        Member("hello-1.0/README", data=b"hello\n"),
        Member("hello-1.0/bin/run", data=b"#!/bin/sh\necho hi\n", mode=0o775),
        Member("hello-1.0/bin/alias", "symlink", link="run"),
        Member("hello-1.0/bin/copy", "hardlink", link="hello-1.0/bin/run"),
    ]
)


def archive_lock(tmp_path: Path, url: str, data: bytes = HELLO, **extra: object) -> Path:
    table = {"kind": "archive", "url": url, "sha256": sha256(data), "strip": 1, **extra}
    return write_lock(tmp_path, {"hello": table})


# --- archives over HTTP ------------------------------------------------------


def test_archive_fetch_then_cache_hit_offline(tmp_path: Path, server: FileServer) -> None:
    url = server.add("/dl/hello-1.0.tar.gz", HELLO)
    lock = archive_lock(tmp_path, url)
    cache_root = tmp_path / "cache"
    tree = fetcher(lock, cache_root).path("hello")

    inp = load_lock(lock).input("hello")
    assert tree == cache_root / "src" / f"hello-{inp.key()}"
    assert tree_files(tree) == {
        "README": "0o644",
        "bin": "dir",
        "bin/run": "0o755",
        "bin/alias": "-> run",
        "bin/copy": "0o755",
    }
    assert (cache_root / "downloads" / f"hello-{inp.key()}" / "hello-1.0.tar.gz").is_file()

    # A second fetcher, offline and with the server gone, uses the cache.
    server.stop()
    again = fetcher(lock, cache_root, offline=True)
    assert again.is_cached("hello")
    assert again.path("hello") == tree
    assert server.counts[urlpath(url)] == 1
    assert leftovers(cache_root) == []


def urlpath(url: str) -> str:
    return "/" + url.split("/", 3)[3]


def test_sha256_mismatch_deletes_the_file(tmp_path: Path, server: FileServer) -> None:
    url = server.add("/hello-1.0.tar.gz", HELLO + b"changed upstream")
    lock = archive_lock(tmp_path, url)  # pins the hash of HELLO
    cache_root = tmp_path / "cache"
    with pytest.raises(FetchError) as info:
        fetcher(lock, cache_root).path("hello")
    msg = str(info.value)
    assert "input 'hello'" in msg and sha256(HELLO) in msg
    assert sha256(HELLO + b"changed upstream") in msg and "the file was deleted" in msg
    assert "update 'sha256'" in msg
    assert not (cache_root / "downloads").exists() or not any((cache_root / "downloads").iterdir())
    assert not any((cache_root / "src").iterdir())
    assert leftovers(cache_root) == []


def test_truncated_download_is_refused(tmp_path: Path, server: FileServer) -> None:
    url = server.add("/hello-1.0.tar.gz", HELLO, truncate=len(HELLO) // 2)
    lock = archive_lock(tmp_path, url)
    cache_root = tmp_path / "cache"
    with pytest.raises(
        FetchError, match=r"(?s)input 'hello'.*download failed.*IncompleteRead.*Check the URL"
    ):
        fetcher(lock, cache_root).path("hello")
    assert not any((cache_root / "downloads").iterdir())
    assert leftovers(cache_root) == []


def test_http_error_and_unreachable_host(tmp_path: Path, server: FileServer) -> None:
    lock = archive_lock(tmp_path, server.base + "/missing.tar.gz")
    with pytest.raises(FetchError, match="HTTP 404"):
        fetcher(lock, tmp_path / "cache").path("hello")
    lock = archive_lock(tmp_path, closed_port_url("/hello.tar.gz"))
    with pytest.raises(FetchError, match="download failed"):
        fetcher(lock, tmp_path / "cache").path("hello")


def test_mirror_is_tried_before_upstream(tmp_path: Path, server: FileServer) -> None:
    upstream = FileServer()
    try:
        url = upstream.add("/releases/v1/hello-1.0.tar.gz", HELLO)
        server.add("/mirror/hello-1.0.tar.gz", HELLO)
        lock = archive_lock(tmp_path, url)
        env = {"IREERV_MIRRORS": f"{closed_port_url('/down')} {server.base}/mirror/"}
        config = FetchConfig.from_env(tmp_path / "cache", environ=env, log=Log())
        assert config.mirrors[1] == f"{server.base}/mirror/"
        assert mirror_url(config.mirrors[1], url) == f"{server.base}/mirror/hello-1.0.tar.gz"
        Fetcher(load_lock(lock), config).path("hello")
        assert server.counts["/mirror/hello-1.0.tar.gz"] == 1
        assert upstream.counts["/releases/v1/hello-1.0.tar.gz"] == 0
    finally:
        upstream.stop()


def test_bad_mirror_falls_back_to_upstream(tmp_path: Path, server: FileServer) -> None:
    url = server.add("/up/hello-1.0.tar.gz", HELLO)
    server.add("/mirror/hello-1.0.tar.gz", b"stale mirror copy")
    lock = archive_lock(tmp_path, url)
    f = fetcher(lock, tmp_path / "cache", mirrors=[server.base + "/mirror"])
    assert (f.path("hello") / "README").read_text() == "hello\n"
    assert server.counts["/mirror/hello-1.0.tar.gz"] == 1
    assert server.counts["/up/hello-1.0.tar.gz"] == 1
    assert any("mirror/hello-1.0.tar.gz: got sha256" in m for m in f.config.log)


def test_offline_without_cache(tmp_path: Path, server: FileServer) -> None:
    url = server.add("/hello-1.0.tar.gz", HELLO)
    lock = archive_lock(tmp_path, url)
    config = FetchConfig.from_env(tmp_path / "cache", environ={"IREERV_OFFLINE": "1"}, log=Log())
    assert config.offline
    f = Fetcher(load_lock(lock), config)
    assert not f.is_cached("hello")
    with pytest.raises(FetchError) as info:
        f.path("hello")
    msg = str(info.value)
    assert "input 'hello'" in msg and "IREERV_OFFLINE" in msg and "scons fetch" in msg
    assert "IREERV_MIRRORS" in msg
    assert server.counts == {}


def test_offline_with_local_mirror(tmp_path: Path) -> None:
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    (mirror / "hello-1.0.tar.gz").write_bytes(HELLO)
    lock = archive_lock(tmp_path, closed_port_url("/hello-1.0.tar.gz"))
    f = fetcher(lock, tmp_path / "cache", offline=True, mirrors=[mirror.as_uri()])
    assert (f.path("hello") / "bin" / "run").is_file()


def test_damaged_download_is_fetched_again(tmp_path: Path, server: FileServer) -> None:
    url = server.add("/hello-1.0.tar.gz", HELLO)
    lock = archive_lock(tmp_path, url)
    cache_root = tmp_path / "cache"
    f = fetcher(lock, cache_root)
    tree = f.path("hello")
    (download,) = (cache_root / "downloads").glob("hello-*/hello-1.0.tar.gz")
    download.write_bytes(b"bit rot")
    cache.remove_tree(tree)
    assert (f.path("hello") / "README").is_file()
    assert server.counts["/hello-1.0.tar.gz"] == 2
    assert sha256(download.read_bytes()) == sha256(HELLO)
    assert leftovers(cache_root) == []


UNSAFE = {
    "dotdot": [Member("x/../../evil", data=b"x")],
    "absolute": [Member("/tmp/evil", data=b"x")],
    "symlink-up": [Member("x/link", "symlink", link="../../etc")],
    "symlink-absolute": [Member("x/link", "symlink", link="/etc/passwd")],
    "through-link": [Member("x/l", "symlink", link="."), Member("x/l/f", data=b"x")],
    "hardlink-out": [Member("x/h", "hardlink", link="../outside")],
    "device": [Member("x/dev", "chr")],
    "fifo": [Member("x/fifo", "fifo")],
}


@pytest.mark.parametrize("case", sorted(UNSAFE))
def test_unsafe_tar_members_are_refused(tmp_path: Path, case: str) -> None:
    path = tmp_path / "bad.tar.gz"
    path.write_bytes(tar_bytes(UNSAFE[case]))
    dest = tmp_path / "out"
    dest.mkdir()
    with pytest.raises(archive.ArchiveError, match="refusing to unpack"):
        archive.extract(path, dest)
    assert not (tmp_path / "evil").exists()
    assert not [p for p in dest.rglob("*") if p.is_file() and not p.is_symlink()]


def test_unsafe_zip_members_are_refused(tmp_path: Path) -> None:
    for name, data, mode in [
        ("../evil", b"x", 0o100644),
        ("/abs", b"x", 0o100644),
        ("a/link", b"../../x", 0o120777),
    ]:
        path = tmp_path / "bad.zip"
        path.write_bytes(zip_bytes([(name, data, mode)]))
        dest = tmp_path / f"out{len(name)}"
        dest.mkdir()
        with pytest.raises(archive.ArchiveError, match="refusing to unpack"):
            archive.extract(path, dest)


def test_zip_keeps_exec_bits_and_inner_links(tmp_path: Path) -> None:
    path = tmp_path / "tool.zip"
    entries = [
        ("pkg/", b"", 0o40755),
        ("pkg/tool", b"#!/bin/sh\n", 0o100755),
        ("pkg/data", b"d", 0o100600),
        ("pkg/link", b"tool", 0o120777),
    ]
    path.write_bytes(zip_bytes(entries))
    dest = tmp_path / "out"
    dest.mkdir()
    archive.extract(path, dest, strip=1)
    assert tree_files(dest) == {"tool": "0o755", "data": "0o644", "link": "-> tool"}


def test_unsafe_archive_through_fetcher_leaves_nothing(tmp_path: Path, server: FileServer) -> None:
    data = tar_bytes([Member("x/ok", data=b"ok"), Member("x/../../evil", data=b"x")])
    url = server.add("/bad.tar.gz", data)
    cache_root = tmp_path / "cache"
    with pytest.raises(FetchError, match=r"input 'hello': bad.tar.gz: member 'x/../../evil'"):
        fetcher(archive_lock(tmp_path, url, data), cache_root).path("hello")
    assert not any((cache_root / "src").iterdir())
    assert leftovers(cache_root) == []


# --- concurrency and interruption --------------------------------------------


def _fetch_in_child(lock: str, cache_root: str, name: str, out: multiprocessing.Queue,
                    said: multiprocessing.Queue | None = None) -> None:
    log = Log()

    def tell(line: str) -> None:  # as it happens, for a parent waiting on a line
        log(line)
        if said is not None:
            said.put(line)

    try:
        path = Fetcher(load_lock(Path(lock)), FetchConfig(Path(cache_root), log=tell)).path(name)
        out.put((str(path), list(log)))
    except Exception as e:  # reported to the parent
        out.put((f"error: {e}", list(log)))


def test_concurrent_fetches_share_one_download(tmp_path: Path, server: FileServer) -> None:
    """The second fetch waits for the first, whatever the machine's speed: the first one's
    download is held open until the second says it waits."""
    path = "/hello-1.0.tar.gz"
    lock = archive_lock(tmp_path, server.add(path, HELLO, stall_after=10, resume=True))
    cache_root = tmp_path / "cache"
    ctx = multiprocessing.get_context("fork")
    out, said = ctx.Queue(), ctx.Queue()
    procs = [ctx.Process(target=_fetch_in_child,
                         args=(str(lock), str(cache_root), "hello", out, said if n else None))
             for n in range(2)]
    procs[0].start()
    deadline = time.monotonic() + 60
    while server.counts[path] == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.counts[path] == 1, "the first fetch never started its download"
    procs[1].start()
    while "waiting for another process" not in said.get(timeout=60):
        pass
    server.release.set()
    results = [out.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(10)
    paths = {r[0] for r in results}
    assert len(paths) == 1 and not paths.pop().startswith("error"), results
    assert server.counts[path] == 1
    assert leftovers(cache_root) == []


def test_killed_fetch_leaves_nothing_trusted(tmp_path: Path, server: FileServer) -> None:
    url = server.add("/hello-1.0.tar.gz", HELLO, stall_after=10)
    lock = archive_lock(tmp_path, url)
    cache_root = tmp_path / "cache"
    ctx = multiprocessing.get_context("fork")
    proc = ctx.Process(
        target=_fetch_in_child, args=(str(lock), str(cache_root), "hello", ctx.Queue())
    )
    proc.start()
    deadline = time.monotonic() + 10
    while not leftovers(cache_root) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert leftovers(cache_root), "the child never started its download"
    os.kill(proc.pid, signal.SIGKILL)
    proc.join()
    f = fetcher(lock, cache_root)
    assert not f.is_cached("hello")

    server.files["/hello-1.0.tar.gz"].stall_after = None
    assert (f.path("hello") / "README").is_file()
    assert leftovers(cache_root) == []  # the dead process's temporary directory is gone


def test_atomic_dir(tmp_path: Path) -> None:
    final = tmp_path / "entry"
    with pytest.raises(KeyboardInterrupt):
        with cache.atomic_dir(final) as tmp:
            assert tmp is not None
            (tmp / "half").write_text("x")
            raise KeyboardInterrupt
    assert not final.exists() and leftovers(tmp_path) == []

    stale = tmp_path / ".entry.tmp-99999-dead"
    stale.mkdir()
    made = cache.ensure_dir(final, lambda d: (d / "f").write_text("ok"))
    assert made == final and (final / "f").read_text() == "ok" and not stale.exists()
    with cache.atomic_dir(final) as tmp:
        assert tmp is None  # already made: nothing to do
    cache.discard(final)
    assert not final.exists() and leftovers(tmp_path) == []


# --- git ---------------------------------------------------------------------


@pytest.fixture
def upstreams(tmp_path: Path) -> dict[str, object]:
    """A superproject with a submodule gitlink, both as local upstream repositories."""
    sub = make_repo(tmp_path / "up" / "sub.git")
    sub_old = commit(sub, {"lib.c": "int lib(void) { return 1; }\n"})
    sub_new = commit(sub, {"lib.c": "int lib(void) { return 2; }\n"})
    top = make_repo(tmp_path / "up" / "top.git")
    commit(top, {"main.c": "int main(void) { return 0; }\n", "run.sh": "#!/bin/sh\n"})
    os.chmod(top / "run.sh", 0o755)
    git(top, "add", "run.sh")
    top_commit = set_gitlink(top, "third_party/sub", sub_new)
    return {
        "sub": sub,
        "top": top,
        "sub_old": sub_old,
        "sub_new": sub_new,
        "top_commit": top_commit,
    }


def git_lock(tmp_path: Path, up: dict[str, object], base: str | None = None, **top: object) -> Path:
    base = base or (tmp_path / "up").as_uri()
    return write_lock(
        tmp_path,
        {
            "top": {
                "kind": "git",
                "url": f"{base}/top.git",
                "commit": up["top_commit"],
                "submodules": {"third_party/sub": "sub"},
                **top,
            },
            "sub": {"kind": "git", "url": f"{base}/sub.git", "commit": up["sub_new"]},
        },
    )


def test_git_fetch_with_submodule_and_patch(tmp_path: Path, upstreams: dict) -> None:
    patch = tmp_path / "patches" / "top.patch"
    patch.parent.mkdir()
    patch.write_text(
        "--- a/main.c\n+++ b/main.c\n@@ -1 +1 @@\n-int main(void) { return 0; }\n"
        "+int main(void) { return 42; }\n"
        "--- a/third_party/sub/lib.c\n+++ b/third_party/sub/lib.c\n@@ -1 +1 @@\n"
        "-int lib(void) { return 2; }\n+int lib(void) { return 3; }\n"
    )
    patches = [{"file": "patches/top.patch", "sha256": sha256(patch.read_bytes())}]
    lock = git_lock(tmp_path, upstreams, patches=patches)
    cache_root = tmp_path / "cache"
    f = fetcher(lock, cache_root)
    tree = f.path("top")
    assert tree == f.entry("top") and f.is_cached("sub")
    assert "return 42" in (tree / "main.c").read_text()
    assert "return 3" in (tree / "third_party/sub/lib.c").read_text()
    assert "return 2" in (f.path("sub") / "lib.c").read_text()  # the sub tree stays pristine
    assert os.access(tree / "run.sh", os.X_OK)
    assert not (tree / ".git").exists() and not (tree / "third_party/sub/.git").exists()
    assert any("applied patches/top.patch" in m for m in f.config.log)
    assert leftovers(cache_root) == []


def test_patch_hash_and_apply_failures(tmp_path: Path, upstreams: dict) -> None:
    patch = tmp_path / "bad.patch"
    patch.write_text("--- a/main.c\n+++ b/main.c\n@@ -1 +1 @@\n-no such line\n+x\n")
    cache_root = tmp_path / "cache"
    lock = git_lock(tmp_path, upstreams, patches=[{"file": "bad.patch", "sha256": "0" * 64}])
    with pytest.raises(FetchError, match=r"patch bad.patch has sha256 \w+, but the lock pins 0+"):
        fetcher(lock, cache_root).path("top")
    good_hash = [{"file": "bad.patch", "sha256": sha256(patch.read_bytes())}]
    lock = git_lock(tmp_path, upstreams, patches=good_hash)
    with pytest.raises(
        FetchError,
        match=r"(?s)patch bad.patch does not apply to git .*main.c: patch does not apply.*Refresh",
    ):
        fetcher(lock, cache_root).path("top")
    assert not fetcher(lock, cache_root).is_cached("top")
    assert leftovers(cache_root) == []


def test_submodule_gitlink_mismatch(tmp_path: Path, upstreams: dict) -> None:
    # Pin the submodule input to the old commit while the superproject wants the new one.
    lock = write_lock(
        tmp_path,
        {
            "top": {
                "kind": "git",
                "url": (tmp_path / "up" / "top.git").as_uri(),
                "commit": upstreams["top_commit"],
                "submodules": {"third_party/sub": "sub"},
            },
            "sub": {
                "kind": "git",
                "url": (tmp_path / "up" / "sub.git").as_uri(),
                "commit": upstreams["sub_old"],
            },
        },
    )
    f = fetcher(lock, tmp_path / "cache")
    with pytest.raises(FetchError) as info:
        f.path("top")
    msg = str(info.value)
    assert f"expects submodule 'third_party/sub' at {upstreams['sub_new']}" in msg
    assert f"input 'sub' pins {upstreams['sub_old']}" in msg
    assert not f.is_cached("top") and not f.is_cached("sub")  # checked before fetching


def test_commit_mismatch_via_moved_tag(tmp_path: Path, isolated_env: Path, upstreams: dict) -> None:
    # An old-protocol server refuses to send an unadvertised commit by id; the fetcher
    # then falls back to the tag, which has moved on: that must not pass.
    top = upstreams["top"]
    pinned = upstreams["top_commit"]
    moved = commit(top, {"main.c": "moved\n"})
    git(top, "tag", "v1")
    isolated_env.write_text(isolated_env.read_text() + "[protocol]\n\tversion = 0\n")
    lock = write_lock(
        tmp_path,
        {"top": {"kind": "git", "url": top.as_uri(), "commit": pinned, "tag": "v1"}},
    )
    with pytest.raises(FetchError) as info:
        fetcher(lock, tmp_path / "cache").path("top")
    msg = str(info.value)
    assert f"(tag v1) gave commit {moved}, but the lock pins {pinned}" in msg
    assert "update 'commit'" in msg


def test_unknown_commit(tmp_path: Path, upstreams: dict) -> None:
    url = upstreams["top"].as_uri()
    lock = write_lock(tmp_path, {"top": {"kind": "git", "url": url, "commit": "3" * 40}})
    with pytest.raises(FetchError, match=r"input 'top': cannot fetch commit 3{40} from"):
        fetcher(lock, tmp_path / "cache").path("top")
    assert leftovers(tmp_path / "cache") == []


def test_git_insteadof_mirror_and_offline(
    tmp_path: Path, isolated_env: Path, upstreams: dict
) -> None:
    # The lock names a host that does not exist; the user's git config maps it to a mirror.
    mirror = tmp_path / "mirror"
    shutil.copytree(tmp_path / "up", mirror)
    lock = git_lock(tmp_path, upstreams, base="https://git.invalid/upstream")
    cache_root = tmp_path / "cache"
    with pytest.raises(FetchError, match="input 'sub'.*git.invalid"):
        fetcher(lock, cache_root).path("sub")

    isolated_env.write_text(
        isolated_env.read_text()
        + f'[url "{mirror.as_uri()}/"]\n\tinsteadOf = https://git.invalid/upstream/\n'
    )
    # Offline still works: the mirror is local.
    tree = fetcher(lock, cache_root, offline=True).path("top")
    assert (tree / "third_party/sub/lib.c").is_file()

    other = write_lock(
        tmp_path / "up",
        {"x": {"kind": "git", "url": "https://git.invalid/x.git", "commit": "4" * 40}},
    )
    with pytest.raises(FetchError, match=r"input 'x'.*IREERV_OFFLINE.*insteadOf"):
        fetcher(other, cache_root, offline=True).path("x")


def test_git_exclude_leaves_paths_out(tmp_path: Path, isolated_env: Path) -> None:
    """Excluded top-level paths are neither fetched nor checked out."""
    # The server side must allow filtered fetches (set here, in the test's own config).
    isolated_env.write_text(isolated_env.read_text() + "[uploadpack]\n\tallowFilter = true\n")
    up = make_repo(tmp_path / "up" / "big.git")
    head = commit(
        up,
        {
            "README": "read me\n",
            "src/main.c": "int main(void) { return 0; }\n",
            "tests/huge/data.bin": "x" * 10000,
            "tests/small.txt": "s\n",
            "blob.dat": "a top-level file\n",
            "testsuite/keep.txt": "a name that starts like an excluded one\n",
        },
    )
    # Like a mirror that lacks the big files: without the filter this fetch would fail.
    blob = git(up, "rev-parse", "HEAD:tests/huge/data.bin")
    (up / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    table = {"kind": "git", "url": up.as_uri(), "commit": head}
    lock = write_lock(tmp_path, {"big": {**table, "exclude": ["tests", "blob.dat"]}})
    cache_root = tmp_path / "cache"
    key = load_lock(lock).input("big").key()
    tree = fetcher(lock, cache_root).path("big")
    assert tree_files(tree) == {
        "README": "0o644",
        "src": "dir",
        "src/main.c": "0o644",
        "testsuite": "dir",
        "testsuite/keep.txt": "0o644",
    }
    assert leftovers(cache_root) == []

    # The exclusion is part of the pin; the whole tree (here unfetchable) has another key.
    whole = write_lock(tmp_path, {"big": table})
    assert load_lock(whole).input("big").key() != key
    with pytest.raises(FetchError, match=r"input 'big': cannot fetch commit"):
        fetcher(whole, cache_root).path("big")

    typo = write_lock(tmp_path, {"big": {**table, "exclude": ["tests", "test"]}})
    with pytest.raises(FetchError, match=r"'exclude' names 'test', but commit \w+ has no such"):
        fetcher(typo, cache_root).path("big")
    assert leftovers(cache_root) == []


def test_git_include_fetches_only_those_paths(tmp_path: Path, isolated_env: Path) -> None:
    """An input that names its paths gets those alone: files or folders, nested."""
    isolated_env.write_text(isolated_env.read_text() + "[uploadpack]\n\tallowFilter = true\n")
    up = make_repo(tmp_path / "up" / "models.git")
    head = commit(up, {"README": "r\n", "a/models/one.bin": "1" * 5000, "a/models/two.bin": "2\n",
                       "a/code.py": "x = 1\n", "b/big.bin": "b" * 10000})
    blob = git(up, "rev-parse", "HEAD:b/big.bin")  # a mirror without it still serves the rest
    (up / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    table = {"kind": "git", "url": up.as_uri(), "commit": head}
    lock = write_lock(tmp_path, {"m": {**table, "include": ["a/models/one.bin", "a/code.py"]}})
    cache_root = tmp_path / "cache"
    tree = fetcher(lock, cache_root).path("m")
    assert tree_files(tree) == {"a": "dir", "a/models": "dir", "a/models/one.bin": "0o644",
                                "a/code.py": "0o644"}
    typo = write_lock(tmp_path, {"m": {**table, "include": ["a/models/three.bin"]}})
    with pytest.raises(FetchError, match=r"'include' names 'a/models/three.bin', but commit "
                                         r"\w+ has no such path"):
        fetcher(typo, cache_root).path("m")
    assert leftovers(cache_root) == []


# --- Debian packages and wheels ------------------------------------------------


def build_deb(tmp_path: Path) -> Path:
    root = tmp_path / "pkgroot"
    (root / "DEBIAN").mkdir(parents=True)
    (root / "DEBIAN" / "control").write_text(
        "Package: tiny-tool\nVersion: 1.0\nArchitecture: all\n"
        "Maintainer: Test <test@example.com>\nDescription: test package\n"
    )
    (root / "usr/bin").mkdir(parents=True)
    (root / "usr/lib").mkdir(parents=True)
    tool = root / "usr/bin/tiny"
    tool.write_text("#!/bin/sh\necho tiny\n")
    tool.chmod(0o755)
    os.link(tool, root / "usr/bin/tiny2")
    (root / "usr/lib/libtiny.so.1").write_text("lib")
    (root / "usr/lib/libtiny.so").symlink_to("libtiny.so.1")
    deb = tmp_path / "tiny-tool_1.0_all.deb"
    subprocess.run(
        ["dpkg-deb", "--root-owner-group", "-Zxz", "-b", str(root), str(deb)],
        check=True,
        capture_output=True,
    )
    return deb


needs_dpkg = needs_tool("dpkg-deb", "dpkg")


@needs_dpkg
def test_deb_unpacks_like_dpkg(tmp_path: Path) -> None:
    deb = build_deb(tmp_path)
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    ours.mkdir()
    archive.extract(deb, ours)
    subprocess.run(["dpkg-deb", "-x", str(deb), str(theirs)], check=True)
    assert tree_files(ours) == tree_files(theirs)
    assert tree_files(ours)["usr/lib/libtiny.so"] == "-> libtiny.so.1"
    assert os.access(ours / "usr/bin/tiny2", os.X_OK)


@needs_dpkg
def test_toolchain_tree_from_copied_cache_offline(tmp_path: Path, server: FileServer) -> None:
    """Toolchain inputs merge into one tree; a copied download cache works offline."""
    deb = build_deb(tmp_path)
    libc = tar_bytes([Member("sysroot/lib/libc.a", data=b"!<arch>\n")])
    gcc = tar_bytes([Member("tc/usr/bin/tiny-gcc", data=b"#!/bin/sh\n", mode=0o755)])
    urls = [server.add("/libc.tar.xz", libc), server.add("/gcc.tar.gz", gcc)]
    inputs = {
        "tools": {
            "kind": "deb",
            "package": "tiny-tool",
            "version": "1.0",
            "sha256": sha256(deb.read_bytes()),
        },
        "libc": {"kind": "archive", "url": urls[0], "sha256": sha256(libc)},
        "gcc": {"kind": "archive", "url": urls[1], "sha256": sha256(gcc), "strip": 1},
    }
    spec = {"inputs": ["tools", "libc", "gcc"], "bin": "usr/bin", "prefix": "tiny-",
            "libc": "picolibc", "libc_prefix": "sysroot"}  # fmt: skip
    lock = write_lock(tmp_path, inputs, spec)
    cache_root = tmp_path / "cache"
    key = load_lock(lock).input("tools").key()
    seeded = cache_root / "downloads" / f"tools-{key}"
    seeded.mkdir(parents=True)
    shutil.copy(deb, seeded)

    f = fetcher(lock, cache_root)
    tc = f.toolchain()
    assert tc.root == f.entry("toolchain") and tc.bin_dir == tc.root / "usr/bin"
    assert tc.tool("gcc") == tc.root / "usr/bin/tiny-gcc"
    assert tc.libc_prefix == tc.root / "sysroot" and tc.prefix == "tiny-"
    assert (tc.root / "usr/bin/tiny").is_file() and (tc.root / "sysroot/lib/libc.a").is_file()

    server.stop()
    offline = fetcher(lock, cache_root, offline=True)
    assert offline.toolchain() == tc
    assert offline.fetch_all() == {
        "toolchain": tc.root,
        "tools": tc.root,
        "libc": tc.root,
        "gcc": tc.root,
    }
    cache.remove_tree(tc.root)  # unpacked again from the cached downloads, offline
    assert offline.toolchain().tool("gcc").is_file()
    # A toolchain input's own tree is unpacked from its cached download too.
    assert not offline.is_cached("libc")
    assert (offline.path("libc") / "sysroot/lib/libc.a").is_file()


def test_toolchain_without_compiler_or_with_overlap(tmp_path: Path, server: FileServer) -> None:
    a = tar_bytes([Member("bin/x-gcc", data=b"a", mode=0o755)])
    b = tar_bytes([Member("bin/x-gcc", data=b"b", mode=0o755)])
    inputs = {
        "a": {"kind": "archive", "url": server.add("/a.tar.gz", a), "sha256": sha256(a)},
        "b": {"kind": "archive", "url": server.add("/b.tar.gz", b), "sha256": sha256(b)},
    }
    spec = {"inputs": ["a", "b"], "bin": "bin", "prefix": "x-", "libc": "none"}
    with pytest.raises(FetchError, match=r"member 'bin/x-gcc' overlaps a file of another input"):
        fetcher(write_lock(tmp_path, inputs, spec), tmp_path / "cache").toolchain()
    spec = {"inputs": ["a"], "bin": "usr/bin", "prefix": "x-", "libc": "none"}
    with pytest.raises(FetchError, match=r"toolchain tree has no usr/bin/x-gcc"):
        fetcher(write_lock(tmp_path, inputs, spec), tmp_path / "cache").toolchain()
    assert leftovers(tmp_path / "cache") == []


def test_wheel_through_pip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    index = tmp_path / "index"
    index.mkdir()
    wheel = make_wheel(
        index,
        "tinywheel",
        "1.0",
        {"tinywheel/__init__.py": (b"", 0o644), "tinywheel/bin/tool": (b"#!/bin/sh\n", 0o755)},
    )
    monkeypatch.setenv("PIP_NO_INDEX", "1")  # pip reads only the local directory
    monkeypatch.setenv("PIP_FIND_LINKS", str(index))
    table = {"kind": "wheel", "package": "tinywheel", "version": "1.0"}
    other = {"tinywheel-1.0-cp311-cp311-win_amd64.whl": "0" * 64}
    cache_root = tmp_path / "cache"
    lock = write_lock(tmp_path, {"w": {**table, "files": other}})
    with pytest.raises(FetchError) as info:
        fetcher(lock, cache_root).path("w")
    msg = str(info.value)
    assert f"no pinned hash for this platform's wheel {wheel.name}" in msg
    assert sha256(wheel.read_bytes()) in msg and "add it to 'files'" in msg

    lock = write_lock(
        tmp_path, {"w": {**table, "files": {**other, wheel.name: sha256(wheel.read_bytes())}}}
    )
    tree = fetcher(lock, cache_root).path("w")
    assert os.access(tree / "tinywheel/bin/tool", os.X_OK)
    assert not os.access(tree / "tinywheel/__init__.py", os.X_OK)
    assert (tree / "tinywheel-1.0.dist-info/METADATA").is_file()
    assert leftovers(cache_root) == []


@pytest.mark.network
@pytest.mark.skipif(
    os.environ.get("IREERV_OFFLINE", "") not in ("", "0") or shutil.which("apt-get") is None,
    reason="needs apt-get and a reachable Debian archive (IREERV_OFFLINE is set or no apt-get)",
)
def test_real_apt_download(tmp_path: Path) -> None:
    show = subprocess.run(
        ["apt-cache", "show", "--no-all-versions", "netbase"], capture_output=True, text=True
    )
    fields = dict(
        line.split(": ", 1) for line in show.stdout.splitlines() if ": " in line and line[0] != " "
    )
    if show.returncode != 0 or "SHA256" not in fields:
        pytest.skip("apt knows no 'netbase' package here (run apt-get update)")
    deb = {"kind": "deb", "package": "netbase", "version": fields["Version"]}
    lock = write_lock(tmp_path, {"netbase": {**deb, "sha256": fields["SHA256"]}})
    f = fetcher(lock, tmp_path / "cache")
    try:
        tree = f.path("netbase")
    except FetchError as e:
        if "failed" in str(e) and ("Could not resolve" in str(e) or "Unable to fetch" in str(e)):
            pytest.skip(f"the Debian archive is unreachable: {e}")
        raise
    assert (tree / "etc" / "protocols").is_file()

    bad = write_lock(tmp_path, {"netbase": {**deb, "sha256": "0" * 64}})
    with pytest.raises(
        FetchError, match=r"has sha256 \w+, but the lock pins 0+; the file was deleted"
    ):
        fetcher(bad, tmp_path / "cache2").path("netbase")
    assert not list((tmp_path / "cache2").rglob("*.deb"))


def test_fetch_all_reports_every_failure(tmp_path: Path, server: FileServer) -> None:
    good = server.add("/hello-1.0.tar.gz", HELLO)
    inputs = {
        "hello": {"kind": "archive", "url": good, "sha256": sha256(HELLO), "strip": 1},
        "gone": {"kind": "archive", "url": server.base + "/gone.tar.gz", "sha256": "1" * 64},
    }
    f = fetcher(write_lock(tmp_path, inputs), tmp_path / "cache")
    with pytest.raises(FetchError) as info:
        f.fetch_all()
    msg = str(info.value)
    assert msg.startswith("2 input(s) could not be fetched")  # 'gone' and the dummy toolchain
    assert "input 'gone'" in msg and "input 'dummy-tc'" in msg
    assert f.is_cached("hello")
