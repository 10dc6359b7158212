"""Fetching and verifying the inputs pinned in toolchain.lock into the cache.

Cache layout under the cache root:
    downloads/<name>-<key>/<file>   verified archive, .deb or wheel files
    src/<name>-<key>/               unpacked trees (git checkouts without .git)
    src/toolchain-<key>/            all toolchain inputs unpacked into one tree
    tools/                          tools built from the sources (made by others)
    locks/                          fcntl lock files
Every entry is made under a temporary name and renamed when complete, so an entry
that exists is trusted and an interrupted fetch leaves nothing behind.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import re
import shutil
import subprocess
import sys
import sysconfig
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

from ireerv.inputs import archive, cache, pin_checks
from ireerv.inputs.envvars import MIRRORS as MIRRORS_ENV
from ireerv.inputs.envvars import OFFLINE as OFFLINE_ENV
from ireerv.inputs.lock import TOOLCHAIN, Input, Lock
from ireerv.inputs.toolchain import Toolchain
from ireerv.util.files import sha256_file

_TIMEOUT = (15, 60)  # seconds: connect, between bytes
_CHUNK = 1 << 20
# Variables that would point git at another repository than the one we create.
_GIT_ENV_DROP = (
    "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE", "GIT_PREFIX",
)  # fmt: skip


class FetchError(Exception):
    """An input could not be fetched or did not match its pin."""


@dataclass
class FetchConfig:
    cache_root: Path
    offline: bool = False
    # Base URLs tried in order before an archive's upstream URL.
    mirrors: list[str] = field(default_factory=list)
    log: Callable[[str], None] = print
    verbose: bool = False

    @classmethod
    def from_env(
        cls, cache_root: Path | None = None, environ: dict[str, str] | None = None, **kw: object
    ) -> FetchConfig:
        """Config from IREERV_CACHE, IREERV_OFFLINE and IREERV_MIRRORS; keyword arguments win."""
        from ireerv.inputs import envvars

        try:
            offline, mirrors = envvars.offline(environ), envvars.mirrors(environ)
            root = Path(cache_root) if cache_root else envvars.cache_dir(environ)
        except envvars.EnvVarError as err:
            raise FetchError(str(err)) from None
        values: dict[str, object] = {"offline": offline, "mirrors": mirrors, **kw}
        return cls(cache_root=root, **values)  # type: ignore[arg-type]


def mirror_url(base: str, url: str) -> str:
    """Where a mirror keeps the file of `url`: the base plus the upstream file name."""
    return base.rstrip("/") + "/" + posixpath.basename(urlsplit(url).path)


def _is_local(url: str) -> bool:
    return url.startswith(("file://", "/"))


def _wheel_platform() -> str:
    # A cache shared between machines must not hand one platform's wheel to another.
    tag = f"{sysconfig.get_platform()}-{sys.implementation.cache_tag}"
    return re.sub(r"[^A-Za-z0-9.]+", "_", tag)


class _SourceError(Exception):
    """One download source failed; the next one is tried."""


class Fetcher:
    def __init__(self, lock: Lock, config: FetchConfig) -> None:
        self.lock = lock
        self.config = config
        self.root = Path(config.cache_root)
        self._session = None

    # --- cache layout -------------------------------------------------------

    def entry(self, name: str) -> Path:
        """The cache directory of an input's tree (or of the toolchain tree), fetched or not."""
        if name == TOOLCHAIN:
            return self.root / "src" / f"{TOOLCHAIN}-{self.lock.toolchain_key()}"
        inp = self.lock.input(name)
        suffix = f"-{_wheel_platform()}" if inp.kind == "wheel" else ""
        return self.root / "src" / f"{name}-{inp.key()}{suffix}"

    def _download_dir(self, inp: Input) -> Path:
        suffix = f"-{_wheel_platform()}" if inp.kind == "wheel" else ""
        return self.root / "downloads" / f"{inp.name}-{inp.key()}{suffix}"

    def _ensure(self, final: Path, make: Callable[[Path], None], what: str) -> Path:
        def wait() -> None:
            self.config.log(f"waiting for another process to fetch {what}")

        return cache.ensure_dir(final, make, lock_dir=self.root / "locks", on_wait=wait)

    # --- public API ---------------------------------------------------------

    def is_cached(self, name: str) -> bool:
        return self.entry(name).is_dir()

    def path(self, name: str) -> Path:
        """The unpacked tree of an input, fetched and verified first if not cached."""
        if name == TOOLCHAIN:
            return self.toolchain().root
        inp = self.lock.input(name)
        final = self.entry(name)
        if final.is_dir():
            return final
        return self._ensure(final, lambda tmp: self._make_tree(inp, tmp), name)

    def toolchain(self) -> Toolchain:
        """All toolchain inputs unpacked into one tree, keyed by their combined pins."""
        spec = self.lock.toolchain
        final = self.entry(TOOLCHAIN)

        def make(tmp: Path) -> None:
            start = time.monotonic()
            self.config.log(f"unpacking toolchain ({', '.join(spec.inputs)})")
            for name in spec.inputs:
                inp = self.lock.input(name)
                file = self._download(inp)
                if problem := pin_checks.deb_version_problem(inp, file, self.lock.path):
                    raise FetchError(problem)
                self._unpack(inp, file, tmp, merge=True)
                self._apply_patches(inp, tmp)
            self._check_toolchain(tmp)
            self.config.log(f"unpacked toolchain in {time.monotonic() - start:.1f} s")

        if not final.is_dir():
            self._ensure(final, make, "the toolchain")
        self._check_toolchain(final)
        return Toolchain(
            root=final,
            bin_dir=final / spec.bin,
            prefix=spec.prefix,
            libc=spec.libc,
            libc_prefix=final / spec.libc_prefix if spec.libc_prefix else None,
        )

    def fetch_all(self) -> dict[str, Path]:
        """Fetch everything in the lock; toolchain inputs map to the combined toolchain tree.

        Failures do not stop the others; they are reported together at the end.
        """
        result: dict[str, Path] = {}
        failures: list[str] = []
        toolchain_inputs = set(self.lock.toolchain.inputs)
        for name in self.lock.inputs:
            if name in toolchain_inputs:
                continue
            try:
                result[name] = self.path(name)
            except FetchError as e:
                failures.append(str(e))
        try:
            root = self.toolchain().root
            result[TOOLCHAIN] = root
            result.update(dict.fromkeys(self.lock.toolchain.inputs, root))
        except FetchError as e:
            failures.append(str(e))
        if failures:
            head = f"{len(failures)} input(s) could not be fetched:\n\n"
            raise FetchError(head + "\n\n".join(failures))
        return result

    # --- trees --------------------------------------------------------------

    def _make_tree(self, inp: Input, tmp: Path) -> None:
        start = time.monotonic()
        self.config.log(f"fetching {inp.name}: {_describe(inp)}")
        if inp.kind == "git":
            self._git_tree(inp, tmp)
        else:
            self._unpack(inp, self._download(inp), tmp, merge=False)
        self._apply_patches(inp, tmp)
        self.config.log(f"fetched {inp.name} in {time.monotonic() - start:.1f} s")

    def _unpack(self, inp: Input, file: Path, dest: Path, merge: bool) -> None:
        try:
            archive.extract(file, dest, strip=inp.strip, merge=merge)
        except archive.ArchiveError as e:
            raise FetchError(f"input '{inp.name}': {e}") from e

    def _check_toolchain(self, root: Path) -> None:
        spec = self.lock.toolchain
        gcc = root / spec.bin / f"{spec.prefix}gcc"
        if not gcc.is_file():
            raise FetchError(
                f"the toolchain tree has no {spec.bin}/{spec.prefix}gcc; check 'bin' and 'prefix' "
                f"in [toolchain] of {self.lock.path} against the unpacked inputs "
                f"({', '.join(spec.inputs)})"
            )

    def _apply_patches(self, inp: Input, tree: Path) -> None:
        for patch in inp.patches:
            file = self.lock.path.parent / patch.file
            if not file.is_file():
                raise FetchError(f"input '{inp.name}': patch {file} not found")
            actual = sha256_file(file)
            if actual != patch.sha256:
                raise FetchError(
                    f"input '{inp.name}': patch {patch.file} has sha256 {actual}, but the lock "
                    f"pins {patch.sha256}; if the patch was changed on purpose, update its sha256 "
                    f"in {self.lock.path}"
                )
            # The tree has no .git; the ceiling keeps git from applying relative to an
            # enclosing repository.
            env = {**_git_env(), "GIT_CEILING_DIRECTORIES": str(tree.parent)}
            proc = subprocess.run(
                ["git", "apply", "--whitespace=nowarn", str(file)],
                cwd=tree, env=env, capture_output=True, text=True,
            )  # fmt: skip
            if proc.returncode != 0:
                raise FetchError(
                    f"input '{inp.name}': patch {patch.file} does not apply to {_describe(inp)}:\n"
                    f"{proc.stderr.strip()}\nRefresh the patch against the pinned version."
                )
            self.config.log(f"applied {patch.file} to {inp.name}")

    # --- git ----------------------------------------------------------------

    def _git(self, inp: Input, cwd: Path, *args: str, stream: bool = False) -> str:
        cmd = [
            "git", "-c", "advice.detachedHead=false", "-c", "init.defaultBranch=main",
            "-c", "core.autocrlf=false", "-c", "core.symlinks=true", "-c", "gc.auto=0", *args,
        ]  # fmt: skip
        if stream and self.config.verbose:
            proc = subprocess.run(cmd, cwd=cwd, env=_git_env(), stdout=subprocess.PIPE, text=True)
            err = ""
        else:
            proc = subprocess.run(cmd, cwd=cwd, env=_git_env(), capture_output=True, text=True)
            err = proc.stderr.strip()
        if proc.returncode != 0:
            raise _SourceError(f"`git {' '.join(args)}` failed" + (f":\n{err}" if err else ""))
        return proc.stdout.strip()

    def _git_tree(self, inp: Input, tmp: Path) -> None:
        assert inp.url and inp.commit
        if self.config.offline:
            # A URL the user maps onto a local mirror (url.<base>.insteadOf) needs no network.
            resolved = self._git(inp, tmp, "ls-remote", "--get-url", inp.url)
            if not _is_local(resolved):
                hint = "a local git mirror (git config url.<mirror>.insteadOf <url prefix>)"
                raise self._offline_error(inp, hint)
        try:
            self._git(inp, tmp, "init", "-q")
            fetch = ["fetch", "--depth", "1", "--no-tags"]
            source = inp.url
            if inp.exclude:
                # A blobless fetch: the checkout then fetches only the blobs it writes, so
                # excluded paths are never downloaded (a mirror may even lack them). The
                # lazy fetch needs a named remote.
                self._git(inp, tmp, "remote", "add", "origin", inp.url)
                fetch.append("--filter=blob:none")
                source = "origin"
            via = ""
            try:
                self._git(inp, tmp, *fetch, source, inp.commit, stream=True)
            except _SourceError as by_id:
                if not inp.tag:
                    raise
                # Some servers refuse to fetch a commit by id; the tag then names it.
                self.config.log(f"{inp.name}: fetching by commit id failed; trying tag {inp.tag}")
                try:
                    self._git(inp, tmp, *fetch, source, f"refs/tags/{inp.tag}", stream=True)
                except _SourceError as by_tag:
                    raise _SourceError(f"{by_id}\n{by_tag}") from None
                via = f" (tag {inp.tag})"
            if inp.exclude:
                # No trailing '/': a pattern then leaves out a file as well as a directory.
                patterns = ["/*", *(f"!/{path}" for path in inp.exclude)]
                self._git(inp, tmp, "sparse-checkout", "set", "--no-cone", *patterns)
            self._git(inp, tmp, "checkout", "-q", "--detach", "FETCH_HEAD^{commit}")
            head = self._git(inp, tmp, "rev-parse", "HEAD")
        except _SourceError as e:
            raise FetchError(
                f"input '{inp.name}': cannot fetch commit {inp.commit} from {inp.url}: {e}\n"
                + pin_checks.git_advice(inp, str(e))
            ) from None
        if head != inp.commit:
            raise FetchError(
                f"input '{inp.name}': {inp.url}{via} gave commit {head}, but the lock pins "
                f"{inp.commit}. If upstream moved on purpose, review the change and update "
                f"'commit' in {self.lock.path}."
            )
        self._check_excluded(inp, tmp)
        self._fill_submodules(inp, tmp)
        cache.remove_tree(tmp / ".git")

    def _check_excluded(self, inp: Input, tmp: Path) -> None:
        # A name the commit lacks is most likely a typo in the lock.
        for path in inp.exclude:
            try:
                out = self._git(inp, tmp, "ls-tree", "HEAD", "--", path)
            except _SourceError as e:
                raise FetchError(f"input '{inp.name}': {e}") from None
            if not out:
                raise FetchError(
                    f"input '{inp.name}': 'exclude' names '{path}', but commit {inp.commit} has "
                    f"no such top-level path; fix 'exclude' in [inputs.{inp.name}] of "
                    f"{self.lock.path}"
                )
            if (tmp / path).exists() or (tmp / path).is_symlink():
                raise FetchError(f"input '{inp.name}': the excluded '{path}' was checked out")

    def _fill_submodules(self, inp: Input, tmp: Path) -> None:
        # Check every gitlink first, so a mismatch fails before anything is fetched.
        for sub_path, sub_name in sorted(inp.submodules.items()):
            sub = self.lock.input(sub_name)
            try:
                out = self._git(inp, tmp, "ls-tree", "HEAD", "--", sub_path)
            except _SourceError as e:
                raise FetchError(f"input '{inp.name}': {e}") from None
            if not out:
                raise FetchError(
                    f"input '{inp.name}': commit {inp.commit} has nothing at submodule path "
                    f"'{sub_path}'"
                )
            _mode, kind, gitlink = out.split("\t")[0].split()
            if kind != "commit":
                raise FetchError(
                    f"input '{inp.name}': '{sub_path}' is a {kind} at {inp.commit}, not a submodule"
                )
            if gitlink != sub.commit:
                raise FetchError(
                    f"input '{inp.name}': commit {inp.commit} expects submodule '{sub_path}' at "
                    f"{gitlink}, but input '{sub_name}' pins {sub.commit}. Set commit = "
                    f'"{gitlink}" in [inputs.{sub_name}] of {self.lock.path}, or pin a '
                    f"superproject commit that uses {sub.commit}."
                )
        for sub_path, sub_name in sorted(inp.submodules.items()):
            shutil.copytree(self.path(sub_name), tmp / sub_path, symlinks=True, dirs_exist_ok=True)

    # --- downloads ----------------------------------------------------------

    def _download(self, inp: Input) -> Path:
        """The verified download of an archive, deb or wheel input, fetched if needed."""
        ddir = self._download_dir(inp)
        if ddir.is_dir():
            file = self._verified_cached(inp, ddir)
            if file is not None:
                return file
        fetch = {"archive": self._fetch_archive, "deb": self._fetch_deb, "wheel": self._fetch_wheel}
        self._ensure(ddir, lambda tmp: fetch[inp.kind](inp, tmp), inp.name)
        file = self._verified_cached(inp, ddir)
        if file is None:
            raise FetchError(f"input '{inp.name}': the download in {ddir} changed while in use")
        return file

    def _verified_cached(self, inp: Input, ddir: Path) -> Path | None:
        files = [f for f in ddir.iterdir() if f.is_file()] if ddir.is_dir() else []
        if len(files) == 1 and self._expected_sha(inp, files[0].name) == sha256_file(files[0]):
            return files[0]
        if ddir.is_dir():
            # Damaged after it was verified (disk, manual edits): drop it and fetch again.
            self.config.log(f"warning: the cached download {ddir} is damaged; fetching it again")
            cache.discard(ddir, lock_dir=self.root / "locks")
        return None

    def _expected_sha(self, inp: Input, filename: str) -> str | None:
        return inp.files.get(filename) if inp.kind == "wheel" else inp.sha256

    def _offline_error(self, inp: Input, mirror_hint: str) -> FetchError:
        return FetchError(
            f"input '{inp.name}' ({_describe(inp)}) is not in the cache {self.root} and "
            f"fetching is off ({OFFLINE_ENV}=1). To fill the cache, run `scons fetch` on a "
            f"connected machine and copy its cache directory here (or point IREERV_CACHE at a "
            f"copy), or use {mirror_hint}."
        )

    def _fetch_archive(self, inp: Input, tmp: Path) -> None:
        assert inp.url and inp.sha256
        dest = tmp / unquote(posixpath.basename(urlsplit(inp.url).path))
        sources = [mirror_url(base, inp.url) for base in self.config.mirrors] + [inp.url]
        if self.config.offline:
            sources = [url for url in sources if _is_local(url)]
            if not sources:
                raise self._offline_error(
                    inp, f"a local mirror ({MIRRORS_ENV}=file:///dir/with/the/files)"
                )
        problems = []
        for url in sources:
            try:
                self.config.log(f"{inp.name}: downloading {url}")
                actual, size = self._get(url, dest)
            except _SourceError as e:
                dest.unlink(missing_ok=True)
                problems.append(f"{url}: {e}")
                self.config.log(f"{inp.name}: {problems[-1]}")
                continue
            if actual == inp.sha256:
                return
            dest.unlink()
            problems.append(f"{url}: got sha256 {actual} ({size} bytes); the file was deleted")
            self.config.log(f"{inp.name}: {problems[-1]}")
        if any("got sha256" in p for p in problems):
            advice = (
                "If the upstream file changed on purpose, review it and update 'sha256' in "
                f"{self.lock.path}; otherwise retry later or list a mirror in {MIRRORS_ENV}."
            )
        else:
            advice = (
                f"Check the URL and the network, retry later, or list a mirror in {MIRRORS_ENV}."
            )
        raise FetchError(
            f"input '{inp.name}': no source gave the pinned file (sha256 {inp.sha256}):\n"
            + "\n".join(f"  {p}" for p in problems)
            + f"\n{advice}"
        )

    def _get(self, url: str, dest: Path) -> tuple[str, int]:
        """Copy `url` to `dest`, returning its sha256 and size."""
        h, size = hashlib.sha256(), 0
        if _is_local(url):
            path = Path(unquote(urlsplit(url).path))
            try:
                with open(path, "rb") as src, open(dest, "wb") as out:
                    while chunk := src.read(_CHUNK):
                        h.update(chunk)
                        out.write(chunk)
                        size += len(chunk)
            except OSError as e:
                raise _SourceError(str(e)) from None
            return h.hexdigest(), size
        import requests  # only needed when something is downloaded
        import urllib3

        if self._session is None:
            self._session = requests.Session()
        try:
            with self._session.get(url, stream=True, timeout=_TIMEOUT) as resp:
                if resp.status_code != 200:
                    raise _SourceError(f"HTTP {resp.status_code} {resp.reason}")
                expected = resp.headers.get("Content-Length")
                with open(dest, "wb") as out:
                    # Raw bytes: a server's Content-Encoding must not change the file.
                    for chunk in resp.raw.stream(_CHUNK, decode_content=False):
                        h.update(chunk)
                        out.write(chunk)
                        size += len(chunk)
        except (requests.RequestException, urllib3.exceptions.HTTPError, OSError) as e:
            # urllib3 errors (a truncated body, a stalled read) come straight from raw.stream.
            raise _SourceError(f"download failed: {e}") from None
        if expected is not None and expected.isdigit() and int(expected) != size:
            raise _SourceError(f"download incomplete: got {size} of {expected} bytes")
        return h.hexdigest(), size

    def _run_tool(
        self, inp: Input, cmd: list[str], cwd: Path, env: dict[str, str], hint: str
    ) -> None:
        # Verbose: the tool talks to the terminal; else its output is kept for the error.
        out = None if self.config.verbose else subprocess.PIPE
        err = None if self.config.verbose else subprocess.STDOUT
        try:
            proc = subprocess.run(cmd, cwd=cwd, env=env, text=True, stdout=out, stderr=err)
        except FileNotFoundError:
            raise FetchError(f"input '{inp.name}': `{cmd[0]}` not found; {hint}") from None
        if proc.returncode != 0:
            text = (proc.stdout or "").strip()
            detail = f":\n{text}" if text else ""
            raise FetchError(f"input '{inp.name}': `{' '.join(cmd)}` failed{detail}\n{hint}")

    def _single(self, inp: Input, tmp: Path, pattern: str, tool: str) -> Path:
        found = sorted(tmp.glob(pattern))
        if len(found) != 1:
            names = ", ".join(f.name for f in found) or "nothing"
            raise FetchError(f"input '{inp.name}': {tool} left {names}, not one {pattern} file")
        return found[0]

    def _fetch_deb(self, inp: Input, tmp: Path) -> None:
        if self.config.offline:
            raise self._offline_error(inp, "a machine whose apt sources carry the package")
        spec = f"{inp.package}={inp.version}"
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        hint = (
            f"Downloading Debian packages needs apt-get and apt sources that carry {spec} "
            "(run `apt-get update` first); on other systems fill the cache on a Debian machine "
            "and copy it."
        )
        self.config.log(f"{inp.name}: apt-get download {spec}")
        self._run_tool(inp, ["apt-get", "download", spec], tmp, env, hint)
        deb = self._single(inp, tmp, "*.deb", "apt-get download")
        actual = sha256_file(deb)
        if actual != inp.sha256:
            deb.unlink()
            raise FetchError(
                f"input '{inp.name}': {deb.name} has sha256 {actual}, but the lock pins "
                f"{inp.sha256}; the file was deleted. The package archive serves a different "
                f"file for {spec}: check it and update 'sha256' in {self.lock.path}."
            )

    def _fetch_wheel(self, inp: Input, tmp: Path) -> None:
        if self.config.offline:
            hint = "pip's own configuration for a local index (PIP_FIND_LINKS)"
            raise self._offline_error(inp, hint)
        spec = f"{inp.package}=={inp.version}"
        cmd = [
            sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
            "--disable-pip-version-check", "-d", str(tmp), spec,
        ]  # fmt: skip
        self.config.log(f"{inp.name}: pip download {spec}")
        hint = f"Check that {spec} has a wheel for this platform and that pip can reach its index."
        self._run_tool(inp, cmd, tmp, dict(os.environ), hint)
        wheel = self._single(inp, tmp, "*.whl", "pip download")
        actual = sha256_file(wheel)
        expected = inp.files.get(wheel.name)
        if expected is None:
            wheel.unlink()
            raise FetchError(
                f"input '{inp.name}': no pinned hash for this platform's wheel {wheel.name} "
                f"(its sha256 is {actual}); after checking it against the package index, add it to "
                f"'files' in [inputs.{inp.name}] of {self.lock.path}."
            )
        if actual != expected:
            wheel.unlink()
            raise FetchError(
                f"input '{inp.name}': {wheel.name} has sha256 {actual}, but the lock pins "
                f"{expected}; the file was deleted. Check the wheel and update 'files' in "
                f"{self.lock.path}."
            )


def _git_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _GIT_ENV_DROP}
    env["GIT_TERMINAL_PROMPT"] = "0"  # fail instead of asking for credentials
    return env


def _describe(inp: Input) -> str:
    if inp.kind == "git":
        tag = f" ({inp.tag})" if inp.tag else ""
        return f"git {inp.url} {inp.commit}{tag}"
    if inp.kind == "archive":
        return f"archive {inp.url}"
    if inp.kind == "deb":
        return f"deb {inp.package}={inp.version}"
    return f"wheel {inp.package}=={inp.version}"
