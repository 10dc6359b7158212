"""TOOLCHAIN=source: the cross toolchain built from pinned sources compiles, links and runs C.

The build itself takes 30-60 minutes, so the tests use the cached toolchain
and skip, saying how to build it, when there is none.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from bare_metal import MATMUL_C, ImageBuilder, matmul_expected, matmul_inputs_header
from conftest import needs_qemu, require_input
from scons_helpers import copy_project, scons

from ireerv import boards, simulators
from ireerv.inputs import toolchain_build
from ireerv.inputs.fetch import Fetcher
from ireerv.inputs.toolchain import Toolchain


@pytest.fixture(scope="module")
def source_toolchain(fetcher: Fetcher) -> Toolchain:
    spec = toolchain_build.SourceSpec.from_lock(fetcher.lock.toolchain.source, fetcher.lock.path)
    for name in (spec.binutils, spec.gcc, spec.picolibc):
        require_input(fetcher, name)
    entry = fetcher.located(toolchain_build.entry(fetcher))
    if not entry.is_dir():
        pytest.skip(f"the source toolchain is not built in the cache ({entry.name}); "
                    "`scons image TOOLCHAIN=source` builds it once (30-60 min)")
    return toolchain_build.source_toolchain(fetcher, entry.parent)


def _compressed_share(toolchain: Toolchain, elf: Path, symbol: str) -> float:
    """The share of 16-bit instructions in one function of an image."""
    dis = subprocess.run([str(toolchain.tool("objdump")), "-d", f"--disassemble={symbol}",
                          str(elf)], capture_output=True, text=True, check=True).stdout
    words = [m.group(1) for line in dis.splitlines()
             if (m := re.match(r"\s*[0-9a-f]+:\t([0-9a-f]+)\s*\t", line))]
    assert words, f"no {symbol} in {elf}"
    return sum(len(w) == 4 for w in words) / len(words)


@pytest.mark.upstream
@needs_qemu
def test_source_toolchain_runs_c_on_qemu(source_toolchain: Toolchain, tmp_path: Path) -> None:
    qemu = boards.load_board("qemu-virt")
    builder = ImageBuilder(source_toolchain, tmp_path / "build")
    header = tmp_path / "inputs.h"
    header.write_text(matmul_inputs_header(4))
    elf, _ = builder.image(qemu, "matmul-4", MATMUL_C, ["MATMUL_N=4", f'MATMUL_INPUTS="{header}"'])
    result = simulators.run_on_board(qemu, elf=elf, timeout=60)
    assert result.passed, result.output
    output = [ln for ln in result.program_output.splitlines() if ln.startswith("OUTPUT")]
    assert output[0].split(":", 1)[1].split() == matmul_expected(4)
    # The point of building it: libgcc's soft-float routines use compressed instructions.
    assert _compressed_share(source_toolchain, elf, "__addsf3") > 0.3


def test_the_recipe_is_part_of_the_cache_key(fetcher: Fetcher, monkeypatch) -> None:
    before = toolchain_build.entry(fetcher)
    monkeypatch.setattr(toolchain_build, "RECIPE_VERSION", toolchain_build.RECIPE_VERSION + 1)
    assert toolchain_build.entry(fetcher) != before
    monkeypatch.undo()
    options = toolchain_build.gcc_options(
        toolchain_build.SourceSpec("b", "g", "p", "rv32imc", "ilp32"))
    assert "--with-arch=rv32imc" in options and "--disable-multilib" in options


def test_the_manifest_names_pins_and_recipe(fetcher: Fetcher) -> None:
    data = toolchain_build.manifest(fetcher, "source")
    assert set(data["pins"]) == {"binutils-source", "gcc-source", "picolibc-source"}
    assert data["pins"]["picolibc-source"]["commit"].startswith("98e59b70")
    assert "--with-abi=ilp32" in data["recipe"]["gcc"]
    assert toolchain_build.manifest(fetcher, "debian")["pins"].keys() == {
        "binutils", "gcc", "picolibc"}


@pytest.mark.parametrize(("table", "message"), [
    (None, r"\[toolchain.source\] is missing"),
    ({"binutils": "b", "gcc": "g", "picolibc": "p", "arch": "rv32imc"}, "field 'abi'"),
    ({"binutils": "b", "gcc": "g", "picolibc": "p", "arch": "a", "abi": "i", "cpu": "x"},
     "unknown field"),
])
def test_a_bad_source_table_is_one_error(table, message: str) -> None:
    with pytest.raises(toolchain_build.ToolchainBuildError, match=message):
        toolchain_build.SourceSpec.from_lock(table, Path("toolchain.lock"))


@pytest.mark.upstream
def test_the_libraries_name_no_build_folder(source_toolchain: Toolchain) -> None:
    """Libraries built at any path are the same bytes: their debug info names no folder of
    the build (the cache entry's temporary name, the user's home, the sources' cache)."""
    root = source_toolchain.root
    cache = root.parent.parent
    found = []
    for lib in [*root.rglob("*.a"), *root.rglob("crt0*.o")]:
        data = lib.read_bytes()
        for marker in (b".tmp-", str(cache).encode(), str(Path.home()).encode()):
            if marker in data:
                found.append(f"{lib.relative_to(root)}: {marker.decode()}")
    assert not found, "\n".join(found[:20])


def test_build_folders_are_mapped_for_c_and_assembly(tmp_path: Path) -> None:
    flags = toolchain_build.path_maps({tmp_path: "/toolchain", tmp_path / ".build": "/b"})
    assert flags == [f"-ffile-prefix-map={tmp_path}=/toolchain",
                     f"-Wa,--debug-prefix-map={tmp_path}=/toolchain",
                     f"-ffile-prefix-map={tmp_path}/.build=/b",
                     f"-Wa,--debug-prefix-map={tmp_path}/.build=/b"]


@pytest.mark.upstream
def test_switching_toolchains_shares_no_object(source_toolchain: Toolchain, tmp_path: Path,
                                               fetcher: Fetcher) -> None:
    """Each toolchain's objects live in their own folders: after a source-toolchain build, a
    Debian-toolchain image links only objects the Debian compiler made."""
    require_input(fetcher, "rvfplib")
    tree = copy_project(tmp_path / "src")
    args = ("image", "MODEL=matmul", "RUNTIME=none", "BOARD=qemu-virt")
    scons(tree, *args, "TOOLCHAIN=source")
    scons(tree, *args, "TOOLCHAIN=debian")
    source_map = (tree / "build/qemu-virt/matmul-4-c-source/image.map").read_text()
    debian_map = (tree / "build/qemu-virt/matmul-4-c/image.map").read_text()
    assert "build/qemu-virt-source/softfloat/rvfplib/fmaf.o" in source_map
    assert "build/qemu-virt/softfloat/rvfplib/fmaf.o" in debian_map
    assert "-source/" not in debian_map
