"""The project's environment variables, each read by one function with one error style.

IREERV_OFFLINE takes the same yes/no words as the OFFLINE variable of
`scons -h`; IREERV_CACHE a directory; IREERV_MIRRORS base URLs;
IREERV_BUILD_CACHE and IREERV_SHARED_CACHE directories a team shares.  A value that
means nothing is an error naming the variable, never a silent default.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

OFFLINE = "IREERV_OFFLINE"
CACHE = "IREERV_CACHE"
MIRRORS = "IREERV_MIRRORS"
BUILD_CACHE = "IREERV_BUILD_CACHE"
SHARED_CACHE = "IREERV_SHARED_CACHE"

# The words SCons' BoolVariable takes (OFFLINE=yes on the command line), so both agree.
TRUE_WORDS = ("1", "y", "yes", "true", "t", "on", "all")
FALSE_WORDS = ("0", "n", "no", "false", "f", "off", "none", "")
MIRROR_SCHEMES = ("http://", "https://", "file://")


class EnvVarError(ValueError):
    """An environment variable (or the build variable it feeds) has a value that means nothing."""


def _env(environ: Mapping[str, str] | None) -> Mapping[str, str]:
    return os.environ if environ is None else environ


def parse_bool(name: str, value: str) -> bool:
    """A yes/no word, in any case; anything else is an error naming `name`."""
    word = value.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise EnvVarError(
        f"{name}={value!r} is not a yes/no value; use one of 1, yes, true, on "
        f"or 0, no, false, off"
    )


def offline(environ: Mapping[str, str] | None = None) -> bool:
    return parse_bool(OFFLINE, _env(environ).get(OFFLINE, ""))


def parse_mirrors(name: str, value: str) -> list[str]:
    """Base URLs separated by spaces or commas; each an http(s) or file URL or an absolute path."""
    bases = [b for b in value.replace(",", " ").split() if b]
    for base in bases:
        if not (base.startswith(MIRROR_SCHEMES) or base.startswith("/")):
            raise EnvVarError(
                f"{name}: {base!r} is not a mirror base URL; give http://, https:// or file:// "
                f"URLs (or absolute paths), separated by spaces"
            )
    return bases


def mirrors(environ: Mapping[str, str] | None = None) -> list[str]:
    return parse_mirrors(MIRRORS, _env(environ).get(MIRRORS, ""))


def cache_dir(environ: Mapping[str, str] | None = None) -> Path:
    """$IREERV_CACHE (blank means unset), else the per-user XDG cache."""
    env = _env(environ)
    value = env.get(CACHE, "").strip()
    if value:
        return Path(value).expanduser().resolve()
    xdg = env.get("XDG_CACHE_HOME", "").strip() or str(Path.home() / ".cache")
    return Path(xdg).expanduser().resolve() / "ireerv"


def check_cache_dir(path: Path, name: str = "CACHE_DIR") -> None:
    """The cache must be a directory we can write (entries and lock files are made there)."""
    probe = Path(path)
    while not probe.exists():
        if probe.parent == probe:
            break
        probe = probe.parent
    if probe.exists() and not probe.is_dir():
        raise EnvVarError(f"{name}={path}: {probe} is not a directory; choose another {name} "
                          f"(or {CACHE})")
    if not _writable(probe):
        where = "" if probe == Path(path) else f" ({probe} is read-only)"
        raise EnvVarError(
            f"{name}={path} is not writable{where}; the cache needs to create entries and lock "
            f"files. Choose a writable directory with {name}=<dir> or {CACHE}=<dir>; a read-only "
            f"copy of a cache can be copied to a writable place first"
        )


def _writable(directory: Path) -> bool:
    # A real write: permission bits say nothing for root or on a read-only mount.
    try:
        with tempfile.TemporaryFile(dir=directory):
            return True
    except OSError:
        return False


def _optional_dir(name: str, environ: Mapping[str, str] | None) -> str:
    value = _env(environ).get(name, "").strip()
    return str(Path(value).expanduser().resolve()) if value else ""


def build_cache(environ: Mapping[str, str] | None = None) -> str:
    """$IREERV_BUILD_CACHE: SCons's CacheDir, shared by a team ("" when unset)."""
    return _optional_dir(BUILD_CACHE, environ)


def shared_cache(environ: Mapping[str, str] | None = None) -> str:
    """$IREERV_SHARED_CACHE: a read-only download and tool cache ("" when unset)."""
    return _optional_dir(SHARED_CACHE, environ)


def check_build_cache(path: Path, name: str = "BUILD_CACHE") -> None:
    """SCons writes the build cache: it must be, or be creatable as, a writable directory."""
    try:
        check_cache_dir(path, name)
    except EnvVarError:
        raise EnvVarError(
            f"{name}={path} is not a writable directory; SCons stores built files there. "
            f"Give a directory every machine can write (or unset {name} and {BUILD_CACHE})"
        ) from None


def check_shared_cache(path: Path, name: str = "SHARED_CACHE") -> None:
    """The shared cache is only read: it must exist as a directory."""
    if not Path(path).is_dir():
        raise EnvVarError(
            f"{name}={path} is not a directory; give the path of a cache other machines fill "
            f"(their CACHE_DIR), or unset {name} and {SHARED_CACHE}"
        )
