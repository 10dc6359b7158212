"""The SCons front end: help, variable checks, C-only images, no-op rebuilds, runs, releases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import needs_qemu
from scons_helpers import scons

from ireerv import boards, simulators
from ireerv import formats as models
from ireerv.release import release
from ireerv.run import check
from ireerv.util.files import sha256_file

PLAIN = ("MODEL=matmul", "RUNTIME=none", "BOARD=qemu-virt")




def test_help_lists_targets_and_variables(tree: Path) -> None:
    out = scons(tree, "-h").stdout
    for target in ("image", "run", "size-report", "fetch", "release", "release-check", "bench",
                   "runtime", "simulator", "cap"):
        assert f"\n    {target} " in out, target
    for group in ("Build:", "Run and measure:", "Inputs and tools:", "Releases:"):
        assert f"\n  {group}\n" in out, group
    for variable in ("MODEL", "BOARD", "SIZE", "PROFILE", "RUNTIME", "CACHE_DIR", "OFFLINE",
                     "MIRRORS", "MAXCYCLES", "TIMEOUT", "TOP", "BASELINE", "ELF", "ALLOW_DIRTY",
                     "CAP_LOOPS", "SHAPES"):
        assert f"\n{variable}:" in out, variable
    assert "target board (cluster4|cluster4-pulp|qemu-virt)" in out
    assert "default: matmul" in out


@pytest.mark.parametrize(
    ("argument", "message"),
    [
        ("MODEL=nosuch", "unknown model 'nosuch'; models: ad, ad-float, elementwise, kws, "
                         "kws-float, kws-onnx, matmul, mlp, qmatmul"),
        ("BOARD=nosuch", "Invalid value for enum variable 'BOARD': 'nosuch'"),
        ("SHAPES=any", "Invalid value for enum variable 'SHAPES': 'any'"),
        ("SIZE=-3", "SIZE must be a positive whole number"),
        ("CAP_LOOPS=0", "CAP_LOOPS must be a positive whole number"),
        ("HARTS=5", "HARTS must be a whole number from 1 to 4 or auto (board cluster4 has "
                    "4 harts), not '5'"),
        ("NOSUCH=1", "unknown variable(s): NOSUCH"),
    ],
)
def test_bad_variables_are_rejected(tree: Path, argument: str, message: str) -> None:
    proc = scons(tree, "-h" if argument.startswith(("BOARD", "SHAPES")) else "image", argument,
                 check=False)
    assert proc.returncode != 0
    assert message in proc.stderr + proc.stdout


@pytest.mark.upstream
def test_malformed_mlir_is_reported(tree: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
                   "  return %b : tensor<4xf32>\n}\n")
    proc = scons(tree, f"MODEL={bad}", "BOARD=qemu-virt", "image", check=False)
    assert proc.returncode != 0
    assert f"iree-compile failed on {bad}" in proc.stdout + proc.stderr
    assert "use of undeclared SSA value" in proc.stdout + proc.stderr


@pytest.mark.upstream
@pytest.mark.own_builds  # a build's own output: the session's cache may hold this image
def test_plain_c_image_and_noop_rebuild(tree: Path) -> None:
    first = scons(tree, "image", *PLAIN).stdout
    image = tree / "build" / "qemu-virt" / "matmul-4-c"
    for suffix in ("elf", "hex", "map", "dis"):
        assert (image / f"image.{suffix}").is_file()
        assert f"image.{suffix}" in first
    assert "bytes code + initialised data" in first
    stamps = {p: p.stat().st_mtime_ns for p in (tree / "build").rglob("*") if p.is_file()}
    again = scons(tree, "image", *PLAIN).stdout
    assert "scons: `image' is up to date." in again
    assert not [line for line in again.splitlines() if line[:8].strip() in ("CC", "LINK", "AS")]
    assert stamps == {p: p.stat().st_mtime_ns for p in (tree / "build").rglob("*") if p.is_file()}


@pytest.mark.upstream
@needs_qemu
def test_plain_c_run_on_qemu(tree: Path) -> None:
    out = scons(tree, "run", *PLAIN, "SIZE=16").stdout
    assert "PASS: 256 output elements match the host reference (bit for bit)" in out
    record = json.loads((tree / "build/qemu-virt/matmul-16-c/run.json").read_text())
    assert record["passed"] and record["call_cycles"][0] > 16 * 16 * 16

    # The same real run, judged against a deliberately wrong reference, fails.
    board = boards.load_board("qemu-virt")
    result = simulators.run_on_board(board, elf=tree / "build/qemu-virt/matmul-16-c/image.elf")
    lhs, rhs = models.load_model("matmul").generate_inputs(16)
    right = lhs @ rhs
    assert check.judge(result, [right]).passed
    wrong = right.copy()
    wrong[3, 5] += 1
    verdict = check.judge(result, [wrong])
    assert not verdict.passed
    assert verdict.problems[0].startswith("output 0: 1 of 256 elements differ: [3,5]")


@pytest.mark.upstream
def test_size_report_of_plain_c_image(tree: Path) -> None:
    out = scons(tree, "size-report", *PLAIN).stdout
    assert "Components" in out and "application" in out and "bsp" in out
    data = json.loads((tree / "build/qemu-virt/matmul-4-c/size-report.json").read_text())
    total = sum(c["size"] for c in data["components"]) + data["remainder"]["size"]
    assert total == data["totals"]["alloc"]


@pytest.mark.upstream
def test_release_refuses_uncommitted_changes(tree: Path, tmp_path: Path) -> None:
    work = tmp_path / "dirty"
    release.fresh_checkout(tree, work, include_changes=False)
    (work / "README.md").write_text("changed\n")
    proc = scons(work, "release", *PLAIN, check=False)
    assert proc.returncode != 0 and "uncommitted changes" in proc.stdout + proc.stderr
    out = scons(work, "release", *PLAIN, "ALLOW_DIRTY=1").stdout
    assert "NOT a release" in out
    manifest = next((work / "dist").glob("*/manifest.json"))
    assert json.loads(manifest.read_text())["release"] is False


@pytest.mark.upstream
def test_plain_c_release_is_reproducible(tmp_path: Path, tree: Path) -> None:
    builds = []
    for name in ("one", "elsewhere/two"):
        work = tmp_path / name
        release.fresh_checkout(tree, work, include_changes=False)
        scons(work, "release", *PLAIN)
        (dist,) = (work / "dist").iterdir()
        builds.append(dist)
    assert release.compare_trees(*builds) == []
    manifest = json.loads((builds[0] / "manifest.json").read_text())
    assert manifest["release"] is True
    assert set(manifest["outputs"]) == {"image.elf", "image.hex", "image.map", "size-report.json"}
    for name, digest in manifest["outputs"].items():
        assert sha256_file(builds[0] / name) == digest
    assert "gcc" in manifest["inputs"] and manifest["inputs"]["gcc"]["kind"] == "deb"
    assert manifest["configuration"]["RUNTIME"] == "none"  # the image key, every variable
    assert manifest["configuration"]["board"] == "qemu-virt" and builds[0].name.startswith(
        "matmul-4-c-qemu-virt-")
    text = "".join(p.read_text(errors="replace") for p in builds[0].iterdir())
    assert str(tmp_path) not in text

    # A forced difference is reported with the file and the first differing byte.
    hex_file = builds[1] / "image.hex"
    data = bytearray(hex_file.read_bytes())
    data[10] ^= 1
    hex_file.write_bytes(bytes(data))
    assert release.compare_trees(*builds) == [
        f"image.hex: byte 0xa: {data[10] ^ 1:#04x} != {data[10]:#04x}"]
