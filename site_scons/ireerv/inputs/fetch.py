"""Fetching and verifying the inputs pinned in toolchain.lock into the cache.

Cache layout under the cache root:
    downloads/<name>-<key>/<file>   verified archive, .deb or wheel files
    src/<name>-<key>/               unpacked trees (git checkouts without .git)
    src/toolchain-<key>/            all toolchain inputs unpacked into one tree
    tools/                          tools built from the sources (made by others)
    locks/                          fcntl lock files
    verified/                       stamps of entries checked against their manifests
Every entry is made under a temporary name and renamed when complete, so an
interrupted fetch leaves nothing behind; its manifest (manifest.py), written as it is
made, is checked before the entry is used, whether it is in this cache or a shared one.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from ireerv.inputs import (
    archive,
    cache,
    fetch_git,
    fetch_http,
    fetch_packages,
    manifest,
    pin_checks,
)
from ireerv.inputs.envvars import OFFLINE as OFFLINE_ENV
from ireerv.inputs.fetch_common import (  # FetchConfig, FetchError: part of this API
    FetchConfig,
    FetchError,
    describe,
    git_env,
    wheel_platform,
)
from ireerv.inputs.lock import TOOLCHAIN, Input, Lock
from ireerv.inputs.toolchain import Toolchain
from ireerv.util.files import sha256_file

# One fetcher per kind of download; git inputs are trees, not downloads (fetch_git).
DOWNLOADERS = {
    "archive": fetch_http.fetch_archive,
    "deb": fetch_packages.fetch_deb,
    "wheel": fetch_packages.fetch_wheel,
}


class Fetcher:
    def __init__(self, lock: Lock, config: FetchConfig) -> None:
        self.lock = lock
        self.config = config
        self.root = Path(config.cache_root)
        self._session = None
        self._located: dict[Path, Path] = {}

    # --- cache layout -------------------------------------------------------

    def located(self, final: Path) -> Path:
        """Where a cache entry is: `final` itself, else the shared cache's copy if it has one.

        Either is checked against its manifest first, once per run.  A shared copy
        without a manifest or unlike it is not used: the entry is made in this cache.
        """
        if final not in self._located:
            self._located[final] = self._locate(final)
        return self._located[final]

    def _locate(self, final: Path) -> Path:
        if final.exists() and self._local_entry_usable(final):
            return final
        shared = self.config.shared_root
        if shared is None:
            return final
        try:
            copy = Path(shared) / final.relative_to(self.root)
        except ValueError:
            return final
        if not copy.exists():
            return final
        problem = manifest.problem(copy, self.root / "verified")
        if problem is None:
            return copy
        self.config.log(f"shared cache: {copy} not used: {problem}; "
                        f"making it in {self.root} instead")
        return final

    def _local_entry_usable(self, final: Path) -> bool:
        """A local entry is checked like a shared one; one damaged is removed, to be made again.

        Entries made before manifests were written get one on first use: this machine
        made them.
        """
        if not manifest.manifest_path(final).exists():
            self.config.log(f"cache: recording the manifest of {final}")
            manifest.adopt(final, self.root / "verified")
            return True
        problem = manifest.problem(final, self.root / "verified")
        if problem is None:
            return True
        self.config.log(f"cache: {final} not used: {problem}; making it again")
        cache.discard(final, lock_dir=self.root / "locks")
        return False

    def entry(self, name: str) -> Path:
        """The cache directory of an input's tree (or of the toolchain tree), fetched or not."""
        if name == TOOLCHAIN:
            return self.root / "src" / f"{TOOLCHAIN}-{self.lock.toolchain_key()}"
        inp = self.lock.input(name)
        suffix = f"-{wheel_platform()}" if inp.kind == "wheel" else ""
        return self.root / "src" / f"{name}-{inp.key()}{suffix}"

    def _download_dir(self, inp: Input) -> Path:
        suffix = f"-{wheel_platform()}" if inp.kind == "wheel" else ""
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
        final = self.located(self.entry(name))
        if final.is_dir():
            return final
        return self._ensure(final, lambda tmp: self._make_tree(inp, tmp), name)

    def toolchain(self) -> Toolchain:
        """All toolchain inputs unpacked into one tree, keyed by their combined pins."""
        spec = self.lock.toolchain
        final = self.located(self.entry(TOOLCHAIN))

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
        self.config.log(f"fetching {inp.name}: {describe(inp)}")
        if inp.kind == "git":
            fetch_git.git_tree(self, inp, tmp)
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
            env = {**git_env(), "GIT_CEILING_DIRECTORIES": str(tree.parent)}
            proc = subprocess.run(
                ["git", "apply", "--whitespace=nowarn", str(file)],
                cwd=tree, env=env, capture_output=True, text=True,
            )  # fmt: skip
            if proc.returncode != 0:
                raise FetchError(
                    f"input '{inp.name}': patch {patch.file} does not apply to {describe(inp)}:\n"
                    f"{proc.stderr.strip()}\nRefresh the patch against the pinned version."
                )
            self.config.log(f"applied {patch.file} to {inp.name}")

    # --- git ----------------------------------------------------------------

    # --- downloads ----------------------------------------------------------

    def _download(self, inp: Input) -> Path:
        """The verified download of an archive, deb or wheel input, fetched if needed."""
        ddir = self._download_dir(inp)
        if ddir.is_dir():
            file = self._verified_cached(inp, ddir)
            if file is not None:
                return file
        fetch = DOWNLOADERS[inp.kind]
        self._ensure(ddir, lambda tmp: fetch(self, inp, tmp), inp.name)
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
            f"input '{inp.name}' ({describe(inp)}) is not in the cache {self.root} and "
            f"fetching is off ({OFFLINE_ENV}=1). To fill the cache, run `scons fetch` on a "
            f"connected machine and copy its cache directory here (or point IREERV_CACHE at a "
            f"copy), or use {mirror_hint}."
        )
