"""How the suite runs fast: one build cache for the whole session, the slowest modules
first, and every module's tests on one worker (pytest-xdist, `--dist loadfile`).

- Every tree of a session (each module's `tree`, each `copy_project`) builds with one
  verified build cache (the project's own BUILD_CACHE), so the IREE runtime, the images
  and the simulators' outputs a second tree needs are retrieved, not built again.  A test
  that compares builds of its own (reproducibility) is marked `own_builds` and builds
  every file itself.  A user's IREERV_BUILD_CACHE is used as it is.
- The modules run slowest first, so that the last one to finish is a short one.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from ireerv.inputs import envvars

# The modules that take longest (minutes with the upstreams present), slowest first;
# every other module follows in the order pytest collects it.
SLOWEST = ("test_app", "test_figures", "test_tflite", "test_tune_cluster", "test_images",
           "test_testbench_programs", "test_onnx_int8", "test_placements", "test_bad_models",
           "test_reproducible_models", "test_iree_build", "test_onnx", "test_onnx_conformance",
           "test_tune_qemu", "test_interrupted_build", "test_build_cache", "test_bsp_qemu",
           "test_scons", "test_ide", "test_hostile_inputs", "test_pulp_board", "test_library",
           "test_given_data", "test_softfloat")
_SESSION_CACHE = "IREERV_TEST_BUILD_CACHE"  # the folder this session made, to remove


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "own_builds: builds every file itself (compares "
                                       "builds): no build cache shared with other tests")
    if os.environ.get("PYTEST_XDIST_WORKER") or os.environ.get(envvars.BUILD_CACHE):
        return  # a worker inherits the session's; a user's own is kept
    folder = tempfile.mkdtemp(prefix="ireerv-test-build-cache-")
    os.environ[envvars.BUILD_CACHE] = os.environ[_SESSION_CACHE] = folder


def pytest_unconfigure(config: pytest.Config) -> None:
    if not os.environ.get("PYTEST_XDIST_WORKER") and os.environ.get(_SESSION_CACHE):
        shutil.rmtree(os.environ.pop(_SESSION_CACHE), ignore_errors=True)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: i for i, name in enumerate(SLOWEST)}
    items.sort(key=lambda item: rank.get(Path(str(item.fspath)).stem, len(rank)))


@pytest.fixture(autouse=True)
def _own_builds(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    if request.node.get_closest_marker("own_builds"):
        monkeypatch.delenv(envvars.BUILD_CACHE, raising=False)
