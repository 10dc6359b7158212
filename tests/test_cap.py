"""The cap on several harts: the program's lines, the arithmetic, the table, and a real run.

The unit tests use lines the program printed on the cluster model (32 passes).  The
upstream test builds microbench/cap.c with short loops and runs it on the cluster model.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import require_input
from scons_helpers import copy_project, scons

from ireerv.bench import cap
from ireerv.bench.output import markdown as bench_markdown
from ireerv.bench.table import collect as bench_collect
from ireerv.inputs.fetch import Fetcher

# Printed by the program linked with rvfplib (the mac and divu loops, then f32).
RVFPLIB = """\
CAPINFO rvfplib 32 64 4
CAPEV mac compressed 16500 12400 6249
CAPEV mac transfers 16500 12400 2051
CAP mac 1 0 16500 12400 0
CAP mac 2 0 24744 12400 10248
CAP mac 2 1 24761 12398 10270
CAP mac 3 0 37028 12400 22569
CAP mac 3 1 37070 12398 22622
CAP mac 3 2 37076 12398 22626
CAP mac 4 0 49401 12400 34955
CAP mac 4 1 49427 12398 34982
CAP mac 4 2 49443 12398 34997
CAP mac 4 3 49442 12398 34992
CAPEV divu compressed 78103 12405 6251
CAPEV divu transfers 78103 12405 2050
CAP divu 1 0 78103 12405 0
CAP divu 2 0 78108 12405 6
CAP divu 2 1 78114 12403 15
CAP divu 3 0 78110 12405 9
CAP divu 3 1 78128 12403 28
CAP divu 3 2 78117 12403 19
CAP divu 4 0 78327 12405 232
CAP divu 4 1 78334 12403 275
CAP divu 4 2 78331 12403 267
CAP divu 4 3 78325 12403 233
CAPEV f32 compressed 222254 175081 66429
CAPEV f32 transfers 222254 175081 18787
CAP f32 1 0 222254 175081 0
CAP f32 4 0 695479 175081 487921
CAP f32 4 1 695509 175079 487961
CAP f32 4 2 695420 175079 487895
CAP f32 4 3 695401 175079 487880
STATUS OK
"""
LIBGCC = """\
CAPINFO libgcc 32 64 4
CAPEV mac compressed 16500 12400 6249
CAPEV mac transfers 16500 12400 2051
CAP mac 1 0 16500 12400 0
CAPEV f32 compressed 424078 373129 4381
CAPEV f32 transfers 424078 373129 27235
CAP f32 1 0 424078 373129 0
CAP f32 4 0 1617207 373129 1210737
CAP f32 4 1 1617248 373127 1210777
CAP f32 4 2 1617200 373127 1210730
CAP f32 4 3 1617190 373127 1210725
STATUS OK
"""


def rows(doc: dict) -> dict[str, dict]:
    return {r["kernel"] + (f"-{r['softfloat']}" if r["softfloat"] else ""): r
            for r in doc["rows"]}


def test_arithmetic() -> None:
    # 6 instructions a loop pass, 3 of them compressed, one taken branch.
    assert cap.words_per_instruction(6, 3, 1) == pytest.approx((6 - 1.5 + 1.5) / 6)
    assert cap.words_per_instruction(10, 0, 0, waste=0) == 1.0
    assert cap.cap(4, 0.75, 1.0) == pytest.approx(4 / 3)
    assert cap.cap(4, 0.16, 1.0) == 4.0  # a slow loop: all four harts count
    assert cap.speedup(4, 1000, 1000) == 4.0 and cap.speedup(2, 1000, 2000) == 1.0
    with pytest.raises(cap.CapError, match="counters out of range"):
        cap.words_per_instruction(0, 0, 0)
    with pytest.raises(cap.CapError):
        cap.words_per_instruction(10, 11, 0)


def test_parse() -> None:
    out = cap.parse("noise\n" + RVFPLIB)
    assert (out.softfloat, out.loops, out.elements, out.harts) == ("rvfplib", 32, 64, 4)
    assert out.events["mac"]["compressed"] == cap.Counts(16500, 12400, 6249)
    assert out.runs["mac"][4][3] == cap.Counts(49442, 12398, 34992)
    assert sorted(out.runs) == ["divu", "f32", "mac"]


@pytest.mark.parametrize("text, message", [
    ("STATUS OK\n", "no CAPINFO line"),
    ("CAPINFO x 1 2 4\nSTATUS OK\n", "no CAP lines"),
])
def test_output_without_its_lines_is_refused(text: str, message: str) -> None:
    with pytest.raises(cap.CapError, match=message):
        cap.parse(text)


def test_collect_puts_each_speedup_beside_its_cap() -> None:
    doc = cap.collect([RVFPLIB, LIBGCC], "cluster4")
    assert doc["schema"] == cap.SCHEMA and doc["harts"] == 4
    by = rows(doc)
    # the integer loops come from the first output only; f32 from each
    assert list(by) == ["mac", "f32-rvfplib", "f32-libgcc", "divu"]
    mac = by["mac"]
    assert mac["ipc1"] == pytest.approx(12400 / 16500, abs=1e-4)
    assert mac["w"] == pytest.approx((12400 - 6249 / 2 + 1.5 * 2051) / 12400, abs=1e-4)
    four = mac["harts"][-1]
    assert four["n"] == 4 and four["cycles"] == 49443  # the slowest hart
    assert four["speedup"] == pytest.approx(4 * 16500 / 49443, abs=1e-3)
    assert four["cap"] == pytest.approx(1 / (mac["ipc1"] * mac["w"]), abs=2e-3)
    assert four["fetch_waits"] == 34997 and four["extra_cycles"] == 49443 - 16500
    assert mac["w_port"] == pytest.approx(49443 / (12400 + 3 * 12398), abs=1e-4)
    divu = by["divu"]["harts"][-1]
    assert divu["cap"] == 4.0 and divu["speedup"] > 3.9
    assert [h["n"] for h in by["f32-libgcc"]["harts"]] == [1, 4]


def test_collect_refuses_missing_figures() -> None:
    no_events = "\n".join(line for line in RVFPLIB.splitlines()
                          if not line.startswith("CAPEV mac"))
    with pytest.raises(cap.CapError, match="'mac' lacks the compressed-instruction count, "
                                           "the jump/branch count"):
        cap.collect([no_events], "cluster4")
    no_hart = RVFPLIB.replace("CAP mac 3 1 37070 12398 22622\n", "")
    with pytest.raises(cap.CapError, match=r"on 3 harts: lines for harts \[0, 2\]"):
        cap.collect([no_hart], "cluster4")
    with pytest.raises(cap.CapError, match="no program output"):
        cap.collect([], "cluster4")


def test_markdown_and_the_bench_table() -> None:
    doc = cap.collect([RVFPLIB, LIBGCC], "cluster4")
    text = cap.markdown(doc)
    assert "## The cap on several harts" in text
    mac = rows(doc)["mac"]["harts"][-1]
    assert f"| {mac['speedup']:.2f}× ({mac['cap']:.2f}×) |" in text
    assert "| f32 `a*b+c` (libgcc) |" in text and "| `divu` loop |" in text
    assert "| f32 `a*b+c` (libgcc) | 0.880 | 1.104 | 1.03× | — | — | 1.05× (1.03×) |" in text
    table = bench_collect([], [])
    assert "The cap on several harts" not in bench_markdown(table)
    table["cap"] = doc
    assert text in bench_markdown(table)
    with pytest.raises(cap.CapError, match="schema"):
        cap.markdown({"schema": "other"})


def test_plan(tmp_path: Path) -> None:
    plan = cap.load_plan()
    assert plan.board == "cluster4" and plan.loops > 0 and "rvfplib" in plan.softfloat
    bad = tmp_path / "plan.toml"
    bad.write_text("[cap]\nboard = 'cluster4'\nloops = 0\nsoftfloat = ['libgcc']\n")
    with pytest.raises(cap.CapError, match="loops must be positive"):
        cap.load_plan(bad)
    bad.write_text("[matmul]\n")
    with pytest.raises(cap.CapError, match="plan 'cap'"):
        cap.load_plan(bad)


@pytest.mark.cluster
@pytest.mark.upstream
def test_cap_runs_on_the_cluster(fetcher: Fetcher, toolchain, tmp_path: Path) -> None:
    """Short loops, both soft-float choices: sane figures, and a divide loop that scales."""
    for name in ("cluster-tb", "cv32e40p", "verilator", "rvfplib"):
        require_input(fetcher, name)
    tree = copy_project(tmp_path / "src")
    out = scons(tree, "cap", "CAP_LOOPS=2").stdout
    assert "## The cap on several harts" in out
    doc = json.loads((tree / "build/bench/cap.json").read_text())
    by = rows(doc)
    assert set(by) == {"mac", "mac8", "divu", "i8tile",
                       *(f"f32-{s}" for s in cap.load_plan().softfloat)}
    for name, row in by.items():
        assert 0.1 < row["ipc1"] <= 1.0, name
        assert 0.5 < row["w"] < 1.5, name
        assert [h["n"] for h in row["harts"]] == [1, 2, 3, 4], name
        for h in row["harts"]:
            assert h["speedup"] <= h["n"] * 1.01, (name, h)
            assert h["speedup"] <= h["cap"] * 1.15, (name, h)  # the cap holds
    assert by["divu"]["harts"][-1]["speedup"] > 3  # divide-bound: the port is not the limit
    assert by["mac"]["harts"][-1]["speedup"] < 2  # fetch-bound: it is
    assert by["mac"]["harts"][0]["fetch_waits"] == 0  # one hart alone never waits
