"""A build that has nothing to do stays quick: only the Tools of the targets asked for are
loaded, and none of the heavy libraries (NumPy, pyelftools, ONNX, the SBOM's) is imported.
The speed itself is measured side by side with SCons's own floor, not timed here."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from scons_helpers import scons

from ireerv import paths

sys.path.insert(0, str(paths.PROJECT_ROOT / "site_scons" / "site_tools"))
import ireerv_targets  # noqa: E402  (a Tool module: plain Python, no SCons state)

NEEDS_INPUTS = ("toolchain", "iree", "flatcc", "iree-compiler")
HEAVY = ("numpy", "elftools", "onnx", "onnxruntime", "cyclonedx", "jsonschema", "tflite",
         "urllib.request")
# SCons run as the tests run it, saying at exit which of HEAVY it imported.
_REPORTING_SCONS = (
    "import atexit, sys\n"
    f"atexit.register(lambda: print('IMPORTED', sorted(set({HEAVY!r}) & set(sys.modules))))\n"
    "import SCons.Script\n"
    "SCons.Script.main()\n")

# Each Tool loaded alone in an environment with the variables the Tools read.
_DECLARES = """
from ireerv import targets
for tool in {tools!r}:
    env = Environment(tools=[], MODEL="matmul", BOARD="qemu-virt", CACHE_DIR={cache!r},
                      SHARED_CACHE="", BUILD_CACHE="", OFFLINE=True, MIRRORS="",
                      TOOLCHAIN="debian", VERBOSE=False)
    env.Tool(tool)
    print("DECLARES", tool, " ".join(sorted(targets.declared(env))))
"""


def test_each_target_is_declared_by_the_tool_that_the_table_names(tmp_path: Path) -> None:
    sconstruct = tmp_path / "SConstruct"
    sconstruct.write_text(_DECLARES.format(tools=ireerv_targets.TOOLS,
                                           cache=str(tmp_path / "cache")))
    site = str(paths.PROJECT_ROOT / "site_scons")
    out = subprocess.run([sys.executable, "-c", "import SCons.Script; SCons.Script.main()",
                          "-Q", "-f", str(sconstruct), f"--site-dir={site}", "-n"],
                         cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    declares = {line.split()[1]: set(line.split()[2:]) for line in out.splitlines()
                if line.startswith("DECLARES ")}
    for target, tool in ireerv_targets.TARGET_TOOLS.items():
        assert target in declares[tool], f"{tool} does not declare {target}"
    everything = set().union(*declares.values())
    assert everything == set(ireerv_targets.TARGET_TOOLS), "a declared target is not in the table"


def test_tools_for_names_only_what_is_asked() -> None:
    assert ireerv_targets.tools_for(["image"]) == ("ireerv_image",)
    assert ireerv_targets.tools_for(["run", "simulator"]) == ("ireerv_run",)
    # A file on the command line: every Tool, so that SCons knows how it is made.
    assert ireerv_targets.tools_for(["build/qemu-virt/matmul-4/image.elf"]) == \
        ireerv_targets.TOOLS


@pytest.mark.upstream
def test_a_noop_image_build_imports_no_heavy_library(tree: Path) -> None:
    scons(tree, "image", "MODEL=matmul", "BOARD=qemu-virt")
    env = {**os.environ, "IREERV_CACHE": os.environ.get("IREERV_CACHE",
                                                        str(paths.default_cache_dir()))}
    again = subprocess.run([sys.executable, "-c", _REPORTING_SCONS, "-Q", "image",
                            "MODEL=matmul", "BOARD=qemu-virt"],
                           cwd=tree, capture_output=True, text=True, env=env, check=True)
    assert "`image' is up to date" in again.stdout
    assert "IMPORTED []" in again.stdout, again.stdout
