"""The modules a build step declares as its sources (ireerv.util.sources)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ireerv.formats import tflite_format
from ireerv.harts import dispatch_counts, hart_local
from ireerv.image import iree_compile
from ireerv.util.sources import module_files


def _names(files: list[str]) -> set[str]:
    return {Path(f).relative_to(Path(f).parents[1]).as_posix() for f in files}


def test_a_translation_declares_every_helper_module_it_runs() -> None:
    names = _names(module_files(tflite_format))
    assert {"formats/tflite_tosa.py", "formats/requant_generic.py", "formats/tflite_context.py",
            "formats/pruned_outputs.py", "formats/tflite_math.py"} <= names
    assert not any(n.startswith(("boards/", "inputs/", "simulators/")) for n in names)


def test_the_hart_check_declares_its_rules_and_the_compile() -> None:
    # Across packages: the hart check names each package's entry module (harts, image).
    names = _names(module_files(hart_local, iree_compile, dispatch_counts))
    assert {"harts/hart_local.py", "harts/hart_slices.py", "harts/dispatch_names.py",
            "image/iree_compile.py", "harts/dispatch_counts.py"} <= names


def test_function_level_and_parenthesised_imports_are_followed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "pkg_sources_probe"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("def f():\n    from pkg_sources_probe import b\n    return b\n")
    (package / "b.py").write_text("from pkg_sources_probe.c import (\n    VALUE,  # one\n)\n")
    (package / "c.py").write_text("VALUE = 1\n")
    (package / "d.py").write_text("")  # imported by nobody
    monkeypatch.syspath_prepend(str(tmp_path))
    import pkg_sources_probe.a as a
    assert [Path(f).name for f in module_files(a)] == ["__init__.py", "a.py", "b.py", "c.py"]
