"""Peak memory of a run: the runner's high-water marks and the image's static data, per
region of the board, in the run's report and its record."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import needs_qemu, require_input
from scons_helpers import scons

from ireerv.boards import load_board
from ireerv.inputs.fetch import Fetcher
from ireerv.run import check, memory
from ireerv.run.runner_output import parse_runner_output

NEEDS_INPUTS = ("iree", "flatcc", "iree-compiler")  # for the `tree` fixture (conftest.py)
# 64 KiB in, 64 KiB out: the runner's two largest buffers.
COPY = """func.func @twice(%a: tensor<65536xi8>) -> tensor<65536xi8> {
  %r = arith.addi %a, %a : tensor<65536xi8>
  return %r : tensor<65536xi8>
}
"""


# 1 KiB in, 256 KiB out: more than core 0's scratchpad leaves the heap on the cluster.
SPREAD = """func.func @spread(%a: tensor<1024xi8>) -> tensor<256x1024xi8> {
  %e = tensor.empty() : tensor<256x1024xi8>
  %r = linalg.broadcast ins(%a : tensor<1024xi8>) outs(%e : tensor<256x1024xi8>)
      dimensions = [0]
  return %r : tensor<256x1024xi8>
}
"""


def test_peaks_per_region() -> None:
    placement = load_board("cluster4").placement
    regions = [{"name": "shared", "length": 1 << 26, "placements": [
                   {"section": ".text", "size": 80_000, "as": "vma"},
                   {"section": ".rodata", "size": 7_000, "as": "lma"}]},
               {"name": "spm0", "length": 1 << 18, "placements": [
                   {"section": ".stack", "size": 32_768, "as": "vma"},
                   {"section": ".rodata", "size": 7_000, "as": "vma"},
                   {"section": ".bss", "size": 9_000, "as": "vma"}]}]
    peaks = memory.regions_at_peak(regions, placement, {"heap_peak": 12_000}, 10_000)
    assert [(p.name, p.static, p.stack, p.heap, p.peak) for p in peaks] == [
        ("shared", 80_000, 0, 0, 80_000), ("spm0", 16_000, 10_000, 12_000, 38_000)]
    said = memory.describe(peaks, {"largest_allocation": 4096})
    assert "spm0: 38,000 of 262,144 bytes at peak (static 16,000, stack 10,000 of 32,768, " \
           "heap 12,000)" in said and said.endswith("largest allocation 4,096 bytes")
    said = memory.describe(peaks, {"largest_allocation": 4096, "weight_cache": 173_760})
    assert said.endswith("largest allocation 4,096 bytes; weights kept in the heap's free "
                         "room 173,760 bytes")
    assert memory.fit(peaks).startswith("fit: the run needs shared 80,128 bytes, spm0 38,144 "
                                        "bytes, stack_size 10,240, heap_size 12,032")
    # resnet8-float's transient buffer on cluster4: more than spm0 could ever hold.
    assert not memory.too_large(peaks, {"largest_allocation": 213_376})
    said = memory.describe(peaks, {"largest_allocation": 293_092})
    assert said.endswith("largest allocation 293,092 bytes, more than the 213,376 bytes spm0 "
                         "leaves the heap")


def test_a_refused_allocation_is_said_with_a_placement_that_holds_it() -> None:
    """Release images print a bare RESOURCE_EXHAUSTED: the runner's MEMORY line says which
    allocation the heap refused, and the report what would hold it."""
    board = load_board("cluster4")
    regions = [{"name": "spm0", "length": 1 << 18, "placements": [
        {"section": ".stack", "size": 16_384, "as": "vma"},
        {"section": ".bss", "size": 31_332, "as": "vma"}]}]
    measured = {"heap_peak": 16_593, "largest_allocation": 12_464,
                "refused_allocation": 293_092}
    _, lines = memory.report(regions, board, measured, 9_684)
    assert lines == [
        "memory: spm0: 57,609 of 262,144 bytes at peak (static 31,332, stack 9,684 of 32,768, "
        "heap 16,593); largest allocation 12,464 bytes; refused an allocation of 293,092 "
        "bytes, more than the 198,044 bytes spm0 leaves the heap",
        "hint: placement 'shared' keeps the heap outside spm0 (model.toml: placement = "
        '"shared", or PLACEMENT=shared)']
    parsed = parse_runner_output("MEMORY refused_allocation 293092\nSTATUS RESOURCE_EXHAUSTED\n")
    assert check.program_problem(parsed) == (
        "the program reported RESOURCE_EXHAUSTED (refused an allocation of 293,092 bytes)")


@pytest.mark.upstream
@needs_qemu
def test_a_run_reports_the_peaks_its_buffers_make(tree: Path, tmp_path: Path) -> None:
    model = tmp_path / "twice.mlir"
    model.write_text(COPY)
    out = scons(tree, "run", f"MODEL={model}", "BOARD=qemu-virt", "FIT=1").stdout
    assert "memory: rom: " in out and "ram: " in out and "fit: the run needs" in out, out
    record = json.loads((tree / "build/qemu-virt/twice/run.json").read_text())
    mem = record["schema"] == "ireerv-run/2" and record["memory"]
    assert 65_536 < mem["largest_allocation"] < 65_536 + 512  # one buffer and IREE's header
    assert 2 * 65_536 <= mem["heap_peak"] < 2 * 65_536 + 64 * 1024  # both, and the runtime's
    assert 0 < mem["stacks"][0] < 65_536
    ram = next(r for r in mem["regions"] if r["region"] == "ram")
    assert ram["peak"] == ram["static"] + ram["stack"] + ram["heap"]


@pytest.mark.cluster
@pytest.mark.upstream
def test_a_run_out_of_heap_says_what_it_asked_for(tree: Path, fetcher: Fetcher,
                                                  tmp_path: Path) -> None:
    for name in ("cluster-tb", "cv32e40p", "verilator"):
        require_input(fetcher, name)
    model = tmp_path / "spread.mlir"
    model.write_text(SPREAD)
    proc = scons(tree, "run", f"MODEL={model}", "BOARD=cluster4", check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "Traceback" not in out, out
    assert re.search(r"refused an allocation of 262,\d{3} bytes, more than the [\d,]+ bytes "
                     r"spm0 leaves the heap\nhint: placement 'shared' keeps the heap outside "
                     r"spm0", out), out
    assert re.search(r"FAILED: .*the program reported RESOURCE_EXHAUSTED \(refused an "
                     r"allocation of 262,\d{3} bytes\)", out), out
