"""Per-file optimisation flags for the runtime's hot sources (runtime/config.toml [hot])."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import needs_tool, require_input

from ireerv.inputs.fetch import Fetcher
from ireerv.runtime import hot_sources, iree_build
from ireerv.runtime.hot_sources import HotSourcesError


def _tree(root: Path, *files: str) -> Path:
    for name in files:
        path = root / hot_sources.SOURCE_ROOT / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("int x;\n")
    return root


def test_no_table_means_no_flags() -> None:
    assert hot_sources.hot_table({"cflags": ["-Os"]}, "config.toml") == ([], [])
    assert hot_sources.cmake_text(Path("/nowhere"), [], []) == ""


def test_table_is_read() -> None:
    table = {"hot": {"cflags": ["-O2"], "sources": ["vm/stack.c"]}}
    assert hot_sources.hot_table(table, "config.toml") == (["-O2"], ["vm/stack.c"])


@pytest.mark.parametrize("hot, message", [
    ({"cflags": "-O2", "sources": []}, "cflags must be a list of strings"),
    ({"cflags": ["-O2"], "sources": [1]}, "sources must be a list of strings"),
    ({"cflags": ["-O2"], "sources": [], "source": []}, "unknown keys ['source']"),
])
def test_bad_table_is_named(hot: dict, message: str) -> None:
    with pytest.raises(HotSourcesError, match=r"config\.toml: \[hot\]") as info:
        hot_sources.hot_table({"hot": hot}, "config.toml")
    assert message in str(info.value)


def test_cmake_text_names_each_file_and_its_folder(tmp_path: Path) -> None:
    root = _tree(tmp_path, "vm/stack.c", "base/string_view.c")
    text = hot_sources.cmake_text(root, ["-O2", "-fno-plt"], ["vm/stack.c", "base/string_view.c"])
    stack = root / "runtime/src/iree/vm/stack.c"
    assert "cmake_language(DEFER CALL _ireerv_hot_sources)" in text
    assert (f'set_source_files_properties("{stack}" DIRECTORY "{stack.parent}" '
            'PROPERTIES COMPILE_OPTIONS "-O2;-fno-plt")') in text


def test_missing_source_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(HotSourcesError, match="hot source 'vm/gone.c' is not in"):
        hot_sources.cmake_text(_tree(tmp_path), ["-O2"], ["vm/gone.c"])


@pytest.mark.upstream
def test_release_hot_sources_exist_in_the_pinned_iree(fetcher: Fetcher) -> None:
    iree_src = require_input(fetcher, "iree")
    settings = iree_build.load_config()["profiles"]["release"]
    cflags, sources = hot_sources.hot_table(settings, "runtime/config.toml")
    assert cflags and sources
    assert hot_sources.cmake_text(iree_src, cflags, sources)  # raises on a missing file


@needs_tool("cmake", "cmake")
def test_cmake_gives_only_the_hot_file_its_flags_last(tmp_path: Path) -> None:
    """A real CMake project shaped like IREE's: targets defined in subdirectories."""
    src = tmp_path / "src"
    lib = src / hot_sources.SOURCE_ROOT / "vm"
    lib.mkdir(parents=True)
    (lib / "hot.c").write_text("int hot(void) { return 1; }\n")
    (lib / "cold.c").write_text("int cold(void) { return 2; }\n")
    (lib / "CMakeLists.txt").write_text("add_library(vm STATIC hot.c cold.c)\n")
    (src / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.21)\nproject(IREE C)\n"
        "add_subdirectory(runtime/src/iree/vm)\n")
    include = tmp_path / hot_sources.FILE_NAME
    include.write_text(hot_sources.cmake_text(src, ["-O2"], ["vm/hot.c"]))
    build = tmp_path / "build"
    subprocess.run(["cmake", "-S", str(src), "-B", str(build), "-DCMAKE_BUILD_TYPE=MinSizeRel",
                    "-DCMAKE_C_FLAGS_MINSIZEREL=-Os", "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON",
                    f"-DCMAKE_PROJECT_IREE_INCLUDE={include}"],
                   check=True, capture_output=True)
    commands = {Path(c["file"]).name: c["command"]
                for c in json.loads((build / "compile_commands.json").read_text())}
    hot = commands["hot.c"].split()
    assert hot.index("-O2") > hot.index("-Os")
    assert "-O2" not in commands["cold.c"].split()
