"""Shared fixtures: the pinned lock, the download cache and the cross toolchain.

Inputs come through the same Fetcher the build uses.  Tests that need an
upstream that cannot be reached skip, naming the input and how to provide it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ireerv import paths
from ireerv.inputs.fetch import FetchConfig, Fetcher, FetchError
from ireerv.inputs.lock import Lock, load_lock
from ireerv.inputs.toolchain import Toolchain

HOW_TO_PROVIDE = (
    "provide it through a mirror (git config --global url.<mirror>.insteadOf <upstream url>), "
    "or fill the cache ({cache}) with `scons fetch` on a machine that reaches it"
)


@pytest.fixture(scope="session")
def lock() -> Lock:
    return load_lock(paths.LOCK_FILE)


@pytest.fixture(scope="session")
def fetcher(lock: Lock) -> Fetcher:
    return Fetcher(lock, FetchConfig(cache_root=paths.default_cache_dir(), log=lambda _: None))


@pytest.fixture(scope="session")
def wheel(fetcher: Fetcher) -> Path:
    """The pinned iree-compiler wheel (its Python bindings read and rewrite MLIR)."""
    try:
        return fetcher.path("iree-compiler")
    except FetchError as err:
        pytest.skip(f"the pinned iree-compiler wheel is not available: {err}")


def require_input(fetcher: Fetcher, name: str) -> Path:
    """The cached tree of a pinned input, or skip saying what is missing and how to get it."""
    try:
        return fetcher.path(name)
    except FetchError as err:
        pin = fetcher.lock.input(name)
        where = getattr(pin, "url", None) or getattr(pin, "package", name)
        version = getattr(pin, "commit", None) or getattr(pin, "version", "")
        pytest.skip(
            f"needs pinned input {name!r} ({where} at {version}): {err}; "
            + HOW_TO_PROVIDE.format(cache=fetcher.config.cache_root)
        )


@pytest.fixture(scope="session")
def toolchain(fetcher: Fetcher) -> Toolchain:
    try:
        return fetcher.toolchain()
    except FetchError as err:
        pytest.skip(f"the pinned cross toolchain is not available: {err}")
