"""What every fetcher of an input kind shares: errors, describing an input, git's environment."""

from __future__ import annotations

import os
import posixpath
import re
import sys
import sysconfig
from urllib.parse import urlsplit

from ireerv.inputs.lock import Input

_TIMEOUT = (15, 60)  # seconds: connect, between bytes
_CHUNK = 1 << 20
# Variables that would point git at another repository than the one we create.
GIT_ENV_DROP = (
    "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE", "GIT_PREFIX",
)  # fmt: skip


class FetchError(Exception):
    """An input could not be fetched or did not match its pin."""


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
