"""A model's path names its build folder, which reaches command lines run by a shell:
a path with a character a shell reads (quotes, `;`, backquotes, `$`) is refused with
one line before anything is built, and no name ever runs a command."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from scons_helpers import scons

from ireerv.formats import PATH_CHARS_HELP, ModelError, check_path_chars, load_model
from ireerv.paths import PROJECT_ROOT

ALLOWED = "a model's path may hold only letters, digits, spaces and . _ - + / @ ,"
# Each name would run `touch` if a shell read it (the backquotes and the $(...)).
HOSTILE = {
    "backquotes": ("bq`touch BQ`x", "`"),
    "semicolon": ("semi;touch SEMI", ";"),
    "quotes": ("qu'ote\"s", "'"),
    "substitution": ("dollar$(touch PWNED)", "$"),
}
MARKERS = ("BQ", "SEMI", "PWNED")


def model_folder(parent: Path, name: str) -> Path:
    folder = parent / name
    shutil.copytree(PROJECT_ROOT / "models" / "matmul", folder)
    return folder


def markers_under(*roots: Path) -> list[Path]:
    return [p for root in roots for name in MARKERS for p in root.rglob(name)]


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_scons_refuses_a_model_path_a_shell_would_read(tree: Path, tmp_path: Path,
                                                       case: str) -> None:
    name, char = HOSTILE[case]
    folder = model_folder(tmp_path, name)
    proc = scons(tree, "image", f"MODEL={folder}", "BOARD=qemu-virt", check=False)
    printed = proc.stdout + proc.stderr
    assert proc.returncode == 2, printed
    assert "Traceback" not in printed
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, printed
    assert f"has the character {char!r}" in lines[0] and ALLOWED in lines[0]
    assert not markers_under(tree, tmp_path)
    assert not (tree / "build" / "qemu-virt").exists()


def test_scons_refuses_a_link_to_such_a_folder(tree: Path, tmp_path: Path) -> None:
    link = tmp_path / "plain"
    link.symlink_to(model_folder(tmp_path, HOSTILE["backquotes"][0]))
    proc = scons(tree, "image", f"MODEL={link}", "BOARD=qemu-virt", check=False)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "(resolved: " in proc.stderr and ALLOWED in proc.stderr
    assert not markers_under(tree, tmp_path)


@pytest.mark.parametrize("spec", [
    "matmul", "models/qmatmul64", "/home/j.doe/my models/kws-float+v2/model.onnx",
    "/srv/ci/ws@2/a,b/net_1.tflite", "/tmp/José/modèle",
])
def test_ordinary_paths_pass(spec: str) -> None:
    check_path_chars(spec)


@pytest.mark.parametrize(("spec", "char"), [
    *HOSTILE.values(), ("a|b", "|"), ("a&b", "&"), ("a>b", ">"), ("a\\b", "\\"),
    ("a\nb", "\n"), ("a\tb", "\t"), ("*.onnx", "*"), ("a(b)", "("), ("~/m.onnx", "~"),
])
def test_a_character_a_shell_reads_is_refused(spec: str, char: str) -> None:
    with pytest.raises(ModelError) as err:
        check_path_chars(spec)
    assert str(err.value) == (f"MODEL path {spec!r} has the character {char!r}; "
                              f"a model's path may hold only {PATH_CHARS_HELP}")


def test_the_loader_checks_where_a_path_resolves(tmp_path: Path) -> None:
    link = tmp_path / "plain"
    link.symlink_to(model_folder(tmp_path, "semi;colon"))
    with pytest.raises(ModelError, match=r"\(resolved: '.*semi;colon'\) has the character ';'"):
        load_model(str(link))
    assert load_model(str(model_folder(tmp_path, "with space"))).name == "with space"
