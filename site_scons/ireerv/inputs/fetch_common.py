"""What every fetcher of an input kind shares: the configuration, what they use of the
Fetcher (FetchContext), errors, describing an input, git's environment."""

from __future__ import annotations

import os
import posixpath
import re
import sys
import sysconfig
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit

from ireerv.inputs import envvars
from ireerv.inputs.lock import Input, Lock

_TIMEOUT = (15, 60)  # seconds: connect, between bytes
_CHUNK = 1 << 20
# Variables that would point git at another repository than the one we create.
GIT_ENV_DROP = (
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
    # A read-only cache (another machine's, shared): entries found there are used
    # in place; missing ones are made in cache_root.
    shared_root: Path | None = None

    @classmethod
    def from_env(
        cls, cache_root: Path | None = None, environ: dict[str, str] | None = None, **kw: object
    ) -> FetchConfig:
        """Config from IREERV_CACHE, IREERV_SHARED_CACHE, IREERV_OFFLINE and IREERV_MIRRORS;
        keyword arguments win."""
        try:
            offline, mirrors = envvars.offline(environ), envvars.mirrors(environ)
            root = Path(cache_root) if cache_root else envvars.cache_dir(environ)
            shared = envvars.shared_cache(environ)
        except envvars.EnvVarError as err:
            raise FetchError(str(err)) from None
        values: dict[str, object] = {"offline": offline, "mirrors": mirrors,
                                     "shared_root": Path(shared) if shared else None, **kw}
        return cls(cache_root=root, **values)  # type: ignore[arg-type]

    @classmethod
    def from_variables(cls, variables: Mapping[str, Any]) -> FetchConfig:
        """The build's config: CACHE_DIR, SHARED_CACHE, OFFLINE, MIRRORS and VERBOSE of an
        SCons environment (the command line, defaulting to the IREERV_* variables)."""
        shared = variables.get("SHARED_CACHE")
        return cls(
            cache_root=Path(variables["CACHE_DIR"]),
            offline=bool(variables["OFFLINE"]),
            mirrors=envvars.parse_mirrors("MIRRORS", variables["MIRRORS"]),
            verbose=bool(variables["VERBOSE"]),
            shared_root=Path(shared) if shared else None,
        )


class FetchContext(Protocol):
    """What the fetchers of one input kind use of the Fetcher (fetch.py): its
    configuration and lock, other inputs' trees, its offline error and its HTTP
    session.  Named here, so that they need not import fetch.py."""

    config: FetchConfig
    lock: Lock
    _session: Any

    def path(self, name: str) -> Path: ...

    def _offline_error(self, inp: Input, mirror_hint: str) -> FetchError: ...


def mirror_url(base: str, url: str) -> str:
    """Where a mirror keeps the file of `url`: the base plus the upstream file name."""
    return base.rstrip("/") + "/" + posixpath.basename(urlsplit(url).path)


def is_local(url: str) -> bool:
    return url.startswith(("file://", "/"))


def wheel_platform() -> str:
    # A cache shared between machines must not hand one platform's wheel to another.
    tag = f"{sysconfig.get_platform()}-{sys.implementation.cache_tag}"
    return re.sub(r"[^A-Za-z0-9.]+", "_", tag)


class SourceError(Exception):
    """One download source failed; the next one is tried."""


def git_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in GIT_ENV_DROP}
    env["GIT_TERMINAL_PROMPT"] = "0"  # fail instead of asking for credentials
    return env


def describe(inp: Input) -> str:
    if inp.kind == "git":
        tag = f" ({inp.tag})" if inp.tag else ""
        return f"git {inp.url} {inp.commit}{tag}"
    if inp.kind == "archive":
        return f"archive {inp.url}"
    if inp.kind == "deb":
        return f"deb {inp.package}={inp.version}"
    return f"wheel {inp.package}=={inp.version}"
