"""Shared fixtures and markers: the pinned lock, the download cache, the cross toolchain,
a private copy of the project, and what a test needs from the machine.

Inputs come through the same Fetcher the build uses.  Tests that need an
upstream that cannot be reached skip, naming the input and how to provide it.
Under CI=true a test never skips for a system package or a Python package that
`./bootstrap` installs: it fails.  The only skips allowed are those in
ALLOWED_SKIPS; every skip is listed by name at the end of the run.
"""

from __future__ import annotations

import importlib
import os
import shutil
from pathlib import Path

import pytest
from scons_helpers import copy_project
from shared_runs import SharedRuns

from ireerv import paths
from ireerv.inputs.fetch import FetchConfig, Fetcher, FetchError
from ireerv.inputs.lock import Lock, load_lock
from ireerv.inputs.toolchain import Toolchain

pytest_plugins = ("suite",)  # the session's build cache, order and markers

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


@pytest.fixture(scope="session")
def compiler(wheel: Path, lock: Lock) -> Path:
    """The pinned iree-compile, checked against the runtime's commit."""
    from ireerv.runtime.iree_build import check_compiler_commit

    path = wheel / "iree" / "compiler" / "_mlir_libs" / "iree-compile"
    check_compiler_commit(path, lock.input("iree").commit)
    return path


_running: list[pytest.Item] = []  # the test being set up or run
CLUSTER_INPUTS = ("cluster-tb", "cv32e40p", "verilator")  # what a cluster run needs


def pytest_runtest_setup(item: pytest.Item) -> None:
    _running[:] = [item]


def require_input(fetcher: Fetcher, name: str) -> Path:
    """The cached tree of a pinned input, or skip saying what is missing and how to get it.
    A test that needs an upstream's source must say so (`-m "not upstream"` leaves it out)."""
    test = _running[0] if _running else None
    for marker, needed in (("upstream", fetcher.lock.input(name).kind == "git"),
                           ("cluster", name in CLUSTER_INPUTS)):
        if needed and test and not test.get_closest_marker(marker):
            pytest.fail(f"{test.nodeid} needs the input {name!r}: mark it "
                        f"@pytest.mark.{marker}", pytrace=False)
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


IN_CI = os.environ.get("CI") == "true"
# The only reasons a test may skip, each with why it is allowed.
ALLOWED_SKIPS = {
    "needs pinned input": "an upstream this machine cannot reach; provide a mirror",
    "the pinned iree-compiler wheel is not available": "the compiler wheel cannot be fetched",
    "the pinned cross toolchain is not available": "the Debian packages cannot be fetched",
    "the source toolchain is not built": "TOOLCHAIN=source takes half an hour to build",
    "the Debian archive is unreachable": "a test of the real package registry, offline",
}


def needs_tool(command: str, package: str) -> pytest.MarkDecorator:
    """Skip when `command` (from Debian's `package`, which ./bootstrap installs) is missing;
    under CI=true run anyway, so that the missing package fails the test."""
    missing = shutil.which(command) is None and not IN_CI
    return pytest.mark.skipif(missing, reason=f"{command} not on PATH (Debian package "
                                              f"{package}; ./bootstrap installs it)")


needs_qemu = needs_tool("qemu-system-riscv32", "qemu-system-misc")


def need_module(name: str):
    """A Python package of requirements.txt: skip without it, fail under CI=true."""
    if IN_CI:
        return importlib.import_module(name)
    return pytest.importorskip(name, reason=f"the Python package {name!r} of "
                                            "requirements.txt is not installed")


@pytest.fixture(scope="module")
def tree(request: pytest.FixtureRequest, fetcher: Fetcher,
         tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A private copy of the project for a test module's SCons runs, made after the
    pinned inputs its NEEDS_INPUTS names are there ("toolchain": the cross toolchain)."""
    for name in getattr(request.module, "NEEDS_INPUTS", ()):
        if name == "toolchain":
            request.getfixturevalue("toolchain")
        else:
            require_input(fetcher, name)
    return copy_project(tmp_path_factory.mktemp(request.module.__name__) / "src")


def _allowed(reason: str) -> bool:
    return any(reason.startswith(prefix) or prefix in reason for prefix in ALLOWED_SKIPS)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if IN_CI and report.skipped and isinstance(report.longrepr, tuple):
        reason = report.longrepr[2].removeprefix("Skipped: ")
        if not _allowed(reason):
            report.outcome = "failed"
            report.longrepr = f"skipped under CI=true, which allows no such skip: {reason}"


def pytest_terminal_summary(terminalreporter) -> None:
    skipped = terminalreporter.stats.get("skipped", [])
    if not skipped:
        return
    terminalreporter.section("skipped tests, by name")
    for report in skipped:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        terminalreporter.write_line(f"{report.nodeid}: {reason}")


@pytest.fixture(scope="session")
def shared_runs(tmp_path_factory: pytest.TempPathFactory, fetcher: Fetcher) -> SharedRuns:
    """Runs several modules read, made once for the whole session (all its workers)."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):  # each worker's folder is in the session's
        base = base.parent
    return SharedRuns(base / "shared-runs")
