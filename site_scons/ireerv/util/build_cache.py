"""A team's build cache (BUILD_CACHE) whose entries are verified before use.

SCons's CacheDir names an entry by the build signature of what made it and
trusts its bytes.  A shared folder can hold a truncated or altered file, so
each entry here carries the sha256 of its content, written beside it when it
is stored; on retrieval an entry whose content does not match (or that has no
recorded hash) is reported, removed and rebuilt, never used.
"""

from __future__ import annotations

import os
from pathlib import Path

import SCons.CacheDir

from ireerv.util.files import sha256_file

SUFFIX = ".sha256"


def record_path(cachefile: str | Path) -> Path:
    return Path(f"{cachefile}{SUFFIX}")


def entry_problem(cachefile: Path) -> str | None:
    """Why a stored entry cannot be trusted, or None when its content is what was stored."""
    try:
        recorded = record_path(cachefile).read_text().strip()
    except FileNotFoundError:
        return "no recorded content hash"
    except OSError as err:
        return f"its content hash cannot be read ({err.strerror})"
    actual = sha256_file(cachefile)
    if actual != recorded:
        return f"content sha256 {actual[:16]}…, stored as {recorded[:16]}…"
    return None


def discard(cachefile: Path) -> bool:
    """Remove an untrusted entry and its record; False when the cache is not writable."""
    try:
        cachefile.unlink(missing_ok=True)
        record_path(cachefile).unlink(missing_ok=True)
    except OSError:
        return False
    return True


class VerifiedCacheDir(SCons.CacheDir.CacheDir):
    """SCons's CacheDir with a content hash per entry, checked on every retrieval."""

    def retrieve(self, node) -> bool:
        if not self.is_enabled():
            return False
        _, cachefile = self.cachepath(node)
        path = Path(cachefile)
        if path.exists():
            problem = entry_problem(path)
            if problem:
                removed = "removed" if discard(path) else "ignored (read-only cache)"
                print(f"build cache: entry for {node} not used, {removed}: {problem}; "
                      "building it")
                return False
        return super().retrieve(node)

    @classmethod
    def copy_from_cache(cls, env, src, dst) -> str:
        """A retrieved file is as new as its retrieval (SCons keeps the entry's time): a
        build killed afterwards is known to have written it (ireerv.util.unfinished_build)."""
        return env.fs.copy(src, dst)

    @classmethod
    def copy_to_cache(cls, env, src, dst) -> str:
        """Store the file, and its hash beside the name it is about to be renamed to."""
        result = super().copy_to_cache(env, src, dst)
        final = Path(dst).parent.parent / Path(dst).name  # SCons renames out of a temp dir
        tmp = Path(f"{dst}{SUFFIX}")
        tmp.write_text(sha256_file(Path(src)) + "\n")
        os.replace(tmp, record_path(final))
        return result
