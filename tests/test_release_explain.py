"""When release-check finds a difference, diffoscope says where."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import needs_tool
from scons_helpers import copy_project, scons

NON_DETERMINISTIC = '''
/* Test only: the build folder in the image, so two checkouts differ. */
__attribute__((used)) static const char build_root[] = BUILD_ROOT;
__attribute__((constructor)) static void keep_build_root(void) {
  __asm__ volatile("" : : "r"(build_root));
}
'''


@pytest.mark.upstream
@needs_tool("diffoscope", "diffoscope-minimal")
def test_a_path_in_the_image_is_shown_by_diffoscope(tmp_path: Path, toolchain) -> None:
    tree = copy_project(tmp_path / "checkout")
    plain = tree / "models/matmul/plain.c"
    plain.write_text(plain.read_text() + NON_DETERMINISTIC)
    sconstruct = tree / "SConstruct"
    sconstruct.write_text(sconstruct.read_text().replace(
        'env.Tool("ireerv_targets")',
        'env.Append(CPPDEFINES=[("BUILD_ROOT", \'\\\\"%s\\\\"\' % Dir("#").abspath)])\n'
        'env.Tool("ireerv_targets")'))
    who = ["-c", "user.name=t", "-c", "user.email=t@t"]
    for step in (["add", "-A"], [*who, "commit", "-qm", "test: the build path in the image"]):
        subprocess.run(["git", "-C", str(tree), *step], check=True)
    proc = scons(tree, "release-check", "MODEL=matmul", "RUNTIME=none", "BOARD=qemu-virt",
                 check=False)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    said = proc.stderr
    assert "release-check: outputs differ" in said and "image.elf: byte" in said
    assert "diffoscope (" in said and "├── readelf --wide" in said  # diffoscope's words
    report = Path(said.split("diffoscope (", 1)[1].split(")", 1)[0])
    text = report.read_text()  # the whole report, kept beside the fresh build
    assert report.parent.name.startswith("ireerv-release-check-")
    assert f"--- {tree}/dist/" in text and f"+++ {report.parent}/src/dist/" in text
