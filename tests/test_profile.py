"""scons profile: call stacks from instruction streams, phases, the JSON check, and real runs.

The unit tests feed hand-made instruction streams to the analysis; the QEMU tests trace a
known C program (its hot function must come out on top) and the matmul image (the profile
must add up and name the size report's components).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bare_metal import ImageBuilder
from conftest import needs_qemu
from scons_helpers import scons

from ireerv import boards
from ireerv.profile import analyze, capture, report
from ireerv.profile.program import Program, parse_disassembly
from ireerv.simulators import prepare
from ireerv.simulators import traces as trace
from ireerv.simulators.base import Image
from ireerv.size.rules import ComponentRule

TESTS = Path(__file__).resolve().parent
HOT_C = TESTS / "profile" / "hot.c"


# main at 0x100, f at 0x200, g at 0x300 (soft-float), bsp_cycles at 0x400.
PROGRAM = Program(
    sizes={a: 4 for a in range(0x100, 0x500, 4)},
    calls=frozenset({0x104, 0x10C, 0x114, 0x204, 0x11C}),
    starts=[0x100, 0x200, 0x300, 0x400],
    names=["main", "f", "g", "bsp_cycles"],
    ranges=[(0x100, 0x200, "app"), (0x200, 0x300, "lib"), (0x300, 0x400, "libgcc soft-float"),
            (0x400, 0x500, "bsp")],
)


def stream() -> list[tuple[int, int]]:
    """main reads the counter, calls f (which calls g), reads it again; then calls g."""
    pcs = [0x100, 0x104, 0x400, 0x404,  # bsp_cycles #0
           0x108, 0x10C, 0x200, 0x204, 0x300, 0x304, 0x208, 0x20C,  # f -> g -> back
           0x110, 0x114, 0x400, 0x404,  # bsp_cycles #1
           0x118, 0x11C, 0x300, 0x304, 0x120]  # g called directly
    return [(pc, 2 if pc == 0x300 else 1) for pc in pcs]


def test_stacks_give_self_and_inclusive_costs() -> None:
    windows = analyze.walk(stream(), PROGRAM)
    assert len(windows) == 3  # before the first read, and one window per read
    window = windows[1]
    # The stream starts inside main (no call to it): main is the bottom, not a frame.
    assert window.stacks == {("bsp_cycles",): 2, ("main",): 4, ("f",): 4, ("f", "g"): 3}
    rows = {r["name"]: r for r in analyze.functions(window, PROGRAM)}
    assert (rows["f"]["self"], rows["f"]["inclusive"], rows["f"]["calls"]) == (4, 7, 1)
    assert (rows["main"]["self"], rows["main"]["inclusive"]) == (4, 4)
    assert rows["g"]["component"] == "libgcc soft-float"
    assert window.total == 13


def test_soft_float_calls_count_entries_from_outside() -> None:
    windows = analyze.walk(stream(), PROGRAM)
    assert windows[1].calls["g"] == 1
    assert windows[1].soft_float_calls == windows[2].soft_float_calls == 1
    assert windows[2].components == {"bsp": 2, "app": 3, "libgcc soft-float": 3}


def test_phases_follow_the_counter_reads() -> None:
    windows = analyze.walk(stream() * 2, PROGRAM)
    phases = analyze.phase_windows(windows, ["startup", "call 0"])
    assert [name for name, _ in phases] == ["startup", "call 0"]
    assert phases[0][1] is windows[1] and phases[1][1] is windows[3]
    with pytest.raises(analyze.ProfileError, match="too few"):
        analyze.phase_windows(windows, ["startup", "call 0", "call 1"])


def test_a_dispatch_costs_its_wall_time_under_its_kernel() -> None:
    """With several harts hart 0 waits for the others outside the kernel: the dispatch's
    whole cost, that wait included, goes to the kernel function that ran longest in it."""
    program = Program(
        sizes={a: 4 for a in range(0x100, 0x600, 4)},
        calls=frozenset({0x104, 0x10C, 0x1FC, 0x204, 0x20C, 0x114}),
        starts=[0x100, 0x1F8, 0x200, 0x300, 0x380, 0x400, 0x500],
        names=["main", analyze.DISPATCH, "dispatch_body", "kern", "query", "bsp_cycles", "wait"],
        ranges=[(0x100, 0x300, "app"), (0x300, 0x400, analyze.KERNEL), (0x400, 0x600, "bsp")],
    )
    pcs = [0x100, 0x104, 0x400, 0x404,  # bsp_cycles #0
           0x108, 0x10C, 0x1F8, 0x1FC, 0x380, 0x384,  # the dispatch asks the library first
           0x200, 0x204, 0x300, 0x304,  # then runs kern
           0x208, 0x20C, 0x500, 0x504, 0x210, 0x214,  # then waits, and returns
           0x110, 0x114, 0x400, 0x404, 0x118]  # bsp_cycles #1
    cost = {0x300: 5, 0x500: 10}
    window = analyze.walk([(pc, cost.get(pc, 1)) for pc in pcs], program)[1]
    rows = {r["name"]: r for r in analyze.functions(window, program)}
    assert rows["kern"]["inclusive"] == 6  # its own instructions: hart 0's share
    assert window.dispatches == {"kern": 27}  # the dispatch's, from call to return


def test_document_adds_up_and_the_check_finds_errors() -> None:
    window = analyze.walk(stream(), PROGRAM)[1]
    doc = report.document({"model": "m", "board": "b", "size": None, "runtime": "iree",
                           "unit": "instructions", "source": "test", "elf": "x.elf"},
                          [report.phase_json("startup", window, PROGRAM, 12)])
    assert report.validate(doc) == []
    assert report.validate(json.loads(json.dumps(doc))) == []
    assert "13 instructions (runner: 12)" in report.format_text(doc)
    broken = json.loads(json.dumps(doc))
    broken["phases"][0]["functions"][0]["self"] += 1
    assert any("add up" in p for p in report.validate(broken))
    broken["schema"] = "ireerv-profile/0"
    assert report.validate(broken) == ["not an ireerv-profile/1 document "
                                       "(schema 'ireerv-profile/0')"]
    del doc["phases"][0]["total"]
    assert any("total has the wrong type" in p for p in report.validate(doc))


def test_disassembly_listing_with_source_lines() -> None:
    text = ("Disassembly of section .text:\n\n80000000 <_start>:\n    csrr t0, mhartid\n"
            "80000000:\tf14022f3          \tcsrr\tt0,mhartid\n"
            "80000004:\t2a89                \tjal\t80000136 <x>\n"
            "80000006:\t9782                \tjalr\ta5\n"
            "80000008:\t8082                \tret\n"
            "8000000a <x>:\n8000000a:\t0001                \tnop\n")
    sizes, calls, labels, sections = parse_disassembly(text)
    assert sections == {".text"}
    assert sizes == {0x80000000: 4, 0x80000004: 2, 0x80000006: 2, 0x80000008: 2,
                     0x8000000A: 2}
    assert calls == {0x80000004, 0x80000006}
    assert labels == {0x80000000: "_start", 0x8000000A: "x"}


def test_trace_readers(tmp_path: Path) -> None:
    log = tmp_path / "qemu.log"
    log.write_text(
        "----------------\nIN: main\n0x80000000:  f14022f3          csrrs t0,mhartid,zero\n"
        "0x80000004:  1202              bnez t0,302\n\n"
        "Trace 0: 0x7f00 [00000000/80000000/00109003/ff020200] main\n"
        "Trace 1: 0x7f00 [00000000/80000000/00109003/ff020200] main\n"
        "Trace 0: 0x7f00 [00000000/80000000/00109003/ff020200] main\n")
    assert list(trace.qemu_instructions(log)) == [(0x80000000, 1), (0x80000004, 1)] * 2
    pcs = tmp_path / "pc.txt"
    pcs.write_text("10 80\n13 84\n14 86\n")
    assert list(trace.cluster_instructions(pcs)) == [(0x80, 3), (0x84, 1), (0x86, 1)]
    pcs.write_text("10 80 junk\n")
    with pytest.raises(trace.TraceError, match="not '<cycle> <pc>'"):
        list(trace.cluster_instructions(pcs))


def test_the_analysis_reports_the_cost_read_so_far(monkeypatch) -> None:
    monkeypatch.setattr(capture, "PROGRESS_STEP", 2)
    stream = [(0x80, 3), (0x84, 1), (0x86, 5), (0x88, 2), (0x8a, 1)]
    seen: list[int] = []
    assert list(capture.counted(iter(stream), seen.append)) == stream
    assert seen == [4, 11]
    assert list(capture.counted(iter(stream), None)) == stream


# --------------------------------------------------------------------------- QEMU


@needs_qemu
def test_known_program_names_its_hot_function(toolchain, tmp_path: Path) -> None:
    board = boards.load_board("qemu-virt")
    elf, hexfile = ImageBuilder(toolchain, tmp_path).image(board, "hot", HOT_C)
    dis = elf.with_suffix(".dis")
    import subprocess

    dis.write_text(subprocess.run([str(toolchain.tool("objdump")), "-d", str(elf)],
                                  check=True, capture_output=True, text=True).stdout)
    from ireerv.profile.program import load_program

    program = load_program(dis, elf.with_name("app.map"),
                           [ComponentRule("app", member="app.o")])
    trace_file = tmp_path / "trace.log"
    result = capture.traced_run(board.simulator, prepare(board.simulator), Image(elf, hexfile),
                                trace_file, timeout=60)
    assert result.passed, result.output
    doc = capture.profile_from_trace(board.simulator, program, trace_file,
                                     result.program_output,
                                     {"model": "hot", "board": board.name, "size": None,
                                      "runtime": "none", "elf": "app.elf"})
    assert report.validate(doc) == []
    startup, call0, call1 = doc["phases"]
    assert call1["functions"][0]["name"].startswith("hot_loop")  # GCC may clone it
    assert call1["functions"][0]["self"] > 0.9 * call1["total"]
    assert any(f["name"].startswith("cold") for f in startup["functions"])
    assert not any(f["name"].startswith("hot_loop") for f in startup["functions"])
    for phase in doc["phases"]:  # the runner's figure, give or take one counter read
        assert abs(phase["total"] - phase["measured"]) <= 16


NEEDS_INPUTS = ("iree",)  # for the `tree` fixture (conftest.py)


@needs_qemu
@pytest.mark.upstream
def test_matmul_profile_on_qemu_adds_up(tree: Path) -> None:
    out = scons(tree, "profile", "size-report", "MODEL=matmul", "BOARD=qemu-virt",
                "SIZE=4").stdout
    assert "startup:" in out and "call 1:" in out
    folder = tree / "build/qemu-virt/matmul-4"
    doc = json.loads((folder / "profile.json").read_text())
    sizes = json.loads((folder / "size-report.json").read_text())
    assert report.validate(doc) == []
    assert [p["name"] for p in doc["phases"]] == ["startup", "warmup", "call 0", "call 1"]
    named = {c["name"] for c in sizes["components"]}
    for phase in doc["phases"]:
        assert abs(phase["total"] - phase["measured"]) <= 64
        assert {c["name"] for c in phase["components"]} <= named
    call = doc["phases"][-1]
    assert {"kernel", "control program"} <= {c["name"] for c in call["components"]}
    # No wasted arithmetic: one soft-float multiply and one add per multiply-accumulate.
    assert call["soft_float_calls"] == 2 * 4**3
    assert (folder / "profile.svg").read_text().startswith("<svg")
